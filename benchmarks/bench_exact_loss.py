"""Benchmark: the exact loss against the strongest Monte Carlo, its routes against each other, and every route
against the fewest operations its family of methods needs (see docs/performance.md, "Roofline").

1. Equal accuracy. Monte Carlo baselines reach relative standard error 1% (and 0.1%); samples needed
   ``(sigma / (eps |L|))^2`` with sigma from a pilot run of the same sampler; MC time = pilot time per sample times
   that number (the work is linear in samples). Baselines:
   (a) fused sparse MC (numba; float32 and float64): exact Bernoulli supports by geometric gaps, y = W x over the
       active features only, then ONE pass over the columns of W per batch of 64 samples, 1024 columns at a time
       (z = y_b . w_j by a gemm into a 64 x 1024 block in L2, z^m and its square summed at once; no n x B block),
       the cross term on the support only;
   (b) the earlier sparse sampler (scipy CSR x, float32 BLAS gemm W^T (W x) per batch, n x B blocks);
   (c) torch ARENA-style dense batches (float32), at n = 2000 only.
   Settings: n = 2000, d = 10, m = 3, p = 1e-3 (issue 2), and n = 10^6, d = 10, m = 3 at p = 1e-3 and 1e-4.
   Each MC row's note gives the sampler's own distance to its limit (2nd FLOPs per sample at the float32/64 gemm rate).
2. n = 10^6, d = 10, m = 3 (and the loss at m = 5, n = 10^5): the exact loss and gradient by the direct tensor route
   against the moment-matrix route and the gram route (extrapolated by n^2 from n = 20000), with the peak resident memory
   of a fresh process running it (``VmHWM``: interpreter, numpy, numba and W included).
3. Figure 3's sizes (n = 6000, d = 10, 15): loss and gradient by every route, numpy float64, and the torch float32
   training step (power sums against the fused gram of verify.empirical.superposition).
4. The gram route before / after its strips (n = 6000, d = 15): row blocks against upper-triangle strips.
5. Scaling in n (PNG with fitted exponents).

``x limit`` of a row = our time / (the fewest operations of our method's family at the measured gemm rate, or the
bytes that must be read at the measured bandwidth, whichever is larger).

6. ``--accuracy``: issue 42's targets in gemm-equivalents (CPU time against a 3000 x 3000 gemm in the same process):
   the collapsed and tensor routes, and the loss to 1% by the output-subsampled and the Rao-Blackwellised
   control-variate samplers, run to the target.

Run: ``python benchmarks/bench_exact_loss.py [--quick] [--readme] [--kernels] [--tensor] [--accuracy]`` (``--readme``: only the
rows the README quotes, and the scaling plot; ``--kernels``: only the tensor kernels alone against gemm, and where a
pass's time goes, with the CPU, its vector extensions and the kernels' target (``_tensor_kernels.kernel_plan``; an
AVX2 build on an AVX-512 host: ``NUMBA_CPU_NAME=haswell NUMBA_CPU_FEATURES=`` and ``OPENBLAS_CORETYPE=Haswell``
for the gemm it is rated against); ``--tensor``: only the direct route's n = 10^6 loss and gradient with peak memory, and m = 5)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.linalg.cython_blas  # noqa: F401  (numba's np.dot uses it: loaded before set_threads limits it)

sys.path.insert(0, os.path.dirname(__file__))
from _roofline import (Row, best_of, exact_loss_family_time, machine_line, minimum_time, print_rows,  # noqa: E402
                       scaling_plot, set_threads)

from verify.numeric import power_sums as PS  # noqa: E402
from verify.numeric.distributions import get_distribution  # noqa: E402
from verify.numeric.superposition_loss import exact_loss, exact_loss_grad, loss_to_accuracy  # noqa: E402

D, N, M, P, MU, COL_SQ_NORM = 10, 2000, 3, 0.001, "gaussian", 0.1
OUT = Path(__file__).resolve().parent.parent / "docs" / "performance"
ROOT = Path(__file__).resolve().parent.parent


def setting_W(d=D, n=N, seed=0):
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(d, n))
    return W * (np.sqrt(COL_SQ_NORM) / np.linalg.norm(W, axis=0))


# --------------------------------------------------------------------------- fused sparse Monte Carlo (numba)
def _fused_kernel():
    from numba import njit

    @njit(cache=True, fastmath=True)
    def kernel(Wt, p, m, samples, seed, batch, tile):
        """Per-sample values v = 2<x, (A x)^m> - ||(A x)^m||^2, A = W^T W, x = xi * b (xi standard normal);
        returns (sum v, sum v^2) in float64. Wt is (n, d) in the working precision."""
        np.random.seed(seed)
        n, d = Wt.shape
        Yt = np.zeros((batch, d), dtype=Wt.dtype)
        sq = np.zeros(batch)
        cross = np.zeros(batch)
        cap = 16 + int(20 * p * n + 20)      # P(Poisson(pn) > 20 pn + 36) is below 1e-30: never truncated
        idx = np.empty(cap, dtype=np.int64)
        val = np.empty(cap)
        half = (m - 1) // 2
        total = total_sq = 0.0
        done = 0
        while done < samples:
            B = min(batch, samples - done)
            Yt[:, :] = 0
            cross[:] = 0.0
            sq[:] = 0.0
            for b in range(B):
                # exact Bernoulli(p) support: geometric gaps between active features
                k, pos = 0, np.random.geometric(p) - 1
                while pos < n:
                    xi = np.random.standard_normal()
                    idx[k], val[k] = pos, xi
                    k += 1
                    for a in range(d):
                        Yt[b, a] += xi * Wt[pos, a]
                    pos += np.random.geometric(p)
                for t in range(k):
                    zt = 0.0
                    for a in range(d):
                        zt += Wt[idx[t], a] * Yt[b, a]
                    cross[b] += val[t] * zt ** m
            # one pass over W for the whole batch, a cache-sized tile of columns at a time (BLAS gemm into a
            # batch x tile block that stays in L2; never an n x batch block), z^m and its square fused
            for t0 in range(0, n, tile):
                Z = np.dot(Yt, Wt[t0:min(n, t0 + tile)].T)
                for b in range(B):
                    row = Z[b]
                    acc = 0.0
                    for r in range(row.shape[0]):
                        z = row[r]
                        z2 = z * z
                        zm = z
                        for _ in range(half):
                            zm *= z2
                        acc += zm * zm
                    sq[b] += acc
            for b in range(B):
                v = 2.0 * cross[b] - sq[b]
                total += v
                total_sq += v * v
            done += B
        return total, total_sq

    return kernel


_KERNEL = None


def mc_fused(W, p, m, samples, seed=0, dtype=np.float32, batch=64, tile=1024):
    """Fused sparse MC (numba). Returns (mean, std of one sample)."""
    global _KERNEL
    if _KERNEL is None:
        _KERNEL = _fused_kernel()
    Wt = np.ascontiguousarray(W.T, dtype=dtype)
    total, total_sq = _KERNEL(Wt, float(p), int(m), int(samples), int(seed), int(batch), int(tile))
    mean = total / samples
    return mean, float(np.sqrt(max(total_sq / samples - mean * mean, 0.0)))


def mc_sparse_blas(W, p, m, samples, seed=0, batch=20_000):
    """The earlier tuned sampler (float32 BLAS, scipy sparse supports, n x B blocks). Returns (mean, std)."""
    import scipy.sparse as sp

    dist = get_distribution(MU)
    rng = np.random.default_rng(seed)
    d, n = W.shape
    batch = max(1, min(batch, (1 << 24) // n))
    W32 = np.ascontiguousarray(W, dtype=np.float32)
    total = total_sq = 0.0
    done = 0
    while done < samples:
        b = min(batch, samples - done)
        gaps = rng.geometric(p, size=int(p * n * b + 10 * np.sqrt(p * n * b) + 10))
        pos = np.cumsum(gaps) - 1
        while pos[-1] < n * b:
            pos = np.concatenate([pos, pos[-1] + np.cumsum(rng.geometric(p, size=len(gaps)))])
        pos = pos[pos < n * b]
        s_idx, f_idx = pos // n, pos % n
        xi = dist.sample(rng, len(pos)).astype(np.float32)
        X = sp.csr_matrix((xi, (s_idx, f_idx)), shape=(b, n))
        Z = np.asarray(X @ W32.T, dtype=np.float32) @ W32
        Z2 = Z * Z
        Z *= Z2 if m == 3 else Z2 ** ((m - 1) // 2)
        np.multiply(Z, Z, out=Z2)
        cross = np.zeros(b)
        np.add.at(cross, s_idx, xi.astype(np.float64) * Z[s_idx, f_idx])
        vals = 2.0 * cross - Z2.sum(axis=1, dtype=np.float64)
        total += vals.sum()
        total_sq += (vals * vals).sum()
        done += b
    mean = total / samples
    return mean, np.sqrt(max(total_sq / samples - mean * mean, 0.0))


def mc_torch_arena(W, p, m, samples, seed=0, batch=20_000):
    """ARENA-style toy-model loss estimate: dense Bernoulli-Gaussian x, (x @ W.T) @ W, float32."""
    import torch

    g = torch.Generator().manual_seed(seed)
    Wt = torch.as_tensor(W, dtype=torch.float32)
    total = total_sq = 0.0
    done = 0
    with torch.no_grad():
        while done < samples:
            b = min(batch, samples - done)
            x = torch.randn(b, W.shape[1], generator=g) * (torch.rand(b, W.shape[1], generator=g) < p)
            out = ((x @ Wt.T) @ Wt) ** m
            vals = (2 * (x * out).sum(-1) - (out * out).sum(-1)).double()
            total += vals.sum().item()
            total_sq += (vals * vals).sum().item()
            done += b
    mean = total / samples
    return mean, np.sqrt(max(total_sq / samples - mean * mean, 0.0))


def _mc_rows(W, p, value, t_exact, lim_exact, label, samplers, pilot, eps_list) -> list:
    d, n = W.shape
    rows = []
    for name, fn, dtype in samplers:
        try:
            fn(W[:, : min(n, 200)], p, M, 64, seed=2)                         # compile / warm up
            t_pilot, (mean, std) = best_of(lambda: fn(W, p, M, pilot, seed=1), 1)
        except ImportError as exc:
            print(f"    {name}: skipped ({exc})")
            continue
        per_sample = t_pilot / pilot
        z = abs(mean - value) / (std / np.sqrt(pilot))
        print(f"    {name}: pilot {pilot} samples in {t_pilot:.2f} s, mean {mean:.6g} ({z:.1f} standard errors from "
              f"exact {value:.6g}), per-sample sigma {std:.4g}", flush=True)
        for eps in eps_list:
            need = int(np.ceil((std / (eps * abs(value))) ** 2))
            t_mc = need * per_sample
            own = t_mc / minimum_time(flops=2.0 * n * d * need, bytes_moved=0, dtype=dtype)
            rows.append(Row(f"S exact loss, {eps:.1%} error ({label})", "exact (tensor route, float64)",
                            f"{name}, {need:.2g} samples", t_exact, t_mc, lim_exact,
                            note=f"MC time = samples x pilot time per sample; MC at {own:.1f}x its own limit "
                                 f"(2nd FLOPs per sample); pilot mean {z:.1f} s.e. from exact"))
    return rows


def equal_accuracy_rows(quick: bool) -> list:
    W = setting_W()
    exact_loss(W[:, :50], P, M, MU, route="tensor")                     # compile the row polynomial and kernels
    t_exact, value = best_of(lambda: exact_loss(W, P, M, MU, route="tensor"), 3)
    t_gram, value_g = best_of(lambda: exact_loss(W, P, M, MU, route="gram"), 3)
    print(f"[1] n = {N}, d = {D}, m = {M}, p = {P}: exact Ltilde = {value:.10g} (tensor) / {value_g:.10g} (gram); "
          f"tensor {t_exact:.4f} s, gram {t_gram:.4f} s", flush=True)
    lim = exact_loss_family_time(D, N, M, "tensor")
    samplers = [("fused sparse MC (numba, float32)", lambda *a, **k: mc_fused(*a, dtype=np.float32, **k), "float32"),
                ("fused sparse MC (numba, float64)", lambda *a, **k: mc_fused(*a, dtype=np.float64, **k), "float64"),
                ("sparse MC (scipy CSR, float32 BLAS)", mc_sparse_blas, "float32"),
                ("torch MC (ARENA-style, float32)", mc_torch_arena, "float32")]
    rows = []
    for i, sampler in enumerate(samplers):       # the slow baselines need fewer pilot samples for their sigma
        pilot = (50_000 if quick else 200_000) // (1 if i < 2 else 4)
        rows += _mc_rows(W, P, value, t_exact, lim, f"n={N}", [sampler], pilot, (0.01, 0.001))
    return rows


def peak_rss(code: str) -> tuple:
    """Run ``code`` in a fresh interpreter (BLAS one thread); returns (seconds it reports, peak resident MiB)."""
    prog = ("import os, resource, sys, time, json\nsys.path.insert(0, %r)\n" % str(ROOT)
            + "from threadpoolctl import threadpool_limits\nthreadpool_limits(1)\n" + code
            # VmHWM: the peak resident set of this process's own address space (ru_maxrss would carry over the
            # parent's peak through fork + exec on Linux)
            + "\nhwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]"
            + "\nprint(json.dumps({'rss': int(hwm) / 1024, 't': T}))\n")
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, check=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    return res["t"], res["rss"]


def tensor_peak_rss(n_big: int) -> tuple[float, float]:
    """Peak resident memory of a fresh process computing the tensor route's loss, then its gradient, at
    d = 10, n = ``n_big``, m = M (the whole process, W included)."""
    mk = (f"import numpy as np\nfrom benchmarks.bench_exact_loss import setting_W\n"
          f"from verify.numeric.superposition_loss import exact_loss, exact_loss_grad\n"
          f"W = setting_W(10, {n_big}, seed=3)\nT = time.perf_counter()\n")
    _, rss_l = peak_rss(mk + f"exact_loss(W, {P}, {M}, route='tensor')\nT = time.perf_counter() - T")
    _, rss_g = peak_rss(mk + f"exact_loss_grad(W, {P}, {M}, route='tensor')\nT = time.perf_counter() - T")
    return rss_l, rss_g

def big_rows(quick: bool) -> list:
    """n = 10^6 (10^5 with --quick), d = 10, m = 3: loss and gradient, tensor against moment matrices and gram; the
    fused MC at this size (p = 1e-3, 1e-4); m = 5 at n = 10^5."""
    rows = []
    n_big = 10**5 if quick else 10**6
    W = setting_W(10, n_big, seed=3)
    exact_loss(W[:, :100], P, M, route="tensor")
    exact_loss_grad(W[:, :100], P, M, route="tensor")
    t_l, v_l = best_of(lambda: exact_loss(W, P, M, route="tensor"), 2)
    t_g, _ = best_of(lambda: exact_loss_grad(W, P, M, route="tensor"), 1)
    t_lp, v_lp = best_of(lambda: exact_loss(W, P, M, route="power_sums"), 1)
    # the moment-matrix gradient is linear in n (fitted exponent ~1.1): timed at n / 10, x 10 (saves minutes)
    t_gp, _ = best_of(lambda: exact_loss_grad(W[:, : n_big // 10], P, M, route="power_sums"), 1)
    t_gp *= 10
    n_ref = 20_000
    t_ref, _ = best_of(lambda: exact_loss(W[:, :n_ref], P, M, route="gram"), 1)
    t_refg, _ = best_of(lambda: exact_loss_grad(W[:, :n_ref], P, M, route="gram"), 1)
    scale = (n_big / n_ref) ** 2
    rss_l, rss_g = tensor_peak_rss(n_big)
    lim_l, lim_g = exact_loss_family_time(10, n_big, M, "tensor"), exact_loss_family_time(10, n_big, M, "tensor", grad=True)
    rel = abs(v_l - v_lp) / abs(v_l)
    rows.append(Row(f"S exact loss n={n_big:.0e}, d=10, m=3", "tensor route (numba), f64",
                    "moment-matrix power sums, f64", t_l, t_lp, lim_l,
                    note=f"peak RSS of a fresh process {rss_l:.0f} MiB (interpreter, numba, W included); "
                         f"relative difference {rel:.0e}"))
    rows.append(Row(f"S exact loss n={n_big:.0e}, d=10, m=3", "tensor route (numba), f64",
                    f"gram route (timed at n={n_ref}, x n^2)", t_l, t_ref * scale, lim_l))
    rows.append(Row(f"S gradient n={n_big:.0e}, d=10, m=3", "tensor route (numba), f64",
                    f"moment-matrix power sums, f64 (timed at n={n_big // 10}, x 10)", t_g, t_gp, lim_g,
                    note=f"peak RSS of a fresh process {rss_g:.0f} MiB"))
    rows.append(Row(f"S gradient n={n_big:.0e}, d=10, m=3", "tensor route (numba), f64",
                    f"gram route (timed at n={n_ref}, x n^2)", t_g, t_refg * scale, lim_g))
    print(f"[2] n = {n_big}: tensor loss {t_l:.2f} s (x{t_l / lim_l:.1f} family count, peak RSS {rss_l:.0f} MiB), gradient "
          f"{t_g:.2f} s (x{t_g / lim_g:.1f} family count, {rss_g:.0f} MiB); moment route {t_lp:.2f} / {t_gp:.2f} s", flush=True)
    fused = [("fused sparse MC (numba, float32)", lambda *a, **k: mc_fused(*a, dtype=np.float32, **k), "float32"),
             ("fused sparse MC (numba, float64)", lambda *a, **k: mc_fused(*a, dtype=np.float64, **k), "float64")]
    for p in (1e-3, 1e-4):
        v = exact_loss(W, p, M, route="tensor")
        t_p, _ = best_of(lambda: exact_loss(W, p, M, route="tensor"), 1)
        rows += _mc_rows(W, p, v, t_p, lim_l, f"n={n_big:.0e}, p={p:g}", fused, 640 if quick else 2560, (0.01,))
    # m = 5 at n = 10^5
    n5 = 10**4 if quick else 10**5
    W5 = setting_W(10, n5, seed=5)
    exact_loss(W5[:, :50], P, 5, route="tensor")
    t5, v5 = best_of(lambda: exact_loss(W5, P, 5, route="tensor"), 1)
    t5p, _ = best_of(lambda: exact_loss(W5[:, : n5 // 10], P, 5, route="power_sums"), 1)
    lim5 = exact_loss_family_time(10, n5, 5, "tensor")
    rows.append(Row(f"S exact loss n={n5:.0e}, d=10, m=5", "tensor route (numba), f64",
                    f"moment-matrix power sums (timed at n={n5 // 10}, x 10)", t5, t5p * 10, lim5))
    n5r = 5000
    t5r, _ = best_of(lambda: exact_loss(W5[:, :n5r], P, 5, route="gram"), 1)
    rows.append(Row(f"S exact loss n={n5:.0e}, d=10, m=5", "tensor route (numba), f64",
                    f"gram route (timed at n={n5r}, x n^2)", t5, t5r * (n5 / n5r) ** 2, lim5))
    print(f"    m = 5, n = {n5}: tensor loss {t5:.2f} s (x{t5 / lim5:.1f} family count)", flush=True)
    return rows


# --------------------------------------------------------------------------- routes at Figure 3's sizes
def route_rows(quick: bool) -> list:
    rows = []
    try:
        import torch

        from verify.empirical import superposition as S
    except ImportError:
        torch = None
    n = 6000
    for d in (10, 15):                                     # Figure 3's two sizes
        W = np.random.default_rng(2).normal(size=(d, n)) * 0.3
        auto = PS.choose_route("auto", d, n, M, tensor=True)
        t = {r: best_of(lambda r=r: exact_loss(W, P, M, route=r), 3) for r in ("tensor", "power_sums", "gram")}
        tg = {r: best_of(lambda r=r: exact_loss_grad(W, P, M, route=r), 2) for r in ("tensor", "power_sums", "gram")}
        ref = t["gram"][1]
        print(f"[3] n = {n}, d = {d}: loss " + ", ".join(f"{r} {v[0]:.4f} s" for r, v in t.items())
              + f" (auto: {auto}); max relative difference "
              f"{max(abs(v[1] - ref) / abs(ref) for v in t.values()):.1e}", flush=True)
        for base in ("gram", "power_sums"):
            rows.append(Row(f"S Fig. 3 loss (n={n}, d={d})", "tensor route, numpy f64", f"{base} route, numpy f64",
                            t["tensor"][0], t[base][0], exact_loss_family_time(d, n, M, "tensor"),
                            note=f"auto route: {auto}" if base == "gram" else ""))
            rows.append(Row(f"S Fig. 3 gradient (n={n}, d={d})", "tensor route, numpy f64", f"{base} route, numpy f64",
                            tg["tensor"][0], tg[base][0], exact_loss_family_time(d, n, M, "tensor", grad=True)))
        if torch is None:
            continue
        Wt = torch.as_tensor(W, dtype=torch.float32).reshape(1, d, n)
        pc = torch.tensor([[P]], dtype=torch.float32)
        mom = S._moment_tensors(MU, M, pc)
        t_g, _ = best_of(lambda: S._Fused.value_and_grad(Wt, pc, M, mom, 2**21, route="gram"), 3)
        t_p, _ = best_of(lambda: S._Fused.value_and_grad(Wt, pc, M, mom, 2**21, route="power_sums"), 3)
        rows.append(Row(f"S Fig. 3 training step (n={n}, d={d})", "power sums value+grad, torch f32",
                        "fused gram (A strips) value+grad, torch f32", t_p, t_g,
                        exact_loss_family_time(d, n, M, "moments", grad=True, dtype="float32")))
    return rows


def best_of_alternating(fns: list, repeat: int) -> list:
    """Best times of several workloads run in turn ``repeat`` times: load changes on a shared machine hit all of
    them alike, so their ratios are fairer than those of back-to-back best-of runs."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t)
    return best


