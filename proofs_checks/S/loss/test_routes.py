r"""Paper S, the exact population loss (sec. 2, eqs. 6-10, Remark 4.3): every computational route to a claim's quantity.

The loss :math:`\tilde L`, its gradient and its maximiser are computed by several routes - strips and row blocks of
:math:`A = W^TW`, row power sums over chunks of monomial features, the symmetric-tensor route and its numba kernels,
mpmath at a given ``dps``, torch tensors - and ``route="auto"`` picks one by cost. Each claim's quantity is computed
here by every route and compared with a route that shares nothing with it (exact rationals, explicit monomial sums
and inner products, numpy against torch), and the claim's statement is asserted on both sides where it is a bound:
below its bound, and at or above the value the proof says is attained.

Size thresholds. The fast routes behind the README's large-size figures switch on size: row blocks and strips of
:math:`A = W^TW`, chunks of monomial features, the kept :math:`\psi_kH_k` of the gradient. At the sizes of the other
checks several of these never switch. Here each threshold is injected small (the module constants are read at call
time; see :mod:`verify.route_map`), so the scaling code runs with many chunks.

``route="auto"``. A claim about :math:`\tilde L` or its supremum is checked elsewhere at small n, where ``auto``
resolves to the Gram strips. Here the same quantity - the maximiser's value, the loss at a structured point - is
computed with ``auto`` switched to each route at small cost (:func:`proofs_checks.S.loss._routes.auto_routes`: the
cost constants of ``route_costs`` injected, every chunk threshold a few rows), and the routes are compared with each
other and with exact rationals.

Routes a user calls directly. ``power_sum_tensor`` / ``contract`` (:mod:`verify.numeric.power_sums`) are the tensor
form :math:`\langle x^{\otimes k}, \sum_j w_j^{\otimes k}\rangle = \sum_j \langle x, w_j\rangle^k` of the identity
:math:`\langle u, v\rangle^m = \langle u^{\otimes m}, v^{\otimes m}\rangle` in the proof of Thm 3.1 (S-tensor);
``MaximiseResult`` is what ``maximise_loss`` hands a user (attributes and the mapping view), checked in the linear
case (S-linear).

Options and spellings. :mod:`verify.route_map` measures, per claim, the branch coverage of the package functions its
checks execute; the checks here run each claim's quantity through the options and spellings a user passes and the
other checks do not - every route of ``exact_loss`` (explicit, ``auto`` switched by injected cost constants,
``dps``), the law as a name (``"rademacher"`` included), a :class:`Distribution` or a moment list,
``maximise_loss``'s ``init_scale`` / ``x0`` / restarts - against the exact rationals of the cumulant formula and the
name spelling's exact value.

Inputs have non-unit scales, d > 1, p < 1 and non-Gaussian laws with non-unit moments and variance, so a dropped
scale or a wrong exponent shows.
"""

from __future__ import annotations

from fractions import Fraction
import functools
import itertools

import mpmath
import numpy as np
import pytest
import sympy

from verify.engine import random_rational_matrix
from verify.numeric import upper_bounds as ub
from verify.numeric.distributions import get_distribution, Laplace
from verify.numeric.power_sums import contract, monomial_exponents, power_sum_tensor
from verify.numeric.superposition_loss import exact_loss, exact_loss_grad, maximise_loss
from verify.route_map import inject
from verify.statements import constants, holds

from proofs_checks.S._routes import (
    _agree, _dyadic_W, _every_route, _exact_route_inputs, _maximise_every_route, _sympy_loss,
)
from proofs_checks.S.loss._routes import auto_routes, exact_value, routes_available
from proofs_checks._refusals import raises_exactly as _raises


SEED = 1818


def _rational_matrix(rng, rows: int, cols: int) -> np.ndarray:
    """The engine's random rationals times 3/2 (a non-unit scale), as an object array of Fractions."""
    M = random_rational_matrix(rng, rows, cols, max_num=9, max_den=7)
    return np.array([[Fraction(3 * int(e.p), 2 * int(e.q)) for e in M.row(i)] for i in range(rows)], dtype=object)


@pytest.mark.claim("S-tensor")
def test_power_sum_tensor_and_contraction_exact(verdict):
    r"""Exact rationals, d = 3 (a formula in d must not collapse at d = 1): the monomial entries
    :math:`S_\alpha = \sum_j w_j^\alpha` one by one, and :math:`\langle x^{\otimes 2k}, S_{2k}\rangle =
    \sum_j \langle x, w_j\rangle^{2k}` (with the multinomial weights), k = 0..3, against explicit sums."""
    rng = np.random.default_rng(SEED)
    d, n = 3, 5
    W = _rational_matrix(rng, d, n)
    X = _rational_matrix(rng, 4, d)
    for k in range(4):
        S = power_sum_tensor(W, k)
        alphas = monomial_exponents(d, 2 * k)
        assert len(S) == len(alphas)
        for s, alpha in zip(S, alphas):
            want = sum(np.prod([W[i, j] ** int(alpha[i]) for i in range(d)]) for j in range(n))
            assert Fraction(s) == want, (k, alpha)
        got = contract(S, X, 2 * k)
        inner = X.dot(W)                                   # (4, n) exact inner products <x, w_j>
        want = [sum(v ** (2 * k) for v in row) for row in inner]
        assert [Fraction(g) for g in got] == want, k
    # the rows of the loss: S_{2k,i} = sum_j A_ij^{2k} with A = W^T W, by contracting against X = W^T
    A = W.T.dot(W)
    got = contract(power_sum_tensor(W, 3), W.T, 6)
    assert [Fraction(g) for g in got] == [sum(v ** 6 for v in row) for row in A]
    verdict.verified(method="sym: exact rationals, monomial entries and contractions == explicit sums, k = 0..3",
                     evidence={"d": d, "n": n, "k": [0, 1, 2, 3], "seed": SEED})


@pytest.mark.claim("S-tensor")
def test_power_sum_tensor_float_and_torch_routes(verdict):
    """Float64 numpy and torch inputs (d = 4, n = 60, scale 1.7): both equal the direct sum of <x, w_j>^{2k}."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(SEED + 1)
    W = 1.7 * rng.standard_normal((4, 60))
    X = 0.6 * rng.standard_normal((7, 4))
    worst = 0.0
    for k in (1, 2, 3):
        want = ((X @ W) ** (2 * k)).sum(axis=1)
        S = power_sum_tensor(W, k)
        St = power_sum_tensor(torch.as_tensor(W), k)
        got = contract(S, X, 2 * k)
        got_t = contract(St, torch.as_tensor(X), 2 * k)
        assert np.allclose(St.numpy(), S, rtol=1e-13, atol=0)     # same sums, other BLAS order: rounding only
        for g in (got, np.asarray(got_t)):              # a torch input may come back as numpy or torch
            err = float(np.max(np.abs(g - want) / np.abs(want)))
            assert err < 1e-11, (k, err)                           # degree-6 sums of 60 terms: ~1e-14 each
            worst = max(worst, err)
    verdict.verified(method="num: numpy and torch power-sum tensors contracted == direct inner-product sums",
                     evidence={"d": 4, "n": 60, "k": [1, 2, 3], "max_rel_err": worst, "seed": SEED + 1})


@pytest.mark.claim("S-linear")
def test_maximise_result_reports_what_it_found(verdict):
    r"""m = 1: the result's fields and its mapping view (``dict(res)``, ``**res``) agree; ``value`` is the exact
    loss of the returned W (recomputed by the mpmath route) and the best restart; and it reaches the linear
    case's supremum :math:`p\mu_2 d` from below (two-sided: L-BFGS on a quadratic, within 1e-7)."""
    d, n, pr = 2, 4, 0.3
    res = maximise_loss(d, n, pr, m=1, mu="gaussian", restarts=3, seed=SEED)
    view = dict(res)
    assert list(view) == ["W", "value", "restart_values", "seed", "best_restart"]
    for key in view:
        assert view[key] is getattr(res, key) is res[key]
    assert res.seed == SEED and len(res.restart_values) == 3
    assert res.restart_values[res.best_restart] == res.value == max(res.restart_values)
    again = float(exact_loss(res.W, Fraction(3, 10), 1, "gaussian", dps=30))
    assert abs(again - res.value) <= 1e-12 * abs(again)       # float vs 30-digit route: rounding only
    # the supremum, independently: the exact loss of a rank-d projection W = [I 0] (the attained case), not a
    # bound typed here; the statement object holds at the returned W and at the projection (mu_2 = 1: N(0, 1))
    P = np.eye(d, n)
    top = exact_value(P, Fraction(3, 10), 1, "gaussian")
    assert float(top) * (1 - 1e-7) <= res.value <= float(top) * (1 + 1e-12)  # attained (optimizer tolerance)
    law = {"m": 1, "d": d, "n": n, "p": Fraction(3, 10), "s": 1}
    assert holds("S-linear", law, Ltilde=top)
    assert holds("S-linear", law, Ltilde=exact_value(res.W, Fraction(3, 10), 1, "gaussian"))
    verdict.verified(method="num: MaximiseResult fields == mapping view; value == exact loss of W == the value of "
                            "a rank-d projection; the statement object at both",
                     evidence={"d": d, "n": n, "p": pr, "value": res.value, "projection_value": str(top),
                               "seed": SEED})


