"""Unbiased mutation score of the theorem suite: a seeded, stratified random sample of mutmut's mutants.

The curated mutants of ``verify mutants`` measure the errors their authors thought of. This script measures
the theorem suite against the mechanical mutants of a real engine (mutmut 3.8: operators, constants,
comparisons, strings, dropped arguments, ``x = None``, ...) over ``verify/symbolic`` and ``verify/numeric``,
judged by the default tier of ``proofs_checks/`` ALONE, so the score is the theorem suite's, not the unit tests'.

    pip install mutmut==3.8.*                  # a benchmark tool, not a dependency of the package
    python benchmarks/mutation_score.py --sample 400 --seed 1 --work /tmp/verify-mutsample   # run (resumes), report
    python benchmarks/mutation_score.py --sample 400 --seed 1 --work /tmp/verify-mutsample --report-only
    python benchmarks/mutation_score.py --sample 400 --seed 1 --work /tmp/verify-mutsample --rerun-gaps \
        --overlay proofs_checks/S/loss/test_routes.py                                # re-judge fixed gaps

How it works:

1. The work folder (``--work``) is a ``git clone`` of the COMMITTED code of this checkout: a checkout being
   edited by others cannot break a run half-way. mutmut's settings are appended to the clone's
   ``pyproject.toml`` and mutmut generates every mutant there (``mutants/``), once.
2. The sample: per module (stratum), a share of ``N`` proportional to its number of mutants (largest
   remainders), drawn with ``random.Random(seed)`` from the sorted names. Same seed, same commit -> the same
   sample. Proportional allocation makes the sample self-weighting, so the pooled proportion is the
   estimate of the whole population's score. ``--per-module-min K`` raises every stratum's share to K (so each
   module says something) and ``--new-since COMMIT`` splits a module into the lines added or changed since COMMIT
   and the rest (two strata; the new code's kill rate is reported on its own): the sample is then not
   self-weighting, and the ``--suite tests`` report weights each stratum by its share of the population
   (:func:`stratified_estimate`, a Clopper-Pearson interval at the Korn-Graubard effective sample size).
3. ``verify report --fast`` runs the clone's default tier once (its cache in ``WORK/.verify-cache``), which
   records per check the functions it executed (coverage.py contexts).
4. ``mutation_judge.py`` turns each sampled mutant into the edit ``mutmut apply`` would make and runs, in a
   temporary copy, the default-tier checks that execute the mutated function, claim by claim (cheapest first),
   until one kills it (:mod:`verify.mutants`: a check fails, errors or times out, or the claim's verdict moves).
   mutmut's own runner is not used to judge: its "stats" step, which records the same test selection through
   trampolines, did not finish in over 90 minutes on this suite's numeric loops. The judge rewrites its result
   file after every round and every claim's runs enter the cache as they finish; ``progress.json`` keeps every
   outcome. A run stopped at any point resumes; a progress file for another sample, seed, engine or commit is
   refused. ``progress.json`` is also written, whole, to ``--progress`` (default
   ``benchmarks/mutation_progress.json``, committed with the sitting's work): the work folder lives in a
   temporary folder that does not outlive the machine, so a new sitting clones the saved run's commit
   (``--commit`` defaults to it) into a new work folder and resumes from that copy.
5. The report (``--out``, default ``docs/mutation_score.md``): killed / judged per module and overall with
   95% Wilson and Clopper-Pearson intervals (``scipy.stats.binomtest``), and every survivor with its triage
   from ``--triage`` (JSON: name -> {"class": "equivalent"|"gap", "reason": ..., "fixed_by": ...}).
   A mutant that no default-tier check executes ("no tests") is NOT killed: it counts as a survivor.
6. ``--rerun-gaps`` re-judges the survivors triaged as gaps, after ``--overlay`` copied the named files from
   this checkout (new or fixed checks) into the clone; the rerun outcome is reported beside the first one.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import platform
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ENGINE = "mutmut 3.8 mutants, judged by verify.mutants (per-check coverage selection)"
CONFIG = """
[tool.mutmut]
source_paths = ["verify/"]
only_mutate = ["verify/symbolic/*", "verify/numeric/*", "verify/certified.py"]
also_copy = ["proofs_checks/", "tests/"]
pytest_add_cli_args = ["-p", "no:xdist", "-p", "no:randomly", "-p", "no:cacheprovider", "-m", "not slow", "-q"]
pytest_add_cli_args_test_selection = ["proofs_checks/"]
"""
# mutmut's generation step, as its own ``run`` does it before testing any mutant (its stats step is not run:
# the checks that execute each function come from per-check coverage, see mutation_judge.py)
GENERATE = """
import mutmut.__main__ as mm
from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir, setup_source_paths
import os
os.makedirs("mutants", exist_ok=True)
mm.set_mutant_under_test("mutant_generation")
copy_src_dir(); copy_also_copy_files(); setup_source_paths()
mm.create_mutants({jobs})
"""
KILLED = {"killed", "timeout", "segfault"}   # a check fails, errors or times out, or a verdict moves
SURVIVED = {"survived", "no tests"}               # the suite passes (or never runs the mutated function)


def _check_args(args) -> None:
    """Every input validated before any work (one line on stderr, exit 2, from main)."""
    if args.sample < 1:
        raise ValueError(f"Argument '--sample' must be an integer >= 1, not {args.sample}.")
    if args.seed < 0:
        raise ValueError(f"Argument '--seed' must be an integer >= 0, not {args.seed}.")
    if args.jobs < 1:
        raise ValueError(f"Argument '--jobs' must be an integer >= 1, not {args.jobs}.")
    if args.per_module_min < 0:
        raise ValueError(f"Argument '--per-module-min' must be an integer >= 0, not {args.per_module_min}.")
    if args.timeout <= 0:
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


def resolve_commit(rev: str) -> str:
    """The full hash of ``rev`` in this checkout (ValueError naming ``--commit`` when it is not a commit)."""
    res = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise ValueError(f"Argument '--commit' must name a commit of this checkout, not {rev!r}.")
    return res.stdout.strip()


def load_saved(path: Path | None) -> dict | None:
    """The committed copy of a run's progress (``--progress``), or None when absent. A file that is not a
    progress record (corrupt JSON, missing keys) is refused by name rather than trusted or overwritten."""
    if path is None or not path.exists():
        return None
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"Argument '--progress' must be a progress file this script wrote, not {str(path)!r} "
                         f"({exc.__class__.__name__}); move it away to start a new run.") from None
    if not isinstance(saved, dict) or not all(k in saved for k in ("engine", "sample", "seed", "commit", "first",
                                                                      "names")):
        raise ValueError(f"Argument '--progress' must be a progress file this script wrote, not {str(path)!r}; "
                         "move it away to start a new run.")
    return saved


def prepare(work: Path, jobs: int, commit: str | None = None) -> str:
    """Clone the committed code into ``work`` (once) at ``commit`` (default: this checkout's HEAD), configure
    mutmut and generate its mutants (once). Returns the clone's commit."""
    if not (work / ".git").is_dir():
        if work.exists() and any(work.iterdir()):
            raise ValueError(f"Argument '--work' must be a folder this script made, or absent, not {str(work)!r}.")
        subprocess.run(["git", "clone", "-q", str(ROOT), str(work)], check=True)
        if commit is not None:
            subprocess.run(["git", "-C", str(work), "checkout", "-q", commit], check=True)
        with open(work / "pyproject.toml", "a") as fh:
            fh.write(CONFIG)
    commit = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], check=True, capture_output=True,
                            text=True).stdout.strip()
    if not (work / "mutants" / "generated").is_file():
        subprocess.run([sys.executable, "-c", GENERATE.format(jobs=jobs)], cwd=work, env=_env(work), check=True)
        (work / "mutants" / "generated").write_text(commit + "\n")
    return commit


