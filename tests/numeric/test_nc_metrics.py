"""Tests of verify.numeric.nc_metrics: exactness on collapse, invariances, streaming, input checks."""

import subprocess
import sys

import numpy as np
import pytest

from verify import VerifyInputError
from verify.numeric.nc_metrics import NCAccumulator, etf_target, nc_metrics


def _features(rng, d=6, K=4, n=5, noise=0.3):
    means = rng.standard_normal((d, K)) * 3
    return np.repeat(means, n, axis=1) + noise * rng.standard_normal((d, K * n))


def _reference(H, K):
    """Plain pinv-based formulas of §6 / App. E.2 (no subspace trick, no streaming)."""
    d, N = H.shape
    n = N // K
    Hbar = H.reshape(d, K, n).mean(axis=2)
    Hc = H - np.repeat(Hbar, n, axis=1)
    SW = Hc @ Hc.T / N
    M = Hbar - Hbar.mean(axis=1, keepdims=True)
    SB = M @ M.T / K
    P = np.linalg.pinv(SB)
    per = [np.trace(Hc[:, k * n:(k + 1) * n] @ Hc[:, k * n:(k + 1) * n].T / n @ P) / K for k in range(K)]
    G = M.T @ M
    return np.trace(SW @ P) / K, np.trace(SW) / np.trace(SB), per, np.linalg.norm(G / np.linalg.norm(G) - etf_target(K))


def test_matches_plain_pinv_formulas():
    rng = np.random.default_rng(0)
    H = _features(rng)
    m = nc_metrics(H, K=4)
    nc1, nct, per, nc2 = _reference(H, 4)
    # well-conditioned O(1) data: float64 agreement to ~1e-12
    assert m.nc1 == pytest.approx(nc1, rel=1e-12)
    assert m.nc1_tilde == pytest.approx(nct, rel=1e-12)
    assert np.allclose(m.nc1_per_class, per, rtol=1e-12)
    assert m.nc2 == pytest.approx(nc2, rel=1e-12, abs=1e-15)
    assert m.nc1 == pytest.approx(np.mean(m.nc1_per_class), rel=1e-13)


@pytest.mark.parametrize("gap", [1e-3, 1e-6, 1e-8])
def test_near_merged_classes_keep_the_small_class_mean_direction(gap):
    """Two class means ``gap`` apart (Sigma_B's eigenvalues spread ~1/gap^2): the exact pseudo-inverse keeps the
    small direction, so NC1 must match a pinv with machine-precision cutoff, not one that drops it."""
    rng = np.random.default_rng(3)
    d, K, n = 4, 3, 5
    means = rng.standard_normal((d, K))
    means[:, 2] = means[:, 1] + gap * rng.standard_normal(d)
    noise = 0.1 * rng.standard_normal((d, K, n))
    noise -= noise.mean(axis=2, keepdims=True)             # within-class spread that leaves the class means alone
    H = np.repeat(means, n, axis=1) + noise.reshape(d, K * n)
    Hbar = H.reshape(d, K, n).mean(axis=2)
    M = Hbar - Hbar.mean(axis=1, keepdims=True)
    U, s, _ = np.linalg.svd(M, full_matrices=False)
    assert s[1] / s[0] < 10 * gap                           # the instance is as ill-conditioned as intended
    Hc = H - np.repeat(Hbar, n, axis=1)
    SW = Hc @ Hc.T / (K * n)
    ref = sum(U[:, i] @ SW @ U[:, i] / s[i] ** 2 for i in range(2))   # (1/K) Tr(SW SB^+), SB^+ = K sum u u^T / s^2
    # relative error ~ eps_mach / (s_min/s_max): <= ~1e-7 at gap 1e-8; dropping the small direction is O(1)
    assert abs(nc_metrics(H, K=K).nc1 - ref) <= 1e-6 * ref


def test_exact_zero_on_simplex_etf():
    K, d, n = 5, 7, 3
    R = np.linalg.qr(np.random.default_rng(1).standard_normal((d, K)))[0]
    H = np.kron(R, np.ones((1, n))) + 2.5  # orthogonal means + a global offset
    m = nc_metrics(H, K=K)
    assert m.nc1 == 0.0 and m.nc1_tilde == 0.0 and np.all(m.nc1_per_class == 0.0)
    assert m.nc2 < 1e-14  # the ETF target is itself rounded
    W = (R - R.mean(axis=1, keepdims=True)).T
    assert nc_metrics(H, K=K, W=W).nc3 < 1e-14


def test_invariances():
    rng = np.random.default_rng(2)
    H, K, n = _features(rng), 4, 5
    W = rng.standard_normal((K, H.shape[0]))
    base = nc_metrics(H, K=K, W=W)
    Q = np.linalg.qr(rng.standard_normal((H.shape[0],) * 2))[0]
    rot = nc_metrics(Q @ H, K=K, W=W @ Q.T)
    scaled = nc_metrics(7.5 * H, K=K, W=W)
    perm = rng.permutation(K)
    Hp = H.reshape(H.shape[0], K, n)[:, perm].reshape(H.shape)
    permuted = nc_metrics(Hp, K=K, W=W[perm])
    for other in (rot, scaled, permuted):
        for key in ("nc1", "nc1_tilde", "nc2", "nc3"):
            assert getattr(other, key) == pytest.approx(getattr(base, key), rel=1e-10)
    assert np.allclose(permuted.nc1_per_class, base.nc1_per_class[perm], rtol=1e-10)


