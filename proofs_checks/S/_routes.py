"""Helpers of the routes checks of paper S (loss, upper and lower bounds): the routes of ``exact_loss`` and
``maximise_loss`` run side by side, their agreement, exact inputs.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy

from verify.numeric import upper_bounds as ub
from verify.numeric.distributions import get_distribution
from verify.numeric.superposition_loss import exact_loss, exact_loss_grad, maximise_loss

from proofs_checks.S.loss._routes import auto_routes, every_option_at, exact_value, resolved, routes_available


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


def _dyadic_W(rng, d, n, scale):
    """A float W with dyadic entries (exact as Fractions) of the given scale."""
    return np.round(scale * rng.standard_normal((d, n)) * 64) / 64


def _every_route(monkeypatch, W, p, m, mu) -> Fraction:
    r"""``exact_loss`` / ``exact_loss_grad`` at W by every explicit option (:func:`every_option_at`) and with
    ``route="auto"`` switched to each route (cost constants injected, every chunk a few rows): all equal the exact
    rational loss of the cumulant formula. Float64: 1e-12 relative for the loss (sums of a few hundred terms in
    other orders), 1e-10 of the largest entry for the gradient. Returns the exact loss."""
    exact = exact_value(W, p, m, mu)
    every_option_at(W, p, m, mu)
    d, n = W.shape
    g_ref = exact_loss_grad(W, float(p), m, mu, route="gram_rows")
    assert abs(exact_loss(W, float(p), m, mu) - float(exact)) <= 1e-12 * abs(float(exact))   # auto, defaults
    for route in routes_available():
        with auto_routes(monkeypatch, route, d, m):
            assert resolved(route, d, n, m, False) == ("tensor" if route.startswith("tensor") else route)
            assert abs(exact_loss(W, float(p), m, mu) - float(exact)) <= 1e-12 * abs(float(exact)), route
            g = exact_loss_grad(W, float(p), m, mu)
            assert np.abs(g - g_ref).max() <= 1e-10 * max(1.0, np.abs(g_ref).max()), route
    return exact


# --------------------------------------------------------------------------- the loss claims: exact-route inputs
def _exact_route_inputs(mu, p):
    """The cumulants behind the exact rational route from a float p and from an explicit moment list equal the law's
    exact ones (Fractions, p's binary value), and the empty product of linear forms has expectation 1."""
    dist = get_distribution(mu)
    kap = ub.coordinate_cumulants(None, float(p), 10, moments=[dist.moment(k) for k in range(11)])
    assert kap == ub.coordinate_cumulants(mu, Fraction(float(p)), 10) and kap[2] == Fraction(float(p)) * dist.moment(2)
    assert ub.linear_form_moment(np.zeros((0, 2)), kap) == 1


def _sympy_loss(W, p, m, mu):
    """Independent route: the brute-force expansion over sparsity patterns (no cumulants, no row polynomial) of the
    exact sympy A = W^T W, the law's moments substituted."""
    from verify.symbolic import superposition_loss as S

    dist = get_distribution(mu)
    expr = S.brute_force_loss(W.T * W, m, moments=lambda k: sympy.sympify(dist.moment(k)))
    return sympy.expand(expr.subs(S.p, sympy.Rational(p.numerator, p.denominator)))
