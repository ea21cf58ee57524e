r"""Paper S, Lemma 4.1 / A.4: frames over :math:`\mathbb F_{2^r}` with an exact coherence certificate.

The frame of Lemma A.4 (``d = 2^r``) has rows indexed by :math:`x \in \mathbb F_{2^r}` and columns by
tuples :math:`\mathbf a = (a_0, \dots, a_{m-1}) \in \mathbb F_{2^r}^m`:

.. math:: V_{x;\mathbf a} = \frac{1}{\sqrt d}\,\psi\Bigl(\sum_{j=0}^{m-1} a_j x^{2j+1}\Bigr), \qquad
          \psi(z) = (-1)^{\operatorname{tr}(z)},\quad \operatorname{tr}(z) = \sum_{i<r} z^{2^i}.

Conventions (recorded in every saved file):

* a field element is its galois integer representation (polynomial basis, bit ``i`` = coefficient of
  :math:`\alpha^i`), the field is ``galois.GF(2**r)`` with its default irreducible polynomial;
* column ``n`` is the tuple with :math:`a_j = (n \gg rj) \,\&\, (d-1)` (``a_0`` the least significant
  base-``d`` digit), so that the *first* ``N`` columns of the general-d frame use the low-degree terms.

Exact certificate. :math:`(V^TV)_{\mathbf a \mathbf b} = S(\mathbf a - \mathbf b)/d` with the integer
character sum :math:`S(\mathbf c) = \sum_x \psi(\sum_j c_j x^{2j+1})`, which only depends on the
difference (a digit-wise XOR of column indices). The trace form is non-degenerate, so
:math:`\operatorname{tr}(c_0 x) = \langle \beta(c_0), x\rangle` (dot product mod 2 of bit vectors)
for a linear bijection :math:`\beta`; hence for fixed :math:`(c_1, \dots)` all :math:`d` sums over
:math:`c_0` are one Walsh-Hadamard transform of :math:`x \mapsto \psi(\sum_{j \ge 1} c_j x^{2j+1})`.
Total :math:`O(d^m \log d)` integer operations, streamed in chunks; the Gram matrix is never formed.

>>> cert = certify(3, 2)
>>> (cert.max_abs_sum, cert.n_columns, cert.coherence <= cert.weil_bound)
(4, 64, True)
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
import zipfile
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

import galois
import numpy as np

from .._io import atomic_write, canonical_json
from .._validate import VerifyInputError, verify_array, verify_choice, verify_int

__all__ = [
    "MAX_R", "field_of", "parity_table", "trace_mask", "fast_trace", "trace_form", "power_table",
    "fwht", "wht_rows", "sign_bits", "Frame", "build_frame", "build_general_frame", "general_parameters",
    "build_frame_reference", "character_sums", "Certificate", "certify", "certify_general",
    "welch_bound", "levenstein_bound", "weil_threshold_d", "gram_coherence", "random_frame",
    "save_frame", "load_frame", "certify_frame",
]

#: largest field exponent handled (parity table of 2^r bytes; WHT rows of length 2^r)
MAX_R = 16
#: at most this many entries in a materialised frame (1 GiB as int8 in memory, 128 MiB packed on disk)
MAX_FRAME_BITS = 2 ** 30
#: up to this r, tr(c x^(2j+1)) is tabulated (2^r x 2^r bytes, 16 MiB at r = 12)
TABLE_MAX_R = 12
#: elements per streamed WHT chunk (int16/int32 work arrays of a few MiB stay in cache-friendly sizes)
CHUNK_ELEMENTS = 2 ** 20
#: 2: canonical JSON metadata and digest (version 1 files, whose digest was over non-canonical JSON,
#: still load when their checksum verifies under the old rule)
FORMAT_VERSION = 2


# --------------------------------------------------------------------------- field and fast trace
@lru_cache(maxsize=None)
def field_of(r: int, irreducible_poly: int | None = None):
    r"""``galois.GF(2**r)`` (optionally with a given irreducible polynomial, as an integer bit mask)."""
    r = verify_int(r, "r", minimum=1, maximum=MAX_R)
    if irreducible_poly is None or r == 1:  # GF(2) has a single representation
        return galois.GF(2 ** r)
    poly = galois.Poly.Int(int(irreducible_poly), field=galois.GF(2))
    if poly.degree != r or not poly.is_irreducible():
        raise VerifyInputError(
            f"Argument 'irreducible_poly' must be an irreducible polynomial of degree {r} over GF(2), not {int(irreducible_poly)}.")
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


@lru_cache(maxsize=None)
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
    z = np.asarray(z, dtype=np.int64)
    if z.size and (z.min() < 0 or z.max() >= 2 ** r):
        raise VerifyInputError(f"Argument 'z' must hold field elements in [0, {2 ** r}), not values up to {int(z.max())}.")
    return parity_table(r)[z & trace_mask(r, irreducible_poly)]


@lru_cache(maxsize=None)
def trace_form(r: int, irreducible_poly: int | None = None) -> np.ndarray:
    r""":math:`\beta(c)` for every :math:`c`: the bit mask with :math:`\operatorname{tr}(cx) = \langle\beta(c), x\rangle \bmod 2`.

    Bit ``i`` of :math:`\beta(c)` is :math:`\operatorname{tr}(c\,\alpha^i)`; :math:`\beta` is a linear bijection
    (the trace form is non-degenerate), which makes the coefficient :math:`c_0` a Walsh-Hadamard index.
    """
    GF = field_of(r, irreducible_poly)
    d = 2 ** r
    prods = GF(np.arange(d))[:, None] * GF(1 << np.arange(r))[None, :]
    bits = fast_trace(np.asarray(prods, dtype=np.int64), r, irreducible_poly).astype(np.int64)
    beta = np.sum(bits << np.arange(r)[None, :], axis=1)
    return beta


@lru_cache(maxsize=None)
def power_table(r: int, j: int, irreducible_poly: int | None = None) -> np.ndarray:
    r""":math:`x^{2j+1}` for every :math:`x \in \mathbb F_{2^r}` (int64 integer representation)."""
    GF = field_of(r, irreducible_poly)
    return np.asarray(GF(np.arange(2 ** r)) ** (2 * j + 1), dtype=np.int64)


def fwht(a: np.ndarray) -> np.ndarray:
    r"""In-place fast Walsh-Hadamard transform along the last axis (length a power of two):
    :math:`F(u) = \sum_x f(x) (-1)^{\langle u, x\rangle}`. Integer input stays exact.

    >>> fwht(np.array([1, 0, 0, 0])).tolist()
    [1, 1, 1, 1]
    """
    n = a.shape[-1]
    if n & (n - 1):
        raise VerifyInputError(f"Argument 'a' must have a power-of-two last axis, not length {n}.")
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
    """
    codes = np.asarray(codes, dtype=np.int64)
    digits = _digits(codes, r, n_digits)
    out = np.zeros((codes.size, 2 ** r), dtype=np.uint8)
    for j in range(start_digit, n_digits):
        if r <= TABLE_MAX_R:  # row gathers from a precomputed d x d table: memcpy speed
            out ^= _trace_table(r, j, irreducible_poly)[digits[j]]
        else:
            out ^= parity_table(r)[trace_form(r, irreducible_poly)[digits[j]][:, None]
                                   & power_table(r, j, irreducible_poly)[None, :]]
    return out


