"""Run the theorem suite and aggregate the checks into one verdict per claim.

Per claim (registry order):

* ``not-checked`` - no check of the claim ran (none written, or all skipped/deselected);
* ``inconclusive`` - a check failed or errored (the suite is red), or a check recorded ``inconclusive``;
* otherwise the strongest verdict recorded by its non-corrected checks: refuted > inconclusive > verified
  (experiments: contradicted > inconclusive > supported). A refuted claim carries the severity of its most
  serious refutation (error > missing-hypothesis > degenerate) and that refutation's justification; an
  experiment carries its scale.

Checks marked ``corrected=True`` test the corrected statement of a refuted claim; they are listed with
the claim but do not set its verdict.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import pytest

from .claims import ALL_VERDICTS, BEYOND, CHECK_KINDS, CLAIMS, PAPERS, SEVERITIES
from ._validate import verify_choice, verify_int
from .necessity import NOT_SEARCHABLE, typeset
from .progress import bar_width

# The reporters live in verify.reporters (one module per format, all reading the document above); these names
# stay importable from here for the plugin, the commands and the tests.
from .reporters._common import short as _short, variants_line, verdict_label  # noqa: F401
from .reporters.compare import COMPARED, compare, format_changes  # noqa: F401
from .reporters.json import read_json, write_json  # noqa: F401
from .reporters.markdown import format_markdown  # noqa: F401
from .reporters.terminal import format_summary, format_table  # noqa: F401

_RANK = {"verified": 0, "inconclusive": 1, "refuted": 2}
#: records that sit beside the verdict (issue 25; the statement variants of verify.statements): record word -> the
#: row key that lists them
SIDE_RECORDS = {"certified": "certified", "necessity": "necessity", "variant": "variants"}


def suite_path() -> Path:
    """The ``proofs_checks`` folder: the one in the working directory, else the installed package."""
    local = Path.cwd() / "proofs_checks"
    if local.is_dir():
        return local
    import proofs_checks

    return Path(proofs_checks.__file__).parent


def expected_durations(root: Path | None = None, recorded: Path | None = None) -> dict:
    """Seconds per check node id, as the progress bars expect them: the durations the last plain pytest run of the
    project recorded (its ``.pytest_cache``, the scheduler's key :data:`verify.xdist_schedule.DURATIONS_KEY`) over
    those the last report recorded (``recorded``: its cache folder's
    :data:`verify.xdist_schedule.REPORT_DURATIONS`) over the hint shipped with the package
    (:data:`verify.xdist_schedule.HINT`)."""
    from . import xdist_schedule

    durations = xdist_schedule.load_hint()
    if recorded is not None:
        durations.update(xdist_schedule.load_hint(recorded))
    cached = Path(root or Path.cwd()) / ".pytest_cache" / "v" / xdist_schedule.DURATIONS_KEY
    try:
        durations.update(xdist_schedule.valid_durations(json.loads(cached.read_text(encoding="utf-8"))))
    except (OSError, ValueError):
        pass
    return durations


class _Progress:
    """A tqdm bar over the checks while pytest runs quietly, advanced by the **expected seconds** of each finished
    check (:func:`expected_durations`; a check never timed counts as the median of those that were), not by their
    count: one check of Table 1 weighs as much as the hundreds of one-second checks it outlasts, so the ETA is the
    recorded work left at the pace measured so far (a count-based bar said 8 h 45 min for a 12-minute run).

    The ETA (:meth:`eta`) starts from the recorded durations themselves (``workers`` checks at a time) and moves to
    the measured pace as work finishes: one short first check on a loaded machine does not decide it alone. The
    bar writes to stderr whether or not it is a terminal (a pseudo-terminal, CI logs); its label counts checks."""

    #: expected seconds of finished work worth as much as the recorded durations in the pace (:meth:`eta`)
    PRIOR_SECONDS = 2.0

    def __init__(self, total: list | int | None = None, desc: str = "checks", durations: dict | None = None,
                 root: Path | None = None, workers: int = 1):
        from tqdm import tqdm

        self.workers = max(1, int(workers or 1))
        self.last = ""
        self.expected = durations if durations is not None else expected_durations(root)
        self.done = 0
        self.count = 0
        self.default = 1.0
        self.fixed = total is not None
        self.desc = desc
        self.bar = tqdm(desc=desc, file=sys.stderr, mininterval=0.5, smoothing=0, **bar_width(),
                        bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}{postfix}]")
        if isinstance(total, int):   # a count only: no node ids to weigh
            total = [f"#{i}" for i in range(total)]
        if total is not None:
            self._start(total)

    def cost(self, nodeid: str) -> float:
        """The expected seconds of one check (at least 0.05 s, so that every check moves the bar)."""
        return max(0.05, self.expected.get(nodeid, self.default))

    def _start(self, nodeids: list) -> None:
        known = sorted(self.expected[n] for n in nodeids if n in self.expected)
        self.default = known[len(known) // 2] if known else 1.0
        self.count = len(nodeids)
        # the clock starts now: the collection before (up to a minute) is not the checks' pace
        self.bar.reset(total=sum(self.cost(n) for n in nodeids))
        self.bar.set_description_str(f"{self.desc} 0/{self.count}", refresh=False)
        self.bar.set_postfix_str(f"left ~{self.eta()}", refresh=True)

    def eta(self) -> str:
        r"""The time left: the expected seconds left over the pace :math:`(w_0 P + n)/(P + t)` expected seconds per
        second, :math:`n` the expected seconds finished in :math:`t` seconds of checks, :math:`w_0` the workers
        (the pace the recorded durations predict) and :math:`P` = :data:`PRIOR_SECONDS` of it."""
        from tqdm import tqdm

        n, total = self.bar.n, self.bar.total or 0
        t = self.bar.format_dict["elapsed"]
        pace = (self.workers * self.PRIOR_SECONDS + n) / (self.PRIOR_SECONDS + t)
        return tqdm.format_interval(max(0.0, total - n) / pace)

    def pytest_collection_finish(self, session):
        if not self.fixed:
            self._start([item.nodeid for item in session.items])

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids):  # under xdist only workers collect
        if not self.fixed:
            self._start(list(ids))

    def pytest_runtest_logreport(self, report):
        if report.when == "teardown":
            self.done += 1
            self.bar.set_description_str(f"{self.desc} {self.done}/{self.count}", refresh=False)
            step = self.cost(report.nodeid) if self.bar.total else 1
            self.bar.n += min(step, max(0.0, (self.bar.total or step) - self.bar.n))
            self.bar.set_postfix_str(f"left ~{self.eta()}, {report.nodeid.rsplit('::', 1)[-1][:32]}", refresh=False)
            self.bar.update(0)

    def pytest_sessionfinish(self):
        self.bar.close()


def _base_args(suite: Path, fast: bool, paper, keyword, extra_args) -> tuple[list, Path]:
    args = [str(suite), "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
            "-m", "not slow" if fast else "", "-o", "console_output_style=classic", "--tb=line", "-rN",
            "-p", "no:randomly"]   # a plugin that shuffles would not change a verdict, but keep runs alike
    # node ids relative to the project (or to a bare suite folder), whatever the working directory:
    # pytest would otherwise take the common ancestor of cwd and the suite, and the ids would move
    root = suite.parent if (suite.parent / "pyproject.toml").exists() else suite
    args.append(f"--rootdir={root}")
    if paper:
        args.append(f"--verify-paper={paper}")
    if keyword:
        args += ["-k", keyword]
    return args + list(extra_args or []), root


def _pytest_quiet(args: list, plugins: list) -> int:
    with open(os.devnull, "w") as devnull:
        saved = sys.stdout
        sys.stdout = devnull  # the table is the output; pytest's own chatter is not
        try:
            return int(pytest.main(args, plugins=plugins))
        finally:
            sys.stdout = saved


def run_suite(fast: bool = False, paper: str | None = None, keyword: str | None = None,
              workers: int | None = None, suite: Path | None = None, progress: bool = True,
              extra_args: list | None = None, cache_dir: Path | None = None, scheduler: str | None = None,
              stats: dict | None = None) -> tuple[int, list]:
    """Run the suite with pytest; return ``(exit code, per-check results)``.

    ``cache_dir`` (incremental run): a claim whose fingerprint (:mod:`verify.cache`) did not move is merged
    from the cache; the others' checks run, with their dependencies recorded, and enter the cache one by one as
    they finish (so an interrupted run resumes). ``scheduler``: run the claims as Dask tasks (``"local"``: a
    LocalCluster of ``workers`` processes; else a scheduler address). The results are the same, byte for byte,
    either way. ``stats``, if given, receives ``{"reused": [claim...], "rerun": [claim...], "checks_run": n,
    "checks_reused": n, "wall_s": s}``.
    """
    import time

    t0 = time.perf_counter()
    if paper is not None:
        verify_choice(paper, "paper", ("S", "N"))
    if workers is not None:
        verify_int(workers, "workers", minimum=1)
    if scheduler is not None and scheduler != "local":
        from .distributed import parse_scheduler

        parse_scheduler(scheduler)
    suite = Path(suite) if suite else suite_path()
    args, root = _base_args(suite, fast, paper, keyword, extra_args)
    if cache_dir is None and scheduler is None:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "checks.json"
            run_args = args + [f"--verify-json={out}"] + (["-n", str(workers)] if workers and workers > 1 else [])
            code = _pytest_quiet(run_args, [_Progress(root=root, workers=workers or 1)] if progress else [])
            checks = json.loads(out.read_text())["checks"] if out.exists() else []
        if stats is not None:
            stats.update(reused=[], rerun=sorted({c for chk in checks for c in chk["ids"]}), checks_run=len(checks),
                         checks_reused=0, wall_s=time.perf_counter() - t0)
        return code, checks
    from . import cache as _cache

    store = _cache.Cache(cache_dir) if cache_dir is not None else None
    selected = _collect_selection(args, root, suite, store)
    if selected is None:   # the suite does not collect (an import error): as pytest says it
        return 2, []
    sources = _cache.Sources(root)
    conftests = sorted(str(p.relative_to(root)) for p in suite.rglob("conftest.py")) \
        if suite.is_relative_to(root) else []
    by_claim: dict[str, list] = {}
    for row in selected:
        for cid in row["ids"]:
            by_claim.setdefault(cid, []).append(row)
    cached: dict[str, dict] = {}
    if store is not None:
        for row in selected:
            entry = store.get("check", row["nodeid"])
            if entry and entry.get("fingerprint") and entry.get("file") == row["file"] and \
                    _cache.check_fingerprint(entry, sources, conftests) == entry["fingerprint"]:
                cached[row["nodeid"]] = entry
    reused = sorted(c for c, rows in by_claim.items() if all(r["nodeid"] in cached for r in rows))
    rerun = sorted(set(by_claim) - set(reused))
    todo = sorted({r["nodeid"] for c in rerun for r in by_claim[c]} | {r["nodeid"] for r in selected if not r["ids"]})
    files = {r["nodeid"]: r["file"] for r in selected}
    fresh: dict[str, dict] = {}
    code = 0

    def keep(result: dict) -> None:
        """One finished check: into the results and (passed or skipped: deterministic) into the cache."""
        fresh[result["nodeid"]] = result
        if store is None or result.get("outcome") not in ("passed", "skipped") or "deps" not in result:
            return
        entry = {"nodeid": result["nodeid"], "file": files.get(result["nodeid"]), "deps": result["deps"],
                 "result": {k: v for k, v in result.items() if k != "deps"}}
        if entry["file"] is None:
            return
        entry["fingerprint"] = _cache.check_fingerprint(entry, sources, conftests)
        if entry["fingerprint"]:
            store.put("check", result["nodeid"], entry)

    if todo:
        if scheduler is not None:
            code = _run_on_dask(todo, rerun, by_claim, args, root, scheduler, workers, progress, keep)
        else:
            from .xdist_schedule import REPORT_DURATIONS

            code = _run_xdist(todo, args, workers, progress, keep, store.path / REPORT_DURATIONS if store else None)
    merged = {n: e["result"] for n, e in cached.items() if n not in todo}
    merged.update({n: {k: v for k, v in r.items() if k != "deps"} for n, r in fresh.items()})
    checks = [merged[n] for n in sorted(merged)]
    if code in (0, 5) or (code == 1 and todo):
        failed = any(c["outcome"] in ("failed", "error") for c in checks)
        code = 1 if failed else (0 if checks or not selected else 5)
    if stats is not None:
        stats.update(reused=reused, rerun=rerun, checks_run=len(fresh), checks_reused=len(merged) - len(fresh),
                     wall_s=time.perf_counter() - t0, cache_warnings=list(store.warned) if store else [])
    return code, checks


def selection_key(args: list, root: Path, suite: Path) -> str:
    """The cache key of a collection: the pytest arguments, the folders, the versions and every source file of
    the suite and the package (so :mod:`verify.mutants` finds the selection of the report that ran before)."""
    from . import cache as _cache
    from .coverage_map import package_dir

    pkg = package_dir()
    sources = sorted(p for p in suite.rglob("*.py") if "__pycache__" not in p.parts) + \
        sorted(p for p in pkg.rglob("*.py") if "__pycache__" not in p.parts)
    return _cache._sha(_cache.canonical_json([_cache.environment(), args, str(root), str(pkg),
                                              [[str(p), _cache._sha(p.read_bytes())] for p in sources]]))


def _collect_selection(args: list, root: Path, suite: Path, store) -> list | None:
    """The selected claim checks ``[{nodeid, ids, corrected, slow, file}]``, from the cache when no file
    collection depends on moved (the suite's and the package's sources, the selection, the versions)."""
    key = selection_key(args, root, suite)
    if store is not None:
        hit = store.get("collection", key)
        if isinstance(hit, list):
            return hit
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "collected.json"
        code = _pytest_quiet(args + ["--collect-only", f"--verify-collect={out}"], [])
        if code not in (0, 5) or not out.exists():
            return None
        rows = json.loads(out.read_text())["checks"]
    for row in rows:
        f = Path(row["file"])
        row["file"] = str(f.relative_to(root)) if f.is_relative_to(root) else str(f)
    if store is not None:
        store.put("collection", key, rows)
    return rows


class _Collector:
    """In the xdist controller: hands every finished check (result and dependencies) to ``keep``."""

    def __init__(self, keep):
        self.keep = keep
        self.config = None

    def pytest_configure(self, config):
        self.config = config

    @pytest.hookimpl(trylast=True)   # after the verify plugin has filed the report
    def pytest_runtest_logreport(self, report):
        if report.when != "teardown" or self.config is None:
            return
        res = getattr(self.config, "_verify_results", {}).get(report.nodeid)
        if res is not None:
            self.keep(json.loads(json.dumps(res)))


def _run_xdist(todo: list, args: list, workers, progress: bool, keep, durations: Path | None = None) -> int:
    """The checks ``todo`` with pytest-xdist (always in worker processes, so that each check's dependencies,
    collection included, are recorded in a fresh interpreter). ``durations``: the file where the checks' seconds
    are recorded and read back to share out the next run (pytest's own cache is off in a report)."""
    with tempfile.TemporaryDirectory() as tmp:
        ids = Path(tmp) / "nodeids.txt"
        ids.write_text("".join(n + "\n" for n in todo), encoding="utf-8")
        run_args = args + [f"--verify-json={Path(tmp) / 'checks.json'}", "--verify-deps", f"--verify-nodeids={ids}",
                           "-n", str(max(1, min(workers or 1, len(todo))))] + \
            ([f"--verify-durations={durations}"] if durations is not None else [])
        n = max(1, min(workers or 1, len(todo)))
        plugins = [_Collector(keep)] + ([_Progress(total=list(todo), workers=n,
                                                   durations=expected_durations(recorded=durations))]
                                        if progress else [])
        return _pytest_quiet(run_args, plugins)


def _groups(todo: list, rerun: list, by_claim: dict) -> list[list[str]]:
    """The checks to run, in groups that share no check (claims linked by a common check run together)."""
    parent = {n: n for n in todo}

    def find(n):
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for cid in rerun:
        nodes = [r["nodeid"] for r in by_claim[cid]]
        for other in nodes[1:]:
            parent[find(other)] = find(nodes[0])
    groups: dict[str, list] = {}
    for n in todo:
        groups.setdefault(find(n), []).append(n)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: g[0])


def run_check_group(spec: dict) -> list:
    """One Dask task: run the checks ``spec["nodeids"]`` in a fresh pytest process, return their results (with
    dependencies). Module-level, so workers import it by reference; pure in its input, so a task re-run on
    another worker after a crash gives the same results."""
    import subprocess

    with tempfile.TemporaryDirectory(prefix="verify-task-") as tmp:
        ids = Path(tmp) / "nodeids.txt"
        ids.write_text("".join(n + "\n" for n in spec["nodeids"]), encoding="utf-8")
        out = Path(tmp) / "checks.json"
        cmd = [sys.executable, "-m", "pytest", *spec["args"], f"--verify-json={out}", "--verify-deps",
               f"--verify-nodeids={ids}"]
        env = {**os.environ, **spec.get("env", {})}
        proc = subprocess.run(cmd, cwd=spec["cwd"], env=env, capture_output=True, text=True)
        if proc.returncode not in (0, 1) or not out.exists():
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
            raise RuntimeError(f"pytest exit code {proc.returncode} on {len(spec['nodeids'])} checks: {tail}")
        return json.loads(out.read_text())["checks"]


def _run_on_dask(todo, rerun, by_claim, args, root, scheduler, workers, progress, keep) -> int:
    from tqdm import tqdm

    from .distributed import get_client, iter_completed

    groups = _groups(todo, rerun, by_claim)
    env = {"PYTHONPATH": os.pathsep.join(p for p in [str(Path(__file__).resolve().parents[1]),
                                                      os.environ.get("PYTHONPATH", "")] if p)}
    specs = [{"nodeids": g, "args": args, "cwd": str(root), "env": env} for g in groups]
    expected = expected_durations(root)   # the bar advances by the recorded seconds of each group (see _Progress)
    known = sorted(expected[n] for n in todo if n in expected)
    cost = [sum(expected.get(n, known[len(known) // 2] if known else 1.0) for n in g) for g in groups]
    bar = tqdm(total=sum(cost), desc=f"checks 0/{len(todo)}", file=sys.stderr, disable=not progress, **bar_width(),
               smoothing=0, bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]")
    done = 0
    failed = False
    with get_client(None if scheduler == "local" else scheduler, n_workers=workers or None) as client:
        for i, results in iter_completed(client, run_check_group, specs, desc="claims", progress=False,
                                         key_prefix="verify-checks"):
            for res in results:
                failed |= res["outcome"] in ("failed", "error")
                keep(res)
            done += len(groups[i])
            bar.set_description_str(f"checks {done}/{len(todo)}", refresh=False)
            bar.update(cost[i])
    bar.close()
    return 1 if failed else 0


def run_options(args) -> tuple[Path | None, str | None]:
    """The cache folder and the scheduler of a ``verify report`` / ``verify mutants`` run, validated before any
    work: ``--no-cache`` gives no cache; ``--cache-dir`` (default ``$VERIFY_CACHE_DIR`` or ``./.verify-cache``)
    must be a verify cache folder or a new or empty one; ``--scheduler`` is ``local`` or an address. Without
    ``--scheduler``, ``-n`` beyond this machine's cores runs on a LocalCluster of that many workers."""
    from . import cache as _cache

    scheduler = getattr(args, "scheduler", None)
    if scheduler is not None and scheduler != "local":
        from .distributed import parse_scheduler

        try:
            scheduler = parse_scheduler(scheduler)
        except ValueError as exc:
            raise ValueError(str(exc).replace("'scheduler'", "'--scheduler'")) from None
    cache_dir = None
    if not getattr(args, "no_cache", False):
        cache_dir = Path(args.cache_dir) if getattr(args, "cache_dir", None) else _cache.default_cache_dir(Path.cwd())
        if not cache_dir.parent.is_dir():
            raise ValueError(f"Argument '--cache-dir' must be a folder in an existing folder, not {str(cache_dir)!r}.")
        try:
            _cache.Cache(cache_dir)   # refuses a file or a foreign folder, creates a new one
        except ValueError as exc:
            raise ValueError(str(exc).replace("'cache_dir'", "'--cache-dir'")) from None
    workers = getattr(args, "workers", None) or getattr(args, "jobs", None)
    if scheduler is None and workers and workers > (os.cpu_count() or 1):
        scheduler = "local"
    return cache_dir, scheduler


def final_line(wall_s: float, stats: dict, mstats: dict | None = None) -> str:
    """``verify: 412.3 s wall; 65 claims reused from the cache, 6 run (S-eq9, ...); mutants: 190 reused, 14 run``."""
    reused, rerun = stats.get("reused", []), stats.get("rerun", [])
    names = ", ".join(rerun[:8]) + (", ..." if len(rerun) > 8 else "")
    text = f"verify: {wall_s:.1f} s wall; {len(reused)} claims reused from the cache, {len(rerun)} run"
    text += f" ({names})" if rerun and reused else ""
    if mstats:
        text += f"; mutants: {mstats.get('reused', 0)} reused, {mstats.get('run', 0)} run"
        if mstats.get("baselines_from_report"):
            text += f" (baselines of {mstats['baselines_from_report']} claims from this report's checks)"
    return text


_RANK_EMP = {"supported": 0, "inconclusive": 1, "contradicted": 2}
_SEVERITY_RANK = {sev: i for i, sev in enumerate(reversed(SEVERITIES))}  # error outranks the others


def aggregate(checks: list, paper: str | None = None, mutants: dict | None = None,
              only_checked: bool = False, coverage: dict | None = None) -> dict:
    """Turn per-check results into the report document, the one data model every reporter reads.

    ``{"claims": [row...], "beyond": [row...], "summary": {paper: {verdict: n, ...}, "total": ...},
    "severity": {severity: n}, "headline": str}``; a row has ``id, paper, where, kind, statement, verdict,
    method, evidence, checks`` and, where they apply, ``severity`` and ``justification`` (refuted),
    ``scale`` (experiments) and ``power`` (``{"killed", "total", "survivors"}`` from ``verify mutants``).
    ``only_checked`` drops the claims no check ran for (the pytest summary of a partial run).
    ``coverage`` (claim -> figure, from ``python -m verify.route_map``) adds each claim's ``coverage``: the branch
    coverage of the package functions behind it by its own checks (see :mod:`verify.route_map`).
    """
    by_claim: dict[str, list] = {}
    for chk in checks:
        for cid in chk["ids"]:
            by_claim.setdefault(cid, []).append(chk)
    rows, beyond = [], []
    for claim in CLAIMS + BEYOND:
        if (paper and claim.paper != paper) or (only_checked and claim.id not in by_claim):
            continue
        row = _claim_row(claim, by_claim.get(claim.id, []))
        if mutants and claim.id in mutants:
            row["power"] = mutants[claim.id]
        if coverage and claim.id in coverage:
            row["coverage"] = coverage[claim.id]
        (beyond if claim.beyond else rows).append(row)
    summary = {}
    for p in [p for p in PAPERS if any(r["paper"] == p for r in rows)]:
        counts = {v: 0 for v in ALL_VERDICTS}
        for r in rows:
            if r["paper"] == p:
                counts[r["verdict"]] += 1
        summary[p] = counts
    summary["total"] = {v: sum(s[v] for s in summary.values()) for v in ALL_VERDICTS}
    severity = {sev: sum(r.get("severity") == sev for r in rows) for sev in SEVERITIES}
    doc = {"claims": rows, "beyond": beyond, "summary": summary, "severity": severity,
           "headline": headline(rows)}
    if any(r.get("certified") for r in rows):  # issue 25: the verified proof claims without a margin say why
        from .certified import why_not_certified

        for r in rows:
            if r["verdict"] == "verified" and "emp" not in r["kind"] and any(k in r["kind"] for k in ("hp", "num")) \
                    and not any(c.get("kind") == "margin" for c in r.get("certified", [])):
                r["certified_why_not"] = why_not_certified(r["id"])
    table = necessity_table(rows)
    if table:  # the hypothesis-necessity table (verify.necessity), when its checks ran
        doc["necessity"] = table
    vs = variants_summary(rows)
    if vs["variants"]:  # the statement variants' recall and false alarms, when their checks ran
        doc["variants"] = vs
    return doc


def variants_summary(rows: list) -> dict:
    """Over the claims' ``variants`` records (one per variant of a statement object, :mod:`verify.statements`):
    ``recall`` is false variants caught (refuted by the statement's own search) of the false variants, ``false
    alarms`` the true controls refuted of the true controls; unknown variants are counted apart, never in either.
    Returns ``{"claims", "variants", "false", "caught", "true", "false_alarms", "unknown", "missed": [claim:
    variant, ...], "alarms": [...]}``."""
    vs = [(r["id"], v) for r in rows for v in r.get("variants", [])]
    return {"claims": len({cid for cid, _ in vs}), "variants": len(vs),
            "false": sum(v.get("class") == "false" for _, v in vs),
            "caught": sum(v.get("outcome") == "caught" for _, v in vs),
            "true": sum(v.get("class") == "true" for _, v in vs),
            "false_alarms": sum(v.get("outcome") == "false alarm" for _, v in vs),
            "unknown": sum(v.get("class") == "unknown" for _, v in vs),
            "missed": [f"{cid}: {v.get('variant')}" for cid, v in vs if v.get("outcome") == "missed"],
            "alarms": [f"{cid}: {v.get('variant')}" for cid, v in vs if v.get("outcome") == "false alarm"]}


def _necessity_rows(r: dict) -> list:
    """A claim's necessity records, one per hypothesis: the default and the slow tier each search the same dropped
    hypothesis (3 and 32 starts), so a report of both tiers has two records of it. Kept: a record that found a
    counterexample, else the one that searched most starts (ties: the first)."""
    best = {}
    for n in r.get("necessity", []):
        key = n.get("hypothesis")
        rank = (n.get("outcome") == "needed", n.get("evidence", {}).get("search", {}).get("starts_run") or 0)
        if key not in best or rank > best[key][0]:
            best[key] = (rank, n)
    return [n for _, n in best.values()]


def necessity_table(rows: list) -> list:
    """The hypothesis-necessity table (:mod:`verify.necessity`), one flat line per hypothesis in registry order:
    ``claim, hypothesis, outcome, found`` (the counterexample's value and start, or the search's size; one line per
    hypothesis even when both tiers searched it: :func:`_necessity_rows`) and
    ``note``; then, once any row ran, the hypotheses of verified claims that cannot be searched
    (:data:`verify.necessity.NOT_SEARCHABLE`, outcome ``not searchable``), with why. The full evidence (point,
    replay, search) stays on the claim's row under ``necessity``."""
    out = []
    for r in rows:
        for n in _necessity_rows(r):
            ev, s = n.get("evidence", {}), n.get("evidence", {}).get("search", {})
            ce = ev.get("counterexample")
            best, thr, tol = s.get("best"), s.get("threshold"), s.get("tol")
            # a best value above the threshold but within the objective's round-off allowance says so
            slack = f" + tol {tol}" if (best is not None and thr is not None and tol and best > thr) else ""
            found = (f"value {ce['value']:.4g} > {thr} at start {ce['start']} (replay {ce.get('replay')})"
                     if ce else f"best {best} <= {thr}{slack} over {s.get('starts_run')} starts x "
                                f"{s.get('maxiter')} {s.get('method')} iterations, seed {s.get('seed')}")
            out.append({"claim": r["id"], "hypothesis dropped": n.get("hypothesis"), "outcome": n.get("outcome"),
                        "found": found, "objective": s.get("objective"), "note": ev.get("note", ""),
                        **typeset(r["id"], n.get("hypothesis"), ev.get("note", ""))})
    if out:
        verified = {r["id"] for r in rows if r["verdict"] == "verified"}
        for ns in NOT_SEARCHABLE:  # the hypotheses without a search (statement undefined without them), and why
            if ns.claim in verified:
                out.append({"claim": ns.claim, "hypothesis dropped": ns.hypothesis, "outcome": "not searchable",
                            "found": "", "objective": "", "note": ns.note,
                            **typeset(ns.claim, ns.hypothesis, ns.note)})
    return out


def certified_counts(rows: list) -> dict:
    """How many verified proof claims carry a certified margin, how many refuted ones a certified ratio interval,
    and how many hypotheses the necessity table shows needed (of how many tried)."""
    proof = [r for r in rows if "emp" not in str(r.get("kind", ""))
             and any(k in str(r.get("kind", "")) for k in ("hp", "num"))]  # the hp / num claims
    def has(r, kind):
        return any(c.get("kind") == kind for c in r.get("certified", []))
    nec = [n for r in rows for n in _necessity_rows(r)]
    return {"verified": sum(r["verdict"] == "verified" for r in proof),
            "verified_certified": sum(r["verdict"] == "verified" and has(r, "margin") for r in proof),
            "refuted": sum(r["verdict"] == "refuted" for r in proof),
            "refuted_certified": sum(r["verdict"] == "refuted" and has(r, "ratio") for r in proof),
            "hypotheses": len(nec), "hypotheses_needed": sum(n.get("outcome") == "needed" for n in nec)}


def headline(rows: list) -> str:
    """One line: counts by verdict, refutations by severity, e.g. ``60 verified, 7 refuted (1 error, 2 missing
    hypotheses, 4 degenerate cases), 3 supported, ...``."""
    counts = {v: sum(r["verdict"] == v for r in rows) for v in ALL_VERDICTS}
    parts = []
    for v in ALL_VERDICTS:
        if not counts[v]:
            continue
        text = f"{counts[v]} {v}"
        if v == "refuted":
            sev = {s: sum(r.get("severity") == s for r in rows) for s in SEVERITIES}
            names = {"error": ("error", "errors"), "missing-hypothesis": ("missing hypothesis", "missing hypotheses"),
                     "degenerate": ("degenerate case", "degenerate cases")}
            text += " (" + ", ".join(f"{n} {names[s][n != 1]}" for s, n in sev.items() if n) + ")"
        parts.append(text)
    text = ", ".join(parts) + f" ({len(rows)} claim{'' if len(rows) == 1 else 's'})"
    c = certified_counts(rows)
    if c["verified_certified"] or c["refuted_certified"]:
        text += (f"; certified margins on {c['verified_certified']} of {c['verified']} verified hp/num claims, "
                 f"certified counterexample intervals on {c['refuted_certified']} of {c['refuted']} refuted")
    if c["hypotheses"]:
        text += f"; {c['hypotheses_needed']} of {c['hypotheses']} hypotheses shown necessary"
        from .necessity import NOT_SEARCHABLE

        verified = {r["id"] for r in rows if r["verdict"] == "verified"}
        n_ns = sum(ns.claim in verified for ns in NOT_SEARCHABLE)
        if n_ns:  # the table's rows without a search (the statement is undefined without the hypothesis)
            text += f" ({n_ns} more not searchable)"
    vs = variants_summary(rows)
    if vs["variants"]:
        text += "; " + variants_line(vs)
    return text


def _check_order(nodeid: str) -> tuple:
    """Where a check's record stands when a claim's method and evidence are chosen: the statement checks first, then
    routes, outputs, certified margins, searches (the order of :data:`~verify.claims.CHECK_KINDS`), then by node id;
    so the headline is the check of the statement, not a refusal test whose file name sorts first."""
    stem = nodeid.split("::")[0].rsplit("/", 1)[-1].removesuffix(".py").removeprefix("test_")
    return (CHECK_KINDS.index(stem) if stem in CHECK_KINDS else len(CHECK_KINDS), nodeid)


def _claim_row(claim, checks: list) -> dict:
    entries, main_verdicts, method, evidence, extra, side_rows = [], [], None, {}, {}, {}
    rank = _RANK_EMP if claim.experimental else _RANK
    for chk in sorted(checks, key=lambda c: _check_order(c["nodeid"])):
        mine = [r for r in chk.get("records", []) if claim.id in r["claims"]]
        side = [r for r in mine if r["verdict"] in SIDE_RECORDS]  # certified numbers, necessity rows: no verdict
        mine = [r for r in mine if r["verdict"] not in SIDE_RECORDS]
        entry = {"check": chk["nodeid"], "outcome": chk["outcome"], "corrected": chk["corrected"]}
        if chk.get("reason"):
            entry["reason"] = chk["reason"]
        if chk["outcome"] == "passed":
            default = {"verdict": "inconclusive", "reason": "the check recorded no verdict", "evidence": {}} \
                if claim.experimental else {"verdict": "verified", "evidence": {}}
            recs = mine or ([] if side else [default])
            for r in side:
                side_rows.setdefault(r["verdict"], []).append(
                    {"check": chk["nodeid"], **{k: v for k, v in r.items() if k not in ("claims", "verdict")}})
            entry["records"] = [{k: v for k, v in r.items() if k != "claims"} for r in recs]
            if not chk["corrected"]:
                main_verdicts.extend(r["verdict"] for r in recs)
        elif chk["outcome"] in ("failed", "error"):
            main_verdicts.append("failed")
        entries.append(entry)
    if "variant" in side_rows:
        side_rows["variant"] = _unique_variants(side_rows["variant"])
    ran = [e for e in entries if e["outcome"] != "skipped"]
    if not ran:
        verdict = "not-checked"
        reasons = sorted({e.get("reason", "") for e in entries if e.get("reason")})
        if reasons:
            extra["reason"] = "; ".join(reasons)[:300]
    elif "failed" in main_verdicts:
        verdict = "inconclusive"
        extra["reason"] = "a check failed: " + "; ".join(e["check"] for e in entries if e["outcome"] in ("failed", "error"))
    elif not main_verdicts:  # only corrected-statement checks ran
        verdict = "inconclusive"
        extra["reason"] = ("only the corrected statement was checked" if any(e["corrected"] for e in ran)
                           else "only certification / necessity / variant checks ran")
    else:
        verdict = max(main_verdicts, key=rank.__getitem__)
    # the evidence shown is that of the records which set the verdict
    row_extra: dict = {}
    setting = [r for e in entries if not e["corrected"] for r in e.get("records", []) if r["verdict"] == verdict]
    if verdict == "refuted":  # the most serious refutation sets the severity
        setting.sort(key=lambda r: -_SEVERITY_RANK.get(r.get("severity"), -1))
        row_extra["severity"] = setting[0].get("severity")
        row_extra["justification"] = setting[0].get("justification")
    for r in setting:
        method = method or r.get("method")
        if claim.experimental and "scale" in r:
            row_extra.setdefault("scale", r["scale"])
        for key in ("counterexample", "corrected", "reason"):
            if key in r and key not in extra:
                extra[key] = r[key]
        for k, v in r.get("evidence", {}).items():
            evidence.setdefault(k, v)
    return {"id": claim.id, "paper": claim.paper, "where": claim.where, "kind": claim.kind,
            "statement": claim.statement, "statement_tex": claim.statement_tex, "verdict": verdict, **row_extra,
            "method": method or claim.kind,
            "evidence": {**extra, **evidence} if (extra or evidence) else {}, "checks": entries,
            **{SIDE_RECORDS[k]: v for k, v in side_rows.items()}}


def _unique_variants(recs: list) -> list:
    """A claim's variant records, one per variant: the default tier's sample and the slow tier's full run both
    record the sampled variants (the same seeded search, the same outcome); the first, in check order, is kept."""
    seen, out = set(), []
    for r in recs:
        if r.get("variant") not in seen:
            seen.add(r.get("variant"))
            out.append(r)
    return out
