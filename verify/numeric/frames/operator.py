r"""Layer 5 of :mod:`verify.numeric.frames`: the Lemma A.4 frame as a fast implicit operator: :math:`Vz` and :math:`V^Ty` in :math:`O(N \log d)`.

Column :math:`\mathbf a = (a_0, o)` (``a_0 = n & (d-1)``, outer code ``o = n >> r`` for
:math:`a_1, \dots, a_{m-1}`) is :math:`x \mapsto (-1)^{\operatorname{tr}(a_0x) + \sigma_o(x)}/\sqrt d`
with :math:`\sigma_o(x) = \operatorname{tr}(\sum_{j\ge1} a_jx^{2j+1})`. Since
:math:`\operatorname{tr}(a_0x) = \langle\beta(a_0), x\rangle` (:func:`verify.numeric.frames.trace_form`),
the sum over :math:`a_0` is a Walsh-Hadamard transform :math:`H`:

.. math:: (Vz)(x) = \frac1{\sqrt d}\sum_o (-1)^{\sigma_o(x)}\,\bigl(H\,z_o\circ\beta^{-1}\bigr)(x), \qquad
          (V^Ty)_{(a_0,o)} = \frac1{\sqrt d}\,\bigl(H\,[(-1)^{\sigma_o}\,y]\bigr)(\beta(a_0)).

So one product costs :math:`N/d` WHTs of length d plus the signs :math:`\sigma_o(x)`. :class:`ImplicitFrame`
fuses them (numba, :func:`_fused_matvec` / :func:`_fused_rmatvec`): per outer code one block of d entries is
gathered into a buffer that stays in L1, transformed in place by butterflies, and its signs are computed in the
same pass from :math:`\sigma_o(x) = \bigoplus_j \langle\beta(a_j), x^{2j+1}\rangle` (two tables of d entries, an
AND and a parity per term): one read of z (or one write of :math:`V^Ty`), nothing else of size N, no temporaries.
Measured at N = 2^27, d = 1024, m = 3, float32 on the shared 2-core Xeon (benchmarks/bench_frame_operator.py
``[5]``, best of 3, load 3-10): :math:`Vz` 3.6-5.8 passes over the N-vector (a copy of it), :math:`V^Ty` 3.4-6.4,
against 9-11 and 7-13 for the chunked numpy route; of a pass, the gather is about 1.8, the butterflies 2.4 (the
first three strides, scalar, most of it), the signs 0.2 (CPU time at N = 2^25). Feeding the gather straight into
the first butterflies measured no faster, and sixteen blocks in lanes (every stride a vector operation) slower:
0.10 s against 0.046 s at N = 2^25 (numba leaves the lane loops scalar and the gather touches 16 blocks at once). The numpy route
(two BLAS products with the Kronecker factors :math:`H_{2^r} = H_{2^{r_1}}\otimes H_{2^{r_2}}`, sign rows per
chunk) is kept for the code frames, whose signs come from their construction's tables, and for torch. V is never
stored and the working memory is a few chunks, whatever N (the vectors themselves are the caller's:
:math:`N = 2^{30}` float32 is 4 GiB).

>>> op = ImplicitFrame(3, 2)
>>> V = op.columns(np.arange(op.shape[1]))
>>> z = np.arange(64.0)
>>> bool(np.allclose(op.matvec(z), V @ z)), bool(np.allclose(op.rmatvec(np.ones(8)), V.T @ np.ones(8)))
(True, True)
"""

from __future__ import annotations

import json
import math
import os
from functools import lru_cache

import numpy as np
from numba import njit   # galois, which the frames package needs, depends on numba: no new import cost

from ..._validate import VerifyInputError, verify_array, verify_int, verify_numeric_array
from .constructions import _form_bits, _tables, code_parameters, code_sign_bits
from .description import _column_indices, _frame_size
from .field import CHUNK_ELEMENTS, _poly_int, _sign_bits, field_of, power_table, trace_form

