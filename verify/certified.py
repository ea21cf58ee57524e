r"""Certified evaluation: exact rationals (``flint.fmpq``) and Arb balls (``flint.arb``) for the deciding numbers.

A check that "held at these points" in float64 becomes a theorem about these points when the deciding
quantity is recomputed with rigorous arithmetic. Everything here works on two kinds of scalar:

* ``fmpq`` - exact rationals; a float input is taken at its exact binary value (:func:`to_fmpq`), so the
  certificate is about the very point the float check evaluated;
* ``arb`` - a real ball :math:`[m \pm r]` that provably contains the true value (square roots, constants).

Positive definiteness is decided by :func:`is_pd`, an :math:`LDL^T` elimination in the entries' own arithmetic:
with exact entries the pivots are exact, with ball entries a pivot counts only when the whole ball is
:math:`> 0`, so ``True`` is a proof (``False`` may mean "not decided" for balls). Eigenvalue bounds follow
from it without any eigen-solver:

.. math::

    \lambda_{\max}(B, A) \le t \iff tA - B \succeq 0 \quad (A \succ 0), \qquad
    \lambda_{\max}(B, A) \ge \frac{v^\top B v}{v^\top A v} \ \text{for every } v \ne 0,

so :func:`gen_lambda_max` returns an interval :math:`[\underline\lambda, \overline\lambda]` whose lower end is a
Rayleigh quotient at a rationalised float eigenvector and whose upper end is the first :math:`t` on a ladder
above the float estimate for which :math:`tA - B \succ 0` is proved. (``arb_mat.eig`` gives enclosures too,
but fails to isolate the repeated eigenvalues of the collapsed and frame matrices met here; the
:math:`LDL^T` route does not care.) Operator norms, Schur complements and
:math:`\|A^{-1/2}BA^{-1/2}\|_{op} = \lambda_{\max}(B, A)` all reduce to it.

:class:`Enclosure` turns an interval into outward-rounded floats for the report, and :func:`margin_evidence`
writes the record of a certified margin ("holds at all 40 points with margin >= 3.1e-02 (certified)").

>>> import numpy as np
>>> iv = gen_lambda_max(np.array([[2, 1], [1, 2]], dtype=object))
>>> iv.lo <= 3 <= iv.hi, float(iv.hi - iv.lo) < 1e-12
(True, True)
>>> ratio_interval(to_fmpq(9.0), arb(1)).text()
'[9, 9]'
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Sequence

import numpy as np
import sympy
from flint import arb, fmpq, fmpz

from ._validate import VerifyInputError, _fail, verify_int, verify_real_array

__all__ = ["to_fmpq", "exact_array", "to_arb", "is_pd", "is_psd", "count_below", "spectrum_matches", "gen_lambda_max", "lambda_max", "op_norm_sq",
           "frob_sq", "Enclosure", "enclosure", "ratio_interval", "sqrt_enclosure", "margin_evidence",
           "interval_evidence", "lower_float", "upper_float", "objective_points", "central_point", "lemb1_sq_ratio",
           "tw_margin", "lemc3_bound", "lemc4_bounds", "lema2_bound", "directional_derivative_of_loss",
           "derivative_of_gradient", "NOT_CERTIFIED", "why_not_certified"]


# --------------------------------------------------------------------------- conversions
def to_fmpq(x: Any) -> fmpq:
    """``x`` as an exact rational: floats at their exact binary value, ints, Fractions, sympy Rationals."""
    return _to_fmpq(x, "x")


def _to_fmpq(x: Any, name: str) -> fmpq:
    """:func:`to_fmpq`, its refusals naming the caller's parameter ``name``."""
    if isinstance(x, fmpq):
        return x
    if isinstance(x, fmpz):
        return fmpq(x)
    if isinstance(x, (bool, np.bool_)):
        raise VerifyInputError(f"Argument {name!r} must be a real number, not {x!r}.")
    if isinstance(x, (numbers.Integral, np.integer)):
        return fmpq(int(x))
    if isinstance(x, (float, np.floating)):
        if not math.isfinite(float(x)):
            raise VerifyInputError(f"Argument {name!r} must be finite, not {x!r}.")
        num, den = x.as_integer_ratio()  # every width (long double too) at its own binary value, not via float64
        return fmpq(int(num), int(den))
    if isinstance(x, Fraction):
        return fmpq(x.numerator, x.denominator)
    if isinstance(x, sympy.Rational):
        return fmpq(int(x.p), int(x.q))
    raise _fail(name, "a rational or finite float number", x)


def exact_array(A: Any) -> np.ndarray:
    """An object array of :class:`flint.fmpq` (floats at their exact binary values)."""
    return _exact_array(A, "A")


def _exact_array(A: Any, name: str) -> np.ndarray:
    arr = _object_array(A, name)
    out = np.empty(arr.shape, dtype=object)
    for idx, x in np.ndenumerate(arr):
        out[idx] = _to_fmpq(x, name)
    return out


