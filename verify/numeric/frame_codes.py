r"""Frames beyond Lemma A.4: binary Kerdock and Delsarte-Goethals frames, certified exactly.

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

Certificate. The Gram entry of two columns is :math:`S/d` with
:math:`S = \sum_v (-1)^{K_u + K_{u'} + T_{\mathbf c \oplus \mathbf c'} + \langle b \oplus b', v\rangle}`.
Substituting :math:`x \to \lambda x` maps :math:`K_u \mapsto K_{\lambda u}` and
:math:`T_{\mathbf c} \mapsto T_{(\lambda^{2^j+1} c_j)}`, so every ordered pair :math:`(u, u')` with
:math:`u \ne 0` has the sums of :math:`(1, u'/u)`: the exact histogram needs only the forms
:math:`K_0 + K_{u'} + T_{\mathbf c}` (weight 1) and :math:`K_1 + K_{u'} + T_{\mathbf c}` (weight
:math:`2^{m'}-1`), all :math:`u', \mathbf c`. Each is scanned either by one WHT over :math:`b \oplus b'`
(``method="wht"``, the machinery of :func:`verify.numeric.frames.certify`) or by the radical dimension of
its alternating form (``method="rank"``, :mod:`verify.numeric.quadratic_certificate`): the two must agree.

>>> c = code_certificate("kerdock", 6)
>>> c.n_columns, c.coherence_exact
(2048, '1/8')
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from fractions import Fraction

import numpy as np

from .._validate import VerifyInputError, verify_choice, verify_int
from .frames import (MAX_FRAME_BITS, MAX_R, CertificateRecord, Frame, _poly_int, field_of, levenstein_bound,
                     parity_table, trace_form, wht_rows, welch_bound)
from .quadratic_certificate import alternating_rows, evaluation_points, gf2_rank, sums_from_radicals

__all__ = ["CONSTRUCTIONS", "code_parameters", "build_code_frame", "code_sign_bits", "CodeCertificate",
           "code_certificate", "frame_table", "TableRow"]

#: constructions of ``verify frame build --construction``; "bch" is the paper's Lemma A.4 frame
CONSTRUCTIONS = ("bch", "kerdock", "dg")
#: forms scanned per chunk (rows of 2^r bits for the WHT, r(r+1)/2 evaluations for ranks)
CHUNK_FORMS = 2 ** 14


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
    columns = np.asarray(columns, dtype=np.int64)
    if columns.size and (columns.min() < 0 or columns.max() >= n):
        raise VerifyInputError(f"Argument 'columns' must hold column indices in [0, {n}), not up to {int(columns.max())}.")
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
                               "entries; use code_certificate (which never materialises it) instead.")
    poly = _poly_int(field_of(mp, irreducible_poly))
    bits = np.empty((2 ** r, n), dtype=np.uint8)
    step = max(1, CHUNK_FORMS * 64 // 2 ** r)
    for s in range(0, n, step):
        cols = np.arange(s, min(n, s + step), dtype=np.int64)
        bits[:, s:s + cols.size] = code_sign_bits(construction, r, cols, delta, poly).T
    signs = 1 - 2 * bits.view(np.int8)
    return Frame(r=r, m=delta + 1, n_rows=2 ** r, n_columns=n, signs=signs, irreducible_poly=poly,
                 m_paper=None, construction=construction, delta=delta)


@dataclass
class CodeCertificate(CertificateRecord):
    """Exact coherence certificate of a Kerdock / DG frame (``max_abs_sum`` an exact integer, in units 1/d)."""

    construction: str
    r: int
    d: int
    delta: int
    n_columns: int
    include_identity: bool
    max_abs_sum: int
    coherence: float
    coherence_exact: str
    design_coherence: str           # 2^delta / sqrt(d), what the construction promises
    welch_bound: float
    levenstein_bound: float | None
    ratio_to_welch: float | None
    ratio_to_levenstein: float | None
    method: str
    radical_dims: dict = field(default_factory=dict)  # w -> weighted number of difference forms (rank method)
    histogram: dict = field(default_factory=dict)     # |S| -> count over ordered (u, u', c xor c', b xor b') != 0
    forms_scanned: int = 0
    seconds: float = 0.0


def code_certificate(construction: str, r: int, delta: int | None = None, method: str = "rank",
                     include_identity: bool = False, irreducible_poly: int | None = None,
                     progress: bool = False) -> CodeCertificate:
    r"""Exact coherence and histogram of the Kerdock / DG(r, delta) frame (never materialised).

    ``include_identity``: append the standard basis (d more columns; its inner products with every code
    column are exactly :math:`\pm 1/\sqrt d`, i.e. :math:`|S| = 2^{r/2}`, and 0 among themselves).
    """
    t0 = time.perf_counter()
    mp, delta, n = code_parameters(construction, r, delta)
    verify_choice(method, "method", ("rank", "wht"))
    d = 2 ** r
    n_codes = 2 ** ((delta + 1) * mp)  # u' and c_1..c_delta
    pts = evaluation_points(r)[0] if method == "rank" else np.arange(d, dtype=np.int64)
    K, T = _tables(mp, delta, pts, irreducible_poly)
    counts: dict[int, int] = {}
    hist = np.zeros(d + 1, dtype=np.int64)
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover
        tqdm = None
    steps = [(u0, s) for u0 in (0, 1) for s in range(0, n_codes, CHUNK_FORMS)]
    if progress and tqdm:
        steps = tqdm(steps, desc=f"{construction} r={r}", leave=False)
    for u0, s in steps:
        weight = 1 if u0 == 0 else 2 ** mp - 1  # orbit size of the pair (u, u') under x -> lambda x
        codes = np.arange(s, min(n_codes, s + CHUNK_FORMS), dtype=np.int64)
        bits = _form_bits(K, T, mp, u0, codes)
        if method == "rank":
            ws = r - gf2_rank(alternating_rows(bits, r))
            for w, c in zip(*np.unique(ws, return_counts=True)):
                counts[int(w)] = counts.get(int(w), 0) + int(c) * weight
        else:
            hist += weight * np.bincount(np.abs(wht_rows(bits, r)).reshape(-1), minlength=d + 1)
    if method == "rank":
        h, _ = sums_from_radicals(r, counts, exclude_zero_code=False)
        for k, v in h.items():
            hist[k] += v
    hist[d] -= 2 ** mp  # the pairs u = u', c = c', b = b' (the diagonal): S = d
    if include_identity:
        n += d
    nz = np.nonzero(hist)[0]
    max_abs = int(max((k for k in nz if k), default=0))
    if include_identity:
        max_abs = max(max_abs, 2 ** (r // 2))
    coh = Fraction(max_abs, d)
    welch, lev = welch_bound(d, n), levenstein_bound(d, n)
    return CodeCertificate(
        construction=construction, r=r, d=d, delta=delta, n_columns=n, include_identity=include_identity,
        max_abs_sum=max_abs, coherence=float(coh), coherence_exact=str(coh),
        design_coherence=f"2^{delta}/sqrt({d})", welch_bound=welch, levenstein_bound=lev,
        ratio_to_welch=float(coh) / welch if welch else None, ratio_to_levenstein=float(coh) / lev if lev else None,
        method=method, radical_dims=dict(sorted(counts.items())), histogram={int(k): int(hist[k]) for k in nz},
        forms_scanned=2 * n_codes, seconds=time.perf_counter() - t0)


@dataclass
class TableRow:
    construction: str
    parameter: str
    n_columns: int
    max_abs_sum: int | None
    coherence: float | None
    coherence_exact: str | None
    welch_bound: float
    levenstein_bound: float | None
    ratio_to_welch: float | None
    ratio_to_levenstein: float | None
    note: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


#: ``frame_table`` certifies a construction only if it needs at most this many rank computations
TABLE_MAX_FORMS = 2 ** 22


def frame_table(d: int, max_forms: int = TABLE_MAX_FORMS) -> list:
    r"""Every construction available at :math:`d = 2^r`: its n, certified coherence, Welch and Levenstein
    bounds and ratios. BCH rows (Lemma A.4, m = 1..3) use :func:`quadratic_certificate`; Kerdock (with the
    standard basis) and DG(r, delta) rows use :func:`code_certificate` (rank method). Rows that would need
    more than ``max_forms`` ranks are listed with their n and ``None`` coherence.

    >>> [(row.construction, row.n_columns, row.coherence_exact) for row in frame_table(16)][:3]
    [('bch', 16, '0'), ('bch', 256, '1/2'), ('bch', 4096, '1')]
    """
    from .quadratic_certificate import quadratic_certificate

    d = verify_int(d, "d", minimum=2)
    if d & (d - 1) or d.bit_length() - 1 > MAX_R:
        raise VerifyInputError(f"Argument 'd' must be a power of two 2^r with 1 <= r <= {MAX_R}, not {d}.")
    max_forms = verify_int(max_forms, "max_forms", minimum=1)
    r = d.bit_length() - 1
    rows = []

    def add(cons, param, n, cert, note=""):
        welch, lev = welch_bound(d, n), levenstein_bound(d, n)
        if cert is None:
            rows.append(TableRow(cons, param, n, None, None, None, welch, lev, None, None, note or "not certified"))
            return
        coh = cert.coherence
        rows.append(TableRow(cons, param, n, cert.max_abs_sum, coh, cert.coherence_exact, welch, lev,
                             coh / welch if welch else None, coh / lev if lev else None, note))

    for m in (1, 2, 3):
        add("bch", f"m={m}", d ** m, quadratic_certificate(r, m), "Lemma A.4 (paper)")
    if r % 2 == 0:
        mp = r - 1
        t = (mp - 1) // 2
        for delta in range(0, t + 1):
            cons = "kerdock" if delta == 0 else "dg"
            n = 2 ** ((delta + 1) * mp + r) + (d if delta == 0 else 0)
            forms = 2 * 2 ** ((delta + 1) * mp)
            cert = (code_certificate(cons, r, delta if delta else None, include_identity=delta == 0)
                    if forms <= max_forms else None)
            add(cons, f"delta={delta}", n, cert, "with the standard basis" if delta == 0 else "")
    return rows

