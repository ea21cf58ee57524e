"""Check power: curated mutants of the package, each killed (or not) by its claim's own checks.

A :class:`Mutant` is one plausible wrong edit of the code behind a claim - a wrong constant, sign,
exponent, moment, normalisation or norm, a dropped term, a wrong cutoff, an off-by-one range. Mutants
are data and sit beside their claims' checks, in ``proofs_checks/<part>/mutants.py`` (a module-level
``MUTANTS`` list; pytest does not collect these files; :attr:`verify.claims.Claim.part` names the part).

:func:`run_mutant` applies one edit to a temporary copy of ``verify/`` and ``proofs_checks/`` (the
user's tree is never touched), runs ``pytest --verify-claim ID`` there in a subprocess (default tier; with a
baseline whose per-check coverage is recorded, only the checks that executed the edited function, fastest
first - or the one that killed the mutant before first, from the kill-order hint shipped in
``verify/data/mutant_kill_order.json`` - the others keeping their baseline results: see :func:`run_claim`), and
calls the mutant

* ``killed`` when a check fails (or the check modules no longer import), or when the claim's verdict differs
  from the unmutated baseline (a
  "verified" claim that turns "refuted" under a wrong constant has been told apart from the truth);
* ``survived`` otherwise - the claim's checks cannot see this error, so the claim cannot show a plain
  ``verified`` in the report;
* ``equivalent`` when the mutant is documented as changing nothing the claim says (not run, not counted);
* ``error`` when the edit no longer applies (its ``old`` text is not in the file exactly once) or the
  claim has no check in the default tier.

>>> m = Mutant("S-eq10", "verify/numeric/distributions.py", "3", "2", "Gaussian mu_4 = 2")
>>> m.claim, m.path
('S-eq10', 'verify/numeric/distributions.py')
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import importlib.util
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

from ._validate import VerifyInputError, verify_int
from .check_ids import rehome
from .claims import get_claim

__all__ = ["Mutant", "MutantResult", "ClaimServer", "collect", "run_mutant", "run_claim", "run_all",
           "power_by_claim", "load_kill_order", "write_kill_order", "KillOrderWarning", "KILL_ORDER"]

#: the fewest mutants a claim's task is split into (:func:`run_all`): each chunk pays a copy of the tree and the first
#: compilation of its modules, a few seconds
MIN_CHUNK = 4
#: a mutant whose checks run longer than this is counted killed by timeout (the usual convention:
#: a wrong edit that makes a check hang is detected, since the suite would not finish green)
DEFAULT_TIMEOUT = 600


@dataclass(frozen=True)
class Mutant:
    """One wrong edit: replace ``old`` (which must occur exactly once in ``path``) by ``new``."""

    claim: str
    path: str
    old: str
    new: str
    why: str
    equivalent: str | None = None   # why this edit changes nothing the claim says (documented, not run)

    @property
    def name(self) -> str:
        digest = hashlib.sha1(f"{self.path}\0{self.old}\0{self.new}".encode()).hexdigest()[:8]
        return f"{self.claim}:{digest}"


@dataclass
class MutantResult:
    name: str
    claim: str
    path: str
    why: str
    outcome: str          # killed | survived | equivalent | error
    detail: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


#: the kill-order hint shipped with the package: for each curated mutant, the check that killed it in the run that
#: wrote the file (:func:`write_kill_order`); :func:`run_all` puts that check first among the mutant's checks
KILL_ORDER = Path(__file__).resolve().parent / "data" / "mutant_kill_order.json"
_KILL_ORDER_FORMAT, _KILL_ORDER_VERSION = "verify-mutant-kill-order", 1


class KillOrderWarning(UserWarning):
    """A kill-order hint that is corrupt, foreign or stale, and so is ignored (it only ever orders checks)."""


def _valid_hint(name, nodeid) -> bool:
    claim, _, digest = name.partition(":") if isinstance(name, str) else ("", "", "")
    return bool(claim) and len(digest) == 8 and all(ch in "0123456789abcdef" for ch in digest) and \
        isinstance(nodeid, str) and nodeid.startswith("proofs_checks/") and "::" in nodeid and "\n" not in nodeid


def load_kill_order(path: str | os.PathLike | None = KILL_ORDER) -> dict[str, str]:
    """``{mutant name: node id of the check that killed it}`` from a kill-order file; ``{}`` when ``path`` is None
    or absent. A file that is not one (unreadable, not JSON, another format or version, a malformed entry) is
    ignored whole with a :class:`KillOrderWarning`: a hint is never partly trusted. It cannot change an outcome
    anyway: it only says which of a mutant's own checks runs first."""
    if path is None or not Path(path).is_file():
        return {}
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
        ok = isinstance(doc, dict) and doc.get("format") == _KILL_ORDER_FORMAT and \
            doc.get("version") == _KILL_ORDER_VERSION and isinstance(doc.get("killers"), dict) and \
            all(_valid_hint(k, v) for k, v in doc["killers"].items())
    except (OSError, UnicodeDecodeError, ValueError):
        ok = False
    if not ok:
        warnings.warn(f"ignored the kill-order hint {path}: not a {_KILL_ORDER_FORMAT} file of version "
                      f"{_KILL_ORDER_VERSION} (corrupt or foreign); the checks run fastest first", KillOrderWarning,
                      stacklevel=2)
        return {}
    # keyed by node id, read by check: a check moved to another module of the suite keeps its hint (verify.check_ids)
    return {k: rehome(v) for k, v in doc["killers"].items()}


