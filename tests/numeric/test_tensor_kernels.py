"""The 8-lane SIMD primitives of verify/numeric/_tensor_kernels.py, each against numpy on random data at non-unit
scales: the monomial-block scaling, the contraction, accumulation and gradient of 1, 2, 4 and 8 rows sharing a tail, and one
reverse-mode block. Offsets are odd and rows overlap the way the kernels' tables make them (a row's x^rho may lie in
its own tail), so an index slip in the IR moves the result."""

import numpy as np
import pytest

from verify.numeric import _tensor_kernels as TK

pytestmark = pytest.mark.skipif(not TK.AVAILABLE, reason="numba not installed: the intrinsics do not exist")

if TK.AVAILABLE:
    from numba import njit

    @njit(cache=False)
    def _scale(M8, stride, off, dst, src, L, x8, a):
        TK.vscale(M8, stride, off, dst, src, L, x8, a)

    @njit(cache=False)
    def _weight(M, stride, off, dst, lo, c8):
        TK.vweight(M, stride, off, dst, lo, c8)

    @njit(cache=False)
    def _tile(X, NB, rs, bs, S8, tiles, q, rcol):
        TK._acc_tile(X, NB, rs, bs, S8, tiles, q, rcol)

    @njit(cache=False)
    def _contract(M8, C, P8, g, R):
        if R == 1:
            TK.contract_rows1(M8, C, P8, g, 1)
        elif R == 2:
            TK.contract_rows2(M8, C, P8, g, 1)
        elif R == 4:
            TK.contract_rows4(M8, C, P8, g, 1)
        else:
            TK.contract_rows8(M8, C, P8, g, 1)

    @njit(cache=False)
    def _grad(M8, B8, C1, C2, c8, g, R):
        if R == 1:
            TK.grad_rows1(M8, B8, C1, C2, c8, g, 1)
        elif R == 2:
            TK.grad_rows2(M8, B8, C1, C2, c8, g, 1)
        elif R == 4:
            TK.grad_rows4(M8, B8, C1, C2, c8, g, 1)
        else:
            TK.grad_rows8(M8, B8, C1, C2, c8, g, 1)

    @njit(cache=False)
    def _accumulate(Mf, stride, cc, m, loc, g, R):
        if R == 1:
            TK.accumulate_rows1(Mf, stride, cc, m, loc, g, 1)
        elif R == 2:
            TK.accumulate_rows2(Mf, stride, cc, m, loc, g, 1)
        else:
            TK.accumulate_rows4(Mf, stride, cc, m, loc, g, 1)

    @njit(cache=False)
    def _reverse(M8, B8, G8, dst, src, L, x8, a):
        TK.vreverse(M8, B8, G8, dst, src, L, x8, a)


def _rng(seed):
    return np.random.default_rng(seed)


def _group(t0, L, l, rs, cs):
    """A group table as the kernels take it, the group in row 1 behind a decoy row 0: the intrinsics read row q = 1,
    so a wrong row stride reads the decoy."""
    row = [t0, L, l, *rs, *cs]
    return np.array([[v + 1 for v in row], row, [v + 2 for v in row]], dtype=np.int64)


def test_vscale_is_one_block_of_the_monomial_tree():
    rng = _rng(1)
    M8, x8 = rng.normal(size=(40, 8)) * 3.1, rng.normal(size=(5, 8)) * 0.7
    want = M8.copy()
    want[21:21 + 13] = x8[3] * M8[5:5 + 13]
    _scale(M8, 8, 0, 21, 5, 13, x8, 3)
    assert np.array_equal(M8, want)                     # one rounding each, like numpy's product


def test_vscale_strided_touches_only_its_block():
    """Rows of eight lanes ``stride`` entries apart from ``off`` (accumulate_tiled's chunk layout: stride 8 inside
    a block; here 24, so a stride or offset slip writes a neighbouring block)."""
    rng = _rng(2)
    X, x8 = rng.normal(size=(3 * 40, 8)) * 1.4, rng.normal(size=(5, 8)) * 0.9
    view = X.reshape(40, 3, 8)                          # (row, block, lane): stride 24 entries, block 1 at offset 8
    want = view.copy()
    want[21:21 + 13, 1] = x8[2] * view[5:5 + 13, 1]
    _scale(X, 24, 8, 21, 5, 13, x8, 2)
    assert np.array_equal(view, want)


def test_vweight_scales_each_row_by_its_degree_weight():
    rng = _rng(3)
    M, c8 = rng.normal(size=(30, 8)) * 2.3, rng.normal(size=(3, 8)) * 0.6
    lo = np.array([[4, 2], [0, 0], [17, 1], [4, 1]], dtype=np.int64)
    want = M.copy()
    for p, (r, l) in enumerate(lo):
        want[20 + p] = c8[l] * M[r]
    _weight(M, 8, 0, 20, lo, c8)
    assert np.array_equal(M, want)


