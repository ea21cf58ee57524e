"""Check power: curated mutants of the package, each killed (or not) by its claim's own checks.

A :class:`Mutant` is one plausible wrong edit of the code behind a claim - a wrong constant, sign,
exponent, moment, normalisation or norm, a dropped term, a wrong cutoff, an off-by-one range. Mutants
are data and sit beside their claims' checks, in ``proofs_checks/mutants_<topic>.py`` (a module-level
``MUTANTS`` list; pytest does not collect these files).

:func:`run_mutant` applies one edit to a temporary copy of ``verify/`` and ``proofs_checks/`` (the
user's tree is never touched), runs ``pytest --verify-claim ID`` there in a subprocess (default tier),
and calls the mutant

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
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from ._validate import VerifyInputError, verify_int
from .claims import get_claim

__all__ = ["Mutant", "MutantResult", "collect", "run_mutant", "run_all", "power_by_claim"]

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


def _root_of(suite: Path) -> Path:
    return suite.resolve().parent


def collect(suite: str | os.PathLike | None = None, claims: list[str] | None = None) -> list[Mutant]:
    """Every mutant in ``proofs_checks/mutants_*.py``, optionally only those of ``claims``, in file order."""
    from .report import suite_path

    suite = Path(suite) if suite else suite_path()
    for cid in claims or []:
        get_claim(cid)
    out: list[Mutant] = []
    for path in sorted(suite.glob("mutants_*.py")):
        spec = importlib.util.spec_from_file_location(f"_verify_mutants_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for m in getattr(module, "MUTANTS", ()):
            if not isinstance(m, Mutant):
                raise VerifyInputError(f"Argument 'MUTANTS' in {path.name} must hold Mutant records, not {m!r}.")
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
    for part in ("verify", "proofs_checks"):
        shutil.copytree(root / part, dest / part, ignore=ignore)
    if (root / "pyproject.toml").exists():
        shutil.copy2(root / "pyproject.toml", dest / "pyproject.toml")


def claim_files(suite: Path, claim: str) -> list[str]:
    """The check modules that name ``claim`` (quoted), relative to the suite's parent: only these are collected,
    so a mutant is judged by its claim's own checks and an unrelated module cannot interfere."""
    quoted = (f'"{claim}"', f"'{claim}'")
    return [f"{suite.name}/{p.name}" for p in sorted(suite.glob("test_*.py"))
            if any(q in p.read_text(encoding="utf-8") for q in quoted)]


def _pytest(dest: Path, claim: str, timeout: float) -> tuple[int | None, str | None, str]:
    """Run the claim's default-tier checks in ``dest``; returns (exit code or None on timeout, verdict, tail)."""
    out = dest / "checks.json"
    env = {**os.environ, "PYTHONPATH": str(dest), "VERIFY_BLAS_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    files = claim_files(dest / "proofs_checks", claim)
    if not files:
        return 5, None, f"no check module names {claim}"
    cmd = [sys.executable, "-m", "pytest", *files, "-q", "-x", "-p", "no:cacheprovider", "-p", "no:randomly",
           "--import-mode=importlib", "-m", "not slow", "--tb=line", f"--verify-json={out}", "--verify-claim", claim]
    try:
        proc = subprocess.run(cmd, cwd=dest, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, f"timeout after {timeout:.0f} s"
    verdict = None
    if out.exists():
        from .report import aggregate

        rows = {r["id"]: r for r in aggregate(json.loads(out.read_text())["checks"])["claims"]}
        verdict = rows.get(claim, {}).get("verdict")
    tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-3:])
    return proc.returncode, verdict, tail


def _package_check(dest: Path) -> None:
    """The subprocess must import the copy, not the installed package (else nothing is mutated)."""
    env = {**os.environ, "PYTHONPATH": str(dest)}
    where = subprocess.run([sys.executable, "-c", "import verify, sys; sys.stdout.write(verify.__file__)"],
                           cwd=dest, env=env, capture_output=True, text=True).stdout
    if not Path(where).resolve().is_relative_to(dest.resolve()):
        raise RuntimeError(f"the mutant copy is not imported (verify comes from {where})")


def baseline(claim: str, root: Path, timeout: float = DEFAULT_TIMEOUT) -> str | None:
    """The claim's verdict on the unmutated copy; its checks must pass there."""
    with tempfile.TemporaryDirectory(prefix="verify-baseline-") as tmp:
        dest = Path(tmp)
        _copy_tree(root, dest)
        _package_check(dest)
        code, verdict, tail = _pytest(dest, claim, timeout)
    if code != 0:
        raise RuntimeError(f"{claim}: the unmutated checks do not pass (exit {code}): {tail}")
    return verdict


def run_mutant(m: Mutant, root: str | os.PathLike, base_verdict: str | None,
               timeout: float = DEFAULT_TIMEOUT) -> MutantResult:
    """Apply ``m`` in a temporary copy of ``root`` and run its claim's own checks."""
    res = MutantResult(name=m.name, claim=m.claim, path=m.path, why=m.why, outcome="error")
    if m.equivalent:
        res.outcome, res.detail = "equivalent", m.equivalent
        return res
    root = Path(root)
    text = (root / m.path).read_text(encoding="utf-8")
    if text.count(m.old) != 1:
        res.detail = f"the edit no longer applies: old text found {text.count(m.old)} times in {m.path}"
        return res
    with tempfile.TemporaryDirectory(prefix="verify-mutant-") as tmp:
        dest = Path(tmp)
        _copy_tree(root, dest)
        (dest / m.path).write_text(text.replace(m.old, m.new), encoding="utf-8")
        code, verdict, tail = _pytest(dest, m.claim, timeout)
    if code is None:
        res.outcome, res.detail = "killed", tail
    elif code == 1:
        res.outcome, res.detail = "killed", "a check failed: " + tail
    elif code == 2:  # the baseline collected these modules cleanly, so the mutant broke collection
        res.outcome, res.detail = "killed", "the checks no longer import: " + tail
    elif code == 0 and verdict != base_verdict:
        res.outcome, res.detail = "killed", f"verdict moved from {base_verdict} to {verdict}"
    elif code == 0:
        res.outcome, res.detail = "survived", f"checks pass, verdict {verdict}"
    else:
        res.detail = f"pytest exit code {code}: {tail}"
    return res


def run_all(mutants: list[Mutant], root: str | os.PathLike | None = None, jobs: int = 1,
            timeout: float = DEFAULT_TIMEOUT, progress: bool = True) -> list[MutantResult]:
    """Baselines per claim, then every mutant, ``jobs`` subprocesses at a time; results in input order."""
    from tqdm import tqdm

    from .report import suite_path

    jobs = verify_int(jobs, "jobs", minimum=1)
    root = Path(root) if root else _root_of(suite_path())
    claims = sorted({m.claim for m in mutants if not m.equivalent})
    bar = tqdm(total=len(claims) + len(mutants), desc="mutants", unit="run", disable=not progress, file=sys.stderr)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        base = {}
        for cid, fut in [(c, pool.submit(baseline, c, root, timeout)) for c in claims]:
            base[cid] = fut.result()
            bar.update(1)
        futs = [pool.submit(run_mutant, m, root, base.get(m.claim), timeout) for m in mutants]
        results = []
        for fut in futs:
            results.append(fut.result())
            bar.update(1)
    bar.close()
    return results


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
