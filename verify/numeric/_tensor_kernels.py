r"""Compiled kernels of the direct symmetric-tensor route of :mod:`verify.numeric.power_sums` (numba, optional).

Split contraction. A monomial of even degree 2k is written once as :math:`x^\mu = x^\rho x^\gamma` with
:math:`\rho` the 2k - h smallest and :math:`\gamma` the h largest of its sorted variables (h = min(H, 2k - 1)), so
:math:`\max\rho \le \min\gamma`; conversely every such pair gives one degree-2k monomial. Grouped by
:math:`s = \max\rho`, the pairs are the dense blocks {rho : max rho = s} x {gamma : min gamma >= s}, and in the graded
order of :func:`verify.numeric.power_sums.monomial_exponents` the gammas of a block are one contiguous tail of the
degree-h monomials. So per feature :math:`x = w_i` only the monomials of degree <= H < 2m are built (each by one
multiplication from a lower one), and the degree-2k products are never stored: row :math:`\rho` of a block adds
:math:`c\,x^\rho` times a contiguous tail into a contiguous row of :math:`S` (accumulate), or dots a contiguous row
of coefficients with the tail (contract) -- one FMA per even-degree monomial, over contiguous memory (SIMD).
H is chosen by :func:`verify.numeric.power_sums._split_top` (building more monomials gives fewer, longer rows:
H = 4 at d = 10, m = 3: 75 rows, the monomials of four features 32 KB; H = 6 at m = 5). fastmath only reassociates
the sums of products (no division; W is checked finite, so no special values): it changes the round-off within
the tests' bound (eps times the sum of the absolute terms), never an exact value.

Row pairs. The rows of one block (same s, same degree) share their tail, so the kernels sweep two of them at once
(:func:`verify.numeric.power_sums._tensor_rows`): each tail entry of the four features is loaded once for both
rows' coefficients -- contract: six loads per eight FMAs instead of five per four; accumulate: four tail loads and
two loads and stores of S per eight FMAs instead of four and one per four; the gradient: the tail and its adjoints
once for two rows. At d = 10 the pairs hold 66% of the padded coefficients at m = 3 (H = 4) and 85% at m = 5
(H = 6); the other rows (a block with one row, the last row of an odd block) are swept alone.

Layout (built by :func:`verify.numeric.power_sums._tensor_tables`): ``M`` holds the monomials of degrees 0..H
(``M[0] = 1``, then PAD zeros); ``blocks`` rows ``(dst, src, length, a)`` build ``M[dst:dst+L] = x_a M[src:src+L]``
in increasing degree; ``rows`` rows ``(r, t0, length, co, l)``: coefficient ``co + g`` of the block layout belongs
to the degree-2(l+1) monomial :math:`x^{M[r]}\cdot x^{M[t0+g]}` (``length`` padded to a multiple of :data:`PAD`);
``pairs`` rows ``(r, s, t0, length, co, cs, l)``: two such rows with the same tail (coefficients at ``co`` and
``cs``).

Without numba the module still imports; :data:`AVAILABLE` is False and the numpy route of
:mod:`verify.numeric.power_sums` is used instead (checked equal to these kernels in the tests).
"""

from __future__ import annotations

import numpy as np

try:  # optional dependency (extra "fast"): the package works, slower, without it
    from numba import njit
    AVAILABLE = True
    from ._simd import (LANES, accumulate_rows1, accumulate_rows2, contract_rows1, contract_rows2, contract_rows4,
                        contract_rows8, vscale)
except ImportError:  # pragma: no cover - exercised only where numba is absent
    AVAILABLE = False

    def njit(*args, **kwargs):
        def wrap(fn):
            return fn
        return wrap if not (len(args) == 1 and callable(args[0])) else args[0]

    LANES = 8

