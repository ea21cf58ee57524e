"""Tests of verify/numeric/power_sums.py: the monomial basis, the power-sum tensors, and the linear-in-n route of
the exact loss and its gradient against the A-based (gram) route of verify/numeric/superposition_loss.py."""

import doctest
import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

import verify.numeric._tensor_kernels as TK
import verify.numeric.power_sums as PS
from verify import VerifyInputError
from verify.numeric.superposition_loss import exact_loss, exact_loss_grad, power_sums


def _fraction_W(rng, d, n, den=7):
    return np.array([[Fraction(int(v), den) for v in row] for row in rng.integers(-6, 7, size=(d, n))], dtype=object)


def test_doctests():
    assert doctest.testmod(PS, raise_on_error=False).failed == 0


@pytest.mark.parametrize("d,k", [(1, 4), (3, 0), (3, 5), (5, 3), (10, 6)])
def test_monomial_table(d, k):
    E = PS.monomial_exponents(d, k)
    assert E.shape == (math.comb(d + k - 1, k), d) == (PS.monomial_count(d, k), d)
    assert np.all(E.sum(axis=1) == k) and np.all(E >= 0)
    assert len({tuple(e) for e in E}) == len(E)            # every monomial exactly once
    # sum of the multinomial coefficients of degree k in d variables is d^k (all-ones vectors)
    assert sum(PS.multinomial_weights(d, k)) == d ** k


@pytest.mark.parametrize("k", [0, 1, 2, 3, 5])
def test_multinomial_identity_exact(k):
    """(x.y)^k = sum_alpha binom(k, alpha) x^alpha y^alpha, in exact rationals."""
    rng = np.random.default_rng(k)
    X = _fraction_W(rng, 3, 4).T                         # 4 points x in R^3
    Y = _fraction_W(rng, 3, 3).T                         # 3 points y in R^3
    wts = PS.multinomial_weights(3, k)
    FX, FY = PS.monomials(X, k)[k], PS.monomials(Y, k)[k]
    for i, j in itertools.product(range(len(X)), range(len(Y))):
        assert sum(w * a * b for w, a, b in zip(wts, FX[i], FY[j])) == sum(X[i] * Y[j]) ** k


@pytest.mark.parametrize("k", [1, 2, 3])
def test_power_sum_tensor_and_contraction_exact(k):
    """S_2k in the monomial basis (read off the moment matrix) is sum_j w_j^alpha; contracting it with
    x^(2k) gives sum_j (x.w_j)^(2k): exact rationals, so any index or weight error shows."""
    rng = np.random.default_rng(10 + k)
    W = _fraction_W(rng, 3, 5)
    S = PS.power_sum_tensor(W, k)
    E = PS.monomial_exponents(3, 2 * k)
    for a, alpha in enumerate(E):
        assert S[a] == sum(math.prod(W[r, j] ** int(alpha[r]) for r in range(3)) for j in range(5))
    A = W.T @ W
    assert list(PS.contract(S, W.T, 2 * k)) == [sum(A[i, j] ** (2 * k) for j in range(5)) for i in range(5)]


@pytest.mark.parametrize("m", [1, 3, 5])
def test_row_power_sums_exact_rationals(m):
    rng = np.random.default_rng(m)
    W = _fraction_W(rng, 3, 6)
    A = W.T @ W
    diag, T = PS.row_power_sums(W, m, chunk=4)           # two row chunks
    assert list(diag) == [A[i, i] for i in range(6)]
    for l, t in enumerate(T, start=1):
        assert list(t) == [sum(A[i, j] ** (2 * l) for j in range(6) if j != i) for i in range(6)]


@pytest.mark.parametrize("m", [1, 3, 5])
@pytest.mark.parametrize("mu", ["gaussian", "rademacher", "uniform"])
def test_loss_routes_agree_float(m, mu):
    rng = np.random.default_rng(20 + m)
    W = rng.normal(size=(4, 60)) * 0.5
    for p in (1e-3, 0.3, 1.0):
        a = exact_loss(W, p, m, mu, route="gram")
        b = exact_loss(W, p, m, mu, route="power_sums")
        # two float64 evaluations of the same polynomial; the power-sum route sums signed monomial terms
        # (condition ~ sum (|w_i|.|w_j|)^2m / sum (w_i.w_j)^2m, O(10) here): 1e-12 relative is ~100x round-off
        assert abs(a - b) <= 1e-12 * abs(a)


@settings(max_examples=25, deadline=None)
@given(d=hs.integers(1, 5), n=hs.integers(1, 40), m=hs.sampled_from([1, 3, 5]), seed=hs.integers(0, 10**6),
       logp=hs.floats(-4, 0), scale=hs.floats(0.2, 2.0))
