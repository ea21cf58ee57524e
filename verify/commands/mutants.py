"""``verify mutants``: how much power each claim's own checks have against plausible wrong edits.

::

    verify mutants --list                      # the curated mutants, by claim
    verify mutants --claim S-eq10 -j 2         # run one claim's mutants
    verify mutants --json mutants.json         # all of them; then: verify report --mutants mutants.json
"""

from __future__ import annotations

import json
import sys


def register(sub) -> None:
    p = sub.add_parser("mutants", help="run the curated mutants against their claims' own checks")
    p.add_argument("--claim", action="append", default=[], metavar="ID", help="only this claim's mutants (repeatable)")
    p.add_argument("--json", metavar="FILE", help="write every mutant's outcome and the power per claim")
    p.add_argument("-j", "--jobs", type=int, default=1, help="mutants run at once (default 1)")
    p.add_argument("--timeout", type=float, default=600, help="seconds per run; past it the mutant counts killed")
    p.add_argument("--list", action="store_true", help="list the mutants without running them")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--no-cache", action="store_true", help="run every mutant, neither reading nor writing the cache")
    p.add_argument("--cache-dir", metavar="DIR", help="the result cache (default: $VERIFY_CACHE_DIR or "
                   "./.verify-cache): a mutant is re-run only when its claim's fingerprint or the mutated file changed")
    p.add_argument("--scheduler", metavar="ADDR", help="run the claims' mutants as Dask tasks (one per claim; a claim "
                   "with more than one job's share in chunks): 'local' (a LocalCluster of -j workers) or a scheduler "
                   "address tcp://HOST:PORT")
    p.set_defaults(func=run)


def run(args) -> int:
    from .._io import atomic_write_text, check_output_path
    from .._validate import verify_int, verify_positive

    check_output_path(args.json, "--json")  # before the mutants are collected or run (a run takes minutes)
    jobs = verify_int(args.jobs, "--jobs", minimum=1)
    verify_positive(args.timeout, "--timeout")
    from ..mutants import collect, power_by_claim, run_all

    mutants = collect(claims=args.claim or None)
    if not mutants:
        raise ValueError("Argument '--claim' must name a claim with curated mutants; none found.")
    if args.list:
        for m in mutants:
            print(f"{m.name:<30} {m.path:<42} {m.why}" + (f"  [equivalent: {m.equivalent}]" if m.equivalent else ""))
        return 0
    import time

    from ..report import run_options

    t0 = time.perf_counter()
    cache_dir, scheduler = run_options(args)
    stats: dict = {}
    results = run_all(mutants, jobs=jobs, timeout=args.timeout, progress=not args.no_progress, cache_dir=cache_dir,
                      scheduler=scheduler, stats=stats)
    print(f"verify: {time.perf_counter() - t0:.1f} s wall; mutants: {stats.get('reused', 0)} reused from the cache, "
          f"{stats.get('run', 0)} run", file=sys.stderr)
    slowest = sorted(stats.get("claim_seconds", {}).items(), key=lambda kv: -kv[1])[:5]
    if slowest:
        print("verify: slowest claims (s): " + ", ".join(f"{c} {s}" for c, s in slowest), file=sys.stderr)
    power = power_by_claim(results)
    for cid, row in power.items():
        flag = "" if row["killed"] == row["total"] else "  SURVIVING: " + ", ".join(row["survivors"] + row["errors"])
        print(f"{cid:<24} killed {row['killed']}/{row['total']}" + (f" (+{row['equivalent']} equivalent)"
                                                                     if row["equivalent"] else "") + flag)
    total = sum(r["total"] for r in power.values())
    killed = sum(r["killed"] for r in power.values())
    print(f"total: killed {killed}/{total} mutants over {len(power)} claims")
    for r in results:
        if r.outcome in ("survived", "error"):
            print(f"  {r.outcome}: {r.name} ({r.path}: {r.why}) - {r.detail}", file=sys.stderr)
    if args.json:
        atomic_write_text(args.json, json.dumps({"mutants": [r.as_dict() for r in results], "power": power},
                                                indent=1, sort_keys=True) + "\n")
    return 0 if killed == total else 1