@lru_cache(maxsize=16)
def _trace_table(r: int, j: int, irreducible_poly: int | None = None) -> np.ndarray:
    r"""``T[c, x]`` = :math:`\operatorname{tr}(c\,x^{2j+1})` as uint8, shape ``(2**r, 2**r)``."""
    beta = trace_form(r, irreducible_poly)
    return parity_table(r)[beta[:, None] & power_table(r, j, irreducible_poly)[None, :]]


# --------------------------------------------------------------------------- frames
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
    construction: str = "bch"   # "bch" (Lemma A.4) or "kerdock" / "dg" (verify.numeric.frame_codes)
    delta: int | None = None    # DG(r, delta) parameter (0 for kerdock)

    @property
    def scale(self) -> float:
        return 1.0 / math.sqrt(2 ** self.r)

    def dense(self) -> np.ndarray:
        """The real matrix V (float64, zero rows included)."""
        V = np.zeros((self.n_rows, self.n_columns))
        V[: 2 ** self.r] = self.signs * self.scale
        return V

    def metadata(self) -> dict:
        return {
            "format_version": FORMAT_VERSION, "r": self.r, "m": self.m, "m_paper": self.m_paper,
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
            "format_version": FORMAT_VERSION, "construction": self.construction, "delta": self.delta,
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
            f"Argument 'd' gives a {rows} x {cols} frame, more than {MAX_FRAME_BITS} entries; "
            "use certify (which never materialises the frame) instead.")


