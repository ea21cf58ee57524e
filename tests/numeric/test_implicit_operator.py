"""The fused kernels of the implicit Lemma A.4 operator (verify/numeric/frames/operator.py: ImplicitFrame.matvec and
rmatvec) against the materialised frame, exactly.

With integer-valued vectors every butterfly and every sum is an exact integer in float32 and float64 (|values| far
below 2^24), so the only rounding is the final scaling by 1/sqrt(d): the operator's output must equal the exact
integer product with the dense sign matrix, scaled once, bit for bit. Sizes cross every boundary of the kernels: a
ragged last block (N not a multiple of d), the recomputation of the signs when a_1 wraps (N > d^2 at m = 3), m = 1
(no signs), r from 1 (d = 2, below the radix-8 step) to 8.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import hadamard

from verify import VerifyInputError
from verify.numeric import frames as F
from verify.numeric.frames import ImplicitFrame
from verify.numeric.frames import operator as O

CASES = [(1, 3, None), (2, 1, None), (2, 3, None), (3, 2, 61), (3, 3, 300), (4, 3, None), (5, 2, 1000),
         (6, 2, 33), (7, 2, None), (8, 2, 40_000), (4, 4, 65_000)]


def _signs(r, m, n):
    """The dense frame's entries times sqrt(d): the integer sign matrix (d, n), from the frame builder."""
    V = F.build_frame(r, m, n_columns=n).dense()
    S = np.rint(V * np.sqrt(2 ** r)).astype(np.int64)
    assert np.array_equal(np.abs(S), np.ones_like(S))
    return S


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("r,m,n", CASES)
def test_fused_products_equal_the_dense_frame_exactly(r, m, n, dtype):
    op = ImplicitFrame(r, m, n, dtype=dtype)
    S = _signs(r, m, n)
    assert S.shape == op.shape
    rng = np.random.default_rng(31 * r + m)
    z = rng.integers(-9, 10, size=op.n)
    y = rng.integers(-9, 10, size=op.d)
    want_z = (((S @ z).astype(np.float64)) * op.scale).astype(dtype)     # the exact sum, scaled once
    want_y = (S.T @ y).astype(dtype) * dtype(op.scale)
    got_z, got_y = op.matvec(z.astype(dtype)), op.rmatvec(y.astype(dtype))
    assert got_z.dtype == got_y.dtype == np.dtype(dtype)
    assert np.array_equal(got_z, want_z)
    assert np.array_equal(got_y, want_y)
    # several columns: each the flat product of that column, bit for bit
    Z = np.stack([z, -2 * z, np.roll(z, 3)], axis=1).astype(dtype)
    Y = np.stack([y, 5 * y], axis=1).astype(dtype)
    got_Z, got_Y = op.matvec(Z), op.rmatvec(Y)
    assert got_Z.shape == (op.d, 3) and got_Y.shape == (op.n, 2)
    for c in range(3):
        assert np.array_equal(got_Z[:, c], op.matvec(np.ascontiguousarray(Z[:, c])))
    for c in range(2):
        assert np.array_equal(got_Y[:, c], op.rmatvec(np.ascontiguousarray(Y[:, c])))


@pytest.mark.parametrize("r,m,n", [(5, 3, None), (7, 2, 5000)])
def test_fused_products_on_real_data(r, m, n):
    """Gaussian vectors (rounding everywhere): float64 within 1e-12 of the dense product (sums of N terms of size
    O(1) in another order), float32 within 1e-5 of the norm of the terms (float32 butterflies, float64 sum over
    the outer codes); and against the chunked numpy route the class kept for the code frames."""
    S = _signs(r, m, n).astype(np.float64) / np.sqrt(2 ** r)
    rng = np.random.default_rng(r)
    op = ImplicitFrame(r, m, n)
    z, y = rng.standard_normal(op.n), rng.standard_normal(op.d)
    assert np.abs(op.matvec(z) - S @ z).max() <= 1e-12 * np.abs(z).sum() / np.sqrt(op.d)
    assert np.abs(op.rmatvec(y) - S.T @ y).max() <= 1e-12 * np.abs(y).sum()
    assert np.abs(op.matvec(z) - op._matvec_chunks(z)).max() <= 1e-12 * np.abs(z).sum()
    assert np.abs(op.rmatvec(y) - op._rmatvec_chunks(y)).max() <= 1e-12 * np.abs(y).sum()
    op32 = ImplicitFrame(r, m, n, dtype=np.float32)
    z32, y32 = z.astype(np.float32), y.astype(np.float32)
    assert np.abs(op32.matvec(z32) - S @ z32.astype(np.float64)).max() <= 1e-5 * np.linalg.norm(z) * np.sqrt(op.d)
    assert np.abs(op32.rmatvec(y32) - S.T @ y32.astype(np.float64)).max() <= 1e-5 * np.linalg.norm(y) * np.sqrt(op.d)


