"""Tests of verify/numeric/superposition_loss.py (float64 / mpmath evaluation, gradient, Monte Carlo, maximiser)."""

import doctest
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings, strategies as hs
from scipy.optimize import check_grad

import verify.numeric.superposition_loss as NL
from verify.engine import random_rational_matrix
from verify.numeric.distributions import Gaussian
from verify.numeric.superposition_loss import (exact_loss, exact_loss_from_A, exact_loss_grad, maximise_loss,
                                               monte_carlo_loss, power_sums)
from verify.numeric.upper_bounds import thm31_bound
from verify.symbolic import superposition_loss as S


def test_doctests():
    assert doctest.testmod(NL, raise_on_error=False).failed == 0


def test_public_import():
    from verify import exact_loss as top
    assert top is exact_loss


def test_power_sums_against_loops():
    rng = np.random.default_rng(0)
    W = rng.normal(size=(3, 6))
    A = W.T @ W
    diag, sums = power_sums(A, 3)
    assert np.array_equal(diag, np.diag(A))
    for l, s in enumerate(sums, start=1):
        ref = [sum(A[i, j] ** (2 * l) for j in range(6) if j != i) for i in range(6)]
        assert np.allclose(s, ref, rtol=1e-13, atol=0)


@pytest.mark.parametrize("m", [1, 3, 5])
def test_float_and_mp_agree_with_exact_rationals(m):
    rng = np.random.default_rng(m)
    W = random_rational_matrix(rng, 2, 4, max_num=3, max_den=4)
    dist = Gaussian(sympy.Rational(1, 2))
    exact = S.loss_of_W(W, m).subs({S.mu(k): dist.moment(k) for k in range(2, 2 * m + 1, 2)}).subs(S.p, sympy.Rational(1, 4))
    Wf = np.array(W.tolist(), dtype=float)
    # float64 round-off of W's entries and of O(n^2) sums: 1e-12 relative is ample
    assert exact_loss(Wf, 0.25, m, dist) == pytest.approx(float(exact), rel=1e-12, abs=1e-12)
    value = exact_loss(np.array(W.tolist(), dtype=object), sympy.Rational(1, 4), m, dist, dps=40)
    assert isinstance(value, mpmath.mpf)
    with mpmath.workdps(50):
        assert abs(value - mpmath.mpf(int(exact.p)) / int(exact.q)) < mpmath.mpf(10) ** -30 * max(1, abs(value))


def test_blocked_evaluation_matches_small_blocks(monkeypatch):
    rng = np.random.default_rng(8)
    W = rng.normal(size=(3, 50)) * 0.4
    ref_loss, ref_grad = exact_loss(W, 0.2, 3), exact_loss_grad(W, 0.2, 3)
    monkeypatch.setattr(NL, "_BLOCK_ENTRIES", 7 * 50)  # 7-row blocks: the last block is partial
    assert exact_loss(W, 0.2, 3) == pytest.approx(ref_loss, rel=1e-13)
    assert np.allclose(exact_loss_grad(W, 0.2, 3), ref_grad, rtol=1e-12, atol=1e-14)


def test_quadrature_moment_agrees_and_rejects_large_n():
    rng = np.random.default_rng(9)
    W = rng.normal(size=(2, 3)) * 0.6
    assert NL.quadrature_moment(W, 0.4, 3, "uniform") == pytest.approx(exact_loss(W, 0.4, 3, "uniform"), rel=1e-12)
    assert NL.quadrature_moment(W, 0.4, 3, "uniform", power=2) >= exact_loss(W, 0.4, 3, "uniform") ** 2
    with pytest.raises(ValueError, match="'W'"):
        NL.quadrature_moment(np.ones((2, 40)), 0.4, 3)


def test_exact_loss_from_A_matches_W_version():
    rng = np.random.default_rng(3)
    W = rng.normal(size=(3, 7))
    assert exact_loss_from_A(W.T @ W, 0.2, 3, "laplace") == pytest.approx(exact_loss(W, 0.2, 3, "laplace"), rel=1e-14)


def test_invariances_rotation_and_permutation():
    rng = np.random.default_rng(4)
    W = rng.normal(size=(3, 5)) * 0.6
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    perm = rng.permutation(5)
    base = exact_loss(W, 0.3, 3, "uniform")
    # A = W^T W is unchanged by rotations; permutations reorder rows/cols: equal up to round-off
    assert exact_loss(Q @ W, 0.3, 3, "uniform") == pytest.approx(base, rel=1e-12)
    assert exact_loss(W[:, perm], 0.3, 3, "uniform") == pytest.approx(base, rel=1e-12)