__all__ = ["ImplicitFrame", "ImplicitCodeFrame", "fwht_kron", "frame_matvec_torch", "CODE_MAX_R"]

#: largest r of an implicit Kerdock / DG operator (its K and T tables: (delta + 1) * 2^(2r-1) bytes, 1.5 GiB at r = 14
#: with delta = 5 would be too much for r = 16)
CODE_MAX_R = 14


@lru_cache(maxsize=None)
def _hadamard(k: int, dtype: str) -> np.ndarray:
    from scipy.linalg import hadamard

    return hadamard(2 ** k).astype(dtype)


def _dtype(dtype) -> np.dtype:
    """``np.dtype(dtype)``, a name numpy does not know refused as the float32 / float64 check below refuses others."""
    try:
        return np.dtype(dtype)
    except TypeError:
        raise VerifyInputError(f"Argument 'dtype' must be float32 or float64, not {dtype!r}.") from None


def fwht_kron(X: np.ndarray, r: int) -> np.ndarray:
    r"""Unnormalised WHT of the rows of ``X`` (shape ``(B, 2**r)``), Sylvester order, via
    :math:`H_{2^r} = H_{2^{r_1}} \otimes H_{2^{r_2}}`: :math:`H_{2^{r_1}}\,X_b\,H_{2^{r_2}}` per row.
    ``X``: a finite real array whose last axis has length ``2**r`` (any leading shape)."""
    r = verify_int(r, "r", minimum=0)
    X = verify_numeric_array(X, "X", min_ndim=1)
    if X.shape[-1] != 2 ** r:
        raise VerifyInputError(f"Argument 'X' must have rows of length 2^r = {2 ** r}, not {X.shape[-1]}.")
    return _fwht_kron(X, r)


def _fwht_kron(X: np.ndarray, r: int) -> np.ndarray:
    """:func:`fwht_kron` unchecked (the operator's chunk loops call it on rows of length ``2**r``)."""
    r1 = r // 2
    Y = X.reshape(-1, 2 ** r1, 2 ** (r - r1))
    dt = X.dtype.name
    Z = np.matmul(np.matmul(_hadamard(r1, dt), Y), _hadamard(r - r1, dt))
    return Z.reshape(X.shape)


@njit(cache=True)
def _fwht_inplace(buf):
    r"""Unnormalised WHT of ``buf`` (length :math:`d = 2^r`, Sylvester order) in place: butterflies
    :math:`(a, b) \to (a + b, a - b)` over strides 1, 2, 4, ..., the first three in one radix-8 step on eight values
    held in registers (the short strides would not vectorise), the rest as contiguous runs of ``h`` pairs (SIMD).
    Each output is a fixed sum of the inputs in a fixed order: integers stay exact."""
    d = buf.shape[0]
    h = 1
    if d >= 8:
        for i in range(0, d, 8):
            x0, x1, x2, x3 = buf[i], buf[i + 1], buf[i + 2], buf[i + 3]
            x4, x5, x6, x7 = buf[i + 4], buf[i + 5], buf[i + 6], buf[i + 7]
            a0, a1, a2, a3, a4, a5, a6, a7 = x0 + x1, x0 - x1, x2 + x3, x2 - x3, x4 + x5, x4 - x5, x6 + x7, x6 - x7
            b0, b1, b2, b3, b4, b5, b6, b7 = a0 + a2, a1 + a3, a0 - a2, a1 - a3, a4 + a6, a5 + a7, a4 - a6, a5 - a7
            buf[i], buf[i + 1], buf[i + 2], buf[i + 3] = b0 + b4, b1 + b5, b2 + b6, b3 + b7
            buf[i + 4], buf[i + 5], buf[i + 6], buf[i + 7] = b0 - b4, b1 - b5, b2 - b6, b3 - b7
        h = 8
    while h < d:
        for i in range(0, d, 2 * h):
            lo, hi = buf[i:i + h], buf[i + h:i + 2 * h]      # views: contiguous runs, no index checks
            for j in range(h):
                a, b = lo[j], hi[j]
                lo[j] = a + b
                hi[j] = a - b
        h *= 2