def write_kill_order(killers: dict[str, str], path: str | os.PathLike = KILL_ORDER, keep: bool = True) -> int:
    """Write the kill-order file ``path`` (canonical JSON, atomically) from ``{mutant name: killing check}`` (a
    ``run_all(..., stats=...)`` run's ``stats["killers"]``); with ``keep``, the valid entries already there for
    mutants this run did not kill are kept (a run of some claims updates theirs). Returns the number of entries."""
    from ._io import atomic_write_text

    bad = sorted(k for k, v in killers.items() if not _valid_hint(k, v))
    if bad:
        raise VerifyInputError(f"Argument 'killers' must map mutant names to check node ids; not: {bad[:3]}.")
    merged = {**(load_kill_order(path) if keep else {}), **killers}
    atomic_write_text(path, json.dumps({"format": _KILL_ORDER_FORMAT, "version": _KILL_ORDER_VERSION,
                                        "killers": dict(sorted(merged.items()))}, indent=0, sort_keys=True) + "\n")
    return len(merged)


def _root_of(suite: Path) -> Path:
    return suite.resolve().parent


def collect(suite: str | os.PathLike | None = None, claims: list[str] | None = None) -> list[Mutant]:
    """Every mutant in ``proofs_checks/<part>/mutants.py``, optionally only those of ``claims``, in file order (the
    parts sorted by path)."""
    from .report import suite_path

    suite = Path(suite) if suite else suite_path()
    for cid in claims or []:
        get_claim(cid)
    out: list[Mutant] = []
    for path in sorted(suite.rglob("mutants.py"), key=lambda p: p.relative_to(suite).parts):
        tag = "_".join(path.relative_to(suite).parent.parts)
        spec = importlib.util.spec_from_file_location(f"_verify_mutants_{tag}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for m in getattr(module, "MUTANTS", ()):
            if not isinstance(m, Mutant):
                raise VerifyInputError(f"Argument 'MUTANTS' in {path.relative_to(suite)} must hold Mutant records, not {m!r}.")
            get_claim(m.claim)
            if not claims or m.claim in claims:
                out.append(m)
    names = [m.name for m in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise VerifyInputError(f"Argument 'MUTANTS' must not repeat an edit; repeated: {', '.join(dupes)}.")
    return out


def _copy_tree(root: Path, dest: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    # tests/ as well where there is one: a theorem check may read a reference from it (the Kasami moments of
    # tests/numeric/test_frame_quadratic.py), and must pass in the copy as it does in the tree
    for part in ("verify", "proofs_checks", "tests"):
        if part != "tests" or (root / part).is_dir():
            shutil.copytree(root / part, dest / part, ignore=ignore)
    if (root / "pyproject.toml").exists():
        shutil.copy2(root / "pyproject.toml", dest / "pyproject.toml")


def claim_files(suite: Path, claim: str) -> list[str]:
    """The check modules that name ``claim`` (quoted), relative to the suite's parent (``proofs_checks/S/loss/
    test_statements.py``, ...): only these are collected, so a mutant is judged by its claim's own checks and an
    unrelated module cannot interfere."""
    quoted = (f'"{claim}"', f"'{claim}'")
    return [p.relative_to(suite.parent).as_posix()
            for p in sorted(suite.rglob("test_*.py"), key=lambda p: p.relative_to(suite).parts)
            if "__pycache__" not in p.parts and any(q in p.read_text(encoding="utf-8") for q in quoted)]


#: the checks that never judge a mutant: the hypothesis-necessity rows (:mod:`verify.necessity`) search the statement
#: *without* one of its hypotheses, so they say nothing about whether the package computes the claim's quantity
#: (they live in the parts' ``test_searches.py``, beside checks that do judge, and are deselected by name)
NOT_JUDGES = ("test_hypothesis_necessity", "test_hypothesis_not_needed_full_budget")


def judges(nodeid: str) -> bool:
    """Whether the check ``nodeid`` takes part in judging its claim's mutants (see :data:`NOT_JUDGES`)."""
    return nodeid.split("::")[-1].split("[")[0] not in NOT_JUDGES


#: the claim server: one process imports the heavy libraries once (never ``verify``), then forks one child per run
#: (a claim's baseline, then each mutant); a child imports ``verify`` fresh from the copy, with the edit applied, so
#: every run is as independent as a new interpreter, without paying the imports again. It reads the path of one
#: claim's spec per line on stdin and answers ``DONE <path>`` on stdout once that claim's result file is written, so
#: one server serves every claim of a ``run_all`` job in turn (:class:`ClaimServer`); given spec paths as arguments
#: instead, it serves those and exits (``python -c _SERVER spec.json``, as ``benchmarks/mutation_judge.py`` runs
#: it). The library modules a child imported (never one of the copy: ``verify``, the checks, their conftest) are
#: imported here before the next fork: what the first runs paid for, the later runs of every claim inherit; the
#: code under test is still imported fresh.
#:
#: Two savings per run that leave every result as it was (profiled with ``benchmarks/profile_report.py --parts
#: mutants``: of a run of a 0.05 s check, about 1.5 s was pytest's collection, mostly assertion rewriting and
#: compiling the copy's modules, and the garbage collector's passes over the server's inherited heap):
#: ``gc.freeze()`` before each fork, so the child's collections skip the objects it inherited (the libraries,
#: which it never frees); and the children write the bytecode of the copy (plain and assertion-rewritten) into the
#: copy, so a later run of the claim loads it instead of compiling again. Python and pytest trust a ``.pyc`` whose
#: recorded source mtime (whole seconds) and size match, and a same-size edit written and undone within one second
#: would match: so the server deletes the mutated file's bytecode each time it writes that file (the edit, and
#: the undo). Only the server writes into the copy, and only that file, so no other ``.pyc`` there can be stale.
#: A run may put one check first (``run["first"]``, the kill-order hint): order only, the same checks run.
_SERVER = r'''
import gc, importlib.util, json, os, signal, sys, threading, time

LEARN = {"on": True}


def preload(names):
    for name in names:
        if not LEARN["on"]:
            break
        if name in sys.modules:
            continue
        try:
            __import__(name)
        except BaseException:
            pass
        if threading.active_count() > 1:   # forking with a second thread alive is unsafe: learn no further
            LEARN["on"] = False
    if "verify" in sys.modules or "proofs_checks" in sys.modules:
        raise SystemExit("the claim server must not import verify before forking")


def drop_bytecode(path):
    """Delete every cached bytecode of the source ``path`` (plain and pytest's rewritten), wherever it is kept."""
    where = os.path.dirname(importlib.util.cache_from_source(path))
    stem = os.path.splitext(os.path.basename(path))[0] + "."
    try:
        names = os.listdir(where)
    except OSError:
        return
    for name in names:
        if name.startswith(stem) and name.endswith(".pyc"):
            try:
                os.remove(os.path.join(where, name))
            except OSError:
                pass


def serve(spec):
    import pytest

    preload(spec["preload"])
    dest, results = spec["dest"], []
    base = spec.get("base_checks")   # the baseline's checks with their dependencies (from the cache), or None

    def select(targets):
        """The baseline checks that executed one of ``targets`` ([path, qualname]; None: every check), fastest
        first; None when the baseline is not known (then the claim's check modules run whole)."""
        if base is None:
            return None
        want = None if targets is None else {tuple(t) for t in targets}
        out = []
        for c in base:
            deps = c.get("deps")
            if want is None or not isinstance(deps, dict) or want & {tuple(f) for f in deps.get("functions", [])}:
                out.append((deps.get("seconds", 0.0) if isinstance(deps, dict) else float("inf"), c["nodeid"]))
        return [n for _, n in sorted(out)]

    def launch(run, targets, out, log):
        """Fork a child that runs pytest on ``targets``; its exit code (None: killed at the timeout). Then import
        the library modules it imported, for the next child."""
        t0 = time.monotonic()
        mods = out + ".mods"
        gc.freeze()   # the child's collections skip what it inherits (see above)
        pid = os.fork()
        if pid == 0:
            code = 70
            try:
                before = set(sys.modules)
                os.setpgid(0, 0)
                fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(fd, 1)
                os.dup2(fd, 2)
                os.chdir(dest)
                os.environ["PYTHONPATH"] = dest   # a check's own subprocess imports the copy too
                sys.path.insert(0, dest)
                sys.dont_write_bytecode = False   # into the copy, for the claim's later runs (see above)
                import verify
                if not os.path.realpath(verify.__file__).startswith(os.path.realpath(dest) + os.sep):
                    print("the mutant copy is not imported: verify comes from " + verify.__file__)
                    code = 71
                else:
                    code = int(pytest.main(targets + spec["args"] + run.get("extra", []) + ["--verify-json=" + out]))
                root = os.path.realpath(dest) + os.sep
                new = [n for n, m in list(sys.modules.items()) if n not in before
                       and n.split(".")[0] not in ("verify", "proofs_checks", "tests", "conftest")
                       and not os.path.realpath(getattr(m, "__file__", None) or "/").startswith(root)]
                with open(mods, "w", encoding="utf-8") as fh:
                    json.dump(new, fh)
            except BaseException as exc:
                print("claim server child: %r" % (exc,))
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        deadline, code = t0 + spec["timeout"], None
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() > deadline:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
                os.waitpid(pid, 0)
                break
            time.sleep(0.02)
        try:
            with open(mods, encoding="utf-8") as fh:
                preload(json.load(fh))
        except (OSError, ValueError):
            pass
        return code

    for run in spec["runs"]:
        chosen = select(run.get("targets"))
        unexecuted = chosen == []
        if unexecuted:   # no check executed the edit as recorded (compiled code, a subprocess): run them all
            chosen = select(None)
        hinted = bool(chosen) and run.get("first") in chosen
        if hinted:   # the check that killed this mutant before goes first: the same checks, in another order
            chosen = [run["first"]] + [n for n in chosen if n != run["first"]]
        path = os.path.join(dest, run["path"]) if run.get("path") else None
        original = None
        if path:
            with open(path, encoding="utf-8") as fh:
                original = fh.read()
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(original.replace(run["old"], run["new"]))
            drop_bytecode(path)
        out = os.path.join(spec["tmp"], run["id"] + ".json")
        log = os.path.join(spec["tmp"], run["id"] + ".log")
        t0 = time.monotonic()
        code = launch(run, chosen or spec["files"], out, log)
        if code == 4 and chosen:   # no collector for a node id (a module no longer imports, or the edit moved a
            # parametrisation): run the modules whole, as without a selection
            chosen, hinted = None, False
            code = launch(run, spec["files"], out, log)
        if path:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(original)
            drop_bytecode(path)
        try:
            with open(log, encoding="utf-8", errors="replace") as fh:
                tail = "\n".join(fh.read().strip().splitlines()[-3:])
        except OSError:
            tail = ""
        checks = None
        if os.path.exists(out):
            with open(out, encoding="utf-8") as fh:
                checks = json.load(fh)["checks"]
        if run["id"] == "baseline" and checks is not None and code == 0:
            base = checks
        results.append({"id": run["id"], "code": code, "checks": checks, "tail": tail, "chosen": chosen,
                        "unexecuted": unexecuted, "hinted": hinted, "seconds": round(time.monotonic() - t0, 3)})
    with open(spec["result"] + ".part", "w", encoding="utf-8") as fh:
        json.dump(results, fh)
    os.replace(spec["result"] + ".part", spec["result"])


# the specs named on the command line (one claim, then exit: the former interface), else one per line on stdin
for line in sys.argv[1:] or sys.stdin:
    name = line.strip()
    if name:
        with open(name, encoding="utf-8") as fh:
            serve(json.load(fh))
        sys.stdout.write("DONE " + name + "\n")
        sys.stdout.flush()
'''

#: libraries the claim server imports before forking (the ones the checks import; a missing one is skipped)
PRELOAD = ("numpy", "scipy", "scipy.linalg", "scipy.optimize", "scipy.stats", "scipy.special", "scipy.integrate",
           "scipy.sparse", "scipy.sparse.linalg", "sympy", "mpmath", "galois", "flint", "threadpoolctl", "tqdm",
           "hypothesis", "_pytest", "pytest", "xdist")


def _verdict_of(checks: list | None, claim: str) -> str | None:
    if checks is None:
        return None
    from .report import aggregate

    rows = {r["id"]: r for r in aggregate(checks)["claims"] + aggregate(checks)["beyond"]}
    return rows.get(claim, {}).get("verdict")


def _classify(m: Mutant, run: dict, base_verdict: str | None, timeout: float,
              base_checks: list | None = None) -> MutantResult:
    """Killed, survived or error from one run. A run of the checks that execute the edit (``run["chosen"]``)
    is judged with the baseline's results of the others: they never enter the mutated code, so they are
    unchanged, and the claim's verdict is that of a run of all its checks."""
    res = MutantResult(name=m.name, claim=m.claim, path=m.path, why=m.why, outcome="error")
    code, tail = run["code"], run["tail"]
    checks = run["checks"]
    if run.get("chosen") is not None and checks is not None and base_checks is not None:
        ran = {c["nodeid"] for c in checks}
        checks = [c for c in base_checks if c["nodeid"] not in ran] + checks
    verdict = _verdict_of(checks, m.claim)
    unexecuted = run.get("unexecuted", False)
    if code is None:
        res.outcome, res.detail = "killed", f"timeout after {timeout:.0f} s"
    elif code == 1:
        # name the failing checks from the run's results: the log's tail depends on pytest's terminal width (a
        # multi-line assertion message can push the FAILED line out of it)
        failed = [c["nodeid"] for c in (run["checks"] or []) if c.get("outcome") in ("failed", "error")]
        res.outcome, res.detail = "killed", "a check failed: " + (", ".join(failed) + "\n" if failed else "") + tail
    elif code == 2:  # the baseline collected these modules cleanly, so the mutant broke collection
        res.outcome, res.detail = "killed", "the checks no longer import: " + tail
    elif code == 0 and verdict != base_verdict:
        res.outcome, res.detail = "killed", f"verdict moved from {base_verdict} to {verdict}"
    elif code == 0 and unexecuted:
        res.outcome, res.detail = "survived", "no check executes the edit (per-check coverage of the baseline)"
    elif code == 0:
        res.outcome, res.detail = "survived", f"checks pass, verdict {verdict}"
    else:
        res.detail = f"pytest exit code {code}: {tail}"
    if res.outcome == "killed" and unexecuted:   # executed where coverage does not trace (numba, a subprocess)
        res.detail = ("killed by all the checks, although none executes the edit per coverage (compiled code or "
                      "a subprocess is not traced): " + res.detail)
    elif run.get("chosen") is not None and base_checks is not None:
        res.detail = f"[{len(run['chosen'])} of {len(base_checks)} checks execute the edit] " + res.detail
    return res


def mutated_functions(text: str, old: str) -> list[str] | None:
    """The qualified names of the functions whose lines the edit of ``old`` (found once in ``text``)
    touches, by :class:`verify.coverage_map.SourceIndex`; None when it touches module-level code (imports,
    constants, class bodies, a ``def`` line or decorator): every check that imports the module can see it."""
    from .coverage_map import MODULE, SourceIndex

    start = text.index(old)
    first = text.count("\n", 0, start) + 1
    last = first + old.count("\n", 0, max(len(old) - 1, 0))   # the line of old's last character
    index = SourceIndex(text)
    if not index.parsed:
        return None
    names = {index.function_of(n) for n in range(first, last + 1)}
    return None if MODULE in names else sorted(names)


class ClaimServer:
    """One claim server process (:data:`_SERVER`), serving claims one after another: ``run(claim, spec_path)``
    returns when that claim's result file is written, or raises RuntimeError if the server died. ``run_all``
    keeps one per job, so the interpreter start, the library imports and the modules learned from earlier runs are
    paid once per job instead of once per claim. A context manager; ``close()`` ends the process."""

    def __init__(self):
        self._busy = False
        self._dir = tempfile.TemporaryDirectory(prefix="verify-claim-server-")
        self._log = open(Path(self._dir.name) / "server.log", "w+", encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}   # each child puts its copy first
        env.update({"VERIFY_BLAS_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1",
                    # one thread per process: forking after a BLAS or OpenMP pool started would be unsafe, and the
                    # jobs already fill the cores
                    "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
        self._proc = subprocess.Popen([sys.executable, "-c", _SERVER], cwd=self._dir.name, env=env, text=True,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log)

    def run(self, claim: str, spec_path: str | os.PathLike) -> None:
        token = f"DONE {spec_path}"
        self._busy = True
        try:
            self._proc.stdin.write(f"{spec_path}\n")
            self._proc.stdin.flush()
            for line in self._proc.stdout:   # a library may print on stdout: only the answer counts
                if line.rstrip("\n") == token:
                    self._busy = False
                    return
        except (BrokenPipeError, OSError):
            pass
        self._proc.wait()
        self._log.seek(0)
        raise RuntimeError(f"{claim}: the claim server failed (exit {self._proc.returncode}): "
                           f"{self._log.read().strip().splitlines()[-3:]}")

    def close(self) -> None:
        """End the server: at once if it is still running a claim (an interrupted or failed run), else when it has
        read the end of its input."""
        if self._proc.poll() is None and self._busy:
            self._proc.kill()
        if self._proc.poll() is None:
            try:
                self._proc.stdin.close()
                self._proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        for fh in (self._proc.stdout, self._log):
            fh.close()
        self._dir.cleanup()

    def __enter__(self) -> "ClaimServer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def run_claim(claim: str, mutants: list[Mutant], root: str | os.PathLike, timeout: float = DEFAULT_TIMEOUT,
              base_verdict: str | None = None, with_baseline: bool = True, base_checks: list | None = None,
              select: bool = True, server: ClaimServer | None = None, first: dict | None = None) -> dict:
    """One process for one claim: its baseline (unless ``with_baseline`` is False, when ``base_verdict`` is
    known) and then every mutant in ``mutants``, each in a forked child importing the edited copy.

    A mutant runs only the claim's checks that executed the edited function in the baseline (recorded per
    check with coverage.py, :mod:`verify.coverage_map`), fastest first, stopping at the first failure; the
    others keep their baseline results. An edit of module-level code, or a baseline without recorded
    dependencies (``with_baseline`` False and no ``base_checks``), runs them all; so does ``select=False``
    (the harness before the selection, for ``benchmarks/bench_report.py``). ``server``: a running
    :class:`ClaimServer` to use (default: one started for this claim and closed after it). ``first``: the
    kill-order hint, ``{mutant name: node id}`` (:func:`load_kill_order`): that check, when it is one of the
    mutant's selected checks, runs first, the others after it fastest first; the same checks run either way (all
    of them unless one fails), so the outcome is the same, only sooner.

    Returns ``{"baseline": {"verdict", "checks"} or None, "results": [MutantResult, ...]}`` (input order; with
    ``"run_seconds"``, the wall time of each run by id - ``"baseline"``, ``"m<i>"`` - and ``"run_checks"``, the
    node ids each run ran, when anything ran; ``"killers"``, ``{mutant name: the check that failed
    first}`` of the killed ones; ``"hints"``, ``{"used", "stale", "missed"}``: hinted runs, hints naming no check of
    the mutant's selection, hinted checks that did not kill; stale ones are ignored with a
    :class:`KillOrderWarning`). Raises RuntimeError if the unmutated checks do not pass."""
    root = Path(root)
    results: dict[int, MutantResult] = {}
    runs, pending = [], []
    for i, m in enumerate(mutants):
        res = MutantResult(name=m.name, claim=m.claim, path=m.path, why=m.why, outcome="error")
        if m.equivalent:
            res.outcome, res.detail = "equivalent", m.equivalent
            results[i] = res
            continue
        text = (root / m.path).read_text(encoding="utf-8") if (root / m.path).is_file() else ""
        if text.count(m.old) != 1:
            res.detail = f"the edit no longer applies: old text found {text.count(m.old)} times in {m.path}"
            results[i] = res
            continue
        pending.append(i)
        targets = mutated_functions(text, m.old) if select and m.path.startswith("verify/") else None
        runs.append({"id": f"m{i}", "path": m.path, "old": m.old, "new": m.new,
                     "targets": None if targets is None else [[m.path, q] for q in targets],
                     "first": (first or {}).get(m.name)})
    baseline = None
    if not runs and not with_baseline:
        return {"baseline": None, "results": [results[i] for i in range(len(mutants))]}
    with tempfile.TemporaryDirectory(prefix="verify-mutants-") as tmp:
        dest = Path(tmp) / "tree"
        dest.mkdir()
        _copy_tree(root, dest)
        files = claim_files(dest / "proofs_checks", claim)
        if not files:
            for i in pending:
                results[i] = MutantResult(mutants[i].name, claim, mutants[i].path, mutants[i].why, "error",
                                          f"no check module names {claim}")
            return {"baseline": None, "results": [results[i] for i in range(len(mutants))]}
        if with_baseline:  # its dependencies are recorded: they fingerprint the claim for the mutant cache
            runs.insert(0, {"id": "baseline", "extra": ["--verify-deps"]})
        uses_torch = any("torch" in (dest / f).read_text(encoding="utf-8") for f in files)
        args = ["-q", "-x", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
                "--import-mode=importlib", "-m", "not slow", "--tb=line", "--verify-claim", claim,
                "-k", " and ".join(f"not {n}" for n in NOT_JUDGES), f"--rootdir={dest}"]
        spec = {"dest": str(dest), "tmp": tmp, "runs": runs, "files": files, "args": args, "timeout": float(timeout),
                "base_checks": None if with_baseline else base_checks,
                "preload": list(PRELOAD) + (["torch"] if uses_torch else []), "result": str(Path(tmp) / "out.json")}
        (Path(tmp) / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
        if server is None:   # a server of its own, for this claim only
            with ClaimServer() as own:
                own.run(claim, Path(tmp) / "spec.json")
        else:
            server.run(claim, Path(tmp) / "spec.json")
        done = {r["id"]: r for r in json.loads(Path(spec["result"]).read_text(encoding="utf-8"))}
    if with_baseline:
        b = done["baseline"]
        if b["code"] == 71 or b["code"] != 0:
            raise RuntimeError(f"{claim}: the unmutated checks do not pass (exit {b['code']}): {b['tail']}")
        base_verdict = _verdict_of(b["checks"], claim)
        baseline = {"verdict": base_verdict, "checks": b["checks"]}
        base_checks = b["checks"]
    killers, hints = {}, {"used": 0, "stale": 0, "missed": 0}
    for i in pending:
        run = done[f"m{i}"]
        if run["code"] == 71:
            raise RuntimeError(f"the mutant copy is not imported: {run['tail']}")
        results[i] = _classify(mutants[i], run, base_verdict, timeout, base_checks)
        failed = [c["nodeid"] for c in (run["checks"] or []) if c.get("outcome") in ("failed", "error")]
        if results[i].outcome == "killed" and failed:
            killers[mutants[i].name] = failed[0]
        hinted = (first or {}).get(mutants[i].name)
        if hinted and run.get("chosen") is not None:
            used = run.get("hinted", False)
            hints["used"] += used
            hints["stale"] += not used
            hints["missed"] += used and failed[:1] != [hinted]
    if hints["stale"]:
        warnings.warn(f"{claim}: ignored {hints['stale']} stale kill-order hints (the check they name is not among "
                      "their mutant's checks): those mutants ran their checks fastest first", KillOrderWarning,
                      stacklevel=2)
    return {"baseline": baseline, "results": [results[i] for i in range(len(mutants))], "killers": killers,
            "hints": hints,   # the rest: profiling only, never in a result
            "run_seconds": {r["id"]: r["seconds"] for r in done.values()},
            "run_checks": {r["id"]: [c["nodeid"] for c in r["checks"] or []] for r in done.values()}}


def baseline(claim: str, root: Path, timeout: float = DEFAULT_TIMEOUT) -> str | None:
    """The claim's verdict on the unmutated copy; its checks must pass there."""
    return run_claim(claim, [], root, timeout)["baseline"]["verdict"]


def run_mutant(m: Mutant, root: str | os.PathLike, base_verdict: str | None,
               timeout: float = DEFAULT_TIMEOUT) -> MutantResult:
    """Apply ``m`` in a temporary copy of ``root`` and run its claim's own checks."""
    return run_claim(m.claim, [m], root, timeout, base_verdict=base_verdict, with_baseline=False)["results"][0]


def _claim_fingerprint(claim: str, checks: list, root: Path, sources=None) -> str | None:
    """The claim's default-tier fingerprint from its baseline checks' dependencies (see :mod:`verify.cache`),
    with the list of check modules that name it. ``sources``: the run's :class:`verify.cache.Sources` of ``root``
    (its digests are computed once per run), else a fresh one."""
    from .cache import Sources, _sha, check_fingerprint, claim_fingerprint
    from ._io import canonical_json

    sources = sources if sources is not None else Sources(root, root)
    pairs = [(c["nodeid"], check_fingerprint({"nodeid": c["nodeid"], "file": c["nodeid"].split("::")[0],
                                              "deps": c.get("deps")}, sources, [])) for c in checks]
    fp = claim_fingerprint(pairs)
    if fp is None or not pairs:
        return None
    files = claim_files(root / "proofs_checks", claim)
    return _sha(canonical_json([fp, [[f, sources.file_digest(f)] for f in files]]))


def _baseline_from_report(store, claim: str, root: Path, root_sources=None) -> dict | None:
    """The claim's default-tier baseline from the cache entries of a ``verify report`` run on this tree (each
    check's result and dependencies, its fingerprint recomputed against the files as they are now), so that
    ``verify report --power`` does not run the claim's checks a second time; None if one is missing or moved.

    The checks are those a baseline run would select: the claim's, outside the slow tier, in the check modules
    that name it (:func:`claim_files`)."""
    from . import cache as _cache
    from .report import _base_args, selection_key, suite_path

    suite = suite_path()
    if _root_of(suite) != root:
        return None
    rows = None
    for fast in (False, True):   # the collection of a full or a --fast report
        args, rroot = _base_args(suite, fast, None, None, None)
        rows = store.get("collection", selection_key(args, rroot, suite))
        if isinstance(rows, list):
            break
    if not isinstance(rows, list):
        return None
    files = set(claim_files(suite, claim))
    wanted = sorted(r["nodeid"] for r in rows if claim in r.get("ids", ()) and not r.get("slow")
                    and r.get("file") in files and judges(r["nodeid"]))
    if not wanted:
        return None
    sources = _cache.Sources(rroot)
    conftests = sorted(str(p.relative_to(rroot)) for p in suite.rglob("conftest.py"))
    checks = []
    for nodeid in wanted:
        entry = store.get("check", nodeid)
        if not (isinstance(entry, dict) and entry.get("fingerprint") and isinstance(entry.get("result"), dict)
                and _cache.check_fingerprint(entry, sources, conftests) == entry["fingerprint"]):
            return None
        checks.append({**entry["result"], "deps": entry["deps"]})
    fp = _claim_fingerprint(claim, checks, root, root_sources)
    if fp is None:
        return None
    return {"checks": checks, "fingerprint": fp, "verdict": _verdict_of(checks, claim)}


def _mutant_key(m: Mutant, timeout: float) -> str:
    return f"{m.name}\0{m.path}\0{m.old}\0{m.new}\0{timeout}"


def run_all(mutants: list[Mutant], root: str | os.PathLike | None = None, jobs: int = 1,
            timeout: float = DEFAULT_TIMEOUT, progress: bool = True, cache_dir: str | os.PathLike | None = None,
            scheduler: str | None = None, stats: dict | None = None,
            kill_order: str | os.PathLike | dict | None = KILL_ORDER) -> list[MutantResult]:
    """Every mutant, one process per claim (:func:`run_claim`), ``jobs`` claims at a time (or as Dask tasks on
    ``scheduler``: ``"local"`` or an address); results in input order. A claim with more mutants to run than one
    job's share (all to run over ``jobs``, at least :data:`MIN_CHUNK`) is split into interleaved chunks that run
    side by side, after its baseline when that is not known yet; outcomes are the same either way.

    With ``cache_dir``, a mutant's outcome is reused when neither its claim's fingerprint (its default-tier
    checks' dependencies) nor the mutated file changed; each claim's outcomes enter the cache as it finishes.

    ``kill_order``: the kill-order hint (a file, default the one shipped with the package, :data:`KILL_ORDER`; or
    ``{mutant name: node id}``; None: none): each mutant's check that killed it before runs first (order only: see
    :func:`run_claim`); a hint that names no check of its mutant's selection is stale: ignored, with a
    :class:`KillOrderWarning` per claim. ``stats`` then also receives ``"killers"`` (for :func:`write_kill_order`) and
    ``"kill_order"`` (``{"used", "stale", "missed"}``)."""
    from tqdm import tqdm

    from .report import suite_path

    jobs = verify_int(jobs, "jobs", minimum=1)
    root = Path(root) if root else _root_of(suite_path())
    first = dict(kill_order) if isinstance(kill_order, dict) else load_kill_order(kill_order)
    store = None
    if cache_dir is not None:
        from .cache import Cache

        store = Cache(cache_dir)
    by_claim: dict[str, list[int]] = {}
    for i, m in enumerate(mutants):
        by_claim.setdefault(m.claim, []).append(i)
    out: dict[int, MutantResult] = {}
    tasks = []   # (claim, [indices to run], base verdict or None, has a base, the base's checks)
    reused = from_report = 0
    from .cache import Sources

    sources = Sources(root, root)
    for claim, idx in by_claim.items():
        runnable = [i for i in idx if not mutants[i].equivalent]
        base, fp = None, None
        if store is not None and runnable:
            entry = store.get("mutant-claim", claim)
            if entry and entry.get("fingerprint") and isinstance(entry.get("checks"), list) and \
                    all("outcome" in c for c in entry["checks"]) and \
                    _claim_fingerprint(claim, entry["checks"], root, sources) == entry["fingerprint"]:
                base, fp = entry, entry["fingerprint"]
            else:   # the report that ran before (--power) has the baseline's checks in the cache already
                base = _baseline_from_report(store, claim, root, sources)
                if base is not None:
                    store.put("mutant-claim", claim, base)
                    fp = base["fingerprint"]
                    from_report += 1
        todo = []
        for i in idx:
            m = mutants[i]
            if m.equivalent:   # documented, never run
                out[i] = MutantResult(m.name, m.claim, m.path, m.why, "equivalent", m.equivalent)
                continue
            hit = store.get("mutant", _mutant_key(m, timeout)) if (store is not None and fp) else None
            if hit and hit.get("fingerprint") == fp and hit.get("file") == sources.file_digest(m.path):
                out[i] = MutantResult(**hit["result"])
                reused += 1
            else:
                todo.append(i)
        if todo:
            tasks.append((claim, todo, base["verdict"] if base else None, base is not None,
                          base["checks"] if base else None))
    # the claims with most runs first, so that the longest do not start last
    tasks.sort(key=lambda t: (-len(t[1]), t[0]))
    claims_run = len(tasks)
    bar = tqdm(total=sum(len(t[1]) + (not t[3]) for t in tasks), desc="mutants", unit="run", disable=not progress,
               file=sys.stderr, dynamic_ncols=True)
    # a claim with more runs than one job's share is split, so the other jobs do not idle while it runs (one claim's
    # 20 mutants on one of two workers): without a baseline, its baseline runs first as a task of its own and its
    # mutants follow, in chunks, once the baseline is known (each chunk copies the tree: a few seconds, so chunks
    # hold MIN_CHUNK mutants or more)
    share = max(MIN_CHUNK, -(-sum(len(t[1]) for t in tasks) // jobs))
    split = [t for t in tasks if len(t[1]) > share] if jobs > 1 else []
    later = [t for t in split if not t[3]]   # their mutants wait for their baselines
    based: dict = {}

    seconds: dict = {}
    killers: dict = {}
    hints = {"used": 0, "stale": 0, "missed": 0}

    def finish(task, got: dict) -> None:
        claim, todo, _, had_base, _ = task
        # for profiling (stats), never in the results; a split claim's chunks add up
        seconds[claim] = round(seconds.get(claim, 0.0) + got.get("seconds", 0.0), 1)
        if got["baseline"] is not None:
            based[claim] = got["baseline"]
        killers.update(got.get("killers", {}))
        for k, v in got.get("hints", {}).items():
            hints[k] += v
        for i, res in zip(todo, got["results"]):
            out[i] = res
        if store is not None:
            if got["baseline"] is not None:
                checks = got["baseline"]["checks"]
                fp = _claim_fingerprint(claim, checks, root, sources)
                if fp:
                    store.put("mutant-claim", claim, {"checks": checks, "fingerprint": fp,
                                                      "verdict": got["baseline"]["verdict"]})
            else:
                fp = (store.get("mutant-claim", claim) or {}).get("fingerprint")
            if fp:
                for i in todo:
                    m = mutants[i]
                    if out[i].outcome in ("killed", "survived", "equivalent"):
                        store.put("mutant", _mutant_key(m, timeout), {"fingerprint": fp, "result": out[i].as_dict(),
                                                                     "file": sources.file_digest(m.path)})
        bar.update(len(todo) + (not had_base))

    def spec_of(t) -> dict:
        return {"claim": t[0], "mutants": [asdict(mutants[i]) for i in t[1]], "root": str(root), "timeout": timeout,
                "base_verdict": t[2], "with_baseline": not t[3], "base_checks": t[4],
                "first": {mutants[i].name: first[mutants[i].name] for i in t[1] if mutants[i].name in first}}

    def chunks(of: list) -> list:
        """The mutants of the split claims ``of``, each claim's in interleaved chunks, with its baseline (known, or
        run in the first phase)."""
        out_ = []
        for claim, todo, verdict, had, checks in of:
            if not had:
                verdict, checks = based[claim]["verdict"], based[claim]["checks"]
            k = -(-len(todo) // share)
            out_ += [(claim, todo[j::k], verdict, True, checks) for j in range(k)]
        return out_

    tasks = ([t for t in tasks if t not in split] + chunks([t for t in split if t[3]])
             + [(t[0], [], None, False, None) for t in later])
    phases = [tasks, lambda: chunks(later)]   # the second is built once the first's baselines are known
    if scheduler is not None and (tasks or later):
        from .distributed import get_client, iter_completed

        with get_client(None if scheduler == "local" else scheduler, n_workers=jobs) as client:
            for phase in phases:   # iter_completed makes each call's keys its own
                todo_ = phase() if callable(phase) else phase
                for k, got in iter_completed(client, run_claim_task, [spec_of(t) for t in todo_], progress=False,
                                             key_prefix="verify-mutants"):
                    finish(todo_[k], _from_task(got))
    elif tasks or later:
        # one claim server per job, serving its claims in turn (a server is taken by one task at a time)
        idle: queue.SimpleQueue = queue.SimpleQueue()
        started: list[ClaimServer] = []

        def task(spec: dict) -> dict:
            try:
                server = idle.get_nowait()
            except queue.Empty:
                server = ClaimServer()
                started.append(server)
            got = run_claim_task(spec, server=server)
            idle.put(server)   # not after a failure: that server is closed below
            return got

        try:
            with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
                for phase in phases:
                    todo_ = phase() if callable(phase) else phase
                    futs = {pool.submit(task, spec_of(t)): k for k, t in enumerate(todo_)}
                    for fut in concurrent.futures.as_completed(futs):
                        finish(todo_[futs[fut]], _from_task(fut.result()))
        finally:
            for server in started:
                server.close()
    bar.close()
    if stats is not None:
        stats.update(reused=reused, run=sum(len(t[1]) for t in tasks + later), claims_run=claims_run,
                     baselines_from_report=from_report,
                     equivalent=sum(1 for m in mutants if m.equivalent), claim_seconds=seconds,
                     killers=killers, kill_order=hints)
    return [out[i] for i in range(len(mutants))]


def run_claim_task(spec: dict, server: ClaimServer | None = None) -> dict:
    """A claim's mutants (or a chunk of them) as one task (threads here, Dask tasks on a cluster): plain data in
    and out; ``server``: the job's running claim server (a Dask task starts its own)."""
    import time

    t0 = time.perf_counter()
    got = run_claim(spec["claim"], [Mutant(**m) for m in spec["mutants"]], spec["root"], spec["timeout"],
                    base_verdict=spec["base_verdict"], with_baseline=spec["with_baseline"],
                    base_checks=spec.get("base_checks"), server=server, first=spec.get("first"))
    return {"baseline": got["baseline"], "results": [r.as_dict() for r in got["results"]],
            "seconds": time.perf_counter() - t0, "killers": got.get("killers", {}), "hints": got.get("hints", {})}


def _from_task(got: dict) -> dict:
    return {"baseline": got["baseline"], "results": [MutantResult(**r) for r in got["results"]],
            "seconds": got.get("seconds", 0.0), "killers": got.get("killers", {}), "hints": got.get("hints", {})}


def power_by_claim(results: list[MutantResult]) -> dict:
    """``{claim: {"killed": k, "total": n, "survivors": [...], "equivalent": e, "errors": [...]}}``."""
    out: dict = {}
    for r in results:
        row = out.setdefault(r.claim, {"killed": 0, "total": 0, "survivors": [], "equivalent": 0, "errors": []})
        if r.outcome == "equivalent":
            row["equivalent"] += 1
            continue
        row["total"] += 1
        row["killed"] += r.outcome == "killed"
        if r.outcome == "survived":
            row["survivors"].append(r.name)
        elif r.outcome == "error":
            row["errors"].append(r.name)
    return out