@pytest.mark.claim("S-exact-loss")
def test_power_sum_gradient_runs_in_the_chunks_asked_for(verdict, monkeypatch):
    r"""``RowPowerSums(W, m, chunk=c).grad``: both of the gradient's passes over the rows (the weighted moment
    matrices :math:`H^c_k` and the contraction) build the monomial features of at most c rows at a time -- the
    memory bound the option promises, which no value can show (the sums are the same unchunked) -- so the row
    counts handed to the monomial builder are observed; and the chunked gradient equals the pairwise gradient
    :math:`2\,\partial_A f(c)\,w_c + \sum_{j\ne c}\sum_k 2k(\partial_{T_{2k}}f(c) + \partial_{T_{2k}}f(j))
    A_{cj}^{2k-1} w_j` in exact rationals (d = 3, n = 7: chunks 3, 3, 1; non-unit scale)."""
    from verify.numeric import power_sums
    from verify.numeric.power_sums import RowPowerSums

    rng = np.random.default_rng(SEED + 3)
    d, n, m, chunk = 3, 7, 3, 3
    W = _rational_matrix(rng, d, n)
    d_a = np.array([Fraction(int(v), 5) for v in rng.integers(-4, 5, n)], dtype=object)
    d_T = [np.array([Fraction(int(v), 3 * k) for v in rng.integers(-4, 5, n)], dtype=object) for k in range(1, m + 1)]
    seen, build = [], power_sums._monomials

    def counted(X, k):
        seen.append(X.shape[-2])
        return build(X, k)

    monkeypatch.setattr(power_sums, "_monomials", counted)   # the builder every route calls
    rps = RowPowerSums(W, m, chunk=chunk, for_grad=True)
    passes = [min(chunk, n - s) for s in range(0, n, chunk)]            # [3, 3, 1]
    assert seen == passes * 2, seen                                      # the value: moment matrices, forms
    seen.clear()
    G = rps.grad(d_a, d_T)
    assert seen == passes * 2, seen                                      # the gradient: H^c_k, then contraction
    A = W.T.dot(W)
    for c in range(n):
        want = 2 * d_a[c] * W[:, c]
        for j in range(n):
            if j != c:
                want = want + sum(2 * k * (d_T[k - 1][c] + d_T[k - 1][j]) * A[c, j] ** (2 * k - 1)
                                  for k in range(1, m + 1)) * W[:, j]
        assert list(G[:, c]) == list(want), c
    verdict.verified(method="num: chunked RowPowerSums gradient: row chunks observed (<= chunk in both passes) and "
                            "== exact rational pairwise gradient",
                     evidence={"d": d, "n": n, "m": m, "chunk": chunk, "chunks": passes, "seed": SEED + 3})


@pytest.mark.claim("S-exact-loss")
def test_tensor_kernels_row_groups_equal_exact_rationals(verdict):
    r"""The numba kernels of the direct route (``route="tensor"``) sweep groups of 1, 2, 4 and 8 block rows that
    share a tail (``power_sums._tensor_groups``); S is accumulated in register tiles of up to 4 rows x 6 tail
    entries (``accumulate_tiled``, ``power_sums._accumulate_tiles``) where it has at most ``_TILED_MAX``
    coefficients, else by ``accumulate`` in groups of 1 and 2 rows: d = 10, m = 5 (122,463 coefficients) takes that
    branch, every other case the tiles; n = 270 spans two chunks of the tiled sum (``TILE_BLOCKS`` = 32 blocks of
    eight features), the second partial. At d = 10, m = 3 all four
    sizes occur, at d = 4, m = 5 and d = 5, m = 4 (even) groups of 1, 2 and 4; d = 1, m = 2 has single rows only.
    n = 11 and 19 are not multiples of the eight features per sweep (``BLOCK``), n = 7, 6, 5 are less than one
    sweep, and S is summed in partial sums of three features (``chunk=3``). :math:`T_{2k,i}` and the gradient equal
    the pairwise sums over :math:`A = W^TW` in exact rationals (W's float entries at their binary values), within
    the forward error bound of a sum of products: N rounded operations on the longest path into one output times
    eps times the same sum in absolute values."""
    from verify.numeric import _tensor_kernels as TK
    from verify.numeric.power_sums import (_TILED_MAX, TensorPowerSums, _kernel_layout, _kernel_top, _tensor_groups,
                                           monomial_count)

    if not TK.AVAILABLE:
        pytest.skip("numba (extra 'fast') not installed: the numba kernel does not exist here")
    rng = np.random.default_rng(SEED + 4)
    eps = np.finfo(float).eps
    rows, sizes_seen, tiled_seen = [], set(), set()
    for d, n, m in ((10, 11, 3), (10, 19, 3), (4, 7, 5), (5, 6, 4), (1, 5, 2), (10, 9, 5), (2, 270, 2)):
        groups = _tensor_groups(d, m, _kernel_top(d, m))
        sizes = {R for R, g in zip((1, 2, 4, 8), groups) if len(g)}
        sizes_seen |= sizes
        assert 1 in sizes and (len(sizes) > 1) == (d > 1)              # grouped sweeps run where blocks share tails
        W = 1.3 * rng.standard_normal((d, n))
        t = TensorPowerSums(W, m, chunk=3, kernel="numba")
        assert t.kernel == "numba" and t._group == 3
        tiled = _kernel_layout(d, m).tiles is not None
        assert tiled == (sum(monomial_count(d, 2 * k) for k in range(1, m + 1)) <= _TILED_MAX)
        tiled_seen.add(tiled)
        Wq = np.array([[Fraction(float(v)) for v in row] for row in W], dtype=object)
        A, absA = Wq.T.dot(Wq), np.abs(W).T @ np.abs(W)
        # N: the n-term sums of S, the D_2m-term contraction, the d-term |w|^2 and its powers, the reverse sweep
        N = n + sum(monomial_count(d, 2 * k) for k in range(1, m + 1)) + 10 * d * m
        worst = 0.0
        for k in range(1, m + 1):
            exact = [sum(A[i, j] ** (2 * k) for j in range(n) if j != i) for i in range(n)]
            err = np.abs(t.T[k - 1] - np.array([float(v) for v in exact]))
            bound = N * eps * np.sum(absA ** (2 * k), axis=1)
            assert np.all(err <= bound), (d, m, k, float(np.max(err / bound)))
            worst = max(worst, float(np.max(err / bound)))
        d_a = 0.7 * rng.standard_normal(n)
        d_T = [1.9 * rng.standard_normal(n) * 0.3 ** k for k in range(1, m + 1)]
        G = t.grad(d_a, d_T)
        dq = [Fraction(float(v)) for v in d_a]
        tq = [[Fraction(float(v)) for v in dt] for dt in d_T]
        scale = 2 * np.abs(d_a) * np.abs(W)
        for k in range(1, m + 1):
            coef = 2 * k * (np.abs(d_T[k - 1])[:, None] + np.abs(d_T[k - 1])[None, :]) * absA ** (2 * k - 1)
            scale = scale + np.abs(W) @ coef
        for c in range(n):
            want = [2 * dq[c] * Wq[a, c] for a in range(d)]
            for j in range(n):
                if j != c:
                    h = sum(2 * k * (tq[k - 1][c] + tq[k - 1][j]) * A[c, j] ** (2 * k - 1) for k in range(1, m + 1))
                    want = [want[a] + h * Wq[a, j] for a in range(d)]
            err = np.abs(G[:, c] - np.array([float(v) for v in want]))
            assert np.all(err <= N * eps * scale[:, c]), (d, m, c)
            worst = max(worst, float(np.max(err / (N * eps * scale[:, c]))))
        rows.append({"d": d, "n": n, "m": m, "group_sizes": sorted(sizes), "accumulate": "tiled" if tiled else "rows",
                     "N": N, "worst_err_over_bound": worst})
    assert sizes_seen == {1, 2, 4, 8} and tiled_seen == {True, False}
    verdict.verified(method="num: numba tensor kernels (row groups of 1, 2, 4, 8, accumulation tiled and by rows, "
                            "sweep remainders, chunk 3) "
                            "== exact rational pairwise T_2k and gradient within the forward error bound",
                     evidence={"cases": rows, "seed": SEED + 4})