@njit(cache=True)
def _signs_into(sgn, o, r, beta, pows, first):
    r"""``sgn[x]`` = :math:`(-1)^{\sigma_o(x)}` for the terms j >= ``first`` of the outer code ``o``:
    :math:`\sigma_o(x) = \bigoplus_{j \ge \text{first}} \operatorname{parity}(\beta(a_j) \wedge x^{2j+1})`, with
    :math:`a_j` digit j - 1 of o in base 2^r and ``pows[j - 1, x]`` = :math:`x^{2j+1}`; the parity by folding."""
    d = sgn.shape[0]
    for x in range(d):
        v = 0
        for j in range(first, pows.shape[0] + 1):
            v ^= beta[(o >> (r * (j - 1))) & (d - 1)] & pows[j - 1, x]
        v ^= v >> 32
        v ^= v >> 16
        v ^= v >> 8
        v ^= v >> 4
        v ^= v >> 2
        v ^= v >> 1
        sgn[x] = 1.0 - 2.0 * (v & 1)


@njit(cache=True)
def _sign_steps(r, beta, pows, dtype_one):
    r"""``T[k, x]`` = :math:`(-1)^{\operatorname{parity}(\beta(2^{k+1} - 1) \wedge x^3)}`: the factor that takes the
    signs of outer code o - 1 to those of o when :math:`a_1(o)` has k trailing zeros (then :math:`a_1(o) \oplus
    a_1(o - 1) = 2^{k+1} - 1`, the other digits are unchanged, and :math:`\beta` is linear), so consecutive blocks'
    signs cost one multiplication each (exact: products of +-1)."""
    d = pows.shape[1]
    T = np.empty((r, d), dtype=dtype_one.dtype)
    for k in range(r):
        _signs_into(T[k], (1 << (k + 1)) - 1, r, beta, pows[:1], 1)
    return T


@njit(cache=True)
def _next_signs(sgn, o, r, beta, pows, T):
    """``sgn`` from outer code o - 1's to o's: recomputed when :math:`a_1(o) = 0` (a new value of the other digits,
    once per d codes), else multiplied by ``T[ctz(a_1)]``. Without terms (m = 1) all ones."""
    d = sgn.shape[0]
    if pows.shape[0] == 0:
        if o == 0:
            sgn[:] = 1.0
        return
    a1 = o & (d - 1)
    if a1 == 0:
        _signs_into(sgn, o, r, beta, pows, 1)
        return
    k = 0
    while (a1 >> k) & 1 == 0:
        k += 1
    t = T[k]
    for x in range(d):
        sgn[x] *= t[x]


