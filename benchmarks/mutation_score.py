"""Unbiased mutation score of the theorem suite: a seeded, stratified random sample of mutmut's mutants.

The curated mutants of ``verify mutants`` measure the errors their authors thought of. This script measures
the theorem suite against the mechanical mutants of a real engine (mutmut 3.8: operators, constants,
comparisons, dropped arguments, ``x = None``, ...) over ``verify/symbolic`` and ``verify/numeric``, judged by
``proofs_checks/`` (default tier) ALONE, so the score is the theorem suite's, not the unit tests'.

    pip install mutmut==3.8.*                  # a benchmark tool, not a dependency of the package
    python benchmarks/mutation_score.py --sample 400 --seed 1            # prepare, run (resumes), report
    python benchmarks/mutation_score.py --sample 400 --seed 1 --timeout 3000   # one sitting of at most 50 min
    python benchmarks/mutation_score.py --sample 400 --seed 1 --report-only    # rewrite the report only
    python benchmarks/mutation_score.py --sample 400 --seed 1 --rerun-gaps --overlay proofs_checks/test_routes_S.py

How it works:

1. The work folder (``--work``, default ``/tmp/verify-mutmut-sample``) is a ``git clone`` of the COMMITTED
   code of this checkout: a checkout being edited by others cannot break a run half-way. mutmut's settings
   are appended to the clone's ``pyproject.toml``.
2. mutmut generates every mutant and records which default-tier checks of ``proofs_checks/`` execute each
   function (its "stats" run, once).
3. The sample: per module (stratum), a share of ``N`` proportional to its number of mutants (largest
   remainders), drawn with ``random.Random(seed)`` from the sorted names. Same seed, same commit -> the same
   sample. Proportional allocation makes the sample self-weighting, so the pooled proportion is the
   estimate of the whole population's score.
4. The sample runs in chunks of ``--chunk`` mutants (``mutmut run NAME...``), and after each chunk the
   outcome of every mutant is written whole to ``progress.json`` in the work folder; a run stopped at any
   point resumes from it. A progress file for another sample, seed, engine or commit is refused.
5. The report (``--out``, default ``docs/mutation_score.md``): killed / judged per module and overall with
   95% Wilson and Clopper-Pearson intervals (``scipy.stats.binomtest``), and every survivor with its triage
   from ``--triage`` (JSON: name -> {"class": "equivalent"|"gap", "reason": ..., "fixed_by": ...}).
   A mutant that no default-tier check executes ("no tests") is NOT killed: it counts as a survivor.
   A timeout or a crash of the test process (segfault, SIGKILL) counts as killed: the suite does not pass.
6. ``--rerun-gaps`` re-runs the survivors triaged as gaps, after ``--overlay`` copied the named files from
   this checkout (new or fixed checks) into the clone; the rerun outcome is reported beside the first one.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import math
import os
import platform
import random
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ENGINE = "mutmut 3.8"
CONFIG = """
[tool.mutmut]
source_paths = ["verify/"]
only_mutate = ["verify/symbolic/*", "verify/numeric/*"]
also_copy = ["proofs_checks/", "tests/"]
pytest_add_cli_args = ["-p", "no:xdist", "-p", "no:randomly", "-p", "no:cacheprovider", "-m", "not slow", "-q"]
pytest_add_cli_args_test_selection = ["proofs_checks/"]
"""
# mutmut's generation and stats steps, as its own ``run`` does them before testing any mutant.
GENERATE = """
import mutmut.__main__ as mm
from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir, setup_source_paths
import os
os.makedirs("mutants", exist_ok=True)
mm.set_mutant_under_test("mutant_generation")
copy_src_dir(); copy_also_copy_files(); setup_source_paths(); mm.store_lines_covered_by_tests()
mm.create_mutants({jobs})
mm.collect_or_load_stats(mm.get_mutant_runner({jobs}), mutants_caught_by_type_checker={{}},
                         apply_config_invalidation=True)
