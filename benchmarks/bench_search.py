"""Benchmark: ``verify search`` starts per second, serial vs a Dask LocalCluster with 1 and 2 workers.

1. The same seeded starts of one objective (default N-lemC.4, ~0.1 s per start) run (a) one after the
   other in this process, (b) on a LocalCluster with 1 worker process, (c) with 2 worker processes
   (1 thread each). The cluster start-up is timed separately; the search itself is timed after one
   warm-up start per worker (the workers' first task imports scipy and verify).
2. Overhead per task: a no-op task through the same path (:func:`verify.distributed.iter_completed`),
   wall time per task on 1 worker.

Output: starts/s for each, the ratios to serial, and the overhead as a fraction of one start. The ideal
for 2 workers is 2x serial on a machine with 2 free cores; on a shared machine the numbers are noisy.

Run: ``python benchmarks/bench_search.py [--objective N-lemC.4] [--budget 24] [--noop 200]``
"""

from __future__ import annotations

import argparse
import os
import time

from verify.distributed import get_client, iter_completed
from verify.objectives import get_objective
from verify.search import run_search


def _noop(x):
    return x


def timed_search(name: str, budget: int, client) -> tuple[float, float]:
    t = time.perf_counter()
    res = run_search(name, budget, client=client, progress=False, stop_on_violation=False)
    return time.perf_counter() - t, res.best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--objective", default="N-lemC.4")
    ap.add_argument("--budget", type=int, default=24, help="starts per configuration")
    ap.add_argument("--noop", type=int, default=200, help="no-op tasks for the overhead measurement")
    args = ap.parse_args()
    obj = get_objective(args.objective)
    print(f"objective {obj.name}, budget {args.budget} starts, {os.cpu_count()} cpus visible (shared machine: noisy)")

    t_serial, best = timed_search(obj.name, args.budget, None)
    rows = [("serial (this process)", t_serial, 0.0, best)]
    overhead = None
    for n in (1, 2):
        t0 = time.perf_counter()
        with get_client(n_workers=n) as client:
            t_up = time.perf_counter() - t0
            run_search(obj.name, n, client=client, progress=False)  # warm-up: imports on every worker
            t, b = timed_search(obj.name, args.budget, client)
            rows.append((f"LocalCluster {n} worker{'s' if n > 1 else ''}", t, t_up, b))
            if n == 1:
                list(iter_completed(client, _noop, range(10), progress=False))  # warm-up
                t0 = time.perf_counter()
                list(iter_completed(client, _noop, range(args.noop), progress=False, window=64))
                overhead = (time.perf_counter() - t0) / args.noop
    print(f"{'configuration':26s} {'starts/s':>9s} {'vs serial':>10s} {'start-up s':>11s}  best (must agree)")
    for label, t, up, b in rows:
        print(f"{label:26s} {args.budget / t:9.2f} {t_serial / t:9.2f}x {up:11.2f}  {b!r}")
    per_start = t_serial / args.budget
    print(f"overhead per task (no-op, 1 worker): {overhead * 1e3:.2f} ms = {overhead / per_start:.3f} of one serial "
          f"start ({per_start * 1e3:.1f} ms)")
    assert len({b for *_, b in rows}) == 1, "serial and cluster searches disagree"


if __name__ == "__main__":
    main()