@pytest.mark.parametrize("r", range(0, 11))
def test_in_place_wht_is_the_sylvester_hadamard_transform(r):
    """Every length 2^r, r = 0..10 (below, at and above the radix-8 first step): integer input, exact."""
    x = np.random.default_rng(r).integers(-50, 51, size=2 ** r).astype(np.float64)
    want = hadamard(2 ** r).astype(np.int64) @ x.astype(np.int64)
    buf = x.copy()
    O._fwht_inplace(buf)
    assert np.array_equal(buf, want.astype(np.float64))


@pytest.mark.parametrize("r,m", [(3, 3), (4, 3), (2, 4), (5, 2)])
def test_sign_recurrence_equals_direct_signs(r, m):
    """The signs of every outer code by the one-multiplication recurrence (:func:`_next_signs`, recomputed when a_1
    wraps) equal the direct parity (``_signs_into``) and the sign bits of the field module."""
    op = ImplicitFrame(r, m)
    beta, _, pows = op._tables()
    d = 2 ** r
    T = O._sign_steps(r, beta, pows, np.ones(1))
    sgn, direct = np.empty(d), np.empty(d)
    n_outer = op.n_outer
    ref = 1 - 2 * F.sign_bits(r, np.arange(n_outer, dtype=np.int64) << r, m, start_digit=1).astype(np.int64)
    for o in range(n_outer):
        O._next_signs(sgn, o, r, beta, pows, T)
        O._signs_into(direct, o, r, beta, pows, 1)
        assert np.array_equal(sgn, direct) and np.array_equal(sgn, ref[o])


def test_non_finite_input_is_refused_and_huge_finite_input_is_not():
    op = ImplicitFrame(4, 2)
    for bad in (np.nan, np.inf, -np.inf):
        z = np.ones(op.n)
        z[77] = bad
        with pytest.raises(VerifyInputError, match="Argument 'z' must be finite"):
            op.matvec(z)
        with pytest.raises(VerifyInputError, match="Argument 'z' must be finite"):
            op.matvec(np.stack([np.ones(op.n), z], axis=1))
    y = np.ones(op.d)
    y[3] = np.nan
    with pytest.raises(VerifyInputError, match="Argument 'y' must be finite"):
        op.rmatvec(y)
    out = op.matvec(np.full(op.n, 1e308))                 # overflows to inf: z itself is finite, no error
    assert np.isinf(out).any()
    with pytest.raises(VerifyInputError, match=r"Argument 'z' must have shape \(256,\)"):
        op.matvec(np.ones(255))
    with pytest.raises(VerifyInputError, match="Argument 'z' must be a real array"):
        op.matvec(np.ones(op.n) * 1j)


# ----------------------------------------------------------------------------- the working dtype on every route
def _fused(dt):
    return ImplicitFrame(3, 3, 300, dtype=dt, chunk_elements=40)       # 5 outer codes a chunk, a ragged last block


def _chunked(dt):
    op = ImplicitFrame(3, 3, 300, dtype=dt, chunk_elements=40)
    op._fused = False          # the numpy route the code frames take, on the Lemma A.4 frame
    return op


ROUTES = {
    "fused": (_fused, lambda: F.build_frame_reference(3, 3, 300)),
    "chunked": (_chunked, lambda: F.build_frame_reference(3, 3, 300)),
    "kerdock": (lambda dt: F.ImplicitCodeFrame("kerdock", 4, n_columns=100, dtype=dt, chunk_elements=40),
                lambda: F.build_code_frame("kerdock", 4).signs[:, :100]),
    "dg": (lambda dt: F.ImplicitCodeFrame("dg", 6, 1, n_columns=1000, dtype=dt, chunk_elements=200),
           lambda: F.build_code_frame("dg", 6, 1).signs[:, :1000]),
}


def _inputs(length: int, seed: int) -> dict:
    """Vectors of every real dtype at non-unit scales: float64 / float32 / float16 Gaussians, int64 beyond 2^24
    (float32 cannot hold them), int32, uint8, bool."""
    rng = np.random.default_rng(seed)
    g = rng.standard_normal(length) * 1e3 + 7.25
    return {"float64": g, "float32": g.astype(np.float32), "float16": (g / 100).astype(np.float16),
            "int64": rng.integers(-2 ** 40, 2 ** 40, size=length), "int32": rng.integers(-2 ** 20, 2 ** 20, size=length,
                                                                                        dtype=np.int32),
            "uint8": rng.integers(0, 256, size=length, dtype=np.uint8), "bool": rng.integers(0, 2, size=length) > 0}


