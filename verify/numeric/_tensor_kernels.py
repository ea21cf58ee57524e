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
H = m (:func:`verify.numeric.power_sums._kernel_top`: 286 stored monomials at d = 10, m = 3). fastmath only
reassociates the sums of products (no division; W is checked finite, so no special values): it changes the
round-off within the tests' bound (eps times the sum of the absolute terms), never an exact value.

Eight features per sweep, explicit SIMD (:mod:`verify.numeric._simd`: numba intrinsics on ``<8 x double>``, since
numba's own vectorisation cannot keep a tile of accumulators in registers). The rows of one block (same s, same
degree) share their tail; :func:`verify.numeric.power_sums._tensor_groups` groups them.

* ``contract`` and ``contract_grad`` put the eight features in the vector lanes: ``M8[j, f]`` is monomial j of
  feature f, one 64-byte row per monomial (18 KB for the eight at d = 10, m = 3). The build is one vector
  multiplication per monomial. A group of R = 1, 2, 4 or 8 rows loads each tail vector once and does one
  broadcast coefficient and one FMA per row (contract), or forms :math:`g = c_l C1 + C2` and adds
  :math:`g\,x^\gamma` to the row's adjoint and :math:`g\,x^\rho` to the tail's (``contract_grad``: three FMAs, the
  tail's adjoint loaded and stored once for the group), then reverse mode over the monomial tree, all in lanes:
  no horizontal sums anywhere.
* ``accumulate`` puts eight coefficients in the lanes: the monomials of each feature are a row (``_build``), and
  per vector of a tail the eight features' tails are loaded once for two rows (``accumulate_rows2``): sixteen
  FMAs per one load and one store of each row's S. Its output has to be summed over features, which the lanes
  of the other layout would leave to horizontal sums.

Layout (built by :func:`verify.numeric.power_sums._tensor_tables`): ``M`` holds the monomials of degrees 0..H
(``M[0] = 1``, then PAD zeros); ``blocks`` rows ``(dst, src, length, a)`` build ``M[dst:dst+L] = x_a M[src:src+L]``
in increasing degree; ``rows`` rows ``(r, t0, length, co, l)``: coefficient ``co + g`` of the block layout belongs
to the degree-2(l+1) monomial :math:`x^{M[r]}\cdot x^{M[t0+g]}` (``length`` padded to a multiple of :data:`PAD`);
a group of R rows is ``(t0, length, l, r_1..r_R, co_1..co_R)``.

Without numba the module still imports; :data:`AVAILABLE` is False and the numpy route of
:mod:`verify.numeric.power_sums` is used instead (checked equal to these kernels in the tests).
"""

from __future__ import annotations

import numpy as np

try:  # optional dependency (extra "fast"): the package works, slower, without it
    from numba import njit
    AVAILABLE = True
    from ._simd import (LANES, accumulate_rows1, accumulate_rows2, contract_rows1, contract_rows2, contract_rows4,
                        contract_rows8, grad_rows1, grad_rows2, grad_rows4, grad_rows8, vreverse, vscale)
except ImportError:  # pragma: no cover - exercised only where numba is absent
    AVAILABLE = False

    def njit(*args, **kwargs):
        def wrap(fn):
            return fn
        return wrap if not (len(args) == 1 and callable(args[0])) else args[0]

    LANES = 8

#: features per sweep of every kernel: one vector of eight float64 (:data:`verify.numeric._simd.LANES`). Measured on
#: the 2-core Xeon (d = 10, n = 2 x 10^5 at m = 3 and 2 x 10^4 at m = 5, idle, best of 3, against the previous
#: kernels of four features (two for the gradient) per sweep with numba's own loop vectorisation, H = 4 / 6):
#: contract 0.063 s against 0.145 s (m = 3), 0.121 s against 0.227 s (m = 5); accumulate 0.122 s against 0.158 s
#: (m = 3), 0.195 s against 0.251 s (m = 5); contract_grad 0.158 s against 0.509 s (m = 3), 0.359 s against 0.787 s
#: (m = 5). Where the contraction's time went before: horizontal sums at the end of every row, the monomial build
#: (a third of a pass: about 3 ns per block per feature) and the tails of four features streamed from L2.
BLOCK = LANES

#: features per local accumulator: S is summed in two levels (within a group, then groups), so its rounding
#: error grows like (group + n / group) ulps instead of n ulps
GROUP = 4096

#: block rows are padded to a multiple of PAD entries (a zero coefficient, and M is PAD zeros longer than its
#: monomials): the SIMD loops have no remainder (accumulate steps eight coefficients, contract unrolls 4 or 2 tail
#: entries). A zero coefficient times a finite monomial adds zero.
PAD = 8

#: the padding of the rows for contract and contract_grad: their lanes hold features, so a row's length only has to
#: be a multiple of the unroll (4, or 2 for groups of eight rows): 6068 padded coefficients at d = 10, m = 3 against
#: 6904 at PAD = 8 (5775 real)
CONTRACT_PAD = 4


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
def _aligned_rows(rows, cols):
    """(rows, cols) float64 zeros starting on a 64-byte boundary; with cols a multiple of 8 every row does (a
    vector load or store of a row's first eight then never straddles two cache lines)."""
    raw = np.zeros(rows * cols + LANES)
    off = (-(raw.ctypes.data % 64) // 8) % LANES
    return raw[off:off + rows * cols].reshape(rows, cols)


@njit(cache=True)
def _aligned(rows):
    """(rows, LANES) float64 zeros starting on a 64-byte boundary: each row of eight features is one cache line."""
    return _aligned_rows(rows, LANES)


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
    # each feature's row starts on a cache line (measured: 9% off the rows' time at d = 10, m = 3; the tails' own
    # starts are not aligned, which would take gaps in the layout: another 13%, not done)
    stride = (nM + PAD + LANES - 1) // LANES * LANES
    Mf = _aligned_rows(LANES, stride)
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
def contract_grad(W, C1, C2, c, blocks, g1, g2, g4, g8, nM, m):
    r""":math:`\nabla_x \sum_l \sum_\mu (c_l(i) C1_\mu + C2_\mu)\,x^\mu` at every feature :math:`x = w_i` (C1, C2 in
    block layout): eight features per sweep, one per vector lane (as :func:`contract`); per group of block rows
    sharing a tail (:mod:`verify.numeric._simd`'s ``grad_rows``) the adjoints of each row's :math:`x^\rho` and of
    the tail (three FMAs per even-degree monomial; the tail and its adjoint loaded and stored once for the group),
    then reverse mode over the monomial tree (``vreverse``: two FMAs per monomial); returns (d, n)."""
    d, n = W.shape
    C1, C2 = np.ascontiguousarray(C1), np.ascontiguousarray(C2)
    M8, B8 = _aligned(nM + PAD), _aligned(nM + PAD)        # monomials and their adjoints, eight features per row
    x8, G8, c8 = _aligned(d), _aligned(d), _aligned(m)
    G = np.empty((d, n))
    for i0 in range(0, n, LANES):
        nb = _build8(W, i0, x8, M8, blocks)
        for l in range(m):
            for b in range(LANES):
                c8[l, b] = c[l, i0 + b] if b < nb else 0.0
        B8[:, :] = 0.0
        for q in range(g8.shape[0]):
            grad_rows8(M8, B8, C1, C2, c8, g8[q, 0], g8[q, 1], g8[q, 2],
                       (g8[q, 3], g8[q, 4], g8[q, 5], g8[q, 6], g8[q, 7], g8[q, 8], g8[q, 9], g8[q, 10]),
                       (g8[q, 11], g8[q, 12], g8[q, 13], g8[q, 14], g8[q, 15], g8[q, 16], g8[q, 17], g8[q, 18]))
        for q in range(g4.shape[0]):
            grad_rows4(M8, B8, C1, C2, c8, g4[q, 0], g4[q, 1], g4[q, 2], (g4[q, 3], g4[q, 4], g4[q, 5], g4[q, 6]),
                       (g4[q, 7], g4[q, 8], g4[q, 9], g4[q, 10]))
        for q in range(g2.shape[0]):
            grad_rows2(M8, B8, C1, C2, c8, g2[q, 0], g2[q, 1], g2[q, 2], (g2[q, 3], g2[q, 4]), (g2[q, 5], g2[q, 6]))
        for q in range(g1.shape[0]):
            grad_rows1(M8, B8, C1, C2, c8, g1[q, 0], g1[q, 1], g1[q, 2], (g1[q, 3],), (g1[q, 4],))
        G8[:, :] = 0.0
        for k in range(blocks.shape[0] - 1, -1, -1):
            vreverse(M8, B8, G8, blocks[k, 0], blocks[k, 1], blocks[k, 2], x8, blocks[k, 3])
        for a in range(d):
            for b in range(nb):
                G[a, i0 + b] = G8[a, b]
    return G
