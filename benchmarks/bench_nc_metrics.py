"""NC metrics on 10^6 x 512 float32 features streamed in batches of 10^4 (K = 10).

Compares :class:`verify.numeric.nc_metrics.NCAccumulator` (BLAS syrk per class and batch, float64 sums) with
the naive reference of common NC code: a first pass for the class means, then a per-sample
outer-product accumulation of Sigma_W. The naive method is timed on the first 2000 samples and
its throughput reported beside ours; peak memory is traced with tracemalloc (numpy allocations).

    python benchmarks/bench_nc_metrics.py [N]
"""

import sys
import contextlib
import os
import time
import tracemalloc

import numpy as np
from tqdm import tqdm

from verify.numeric.nc_metrics import NCAccumulator

d, K, B = 512, 10, 10_000


def batches(N, seed=0):
    rng = np.random.default_rng(seed)
    means = 3 * rng.standard_normal((K, d)).astype(np.float32)
    for start in range(0, N, B):
        m = min(B, N - start)
        y = rng.integers(0, K, m)
        yield means[y] + rng.standard_normal((m, d), dtype=np.float32), y


def naive(N):
    sums, counts = np.zeros((K, d)), np.zeros(K)
    data = list(batches(N))
    for x, y in data:
        for h, k in zip(x, y):
            sums[k] += h
            counts[k] += 1
    mu = sums / counts[:, None]
    SW = np.zeros((d, d))
    for x, y in data:
        for h, k in zip(x, y):
            v = h - mu[k]
            SW += np.outer(v, v)
    return SW / N