def _env(work: Path) -> dict:
    # the clone's verify first on the path; one BLAS thread per process (the jobs fill the cores)
    return {**os.environ, "PYTHONPATH": str(work), "VERIFY_BLAS_THREADS": "1", "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def baseline(work: Path, jobs: int) -> None:
    """``verify report --fast`` of the clone, its cache in ``work/.verify-cache``: every default-tier check's
    result and the functions it executed (per-check coverage), which choose the checks each mutant runs. A
    second call re-runs only the claims whose checks or code changed (after ``--overlay``). The clone's suite
    must pass: a failing check would kill every mutant it sees."""
    cmd = [sys.executable, "-m", "verify", "report", "--fast", "-n", str(jobs), "--cache-dir", str(work / ".verify-cache"),
           "--json", str(work / "baseline.json")]
    res = subprocess.run(cmd, cwd=work, env=_env(work))
    if res.returncode != 0:
        raise RuntimeError(f"the clone's default tier does not pass (verify report exit {res.returncode})")


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


def allocation(population: dict[str, list[str]], n: int, minimum: int = 0) -> dict[str, int]:
    """Mutants drawn per stratum: a share of ``n`` proportional to its size (largest remainders, ties by name),
    raised to ``minimum`` (or the whole stratum, if smaller) so that every stratum says something; with a minimum the
    sample holds more than ``n`` and is no longer self-weighting (:func:`stratified_estimate` weights it)."""
    total = sum(len(v) for v in population.values())
    if n > total:
        raise ValueError(f"Argument '--sample' must be at most the {total} mutants generated, not {n}.")
    if minimum < 0:
        raise ValueError(f"Argument '--per-module-min' must be an integer >= 0, not {minimum}.")
    quota = {m: n * len(v) / total for m, v in population.items()}
    alloc = {m: math.floor(q) for m, q in quota.items()}
    for m in sorted(quota, key=lambda m: (alloc[m] - quota[m], m))[:n - sum(alloc.values())]:
        alloc[m] += 1
    return {m: max(a, min(minimum, len(population[m]))) for m, a in alloc.items()}


def stratified_sample(population: dict[str, list[str]], n: int, seed: int, minimum: int = 0) -> list[str]:
    """Per stratum (module) a simple random sample of :func:`allocation`'s size; ``random.Random(seed)`` makes it
    reproducible (with ``minimum = 0`` the draw of the first sittings, unchanged)."""
    alloc = allocation(population, n, minimum)
    rng = random.Random(seed)
    picked = []
    for m in sorted(population):
        picked += sorted(rng.sample(population[m], alloc[m]))
    return picked


def changed_lines(work: Path, since: str, paths: list[str]) -> dict[str, set[int]]:
    """``{path: lines}``: the lines of the clone's version of ``paths`` added or changed since commit ``since``
    (``git diff -U0``: the new side of every hunk)."""
    res = subprocess.run(["git", "-C", str(work), "diff", "-U0", "--no-color", since, "HEAD", "--", *paths],
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise ValueError(f"Argument '--new-since' must name a commit of the clone's history, not {since!r}.")
    out, cur = {}, None
    for line in res.stdout.splitlines():
        if line.startswith("+++ "):
            cur = line[6:] if line.startswith("+++ b/") else None
        elif line.startswith("@@") and cur is not None:
            m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
            start, count = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
            out.setdefault(cur, set()).update(range(start, start + count))
    return out


def mutated_lines(work: Path, path: str, names: list[str]) -> dict[str, int | None]:
    """``{mutant: line}``: the line of ``path`` (1-based, the clone's source) that each mutant first changes, from
    mutmut's generated module: the mutant's function and the original (``__mutmut_orig``) compared line by line from
    their ``def`` lines, the offset added to the function's ``def`` line in the source. None where the source line
    is not the original's (then :func:`mutation_judge.edit_of` decides)."""
    from mutmut.utils.format_utils import orig_function_and_class_names_from_key

    spans = json.loads((work / "mutants" / (path + ".spans")).read_text(encoding="utf-8"))["spans"]
    mtext = (work / "mutants" / path).read_text(encoding="utf-8").splitlines()
    src = (work / path).read_text(encoding="utf-8").splitlines()
    defs = {}
    for node in ast.parse("\n".join(src)).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[(None, node.name)] = node.lineno
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    defs[(node.name, item.name)] = item.lineno

    def body(key):   # the function's lines from its def line, its mangled name replaced by a placeholder
        a, b = spans[key]
        seg = mtext[max(0, a - 1):b + 1]
        i = next(i for i, ln in enumerate(seg) if re.match(rf"\s*(async )?def {re.escape(key)}\(", ln))
        return [ln.replace(key, "\0") for ln in seg[i:]]

    out = {}
    for name in names:
        local = name.rpartition(".")[2]
        func, cls = orig_function_and_class_names_from_key(name)
        orig_key = local.rsplit("__mutmut_", 1)[0] + "__mutmut_orig"
        try:
            o, m = body(orig_key), body(local)
        except (KeyError, StopIteration):
            out[name] = None
            continue
        i = next((i for i, (x, y) in enumerate(zip(o, m)) if x != y), min(len(o), len(m)))
        line = defs.get((cls, func.rpartition(".")[2]))
        ok = line is not None and line - 1 + i < len(src) and i < len(o) \
            and o[i].replace("\0", func.rpartition(".")[2]) == src[line - 1 + i]
        out[name] = line + i if ok else None
    return out


def new_code(work: Path, population: dict[str, list[str]], since: str) -> dict[str, bool]:
    """``{mutant: whether the line it changes was added or changed since commit since}`` (cached in the work
    folder): the code of this round, whose kill rate is reported on its own."""
    cache = work / f"new-code-{since}.json"
    if cache.exists():
        return json.loads(cache.read_text())
    changed = changed_lines(work, since, sorted(population))
    out = {}
    for path, names in population.items():
        if not changed.get(path):
            out.update({n: False for n in names})
            continue
        lines = mutated_lines(work, path, names)
        left = [n for n in names if lines[n] is None]
        if left:   # the slow, exact route for the few whose function text is not found as is
            sys.path.insert(0, str(ROOT / "benchmarks"))
            import mutation_judge as mj
            here = os.getcwd()
            os.chdir(work)   # mutmut reads its files relative to the clone
            try:
                text = (work / path).read_text(encoding="utf-8")
                for n in left:
                    try:
                        old, new = mj.edit_of(n, path)
                        lines[n] = mj.first_changed_line(text, old, new)
                    except (LookupError, FileNotFoundError):
                        lines[n] = None
            finally:
                os.chdir(here)
        out.update({n: lines[n] in changed[path] for n in names})
    cache.write_text(json.dumps(out, sort_keys=True))
    return out


def strata_of(population: dict[str, list[str]], new: dict[str, bool] | None) -> dict[str, list[str]]:
    """The strata of the draw: one per module; with ``new`` (``--new-since``), a module that holds code of this
    round is split in two, ``path#new`` and ``path#old``, so the new code gets its own share and minimum."""
    if new is None:
        return population
    out = {}
    for m, names in population.items():
        fresh = [n for n in names if new.get(n)]
        if fresh:
            out[f"{m}#new"] = fresh
            out[f"{m}#old"] = [n for n in names if not new.get(n)]
        else:
            out[m] = names
    return {k: v for k, v in out.items() if v}


def stratified_estimate(rows: list[tuple[int, int, int]], level: float = 0.95) -> dict | None:
    """The population score from a stratified sample, ``rows`` = (stratum size N_h, judged n_h, killed k_h): the
    weighted proportion sum_h (N_h/N) k_h/n_h, its variance sum_h (N_h/N)^2 (1 - n_h/N_h) p_h(1-p_h)/(n_h-1), and the
    Clopper-Pearson interval at the effective sample size p(1-p)/var (at most n, and n where the variance is 0),
    scaled by (t_{n-1}/t_{n-H})^2 for the H strata (Korn & Graubard 1998, Survey Methodology 24(2)). With
    proportional allocation it is the plain proportion and, up to the finite-population factor, its interval."""
    from scipy.stats import beta, t as student_t

    rows = [(N, n, k) for N, n, k in rows if n > 0]
    if not rows:
        return None
    N, n = sum(r[0] for r in rows), sum(r[1] for r in rows)
    p = sum(Nh / N * kh / nh for Nh, nh, kh in rows)
    var = sum((Nh / N) ** 2 * (1 - nh / Nh) * (kh / nh) * (1 - kh / nh) / (nh - 1) for Nh, nh, kh in rows if nh > 1)
    n_eff = min(n, p * (1 - p) / var) if var > 0 and 0 < p < 1 else n
    df = n - len(rows)
    if n > 1 and df >= 1:
        q = 0.5 + level / 2
        n_eff *= (student_t.ppf(q, n - 1) / student_t.ppf(q, df)) ** 2
    x, a = p * n_eff, (1 - level) / 2
    low = 0.0 if x <= 0 else float(beta.ppf(a, x, n_eff - x + 1))
    high = 1.0 if x >= n_eff else float(beta.ppf(1 - a, x + 1, n_eff - x))
    return {"estimate": p, "low": low, "high": high, "n_eff": n_eff, "n": n, "N": N}


#: where ``_save`` also writes the progress: the checkout's committed copy (``--progress``), so a sitting's
#: outcomes outlive the work folder (a temporary folder does not survive the machine)
SAVED: list[Path] = []


def _save(progress_path: Path, progress: dict) -> None:
    from verify._io import atomic_write_text
    text = json.dumps(progress, indent=1, sort_keys=True) + "\n"
    atomic_write_text(progress_path, text)
    for extra in SAVED:
        atomic_write_text(extra, text)


def judge(work: Path, progress: dict, key: str, names: list[str], population: dict, jobs: int, timeout: float,
          tag: str, union: bool = True) -> bool:
    """Judge the ``names`` not yet in ``progress[key]`` (``mutation_judge.py`` in the clone); record each
    outcome (status, the claim that killed it or the claims tried, and the detail) in ``progress``. The judge
    rewrites its result file after every round and its claim runs enter the clone's cache as they finish, so
    an interrupted run resumes where it stopped. True when all are judged."""
    module_of = {n: m for m, ns in population.items() for n in ns}
    todo = [n for n in names if n not in progress[key]]
    result = work / f"judged-{tag}.json"
    if todo:
        spec = work / f"judge-{tag}.json"
        spec.write_text(json.dumps({"names": todo, "paths": {n: module_of[n] for n in todo}, "jobs": jobs,
                                    "timeout": timeout, "cache": str(work / ".verify-cache"), "union": union,
                                    "result": str(result)}))
        res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "mutation_judge.py"), str(spec)], cwd=work,
                             env=_env(work))
        if res.returncode != 0:
            print(f"mutation_score: the judge stopped (exit {res.returncode}); what it judged is kept",
                  file=sys.stderr)
    return merge(work, progress, key, names, tag)


