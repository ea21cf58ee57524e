r"""The Delsarte LP bound and the best lower bound on coherence (:mod:`verify.numeric.frames.delsarte_lp`,
:func:`verify.numeric.frames.bounds.best_lower_bound`) against references written here.

References: the Gegenbauer polynomials as sympy's Jacobi polynomials :math:`P_n^{(a,a)}`, :math:`a = (d-3)/2`,
normalised at 1; the degree-1 LP's optimum in closed form (Welch's polynomial:
:math:`f(1) = d(1-x_0)/(1-dx_0)`); every certificate polynomial re-checked with sympy's real-root isolation (not
Sturm counting) and its bound evaluated at 1; the bound's sides by attainment (the simplex, the six diagonals of the
icosahedron, orthonormal bases) and by random frames, which no valid lower bound may exceed.
"""

import math
from fractions import Fraction

import numpy as np
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.numeric.frames import bounds as B
from verify.numeric.frames import delsarte_lp as D

REF = settings.get_profile("reference")
X, T = sympy.symbols("x t")


def gegenbauer_even(d: int, K: int) -> list:
    """[P_k(x) = Q_2k(sqrt x), k = 0..K] as sympy polynomials in x, Q_n = Jacobi^(a,a)_n / Jacobi^(a,a)_n(1)."""
    a = sympy.Rational(d - 3, 2)
    out = []
    for k in range(K + 1):
        q = sympy.jacobi(2 * k, a, a, T)
        q = sympy.expand(q / q.subs(T, 1))
        out.append(sympy.Poly(sympy.expand(q.subs(T, sympy.sqrt(X))), X, domain="QQ"))
    return out


@REF
@given(st.integers(2, 12), st.integers(0, 6))
def test_gegenbauer_x_against_jacobi(d, K):
    got = D.gegenbauer_x(d, K)
    for k, P in enumerate(gegenbauer_even(d, K)):
        coeffs = [Fraction(int(c.p), int(c.q)) for c in reversed(P.all_coeffs())]
        assert list(got[k]) == coeffs + [Fraction(0)] * (len(got[k]) - len(coeffs))
        assert sum(got[k]) == 1  # P_k(1) = Q_2k(1) = 1


@REF
@given(st.integers(2, 20), st.floats(0.0, 0.99), st.integers(16, 120), st.integers(2, 6))
def test_lp_value_degree_one_is_welch_and_higher_degrees_only_improve(d, frac, grid, K):
    x0 = frac / d * 1.02  # both sides of x0 = 1/d, where Welch's polynomial stops being feasible
    v1, f1 = D.lp_value(d, x0, 1, grid)
    if d * x0 < 1 - 1e-9:
        welch = d * (1 - x0) / (1 - d * x0)
        assert math.isclose(v1, welch, rel_tol=1e-7)
        assert f1.shape == (1,) and f1[0] >= 0 and math.isclose(1 + f1[0], v1, rel_tol=1e-12)
    elif d * x0 > 1 + 1e-9:
        assert v1 == math.inf and f1 is None
    vK, fK = D.lp_value(d, x0, K, grid)
    assert vK <= v1 * (1 + 1e-7)
    if fK is not None:
        # the returned polynomial is feasible on the grid's nodes and its value is f(1) = 1 + sum f_k
        assert np.all(fK >= -1e-12) and math.isclose(vK, 1 + fK.sum(), rel_tol=1e-12)
        xs = x0 * (1 - np.cos(np.pi * np.arange(grid) / (grid - 1))) / 2
        P = gegenbauer_even(d, K)
        vals = 1 + sum(float(fK[k - 1]) * np.array([float(P[k].eval(sympy.Float(x))) for x in xs])
                       for k in range(1, K + 1))
        assert vals.max() <= 1e-6 * max(1.0, vK)


@REF
@given(st.integers(2, 8), st.lists(st.fractions(0, 50, max_denominator=64), min_size=1, max_size=4),
       st.fractions(0, 1, max_denominator=64), st.fractions(0, 1, max_denominator=64))
def test_certify_lp_polynomial_against_root_isolation(d, fk, x0, c):
    # both sides of a known boundary: Welch's polynomial 1 + f_1 P_1, P_1 = (dx - 1)/(d - 1), is < 0 on [0, x0]
    # exactly when f_1 > (d - 1)/(1 - d x0); then the bound is f(1) = 1 + f_1
    if d * x0 < 1:
        edge = Fraction(d - 1) / (1 - d * x0)
        assert D.certify_lp_polynomial(d, [edge * (1 + Fraction(1, 1000))], x0, 0) == 1 + edge * (1 + Fraction(1, 1000))
        assert D.certify_lp_polynomial(d, [edge], x0, 0) is None  # g(x0) = 0: not strictly negative
        assert D.certify_lp_polynomial(d, [edge * (1 - Fraction(1, 1000))], x0, 0) is None
    got = D.certify_lp_polynomial(d, fk, x0, c)
    if c >= 1 or x0 >= 1:
        assert got is None
        return
    P = gegenbauer_even(d, len(fk))
    g = sympy.Poly(1 - sympy.Rational(c.numerator, c.denominator), X, domain="QQ")
    for k, v in enumerate(fk, start=1):
        g += P[k] * sympy.Rational(v.numerator, v.denominator)
    x0s = sympy.Rational(x0.numerator, x0.denominator)
    roots_inside = [z for z in sympy.real_roots(g) if 0 <= z <= x0s] if g.degree() > 0 else []
    negative = g.eval(0) < 0 and not roots_inside
    if not negative:
        assert got is None
    else:
        want = g.eval(1) / (1 - sympy.Rational(c.numerator, c.denominator))
        assert got == Fraction(int(want.p), int(want.q))


