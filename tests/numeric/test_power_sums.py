"""Tests of verify/numeric/power_sums.py: the monomial basis, the power-sum tensors, and the linear-in-n route of
the exact loss and its gradient against the A-based (gram) route of verify/numeric/superposition_loss.py."""

import doctest
import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

import verify.numeric.power_sums as PS
from verify import VerifyInputError
from verify.numeric.superposition_loss import exact_loss, exact_loss_grad, power_sums


def _fraction_W(rng, d, n, den=7):
    return np.array([[Fraction(int(v), den) for v in row] for row in rng.integers(-6, 7, size=(d, n))], dtype=object)


def test_doctests():
    assert doctest.testmod(PS, raise_on_error=False).failed == 0


@pytest.mark.parametrize("d,k", [(1, 4), (3, 0), (3, 5), (5, 3), (10, 6)])
def test_monomial_table(d, k):
    E = PS.monomial_exponents(d, k)
    assert E.shape == (math.comb(d + k - 1, k), d) == (PS.monomial_count(d, k), d)
    assert np.all(E.sum(axis=1) == k) and np.all(E >= 0)
    assert len({tuple(e) for e in E}) == len(E)            # every monomial exactly once
    # sum of the multinomial coefficients of degree k in d variables is d^k (all-ones vectors)
    assert sum(PS.multinomial_weights(d, k)) == d ** k


@pytest.mark.parametrize("k", [0, 1, 2, 3, 5])
def test_multinomial_identity_exact(k):
    """(x.y)^k = sum_alpha binom(k, alpha) x^alpha y^alpha, in exact rationals."""
    rng = np.random.default_rng(k)
    X = _fraction_W(rng, 3, 4).T                         # 4 points x in R^3
    Y = _fraction_W(rng, 3, 3).T                         # 3 points y in R^3
    wts = PS.multinomial_weights(3, k)
    FX, FY = PS.monomials(X, k)[k], PS.monomials(Y, k)[k]
    for i, j in itertools.product(range(len(X)), range(len(Y))):
        assert sum(w * a * b for w, a, b in zip(wts, FX[i], FY[j])) == sum(X[i] * Y[j]) ** k


@pytest.mark.parametrize("k", [1, 2, 3])
def test_power_sum_tensor_and_contraction_exact(k):
    """S_2k in the monomial basis (read off the moment matrix) is sum_j w_j^alpha; contracting it with
    x^(2k) gives sum_j (x.w_j)^(2k): exact rationals, so any index or weight error shows."""
    rng = np.random.default_rng(10 + k)
    W = _fraction_W(rng, 3, 5)
    S = PS.power_sum_tensor(W, k)
    E = PS.monomial_exponents(3, 2 * k)
    for a, alpha in enumerate(E):
        assert S[a] == sum(math.prod(W[r, j] ** int(alpha[r]) for r in range(3)) for j in range(5))
    A = W.T @ W
    assert list(PS.contract(S, W.T, 2 * k)) == [sum(A[i, j] ** (2 * k) for j in range(5)) for i in range(5)]


@pytest.mark.parametrize("m", [1, 3, 5])
def test_row_power_sums_exact_rationals(m):
    rng = np.random.default_rng(m)
    W = _fraction_W(rng, 3, 6)
    A = W.T @ W
    diag, T = PS.row_power_sums(W, m, chunk=4)           # two row chunks
    assert list(diag) == [A[i, i] for i in range(6)]
    for l, t in enumerate(T, start=1):
        assert list(t) == [sum(A[i, j] ** (2 * l) for j in range(6) if j != i) for i in range(6)]


@pytest.mark.parametrize("m", [1, 3, 5])
@pytest.mark.parametrize("mu", ["gaussian", "rademacher", "uniform"])
def test_loss_routes_agree_float(m, mu):
    rng = np.random.default_rng(20 + m)
    W = rng.normal(size=(4, 60)) * 0.5
    for p in (1e-3, 0.3, 1.0):
        a = exact_loss(W, p, m, mu, route="gram")
        b = exact_loss(W, p, m, mu, route="power_sums")
        # two float64 evaluations of the same polynomial; the power-sum route sums signed monomial terms
        # (condition ~ sum (|w_i|.|w_j|)^2m / sum (w_i.w_j)^2m, O(10) here): 1e-12 relative is ~100x round-off
        assert abs(a - b) <= 1e-12 * abs(a)


@settings(max_examples=25, deadline=None)
@given(d=hs.integers(1, 5), n=hs.integers(1, 40), m=hs.sampled_from([1, 3, 5]), seed=hs.integers(0, 10**6),
       logp=hs.floats(-4, 0), scale=hs.floats(0.2, 2.0))
def test_loss_routes_agree_property(d, n, m, seed, logp, scale):
    W = np.random.default_rng(seed).normal(size=(d, n)) * scale
    p = 10.0 ** logp
    a = exact_loss(W, p, m, route="gram")
    b = exact_loss(W, p, m, route="power_sums")
    # relative to the sum of the row terms' magnitudes: the loss itself can cancel to ~0 (mixed-sign rows)
    diag, T = power_sums(W.T @ W, m)
    scale_ref = max(abs(a), float(np.sum(diag ** (2 * m))) * p, 1e-300)
    assert abs(a - b) <= 1e-12 * max(abs(a), 1e-3 * scale_ref)