def merge(work: Path, progress: dict, key: str, names: list[str], tag: str) -> bool:
    """Take the judge's outcomes so far (its result file, rewritten after every round) into ``progress``."""
    result = work / f"judged-{tag}.json"
    got = json.loads(result.read_text()) if result.exists() else {}
    progress.setdefault("detail", {})
    for n in names:
        if n in got and n not in progress[key]:
            progress[key][n] = got[n]["status"]
            progress["detail"][f"{key}:{n}"] = {k: v for k, v in got[n].items() if k != "status"}
    _save(work / "progress.json", progress)
    return all(n in progress[key] for n in names)


def _intervals(k: int, n: int) -> tuple[str, str]:
    from scipy.stats import binomtest
    if n == 0:
        return "-", "-"
    t = binomtest(k, n)
    w, c = t.proportion_ci(0.95, "wilson"), t.proportion_ci(0.95, "exact")
    return f"[{w.low:.1%}, {w.high:.1%}]", f"[{c.low:.1%}, {c.high:.1%}]"


def two_phase_estimate(k_a: int, n_a: int, n_b: int, k_b: int, m_b: int) -> dict:
    """The score of a sample of ``n = n_a + n_b`` mutants of which ``n_a`` are judged (``k_a`` killed) and the other
    ``n_b`` are subsampled at random: ``m_b`` judged, ``k_b`` killed (two-phase sampling for stratification,
    Cochran, *Sampling Techniques*, 12.2-12.3). Estimate ``(k_a + n_b k_b / m_b) / n``; its variance is that of the
    first phase (the ``n`` drawn from the population, ``p(1-p)/n``) plus the subsampling of the second stratum,
    ``(n_b/n)^2 (1 - m_b/n_b) s_b^2 / m_b`` with ``s_b^2 = m_b/(m_b-1) p_b (1-p_b)``; the interval is the normal
    one (clipped to [0, 1]), and ``bounds`` are the score if every unjudged mutant survived / were killed."""
    n = n_a + n_b
    if m_b < 2:
        raise ValueError(f"Argument 'm_b' must be at least 2 for a variance, not {m_b}.")
    p_b = k_b / m_b
    est = (k_a + n_b * p_b) / n
    s2 = m_b / (m_b - 1) * p_b * (1 - p_b)
    var = est * (1 - est) / n + (n_b / n) ** 2 * (1 - m_b / n_b) * s2 / m_b
    half = 1.959963984540054 * math.sqrt(var)
    return {"estimate": est, "low": max(0.0, est - half), "high": min(1.0, est + half), "p_b": p_b,
            "bounds": ((k_a + k_b) / n, (k_a + k_b + n_b - m_b) / n)}


