r"""Paper S, the lower bound (Thm 4.2, eqs. 19-22): every computational route to a claim's quantity, agreeing.

The quantities of eqs. (19)-(22), Thm 4.2 and Remark 4.3 are run through the routes and spellings a user passes and
the other checks leave unrun (:mod:`verify.route_map` measures, per claim, the branch coverage of the package
functions its checks execute): the frame statistics with the trace of :math:`\psi` untabulated (the route of large
r), the law as a name, a :class:`Distribution` or a moment list, p as a Fraction or a sympy Rational, the loss at
the frame point by every route of ``exact_loss``, and eq. (19)'s a and b by the Gauss rule of a finite-support law
(Rademacher, whose moment matrix is singular). Each is compared with an independent route (exact rationals, the
tabulated trace, galois arithmetic) and the claim's statement is asserted on both sides where it is a bound. Laws
have non-unit moments, d > 1, p < 1.
"""

from __future__ import annotations

from fractions import Fraction
import math

import numpy as np
import pytest
import sympy

from verify.numeric import lower_bound as L
from verify.numeric.distributions import get_distribution, Laplace
from verify.route_map import inject
from verify.statements import constants

from proofs_checks.S._routes import _every_route, _exact_route_inputs



# --------------------------------------------------------------------------- Thm 4.2, eqs. (19)-(22), Remark 4.3
# (r, m, k): a full block (k = d^m, Remark 4.3's frame), a partial block (the XOR convolutions), m = 1
_BLOCKS = [(2, 3, 64), (3, 3, 40), (3, 1, 8)]


@pytest.mark.claim("S-eq19", "S-eq21", "S-eq22", "S-thm4.2", "S-rem4.3-attained", "S-rem4.3-bound")
def test_frame_statistics_by_the_untabulated_trace_equal_the_tabulated(verdict, monkeypatch):
    r"""The exact off-diagonal power sums :math:`T_e` of :math:`M^{(k)}` that eqs. (19)-(22), Thm 4.2 and Remark
    4.3's :math:`\mathcal F^*` are computed from, with the trace of :math:`\psi(\sum_j c_j x^{2j+1})` untabulated
    (the route of r > 12, ``TABLE_MAX_R`` injected 0: parities of :math:`\beta(c)\,\&\,x^{2j+1}` instead of table
    rows) equal the tabulated ones exactly, row pattern by row pattern, and so do :math:`\mathcal F^*` and the
    exact (a, b) at p = 1/8 under Laplace; eq. (21)'s :math:`a \ge p\mu_{m+1}k` holds for both."""
    from verify.numeric import frames

    rows = []
    for r, m, k in _BLOCKS:
        tab = L.frame_block_stats(r, m, k)
        full = k == 2 ** (r * m)
        F_tab = L.F_attained(r, m) if full else None
        L.frame_block_stats.cache_clear()                                    # recomputed, not the cached tables
        with monkeypatch.context() as mp:
            inject(mp, "TABLE_MAX_R", 0, package="verify.numeric")
            assert frames.field.TABLE_MAX_R == 0
            untab = L.frame_block_stats(r, m, k)
            F_untab = L.F_attained(r, m) if full else None
        L.frame_block_stats.cache_clear()
        assert F_untab == F_tab                                              # Remark 4.3's F*, exactly
        assert sorted(map(repr, untab.rows)) == sorted(map(repr, tab.rows)) and untab.rows
        a, b = L.numerator_denominator(untab, Fraction(1, 8), "laplace")
        assert (a, b) == L.numerator_denominator(tab, Fraction(1, 8), "laplace")
        # the law as a Distribution / moment list and p = 1/8 as a float (exactly 1/8): the same exact (a, b)
        lap = get_distribution("laplace")
        for law in (lap, [lap.moment(e) for e in range(1, 2 * m + 1)]):
            assert L.numerator_denominator(tab, 0.125, law) == (a, b)
        assert L.numerator_denominator(tab, 0.125, "rademacher") == L.numerator_denominator(
            tab, Fraction(1, 8), [1 - k % 2 for k in range(1, 2 * m + 1)])   # Rademacher: even moments 1
        assert a >= Fraction(1, 8) * L.as_fraction(get_distribution("laplace").moment(m + 1)) * k   # eq. (21)
        rows.append({"r": r, "m": m, "k": k, "patterns": len(tab.rows), "a": str(a), "b": str(b)})
    verdict.verified(method="exact: frame statistics by the untabulated trace == tabulated (TABLE_MAX_R injected)",
                     evidence={"cases": rows})


