"""GF(2^r) arithmetic written entry by entry (shift-and-add products, square-and-multiply powers, the trace as a sum
of Frobenius images): the independent reference that the frame and lower-bound reference tests compare the package's
galois-based code with. Vectorised over numpy int64 arrays; shared by the tests through pytest's ``pythonpath``."""

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