def _object_array(M: Any, name: str, ndim: int | None = None, square: bool = False) -> np.ndarray:
    """``M`` as an object array (entries unchanged); ``None``, text, mappings, ragged nestings, a wrong number of
    dimensions or a non-square matrix (``square``) are refused naming ``name``."""
    if M is None or isinstance(M, (str, bytes, dict, set)):
        raise _fail(name, "an array of numbers", M)
    try:
        arr = np.asarray(M, dtype=object)
    except (TypeError, ValueError):
        raise _fail(name, "an array of numbers", type(M).__name__) from None
    if ndim is not None and arr.ndim != ndim:
        raise VerifyInputError(f"Argument {name!r} must be a {ndim}-D array, not an array of shape {arr.shape}.")
    if square and arr.shape[0] != arr.shape[1]:
        raise VerifyInputError(f"Argument {name!r} must be a square matrix, not shape {arr.shape}.")
    return arr


def _is_entry(x: Any, balls: bool) -> bool:
    """An exact number :func:`to_fmpq` takes (a finite float included), or a ball (not NaN) where ``balls``."""
    if isinstance(x, arb):
        return balls and not _nan_ball(x)
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, (fmpq, fmpz, numbers.Integral, np.integer, Fraction, sympy.Rational)):
        return True
    return isinstance(x, (float, np.floating)) and math.isfinite(float(x))


def _entries(M: Any, name: str, ndim: int | None = None, square: bool = False, balls: bool = True) -> np.ndarray:
    """A checked object array of rationals, finite floats or (``balls``) finite Arb balls, entries unchanged (so the
    arithmetic on them is the caller's as before): the public entries validate once, the eliminations run
    unchecked."""
    arr = _object_array(M, name, ndim, square)
    kinds = "rationals, finite floats or balls" if balls else "rationals or finite floats"
    for x in arr.flat:
        if not _is_entry(x, balls):
            raise _fail(name, f"an array of {kinds}", x)
    return arr


def _nan_ball(x: arb) -> bool:
    return math.isnan(float(x.mid()))


def _scalar_list(values: Any, name: str) -> list:
    """A sequence of exact numbers (floats at their binary values) as a list of ``fmpq``."""
    if values is None or isinstance(values, (str, bytes, dict, set)):
        raise _fail(name, "a sequence of rationals or finite floats", values)
    try:
        items = list(values)
    except TypeError:
        raise _fail(name, "a sequence of rationals or finite floats", values) from None
    return [_to_fmpq(t, name) for t in items]


def _end(x: Any, name: str) -> Any:
    """An end of an interval: a ball (not NaN) as it is, anything else exact (:func:`to_fmpq`), named ``name``."""
    if isinstance(x, arb):
        if _nan_ball(x):
            raise _fail(name, "a ball with a real midpoint (not NaN)", x)
        return x
    return _to_fmpq(x, name)


def _as_enclosure(v: Any, name: str) -> "Enclosure":
    """An :class:`Enclosure` as it is; a rational, finite float or ball as its own enclosure."""
    return v if isinstance(v, Enclosure) else enclosure(_end(v, name))


def to_arb(x: Any) -> arb:
    """A ball around ``x``: exact (radius 0) for rationals and floats, ``arb`` passed through."""
    if isinstance(x, arb):
        return x
    return arb(to_fmpq(x))


def _zero_like(x: Any) -> Any:
    return arb(0) if isinstance(x, arb) else fmpq(0)


# --------------------------------------------------------------------------- positive definiteness
def is_pd(M: Any) -> bool:
    r"""Whether the symmetric matrix ``M`` is positive definite, by :math:`LDL^T` elimination (no pivoting) in
    the entries' arithmetic: every pivot must be (provably) :math:`> 0`. Exact for ``fmpq`` entries; for
    ``arb`` entries ``True`` is a proof and ``False`` means "not proved"."""
    return _is_pd(_entries(M, "M", ndim=2, square=True))


def _is_pd(M: np.ndarray) -> bool:
    """:func:`is_pd` unchecked (a square object array): the ladder of :func:`gen_lambda_max` calls it."""
    A = [list(row) for row in M]
    n = len(A)
    for k in range(n):
        piv = A[k][k]
        if not piv > 0:
            return False
        for i in range(k + 1, n):  # Schur complement of the pivot (symmetric, so it stays the next matrix)
            f = A[i][k] / piv
            for j in range(k + 1, n):
                A[i][j] = A[i][j] - f * A[k][j]
    return True


def is_psd(M: Any) -> bool:
    r"""Whether the symmetric matrix ``M`` with exact (``fmpq``) entries is positive *semi*-definite: the same
    elimination, where a zero pivot is allowed when its whole remaining row is zero (then it is skipped)."""
    return _is_psd(_exact_array(_object_array(M, "M", ndim=2, square=True), "M"))


def _is_psd(M: np.ndarray) -> bool:
    """:func:`is_psd` unchecked (a square object array of exact entries)."""
    A = [[to_fmpq(x) for x in row] for row in M]
    n = len(A)
    for k in range(n):
        piv = A[k][k]
        if piv < 0:
            return False
        if piv == 0:
            if any(A[i][k] != 0 for i in range(k + 1, n)):
                return False
            continue
        for i in range(k + 1, n):
            f = A[i][k] / piv
            for j in range(k + 1, n):
                A[i][j] = A[i][j] - f * A[k][j]
    return True


def count_below(S: Any, t: Any) -> int | None:
    r"""The number of eigenvalues of the symmetric exact matrix ``S`` that are :math:`< t` (Sylvester's law of
    inertia: the negative pivots of the :math:`LDL^T` elimination of :math:`S - tI`, exact); ``None`` when a zero
    pivot stops the elimination without pivoting (move ``t`` slightly)."""
    S = _exact_array(_object_array(S, "S", ndim=2, square=True), "S")
    return _count_below(S, _to_fmpq(t, "t"))


