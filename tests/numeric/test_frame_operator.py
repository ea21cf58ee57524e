"""Tests of verify/numeric/frames/operator.py: the implicit Lemma A.4 operator against the materialised frame."""

from __future__ import annotations

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