@pytest.mark.claim("S-eq19", "S-eq21", "S-eq22", "S-thm4.2")
def test_lower_bound_point_by_every_law_spelling_and_number_type_of_p(verdict):
    r"""Thm 4.2's point (exact a, b of eq. (19), :math:`\sup_t\tilde L = a^2/b`, the ratio to the target) with the
    law as the name "laplace(2)", a :class:`Laplace` Distribution and its moment list, and p as Fraction and as
    a sympy Rational: all identical to the name spelling with a Fraction p, exactly (d = 4 at the paper's k on
    both sides of p = d^-m, d = 8 at k = 24, m = 3); eq. (21)'s :math:`a \ge p\mu_{m+1}k` asserted at each."""
    lap = Laplace(2)
    mom = [int(lap.moment(k)) for k in range(1, 7)]                        # integers: (2k)! b^2k
    assert mom == [lap.moment(k) for k in range(1, 7)]
    rows = []
    # p = 1/100 <= d^-m: the paper's k is d^m (the whole frame); p = 1/16: the nearest-integer k of footnote 6
    for r, p, k in ((2, Fraction(1, 100), None), (2, Fraction(1, 16), None), (3, Fraction(1, 5), 24)):
        ref = L.lower_bound_point(r, 3, p, "laplace(2)", k=k)
        for law in (lap, mom):
            # p as a float too where it is dyadic (exactly the same rational)
            for pp in (p, sympy.Rational(p.numerator, p.denominator), *([float(p)] if p.denominator == 16 else [])):
                got = L.lower_bound_point(r, 3, pp, law, k=k)
                assert (got["a"], got["b"], got["k"], got["ratio"]) == (ref["a"], ref["b"], ref["k"], ref["ratio"])
        assert ref["a"] >= p * Fraction(lap.moment(4)) * ref["k"]          # eq. (21)
        rows.append({"r": r, "p": str(p), "k": ref["k"], "ratio": ref["ratio"]})
    verdict.verified(method="exact: lower_bound_point by every law spelling and p type == the name spelling",
                     evidence={"cases": rows})


def _frame_W(r, m, k, p, mu):
    """Eq. (20)'s point: W = sqrt(t*) V (the first k columns of Lemma A.4's frame, t*^m = a/b) in float64, and the
    exact (a, b) of eq. (19) and sup_t = a^2/b."""
    from verify.numeric import frames

    a, b = L.numerator_denominator(L.frame_block_stats(r, m, k), p, mu)
    V = frames.build_frame(r, m, n_columns=k).dense()
    return math.sqrt(float(a / b) ** (1 / m)) * V, V, a, b


