"""Package-wide mutation score with a real mutation engine (mutmut 3), over verify/symbolic and verify/numeric.

Unlike ``verify mutants`` (curated, plausible wrong edits, each judged by its own claim's checks), mutmut
generates every mechanical mutant it can (operators, constants, comparisons, dropped arguments, ``x = None``)
and judges it by the WHOLE default-tier suite (unit tests in ``tests/`` plus ``proofs_checks/``), running only
the tests that execute the mutated function. It measures how much of the package the suite pins down at all.

    pip install mutmut                       # not a dependency of the package: a benchmark tool
    python benchmarks/mutation_score.py                         # all of verify/symbolic and verify/numeric
    python benchmarks/mutation_score.py --only verify/symbolic/upper_bounds.py -j 2 --timeout 3600

It works in a temporary copy (mutmut writes a ``mutants/`` tree and its own state there), never in this tree,
writes ``docs/mutation_score.md`` (atomically) and prints killed / survived / no-tests / timeout per file.
Survivors are listed for triage: each is either equivalent (document it) or a gap (fix the checks).
A run over everything takes hours on 2 cores; ``--only`` and ``--timeout`` bound it, and a run cut short by
``--timeout`` reports what it finished (mutmut resumes where it stopped when run again with ``--keep DIR``).
"""

from __future__ import annotations

import argparse
import collections
import datetime
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CONFIG = """
[tool.mutmut]
source_paths = ["verify/"]
only_mutate = {only}
also_copy = ["proofs_checks/", "tests/"]
pytest_add_cli_args = ["-p", "no:xdist", "-p", "no:cacheprovider", "-m", "not slow", "-q"]
pytest_add_cli_args_test_selection = ["tests/", "proofs_checks/"]
"""

STATUS = re.compile(r"^\s*(?P<name>[\w.]+__mutmut_\d+): (?P<status>.+)$")


def _copy(dest: Path, only: list[str]) -> None:
    for part in ("verify", "proofs_checks", "tests"):
        shutil.copytree(ROOT / part, dest / part, ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
    text = (ROOT / "pyproject.toml").read_text()
    quoted = "[" + ", ".join(f'"{p}"' for p in only) + "]"
    (dest / "pyproject.toml").write_text(text + CONFIG.format(only=quoted))


def main(argv=None) -> int:
    from verify._io import atomic_write_text

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=[], metavar="GLOB",
                    help="files to mutate (default: verify/symbolic/*.py and verify/numeric/*.py)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="mutmut --max-children")
    ap.add_argument("--timeout", type=float, default=None, help="stop the mutmut run after this many seconds")
    ap.add_argument("--keep", metavar="DIR", help="work in DIR (kept; resumes an earlier run there)")
    ap.add_argument("--out", default=str(ROOT / "docs" / "mutation_score.md"))
    args = ap.parse_args(argv)
    if shutil.which("mutmut", path=str(Path(sys.executable).parent)) is None:
        print("mutation_score: mutmut is not installed (pip install mutmut)", file=sys.stderr)
        return 2
    only = args.only or ["verify/symbolic/*.py", "verify/numeric/*.py"]
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="verify-mutmut-"))
    if not (work / "pyproject.toml").exists():
        work.mkdir(parents=True, exist_ok=True)
        _copy(work, only)
    mutmut = str(Path(sys.executable).parent / "mutmut")
    env = {**os.environ, "VERIFY_BLAS_THREADS": "1"}
    started = datetime.datetime.now(datetime.timezone.utc)
    try:
        subprocess.run([mutmut, "run", "--max-children", str(args.jobs)], cwd=work, env=env, timeout=args.timeout)
        finished = True
    except subprocess.TimeoutExpired:
        finished = False
    res = subprocess.run([mutmut, "results", "--all", "true"], cwd=work, env=env, capture_output=True, text=True)
    by_file: dict = collections.defaultdict(collections.Counter)
    survivors = []
    for line in res.stdout.splitlines():
        m = STATUS.match(line)
        if not m:
            continue
        module = m["name"].split(".x")[0].split("__mutmut")[0]
        module = ".".join(module.split(".")[:3])
        by_file[module][m["status"]] += 1
        if m["status"] == "survived":
            survivors.append(m["name"])
    total = collections.Counter()
    for c in by_file.values():
        total.update(c)
    judged = total["killed"] + total["survived"] + total["timeout"]
    score = (total["killed"] + total["timeout"]) / judged if judged else float("nan")
    lines = [
        "# Package-wide mutation score (mutmut)", "",
        f"Run: {started:%Y-%m-%d %H:%M} UTC, {platform.machine()}, {os.cpu_count()} cores, "
        f"{'finished' if finished else f'stopped after {args.timeout:.0f} s (partial)'}; files: {', '.join(only)}.",
        "Killed counts a mutant that some default-tier test (tests/ or proofs_checks/) turns red; timeouts count as "
        "killed (the suite would not finish green); 'no tests' means no default-tier test runs the function.", "",
        f"**Score: {score:.1%}** ({total['killed']} killed + {total['timeout']} timeout of {judged} judged; "
        f"{total['no tests']} without tests, {sum(total.values())} generated).", "",
        "| module | killed | survived | timeout | no tests | other |", "|---|---|---|---|---|---|",
    ]
    for module in sorted(by_file):
        c = by_file[module]
        other = sum(v for k, v in c.items() if k not in ("killed", "survived", "timeout", "no tests"))
        lines.append(f"| `{module}` | {c['killed']} | {c['survived']} | {c['timeout']} | {c['no tests']} | {other} |")
    lines += ["", f"Survivors ({len(survivors)}; `mutmut show NAME` in the work folder shows each diff):", ""]
    lines += [f"- `{s}`" for s in survivors[:400]]
    atomic_write_text(args.out, "\n".join(lines) + "\n")
    print("\n".join(lines[:12 + len(by_file)]))
    print(f"work folder: {work}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
