r"""Paper S, Theorem 4.2 / eqs. (19)-(22) / Remark 4.3: the lower bound from Lemma 4.1's frame, exactly.

With :math:`A = t\,M^{(k)}` (:math:`M = V^TV` the Lemma A.4 frame Gram, :math:`M^{(k)}` its top-left
:math:`k \times k` block) the loss is :math:`\tilde L = 2t^m a - t^{2m} b` with

.. math:: a = \sum_{i<k} \mathbb E\bigl[x_i (M^{(k)}x)_i^m\bigr], \qquad b = \sum_{i<k} \mathbb E\bigl[(M^{(k)}x)_i^{2m}\bigr],

and :math:`\sup_t \tilde L = a^2/b` (eq. 20). Each row term is the row polynomial derived in
:mod:`verify.symbolic.superposition_loss` (``row_cross_and_square``) evaluated at :math:`M_{ii} = 1` and the
row's off-diagonal power sums :math:`T_{e,i} = \sum_{j \ne i} M_{ij}^e`. Those come from the frame's
structure, never from the :math:`k \times k` matrix: :math:`M_{ij} = S(i \oplus j)/d` with the integer
character sums :math:`S`, so the number of entries of value :math:`\pm v/d` in row :math:`i` is an XOR
convolution :math:`(\mathbf 1_{[0,k)} \ast \mathbf 1_{|S| = v})(i)`, one Walsh-Hadamard transform each.
All arithmetic is exact (integers and ``Fraction``).

>>> st = frame_block_stats(3, 3, 64)   # d = 8, m = 3, first 64 columns: every row sees all codes < 64
>>> len(st.rows), st.rows[0][0]                 # one row pattern, shared by all 64 rows
(1, 64)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np
import sympy

from .._validate import VerifyInputError, verify_int, verify_odd_m, verify_probability
from ..symbolic import superposition_loss as sym
from . import frames
from .distributions import get_distribution

__all__ = ["FrameBlockStats", "frame_block_stats", "row_terms", "numerator_denominator", "paper_k",
           "lower_bound_point", "F_attained", "eq22_bound", "as_fraction"]


def as_fraction(x: Any, name: str = "value") -> Fraction:
    """Exact ``Fraction`` of an int / Fraction / sympy Rational / decimal string (floats are taken exactly);
    anything else (an irrational sympy number, a non-finite float, text that is not a number) is refused naming
    ``name``, the caller's parameter."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, sympy.Basic):
        if not x.is_Rational:
            raise VerifyInputError(f"Argument {name!r} must be rational, not {x}.")
        return Fraction(int(x.p), int(x.q))
    try:
        return Fraction(x)
    except (TypeError, ValueError, OverflowError):   # Fraction's own errors do not name the parameter
        raise VerifyInputError(f"Argument {name!r} must be rational, not {x!r}.") from None


@dataclass
class FrameBlockStats:
    r"""Row patterns of :math:`M^{(k)}`: ``rows`` = list of ``(multiplicity, {e: T_e})`` with exact ``Fraction``
    off-diagonal power sums for even ``e <= 2 * n_power`` (all diagonals are 1)."""

    r: int
    m: int
    k: int
    rows: list

    @property
    def d(self) -> int:
        return 2 ** self.r

    def max_T(self, e: int) -> Fraction:
        return max(T[e] for _, T in self.rows)