def symmetric_rows(quick: bool) -> list:
    n, d = 6000, 15
    k = 3 if quick else 5
    W = np.random.default_rng(2).normal(size=(d, n)) * 0.3
    a, b = exact_loss(W, P, M, route="gram_rows"), exact_loss(W, P, M, route="gram")
    ga, gb = exact_loss_grad(W, P, M, route="gram_rows"), exact_loss_grad(W, P, M, route="gram")
    t_old, t_new = best_of_alternating([lambda: exact_loss(W, P, M, route="gram_rows"),
                                        lambda: exact_loss(W, P, M, route="gram")], k)
    rows = [Row(f"S Fig. 3 loss, gram route (n={n}, d={d})", "upper-triangle strips of A, numpy f64",
                "full row blocks of A (before), numpy f64", t_new, t_old, exact_loss_family_time(d, n, M, "gram"),
                note=f"relative difference {abs(a - b) / abs(a):.0e}")]
    t_old, t_new = best_of_alternating([lambda: exact_loss_grad(W, P, M, route="gram_rows"),
                                        lambda: exact_loss_grad(W, P, M, route="gram")], k)
    rows.append(Row(f"S Fig. 3 value+gradient, gram route (n={n}, d={d})", "upper-triangle strips, numpy f64",
                    "full row blocks (before), numpy f64", t_new, t_old, exact_loss_family_time(d, n, M, "gram", grad=True),
                    note=f"gradient max relative difference {np.abs(ga - gb).max() / np.abs(ga).max():.0e}"))
    return rows