@njit(cache=True)
def _fused_matvec(z, inv, beta, pows, r):
    r""":math:`\sqrt d\,Vz` (float64, length d) for z of length N: per outer code o, ``buf[u] = z[o d +
    \beta^{-1}(u)]`` (zero past N), its WHT in place, then :math:`y(x) \mathrel{+}= (-1)^{\sigma_o(x)}` buf[x] (signs
    by :func:`_next_signs`), the outer codes in increasing order (a fixed order of sums)."""
    n, d = z.shape[0], inv.shape[0]
    buf = np.empty(d, dtype=z.dtype)
    sgn = np.empty(d, dtype=z.dtype)
    T = _sign_steps(r, beta, pows, buf[:1])
    y = np.zeros(d)
    for o in range((n + d - 1) // d):
        base = o * d
        if base + d <= n:
            blk = z[base:base + d]
            for u in range(d):
                buf[u] = blk[inv[u]]
        else:
            for u in range(d):
                k = base + inv[u]
                buf[u] = z[k] if k < n else 0.0
        _fwht_inplace(buf)
        _next_signs(sgn, o, r, beta, pows, T)
        for x in range(d):
            y[x] += sgn[x] * buf[x]
    return y


@njit(cache=True)
def _fused_rmatvec(y, beta, pows, r, n, scale, out):
    r"""``out`` = :math:`V^Ty` (length N) from ``y`` (length d, the working dtype): per outer code o,
    ``buf[x]`` = :math:`(-1)^{\sigma_o(x)}\,y(x)`, its WHT in place, then ``out[o d + a_0]`` = scale
    ``buf[beta(a_0)]`` (the last block cut at N): one write of the output."""
    d = y.shape[0]
    buf = np.empty(d, dtype=out.dtype)
    sgn = np.empty(d, dtype=out.dtype)
    T = _sign_steps(r, beta, pows, buf[:1])
    for o in range((n + d - 1) // d):
        _next_signs(sgn, o, r, beta, pows, T)
        for x in range(d):
            buf[x] = sgn[x] * y[x]
        _fwht_inplace(buf)
        base = o * d
        L = min(d, n - base)
        blk = out[base:base + L]
        for a in range(L):
            blk[a] = scale * buf[beta[a]]


class ImplicitFrame:
    r"""The first ``n_columns`` columns of the Lemma A.4 frame (``d = 2^r`` rows) as a matrix-free operator.

    ``dtype``: float64 (default) or float32 (half the memory; relative error ~1e-7 per entry).
    :meth:`matvec` and :meth:`rmatvec` run the fused kernels (one pass over the N-vector); :meth:`matvec` sums the
    d outputs in float64 whatever the dtype.
    """

    #: the fused kernels compute this frame's signs from its trace tables (the code frames' come from their own)
    _fused = True

    def __init__(self, r: int, m: int, n_columns: int | None = None, irreducible_poly: int | None = None,
                 dtype=np.float64, chunk_elements: int = CHUNK_ELEMENTS):
        self.r, self.m, self.n = _frame_size(r, m, n_columns)
        self.d = 2 ** self.r
        self.irreducible_poly = _poly_int(field_of(self.r, irreducible_poly))
        self.dtype = _dtype(dtype)
        if self.dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise VerifyInputError(f"Argument 'dtype' must be float32 or float64, not {self.dtype}.")
        self.chunk = max(1, verify_int(chunk_elements, "chunk_elements", minimum=1) // self.d)
        self.n_outer = -(-self.n // self.d)
        self.beta = trace_form(self.r, self.irreducible_poly)
        self.scale = 1.0 / math.sqrt(self.d)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.d, self.n)

    def _signs(self, s: int, e: int) -> np.ndarray:
        """(-1)^{sigma_o(x)} for outer codes s <= o < e, shape (e - s, d), in the working dtype."""
        if self.m == 1:
            return np.ones((e - s, self.d), dtype=self.dtype)
        outer = np.arange(s, e, dtype=np.int64)
        bits = _sign_bits(self.r, outer << self.r, self.m, start_digit=1, irreducible_poly=self.irreducible_poly)
        return (1 - 2 * bits.view(np.int8)).astype(self.dtype)

    def _as_2d(self, v, length: int, name: str) -> tuple[np.ndarray, bool]:
        v = verify_array(v, name, dtype=self.dtype)   # complex or text refused, never cast to the working dtype
        if v.ndim not in (1, 2) or v.shape[0] != length:
            raise VerifyInputError(f"Argument {name!r} must have shape ({length},) or ({length}, k), not {v.shape}.")
        return (v[:, None] if v.ndim == 1 else v), v.ndim == 1

    def _tables(self):
        """beta, the inverse of beta and the power tables :math:`x^{2j+1}` (j = 1..m-1) of the fused kernels."""
        beta = np.ascontiguousarray(self.beta, dtype=np.int64)
        pows = np.array([power_table(self.r, j, self.irreducible_poly) for j in range(1, self.m)],
                        dtype=np.int64).reshape(self.m - 1, self.d)
        return beta, np.argsort(beta).astype(np.int64), pows

    def matvec(self, z) -> np.ndarray:
        r""":math:`Vz` for ``z`` of shape ``(N,)`` or ``(N, k)`` (columns one after another)."""
        if not self._fused:
            return self._matvec_chunks(z)
        v = verify_array(z, "z", dtype=self.dtype, finite=False)    # finiteness: on the result, below
        if v.ndim not in (1, 2) or v.shape[0] != self.n:
            raise VerifyInputError(f"Argument 'z' must have shape ({self.n},) or ({self.n}, k), not {v.shape}.")
        beta, inv, pows = self._tables()
        cols = [v] if v.ndim == 1 else [np.ascontiguousarray(v[:, c]) for c in range(v.shape[1])]
        out = np.empty((self.d, len(cols)), dtype=self.dtype)
        for c, col in enumerate(cols):
            y = _fused_matvec(np.ascontiguousarray(col), inv, beta, pows, self.r)
            # a NaN or inf in z reaches every output (inf - inf = NaN), so z is scanned only when y is not finite
            if not np.isfinite(y).all() and not np.isfinite(col).all():
                raise VerifyInputError("Argument 'z' must be finite (no NaN or inf entries).")
            out[:, c] = y * self.scale
        return out[:, 0] if v.ndim == 1 else out

    def _matvec_chunks(self, z) -> np.ndarray:
        """:meth:`matvec` by chunks of sign rows and BLAS WHTs (the code frames)."""
        Z, flat = self._as_2d(z, self.n, "z")
        k = Z.shape[1]
        y = np.zeros((self.d, k), dtype=self.dtype)
        inv = np.argsort(self.beta)  # zt[:, beta(a_0)] = z[:, a_0]  <=>  zt[:, u] = z[:, beta^-1(u)]: a gather
        for s in range(0, self.n_outer, self.chunk):
            e = min(self.n_outer, s + self.chunk)
            lo, hi = s * self.d, min(self.n, e * self.d)
            if hi - lo == (e - s) * self.d:  # a whole chunk: a view, no copy
                block = Z[lo:hi].reshape(e - s, self.d, k)
            else:
                block = np.zeros((e - s, self.d, k), dtype=self.dtype)
                block.reshape(-1, k)[: hi - lo] = Z[lo:hi]
            zt = np.take(block, inv, axis=1).astype(self.dtype, copy=False)  # index u = beta(a_0)
            if k == 1:
                W = _fwht_kron(zt.reshape(e - s, self.d), self.r)
                y[:, 0] += np.einsum("ox,ox->x", self._signs(s, e), W)
            else:
                W = _fwht_kron(np.ascontiguousarray(zt.transpose(0, 2, 1)).reshape(-1, self.d), self.r)
                y += np.einsum("ox,okx->xk", self._signs(s, e), W.reshape(e - s, k, self.d))
        y *= self.scale
        return y[:, 0] if flat else y

    def rmatvec(self, y) -> np.ndarray:
        r""":math:`V^Ty` for ``y`` of shape ``(d,)`` or ``(d, k)`` (columns one after another)."""
        if not self._fused:
            return self._rmatvec_chunks(y)
        Y, flat = self._as_2d(y, self.d, "y")
        beta, _, pows = self._tables()
        out = np.empty((Y.shape[1], self.n), dtype=self.dtype)
        for c in range(Y.shape[1]):
            _fused_rmatvec(np.ascontiguousarray(Y[:, c]), beta, pows, self.r, self.n, self.dtype.type(self.scale),
                           out[c])
        return out[0] if flat else out.T

    def _rmatvec_chunks(self, y) -> np.ndarray:
        """:meth:`rmatvec` by chunks of sign rows and BLAS WHTs (the code frames)."""
        Y, flat = self._as_2d(y, self.d, "y")
        Y = Y.astype(self.dtype, copy=False)
        k = Y.shape[1]
        out = np.empty((self.n, k), dtype=self.dtype)
        for s in range(0, self.n_outer, self.chunk):
            e = min(self.n_outer, s + self.chunk)
            lo, hi = s * self.d, min(self.n, e * self.d)
            if k == 1:  # 2-D all the way: (o, x) -> WHT -> (o, a_0) by one gather
                W = _fwht_kron(self._signs(s, e) * Y[:, 0][None, :], self.r)
                out[lo:hi, 0] = np.take(W, self.beta, axis=1).reshape(-1)[: hi - lo]
                continue
            P = self._signs(s, e)[:, None, :] * Y.T[None, :, :]          # (o, k, x)
            W = _fwht_kron(P.reshape(-1, self.d), self.r).reshape(e - s, k, self.d)
            W = W[:, :, self.beta].transpose(0, 2, 1).reshape(-1, k)      # (o, a_0) order
            out[lo:hi] = W[: hi - lo]
        out *= self.scale
        return out[:, 0] if flat else out

    def columns(self, idx) -> np.ndarray:
        """Dense columns ``V[:, idx]`` (d x len(idx)), computed on demand."""
        idx = _column_indices(idx, self.n)
        bits = _sign_bits(self.r, idx.astype(np.int64, copy=False), self.m, irreducible_poly=self.irreducible_poly)
        return ((1 - 2 * bits.view(np.int8)).astype(self.dtype) * self.scale).T

    def as_linear_operator(self):
        """A :class:`scipy.sparse.linalg.LinearOperator` (matvec, rmatvec, matmat)."""
        from scipy.sparse.linalg import LinearOperator

        return LinearOperator(self.shape, matvec=self.matvec, rmatvec=self.rmatvec, matmat=self.matvec,
                              rmatmat=self.rmatvec, dtype=self.dtype)

    def parameters(self) -> dict:
        return {"r": self.r, "m": self.m, "d": self.d, "n_columns": self.n, "irreducible_poly": self.irreducible_poly}


# --------------------------------------------------------------------------- torch (optional)
def _torch_fwht(X, r: int):
    import torch

    r1 = r // 2
    H1 = torch.as_tensor(_hadamard(r1, "float64"), dtype=X.dtype, device=X.device)
    H2 = torch.as_tensor(_hadamard(r - r1, "float64"), dtype=X.dtype, device=X.device)
    Y = X.reshape(-1, 2 ** r1, 2 ** (r - r1))
    return torch.matmul(torch.matmul(H1, Y), H2).reshape(X.shape)


def _torch_apply(op: ImplicitFrame, z, transpose: bool):
    """V z (transpose=False, z: (N, k)) or V^T y (transpose=True, y: (d, k)) in torch, chunked."""
    import torch

    beta = torch.as_tensor(op.beta, device=z.device)
    k = z.shape[1]
    if not transpose:
        y = torch.zeros((op.d, k), dtype=z.dtype, device=z.device)
    else:
        out = torch.empty((op.n, k), dtype=z.dtype, device=z.device)
    for s in range(0, op.n_outer, op.chunk):
        e = min(op.n_outer, s + op.chunk)
        signs = torch.as_tensor(op._signs(s, e).astype(np.float32), device=z.device).to(z.dtype)
        lo, hi = s * op.d, min(op.n, e * op.d)
        if not transpose:
            block = torch.zeros(((e - s) * op.d, k), dtype=z.dtype, device=z.device)
            block[: hi - lo] = z[lo:hi]
            block = block.reshape(e - s, op.d, k)
            zt = torch.empty_like(block)
            zt[:, beta, :] = block
            W = _torch_fwht(zt.transpose(1, 2).reshape(-1, op.d), op.r).reshape(e - s, k, op.d)
            y += torch.einsum("ox,okx->xk", signs, W)
        else:
            P = signs[:, None, :] * z.T[None, :, :]
            W = _torch_fwht(P.reshape(-1, op.d), op.r).reshape(e - s, k, op.d)
            out[lo:hi] = W[:, :, beta].transpose(1, 2).reshape(-1, k)[: hi - lo]
    return (y if not transpose else out) * op.scale


def frame_matvec_torch(op: ImplicitFrame, z):
    r""":math:`Vz` for a torch tensor ``z`` of shape ``(N,)`` or ``(N, k)`` (any device), differentiable:
    the backward pass is :math:`V^T g`. Needs torch (imported here, not at package import)."""
    import torch

    class _Apply(torch.autograd.Function):
        @staticmethod
        def forward(ctx, z2):
            return _torch_apply(op, z2, transpose=False)

        @staticmethod
        def backward(ctx, g):
            return _torch_apply(op, g, transpose=True)

    if z.ndim not in (1, 2) or z.shape[0] != op.n:
        raise VerifyInputError(f"Argument 'z' must have shape ({op.n},) or ({op.n}, k), not {tuple(z.shape)}.")
    flat = z.ndim == 1
    out = _Apply.apply(z[:, None] if flat else z)
    return out[:, 0] if flat else out



class ImplicitCodeFrame(ImplicitFrame):
    r"""A Kerdock / DG(r, delta) frame (:mod:`.constructions`) as a matrix-free operator, any ``n_columns`` first
    columns. Column :math:`(u, \mathbf c, b)` (``b = n & (d-1)``, outer code ``n >> r``) is
    :math:`v \mapsto (-1)^{K_u(v) + T_{\mathbf c}(x) + \langle b, v\rangle}/\sqrt d`: the sum over b is a plain
    Walsh-Hadamard transform (:math:`\beta` = identity), the sign rows come from the construction's tables.
    The tables hold :math:`(\delta+1)\,2^{r-1} \times 2^r` bytes, so ``r <= CODE_MAX_R``."""

    def __init__(self, construction: str, r: int, delta: int | None = None, n_columns: int | None = None,
                 irreducible_poly: int | None = None, dtype=np.float64, chunk_elements: int = CHUNK_ELEMENTS):
        mp, delta, total = code_parameters(construction, r, delta)
        if r > CODE_MAX_R:
            raise VerifyInputError(f"Argument 'r' must be at most {CODE_MAX_R} for an implicit {construction} frame "
                                   f"(its sign tables grow as 2^(2r)), not {r}.")
        self.construction, self.delta, self.mp = construction, delta, mp
        self.r, self.m, self.d = r, delta + 1, 2 ** r
        self.n = total if n_columns is None else verify_int(n_columns, "n_columns", minimum=1, maximum=total)
        self.irreducible_poly = _poly_int(field_of(mp, irreducible_poly))
        self.dtype = _dtype(dtype)
        if self.dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise VerifyInputError(f"Argument 'dtype' must be float32 or float64, not {self.dtype}.")
        self.chunk = max(1, verify_int(chunk_elements, "chunk_elements", minimum=1) // self.d)
        self.n_outer = -(-self.n // self.d)
        self.beta = np.arange(self.d)
        self.scale = 1.0 / math.sqrt(self.d)
        self._fused = False
        self._tabs = _tables(mp, delta, np.arange(self.d, dtype=np.int64), self.irreducible_poly)

    def _signs(self, s: int, e: int) -> np.ndarray:
        bits = _form_bits(*self._tabs, self.mp, 0, np.arange(s, e, dtype=np.int64))
        return (1 - 2 * bits.view(np.int8)).astype(self.dtype)

    def columns(self, idx) -> np.ndarray:
        idx = _column_indices(idx, self.n)
        bits = code_sign_bits(self.construction, self.r, idx, self.delta, self.irreducible_poly)
        return ((1 - 2 * bits.view(np.int8)).astype(self.dtype) * self.scale).T

    def parameters(self) -> dict:
        return {"construction": self.construction, "delta": self.delta, "r": self.r, "m": self.m, "d": self.d,
                "n_columns": self.n, "irreducible_poly": self.irreducible_poly}