@pytest.mark.parametrize("shape", range(12))
@pytest.mark.parametrize("rcol", [2, 6])
def test_accumulate_tile_against_numpy(shape, rcol):
    """Each tile shape (G rows x T tail entries, summed over NB blocks in registers) in block-major layout
    (``bs`` entries a block, rows eight apart), rows read from column ``rcol`` (2: x^rho, 6: its weighted copy),
    the tile in row 1 behind decoys; a row's x^rho may lie in the tail."""
    G, T = TK.TILE_G[shape // 4], TK.TILE_T[shape % 4]
    rng = _rng(50 + shape + rcol)
    NB, nrows = 5, 37
    X = rng.normal(size=(NB * nrows, 8)) * 1.6
    view = X.reshape(NB, nrows, 8)
    S8 = rng.normal(size=(90, 8))
    t0 = 9
    rows = [t0 + 1] + [int(v) for v in rng.choice(np.setdiff1d(np.arange(nrows), [t0 + 1]), G - 1, replace=False)]
    dsts = [3 + 13 * g for g in range(G)]
    fill = [0] * (4 - G)
    other = [int(v) for v in rng.choice(nrows, 4)]
    row = [shape, t0] + (rows + fill if rcol == 2 else other) + (rows + fill if rcol == 6 else other) + dsts + fill
    table = np.array([[v + 1 for v in row], row, [v + 2 for v in row]], dtype=np.int64)
    want = S8.copy()
    for g in range(G):
        want[dsts[g]:dsts[g] + T] += (view[:, rows[g], None, :] * view[:, t0:t0 + T, :]).sum(0)
    _tile(X, NB, 8, nrows * 8, S8, table, 1, rcol)
    assert np.allclose(S8, want, rtol=1e-13, atol=1e-13 * np.abs(want).max())   # reassociated sums of NB terms


@pytest.mark.parametrize("R", [1, 2, 4, 8])
def test_contract_rows_against_numpy(R):
    rng = _rng(10 + R)
    M8, C = rng.normal(size=(60, 8)) * 1.9, rng.normal(size=400) * 0.3
    P8 = rng.normal(size=(3, 8))
    t0, L, l = 11, 24, 2
    rs, cs = tuple(int(v) for v in rng.choice(60, R, replace=False)), tuple(int(7 + 37 * j) for j in range(R))
    want = P8.copy()
    for r, c in zip(rs, cs):
        want[l] += M8[r] * (C[c:c + L, None] * M8[t0:t0 + L]).sum(0)
    _contract(M8, C, P8, _group(t0, L, l, rs, cs), R)
    assert np.allclose(P8, want, rtol=1e-13, atol=1e-13 * np.abs(want).max())   # reassociated sums of 24 terms


@pytest.mark.parametrize("R", [1, 2, 4, 8])
def test_grad_rows_against_numpy(R):
    rng = _rng(20 + R)
    M8, B8 = rng.normal(size=(60, 8)) * 1.3, rng.normal(size=(60, 8)) * 0.2
    C1, C2, c8 = rng.normal(size=400), rng.normal(size=400) * 2.5, rng.normal(size=(3, 8)) * 0.6
    t0, L, l = 9, 16, 1
    others = rng.choice(np.setdiff1d(np.arange(5, 40), [t0 + 3]), R - 1, replace=False)
    rs = (t0 + 3,) + tuple(int(v) for v in others)            # the first row's x^rho lies in the tail 9..24
    cs = tuple(int(3 + 41 * j) for j in range(R))
    want = B8.copy()
    for r, c in zip(rs, cs):
        g = c8[l] * C1[c:c + L, None] + C2[c:c + L, None]
        want[t0:t0 + L] += g * M8[r]
    for r, c in zip(rs, cs):               # each row's x^rho adjoint: after the tails (the kernel adds it last)
        g = c8[l] * C1[c:c + L, None] + C2[c:c + L, None]
        want[r] += (g * M8[t0:t0 + L]).sum(0)
    _grad(M8, B8, C1, C2, c8, _group(t0, L, l, rs, cs), R)
    assert np.allclose(B8, want, rtol=1e-13, atol=1e-13 * np.abs(want).max())


@pytest.mark.parametrize("R", [1, 2, 4])
def test_accumulate_rows_against_numpy(R):
    rng = _rng(30 + R)
    stride, m = 48, 3
    Mf = rng.normal(size=(8, stride)) * 1.7
    cc = rng.normal(size=(8, m)) * 0.9
    loc = rng.normal(size=200)
    t0, L, l = 13, 16, 2
    rs, cs = (3, 29, 41, 5)[:R], (8, 72, 100, 140)[:R]     # each row's own coefficients, apart
    want = loc.copy()
    for r, c in zip(rs, cs):
        want[c:c + L] += ((cc[:, l] * Mf[:, r])[:, None] * Mf[:, t0:t0 + L]).sum(0)
    _accumulate(Mf, stride, cc, m, loc, _group(t0, L, l, rs, cs), R)
    assert np.allclose(loc, want, rtol=1e-13, atol=1e-13 * np.abs(want).max())


def test_vreverse_against_numpy():
    rng = _rng(40)
    M8, B8, G8, x8 = (rng.normal(size=(50, 8)), rng.normal(size=(50, 8)) * 2.2, rng.normal(size=(4, 8)),
                      rng.normal(size=(4, 8)) * 0.4)
    dst, src, L, a = 30, 4, 11, 2
    wantG, wantB = G8.copy(), B8.copy()
    wantG[a] += (B8[dst:dst + L] * M8[src:src + L]).sum(0)
    wantB[src:src + L] += B8[dst:dst + L] * x8[a]
    _reverse(M8, B8, G8, dst, src, L, x8, a)
    assert np.allclose(G8, wantG, rtol=1e-13, atol=1e-13) and np.allclose(B8, wantB, rtol=1e-14, atol=1e-14)


def test_kernels_use_eight_lanes():
    assert TK.BLOCK == TK.LANES == 8 and TK.PAD % TK.LANES == 0 and TK.PAD % TK.CONTRACT_PAD == 0
