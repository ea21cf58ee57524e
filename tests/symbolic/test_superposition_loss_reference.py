r"""Paper S's loss in sympy (:mod:`verify.symbolic.superposition_loss`) and in exact rationals
(:mod:`verify.numeric.upper_bounds`: cumulants, linear-form moments, eq. (19)'s parts) against brute force.

The reference expands nothing symbolically: :math:`\mathbb E[x_iy_i^m] = \sum_{j_1..j_m}A_{ij_1}\cdots A_{ij_m}
\mathbb E[x_ix_{j_1}\cdots x_{j_m}]` over all :math:`n^m` index tuples (and :math:`n^{2m}` for
:math:`\mathbb E y_i^{2m}`), each expectation a product over the distinct indices of one coordinate's raw moments
(independence). The moments are arbitrary rationals (the identities are polynomial in them), non-centred ones where
the function allows any law.
"""

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.numeric import upper_bounds as UB
from verify.symbolic import superposition_loss as SS

REF = settings.get_profile("reference")


def expect(idx, mom) -> Fraction:
    """E[prod x_j for j in idx] for i.i.d. coordinates with raw moments ``mom[k]``."""
    return math.prod((mom[c] for c in Counter(idx).values()), start=Fraction(1))


def brute_parts(A, m: int, mom) -> tuple:
    n = len(A)
    a = b = Fraction(0)
    for i in range(n):
        for js in itertools.product(range(n), repeat=m):
            a += math.prod((A[i][j] for j in js), start=Fraction(1)) * expect((i,) + js, mom)
        for js in itertools.product(range(n), repeat=2 * m):
            b += math.prod((A[i][j] for j in js), start=Fraction(1)) * expect(js, mom)
    return a, b


def cumulants_from(mom) -> list:
    kap = [Fraction(0)] * len(mom)
    for k in range(1, len(mom)):
        kap[k] = mom[k] - sum(math.comb(k - 1, j - 1) * kap[j] * mom[k - j] for j in range(1, k))
    return kap


rat = st.fractions(-3, 3, max_denominator=7)


@st.composite
def small_W(draw, d_max=2, n_max=3):
    d, n = draw(st.integers(1, d_max)), draw(st.integers(1, n_max))
    return [[draw(rat) for _ in range(n)] for _ in range(d)]


def gram(W):
    d, n = len(W), len(W[0])
    return [[sum(W[k][i] * W[k][j] for k in range(d)) for j in range(n)] for i in range(n)]


