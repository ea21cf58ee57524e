"""Benchmark: exact Ltilde (derived polynomial, float64) vs Monte Carlo to 1% relative error.

Setting of issue 2: n = 2000, d = 10, m = 3, standard Gaussian mu. W has random directions and
columns of squared norm 0.1; p = 0.001 (a sparse regime where Ltilde > 0). Monte Carlo runs in
batches of 20 000 samples (seeded) until its standard error is below 1% of the exact value.

Run: ``python benchmarks/bench_exact_loss.py`` (about a minute).
"""

from __future__ import annotations

import time

import numpy as np
from tqdm import tqdm

from verify.numeric.superposition_loss import exact_loss, exact_loss_grad, monte_carlo_loss

D, N, M, P, MU, COL_SQ_NORM, BATCH, TARGET = 10, 2000, 3, 0.001, "gaussian", 0.1, 20_000, 0.01


def best_of(fn, repeats=5):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main():
    rng = np.random.default_rng(0)
    W = rng.normal(size=(D, N))
    W *= np.sqrt(COL_SQ_NORM) / np.linalg.norm(W, axis=0)
    exact_loss(W, P, M, MU)  # compile the lambdified polynomial once (sympy derivation is cached)
    t_exact, value = best_of(lambda: exact_loss(W, P, M, MU))
    t_grad, _ = best_of(lambda: exact_loss_grad(W, P, M, MU))

    total, total_sq, count, t_mc = 0.0, 0.0, 0, 0.0
    with tqdm(desc="Monte Carlo", unit=" samples") as bar:
        while True:
            t0 = time.perf_counter()
            mean, se = monte_carlo_loss(W, P, M, MU, samples=BATCH, seed=1000 + count // BATCH)
            t_mc += time.perf_counter() - t0
            total += mean * BATCH
            total_sq += se ** 2 * BATCH * (BATCH - 1) + BATCH * mean ** 2
            count += BATCH
            bar.update(BATCH)
            est = total / count
            stderr = np.sqrt((total_sq / count - est ** 2) / (count - 1))
            if stderr <= TARGET * abs(value):
                break

    print(f"n = {N}, d = {D}, m = {M}, p = {P}, mu = {MU}")
    print(f"{'method':<28}{'value':>16}{'rel. error':>14}{'time [s]':>12}")
    print(f"{'exact (derived polynomial)':<28}{value:>16.8g}{'0 (exact)':>14}{t_exact:>12.4f}")
    print(f"{'Monte Carlo, ' + str(count) + ' samples':<28}{est:>16.8g}{stderr / abs(value):>14.4f}{t_mc:>12.2f}")
    print(f"{'exact gradient':<28}{'':>16}{'':>14}{t_grad:>12.4f}")
    print(f"ratio Monte Carlo / exact time: {t_mc / t_exact:,.0f}x")


if __name__ == "__main__":
    main()
