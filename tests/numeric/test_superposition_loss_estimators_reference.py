r"""The estimators and the maximiser of :mod:`verify.numeric.superposition_loss` (Gauss rule, Monte Carlo,
L-BFGS search, Remark 4.3's first-order objective) against references written here.

References: :math:`\mathbb E[v^k]` for :math:`v = 2\langle x, \phi(Ax)\rangle - \|\phi(Ax)\|^2` by expanding the
polynomial in sympy with exact rational W and replacing each monomial by its moments
(:math:`\mathbb E x_j^e = p\,\mu_e`, the Gaussian's :math:`(e-1)!!` and the Rademacher's 1 written here); Monte Carlo
judged against that exact mean and variance (within 5 standard errors, the standard error within a factor 1.5);
the maximiser against the closed form of the linear case (:math:`\max_W \tilde L = p\mu_2\min(d, n)` for m = 1) and
against perturbations of its answer; :math:`\mathcal F` and its gradient by torch autograd.
"""

import math
from fractions import Fraction

import numpy as np
import sympy
import torch
from threadpoolctl import threadpool_info
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.numeric import superposition_loss as SL

REF = settings.get_profile("reference")


def xi_moment(mu: str, e: int) -> Fraction:
    if e % 2:
        return Fraction(0)
    return Fraction(math.prod(range(e - 1, 0, -2))) if mu == "gaussian" else Fraction(1)


def ref_moment(W: np.ndarray, p: Fraction, m: int, mu: str, power: int) -> Fraction:
    """E[v^power] exactly, W with rational entries (as Fractions)."""
    d, n = W.shape
    xs = sympy.symbols(f"x0:{n}")
    Wm = sympy.Matrix([[sympy.Rational(Fraction(v).numerator, Fraction(v).denominator) for v in row] for row in W])
    A = Wm.T * Wm
    x = sympy.Matrix(xs)
    phi = (A * x).applyfunc(lambda t: t ** m)
    v = 2 * (x.T * phi)[0] - (phi.T * phi)[0]
    poly = sympy.Poly(sympy.expand(v ** power), *xs)
    total = Fraction(0)
    for mon, c in poly.terms():
        term = Fraction(int(c.p), int(c.q))
        for e in mon:
            if e:
                term *= p * xi_moment(mu, e)
        total += term
    return total


@st.composite
def small_W(draw, n_max: int = 3):
    d = draw(st.integers(1, 3))
    n = draw(st.integers(1, n_max))
    scale = draw(st.sampled_from([Fraction(1, 4), Fraction(1), Fraction(2)]))
    W = np.array([[Fraction(draw(st.integers(-8, 8)), 8) * scale for _ in range(n)] for _ in range(d)], dtype=object)
    return W


@REF
@given(small_W(), st.sampled_from([1, 3]), st.sampled_from(["gaussian", "rademacher"]),
       st.fractions(Fraction(1, 50), 1, max_denominator=50), st.integers(1, 2))
def test_quadrature_moment_against_exact_moment_expansion(W, m, mu, p, power):
    if power == 2 and m == 3 and W.shape[1] == 3:
        power = 1  # degree 12 in three variables: the expansion takes seconds (the slow profile's domain still has it)
    want = ref_moment(W, p, m, mu, power)
    got = SL.quadrature_moment(W.astype(float), p, m, mu, power=power)
    scale = float(ref_moment(abs(W), p, m, "gaussian", power)) if mu == "gaussian" else 1.0
    assert math.isclose(got, float(want), rel_tol=1e-9, abs_tol=1e-12 * max(1.0, scale, abs(float(want))))