@pytest.mark.parametrize("m,mu", [(1, "gaussian"), (3, "laplace"), (5, "rademacher"), (5, [0, 1, 0, 3, 0, 15, 0, 105, 0, 945])])
def test_gradient_finite_differences(m, mu):
    rng = np.random.default_rng(m)
    W = rng.normal(size=(2, 4)) * 0.5
    f = lambda w: exact_loss(w.reshape(2, 4), 0.3, m, mu)
    g = lambda w: exact_loss_grad(w.reshape(2, 4), 0.3, m, mu).ravel()
    # check_grad uses forward differences with step 1.5e-8: error ~ sqrt(eps) * |Hessian|, relative 1e-5 suffices
    assert check_grad(f, g, W.ravel()) <= 1e-5 * max(1.0, np.linalg.norm(g(W.ravel())))


def test_gradient_equals_symbolic_at_rational_point():
    rng = np.random.default_rng(5)
    W = random_rational_matrix(rng, 2, 3)
    sym = S.grad_expression(W, 3).subs({S.mu(2): 1, S.mu(4): 3, S.mu(6): 15, S.p: sympy.Rational(1, 5)})
    num = exact_loss_grad(np.array(W.tolist(), dtype=float), 0.2, 3, "gaussian")
    assert np.allclose(num, np.array(sym.tolist(), dtype=float), rtol=1e-12, atol=1e-12)


def test_monte_carlo_deterministic_and_consistent():
    rng = np.random.default_rng(6)
    W = rng.normal(size=(2, 4)) * 0.5
    first = monte_carlo_loss(W, 0.3, 3, "gaussian", samples=50_000, seed=1)
    assert first == monte_carlo_loss(W, 0.3, 3, "gaussian", samples=50_000, seed=1)
    est, se = first
    assert abs(est - exact_loss(W, 0.3, 3, "gaussian")) <= 4.5 * se  # 4.5 sigma: false alarm 7e-6, seed fixed