"""
KILLED = {"killed", "timeout", "segfault"}        # the suite does not finish green
SURVIVED = {"survived", "no tests"}               # the suite passes (or never runs the mutated function)


def _check_args(args) -> None:
    """Every input validated before any work (one line on stderr, exit 2, from main)."""
    if args.sample < 1:
        raise ValueError(f"Argument '--sample' must be an integer >= 1, not {args.sample}.")
    if args.seed < 0:
        raise ValueError(f"Argument '--seed' must be an integer >= 0, not {args.seed}.")
    if args.chunk < 1:
        raise ValueError(f"Argument '--chunk' must be an integer >= 1, not {args.chunk}.")
    if args.jobs < 1:
        raise ValueError(f"Argument '--jobs' must be an integer >= 1, not {args.jobs}.")
    if args.timeout is not None and args.timeout <= 0:
        raise ValueError(f"Argument '--timeout' must be a number of seconds > 0, not {args.timeout}.")
    out = Path(args.out)
    if not out.parent.is_dir():
        raise ValueError(f"Argument '--out' must be a file in an existing folder, not {args.out!r}.")
    if args.triage and not Path(args.triage).is_file():
        raise ValueError(f"Argument '--triage' must be an existing JSON file, not {args.triage!r}.")
    for p in args.overlay:
        if not (ROOT / p).is_file():
            raise ValueError(f"Argument '--overlay' must name files of this checkout, not {p!r}.")
    if shutil.which("mutmut", path=str(Path(sys.executable).parent)) is None:
        raise ValueError("Argument '--sample' needs mutmut installed beside this python (pip install mutmut==3.8.*).")


def _mutmut(work: Path, *argv: str, timeout=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "VERIFY_BLAS_THREADS": "1", "OMP_NUM_THREADS": "1"}
    cmd = [str(Path(sys.executable).parent / "mutmut"), *argv]
    return subprocess.run(cmd, cwd=work, env=env, timeout=timeout, capture_output=True, text=True)


def prepare(work: Path, jobs: int) -> str:
    """Clone the committed code into ``work`` (once), configure mutmut, generate mutants and stats (once).
    Returns the clone's commit."""
    if not (work / ".git").is_dir():
        if work.exists() and any(work.iterdir()):
            raise ValueError(f"Argument '--work' must be a folder this script made, or absent, not {str(work)!r}.")
        subprocess.run(["git", "clone", "-q", str(ROOT), str(work)], check=True)
        with open(work / "pyproject.toml", "a") as fh:
            fh.write(CONFIG)
    commit = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], check=True, capture_output=True,
                            text=True).stdout.strip()
    if not (work / "mutants" / "mutmut-stats.json").is_file():
        env = {**os.environ, "VERIFY_BLAS_THREADS": "1", "OMP_NUM_THREADS": "1"}
        subprocess.run([sys.executable, "-c", GENERATE.format(jobs=jobs)], cwd=work, env=env, check=True)
    return commit


def _metas(work: Path) -> dict[str, Path]:
    return {str(p.relative_to(work / "mutants"))[:-len(".meta")]: p
            for p in sorted((work / "mutants" / "verify").rglob("*.py.meta"))}


def all_mutants(work: Path) -> dict[str, list[str]]:
    """module (file path) -> sorted mutant names, from mutmut's meta files."""
    out = {}
    for path, meta in _metas(work).items():
        names = sorted(json.loads(meta.read_text())["exit_code_by_key"])
        if names:
            out[path] = names
    return out


def stratified_sample(population: dict[str, list[str]], n: int, seed: int) -> list[str]:
    """A share of ``n`` per module proportional to its size (largest remainders, ties by name), each share a
    simple random sample of that module's mutants; ``random.Random(seed)`` makes it reproducible."""
    total = sum(len(v) for v in population.values())
    if n > total:
        raise ValueError(f"Argument '--sample' must be at most the {total} mutants generated, not {n}.")
    quota = {m: n * len(v) / total for m, v in population.items()}
    alloc = {m: math.floor(q) for m, q in quota.items()}
    for m in sorted(quota, key=lambda m: (alloc[m] - quota[m], m))[:n - sum(alloc.values())]:
        alloc[m] += 1
    rng = random.Random(seed)
    picked = []
    for m in sorted(population):
        picked += sorted(rng.sample(population[m], alloc[m]))
    return picked


def _status(work: Path, names: list[str]) -> dict[str, str]:
    from mutmut.stats import status_by_exit_code
    codes = {}
    for path, meta in _metas(work).items():
        codes.update(json.loads(meta.read_text())["exit_code_by_key"])
    return {n: status_by_exit_code[codes.get(n)] for n in names}


def _save(progress_path: Path, progress: dict) -> None:
    from verify._io import atomic_write_text
    atomic_write_text(progress_path, json.dumps(progress, indent=1, sort_keys=True) + "\n")