SEED_2 = 1801


def _rational_W(rng, d, n, scale):
    """A float W whose entries are dyadic (exact as Fractions), of the given scale."""
    return np.round(scale * rng.standard_normal((d, n)) * 64) / 64


def _exact_loss(W, p, m, mu):
    """Independent route: the cumulant formula of Thm 2.1 in exact rationals (no blocks, no power sums)."""
    Wq = np.array([[Fraction(float(v)) for v in row] for row in W], dtype=object)
    return ub.general_loss(Wq, ub.coordinate_cumulants(mu, p, 2 * m), m)


# (d, n, m, law, p, scale of W): n past several strips/blocks/chunks once the thresholds are injected; m = 5 kept
# small in n (the exact rational route costs grow fast with m)
CASES = [(3, 37, 3, "laplace", Fraction(3, 10), 1.3), (2, 29, 5, "uniform", Fraction(1, 4), 0.8)]


def _mp_exact(v) -> Fraction:
    """The exact binary value of an mpmath number (no rounding to the current precision)."""
    return Fraction(*mpmath.libmp.to_rational(v._mpf_))


@pytest.mark.claim("S-exact-loss")
def test_loss_routes_past_every_chunk_threshold_equal_exact_rationals(verdict, monkeypatch):
    r"""All float routes of :func:`exact_loss` with their thresholds injected small - strips of the upper
    triangle (``_STRIP_ENTRIES``), row blocks (``_BLOCK_ENTRIES``), monomial chunks (``_CHUNK_ENTRIES``) -
    equal the exact rational loss of the cumulant formula (m = 3) or the unchunked mpmath loss (m = 5), at
    d = 2, 3, Laplace/uniform laws, W of scale 1.3 and 0.8."""
    from verify.numeric import power_sums, superposition_loss

    rng = np.random.default_rng(SEED_2)
    rows = []
    for d, n, m, mu, p, scale in CASES:
        W = _rational_W(rng, d, n, scale)
        # m = 3: exact rationals (the cumulant formula); m = 5: the unchunked mpmath evaluator at dps 30 (the exact
        # route costs ~10 s there; the mpmath one is itself checked against exact rationals below)
        want = _exact_loss(W, p, m, mu) if m == 3 else _mp_exact(exact_loss(W, p, m, mu, dps=30))
        assert want != 0
        with monkeypatch.context() as mp:
            # the smallest thresholds: one row per strip/block, a few rows per monomial chunk
            inject(mp, "_STRIP_ENTRIES", 3, module=superposition_loss)
            inject(mp, "_BLOCK_ENTRIES", 5, module=superposition_loss)
            inject(mp, "_CHUNK_ENTRIES", 3 * power_sums.monomial_count(d, m), module=power_sums)
            got = {route: exact_loss(W, float(p), m, mu, route=route) for route in ("gram", "gram_rows", "power_sums")}
        for route, v in got.items():
            # (against dps-30 values: their own error is ~1e-25 relative, negligible here)
            # float64 sums of n row polynomials of degree 2m in A: 1e-11 relative (the float route's own bound
            # in test_statements.py), far below any wrong term, scale or moment
            err = abs(v - float(want)) / abs(float(want))
            assert err < 1e-11, (route, d, m, err)
        rows.append({"d": d, "n": n, "m": m, "mu": mu, "p": str(p), "scale": scale, "exact": float(want), **got})
    verdict.verified(method="num: exact_loss gram strips / row blocks / chunked power sums (thresholds injected) "
                            "vs exact rationals (cumulant formula)", evidence={"cases": rows, "seed": SEED_2})


@pytest.mark.claim("S-exact-loss")
def test_gradient_routes_chunked_and_without_kept_products_agree(verdict, monkeypatch):
    r"""The gradient of every maximiser, three implementations - strips of the symmetric A (``gram``), full row
    blocks (``gram_rows``), moment matrices with ``_KEEP_ENTRIES = 0`` (the recomputed :math:`\psi_kH_k`, the
    large-n path) and small chunks - agree, and match a central difference of the exact rational loss."""
    from verify.numeric import power_sums, superposition_loss

    rng = np.random.default_rng(SEED_2 + 1)
    rows = []
    for d, n, m, mu, p, scale in CASES:
        W = _rational_W(rng, d, n, scale)
        with monkeypatch.context() as mp:
            inject(mp, "_STRIP_ENTRIES", 3, module=superposition_loss)
            inject(mp, "_BLOCK_ENTRIES", 5, module=superposition_loss)
            inject(mp, "_CHUNK_ENTRIES", 2 * power_sums.monomial_count(d, m), module=power_sums)
            inject(mp, "_KEEP_ENTRIES", 0, module=power_sums)
            G = {route: exact_loss_grad(W, float(p), m, mu, route=route) for route in ("gram", "gram_rows", "power_sums")}
        ref = G["gram_rows"]
        scale_g = np.abs(ref).max()
        for route, g in G.items():
            # same quantity by different float reductions: 1e-10 of the largest entry
            assert np.abs(g - ref).max() <= 1e-10 * scale_g, (route, d, m)
        rows.append({"d": d, "n": n, "m": m, "mu": mu, "max_abs_grad": float(scale_g)})
        if m != 3:
            continue  # the exact anchor below once (exact rationals at m = 5 cost tens of seconds)
        # one directional derivative against the exact rational loss (step h: the error is O(h^2) ~ 1e-8 of it)
        V = np.zeros_like(W)
        V[0, 1], V[-1, -2] = 1.0, -0.5
        h = Fraction(1, 2 ** 14)
        fd = (_exact_loss(W + float(h) * V, p, m, mu) - _exact_loss(W - float(h) * V, p, m, mu)) / (2 * h)
        dd = float(np.sum(ref * V))
        assert abs(dd - float(fd)) <= 1e-6 * max(1.0, abs(float(fd))), (dd, float(fd))
        rows[-1].update(directional=dd, exact_central_difference=float(fd))
    verdict.verified(method="num: exact_loss_grad three routes, chunked, without kept products; exact central "
                            "difference", evidence={"cases": rows, "seed": SEED_2 + 1})


