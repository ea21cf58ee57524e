r"""Theorem 3.1's tensor bound and Lemma A.3 (:mod:`verify.numeric.upper_bounds`) against references written here.

References: :math:`\mathcal M(W) = \operatorname{tr}(M\Sigma^+M^\top)` in the paper's own basis
:math:`y = (Wx)^{\otimes m}` (all :math:`d^m` products, not the monomial basis), every moment by expanding the
polynomial in sympy and replacing monomials by the coordinates' moments (:math:`\mathbb E x^e = p\,\mu_e`), the
pseudo-inverse by sympy; Lemma A.3's value by construction: :math:`\Sigma = GG^\top` with G of full column rank and
:math:`M = AG^\top` give :math:`\operatorname{tr}(M\Sigma^+M^\top) = \operatorname{tr}(AA^\top)` exactly (and the
maximiser :math:`C = M\Sigma^+`); exponent vectors by enumerating :math:`\{0..m\}^d`.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad

from verify import VerifyInputError
from verify.numeric import upper_bounds as UB

REF = settings.get_profile("reference")


def xi_moment(mu: str, e: int) -> Fraction:
    if e % 2:
        return Fraction(0)
    return Fraction(math.prod(range(e - 1, 0, -2))) if mu == "gaussian" else Fraction(1)


def expect(expr, xs, p: Fraction, mu: str) -> sympy.Rational:
    poly = sympy.Poly(sympy.expand(expr), *xs)
    total = Fraction(0)
    for mon, c in poly.terms():
        term = Fraction(int(c.p), int(c.q))
        for e in mon:
            if e:
                term *= p * xi_moment(mu, e)
        total += term
    return sympy.Rational(total.numerator, total.denominator)


@REF
@given(st.integers(1, 2), st.integers(1, 3), st.sampled_from([1, 3]), st.sampled_from(["gaussian", "rademacher"]),
       st.fractions(Fraction(1, 20), 1, max_denominator=20), st.data())
def test_tensor_bound_against_the_tensor_basis(d, n, m, mu, p, data):
    W = [[Fraction(data.draw(st.integers(-4, 4)), 4) for _ in range(n)] for _ in range(d)]
    eps = data.draw(st.sampled_from([None, Fraction(1, 2 ** 10), Fraction(1, 2 ** 14)]))
    if eps is not None and d == 2 and m == 1:
        # nearly parallel rows: Sigma's smallest eigenvalue ~ eps^2 of its largest, a genuine one that the float
        # route's rank cut must keep
        W[1] = [a + eps * b for a, b in zip(W[0], W[1])]
    xs = sympy.symbols(f"x0:{n}")
    z = [sum(sympy.Rational(w.numerator, w.denominator) * x for w, x in zip(row, xs)) for row in W]
    tups = list(itertools.product(range(d), repeat=m))
    y = [sympy.Mul(*[z[t] for t in tup]) for tup in tups]
    Sig = sympy.Matrix(len(y), len(y), lambda a, b: expect(y[a] * y[b], xs, p, mu))
    Mm = sympy.Matrix(n, len(y), lambda j, a: expect(xs[j] * y[a], xs, p, mu))
    value = (Mm * Sig.pinv() * Mm.T).trace()
    tb = UB.tensor_bound(W, p, m, mu, exact=True)
    assert tb.value == Fraction(int(sympy.nsimplify(value).p), int(sympy.nsimplify(value).q))
    assert tb.rank == Sig.rank()
    assert tb.exponents == UB.monomial_exponents(d, m)
    St, Mt = tb.tensor_basis(d, m)
    np.testing.assert_allclose(St, np.array(Sig.tolist(), dtype=float), rtol=1e-12, atol=0)
    np.testing.assert_allclose(Mt, np.array(Mm.tolist(), dtype=float), rtol=1e-12, atol=0)
    assert [Fraction(v) for v in tb.mean_y] == [Fraction(int(expect(sympy.Mul(*[z[i] for i, a in enumerate(e)
                                                                                   for _ in range(a)]), xs, p, mu).p),
                                                           int(expect(sympy.Mul(*[z[i] for i, a in enumerate(e)
                                                                                  for _ in range(a)]), xs, p, mu).q))
                                                  for e in tb.exponents]
    fl = UB.tensor_bound(np.array(W, dtype=float), float(p), m, mu, exact=False)
    assert math.isclose(fl.value, float(value), rel_tol=1e-8, abs_tol=1e-12) and fl.rank == tb.rank


@REF
@given(st.integers(1, 4), st.integers(0, 6))
def test_monomial_exponents_enumerated(d, m):
    want = sorted((a for a in itertools.product(range(m + 1), repeat=d) if sum(a) == m), reverse=True)
    assert UB.monomial_exponents(d, m) == want


@REF
@given(st.one_of(st.integers(-10 ** 30, 10 ** 30), st.fractions(max_denominator=10 ** 12),
                 st.floats(allow_nan=False, allow_infinity=False)))
def test_to_fraction_is_the_exact_value(x):
    assert UB.to_fraction(x) == Fraction(x)
    if not isinstance(x, float):
        f = Fraction(x)
        assert UB.to_fraction(sympy.Rational(f.numerator, f.denominator)) == f
    for bad in (sympy.sqrt(2), float("nan"), float("inf")):
        try:
            UB.to_fraction(bad)
        except VerifyInputError:
            continue
        raise AssertionError(f"{bad!r} accepted")


@REF
@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 4), st.sampled_from([1e-3, 1.0, 1e3]),
       st.integers(0, 2 ** 32 - 1))
def test_lemA3_value_objective_maximiser_and_eq11_by_construction(r, k, q, scale, seed):
    k = min(k, r)
    rng = np.random.default_rng(seed)
    G = rng.integers(-3, 4, size=(r, k)).astype(float)
    while np.linalg.matrix_rank(G) < k:
        G = rng.integers(-3, 4, size=(r, k)).astype(float)
    A = rng.integers(-3, 4, size=(q, k)).astype(float)
    Sigma, M = G @ G.T * scale, A @ G.T * scale
    # Sigma = s G G^T, M = s A G^T: tr(M Sigma^+ M^T) = s tr(A A^T) (the projection onto G's column space)
    want = scale * float(np.trace(A @ A.T))
    assert math.isclose(UB.lemA3_value(M, Sigma), want, rel_tol=1e-9, abs_tol=1e-12 * scale)
    Gs, As = sympy.Matrix(G.astype(int)), sympy.Matrix(A.astype(int))
    assert UB.lemA3_value(As * Gs.T, Gs * Gs.T) == (As * As.T).trace()
    # the objective: maximal at C = M Sigma^+ (value attained), below it elsewhere
    C = M @ np.linalg.pinv(Sigma)
    assert math.isclose(UB.lemA3_objective(C, M, Sigma), want, rel_tol=1e-7, abs_tol=1e-9 * scale)
    D = rng.standard_normal(C.shape)
    assert UB.lemA3_objective(C + D, M, Sigma) <= want * (1 + 1e-9) + 1e-9 * scale
    Cs = sympy.Matrix(rng.integers(-2, 3, size=(q, r)))
    assert UB.lemA3_objective(Cs, As * Gs.T, Gs * Gs.T) == \
        2 * (Cs * (As * Gs.T).T).trace() - (Cs * Gs * Gs.T * Cs.T).trace()
    best, Cb = UB.lemA3_maximise(M, Sigma, seed=seed % 1000)
    assert math.isclose(best, want, rel_tol=1e-6, abs_tol=1e-8 * scale) and Cb.shape == (q, r)
    # eq. (11): the terms sum to the value, each normalised polynomial has variance 1, the rank is k
    t = UB.eq11_terms(Sigma, M)
    assert t["rank"] == k and math.isclose(t["sum"], want, rel_tol=1e-7, abs_tol=1e-9 * scale)
    np.testing.assert_allclose(t["variances"], np.ones(k), rtol=1e-9)
    assert np.all(t["terms"] >= 0) and math.isclose(float(t["terms"].sum()), t["sum"], rel_tol=1e-12)


@REF
@given(st.sampled_from([10, 14, 18]), st.integers(1, 3), st.sampled_from(["gaussian", "rademacher"]))
def test_tensor_bound_float_route_keeps_genuine_small_eigenvalues(k, n, mu):
    """Two nearly parallel rows (w, w + 2^-k v): Sigma = p mu_2 W W^T has an eigenvalue ~ 4^-k of its largest, a genuine
    one; the float value must equal the exact one (a rank cut set too high drops it and loses its term)."""
    w = [Fraction(j + 1, 3) for j in range(n)]
    v = [Fraction((-1) ** j * (j + 2), 5) for j in range(n)]
    W = [w, [a + Fraction(1, 2 ** k) * b for a, b in zip(w, v)]]
    exact = UB.tensor_bound(W, Fraction(1, 2), 1, mu, exact=True)
    fl = UB.tensor_bound(np.array(W, dtype=float), 0.5, 1, mu, exact=False)
    assert exact.rank == min(2, n) == fl.rank
    # float pinv is accurate to about cond(Sigma) * eps: that (not a fixed tolerance) bounds the error
    assert math.isclose(fl.value, float(exact.value), rel_tol=100 * np.linalg.cond(fl.Sigma) * np.finfo(float).eps)
    # the reference: p mu_2 W W^T and M = p mu_2 W^T give tr(M Sigma^+ M^T) = p mu_2 rank(W)
    assert exact.value == Fraction(1, 2) * min(2, n)


@REF
@given(st.integers(1, 4), st.integers(0, 3), st.sampled_from([1e-3, 1.0, 1e3]), st.integers(0, 2 ** 32 - 1),
       st.sampled_from([1, 3, 5]))
def test_footnotes_3_and_4_against_index_sums(d, extra, scale, seed, m):
    n = d + extra
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((d, n)) * scale
    Wp, P = UB.footnote4_factor(W)
    assert Wp.shape == (d, d) and P.shape == (d, n)
    np.testing.assert_allclose(Wp @ P, W, rtol=0, atol=1e-12 * scale * n)
    np.testing.assert_allclose(P @ P.T, np.eye(d), rtol=0, atol=1e-12)
    # footnote 3 (ii): x supported on S, every side by explicit index sums
    x = rng.standard_normal(n) * (rng.random(n) < 0.6)
    S = [j for j in range(n) if x[j] != 0]
    A = [[sum(W[k, i] * W[k, j] for k in range(d)) for j in range(n)] for i in range(n)]
    out = [sum(A[i][j] * x[j] for j in range(n)) ** m for i in range(n)]
    left = sum(x[i] * out[i] for i in range(n)) - sum(o * o for o in out)
    outS = {i: sum(A[i][j] * x[j] for j in S) ** m for i in S}
    right = sum(x[i] * outS[i] for i in S) - sum(o * o for o in outS.values())
    third = sum(out[i] ** 2 for i in range(n) if i not in S)
    got = UB.footnote3_sides(W, x, m)
    mag = 1 + sum(o * o for o in out) + abs(sum(x[i] * out[i] for i in range(n)))
    for g, w in zip(got, (left, right, third)):
        assert abs(g - w) <= 1e-10 * mag
    assert abs(got[0] - (got[1] - got[2])) <= 1e-10 * mag


@settings(REF, max_examples=max(6, REF.max_examples // 2))
@given(st.integers(1, 2), st.integers(1, 3), st.sampled_from([1, 3]), st.sampled_from(["gaussian", "rademacher"]),
       st.sampled_from([Fraction(1, 4), Fraction(1, 2)]), st.data())
def test_scaling_coefficients_and_optimal_scale_against_exact_moments(d, n, m, mu, p, data):
    W = [[Fraction(data.draw(st.integers(-4, 4)), 4) for _ in range(n)] for _ in range(d)]
    xs = sympy.symbols(f"x0:{n}")
    Wm = sympy.Matrix([[sympy.Rational(w.numerator, w.denominator) for w in row] for row in W])
    A = Wm.T * Wm
    y = A * sympy.Matrix(xs)
    a = expect(sum(xs[i] * y[i] ** m for i in range(n)), xs, p, mu)
    b = expect(sum(y[i] ** (2 * m) for i in range(n)), xs, p, mu)
    Wf = np.array(W, dtype=float)
    ga, gb = UB.scaling_coefficients(Wf, float(p), m, mu)
    scale = 1 + float(abs(a)) + float(b)
    assert abs(ga - float(a)) <= 1e-9 * scale and abs(gb - float(b)) <= 1e-9 * scale
    Ws, val = UB.optimally_scaled(Wf, float(p), m, mu)
    if a > 0 and b > 0:
        s = float(a / b)
        np.testing.assert_allclose(Ws, s ** (1 / (2 * m)) * Wf, rtol=1e-8)
        assert math.isclose(val, float(a * a / b), rel_tol=1e-8)
    else:
        assert val == 0.0 and not np.any(Ws)


@REF
@given(st.integers(1, 4), st.integers(0, 5), st.integers(0, 2 ** 32 - 1))
def test_structured_candidates_are_what_they_are_named(d, extra, seed):
    n = d + extra
    c = UB.structured_candidates(d, n, seed)
    assert set(c) == {"diagonal", "random", "projection", "frame"} and all(v.shape == (d, n) for v in c.values())
    np.testing.assert_array_equal(c["diagonal"][:, :d], np.eye(d))
    assert not np.any(c["diagonal"][:, d:])
    np.testing.assert_allclose(c["projection"] @ c["projection"].T, np.eye(d), atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(c["frame"], axis=0), np.ones(n), rtol=1e-12)
    if d == 2:  # the harmonic frame: angles pi j / n
        ang = np.mod(np.arctan2(c["frame"][1], c["frame"][0]), np.pi)
        np.testing.assert_allclose(np.sort(ang), np.pi * np.arange(n) / n, atol=1e-12)
    again = UB.structured_candidates(d, n, seed)
    assert all(np.array_equal(c[k], again[k]) for k in c)


@settings(REF, max_examples=max(2, REF.max_examples // 12))
@given(st.sampled_from([0.5, 1, 3]))
def test_logcosh_gaussian_moments_against_scipy_quadrature(a):
    seq, K = UB.logcosh_gaussian(a, kmax=4, dps=20)
    assert K == 1 + sympy.nsimplify(a)
    # log cosh x = |x| + log1p(e^{-2|x|}) - log 2 (no overflow in the tails)
    v = lambda x: x * x / 2 + a * (abs(x) + math.log1p(math.exp(-2 * abs(x))) - math.log(2))  # noqa: E731
    Z = quad(lambda x: math.exp(-v(x)), -math.inf, math.inf, epsabs=0, epsrel=1e-13)[0]
    for k in range(1, 5):
        want = quad(lambda x: x ** k * math.exp(-v(x)), -math.inf, math.inf, epsabs=1e-14, epsrel=1e-13)[0] / Z
        assert math.isclose(float(seq.moment(k)), want, rel_tol=1e-9, abs_tol=1e-12)


@settings(REF, max_examples=max(5, REF.max_examples // 3))
@given(st.integers(1, 30), st.integers(1, 30), st.integers(-9, 9), st.integers(-3, 3))
def test_marginal_curvature_of_gaussians_is_the_schur_complement(al, ga, c, y0):
    """V = (alpha y^2 + gamma z^2)/2 + c y z with alpha gamma > c^2: the marginal of y is Gaussian with precision
    alpha - c^2/gamma (the Schur complement), at every y0."""
    alpha, gamma, cc = sympy.Rational(al, 4), sympy.Rational(ga, 4), sympy.Rational(c, 10)
    if alpha * gamma <= cc ** 2:
        cc = 0
    ys, zs = sympy.symbols("y z")
    got = UB.marginal_curvature((alpha * ys ** 2 + gamma * zs ** 2) / 2 + cc * ys * zs, ys, zs, y0)
    assert math.isclose(float(got), float(alpha - cc ** 2 / gamma), rel_tol=1e-8)