def scaling(quick: bool) -> dict:
    ns_t = [2000, 8000, 32000, 128000] if quick else [2000, 8000, 32000, 128000, 512000]
    ns_g = [500, 1000, 2000, 4000] if quick else [500, 1000, 2000, 4000, 8000, 16000]
    W = np.random.default_rng(4).normal(size=(10, max(ns_t))) * 0.3
    t_t = [best_of(lambda n=n: exact_loss(W[:, :n], P, M, route="tensor"), 2)[0] for n in ns_t]
    t_ps = [best_of(lambda n=n: exact_loss(W[:, :n], P, M, route="power_sums"), 1)[0] for n in ns_t[:-1]]
    t_g = [best_of(lambda n=n: exact_loss(W[:, :n], P, M, route="gram"), 2)[0] for n in ns_g]
    OUT.mkdir(parents=True, exist_ok=True)
    return scaling_plot(OUT / "scaling_exact_loss.png", "S exact loss, d = 10, m = 3", "n (features)",
                        {"tensor": (ns_t, t_t), "power sums": (ns_t[:-1], t_ps), "gram": (ns_g, t_g)})


def kernel_lines(quick: bool) -> list:
    """The tensor route's numba kernels alone (no driver, no row polynomial) against a 2048 gemm timed in the same
    loop (``best_of_alternating``), as multiples of the fewest-operation family count (not a bound on the
    problem) at that rate, and where a pass's time
    goes: the same kernel with no tiles or block rows (the monomial build alone), the rate of its FMAs (the build's
    time taken off; the contraction's padded coefficients, the tiled accumulation's exact ones), and the contraction's
    rows swept one at a time instead of in groups sharing a tail. The accumulation is the one ``TensorPowerSums``
    runs for that S (``power_sums._accumulate_blocked``); the gradient's passes add its weighted run. Text lines, not
    table rows (see ``_tensor_kernels.BLOCK``)."""
    from verify.numeric import _tensor_kernels as TK

    if not TK.AVAILABLE:
        return ["kernels: numba not installed"]
    rng = np.random.default_rng(7)
    G = rng.standard_normal((2048, 2048))
    gemm = lambda: G @ G  # noqa: E731
    cpu = TK.host_cpu()
    out = [f"CPU {cpu['model']} ({' '.join(cpu['host_features'])}); kernels compiled for LLVM CPU {cpu['name']} "
           f"with {' '.join(cpu['features']) or 'no vector extensions'} (NUMBA_CPU_NAME "
           f"{os.environ.get('NUMBA_CPU_NAME', 'unset')}): {TK.kernel_plan()}"]
    for m, n in ((3, 2 * 10**4 if quick else 2 * 10**5), (5, 2000 if quick else 2 * 10**4)):
        W = setting_W(10, n, seed=m)
        cw = np.ascontiguousarray(rng.normal(size=(m, n)))
        lay = PS._kernel_layout(10, m)                                      # as TensorPowerSums runs the kernels
        blocks, pos, pos_c, groups, nM = lay.blocks, lay.pos, lay.pos_c, lay.groups, lay.nM
        alone = PS._tensor_groups(10, m, PS._kernel_top(10, m), (1,), pad=TK.CONTRACT_PAD)
        none = tuple(g[:0] for g in groups)
        C, C2 = rng.normal(size=len(pos_c)), rng.normal(size=len(pos_c))
        acc_name = "tiled" if lay.tiles is not None else "rows"       # the accumulation TensorPowerSums runs
        acc = lambda w, only=False: PS._accumulate_blocked(W, cw, w, m, TK.GROUP, only)  # noqa: E731
        acc_none = lambda: acc(False, True)  # noqa: E731
        fns = {"accumulate": lambda: acc(False), "accumulate, build only": acc_none,
               "contract": lambda: TK.contract(W, C, blocks, *groups, nM, m),
               "contract, build only": lambda: TK.contract(W, C, blocks, *none, nM, m),
               "contract, rows alone": lambda: TK.contract(W, C, blocks, *alone, nM, m)}
        if m == 3:
            fns["accumulate, weighted"] = lambda: acc(True)
            fns["contract_grad"] = lambda: TK.contract_grad(W, C, C2, cw, blocks, *groups, nM, m)
            fns["contract_grad, build and reverse only"] = lambda: TK.contract_grad(W, C, C2, cw, blocks, *none, nM, m)
        for fn in fns.values():                                    # compile
            fn()
        t = dict(zip(["gemm", *fns], best_of_alternating([gemm, *fns.values()], 2 if quick else 3)))
        rate = 2 * 2048 ** 3 / t["gemm"]
        bound = n * PS.tensor_flops(10, m)["bound"] / rate
        loss = t["accumulate"] + t["contract"]
        line = (f"kernels, d = 10, m = {m}, n = {n} (gemm {rate / 1e9:.1f} GFLOP/s, load {os.getloadavg()[0]:.1f}): "
                f"accumulate + contract {loss:.3f} s = {loss / bound:.2f}x the loss family count")
        if m == 3:
            grad = loss + t["accumulate, weighted"] + t["contract_grad"]
            bound_g = n * PS.tensor_flops(10, 3, grad=True)["bound"] / rate
            line += f"; with the gradient's passes {grad:.3f} s = {grad / bound_g:.2f}x"
        real = int(np.count_nonzero(pos >= 0))
        fma_acc = 2.0 * n * (real if acc_name == "tiled" else len(pos)) / (t["accumulate"] - t["accumulate, build only"])
        fma = 2.0 * n * len(pos_c) / (t["contract"] - t["contract, build only"])
        if m == 3:          # three FMAs per padded coefficient, the build and the reverse sweep taken off
            fma_g = 6.0 * n * len(pos_c) / (t["contract_grad"] - t["contract_grad, build and reverse only"])
        line += (f"; accumulate ({acc_name}): build alone {t['accumulate, build only'] / t['accumulate']:.0%} of it, "
                 f"its FMAs at {fma_acc / rate:.0%} of the gemm rate"
                 f"; contract: build alone {t['contract, build only'] / t['contract']:.0%} of it, its FMAs (padded "
                 f"coefficients) at {fma / rate:.0%} of the gemm rate; every row alone instead of in groups: "
                 f"{t['contract, rows alone'] / t['contract']:.2f}x the contraction's time")
        if m == 3:
            line += f"; contract_grad: its FMAs at {fma_g / rate:.0%} of the gemm rate"
        out.append(line)
    return out


