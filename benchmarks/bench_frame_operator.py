"""Benchmark (issue 12): the implicit Lemma A.4 operator and the rank certificate against their baselines.

1. ``V z`` and ``V^T y`` by the implicit operator (WHT, O(N log d), V never stored) against dense matmul with
   the materialised float64 frame, at sizes where the dense frame fits (plus the time to build it).
2. Exact character-sum histogram: GF(2)-rank certificate (``quadratic_certificate``) against the WHT scan
   (``frames.certify``) at r = 8, m = 3, and the rank certificate alone at r = 12 and r = 16 (m = 3).
3. Kerdock / DG certificates: rank method against WHT method.
4. ``--slow``: one ``V z`` and one ``V^T y`` at N = 2^30 (r = 10, m = 3, float32), with peak RSS.
5. The fused kernels against memory: ``V z`` and ``V^T y`` at N = 2^27 (d = 1024, m = 3, float32: 512 MiB per
   N-vector) as multiples of one pass over the N-vector (a copy of it: one read and one write, numpy), and the
   chunked numpy route (BLAS WHTs, sign rows) at the same size. Best of k, wall-clock, on a shared machine (the load
   is printed).

Timings are wall-clock, best of 3, on a shared machine: treat ratios as order-of-magnitude figures.
Run: ``python benchmarks/bench_frame_operator.py [--slow] [--pass-only]`` (``--pass-only``: only [5])
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np

from verify.numeric import frames as C  # the frames package face (constructions, certificates, operators)
from verify.numeric import frames as F
from verify.numeric.frames import ImplicitFrame, quadratic_certificate


def timed(fn, *args, repeat: int = 3, **kw):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn(*args, **kw)
        best = min(best, time.perf_counter() - t)
    return best, out


def row(name: str, seconds: float, base: float) -> None:
    print(f"    {name:<46}{seconds:>10.4f}{base / seconds:>12.1f}x")


def _pass_setup(log2n: int):
    n = 2 ** log2n
    op = ImplicitFrame(10, 3, n_columns=n, dtype=np.float32)
    z = np.random.default_rng(5).standard_normal(n, dtype=np.float32)
    ImplicitFrame(10, 3, n_columns=4096, dtype=np.float32).matvec(z[:4096])     # compile (or load) the kernels
    return op, z


def pass_ratios(log2n: int = 27, repeat: int = 3) -> dict:
    """The fused ``V z`` and ``V^T y`` at N = 2^log2n (r = 10, m = 3, float32) and one pass over the N-vector (a copy:
    one read, one write), wall-clock best of ``repeat`` each, in this process: ``{pass_s, matvec_s, rmatvec_s,
    log2n, repeat}`` (issue 42's target: each product in at most 8 passes)."""
    op, z = _pass_setup(log2n)
    buf = np.empty_like(z)
    t_pass, _ = timed(np.copyto, buf, z, repeat=repeat)
    del buf
    t_mv, y = timed(op.matvec, z, repeat=repeat)
    t_rmv, _ = timed(op.rmatvec, y, repeat=repeat)
    return {"pass_s": t_pass, "matvec_s": t_mv, "rmatvec_s": t_rmv, "log2n": log2n, "repeat": repeat}


def pass_lines(log2n: int = 27, repeat: int = 3) -> list:
    """[5]: the fused ``V z`` and ``V^T y`` at N = 2^log2n (r = 10, m = 3, float32) in passes over the N-vector, and
    the chunked numpy route (best of 1: seconds) at the same size."""
    op, z = _pass_setup(log2n)
    buf = np.empty_like(z)
    t_pass, _ = timed(np.copyto, buf, z, repeat=repeat)
    t_mv, y = timed(op.matvec, z, repeat=repeat)
    t_rmv, _ = timed(op.rmatvec, y, repeat=repeat)
    t_mv_np, y_np = timed(op._matvec_chunks, z, repeat=1)
    t_rmv_np, _ = timed(op._rmatvec_chunks, y, repeat=1)
    diff = float(np.abs(y - y_np).max() / np.abs(y_np).max())
    del buf
    return [f"[5] N = 2^{log2n}, d = 1024, m = 3, float32 (load average {os.getloadavg()[0]:.1f}; best of {repeat}, "
            f"wall-clock): one pass over the N-vector (copy) {t_pass:.3f} s",
            f"    V z   fused {t_mv:.3f} s = {t_mv / t_pass:.1f} passes; chunked numpy route {t_mv_np:.3f} s = "
            f"{t_mv_np / t_pass:.1f} passes (largest difference {diff:.1e} of the largest entry)",
            f"    V^T y fused {t_rmv:.3f} s = {t_rmv / t_pass:.1f} passes; chunked numpy route {t_rmv_np:.3f} s = "
            f"{t_rmv_np / t_pass:.1f} passes"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--slow", action="store_true", help="also N = 2^30 (r = 10, m = 3)")
    ap.add_argument("--pass-only", action="store_true", help="only [5]: the fused products in passes over memory")
    args = ap.parse_args()
    if args.pass_only:
        print("\n".join(pass_lines()))
        return
    rng = np.random.default_rng(0)

    print("[1] implicit operator vs dense matmul (seconds; last column: dense time / this time)")
    for r, m in [(8, 2), (6, 3), (9, 2)]:
        op = ImplicitFrame(r, m)
        t_build, fr = timed(F.build_frame, r, m, repeat=1)
        V = fr.dense()
        z, y = rng.standard_normal(op.n), rng.standard_normal(op.d)
        t_dz, ref_z = timed(lambda: V @ z)
        t_dy, ref_y = timed(lambda: V.T @ y)
        t_iz, out_z = timed(op.matvec, z)
        t_iy, out_y = timed(op.rmatvec, y)
        assert np.allclose(out_z, ref_z, atol=1e-9) and np.allclose(out_y, ref_y, atol=1e-9)
        print(f"  r={r}, m={m}, N={op.n} (dense V: {V.nbytes / 2 ** 20:.0f} MiB, built in {t_build:.2f} s)")
        row("dense V z", t_dz, t_dz)
        row("implicit V z", t_iz, t_dz)
        row("dense V^T y", t_dy, t_dy)
        row("implicit V^T y", t_iy, t_dy)
        del V

    print("\n[2] exact histogram: rank certificate vs WHT scan (m = 3)")
    t_w, w = timed(F.certify, 8, 3, repeat=1)
    t_q, q = timed(quadratic_certificate, 8, 3)
    assert w.histogram == q.histogram
    print("  r=8 (N = 2^24)")
    row("WHT certificate", t_w, t_w)
    row("rank certificate", t_q, t_w)
    for r in (12, 16):
        t, q = timed(quadratic_certificate, r, 3, repeat=1)
        est = t_w * 2 ** (3 * (r - 8)) * r / 8  # WHT cost ~ N log d, scaled from r = 8
        print(f"  r={r} (N = 2^{3 * r}): rank certificate {t:.2f} s; WHT scan extrapolated {est:.3g} s "
              f"(ratio {est / t:.3g}); max|S| = {q.max_abs_sum}, coherence {q.coherence_exact}")

    print("\n[3] Kerdock / DG certificates: rank vs WHT")
    for cons, r, delta in [("kerdock", 10, None), ("kerdock", 12, None), ("dg", 8, 1)]:
        t_w, a = timed(C.code_certificate, cons, r, delta, method="wht", repeat=1)
        t_r, b = timed(C.code_certificate, cons, r, delta, method="rank", repeat=1)
        assert a.histogram == b.histogram
        print(f"  {cons} r={r}{'' if delta is None else f', delta={delta}'}: N = {a.n_columns}, coherence {a.coherence_exact}")
        row("WHT", t_w, t_w)
        row("rank", t_r, t_w)

    if args.slow:
        op = ImplicitFrame(10, 3, dtype=np.float32)
        z = np.ones(op.n, dtype=np.float32)
        t0 = time.perf_counter()
        y = op.matvec(z)
        t1 = time.perf_counter()
        x = op.rmatvec(y)
        t2 = time.perf_counter()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20
        # V 1 = sqrt(d) e_0 scaled: sum over all columns of psi(...) is d^m at x = 0 and 0 elsewhere
        print(f"\n[4] N = 2^30 (float32): V z {t1 - t0:.1f} s, V^T y {t2 - t1:.1f} s, peak RSS {peak:.2f} GiB "
              f"(z alone is {z.nbytes / 2 ** 30:.0f} GiB); y[0] = {y[0]:.6g} (expect {2 ** 30 / 32:.6g}), "
              f"max|y[1:]| = {np.abs(y[1:]).max():.3g}, x[0] = {x[0]:.6g}")
    print()
    print("\n".join(pass_lines()))


if __name__ == "__main__":
    main()
