r"""Layer 3 of :mod:`verify.numeric.frames`: the constructions, each producing one :class:`Frame`
description (or, for the certificates and the implicit operator, its sign rows).

* ``bch`` - the paper's Lemma A.4 frame (``d = 2^r``; the columns are characters of the odd polynomials
  :math:`\sum_{j<m} a_j x^{2j+1}`, i.e. the dual of the BCH code) and its general-d variant (2m coefficients,
  the first :math:`d^m` columns, zero rows appended);
* ``kerdock`` / ``dg`` - binary Kerdock and Delsarte-Goethals frames (below);
* :func:`random_frame` - random Gaussian / sign frames (the baseline the paper compares with).

Frames beyond Lemma A.4: binary Kerdock and Delsarte-Goethals frames, certified exactly.

Both live on :math:`V = \mathbb F_{2^{m'}} \times \mathbb F_2` (:math:`d = 2^r`, :math:`r = m'+1` even,
:math:`m'` odd, :math:`t = (m'-1)/2`); a point :math:`v` is the integer ``x | (eps << m')`` with
:math:`x \in \mathbb F_{2^{m'}}` in galois' integer representation. The Kerdock quadratic forms
(the Gray image of the :math:`\mathbb Z_4` Kerdock code; MacWilliams & Sloane ch. 15 §5,
Hammons-Kumar-Calderbank-Sloane-Solé 1994) are

.. math:: K_u(x, \varepsilon) = \sum_{k=1}^{t} \operatorname{tr}\bigl((ux)^{2^k+1}\bigr) + \varepsilon\,\operatorname{tr}(ux),
          \qquad u \in \mathbb F_{2^{m'}},

and DG(r, :math:`\delta`) adds :math:`T_{\mathbf c}(x) = \sum_{j=1}^{\delta} \operatorname{tr}(c_j x^{2^j+1})`,
:math:`1 \le \delta \le t`. Column :math:`(u, \mathbf c, b)` of the frame is
:math:`v \mapsto (-1)^{K_u(v) + T_{\mathbf c}(x) + \langle b, v\rangle}/\sqrt d`, so there are
:math:`2^{(\delta+1)m'} \cdot 2^r = d^{\delta+2}/2^{\delta+1}` columns (Kerdock: :math:`\delta = 0`, :math:`d^2/2`).
Column ``n``: ``b = n & (d-1)``; ``code = n >> r``; ``u = code & (2^{m'}-1)``;
``c_j = (code >> (m' j)) & (2^{m'}-1)``.

How these frames are certified (scaling and Frobenius orbits, WHT or radical dimensions) is in :mod:`.cert_codes`.

>>> F = build_frame(2, 2); F.signs.shape, int(abs(F.signs).min())
((4, 16), 1)
"""

from __future__ import annotations

import math

import numpy as np

from ..._validate import VerifyInputError, verify_choice, verify_int
from .description import MAX_FRAME_BITS, Frame, _check_size, _column_indices, _frame_size
from .field import CHUNK_ELEMENTS, MAX_R, _digits, _poly_int, _sign_bits, field_of, parity_table, trace_form

__all__ = ["CONSTRUCTIONS", "build_frame", "build_general_frame", "general_parameters", "build_frame_reference",
           "random_frame", "code_parameters", "build_code_frame", "code_sign_bits"]

#: constructions of ``verify frame build --construction``; "bch" is the paper's Lemma A.4 frame
CONSTRUCTIONS = ("bch", "kerdock", "dg")
#: forms scanned per chunk (rows of 2^r bits for the WHT, r(r+1)/2 evaluations for ranks)
CHUNK_FORMS = 2 ** 14


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
        bits[:, s:s + codes.size] = _sign_bits(r, codes, m, irreducible_poly=poly).T
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



def random_frame(d: int, n: int, kind: str = "gaussian", seed: int = 0) -> np.ndarray:
    r"""Random frame with ``n`` unit-norm columns in :math:`\mathbb R^d` (``kind`` = ``"gaussian"`` or ``"sign"``,
    i.e. :math:`\pm 1/\sqrt d` entries), seeded. Coherence is expected near :math:`\sqrt{\log N / d}` up to constants.

    >>> V = random_frame(8, 20, "sign", seed=1); np.allclose((V * V).sum(0), 1)
    True
    """
    d = verify_int(d, "d", minimum=1)
    n = verify_int(n, "n", minimum=2)
    verify_choice(kind, "kind", ("gaussian", "sign"))
    rng = np.random.default_rng(verify_int(seed, "seed", minimum=0))
    if kind == "gaussian":
        V = rng.standard_normal((d, n))
        return V / np.linalg.norm(V, axis=0, keepdims=True)
    return rng.choice(np.array([-1.0, 1.0]), size=(d, n)) / math.sqrt(d)



