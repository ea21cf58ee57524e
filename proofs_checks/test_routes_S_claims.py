r"""Paper S: the loss claims' quantities through every route ``route="auto"`` takes for a user.

A claim about :math:`\tilde L` or its supremum is checked elsewhere at small n, where ``auto`` resolves to the
Gram strips. Here the same quantity - the maximiser's value, the loss at a structured point - is computed with
``auto`` switched to each route at small cost (:func:`proofs_checks._loss_routes.auto_routes`: the cost
constants of ``route_costs`` injected, every chunk threshold a few rows), the routes compared with each other
and with exact rationals, and the claim's statement asserted on both sides: below its bound, and at or above
the value the proof says is attained. Laws with non-unit moments, d > 1, p < 1.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from proofs_checks._loss_routes import auto_routes, every_option_at, exact_value, resolved, routes_available
from verify.numeric import upper_bounds as ub
from verify.numeric.distributions import get_distribution
from verify.numeric.superposition_loss import exact_loss, exact_loss_grad, maximise_loss

SEED = 1804


def _eq10_start(d, n, m, mu, seed=SEED):
    r"""Eq. (10)'s unsuperposed point (d orthogonal columns with :math:`A_{ii}^m = \mu_{m+1}/\mu_{2m}`, the rest 0),
    every entry moved by a seeded 1e-2: a generic start whose value is within ~1e-4 of eq. (10)'s."""
    dist = get_distribution(mu)
    W = np.zeros((d, n))
    W[np.arange(d), np.arange(d)] = float(dist.moment(m + 1) / dist.moment(2 * m)) ** (1 / (2 * m))
    return W + 1e-2 * np.random.default_rng(seed).standard_normal((d, n))


def _maximise_every_route(monkeypatch, d, n, p, m, mu, x0, maxiter=25):
    """``maximise_loss`` (L-BFGS, exact gradient, ``auto`` routes) from ``x0`` once per route; returns route ->
    result. The same start everywhere, so the values agree up to the float round-off of the L-BFGS path
    (``maxiter`` caps the cost: the chunks injected small make each evaluation many small ones)."""
    out = {}
    for route in routes_available():
        with auto_routes(monkeypatch, route, d, m):
            want = "tensor" if route.startswith("tensor") else route
            assert resolved(route, d, n, m, False) == resolved(route, d, n, m, True) == want   # the switch crossed
            out[route] = maximise_loss(d, n, p, m=m, mu=mu, restarts=1, x0=[x0], maxiter=maxiter)
    return out


def _agree(monkeypatch, results, p, m, mu):
    """Every route's loss and gradient at every route's maximiser equal the Gram route's there (pointwise: the
    L-BFGS paths themselves part by round-off once the maximum is flat): loss to 1e-12 relative, gradient to
    1e-10 of its largest entry (float64 sums of a few hundred terms in other orders), far below a wrong term."""
    d, n = results["gram"].W.shape
    for res in results.values():
        with auto_routes(monkeypatch, "gram", d, m):
            ref, gref = exact_loss(res.W, float(p), m, mu), exact_loss_grad(res.W, float(p), m, mu)
        assert abs(res.value - ref) <= 1e-12 * abs(ref)
        for route in results:
            with auto_routes(monkeypatch, route, d, m):
                assert abs(exact_loss(res.W, float(p), m, mu) - ref) <= 1e-12 * abs(ref), route
                g = exact_loss_grad(res.W, float(p), m, mu)
            assert np.abs(g - gref).max() <= 1e-10 * max(1.0, np.abs(gref).max()), route
    # and every explicit option (route=, dps=, the law's spelling) at the Gram route's maximiser
    options = every_option_at(results["gram"].W, Fraction(p), m, mu)
    return {**{r: res.value for r, res in results.items()}, "options_at_maximiser": options}


@pytest.mark.claim("S-thm3.1")
def test_thm31_maximiser_by_every_route_below_the_bound_above_eq10(verdict, monkeypatch):
    r"""Thm 3.1, :math:`\sup_W\tilde L \le C_2pd^m`, at the maximiser reached by every route (d = 2, n = 6, m = 3,
    Laplace with :math:`\mu_2 = 2`, p = 3/10): below the bound, with the exact rational loss of the maximiser
    below it too, and at least eq. (10)'s attained value :math:`pd\mu_{m+1}^2/\mu_{2m}` (the supremum is at least
    what unsuperposed W reach)."""
    d, n, m, mu, p = 2, 6, 3, "laplace", Fraction(3, 10)
    x0 = _eq10_start(d, n, m, mu)
    res = _maximise_every_route(monkeypatch, d, n, float(p), m, mu, x0)
    vals = _agree(monkeypatch, res, p, m, mu)
    dist = get_distribution(mu)
    bound, eq10 = ub.thm31_bound(d, p, m, mu), p * d * dist.moment(m + 1) ** 2 / dist.moment(2 * m)
    start = exact_value(x0, p, m, mu)
    for route, r in res.items():
        exact = exact_value(r.W, p, m, mu)
        assert abs(float(exact) - vals[route]) <= 1e-11 * abs(float(exact))   # float route vs exact at the maximiser
        # the maximiser is at least its start (L-BFGS ascends), which is within 1e-4 of eq. (10)'s value
        assert Fraction(eq10) * (1 - Fraction(1, 10 ** 4)) <= exact <= Fraction(bound) and exact >= start, route
    verdict.verified(method="num: maximiser by gram / power sums / tensor (numba, numpy) auto routes, chunked; "
                            "exact rational loss in [eq. (10), C_2 p d^m]",
                     evidence={"d": d, "n": n, "m": m, "mu": mu, "p": str(p), "values": vals, "exact": float(exact),
                               "bound": float(bound), "eq10": float(eq10), "start_seed": SEED})