def _count_below(S: np.ndarray, t: fmpq) -> int | None:
    """:func:`count_below` unchecked (a square object array of ``fmpq``, an ``fmpq``)."""
    n = S.shape[0]
    A = [[S[i, j] - (t if i == j else 0) for j in range(n)] for i in range(n)]
    neg = 0
    for k in range(n):
        piv = A[k][k]
        if piv == 0:
            return None
        neg += piv < 0
        for i in range(k + 1, n):
            f = A[i][k] / piv
            for j in range(k + 1, n):
                A[i][j] = A[i][j] - f * A[k][j]
    return neg


def spectrum_matches(S: Any, values: Sequence[float], eps: float) -> dict:
    r"""Certify that the symmetric exact matrix ``S`` has, for each distinct value :math:`\lambda` of ``values`` (with
    multiplicity :math:`m_\lambda` there), exactly :math:`m_\lambda` eigenvalues in :math:`(\lambda - \epsilon,
    \lambda + \epsilon)` and none outside these windows (inertia counts at the window ends, exact). Returns
    ``{"ok", "windows", "eps"}``."""
    S = _exact_array(_object_array(S, "S", ndim=2, square=True), "S")
    vals = sorted(float(v) for v in _entries(values, "values", ndim=1, balls=False))
    e = _to_fmpq(eps, "eps")
    if not e > 0:
        raise _fail("eps", "a finite real number > 0", eps)
    groups: list = []
    for v in vals:
        if groups and abs(v - groups[-1][0]) <= eps:
            groups[-1][1] += 1
        else:
            groups.append([v, 1])
    n = S.shape[0]
    ok, windows, total = True, [], 0
    ends = [(to_fmpq(v) - e, to_fmpq(v) + e) for v, _ in groups]  # exact ends: float v +- eps could widen a window
    for (v, m), (a, b) in zip(groups, ends):
        lo, hi = _count_below(S, a), _count_below(S, b)
        inside = None if lo is None or hi is None else hi - lo
        ok = ok and inside == m
        windows.append({"value": v, "multiplicity": m, "eigenvalues_in_window": inside})
    # "none outside the windows": count the eigenvalues in their union (overlapping windows merged), since
    # summing per-window counts would count an eigenvalue in an overlap twice and miss one outside every window
    merged: list = []
    for a, b in ends:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    for a, b in merged:
        lo, hi = _count_below(S, a), _count_below(S, b)
        total += 0 if lo is None or hi is None else hi - lo
    return {"ok": bool(ok and total == n and len(vals) == n), "windows": windows, "eps": eps}


def _rationalise(v: np.ndarray, bits: int = 40) -> list:
    scale = 2 ** bits
    return [fmpq(int(round(float(x) * scale)), scale) for x in v]


def _quad(M: np.ndarray, v: list) -> Any:
    n = len(v)
    return sum((v[i] * M[i, j] * v[j] for i in range(n) for j in range(n)), _zero_like(M[0, 0]))


def gen_lambda_max(B: Any, A: Any = None, rel: float = 2.0 ** -52, try_first: Sequence = ()) -> "Enclosure":
    r"""An enclosure of :math:`\lambda_{\max}(B, A) = \max_{v \ne 0} v^\top Bv / v^\top Av` (``A`` positive
    definite, default :math:`I`), ``B`` symmetric; both exact (``fmpq``, floats converted exactly) or balls.

    Lower end: the Rayleigh quotient at the float generalised eigenvector, rationalised (any vector gives a
    lower bound). Upper end: :math:`t_k = \hat\lambda + (|\hat\lambda| + 1)\,\mathrm{rel}\cdot 4^k`,
    :math:`k = 0, 1, \dots`, the first with :math:`t_kA - B \succ 0` proved by :func:`is_pd`."""
    B = _entries(B, "B", ndim=2, square=True)
    A = None if A is None else _entries(A, "A", ndim=2, square=True)
    relq = _to_fmpq(rel, "rel")
    if not relq > 0:
        raise _fail("rel", "a finite real number > 0", rel)
    return _gen_lambda_max(B, A, relq, _scalar_list(try_first, "try_first"))