def tensor_lines(quick: bool) -> list:
    """The direct route alone, as ``exact_loss`` / ``exact_loss_grad`` run it (driver and row polynomial included):
    n = 10^6, d = 10, m = 3 (10^5 with --quick) loss and gradient, and m = 5 at n = 10^5 (10^4), each as a
    multiple of the fewest-operation family count (not a bound on the problem) at the gemm rate measured at the
    start (``machine()``), with the peak
    resident memory of a fresh process running it (``VmHWM``; interpreter, numpy, numba and W included). Text
    lines (no baseline: the full table's rows carry those)."""
    n_big = 10**5 if quick else 10**6
    W = setting_W(10, n_big, seed=3)
    exact_loss(W[:, :100], P, M, route="tensor")                          # compile the row polynomial and kernels
    exact_loss_grad(W[:, :100], P, M, route="tensor")
    t_l, _ = best_of(lambda: exact_loss(W, P, M, route="tensor"), 2)
    t_g, _ = best_of(lambda: exact_loss_grad(W, P, M, route="tensor"), 2)
    rss_l, rss_g = tensor_peak_rss(n_big)
    lim_l, lim_g = exact_loss_family_time(10, n_big, M, "tensor"), exact_loss_family_time(10, n_big, M, "tensor", grad=True)
    n5 = 10**4 if quick else 10**5
    W5 = setting_W(10, n5, seed=5)
    exact_loss(W5[:, :50], P, 5, route="tensor")
    t5, _ = best_of(lambda: exact_loss(W5, P, 5, route="tensor"), 2)
    lim5 = exact_loss_family_time(10, n5, 5, "tensor")
    return [f"tensor route, n = {n_big}, d = 10, m = 3: loss {t_l:.2f} s = {t_l / lim_l:.2f}x the family count "
            f"(peak RSS {rss_l:.0f} MiB), gradient {t_g:.2f} s = {t_g / lim_g:.2f}x its family count "
            f"(peak RSS {rss_g:.0f} MiB)",
            f"tensor route, n = {n5}, d = 10, m = 5: loss {t5:.2f} s = {t5 / lim5:.2f}x the family count",
            f"load average at the end {' / '.join(f'{v:.1f}' for v in os.getloadavg())}"]


