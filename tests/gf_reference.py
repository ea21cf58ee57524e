"""GF(2^r) arithmetic written entry by entry (shift-and-add products, square-and-multiply powers, the trace as a sum
of Frobenius images): the independent reference that the frame and lower-bound reference tests compare the package's
galois-based code with, and the frames built from it entry by entry (:func:`bch_signs`, :func:`code_signs`) for any
modulus. Vectorised over numpy int64 arrays; shared by the tests through pytest's ``pythonpath``."""

from __future__ import annotations

import numpy as np


def gf_mul(a, b, poly: int, r: int) -> np.ndarray:
    """Carry-less product modulo ``poly`` (shift and add)."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
    a, res = a.copy(), np.zeros(a.shape, dtype=np.int64)
    for i in range(r):
        res ^= np.where((b >> i) & 1, a, 0)
        a = a << 1
        a ^= np.where((a >> r) & 1, poly, 0)
    return res


def gf_pow(x, e: int, poly: int, r: int) -> np.ndarray:
    """``x ** e`` by square and multiply."""
    out, base = np.ones_like(np.asarray(x, dtype=np.int64)), np.asarray(x, dtype=np.int64)
    while e:
        if e & 1:
            out = gf_mul(out, base, poly, r)
        base = gf_mul(base, base, poly, r)
        e >>= 1
    return out


def gf_trace(z, poly: int, r: int) -> np.ndarray:
    """The absolute trace z + z^2 + ... + z^(2^(r-1)), an element of GF(2) = {0, 1}."""
    z = np.asarray(z, dtype=np.int64)
    s, t = z.copy(), z.copy()
    for _ in range(r - 1):
        t = gf_mul(t, t, poly, r)
        s ^= t
    assert set(np.unique(s).tolist()) <= {0, 1}   # the trace lies in the prime field
    return s


def parity(z) -> np.ndarray:
    """popcount(z) mod 2, bit by bit."""
    z = np.asarray(z, dtype=np.int64)
    out = np.zeros(z.shape, dtype=np.int64)
    for i in range(63):
        out ^= (z >> i) & 1
    return out


def bch_signs(r: int, m: int, columns, poly: int) -> np.ndarray:
    """(2^r, len(columns)) signs of the Lemma A.4 frame modulo ``poly``: column n <-> a_j = (n >> rj) & (2^r - 1),
    entry (-1)^tr(sum_j a_j x^(2j+1)), entry by entry."""
    d = 2 ** r
    x, cols = np.arange(d, dtype=np.int64), np.asarray(columns, dtype=np.int64)
    acc = np.zeros((d, cols.size), dtype=np.int64)
    for j in range(m):
        acc ^= gf_mul(gf_pow(x, 2 * j + 1, poly, r)[:, None], ((cols >> (r * j)) & (d - 1))[None, :], poly, r)
    return (1 - 2 * gf_trace(acc, poly, r)).astype(np.int64)


def code_signs(r: int, delta: int, columns, poly: int) -> np.ndarray:
    """(2^r, len(columns)) signs of the Kerdock (delta = 0) / DG(r, delta) frame over GF(2^(r-1)) modulo ``poly``:
    (-1)^(K_u(x, eps) + sum_j tr(c_j x^(2^j+1)) + <b, v>), K_u = sum_{k=1}^t tr((ux)^(2^k+1)) + eps tr(ux), v = x | eps
    << (r-1), column n <-> b = n & (2^r - 1), u = (n >> r) & (2^(r-1) - 1), c_j = (n >> (r + (r-1) j)) & ..."""
    mp = r - 1
    t = (mp - 1) // 2
    mask = 2 ** mp - 1
    v = np.arange(2 ** r, dtype=np.int64)
    x, eps = v & mask, v >> mp
    cols = np.asarray(columns, dtype=np.int64)
    b, code = cols & (2 ** r - 1), cols >> r
    ux = gf_mul(x[:, None], (code & mask)[None, :], poly, mp)
    e = np.zeros(ux.shape, dtype=np.int64)
    for k in range(1, t + 1):
        e ^= gf_trace(gf_pow(ux, 2 ** k + 1, poly, mp), poly, mp)
    e ^= eps[:, None] * gf_trace(ux, poly, mp)
    for j in range(1, delta + 1):
        cj = (code >> (mp * j)) & mask
        e ^= gf_trace(gf_mul(cj[None, :], gf_pow(x, 2 ** j + 1, poly, mp)[:, None], poly, mp), poly, mp)
    return (1 - 2 * (e ^ parity(v[:, None] & b[None, :]))).astype(np.int64)


def poly_text(poly: int) -> str:
    """The polynomial of a bit mask as text, highest power first ("x^3 + x + 1")."""
    terms = ["1" if k == 0 else "x" if k == 1 else f"x^{k}" for k in range(poly.bit_length() - 1, -1, -1)
             if (poly >> k) & 1]
    return " + ".join(terms)