def run_sample(work: Path, progress: dict, key: str, names: list[str], chunk: int, jobs: int, deadline) -> bool:
    """Run the ``names`` not yet in ``progress[key]`` in chunks; record after each chunk. True when all are done.

    A chunk holds consecutive names of one module (so its clean-test run covers few checks); the chunks run in
    a seeded random order, so a run cut short has run a random subset of chunks of every module, not the
    first modules only."""
    from tqdm import tqdm
    todo = [n for n in names if n not in progress[key]]
    by_module: dict = collections.defaultdict(list)
    for n in todo:
        by_module[".".join(n.split(".")[:3])].append(n)          # verify.<numeric|symbolic>.<module>
    parts = [v[i:i + chunk] for _, v in sorted(by_module.items()) for i in range(0, len(v), chunk)]
    random.Random(progress["seed"]).shuffle(parts)
    bar = tqdm(total=len(names), initial=len(names) - len(todo), desc=key, unit="mutant", file=sys.stderr)
    for part in parts:
        left = None if deadline is None else deadline - datetime.datetime.now().timestamp()
        if left is not None and left <= 60:
            return False
        try:
            res = _mutmut(work, "run", "--max-children", str(jobs), *part, timeout=left)
        except subprocess.TimeoutExpired:
            return False
        status = _status(work, part)
        if res.returncode != 0 and all(s == "not checked" for s in status.values()):
            raise RuntimeError(f"mutmut run failed on {part[0]} ...:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}")
        progress[key].update({n: s for n, s in status.items() if s != "not checked"})
        _save(work / "progress.json", progress)
        bar.update(sum(s != "not checked" for s in status.values()))
    bar.close()
    return all(n in progress[key] for n in names)


def _intervals(k: int, n: int) -> tuple[str, str]:
    from scipy.stats import binomtest
    if n == 0:
        return "-", "-"
    t = binomtest(k, n)
    w, c = t.proportion_ci(0.95, "wilson"), t.proportion_ci(0.95, "exact")
    return f"[{w.low:.1%}, {w.high:.1%}]", f"[{c.low:.1%}, {c.high:.1%}]"


