r"""Layer 1 of :mod:`verify.numeric.frames`: the field :math:`\mathbb F_{2^r}` (galois), its trace, and the
Walsh-Hadamard transforms that turn traces of linear terms into character sums.

* a field element is its galois integer representation (polynomial basis, bit ``i`` = coefficient of
  :math:`\alpha^i`), the field is ``galois.GF(2**r)`` with its default irreducible polynomial;
* :math:`\operatorname{tr}(z) = \sum_{i<r} z^{2^i}` is :math:`\mathbb F_2`-linear, so
  :math:`\operatorname{tr}(c\,x) = \langle \beta(c), x\rangle` (dot product mod 2 of bit vectors) for a linear
  bijection :math:`\beta` (:func:`trace_form`), which makes a coefficient of :math:`x` a WHT index.

Nothing here knows about frames, files or certificates.

>>> fast_trace([0, 1, 2, 3], 2).tolist()
[0, 0, 1, 1]
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import galois
import numpy as np

from ..._validate import (VerifyInputError, _is_int, verify_choice, verify_int, verify_int_array,
                          verify_numeric_array)

__all__ = ["MAX_R", "TABLE_MAX_R", "CHUNK_ELEMENTS", "field_of", "parity_table", "trace_mask", "fast_trace",
           "trace_form", "power_table", "fwht", "wht_rows", "sign_bits"]

#: largest field exponent handled (parity table of 2^r bytes; WHT rows of length 2^r)
MAX_R = 16
#: up to this r, tr(c x^(2j+1)) is tabulated (2^r x 2^r bytes, 16 MiB at r = 12)
TABLE_MAX_R = 12
#: elements per streamed WHT chunk (int16/int32 work arrays of a few MiB stay in cache-friendly sizes)
CHUNK_ELEMENTS = 2 ** 20


@lru_cache(maxsize=None, typed=True)
def field_of(r: int, irreducible_poly: int | None = None):
    r"""``galois.GF(2**r)`` (optionally with a given irreducible polynomial, as an integer bit mask: an integer in
    ``[2^r, 2^(r+1))`` whose polynomial is irreducible; anything else, a float, a bool or text included, is refused).
    The cache is typed: ``11.0`` never reuses the field of ``11``."""
    r = verify_int(r, "r", minimum=1, maximum=MAX_R)
    if irreducible_poly is None:
        return galois.GF(2 ** r)
    ok = _is_int(irreducible_poly) and 2 ** r <= irreducible_poly < 2 ** (r + 1)
    poly = galois.Poly.Int(int(irreducible_poly), field=galois.GF(2)) if ok else None
    if not ok or not poly.is_irreducible():
        shown = int(irreducible_poly) if _is_int(irreducible_poly) else repr(irreducible_poly)
        raise VerifyInputError(
            f"Argument 'irreducible_poly' must be an irreducible polynomial of degree {r} over GF(2), not {shown}.")
    if r == 1:  # GF(2) has a single representation (x and x + 1 give the same arithmetic on {0, 1})
        return galois.GF(2)
    return galois.GF(2 ** r, irreducible_poly=poly)


@lru_cache(maxsize=None)
def parity_table(r: int) -> np.ndarray:
    """``parity[z]`` = popcount(z) mod 2 for ``0 <= z < 2**r`` (uint8)."""
    r = verify_int(r, "r", minimum=1, maximum=MAX_R)
    t = np.zeros(1, dtype=np.uint8)
    for _ in range(r):  # parity(z | 2^k) = parity(z) ^ 1 for z < 2^k
        t = np.concatenate((t, t ^ 1))
    return t


def _poly_int(GF) -> int:
    return int(GF.irreducible_poly)


@lru_cache(maxsize=None, typed=True)
def trace_mask(r: int, irreducible_poly: int | None = None) -> int:
    r"""Bit mask :math:`\tau` with :math:`\operatorname{tr}(z) = \operatorname{popcount}(z \,\&\, \tau) \bmod 2`.

    The trace is :math:`\mathbb F_2`-linear, so it is fixed by its values on the basis
    :math:`\alpha^i`, which galois computes by its own (repeated squaring) ``field_trace``.
    """
    GF = field_of(r, irreducible_poly)
    basis = GF(1 << np.arange(r))
    bits = np.asarray(basis.field_trace(), dtype=np.int64)
    return int(np.sum(bits << np.arange(r)))


def fast_trace(z: Any, r: int, irreducible_poly: int | None = None) -> np.ndarray:
    r""":math:`\operatorname{tr}(z) \in \{0, 1\}` for integer-represented field elements (vectorised, uint8).

    >>> fast_trace([0, 1, 2, 3], 2).tolist()   # GF(4): tr(1) = 1 + 1 = 0
    [0, 0, 1, 1]
    """
    r = verify_int(r, "r", minimum=1, maximum=MAX_R)
    z = verify_int_array(z, "z")
    if z.size and (z.min() < 0 or z.max() >= 2 ** r):
        shown = int(z.min()) if z.min() < 0 else int(z.max())
        raise VerifyInputError(f"Argument 'z' must hold field elements in [0, {2 ** r}), not {shown}.")
    return _fast_trace(z.astype(np.int64, copy=False), r, irreducible_poly)


def _fast_trace(z: np.ndarray, r: int, irreducible_poly: int | None = None) -> np.ndarray:
    """:func:`fast_trace` unchecked (int64 field elements of ``GF(2^r)``, ``r`` checked by the caller)."""
    return parity_table(r)[z & trace_mask(r, irreducible_poly)]


@lru_cache(maxsize=None, typed=True)
def trace_form(r: int, irreducible_poly: int | None = None) -> np.ndarray:
    r""":math:`\beta(c)` for every :math:`c`: the bit mask with :math:`\operatorname{tr}(cx) = \langle\beta(c), x\rangle \bmod 2`.

    Bit ``i`` of :math:`\beta(c)` is :math:`\operatorname{tr}(c\,\alpha^i)`; :math:`\beta` is a linear bijection
    (the trace form is non-degenerate), which makes the coefficient :math:`c_0` a Walsh-Hadamard index.
    """
    GF = field_of(r, irreducible_poly)
    d = 2 ** r
    prods = GF(np.arange(d))[:, None] * GF(1 << np.arange(r))[None, :]
    bits = _fast_trace(np.asarray(prods, dtype=np.int64), r, irreducible_poly).astype(np.int64)
    beta = np.sum(bits << np.arange(r)[None, :], axis=1)
    return beta


@lru_cache(maxsize=None, typed=True)
def power_table(r: int, j: int, irreducible_poly: int | None = None) -> np.ndarray:
    r""":math:`x^{2j+1}` for every :math:`x \in \mathbb F_{2^r}` (int64 integer representation)."""
    GF = field_of(r, irreducible_poly)
    j = verify_int(j, "j", minimum=0)
    return np.asarray(GF(np.arange(2 ** r)) ** (2 * j + 1), dtype=np.int64)


def fwht(a: np.ndarray) -> np.ndarray:
    r"""In-place fast Walsh-Hadamard transform along the last axis (length a power of two):
    :math:`F(u) = \sum_x f(x) (-1)^{\langle u, x\rangle}`. Integer input stays exact.

    >>> fwht(np.array([1, 0, 0, 0])).tolist()
    [1, 1, 1, 1]

    ``a``: a finite real array (integer or float dtype) of any leading shape, transformed in place (a list is
    converted and the new array returned); complex, bool, text, NaN / inf entries are refused.
    """
    a = verify_numeric_array(a, "a", min_ndim=1)
    n = a.shape[-1]
    if n & (n - 1):
        raise VerifyInputError(f"Argument 'a' must have a power-of-two last axis, not length {n}.")
    return _fwht(a)


def _fwht(a: np.ndarray) -> np.ndarray:
    """:func:`fwht` unchecked (a real ndarray whose last axis is a power of two), in place."""
    n = a.shape[-1]
    lead = a.shape[:-1]
    h = 1
    while h < n:
        v = a.reshape(*lead, n // (2 * h), 2, h)
        x, y = v[..., 0, :], v[..., 1, :]
        tmp = x.copy()
        x += y
        np.subtract(tmp, y, out=y)
        h *= 2
    return a


def _digits(codes: np.ndarray, r: int, n_digits: int) -> list:
    mask = (1 << r) - 1
    return [(codes >> (r * j)) & mask for j in range(n_digits)]


def sign_bits(r: int, codes: np.ndarray, n_digits: int, start_digit: int = 0,
              irreducible_poly: int | None = None) -> np.ndarray:
    r"""Bits :math:`\operatorname{tr}(\sum_{j \ge \text{start}} c_j x^{2j+1})` for the given column codes
    (rows of the result) and every :math:`x` (columns), as uint8 of shape ``(len(codes), 2**r)``.

    Uses :math:`\operatorname{tr}(c\,y) = \langle \beta(c), y\rangle`: one AND and a parity lookup per term.
    ``codes``: a 1-D array of non-negative integer codes (int64 range), read as base-:math:`2^r` digits
    :math:`c_0, c_1, \dots` (digits from ``n_digits`` on are not used).
    """
    r = verify_int(r, "r", minimum=1, maximum=MAX_R)
    n_digits = verify_int(n_digits, "n_digits", minimum=0)
    start_digit = verify_int(start_digit, "start_digit", minimum=0)
    codes = verify_int_array(codes, "codes", ndim=1, minimum=0, maximum=2 ** 63 - 1)
    return _sign_bits(r, codes.astype(np.int64, copy=False), n_digits, start_digit, irreducible_poly)


def _sign_bits(r: int, codes: np.ndarray, n_digits: int, start_digit: int = 0,
               irreducible_poly: int | None = None) -> np.ndarray:
    """:func:`sign_bits` unchecked (1-D int64 codes, sizes checked by the caller): the frames' chunk loops call it."""
    digits = _digits(codes, r, n_digits)
    out = np.zeros((codes.size, 2 ** r), dtype=np.uint8)
    for j in range(start_digit, n_digits):
        if r <= TABLE_MAX_R:  # row gathers from a precomputed d x d table: memcpy speed
            out ^= _trace_table(r, j, irreducible_poly)[digits[j]]
        else:
            out ^= parity_table(r)[trace_form(r, irreducible_poly)[digits[j]][:, None]
                                   & power_table(r, j, irreducible_poly)[None, :]]
    return out