def _gen_lambda_max(B: Any, A: Any = None, rel: Any = 2.0 ** -52, try_first: Sequence = ()) -> "Enclosure":
    """:func:`gen_lambda_max` unchecked (the callers here pass exact or ball matrices they built)."""
    B = _as_entries(B)
    n = B.shape[0]
    A = _as_entries(np.eye(n, dtype=int) if A is None else A)
    if A.shape != (n, n) or B.shape != (n, n):
        raise VerifyInputError(f"Arguments 'A' and 'B' must be square of one size, not {A.shape} and {B.shape}.")
    if not _is_pd(A):  # the hypothesis of both ends (a Rayleigh quotient and t A - B > 0 bound nothing otherwise)
        raise VerifyInputError("Argument 'A' must be (provably) positive definite.")
    import scipy.linalg

    Bf, Af = _floats(B), _floats(A)
    w, V = scipy.linalg.eigh((Bf + Bf.T) / 2, (Af + Af.T) / 2)
    v = _rationalise(V[:, -1] / np.max(np.abs(V[:, -1])))
    lo = _quad(B, v) / _quad(A, v)
    est = float(w[-1])
    # the slack of the upper end is relative to the pencil's own scale (its largest |eigenvalue|), not to
    # |est| + 1: an absolute slack of 2^-52 makes the enclosure of a matrix of scale 1e-30 useless ([1e-60, 2e-16]);
    # the zero matrix (scale 0) gets the smallest subnormal, so that t A - B = t A is still positive definite
    scale = float(np.max(np.abs(w))) if w.size else 0.0
    scale = scale if scale > 0 else 5e-324
    for t in try_first:  # e.g. the claimed bound itself, where it is tight: t A - B >= 0 (exact PSD) proves <= t
        t = to_fmpq(t)
        exact = not any(isinstance(x, arb) for x in list(A.flat) + list(B.flat))
        if t >= lo and t <= to_fmpq(est + (abs(est) + 1.0) * 1e-9) and (_is_psd if exact else _is_pd)(A * t - B):
            return enclosure(lo, t)
    for k in range(24):  # rel 2^-52 up to ~2^-6: float eigh is backward stable, the first few rungs suffice
        t = to_fmpq(est) + to_fmpq(scale) * to_fmpq(rel) * 4 ** k  # exact: est + tiny slack must not round to est
        if _is_pd(A * t - B):
            return enclosure(lo, t)
    raise VerifyInputError("Argument 'B' could not be bounded: lambda_max(B, A) has no certified upper bound "
                           "near its float estimate (A not positive definite, or balls too wide).")


def lambda_max(S: Any) -> "Enclosure":
    r""":math:`\lambda_{\max}(S)` of a symmetric matrix (``A = I`` in :func:`gen_lambda_max`)."""
    return _gen_lambda_max(_entries(S, "S", ndim=2, square=True))


def op_norm_sq(X: Any) -> "Enclosure":
    r""":math:`\|X\|_{op}^2 = \lambda_{\max}(X^\top X)` (any shape; 0 for a matrix without entries)."""
    X = _as_entries(_entries(X, "X", ndim=2))
    if X.size == 0:  # an empty matrix is the zero map: scipy's eigh refuses a 0 x 0 matrix
        return Enclosure(fmpq(0), fmpq(0))
    G = X.T @ X if X.shape[0] >= X.shape[1] else X @ X.T
    return _gen_lambda_max(G)


def frob_sq(X: Any) -> Any:
    r""":math:`\|X\|_F^2`, exact for exact entries (an array of any shape)."""
    X = _as_entries(_entries(X, "X"))
    return sum((x * x for x in X.flat), _zero_like(X.flat[0]) if X.size else fmpq(0))


def _as_entries(M: Any) -> np.ndarray:
    arr = np.asarray(M, dtype=object)
    if arr.size and all(isinstance(x, arb) for x in arr.flat):
        return arr
    if arr.size and any(isinstance(x, arb) for x in arr.flat):
        return np.vectorize(to_arb, otypes=[object])(arr)
    return exact_array(arr)


def _floats(M: np.ndarray) -> np.ndarray:
    return np.array([[float(x.mid()) if isinstance(x, arb) else float(Fraction(int(x.p), int(x.q)))
                      for x in row] for row in M], dtype=float)


# --------------------------------------------------------------------------- enclosures and records
def lower_float(x: Any) -> float:
    """The largest float that is provably <= ``x`` (one step below the nearest float of the lower end)."""
    x = _end(x, "x")
    lo = x.lower() if isinstance(x, arb) else x
    f = _nearest_float(lo)
    # the nearest float may lie on either side of lo: keep it when it is below (a positive value below the
    # smallest subnormal rounds to 0.0, never to the negative subnormal a blind step down would give)
    if math.isfinite(f) and _float_not_above(f, lo):
        return f
    return math.nextafter(f, -math.inf)


def _nearest_float(v: Any) -> float:
    """The float nearest ``v`` (an exact ball or a rational); +-inf beyond the float range."""
    try:
        return float(v.mid()) if isinstance(v, arb) else float(Fraction(int(v.p), int(v.q)))
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def _float_not_above(f: float, v: Any) -> bool:
    """Whether the finite float ``f`` is <= the rational or exact ball ``v``, decided exactly."""
    return bool(to_fmpq(f) <= v) if isinstance(v, fmpq) else bool(arb(to_fmpq(f)) <= v)


def upper_float(x: Any) -> float:
    """The smallest float that is provably >= ``x``."""
    x = _end(x, "x")
    hi = x.upper() if isinstance(x, arb) else x
    f = _nearest_float(hi)
    if math.isfinite(f) and _float_not_above(-f, -hi):   # f >= hi: the nearest float is already above
        return f + 0.0  # -0.0 (a tiny negative upper end) is reported as 0.0
    return math.nextafter(f, math.inf)


@dataclass(frozen=True)
class Enclosure:
    """A certified interval ``[lo, hi]`` (``fmpq`` or ``arb`` ends) of a real quantity."""

    lo: Any
    hi: Any

    @property
    def exact(self) -> bool:
        return isinstance(self.lo, fmpq) and isinstance(self.hi, fmpq) and self.lo == self.hi

    def bounds(self) -> list:
        """``[lower float, upper float]``, rounded outward."""
        return [lower_float(self.lo), upper_float(self.hi)]

    def text(self, digits: int = 4) -> str:
        lo, hi = self.bounds()
        return f"[{lo:.{digits}g}, {hi:.{digits}g}]"

    def __add__(self, other):
        if isinstance(other, Enclosure):
            return enclosure(self.lo + other.lo, self.hi + other.hi)
        # a float or int is taken at its exact value (fmpq + float is a TypeError); a ball widens both ends
        other = other if isinstance(other, arb) else to_fmpq(other)
        return enclosure(self.lo + other, self.hi + other)