@pytest.mark.parametrize("m", [1, 3, 5])
def test_loss_routes_agree_mpmath(m):
    """At 50 digits the two routes agree to ~45 digits: the algebra is exact, only round-off differs."""
    W = np.random.default_rng(30 + m).normal(size=(3, 7)) * 0.6
    a = exact_loss(W, 0.05, m, dps=50, route="gram")
    b = exact_loss(W, 0.05, m, dps=50, route="power_sums")
    with mpmath.workdps(50):
        assert abs(a - b) <= mpmath.mpf(10) ** -45 * abs(a)   # 5 digits of the 50 for the signed sums


@pytest.mark.parametrize("m", [1, 3, 5])
def test_grad_routes_agree(m):
    rng = np.random.default_rng(40 + m)
    W = rng.normal(size=(5, 50)) * 0.5
    for p in (1e-3, 0.5):
        g = exact_loss_grad(W, p, m, route="gram")
        h = exact_loss_grad(W, p, m, route="power_sums")
        # float64 round-off of two summation orders, relative to the largest entry (entries can be ~0)
        assert np.max(np.abs(g - h)) <= 1e-12 * np.max(np.abs(g))


@pytest.mark.parametrize("m", [1, 3, 5])
def test_grad_against_mpmath_finite_differences(m):
    """Central differences of the 40-digit exact loss (step 1e-12: truncation ~h^2 L''' ~ 1e-24, round-off
    1e-40/1e-12 = 1e-28) against the float64 power-sum gradient: agreement to float64 round-off."""
    rng = np.random.default_rng(50 + m)
    W = rng.normal(size=(3, 5)) * 0.6
    p = 0.2
    g = exact_loss_grad(W, p, m, route="power_sums")
    h = mpmath.mpf("1e-12")
    with mpmath.workdps(40):
        for a, b in [(0, 0), (1, 3), (2, 4)]:
            Wp = np.array(W, dtype=object)
            Wm = np.array(W, dtype=object)
            Wp[a, b] = mpmath.mpf(W[a, b]) + h
            Wm[a, b] = mpmath.mpf(W[a, b]) - h
            fd = (exact_loss(Wp, p, m, dps=40, route="power_sums") - exact_loss(Wm, p, m, dps=40, route="power_sums")) / (2 * h)
            # float64 gradient: a few ulps of the largest entry
            assert abs(float(fd) - g[a, b]) <= 1e-12 * np.max(np.abs(g))


def test_chunking_and_batch_independence():
    W = np.random.default_rng(60).normal(size=(4, 37))
    one = PS.RowPowerSums(W, 3)
    many = PS.RowPowerSums(W, 3, chunk=5)
    for a, b in zip(one.T, many.T):
        assert np.allclose(a, b, rtol=1e-13, atol=0)   # summation order only
    d_a, d_T = np.ones(37), [np.full(37, 0.1 * k) for k in (1, 2, 3)]
    assert np.allclose(one.grad(d_a, d_T), many.grad(d_a, d_T), rtol=1e-12, atol=1e-12 * 37 ** 2)


def test_choose_route():
    assert PS.choose_route("auto", 10, 50, 3) == "gram"
    assert PS.choose_route("auto", 10, 10**6, 3) == "power_sums"
    assert PS.choose_route("gram", 10, 10**6, 3) == "gram"
    assert PS.choose_route("power_sums", 10, 5, 3) == "power_sums"
    with pytest.raises(VerifyInputError, match="route"):
        PS.choose_route("fast", 10, 50, 3)
    with pytest.raises(VerifyInputError, match="route"):
        exact_loss(np.eye(2), 0.1, 3, route="fast")
    with pytest.raises(VerifyInputError, match="route"):
        exact_loss_grad(np.eye(2), 0.1, 3, route="fast")


def test_bad_input():
    with pytest.raises(VerifyInputError, match="'W'"):
        PS.row_power_sums(np.ones(3), 3)
    with pytest.raises(VerifyInputError, match="'W'"):
        PS.row_power_sums(np.array([[np.nan, 1.0]]), 3)
    with pytest.raises(VerifyInputError, match="'m'"):
        PS.row_power_sums(np.eye(2), 0)
    with pytest.raises(VerifyInputError, match="'S'"):
        PS.contract(np.ones(4), np.eye(2), 2)


def test_large_n_linear_route_matches_gram():
    """n = 4000 (above the crossover at d = 6): the automatic route is the power-sum one and agrees with gram."""
    W = np.random.default_rng(70).normal(size=(6, 4000)) * 0.4
    assert PS.choose_route("auto", 6, 4000, 3) == "power_sums"
    a, b = exact_loss(W, 1e-3, 3, route="gram"), exact_loss(W, 1e-3, 3)
    assert abs(a - b) <= 1e-12 * abs(a)      # float64 round-off of 4000 x 4000 terms, summed two ways


@pytest.mark.slow
def test_million_features_memory():
    """Issue 14's target size: n = 10^6, d = 10, m = 3 runs without forming A (A would be 8 TB) and stays
    consistent with the gram route on a subsample-independent identity: sum_i P_2(i) = ||W W^T||_F^2."""
    import tracemalloc

    W = np.random.default_rng(80).normal(size=(10, 10**6)) * 0.3
    tracemalloc.start()
    diag, T = PS.row_power_sums(W, 3)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2 * 2**30
    G = W @ W.T
    # sum_i sum_j (w_i.w_j)^2 = ||W W^T||_F^2 (a d x d identity, independent of the route)
    assert abs(float(np.sum(T[0] + diag ** 2)) - float(np.sum(G * G))) <= 1e-10 * float(np.sum(G * G))
