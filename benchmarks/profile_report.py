"""Where the README's first command (`verify report -n 2 --power`) spends its time (issue 22): a profile, not a
benchmark. Three parts, each printed with the load average beside it (on a shared machine only shares and ratios
within one run mean something):

* ``train``: one setting of Table 1's full weight-decay preset (Fashion-MNIST, 23 seeds as one batched model, depth 4,
  width 64) at a reduced epoch count, under ``torch.profiler``: the self CPU time of its operators grouped as matmul,
  reductions (the batch norm's mean / var, the losses' sums), indexing (minibatch gathers), optimizer (the SGD step
  and its foreach ops) and the other elementwise ops; then the NC-metric evaluation of the trained models, timed
  apart, with BLAS held to one thread as ``verify report`` holds it;
* ``report``: from a saved ``verify report --power --json`` file, the claims with the most mutant runs, and, with
  per-check seconds (``--junit``, a ``pytest --junitxml`` file of the default tier, or ``--cache-dir``, a result cache
  whose checks recorded them), the costliest default-tier checks and, per claim, its mutants times its fastest
  check: the least its mutant runs can cost;
* ``mutants``: one claim's baseline and mutant runs in one claim server (:func:`verify.mutants.run_claim`), each
  run's wall time against its checks' own seconds: the remainder is the per-run overhead (fork, ``import verify``,
  pytest start and collection).

A fourth part, ``kill-order``, is not a profile: it runs every curated mutant (or those of ``--mutant-claim``,
comma-separated) as ``verify mutants -j 2`` does and writes, for each killed one, the check that killed it into the
kill-order hint shipped with the package (``verify/data/mutant_kill_order.json``, or ``--kill-order-out``), which
``verify mutants`` and ``verify report --power`` then run first (order only: the outcomes are the same). Re-run it
when mutants or checks change; a stale entry is only ignored.

    python benchmarks/profile_report.py                                  # all three (a few minutes)
    python benchmarks/profile_report.py --parts report --report report.json --junit tier.xml
    python benchmarks/profile_report.py --parts train --epochs 3
    python benchmarks/profile_report.py --parts kill-order                # every mutant (minutes); writes the hint
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: operator-name groups of the training profile (torch's aten names)
GROUPS = {
    "matmul": ("aten::bmm", "aten::baddbmm", "aten::mm", "aten::addmm", "aten::matmul"),
    "reductions (BN mean/var, loss sums)": ("aten::var", "aten::mean", "aten::sum", "aten::var_mean"),
    "indexing (minibatch gathers)": ("aten::index", "aten::gather", "aten::index_select", "aten::randperm",
                                     "aten::stack"),
    "BN + ReLU kernel (numba, forward and backward)": ("BatchNormReLU", "BatchNormReLUBackward"),
}


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def profile_training(epochs: int, setting_seeds: int | None) -> None:
    import torch
    from threadpoolctl import threadpool_limits
    from torch.profiler import ProfilerActivity, profile

    from verify.empirical import neural_collapse as nc

    cfg = dict(nc.WD_PRESETS["full"], epochs=epochs)
    dev = nc._setup("cpu")
    X, y, _, _, yn = nc._pool(dev, cfg["dataset"])
    seeds = list(range(setting_seeds or cfg["n_seeds"]))
    index = nc._subsets(dev, yn, cfg["per_class"], seeds)
    steps = -(-index.shape[1] // cfg["batch"]) * epochs
    # one loss of a Table 1 run as _wd_run trains it: 5 settings x the seeds, model s R + j = setting s of seed j
    # (seed j's rows and data order), the first layer grouped by seed
    R, S = len(seeds), len(nc._SETTINGS)
    net = nc.BatchedMLP(S * R, X.shape[-1], [cfg["width"]] * cfg["depth"], 10, seeds * S, input_groups=R)
    index = torch.cat([index] * S)
    wd = torch.full((S * R,), nc.PAPER_WD, dtype=X.dtype)
    pw = [(p, wd) for p in net.feature_params() + net.last_params()]
    print(f"train: one loss of Table 1, {S} settings x {R} seeds = {S * R} models batched, {epochs} epochs = "
          f"{steps} steps; torch threads {torch.get_num_threads()}; load {load()}")
    def train(n_epochs=epochs):
        nc.train_batched(net, X, y, pw, n_epochs, cfg["batch"], cfg["lr"], index=index, groups=list(range(R)) * S,
                         order_seeds=[nc.order_seed(s) for s in seeds])

    # timed without the profiler (its own cost per op is large against these small ops), after one epoch that
    # loads the compiled BN kernel; the shares come from a second, profiled run
    train(1)
    t0 = time.perf_counter()
    train()
    wall = time.perf_counter() - t0
    t0 = time.perf_counter()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        train()
    profiled = time.perf_counter() - t0
    rows = prof.key_averages()
    total = sum(r.self_cpu_time_total for r in rows)
    opt = sum(r.cpu_time_total for r in rows if r.key.startswith("Optimizer.step"))
    share = {name: sum(r.self_cpu_time_total for r in rows if r.key in ops) for name, ops in GROUPS.items()}
    share["optimizer step (all its ops)"] = opt
    share["other elementwise and autograd"] = total - sum(share.values())
    print(f"  training {wall:.2f} s wall, {wall / steps * 1e3:.1f} ms per step (under the profiler {profiled:.2f} s; "
          "its shares:)")
    for name, us in share.items():
        print(f"  {name:48s} {us / 1e6:7.2f} s  {100 * us / total:5.1f}%")
    with threadpool_limits(1):
        t0 = time.perf_counter()
        nc.features_metrics(net, X, y, layers=(cfg["depth"] - 2, cfg["depth"] - 1), index=index)
        metrics = time.perf_counter() - t0
    print(f"  NC metrics of the {net.M} models (2 layers, BLAS 1 thread): {metrics:.2f} s; load {load()}")
    floor = matmul_floor(net, X, y, pw, cfg, index, seeds)
    print(f"  matmul floor: {floor['flops_per_step'] / 1e6:.1f} MFLOP of matmul per step (torch's FlopCounterMode "
          f"over one epoch), float32 gemm {floor['gflops32']:.0f} GFLOP/s on {torch.get_num_threads()} thread(s): "
          f"{floor['seconds_per_step'] * 1e3:.2f} ms per step, so the training above ran at "
          f"{wall / steps / floor['seconds_per_step']:.1f}x its matmul floor; "
          f"load {load()}")


def matmul_floor(net, X, y, pw, cfg, index, seeds) -> dict:
    """The matmul FLOPs of one training step of ``net`` (counted by ``torch.utils.flop_counter.FlopCounterMode``
    over one epoch, forward and backward) and the time they take at the float32 gemm rate measured here: a floor on
    any implementation of the same models, batches and steps (the elementwise ops, BN and the optimizer come on top).
    """
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    from verify.empirical import neural_collapse as nc

    steps = -(-index.shape[1] // cfg["batch"])
    counter = FlopCounterMode(display=False)
    with counter:
        nc.train_batched(net, X, y, pw, 1, cfg["batch"], cfg["lr"], index=index, groups=list(range(len(seeds))) *
                         (net.M // len(seeds)), order_seeds=[nc.order_seed(s) for s in seeds])
    per_step = counter.get_total_flops() / steps
    from _roofline import best_of   # benchmarks/ is on sys.path when this script runs

    a = torch.randn(2048, 2048)
    a @ a
    rate = 2 * 2048 ** 3 / best_of(lambda: a @ a)[0]
    return {"flops_per_step": per_step, "gflops32": rate / 1e9, "seconds_per_step": per_step / rate}


def check_seconds(cache_dir: Path | None, junit: Path | None) -> dict[str, float]:
    """Per-check wall seconds by node id: from a ``pytest --junitxml`` file (the check's call, setup and teardown),
    else from a result cache's check entries (recorded by ``--verify-deps``; a foreign or corrupt entry is skipped)."""
    seconds: dict[str, float] = {}
    if junit is not None:
        import xml.etree.ElementTree as ET

        for case in ET.parse(junit).iter("testcase"):
            mod, name = case.get("classname", ""), case.get("name", "")
            if mod.startswith("proofs_checks."):
                seconds[mod.replace(".", "/") + ".py::" + name] = float(case.get("time", 0.0))
        return seconds
    for f in (cache_dir / "check").glob("*.json") if cache_dir is not None else ():
        try:
            entry = json.loads(f.read_text(encoding="utf-8"))
            seconds[entry["key"]] = float(entry["payload"]["deps"]["seconds"])
        except (ValueError, KeyError, TypeError):
            continue
    return seconds


def profile_report(report: Path, cache_dir: Path | None, junit: Path | None, top: int) -> None:
    doc = json.loads(report.read_text(encoding="utf-8"))
    rows = [r for r in doc["claims"] + doc.get("beyond", []) if r.get("power")]
    runs = sorted(((r["power"]["total"], len(r["checks"]), r["id"]) for r in rows), reverse=True)
    print(f"report: {report}: {len(doc['claims'])} claims, {sum(len(r['checks']) for r in doc['claims'])} checks; "
          f"{sum(n for n, _, _ in runs)} mutants run over {len(runs)} claims (one baseline each without a cache)")
    print("  most mutants: " + ", ".join(f"{cid} {n} ({c} checks)" for n, c, cid in runs[:top]))
    seconds = check_seconds(cache_dir, junit)
    if not seconds:
        print("  (no per-check seconds: give --junit, a 'pytest --junitxml' file, or a --cache-dir with them)")
        return
    ranked = sorted(seconds.items(), key=lambda kv: -kv[1])
    print(f"  {len(seconds)} timed checks, {sum(seconds.values()):.0f} s in all (one process); costliest:")
    for nodeid, sec in ranked[:top]:
        print(f"    {sec:7.1f} s  {nodeid}")
    floor = []
    for r in rows:
        own = [seconds[c["check"]] for c in r["checks"] if c["check"] in seconds]
        if own:
            floor.append((r["power"]["total"] * min(own), r["id"], r["power"]["total"], min(own)))
    floor.sort(reverse=True)
    print("  mutants x fastest check (the least each claim's mutant runs cost): " +
          ", ".join(f"{cid} {n} x {m:.1f} s" for _, cid, n, m in floor[:top]))


def write_hint(claims: str | None, jobs: int, out: Path | None, batch: int = 11) -> None:
    """Every mutant (or those of ``claims``), ``batch`` claims per :func:`verify.mutants.run_all`, the hint written
    after each batch: a claim whose unmutated checks fail (a tree being edited) loses its batch, not the run."""
    from verify.mutants import KILL_ORDER, collect, power_by_claim, run_all, write_kill_order

    ms = collect(ROOT / "proofs_checks", claims=claims.split(",") if claims else None)
    by: dict = {}
    for m in ms:
        by.setdefault(m.claim, []).append(m)
    order = sorted(by, key=lambda c: (-len(by[c]), c))
    print(f"kill-order: {len(ms)} mutants of {len(order)} claims, -j {jobs}, no cache; load {load()}")
    t0, killed, total, seconds = time.perf_counter(), 0, 0, {}
    for k in range(0, len(order), batch):
        part = order[k:k + batch]
        stats: dict = {}
        try:
            results = run_all([m for c in part for m in by[c]], root=ROOT, jobs=jobs, progress=False, stats=stats)
        except RuntimeError as exc:
            print(f"  claims {part[0]}..{part[-1]} not written: {str(exc)[:300]}")
            continue
        power = power_by_claim(results)
        killed += sum(r["killed"] for r in power.values())
        total += sum(r["total"] for r in power.values())
        seconds.update(stats["claim_seconds"])
        n = write_kill_order(stats["killers"], out or KILL_ORDER)
        print(f"  claims {part[0]}..{part[-1]}: hint used {stats['kill_order']}; {n} entries; load {load()}")
    print(f"  {time.perf_counter() - t0:.1f} s wall; killed {killed}/{total}; written to {out or KILL_ORDER}")
    slow = sorted(seconds.items(), key=lambda kv: -kv[1])[:8]
    print("  slowest claims (s): " + ", ".join(f"{c} {s}" for c, s in slow))


def profile_mutants(claim: str) -> None:
    from verify.mutants import ClaimServer, collect, run_claim

    ms = collect(ROOT / "proofs_checks", claims=[claim])
    print(f"mutants: {claim}, {len(ms)} mutants, one claim server; load {load()}")
    with ClaimServer() as server:
        for label in ("first claim of the server", "second claim of the same server"):
            t0 = time.perf_counter()
            got = run_claim(claim, ms, ROOT, server=server)
            wall = time.perf_counter() - t0
            own = {c["nodeid"]: c["deps"]["seconds"] for c in got["baseline"]["checks"]}
            secs = got["run_seconds"]
            base = secs.pop("baseline")
            print(f"  {label}: {wall:.1f} s wall; baseline run {base:.1f} s (its checks {sum(own.values()):.1f} s "
                  f"under coverage); mutant runs " + ", ".join(f"{s:.1f}" for s in secs.values()) +
                  f" s; outcomes {[r.outcome for r in got['results']]}; load {load()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="train,report,mutants", help="comma-separated: train, report, mutants, "
                    "kill-order (writes the hint; not in the default)")
    ap.add_argument("--epochs", type=int, default=3, help="training epochs of the profiled setting (full: 75)")
    ap.add_argument("--seeds", type=int, default=None, help="seeds of the profiled setting (default: the preset's)")
    ap.add_argument("--report", type=Path, default=None, help="a saved 'verify report --power --json' file")
    ap.add_argument("--cache-dir", type=Path, default=None, help="a verify result cache with per-check seconds")
    ap.add_argument("--junit", type=Path, default=None, help="per-check seconds from a 'pytest --junitxml' file")
    ap.add_argument("--mutant-claim", default=None, help="the claim whose mutant runs are timed (default S-eq6); "
                    "for kill-order, the claims whose mutants run (default: all)")
    ap.add_argument("--kill-order-out", type=Path, default=None, help="kill-order: the file to write (default: the "
                    "one shipped with the package)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="kill-order: claim servers at once")
    ap.add_argument("--top", type=int, default=8)
    opts = ap.parse_args()
    parts = set(opts.parts.split(","))
    known = {"train", "report", "mutants", "kill-order"}
    if parts - known:
        raise SystemExit(f"--parts: unknown {sorted(parts - known)}")
    if "report" in parts and (opts.report is None or not opts.report.is_file()):
        raise SystemExit("--report: give a saved 'verify report --power --json' file for the report part")
    if "train" in parts:
        profile_training(opts.epochs, opts.seeds)
    if "report" in parts:
        profile_report(opts.report, opts.cache_dir, opts.junit, opts.top)
    if "mutants" in parts:
        profile_mutants(opts.mutant_claim or "S-eq6")
    if "kill-order" in parts:
        write_hint(opts.mutant_claim, opts.jobs, opts.kill_order_out)


if __name__ == "__main__":
    main()