def two_phase(progress: dict, sample: list[str]) -> str:
    """The report's paragraph on a partial run whose later mutants are judged in a seeded random order. Phase A:
    the mutants judged in full before that order starts (claim by claim, or 'no tests', which needs no run);
    phase B: the others (an edit that could not be rebuilt is left out of both, as in the table)."""
    first, detail = progress["first"], progress.get("detail", {})
    judged = {n for n in sample if first.get(n) in KILLED | SURVIVED}
    errors = {n for n in sample if n in first and n not in judged}
    union = {n for n in judged if detail.get(f"first:{n}", {}).get("mode") == "union"}
    a = [n for n in sample if n in judged and n not in union]
    b = [n for n in sample if n not in a and n not in errors]
    judged_b = [n for n in b if n in judged]
    k_a, k_b = sum(first[n] in KILLED for n in a), sum(first[n] in KILLED for n in judged_b)
    if len(judged_b) < 2:
        return (f"Two-phase estimate: not yet ({len(judged_b)} of the {len(b)} mutants of the second phase "
                "judged).")
    e = two_phase_estimate(k_a, len(a), len(b), k_b, len(judged_b))
    return ("The overall row above counts the judged mutants only. "
            f"Two-phase estimate of the whole sample's first-pass score: the {len(a)} mutants judged in full before "
            f"the random order starts (claim by claim, or 'no tests': no default-tier check executes them; "
            f"{k_a} killed) and a seeded random subsample of the other {len(b)}, {len(judged_b)} judged in union "
            f"mode, {k_b} killed ({e['p_b']:.1%}): **{e['estimate']:.1%}**, 95% interval [{e['low']:.1%}, "
            f"{e['high']:.1%}] (normal, first phase plus subsampling variance; Cochran 12.3). Bounds if every "
            f"unjudged mutant survived / were killed: {e['bounds'][0]:.1%} / {e['bounds'][1]:.1%}.")


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
        "Killed = some check fails, errors or times out, or a claim's verdict moves; a survivor = every check "
        "that executes the mutated function passes with its claim's verdict unchanged, or no default-tier check "
        "executes it ('no tests', counted against the suite)."
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
    if not finished:
        lines += two_phase(progress, sample), ""
    other = sorted(n for n in sample if n in first and first[n] not in KILLED | SURVIVED)
    if other:
        lines += [f"Not judged (the edit could not be rebuilt from mutmut's files; left out of the counts): "
                  + ", ".join(f"`{n}` ({first[n]})" for n in other), ""]
    survivors = [n for n in sample if first.get(n) in SURVIVED]
    rerun = progress.get("rerun", {})
    if rerun:
        fixed = sum(rerun[n] in KILLED for n in rerun)
        k2 = tot_k + fixed
        w2, c2 = _intervals(k2, tot_n)
        lines += [f"After the gap fixes: {len(rerun)} gap mutants re-run against the fixed checks, {fixed} now "
                  f"killed; score on the same sample {k2}/{tot_n} = **{k2 / tot_n:.1%}**, 95% Wilson {w2}, "
                  f"Clopper-Pearson {c2}.", "",
                  "Per module after the gap fixes (a mutant counts as killed when its first pass or its re-run "
                  "killed it; the survivors left are those below whose re-run column is empty):", "",
                  "| module | judged | killed | score | 95% Wilson | 95% Clopper-Pearson |", "|---|---|---|---|---|---|"]
        for m in sorted(population):
            s = [n for n in sample if module_of[n] == m and first.get(n) in KILLED | SURVIVED]
            k = sum(first[n] in KILLED or rerun.get(n) in KILLED for n in s)
            w, c = _intervals(k, len(s))
            lines.append(f"| `{m}` | {len(s)} | {k} | {f'{k / len(s):.1%}' if s else '-'} | {w} | {c} |")
        lines += [f"| **overall** | {tot_n} | {k2} | **{k2 / tot_n:.1%}** | {w2} | {c2} |", ""]
    lines += [f"## Survivors ({len(survivors)}), triaged", "",
              "| mutant | status | class | reason | re-run |", "|---|---|---|---|---|"]
    for n in survivors:
        t = triage.get(n, {})
        lines.append(f"| `{n}` | {first[n]} | {t.get('class', 'UNTRIAGED')} | {t.get('reason', '')} | "
                     f"{rerun.get(n, '')} |")
    return "\n".join(lines) + "\n"


