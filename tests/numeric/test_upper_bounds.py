"""Tests of verify/numeric/upper_bounds.py (the machinery behind the section-3 checks)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from scipy.optimize import minimize_scalar

from verify import VerifyInputError
from verify.numeric import upper_bounds as ub
from verify.numeric.superposition_loss import exact_loss

MUS = ("gaussian", "uniform", "laplace", "rademacher")


def test_cumulants_gaussian_and_bernoulli():
    kap = ub.coordinate_cumulants("gaussian", 1, 8)
    assert kap[2] == 1 and all(k == 0 for k in kap[3:])  # Gaussian: only kappa_2
    kap = ub.coordinate_cumulants("rademacher", Fraction(1, 3), 4)
    # x = xi b, xi = +-1: E x^2 = E x^4 = 1/3, so kappa_4 = 1/3 - 3 (1/3)^2 = 0
    assert kap[2] == Fraction(1, 3) and kap[4] == 0


def test_linear_form_moment_exact_values():
    one = np.array([Fraction(1)] * 2, dtype=object)
    kap = ub.coordinate_cumulants("gaussian", 1, 4)
    assert ub.linear_form_moment(np.array([one] * 4), kap) == 12  # E (x1 + x2)^4 = 3 * 2^2
    kap = ub.coordinate_cumulants(None, 1, 2, moments=[1, 2, 5])  # non-centred: mean 2, variance 1
    assert ub.linear_form_moment(np.array([one] * 2), kap) == 2 * 1 + 4 ** 2


@pytest.mark.parametrize("mu", MUS)
@pytest.mark.parametrize("m", [1, 3])
def test_general_loss_matches_exact_loss(mu, m):
    W = np.random.default_rng(m).standard_normal((2, 5)) * 0.6
    kap = ub.coordinate_cumulants(mu, 0.3, 2 * m, exact=False)
    a = ub.general_loss(W, kap, m)
    b = exact_loss(W, 0.3, m=m, mu=mu)
    assert abs(a - b) <= 1e-10 * max(1.0, abs(b))  # two float64 routes through different formulas


def test_tensor_bound_linear_case_and_exact_vs_float():
    W = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]])
    tb = ub.tensor_bound(W, 0.25, m=1, mu="uniform")
    assert tb.rank == 2 and abs(tb.value - 0.25 * (1 / 3) * 2) < 1e-14  # M(W) = p mu_2 rank W for m = 1
    Wq = [[Fraction(1), Fraction(1, 2), Fraction(0)], [Fraction(0), Fraction(1), Fraction(-1)]]
    ex = ub.tensor_bound(Wq, Fraction(1, 5), m=3, exact=True)
    fl = ub.tensor_bound(np.array(Wq, dtype=float), 0.2, m=3)
    assert ex.rank == fl.rank == 4 and abs(float(ex.value) - fl.value) < 1e-12 * float(ex.value)


def test_tensor_basis_value_equals_monomial_value():
    W = np.random.default_rng(1).standard_normal((2, 4))
    tb = ub.tensor_bound(W, 0.5, m=3, mu="laplace")
    S, M = tb.tensor_basis(2, 3)
    assert S.shape == (8, 8) and M.shape == (4, 8)
    assert abs(ub.lemA3_value(M, S) - tb.value) < 1e-9 * tb.value


def test_lemA3_exact_and_float_agree_on_singular_sigma():
    Y = sympy.Matrix([[1, 0, 2], [0, 1, 1], [1, 1, 3]])  # third row = sum: rank 2
    X = sympy.Matrix([[1, -1, 2]])
    S, M = Y * Y.T / 3, X * Y.T / 3
    ex = ub.lemA3_value(M, S)
    assert abs(float(ex) - ub.lemA3_value(np.array(M, dtype=float), np.array(S, dtype=float))) < 1e-12
    assert abs(ub.lemA3_maximise(np.array(M, dtype=float), np.array(S, dtype=float))[0] - float(ex)) < 1e-8


def test_eq11_terms_unit_variances():
    rng = np.random.default_rng(0)
    Y = rng.standard_normal((4, 3))
    S = Y @ Y.T  # rank 3
    out = ub.eq11_terms(S, rng.standard_normal((2, 4)))
    assert out["rank"] == 3 and np.allclose(out["variances"], 1, atol=1e-12)


def test_eq12_one_variable_linear():
    assert ub.eq12_projection_matrix(1, 1, Fraction(1, 3), "laplace") == sympy.Matrix([[sympy.Rational(2, 3)]])


def test_constants():
    assert ub.thm31_constant("uniform") == sympy.Rational(1, 3)
    assert ub.thm31_bound(3, Fraction(1, 2), 3) == Fraction(27, 2)
    assert ub.thm31_bound(3, 1, 3, sharp=True) == math.comb(5, 3)
    assert ub.thm32_constant(1) == 2 and ub.thm32_bound(4, 2) == 40
    assert ub.strong_log_concavity_K("gaussian(4)")[0] == 4
    for mu in ("uniform", "laplace", "rademacher"):
        assert ub.strong_log_concavity_K(mu)[0] is None


def test_schur_ratio_known_value():
    A = np.array([[2.0, 1.0], [1.0, 1.0]])
    assert abs(ub.schur_ratio(A, 1) - 2 / (3 + math.sqrt(5))) < 1e-15


def test_footnotes():
    rng = np.random.default_rng(3)
    W = rng.standard_normal((2, 5))
    Wp, P = ub.footnote4_factor(W)
    assert np.allclose(Wp @ P, W, atol=1e-14) and np.allclose(P @ P.T, np.eye(2), atol=1e-14)
    x = np.array([0.5, 0.0, -1.0, 0.0, 0.0])
    lhs, rhs, off = ub.footnote3_sides(W, x, 3)
    assert abs(lhs - (rhs - off)) < 1e-12 * (1 + abs(rhs))


def test_optimal_scaling_matches_1d_search():
    W = np.random.default_rng(4).standard_normal((2, 4))
    _, v = ub.optimally_scaled(W, 0.2, 3)
    res = minimize_scalar(lambda lt: -exact_loss(np.exp(lt) * W, 0.2, 3), bounds=(-3, 3), method="bounded",
                          options={"xatol": 1e-10})
    assert abs(v + res.fun) < 1e-9 * v


def test_conditional_energy_special_cases():
    with mpmath.workdps(20):
        # v = e_1: E[x | x_1] = x_1 e_1, energy p sigma^2
        assert abs(ub.conditional_energy_1d([1, 0, 0], 0.3, 2) - mpmath.mpf("0.6")) < mpmath.mpf(10) ** -15
        # dense Gaussian: E[x | <v,x>] = v <v,x>, energy sigma^2
        assert abs(ub.conditional_energy_1d([0.6, 0.8], 1) - 1) < mpmath.mpf(10) ** -15


def test_lemA1_sides_gaussian_shift():
    x, s = sympy.symbols("x s")
    with mpmath.workdps(20):
        lhs, rhs = ub.lemA1_sides((x - s) ** 2 / 2, x ** 2, x, s, "0.5")  # E x^2 = 1 + s^2
        assert abs(lhs - 1) < mpmath.mpf(10) ** -15 and abs(rhs - 1) < mpmath.mpf(10) ** -15


def test_logcosh_distribution():
    dist, K = ub.logcosh_gaussian(1, 4)
    assert K == 2 and 0 < dist.moment(2) < 1  # log cosh pulls mass inwards


def test_thm32_chain_total_is_paper_constant():
    assert ub.thm32_chain(Fraction(1, 3), Fraction(3))["total"] == ub.thm32_constant(Fraction(3)) == 30
    ch = ub.thm32_chain(0.5, 4.0, d=2)  # alpha != 1/beta: 1/alpha + beta/alpha^2 per unit d
    assert ch["Ey2"] == 4.0 and ch["lipschitz_sq"] == 8.0 and ch["total"] == 2 * (2 + 16)


def test_sparsity_patterns():
    P, w = ub.sparsity_patterns("bernoulli", 3, p=0.25)
    assert P.shape == (8, 3) and abs(w.sum() - 1) < 1e-15 and abs(w @ P[:, 0] - 0.25) < 1e-15
    P, w = ub.sparsity_patterns("fixed", 4, k=2)
    assert len(P) == 6 and np.all(P.sum(axis=1) == 2)
    P, w = ub.sparsity_patterns("blocks", 4, p=0.5, blocks=2)
    assert np.all(P[:, 0] == P[:, 1]) and np.all(P[:, 2] == P[:, 3]) and abs(w.sum() - 1) < 1e-15
    P, w = ub.sparsity_patterns("one-of-pairs", 4)
    assert np.all(P[:, 0] + P[:, 1] == 1) and len(P) == 4


def test_nu_loss_parts_matches_set_partitions_and_gaussian_stein():
    rng = np.random.default_rng(0)
    n = 4
    G = np.eye(n) + 0.3 * rng.standard_normal((n, n))
    W = rng.standard_normal((2, n))
    pats = ub.sparsity_patterns("fixed", n, k=3)
    kap = [0.0, 0.0, 0.8, -0.1, 0.05, 0.02, -0.03]
    A = W.T @ W
    for m in (1, 3):
        a, b = ub.nu_loss_parts(W, G, kap, pats, m)
        aa = bb = 0.0
        for pat, pr in zip(*pats):
            DG = pat[:, None] * G
            for i in range(n):
                aa += pr * ub.linear_form_moment(np.array([DG[i]] + [(A @ DG)[i]] * m), kap)
                bb += pr * ub.linear_form_moment(np.array([(A @ DG)[i]] * (2 * m)), kap)
        assert abs(a - aa) < 1e-10 * abs(aa) and abs(b - bb) < 1e-10 * abs(bb)
    # Gaussian xi: Stein, E[x_i v^3] = 3 c_i s, E v^6 = 15 s^3 with s = a^T Sigma a, c = Sigma a (dense pattern)
    Sigma = G @ G.T
    a, b = ub.nu_loss_parts(W, G, [0, 0, 1.0, 0, 0, 0, 0], ub.sparsity_patterns("fixed", n, k=n), 3)
    s = np.einsum("ij,jk,ik->i", A, Sigma, A)
    c = np.einsum("ij,ij->i", Sigma, A)
    assert abs(a - np.sum(3 * c * s)) < 1e-10 * abs(a) and abs(b - np.sum(15 * s ** 3)) < 1e-10 * b


def test_nu_parts_gradient_by_finite_differences():
    rng = np.random.default_rng(1)
    n = 4
    G = np.eye(n) + 0.2 * rng.standard_normal((n, n))
    pats = ub.sparsity_patterns("bernoulli", n, p=0.6)
    kap = [0.0, 0.0, 1.1, 0.2, -0.1, 0.05, 0.3]
    W = rng.standard_normal((2, n))
    for m in (1, 3):
        a, b, ga, gb = ub._nu_parts_and_grad(W, G, kap, pats, m)
        E = np.zeros_like(W)
        E[1, 2] = 1e-6
        ap, bp = ub.nu_loss_parts(W + E, G, kap, pats, m)
        am, bm = ub.nu_loss_parts(W - E, G, kap, pats, m)
        # central differences, step 1e-6: error ~1e-12 * third derivative, relative 1e-7 is safe
        assert abs((ap - am) / 2e-6 - ga[1, 2]) < 1e-6 * max(1, abs(ga[1, 2]))
        assert abs((bp - bm) / 2e-6 - gb[1, 2]) < 1e-6 * max(1, abs(gb[1, 2]))


def test_nu_sup_loss_linear_gaussian_is_top_eigenvalue():
    Sigma = np.diag([2.0, 1.0, 0.5])
    val, W = ub.nu_sup_loss(1, np.linalg.cholesky(Sigma), [0, 0, 1.0, 0, 0, 0, 0],
                            ub.sparsity_patterns("fixed", 3, k=3), m=1, restarts=2)
    assert abs(val - 2.0) < 1e-9


def test_gaussian_conditional_chain_two_routes():
    rng = np.random.default_rng(2)
    Q = np.linalg.qr(rng.standard_normal((4, 4)))[0]
    Sigma = Q @ np.diag([3.0, 1.0, 0.5, 1 / 3]) @ Q.T
    P = np.linalg.qr(rng.standard_normal((4, 2)))[0].T
    c = ub.gaussian_conditional_chain(Sigma, P)
    assert abs(c["energy"] - c["energy_direct"]) < 1e-12 * c["energy"]
    assert abs(c["alpha"] - 1 / 3) < 1e-12 and abs(c["beta"] - 3) < 1e-12
    pats = ub.sparsity_patterns("fixed", 4, k=4)
    assert abs(ub.gaussian_pattern_energy(P, Sigma, pats) - c["energy"]) < 1e-12 * c["energy"]


def test_centred_slc_1d_gaussian():
    x = sympy.Symbol("x", real=True)
    out = ub.centred_slc_1d((x - 1) ** 2 / 2, x, 4)   # N(1, 1) moved to mean 0
    assert abs(out["mean"] - 1) < 1e-12 and abs(out["central"][4] - 3) < 1e-12
    assert abs(out["alpha"] - 1) < 1e-12 and abs(out["beta"] - 1) < 1e-12
    assert abs(out["cumulants"][4]) < 1e-12


@pytest.mark.parametrize("call", [
    lambda: ub.tensor_bound(np.ones((2, 3)), 0.5, m=2),
    lambda: ub.tensor_bound(np.ones((2, 3)), 0.0),
    lambda: ub.tensor_bound([[np.nan, 1.0]], 0.5),
    lambda: ub.tensor_bound(np.ones(3), 0.5),
    lambda: ub.coordinate_cumulants("gaussian", 1.5, 4),
    lambda: ub.eq12_projection_matrix(0, 3, 0.5),
    lambda: ub.thm32_constant(-1),
    lambda: ub.schur_ratio(np.eye(3), 3),
    lambda: ub.footnote4_factor(np.ones((3, 2))),
    lambda: ub.footnote3_sides(np.ones((2, 3)), np.ones(4)),
    lambda: ub.to_fraction(sympy.sqrt(2)),
    lambda: ub.structured_candidates(3, 2),
    lambda: ub.lemA3_value(np.ones((2, 3)), np.eye(4)),
    lambda: ub.lemA3_maximise(np.ones((2, 3)), np.ones((3, 2))),
    lambda: ub.conditional_energy_1d([1.0, 0.0], 1.5),
    lambda: ub.conditional_energy_1d([1.0, 1.0], 0.5),
    lambda: ub.sparsity_patterns("fixed", 3, k=4),
    lambda: ub.sparsity_patterns("one-of-pairs", 3),
    lambda: ub.sparsity_patterns("blocks", 4, p=0.5, blocks=3),
    lambda: ub.sparsity_patterns("poisson", 3),
    lambda: ub.sparsity_patterns("bernoulli", 28, p=0.5),
    lambda: ub.nu_loss_parts(np.ones((1, 3)), np.eye(3), [0, 0, 1.0, 0, 0, 0, 0], ub.sparsity_patterns("fixed", 3, k=3),
                             m=5),
    lambda: ub.gaussian_conditional_chain(np.eye(3), np.ones((1, 3))),
])
def test_bad_input(call):
    with pytest.raises(VerifyInputError):
        call()


@pytest.mark.parametrize("value,tail", [
    (float("nan"), "must be finite, not nan."), (float("inf"), "must be finite, not inf."),
    (-float("inf"), "must be finite, not -inf."), (np.float32("nan"), "must be finite, not np.float32(nan)."),
    (sympy.sqrt(2), "must be rational for exact arithmetic, not sqrt(2)."),
    (None, "must be rational for exact arithmetic, not None."),
    ("x", "must be rational for exact arithmetic, not 'x'."),
    ([1, 2], "must be rational for exact arithmetic, not [1, 2]."),
])
def test_to_fraction_refusals_whole(value, tail):
    """Every refusal of the exact converter, whole: the non-finite floats name the value, the irrationals and
    non-numbers are refused as not rational (never sympy's or Python's own error)."""
    with pytest.raises(VerifyInputError) as err:
        ub.to_fraction(value)
    assert str(err.value) == "Argument 'value' " + tail


@pytest.mark.parametrize("value,want", [(3, Fraction(3)), (np.int64(-7), Fraction(-7)), (0.1, Fraction(0.1)),
                                        (sympy.Rational(-5, 12), Fraction(-5, 12)), ("3/4", Fraction(3, 4)),
                                        (Fraction(2, 9), Fraction(2, 9))])
def test_to_fraction_keeps_exact_values(value, want):
    got = ub.to_fraction(value)
    assert type(got) is Fraction and got == want


@pytest.mark.parametrize("shape", [(3, 2), (2, 3), (1, 2)])
def test_lemA3_objective_refuses_an_M_of_another_shape_than_C(shape):
    """M must have C's shape (q x r): refused whole, naming M and both shapes, never numpy's broadcasting error or a
    silently broadcast trace; the other side: the same shape gives 2 tr(CM^T) - tr(C Sigma C^T)."""
    C, Sigma = np.array([[1.0, -2.0], [0.5, 3.0]]), np.array([[2.0, 0.3], [0.3, 1.0]])
    with pytest.raises(VerifyInputError) as err:
        ub.lemA3_objective(C, np.ones(shape), Sigma)
    assert str(err.value) == f"Argument 'M' must have shape (2, 2), not {shape}."
    M = np.array([[0.7, -1.1], [2.0, 0.25]])
    want = 2 * np.trace(C @ M.T) - np.trace(C @ Sigma @ C.T)
    assert ub.lemA3_objective(C, M, Sigma) == pytest.approx(want, rel=1e-14)


def test_lemA1_sides_hold_to_the_working_precision_with_transcendental_dependence_on_s():
    """Both sides at 50 digits for a family whose s-derivative involves sin (not a polynomial: the derivative must be
    evaluated in mpmath, not in float64), the covariance side against a derivative written here by hand."""
    x, s = sympy.symbols("x s")
    V = (x - s) ** 2 / 2 + sympy.cos(s * x) / 10           # V'' = 1 - s^2 cos(sx) / 10 > 0 near s0
    with mpmath.workdps(50):
        lhs, rhs = ub.lemA1_sides(V, x ** 3, x, s, sympy.Rational(3, 10))
        s0 = mpmath.mpf(3) / 10
        w = lambda u: mpmath.exp(-((u - s0) ** 2 / 2 + mpmath.cos(s0 * u) / 10))  # noqa: E731
        pts = [-mpmath.inf, 0, mpmath.inf]
        Z = mpmath.quad(w, pts)
        E = lambda g: mpmath.quad(lambda u: g(u) * w(u), pts) / Z  # noqa: E731
        dV = lambda u: -(u - s0) - u * mpmath.sin(s0 * u) / 10   # noqa: E731
        ref = -(E(lambda u: u ** 3 * dV(u)) - E(lambda u: u ** 3) * E(dV))
        assert isinstance(rhs, mpmath.mpf) and abs(rhs - ref) <= mpmath.mpf(10) ** -40 * abs(ref)
        assert abs(lhs - rhs) <= mpmath.mpf(10) ** -35 * abs(ref)
        assert abs(ref - E(lambda u: u ** 3)) > 0.1        # the two sides are not the expectation itself


def test_centred_slc_1d_default_moments_up_to_six():
    """Omitted ``kmax`` is 6 (the documented default): central moments c_0..c_6 and cumulants up to kappa_6."""
    x = sympy.Symbol("x")
    out = ub.centred_slc_1d((x - 1) ** 2 / 2 + sympy.log(sympy.cosh(x)) / 2, x)
    assert len(out["central"]) == 7 and len(out["cumulants"]) == 7
    explicit = ub.centred_slc_1d((x - 1) ** 2 / 2 + sympy.log(sympy.cosh(x)) / 2, x, 6)
    assert out == explicit