@pytest.mark.claim("S-exact-loss")
def test_mpmath_routes_both_equal_exact_rationals(verdict):
    r"""The high-precision evaluator (``dps``) by both routes - the mpmath Gram matrix and the mpmath power sums
    (``_mp_loss_power_sums``) - equals the exact rational loss to 25 digits at dps 30."""
    rng = np.random.default_rng(SEED_2 + 2)
    d, n, m, mu, p = 3, 9, 3, "laplace", Fraction(2, 7)
    W = _rational_W(rng, d, n, 1.7)
    want = _exact_loss(W, p, m, mu)
    got = {}
    for route in ("gram", "power_sums"):
        v = exact_loss(W, p, m, mu, dps=30, route=route)
        q = _mp_exact(v)
        # 30 digits of sums of ~n^2 terms: 25 significant digits survive
        assert abs(q - want) <= Fraction(1, 10 ** 25) * abs(want), route
        got[route] = str(v)
    verdict.verified(method="hp: mpmath dps 30, gram and power-sum routes, vs exact rationals",
                     evidence={"d": d, "n": n, "m": m, "mu": mu, "p": str(p), "exact": str(want), **got})


@pytest.mark.claim("S-exact-loss")
def test_power_sums_on_torch_tensors_equal_numpy(verdict):
    r"""The moment-matrix route on torch tensors (the route of the Fig. 3 training) with small chunks: the row
    statistics :math:`A_{ii}`, :math:`T_{2k,i}` and the gradient assembly equal the numpy route, and
    :math:`T_{2k,i}` equals its definition :math:`\sum_{j\ne i} A_{ij}^{2k}` from the dense Gram matrix."""
    torch = pytest.importorskip("torch")
    from verify.numeric.power_sums import RowPowerSums

    rng = np.random.default_rng(SEED_2 + 4)
    d, n, m = 3, 41, 3
    W = 1.3 * rng.standard_normal((d, n))
    ref = RowPowerSums(W, m, chunk=5, for_grad=True)
    got = RowPowerSums(torch.as_tensor(W), m, chunk=5, for_grad=True)
    A = W.T @ W
    off = A - np.diag(np.diag(A))
    # float64 sums of n products in another order: 1e-12 relative
    assert np.allclose(got.diag.numpy(), np.diag(A), rtol=1e-12, atol=0)
    for k in range(m):
        want = (off ** (2 * (k + 1))).sum(axis=1)
        assert np.allclose(ref.T[k], want, rtol=1e-10, atol=0)   # power sums subtract A_ii^2k: 1e-10 relative
        assert np.allclose(got.T[k].numpy(), ref.T[k], rtol=1e-12, atol=0)
    d_a = 0.7 * rng.standard_normal(n)
    d_T = [rng.standard_normal(n) for _ in range(m)]
    g_np = ref.grad(d_a, d_T)
    g_t = got.grad(torch.as_tensor(d_a), [torch.as_tensor(v) for v in d_T])
    assert np.abs(g_t.numpy() - g_np).max() <= 1e-12 * np.abs(g_np).max()
    verdict.verified(method="num: RowPowerSums on torch float64 (chunked) == numpy == dense definition",
                     evidence={"d": d, "n": n, "m": m, "seed": SEED_2 + 4, "max_abs_grad": float(np.abs(g_np).max())})


def _exact_row_sums(W, m):
    """Independent route for the row statistics: :math:`A = W^TW` in exact rationals, :math:`A_{ii}` and
    :math:`T_{2k,i} = \\sum_{j\\ne i} A_{ij}^{2k}` straight from the definition (no monomials, no moments)."""
    Wq = np.array([[Fraction(float(v)) for v in row] for row in W], dtype=object)
    A = Wq.T @ Wq
    n = A.shape[0]
    return [A[i, i] for i in range(n)], [[sum(A[i, j] ** (2 * k) for j in range(n) if j != i) for i in range(n)]
                                         for k in range(1, m + 1)]


@pytest.mark.claim("S-exact-loss")
def test_tensor_route_both_kernels_past_group_and_chunk_equal_exact_rationals(verdict, monkeypatch):
    r"""The direct symmetric-tensor route (``route="tensor"``) with every threshold on it crossed: the numba kernel
    with ``_tensor_kernels.GROUP`` = 3 features per partial sum of :math:`S_{2k}` (n = 29, 37: ten or more groups),
    the numpy kernel with ``power_sums._CHUNK_ENTRIES`` a few rows of monomials, the lambdified row polynomial with
    ``_ROW_CHUNK`` = 7 rows, the mpmath tensor route (numpy kernel over ``mpf``) and the numpy kernel on torch
    tensors. Row statistics equal the exact rational definition; the loss equals the exact rational cumulant
    formula (m = 3) or the dps-30 Gram route (m = 5); the gradient of both kernels equals the moment-matrix
    gradient (an independent contraction) for random non-unit :math:`\partial f/\partial A_{ii}`,
    :math:`\partial f/\partial T`, and ``exact_loss_grad(route="tensor")`` equals ``route="gram_rows"``."""
    from verify.numeric import _tensor_kernels as TK
    from verify.numeric import power_sums, superposition_loss
    from verify.numeric.power_sums import RowPowerSums, TensorPowerSums

    if not TK.AVAILABLE:
        pytest.skip("numba (extra 'fast') not installed: the numba kernel does not exist here")
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(SEED_2 + 7)
    rows = []
    for d, n, m, mu, p, scale in CASES:
        W = _rational_W(rng, d, n, scale)
        diag_q, T_q = _exact_row_sums(W, m)
        want = _exact_loss(W, p, m, mu) if m == 3 else _mp_exact(exact_loss(W, p, m, mu, dps=30, route="gram"))
        d_a, d_T = 0.7 * rng.standard_normal(n), [1.9 * rng.standard_normal(n) for _ in range(m)]
        with monkeypatch.context() as mp:
            inject(mp, "GROUP", 3, module=TK)
            inject(mp, "_CHUNK_ENTRIES", 3 * power_sums.monomial_count(d, 2 * m), module=power_sums)
            inject(mp, "_ROW_CHUNK", 7, module=superposition_loss)
            fast, slow = TensorPowerSums(W, m), TensorPowerSums(W, m, kernel="numpy")
            tt = TensorPowerSums(torch.as_tensor(W), m)
            assert (fast.kernel, slow.kernel, tt.kernel, fast._group) == ("numba", "numpy", "numpy", 3)
            loss = exact_loss(W, float(p), m, mu, route="tensor")
            loss_mp = _mp_exact(exact_loss(W, p, m, mu, dps=30, route="tensor"))
            g_fast, g_slow = fast.grad(d_a, d_T), slow.grad(d_a, d_T)
            g_t = tt.grad(torch.as_tensor(d_a), [torch.as_tensor(v) for v in d_T]).numpy()
            G_tensor = exact_loss_grad(W, float(p), m, mu, route="tensor")
            G_rows = exact_loss_grad(W, float(p), m, mu, route="gram_rows")
        g_ref = RowPowerSums(W, m, for_grad=True).grad(d_a, d_T)
        for k in range(m):
            exact_T = np.array([float(v) for v in T_q[k]])
            for got in (fast.T[k], slow.T[k], tt.T[k].numpy()):
                # T = P - A_ii^2k in float64: cancellation bounded by A_ii^2k / T (< 1e3 here): 1e-10 relative
                assert np.allclose(got, exact_T, rtol=1e-10, atol=0), (d, m, k)
        assert np.allclose(fast.diag, [float(v) for v in diag_q], rtol=1e-14, atol=0)   # d products: a few ulps
        # float64 row polynomials summed over n rows (test_statements.py's bound): 1e-11 relative; the mpmath route at
        # dps 30: 1e-20 relative (its own rounding ~1e-28, far below)
        assert abs(loss - float(want)) <= 1e-11 * abs(float(want)), (d, m, loss, float(want))
        assert abs(loss_mp - want) <= Fraction(1, 10 ** 20) * abs(want), (d, m)
        gs = np.abs(g_ref).max()
        for name, g in (("numba", g_fast), ("numpy", g_slow), ("torch", g_t)):
            # one contraction in three orders of summation: 1e-10 of the largest entry
            assert np.abs(g - g_ref).max() <= 1e-10 * gs, (name, d, m)
        assert np.abs(G_tensor - G_rows).max() <= 1e-10 * np.abs(G_rows).max()
        rows.append({"d": d, "n": n, "m": m, "mu": mu, "p": str(p), "scale": scale, "loss_tensor": loss,
                     "exact": float(want), "max_abs_grad": float(np.abs(G_rows).max())})
    verdict.verified(method="num: tensor route (numba GROUP = 3, numpy chunks, row chunks, mpmath, torch) vs exact "
                            "rational row sums and loss, moment-matrix gradient", evidence={"cases": rows,
                                                                                       "seed": SEED_2 + 7})