def code_parameters(construction: str, r: int, delta: int | None = None) -> tuple[int, int, int]:
    r"""Validated ``(m', delta, n_columns)`` for a Kerdock (``delta = 0``) or DG(r, delta) frame."""
    verify_choice(construction, "construction", ("kerdock", "dg"))
    r = verify_int(r, "r", minimum=2, maximum=MAX_R)
    if r % 2:
        raise VerifyInputError(f"Argument 'r' must be even for {construction} frames (d = 4^k), not {r}.")
    mp = r - 1
    t = (mp - 1) // 2
    if construction == "kerdock":
        if delta not in (None, 0):
            raise VerifyInputError(f"Argument 'delta' must be 0 (or omitted) for kerdock frames, not {delta!r}.")
        delta = 0
    else:
        if t < 1:
            raise VerifyInputError(f"Argument 'r' must be >= 4 for dg frames (1 <= delta <= (r-2)/2), not {r}.")
        delta = verify_int(1 if delta is None else delta, "delta", minimum=1, maximum=t)
    return mp, delta, 2 ** ((delta + 1) * mp + r)


def _tables(mp: int, delta: int, pts: np.ndarray, poly: int | None):
    """``(K, T)``: K[u, p] = K_u(pts[p]) and T[j][c, p] = tr(c x^(2^(j+1)+1)) as uint8."""
    GF = field_of(mp, poly)
    par, beta = parity_table(mp), trace_form(mp, poly)
    t = (mp - 1) // 2
    x = GF(pts & (2 ** mp - 1))
    eps = (pts >> mp).astype(np.uint8)
    UX = GF(np.arange(2 ** mp))[:, None] * x[None, :]
    one = beta[1]  # tr(y) = <beta(1), y>
    K = np.zeros(UX.shape, dtype=np.uint8)
    for k in range(1, t + 1):
        K ^= par[one & np.asarray(UX ** (2 ** k + 1), dtype=np.int64)]
    K ^= par[one & np.asarray(UX, dtype=np.int64)] * eps[None, :]
    T = [par[beta[:, None] & np.asarray(x ** (2 ** j + 1), dtype=np.int64)[None, :]] for j in range(1, delta + 1)]
    return K, T


def _form_bits(K, T, mp: int, u0: int, codes: np.ndarray) -> np.ndarray:
    """Bits of K_{u0} + K_{u'} + T_c at the table points, for codes = u' + sum_j c_j 2^(m' (j+1))."""
    mask = 2 ** mp - 1
    out = K[u0][None, :] ^ K[codes & mask]
    for j, Tj in enumerate(T):
        out ^= Tj[(codes >> (mp * (j + 1))) & mask]
    return out


def code_sign_bits(construction: str, r: int, columns: np.ndarray, delta: int | None = None,
                   irreducible_poly: int | None = None) -> np.ndarray:
    r"""Sign bits of the given columns at every :math:`v` (uint8, shape ``(len(columns), 2**r)``)."""
    mp, delta, n = code_parameters(construction, r, delta)
    columns = _column_indices(columns, n, "columns")
    v = np.arange(2 ** r, dtype=np.int64)
    K, T = _tables(mp, delta, v, irreducible_poly)
    bits = _form_bits(K, T, mp, 0, columns >> r)
    lin = parity_table(r)[(columns & (2 ** r - 1))[:, None] & v[None, :]]
    return bits ^ lin


def build_code_frame(construction: str, r: int, delta: int | None = None, irreducible_poly: int | None = None) -> Frame:
    r"""The Kerdock / DG(r, delta) frame as a :class:`verify.numeric.frames.Frame` (``m = delta + 1`` coefficients
    in :math:`\mathbb F_{2^{m'}}`; ``irreducible_poly`` is that of :math:`\mathbb F_{2^{m'}}`).

    >>> F = build_code_frame("kerdock", 4); F.signs.shape
    (16, 128)
    """
    mp, delta, n = code_parameters(construction, r, delta)
    if 2 ** r * n > MAX_FRAME_BITS:
        raise VerifyInputError(f"Argument 'r' gives a {2 ** r} x {n} {construction} frame, more than {MAX_FRAME_BITS} "
                               "entries; build it with --implicit (ImplicitCodeFrame: parameters and certificate) or certify it with "
                               "code_certificate (neither materialises it).")
    poly = _poly_int(field_of(mp, irreducible_poly))
    bits = np.empty((2 ** r, n), dtype=np.uint8)
    step = max(1, CHUNK_FORMS * 64 // 2 ** r)
    for s in range(0, n, step):
        cols = np.arange(s, min(n, s + step), dtype=np.int64)
        bits[:, s:s + cols.size] = code_sign_bits(construction, r, cols, delta, poly).T
    signs = 1 - 2 * bits.view(np.int8)
    return Frame(r=r, m=delta + 1, n_rows=2 ** r, n_columns=n, signs=signs, irreducible_poly=poly,
                 m_paper=None, construction=construction, delta=delta)