#: features per sweep of the loss kernels (accumulate, contract) and of the gradient kernel (contract_grad): one
#: coefficient of S (or one entry of the partial sum) is loaded once per BLOCK FMAs. The inner loops are written out
#: for these sizes (c0..c3, a0..a3; g0, g1): change them together. Measured on the 2-core machine (d = 10, m = 3,
#: loss kernels alone, accumulate + contract, best of 3 in one process, as multiples of the fewest-operation bound
#: at a 2048 gemm timed in the same loop; the same code with BLOCK written out 2, 3, 8): at n = 10^5, load 6.6:
#: BLOCK = 2 / 3 / 4 took 5.8x / 5.0x / 4.8x at H = 4, and 8.6x / 6.2x / 5.8x for BLOCK = 2 / 4 / 8 at H = 3;
#: at load 5.6, BLOCK = 8 4.8x against 4.4x for 4 (H = 4); pairs of block rows that share a tail (2 rows x 4
#: features, 8 accumulators, n = 5 x 10^4, load 6.0) 4.5x against 4.0x for single rows; GRAD_BLOCK = 4 0.76 s
#: (0.94 s with row pairs) against 0.66 s for 2 (contract_grad alone, n = 10^5, load 6.5). Where a pass's time goes
#: (contract, n = 10^5, load 4.6, gemm 23 GFLOP/s): the same padded length in rows of 784 entries, less the time of
#: the build alone, ran its FMAs at 12.5 GFLOP/s (~55% of the gemm rate; the monomials of four features, 32 KB at
#: H = 4, are as large as the 32 KB L1 data cache, so the likely limit is the coefficients and tails streamed from
#: L2 -- not measured with counters), building the monomials alone took 1/3 of the pass and the per-row set-up
#: (views, horizontal sums) ~1/6. ``python benchmarks/bench_exact_loss.py --kernels`` repeats this diagnosis; in
#: three runs (n = 2 x 10^4 and twice 2 x 10^5, load 2.5-3.9, gemm 23-38 GFLOP/s) the loss kernels took 4.6x, 5.5x
#: and 7.6x the bound at m = 3 (with the gradient's passes 5.6x, 7.7x, 9.3x) and 3.5x, 4.2x, 3.4x at m = 5; the FMAs
#: of long rows ran at 44-51% of the gemm rate at m = 3 (46-76% at m = 5), the build took 23-46% of a contraction
#: pass and the short-row set-up up to 27%. The spread is the shared machine; the shape holds: the FMAs run at
#: about half the gemm rate and the build takes a quarter to a half of a pass. With row pairs (module docstring):
#: ``bench_exact_loss.py --kernels`` also times the contraction with every row swept alone: 1.28x (m = 3,
#: n = 2 x 10^4) and 1.31x (m = 5, n = 2000) the paired time (load 3.1, gemm 35 GFLOP/s); the kernels before and
#: after the pairs, alternating in one process (n = 5 x 10^4 at m = 3, 5000 at m = 5, load 4.9, gemm 31-33
#: GFLOP/s): loss kernels 5.79x -> 4.78x the bound, loss and gradient passes 7.65x -> 6.51x, m = 5 3.54x -> 2.89x.
#: A pair's contraction keeps 8 scalar sums, 16 zmm accumulators after LLVM's vectorisation (8 wide, interleave
#: 2), with no spills (read off ``contract.inspect_asm``).
BLOCK = LANES
GRAD_BLOCK = 2

#: features per local accumulator: S is summed in two levels (within a group, then groups), so its rounding
#: error grows like (group + n / group) ulps instead of n ulps
GROUP = 4096

#: block rows are padded to a multiple of PAD entries (a zero coefficient, and M is PAD zeros longer than its
#: monomials), so that the vectorised inner loops have no scalar remainder: the rows are short (75 rows for 5775
#: monomials at d = 10, m = 3). Measured on the 2-core machine (load ~11, ratios to a gemm timed in the same loop):
#: no padding 4.7x the loss bound, PAD = 8 4.3x, 16 4.8x (the noise is ~10%)
PAD = 8


@njit(cache=True, fastmath=True)
def _build(x, M, blocks):
    M[0] = 1.0
    for k in range(blocks.shape[0]):
        dst, src, L, a = blocks[k, 0], blocks[k, 1], blocks[k, 2], blocks[k, 3]
        xa = x[a]
        out, inp = M[dst:dst + L], M[src:src + L]     # views: numba then drops the negative-index checks (5x)
        for t in range(L):
            out[t] = xa * inp[t]