SEED_3 = 1804



@pytest.mark.claim("S-linear")
def test_linear_case_maximum_p_mu2_d_attained_by_every_route(verdict, monkeypatch):
    r""":math:`\phi(t) = t`: :math:`\tilde L = p\mu_2\operatorname{tr}(2A - A^2) \le p\mu_2d`, attained by a rank-d
    projection; the maximiser by every route reaches :math:`p\mu_2d` (uniform law on [-sqrt 3 s, sqrt 3 s] scaled:
    here Laplace, :math:`\mu_2 = 2`; d = 3, n = 5, p = 0.3), and the loss of a rank-3 projection (exact rationals:
    a coordinate projection) equals it exactly by every route."""
    d, n, m, mu, p = 3, 5, 1, "laplace", Fraction(3, 10)
    res = _maximise_every_route(monkeypatch, d, n, float(p), m, mu, np.random.default_rng(SEED_3).standard_normal((d, n)))
    vals = _agree(monkeypatch, res, p, m, mu)
    # the supremum, independently: the exact loss of a rank-3 coordinate projection (the attained case), not a
    # bound typed here; m = 1: the loss reads the law through mu_2 alone, so the statement (N(0, s)) reads s = mu_2
    P = np.zeros((d, n))
    P[0, 0] = P[1, 2] = P[2, 4] = 1.0
    top = exact_value(P, p, m, mu)
    # L-BFGS to gtol 1e-10 on a concave quadratic in A: 1e-9 of the maximum
    assert all(abs(res[r].value - float(top)) <= 1e-9 * float(top) for r in res), vals
    for route in routes_available():
        with auto_routes(monkeypatch, route, d, m):
            assert exact_loss(P, float(p), m, mu) == pytest.approx(float(top), rel=1e-15)   # integer A: exact sums
    assert exact_value(1.1 * P, p, m, mu) < top
    law = {"m": m, "d": d, "n": n, "p": p, "s": Fraction(get_distribution(mu).moment(2))}
    for W in (P, 1.1 * P, *(res[r].W for r in res)):   # the statement object: attained at P, below elsewhere
        assert holds("S-linear", law, Ltilde=exact_value(W, p, m, mu))
    verdict.verified(method="num: maximiser by every auto route reaches p mu_2 d; exact at a projection",
                     evidence={"d": d, "n": n, "mu": mu, "p": str(p), "values": vals, "max": str(top), "seed": SEED_3})


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
        k = constants("S-eq9", m=m)  # eq. (9)'s constant and exponents, from its statement object
        ca, e1, e2 = Fraction(str(k["C_a"])), int(k["e_1"]), int(k["e_2"])
        want = p * sum(ca * dist.moment(m + 1) * a ** e1 - dist.moment(2 * m) * a ** e2 for a in A)
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
        # is 2 p (C_a e_1 mu_{m+1} A_jj^{e_1-1} - e_2 mu_2m A_jj^{e_2-1}) w_j (eq. (9) differentiated, A_jj = |w_j|^2)
        for j in range(n):
            a = float(A[j])
            want_g = 2 * float(p) * (float(ca) * e1 * float(dist.moment(m + 1)) * a ** (e1 - 1)
                                     - e2 * float(dist.moment(2 * m)) * a ** (e2 - 1)) * W[:, j]
            assert np.allclose(G[:, j], want_g, rtol=1e-12, atol=1e-12 * max(1.0, float(abs(want)))), (m, j)
        rows.append({"m": m, "mu": mu, "p": str(p), "eq9": str(want), **got})
    verdict.verified(method="exact eq. (9) vs every float auto route (chunked), mpmath gram/power sums/tensor at "
                            "dps 30, law as name / Distribution / moment list; gradient at diagonal A",
                     evidence={"cases": rows})



# --------------------------------------------------------------------------- eq. (10)
@pytest.mark.claim("S-eq10")
def test_eq10_unsuperposed_value_by_every_route_and_maximiser_option(verdict, monkeypatch):
    r"""Eq. (10) at its unsuperposed point, d = 2 orthogonal columns with :math:`A_{ii}^m = \mu_{m+1}/\mu_{2m}`
    (n = 4, two zero columns), Laplace(2)-moment list law (mu_2 = 2 b^2 ...: the law as a moment list) and Laplace
    as a Distribution, p = 1/4, m = 3: every route of the loss equals the exact loss, which lies within 1e-13 below
    :math:`p d \mu_{m+1}^2/\mu_{2m}` (the float point's A_ii is rounded; the value is the maximum over the scale,
    so never above); ``maximise_loss`` from that point (``x0``) and a drawn start scaled by ``init_scale``
    reaches at least eq. (10)'s value (an ascent from it). The cumulants from an explicit ``moments=`` list
    equal the law's."""
    dist = Laplace(2)
    m, p, d, n = 3, Fraction(1, 4), 2, 4
    mom = [dist.moment(k) for k in range(1, 2 * m + 1)]
    k = constants("S-eq10")  # eq. (10)'s constant and exponents, from its statement object
    target = Fraction(str(k["C"])) * p ** int(k["e_p"]) * d ** int(k["e_d"]) \
        * Fraction(dist.moment(m + 1)) ** int(k["e_1"]) * Fraction(dist.moment(2 * m)) ** int(k["e_2"])
    W = np.zeros((d, n))
    W[np.arange(d), np.arange(d)] = float(Fraction(dist.moment(m + 1)) / Fraction(dist.moment(2 * m))) ** (1 / (2 * m))
    for law in (mom, dist):
        exact = _every_route(monkeypatch, W, p, m, law)
        # the value of the scale maximum at a scale off by float rounding (1e-16 relative): below, within 1e-13
        assert target * (1 - Fraction(1, 10 ** 13)) <= exact <= target
    assert ub.coordinate_cumulants(None, p, 6, moments=[1, *mom]) == ub.coordinate_cumulants(dist, p, 6)
    res = maximise_loss(d, n, float(p), m=m, mu=dist, restarts=3, x0=[W, 0.05 * W], init_scale=0.5, seed=SEED,
                        maxiter=20)
    assert res.restart_values[0] >= float(target) * (1 - 1e-12)            # an ascent from eq. (10)'s point
    assert res.value == max(res.restart_values) == res.restart_values[res.best_restart]
    # eq. (10)'s point exactly: A_ii^3 = mu_4/mu_6 with sympy's irrational entries, at dps 30: the value to 1e-25
    import mpmath

    c = (sympy.nsimplify(dist.moment(m + 1)) / sympy.nsimplify(dist.moment(2 * m))) ** sympy.Rational(1, 2 * m)
    with mpmath.workdps(30):
        v = exact_loss(sympy.eye(2) * c, p, m, dist, dps=30)
        assert abs(v - mpmath.mpf(target.numerator) / target.denominator) <= mpmath.mpf(10) ** -25 * abs(v)
    _exact_route_inputs(dist, p)
    verdict.verified(method="num: eq. (10)'s point by every exact_loss route and law spelling vs exact rationals, "
                            "two-sided within 1e-13", evidence={"target": str(target), "maximiser": res.value})