@pytest.mark.claim("S-eq19", "S-thm4.2", "S-rem4.3-attained")
def test_frame_point_loss_by_every_route_is_a2_over_b(verdict, monkeypatch):
    r"""Eqs. (19)-(20) at the frame point :math:`W = \sqrt{t^*}V` (m = 3; d = 4 with k = 8 columns, and the full
    frame of d = 2, k = d^m = 8, of Remark 4.3 / Thm 4.2 at p = 1/8 = d^-m, the paper's k there): the loss by
    every route of ``exact_loss`` equals the exact rational loss at W, which is :math:`2sa - s^2b \le a^2/b` for
    W's float scale s and within 1e-12 of it (s is t* rounded); at dps 30 with the exact irrational :math:`t^*`
    (sympy entries of A = t* M, the small block) the loss is a^2/b to 1e-25, and the float route of
    ``exact_loss_from_A`` agrees. Remark 4.3's limit: at the full frame :math:`a^2/(bp) \to (\mu_4^2/\mu_6)
    \mathcal F^*` with an exact remainder falling ~10x per decade of p (between 5x and 20x)."""
    import mpmath

    from verify.numeric.superposition_loss import exact_loss_from_A

    rows = []
    for r, m, k, p, mu in ((2, 3, 8, Fraction(1, 4), "laplace"), (1, 3, 8, Fraction(1, 8), "uniform")):
        W, V, a, b = _frame_W(r, m, k, p, mu)
        c = constants("S-eq19", m=m)  # eq. (20)'s constant and exponents, from its statement object
        sup = Fraction(str(c["C"])) * a ** int(c["e_a"]) * b ** int(c["e_b"])
        exact = _every_route(monkeypatch, W, p, m, mu)
        assert sup * (1 - Fraction(1, 10 ** 12)) <= exact <= sup
        if k <= 8:   # sympy's evaluation of k^2 irrational entries: the small block only
            M = sympy.Matrix(np.round(V.T @ V * 2 ** r).astype(int)) / 2 ** r      # V^T V: dyadic, exact in float64
            t_star = sympy.Rational(a.numerator, a.denominator) / sympy.Rational(b.numerator, b.denominator)
            A = t_star ** sympy.Rational(1, m) * M                             # t* M, t* irrational
            with mpmath.workdps(30):
                v = exact_loss_from_A(A, p, m, mu, dps=30)
                assert abs(v - mpmath.mpf(sup.numerator) / sup.denominator) <= mpmath.mpf(10) ** -25 * abs(v)
            vf = exact_loss_from_A(np.array(A.evalf(20).tolist(), dtype=float), float(p), m, mu)
            assert abs(vf - float(sup)) <= 1e-12 * float(sup)              # float64: sums of k^2 terms
        rows.append({"k": k, "p": str(p), "mu": mu, "sup": float(sup)})
    dist = get_distribution("uniform")
    limit = Fraction(dist.moment(4)) ** 2 / Fraction(dist.moment(6)) * L.F_attained(1, 3)["F"]
    gaps = []
    for p in (Fraction(1, 10 ** 4), Fraction(1, 10 ** 5)):
        a, b = L.numerator_denominator(L.frame_block_stats(1, 3, 8), p, "uniform")
        gaps.append(abs(a * a / (b * p) - limit))
    assert 0 < gaps[1] and gaps[0] / 20 < gaps[1] < gaps[0] / 5
    _exact_route_inputs("uniform", Fraction(1, 8))
    verdict.verified(method="num: every exact_loss route at the frame point vs exact rationals, two-sided against "
                            "a^2/b; dps 30 with exact t*; Remark 4.3's p -> 0 limit exact",
                     evidence={"cases": rows, "limit_gaps": [float(g) for g in gaps]})


@pytest.mark.claim("S-eq19", "S-eq22")
def test_eq19_a_b_by_the_gauss_rule_of_a_finite_support_law(verdict):
    r"""Eq. (19)'s a, b without the row polynomial - :math:`\tilde L(u^{1/2m}V)` by the tensor Gauss rule
    (``quadrature_moment``) at u = 1 and 1/2, solved from :math:`\tilde L = 2ua - u^2b` - under Rademacher, whose
    moment matrix is singular (two atoms: the rule stops at its support, the finite-support branch), equal the
    exact a, b of the frame statistics to 1e-10 (float64 sums of 3^k terms), d = 4, m = 3, k = 5, p = 3/10."""
    from verify.numeric import frames
    from verify.numeric.distributions import MomentSequence
    from verify.numeric.superposition_loss import quadrature_moment

    nodes, weights = MomentSequence([0, 1, 0, 1, 0, 1, 0, 1]).quadrature()
    assert np.allclose(np.sort(nodes), [-1, 1], atol=1e-14) and np.allclose(weights, 0.5, atol=1e-14)
    r, m, k, p = 2, 3, 5, Fraction(3, 10)
    V = frames.build_frame(r, m, n_columns=k).dense()
    vals = [quadrature_moment(u ** (1 / (2 * m)) * V, float(p), m, "rademacher") for u in (1.0, 0.5)]
    b_q = 2 * (2 * vals[1] - vals[0])                      # L(1) - 2 L(1/2) = -b/2 (u and u^2 of the form)
    a_q = (vals[0] + b_q) / float(constants("S-eq19", m=m)["C_a"])   # L(1) = C_a a - b, C_a of the statement
    a, b = L.numerator_denominator(L.frame_block_stats(r, m, k), p, "rademacher")
    assert abs(a_q - float(a)) <= 1e-10 * float(a) and abs(b_q - float(b)) <= 1e-10 * float(b)
    verdict.verified(method="num: tensor Gauss rule of the Rademacher law (finite support) vs exact a, b",
                     evidence={"a": str(a), "b": str(b), "a_q": a_q, "b_q": b_q})