def test_loss_routes_agree_property(d, n, m, seed, logp, scale):
    W = np.random.default_rng(seed).normal(size=(d, n)) * scale
    p = 10.0 ** logp
    a = exact_loss(W, p, m, route="gram")
    b = exact_loss(W, p, m, route="power_sums")
    # relative to the sum of the row terms' magnitudes: the loss itself can cancel to ~0 (mixed-sign rows)
    diag, T = power_sums(W.T @ W, m)
    scale_ref = max(abs(a), float(np.sum(diag ** (2 * m))) * p, 1e-300)
    assert abs(a - b) <= 1e-12 * max(abs(a), 1e-3 * scale_ref)


@pytest.mark.parametrize("m", [1, 3, 5])
def test_loss_routes_agree_mpmath(m):
    """At 50 digits the two routes agree to ~45 digits: the algebra is exact, only round-off differs."""
    W = np.random.default_rng(30 + m).normal(size=(3, 7)) * 0.6
    a = exact_loss(W, 0.05, m, dps=50, route="gram")
    b = exact_loss(W, 0.05, m, dps=50, route="power_sums")
    with mpmath.workdps(50):
        assert abs(a - b) <= mpmath.mpf(10) ** -45 * abs(a)   # 5 digits of the 50 for the signed sums


@pytest.mark.parametrize("m", [1, 3, 5])
def test_grad_routes_agree(m):
    rng = np.random.default_rng(40 + m)
    W = rng.normal(size=(5, 50)) * 0.5
    for p in (1e-3, 0.5):
        g = exact_loss_grad(W, p, m, route="gram")
        h = exact_loss_grad(W, p, m, route="power_sums")
        # float64 round-off of two summation orders, relative to the largest entry (entries can be ~0)
        assert np.max(np.abs(g - h)) <= 1e-12 * np.max(np.abs(g))


@pytest.mark.parametrize("m", [1, 3, 5])
def test_grad_against_mpmath_finite_differences(m):
    """Central differences of the 40-digit exact loss (step 1e-12: truncation ~h^2 L''' ~ 1e-24, round-off
    1e-40/1e-12 = 1e-28) against the float64 power-sum gradient: agreement to float64 round-off."""
    rng = np.random.default_rng(50 + m)
    W = rng.normal(size=(3, 5)) * 0.6
    p = 0.2
    g = exact_loss_grad(W, p, m, route="power_sums")
    h = mpmath.mpf("1e-12")
    with mpmath.workdps(40):
        for a, b in [(0, 0), (1, 3), (2, 4)]:
            Wp = np.array(W, dtype=object)
            Wm = np.array(W, dtype=object)
            Wp[a, b] = mpmath.mpf(W[a, b]) + h
            Wm[a, b] = mpmath.mpf(W[a, b]) - h
            fd = (exact_loss(Wp, p, m, dps=40, route="power_sums") - exact_loss(Wm, p, m, dps=40, route="power_sums")) / (2 * h)
            # float64 gradient: a few ulps of the largest entry
            assert abs(float(fd) - g[a, b]) <= 1e-12 * np.max(np.abs(g))


def test_chunking_and_batch_independence():
    W = np.random.default_rng(60).normal(size=(4, 37))
    one = PS.RowPowerSums(W, 3)
    many = PS.RowPowerSums(W, 3, chunk=5)
    for a, b in zip(one.T, many.T):
        assert np.allclose(a, b, rtol=1e-13, atol=0)   # summation order only
    d_a, d_T = np.ones(37), [np.full(37, 0.1 * k) for k in (1, 2, 3)]
    assert np.allclose(one.grad(d_a, d_T), many.grad(d_a, d_T), rtol=1e-12, atol=1e-12 * 37 ** 2)


def test_choose_route():
    assert PS.choose_route("auto", 10, 50, 3) == "gram"
    assert PS.choose_route("auto", 10, 10**6, 3) == "power_sums"
    assert PS.choose_route("gram", 10, 10**6, 3) == "gram"
    assert PS.choose_route("power_sums", 10, 5, 3) == "power_sums"
    with pytest.raises(VerifyInputError, match="route"):
        PS.choose_route("fast", 10, 50, 3)
    with pytest.raises(VerifyInputError, match="route"):
        exact_loss(np.eye(2), 0.1, 3, route="fast")
    with pytest.raises(VerifyInputError, match="route"):
        exact_loss_grad(np.eye(2), 0.1, 3, route="fast")


def test_bad_input():
    with pytest.raises(VerifyInputError, match="'W'"):
        PS.row_power_sums(np.ones(3), 3)
    with pytest.raises(VerifyInputError, match="'W'"):
        PS.row_power_sums(np.array([[np.nan, 1.0]]), 3)
    with pytest.raises(VerifyInputError, match="'m'"):
        PS.row_power_sums(np.eye(2), 0)
    with pytest.raises(VerifyInputError, match="'S'"):
        PS.contract(np.ones(4), np.eye(2), 2)