def enclosure(lo: Any, hi: Any = None) -> Enclosure:
    """``[lo, hi]`` from two ends (rationals or balls; a ball contributes its lower/upper end), or one ball."""
    lo = _end(lo, "lo")
    hi = lo if hi is None else _end(hi, "hi")
    lo = lo.lower() if isinstance(lo, arb) else lo
    hi = hi.upper() if isinstance(hi, arb) else hi
    if not bool(lo <= hi):
        raise VerifyInputError(f"Argument 'lo' must not exceed 'hi', not [{lo}, {hi}].")
    return Enclosure(lo, hi)


def sqrt_enclosure(e: Enclosure) -> Enclosure:
    r""":math:`\sqrt{\cdot}` of a non-negative enclosure (balls: Arb's rigorous square root); a rational, finite
    float or ball is taken as its own enclosure."""
    e = _as_enclosure(e, "e")
    lo, hi = to_arb(e.lo), to_arb(e.hi)
    if not lo >= 0:
        raise VerifyInputError(f"Argument 'e' must be non-negative, not {e.text()}.")
    return enclosure(lo.sqrt(), hi.sqrt())


def ratio_interval(num: Any, den: Any) -> Enclosure:
    """``num / den`` for positive enclosures, balls or rationals (exact when both are exact)."""
    n = _as_enclosure(num, "num")
    d = _as_enclosure(den, "den")
    if not d.lo > 0:
        raise VerifyInputError(f"Argument 'den' must be positive, not {d.text()}.")
    if n.exact and d.exact:
        q = n.lo / d.lo
        return Enclosure(q, q)
    lo = to_arb(n.lo) / to_arb(d.hi) if n.lo >= 0 else to_arb(n.lo) / to_arb(d.lo)
    hi = to_arb(n.hi) / to_arb(d.lo) if n.hi >= 0 else to_arb(n.hi) / to_arb(d.hi)
    return enclosure(lo, hi)


def margin_evidence(margins: Iterable[Any], what: str, route: str, certified: str, strict: bool = True,
                    **extra: Any) -> dict:
    r"""The record of a certified margin: ``margins`` are certified lower bounds (rationals, balls or
    :class:`Enclosure`) of ``bound - quantity`` (or ``quantity - bound``) at each point; all must be > 0, or
    >= 0 with ``strict=False`` (a non-strict inequality at points where it is tight); :class:`ValueError`
    otherwise, and the check fails. ``what`` names the inequality, ``route`` the arithmetic
    and ``certified`` which part is certified (e.g. "the inequality at the optimiser's returned point")."""
    what, route, certified = (_text(what, "what"), _text(route, "route"), _text(certified, "certified"))
    if margins is None or isinstance(margins, (str, bytes, dict, set)) or not isinstance(margins, Iterable):
        raise _fail("margins", "an iterable of certified lower bounds (rationals, finite floats, balls or Enclosures)",
                    margins)
    lows = []
    for m in margins:
        m = m if isinstance(m, Enclosure) else _end(m, "margins")
        lo = m.lo if isinstance(m, Enclosure) else (m.lower() if isinstance(m, arb) else m)
        lows.append(lo)
    if not lows:
        raise VerifyInputError("Argument 'margins' must hold at least one point.")
    # the smallest of the outward-rounded lower ends: choosing the smallest margin by its float first would pick
    # either of two margins that differ below float resolution, and could report a bound above the other one
    low = min(lower_float(v) for v in lows)
    if not all(lo > 0 if strict else lo >= 0 for lo in lows):
        raise VerifyInputError(f"Argument 'margins' must be certified positive: {what} fails or is not decided "
                               f"at some point (smallest lower bound {low:.3e}).")
    return {"statement": f"{what}: holds at all {len(lows)} points with margin >= {low:.3g} (certified)",
            "points": len(lows), "margin_lower": low, "route": route, "certified": certified, **extra}


def interval_evidence(value: Enclosure, what: str, route: str, certified: str, **extra: Any) -> dict:
    """The record of a certified ratio / value interval (a counterexample's measured / claimed); ``value`` an
    :class:`Enclosure` (a rational, finite float or ball is its own)."""
    value = _as_enclosure(value, "value")
    what, route, certified = (_text(what, "what"), _text(route, "route"), _text(certified, "certified"))
    lo, hi = value.bounds()
    exact = f" = {value.lo} exactly" if value.exact and len(str(value.lo)) <= 40 else ""
    return {"statement": f"{what} in [{lo:.6g}, {hi:.6g}]{exact} (certified)", "interval": [lo, hi],
            "route": route, "certified": certified, **extra}


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise _fail(name, "a string", value)
    return value


def as_rationals(values: Sequence[Any]) -> list:
    """Exact rationals (``fmpq``) of a sequence (floats at their binary values)."""
    return [to_fmpq(v) for v in values]


