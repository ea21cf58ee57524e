"""Gradient flow (4) at d = 64, K = 10, n = 50 to t = 50 (rtol 1e-10): closed-form gradient (7) vs naive gradients.

Naive references: (a) torch autograd through the definition of L(H) (W*(H) by a linear solve),
(b) the per-sample gradient of App. A (the vectors L_kj, one column at a time).
Both are timed per evaluation and, for (a), over the whole flow; (b) is projected from its
per-evaluation time and the number of evaluations the flow needed.

    python benchmarks/bench_flow.py
"""

import os
import time

import numpy as np
from scipy.integrate import solve_ivp

from verify.numeric import central_path as flow
from verify.numeric import ufm

d, K, n, lw, lh, T = 64, 10, 50, 0.5, 0.05, 50.0


def per_sample_grad(H):
    """Gradient (7) assembled column by column from the vectors L_kj of App. A."""
    c = ufm.covariances(H, K)
    C = np.linalg.inv(c["Sigma_T_tilde"] + lw / K * np.eye(d))
    CBt = c["Sigma_B_tilde"] @ C
    G = np.empty_like(H)
    for k in range(K):
        for j in range(n):
            h = H[:, k * n + j]
            G[:, k * n + j] = (C @ (h - c["Hbar"][:, k]) - (np.eye(d) - CBt.T) @ C @ h + lh * K * h) / (K * K * n)
    return G


def time_evals(fn, H, reps):
    fn(H)
    t0 = time.perf_counter()
    for _ in range(reps):
        fn(H)
    return (time.perf_counter() - t0) / reps


def main():
    # BLAS threads: 1 by default (BENCH_THREADS to change); on a loaded 2-core machine multithreaded
    # OpenBLAS spin-waits and small GEMMs get ~100x slower, which would measure the load, not the method
    threads = int(os.environ.get("BENCH_THREADS", "1"))
    try:
        from threadpoolctl import threadpool_limits
        threadpool_limits(threads)
    except ImportError:
        pass
    print(f"BLAS threads: {threads}")
    H0 = np.random.default_rng(0).standard_normal((d, K * n))
    t0 = time.perf_counter()
    sol = flow.solve_flow(H0, lw, lh, K, T, rtol=1e-10)
    t_closed = time.perf_counter() - t0
    e_closed = time_evals(lambda H: ufm.grad_central_path_loss(H, lw, lh, K), H0, 50)
    e_loop = time_evals(per_sample_grad, H0, 5)
    assert np.allclose(per_sample_grad(H0), ufm.grad_central_path_loss(H0, lw, lh, K), rtol=1e-9, atol=1e-14)
    print(f"flow d={d} K={K} n={n} t_end={T} rtol=1e-10: {sol.nfev} gradient evaluations, status {sol.status}")
    print(f"{'method':38s} {'per eval [ms]':>14s} {'whole flow [s]':>15s} {'ratio':>8s}")
    print(f"{'closed form (7), numpy':38s} {1e3 * e_closed:14.3f} {t_closed:15.2f} {1.0:8.1f}")
    print(f"{'per-sample L_kj loop (projected)':38s} {1e3 * e_loop:14.3f} {e_loop * sol.nfev:15.2f} "
          f"{e_loop * sol.nfev / t_closed:8.1f}")
    try:
        import torch
    except ImportError:
        print("torch not installed: autograd reference skipped")
        return
    torch.set_num_threads(int(os.environ.get("BENCH_THREADS", "1")))
    autograd_grad = make_autograd_grad()

    assert np.allclose(autograd_grad(H0), ufm.grad_central_path_loss(H0, lw, lh, K), rtol=1e-8, atol=1e-14)
    e_auto = time_evals(autograd_grad, H0, 20)
    t0 = time.perf_counter()
    sol_a = solve_ivp(lambda _t, y: -K * n * autograd_grad(y.reshape(d, K * n)).ravel(), (0, T), H0.ravel(),
                      method="DOP853", rtol=1e-10, atol=1e-13)
    t_auto = time.perf_counter() - t0
    print(f"{'torch autograd of the definition':38s} {1e3 * e_auto:14.3f} {t_auto:15.2f} {t_auto / t_closed:8.1f}")
    print(f"max |H_T(closed) - H_T(autograd)| = {np.abs(sol.y[:, -1] - sol_a.y[:, -1]).max():.2e}")


def make_autograd_grad():
    """Gradient of L(H) by torch autograd through its definition (W*(H) by a linear solve), float64."""
    import torch

    Y = torch.kron(torch.eye(K, dtype=torch.float64), torch.ones(1, n, dtype=torch.float64))

    def autograd_grad(H):
        Ht = torch.tensor(H, requires_grad=True)
        W = torch.linalg.solve(Ht @ Ht.T + n * lw * torch.eye(d, dtype=torch.float64), Ht @ Y.T).T
        L = (((W @ Ht - Y) ** 2).sum() / (2 * K * n) + lw * (W ** 2).sum() / (2 * K)
             + lh * (Ht ** 2).sum() / (2 * K * n))
        L.backward()
        return Ht.grad.numpy()

    return autograd_grad


def run(quick: bool = False) -> tuple:
    import sys as _sys

    _sys.path.insert(0, os.path.dirname(__file__))
    from _roofline import Row, minimum_time, set_threads

    set_threads()
    H0 = np.random.default_rng(0).standard_normal((d, K * n))
    N = K * n
    # a lower bound on gradient (7)'s work: Sigma_T = H H^T (syrk, d^2 N), one d x d inverse (d^3) and one d x d
    # by d x N product (2 d^2 N)
    lim = minimum_time(flops=3.0 * d * d * N + 1.0 * d ** 3)
    e_closed = time_evals(lambda H: ufm.grad_central_path_loss(H, lw, lh, K), H0, 50)
    rows = []
    try:
        autograd_grad = make_autograd_grad()
    except ImportError:
        return rows, {}
    assert np.allclose(autograd_grad(H0), ufm.grad_central_path_loss(H0, lw, lh, K), rtol=1e-8, atol=1e-14)
    e_auto = time_evals(autograd_grad, H0, 20)
    rows.append(Row(f"N gradient (7), d={d}, K={K}, n={n}", "closed form (7), numpy", "torch autograd of L(H)",
                    e_closed, e_auto, lim, note="one evaluation"))
    T_run = 5.0 if quick else T
    t0 = time.perf_counter()
    sol = flow.solve_flow(H0, lw, lh, K, T_run, rtol=1e-10)
    t_closed = time.perf_counter() - t0
    t0 = time.perf_counter()
    sol_a = solve_ivp(lambda _t, y: -K * n * autograd_grad(y.reshape(d, K * n)).ravel(), (0, T_run), H0.ravel(),
                      method="DOP853", rtol=1e-10, atol=1e-13)
    t_auto = time.perf_counter() - t0
    diff = np.abs(sol.y[:, -1] - sol_a.y[:, -1]).max()
    rows.append(Row(f"N gradient flow (4) to t={T_run:g}", "solve_flow, closed form", "DOP853 + torch autograd",
                    t_closed, t_auto, lim * sol.nfev, note=f"{sol.nfev} evaluations; max |H_T diff| {diff:.1e}"))
    return rows, {}


if __name__ == "__main__":
    main()