# --------------------------------------------------------------------------- Remark 4.3
def _first_order(W, m, dist) -> Fraction:
    """p^-1 times the first-order term of Remark 4.3, exactly from A = W^T W (W's binary values)."""
    Wq = np.array([[Fraction(float(v)) for v in row] for row in W], dtype=object)
    A = Wq.T @ Wq
    mu_m1, mu_2m = Fraction(dist.moment(m + 1)), Fraction(dist.moment(2 * m))
    return 2 * mu_m1 * sum(A[i, i] ** m for i in range(A.shape[0])) - mu_2m * sum(v ** (2 * m) for v in A.flat)


@pytest.mark.claim("S-rem4.3-first-order")
def test_rem43_first_order_term_by_every_route_and_law_spelling(verdict, monkeypatch):
    r"""Remark 4.3's :math:`\tilde L = p(2\mu_{m+1}\sum A_{ii}^m - \mu_{2m}\sum A_{ij}^{2m}) + O(p^2)` with the loss by
    every route, the law as "rademacher", a Distribution and a moment list: at p = 1/100 and 1/1000 the exact
    remainder :math:`|\tilde L/p - F_1|` is non-zero and falls ~10x (between 5x and 20x: it is :math:`c_2 p +
    O(p^2)`), d = 2, n = 3, W of scale 0.6; the brute-force loss :math:`\mathcal L` (``objective="L"``) is
    :math:`\mathbb E|x|^2 - \tilde L` identically."""
    from verify.symbolic import superposition_loss as S

    rng = np.random.default_rng(SEED + 1)
    W = _dyadic_W(rng, 2, 3, 0.6)
    rows = []
    for law in ("rademacher", Laplace(Fraction(1, 2)), [0, 1, 0, 3, 0, 15]):
        dist = get_distribution(law)
        first = _first_order(W, 3, dist)
        gaps = []
        for p in (Fraction(1, 100), Fraction(1, 1000)):
            gaps.append(abs(_every_route(monkeypatch, W, p, 3, law) / p - first))
        assert 0 < gaps[1] and gaps[0] / 20 < gaps[1] < gaps[0] / 5
        rows.append({"law": str(law), "first": float(first), "gaps": [float(g) for g in gaps]})
    _exact_route_inputs("laplace", Fraction(1, 100))
    A = sympy.Matrix([[1, sympy.Rational(1, 3)], [sympy.Rational(1, 3), sympy.Rational(1, 2)]])
    Ltilde, Lfull = S.brute_force_loss(A, 3), S.brute_force_loss(A, 3, objective="L")
    assert sympy.expand(Lfull - (2 * S.p * S.mu(2) - Ltilde)) == 0          # E|x|^2 = n p mu_2, n = 2
    verdict.verified(method="num: every exact_loss route and law spelling, exact remainder O(p); sym: L = E|x|^2 - "
                            "Ltilde", evidence={"cases": rows, "seed": SEED + 1})


@pytest.mark.claim("S-rem4.3-scaling")
def test_rem43_scaling_identity_by_every_law_spelling(verdict):
    r"""Eq. (23) with the law as "rademacher" (c = 1), a Laplace Distribution and the Laplace(1/2) moment list (the
    same c, irrational): the first-order coefficient of the derived loss at A = cB equals
    :math:`\mu_{m+1}^2/\mu_{2m} F(B)`, exactly (sympy), m = 3, a rational PSD B."""
    from verify.symbolic import superposition_loss as S

    W = sympy.Matrix([[1, sympy.Rational(1, 2), 0], [sympy.Rational(-1, 3), 1, sympy.Rational(3, 4)]])
    B = W.T * W
    m = 3
    lap = Laplace(Fraction(1, 2))
    for law in ("rademacher", lap, [lap.moment(k) for k in range(1, 2 * m + 1)]):
        dist = get_distribution(law)
        assert all(sympy.nsimplify(dist.moment(k)) == sympy.nsimplify(
            (1 if law == "rademacher" else lap.moment(k))) for k in (2, 4, 6))
        c = (sympy.nsimplify(dist.moment(m + 1)) / sympy.nsimplify(dist.moment(2 * m))) ** sympy.Rational(1, m)
        subs = {S.mu(k): sympy.nsimplify(dist.moment(k)) for k in range(2, 2 * m + 1, 2)}
        first = sympy.expand(S.loss_expression(c * B, m).subs(subs)).coeff(S.p, 1)
        claimed = subs[S.mu(m + 1)] ** 2 / subs[S.mu(2 * m)] * S.F_objective(B, m)
        assert sympy.simplify(first - claimed) == 0
    verdict.verified(method="sym: eq. (23) at a rational B by every law spelling", evidence={"m": m})



@pytest.mark.claim("S-eq9")
def test_eq9_diagonal_A_by_every_route_irrational_scale_and_full_objective(verdict, monkeypatch):
    r"""Eq. (9) at a diagonal A (orthogonal columns of dyadic lengths and a zero column, d = 2, n = 3, Laplace,
    p = 2/7, m = 3): every route of the loss equals :math:`p\sum_i(2\mu_4A_{ii}^3 - \mu_6A_{ii}^6)` exactly; at
    :math:`W = 2^{-1/6}I` (sympy entries, dps 30) it is :math:`2p(2\mu_4/2 - \mu_6/4)` to 1e-25; and the brute-force
    :math:`\mathcal L` (``objective="L"``) of a diagonal A is :math:`\mathbb E|x|^2 - \tilde L`."""
    import mpmath

    from verify.symbolic import superposition_loss as S

    m, p, mu = 3, Fraction(2, 7), "laplace"
    dist = get_distribution(mu)
    mu4, mu6 = Fraction(dist.moment(4)), Fraction(dist.moment(6))
    W = np.array([[0.75, 0.0, 0.0], [0.0, -1.125, 0.0]])
    exact = _every_route(monkeypatch, W, p, m, mu)
    diag = [Fraction(0.75) ** 2, Fraction(1.125) ** 2, Fraction(0)]
    k = constants("S-eq9", m=m)  # eq. (9)'s constant and exponents, from its statement object
    ca, e1, e2 = Fraction(str(k["C_a"])), int(k["e_1"]), int(k["e_2"])
    assert exact == p * sum(ca * mu4 * a ** e1 - mu6 * a ** e2 for a in diag)
    with mpmath.workdps(30):
        v = exact_loss(sympy.eye(2) * sympy.Rational(1, 2) ** sympy.Rational(1, 6), p, m, mu, dps=30)
        a_ii = mpmath.mpf(2) ** (-mpmath.mpf(1) / 3)     # A_ii = (2^(-1/6))^2 in both rows (A_ii^3 = 1/2)
        want = 2 * p * (ca * mu4 * a_ii ** e1 - mu6 * a_ii ** e2)
        assert abs(v - want) <= mpmath.mpf(10) ** -25 * abs(v)
    A = sympy.diag(sympy.Rational(1, 2), sympy.Rational(3, 4))
    assert sympy.expand(S.brute_force_loss(A, m, objective="L") - (2 * S.p * S.mu(2) - S.brute_force_loss(A, m))) == 0
    _exact_route_inputs(mu, p)
    verdict.verified(method="num: every exact_loss route == eq. (9) exactly; dps 30 at an irrational scale; sym: L = "
                            "E|x|^2 - Ltilde", evidence={"exact": str(exact)})