def test_large_n_linear_route_matches_gram():
    """n = 4000 (above the crossover at d = 6): the automatic route is the power-sum one and agrees with gram."""
    W = np.random.default_rng(70).normal(size=(6, 4000)) * 0.4
    assert PS.choose_route("auto", 6, 4000, 3) == "power_sums"
    a, b = exact_loss(W, 1e-3, 3, route="gram"), exact_loss(W, 1e-3, 3)
    assert abs(a - b) <= 1e-12 * abs(a)      # float64 round-off of 4000 x 4000 terms, summed two ways


@pytest.mark.slow
def test_million_features_memory():
    """Issue 14's target size: n = 10^6, d = 10, m = 3 runs without forming A (A would be 8 TB) and stays
    consistent with the gram route on a subsample-independent identity: sum_i P_2(i) = ||W W^T||_F^2."""
    import tracemalloc

    W = np.random.default_rng(80).normal(size=(10, 10**6)) * 0.3
    tracemalloc.start()
    diag, T = PS.row_power_sums(W, 3)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2 * 2**30
    G = W @ W.T
    # sum_i sum_j (w_i.w_j)^2 = ||W W^T||_F^2 (a d x d identity, independent of the route)
    assert abs(float(np.sum(T[0] + diag ** 2)) - float(np.sum(G * G))) <= 1e-10 * float(np.sum(G * G))


# --------------------------------------------------------------------------- direct symmetric-tensor route
from verify.numeric import _tensor_kernels as TK  # noqa: E402


def _brute_grad(W, m, d_a, d_T):
    r"""\nabla_{w_c} of sum_i f(A_ii, T_2k,i) by the chain rule on A = W^T W, pair by pair (no tensors):
    2 d_a(c) w_c + sum_k sum_{j != c} 2k (dT_k(c) + dT_k(j)) (w_c.w_j)^(2k-1) w_j."""
    d, n = W.shape
    A = W.T @ W
    G = np.empty((d, n), dtype=W.dtype)
    for c in range(n):
        g = 2 * d_a[c] * W[:, c]
        for j in range(n):
            if j != c:
                g = g + sum(2 * k * (d_T[k - 1][c] + d_T[k - 1][j]) * A[c, j] ** (2 * k - 1)
                            for k in range(1, m + 1)) * W[:, j]
        G[:, c] = g
    return G