def _xor_count(indicator: np.ndarray, k: int) -> np.ndarray:
    """``out[i] = #{j < k : indicator[i ^ j]}`` for ``i < k``, exactly (uint64 ring arithmetic: every
    intermediate is a ring operation mod 2^64 and the true result times K is < 2^64)."""
    K = indicator.size
    box = np.zeros(K, dtype=np.uint64)
    box[:k] = 1
    fa = frames.fwht(box)
    fb = frames.fwht(indicator.astype(np.uint64))
    prod = frames.fwht(fa * fb)
    return (prod[:k] // np.uint64(K)).astype(np.int64)


@lru_cache(maxsize=64)
def frame_block_stats(r: int, m: int, k: int, n_power: int | None = None) -> FrameBlockStats:
    r"""Exact off-diagonal power sums of every row of :math:`M^{(k)}` for the Lemma A.4 frame (d = 2^r),
    grouped into distinct row patterns. ``n_power`` (default ``m``): sums for ``e = 2, 4, ..., 2 n_power``.
    Cached: the checks evaluate the same block at many p and mu (do not mutate the result)."""
    r = verify_int(r, "r", minimum=1, maximum=frames.MAX_R)
    m = verify_int(m, "m", minimum=1)
    k = verify_int(k, "k", minimum=1, maximum=2 ** (r * m))
    n_power = m if n_power is None else verify_int(n_power, "n_power", minimum=1)
    d = 2 ** r
    K = max(d, 1 << (k - 1).bit_length())
    if K > 2 ** 26:
        raise VerifyInputError(f"Argument 'k' must be <= 2^26 here (XOR convolutions of length K), not {k}.")
    S = np.abs(frames.character_sums(r, m, n_codes=K))
    S[0] = 0  # the diagonal is handled separately (M_ii = 1)
    values = [int(v) for v in np.unique(S) if v]
    if k == K:  # every row sees all codes < K: one pattern
        counts = np.array([[int(np.count_nonzero(S == v)) for v in values]], dtype=np.int64)
        mult = np.array([k])
    else:
        cols = np.stack([_xor_count(S == v, k) for v in values], axis=1) if values else np.zeros((k, 0), np.int64)
        counts, mult = np.unique(cols, axis=0, return_counts=True)
    rows = []
    for c, mlt in zip(counts, mult):
        T = {e: sum((Fraction(int(n) * v ** e, d ** e) for n, v in zip(c, values)), Fraction(0))
             for e in range(2, 2 * n_power + 1, 2)}
        rows.append((int(mlt), T))
    return FrameBlockStats(r=r, m=m, k=k, rows=rows)


@lru_cache(maxsize=None)
def _row_polys(m: int) -> tuple:
    """(cross, square) of the symbolic module as polynomials in (p, mu_2.., T_2..) at A_ii = 1."""
    cross, square = sym.row_cross_and_square(m)
    gens = [sym.p] + [sym.mu(e) for e in range(2, 2 * m + 1, 2)] + [sym.T(e) for e in range(2, 2 * m + 1, 2)]
    out = []
    for expr in (cross, square):
        poly = sympy.Poly(sympy.expand(expr.subs(sym.a, 1)), *gens)
        out.append([(mon, Fraction(int(c.p), int(c.q))) for mon, c in poly.terms()])
    return tuple(out)


def _eval_terms(terms, p: Fraction, mus: list, T: dict, m: int) -> Fraction:
    vals = [p] + mus + [T[e] for e in range(2, 2 * m + 1, 2)]
    total = Fraction(0)
    for mon, c in terms:
        term = c
        for v, e in zip(vals, mon):
            if e:
                term *= v ** e
        total += term
    return total


def row_terms(m: int, p: Any, mu: Any, T: dict) -> tuple:
    r"""``(E[x_i y_i^m], E[y_i^{2m}])`` for a row with :math:`A_{ii} = 1` and off-diagonal sums ``T``, exact."""
    m = verify_odd_m(m)
    p = as_fraction(verify_probability(p), "p")
    dist = get_distribution(mu)
    mus = [as_fraction(dist.moment(e)) for e in range(2, 2 * m + 1, 2)]
    cross, square = _row_polys(m)
    return _eval_terms(cross, p, mus, T, m), _eval_terms(square, p, mus, T, m)


def numerator_denominator(stats: FrameBlockStats, p: Any, mu: Any = "gaussian") -> tuple:
    r"""Exact ``(a, b)`` of eq. (19) for :math:`A = tM^{(k)}` (m = ``stats.m``, odd)."""
    a = b = Fraction(0)
    for mult, T in stats.rows:
        c, s = row_terms(stats.m, p, mu, T)
        a += mult * c
        b += mult * s
    return a, b


def paper_k(d: int, m: int, p: Any) -> int:
    r"""Theorem 4.2's choice: :math:`k = d^m` if :math:`p \le d^{-m}`, else the integer nearest to
    :math:`d\,p^{1/m}/p` (footnote 6), clipped to :math:`[d, d^m]`."""
    d = verify_int(d, "d", minimum=2)
    m = verify_odd_m(m)
    pf = as_fraction(verify_probability(p), "p")
    if pf * d ** m <= 1:
        return d ** m
    with mpmath.workdps(40):  # 40 digits: the nearest integer of a number < 2^64 is unambiguous
        k = int(mpmath.nint(d * _root(pf, m) / _mpq(pf)))
    return min(max(k, d), d ** m)


def _mpq(x: Fraction):
    return mpmath.mpf(x.numerator) / x.denominator


def _root(x: Fraction, m: int):
    return mpmath.root(_mpq(x), m)


def lower_bound_point(r: int, m: int, p: Any, mu: Any = "gaussian", k: int | None = None) -> dict:
    r"""One point of Theorem 4.2: exact :math:`a, b`, :math:`\sup_t \tilde L = a^2/b` for :math:`A = tM^{(k)}`
    (paper's k by default), the target :math:`\min(p d^m, d p^{1/m})` and their ratio (the constant)."""
    m = verify_odd_m(m)
    d = 2 ** verify_int(r, "r", minimum=1, maximum=frames.MAX_R)
    k = paper_k(d, m, p) if k is None else verify_int(k, "k", minimum=1, maximum=d ** m)
    a, b = numerator_denominator(frame_block_stats(r, m, k), p, mu)
    sup = a * a / b
    pf = as_fraction(p, "p")
    with mpmath.workdps(40):
        target = min(_mpq(pf) * d ** m, d * _root(pf, m))
        ratio = float(_mpq(sup) / target)
    return {"d": d, "m": m, "p": str(pf), "k": k, "a": a, "b": b, "sup": sup, "target": float(target),
            "ratio": ratio, "t_star_pow_m": a / b}


def F_attained(r: int, m: int) -> dict:
    r"""Remark 4.3: :math:`\mathcal F(sM) = 2 s^m N - s^{2m}\sum_{ij} M_{ij}^{2m}` maximised over the scale s:
    :math:`s^m = N/\Sigma`, :math:`\mathcal F^* = N^2/\Sigma`, :math:`\Sigma = N(1 + T_{2m})`; exact."""
    m = verify_odd_m(m)  # Remark 4.3 concerns phi(t) = t^m with m odd
    r = verify_int(r, "r", minimum=1, maximum=frames.MAX_R)
    st = frame_block_stats(r, m, 2 ** (r * m))
    (_, T), = st.rows
    N = 2 ** (r * m)
    Sigma = N * (1 + T[2 * m])
    F = Fraction(N * N) / Sigma
    return {"d": 2 ** r, "m": m, "N": N, "F": F, "F_over_d_m": F / N, "s_pow_m": Fraction(N) / Sigma,
            "T_2m": T[2 * m]}


def eq22_bound(d: int, m: int, p: Any, k: int) -> Fraction:
    r"""The right side of eq. (22) without its constant: :math:`\max(pk,\ p^m k (1 + k/d)^m)`."""
    d = verify_int(d, "d", minimum=1)
    m = verify_odd_m(m)
    k = verify_int(k, "k", minimum=1)
    pf = as_fraction(verify_probability(p, "p"), "p")
    return max(pf * k, pf ** m * k * (1 + Fraction(k, d)) ** m)
