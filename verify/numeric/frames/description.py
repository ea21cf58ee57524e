r"""Layer 2 of :mod:`verify.numeric.frames`: the frame description, :class:`Frame` (signs, scale, the
construction's parameters and conventions). The constructions produce one; the certificates, the file
format and the operators read one. Nothing here builds, certifies or writes.

The entry conventions (recorded in every saved file): column ``n`` of the Lemma A.4 frame is the tuple
:math:`a_j = (n \gg rj) \,\&\, (d-1)` (``a_0`` the least significant base-``d`` digit), and
:math:`V[x, n] = \text{scale}\cdot(1 - 2\,\text{bit}[x, n])` for :math:`x < 2^r`, zero rows below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import galois
import numpy as np

from ..._validate import VerifyInputError, verify_float_dtype, verify_int, verify_torch_device
from .field import MAX_R

__all__ = ["MAX_FRAME_BITS", "Frame"]

#: at most this many entries in a materialised frame (1 GiB as int8 in memory, 128 MiB packed on disk)
MAX_FRAME_BITS = 2 ** 30


@dataclass
class Frame:
    r"""A frame :math:`V = \text{scale}\cdot\text{signs}` (zero rows below the :math:`2^r` field rows).

    ``signs``: int8 array of shape ``(2**r, n_columns)`` with entries :math:`\pm 1`; the full matrix has
    ``n_rows`` rows (``n_rows > 2**r`` only for the general-d construction).
    """

    r: int
    m: int                      # number of coefficients a_0..a_{m-1} of the construction
    n_rows: int                 # ambient dimension d (rows of V, zero rows included)
    n_columns: int
    signs: np.ndarray
    irreducible_poly: int
    general: bool = False
    m_paper: int | None = None  # the m of Lemma 4.1 (the construction uses 2 m for general d)
    construction: str = "bch"   # "bch" (Lemma A.4) or "kerdock" / "dg" (.constructions)
    delta: int | None = None    # DG(r, delta) parameter (0 for kerdock)

    @property
    def scale(self) -> float:
        return 1.0 / math.sqrt(2 ** self.r)

    def dense(self) -> np.ndarray:
        """The real matrix V (float64, zero rows included)."""
        V = np.zeros((self.n_rows, self.n_columns))
        V[: 2 ** self.r] = self.signs * self.scale
        return V

    def as_array(self, dtype=np.float64) -> np.ndarray:
        """The real matrix V as a numpy array (``dtype`` float64 or float32; zero rows included)."""
        return self.dense().astype(verify_float_dtype(dtype, "dtype"), copy=False)

    def as_linear_operator(self):
        """V as a :class:`scipy.sparse.linalg.LinearOperator` over the dense array (matvec, rmatvec)."""
        from scipy.sparse.linalg import aslinearoperator

        return aslinearoperator(self.dense())

    def as_torch(self, device=None, dtype=None):
        """V as a dense torch tensor (``device``: e.g. ``"cpu"``, ``"cuda"``; ``dtype`` default float32)."""
        import torch

        device = verify_torch_device(device, "device")
        if dtype is not None and not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
            raise VerifyInputError(f"Argument 'dtype' must be a torch floating dtype (torch.float32, torch.float64) "
                                   f"or None, not {dtype!r}.")
        return torch.as_tensor(self.dense(), dtype=dtype or torch.float32, device=device)

    def metadata(self) -> dict:
        """The description recorded in a file (the file format adds its version, certificate and checksum)."""
        return {
            "r": self.r, "m": self.m, "m_paper": self.m_paper,
            "d": self.n_rows, "field_rows": 2 ** self.r, "n_columns": self.n_columns, "general": self.general,
            "irreducible_poly": self.irreducible_poly,
            "irreducible_poly_str": str(galois.Poly.Int(self.irreducible_poly, field=galois.GF(2))),
            "column_order": "column n <-> (a_0..a_{m-1}), a_j = (n >> (r*j)) & (2^r - 1); a_0 least significant",
            "element_encoding": "galois integer representation (polynomial basis)",
            "entry": "V[x, n] = scale * (1 - 2*bit[x, n]) for x < 2^r, zero rows below",
            "scale": self.scale,
        } if self.construction == "bch" else self._code_metadata()

    def _code_metadata(self) -> dict:
        mp = self.r - 1
        return {
            "construction": self.construction, "delta": self.delta,
            "r": self.r, "m": self.m, "m_paper": None, "d": self.n_rows, "field_rows": 2 ** self.r,
            "n_columns": self.n_columns, "general": False, "irreducible_poly": self.irreducible_poly,
            "irreducible_poly_str": str(galois.Poly.Int(self.irreducible_poly, field=galois.GF(2))),
            "field": f"GF(2^{mp}) x GF(2): row v = x | (eps << {mp})",
            "column_order": (f"column n <-> (u, c_1..c_delta, b): b = n & (2^r - 1), code = n >> r, u = code & "
                             f"(2^{mp} - 1), c_j = (code >> ({mp}*j)) & (2^{mp} - 1)"),
            "element_encoding": "galois integer representation (polynomial basis)",
            "entry": ("V[v, n] = scale * (-1)^(K_u(x, eps) + sum_j tr(c_j x^(2^j+1)) + <b, v>), "
                      "K_u = sum_{k=1}^{t} tr((u x)^(2^k+1)) + eps tr(u x), t = (r-2)/2"),
            "scale": self.scale,
        }


def _check_size(rows: int, cols: int) -> None:
    if rows * cols > MAX_FRAME_BITS:
        raise VerifyInputError(
            f"Argument 'd' gives a {rows} x {cols} frame, more than {MAX_FRAME_BITS} entries; build it with "
            "--implicit (ImplicitFrame / save_implicit: parameters and certificate, applied without storing the "
            "signs) or certify it with certify (neither materialises the frame).")


def _frame_size(r: int, m: int, n_columns: int | None, min_columns: int = 1) -> tuple[int, int, int]:
    r"""Validated ``(r, m, n_columns)``: :math:`1 \le r \le` ``MAX_R``, :math:`m \ge 1`, ``n_columns`` in
    ``[min_columns, 2^{rm}]`` (default all :math:`2^{rm}` columns)."""
    r = verify_int(r, "r", minimum=1, maximum=MAX_R)
    m = verify_int(m, "m", minimum=1)
    total = 2 ** (r * m)
    n = total if n_columns is None else verify_int(n_columns, "n_columns", minimum=min_columns, maximum=total)
    return r, m, n




def _column_indices(idx, n: int, name: str = "idx") -> np.ndarray:
    """``idx`` as a flat int64 array of column indices in ``[0, n)``; the message names the first index outside
    (``[-1, 5]`` with ``n = 4`` blames -1), and refuses floats, booleans and text rather than truncating them
    (an empty float array, what ``np.asarray([])`` gives, is no index at all and is accepted)."""
    arr = np.asarray(idx) if not isinstance(idx, np.ndarray) else idx
    if arr.dtype.kind not in "iu" and not (arr.dtype.kind == "f" and arr.size == 0):
        raise VerifyInputError(f"Argument '{name}' must hold integer column indices in [0, {n}), not "
                               f"{'an array of ' + str(arr.dtype) if arr.size else repr(idx)}.")
    arr = arr.astype(np.int64, copy=False).reshape(-1)
    bad = np.flatnonzero((arr < 0) | (arr >= n))
    if bad.size:
        raise VerifyInputError(f"Argument '{name}' must hold column indices in [0, {n}), not {int(arr[bad[0]])} "
                               f"(at position {int(bad[0])}).")
    return arr
