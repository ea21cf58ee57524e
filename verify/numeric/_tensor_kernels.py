r"""Compiled kernels of the direct symmetric-tensor route of :mod:`verify.numeric.power_sums` (numba, optional).

All three kernels walk, per feature :math:`x = w_i`, the tree of monomials of degree :math:`< K = 2m` in the graded
order of :func:`verify.numeric.power_sums.monomial_exponents`: the degree-k block of variable a is
:math:`x_a` times the contiguous tail of degree-(k-1) monomials whose smallest variable is :math:`\ge a`, so each
monomial is built once, by one multiplication, and every inner loop runs over contiguous memory (SIMD). The top
degree K is never stored: its monomials are :math:`x_a \cdot (\text{tail})`, so a contraction with a coefficient
vector C is :math:`\sum_a x_a \sum_t M_{src+t}C_{dst+t}` (one FMA per degree-K monomial).

One feature at a time, SIMD along the monomials (measured on the 2-core machine: 16-feature lanes with the
accumulators in memory ran 2-5x slower, numba keeps no lane registers). Layout (built by
:func:`verify.numeric.power_sums._tensor_tables`): ``M`` holds the monomials of degrees 0..K-1 (``M[0] = 1``);
``blocks`` rows ``(dst, src, length, a)`` build ``M[dst:dst+L] = x_a M[src:src+L]`` in
increasing degree; ``top`` rows ``(dst, src, length)`` give degree K (``dst`` into the coefficient vector at
offset ``len(M)``); ``evens`` rows ``(l, start, length)`` are the even degrees 2(l+1) < K inside ``M``. A
coefficient vector has ``len(M) + D_K`` entries laid out like ``M`` followed by degree K.

Without numba the module still imports; :data:`AVAILABLE` is False and the numpy route of
:mod:`verify.numeric.power_sums` is used instead (checked equal to these kernels in the tests).
"""

from __future__ import annotations

import numpy as np

try:  # optional dependency (extra "fast"): the package works, slower, without it
    from numba import njit
    AVAILABLE = True
except ImportError:  # pragma: no cover - exercised only where numba is absent
    AVAILABLE = False

    def njit(*args, **kwargs):
        def wrap(fn):
            return fn
        return wrap if not (len(args) == 1 and callable(args[0])) else args[0]

#: features per local accumulator: S is summed in two levels (within a group, then groups), so its rounding
#: error grows like (group + n / group) ulps instead of n ulps
GROUP = 4096


@njit(cache=True, fastmath=True)
def _build(x, M, blocks):
    M[0] = 1.0
    for k in range(blocks.shape[0]):
        dst, src, L, a = blocks[k, 0], blocks[k, 1], blocks[k, 2], blocks[k, 3]
        xa = x[a]
        out, inp = M[dst:dst + L], M[src:src + L]     # views: numba then drops the negative-index checks (5x)
        for t in range(L):
            out[t] = xa * inp[t]


@njit(cache=True, fastmath=True)
def _load4(W, i0, x, M, blocks):
    """Features i0..i0+3 of W (d, n) into x (4, d) (zero past n) and their monomials into M (4, nM); returns the
    number of real features. A zero feature has zero monomials of every degree >= 1."""
    d, n = W.shape
    nb = min(4, n - i0)
    for b in range(4):
        for a in range(d):
            x[b, a] = W[a, i0 + b] if b < nb else 0.0
        _build(x[b], M[b], blocks)
    return nb