# --------------------------------------------------------------------------- collapsed route and accuracy targets
def mc_output_subsampled(W, p, m, mu, rtol, seed=0, outputs=1024, batch=32, conf_z=1.96, cap=10**6, budget_s=None):
    """Monte Carlo over (b, xi) with the outputs stratified: per sample the support b (Floyd's sampling, O(|b|)),
    xi on it, y = W_b xi_b, the support's outputs exactly and ``outputs`` outputs drawn uniformly (those in b count
    zero, times n / K): O(nnz d + K d) per sample, independent of n. Run until the 95% half-width is at most
    ``rtol`` |mean| (at least 64 samples), ``cap`` samples or ``budget_s`` CPU seconds (then the half-width says it
    stopped short): ``(mean, half-width, samples)``."""
    dist = get_distribution(mu)
    t0 = time.process_time()
    rng = np.random.default_rng(seed)
    d, n = W.shape
    K = min(outputs, n)
    vals = []
    while True:
        for _ in range(batch):
            B = np.sort(rng.choice(n, size=int(rng.binomial(n, p)), replace=False))
            xi = dist.sample(rng, len(B))
            y = W[:, B] @ xi
            zb = W[:, B].T @ y
            v = float(np.sum(2.0 * xi * zb ** m - zb ** (2 * m)))
            I = rng.integers(0, n, K)
            if len(B):
                at = np.minimum(np.searchsorted(B, I), len(B) - 1)
                I = I[B[at] != I]
            zi = W[:, I].T @ y
            vals.append(v - (n / K) * float(np.sum(zi ** (2 * m))))
        arr = np.asarray(vals)
        mean, half = arr.mean(), conf_z * arr.std(ddof=1) / np.sqrt(len(arr))
        if (len(arr) >= 64 and half <= rtol * abs(mean)) or len(arr) >= cap or \
                (budget_s is not None and time.process_time() - t0 >= budget_s):
            return float(mean), float(half), len(arr)


