r"""Top layer of :mod:`verify.numeric.frames`: the catalogue. Which certified frame to use for a size, and how
far it is from optimal: every construction at d with its exact coherence next to the best exactly certified
lower bound for its (d, N) (:func:`frame_table`), and the lowest-coherence certified frame with at least N
columns (:func:`best_frame`). Also :func:`certify_frame` (a frame read from a file against its construction).

Rows and candidates: ``bch`` (the paper's Lemma A.4 frame, m = 1, 2, 3, certified by GF(2) ranks; for
:func:`best_frame` also its first N columns, certified by the WHT), ``kerdock`` (with the standard basis,
:math:`d^2/2 + d` columns at :math:`1/\sqrt d`) and ``dg`` (DG(r, delta), :math:`d^{\delta+2}/2^{\delta+1}` columns at
:math:`2^\delta/\sqrt d`, certified by ranks with the Frobenius reduction; a row whose scan would exceed the budget
is listed with its design coherence and marked not certified). A sub-frame (the first N columns) of a certified
code frame has coherence at most the frame's: :func:`best_frame` reports it as an upper bound (``exact=False``).

>>> rows = frame_table(16, lp=False)
>>> [(row.construction, row.n_columns, row.coherence_exact) for row in rows][:3]
[('bch', 16, '0'), ('bch', 256, '1/2'), ('bch', 4096, '1')]
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from fractions import Fraction

import numpy as np

from ..._validate import VerifyInputError, verify_int
from .bounds import best_lower_bound, levenstein_bound, weil_threshold_d, welch_bound
from .cert_codes import code_certificate
from .cert_rank import quadratic_certificate
from .cert_wht import Certificate, certify
from .constructions import build_code_frame, build_frame, code_parameters
from .description import Frame
from .field import MAX_R

__all__ = ["certify_frame", "coherence_one_reason", "TableRow", "frame_table", "BestFrame", "best_frame", "code_scan_size",
           "TABLE_MAX_FORMS", "LP_MAX_N"]

#: ``frame_table`` / ``best_frame`` certify a code construction only if its scan ranks at most this many forms
TABLE_MAX_FORMS = 2 ** 20
#: ``best_frame`` scans the first N columns of a bch frame by the WHT only up to this many codes (seconds)
BEST_MAX_CODES = 2 ** 26
#: the LP bound is solved for N <= 2^53 (the float LP's f(1) ~ N must be representable); above, Welch/Levenstein
LP_MAX_N = 2 ** 53


def code_scan_size(r: int, delta: int) -> int:
    r"""Forms ranked by :func:`~.cert_codes.code_certificate` with the symmetry reductions, exactly (its
    ``forms_scanned``): one form per orbit of the Frobenius map (order :math:`m' = r - 1`) on the pairs
    :math:`(u', \mathbf c)`, :math:`u' \in \{0, 1\}` (:math:`u_0 = 0`), and :math:`(u, \mathbf c)`,
    :math:`u \in \mathbb F_{2^{m'}}` (:math:`u_0 = 1`): :math:`2N_\delta + N_{\delta+1}` with
    :math:`N_k = \frac1{m'}\sum_{e \mid m'} \varphi(m'/e)\, 2^{ke}` the orbits on :math:`\mathbb F_{2^{m'}}^k`
    (Burnside: :math:`x^{2^j} = x` exactly on :math:`\mathbb F_{2^{\gcd(j, m')}}`, and :math:`\gcd(j, m') = e` for
    :math:`\varphi(m'/e)` of the j). (The former estimate, the identity term plus :math:`2^{m'}`, undercounted
    for composite m'.)"""
    import sympy   # here, not at the top: the frames package loads without sympy

    mp = r - 1

    def orbits(k: int) -> int:
        return sum(int(sympy.totient(mp // e)) * 2 ** (k * e) for e in sympy.divisors(mp)) // mp

    return 2 * orbits(delta) + orbits(delta + 1)


def _pow2(d) -> int:
    d = verify_int(d, "d", minimum=2)
    if d & (d - 1) or d.bit_length() - 1 > MAX_R:
        raise VerifyInputError(f"Argument 'd' must be a power of two 2^r with 1 <= r <= {MAX_R}, not {d}.")
    return d.bit_length() - 1


def _lower(d: int, n: int, lp: bool):
    return best_lower_bound(d, n, lp=lp and n <= LP_MAX_N)


def certify_frame(frame: Frame) -> Certificate:
    r"""Certify a frame read from a file: first check that its signs are those of the construction
    (r, m, polynomial recorded in it), then run the exact WHT certificate. Kerdock / DG frames
    (:mod:`.constructions`) are compared with their construction and certified by
    :func:`~.cert_codes.code_certificate` (WHT method)."""
    if frame.construction != "bch":
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
    lower_bound: float = 0.0            # best exactly certified lower bound for (d, N), rounded down
    lower_bound_sq: str = "0"           # its exact square (a rational)
    lower_bound_name: str = ""          # welch | levenstein | lp
    ratio_to_lower_bound: float | None = None   # coherence / lower_bound (>= 1 by the theorems)

    def as_dict(self) -> dict:
        return asdict(self)


def _row(d, cons, param, n, cert, note, lp, design=None) -> TableRow:
    welch, lev = welch_bound(d, n), levenstein_bound(d, n)
    lb = _lower(d, n, lp)
    common = dict(lower_bound=lb.value, lower_bound_sq=lb.value_sq, lower_bound_name=lb.best)
    if cert is None:
        return TableRow(cons, param, n, None, None, None, welch, lev, None, None,
                        (f"{note}; " if note else "") + f"not certified (design coherence {design})", **common)
    coh = cert.coherence
    return TableRow(cons, param, n, cert.max_abs_sum, coh, cert.coherence_exact, welch, lev,
                    coh / welch if welch else None, coh / lev if lev else None, note,
                    ratio_to_lower_bound=coh / lb.value if lb.value else None, **common)


def frame_table(d: int, max_forms: int = TABLE_MAX_FORMS, lp: bool = True, progress: bool = False) -> list:
    r"""Every construction available at :math:`d = 2^r`: N, certified coherence, the Welch and Levenstein
    bounds, the best exactly certified lower bound (``lp``: Delsarte LP included) and the ratios. BCH rows
    (Lemma A.4, m = 1..3) use :func:`quadratic_certificate`; Kerdock (with the standard basis) and DG(r, delta)
    rows (every delta up to (r-2)/2) use :func:`code_certificate` (ranks, Frobenius reduction) when it ranks at
    most ``max_forms`` forms; the others are listed with their N and ``None`` coherence."""
    r = _pow2(d)
    max_forms = verify_int(max_forms, "max_forms", minimum=1)
    specs = [("bch", f"m={m}", d ** m, lambda m=m: quadratic_certificate(r, m), "Lemma A.4 (paper)", None)
             for m in (1, 2, 3)]
    if r % 2 == 0:
        mp = r - 1
        for delta in range(0, (mp - 1) // 2 + 1):
            cons = "kerdock" if delta == 0 else "dg"
            n = 2 ** ((delta + 1) * mp + r) + (d if delta == 0 else 0)
            run = (lambda cons=cons, delta=delta: code_certificate(cons, r, delta or None, include_identity=delta == 0)
                   ) if code_scan_size(r, delta) <= max_forms else (lambda: None)
            specs.append((cons, f"delta={delta}", n, run, "with the standard basis" if delta == 0 else "",
                          f"2^{delta}/sqrt({d})"))
    if progress:
        from tqdm import tqdm

        specs = tqdm(specs, desc=f"frame table d={d}", leave=False)
    rows = [_row(d, cons, param, n, run(), note, lp, design) for cons, param, n, run, note, design in specs]
    return rows


@dataclass
class BestFrame:
    r"""The lowest-coherence certified frame with at least ``n`` columns among the constructions at d:
    ``construction``/``parameter`` and ``n_full`` (its full size), the first ``n`` columns used,
    ``coherence_exact`` (exact when ``exact``; else the certified coherence of the full frame, an upper bound
    for the sub-frame), the certificate, the best lower bound for (d, n) and the ratio."""

    d: int
    n: int
    construction: str
    parameter: str
    n_full: int
    coherence: float
    coherence_exact: str
    exact: bool
    lower_bound: float
    lower_bound_sq: str
    lower_bound_name: str
    ratio_to_lower_bound: float | None
    certificate: dict = field(default_factory=dict)
    candidates: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def _bch_candidate(r: int, n: int):
    d = 2 ** r
    m = max(1, math.ceil(math.log(n, d) - 1e-12))
    while d ** m < n:  # float log may undershoot: the smallest m with d^m >= n, exactly
        m += 1
    while m > 1 and d ** (m - 1) >= n:
        m -= 1
    if n == d ** m and m <= 3:
        return ("bch", f"m={m}", d ** m, quadratic_certificate(r, m), True)
    if 1 << (n - 1).bit_length() <= BEST_MAX_CODES:  # the WHT scan of exactly the first n columns
        return ("bch", f"m={m}", d ** m, certify(r, m, n_columns=n), True)
    if m <= 3:  # too many codes to scan: the whole frame's exact rank certificate bounds the sub-frame
        return ("bch", f"m={m}", d ** m, quadratic_certificate(r, m), False)
    raise VerifyInputError(f"Argument 'n' needs a WHT scan of {1 << (n - 1).bit_length()} codes (m = {m} > 3), more "
                           f"than {BEST_MAX_CODES}; ask for at most d^3 = {d ** 3} columns.")


def best_frame(d: int, n: int, max_forms: int = TABLE_MAX_FORMS, lp: bool = True,
               progress: bool = False) -> BestFrame:
    r"""The lowest certified coherence over the constructions at :math:`d = 2^r` with at least ``n`` columns:
    the first n columns of the Lemma A.4 frame with the smallest m (certified exactly, WHT or ranks), the Kerdock
    frame and the DG(r, delta) frames (their first n columns; coherence at most the full frame's exact one).
    Ties go to the exactly certified candidate. ``n <= d``: the standard basis (coherence 0). ``progress``: a tqdm
    bar over the code certificate's scan (seconds to a minute at d = 4096)."""
    r = _pow2(d)
    n = verify_int(n, "n", minimum=2)
    max_forms = verify_int(max_forms, "max_forms", minimum=1)
    if n > 2 ** (r * 8):
        raise VerifyInputError(f"Argument 'n' must be at most d^8 = 2^{8 * r} (the largest bch frame), not {n}.")
    cands = []
    if n <= d:
        cands.append(("identity", "-", d, None, True))
    cands.append(_bch_candidate(r, n))
    if r % 2 == 0 and r >= 2:
        mp = r - 1
        for delta in range(0, (mp - 1) // 2 + 1):
            _, _, size = code_parameters("kerdock" if delta == 0 else "dg", r, delta or None)
            if size < n:
                continue
            if code_scan_size(r, delta) <= max_forms:
                cons = "kerdock" if delta == 0 else "dg"
                cands.append((cons, f"delta={delta}", size,
                              code_certificate(cons, r, delta or None, progress=progress), size == n))
            break  # DG(r, delta) contains DG(r, delta - 1): the smallest big enough one is the best of them
    def coh(c):
        return Fraction(0) if c[3] is None else Fraction(c[3].coherence_exact)
    best = min(cands, key=lambda c: (coh(c), not c[4]))
    lb = _lower(d, n, lp)
    value = coh(best)
    cert = {} if best[3] is None else best[3].evidence()
    return BestFrame(d=d, n=n, construction=best[0], parameter=best[1], n_full=best[2], coherence=float(value),
                     coherence_exact=str(value), exact=best[4], lower_bound=lb.value, lower_bound_sq=lb.value_sq,
                     lower_bound_name=lb.best, ratio_to_lower_bound=float(value) / lb.value if lb.value else None,
                     certificate=cert,
                     candidates=[{"construction": c[0], "parameter": c[1], "n_full": c[2],
                                  "coherence_exact": str(coh(c)), "exact": c[4]} for c in cands])


def coherence_one_reason(cert) -> str | None:
    r"""Why a certified frame has coherence 1 (``None`` if it does not): two of its columns are equal up to sign,
    i.e. a nonzero difference code has a constant character (:math:`|S| = 2^r`), so the frame holds repeated
    lines; for the Lemma A.4 frames the Weil bound :math:`(2m-2)/\sqrt{2^r}` is < 1 only from the threshold d."""
    if Fraction(cert.coherence_exact) < 1:
        return None
    hist = {int(k): int(v) for k, v in (cert.histogram or {}).items()}
    field_rows = 2 ** cert.r
    pairs = hist.get(field_rows, 0)
    text = (f"coherence 1: {pairs} nonzero column difference(s) give |S| = 2^{cert.r} (a constant character), so "
            "some columns are equal up to sign and the frame repeats lines")
    m = getattr(cert, "m_paper", None) or getattr(cert, "m", None)
    if getattr(cert, "construction", "bch") == "bch" and m:
        general = bool(getattr(cert, "general", False))
        text += (f"; Lemma 4.1's Weil bound ({4 * m - 2 if general else 2 * m - 2}/sqrt(2^r)) gives coherence < 1 "
                 f"only from d = {weil_threshold_d(m, general=general)} for m = {m}")
    return text + "."
