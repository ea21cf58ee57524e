"""The main job, measured: cold against warm report, one edited module, Dask 2 workers against 1, and the
mutants one process per claim against one process per mutant. Ratios in one run, on a copy of the project.

    python benchmarks/bench_report.py                    # default tier, claims of paper S (minutes)
    python benchmarks/bench_report.py --tier both        # both tiers: what `verify report` runs (long)
    python benchmarks/bench_report.py --mutant-claims S-eq10,N-eq7

Every timing is one `python -m verify report ...` in a fresh process, in a temporary copy of `verify/`,
`proofs_checks/` and `pyproject.toml` (so an edit never touches your tree), with the load average printed
beside it: on a shared machine only the ratios within one run mean something.

* warm / cold: the same command twice with one cache; the second reuses every claim (target: <= 15 s);
* edit: one package function (the first of `--edit-module` that the report's checks executed) gets a no-op
  statement; the re-run claims are counted and the time compared with the cold run's share for them;
* dask: `--scheduler local -n 1` against `-n 2` (`--tier both`: the slow checks dominate; target >= 1.7x);
* mutants: `verify.mutants.run_all` (one claim server per job, serving its claims in turn and importing the
  libraries its children imported; each mutant runs only the checks whose recorded coverage executes the
  edited function, fastest first) against a claim server per claim running all the claim's checks per mutant
  (`run_claim(select=False)`) and against `run_mutant` per mutant (a fresh process per mutant, the first
  harness), on the same mutants, all with 1 job; and ``run_all`` with the kill-order hint shipped with the package
  (each mutant's killing check first) against without it (fastest first): the same outcomes, sooner.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def copy_project(dest: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    # tests/ too: a theorem check reads its Kasami reference from tests/numeric (without it that check errors,
    # is never cached, and every warm run re-runs its claim)
    for part in ("verify", "proofs_checks", "tests"):
        shutil.copytree(ROOT / part, dest / part, ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", dest / "pyproject.toml")


def report(work: Path, args: list[str]) -> tuple[float, dict]:
    env = {**os.environ, "PYTHONPATH": str(work), "PYTHONDONTWRITEBYTECODE": "1"}
    out = work / "bench.json"
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "verify", "report", "--no-progress", "--json", str(out), *args],
                          cwd=work, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"verify report failed ({proc.returncode}): {proc.stderr[-2000:]}")
    final = [line for line in proc.stderr.splitlines() if line.startswith("verify: ")]
    return wall, {"final": final[-1] if final else "", "doc": out.read_bytes()}


def edit_one_function(work: Path, module: str, cache: Path) -> str:
    """Insert a no-op first statement into the first function of ``module`` that a cached check executed."""
    executed = set()
    for f in (cache / "check").glob("*.json"):
        entry = json.loads(f.read_text())["payload"]
        executed.update(q for p, q in entry["deps"]["functions"] if p == module and q != "<module>")
    if not executed:
        raise SystemExit(f"no check executed a function of {module}")
    import ast

    path = work / module
    text = path.read_text()
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in {q.split(".")[-1] for q in executed}:
            body = node.body[0]
            lines = text.splitlines(keepends=True)
            indent = " " * body.col_offset
            lines.insert(body.lineno - 1, f"{indent}_bench_edit = None\n")
            path.write_text("".join(lines))
            return node.name
    raise SystemExit(f"could not edit {module}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tier", choices=("fast", "both"), default="fast", help="fast: the default tier; both: what "
                    "`verify report` runs (the slow checks dominate it)")
    ap.add_argument("--paper", choices=("S", "N"), default="S")
    ap.add_argument("-n", type=int, default=2)
    ap.add_argument("--edit-module", default="verify/numeric/upper_bounds.py")
    ap.add_argument("--mutant-claims", default="S-eq10", help="comma-separated claims for the mutant comparison")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: cache,dask,mutants")
    opts = ap.parse_args()
    skip = set(filter(None, opts.skip.split(",")))
    tier = {"fast": ["--fast"], "both": []}[opts.tier]
    sel = [*tier, "--paper", opts.paper]
    print(f"bench_report: tier {opts.tier}, paper {opts.paper}, -n {opts.n}; load {load()}")
    with tempfile.TemporaryDirectory(prefix="verify-bench-") as tmp:
        work = Path(tmp)
        copy_project(work)
        cache = work / "cache"
        if "cache" not in skip:
            cold, c = report(work, [*sel, "-n", str(opts.n), "--cache-dir", str(cache)])
            print(f"cold:  {cold:8.1f} s   {c['final']}   load {load()}")
            warm, w = report(work, [*sel, "-n", str(opts.n), "--cache-dir", str(cache)])
            print(f"warm:  {warm:8.1f} s   {w['final']}   load {load()}")
            print(f"  warm/cold = {warm / cold:.3f} (target: warm <= 15 s); report identical: {c['doc'] == w['doc']}")
            name = edit_one_function(work, opts.edit_module, cache)
            edit, e = report(work, [*sel, "-n", str(opts.n), "--cache-dir", str(cache)])
            print(f"edit:  {edit:8.1f} s   ({opts.edit_module}:{name})  {e['final']}   load {load()}")
            print(f"  edit/cold = {edit / cold:.3f}")
        if "dask" not in skip:
            times = {}
            for n in (1, 2):
                times[n], d = report(work, [*sel, "--no-cache", "--scheduler", "local", "-n", str(n)])
                print(f"dask -n {n}: {times[n]:8.1f} s   load {load()}")
            print(f"  LocalCluster 2 workers vs 1: {times[1] / times[2]:.2f}x (target >= 1.7x on the slow tier)")
        if "mutants" not in skip:
            sys.path.insert(0, str(work))
            from verify.mutants import baseline, collect, run_all, run_claim, run_mutant

            ms = collect(work / "proofs_checks", claims=opts.mutant_claims.split(","))
            t0 = time.perf_counter()
            a = run_all(ms, root=work, jobs=1, progress=False, kill_order=None)
            per_claim = time.perf_counter() - t0
            t0 = time.perf_counter()
            hinted = run_all(ms, root=work, jobs=1, progress=False, stats=(hs := {}))
            with_hint = time.perf_counter() - t0
            print(f"mutants ({len(ms)} of {opts.mutant_claims}): without the kill-order hint {per_claim:.1f} s, with it "
                  f"{with_hint:.1f} s: {per_claim / with_hint:.2f}x (baselines included); hint {hs['kill_order']}; "
                  f"same outcomes: {[r.outcome for r in a] == [r.outcome for r in hinted]}; load {load()}")
            t0 = time.perf_counter()
            every = {}
            for claim in sorted({m.claim for m in ms}):
                mine = [m for m in ms if m.claim == claim]
                every.update(zip(mine, run_claim(claim, mine, work, select=False)["results"]))
            all_checks = time.perf_counter() - t0
            print(f"mutants ({len(ms)} of {opts.mutant_claims}): the checks executing the edit {per_claim:.1f} s, "
                  f"all the claim's checks {all_checks:.1f} s: {all_checks / per_claim:.2f}x; same outcomes: "
                  f"{[r.outcome for r in a] == [every[m].outcome for m in ms]}; load {load()}")
            t0 = time.perf_counter()
            bases = {c: baseline(c, work) for c in sorted({m.claim for m in ms if not m.equivalent})}
            b = [run_mutant(m, work, bases.get(m.claim)) for m in ms]
            per_mutant = time.perf_counter() - t0
            same = [r.outcome for r in a] == [r.outcome for r in b]
            print(f"mutants ({len(ms)} of {opts.mutant_claims}): one process per claim {per_claim:.1f} s, one per "
                  f"mutant {per_mutant:.1f} s: {per_mutant / per_claim:.2f}x; same outcomes: {same}; load {load()}")


if __name__ == "__main__":
    main()