@pytest.mark.claim("S-thm2.2-2")
def test_thm22_2_maximiser_by_every_route_below_C3_d(verdict, monkeypatch):
    r"""Thm 2.2(2) for a symmetric :math:`N(0, 6/5)` (strongly log-concave, K = 6/5), n = 9 > d^m = 8, p = 0.7:
    the maximiser by every route stays below :math:`C_3d = (K + K^3)d` (its exact rational loss too) and at or
    above eq. (10)'s attained value."""
    d, n, m, mu, p = 2, 9, 3, "gaussian(6/5)", Fraction(7, 10)
    K = ub.strong_log_concavity_K(mu)[0]
    assert K == Fraction(6, 5)
    x0 = _eq10_start(d, n, m, mu)
    res = _maximise_every_route(monkeypatch, d, n, float(p), m, mu, x0)
    vals = _agree(monkeypatch, res, p, m, mu)
    dist = get_distribution(mu)
    bound, eq10 = ub.thm32_bound(d, K), p * d * dist.moment(m + 1) ** 2 / dist.moment(2 * m)
    start = exact_value(x0, p, m, mu)
    for route, r in res.items():
        exact = exact_value(r.W, p, m, mu)                         # as for Thm 3.1 above
        assert Fraction(eq10) * (1 - Fraction(1, 10 ** 4)) <= exact <= Fraction(bound) and exact >= start, route
    verdict.verified(method="num: maximiser by every auto route (chunked) below (K + K^3) d, above eq. (10)",
                     evidence={"d": d, "n": n, "m": m, "mu": mu, "p": str(p), "K": str(K), "values": vals,
                               "exact": float(exact), "bound": float(bound), "start_seed": SEED})


@pytest.mark.claim("S-linear")
def test_linear_case_maximum_p_mu2_d_attained_by_every_route(verdict, monkeypatch):
    r""":math:`\phi(t) = t`: :math:`\tilde L = p\mu_2\operatorname{tr}(2A - A^2) \le p\mu_2d`, attained by a rank-d
    projection; the maximiser by every route reaches :math:`p\mu_2d` (uniform law on [-sqrt 3 s, sqrt 3 s] scaled:
    here Laplace, :math:`\mu_2 = 2`; d = 3, n = 5, p = 0.3), and the loss of a rank-3 projection (exact rationals:
    a coordinate projection) equals it exactly by every route."""
    d, n, m, mu, p = 3, 5, 1, "laplace", Fraction(3, 10)
    res = _maximise_every_route(monkeypatch, d, n, float(p), m, mu, np.random.default_rng(SEED).standard_normal((d, n)))
    vals = _agree(monkeypatch, res, p, m, mu)
    top = p * 2 * d
    # L-BFGS to gtol 1e-10 on a concave quadratic in A: 1e-9 of the maximum
    assert all(abs(res[r].value - float(top)) <= 1e-9 * float(top) for r in res), vals
    P = np.zeros((d, n))
    P[0, 0] = P[1, 2] = P[2, 4] = 1.0
    for route in routes_available():
        with auto_routes(monkeypatch, route, d, m):
            assert exact_loss(P, float(p), m, mu) == pytest.approx(float(top), rel=1e-15)   # integer A: exact sums
    assert exact_value(P, p, m, mu) == top and exact_value(1.1 * P, p, m, mu) < top
    verdict.verified(method="num: maximiser by every auto route reaches p mu_2 d; exact at a projection",
                     evidence={"d": d, "n": n, "mu": mu, "p": str(p), "values": vals, "max": str(top), "seed": SEED})