def main():
    threads = int(os.environ.get("BENCH_THREADS", "1"))
    with contextlib.suppress(ImportError):
        __import__("threadpoolctl").threadpool_limits(threads)
    print(f"BLAS threads: {threads} (BENCH_THREADS; see bench_flow.py for why 1 is the default)")
    N = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    tracemalloc.start()
    acc = NCAccumulator(d, K)
    t0, t_upd = time.perf_counter(), 0.0
    for x, y in tqdm(batches(N), total=-(-N // B), desc="streaming", mininterval=2):
        t1 = time.perf_counter()
        acc.update(x, y)
        t_upd += time.perf_counter() - t1
    t1 = time.perf_counter()
    res = acc.result()
    t_upd += time.perf_counter() - t1
    t_ours = time.perf_counter() - t0
    peak_ours = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()

    n_naive = 2000
    tracemalloc.start()
    t0 = time.perf_counter()
    SW = naive(n_naive)
    t_naive = time.perf_counter() - t0
    peak_naive = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    check = NCAccumulator(d, K)
    for x, y in batches(n_naive):
        check.update(x, y)
    err = np.abs(check.result().sigma_w - SW).max() / np.abs(SW).max()

    print(f"features {N} x {d} float32, K = {K}, batches of {B}: NC1 = {res.nc1:.6f}, NC1~ = {res.nc1_tilde:.6f}, "
          f"NC2 = {res.nc2:.4f}")
    print(f"{'method':42s} {'samples/s':>12s} {'peak MiB':>10s}")
    print(f"{'NCAccumulator incl. data generation':42s} {N / t_ours:12.0f} {peak_ours / 2**20:10.1f}")
    print(f"{'NCAccumulator update + result only':42s} {N / t_upd:12.0f} {'':>10s}")
    print(f"{'naive per-sample outer products':42s} {n_naive / t_naive:12.0f} {peak_naive / 2**20:10.1f}")
    print(f"throughput ratio (update only / naive): {(N / t_upd) / (n_naive / t_naive):.1f}x; Sigma_W agreement on {n_naive} samples: "
          f"{err:.1e} relative")


# --------------------------------------------------------------------------- peer algorithms (issue 14)
# Transcriptions of the algorithms only (no code copied): the features arrive in batches, as in both peers.
def pinv_nc1(data, dtype):
    """tding1/Neural-Collapse style: pass 1 class means, pass 2 Sigma_W by (h - mu_k)^T (h - mu_k) products in
    ``dtype``, then NC1 = tr(Sigma_W @ np.linalg.pinv(Sigma_B)) / K (numpy's default rcond)."""
    sums, counts = np.zeros((K, d), dtype), np.zeros(K)
    for x, y in data:
        x = x.astype(dtype, copy=False)
        np.add.at(sums, y, x)
        counts += np.bincount(y, minlength=K)
    mu = sums / counts[:, None].astype(dtype)
    SW = np.zeros((d, d), dtype)
    for x, y in data:
        z = x.astype(dtype, copy=False) - mu[y]
        SW += z.T @ z
    SW /= dtype(counts.sum())
    Mc = mu - mu.mean(axis=0)
    SB = Mc.T @ Mc / dtype(K)
    return float(np.trace(SW @ np.linalg.pinv(SB))) / K


def two_pass_nc1(data, dtype=np.float32):
    """rhubarbwu/neural-collapse style: a mean accumulator (pass 1), then one covariance accumulator per class
    (pass 2, K d x d sums in ``dtype``, float32 by default as there), NC1 = tr(Sigma_W pinv(Sigma_B)) / K."""
    sums, counts = np.zeros((K, d), dtype), np.zeros(K)
    for x, y in data:
        np.add.at(sums, y, x.astype(dtype, copy=False))
        counts += np.bincount(y, minlength=K)
    mu = sums / counts[:, None].astype(dtype)
    cov = np.zeros((K, d, d), dtype)
    for x, y in data:
        for k in np.unique(y):
            z = x[y == k].astype(dtype, copy=False) - mu[k]
            cov[k] += z.T @ z
    SW = cov.sum(axis=0) / dtype(counts.sum())
    Mc = mu - mu.mean(axis=0)
    SB = Mc.T @ Mc / dtype(K)
    return float(np.trace(SW @ np.linalg.pinv(SB, rcond=max(d, K) * np.finfo(dtype).eps))) / K


def ours_nc1(data):
    acc = NCAccumulator(d, K, per_class=False)
    for x, y in data:
        acc.update(x, y)
    return acc.result().nc1


def _collapsed(n_per, dd, KK, sigma, seed):
    rng = np.random.default_rng(seed)
    means = rng.standard_normal((KK, dd))
    y = np.repeat(np.arange(KK), n_per)
    return (means[y] + sigma * rng.standard_normal((y.size, dd))).astype(np.float32), y


def correctness(trials: int) -> dict:
    """Near-collapsed float32 features (d = 64, K = 10, 30 per class, within-class scale sigma): each method's
    relative error against NC1 evaluated in 50-digit mpmath from the same float32 data, and how often it is < 0."""
    import mpmath

    global d
    d_saved, d = d, 64
    out = {name: {"negative": 0, "max_rel_err": 0.0} for name in ("ours", "pinv f32", "pinv f64", "two-pass f32")}
    try:
        for t in range(trials):
            sigma = 10.0 ** -(1 + t % 4)
            x, y = _collapsed(30, d, K, sigma, seed=100 + t)
            data = [(x, y)]
            with mpmath.workdps(50):      # reference: exact float32 inputs, exact sums, mp pseudo-inverse on the
                X = mpmath.matrix(x.astype(float).tolist())            # class-mean span
                mus = [[mpmath.fsum(X[i, j] for i in range(X.rows) if y[i] == k) / 30 for j in range(d)]
                       for k in range(K)]
                g = [mpmath.fsum(mus[k][j] for k in range(K)) / K for j in range(d)]
                Mc = mpmath.matrix([[mus[k][j] - g[j] for j in range(d)] for k in range(K)])   # K x d
                Z = mpmath.matrix([[X[i, j] - mus[y[i]][j] for j in range(d)] for i in range(X.rows)])
                # tr(S_W S_B^+) / K = (1/N) sum_i z_i^T (Mc^T Mc / K)^+ z_i / K; on span(Mc^T): use the K x K Gram
                G = Mc * Mc.T / K                                       # rank K-1: pseudo-inverse via eigh
                E, Q = mpmath.eigsy(G)
                ref = mpmath.mpf(0)
                P = Mc * Z.T                                            # K x N: Mc z_i
                for i in range(E.rows):
                    if E[i] > mpmath.mpf(10) ** -40:
                        q = Q[:, i]
                        v = q.T * P                                     # 1 x N
                        ref += mpmath.fsum(v[j] ** 2 for j in range(v.cols)) / (E[i] ** 2 * K * K)
                ref = float(ref / X.rows)
            vals = {"ours": ours_nc1(data), "pinv f32": pinv_nc1(data, np.float32),
                    "pinv f64": pinv_nc1(data, np.float64), "two-pass f32": two_pass_nc1(data)}
            for name, v in vals.items():
                out[name]["negative"] += int(v < 0)
                err = abs(v - ref) / ref if np.isfinite(v) else float("inf")
                out[name]["max_rel_err"] = max(out[name]["max_rel_err"], err)
    finally:
        d = d_saved
    return out


def run(quick: bool = False) -> tuple:
    import sys as _sys

    _sys.path.insert(0, os.path.dirname(__file__))
    from _roofline import Row, best_of, minimum_time, scaling_plot, set_threads
    from pathlib import Path

    set_threads()
    N = 50_000 if quick else 200_000
    data = list(batches(N))
    t_ours, v_ours = best_of(lambda: ours_nc1(data), 2)
    lim = minimum_time(flops=float(N) * d * d, bytes_moved=4.0 * N * d)   # syrk: N d^2 FLOPs; read features once
    rows = []
    for name, fn in (("np.linalg.pinv NC1 (tding1), float32", lambda: pinv_nc1(data, np.float32)),
                     ("np.linalg.pinv NC1 (tding1), float64", lambda: pinv_nc1(data, np.float64)),
                     ("two-pass accumulators (rhubarbwu), f32", lambda: two_pass_nc1(data))):
        t, v = best_of(fn, 2)
        rows.append(Row(f"N NC1, {N} x {d} float32, K={K}", "NCAccumulator (f64 syrk)", name, t_ours, t, lim,
                        note=f"NC1 {v:.4g} vs ours {v_ours:.4g}"))
    trials = 8 if quick else 24
    corr = correctness(trials)
    for name, c in corr.items():
        print(f"    {name:<14} negative {c['negative']}/{trials}, max relative error {c['max_rel_err']:.2e}")
    for r in rows:
        key = "pinv f32" if "float32" in r.baseline else "pinv f64" if "float64" in r.baseline else "two-pass f32"
        r.note += (f"; near-collapse: baseline negative {corr[key]['negative']}/{trials}, max rel err "
                   f"{corr[key]['max_rel_err']:.1e}; ours {corr['ours']['negative']}/{trials}, "
                   f"{corr['ours']['max_rel_err']:.1e}")
    ns = [5_000, 20_000, 80_000] if quick else [5_000, 20_000, 80_000, 320_000]
    t_o, t_p = [], []
    for n in ns:
        dn = list(batches(n))
        t_o.append(best_of(lambda: ours_nc1(dn), 2)[0])
        t_p.append(best_of(lambda: pinv_nc1(dn, np.float64), 2)[0])
    out = Path(__file__).resolve().parent.parent / "docs" / "performance"
    out.mkdir(parents=True, exist_ok=True)
    exps = scaling_plot(out / "scaling_nc_metrics.png", f"N NC1, d = {d}, K = {K}", "samples",
                        {"NCAccumulator": (ns, t_o), "pinv NC1 float64": (ns, t_p)})
    return rows, {"NC metrics vs samples": exps}


if __name__ == "__main__":
    main()
