r"""The symmetric-tensor power sums (:mod:`verify.numeric.power_sums`) against brute force written here.

References: exponent vectors by enumerating all index tuples, multinomials by factorials, monomials by products,
:math:`S_\alpha = \sum_j w_j^\alpha` by a loop, contractions by summing the full :math:`d^k` tensor, and the row power
sums :math:`T_{2l,i} = \sum_{j\ne i}(w_i\cdot w_j)^{2l}` from rows of :math:`A = W^\top W` (at sampled rows, where
``n`` is too large for the whole of A). Sizes cross the chunk sizes: explicit ``chunk`` at 1, n - 1, n, n + 1 and
random, and the default chunk (:math:`2^{20}` entries per chunk / the monomial width) crossed by n.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.numeric import power_sums as P

REF = settings.get_profile("reference")


def ref_exponents(d: int, k: int) -> set:
    return {tuple(int(c) for c in np.bincount(np.array(t, dtype=int), minlength=d))
            for t in itertools.product(range(d), repeat=k)} if k else {tuple([0] * d)}


@REF
@given(st.integers(1, 5), st.integers(0, 5))
def test_monomial_tables_against_enumeration(d, k):
    ex = P.monomial_exponents(d, k)
    rows = [tuple(int(v) for v in r) for r in ex]
    assert len(rows) == len(set(rows)) == P.monomial_count(d, k) == math.comb(d + k - 1, k)
    assert set(rows) == ref_exponents(d, k)
    w = P.multinomial_weights(d, k)
    assert [int(v) for v in w] == [math.factorial(k) // math.prod(math.factorial(a) for a in r) for r in rows]
    # the multinomials count the index tuples of each exponent vector
    assert sum(int(v) for v in w) == d ** k


@REF
@given(st.integers(1, 4), st.integers(0, 4), st.integers(1, 6), st.integers(0, 2 ** 32 - 1))
def test_monomials_and_contract_against_full_tensor(d, k, n, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * rng.choice([1.0, 1e-2, 20.0])
    feats = P.monomials(X, k)
    assert len(feats) == k + 1
    for j, F in enumerate(feats):
        ex = P.monomial_exponents(d, j)
        ref = np.array([[np.prod(X[i] ** e) for e in ex] for i in range(n)])
        np.testing.assert_allclose(F, ref, rtol=1e-12, atol=0)
    # a random symmetric tensor given by its monomial coefficients, contracted over all d^k index tuples
    S = rng.standard_normal(P.monomial_count(d, k))
    index = {tuple(int(v) for v in e): c for c, e in enumerate(P.monomial_exponents(d, k))}
    ref = np.zeros(n)
    for t in itertools.product(range(d), repeat=k):
        alpha = tuple(int(c) for c in np.bincount(np.array(t, dtype=int), minlength=d)) if k else tuple([0] * d)
        ref += np.prod(X[:, list(t)], axis=1) * S[index[alpha]]
    got = P.contract(S, X, k)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-10 * np.abs(ref).max(initial=1.0))


@REF
@given(st.integers(1, 4), st.integers(1, 3), st.integers(1, 7), st.integers(0, 2 ** 32 - 1))
def test_power_sum_tensor_against_loop(d, k, n, seed):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((d, n)) * rng.choice([1.0, 0.1, 7.0])
    got = P.power_sum_tensor(W, k)
    ref = [sum(np.prod(W[:, j] ** e) for j in range(n)) for e in P.monomial_exponents(d, 2 * k)]
    np.testing.assert_allclose(got, ref, rtol=1e-11, atol=0)


def ref_row_sums(W: np.ndarray, m: int, rows) -> tuple:
    """Diagonal and T_{2l,i} (l = 1..m) at ``rows`` from the rows of A."""
    Ai = W[:, rows].T @ W
    diag = (W[:, rows] ** 2).sum(0)
    T = [(Ai ** (2 * l)).sum(1) - diag ** (2 * l) for l in range(1, m + 1)]
    return diag, T


@REF
@given(st.integers(1, 4), st.integers(1, 3), st.integers(2, 40), st.data())
def test_row_and_tensor_power_sums_at_every_chunk_position(d, m, n, data):
    """Explicit chunks at 1, n - 1, n, n + 1 and a random size, both kernels of the tensor route."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    W = rng.standard_normal((d, n)) * data.draw(st.sampled_from([1.0, 0.05, 3.0]))
    chunk = data.draw(st.sampled_from([1, n - 1, n, n + 1]) | st.integers(1, n + 2))
    diag, T = ref_row_sums(W, m, np.arange(n))
    scale = [np.abs(W.T @ W).__pow__(2 * l).sum(1) + 1e-300 for l in range(1, m + 1)]
    routes = [("rows", P.row_power_sums(W, m, chunk=chunk)),
              ("RowPowerSums", (lambda r: (r.diag, r.T))(P.RowPowerSums(W, m, chunk=chunk))),
              ("tensor-numpy", (lambda t: (t.diag, t.T))(P.TensorPowerSums(W, m, chunk=chunk, kernel="numpy"))),
              ("tensor-auto", (lambda t: (t.diag, t.T))(P.TensorPowerSums(W, m, chunk=chunk)))]
    for name, (dg, Ts) in routes:
        np.testing.assert_allclose(dg, diag, rtol=1e-13, err_msg=name)
        assert len(Ts) == m, name
        for l in range(m):
            assert np.all(np.abs(Ts[l] - T[l]) <= 1e-10 * scale[l]), (name, l)