@pytest.mark.claim("S-linear")
def test_linear_case_by_every_route_attained_at_an_irrational_projection(verdict, monkeypatch):
    r"""The linear case :math:`\tilde L = p\mu_2\operatorname{tr}(2A - A^2) \le p\mu_2 d`: at a dyadic 2 x 3 W
    (N(0, 1/2) as the name, p = 3/5) every route of the loss equals that trace formula exactly and lies below
    p mu_2 d; at the irrational projection :math:`W = (1, 1)/\sqrt2` (d = 1, sympy entries, dps 30) the maximum
    p mu_2 d is attained to 1e-25."""
    import mpmath

    rng = np.random.default_rng(SEED + 2)
    p, mu = Fraction(3, 5), "gaussian(1/2)"
    W = _dyadic_W(rng, 2, 3, 0.5)
    exact = _every_route(monkeypatch, W, p, 1, mu)
    Wq = np.array([[Fraction(float(v)) for v in row] for row in W], dtype=object)
    A = Wq.T @ Wq
    assert exact == p * Fraction(1, 2) * (2 * np.trace(A) - np.trace(A @ A))
    # the statement object (mu_2 = s = 1/2) below its bound at W, and at a rational rank-1 projection (attained)
    top = exact_value(np.array([[0.0, 1.0]]), p, 1, mu)
    assert holds("S-linear", {"m": 1, "d": 2, "n": 3, "p": p, "s": Fraction(1, 2)}, Ltilde=exact)
    assert holds("S-linear", {"m": 1, "d": 1, "n": 2, "p": p, "s": Fraction(1, 2)}, Ltilde=top)
    with mpmath.workdps(30):   # the irrational rank-1 projection reaches the rational one's value
        v = exact_loss(sympy.Matrix([[1, 1]]) / sympy.sqrt(2), p, 1, mu, dps=30)
        assert abs(v - mpmath.mpf(top.numerator) / top.denominator) <= mpmath.mpf(10) ** -25
    _exact_route_inputs(mu, p)
    verdict.verified(method="num: every exact_loss route == p mu_2 tr(2A - A^2) exactly, below p mu_2 d; attained "
                            "at an irrational projection (dps 30)", evidence={"exact": str(exact)})


@pytest.mark.claim("S-exact-loss")
def test_exact_loss_at_irrational_W_equals_the_brute_force_expansion(verdict):
    r"""The closed form at an irrational W (sympy entries :math:`\sqrt2/2, \sqrt3/3`, d = 2, n = 2, dps 30, every
    mpmath route, the law as a moment list) equals the brute-force expansion over sparsity patterns of the exact
    sympy :math:`A = W^TW` (no cumulants, no row polynomial) to 1e-25, m = 3, Laplace, p = 1/3."""
    import mpmath

    W = sympy.Matrix([[sympy.sqrt(2) / 2, sympy.Rational(1, 3)], [sympy.Rational(-1, 4), sympy.sqrt(3) / 3]])
    p, m = Fraction(1, 3), 3
    mom = [get_distribution("laplace").moment(k) for k in range(1, 2 * m + 1)]
    want = _sympy_loss(W, p, m, "laplace")
    with mpmath.workdps(30):
        ref = mpmath.mpf(sympy.N(want, 40))
        for route in ("auto", "gram", "power_sums", "tensor"):
            v = exact_loss(W, p, m, mom, dps=30, route=route)
            assert abs(v - ref) <= mpmath.mpf(10) ** -25 * abs(ref), route
    _exact_route_inputs("laplace", p)
    verdict.verified(method="hp: exact_loss at dps 30 (every route) at irrational W vs the brute-force expansion",
                     evidence={"value": str(sympy.N(want, 20))})


@pytest.mark.claim("S-exact-loss")
def test_route_cost_model_grows_with_the_features_as_documented(verdict):
    r"""The cost model behind ``route="auto"`` (``route_costs``), as its docstring states it: gram costs
    :math:`\propto n^2` (plus nothing linear), power_sums and tensor cost a fixed amount per feature plus a fixed
    overhead, so their costs are affine and increasing in n: at n, 2n, 3n the first differences are equal and
    positive (for gram the second difference is :math:`2n^2` times the quadratic coefficient and c(0) = 0). Checked
    at d = 10, m = 3 and d = 6, m = 5 with the gradient, n = 1000; the auto route is the cheapest of the three."""
    from verify.numeric import power_sums as ps

    rows = []
    for d, m, grad in ((10, 3, False), (6, 5, True)):
        n = 1000
        c = [ps.route_costs(d, k * n, m, grad) for k in (1, 2, 3)]
        for route in ("power_sums", "tensor"):
            step1, step2 = c[1][route] - c[0][route], c[2][route] - c[1][route]
            # sums of exact float64 integers below 2^53 apart from the constant factors: 1e-12 relative
            assert step1 > 0 and step2 == pytest.approx(step1, rel=1e-12), (route, c)
            assert c[0][route] - step1 >= 0                          # the extrapolated n = 0 cost is the overhead
        g = [x["gram"] for x in c]
        assert g[1] == pytest.approx(4 * g[0], rel=1e-12) and g[2] == pytest.approx(9 * g[0], rel=1e-12)
        for x, k in zip(c, (1, 2, 3)):
            assert ps.choose_route("auto", d, k * n, m, grad=grad, tensor=True) == min(x, key=x.get)
        rows.append({"d": d, "m": m, "grad": grad, "costs_n_1000": c[0]})
    verdict.verified(method="route_costs: gram quadratic, power_sums/tensor affine increasing in n; auto = argmin",
                     evidence={"cases": rows})


@pytest.mark.claim("S-exact-loss")
def test_exact_loss_mp_route_names_w_and_loss_from_a_defaults_to_gaussian(verdict):
    r"""The high-precision loss (``dps=20``) refuses a 1-D W naming W and its shape; ``exact_loss_from_A(A, p)``
    without a law uses the standard Gaussian, as ``exact_loss`` does: with :math:`A = W^\top W` (d = 2, n = 3,
    entries of scale 1/4..2) both give the same loss, rounding only (1e-12 relative)."""
    from verify.numeric.superposition_loss import exact_loss, exact_loss_from_A

    _raises(lambda: exact_loss(np.ones(3), 0.3, dps=20), "Argument 'W' must be a 2-D array, not an array of shape (3,).")
    W = np.array([[1.0, 0.5, -0.25], [0.75, -1.5, 2.0]])
    assert float(exact_loss_from_A(W.T @ W, 0.3)) == pytest.approx(float(exact_loss(W, 0.3, mu="gaussian")), rel=1e-12)
    verdict.verified(method="exact_loss(dps) names W; exact_loss_from_A default law == gaussian", evidence={"p": 0.3})


SEED_4 = 1907