def judge_tests(work: Path, progress: dict, sample: list[str], population: dict, timeout: float) -> None:
    """Judge the sampled mutants not yet in ``progress["tests"]`` by the default tier of ``tests/`` (the unit and
    reference tests; ``mutation_judge.judge_tests_suite``: the tests that run the mutated line, by coverage)."""
    module_of = {n: m for m, ns in population.items() for n in ns}
    progress.setdefault("tests", {})
    todo = [n for n in sample if n not in progress["tests"]]
    if not todo:
        return
    spec, result = work / "judge-tests.json", work / "judged-tests.json"
    # a seeded random order: a run stopped part-way has judged a simple random subsample of each stratum
    order = sorted(todo)
    random.Random(f"tests-order-{progress['seed']}").shuffle(order)
    spec.write_text(json.dumps({"suite": "tests", "paths": {n: module_of[n] for n in todo}, "timeout": timeout,
                                "result": str(result), "order": order}))
    try:
        res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "mutation_judge.py"), str(spec)], cwd=work,
                             env=_env(work))
        code = res.returncode
    except KeyboardInterrupt:
        code = "interrupted"
    got = json.loads(result.read_text()) if result.exists() else {}
    progress.setdefault("detail", {})
    for n in todo:
        if n in got:
            progress["tests"][n] = got[n]["status"]
            progress["detail"][f"tests:{n}"] = {"tests": got[n].get("tests", [])}
    _save(work / "progress.json", progress)
    if code != 0:
        raise RuntimeError(f"the tests/ judge stopped (exit {code}); the {len(got)} mutants it judged are kept")


