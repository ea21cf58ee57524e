"""Benchmark (issue 6): time to reach a given Ltilde with exact-loss training vs Monte Carlo training.

Paper S's setting d = 10, n = 6000, m = 3, p = 1e-3, Gaussian mu. Both runs use Adam from the same start;
the exact run uses the fused exact population loss (lr 0.01), the Monte Carlo run the usual toy-model
recipe (lr 1e-3, batch 1024, fresh samples each step). The exact Ltilde of both is evaluated every
``--every`` steps (evaluation time excluded). Target: ``--frac`` of the best value the exact run reaches.
Also times one step of the plain-autograd exact loss against the fused one, and L-BFGS on the exact loss
(scipy L-BFGS-B, float32 evaluations, the optimiser of the full Figure 3 preset) from a start at the optimal
diagonal scale: its time to the same target, against the exact-loss Adam run.

    python benchmarks/bench_empirical.py            # paper size (a few minutes on 2 cores)
    python benchmarks/bench_empirical.py --n 1000   # smaller

Table 1's batched training (issue 22) against an earlier version of ``verify/empirical/neural_collapse.py`` (a git
revision, loaded beside the current module): the same setting trained by both, alternately (paired, at the same
load), every final metric compared bitwise (printed: a change that moves a float must say so; the numba BN kernel
and the grouped first layer of 98366fd did, see docs/experiments.md), and the median time ratio. Every
BLAS is held to one thread for both: the strongest baseline (the earlier metrics at their fastest; under pytest,
scipy's BLAS ran at 2 threads, see ``_metrics``):

    python benchmarks/bench_empirical.py --train-vs HEAD --epochs 3 --reps 3
    python benchmarks/bench_empirical.py --metrics-vs HEAD --reps 3   # the metrics alone, in pytest's BLAS state
"""

import argparse
import json
import math
import time

import numpy as np
import torch

from verify.empirical import superposition as S
from verify.numeric.distributions import get_distribution


def run(objective, W0, p, m, steps, every, lr, batch, seed=0):
    dist = get_distribution("gaussian")
    W = W0.clone().requires_grad_(True)
    pv = torch.tensor([p], dtype=W.dtype)
    opt = torch.optim.Adam([W], lr=lr)
    gen, rng = torch.Generator().manual_seed(seed), np.random.default_rng(seed)
    elapsed, trace = 0.0, []
    for step in range(1, steps + 1):
        t = time.perf_counter()
        if objective == "exact":
            val = S.exact_loss_fused(W, pv, m)
        else:
            val = S.monte_carlo_objective(W, S._sample_x((1, batch, W.shape[-1]), pv, dist, gen, rng), m)
        opt.zero_grad()
        (-(val / pv).sum()).backward()
        opt.step()
        elapsed += time.perf_counter() - t
        if step % every == 0:
            trace.append((step, elapsed, float(S._exact_values(W, pv, m, dist)[0])))
    return trace


def run_lbfgs(d, n, p, m, evals, every, seed=0):
    """L-BFGS via :func:`S.maximise_continuation` with growing evaluation budgets: (evals, seconds, Ltilde)."""
    trace = []
    for k in range(every, evals + 1, every):
        t = time.perf_counter()
        r = S.maximise_continuation(d, n, [p], m, seed=seed, first_evals=k, device="cpu")
        trace.append((k, time.perf_counter() - t, float(r.values[0])))
    return trace


def first_reach(trace, target):
    for step, t, v in trace:
        if v >= target:
            return step, t
    return None, math.inf