def accuracy_lines(quick: bool) -> list:
    """Issue 42's targets as ratios in one process: CPU seconds against a 3000 x 3000 float64 gemm (one BLAS
    thread) timed in the same process, for the exact loss and its gradient at n = 10^6, d = 10, m = 3 (collapsed
    and tensor routes), m = 5 at n = 10^5, and the loss to 1% relative accuracy (95% intervals) by
    the output-subsampled sampler and the Rao-Blackwellised control-variate sampler, each RUN to the target (not
    extrapolated), and by ``loss_to_accuracy``'s own choice. Text lines."""
    rng = np.random.default_rng(1)
    G = rng.standard_normal((3000, 3000))
    def timed(fn, repeat=2):   # CPU seconds: the ratios to a gemm are of CPU time in one process
        return best_of(fn, repeat, clock=time.process_time)

    class _Lines(list):                 # printed as they come: the samplers run for minutes
        def append(self, line):
            print(line, flush=True)
            super().append(line)

    t_gemm, _ = timed(lambda: G @ G, 3)
    n_big, n5 = (10**5, 10**4) if quick else (10**6, 10**5)
    W = setting_W(10, n_big, seed=3)
    for route in ("collapsed", "tensor"):
        exact_loss(W[:, :100], P, M, route=route)
    exact_loss_grad(W[:, :100], P, M, route="tensor")
    out = _Lines()
    out.append(f"{machine_line()}; gemm 3000 x 3000 float64: {t_gemm:.3f} s CPU (one BLAS thread)")
    t_c, v_c = timed(lambda: exact_loss(W, P, M, route="collapsed"))
    t_t, v_t = timed(lambda: exact_loss(W, P, M, route="tensor"))
    exact_loss_grad(W[:, :100], P, M, route="collapsed")
    t_g, g_t = timed(lambda: exact_loss_grad(W, P, M, route="tensor"), 1)
    t_gc, g_c = timed(lambda: exact_loss_grad(W, P, M, route="collapsed"), 1)
    fc, ft = PS.collapsed_flops(10, M), PS.tensor_flops(10, M)
    out.append(f"exact loss n = {n_big}, d = 10, m = 3: collapsed {t_c:.3f} s = {t_c / t_gemm:.2f} gemm-equivalents "
               f"({fc} flops/feature), tensor {t_t:.3f} s = {t_t / t_gemm:.2f} ({ft['ours']}; family count "
               f"{ft['bound']}); relative difference {abs(v_c - v_t) / abs(v_t):.1e}; gradient collapsed "
               f"{t_gc:.3f} s = {t_gc / t_gemm:.2f} ({PS.collapsed_flops(10, M, True)}), tensor {t_g:.3f} s = "
               f"{t_g / t_gemm:.2f} ({PS.tensor_flops(10, M, True)['ours']}); largest difference "
               f"{np.abs(g_c - g_t).max() / np.abs(g_t).max():.1e} of the largest entry")
    W5 = setting_W(10, n5, seed=5)
    for route in ("collapsed", "tensor"):
        exact_loss(W5[:, :50], P, 5, route=route)
    t5c, v5c = timed(lambda: exact_loss(W5, P, 5, route="collapsed"), 1)
    t5t, v5t = timed(lambda: exact_loss(W5, P, 5, route="tensor"), 1)
    out.append(f"exact loss n = {n5}, d = 10, m = 5: collapsed {t5c:.3f} s = {t5c / t_gemm:.2f} gemm-equivalents "
               f"({PS.collapsed_flops(10, 5)} flops/feature), tensor {t5t:.3f} s = {t5t / t_gemm:.2f} "
               f"({PS.tensor_flops(10, 5)['ours']}); relative difference {abs(v5c - v5t) / abs(v5t):.1e}")
    loss_to_accuracy(W[:, :2000], P, M, rtol=0.5, method="rb_cv", samples=8)          # compile the row function
    for rtol in (0.01,):
        t_rb, e_rb = timed(lambda: loss_to_accuracy(W, P, M, MU, rtol=rtol, seed=1, method="rb_cv"), 1)
        t_au, e_au = timed(lambda: loss_to_accuracy(W, P, M, MU, rtol=rtol, seed=1), 1)
        print(f"(RB control-variate MC {t_rb:.2f} s, {e_rb.samples} samples; auto {e_au.method} {t_au:.2f} s)",
              flush=True)
        t_os, (m_os, h_os, n_os) = timed(lambda: mc_output_subsampled(W, P, M, MU, rtol, seed=1), 1)
        out.append(f"loss to {rtol:.0%} (95% interval), n = {n_big}, p = {P}: output-subsampled MC {t_os:.2f} s = "
                   f"{t_os / t_gemm:.2f} gemm-eq ({n_os} samples, half-width {h_os / abs(v_c):.2%}, error "
                   f"{abs(m_os - v_c) / abs(v_c):.2%}); RB control-variate MC {t_rb:.2f} s = {t_rb / t_gemm:.2f} "
                   f"({e_rb.samples} samples, half-width {e_rb.error / abs(v_c):.2%}, error "
                   f"{abs(e_rb.value - v_c) / abs(v_c):.2%}); loss_to_accuracy chose {e_au.method}: {t_au:.2f} s = "
                   f"{t_au / t_gemm:.2f}; exact (collapsed) {t_c / t_gemm:.2f}")
    out.append(f"load average at the end {' / '.join(f'{v:.1f}' for v in os.getloadavg())}")
    return out


