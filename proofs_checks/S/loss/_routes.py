r"""Shared by the route checks of the loss claims of paper S: every route ``exact_loss``/``exact_loss_grad`` take.

The claims' own checks evaluate :math:`\tilde L` and maximise it at small n, where ``route="auto"`` always
resolves to the Gram strips; a user at large n gets the moment matrices or the symmetric-tensor route (numba
kernel, or numpy without the extra ``fast``), every one chunked. :func:`auto_routes` makes ``auto`` take each of
them at small size by injecting the cost constants of :func:`verify.numeric.power_sums.route_costs` (the switch
itself, not a forced ``route=``), with every chunk threshold injected small, so a claim's check runs its quantity
through each route a user runs and compares the results.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction

import numpy as np

from verify.numeric import upper_bounds as ub
from verify.route_map import inject

#: route name -> the cost constants that make ``route="auto"`` choose it at small n (None: the defaults, gram)
AUTO = {
    "gram": {},
    "power_sums": {"_PS_OVERHEAD_FLOPS": -1e30},                    # moment matrices cheapest
    "tensor_numba": {"_TENSOR_OVERHEAD_FLOPS": -1e30},              # symmetric tensors, numba kernel
    "tensor_numpy": {"_ELEMENTWISE_FLOPS": 0.0, "AVAILABLE": False},  # no numba: numpy kernel, its own cost line
}


@contextlib.contextmanager
def auto_routes(monkeypatch, route: str, d: int, m: int):
    """Inside: ``route="auto"`` resolves to ``route`` (a key of :data:`AUTO`) at small size, and the strips, row
    blocks, monomial chunks, kept products, tensor groups and row chunks hold a few rows each."""
    from verify.numeric import _tensor_kernels as TK
    from verify.numeric import power_sums, superposition_loss

    with monkeypatch.context() as mp:
        for name, value in AUTO[route].items():
            inject(mp, name, value, module=TK if name == "AVAILABLE" else power_sums)
        inject(mp, "_STRIP_ENTRIES", 3, module=superposition_loss)
        inject(mp, "_BLOCK_ENTRIES", 5, module=superposition_loss)
        inject(mp, "_ROW_CHUNK", 4, module=superposition_loss)
        inject(mp, "_CHUNK_ENTRIES", 3 * power_sums.monomial_count(d, 2 * m), module=power_sums)
        inject(mp, "_KEEP_ENTRIES", 0, module=power_sums)
        inject(mp, "GROUP", 3, module=TK)
        yield


def routes_available() -> list:
    """The keys of :data:`AUTO` this installation runs (the numba kernel needs the extra ``fast``)."""
    from verify.numeric import _tensor_kernels as TK

    return [r for r in AUTO if r != "tensor_numba" or TK.AVAILABLE]


def resolved(route: str, d: int, n: int, m: int, grad: bool) -> str:
    """The route ``auto`` resolves to under :func:`auto_routes` (asserted by the checks: the switch was crossed)."""
    from verify.numeric.power_sums import choose_route

    return choose_route("auto", d, n, m, grad=grad, tensor=True)


def exact_value(W, p, m, mu) -> Fraction:
    """Independent route: :math:`\\tilde L(W)` in exact rationals from the cumulant formula (W's float entries at
    their binary values)."""
    Wq = np.array([[Fraction(float(v)) for v in row] for row in np.asarray(W, dtype=float)], dtype=object)
    return ub.general_loss(Wq, ub.coordinate_cumulants(mu, p, 2 * m), m)


def every_option_at(W, p, m, mu) -> dict:
    """:math:`\\tilde L(W)` and its gradient by every explicit option a user passes to ``exact_loss`` /
    ``exact_loss_grad`` - ``route=`` each of gram, gram_rows, power_sums, tensor; ``dps=30`` with route auto,
    gram, power sums, tensor; the law as a name, a :class:`Distribution` and a moment list - against the exact
    rational loss. Float64: 1e-12 relative for the loss, 1e-10 of the largest entry for the gradient (sums of a
    few hundred terms in other orders); dps 30: 1e-25 relative (5 digits lost to the sums). Returns the values."""
    import mpmath

    from verify.numeric.distributions import get_distribution
    from verify.numeric.superposition_loss import exact_loss, exact_loss_grad

    exact = exact_value(W, p, m, mu)
    pf, out = float(p), {}
    g_ref = exact_loss_grad(W, pf, m, mu, route="gram_rows")
    dist = get_distribution(mu)
    for route in ("gram", "gram_rows", "power_sums", "tensor"):
        out[route] = v = exact_loss(W, pf, m, mu, route=route)
        assert abs(v - float(exact)) <= 1e-12 * abs(float(exact)), (route, v, float(exact))
        g = exact_loss_grad(W, pf, m, mu, route=route)
        assert np.abs(g - g_ref).max() <= 1e-10 * max(1.0, np.abs(g_ref).max()), route
    for law in (dist, [dist.moment(k) for k in range(1, 2 * m + 1)]):
        out[f"law={type(law).__name__}"] = v = exact_loss(W, pf, m, law)
        assert abs(v - float(exact)) <= 1e-12 * abs(float(exact)), type(law)
    for route in ("auto", "gram", "power_sums", "tensor"):
        v = exact_loss(W, p, m, mu, dps=30, route=route)
        q = Fraction(*mpmath.libmp.to_rational(v._mpf_))
        assert abs(q - exact) <= Fraction(1, 10 ** 25) * abs(exact), route
        out[f"dps30_{route}"] = str(v)
    return out