@pytest.mark.parametrize("d,m", [(1, 3), (2, 1), (3, 3), (4, 5), (10, 3), (3, 7)])
def test_tensor_tables_cover_each_monomial_once(d, m):
    """The split kernels' layout at every top degree H = m..2m-1: every stored block is built from an earlier,
    disjoint block (one pass in order is valid) and the blocks of each degree tile it; each block row is the
    product of its rho with a contiguous tail of gammas, max rho <= min gamma, padded to a multiple of PAD with
    pos = -1; pos hits every even-degree monomial exactly once and the weights are the multinomial coefficients.
    The kernels with each H then give the numpy kernel's S and P (non-default H included)."""
    rng = np.random.default_rng(d * 10 + m)
    W = rng.normal(size=(d, 11)) * 1.3
    ref = PS.TensorPowerSums(W, m, kernel="numpy")
    for H in range(m, 2 * m):
        blocks, rows, pos, wts, segs = PS._tensor_tables(d, m, H)
        off = np.cumsum([0] + [PS.monomial_count(d, k) for k in range(H + 1)])
        exps = np.concatenate([PS.monomial_exponents(d, k) for k in range(H + 1)])          # of each M entry
        assert all(src + L <= dst for dst, src, L, _ in blocks)
        for k in range(1, H + 1):
            got = [(dst, L) for dst, src, L, _ in blocks if off[k] <= dst < off[k + 1]]
            assert sorted(got) == got and sum(L for _, L in got) == PS.monomial_count(d, k)
        std = np.concatenate([PS.monomial_exponents(d, 2 * k) for k in range(1, m + 1)])
        for r, t0, L, co, l in rows:
            real = int(np.sum(pos[co:co + L] >= 0))
            assert L % TK.PAD == 0 and L - real < TK.PAD and (pos[co + real:co + L] == -1).all()
            assert exps[r].sum() + exps[t0].sum() == 2 * (l + 1)
            assert max(np.flatnonzero(exps[r])) <= min(np.flatnonzero(exps[t0]))
            for g in range(real):
                assert (std[pos[co + g]] == exps[r] + exps[t0 + g]).all()
        assert sorted(pos[pos >= 0].tolist()) == list(range(len(wts)))
        # the SIMD kernels' groups: rows of one block (same tail and degree), each row in exactly one group
        for sizes in ((2, 1), (8, 4, 2, 1)):
            groups = PS._tensor_groups(d, m, H, sizes)
            flat = [(g[3 + j], g[0], g[1], g[3 + R + j], g[2]) for R, gs in zip((1, 2, 4, 8), groups)
                    for g in gs for j in range(R)]
            assert sorted(flat) == sorted(tuple(q) for q in rows) and len(flat) == len(rows)
            assert all(len(gs) == 0 for R, gs in zip((1, 2, 4, 8), groups) if R not in sizes)
            for R, gs in zip((1, 2, 4, 8), groups):
                for g in gs:          # one block: the rows' x^rho share their largest variable
                    tops = {int(max(np.flatnonzero(exps[r]))) for r in g[3:3 + R]}
                    assert len(tops) == 1 and tops.pop() <= min(np.flatnonzero(exps[g[0]]))
        for k, (s, e) in enumerate(segs, start=1):
            assert wts[s:e].tolist() == [float(w) for w in PS.multinomial_weights(d, 2 * k)]
        # accumulate_tiled's tiles: exact cuts (G in TILE_G rows of one tail x T in TILE_T consecutive entries),
        # every (row, entry) of every block row in exactly one tile, rows of one tail only; lo: each (x^rho, degree)
        tiles, lo = PS._accumulate_tiles(d, m, H)
        nM = int(off[H + 1])
        assert sorted(map(tuple, lo.tolist())) == sorted({(r, l) for r, _, _, _, l in rows.tolist()})
        cover = []
        for shape, t, *cols in tiles.tolist():
            _, G, T = TK.SHAPES[shape]                                  # the host target's shapes
            rs, ps, ds = cols[0:G], cols[4:4 + G], cols[8:8 + G]
            assert cols[G:4] == cols[4 + G:8] == cols[8 + G:12] == [0] * (4 - G)
            for r, p, dst in zip(rs, ps, ds):
                assert tuple(lo[p - nM - TK.PAD]) in {(r, l) for rr, _, _, _, l in rows.tolist() if rr == r}
                (row,) = [q for q in rows.tolist() if q[0] == r and q[3] <= dst < q[3] + q[2]]
                assert row[1] <= t and t + T <= row[1] + int(np.sum(pos[row[3]:row[3] + row[2]] >= 0))
                assert dst - row[3] == t - row[1]                         # entry g of the tail -> coefficient g
                cover.extend(dst + j for j in range(T))
        assert sorted(cover) == sorted(np.flatnonzero(pos >= 0).tolist())
        if not TK.AVAILABLE:
            continue
        Wc, cw = np.ascontiguousarray(W), rng.normal(size=(m, W.shape[1])) * 0.8
        g1, g2, g4 = PS._tensor_groups(d, m, H, (4, 2, 1))[:3]
        for weighted in (False, True):        # both accumulations, unweighted and weighted, against numpy
            c = cw if weighted else np.ones_like(cw)
            want = [(PS.monomials(W.T, 2 * k)[2 * k] * c[k - 1][:, None]).sum(0) for k in range(1, m + 1)]
            for S_blocked in (TK.accumulate(Wc, cw, weighted, blocks, g1, g2, g4, nM, m, len(pos), 5),
                              TK.accumulate_tiled(Wc, cw, weighted, blocks, tiles, lo, nM, m, len(pos), 5)):
                S = np.empty(len(wts) + 1)
                S[pos] = S_blocked
                for k, (s, e) in enumerate(segs, start=1):   # sums of 11 products: 1e-13 relative is ~500 ulps
                    scale = np.abs(want[k - 1]).max()
                    assert np.allclose(S[s:e], want[k - 1], rtol=1e-13, atol=1e-13 * scale), (H, weighted)
                    if not weighted:
                        assert np.allclose(S[s:e], ref.S[k - 1], rtol=1e-13, atol=1e-13 * scale)
        S = np.empty(len(wts) + 1)
        S[pos] = TK.accumulate(Wc, cw, False, blocks, g1, g2, g4, nM, m, len(pos), 5)
        for pad in (TK.PAD, TK.CONTRACT_PAD):       # contract at either padding (its loops only unroll by 4 or 2)
            rows_p, pos_p = PS._tensor_tables(d, m, H, pad)[1:3]
            assert all(L % pad == 0 and L - int(np.sum(pos_p[co:co + L] >= 0)) < pad for _, _, L, co, _ in rows_p)
            P = TK.contract(np.ascontiguousarray(W), PS._blocked(wts * S[:-1], pos_p), blocks,
                            *PS._tensor_groups(d, m, H, pad=pad), nM, m)
            for k in range(1, m + 1):
                Pk = ref.T[k - 1] + ref.diag ** (2 * k)
                assert np.allclose(P[k - 1], Pk, rtol=1e-12, atol=0)     # positive sums of 11 terms: ~1e3 ulps