# --------------------------------------------------------------------------- the objectives' points, certified
def objective_points(name: str, n: int, search_starts: int = 0) -> list:
    r"""The points a claim's check evaluates: the first ``n`` seeded starts of objective ``name``
    (:mod:`verify.objectives`, its own seed and sampler, as :func:`verify.engine.adversarial_max` draws them) and,
    with ``search_starts`` > 0, the best point of that many optimised starts (the check's adversarial maximiser)."""
    from .engine import adversarial_max
    from .objectives import OBJECTIVES, get_objective

    if not isinstance(name, str) or name not in OBJECTIVES:
        raise _fail("name", "a registered objective (verify.objectives.objective_names())", name)
    n = verify_int(n, "n", minimum=0)
    search_starts = verify_int(search_starts, "search_starts", minimum=0)
    obj = get_objective(name)
    rng = np.random.default_rng(obj.seed)
    pts = [np.asarray(obj.sampler(rng), dtype=float) for _ in range(n)]
    if search_starts:
        with np.errstate(all="ignore"):
            res = adversarial_max(obj.ratio, obj.sampler, n_starts=search_starts, seed=obj.seed, maxiter=obj.maxiter)
        pts.append(np.asarray(res.x, dtype=float))
    return pts


def central_point(x: np.ndarray, d: int = 2, K: int = 2, n: int = 2) -> tuple:
    r""":func:`verify.objectives.unpack_central` with every input exact: :math:`H` and the float
    :math:`\lambda_W, \lambda_H` the float objective used, at their binary values."""
    from .objectives import unpack_central

    d, K, n = verify_int(d, "d", minimum=1), verify_int(K, "K", minimum=1), verify_int(n, "n", minimum=1)
    x = _point(x, d * K * n + 2, "d K n + 2")
    H, lw, lh = unpack_central(x, d, K, n)
    return exact_array(H), to_fmpq(lw), to_fmpq(lh)


def lemb1_sq_ratio(x: np.ndarray, d: int = 2, K: int = 2, n: int = 2) -> fmpq:
    r"""Lemma B.1 exactly: :math:`\|\nabla\mathcal L(H)\|_F^2 / \bigl(\tfrac{1}{Kn}(3/\lambda_W+\lambda_H)\bigr)^2\|H\|_F^2`
    (the square of :func:`verify.objectives.lemb1_ratio`), gradient (7) in ``fmpq``."""
    from .numeric import ufm

    H, lw, lh = central_point(x, d, K, n)
    g = ufm.grad_central_path_loss(H, lw, lh, K)
    M = (3 / lw + lh) / (K * n)
    return frob_sq(g) / (M * M * frob_sq(H))


def tw_margin(x: np.ndarray) -> Enclosure:
    r"""Thm 4.1 (second bullet) exactly: :math:`-e^{-2\lambda_Ht}\dot T_W` over the objective's normalisation
    :math:`\|\Sigma_W\|_F\|C\tilde\Sigma_BC\|_F` (balls for the square roots); the theorem says :math:`\ge 0`."""
    from .numeric import central_path as flow
    from .numeric import ufm

    H, lw, lh = central_point(x)
    c = ufm.covariances(H, 2)
    Cm = ufm._inv(c["Sigma_T_tilde"] + np.eye(2, dtype=int).astype(object) * (lw / 2), "exact")
    dtw = flow.trace_derivatives(H, lw, lh, 2)["dT_W"]
    scale = to_arb(frob_sq(c["Sigma_W"]) * frob_sq(Cm @ c["Sigma_B_tilde"] @ Cm)).sqrt()
    return enclosure(to_arb(-dtw) / scale)


def lemc3_bound(x: np.ndarray, m: int = 3) -> tuple:
    r"""Lemma C.3 exactly: :math:`A = L_AL_A^\top`, :math:`B = L_BL_B^\top` from the float lower triangles;
    returns ``(inside, enclosure of ||A^{-1/2}BA^{-1/2}||_op = lambda_max(B, A))``; ``inside`` is the exact test
    of the hypotheses :math:`A \succ 0`, :math:`A - B \succ 0`."""
    m = verify_int(m, "m", minimum=1)
    k = m * (m + 1) // 2
    x = _entries(x, "x", ndim=1, balls=False)   # entries as given: floats (or rationals) at their exact values
    if x.size != 2 * k:
        raise VerifyInputError(f"Argument 'x' must have length m (m + 1) = {2 * k}, not {x.size}.")
    Ls = []
    for part in (x[:k], x[k:]):
        L = np.zeros((m, m), dtype=object)
        L[:] = fmpq(0)
        for (i, j), v in zip(zip(*np.tril_indices(m)), part):
            L[int(i), int(j)] = to_fmpq(v)
        Ls.append(L @ L.T)
    A, B = Ls
    inside = _is_pd(A) and _is_pd(A - B)
    return inside, (_gen_lambda_max(B, A) if inside else None)


