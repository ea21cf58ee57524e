"""Tests of verify/numeric/frames/operator.py: the implicit Lemma A.4 operator against the materialised frame."""

from __future__ import annotations

import math

import numpy as np
import pytest

from verify import VerifyInputError
from verify.numeric import frames as F
from verify.numeric.frames import ImplicitFrame, fwht_kron, frame_matvec_torch, load_implicit, save_implicit

CASES = [(1, 3, None), (2, 1, None), (3, 2, None), (4, 3, 1000), (5, 2, 700), (5, 3, None), (6, 2, 33)]


def test_fwht_kron_is_sylvester_hadamard():
    from scipy.linalg import hadamard

    X = np.random.default_rng(0).standard_normal((3, 32))
    assert np.allclose(fwht_kron(X.copy(), 5), X @ hadamard(32))


@pytest.mark.parametrize("r,m,n", CASES)
def test_matches_materialised_frame(r, m, n):
    op = ImplicitFrame(r, m, n, chunk_elements=64)  # small chunks: several chunks and a ragged last one
    V = F.build_frame(r, m, n_columns=n).dense()
    rng = np.random.default_rng(r * 10 + m)
    z, y = rng.standard_normal((op.n, 3)), rng.standard_normal((op.d, 2))
    # float64 sums of N terms of size O(1): 1e-12 covers N <= 2^18 with margin
    assert np.allclose(op.matvec(z), V @ z, atol=1e-12, rtol=0)
    assert np.allclose(op.matvec(z[:, 0]), V @ z[:, 0], atol=1e-12, rtol=0)
    assert np.allclose(op.rmatvec(y), V.T @ y, atol=1e-12, rtol=0)
    assert np.array_equal(op.columns(np.arange(op.n)), V)
    L = op.as_linear_operator()
    assert np.allclose(L @ z, V @ z, atol=1e-12) and np.allclose(L.H @ y[:, 0], V.T @ y[:, 0], atol=1e-12)


def test_float32_and_wrong_beta_is_caught():
    op = ImplicitFrame(5, 2, dtype=np.float32)
    V = F.build_frame(5, 2).dense()
    z = np.random.default_rng(1).standard_normal(op.n).astype(np.float32)
    assert np.allclose(op.matvec(z), V @ z, atol=1e-4)  # float32: ~1e-7 relative per term, 1024 terms
    op.beta = np.arange(32)  # the check can fail: dropping the trace-form bijection breaks the product
    assert not np.allclose(op.matvec(z), V @ z, atol=1e-2)


def test_torch_autograd_matches_dense():
    torch = pytest.importorskip("torch")
    op = ImplicitFrame(4, 3, 1500)
    V = F.build_frame(4, 3, n_columns=1500).dense()
    z = torch.tensor(np.random.default_rng(2).standard_normal(1500), requires_grad=True)
    y = frame_matvec_torch(op, z)
    target = torch.tensor(np.arange(16.0))
    loss = ((y - target) ** 2).sum()
    loss.backward()
    zn = z.detach().numpy()
    assert np.allclose(y.detach().numpy(), V @ zn, atol=1e-12)
    assert np.allclose(z.grad.numpy(), 2 * V.T @ (V @ zn - np.arange(16.0)), atol=1e-11)
    assert torch.autograd.gradcheck(lambda t: frame_matvec_torch(ImplicitFrame(2, 2), t),
                                    (torch.randn(16, dtype=torch.float64, requires_grad=True),))


def test_implicit_file_roundtrip(tmp_path):
    from verify.numeric.frames import quadratic_certificate

    op = ImplicitFrame(10, 3)  # N = 2^30: only parameters are written
    path = tmp_path / "big.npz"
    meta = save_implicit(op, path, quadratic_certificate(10, 3))
    first = path.read_bytes()
    assert path.stat().st_size < 10_000
    op2, meta2 = load_implicit(path)
    assert meta2 == meta and op2.parameters() == op.parameters() and meta["certificate"]["max_abs_sum"] == 128
    idx = np.array([0, 12345, 2 ** 30 - 1])
    assert np.array_equal(op2.columns(idx), op.columns(idx))
    with np.load(path) as z:  # plain numpy reads it
        assert list(z["shape"]) == [1024, 2 ** 30]
    save_implicit(op, path, quadratic_certificate(10, 3))
    assert path.read_bytes() == first
    with pytest.raises(VerifyInputError, match="parameters only"):
        F.load_frame(path)