def _exact_products(S: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """S @ Z for a matrix S of entries -1, 0, 1 and float64 Z, every entry correctly rounded (math.fsum of the
    exact products)."""
    import math

    return np.array([[math.fsum(row * Z[:, c]) for c in range(Z.shape[1])] for row in S])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("route", list(ROUTES))
def test_every_route_computes_in_its_dtype_for_every_input_dtype(route, dtype):
    """On every route (the fused kernels, the chunked numpy route on the same frame, the Kerdock and DG operators)
    and for inputs of every real dtype, 1-D and 2-D: the result has the operator's dtype; it is bit for bit the
    result for the input cast to that dtype first; and it is within the a-priori rounding bound of the exact product
    of the dense sign matrix with that cast input (recursive sums: (2^r1 + 2^r2 + r + outer codes + 2) units of the
    dtype times the sum of |terms|, the Kronecker factors' products being dense sums of 2^r1 and 2^r2 terms)."""
    make, signs = ROUTES[route]
    op = make(dtype)
    S = np.asarray(signs(), dtype=np.int64)
    assert S.shape == op.shape and np.array_equal(np.abs(S), np.ones_like(S))
    eps = np.finfo(dtype).eps
    r1 = op.r // 2
    stages = 2 ** r1 + 2 ** (op.r - r1) + op.r + 2
    for name, z in _inputs(op.n, 5).items():
        for Z in (z, np.stack([z, z[::-1]], axis=1)):
            got = op.matvec(Z)
            cast = Z.astype(dtype)
            assert got.dtype == np.dtype(dtype) and got.shape == ((op.d,) if Z.ndim == 1 else (op.d, 2)), name
            assert np.array_equal(got, op.matvec(cast)), name
            C = cast.astype(np.float64).reshape(op.n, -1)
            want = _exact_products(S, C) * op.scale
            tol = (stages + op.n_outer) * eps * np.abs(C).sum(axis=0) * op.scale
            assert (np.abs(got.reshape(op.d, -1) - want) <= tol).all(), name
    for name, y in _inputs(op.d, 6).items():
        for Y in (y, np.stack([y, y[::-1]], axis=1)):
            got = op.rmatvec(Y)
            cast = Y.astype(dtype)
            assert got.dtype == np.dtype(dtype) and got.shape == ((op.n,) if Y.ndim == 1 else (op.n, 2)), name
            assert np.array_equal(got, op.rmatvec(cast)), name
            C = cast.astype(np.float64).reshape(op.d, -1)
            want = _exact_products(S.T, C) * op.scale
            tol = stages * eps * np.abs(C).sum(axis=0) * op.scale
            assert (np.abs(got.reshape(op.n, -1) - want) <= tol).all(), name


def _peak_bytes(f, x) -> int:
    import tracemalloc

    f(x)   # compiled and cached before the measurement
    tracemalloc.start()
    try:
        f(x)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


MEMORY_ROUTES = {
    "fused": lambda dt: ImplicitFrame(6, 3, 200_000, dtype=dt, chunk_elements=2 ** 14),
    "chunked": lambda dt: ImplicitFrame(6, 3, 200_000, dtype=dt, chunk_elements=2 ** 14),
    "dg": lambda dt: F.ImplicitCodeFrame("dg", 6, 1, dtype=dt, chunk_elements=2 ** 14),
}


@pytest.mark.parametrize("route", list(MEMORY_ROUTES))
def test_float32_operator_works_in_half_the_memory(route):
    """The float32 operator's working memory (numpy's traced allocations during a product, inputs already in the
    operator's dtype) is at most 0.6 of the float64 operator's on the same route and chunks (0.50 measured), 1-D and 2-D, both
    products: every temporary is in the working dtype. The fused matvec of a 1-D vector allocates nothing of size N
    (at most an eighth of z's bytes), whatever the dtype."""
    peaks = {}
    for dt in (np.float32, np.float64):
        op = MEMORY_ROUTES[route](dt)
        op._fused = route == "fused"
        rng = np.random.default_rng(0)
        z, Z = rng.standard_normal(op.n).astype(dt), rng.standard_normal((op.n, 3)).astype(dt)
        y, Y = rng.standard_normal(op.d).astype(dt), rng.standard_normal((op.d, 3)).astype(dt)
        peaks[dt] = [_peak_bytes(op.matvec, z), _peak_bytes(op.matvec, Z), _peak_bytes(op.rmatvec, y),
                     _peak_bytes(op.rmatvec, Y)]
        if route == "fused":
            assert peaks[dt][0] <= z.nbytes / 8
    if route == "fused":   # the 1-D matvec's few kB of tables do not scale with the dtype
        peaks = {dt: p[1:] for dt, p in peaks.items()}
    for p32, p64 in zip(peaks[np.float32], peaks[np.float64]):
        assert p32 <= 0.6 * p64, (p32, p64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_export_keeps_the_working_dtype(dtype, tmp_path):
    """The working dtype reaches every export: the operator's columns (the signs times 1/sqrt(d), exactly), its
    LinearOperator (products included), an implicit file opened with that dtype, and a dense file's
    LinearOperator with it (the fast twin of a Lemma A.4 file and the stored-signs route of a general one); every
    product equals the dense reference within the a-priori bound of test_every_route_computes_in_its_dtype..."""
    op = _fused(dtype)
    S = np.asarray(F.build_frame_reference(3, 3, 300), dtype=np.int64)
    idx = np.array([0, 7, 8, 299, 64, 3])
    cols = op.columns(idx)
    assert cols.dtype == np.dtype(dtype) and np.array_equal(cols, (S[:, idx] * dtype(op.scale)).astype(dtype))
    z = np.random.default_rng(1).standard_normal(op.n) * 50
    eps = np.finfo(dtype).eps
    zc = z.astype(dtype).astype(np.float64)
    want = _exact_products(S, zc[:, None])[:, 0] * op.scale
    tol = (2 ** 1 + 2 ** 2 + 3 + 2 + op.n_outer) * eps * np.abs(zc).sum() * op.scale
    L = op.as_linear_operator()
    assert L.dtype == np.dtype(dtype) and (L @ z).dtype == np.dtype(dtype)
    assert np.all(np.abs(L @ z - want) <= tol)
    F.save_implicit(op, tmp_path / "i.npz")
    reopened, _ = F.load_implicit(tmp_path / "i.npz", dtype=dtype)
    via_load = F.load_frame(tmp_path / "i.npz", allow_implicit=True, dtype=dtype).frame
    for other in (reopened, via_load):
        assert other.dtype == np.dtype(dtype) and np.array_equal(other.matvec(z), op.matvec(z))
    F.save_frame(F.build_frame(3, 3, n_columns=300), tmp_path / "d.npz")
    twin = F.load_frame(tmp_path / "d.npz").as_linear_operator(dtype=dtype)
    assert twin.dtype == np.dtype(dtype) and np.array_equal(twin @ z, op.matvec(z))
    general = F.build_general_frame(12, 2)
    F.save_frame(general, tmp_path / "g.npz")
    dense = F.load_frame(tmp_path / "g.npz").as_linear_operator(dtype=dtype)
    Sg = np.rint(general.dense() * np.sqrt(2 ** general.r)).astype(np.int64)
    zg = np.random.default_rng(2).standard_normal(general.n_columns) * 50
    out = dense @ zg.astype(dtype)
    zgc = zg.astype(dtype).astype(np.float64)
    assert dense.dtype == np.dtype(dtype) and out.dtype == np.dtype(dtype)
    assert np.all(np.abs(out - _exact_products(Sg, zgc[:, None])[:, 0] * general.scale)
                  <= (zg.size + 2) * eps * np.abs(zgc).sum() * general.scale)


@pytest.mark.parametrize("make", [lambda k: ImplicitFrame(3, 2, 50, chunk_elements=k),
                                  lambda k: F.ImplicitCodeFrame("kerdock", 4, n_columns=100, chunk_elements=k)],
                         ids=["bch", "kerdock"])
def test_chunk_elements_sets_the_outer_codes_per_block_on_both_sides_of_each_multiple(monkeypatch, make):
    """A chunk holds max(1, chunk_elements // d) outer codes (d sign rows each): observed as the spans of sign rows
    each block of the chunked products asks for, at chunk_elements 1, d - 1, d, 2d - 1, 2d, 2d + 1 (below one row,
    exact multiples and one either side); the products the same for every chunk."""
    d = make(1).d
    z = np.random.default_rng(5).standard_normal(make(1).n) * 40.0
    ref = make(10 ** 6)
    want = ref._matvec_chunks(z)
    for k in (1, d - 1, d, 2 * d - 1, 2 * d, 2 * d + 1):
        op = make(k)
        spans = []
        real = type(op)._signs
        monkeypatch.setattr(type(op), "_signs", lambda self, s, e, _r=real: spans.append(e - s) or _r(self, s, e))
        got = op._matvec_chunks(z)
        monkeypatch.setattr(type(op), "_signs", real)
        per = max(1, k // d)
        assert spans and set(spans[:-1]) <= {per} and 0 < spans[-1] <= per, (k, spans)
        assert sum(spans) == -(-op.n // d)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
