"""Tests of verify.numeric.ufm: the three arithmetics, W*(H), L(H), its gradient, the solvers, input checks."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

from verify import VerifyInputError
from verify.numeric import ufm


@pytest.fixture
def H():
    return np.random.default_rng(0).standard_normal((4, 6)) + 1.0


def test_closed_form_loss_equals_definition(H):
    for lw, lh in [(0.5, 0.1), (1e-3, 0.0), (3.0, 2.0)]:
        a, b = ufm.central_path_loss(H, lw, lh, 3), ufm.central_path_loss_direct(H, lw, lh, 3)
        assert a == pytest.approx(b, rel=1e-10, abs=1e-12)  # float64, condition number of HH^T + n lW I


def test_three_arithmetics_agree():
    Hi = np.random.default_rng(1).integers(-5, 6, (3, 4))
    exact = ufm.central_path_loss(ufm.as_exact(Hi), Fraction(1, 2), Fraction(1, 3), 2)
    assert exact == ufm.central_path_loss_direct(ufm.as_exact(Hi), Fraction(1, 2), Fraction(1, 3), 2)
    with mpmath.workdps(40):
        mp = ufm.central_path_loss(ufm.as_mp(Hi), Fraction(1, 2), Fraction(1, 3), 2)
        assert abs(mp - mpmath.mpf(int(exact.p)) / int(exact.q)) < mpmath.mpf(10) ** -38
    fl = ufm.central_path_loss(Hi.astype(float), 0.5, 1 / 3, 2)
    assert fl == pytest.approx(float(mp), rel=1e-13)


def test_gradient_matches_central_differences(H):
    rng = np.random.default_rng(2)
    V = rng.standard_normal(H.shape)
    g = ufm.grad_central_path_loss(H, 0.7, 0.2, 3)
    with mpmath.workdps(30):
        Hm, Vm = ufm.as_mp(H), ufm.as_mp(V)
        fd = mpmath.diff(lambda t: ufm.central_path_loss(Hm + Vm * t, 0.7, 0.2, 3), 0)
    assert (g * V).sum() == pytest.approx(float(fd), rel=1e-12)


def test_optimal_W_is_stationary(H):
    W = ufm.optimal_W(H, 0.4, 3)
    n = 2
    Y = np.kron(np.eye(3), np.ones((1, n)))
    grad = (W @ H - Y) @ H.T / (3 * n) + 0.4 * W / 3
    assert np.abs(grad).max() < 1e-14


def test_collapse_rho_and_minimiser():
    assert ufm.collapse_rho(4.0, 1.0) == 0.0  # c = 2 > 1
    assert ufm.collapse_rho(sympy.Rational(1, 4), 1) == sympy.Rational(1, 4)  # (1 - 1/2) * sqrt(1/4)
    R = np.linalg.qr(np.random.default_rng(3).standard_normal((4, 3)))[0]
    W, H = ufm.collapsed_minimiser(R, 0.5, 0.3, n=2)
    c = np.sqrt(0.15)
    assert float(ufm.ufm_objective(W, H, 0.5, 0.3, 3)) == pytest.approx(c - c**2 / 2, rel=1e-14)


def test_solve_ufm_reaches_closed_form():
    res = ufm.solve_ufm(3, 2, 2, 0.5, 0.5, starts=3, seed=0)
    c = 0.5  # sqrt(lW lH)
    assert res["value"] == pytest.approx(c - c**2 / 2, rel=1e-10)


def test_solve_perturbed_float_and_mp():
    H0 = np.random.default_rng(4).standard_normal((2, 4))
    H = ufm.solve_perturbed(H0, 5.0, 0.5, 0.2, 2, n=2, starts=2)
    assert np.abs(ufm.stationarity_residual(H, H0, 5.0, 0.5, 0.2, 2)).max() < 1e-13
    with mpmath.workdps(30):
        Hm = ufm.solve_perturbed(H0, 5.0, 0.5, 0.2, 2, dps=30)
        res = ufm.stationarity_residual(Hm, ufm.as_mp(H0), 5, 0.5, 0.2, 2)
        assert max(abs(v) for v in res.ravel()) < mpmath.mpf(10) ** -27
    assert np.abs(Hm.astype(float) - H).max() < 1e-12


def test_nc1_tilde_infinite_without_between_class_spread():
    H = np.array([[1.0, 2.0, 2.0, 1.0]])
    assert ufm.nc1_tilde(H, 2) == float("inf")


@pytest.mark.parametrize("call, word", [
    (lambda H: ufm.central_path_loss(H, 0.0, 0.1, 3), "'lam_W'"),
    (lambda H: ufm.central_path_loss(H, 0.5, -0.1, 3), "'lam_H'"),
    (lambda H: ufm.grad_central_path_loss(H[:, :5], 0.5, 0.1, 3), "'H'"),
    (lambda H: ufm.optimal_W(np.where(H > 0, np.nan, H), 0.5, 3), "'H'"),
    (lambda H: ufm.solve_perturbed(H, 1.0, 0.5, 0.1, 3, n=3), "'n'"),
    (lambda H: ufm.solve_perturbed(H, 0.0, 0.5, 0.1, 3), "'beta'"),
    (lambda H: ufm.solve_ufm(2, 3, 0, 0.5, 0.5), "'n'"),
    (lambda H: ufm.collapsed_minimiser(np.eye(3)[:2], 0.5, 0.5, 1), "'R'"),
    (lambda H: ufm.collapsed_minimiser(2 * np.eye(3), 0.5, 0.5, 1), "'R'"),
    (lambda H: ufm.as_exact([[0.5]]), "'H'"),
    (lambda H: ufm.perturbed_objective(H, H, -1.0, 0.5, 0.1, 3), "'beta'"),
    (lambda H: ufm.stationarity_residual(H, H[:, :3], 1.0, 0.5, 0.1, 3), "'H0'"),
])
def test_bad_input(H, call, word):
    with pytest.raises(VerifyInputError, match=word):
        call(H)


@pytest.mark.parametrize("R", [np.eye(3)[:, :2] * 2, np.array([[1.0, 1.0], [0.0, 1.0], [0.0, 0.0]])])
def test_collapsed_minimiser_refuses_a_non_orthonormal_R_with_the_whole_message(R):
    with pytest.raises(VerifyInputError) as info:
        ufm.collapsed_minimiser(R, 0.5, 0.3, 2)
    assert str(info.value) == "Argument 'R' must have orthonormal columns (R^T R = I_K)."


def test_fast_gradient_equals_literal_eq7_exactly():
    """grad_central_path_loss uses C A C = C - C SBt C; against the literal (7) of the symbolic module, exactly."""
    from verify.symbolic import central_path as cp

    rng = np.random.default_rng(7)
    for d, K, n in [(3, 2, 2), (2, 3, 2), (4, 2, 1)]:
        Hi = rng.integers(-4, 5, (d, K * n))
        ns = cp.build(d, K, n)
        lit = cp.evaluate(cp.gradient(ns), ns, cp.instance(sympy.Matrix(Hi), K, sympy.Rational(2, 3), sympy.Rational(1, 5)))
        fast = ufm.grad_central_path_loss(ufm.as_exact(Hi), Fraction(2, 3), Fraction(1, 5), K)
        assert all(fast[i, j] == ufm.as_exact([[lit[i, j]]])[0, 0] for i in range(d) for j in range(K * n))


def test_exact_routes_take_fraction_H0_and_W_like_fmpq():
    """Fraction (or sympy) H0 and W mix with the fmpq H of the exact route: the residual (8), the objective (2) and
    objective (1) equal those computed with every entry converted to fmpq first; a float H0 is refused by name."""
    from fractions import Fraction as Fr

    import verify.numeric.ufm as U

    rng = np.random.default_rng(3)
    K, n, d = 2, 2, 3
    H = np.array([[Fr(int(v), 7) for v in row] for row in rng.integers(-9, 10, (d, K * n))], dtype=object)
    H0 = np.array([[Fr(int(v), 5) for v in row] for row in rng.integers(-9, 10, (d, K * n))], dtype=object)
    W = np.array([[Fr(int(v), 3) for v in row] for row in rng.integers(-9, 10, (K, d))], dtype=object)
    lw, lh, beta = Fr(1, 10), Fr(3, 100), Fr(5, 2)
    r = U.stationarity_residual(H, H0, beta, lw, lh, K)
    r_ref = U.stationarity_residual(U.as_exact(H), U.as_exact(H0), beta, lw, lh, K)
    assert r.shape == (d, K * n) and all(a == b for a, b in zip(r.flat, r_ref.flat))
    assert U.perturbed_objective(H, H0, beta, lw, lh, K) == U.perturbed_objective(U.as_exact(H), U.as_exact(H0),
                                                                                   beta, lw, lh, K)
    assert U.ufm_objective(W, H, lw, lh, K) == U.ufm_objective(U.as_exact(W), U.as_exact(H), lw, lh, K)
    with pytest.raises(ValueError, match="Argument 'H0' must have exact rational entries"):
        U.stationarity_residual(H, H0.astype(float), beta, lw, lh, K)


@pytest.mark.parametrize("scale", [0.05, 1.0, 30.0])
def test_unpolished_solve_is_stationary_to_the_tight_tolerance(scale):
    """Without the root polish, the minimiser is L-BFGS's alone: its stationarity residual (8) must be what the
    tight ``gtol`` buys (1e-8 relative to the scale of H0; scipy's default tolerance leaves about 1e-6), at scales
    below and above one, and scipy must not warn (it warns, then ignores, an option it does not know)."""
    import warnings

    H0 = scale * np.random.default_rng(1).standard_normal((3, 8))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        H = ufm.solve_perturbed(H0, beta=7.0, lam_W=0.4, lam_H=0.2, K=2, polish=False)
    res = np.abs(ufm.stationarity_residual(H, H0, 7.0, 0.4, 0.2, 2)).max()
    assert res <= 1e-8 * max(1.0, np.abs(H0).max())
    # the other side: a start that is not stationary has a residual far above that bound
    assert np.abs(ufm.stationarity_residual(H0, H0, 7.0, 0.4, 0.2, 2)).max() > 1e-3 * max(1.0, np.abs(H0).max())


@pytest.mark.parametrize("scale", [1e-3, 1.0, 30.0])
# 4 x 100 = 400 unknowns, the real threshold, and 3 x 134 = 402, the next size K = 2 allows
@pytest.mark.parametrize("d, n, method", [(4, 100, "hybr"), (3, 134, "krylov")])
def test_polished_solve_is_stationary_to_rounding_on_both_polish_routes(monkeypatch, scale, d, n, method):
    """The root polish (hybr up to ``_HYBR_MAX_UNKNOWNS`` unknowns, Newton-Krylov above) takes the residual (8) to
    rounding, 1e-13 relative to the scale of H0 (L-BFGS alone leaves up to 1e-8), at scales below and above one,
    with the method the size asks for, and scipy silent (its default tolerance makes Newton-Krylov warn)."""
    import warnings

    assert ufm._HYBR_MAX_UNKNOWNS == 400
    methods = []
    real_root = ufm.root
    monkeypatch.setattr(ufm, "root", lambda *a, **k: methods.append(k["method"]) or real_root(*a, **k))
    H0 = scale * np.random.default_rng(n).standard_normal((d, n))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        H = ufm.solve_perturbed(H0, beta=7.0, lam_W=0.4, lam_H=0.2, K=2)
    assert methods == [method]
    res = np.abs(ufm.stationarity_residual(H, H0, 7.0, 0.4, 0.2, 2)).max()
    assert res <= 1e-13 * max(1.0, np.abs(H0).max())
    assert np.abs(ufm.stationarity_residual(H0, H0, 7.0, 0.4, 0.2, 2)).max() > 1e-3 * scale


@pytest.mark.parametrize("scale", [0.05, 1.0, 20.0])
def test_solve_ufm_reaches_the_closed_form_silently_at_every_scale(scale):
    """The joint minimisation of (1) from starts of small, unit and large spread reaches the closed-form value
    c - c^2/2, c = sqrt(lam_W lam_H), with scipy silent: L-BFGS-B takes every option passed (another method would
    warn that it ignores ``maxcor``)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = ufm.solve_ufm(3, 2, 2, 0.5, 0.3, starts=2, seed=1, scale=scale)
    c = math.sqrt(0.5 * 0.3)
    want = c - c ** 2 / 2
    assert res["value"] == pytest.approx(want, rel=1e-9, abs=1e-12)
    assert min(res["values"]) == res["value"] and len(res["values"]) == 2