@pytest.mark.parametrize("m", [1, 3, 5])
def test_tensor_route_exact_rationals(m):
    """numpy kernel over Fractions, in several row chunks: T_2k and the gradient exactly equal the pairwise sums
    over A = W^T W (the gradient at exact rational d_a, d_T)."""
    rng = np.random.default_rng(90 + m)
    W = _fraction_W(rng, 3, 7)
    A = W.T @ W
    t = PS.TensorPowerSums(W, m, chunk=3, kernel="numpy")
    assert list(t.diag) == [A[i, i] for i in range(7)]
    for k, Tk in enumerate(t.T, start=1):
        assert list(Tk) == [sum(A[i, j] ** (2 * k) for j in range(7) if j != i) for i in range(7)]
    d_a = np.array([Fraction(int(v), 5) for v in rng.integers(-4, 5, 7)], dtype=object)
    d_T = [np.array([Fraction(int(v), 3) for v in rng.integers(-4, 5, 7)], dtype=object) for _ in range(m)]
    assert (t.grad(d_a, d_T) == _brute_grad(W, m, d_a, d_T)).all()


# (d, n, m, chunk): n not a multiple of the kernels' 8 features, n past one partial-sum group, d = 1, m = 1..7;
# groups of 1, 2, 4 and 8 block rows sharing a tail (d = 10, m = 3 has all four), m odd and even
KERNEL_CASES = [(1, 9, 3, None), (2, 30, 1, None), (3, 1031, 3, 100), (4, 41, 5, 8), (10, 37, 3, None),
                (2, 13, 7, 5), (6, 301, 3, None), (5, 18, 4, 7)]


@pytest.mark.parametrize("d,n,m,chunk", KERNEL_CASES)
def test_tensor_kernels_agree_with_pairwise_sums(d, n, m, chunk):
    """numba and numpy kernels of the tensor route against the row power sums of the explicit A = W^T W (an
    independent route) and against each other, values and gradient, at a non-unit scale."""
    if not TK.AVAILABLE:
        pytest.skip("numba not installed: the numpy kernel is checked exactly above")
    _check_kernels_against_pairwise(d, n, m, chunk)


@pytest.mark.parametrize("d,m", [(1, 2), (3, 5), (10, 3)])
def test_tensor_kernels_block_remainders(d, m):
    """The numba kernels' feature blocks (TK.BLOCK = 8 features per sweep, one per vector lane in contract and
    contract_grad): every n from 1 to two blocks and one past (n < F, n a multiple of F, every n % F), with the
    two-level partial sums of S flushed after every block (chunk 1), after F + 2 features (a group that is not a
    multiple of the block: rounded up to whole blocks) and at the default GROUP (only the final flush), against the
    pairwise sums of A = W^T W and the numpy kernel, values and gradient, at a non-unit scale."""
    if not TK.AVAILABLE:
        pytest.skip("numba not installed: the numpy kernel is checked exactly above")
    F = TK.BLOCK
    for n in range(1, 2 * F + 2):
        for chunk in (None, 1, F + 2):
            _check_kernels_against_pairwise(d, n, m, chunk)


def _check_kernels_against_pairwise(d, n, m, chunk):
    rng = np.random.default_rng(d * 1000 + n + m)
    W = rng.normal(size=(d, n)) * 1.7
    diag, T = power_sums(W.T @ W, m)
    a = PS.TensorPowerSums(W, m, chunk=chunk, kernel="numba")
    b = PS.TensorPowerSums(W, m, chunk=chunk, kernel="numpy")
    assert a.kernel == "numba" and b.kernel == "numpy"
    # signed monomial sums: round-off ~ eps * sum_j (|w_i|.|w_j|)^2k; that scale times 1e-12 is ~1e4 ulps
    absA = np.abs(W).T @ np.abs(W)
    for k in range(1, m + 1):
        tol = 1e-12 * np.sum(absA ** (2 * k), axis=1)
        assert np.all(np.abs(a.T[k - 1] - T[k - 1]) <= tol)
        assert np.all(np.abs(b.T[k - 1] - T[k - 1]) <= tol)
    for t in (a, b):   # ||w_i||^2: d products summed in another order than the gemm's (d ulps)
        assert np.allclose(t.diag, diag, rtol=4 * d * np.finfo(float).eps, atol=0)
    d_a = rng.normal(size=n)
    d_T = [rng.normal(size=n) * 0.1 ** k for k in range(1, m + 1)]
    ref = exact_loss_grad_reference(W, m, d_a, d_T)
    scale = np.max(np.abs(W)) * (np.abs(d_a).max() + sum(np.abs(dt).max() * np.max(np.sum(absA ** (2 * k - 1), axis=1))
                                                         for k, dt in enumerate(d_T, start=1)))
    for t in (a, b):
        # the same round-off scale for the gradient's sums (1e-12 of it)
        assert np.max(np.abs(t.grad(d_a, d_T) - ref)) <= 1e-12 * scale