@pytest.mark.parametrize("n", [2 ** 21, 2 ** 21 + 1])
def test_monte_carlo_default_chunk_at_its_threshold(n):
    """The default chunk holds about 2^22 entries: max(1, 2^22 // n) samples, so one sample per chunk from
    n = 2^21 + 1 on and two at n = 2^21 (the boundary). Chunking decides which random numbers each sample gets, so the
    default must equal that explicit chunk and differ from its neighbour (else 'same seed, same numbers' would
    change with an edit of the default)."""
    W = np.full((1, n), 0.75) * np.where(np.arange(n) % 3 == 0, -1.0, 1.0)
    want = max(1, (1 << 22) // n)
    default = monte_carlo_loss(W, 3e-6, 3, "gaussian", samples=3, seed=4)
    assert default == monte_carlo_loss(W, 3e-6, 3, "gaussian", samples=3, seed=4, chunk=want)
    assert default != monte_carlo_loss(W, 3e-6, 3, "gaussian", samples=3, seed=4, chunk=3 - want)


@pytest.mark.parametrize("m, mu, ratio", [(3, "gaussian", Fraction(3, 15)), (5, "gaussian", Fraction(15, 945)),
                                          (3, "uniform", Fraction(7, 5))])
def test_maximise_loss_default_start_scale_is_eq10s(m, mu, ratio):
    """Without ``init_scale`` the random starts have A_ii about (mu_{m+1} / mu_{2m})^{1/m} (eq. 10's optimal diagonal
    scale; moments written here: Gaussian mu_4 = 3, mu_6 = 15, mu_10 = 945; uniform on [-1, 1]
    mu_k = 1/(k + 1)): the same search as with that scale passed, not as with its square (a unit-scale law
    could not tell the two)."""
    scale = float(ratio) ** (1 / m)
    kw = {"m": m, "mu": mu, "restarts": 2, "seed": 11, "maxiter": 3}
    default = maximise_loss(3, 4, 0.4, **kw)
    given_ = maximise_loss(3, 4, 0.4, init_scale=scale, **kw)
    assert np.allclose(default.restart_values, given_.restart_values, rtol=1e-9, atol=0)
    squared = maximise_loss(3, 4, 0.4, init_scale=scale ** 2, **kw)
    assert not np.allclose(default.restart_values, squared.restart_values, rtol=1e-3, atol=0)


def test_maximise_loss_result_and_reproducibility():
    res = maximise_loss(2, 4, 0.1, m=3, mu="gaussian", restarts=2, seed=7, maxiter=100)
    again = maximise_loss(2, 4, 0.1, m=3, mu="gaussian", restarts=2, seed=7, maxiter=100)
    assert res.value == again.value and res["seed"] == 7 and len(res.restart_values) == 2
    assert res.W.shape == (2, 4) and res.value == pytest.approx(exact_loss(res.W, 0.1, 3), rel=1e-12)
    assert res.value == max(res.restart_values)


def test_maximise_loss_uses_x0():
    W0 = np.hstack([np.eye(2), np.zeros((2, 1))]) * (0.2 ** (1 / 6))  # optimal unsuperposed point, m = 3 Gaussian
    res = maximise_loss(2, 3, 0.5, m=3, restarts=1, x0=[W0])
    assert res.value >= exact_loss(W0, 0.5, 3) - 1e-12
    # both ways: never above Theorem 3.1's bound C_2 p binom(d+m-1, m) (proved; a search reporting more is wrong)
    assert res.value <= float(thm31_bound(2, 0.5, 3, sharp=True))
    with pytest.raises(ValueError, match="'x0'"):
        maximise_loss(2, 3, 0.5, x0=[np.eye(3)])


W_OK = np.ones((2, 3))


@pytest.mark.parametrize("kwargs,param", [
    ({"m": 2}, "'m'"), ({"m": 3.0}, "'m'"), ({"m": 0}, "'m'"), ({"m": -3}, "'m'"),
    ({"p": 0.0}, "'p'"), ({"p": 1.5}, "'p'"), ({"p": -0.1}, "'p'"), ({"p": float("nan")}, "'p'"),
    ({"W": np.array([[np.nan, 1.0]])}, "'W'"), ({"W": np.array([[np.inf, 1.0]])}, "'W'"),
    ({"W": np.ones(3)}, "'W'"), ({"W": np.ones((2, 2, 2))}, "'W'"), ({"mu": "cauchy"}, "'mu'"),
    ({"mu": [1, 1]}, "'moments'"), ({"dps": 2}, "'dps'"),
])
def test_bad_input(kwargs, param):
    args = {"W": W_OK, "p": 0.5, "m": 3, "mu": "gaussian", **kwargs}
    with pytest.raises(ValueError, match=param):
        exact_loss(args.pop("W"), **args)


def test_bad_input_other_entry_points():
    with pytest.raises(ValueError, match="'A'"):
        exact_loss_from_A(np.array([[1.0, 2.0], [0.0, 1.0]]), 0.5)
    with pytest.raises(ValueError, match="'A'"):
        exact_loss_from_A(np.ones((2, 3)), 0.5)
    with pytest.raises(ValueError, match="'A'"):
        exact_loss_from_A(np.array([[1.0, 2.0], [0.0, 1.0]]), 0.5, dps=20)
    with pytest.raises(ValueError, match="'W'"):
        exact_loss(np.array([[float("nan")]], dtype=object), 0.5, dps=20)
    with pytest.raises(ValueError, match="'m'"):
        exact_loss_grad(W_OK, 0.5, m=4)
    with pytest.raises(ValueError, match="'samples'"):
        monte_carlo_loss(W_OK, 0.5, samples=1)
    with pytest.raises(ValueError, match="'restarts'"):
        maximise_loss(2, 3, 0.5, restarts=0)
    with pytest.raises(ValueError, match="'d'"):
        maximise_loss(0, 3, 0.5)


@settings(max_examples=25, deadline=None)
@given(m=hs.sampled_from([1, 3, 5]), mu=hs.sampled_from(["gaussian", "uniform(2)", "laplace(1/2)", "rademacher"]),
       p=hs.floats(0.01, 1.0), d=hs.integers(1, 3), n=hs.integers(1, 3), seed=hs.integers(0, 2 ** 16))
def test_exact_loss_equals_quadrature_property(m, mu, p, d, n, seed):
    W = np.random.default_rng(seed).normal(size=(d, n)) * 0.8
    exact, quad = exact_loss(W, p, m, mu), NL.quadrature_moment(W, p, m, mu)
    # two float64 routes summing O(100) mixed-sign terms: 1e-10 relative to the largest row term scale
    scale = max(1.0, abs(exact), abs(NL.quadrature_moment(W, p, m, mu, power=2)) ** 0.5)
    assert abs(exact - quad) <= 1e-10 * scale


def test_first_order_objective_value_gradient_and_rank_bound():
    """F(V^T V) = tr(2B~ - B~^2) (numpy), its gradient by scipy's check_grad, F <= rank B~ <= C(d+m-1, m), bad m."""
    import math

    from verify import VerifyInputError
    from verify.numeric.superposition_loss import first_order_objective

    rng = np.random.default_rng(5)
    for d, n, m in [(2, 5, 1), (2, 4, 3), (3, 6, 5)]:
        V = rng.normal(size=(d, n)) * 0.6
        F, G = first_order_objective(V, m)
        Bt = (V.T @ V) ** m
        assert F == pytest.approx(float(np.trace(2 * Bt - Bt @ Bt)), rel=1e-12, abs=1e-12)
        assert G.shape == V.shape
        err = check_grad(lambda x: first_order_objective(x.reshape(d, n), m)[0],
                         lambda x: first_order_objective(x.reshape(d, n), m)[1].ravel(), V.ravel())
        assert err < 1e-5 * max(1.0, float(np.linalg.norm(G)))   # forward differences, step ~1.5e-8
        assert F <= np.linalg.matrix_rank(Bt) + 1e-9 and np.linalg.matrix_rank(Bt) <= math.comb(d + m - 1, m)
    F, _ = first_order_objective(np.eye(3), 3)   # orthonormal columns: B~ = I, F = 3
    assert F == 3.0
    with pytest.raises(VerifyInputError, match="'m'"):
        first_order_objective(np.eye(2), 2)


@pytest.mark.parametrize("chunk", [None, 37])
def test_monte_carlo_standard_error_is_the_two_pass_sample_deviation(chunk):
    """The standard error is s / sqrt(N) with s the sample standard deviation (ddof 1) of the per-sample values, as
    numpy's two-pass std computes it from the same draws (replayed here chunk by chunk), merged over chunks by Chan's
    update. The law makes the one-pass E[v^2] - E[v]^2 cancel: p = 1, Rademacher, W orthogonal columns plus 1e-7 noise,
    so every value is about 1.4 with a spread of about 1e-7 (one-pass error ~1e-9 in s, larger than s's own 1e-8)."""
    from verify.numeric.distributions import get_distribution

    rng0 = np.random.default_rng(5)
    Q = np.linalg.qr(rng0.standard_normal((3, 3)))[0]
    W = Q @ np.diag([1.1, 0.7, 0.9]) + 1e-7 * rng0.standard_normal((3, 3))
    samples, seed, m, n = 500, 11, 3, 3
    est, se = monte_carlo_loss(W, 1.0, m, "rademacher", samples=samples, seed=seed, chunk=chunk)
    dist, rng, vals, done = get_distribution("rademacher"), np.random.default_rng(seed), [], 0
    step = samples if chunk is None else chunk
    while done < samples:                       # the estimator's own draws, in its order
        k = min(step, samples - done)
        x = np.zeros((k, n))
        support = rng.random((k, n)) < 1.0
        x[support] = dist.sample(rng, int(support.sum()))
        phi = ((x @ W.T) @ W) ** m
        vals.append(2 * (x * phi).sum(1) - (phi * phi).sum(1))
        done += k
    vals = np.concatenate(vals)
    assert 1e-9 < vals.std() < 1e-5 < 1 < abs(vals.mean())  # the regime where the one-pass formula cancels
    assert est == pytest.approx(vals.mean(), rel=1e-13)       # float summation order only
    # deviations ~1e-7 against rounding ~2e-16 of values ~1.4: ~1e-9 relative; 1e-6 leaves room for the merge terms
    assert se == pytest.approx(vals.std(ddof=1) / np.sqrt(samples), rel=1e-6)


@pytest.mark.parametrize("route", ["gram", "power_sums", "collapsed"])
def test_mp_routes_take_irrational_and_float_exact_inputs(route):
    """Every kind of exact number a caller passes at ``dps``: sympy irrationals (sqrt(2)/3, pi/7), sympy Floats and
    Python Fractions in W, and an irrational p; the value against sympy's exact expression evaluated to 60 digits
    (the rational-only test would not see an irrational entry converted wrongly)."""
    m = 3
    W = np.array([[sympy.sqrt(2) / 3, sympy.Rational(-1, 2), sympy.Float("0.375", 30)],
                  [sympy.pi / 7, Fraction(2, 5), sympy.Integer(1)]], dtype=object)
    p = sympy.sqrt(3) / 4
    dist = Gaussian(sympy.Rational(3, 2))
    # the reference exact throughout: a sympy Float in the expression would round all of it to its 30 digits
    Ws = sympy.Matrix([[sympy.Rational(v.numerator, v.denominator) if isinstance(v, Fraction)
                        else sympy.Rational(v) if isinstance(v, sympy.Float) else v for v in row] for row in W.tolist()])
    exact = S.loss_of_W(Ws, m).subs({S.mu(k): dist.moment(k) for k in range(2, 2 * m + 1, 2)}).subs(S.p, p)
    value = exact_loss(W, p, m, dist, dps=40, route=route)
    assert isinstance(value, mpmath.mpf)
    with mpmath.workdps(60):
        ref = mpmath.mpf(str(sympy.N(exact, 60)))
        assert abs(value - ref) < mpmath.mpf(10) ** -32 * max(1, abs(ref))
