"""Paper S, proof of Thm 3.1 (S-tensor) and the linear case (S-linear): the routes a user calls directly.

``power_sum_tensor`` / ``contract`` (verify.numeric.power_sums) are the tensor form
:math:`\\langle x^{\\otimes k}, \\sum_j w_j^{\\otimes k}\\rangle = \\sum_j \\langle x, w_j\\rangle^k` of the
identity :math:`\\langle u, v\\rangle^m = \\langle u^{\\otimes m}, v^{\\otimes m}\\rangle`; ``MaximiseResult`` is
what ``maximise_loss`` hands a user (attributes and the mapping view). Each is compared with a route that shares
nothing with it: explicit monomial sums and inner products, exact rationals, numpy against torch.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from verify.engine import random_rational_matrix
from verify.numeric.power_sums import contract, monomial_exponents, power_sum_tensor
from verify.numeric.superposition_loss import exact_loss, maximise_loss

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
    bound = pr * 1.0 * d                                     # p mu_2 d with mu_2 = 1 (gaussian)
    assert bound * (1 - 1e-7) <= res.value <= bound * (1 + 1e-12)  # attained (optimizer tolerance); never above
    verdict.verified(method="num: MaximiseResult fields == mapping view; value == exact loss of W == p mu_2 d",
                     evidence={"d": d, "n": n, "p": pr, "value": res.value, "bound": bound, "seed": SEED})
