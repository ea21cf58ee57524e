"""verify/numeric/superposition_loss.py, route "gram" on the upper triangle of A = W^T W (issue 14, Figure 3's
size): the symmetric strips against the full row blocks ("gram_rows"), the mpmath reference and the power-sum
route; the strip cover of the upper triangle."""

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

import verify.numeric.superposition_loss as NL
from verify import VerifyInputError
from verify.numeric.superposition_loss import exact_loss, exact_loss_grad

# float64 round-off of two summation orders of O(n) mixed-sign terms, n <= 60 here: observed <= 1e-15 relative,
# so 1e-12 (issue 14's exactness contract) leaves ~1000x room and still catches any lost or doubled entry of A
# (one A_ij^2l term of n^2 changes the sums by ~1/n^2 ~ 1e-4 relative)
RTOL = 1e-12


@given(n=hs.integers(1, 80), entries=hs.integers(1, 200))
@settings(max_examples=60, deadline=None)
def test_strips_cover_the_upper_triangle_once(n, entries):
    """Consecutive strips s..e (e > s) from 0 to n: every (i, j >= i) lies in exactly one strip's rectangle."""
    strips = list(NL._upper_strips(n, entries))
    assert strips[0][0] == 0 and strips[-1][1] == n
    assert all(e > s for s, e in strips) and all(a[1] == b[0] for a, b in zip(strips, strips[1:]))
    # a strip holds at most max(entries, one row) entries: the cache budget
    assert all((e - s) * (n - s) <= max(entries, n - s) for s, e in strips)


def _setting(d, n, seed, scale=0.5):
    return np.random.default_rng(seed).normal(size=(d, n)) * scale


@pytest.mark.parametrize("m", [1, 3, 5])
@pytest.mark.parametrize("entries", [1, 7, 1 << 16])   # one-row strips, many ragged strips, one strip
def test_symmetric_strips_match_row_blocks(m, entries, monkeypatch):
    monkeypatch.setattr(NL, "_STRIP_ENTRIES", entries)
    for d, n, seed in ((3, 1, 0), (2, 2, 1), (4, 37, 2), (6, 60, 3)):
        W = _setting(d, n, seed)
        for p in (1e-3, 0.3, 1.0):
            a, b = exact_loss(W, p, m, route="gram"), exact_loss(W, p, m, route="gram_rows")
            assert abs(a - b) <= RTOL * abs(b)
            ga, gb = exact_loss_grad(W, p, m, route="gram"), exact_loss_grad(W, p, m, route="gram_rows")
            assert np.abs(ga - gb).max() <= RTOL * np.abs(gb).max()


@pytest.mark.parametrize("m", [1, 3])
def test_symmetric_strips_against_mpmath_and_power_sums(m, monkeypatch):
    """The 1e-12 contract against the exact reference: the mpmath value at 30 digits (exact_loss with dps) and the
    gradient of the linear-in-n route (an independent derivation of the same gradient)."""
    monkeypatch.setattr(NL, "_STRIP_ENTRIES", 5)
    W = _setting(3, 9, 7, scale=0.7)
    for p in (1e-3, 0.3):
        ref = exact_loss(W, p, m, dps=30)
        got = exact_loss(W, p, m, route="gram")
        assert abs(mpmath.mpf(got) - ref) <= RTOL * abs(ref)
        g = exact_loss_grad(W, p, m, route="gram")
        g_ps = exact_loss_grad(W, p, m, route="power_sums")
        assert np.abs(g - g_ps).max() <= RTOL * np.abs(g_ps).max()


def test_gradient_by_central_differences():
    """d/dW of the value route by central differences in mpmath (30 digits) for a few entries of W: the gradient
    route and the value route agree, whatever the implementation."""
    W = _setting(3, 6, 11)
    g = exact_loss_grad(W, 0.4, 3, route="gram")
    for (a, j) in ((0, 0), (1, 3), (2, 5)):
        Wp, Wm = W.astype(object), W.astype(object)
        with mpmath.workdps(40):                   # the perturbed entries too: at 15 digits W + h would round
            h = mpmath.mpf("1e-12")
            Wp[a, j] = mpmath.mpf(W[a, j]) + h
            Wm[a, j] = mpmath.mpf(W[a, j]) - h
            fd = (exact_loss(Wp, 0.4, 3, dps=40) - exact_loss(Wm, 0.4, 3, dps=40)) / (2 * h)
        # central differences at h = 1e-12 in 40 digits: truncation ~h^2, far below float64's 1e-16 round-off
        assert abs(g[a, j] - float(fd)) <= RTOL * np.abs(g).max()


def test_route_names():
    W = _setting(2, 4, 0)
    assert exact_loss(W, 0.5, 3, route="gram_rows", dps=20) == exact_loss(W, 0.5, 3, route="gram", dps=20)
    with pytest.raises(VerifyInputError, match="route"):
        exact_loss(W, 0.5, 3, route="rows")