def run(quick: bool = False, readme: bool = False) -> tuple:
    """All rows (``readme``: only those the README quotes: equal accuracy and the n = 10^6 / m = 5 rows, and the
    scaling plot of every route)."""
    set_threads()
    rows = equal_accuracy_rows(quick) + big_rows(quick)
    if not readme:
        rows += route_rows(quick) + symmetric_rows(quick)
    return rows, {"exact loss vs n": scaling(quick)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller pilot and sizes")
    ap.add_argument("--readme", action="store_true", help="only the rows the README quotes (and the scaling plot)")
    ap.add_argument("--kernels", action="store_true", help="only the tensor kernels alone against gemm (text)")
    ap.add_argument("--accuracy", action="store_true",
                    help="only issue 42's targets: collapsed and tensor routes, samplers run to 1%% (text)")
    ap.add_argument("--tensor", action="store_true",
                    help="only the direct route at n = 10^6 (loss, gradient, peak memory) and m = 5 (text)")
    args = ap.parse_args()
    set_threads()
    if args.kernels:
        print("\n".join(kernel_lines(args.quick)))
        return
    if args.accuracy:
        accuracy_lines(args.quick)                     # prints its lines as they come
        return
    if args.tensor:
        print(machine_line())
        print("\n".join(tensor_lines(args.quick)))
        return
    print(machine_line())
    rows, exps = run(args.quick, args.readme)
    print_rows(rows)
    print("fitted exponents:", exps)


if __name__ == "__main__":
    main()
