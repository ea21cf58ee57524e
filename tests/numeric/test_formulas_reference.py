r"""Small public functions of the numeric and symbolic layers against textbook references written here: the
vectorisation and the label matrix of paper N (index formulas), the fitted order (closed-form least squares), the
frame of orthonormal columns, Theorem 3.1's and 3.2's constants (the stated formulas), Theorem 4.2's choice of k
and eq. (22) (exact rationals, integer search for the nearest integer), the Weil thresholds (integer search), the
Schur-complement ratio of Lemma A.2 (exact rationals, mpmath eigenvalues at 40 digits).
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.numeric import lower_bound as LB
from verify.numeric import perturbation as P
from verify.numeric import upper_bounds as UB
from verify.symbolic import frames as SF

REF = settings.get_profile("reference")


@REF
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 4), st.integers(1, 4), st.integers(0, 2 ** 32 - 1))
def test_vec_unvec_labels_block(rows, cols, K, n, seed):
    X = np.random.default_rng(seed).standard_normal((rows, cols))
    v = P.vec(X)
    assert v.shape == (rows * cols,) and all(v[j * rows + i] == X[i, j] for i in range(rows) for j in range(cols))
    assert np.array_equal(P.unvec(v, rows, cols), X)
    Y = P.labels(K, n)
    assert Y.shape == (K, K * n) and all(Y[k, j] == (j // n == k) for k in range(K) for j in range(K * n))
    d = rows
    F = np.arange((d * n * K) ** 2, dtype=float).reshape(d * n * K, d * n * K)
    k, kt = seed % K, (seed // 7) % K
    B = P.block(F, k, kt, d, n)
    assert all(B[i, j] == F[k * d * n + i, kt * d * n + j] for i in range(d * n) for j in range(d * n))


@REF
@given(st.lists(st.floats(0.01, 100), min_size=2, max_size=8, unique=True), st.floats(-4, 4), st.floats(0.1, 10))
def test_fitted_order_is_the_least_squares_slope(xs, slope, c):
    xs = np.array(xs)
    errs = c * xs ** slope
    lx, le = np.log(xs), np.log(errs)
    ref = ((lx - lx.mean()) * (le - le.mean())).sum() / ((lx - lx.mean()) ** 2).sum()
    got = P.fitted_order(xs, errs)
    assert abs(got - ref) <= 1e-8 * (1 + abs(ref)) and abs(got - slope) <= 1e-6 * (1 + abs(slope))


@REF
@given(st.integers(1, 8), st.data())
def test_orthonormal_frame(d, data):
    K = data.draw(st.integers(1, d))
    seed = data.draw(st.none() | st.integers(0, 1000))
    R = P.orthonormal_frame(d, K, seed)
    assert R.shape == (d, K) and np.abs(R.T @ R - np.eye(K)).max() <= 1e-12
    if seed is None:
        assert np.array_equal(R, np.eye(d)[:, :K])


@REF
@given(st.integers(1, 12), st.sampled_from([1, 3, 5]), st.fractions(Fraction(1, 10 ** 6), 1, max_denominator=10 ** 6),
       st.booleans(), st.sampled_from(["gaussian", "gaussian(1/4)", "uniform(3/2)", "laplace(1/3)", "rademacher"]))
def test_theorem_constants(d, m, p, sharp, mu):
    mu2 = {"gaussian": Fraction(1), "gaussian(1/4)": Fraction(1, 4), "uniform(3/2)": Fraction(3, 4),
           "laplace(1/3)": Fraction(2, 9), "rademacher": Fraction(1)}[mu]
    c2 = UB.thm31_constant(mu)
    assert Fraction(str(c2)) == mu2
    r = math.comb(d + m - 1, m) if sharp else d ** m
    assert Fraction(str(UB.thm31_bound(d, p, m, mu, sharp=sharp))) == mu2 * p * r
    Kc = 1 + p * 7  # Thm 3.2's K >= 1 (Poincare with f = y_i for an isotropic law)
    assert Fraction(str(UB.thm32_constant(Kc))) == Kc + Kc ** 3
    assert Fraction(str(UB.thm32_bound(d, Kc))) == (Kc + Kc ** 3) * d
    with pytest.raises(ValueError, match="'K'"):
        UB.thm32_bound(d, p / 2)  # below 1: no such law


@REF
@given(st.integers(2, 16), st.sampled_from([1, 3, 5]), st.fractions(Fraction(1, 10 ** 9), 1, max_denominator=10 ** 9),
       st.integers(1, 10 ** 4))
def test_paper_k_and_eq22(d, m, p, k):
    dm = d ** m
    if p * dm <= 1:
        ref = dm
    else:
        # the integer nearest to d p^(1/m) / p = d p^(1/m - 1): compare exact m-th powers, no floats
        target_m = Fraction(d ** m) * p ** (1 - m)   # (d p^{1/m}/p)^m
        lo = int(mpmath.floor(mpmath.root(mpmath.mpf(target_m.numerator) / target_m.denominator, m)))
        cands = [c for c in (lo - 1, lo, lo + 1, lo + 2) if c >= 0]
        # nearest integer to x = target^(1/m): c with |c - x| smallest; c <= x <=> c^m <= target
        below = max(c for c in cands if Fraction(c) ** m <= target_m)
        above = below + 1
        mid = Fraction(2 * below + 1, 2)
        ref = above if mid ** m < target_m else below
        ref = min(max(ref, d), dm)
    assert LB.paper_k(d, m, p) == ref
    assert LB.eq22_bound(d, m, p, k) == max(p * k, p ** m * k * (1 + Fraction(k, d)) ** m)
    assert LB.as_fraction(p) == p and LB.as_fraction(0.375) == Fraction(3, 8)


@REF
@given(st.integers(1, 60), st.booleans(), st.integers(1, 20))
def test_weil_bound_and_threshold(m, general, r):
    deg = (4 * m - 1) if general else (2 * m - 1)
    assert sympy.simplify(SF.weil_coherence_bound(r, m, general) - (deg - 1) * sympy.sqrt(2 ** r) / 2 ** r) == 0
    c = deg - 1
    t = 2
    while not (c * c < t):          # (deg P - 1)/sqrt(2^r) < 1  <=>  c^2 < 2^r
        t *= 2
    assert SF.weil_below_one_threshold(m, general) == t


@REF
@given(st.integers(2, 5), st.data())
def test_schur_ratio_against_exact_complement(N, data):
    k = data.draw(st.integers(1, N - 1))
    B = [[data.draw(st.integers(-5, 5)) for _ in range(N)] for _ in range(N)]
    eps = data.draw(st.sampled_from([Fraction(1), Fraction(1, 10 ** 6), Fraction(1, 3)]))
    A = sympy.Matrix(B) * sympy.Matrix(B).T + sympy.eye(N) * sympy.Rational(eps.numerator, eps.denominator)
    X = A[:k, k:] * A[k:, k:].inv() * A[k:, :k]
    with mpmath.workdps(40):
        ev = lambda S: max(mpmath.eigsy(mpmath.matrix([[mpmath.mpf(int(v.p)) / int(v.q) for v in S.row(i)]  # noqa: E731
                                                        for i in range(S.rows)]), eigvals_only=True))
        ref = ev(X) / ev(A)
    Af = np.array([[float(v) for v in A.row(i)] for i in range(N)])
    got = UB.schur_ratio(Af, k)
    assert abs(got - float(ref)) <= 1e-9 * max(1.0, float(ref))