@njit(cache=True, fastmath=True)
def accumulate(W, cw, weighted, blocks, top, evens, m, size, group):
    r""":math:`S = \sum_j c(j)\,w_j^{\otimes 2l}` for every degree 2l (coefficient layout), with ``c = cw[l-1, j]`` if
    ``weighted`` else 1. W is (d, n). Four features per sweep over S: one load and store of S per four FMAs; the
    partial sums of each ``group`` features (rounded up to a multiple of 4) are added into S at once."""
    d, n = W.shape
    M = np.zeros((4, top[0, 0]))
    x = np.zeros((4, d))
    c = np.zeros(4)
    S = np.zeros(size)
    loc = np.zeros(size)
    for i0 in range(0, n, 4):
        nb = _load4(W, i0, x, M, blocks)
        M0, M1, M2, M3 = M[0], M[1], M[2], M[3]
        for e in range(evens.shape[0] + 1):
            l = evens[e, 0] if e < evens.shape[0] else m - 1
            for b in range(4):
                c[b] = (cw[l, i0 + b] if weighted else 1.0) if b < nb else 0.0
            if e == evens.shape[0]:
                break
            s, L = evens[e, 1], evens[e, 2]
            out, u0, u1, u2, u3 = loc[s:s + L], M0[s:s + L], M1[s:s + L], M2[s:s + L], M3[s:s + L]
            c0, c1, c2, c3 = c[0], c[1], c[2], c[3]
            for t in range(L):
                out[t] += c0 * u0[t] + c1 * u1[t] + c2 * u2[t] + c3 * u3[t]
        for a in range(d):
            dst, src, L = top[a, 0], top[a, 1], top[a, 2]
            c0, c1, c2, c3 = c[0] * x[0, a], c[1] * x[1, a], c[2] * x[2, a], c[3] * x[3, a]
            out = loc[dst:dst + L]
            u0, u1, u2, u3 = M0[src:src + L], M1[src:src + L], M2[src:src + L], M3[src:src + L]
            for t in range(L):
                out[t] += c0 * u0[t] + c1 * u1[t] + c2 * u2[t] + c3 * u3[t]
        if (i0 // 4 + 1) % max(1, (group + 3) // 4) == 0 or i0 + 4 >= n:
            for t in range(size):
                S[t] += loc[t]
                loc[t] = 0.0
    return S


@njit(cache=True, fastmath=True)
def contract(W, C, blocks, top, evens, m):
    r""":math:`P_l(w_i) = \sum_{|\alpha| = 2l} C_\alpha w_i^\alpha` for every feature i and degree; returns (m, n).
    Four features per sweep over C."""
    d, n = W.shape
    M = np.zeros((4, top[0, 0]))
    x = np.zeros((4, d))
    out = np.empty((m, n))
    for i0 in range(0, n, 4):
        nb = _load4(W, i0, x, M, blocks)
        M0, M1, M2, M3 = M[0], M[1], M[2], M[3]
        for e in range(evens.shape[0]):
            l, s, L = evens[e, 0], evens[e, 1], evens[e, 2]
            a0 = a1 = a2 = a3 = 0.0
            v, u0, u1, u2, u3 = C[s:s + L], M0[s:s + L], M1[s:s + L], M2[s:s + L], M3[s:s + L]
            for t in range(L):
                cv = v[t]
                a0 += u0[t] * cv
                a1 += u1[t] * cv
                a2 += u2[t] * cv
                a3 += u3[t] * cv
            r = (a0, a1, a2, a3)
            for b in range(nb):
                out[l, i0 + b] = r[b]
        r0 = r1 = r2 = r3 = 0.0
        for a in range(d):
            dst, src, L = top[a, 0], top[a, 1], top[a, 2]
            a0 = a1 = a2 = a3 = 0.0
            v = C[dst:dst + L]
            u0, u1, u2, u3 = M0[src:src + L], M1[src:src + L], M2[src:src + L], M3[src:src + L]
            for t in range(L):
                cv = v[t]
                a0 += u0[t] * cv
                a1 += u1[t] * cv
                a2 += u2[t] * cv
                a3 += u3[t] * cv
            r0 += x[0, a] * a0
            r1 += x[1, a] * a1
            r2 += x[2, a] * a2
            r3 += x[3, a] * a3
        r = (r0, r1, r2, r3)
        for b in range(nb):
            out[m - 1, i0 + b] = r[b]
    return out


@njit(cache=True, fastmath=True)
def contract_grad(W, C1, C2, c, blocks, top, evens, m):
    r""":math:`\nabla_x \sum_l \sum_\alpha (c_l(i) C1_\alpha + C2_\alpha)\,x^\alpha` at every feature :math:`x = w_i`
    by reverse mode over the monomial tree (two FMAs per monomial); returns (d, n)."""
    d, n = W.shape
    nM = top[0, 0]
    M = np.empty(nM)
    B = np.empty(nM)           # adjoints of the stored monomials
    x = np.empty(d)
    G = np.empty((d, n))
    for i in range(n):
        for a in range(d):
            x[a] = W[a, i]
        _build(x, M, blocks)
        B[:] = 0.0
        for e in range(evens.shape[0]):
            l, s, L = evens[e, 0], evens[e, 1], evens[e, 2]
            cl = c[l, i]
            out, u, v = B[s:s + L], C1[s:s + L], C2[s:s + L]
            for t in range(L):
                out[t] = cl * u[t] + v[t]
        cK = c[m - 1, i]
        for a in range(d):
            dst, src, L = top[a, 0], top[a, 1], top[a, 2]
            xa = x[a]
            acc = 0.0
            u, v, mm, bb = C1[dst:dst + L], C2[dst:dst + L], M[src:src + L], B[src:src + L]
            for t in range(L):
                g = cK * u[t] + v[t]
                acc += g * mm[t]
                bb[t] += g * xa
            G[a, i] = acc
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
    return G