def report(progress: dict, sample: list[str], population: dict, triage: dict, finished: bool, note: str = "") -> str:
    module_of = {n: m for m, names in population.items() for n in names}
    rows, tot_k, tot_n = [], 0, 0
    lines = [
        "# Mutation score of the theorem suite (sampled mutmut mutants)", "",
        f"Engine: {ENGINE} over `verify/symbolic` and `verify/numeric`; test command: the default tier of "
        f"`proofs_checks/` alone (no unit tests). Code: commit `{progress['commit'][:10]}` (a clone of the "
        f"committed tree). Sample: {len(sample)} of {sum(len(v) for v in population.values())} generated "
        f"mutants, seed {progress['seed']}, stratified by module with proportional allocation (self-weighting). "
        f"Reproduce: `python benchmarks/mutation_score.py --sample {progress['sample']} --seed {progress['seed']}`.",
        "",
        f"Status: {'all sampled mutants ran' if finished else 'PARTIAL: only the mutants counted below ran'}; "
        f"**{sum(progress['first'].get(n) in KILLED | SURVIVED for n in sample)} of the {len(sample)} sampled "
        f"mutants judged**. "
        "Killed = some check fails, times out or crashes; a survivor = every check passes, or no default-tier "
        "check executes the mutated function ('no tests', counted against the suite)."
        + (f" {note}" if note else ""), "",
        "| module | generated | sampled | ran | killed | survived (no tests) | score | 95% Wilson | 95% Clopper-Pearson |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    first = progress["first"]
    for m in sorted(population):
        s = [n for n in sample if module_of[n] == m]
        ran = [n for n in s if n in first]
        k = sum(first[n] in KILLED for n in ran)
        nt = sum(first[n] == "no tests" for n in ran)
        judged = sum(first[n] in KILLED | SURVIVED for n in ran)
        tot_k, tot_n = tot_k + k, tot_n + judged
        w, c = _intervals(k, judged)
        score = f"{k / judged:.1%}" if judged else "-"
        lines.append(f"| `{m}` | {len(population[m])} | {len(s)} | {len(ran)} | {k} | {judged - k} ({nt}) | "
                     f"{score} | {w} | {c} |")
    w, c = _intervals(tot_k, tot_n)
    score = f"{tot_k / tot_n:.1%}" if tot_n else "-"
    lines += [f"| **overall** | {sum(len(v) for v in population.values())} | {len(sample)} | "
              f"{sum(n in first for n in sample)} | {tot_k} | {tot_n - tot_k} | **{score}** | {w} | {c} |", ""]
    other = sorted(n for n in sample if n in first and first[n] not in KILLED | SURVIVED)
    if other:
        lines += [f"Not judged (mutmut status 'suspicious' or other, left out of the counts): "
                  + ", ".join(f"`{n}` ({first[n]})" for n in other), ""]
    survivors = [n for n in sample if first.get(n) in SURVIVED]
    rerun = progress.get("rerun", {})
    if rerun:
        fixed = sum(rerun[n] in KILLED for n in rerun)
        k2 = tot_k + fixed
        w2, c2 = _intervals(k2, tot_n)
        lines += [f"After the gap fixes: {len(rerun)} gap mutants re-run against the fixed checks, {fixed} now "
                  f"killed; score on the same sample {k2}/{tot_n} = **{k2 / tot_n:.1%}**, 95% Wilson {w2}, "
                  f"Clopper-Pearson {c2}.", ""]
    lines += [f"## Survivors ({len(survivors)}), triaged", "",
              "| mutant | status | class | reason | re-run |", "|---|---|---|---|---|"]
    for n in survivors:
        t = triage.get(n, {})
        lines.append(f"| `{n}` | {first[n]} | {t.get('class', 'UNTRIAGED')} | {t.get('reason', '')} | "
                     f"{rerun.get(n, '')} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=400, help="number of mutants to draw (default 400)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the draw (default 1)")
    ap.add_argument("--work", default="/tmp/verify-mutmut-sample", help="work folder (a clone; kept, resumes)")
    ap.add_argument("--chunk", type=int, default=24, help="mutants per mutmut call (progress saved after each)")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="mutmut --max-children (default 1: shared cores)")
    ap.add_argument("--timeout", type=float, default=None, help="stop starting chunks after this many seconds")
    ap.add_argument("--triage", default=str(ROOT / "benchmarks" / "mutation_triage.json"))
    ap.add_argument("--out", default=str(ROOT / "docs" / "mutation_score.md"))
    ap.add_argument("--report-only", action="store_true", help="write the report from the progress file only")
    ap.add_argument("--note", default="", help="a sentence added to the report's status line (e.g. why partial)")
    ap.add_argument("--rerun-gaps", action="store_true", help="re-run the survivors triaged as gaps")
    ap.add_argument("--overlay", action="append", default=[], metavar="FILE",
                    help="copy this checkout's FILE into the clone before --rerun-gaps (new or fixed checks)")
    args = ap.parse_args(argv)
    try:
        if not Path(args.triage).exists() and args.triage == ap.get_default("triage"):
            args.triage = None
        _check_args(args)
        work = Path(args.work)
        deadline = None if args.timeout is None else datetime.datetime.now().timestamp() + args.timeout
        if args.report_only:
            if not _metas(work):
                raise ValueError(f"Argument '--work' must hold generated mutants for --report-only, not {str(work)!r}.")
            commit = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], check=True, capture_output=True,
                                    text=True).stdout.strip()
        else:
            commit = prepare(work, args.jobs)
        population = all_mutants(work)
        sample = stratified_sample(population, args.sample, args.seed)
        ident = {"engine": ENGINE, "sample": args.sample, "seed": args.seed, "commit": commit}
        ppath = work / "progress.json"
        progress = json.loads(ppath.read_text()) if ppath.exists() else {**ident, "first": {}, "names": sample}
        if any(progress.get(k) != v for k, v in ident.items()) or progress.get("names") != sample:
            raise ValueError(f"Argument '--work' holds progress for another run ({ppath}); "
                             "use a new --work folder for another sample, seed or commit.")
        triage = json.loads(Path(args.triage).read_text()) if args.triage else {}
    except ValueError as exc:
        print(f"mutation_score: {exc}", file=sys.stderr)
        return 2
    # outcomes mutmut recorded in its meta files after the last saved chunk (a run stopped mid-chunk) count too
    progress["first"].update({n: st for n, st in _status(work, [n for n in sample if n not in progress["first"]]).items()
                              if st != "not checked"})
    finished = all(n in progress["first"] for n in sample)
    if not args.report_only and not finished:
        finished = run_sample(work, progress, "first", sample, args.chunk, args.jobs, deadline)
    if args.rerun_gaps and not args.report_only:
        for f in args.overlay:
            for dest in (work / f, work / "mutants" / f):
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / f, dest)
        gaps = [n for n in sample if progress["first"].get(n) in SURVIVED and triage.get(n, {}).get("class") == "gap"]
        progress.setdefault("rerun", {})
        progress["rerun"] = {n: s for n, s in progress["rerun"].items() if n in gaps}
        run_sample(work, progress, "rerun", gaps, args.chunk, args.jobs, deadline)
    from verify._io import atomic_write_text
    text = report(progress, sample, population, triage, finished, args.note)
    atomic_write_text(args.out, text)
    print(text.split("## Survivors")[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