@pytest.mark.claim("S-eq9")
def test_eq9_diagonal_A_by_every_route_law_spelling_and_precision(verdict, monkeypatch):
    r"""Eq. (9), :math:`A` diagonal: :math:`\tilde L = p\sum_i(2\mu_{m+1}A_{ii}^m - \mu_{2m}A_{ii}^{2m})`, at W with
    orthogonal columns of unequal non-unit norms (zero columns included), m = 3 and 5: by every float route
    (chunked), the mpmath routes at dps 30 (gram, power sums, tensor), and the law given as a name, a
    :class:`Distribution` and a moment list - each equal to the formula (exact rationals)."""
    from verify.numeric.superposition_loss import exact_loss as L

    rows = []
    for m, mu, p in ((3, "uniform", Fraction(1, 4)), (5, "laplace", Fraction(2, 3))):
        d, n = 3, 5
        W = np.zeros((d, n))
        W[0, 0], W[1, 1], W[2, 3] = 1.25, -0.75, 0.5            # A = diag(1.5625, 0.5625, 0, 0.25, 0)
        dist = get_distribution(mu)
        A = [Fraction(v) for v in np.diag(W.T @ W)]
        want = p * sum(2 * dist.moment(m + 1) * a ** m - dist.moment(2 * m) * a ** (2 * m) for a in A)
        assert exact_value(W, p, m, mu) == want                   # the cumulant formula agrees exactly
        got = {}
        for route in routes_available():
            with auto_routes(monkeypatch, route, d, m):
                got[route] = L(W, float(p), m, mu)
                G = exact_loss_grad(W, float(p), m, mu)
        moments = [dist.moment(k) for k in range(1, 2 * m + 1)]
        for law in (dist, moments):
            got[f"law={type(law).__name__}"] = L(W, float(p), m, law)
        for route in ("gram", "power_sums", "tensor"):
            v = L(W, p, m, mu, dps=30, route=route)
            q = Fraction(*mpmath.libmp.to_rational(v._mpf_))       # the mpf's exact binary value
            assert abs(q - want) <= Fraction(1, 10 ** 25) * abs(want), route   # 30 digits, 5 lost
        for name, v in got.items():
            # float64 sums of n row polynomials: 1e-13 relative (a handful of terms, no cancellation)
            assert abs(v - float(want)) <= 1e-13 * abs(float(want)), (name, m, v, float(want))
        # the gradient at a diagonal A (the off-diagonal terms A_ij^2k have zero derivative at A_ij = 0): column j
        # is 4 p m (mu_{m+1} A_jj^{m-1} - mu_2m A_jj^{2m-1}) w_j
        for j in range(n):
            a = float(A[j])
            want_g = 4 * float(p) * m * (float(dist.moment(m + 1)) * a ** (m - 1)
                                         - float(dist.moment(2 * m)) * a ** (2 * m - 1)) * W[:, j]
            assert np.allclose(G[:, j], want_g, rtol=1e-12, atol=1e-12 * max(1.0, float(abs(want)))), (m, j)
        rows.append({"m": m, "mu": mu, "p": str(p), "eq9": str(want), **got})
    verdict.verified(method="exact eq. (9) vs every float auto route (chunked), mpmath gram/power sums/tensor at "
                            "dps 30, law as name / Distribution / moment list; gradient at diagonal A",
                     evidence={"cases": rows})


@pytest.mark.claim("S-eq12", "S-eq11", "S-lemA.3")
def test_tensor_bound_and_eq12_by_every_law_spelling_and_number_type_of_p(verdict):
    r"""The law as a user may pass it - a name, the :class:`Distribution` object, its moment list
    :math:`[\mu_1, \dots, \mu_{12}]` (a :class:`MomentSequence`) - and :math:`p` as a Fraction, a float (its exact
    binary value) or an int (the edge p = 1): Lemma A.3 / (11)'s :math:`\mathcal M(W) = \operatorname{tr}(M\Sigma^+M^T)`
    (``tensor_bound(exact=True)``, rational W, d = 2, n = 3, m = 3, the Laplace law) and (12)-(13)'s
    :math:`Q = MG^+M^T` are the same exact rationals by every spelling; :math:`p\mu_2 I - Q \succeq 0` exactly and
    :math:`0 < \mathcal M(W)`."""
    import sympy

    W = np.array([[Fraction(1, 2), Fraction(-1, 3), Fraction(2, 5)],
                  [Fraction(1, 4), Fraction(3, 7), Fraction(-1, 2)]], dtype=object)
    rows = []
    dist = get_distribution("laplace")
    moments = [dist.moment(k) for k in range(1, 13)]
    # (reference spelling, other spellings): p = 1/2 as float by the object and the list; p = 1 as an int (the edge)
    for p_exact, others in ((Fraction(1, 2), ((dist, 0.5), (moments, 0.5))), (Fraction(1), ((moments, 1), (dist, 1)))):
        ref = ub.tensor_bound(W, p_exact, m=3, mu="laplace", exact=True).value
        assert all(ub.tensor_bound(W, p, m=3, mu=mu, exact=True).value == ref for mu, p in others) and ref > 0
        Q = ub.eq12_projection_matrix(2, 3, p_exact, "laplace")
        assert all(ub.eq12_projection_matrix(2, 3, p, mu) == Q for mu, p in others)
        pmu2 = sympy.Rational(p_exact.numerator, p_exact.denominator) * dist.moment(2)
        assert (pmu2 * sympy.eye(2) - Q).is_positive_semidefinite
        rows.append({"mu": "laplace", "p": str(p_exact), "M(W)": str(ref), "lambda_max(Q)/(p mu_2)":
                     float(max(np.linalg.eigvalsh(np.array(Q, dtype=float)))) / float(pmu2)})
    verdict.verified(method="exact: tensor_bound and Q by name / Distribution / moment list, p Fraction / float / int",
                     evidence={"cases": rows})
