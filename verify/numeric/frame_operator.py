r"""The Lemma A.4 frame as a fast implicit operator: :math:`Vz` and :math:`V^Ty` in :math:`O(N \log d)`.

Column :math:`\mathbf a = (a_0, o)` (``a_0 = n & (d-1)``, outer code ``o = n >> r`` for
:math:`a_1, \dots, a_{m-1}`) is :math:`x \mapsto (-1)^{\operatorname{tr}(a_0x) + \sigma_o(x)}/\sqrt d`
with :math:`\sigma_o(x) = \operatorname{tr}(\sum_{j\ge1} a_jx^{2j+1})`. Since
:math:`\operatorname{tr}(a_0x) = \langle\beta(a_0), x\rangle` (:func:`verify.numeric.frames.trace_form`),
the sum over :math:`a_0` is a Walsh-Hadamard transform :math:`H`:

.. math:: (Vz)(x) = \frac1{\sqrt d}\sum_o (-1)^{\sigma_o(x)}\,\bigl(H\,z_o\circ\beta^{-1}\bigr)(x), \qquad
          (V^Ty)_{(a_0,o)} = \frac1{\sqrt d}\,\bigl(H\,[(-1)^{\sigma_o}\,y]\bigr)(\beta(a_0)).

So one product costs :math:`N/d` WHTs of length d (done as two BLAS products with the Kronecker factors
:math:`H_{2^r} = H_{2^{r_1}}\otimes H_{2^{r_2}}`) plus the sign rows :math:`\sigma_o`, generated per chunk:
V is never stored and the working memory is a few chunks, whatever N (the vectors themselves are the
caller's: :math:`N = 2^{30}` float32 is 4 GiB).

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

from .._io import atomic_write, canonical_json
from .._validate import VerifyInputError, verify_int
from .frames import (CHUNK_ELEMENTS, FORMAT_VERSION, MAX_R, _digest, _frame_size, _poly_int, field_of, sign_bits,
                     trace_form)

__all__ = ["ImplicitFrame", "fwht_kron", "frame_matvec_torch", "save_implicit", "load_implicit", "is_implicit_file"]


@lru_cache(maxsize=None)
def _hadamard(k: int, dtype: str) -> np.ndarray:
    from scipy.linalg import hadamard

    return hadamard(2 ** k).astype(dtype)


def fwht_kron(X: np.ndarray, r: int) -> np.ndarray:
    r"""Unnormalised WHT of the rows of ``X`` (shape ``(B, 2**r)``), Sylvester order, via
    :math:`H_{2^r} = H_{2^{r_1}} \otimes H_{2^{r_2}}`: :math:`H_{2^{r_1}}\,X_b\,H_{2^{r_2}}` per row."""
    r1 = r // 2
    Y = X.reshape(-1, 2 ** r1, 2 ** (r - r1))
    dt = X.dtype.name
    Z = np.matmul(np.matmul(_hadamard(r1, dt), Y), _hadamard(r - r1, dt))
    return Z.reshape(X.shape)


class ImplicitFrame:
    r"""The first ``n_columns`` columns of the Lemma A.4 frame (``d = 2^r`` rows) as a matrix-free operator.

    ``dtype``: float64 (default) or float32 (half the memory; relative error ~1e-7 per entry).
    """

    def __init__(self, r: int, m: int, n_columns: int | None = None, irreducible_poly: int | None = None,
                 dtype=np.float64, chunk_elements: int = CHUNK_ELEMENTS):
        self.r, self.m, self.n = _frame_size(r, m, n_columns)
        self.d = 2 ** self.r
        self.irreducible_poly = _poly_int(field_of(self.r, irreducible_poly))
        self.dtype = np.dtype(dtype)
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
        bits = sign_bits(self.r, outer << self.r, self.m, start_digit=1, irreducible_poly=self.irreducible_poly)
        return (1 - 2 * bits.view(np.int8)).astype(self.dtype)

    def _as_2d(self, v, length: int, name: str) -> tuple[np.ndarray, bool]:
        v = np.asarray(v)
        if v.ndim not in (1, 2) or v.shape[0] != length:
            raise VerifyInputError(f"Argument {name!r} must have shape ({length},) or ({length}, k), not {v.shape}.")
        return (v[:, None] if v.ndim == 1 else v), v.ndim == 1

    def matvec(self, z) -> np.ndarray:
        r""":math:`Vz` for ``z`` of shape ``(N,)`` or ``(N, k)``."""
        Z, flat = self._as_2d(z, self.n, "z")
        k = Z.shape[1]
        y = np.zeros((self.d, k), dtype=self.dtype)
        for s in range(0, self.n_outer, self.chunk):
            e = min(self.n_outer, s + self.chunk)
            block = np.zeros((e - s, self.d, k), dtype=self.dtype)
            lo, hi = s * self.d, min(self.n, e * self.d)
            block.reshape(-1, k)[: hi - lo] = Z[lo:hi]
            zt = np.empty_like(block)
            zt[:, self.beta, :] = block            # index u = beta(a_0)
            W = fwht_kron(np.ascontiguousarray(zt.transpose(0, 2, 1)).reshape(-1, self.d), self.r)
            W = W.reshape(e - s, k, self.d)
            y += np.einsum("ox,okx->xk", self._signs(s, e), W)
        y *= self.scale
        return y[:, 0] if flat else y

    def rmatvec(self, y) -> np.ndarray:
        r""":math:`V^Ty` for ``y`` of shape ``(d,)`` or ``(d, k)``."""
        Y, flat = self._as_2d(y, self.d, "y")
        Y = Y.astype(self.dtype, copy=False)
        k = Y.shape[1]
        out = np.empty((self.n, k), dtype=self.dtype)
        for s in range(0, self.n_outer, self.chunk):
            e = min(self.n_outer, s + self.chunk)
            P = self._signs(s, e)[:, None, :] * Y.T[None, :, :]          # (o, k, x)
            W = fwht_kron(P.reshape(-1, self.d), self.r).reshape(e - s, k, self.d)
            W = W[:, :, self.beta].transpose(0, 2, 1).reshape(-1, k)      # (o, a_0) order
            lo, hi = s * self.d, min(self.n, e * self.d)
            out[lo:hi] = W[: hi - lo]
        out *= self.scale
        return out[:, 0] if flat else out

    def columns(self, idx) -> np.ndarray:
        """Dense columns ``V[:, idx]`` (d x len(idx)), computed on demand."""
        idx = np.asarray(idx, dtype=np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= self.n):
            raise VerifyInputError(f"Argument 'idx' must hold column indices in [0, {self.n}), not up to {int(idx.max())}.")
        bits = sign_bits(self.r, idx, self.m, irreducible_poly=self.irreducible_poly)
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


# --------------------------------------------------------------------------- parameter-only files
def save_implicit(op: ImplicitFrame, path: str | os.PathLike, certificate=None) -> dict:
    r"""Write only the parameters (and the certificate) of an implicit frame: an ``.npz`` with ``meta``
    (canonical JSON, ``"implicit": true``, sha256 checksum), ``scale`` and ``shape``, no bits. Plain
    ``numpy.load`` reads it; :func:`load_implicit` rebuilds the operator."""
    from .. import __version__ as pkg_version

    meta = {"format_version": FORMAT_VERSION, "implicit": True, "construction": "bch", **op.parameters(),
            "field_rows": op.d, "general": False, "m_paper": op.m, "package_version": pkg_version,
            "column_order": "column n <-> (a_0..a_{m-1}), a_j = (n >> (r*j)) & (2^r - 1); a_0 least significant",
            "entry": "V[x, n] = scale * (-1)^tr(sum_j a_j x^(2j+1)) (galois integer representation, polynomial basis)",
            "scale": op.scale}
    if certificate is not None:
        meta["certificate"] = {k: v for k, v in certificate.as_dict().items() if k != "seconds"}
    meta = json.loads(canonical_json(meta))
    meta["checksum"] = _digest(np.zeros(0, dtype=np.uint8), meta)
    with atomic_write(path) as fh:
        np.savez(fh, scale=np.float64(op.scale), shape=np.array([op.d, op.n], dtype=np.int64),
                 meta=np.array(canonical_json(meta)))
    return meta


def is_implicit_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a parameter-only frame file written by :func:`save_implicit`."""
    try:
        with np.load(path, allow_pickle=False) as z:
            return "bits" not in z.files and "meta" in z.files and bool(json.loads(str(z["meta"])).get("implicit"))
    except Exception:  # noqa: BLE001 - anything unreadable is simply not an implicit file
        return False


def load_implicit(path: str | os.PathLike, dtype=np.float64) -> tuple[ImplicitFrame, dict]:
    """Read a parameter-only frame file; returns ``(ImplicitFrame, meta)``. Refuses a bad checksum."""
    from .frames import _bad_file

    if not is_implicit_file(path):
        raise _bad_file(path, "not a parameter-only (implicit) frame file")
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
    if _digest(np.zeros(0, dtype=np.uint8), meta) != meta.get("checksum"):
        raise _bad_file(path, "checksum mismatch (corrupt or modified)")
    r = verify_int(int(meta["r"]), "r", minimum=1, maximum=MAX_R)
    return ImplicitFrame(r, int(meta["m"]), int(meta["n_columns"]), int(meta["irreducible_poly"]), dtype=dtype), meta