def lemc4_bounds(x: np.ndarray, d: int = 3, K: int = 2, n: int = 2) -> dict:
    r"""Lemma C.4 exactly, with :math:`\mathbf A = \tilde\Sigma_T + \tfrac{\lambda_W}K I` and
    :math:`\lambda_W = 10^{x_{-1}}` (the float value): (13) :math:`\lambda_{\max}(\tilde\Sigma_T, \mathbf A) \le 1`,
    (14) :math:`\lambda_{\max}(\Sigma_W, \mathbf A) \le 1`, (15) :math:`\|\mathbf A^{-1/2}H\|_{op}^2 =
    \lambda_{\max}(HH^\top, \mathbf A) \le Kn`, (16) the same for the centred :math:`H - \bar H\otimes 1_n^\top`.
    Returns each measured / claimed as an :class:`Enclosure` (squares for (15)-(16))."""
    from .numeric import ufm

    d, K, n = verify_int(d, "d", minimum=1), verify_int(K, "K", minimum=1), verify_int(n, "n", minimum=1)
    x = _point(x, d * K * n + 1, "d K n + 1")
    try:
        lw = to_fmpq(10.0 ** float(x[-1]))
    except OverflowError:
        raise _fail("x", "a point whose last entry (log10 lam_W) is below 308", x) from None
    H = exact_array(np.asarray(x[:-1], dtype=float).reshape(d, K * n))
    c = ufm.covariances(H, K)
    A = c["Sigma_T_tilde"] + np.eye(d, dtype=int).astype(object) * (lw / K)
    Hc = H - np.repeat(c["Hbar"], n, axis=1)
    kn = fmpq(K * n)
    out = {"(13)": _gen_lambda_max(c["Sigma_T_tilde"], A, try_first=(1,)),
           "(14)": _gen_lambda_max(c["Sigma_W"], A, try_first=(1,))}
    for key, X in (("(15)", H), ("(16)", Hc)):
        e = _gen_lambda_max(X @ X.T, A, try_first=(kn,))
        out[key] = enclosure(e.lo / kn, e.hi / kn)
    return out


def lema2_bound(z: np.ndarray, N: int = 4, k: int = 2) -> Enclosure:
    r"""Lemma A.2 exactly at :func:`verify.objectives.lema2_ratio`'s matrix :math:`A = BB^\top + 10^{-9}I`
    (float 1e-9 at its binary value): :math:`\|A_{12}A_{22}^{-1}A_{21}\|_{op} / \|A\|_{op}` enclosed."""
    from .numeric.ufm import _inv

    N = verify_int(N, "N", minimum=2)
    k = verify_int(k, "k", minimum=1, maximum=N - 1)
    z = _point(z, N * N, "N^2", name="z")
    B = exact_array(z.reshape(N, N))
    A = B @ B.T + np.eye(N, dtype=int).astype(object) * to_fmpq(1e-9)
    X = A[:k, k:] @ _inv(A[k:, k:], "exact") @ A[k:, :k]
    return ratio_interval(_gen_lambda_max(X), _gen_lambda_max(A))


def _point(x: Any, size: int, formula: str, name: str = "x") -> np.ndarray:
    """A finite real 1-D float64 point of length ``size`` (``formula`` says which)."""
    x = verify_real_array(x, name, ndim=1)
    if x.size != size:
        raise VerifyInputError(f"Argument {name!r} must have length {formula} = {size}, not {x.size}.")
    return x


#: verified ``hp``/``num`` claims whose checks carry no certified margin, and why (issue 25: "the rest say why not")
NOT_CERTIFIED: dict[str, str] = {
    "S-eq11": "the eigen-decomposition identity is checked in float64 on y in R^{d^m}; its exact counterpart is "
              "Lemma A.3's tr(M Sigma^+ M^T), certified under S-lemA.3",
    "S-eq16": "the deciding numbers are mpmath quadratures of conditional expectations (no ball integration here)",
    "S-lemA.1": "the deciding numbers are mpmath quadratures and numerical derivatives (no ball integration here)",
    "S-random-frames": "a statistical order statement about random frames (no inequality at fixed points)",
    "S-lemA.4-trace": "already exhaustive and exact over every element of GF(2^r) (nothing float to certify)",
    "S-eq22": "an order statement (b <~ max(...)); its statement object (explicit constants) is decided on exact "
              "rationals: the b themselves are exact, nothing float to certify",
    "S-thm4.2": "an order statement; its statement object (an explicit constant) is decided on exact rationals: the "
                "a^2/b are exact already, nothing float to certify",
    "S-rem4.3-attained": "an order statement (F of order d^m); the values F(s* M) are exact rationals already",
    "N-B-limit": "a limit as beta -> infinity, decided by a fitted order (no inequality at fixed points)",
    "N-fig1": "the Figure 1 size (F_kk of size 100, F of size 400) is beyond the exact rational F (5); the same "
              "spectrum (21) is certified at smaller sizes under N-D-eig",
}


def why_not_certified(claim_id: str) -> str:
    """The reason a verified proof claim carries no certified margin (:data:`NOT_CERTIFIED`), or a generic one."""
    _text(claim_id, "claim_id")
    return NOT_CERTIFIED.get(claim_id, "no certified recomputation written yet for this claim's checks")


# --------------------------------------------------------------------------- exact directional derivatives
def _mm(A: list, B: list) -> list:
    return [[sum((A[i][k] * B[k][j] for k in range(len(B))), 0 * A[0][0]) for j in range(len(B[0]))]
            for i in range(len(A))]


def _inv_list(A: list) -> list:
    """Gauss-Jordan inverse of a square list matrix over a field-like scalar (fmpq, fmpq_series with invertible
    constant terms): pivots chosen with a non-zero constant term."""
    n = len(A)
    M = [list(row) + [1 if i == j else 0 for j in range(n)] for i, row in enumerate(A)]
    for c in range(n):
        p = next(r for r in range(c, n) if _const(M[r][c]) != 0)
        M[c], M[p] = M[p], M[c]
        inv = 1 / M[c][c]
        M[c] = [x * inv for x in M[c]]
        for r in range(n):
            if r != c:
                f = M[r][c]
                M[r] = [x - f * y for x, y in zip(M[r], M[c])]
    return [row[n:] for row in M]