def exact_loss_grad_reference(W, m, d_a, d_T):
    """The pairwise gradient of _brute_grad, vectorised (float)."""
    A = W.T @ W
    np.fill_diagonal(A, 0.0)
    H = sum(2 * k * (d_T[k - 1][:, None] + d_T[k - 1][None, :]) * A ** (2 * k - 1) for k in range(1, m + 1))
    return 2 * d_a * W + W @ H


@pytest.mark.parametrize("m", [1, 3, 5])
def test_tensor_route_loss_and_grad_against_gram(m):
    """exact_loss / exact_loss_grad with route="tensor" (float) agree with the gram route; at dps=50 the tensor
    route (numpy kernel over mpf) agrees with gram to ~45 digits."""
    rng = np.random.default_rng(100 + m)
    W = rng.normal(size=(4, 70)) * 0.5
    for p in (1e-3, 0.4):
        a, b = exact_loss(W, p, m, route="gram"), exact_loss(W, p, m, route="tensor")
        # as test_loss_routes_agree_float: signed monomial sums, condition O(10)
        assert abs(a - b) <= 1e-12 * abs(a)
        g, h = exact_loss_grad(W, p, m, route="gram"), exact_loss_grad(W, p, m, route="tensor")
        assert np.max(np.abs(g - h)) <= 1e-12 * np.max(np.abs(g))
    Ws = W[:, :6]
    a = exact_loss(Ws, 0.05, m, dps=50, route="gram")
    b = exact_loss(Ws, 0.05, m, dps=50, route="tensor")
    with mpmath.workdps(50):
        assert abs(a - b) <= mpmath.mpf(10) ** -45 * abs(a)


def test_tensor_route_torch_numpy_kernel():
    torch = pytest.importorskip("torch")
    W = np.random.default_rng(110).normal(size=(3, 21))
    ref = PS.TensorPowerSums(W, 3, kernel="numpy", chunk=5)
    t = PS.TensorPowerSums(torch.as_tensor(W), 3, chunk=5)
    assert t.kernel == "numpy"
    for a, b in zip(ref.T, t.T):
        assert np.allclose(a, b.numpy(), rtol=1e-13, atol=0)        # the same operations in another library
    d_a, d_T = np.ones(21), [np.full(21, 0.1 * k) for k in (1, 2, 3)]
    g = t.grad(torch.as_tensor(d_a), [torch.as_tensor(x) for x in d_T]).numpy()
    assert np.allclose(g, ref.grad(d_a, d_T), rtol=1e-12, atol=0)


def test_tensor_route_choice_and_bad_input():
    # the loss and the gradient go to the collapsed route (the same kernels, fewer passes) where tensor is offered
    assert PS.choose_route("auto", 10, 10**6, 3, tensor=True) == "collapsed"
    assert PS.choose_route("auto", 10, 10**6, 3, grad=True, tensor=True) == "collapsed"
    assert PS.choose_route("auto", 10, 50, 3, tensor=True) == "gram"
    assert PS.choose_route("tensor", 10, 5, 3) == "tensor"
    costs = PS.route_costs(10, 10**6, 3, grad=True)
    assert costs["tensor"] < costs["power_sums"] < costs["gram"]
    f, g = PS.tensor_flops(10, 3), PS.tensor_flops(10, 3, grad=True)
    # the bound counts 3 (loss) and 7 (gradient) operations per even-degree monomial, less the m (loss) and m + dm
    # (gradient) that Belaga's argument allows a method that preprocesses S to save; ours is above it
    sigma = sum(PS.monomial_count(10, 2 * k) for k in (1, 2, 3))
    assert (f["bound"], g["bound"]) == (3 * sigma - 3, 7 * sigma - 3 - 30)
    assert f["bound"] < f["ours"] < 3 * f["bound"] and g["bound"] < g["ours"] < 3 * g["bound"]
    with pytest.raises(VerifyInputError, match="'kernel'"):
        PS.TensorPowerSums(np.eye(2), 3, kernel="fortran")
    with pytest.raises(VerifyInputError, match="'kernel'"):
        PS.TensorPowerSums(_fraction_W(np.random.default_rng(0), 2, 3), 3, kernel="numba")
    with pytest.raises(VerifyInputError, match="'W'"):
        PS.TensorPowerSums(np.ones(3), 3)
    with pytest.raises(VerifyInputError, match="'chunk'"):
        PS.TensorPowerSums(np.eye(2), 3, chunk=0)


