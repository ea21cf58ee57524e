r"""Eqs. (19)-(20) of paper S (:mod:`verify.symbolic.lower_bound`) against references written here: the homogeneity
of the row terms checked by evaluating them at random rationals before and after the scaling (not by expanding
the defect), the optimum of :math:`g(u) = 2ua - u^2b` by its value on a grid around it and at random points.
"""

from fractions import Fraction

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.symbolic import lower_bound as SLB
from verify.symbolic import superposition_loss as sym

REF = settings.get_profile("reference")


@REF
@given(st.sampled_from([1, 3, 5]), st.data())
def test_homogeneity_of_the_row_terms_at_random_rationals(m, data):
    cross, square = sym.row_cross_and_square(m)
    assert SLB.homogeneity_defect(m) == (0, 0)
    rnd = lambda: sympy.Rational(data.draw(st.integers(-50, 50)), data.draw(st.integers(1, 30)))  # noqa: E731
    t = sympy.Rational(data.draw(st.integers(1, 40)), data.draw(st.integers(1, 9)))
    vals = {s: rnd() for s in (cross.free_symbols | square.free_symbols)}
    scaled = dict(vals)
    scaled[sym.a] = t * vals[sym.a]
    for e in range(2, 2 * m + 1, 2):
        if sym.T(e) in vals:
            scaled[sym.T(e)] = t ** e * vals[sym.T(e)]
    assert cross.subs(scaled) == t ** m * cross.subs(vals)
    assert square.subs(scaled) == t ** (2 * m) * square.subs(vals)


@REF
@given(st.sampled_from([1, 3, 5]), st.fractions(Fraction(1, 100), 100), st.fractions(Fraction(1, 100), 100))
def test_optimised_t_is_the_maximum_of_g(m, a, b):
    res = SLB.optimised_t(m)
    A, B = sympy.Rational(a.numerator, a.denominator), sympy.Rational(b.numerator, b.denominator)
    sub = {SLB.a_sym: A, SLB.b_sym: B}
    u_star, sup = res["u_star"].subs(sub), res["sup"].subs(sub)
    assert u_star == A / B and sup == A ** 2 / B and res["second_derivative"].subs(sub) == -2 * B
    assert sympy.simplify(res["t_star"].subs(sub) ** m - A / B) == 0
    g = res["g"]
    for tv in [sympy.Rational(k, 7) for k in range(1, 30)] + [res["t_star"].subs(sub)]:
        val = g.subs(sub).subs(SLB.t_sym, tv)
        assert sympy.simplify(val - (2 * tv ** m * A - tv ** (2 * m) * B)) == 0
        assert sympy.simplify(sup - val) >= 0   # no t beats the supremum
    assert sympy.simplify(g.subs(sub).subs(SLB.t_sym, res["t_star"].subs(sub)) - sup) == 0  # and it is attained