def tests_report(progress: dict, sample: list[str], population: dict) -> str:
    """Markdown: killed / judged per module by tests/ alone and by the whole default tier (a mutant killed by
    either suite), with 95% Clopper-Pearson intervals."""
    module_of = {n: m for m, ns in population.items() for n in ns}
    tests, first = progress["tests"], progress.get("first", {})
    lines = ["## The whole default tier (tests/ and proofs_checks/)", "",
             "tests/: the unit and reference tests that execute the mutated line (coverage.py, per-test contexts), "
             "run with -x; whole tier: killed by tests/ or by the theorem suite (where the latter judged it).", "",
             "| module | judged | killed by tests/ | tests/ score | 95% CP | killed by either | whole-tier score | 95% CP |",
             "|---|---|---|---|---|---|---|---|"]
    tot = [0, 0, 0]
    for m in sorted(population):
        s = [n for n in sample if module_of[n] == m and tests.get(n) in KILLED | SURVIVED]
        if not s:
            continue
        kt = sum(tests[n] in KILLED for n in s)
        ke = sum(tests[n] in KILLED or first.get(n) in KILLED for n in s)
        tot = [tot[0] + len(s), tot[1] + kt, tot[2] + ke]
        lines.append(f"| `{m}` | {len(s)} | {kt} | {kt / len(s):.1%} | {_intervals(kt, len(s))[1]} | {ke} | "
                     f"{ke / len(s):.1%} | {_intervals(ke, len(s))[1]} |")
    n, kt, ke = tot
    if n:
        lines.append(f"| **overall** | {n} | {kt} | **{kt / n:.1%}** | {_intervals(kt, n)[1]} | {ke} | **{ke / n:.1%}** "
                     f"| {_intervals(ke, n)[1]} |")
    return "\n".join(lines) + "\n"


def _pct(e: dict | None) -> tuple[str, str]:
    if e is None:
        return "-", "-"
    return f"{e['estimate']:.1%}", f"[{e['low']:.1%}, {e['high']:.1%}]"