def _module_at(rev: str):
    """``verify.empirical.neural_collapse`` as it is at git revision ``rev``, imported beside the current one."""
    import importlib.util
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = subprocess.run(["git", "show", f"{rev}:verify/empirical/neural_collapse.py"], cwd=root, check=True,
                          capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp(prefix="verify-bench-")) / "neural_collapse_at_rev.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("verify.empirical._neural_collapse_at_rev", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def train_vs(rev: str, epochs: int, reps: int, seeds: int | None, settings: int) -> None:
    """One Table 1 run (``settings`` of the five WD settings x the preset's seeds, CE) trained by the module at
    ``rev`` and by the current one, alternately; weights and metrics compared with ``==``."""
    import os
    import statistics

    from threadpoolctl import threadpool_limits

    from verify.empirical import neural_collapse as new

    threadpool_limits(1)   # numpy's and scipy's BLAS (both loaded by now): the baseline at its fastest
    old = _module_at(rev)
    cfg = dict(new.WD_PRESETS["full"], epochs=epochs)
    dev = new._setup("cpu")
    X, y, _, _, yn = new._pool(dev, cfg["dataset"])
    sd = list(range(seeds or cfg["n_seeds"]))
    index = new._subsets(dev, yn, cfg["per_class"], sd)
    chosen = new._SETTINGS[:settings]
    wd = {s: 1e-3 * (i + 1) for i, s in enumerate(chosen)}

    def one(mod):
        t = time.perf_counter()
        res = mod._wd_run(X, y, cfg, sd, "ce", True, chosen, wd, wd, "bench", index)
        return time.perf_counter() - t, res

    times = {"rev": [], "now": []}
    same = True
    for _ in range(reps):
        for key, mod in (("rev", old), ("now", new)):
            t, res = one(mod)
            times[key].append(t)
            if key == "rev":
                ref = res
            else:
                # json: floats by repr (exact round trip) and NaN equal to NaN, so this is bitwise equality
                same = same and json.dumps(res) == json.dumps(ref)
        print(f"  pair: {rev} {times['rev'][-1]:.1f} s, now {times['now'][-1]:.1f} s; load "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    a, b = statistics.median(times["rev"]), statistics.median(times["now"])
    print(f"Table 1 run, {len(chosen)} settings x {len(sd)} seeds, {epochs} epochs (training + metrics): {rev} "
          f"{a:.1f} s, now {b:.1f} s (medians of {reps} pairs): {a / b:.2f}x; every metric equal (==): {same}")


def metrics_vs(rev: str, reps: int) -> None:
    """The NC metrics of one trained Table 1 setting (23 models, 2 layers) by the module at ``rev`` and by the
    current one, alternately, in the BLAS state a pytest run has: numpy's OpenBLAS at 1 thread (the plugin limits
    it when pytest configures), scipy's at the machine's cores (loaded later, never limited by the plugin)."""
    import os
    import statistics
    import subprocess
    import sys

    if os.environ.get("VERIFY_BENCH_PLUGIN_BLAS") != "1":   # this module imported scipy already: run afresh, with
        # numpy's BLAS limited before scipy's loads, as the plugin's pytest_configure does
        prelude = ("import numpy, runpy, sys; from threadpoolctl import threadpool_limits; threadpool_limits(1); "
                   "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')")
        subprocess.run([sys.executable, "-c", prelude, __file__, "--metrics-vs", rev, "--reps", str(reps)],
                       env={**os.environ, "VERIFY_BENCH_PLUGIN_BLAS": "1"}, check=True)
        return
    from threadpoolctl import threadpool_info

    from verify.empirical import neural_collapse as new

    print("  BLAS threads: " + ", ".join(f"{i['filepath'].split('/')[-2]} {i['num_threads']}" for i in threadpool_info()
                                         if i["user_api"] == "blas"))
    old = _module_at(rev)
    cfg = new.WD_PRESETS["full"]
    dev = new._setup("cpu")
    X, y, _, _, yn = new._pool(dev, cfg["dataset"])
    seeds = list(range(cfg["n_seeds"]))
    index = new._subsets(dev, yn, cfg["per_class"], seeds)
    net = new.BatchedMLP(len(seeds), X.shape[-1], [cfg["width"]] * cfg["depth"], 10, seeds)
    pw = [(p, torch.full((len(seeds),), new.PAPER_WD)) for p in net.feature_params() + net.last_params()]
    new.train_batched(net, X, y, pw, 2, cfg["batch"], cfg["lr"], index=index, groups=range(len(seeds)),
                      order_seeds=seeds)
    times, same = {"rev": [], "now": []}, True
    for _ in range(reps):
        for key, mod in (("rev", old), ("now", new)):
            t = time.perf_counter()
            res = mod.features_metrics(net, X, y, layers=(cfg["depth"] - 2, cfg["depth"] - 1), index=index)
            times[key].append(time.perf_counter() - t)
            if key == "rev":
                ref = res
            else:
                same = same and json.dumps(res) == json.dumps(ref)   # bitwise, as in train_vs
        print(f"  pair: {rev} {times['rev'][-1]:.2f} s, now {times['now'][-1]:.2f} s; load "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    a, b = statistics.median(times["rev"]), statistics.median(times["now"])
    print(f"NC metrics of {len(seeds)} models x 2 layers (pytest's BLAS state): {rev} {a:.2f} s, now {b:.2f} s "
          f"(medians of {reps} pairs): {a / b:.1f}x; every metric equal (==): {same}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--metrics-vs", metavar="REV", help="only the NC-metric evaluation against git revision REV")
    ap.add_argument("--train-vs", metavar="REV", help="only Table 1's batched training against git revision REV")
    ap.add_argument("--epochs", type=int, default=3, help="with --train-vs: epochs (the full preset: 75)")
    ap.add_argument("--reps", type=int, default=3, help="with --train-vs: alternating pairs")
    ap.add_argument("--seeds", type=int, default=None, help="with --train-vs: seeds (default: the full preset's)")
    ap.add_argument("--settings", type=int, default=5, help="with --train-vs: how many of the five WD settings")
    ap.add_argument("--d", type=int, default=10)
    ap.add_argument("--n", type=int, default=6000)
    ap.add_argument("--p", type=float, default=1e-3)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--mc-steps", type=int, default=1500)
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--frac", type=float, default=0.9)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--lbfgs-evals", type=int, default=200)
    ap.add_argument("--lbfgs-every", type=int, default=25)
    args = ap.parse_args()
    if args.train_vs:
        return train_vs(args.train_vs, args.epochs, args.reps, args.seeds, args.settings)
    if args.metrics_vs:
        return metrics_vs(args.metrics_vs, args.reps)
    torch.set_num_threads(args.threads)
    m = 3
    W0 = torch.randn(1, args.d, args.n, generator=torch.Generator().manual_seed(0)) * math.sqrt(0.01 * 0.585 / args.d)

    Wg = W0.double().clone().requires_grad_(True)
    for fn in (S.exact_loss_torch, S.exact_loss_fused):  # warm-up: lambdify and allocator
        fn(Wg, args.p, m).sum().backward()
    t = time.perf_counter()
    S.exact_loss_torch(Wg, args.p, m).sum().backward()
    t_auto = time.perf_counter() - t
    t = time.perf_counter()
    S.exact_loss_fused(Wg, args.p, m).sum().backward()
    t_fused = time.perf_counter() - t
    print(f"one exact-loss step (float64, value + gradient), n = {args.n}: autograd {t_auto:.3f} s, "
          f"fused {t_fused:.3f} s, ratio {t_auto / t_fused:.2f}x")

    ex = run("exact", W0, args.p, m, args.steps, args.every, 0.01, 1024)
    mc = run("mc", W0, args.p, m, args.mc_steps, args.every, 1e-3, 1024)
    target = args.frac * max(v for _, _, v in ex)
    se, te = first_reach(ex, target)
    sm, tm = first_reach(mc, target)
    print(f"d={args.d} n={args.n} p={args.p} m={m}: target Ltilde = {target:.4g} "
          f"({args.frac:.0%} of the exact run's best {max(v for _, _, v in ex):.4g})")
    print(f"  exact loss (Adam lr 1e-2):          step {se}, {te:.2f} s")
    print(f"  Monte Carlo (Adam lr 1e-3, b=1024): step {sm}, {tm:.2f} s; best {max(v for _, _, v in mc):.4g}")
    lb = run_lbfgs(args.d, args.n, args.p, m, args.lbfgs_evals, args.lbfgs_every)
    sl, tl = first_reach(lb, target)
    print(f"  L-BFGS (exact loss, float32):       {sl} evaluations, {tl:.2f} s; best {max(v for _, _, v in lb):.4g}"
          f" ({'ratio Adam / L-BFGS %.2fx' % (te / tl) if math.isfinite(tl) else 'target not reached'})")
    print(f"  time ratio MC / exact: {tm / te:.2f}x" if math.isfinite(tm) else
          f"  Monte Carlo did not reach the target in {args.mc_steps} steps ({mc[-1][1]:.1f} s): ratio > "
          f"{mc[-1][1] / te:.1f}x")


if __name__ == "__main__":
    main()