def test_tensor_route_without_numba(monkeypatch):
    """Without numba, "auto" falls back to the numpy kernel and the route cost model to its elementwise cost."""
    monkeypatch.setattr(TK, "AVAILABLE", False)
    W = np.random.default_rng(120).normal(size=(3, 11))
    assert PS.TensorPowerSums(W, 3).kernel == "numpy"
    with pytest.raises(VerifyInputError, match="'kernel'"):
        PS.TensorPowerSums(W, 3, kernel="numba")
    assert PS.route_costs(10, 10**6, 3)["tensor"] > PS.route_costs(10, 10**6, 3)["power_sums"]


def test_torch_training_step_refuses_the_tensor_route():
    """route="tensor" exists for numpy W only: the torch training step (verify.empirical.superposition) raises a
    ValueError naming 'route' instead of silently taking the gram route (the tensor route has no torch kernel)."""
    torch = pytest.importorskip("torch")
    from verify.empirical import superposition as S

    W = torch.randn(1, 3, 7, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    pc = torch.tensor([[0.1]], dtype=torch.float64)
    mom = S._moment_tensors("gaussian", 3, pc)
    with pytest.raises(VerifyInputError, match="'route'.*'power_sums'.*not 'tensor'"):
        S._Fused.value_and_grad(W, pc, 3, mom, 2**21, route="tensor")
    v, g = S._Fused.value_and_grad(W, pc, 3, mom, 2**21, route="power_sums")   # the allowed routes still run
    assert torch.isfinite(v).all() and g.shape == W.shape


@pytest.mark.parametrize("dtype", [float, object])
def test_tensor_power_sums_of_no_features_are_the_empty_sums(dtype):
    """n = 0 features: S_2k and the gradient's S^c_2k are empty sums, zero, in every kernel (the numpy kernel ran no
    chunk and once left them None); the loss statistics and the gradient are empty arrays of the right shapes."""
    W = np.zeros((3, 0), dtype=dtype)
    kernels = ("numpy", "numba") if dtype is float and PS._use_numba(np.zeros((1, 1)), "auto") else ("numpy",)
    for kernel in kernels:
        t = PS.TensorPowerSums(W, 3, kernel=kernel)
        S = t.S if kernel == "numba" else np.concatenate(t.S)
        assert S.shape == (sum(PS.monomial_count(3, 2 * k) for k in (1, 2, 3)),) and not np.any(S)
        assert [T.shape for T in t.T] == [(0,)] * 3
        assert t.grad(np.zeros(0), [np.zeros(0)] * 3).shape == (3, 0)


@pytest.mark.parametrize("chunk", [1, 4, 5, 11, 37, 38])
@pytest.mark.parametrize("kind", ["row", "tensor"])
def test_every_chunked_pass_honours_chunk(monkeypatch, kind, chunk):
    """``chunk`` promises a memory bound: every pass of the numpy routes (the sums, the forms, and both passes of the
    gradient) builds the monomials of at most ``chunk`` rows at a time and covers all n rows once per pass, at chunk
    sizes that divide n, leave a remainder of one, equal n and exceed it. Observed at the one monomial builder every
    pass calls."""
    n = 37
    W = np.random.default_rng(61).normal(size=(3, n)) * 1.7
    seen = []
    real = PS._monomials

    def spy(X, k):
        seen.append(X.shape[-2])
        return real(X, k)

    monkeypatch.setattr(PS, "_monomials", spy)
    if kind == "row":
        obj = PS.RowPowerSums(W, 3, chunk=chunk, for_grad=True)
        passes_build = 2                                   # the sums H, then the forms
    else:
        obj = PS.TensorPowerSums(W, 3, chunk=chunk, kernel="numpy")
        passes_build = 2                                   # the sums S, then the contraction P
    per_pass = -(-n // chunk)
    assert len(seen) == passes_build * per_pass and max(seen) == min(chunk, n) and sum(seen) == passes_build * n
    seen.clear()
    obj.grad(np.full(n, 0.3), [np.full(n, 0.1 * k) for k in (1, 2, 3)])
    assert len(seen) == 2 * per_pass and max(seen) == min(chunk, n) and sum(seen) == 2 * n   # weighted sums, rows


@settings(max_examples=60, deadline=None)
@given(d=hs.integers(1, 12), n=hs.integers(0, 10 ** 7), m=hs.integers(1, 6), grad=hs.booleans())
def test_route_costs_are_the_documented_formulas(d, n, m, grad):
    """The cost model's gram and power-sum terms, recomputed from its docstring with math.comb (the module's own
    constants: the elementwise cost e, the kernels' cost per flop and the fixed overheads): gram 2n^2 d + (2m + 2) e
    n^2, power sums 3n sum_k D_k^2 + 10 e n sum_k D_k + overhead, D_k = C(d + k - 1, k), both x3 with the gradient;
    with numba, the tensor and collapsed routes their flop counts per feature at the kernels' rate."""
    e = PS._ELEMENTWISE_FLOPS
    dims = [math.comb(d + k - 1, k) for k in range(1, m + 1)]
    gram = 2 * n * n * d + (2 * m + 2) * e * n * n
    ps = 3 * n * sum(D * D for D in dims) + 10 * e * n * sum(dims) + PS._PS_OVERHEAD_FLOPS
    c = PS.route_costs(d, n, m, grad=grad)
    k = 3 if grad else 1
    assert c["gram"] == pytest.approx(k * gram, rel=1e-12, abs=0)
    assert c["power_sums"] == pytest.approx(k * ps, rel=1e-12, abs=0)
    if TK.AVAILABLE:
        rate = PS._TENSOR_FLOP_COST
        assert c["tensor"] == pytest.approx(rate * n * PS.tensor_flops(d, m, grad)["ours"] + PS._TENSOR_OVERHEAD_FLOPS,
                                            rel=1e-12, abs=0)
        assert c["collapsed"] == pytest.approx(rate * (n * PS.collapsed_flops(d, m, grad) + 2 * math.comb(d + 2 * m - 1,
                                               2 * m)) + PS._COLLAPSED_OVERHEAD_FLOPS, rel=1e-12, abs=0)


def test_the_value_pass_keeps_its_products_up_to_the_bound(monkeypatch):
    """``for_grad=True`` keeps :math:`\\psi_k H_k` (rows x sum D_k entries) only up to ``_KEEP_ENTRIES``, counted over
    every row: the bound itself on both sides (an exact multiple and one that is not), the call's
    arguments observed, what is kept observed, and the gradient the same either way."""
    for d, ks in [(1, (1, 2, 3, 4)), (2, (1, 2, 3)), (10, (1, 2, 3)), (7, (1, 2, 3, 4, 5))]:
        per = sum(PS.monomial_count(d, k) for k in ks)
        rows = PS._KEEP_ENTRIES // per
        assert PS._keeps_products(rows, d, ks) and not PS._keeps_products(rows + 1, d, ks), (d, ks)
    assert PS._KEEP_ENTRIES % 4 == 0 and PS._keeps_products(PS._KEEP_ENTRIES // 4, 1, (1, 2, 3, 4))
    calls = []
    real = PS._keeps_products
    monkeypatch.setattr(PS, "_keeps_products", lambda rows, d, ks: calls.append((rows, d, ks)) or real(rows, d, ks))
    rng = np.random.default_rng(7)
    W = rng.normal(scale=1.7, size=(3, 9))                  # d = 3, n = 9
    kept = PS.RowPowerSums(W, 3, for_grad=True)
    assert calls == [(9, 3, (1, 2, 3))]
    assert {k: v.shape for k, v in kept._Y.items()} == {k: (9, PS.monomial_count(3, k)) for k in (1, 2, 3)}
    assert PS.RowPowerSums(W, 3)._Y is None and len(calls) == 1     # not asked for: not kept, nothing counted
    # one entry over the bound: nothing kept, the same gradient from the products formed again
    monkeypatch.setattr(PS, "_KEEP_ENTRIES", 9 * sum(PS.monomial_count(3, k) for k in (1, 2, 3)) - 1)
    dropped = PS.RowPowerSums(W, 3, for_grad=True)
    assert dropped._Y is None
    d_a, d_T = rng.normal(size=9), [rng.normal(size=9) for _ in range(3)]
    np.testing.assert_allclose(dropped.grad(d_a, d_T), kept.grad(d_a, d_T), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["row", "tensor"])
def test_every_default_chunk_is_the_largest_the_memory_budget_allows(monkeypatch, kind):
    """Without ``chunk``, every pass (sums, forms or contraction, both gradient passes) works on
    ``_CHUNK_ENTRIES // D`` rows at a time, D the monomial count of the pass's widest degree (m for the moment-matrix
    route, 2m for the tensor route, whose second gradient pass builds degree 2m - 1 beside degree-2m products): the
    real budget (2^20 entries) crossed twice, the last chunk one row. A pass sized by another degree's count (smaller
    chunks, the same floats) shows in the row counts."""
    d, m = 3, 3
    widest = m if kind == "row" else 2 * m
    full = PS._CHUNK_ENTRIES // PS.monomial_count(d, widest)
    n = 2 * full + 1
    W = np.random.default_rng(62).normal(size=(d, n)) * 0.8
    seen = []
    real = PS._monomials
    monkeypatch.setattr(PS, "_monomials", lambda X, k: seen.append(X.shape[-2]) or real(X, k))
    obj = PS.RowPowerSums(W, m, for_grad=True) if kind == "row" else PS.TensorPowerSums(W, m, kernel="numpy")
    obj.grad(np.full(n, 0.3), [np.full(n, 0.1 * k) for k in (1, 2, 3)])
    assert seen == [full, full, 1] * 4                     # four passes: two to build, two for the gradient