@settings(REF, max_examples=max(3, REF.max_examples // 6))
@given(st.sampled_from([(2, 3), (6, 3), (3, 2)]), st.sampled_from([-1, 0, 1, 17]), st.integers(0, 2 ** 32 - 1))
def test_row_power_sums_default_chunk_crossed_by_n(dm, off, seed):
    r"""The default chunk (:math:`2^{20}` entries / width rows): ``n`` one below, at, one above and past a chunk
    boundary; the reference at sampled rows (both sides of the boundary, first and last)."""
    d, m = dm
    width = sum(P.monomial_count(d, k) for k in range(0, m + 1))
    step = max(1, (1 << 20) // width)
    n = step + off
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((d, n))
    rows = np.unique(np.clip([0, step - 2, step - 1, step, step + 1, n - 1, rng.integers(0, n)], 0, n - 1))
    diag, T = ref_row_sums(W, m, rows)
    for dg, Ts in (P.row_power_sums(W, m), (lambda t: (t.diag, t.T))(P.TensorPowerSums(W, m, kernel="numpy"))):
        np.testing.assert_allclose(dg[rows], diag, rtol=1e-13)
        for l in range(m):
            np.testing.assert_allclose(Ts[l][rows], T[l], rtol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("d,m", [(11, 4), (12, 4)])
def test_tensor_power_sums_tiled_threshold_compiled(d, m):
    r"""The compiled kernel's tiled accumulate runs for :math:`\Sigma \le` ``_TILED_MAX`` coefficients: d = 11, m = 4
    (52833) below, d = 12 (89401) above; slow (numba compiles these shapes)."""
    sigma = sum(P.monomial_count(d, 2 * k) for k in range(1, m + 1))
    assert (sigma <= P._TILED_MAX) == (d == 11)
    W = np.random.default_rng(d).standard_normal((d, 30)) / 3
    diag, T = ref_row_sums(W, m, np.arange(30))
    t = P.TensorPowerSums(W, m)
    for l in range(m):
        np.testing.assert_allclose(t.T[l], T[l], rtol=1e-9)


def test_tensor_power_sums_numpy_kernel_both_sides_of_tiled_threshold():
    for d, m in ((11, 4), (12, 4)):
        W = np.random.default_rng(d).standard_normal((d, 9)) / 3
        diag, T = ref_row_sums(W, m, np.arange(9))
        t = P.TensorPowerSums(W, m, kernel="numpy")
        for l in range(m):
            np.testing.assert_allclose(t.T[l], T[l], rtol=1e-9)


@REF
@given(st.integers(1, 30), st.integers(1, 10 ** 7), st.integers(1, 6), st.booleans(), st.booleans())
def test_route_choice_is_the_cheapest_route(d, n, m, grad, tensor):
    costs = P.route_costs(d, n, m, grad)
    ref_gram = 2.0 * n * n * d + 20.0 * (2 * m + 2) * n * n
    assert math.isclose(costs["gram"], ref_gram * (3 if grad else 1), rel_tol=1e-12)
    allowed = {k: v for k, v in costs.items() if tensor or k not in ("tensor", "collapsed")}  # both need float64 input
    assert P.choose_route("auto", d, n, m, grad, tensor) == min(allowed, key=allowed.get)
    for r in ("gram", "power_sums", "tensor"):
        assert P.choose_route(r, d, n, m, grad, tensor) == r
    f = P.tensor_flops(d, m, grad)
    sigma = sum(math.comb(d + 2 * k - 1, 2 * k) for k in range(1, m + 1))
    assert f["bound"] == (7 * sigma - m - d * m if grad else 3 * sigma - m)
    assert f["ours"] >= f["bound"]


@REF
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 5), st.integers(0, 2 ** 32 - 1))
def test_grad_of_the_row_statistics_against_exact_line_derivative(d, m, n, seed):
    r"""``grad(d_a, d_T)`` is :math:`\nabla_W\sum_i(\partial_a(i)A_{ii} + \sum_k\partial_{T_{2k}}(i)T_{2k,i})` for fixed
    coefficients: compared, along a random direction D, with the exact derivative at 0 of that function on
    :math:`W + tD` (a polynomial of degree :math:`\le 4m` in t, through its exact values at :math:`4m + 1` points);
    both classes, both kernels of the tensor route."""
    rng = np.random.default_rng(seed)
    W = rng.integers(-4, 5, size=(d, n)) / 4.0
    D = rng.integers(-4, 5, size=(d, n)) / 4.0
    d_a = rng.integers(-3, 4, size=n) / 2.0
    d_T = [rng.integers(-3, 4, size=n) / 2.0 for _ in range(m)]
    q = lambda v: Fraction(float(v))  # noqa: E731

    def F(t):
        Wt = [[q(W[a, j]) + t * q(D[a, j]) for j in range(n)] for a in range(d)]
        A = [[sum(Wt[a][i] * Wt[a][j] for a in range(d)) for j in range(n)] for i in range(n)]
        return sum(q(d_a[i]) * A[i][i] + sum(q(d_T[k - 1][i]) * sum(A[i][j] ** (2 * k) for j in range(n) if j != i)
                                             for k in range(1, m + 1)) for i in range(n))

    ts = list(range(-2 * m, 2 * m + 1))
    deriv = Fraction(0)
    for i, ti in enumerate(ts):
        others = [tj for tj in ts if tj != ti]
        deriv += F(ti) * Fraction(sum(math.prod(-tj for tj in others if tj != tk) for tk in others),
                                  math.prod(ti - tj for tj in others))
    for name, obj in (("rows", P.RowPowerSums(W, m, for_grad=True)),
                      ("tensor-numpy", P.TensorPowerSums(W, m, kernel="numpy")),
                      ("tensor-auto", P.TensorPowerSums(W, m))):
        G = obj.grad(d_a, d_T)
        got = float((G * D).sum())
        scale = float(np.abs(G * D).sum()) + 1.0
        assert abs(got - float(deriv)) <= 1e-10 * scale, name