@njit(cache=True)
def _aligned(rows):
    """(rows, LANES) float64 zeros starting on a 64-byte boundary: each row of eight features is one cache line
    (a vector load or store then never straddles two)."""
    raw = np.zeros(rows * LANES + LANES)
    off = (-(raw.ctypes.data % 64) // 8) % LANES
    return raw[off:off + rows * LANES].reshape(rows, LANES)


@njit(cache=True, fastmath=True)
def _build8(W, i0, x8, M8, blocks):
    """Features i0..i0+7 of W (d, n) into x8 (d, 8) (zero past n) and their monomials into M8 (rows, 8), one
    vector multiplication per monomial for the eight; returns the number of real features."""
    d, n = W.shape
    nb = min(LANES, n - i0)
    for a in range(d):
        for b in range(LANES):
            x8[a, b] = W[a, i0 + b] if b < nb else 0.0
    M8[0, :] = 1.0
    for k in range(blocks.shape[0]):
        vscale(M8, blocks[k, 0], blocks[k, 1], blocks[k, 2], x8, blocks[k, 3])
    return nb


@njit(cache=True, fastmath=True)
def accumulate(W, cw, weighted, blocks, g1, g2, nM, m, size, group):
    r""":math:`S = \sum_j c(j)\,w_j^{\otimes 2l}` for every degree 2l (block layout), with ``c = cw[l-1, j]`` if
    ``weighted`` else 1. W is (d, n). Eight features per sweep over S (:data:`BLOCK`), their monomials in rows
    (``_build``); ``g1`` / ``g2``: block rows alone / two rows sharing a tail (:func:`verify.numeric.power_sums._tensor_groups`),
    swept by :func:`verify.numeric._simd.accumulate_rows2`: per vector of eight coefficients, the eight tails loaded
    once for both rows, one load and store of S per row, sixteen FMAs. The partial sums of each ``group`` features
    (rounded up to a multiple of 8) are added into S at once."""
    d, n = W.shape
    stride = nM + PAD
    Mf = np.zeros((LANES, stride))
    x = np.zeros((LANES, d))
    cc = np.zeros((LANES, m))
    S = np.zeros(size)
    loc = np.zeros(size)
    per = max(1, (group + LANES - 1) // LANES)
    for i0 in range(0, n, LANES):
        nb = min(LANES, n - i0)
        for b in range(LANES):
            for a in range(d):
                x[b, a] = W[a, i0 + b] if b < nb else 0.0
            _build(x[b], Mf[b], blocks)
            for l in range(m):
                cc[b, l] = (cw[l, i0 + b] if weighted else 1.0) if b < nb else 0.0
        for q in range(g2.shape[0]):
            accumulate_rows2(Mf, stride, cc, m, loc, g2[q, 0], g2[q, 1], g2[q, 2], (g2[q, 3], g2[q, 4]),
                             (g2[q, 5], g2[q, 6]))
        for q in range(g1.shape[0]):
            accumulate_rows1(Mf, stride, cc, m, loc, g1[q, 0], g1[q, 1], g1[q, 2], (g1[q, 3],), (g1[q, 4],))
        if (i0 // LANES + 1) % per == 0 or i0 + LANES >= n:
            for t in range(size):
                S[t] += loc[t]
                loc[t] = 0.0
    return S


@njit(cache=True, fastmath=True)
def contract(W, C, blocks, g1, g2, g4, g8, nM, m):
    r""":math:`P_l(w_i) = \sum_{|\mu| = 2l} C_\mu w_i^\mu` (C in block layout) for every feature i and degree;
    returns (m, n). Eight features per sweep, one per vector lane (``_build8``: the monomials of the eight in
    rows of one cache line); ``g1``, ``g2``, ``g4``, ``g8``: 1, 2, 4, 8 block rows sharing a tail
    (:func:`verify.numeric.power_sums._tensor_groups`), swept by :mod:`verify.numeric._simd`'s ``contract_rows``:
    per tail entry one vector load for the R rows, one broadcast coefficient and one FMA per row; no horizontal
    sums."""
    d, n = W.shape
    C = np.ascontiguousarray(C)
    M8 = _aligned(nM + PAD)
    x8 = _aligned(d)
    P8 = np.zeros((m, LANES))
    out = np.empty((m, n))
    for i0 in range(0, n, LANES):
        nb = _build8(W, i0, x8, M8, blocks)
        P8[:, :] = 0.0
        for q in range(g8.shape[0]):
            contract_rows8(M8, C, P8, g8[q, 0], g8[q, 1], g8[q, 2],
                           (g8[q, 3], g8[q, 4], g8[q, 5], g8[q, 6], g8[q, 7], g8[q, 8], g8[q, 9], g8[q, 10]),
                           (g8[q, 11], g8[q, 12], g8[q, 13], g8[q, 14], g8[q, 15], g8[q, 16], g8[q, 17], g8[q, 18]))
        for q in range(g4.shape[0]):
            contract_rows4(M8, C, P8, g4[q, 0], g4[q, 1], g4[q, 2], (g4[q, 3], g4[q, 4], g4[q, 5], g4[q, 6]),
                           (g4[q, 7], g4[q, 8], g4[q, 9], g4[q, 10]))
        for q in range(g2.shape[0]):
            contract_rows2(M8, C, P8, g2[q, 0], g2[q, 1], g2[q, 2], (g2[q, 3], g2[q, 4]), (g2[q, 5], g2[q, 6]))
        for q in range(g1.shape[0]):
            contract_rows1(M8, C, P8, g1[q, 0], g1[q, 1], g1[q, 2], (g1[q, 3],), (g1[q, 4],))
        for l in range(m):
            for b in range(nb):
                out[l, i0 + b] = P8[l, b]
    return out


@njit(cache=True, fastmath=True)
def _reverse(x, M, B, blocks, G, i):
    """Reverse mode over the monomial tree: adds the gradient of the stored monomials' adjoints B to G[:, i]."""
    for a in range(x.shape[0]):
        G[a, i] = 0.0
    for k in range(blocks.shape[0] - 1, -1, -1):
        dst, src, L, a = blocks[k, 0], blocks[k, 1], blocks[k, 2], blocks[k, 3]
        xa = x[a]
        acc = 0.0
        gg, mm, bb = B[dst:dst + L], M[src:src + L], B[src:src + L]
        for t in range(L):
            g = gg[t]
            acc += g * mm[t]
            bb[t] += g * xa
        G[a, i] += acc


@njit(cache=True, fastmath=True)
def contract_grad(W, C1, C2, c, blocks, rows, pairs, nM, m):
    r""":math:`\nabla_x \sum_l \sum_\mu (c_l(i) C1_\mu + C2_\mu)\,x^\mu` at every feature :math:`x = w_i` (C1, C2 in
    block layout): the adjoints of :math:`x^\rho` and of the tail from each block row (three FMAs per even-degree
    monomial; a row pair loads the tail and its adjoints once for both rows), two features per sweep over C1 and
    C2, then reverse mode over the monomial tree (two FMAs per monomial); returns (d, n)."""
    d, n = W.shape
    M = np.zeros((GRAD_BLOCK, nM + PAD))
    B = np.zeros((GRAD_BLOCK, nM + PAD))     # adjoints of the stored monomials
    x = np.zeros((GRAD_BLOCK, d))
    G = np.empty((d, n))
    for i0 in range(0, n, GRAD_BLOCK):
        nb = min(GRAD_BLOCK, n - i0)
        for b in range(GRAD_BLOCK):
            for a in range(d):
                x[b, a] = W[a, i0 + b] if b < nb else 0.0
            _build(x[b], M[b], blocks)
        B[:, :] = 0.0
        M0, M1, B0, B1 = M[0], M[1], B[0], B[1]
        for q in range(rows.shape[0]):
            r, t0, L, co, l = rows[q, 0], rows[q, 1], rows[q, 2], rows[q, 3], rows[q, 4]
            c0, c1 = c[l, i0], c[l, i0 + nb - 1]
            m0, m1 = M0[r], M1[r]
            acc0 = acc1 = 0.0
            u, v = C1[co:co + L], C2[co:co + L]
            mm0, bb0, mm1, bb1 = M0[t0:t0 + L], B0[t0:t0 + L], M1[t0:t0 + L], B1[t0:t0 + L]
            for t in range(L):
                g0 = c0 * u[t] + v[t]
                g1 = c1 * u[t] + v[t]
                acc0 += g0 * mm0[t]
                acc1 += g1 * mm1[t]
                bb0[t] += g0 * m0
                bb1[t] += g1 * m1
            B0[r] += acc0
            B1[r] += acc1
        for q in range(pairs.shape[0]):
            r, s, t0, L, co, cs, l = (pairs[q, 0], pairs[q, 1], pairs[q, 2], pairs[q, 3], pairs[q, 4], pairs[q, 5],
                                      pairs[q, 6])
            k0, k1 = c[l, i0], c[l, i0 + nb - 1]
            m0, m1, n0, n1 = M0[r], M1[r], M0[s], M1[s]
            acc0 = acc1 = acs0 = acs1 = 0.0
            u, v, y, z = C1[co:co + L], C2[co:co + L], C1[cs:cs + L], C2[cs:cs + L]
            mm0, bb0, mm1, bb1 = M0[t0:t0 + L], B0[t0:t0 + L], M1[t0:t0 + L], B1[t0:t0 + L]
            for t in range(L):
                g0 = k0 * u[t] + v[t]          # row r, features 0 and 1
                g1 = k1 * u[t] + v[t]
                h0 = k0 * y[t] + z[t]          # row s
                h1 = k1 * y[t] + z[t]
                e0, e1 = mm0[t], mm1[t]
                acc0 += g0 * e0
                acc1 += g1 * e1
                acs0 += h0 * e0
                acs1 += h1 * e1
                bb0[t] += g0 * m0 + h0 * n0
                bb1[t] += g1 * m1 + h1 * n1
            B0[r] += acc0
            B1[r] += acc1
            B0[s] += acs0
            B1[s] += acs1
        for b in range(nb):
            _reverse(x[b], M[b], B[b], blocks, G, i0 + b)
    return G