@settings(REF, max_examples=max(6, REF.max_examples // 2))
@given(small_W(n_max=2), st.sampled_from([1, 3]), st.sampled_from(["gaussian", "rademacher"]),
       st.sampled_from([Fraction(1, 10), Fraction(1, 2), Fraction(1)]),
       st.one_of(st.sampled_from([1, 2, 3999, 4000, 4001]), st.integers(1, 900)), st.integers(0, 10 ** 6))
def test_monte_carlo_loss_within_its_standard_error_of_the_exact_loss(W, m, mu, p, chunk, seed):
    mean = ref_moment(W, p, m, mu, 1)
    var = ref_moment(W, p, m, mu, 2) - mean * mean
    N = 4000
    est, se = SL.monte_carlo_loss(W.astype(float), p, m, mu, samples=N, seed=seed, chunk=chunk)
    assert (est, se) == SL.monte_carlo_loss(W.astype(float), p, m, mu, samples=N, seed=seed, chunk=chunk)
    if var == 0:  # a constant summand (e.g. W = 0 or p = 1 with Rademacher signs): no spread at all
        assert se <= 1e-12 * max(1.0, abs(float(mean))) and math.isclose(est, float(mean), rel_tol=1e-12,
                                                                         abs_tol=1e-12)
        return
    true_se = math.sqrt(float(var) / N)
    assert abs(est - float(mean)) <= 5 * true_se
    if p * W.shape[1] >= Fraction(1, 2):  # enough mass off zero that the sample variance is stable at N = 4000
        assert true_se / 1.6 <= se <= true_se * 1.6


@settings(REF, max_examples=max(6, REF.max_examples // 2))
@given(st.integers(1, 3), st.integers(1, 3), st.sampled_from(["gaussian", "rademacher"]),
       st.sampled_from([Fraction(1, 5), Fraction(1, 2), Fraction(1)]), st.integers(0, 100), st.integers(1, 3))
def test_maximise_loss_attains_the_linear_optimum_and_no_more(d, n, mu, p, seed, restarts):
    res = SL.maximise_loss(d, n, p, m=1, mu=mu, restarts=restarts, seed=seed)
    best = float(p) * min(d, n)  # p mu_2 min(d, n), mu_2 = 1 for both laws
    assert math.isclose(res.value, best, rel_tol=1e-8)
    assert len(res.restart_values) == restarts and res.seed == seed
    assert res.value == max(res.restart_values) == res.restart_values[res.best_restart]
    assert all(v <= best * (1 + 1e-9) for v in res.restart_values)
    W = np.array([[Fraction(v).limit_denominator(2 ** 20) for v in row] for row in res.W], dtype=object)
    assert math.isclose(float(ref_moment(W, p, 1, mu, 1)), res.value, rel_tol=1e-6)


@settings(REF, max_examples=max(4, REF.max_examples // 4))
@given(st.integers(1, 2), st.integers(1, 3), st.integers(0, 100))
def test_maximise_loss_odd_power_is_a_local_maximum_of_the_exact_loss(d, n, seed):
    p = Fraction(1, 2)
    res = SL.maximise_loss(d, n, p, m=3, mu="rademacher", restarts=2, seed=seed)
    W = np.array([[Fraction(v) for v in row] for row in res.W], dtype=object)
    value = float(ref_moment(W, p, 3, "rademacher", 1))
    assert math.isclose(value, res.value, rel_tol=1e-9, abs_tol=1e-12)
    rng = np.random.default_rng(seed)
    for _ in range(3):  # no nearby W does better (a search stopped short of a maximum would fail this)
        D = rng.standard_normal(res.W.shape) * 1e-3
        Wp = np.array([[Fraction(v) for v in row] for row in res.W + D], dtype=object)
        assert float(ref_moment(Wp, p, 3, "rademacher", 1)) <= value + 1e-9


@REF
@given(st.integers(1, 4), st.integers(1, 5), st.sampled_from([1, 3, 5]), st.sampled_from([0.1, 1.0, 3.0]),
       st.integers(0, 2 ** 32 - 1))
def test_first_order_objective_and_gradient_against_autograd(d, n, m, scale, seed):
    V = np.random.default_rng(seed).standard_normal((d, n)) * scale
    Vt = torch.tensor(V, requires_grad=True)
    B = Vt.T @ Vt
    F = 2 * (torch.diagonal(B) ** m).sum() - (B ** (2 * m)).sum()
    (g,) = torch.autograd.grad(F, Vt)
    got, G = SL.first_order_objective(V, m)
    mag = float((B.detach().abs() ** (2 * m)).sum()) + 1.0
    assert math.isclose(got, float(F.detach()), rel_tol=1e-10, abs_tol=1e-12 * mag)
    np.testing.assert_allclose(G, g.numpy(), rtol=1e-9, atol=1e-12 * mag)
    # Remark 4.3: F <= rank bound d^m (B~ = B^(odot m) is PSD of rank <= d^m), attained by orthonormal columns
    assert got <= d ** m * (1 + 1e-9) + 1e-9
    assert math.isclose(SL.first_order_objective(np.eye(d, min(d, n)), m)[0], min(d, n), rel_tol=1e-12)


def test_single_blas_thread_limits_every_blas_library_to_one_thread_and_restores_them():
    """Against threadpoolctl's own report of the loaded BLAS libraries (inside: one thread each; after: as before)."""
    before = {lib["filepath"]: lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}
    with SL.single_blas_thread():
        inside = {lib["filepath"]: lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}
    after = {lib["filepath"]: lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}
    assert inside and set(inside.values()) == {1}
    assert after == before
