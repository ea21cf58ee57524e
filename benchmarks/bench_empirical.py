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
"""

import argparse
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


def main():
    ap = argparse.ArgumentParser()
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