def _const(x: Any) -> Any:
    from flint import fmpq_series

    return x[0] if isinstance(x, fmpq_series) else x


def _line(H: Any, D: Any) -> list:
    r""":math:`H + tD` as a list matrix of ``fmpq_series`` in :math:`t` (exact entries)."""
    from flint import fmpq_series

    H, D = exact_array(H), exact_array(D)
    return [[fmpq_series([H[i, j], D[i, j]]) for j in range(H.shape[1])] for i in range(H.shape[0])]


def _series_grad(X: list, lw: fmpq, lh: fmpq, K: int) -> list:
    r"""The gradient (7) in its equivalent form (:func:`verify.numeric.ufm.grad_central_path_loss`) on a list
    matrix of series: :math:`\frac1{K^2n}(-(C\bar H)\otimes1_n^\top + \frac1K(C\bar H)(C\bar H)^\top H + \lambda_HKH)`,
    :math:`C = (HH^\top/(Kn) + \lambda_W/K\,I)^{-1}`."""
    d, N = len(X), len(X[0])
    n = N // K
    XT = [list(r) for r in zip(*X)]
    M = _mm(X, XT)
    M = [[M[i][j] / (K * n) + (lw / K if i == j else 0) for j in range(d)] for i in range(d)]
    Hbar = [[sum(X[i][k * n:(k + 1) * n], 0 * X[0][0]) / n for k in range(K)] for i in range(d)]
    CH = _mm(_inv_list(M), Hbar)
    CCH = _mm(CH, _mm([list(r) for r in zip(*CH)], X))
    return [[(-CH[i][j // n] + CCH[i][j] / K + X[i][j] * (lh * K)) / (K * K * n) for j in range(N)] for i in range(d)]


def _loss_args(H: Any, D: Any, lam_W: Any, lam_H: Any, K: Any) -> tuple:
    r"""The checked arguments of the exact derivatives: ``H`` a non-empty exact ``d x Kn`` matrix, ``D`` of its shape,
    :math:`\lambda_W > 0`, :math:`\lambda_H \ge 0` exact, ``K`` dividing the columns."""
    H = _exact_array(_object_array(H, "H", ndim=2), "H")
    if H.size == 0:
        raise VerifyInputError(f"Argument 'H' must be a non-empty matrix, not shape {H.shape}.")
    D = _exact_array(_object_array(D, "D", ndim=2), "D")
    if D.shape != H.shape:
        raise VerifyInputError(f"Argument 'D' must have the shape of H {H.shape}, not {D.shape}.")
    lw, lh = _to_fmpq(lam_W, "lam_W"), _to_fmpq(lam_H, "lam_H")
    if not lw > 0:
        raise _fail("lam_W", "a finite real number > 0", lam_W)
    if lh < 0:
        raise _fail("lam_H", "a finite real number >= 0", lam_H)
    K = verify_int(K, "K", minimum=1)
    if H.shape[1] % K:
        raise VerifyInputError(f"Argument 'K' must divide the number of columns of H ({H.shape[1]}), not {K}.")
    return H, D, lw, lh, K


def directional_derivative_of_loss(H: Any, D: Any, lam_W: Any, lam_H: Any, K: int) -> fmpq:
    r"""Exactly :math:`\frac{d}{dt}\mathcal L(H + tD)|_{t=0}` from the *definition* :math:`\mathcal L(H) =
    f(W^*(H), H)` (objective (1) at :math:`W^*(H) = YH^\top(HH^\top + n\lambda_W I)^{-1}`), in truncated power
    series over the rationals (``flint.fmpq_series``): the coefficient of :math:`t`; no differencing."""
    from flint import ctx

    H, D, lw, lh, K = _loss_args(H, D, lam_W, lam_H, K)
    old = ctx.cap
    ctx.cap = 2
    try:
        X = _line(H, D)
        d, N = len(X), len(X[0])
        n = N // K
        Y = [[1 if j // n == k else 0 for j in range(N)] for k in range(K)]
        XT = [list(r) for r in zip(*X)]
        G = _mm(X, XT)
        G = [[G[i][j] + (n * lw if i == j else 0) for j in range(d)] for i in range(d)]
        W = _mm(_mm(Y, XT), _inv_list(G))
        R = _mm(W, X)
        R = [[R[k][j] - Y[k][j] for j in range(N)] for k in range(K)]
        sq = lambda A: sum((x * x for row in A for x in row), 0 * X[0][0])  # noqa: E731
        L = sq(R) / (2 * K * n) + sq(W) * lw / (2 * K) + sq(X) * lh / (2 * K * n)
        return L[1]
    finally:
        ctx.cap = old


def derivative_of_gradient(H: Any, D: Any, lam_W: Any, lam_H: Any, K: int) -> np.ndarray:
    r"""Exactly :math:`\frac{d}{dt}\nabla\mathcal L(H + tD)|_{t=0}` (the gradient (7) in series, coefficient of
    :math:`t`), an object array of ``fmpq``."""
    from flint import ctx

    H, D, lw, lh, K = _loss_args(H, D, lam_W, lam_H, K)
    old = ctx.cap
    ctx.cap = 2
    try:
        g = _series_grad(_line(H, D), lw, lh, K)
        return np.array([[x[1] for x in row] for row in g], dtype=object)
    finally:
        ctx.cap = old