def tests_only_report(progress: dict, sample: list[str], population: dict, strata: dict, triage: dict,
                      design: dict) -> str:
    """Markdown for ``--suite tests``: the weighted (stratified) score of tests/ with its interval, per module, and
    for the code of this round (``--new-since``) and the rest separately; every survivor with its triage."""
    tests = progress.get("tests", {})
    stratum_of = {n: k for k, ns in strata.items() for n in ns}
    module_of = {n: m for m, ns in population.items() for n in ns}
    in_sample = set(sample)
    judged = [n for n in sample if tests.get(n) in KILLED | SURVIVED]

    def rows(keys):
        out = []
        for k in keys:
            s = [n for n in judged if stratum_of[n] == k]
            out.append((len(strata[k]), len(s), sum(tests[n] in KILLED for n in s)))
        return out

    total = sum(len(v) for v in population.values())
    since = design.get("new_since")
    overall = stratified_estimate(rows(strata))
    k_all = sum(tests[n] in KILLED for n in judged)
    lines = [
        "# Mutation score of the unit and reference tests (tests/), fresh sample", "",
        f"Engine: mutmut 3.8 mutants over `verify/symbolic`, `verify/numeric` and `verify/certified.py` ({total} "
        "generated), judged by the default tier of `tests/` (`benchmarks/mutation_judge.py`, `judge_tests_suite`): "
        "one coverage.py run of the test files that name a sampled module or import a helper of tests/ that does, "
        "each test's lines recorded under its node id; per mutant the tests that execute the first line it changes "
        "(a def line: the tests that execute its function) run with `-x` against a copy of `verify/` with the edit. Killed = a selected test fails, errors or "
        f"times out; a mutant no test runs ('no tests') counts as a survivor.", "",
        f"Code: commit `{progress['commit'][:10]}`. Sample: **seed {progress['seed']}**, {len(sample)} mutants, "
        f"stratified by module (proportional share of {progress['sample']}, each stratum raised to at least "
        f"{design.get('per_module_min', 0)})"
        + (f"; a module with code changed since `{since}` is split into its new and its old lines, each a stratum"
           if since else "") + ". The sample is not self-weighting, so every score below is the stratified "
        "estimate (each stratum weighted by its share of the generated mutants) with a Clopper-Pearson interval at "
        "the effective sample size (Korn-Graubard); judged in a seeded random order, so a partial run is a random "
        "subsample of each stratum.",
        f"Reproduce: `python benchmarks/mutation_score.py --suite tests --sample {progress['sample']} --seed "
        f"{progress['seed']} --per-module-min {design.get('per_module_min', 0)}"
        + (f" --new-since {since}" if since else "") + " --work WORK --progress PROGRESS --out OUT.md`.", "",
        *([design["note"], ""] if design.get("note") else []),
        "## Result", "",
        f"**{len(judged)} of the {len(sample)} sampled mutants judged, {k_all} killed. Weighted score "
        f"{_pct(overall)[0]}, 95% CI {_pct(overall)[1]}** (effective n "
        f"{overall['n_eff']:.0f})." if overall else "Nothing judged yet.",
        f"Unweighted: {k_all}/{len(judged)}" + (f" = {k_all / len(judged):.1%}, CP {_intervals(k_all, len(judged))[1]}"
                                                 if judged else "") + " (not the population's score: the small "
        "modules are over-represented).", "",
        "| module | generated | sampled | judged | killed | survived (no tests) | score | 95% CI |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for m in sorted(population):
        keys = [k for k in strata if k.split("#")[0] == m]
        s = [n for n in sample if module_of[n] == m]
        j = [n for n in judged if module_of[n] == m]
        k = sum(tests[n] in KILLED for n in j)
        nt = sum(tests[n] == "no tests" for n in j)
        e = stratified_estimate(rows(keys))
        lines.append(f"| `{m}` | {len(population[m])} | {len(s)} | {len(j)} | {k} | {len(j) - k} ({nt}) | "
                     f"{_pct(e)[0]} | {_pct(e)[1]} |")
    lines.append(f"| **overall** | {total} | {len(sample)} | {len(judged)} | {k_all} | {len(judged) - k_all} | "
                 f"**{_pct(overall)[0]}** | {_pct(overall)[1]} |")
    lines.append("")
    equivalent = {n for n in judged if tests[n] in SURVIVED and triage.get(n, {}).get("class") == "equivalent"}
    if equivalent:   # the usual mutation score: killed over the mutants some test could kill
        def rows_adj(keys):
            out = []
            for (N, n, k), key in zip(rows(keys), keys):
                e = sum(1 for x in equivalent if stratum_of[x] == key)
                if n - e > 0:
                    out.append((max(1, round(N * (n - e) / n)), n - e, k))
            return out

        adj = stratified_estimate(rows_adj(list(strata)))
        per = []
        for m in sorted(population):
            r = rows_adj([k for k in strata if k.split("#")[0] == m])
            e = stratified_estimate(r)
            if e is not None:
                per.append((e["estimate"], m, sum(x[2] for x in r), sum(x[1] for x in r)))
        low = min(per)
        lines += [f"Excluding the {len(equivalent)} survivors triaged equivalent (no test can kill them; the usual "
                  "mutation score leaves them out, each stratum's size scaled by its share of the others): weighted "
                  f"**{_pct(adj)[0]}**, 95% CI {_pct(adj)[1]}; lowest module `{low[1]}` {low[0]:.1%} "
                  f"({low[2]}/{low[3]}).", ""]
    if since:
        new_keys = [k for k in strata if k.endswith("#new")]
        old_keys = [k for k in strata if k not in new_keys]
        lines += [f"## The code of this round (lines added or changed since `{since}`)", "",
                  "| code | generated | judged | killed | score | 95% CI |", "|---|---|---|---|---|---|"]
        for label, keys in ((f"new since `{since}`", new_keys), ("older", old_keys)):
            r = rows(keys)
            e = stratified_estimate(r)
            lines.append(f"| {label} | {sum(x[0] for x in r)} | {sum(x[1] for x in r)} | {sum(x[2] for x in r)} | "
                         f"{_pct(e)[0]} | {_pct(e)[1]} |")
        for k in new_keys:
            r = rows([k])[0]
            e = stratified_estimate([r])
            lines.append(f"| `{k}` | {r[0]} | {r[1]} | {r[2]} | {_pct(e)[0]} | {_pct(e)[1]} |")
        lines.append("")
    left = [n for n in sample if n not in tests]
    other = [n for n in sample if n in tests and tests[n] not in KILLED | SURVIVED]
    if left or other:
        lines += [f"Not judged: {len(left)} not reached" + (f"; {len(other)} whose edit could not be rebuilt: "
                  + ", ".join(f"`{n}`" for n in other) if other else "") + ".", ""]
    survivors = [n for n in sample if tests.get(n) in SURVIVED]
    closed = [n for n in survivors if triage.get(n, {}).get("closed_by")]
    if closed:   # the score above was taken before these fixes; it is not re-measured on the sample they fixed
        head = (f"## Survivors ({len(survivors)}), triaged after the score was taken; {len(closed)} gaps closed since "
                "by the tests named (the score above is this sample's before those fixes and is not re-measured on "
                "it: only a fresh sample measures the fixed code)")
    else:
        head = f"## Survivors ({len(survivors)}), triaged; not fixed, so that the score above stays a fresh sample's"
    lines += [head, "", "| mutant | stratum | status | class | triage | closed by |", "|---|---|---|---|---|---|"]
    for n in survivors:
        t = triage.get(n, {})
        by = "; ".join(f"`{x.strip()}`" for x in t["closed_by"].split(";")) if t.get("closed_by") else ""
        lines.append(f"| `{n.rpartition('.')[2]}` | `{stratum_of[n]}` | {tests[n]} | {t.get('class', 'UNTRIAGED')} | "
                     f"{t.get('reason', '')} | {by} |")
    assert in_sample >= set(judged)
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=400, help="number of mutants to draw (default 400)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the draw (default 1)")
    ap.add_argument("--work", default="/tmp/verify-mutsample", help="work folder (a clone; kept, resumes)")
    ap.add_argument("--commit", default=None,
                    help="commit to clone into a new work folder (default: the commit of the saved --progress, "
                         "else HEAD)")
    ap.add_argument("--progress", default=str(ROOT / "benchmarks" / "mutation_progress.json"),
                    help="a second copy of the progress, kept in the checkout and committed, from which a new work "
                         "folder resumes (default benchmarks/mutation_progress.json; '' for none)")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="claims judged at a time (default 1: shared cores)")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="seconds one mutant's checks may run before it counts killed by timeout (default 300)")
    ap.add_argument("--triage", default=str(ROOT / "benchmarks" / "mutation_triage.json"))
    ap.add_argument("--out", default=str(ROOT / "docs" / "mutation_score.md"))
    ap.add_argument("--report-only", action="store_true", help="write the report from the progress file only")
    ap.add_argument("--note", default="", help="a sentence added to the report's status line (e.g. why partial)")
    ap.add_argument("--claim-by-claim", action="store_true",
                    help="judge claim by claim in rounds (the first sittings' mode) instead of one run of the union "
                         "of the checks per mutant (the same kill rule; see mutation_judge.py)")
    ap.add_argument("--rerun-gaps", action="store_true", help="re-run the survivors triaged as gaps")
    ap.add_argument("--suite", choices=("proofs", "tests", "both"), default="proofs",
                    help="judge by the theorem suite (proofs_checks/, default), by the unit and reference tests of "
                         "tests/ (selected per mutated line by coverage), or both (each reported)")
    ap.add_argument("--per-module-min", type=int, default=0,
                    help="draw at least this many mutants from every stratum (module), so that each says something; "
                         "the sample is then weighted (default 0: proportional allocation, self-weighting)")
    ap.add_argument("--new-since", default=None, metavar="COMMIT",
                    help="split each module into the lines added or changed since COMMIT and the rest (two strata) "
                         "and report the kill rate of the new code separately")
    ap.add_argument("--overlay", action="append", default=[], metavar="FILE",
                    help="copy this checkout's FILE into the clone before --rerun-gaps (new or fixed checks)")
    args = ap.parse_args(argv)
    try:
        if not Path(args.triage).exists() and args.triage == ap.get_default("triage"):
            args.triage = None
        _check_args(args)
        work = Path(args.work)
        saved_path = Path(args.progress) if args.progress else None
        if saved_path is not None and not saved_path.parent.is_dir():
            raise ValueError(f"Argument '--progress' must be a file in an existing folder, not {args.progress!r}.")
        saved = load_saved(saved_path)
        want = resolve_commit(args.commit) if args.commit else (saved["commit"] if saved else None)
        if want is not None and (work / ".git").is_dir():
            have = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], check=True, capture_output=True,
                                  text=True).stdout.strip()
            if have != want:
                raise ValueError(f"Argument '--work' holds a clone of {have[:10]}, not of {want[:10]}; use a new "
                                 "--work folder for another commit.")
        if saved is not None and want != saved["commit"]:
            raise ValueError(f"Argument '--progress' holds the progress of commit {saved['commit'][:10]}, not "
                             f"{want[:10]}; name another --progress file for a run at another commit.")
        if args.report_only:
            if not _metas(work):
                raise ValueError(f"Argument '--work' must hold generated mutants for --report-only, not {str(work)!r}.")
            commit = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], check=True, capture_output=True,
                                    text=True).stdout.strip()
        else:
            commit = prepare(work, args.jobs, want)
        population = all_mutants(work)
        strata = strata_of(population, new_code(work, population, args.new_since) if args.new_since else None)
        sample = stratified_sample(strata, args.sample, args.seed, args.per_module_min)
        ident = {"engine": ENGINE, "sample": args.sample, "seed": args.seed, "commit": commit}
        # the design's options enter the identity only when used, so the progress of earlier runs stays valid
        ident.update({k: v for k, v in (("per_module_min", args.per_module_min), ("new_since", args.new_since)) if v})
        ppath = work / "progress.json"
        progress = json.loads(ppath.read_text()) if ppath.exists() else {**ident, "first": {}, "names": sample}
        if any(progress.get(k) != v for k, v in ident.items()) or progress.get("names") != sample:
            raise ValueError(f"Argument '--work' holds progress for another run ({ppath}); "
                             "use a new --work folder for another sample, seed or commit.")
        if saved is not None:
            if any(saved.get(k) != v for k, v in ident.items()) or saved.get("names") != sample:
                raise ValueError(f"Argument '--progress' holds progress for another sample or seed "
                                 f"({saved_path}); name another --progress file for this run.")
            # a new work folder resumes from the committed copy; the two copies only ever grow, so the one that
            # judged more is the later one
            for key in ("first", "rerun", "tests"):
                for n, st in saved.get(key, {}).items():
                    progress.setdefault(key, {}).setdefault(n, st)
            for k, v in saved.get("detail", {}).items():
                progress.setdefault("detail", {}).setdefault(k, v)
        if saved_path is not None:
            SAVED.append(saved_path)
        triage = json.loads(Path(args.triage).read_text()) if args.triage else {}
    except ValueError as exc:
        print(f"mutation_score: {exc}", file=sys.stderr)
        return 2
    if args.report_only:   # what a running judge has finished so far (its rounds) counts too
        merge(work, progress, "first", sample, "first")
    finished = all(n in progress["first"] for n in sample)
    try:
        if args.suite != "proofs" and not args.report_only:
            judge_tests(work, progress, sample, population, args.timeout)
        if args.suite == "tests":
            finished = True   # the theorem suite is not run: its columns count what an earlier run judged
        if not args.report_only and not finished:
            baseline(work, args.jobs)
            finished = judge(work, progress, "first", sample, population, args.jobs, args.timeout, "first",
                             not args.claim_by_claim)
        if args.rerun_gaps and not args.report_only:
            for f in args.overlay:
                (work / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / f, work / f)
            gaps = [n for n in sample if progress["first"].get(n) in SURVIVED and triage.get(n, {}).get("class") == "gap"]
            progress["rerun"] = {n: s for n, s in progress.get("rerun", {}).items() if n in gaps}
            baseline(work, args.jobs)   # the overlaid checks' claims re-run; the rest come from the cache
            (work / "judged-rerun.json").unlink(missing_ok=True)
            progress["rerun"] = {}
            judge(work, progress, "rerun", gaps, population, args.jobs, args.timeout, "rerun", not args.claim_by_claim)
    except RuntimeError as exc:
        print(f"mutation_score: {exc}", file=sys.stderr)
        if args.suite != "tests":
            return 1
        rc = 1   # what the judge finished is reported (a partial run is a random subsample of each stratum)
    else:
        rc = 0
    from verify._io import atomic_write_text
    if args.suite == "tests":
        text = tests_only_report(progress, sample, population, strata, triage,
                                 {"per_module_min": args.per_module_min, "new_since": args.new_since,
                                  "note": args.note})
        atomic_write_text(args.out, text)
        print(text.split("## Survivors")[0])
        return rc
    text = report(progress, sample, population, triage, finished, args.note)
    if progress.get("tests"):
        text += "\n" + tests_report(progress, sample, population)
    atomic_write_text(args.out, text)
    print(text.split("## Survivors")[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