@lru_cache(maxsize=16, typed=True)
def _trace_table(r: int, j: int, irreducible_poly: int | None = None) -> np.ndarray:
    r"""``T[c, x]`` = :math:`\operatorname{tr}(c\,x^{2j+1})` as uint8, shape ``(2**r, 2**r)``."""
    beta = trace_form(r, irreducible_poly)
    return parity_table(r)[beta[:, None] & power_table(r, j, irreducible_poly)[None, :]]


# --------------------------------------------------------------------------- exact certificate
def _work_dtype(r: int):
    return np.int16 if r <= 14 else np.int32  # |S| <= 2^r fits int16 for r <= 14


@lru_cache(maxsize=None)
def _hadamard32(r: int) -> np.ndarray:
    from scipy.linalg import hadamard

    return hadamard(2 ** r).astype(np.float32)  # Sylvester order: H[u, x] = (-1)^popcount(u & x)


def wht_rows(bits: np.ndarray, r: int, method: str = "blas") -> np.ndarray:
    r"""WHT of the rows :math:`(-1)^{\text{bits}}` (shape ``(C, 2**r)``), exact integers.

    ``"blas"``: :math:`H_{2^r} = H_{2^{r_1}} \otimes H_{2^{r_2}}`, two small float32 matrix products per row
    (:math:`O(2^r \cdot 2^{r/2})` per row, BLAS speed). Exact: every intermediate is an integer of magnitude
    :math:`\le 2^r \le 2^{16} < 2^{24}`, which float32 represents exactly, so no rounding ever happens.
    ``"butterfly"``: the in-place integer :func:`fwht` (:math:`O(2^r r)`, numpy-bound).
    """
    verify_choice(method, "method", ("blas", "butterfly"))
    r = verify_int(r, "r", minimum=0, maximum=MAX_R)   # r = 0: the length-1 transform
    bits = verify_int_array(bits, "bits", min_ndim=1, minimum=0, maximum=1, allow_bool=True)
    if bits.shape[-1] != 2 ** r:
        raise VerifyInputError(f"Argument 'bits' must have rows of length 2^r = {2 ** r}, not {bits.shape[-1]}.")
    return _wht_rows(bits if bits.itemsize == 1 else bits.astype(np.uint8), r, method)


def _wht_rows(bits: np.ndarray, r: int, method: str = "blas") -> np.ndarray:
    """:func:`wht_rows` unchecked (0/1 bits of a one-byte dtype, rows of length ``2**r``): the chunk loops call it."""
    d = 2 ** r
    if method == "butterfly":
        return _fwht((1 - 2 * bits.view(np.int8)).astype(_work_dtype(r)))
    r1 = r // 2
    Y = (1.0 - 2.0 * bits.astype(np.float32)).reshape(-1, 2 ** r1, 2 ** (r - r1))
    Z = np.matmul(np.matmul(_hadamard32(r1), Y), _hadamard32(r - r1))
    return Z.reshape(-1, d).astype(_work_dtype(r))