def _frame_size(r: int, m: int, n_columns: int | None, min_columns: int = 1) -> tuple[int, int, int]:
    r"""Validated ``(r, m, n_columns)``: :math:`1 \le r \le` ``MAX_R``, :math:`m \ge 1`, ``n_columns`` in
    ``[min_columns, 2^{rm}]`` (default all :math:`2^{rm}` columns)."""
    r = verify_int(r, "r", minimum=1, maximum=MAX_R)
    m = verify_int(m, "m", minimum=1)
    total = 2 ** (r * m)
    n = total if n_columns is None else verify_int(n_columns, "n_columns", minimum=min_columns, maximum=total)
    return r, m, n


def build_frame(r: int, m: int, n_columns: int | None = None, irreducible_poly: int | None = None) -> Frame:
    r"""The frame of Lemma A.4 for :math:`d = 2^r` (first ``n_columns`` columns, default all :math:`d^m`).

    >>> F = build_frame(2, 2); F.signs.shape, int(abs(F.signs).min())
    ((4, 16), 1)
    """
    r, m, n_columns = _frame_size(r, m, n_columns)
    _check_size(2 ** r, n_columns)
    poly = _poly_int(field_of(r, irreducible_poly))
    bits = np.empty((2 ** r, n_columns), dtype=np.uint8)
    step = max(1, CHUNK_ELEMENTS // 2 ** r)
    for s in range(0, n_columns, step):
        codes = np.arange(s, min(n_columns, s + step), dtype=np.int64)
        bits[:, s:s + codes.size] = sign_bits(r, codes, m, irreducible_poly=poly).T
    signs = (1 - 2 * bits.view(np.int8))
    return Frame(r=r, m=m, n_rows=2 ** r, n_columns=n_columns, signs=signs, irreducible_poly=poly, m_paper=m)


def general_parameters(d: int, m: int) -> tuple:
    r"""``(r, 2m, d**m)`` for the general-d construction: :math:`2^r \le d < 2^{r+1}`, coefficients
    :math:`a_0..a_{2m-1}`, first :math:`d^m` columns (there are :math:`2^{2rm} \ge d^m` of them)."""
    d = verify_int(d, "d", minimum=2, maximum=2 ** (MAX_R + 1) - 1)
    m = verify_int(m, "m", minimum=1)
    r = d.bit_length() - 1
    if 2 ** (2 * r * m) < d ** m:  # never for d >= 2, kept as the lemma's stated condition
        raise VerifyInputError(f"Argument 'd' must satisfy 2^(2rm) >= d^m, not d={d}.")
    return r, 2 * m, d ** m


def build_general_frame(d: int, m: int) -> Frame:
    r"""The general-d frame of Lemma A.4's last paragraph: the :math:`2^r`-row construction with
    :math:`2m` coefficients, its first :math:`d^m` columns, and :math:`d - 2^r` zero rows appended."""
    r, m2, n = general_parameters(d, m)
    _check_size(d, n)
    F = build_frame(r, m2, n_columns=n)
    return Frame(r=r, m=m2, n_rows=d, n_columns=n, signs=F.signs, irreducible_poly=F.irreducible_poly,
                 general=True, m_paper=m)


def build_frame_reference(r: int, m: int, n_columns: int | None = None) -> np.ndarray:
    r"""Independent slow route (galois arithmetic and galois ``field_trace`` only): the sign matrix
    :math:`\psi(\sum_j a_j x^{2j+1})` as int8, shape ``(2**r, n_columns)``. For cross-checks."""
    r, m, n_columns = _frame_size(r, m, n_columns)
    GF = field_of(r)
    X = GF(np.arange(2 ** r))
    codes = np.arange(n_columns, dtype=np.int64)
    P = GF(np.zeros((n_columns, 2 ** r), dtype=np.int64))
    for j, a_j in enumerate(_digits(codes, r, m)):
        P = P + GF(a_j)[:, None] * (X ** (2 * j + 1))[None, :]
    tr = np.asarray(P.field_trace(), dtype=np.int8)
    return (1 - 2 * tr).T.copy()


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
    d = 2 ** r
    if method == "butterfly":
        return fwht((1 - 2 * bits.view(np.int8)).astype(_work_dtype(r)))
    r1 = r // 2
    Y = (1.0 - 2.0 * bits.astype(np.float32)).reshape(-1, 2 ** r1, 2 ** (r - r1))
    Z = np.matmul(np.matmul(_hadamard32(r1), Y), _hadamard32(r - r1))
    return Z.reshape(-1, d).astype(_work_dtype(r))


def _sum_chunks(r: int, m: int, n_codes: int, irreducible_poly: int | None = None, method: str = "blas"):
    """Yield ``(first_outer, F)``: WHT blocks, ``F[o, u]`` = S(c) with c_0 = beta^{-1}(u)."""
    d = 2 ** r
    n_outer = n_codes // d
    step = max(1, CHUNK_ELEMENTS // d)
    for s in range(0, n_outer, step):
        outer = np.arange(s, min(n_outer, s + step), dtype=np.int64)
        bits = sign_bits(r, outer << r, m, start_digit=1, irreducible_poly=irreducible_poly)
        yield s, wht_rows(bits, r, method)


def _check_codes(r: int, m: int, n_codes: int | None) -> int:
    total = 2 ** (r * m)
    if n_codes is None:
        return total
    n_codes = verify_int(n_codes, "n_codes", minimum=2 ** r, maximum=total)
    if n_codes % 2 ** r:
        raise VerifyInputError(f"Argument 'n_codes' must be a multiple of 2^r = {2 ** r}, not {n_codes}.")
    return n_codes


def character_sums(r: int, m: int, n_codes: int | None = None, irreducible_poly: int | None = None) -> np.ndarray:
    r"""All sums :math:`S(\mathbf c) = \sum_{x} \psi(\sum_j c_j x^{2j+1})` for codes ``0 <= c < n_codes``
    (code = :math:`\sum_j c_j 2^{rj}`), exact integers (int64), by the WHT.

    >>> character_sums(2, 1).tolist()   # S(0) = 4, S(c) = 0 for c != 0 (orthogonal characters)
    [4, 0, 0, 0]
    """
    r = verify_int(r, "r", minimum=1, maximum=MAX_R)
    m = verify_int(m, "m", minimum=1)
    n_codes = _check_codes(r, m, n_codes)
    d = 2 ** r
    beta = trace_form(r, irreducible_poly)
    out = np.empty(n_codes, dtype=np.int64)
    for s, F in _sum_chunks(r, m, n_codes, irreducible_poly):
        out[s * d:(s + F.shape[0]) * d] = F[:, beta].reshape(-1)
    return out


def welch_bound(d: int, n: int) -> float:
    r"""Welch bound :math:`\sqrt{(N-d)/(d(N-1))}` on the coherence of N unit vectors in :math:`\mathbb R^d`."""
    d, n = verify_int(d, "d", minimum=1), verify_int(n, "n", minimum=1)
    return math.sqrt((n - d) / (d * (n - 1))) if n > d else 0.0


def levenstein_bound(d: int, n: int) -> float | None:
    r"""Levenstein bound :math:`\sqrt{(3N - d^2 - 2d)/((d+2)(N-d))}` for real frames, valid (and tighter
    than Welch) when :math:`N > d(d+1)/2`; ``None`` otherwise."""
    d, n = verify_int(d, "d", minimum=1), verify_int(n, "n", minimum=1)
    if n <= d * (d + 1) // 2:
        return None
    return math.sqrt((3 * n - d * d - 2 * d) / ((d + 2) * (n - d)))


def weil_threshold_d(m: int, general: bool = False) -> int:
    r"""Smallest :math:`d` from which the Weil bound gives coherence :math:`< 1`: for :math:`d = 2^r`,
    :math:`(2m-2)/\sqrt{2^r} < 1`; for general d (2m coefficients), :math:`(4m-2)/\sqrt{2^r} < 1`."""
    m = verify_int(m, "m", minimum=1)
    c = 4 * m - 2 if general else 2 * m - 2
    r = 1
    while (2 ** r) <= c * c:  # (c / sqrt(2^r) < 1) <=> 2^r > c^2, exact in integers
        r += 1
    return 2 ** r


class CertificateRecord:
    """``as_dict`` and the deterministic ``evidence`` (no timing, no bulky fields) shared by the certificates."""

    _NOT_EVIDENCE: tuple = ("seconds",)

    def as_dict(self) -> dict:
        return asdict(self)

    def evidence(self) -> dict:
        """The deterministic part (no timing) for verdict evidence."""
        return {k: v for k, v in self.as_dict().items() if k not in self._NOT_EVIDENCE}


@dataclass
class Certificate(CertificateRecord):
    """Exact coherence certificate of a GF(2^r) frame (``max_abs_sum`` is an exact integer)."""

    r: int
    m: int
    d: int
    n_columns: int
    max_abs_sum: int
    coherence: float
    coherence_exact: str
    weil_bound: float
    welch_bound: float
    levenstein_bound: float | None
    ratio_to_weil: float | None
    ratio_to_welch: float | None
    ratio_to_levenstein: float | None
    weil_below_one_from_d: int
    below_one: bool
    general: bool
    m_paper: int
    histogram: dict = field(default_factory=dict)  # |S| value -> count over nonzero differences
    seconds: float = 0.0
    _NOT_EVIDENCE = ("seconds", "histogram")


def _ratio(a: float, b: float | None) -> float | None:
    return None if not b else a / b


def _certify_chunk(task: tuple) -> np.ndarray:
    """Histogram of |S| over the outer codes ``s <= o < e`` (module level: Dask workers import it)."""
    r, m, s, e, poly, method = task
    outer = np.arange(s, e, dtype=np.int64)
    F = wht_rows(sign_bits(r, outer << r, m, start_digit=1, irreducible_poly=poly), r, method)
    if s == 0:
        F[0, 0] = 0  # c = 0: the diagonal, excluded (counted back out by the caller)
    return np.bincount(np.abs(F).reshape(-1), minlength=2 ** r + 1)


def certify(r: int, m: int, n_columns: int | None = None, irreducible_poly: int | None = None,
            general_d: int | None = None, m_paper: int | None = None, method: str = "blas",
            client=None) -> Certificate:
    r"""Exact coherence :math:`\max_{\mathbf a \ne \mathbf b} |(V^TV)_{\mathbf a\mathbf b}|` of the first
    ``n_columns`` columns (default all :math:`2^{rm}`) of the Lemma A.4 frame, without forming V or the Gram.

    The differences of column indices :math:`< N` (digit-wise XOR) are exactly the codes
    :math:`< 2^L` with :math:`L` the bit length of :math:`N-1`, so the certificate scans those codes.
    The Weil bound reported is the lemma's :math:`(2m-2)/\sqrt{2^r}` for the construction's m.
    ``method``: see :func:`wht_rows` (both exact; ``"blas"`` is faster). ``client``: a
    :class:`dask.distributed.Client` (:func:`verify.distributed.get_client`): the streamed chunks run as
    independent Dask tasks and their histograms are added in chunk order (same result, bit for bit).
    """
    t0 = time.perf_counter()
    r, m, n = _frame_size(r, m, n_columns, min_columns=2)
    n_codes = max(2 ** r, 1 << (n - 1).bit_length())
    hist = np.zeros(2 ** r + 1, dtype=np.int64)
    if client is not None:
        from ..distributed import map_ordered

        verify_choice(method, "method", ("blas", "butterfly"))
        n_outer, step = n_codes // 2 ** r, max(1, CHUNK_ELEMENTS // 2 ** r)
        poly = _poly_int(field_of(r, irreducible_poly))
        tasks = [(r, m, s, min(n_outer, s + step), poly, method) for s in range(0, n_outer, step)]
        for part in map_ordered(client, _certify_chunk, tasks, desc=f"WHT r={r} m={m}"):
            hist += part
        hist[0] -= 1  # the diagonal entry zeroed in the first chunk
    for s, F in (() if client is not None else _sum_chunks(r, m, n_codes, irreducible_poly, method)):
        if s == 0:
            F[0, 0] = 0  # c = 0: the diagonal (V^T V)_aa = 1, excluded (code 0 <-> WHT index beta(0) = 0)
            hist[0] -= 1
        hist += np.bincount(np.abs(F).reshape(-1), minlength=2 ** r + 1)
    nz = np.nonzero(hist)[0]
    max_abs = int(nz.max()) if nz.size else 0
    dq = 2 ** r
    D = general_d if general_d is not None else dq
    coh = Fraction(max_abs, dq)
    weil = (2 * m - 2) / math.sqrt(dq)
    welch, lev = welch_bound(D, n), levenstein_bound(D, n)
    m_lem = m_paper if m_paper is not None else m
    return Certificate(
        r=r, m=m, d=D, n_columns=n, max_abs_sum=max_abs, coherence=float(coh), coherence_exact=str(coh),
        weil_bound=weil, welch_bound=welch, levenstein_bound=lev, ratio_to_weil=_ratio(float(coh), weil),
        ratio_to_welch=_ratio(float(coh), welch), ratio_to_levenstein=_ratio(float(coh), lev),
        weil_below_one_from_d=weil_threshold_d(m_lem, general=general_d is not None),
        below_one=coh < 1, general=general_d is not None, m_paper=m_lem,
        histogram={int(v): int(hist[v]) for v in nz}, seconds=time.perf_counter() - t0)


def certify_general(d: int, m: int) -> Certificate:
    r"""Certificate of the general-d frame (2m coefficients, first :math:`d^m` columns, zero rows)."""
    r, m2, n = general_parameters(d, m)
    return certify(r, m2, n_columns=n, general_d=d, m_paper=m)


# --------------------------------------------------------------------------- brute force and random frames
def gram_coherence(V: np.ndarray, chunk: int = 2048, exact_int: bool = False, dtype=np.float64) -> float:
    r""":math:`\max_{i \ne j} |(V^TV)_{ij}|` by blocks of the Gram matrix (the naive O(N^2 d) baseline).

    With ``exact_int`` the input is an integer sign matrix and the result the exact integer maximum
    (float64 products of small integers are exact below :math:`2^{53}`). ``dtype=np.float32`` halves the
    time; it is exact for sign matrices with :math:`d < 2^{24}` and accurate to ~1e-6 for unit columns.
    """
    V = verify_array(V, "V", ndim=2, dtype=None)
    chunk = verify_int(chunk, "chunk", minimum=1)
    X = V.astype(np.float64 if exact_int else dtype)
    n = X.shape[1]
    best = 0.0
    for s in range(0, n, chunk):
        G = X[:, s:s + chunk].T @ X
        idx = np.arange(G.shape[0])
        G[idx, s + idx] = 0.0
        best = max(best, float(np.abs(G).max()))
    return int(round(best)) if exact_int else best


def random_frame(d: int, n: int, kind: str = "gaussian", seed: int = 0) -> np.ndarray:
    r"""Random frame with ``n`` unit-norm columns in :math:`\mathbb R^d` (``kind`` = ``"gaussian"`` or ``"sign"``,
    i.e. :math:`\pm 1/\sqrt d` entries), seeded. Coherence is expected near :math:`\sqrt{\log N / d}` up to constants.

    >>> V = random_frame(8, 20, "sign", seed=1); np.allclose((V * V).sum(0), 1)
    True
    """
    d = verify_int(d, "d", minimum=1)
    n = verify_int(n, "n", minimum=2)
    verify_choice(kind, "kind", ("gaussian", "sign"))
    rng = np.random.default_rng(seed)
    if kind == "gaussian":
        V = rng.standard_normal((d, n))
        return V / np.linalg.norm(V, axis=0, keepdims=True)
    return rng.choice(np.array([-1.0, 1.0]), size=(d, n)) / math.sqrt(d)


# --------------------------------------------------------------------------- persistence
def _digest(bits: np.ndarray, meta: dict) -> str:
    """sha256 over the canonical JSON of the metadata (without the checksum) and the packed bits.

    The canonical text (:func:`verify._io.canonical_json`) is the same before saving and after loading,
    so integer histogram keys, which come back from JSON as strings, digest alike."""
    h = hashlib.sha256()
    h.update(canonical_json({k: v for k, v in meta.items() if k != "checksum"}).encode())
    h.update(np.ascontiguousarray(bits).tobytes())
    return h.hexdigest()


def _legacy_digest(bits: np.ndarray, meta: dict) -> str:
    """The digest of format version 1 (verify 0.1.0): ``json.dumps(meta, sort_keys=True)`` taken while the
    certificate's histogram keys were still ints. Restoring int keys reproduces that text exactly."""
    meta = {k: v for k, v in meta.items() if k != "checksum"}
    cert = meta.get("certificate")
    if isinstance(cert, dict) and isinstance(cert.get("histogram"), dict):
        try:
            hist = {int(k): v for k, v in cert["histogram"].items()}
        except ValueError:
            hist = cert["histogram"]
        meta["certificate"] = {**cert, "histogram": hist}
    h = hashlib.sha256()
    h.update(json.dumps(meta, sort_keys=True).encode())
    h.update(np.ascontiguousarray(bits).tobytes())
    return h.hexdigest()


def save_frame(frame: Frame, path: str | os.PathLike, certificate: Certificate | None = None,
               user: dict | None = None) -> dict:
    r"""Write ``frame`` to ``path`` (``.npz``, loadable with plain ``numpy.load``), atomically:

    * ``bits``: uint8, ``numpy.packbits`` of the sign bits along axis 1 (shape ``(2**r, ceil(N/8))``),
      entry = scale * (1 - 2 * bit), zero rows below row ``2**r`` up to ``d``;
    * ``scale``: float64; ``shape``: int64 ``[d, N]``; ``meta``: canonical JSON string (r, m, polynomial,
      column order, certificate, package version, sha256 checksum of bits and metadata).

    ``user``: the caller's own JSON metadata (stored under ``meta["user"]``, covered by the checksum).
    Returns the metadata as :func:`load_frame` will return it (string keys throughout).
    """
    from .. import __version__ as pkg_version

    bits = np.packbits((frame.signs < 0).view(np.uint8), axis=1)
    meta = frame.metadata()
    meta["package_version"] = pkg_version
    if certificate is not None:
        # no timing in the file: the same build must give the same bytes
        meta["certificate"] = {k: v for k, v in certificate.as_dict().items() if k != "seconds"}
    if user is not None:
        meta["user"] = user
    meta = json.loads(canonical_json(meta))
    meta["checksum"] = _digest(bits, meta)
    with atomic_write(path) as fh:
        np.savez(fh, bits=bits, scale=np.float64(frame.scale), shape=np.array([frame.n_rows, frame.n_columns], dtype=np.int64),
                 meta=np.array(canonical_json(meta)))
    return meta


def _bad_file(path, why: str) -> VerifyInputError:
    return VerifyInputError(f"Argument 'path' must be a frame file written by 'verify frame build'; {path}: {why}.")


def load_frame(path: str | os.PathLike) -> tuple:
    """Read a frame file; returns ``(Frame, meta)``. Refuses files whose checksum or shape is wrong."""
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in ("bits", "scale", "shape", "meta")}
    except KeyError as exc:
        from .frame_operator import is_implicit_file

        if is_implicit_file(path):
            raise _bad_file(path, "parameters only (--implicit); open it with "
                                  "verify.numeric.frame_operator.load_implicit") from None
        raise _bad_file(path, f"missing array {exc}") from None
    except (ValueError, EOFError, OSError, zipfile.BadZipFile) as exc:  # a truncated file is a bad zip
        if isinstance(exc, FileNotFoundError):
            raise
        raise _bad_file(path, f"not a readable .npz ({type(exc).__name__})") from None
    try:
        meta = json.loads(str(arrays["meta"]))
        r, m, D, N = (int(meta[k]) for k in ("r", "m", "d", "n_columns"))
        poly = int(meta["irreducible_poly"])
    except (ValueError, KeyError, TypeError):
        raise _bad_file(path, "metadata unreadable") from None
    bits = arrays["bits"]
    if not isinstance(meta, dict) or _digest(bits, meta) != meta.get("checksum"):
        legacy = isinstance(meta, dict) and meta.get("format_version") == 1
        if not (legacy and _legacy_digest(bits, meta) == meta.get("checksum")):
            hint = (" - if it was written by verify 0.1.0, rebuild it with 'verify frame build' "
                    f"--d {meta.get('d')} --m {meta.get('m_paper') or meta.get('m')}"
                    + (" --general" if meta.get("general") else "") if legacy else "")
            raise _bad_file(path, "checksum mismatch (corrupt or modified)" + hint)
    want = (2 ** r, (N + 7) // 8)
    if bits.dtype != np.uint8 or bits.shape != want or list(arrays["shape"]) != [D, N] or D < 2 ** r:
        raise _bad_file(path, f"wrong shape: bits {bits.shape}, shape {list(arrays['shape'])}, expected bits {want}")
    if not math.isclose(float(arrays["scale"]), 1 / math.sqrt(2 ** r), rel_tol=1e-15):
        raise _bad_file(path, "wrong scale")
    signs = 1 - 2 * np.unpackbits(bits, axis=1, count=N).view(np.int8)
    frame = Frame(r=r, m=m, n_rows=D, n_columns=N, signs=signs, irreducible_poly=poly,
                  general=bool(meta.get("general")), m_paper=meta.get("m_paper"),
                  construction=meta.get("construction", "bch"), delta=meta.get("delta"))
    return frame, meta


def certify_frame(frame: Frame) -> Certificate:
    r"""Certify a frame read from a file: first check that its signs are those of the construction
    (r, m, polynomial recorded in it), then run the exact WHT certificate. Kerdock / DG frames
    (:mod:`verify.numeric.frame_codes`) are compared with their construction and certified by
    :func:`~verify.numeric.frame_codes.code_certificate` (WHT method)."""
    if frame.construction != "bch":
        from .frame_codes import build_code_frame, code_certificate

        expect = build_code_frame(frame.construction, frame.r, frame.delta or None,
                                  irreducible_poly=frame.irreducible_poly)
        if expect.signs.shape != frame.signs.shape or not np.array_equal(expect.signs, frame.signs):
            raise VerifyInputError(f"Argument 'frame' must hold the {frame.construction} construction; signs differ.")
        return code_certificate(frame.construction, frame.r, frame.delta or None, method="wht",
                                irreducible_poly=frame.irreducible_poly)
    expect = build_frame(frame.r, frame.m, n_columns=frame.n_columns, irreducible_poly=frame.irreducible_poly)
    if not np.array_equal(expect.signs, frame.signs):
        bad = int(np.count_nonzero(expect.signs != frame.signs))
        raise VerifyInputError(f"Argument 'frame' must hold the Lemma A.4 construction; {bad} signs differ.")
    gd = frame.n_rows if frame.general else None
    return certify(frame.r, frame.m, n_columns=frame.n_columns, irreducible_poly=frame.irreducible_poly,
                   general_d=gd, m_paper=frame.m_paper)