def test_streaming_equals_batch_and_labels_layout():
    rng = np.random.default_rng(3)
    H, K = _features(rng, d=5, K=3, n=40), 3
    labels = np.repeat(np.arange(K), 40)
    order = rng.permutation(labels.size)
    acc = NCAccumulator(d=5, K=K)
    for chunk in np.array_split(order, 7):
        acc.update(H.T[chunk].astype(np.float32), labels[chunk])
    whole = nc_metrics(H.T.astype(np.float32), labels=labels)
    streamed = acc.result()
    assert streamed.nc1 == pytest.approx(whole.nc1, rel=1e-10)  # float64 sums, different order
    assert np.allclose(streamed.nc1_per_class, whole.nc1_per_class, rtol=1e-10)


def test_never_negative_and_d_less_than_K():
    rng = np.random.default_rng(4)
    R = rng.standard_normal((3, 6))
    H = np.repeat(R, 4, axis=1) + 1e-9 * rng.standard_normal((3, 24))  # nearly collapsed, d=3 < K=6
    m = nc_metrics(H, K=6)
    assert m.nc1 >= 0 and np.all(m.nc1_per_class >= 0) and np.isfinite(m.nc1)


def test_imbalanced_classes_with_labels():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((30, 4))
    y = np.array([0] * 5 + [1] * 10 + [2] * 15)
    m = nc_metrics(x, labels=y)
    assert list(m.class_counts) == [5, 10, 15] and m.nc1 >= 0


def test_torch_tensors_accepted():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    H = _features(rng)
    m_np = nc_metrics(H, K=4)
    m_t = nc_metrics(torch.tensor(H, dtype=torch.float64), K=4)
    assert m_t.nc1 == pytest.approx(m_np.nc1, rel=1e-14)
    acc = NCAccumulator(d=H.shape[0], K=4)
    acc.update(torch.tensor(H.T), torch.tensor(np.repeat(np.arange(4), 5)))
    assert acc.result().nc1 == pytest.approx(m_np.nc1, rel=1e-12)


def test_torch_not_imported_for_numpy_input():
    code = ("import sys, numpy as np; from verify.numeric.nc_metrics import nc_metrics; "
            "nc_metrics(np.arange(12.0).reshape(2, 6) ** 2, K=2); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("call, word", [
    (lambda: nc_metrics(np.full((2, 4), np.nan), K=2), "'H'"),
    (lambda: nc_metrics(np.ones((2, 5)), K=2), "'H'"),
    (lambda: nc_metrics(np.ones((2, 4)), K=1), "'K'"),
    (lambda: nc_metrics(np.ones((2, 4))), "'K'"),
    (lambda: NCAccumulator(2, 2).update(np.ones((3, 2)), [0, 1, 2]), "'labels'"),
    (lambda: NCAccumulator(2, 2).update(np.ones((3, 3)), [0, 1, 1]), "'features'"),
    (lambda: NCAccumulator(2, 3).result(), "'labels'"),
])
def test_bad_input(call, word):
    with pytest.raises(VerifyInputError, match=word):
        call()


def test_accumulator_names_the_classes_it_never_saw():
    """The whole message, with the missing classes listed (a reader must know which labels to add)."""
    acc = NCAccumulator(2, 4)
    acc.update(np.arange(6.0).reshape(3, 2), [0, 2, 2])
    with pytest.raises(VerifyInputError) as info:
        acc.result()
    assert str(info.value) == "Argument 'labels' must cover every class in [0, 4); missing [1, 3]."


@pytest.mark.parametrize("H", [np.ones((3, 4)), 1e3 * np.arange(12.0).reshape(3, 4)])
def test_nc_metrics_without_K_and_labels_refuses_with_the_whole_message(H):
    """Neither K nor labels: the layout of H cannot be known; the message is compared whole (case included)."""
    with pytest.raises(ValueError) as exc:
        nc_metrics(H)
    assert str(exc.value) == "Argument 'K' must be given (an integer >= 2) when 'labels' is not."
    with pytest.raises(ValueError) as exc:
        nc_metrics(H, K=None, labels=None, W=None)
    assert str(exc.value) == "Argument 'K' must be given (an integer >= 2) when 'labels' is not."


@pytest.mark.parametrize("H,tail", [
    (np.ones(5), "must be a 2-D array, not an array of shape (5,)."),
    ("x", "must be a real array, not 'x'."),
    (np.ones((2, 3, 4)), "must be a 2-D array, not an array of shape (2, 3, 4)."),
])
@pytest.mark.parametrize("layout", ["K", "labels"])
def test_a_bad_H_is_refused_by_name_on_both_layouts(H, tail, layout):
    """Both layouts (the paper's d x Kn with K, N x d features with labels) refuse a bad H whole, naming H."""
    with pytest.raises(VerifyInputError) as err:
        if layout == "K":
            nc_metrics(H, K=2)
        else:
            nc_metrics(H, labels=np.array([0, 1, 0, 1, 0]))
    assert str(err.value) == "Argument 'H' " + tail


@pytest.mark.parametrize("with_W", [False, True])
def test_as_dict_is_every_metric_a_user_reads(with_W):
    """as_dict (what reports and JSON files carry) holds exactly the metrics under their printed names, the values
    those of the fields, NC3 only when W was given; and it serialises to JSON."""
    import json

    rng = np.random.default_rng(0)
    feats = 2.5 * rng.normal(size=(8, 3))
    y = np.array([0, 1, 2, 0, 1, 2, 0, 1])
    m = nc_metrics(feats, labels=y, W=rng.normal(size=(3, 3)) if with_W else None)
    d = m.as_dict()
    want = {"NC1": m.nc1, "NC1_tilde": m.nc1_tilde, "NC2": m.nc2, "NC1_per_class": list(m.nc1_per_class)}
    if with_W:
        want["NC3"] = m.nc3
    assert list(d) == list(want) and d == want
    assert all(type(v) is float for v in d["NC1_per_class"]) and len(d["NC1_per_class"]) == 3
    assert json.loads(json.dumps(d)) == d