@settings(REF, max_examples=max(4, REF.max_examples // 2))
@given(small_W(), st.sampled_from([1, 3]), st.fractions(Fraction(1, 100), 1, max_denominator=100),
       st.lists(st.fractions(Fraction(1, 10), 20, max_denominator=50), min_size=6, max_size=6))
def test_symbolic_loss_and_brute_force_against_index_sums(W, m, pv, muv):
    """loss_of_W, loss_expression and brute_force_loss at numeric p and moments (symmetric law: odd moments 0)."""
    mus = {2 * (k + 1): muv[k] for k in range(6)}
    mom = [Fraction(1)] + [pv * mus[k] if k % 2 == 0 else Fraction(0) for k in range(1, 2 * m + 2)]
    A = gram(W)
    a, b = brute_parts(A, m, mom)
    ref = 2 * a - b
    subs = {SS.p: sympy.Rational(pv.numerator, pv.denominator)}
    subs.update({SS.mu(k): sympy.Rational(v.numerator, v.denominator) for k, v in mus.items()})
    Ws = sympy.Matrix([[sympy.Rational(v.numerator, v.denominator) for v in row] for row in W])
    assert sympy.Rational(SS.loss_of_W(Ws, m).subs(subs)) == ref
    assert sympy.Rational(SS.loss_expression(Ws.T * Ws, m).subs(subs)) == ref
    bf = SS.brute_force_loss(Ws.T * Ws, m, moments=lambda k: subs[SS.mu(k)]).subs(subs)
    assert sympy.Rational(bf) == ref
    # x_moment / x_cumulant / moment_from_cumulants: the moments of one coordinate and back
    for k in range(0, 2 * m + 1):
        assert sympy.Rational(SS.x_moment(k).subs(subs)) == mom[k]
    kap = cumulants_from(mom)
    for k in range(1, 2 * m + 1):
        assert sympy.Rational(SS.x_cumulant(k).subs(subs)) == kap[k]
        ks = [sympy.Integer(0)] + [sympy.Rational(v.numerator, v.denominator) for v in kap[1:k + 1]]
        assert sympy.Rational(SS.moment_from_cumulants(k, ks)) == mom[k]


@settings(REF, max_examples=max(4, REF.max_examples // 2))
@given(small_W(), small_W(), st.sampled_from([1, 3]))
def test_symbolic_gradient_is_the_derivative_of_the_index_sums(W, D, m):
    r""":math:`\langle\nabla\tilde L, D\rangle` = the derivative at 0 of the brute-force loss along :math:`W + tD`
    (a polynomial of degree :math:`\le 4m` in t, differentiated exactly through its values at :math:`4m + 1`
    points); moments of N(0, 1) and p = 1/3."""
    n = min(len(W[0]), len(D[0]))
    d = min(len(W), len(D))
    W = [row[:n] for row in W[:d]]
    D = [row[:n] for row in D[:d]]
    pv = Fraction(1, 3)
    mom = [Fraction(1)] + [pv * math.prod(range(k - 1, 0, -2)) if k % 2 == 0 else Fraction(0)
                           for k in range(1, 2 * m + 2)]
    ts = list(range(-2 * m, 2 * m + 1))
    vals = []
    for t in ts:
        Wt = [[W[k][j] + t * D[k][j] for j in range(n)] for k in range(d)]
        a, b = brute_parts(gram(Wt), m, mom)
        vals.append(2 * a - b)
    deriv = Fraction(0)
    for i, ti in enumerate(ts):
        others = [tj for tj in ts if tj != ti]
        deriv += vals[i] * Fraction(sum(math.prod(-tj for tj in others if tj != tk) for tk in others),
                                    math.prod(ti - tj for tj in others))
    Ws = sympy.Matrix([[sympy.Rational(v.numerator, v.denominator) for v in row] for row in W])
    G = SS.grad_expression(Ws, m).subs({SS.p: sympy.Rational(1, 3)})
    G = G.subs({SS.mu(k): sympy.Integer(math.prod(range(k - 1, 0, -2))) for k in range(2, 2 * m + 1, 2)})
    got = sum(G[k, j] * sympy.Rational(D[k][j].numerator, D[k][j].denominator) for k in range(d) for j in range(n))
    assert sympy.Rational(got) == deriv


@REF
@given(st.integers(1, 3), st.sampled_from([1, 3, 5]), st.data())
def test_F_objective_and_diagonal_case_formulas(n, m, data):
    B = [[data.draw(rat) for _ in range(n)] for _ in range(n)]
    B = [[B[i][j] if i <= j else B[j][i] for j in range(n)] for i in range(n)]
    ref = 2 * sum(B[i][i] ** m for i in range(n)) - sum(B[i][j] ** (2 * m) for i in range(n) for j in range(n))
    Bs = sympy.Matrix([[sympy.Rational(v.numerator, v.denominator) for v in row] for row in B])
    assert sympy.Rational(SS.F_objective(Bs, m)) == ref
    # eq. (9): a 1 x 1 A = (a): 2 E[x (a x)^m] - E[(a x)^{2m}] with the brute force
    a = data.draw(rat)
    pv, muv = Fraction(2, 5), {k: Fraction(k + 1, 3) for k in range(2, 2 * m + 1, 2)}
    mom = [Fraction(1)] + [pv * muv[k] if k % 2 == 0 else Fraction(0) for k in range(1, 2 * m + 2)]
    ea, eb = brute_parts([[a]], m, mom)
    subs = {SS.p: sympy.Rational(2, 5), SS.a: sympy.Rational(a.numerator, a.denominator)}
    subs.update({SS.mu(k): sympy.Rational(v.numerator, v.denominator) for k, v in muv.items()})
    assert sympy.Rational(SS.diagonal_case(m).subs(subs)) == 2 * ea - eb


@REF
@given(small_W(d_max=2, n_max=3), st.sampled_from([1, 3]),
       st.lists(st.fractions(-2, 2, max_denominator=9), min_size=7, max_size=7))
def test_loss_parts_any_law_against_index_sums(W, m, raw):
    """Eq. (19)'s (a, b) and the loss for a non-centred, asymmetric coordinate law given by its cumulants."""
    mom = [Fraction(1)] + [Fraction(raw[k - 1]) + (Fraction(k) if k % 2 == 0 else 0) for k in range(1, 2 * m + 2)]
    kap = cumulants_from(mom)
    Wo = np.array(W, dtype=object)
    a, b = UB.loss_parts(Wo, kap, m)
    ra, rb = brute_parts(gram(W), m, mom)
    assert (a, b) == (ra, rb)
    assert UB.general_loss(Wo, kap, m) == 2 * ra - rb


@REF
@given(st.integers(1, 3), st.integers(0, 4), st.data())
def test_linear_form_moment_and_coordinate_cumulants(n, T, data):
    L = [[data.draw(rat) for _ in range(n)] for _ in range(T)]
    raw = [Fraction(1)] + [data.draw(st.fractions(-2, 2, max_denominator=5)) for _ in range(max(T, 1))]
    kap = cumulants_from(raw)
    ref = sum((math.prod((L[t][js[t]] for t in range(T)), start=Fraction(1)) * expect(js, raw)
               for js in itertools.product(range(n), repeat=T)), Fraction(0))
    got = UB.linear_form_moment(np.array(L, dtype=object).reshape(T, n), kap)
    assert got == ref
    pv = data.draw(st.fractions(Fraction(1, 50), 1, max_denominator=50))
    mom = [Fraction(1)] + [pv * (math.prod(range(k - 1, 0, -2)) if k % 2 == 0 else 0) for k in range(1, 7)]
    assert UB.coordinate_cumulants("gaussian", pv, 6) == cumulants_from(mom)
