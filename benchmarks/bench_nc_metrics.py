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


if __name__ == "__main__":
    main()