# --------------------------------------------------------------------------- paper S: the exact loss
@pytest.mark.claim("S-exact-loss")
def test_exact_loss_mpmath_branch_runs_the_route_it_is_given(verdict, monkeypatch):
    r"""With ``dps`` set, ``exact_loss`` computes in mpmath by the route it is given: ``"tensor"`` through the
    tensor statistics, ``"power_sums"`` through the row power sums, ``"gram"`` and ``"auto"`` through neither
    (auto means gram there). Recorded by wrapping the two statistics routines; all four values agree with the
    exact rational loss of the derived polynomial (d = 3, n = 4, non-unit entries, m = 3)."""
    from verify.numeric import power_sums as PS
    from verify.numeric import superposition_loss as L

    calls = []
    real_tps, real_rps = PS.TensorPowerSums, PS.row_power_sums

    def tps(*a, **k):
        calls.append("tensor")
        return real_tps(*a, **k)

    def rps(*a, **k):
        calls.append("power_sums")
        return real_rps(*a, **k)

    monkeypatch.setattr(PS, "TensorPowerSums", tps)
    monkeypatch.setattr(PS, "row_power_sums", rps)
    rng = np.random.default_rng(SEED_4)
    W = [[Fraction(int(v), 4) for v in row] for row in rng.integers(-6, 7, size=(3, 4))]
    ref = L.exact_loss_from_A(np.array(W, dtype=object).T @ np.array(W, dtype=object), Fraction(1, 5), m=3, dps=40)
    seen = {}
    for route in ("tensor", "power_sums", "gram", "auto"):
        calls.clear()
        value = L.exact_loss(W, Fraction(1, 5), m=3, dps=40, route=route)
        seen[route] = list(calls)
        assert abs(value - ref) <= abs(ref) * sympy.Rational(1, 10 ** 30)   # 40 digits, 10 of them headroom
    assert seen == {"tensor": ["tensor"], "power_sums": ["power_sums"], "gram": [], "auto": []}, seen
    verdict.verified(method="mpmath exact_loss: the route given is the route run; values == exact_loss_from_A",
                     evidence={"routes": seen, "loss": float(ref)})


@pytest.mark.claim("S-exact-loss")
def test_tensor_flops_counts_the_kernels_layout_and_the_enumerated_monomials(verdict):
    r"""``tensor_flops`` (the operation counts the roofline and the route cost model use) against independent counts:
    :math:`\Sigma = \sum_{k \le m} D_{2k}` by enumerating the exponent vectors with itertools, and our count from the
    block layout the loss kernels execute (``_tensor_tables`` at ``_kernel_top``: the built monomials are the blocks' lengths, the block rows
    its rows, the even-degree monomials its unpadded positions): per pass (accumulate, contract) one multiplication
    or FMA per built monomial, one or two per block row (none in the loss's accumulate where it runs in tiles: the
    layout then carries tiles, and its weighted copies, one per block row, are the gradient's pass), one FMA (two
    flops) per even-degree monomial, plus 2d for the diagonal. d from 2 to 6, m from 1 to 4, and d = 10, m = 5 (S
    past ``_TILED_MAX``: the row kernel), and the gradient's bound :math:`7\Sigma - m - dm` and count (the weighted
    accumulate, then per even-degree monomial three FMAs and per built monomial the build and two reverse FMAs).
    (Found by a focused mutmut sample: a wrong reverse-mode count in ``tensor_flops`` had passed.)"""
    from verify.numeric import power_sums as PS

    rows, kernels = [], set()
    for d, m in [*itertools.product((2, 3, 6), (1, 2, 3, 4)), (10, 5)]:
        sigma = sum(sum(1 for _ in itertools.combinations_with_replacement(range(d), 2 * k)) for k in range(1, m + 1))
        blocks, brows, pos, _, _ = PS._tensor_tables(d, m, PS._kernel_top(d, m))   # the loss kernels' layout
        build, nrows = int(blocks[:, 2].sum()), len(brows)
        assert blocks[:, 2].sum() + 1 == blocks[-1, 0] + blocks[-1, 2]            # the blocks tile M after M[0] = 1
        assert int((pos >= 0).sum()) == sigma                     # the kernels' layout holds every monomial once
        tiles = PS._kernel_layout(d, m).tiles                     # what TensorPowerSums._accumulate runs
        kernels.add(tiles is not None)
        if tiles is not None:
            assert len(tiles[1]) == nrows                         # one weighted copy of x^rho per block row
        ours = (build + (0 if tiles is not None else nrows) + 2 * sigma) + (build + 2 * nrows + 2 * sigma) + 2 * d
        f, g = PS.tensor_flops(d, m), PS.tensor_flops(d, m, grad=True)
        assert f == {"bound": 3 * sigma - m, "ours": ours}, (d, m, f)
        # the gradient adds the weighted accumulate (build, one multiplication per row, one FMA per monomial), the
        # backward pass (build again, three FMAs per even-degree monomial, one addition per block row, two FMAs per
        # built monomial in reverse mode) and 8dm for the diagonal correction
        weighted, backward = build + nrows + 2 * sigma, build + 6 * sigma + nrows + 4 * build
        assert g == {"bound": 7 * sigma - m - d * m, "ours": ours + weighted + backward + 8 * d * m}, (d, m, g)
        rows.append({"d": d, "m": m, "sigma": sigma, "tiled": tiles is not None, "bound": f["bound"], "ours": ours})
    assert kernels == {True, False}
    verdict.verified(method="tensor_flops == counts from itertools' monomials and the kernels' block layout",
                     evidence={"cases": rows})


SEED_5 = 1830


# --------------------------------------------------------------------------- S: exact loss routes
def _exact_loss_2(W, p, m, mu):
    """Independent route: the cumulant formula of Thm 2.1 in exact rationals (no blocks, no power sums)."""
    from verify.numeric import upper_bounds as ub

    Wq = np.array([[Fraction(float(v)) for v in row] for row in W], dtype=object)
    return ub.general_loss(Wq, ub.coordinate_cumulants(mu, p, 2 * m), m)


@pytest.mark.claim("S-exact-loss")
def test_each_named_loss_route_runs_its_own_statistics(verdict, monkeypatch):
    r"""``exact_loss(W, route=...)``: the routes agree in value by design (so a value check cannot tell which ran),
    and each is documented by what it computes: "gram" the strips of the upper triangle of :math:`A = W^TW`,
    "gram_rows" full row blocks, "power_sums" the moment matrices (no A), "tensor" the symmetric tensors. Each
    statistics function is wrapped to record that it ran: each route runs its own (and no other), and every value
    equals the exact rational loss (d = 3, n = 9, Laplace, p = 3/10, W of scale 1.3)."""
    from verify.numeric import power_sums, superposition_loss

    ran = []

    def spy(name, fn):
        @functools.wraps(fn)
        def wrapped(*a, **k):
            ran.append(name)
            return fn(*a, **k)
        return wrapped

    monkeypatch.setattr(superposition_loss, "_stats_symmetric", spy("strips", superposition_loss._stats_symmetric))
    monkeypatch.setattr(superposition_loss, "_stats", spy("row_blocks", superposition_loss._stats))
    monkeypatch.setattr(power_sums, "row_power_sums", spy("moment_matrices", power_sums.row_power_sums))
    monkeypatch.setattr(power_sums, "TensorPowerSums", spy("tensors", power_sums.TensorPowerSums))
    rng = np.random.default_rng(SEED_5)
    W = np.round(1.3 * rng.standard_normal((3, 9)) * 64) / 64        # dyadic: exact as Fractions
    p, m, mu = Fraction(3, 10), 3, "laplace"
    want = float(_exact_loss_2(W, p, m, mu))
    got = {}
    for route, stats in (("gram", "strips"), ("gram_rows", "row_blocks"), ("power_sums", "moment_matrices"),
                         ("tensor", "tensors")):
        ran.clear()
        got[route] = superposition_loss.exact_loss(W, float(p), m, mu, route=route)
        assert ran == [stats], (route, ran)
        # float64 sums of n row polynomials of degree 2m in A: 1e-11 relative (the float routes' bound in
        # test_statements.py)
        assert abs(got[route] - want) <= 1e-11 * abs(want), (route, got[route], want)
    # the float values stay out of the evidence (BLAS rounding may depend on its threads); the exact one is recorded
    verdict.verified(method="num: each exact_loss route runs its own statistics (recorded) and equals exact "
                            "rationals", evidence={"d": 3, "n": 9, "mu": mu, "p": "3/10", "exact": want,
                                                   "routes": sorted(got), "tol": 1e-11, "seed": SEED_5})