def test_columns_on_demand_at_n_2_30():
    op = ImplicitFrame(10, 3)
    idx = np.array([5, 2 ** 29 + 7, 2 ** 30 - 1])
    cols = op.columns(idx)
    # column n of the frame = psi(sum_j a_j x^(2j+1)) / sqrt(d), checked with galois arithmetic
    GF = F.field_of(10)
    X = GF(np.arange(1024))
    for k, n in enumerate(idx):
        a = [GF(int((n >> (10 * j)) & 1023)) for j in range(3)]
        P = a[0] * X + a[1] * X ** 3 + a[2] * X ** 5
        assert np.array_equal(cols[:, k], (1 - 2 * np.asarray(P.field_trace(), dtype=float)) / 32)


def test_bad_input():
    op = ImplicitFrame(3, 2)
    with pytest.raises(VerifyInputError, match="Argument 'z'"):
        op.matvec(np.zeros(5))
    with pytest.raises(VerifyInputError, match="Argument 'y'"):
        op.rmatvec(np.zeros(64))
    with pytest.raises(VerifyInputError, match="Argument 'idx'"):
        op.columns([64])
    with pytest.raises(VerifyInputError, match="Argument 'dtype'"):
        ImplicitFrame(3, 2, dtype=np.int32)
    with pytest.raises(VerifyInputError, match="Argument 'r'"):
        ImplicitFrame(17, 2)


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


@pytest.mark.skipif(not _cuda_available(), reason="needs a CUDA device (every tensor of the torch route on it)")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k", [None, 3])
def test_torch_route_on_cuda_stays_on_the_device(dtype, k):  # pragma: no cover - only on a GPU machine
    """On a GPU the torch route's Hadamard factors, signs and buffers live on the input's device (a factor left on
    the CPU makes the product raise): forward and backward on CUDA, 1-D and 2-D, equal the dense products within
    the a-priori rounding bound (recursive sums over the Kronecker factors, the WHT levels and the outer codes)."""
    import torch

    op = ImplicitFrame(4, 3, 1500, chunk_elements=64)
    V = F.build_frame(4, 3, n_columns=1500).dense()
    tdt = getattr(torch, dtype)
    rng = np.random.default_rng(7)
    zn = rng.standard_normal(1500 if k is None else (1500, k)) * 3.0
    gn = rng.standard_normal(16 if k is None else (16, k))
    z = torch.tensor(zn, dtype=tdt, device="cuda", requires_grad=True)
    y = frame_matvec_torch(op, z)
    y.backward(torch.tensor(gn, dtype=tdt, device="cuda"))
    assert y.device == z.device and z.grad.device == z.device and y.dtype == z.grad.dtype == tdt
    eps = float(np.finfo(dtype).eps)
    stages = 2 ** 2 + 2 ** 2 + 4 + 2                  # the Kronecker factors' sums, the WHT levels, the casts

    def exact(A, x):                                  # A @ x, every entry correctly rounded (exact products)
        X = x.reshape(x.shape[0], -1)
        return np.array([[math.fsum(a * X[:, c]) for c in range(X.shape[1])] for a in A]).reshape(
            (A.shape[0],) + x.shape[1:])

    zc = zn.astype(dtype).astype(np.float64)
    tol_y = (stages + op.n_outer) * eps * np.abs(zc).sum(axis=0) * op.scale
    assert np.all(np.abs(y.detach().cpu().numpy() - exact(V, zc)) <= tol_y)
    gc = gn.astype(dtype).astype(np.float64)
    assert np.all(np.abs(z.grad.cpu().numpy() - exact(V.T, gc)) <= stages * eps * np.abs(gc).sum(axis=0) * op.scale)