#: configurations attaining a coherence: (d, n, mu^2) (the simplex, the icosahedron's six diagonals)
ATTAINED = [(d, d + 1, Fraction(1, d * d)) for d in range(2, 7)] + [(3, 6, Fraction(1, 5))]


def check_lp_bound(b, d: int, n: int, K: int):
    """The certificate of ``b``, re-checked with sympy; returns x0."""
    x0 = Fraction(b.x0_exact)
    assert (b.d, b.n, b.degree) == (d, n, K)
    if n <= d:
        assert x0 == 0 and b.n_bound_exact == str(d)
        return x0
    coeffs = [Fraction(v) for v in b.coefficients]
    assert all(v >= 0 for v in coeffs) and 0 <= Fraction(b.c_exact) < 1
    P = gegenbauer_even(d, len(coeffs))
    g = sympy.Poly(1, X, domain="QQ")
    for k, v in enumerate(coeffs, start=1):
        g += P[k] * sympy.Rational(v.numerator, v.denominator)
    x0s = sympy.Rational(x0.numerator, x0.denominator)
    assert g.eval(0) < 0 and not [z for z in sympy.real_roots(g) if 0 <= z <= x0s]
    nb = g.eval(1)
    assert b.n_bound == Fraction(int(nb.p), int(nb.q)) and b.n_bound < n
    # mu: a float rounded down, within an ulp-scale of sqrt(x0); the float LP's mu is not below it
    assert Fraction(b.mu) ** 2 <= x0 and b.mu >= math.sqrt(float(x0)) * (1 - 1e-15)
    assert b.float_lp_mu >= b.mu * (1 - 1e-12)
    # every lower bound is at least Welch's (the degree-1 polynomial is in the LP), to the bisection's accuracy
    assert x0 >= B.welch_bound_sq(d, n) * (1 - Fraction(1, 10 ** 4))
    return x0


@settings(REF, max_examples=max(6, REF.max_examples // 2))
@given(st.sampled_from(ATTAINED), st.integers(1, 4), st.sampled_from([16, 40]))
def test_lp_bound_is_certified_and_below_attained_coherences(att, K, grid):
    d, n, mu2 = att
    b = D.lp_bound(d, n, K, grid)
    x0 = check_lp_bound(b, d, n, K)
    assert x0 < mu2  # the configuration exists: no valid bound reaches its coherence
    assert x0 >= mu2 * (1 - Fraction(1, 10 ** 4))  # and these are Welch-tight: the LP gets there


@settings(REF, max_examples=max(6, REF.max_examples // 2))
@given(st.integers(2, 6), st.integers(1, 60), st.integers(1, 3), st.integers(0, 2 ** 32 - 1))
def test_lp_bound_and_best_lower_bound_below_random_frames(d, n, K, seed):
    b = D.lp_bound(d, n, K, 24)
    x0 = check_lp_bound(b, d, n, K)
    V = np.random.default_rng(seed).standard_normal((d, n))
    V /= np.linalg.norm(V, axis=0)
    G = np.abs(V.T @ V)
    np.fill_diagonal(G, 0)
    if n > 1:
        assert float(x0) <= G.max() ** 2 * (1 + 1e-12)
    for lp in (False, True):
        lb = B.best_lower_bound(d, n, lp=lp)
        w2 = Fraction(n - d, d * (n - 1)) if n > d else Fraction(0)
        lev2 = Fraction(3 * n - d * d - 2 * d, (d + 2) * (n - d)) if 2 * n > d * (d + 1) else None
        cands = {"welch": w2, **({"levenstein": lev2} if lev2 is not None else {})}
        if lp:
            full = D.lp_bound(d, n)
            if n > d:
                cands["lp"] = Fraction(full.x0_exact)
            assert (lb.lp_x0, lb.lp_degree) == (full.x0_exact, full.degree)
        else:
            assert (lb.lp_x0, lb.lp_degree) == ("0", 0)
        best = max(cands.values())
        assert Fraction(lb.value_sq) == best and cands[lb.best] == best
        assert lb.welch_sq == str(w2) and lb.levenstein_sq == (None if lev2 is None else str(lev2))
        assert Fraction(lb.value) ** 2 <= best and lb.value >= math.sqrt(float(best)) * (1 - 1e-15)
        assert (lb.d, lb.n) == (d, n) and lb.as_dict()["value_sq"] == lb.value_sq
        if n > 1:
            assert float(best) <= G.max() ** 2 * (1 + 1e-12)
