r"""Paper N: the second implementations behind the claimed quantities, each against an independent route.

The NC metrics are computed by a streaming accumulator that accepts numpy arrays and torch tensors, in any
batch order; the closed forms of the central path (:mod:`verify.numeric.ufm`, :mod:`verify.numeric.central_path`)
run on float64, exact rationals (python-flint) and mpmath object arrays. Each route is run here at d > 1,
K > 2, non-unit scales, and compared with a route that shares none of its code.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

SEED = 1802


def _metrics_by_definition(H: np.ndarray, K: int, W: np.ndarray) -> dict:
    r"""The paper's definitions transcribed directly (dense pinv, no shifted sums, no class-mean basis):
    :math:`NC_1 = \operatorname{Tr}(\Sigma_W\Sigma_B^\dagger)/K`, :math:`\widetilde{NC}_1 = \operatorname{Tr}\Sigma_W /
    \operatorname{Tr}\Sigma_B`."""
    d, N = H.shape
    n = N // K
    means = H.reshape(d, K, n).mean(axis=2)
    Hc = H - np.repeat(means, n, axis=1)
    Mc = means - means.mean(axis=1, keepdims=True)
    SW, SB = Hc @ Hc.T / N, Mc @ Mc.T / K
    return {"nc1": float(np.trace(SW @ np.linalg.pinv(SB)) / K), "nc1_tilde": float(np.trace(SW) / np.trace(SB))}


@pytest.mark.claim("N-metrics")
def test_nc_metrics_torch_and_streaming_equal_numpy(verdict):
    r"""The NC metrics of one features set by four routes - numpy in the paper's layout, torch float64 tensors,
    features ``(N, d)`` with shuffled labels in 7 uneven batches of :class:`NCAccumulator`, and torch batches -
    equal each other and the paper's definitions transcribed directly (d = 5, K = 3, n = 8, scale 3.7)."""
    torch = pytest.importorskip("torch")
    from verify.numeric.nc_metrics import NCAccumulator, nc_metrics

    rng = np.random.default_rng(SEED)
    d, K, n = 5, 3, 8
    means = 3.7 * rng.standard_normal((d, K))
    H = np.repeat(means, n, axis=1) + 0.9 * rng.standard_normal((d, K * n))
    W = rng.standard_normal((K, d))
    ref = nc_metrics(H, K=K, W=W)
    want = _metrics_by_definition(H, K, W)
    # dense pinv vs the class-mean basis: float64 round-off of K x K systems with condition < 1e3
    assert abs(ref.nc1 - want["nc1"]) <= 1e-12 * want["nc1"] and abs(ref.nc1_tilde - want["nc1_tilde"]) <= 1e-12 * want["nc1_tilde"]
    routes = {"torch": nc_metrics(torch.as_tensor(H), K=K, W=torch.as_tensor(W))}
    perm = rng.permutation(K * n)
    feats, labels = H.T[perm], np.repeat(np.arange(K), n)[perm]
    cuts = [0, 1, 4, 5, 11, 12, 20, K * n]   # 7 uneven batches, one of a single sample
    acc, acc_t = NCAccumulator(d, K), NCAccumulator(d, K)
    for a, b in zip(cuts, cuts[1:]):
        acc.update(feats[a:b], labels[a:b])
        acc_t.update(torch.as_tensor(feats[a:b]), torch.as_tensor(labels[a:b]))
    routes["streamed"], routes["streamed_torch"] = acc.result(W=W), acc_t.result(W=torch.as_tensor(W))
    routes["labels_torch"] = nc_metrics(torch.as_tensor(feats), labels=torch.as_tensor(labels), W=W)
    pooled = NCAccumulator(d, K, per_class=False)                 # the pooled-syrk path (no per-class sums)
    pooled.update(feats, labels)
    pooled = pooled.result(W=W)
    for key in ("nc1", "nc1_tilde", "nc2", "nc3"):
        assert abs(getattr(pooled, key) - getattr(ref, key)) <= 1e-12 * max(1.0, abs(getattr(ref, key))), key
    rows = {}
    for name, got in routes.items():
        # the same sums in another order: 1e-12 relative (round-off of O(100) float64 terms)
        for key in ("nc1", "nc1_tilde", "nc2", "nc3"):
            a, b = getattr(got, key), getattr(ref, key)
            assert abs(a - b) <= 1e-12 * max(1.0, abs(b)), (name, key, a, b)
        assert np.allclose(got.nc1_per_class, ref.nc1_per_class, rtol=1e-12, atol=0)
        assert list(got.class_counts) == [n] * K
        rows[name] = got.as_dict()
    verdict.verified(method="num: NC metrics numpy / torch / streamed (shuffled, 7 batches) / streamed torch == "
                            "the definitions (dense pinv)", evidence={"reference": ref.as_dict(), "definition": want,
                                                                     "routes": rows, "seed": SEED})


@pytest.mark.claim("N-thm4.1-dT")
def test_trace_derivatives_exact_route_equals_float_route(verdict):
    r"""The closed forms :math:`e^{-2\lambda_Ht}\dot T_W`, :math:`\dot T_B` and its lower bound on three number
    types at one rational point (d = 3, K = 3, n = 2, :math:`\lambda_W = 7/5`, :math:`\lambda_H = 3/10`): exact
    rationals (python-flint) equal mpmath at dps 30 to 25 digits and float64 to 1e-12, and the exact values
    satisfy the proof's inequality :math:`\dot T_B \ge` its lower bound exactly."""
    from verify.numeric.central_path import trace_derivatives

    rng = np.random.default_rng(SEED + 1)
    d, K, n = 3, 3, 2
    Hq = np.array([[Fraction(int(v), 8) for v in row] for row in rng.integers(-20, 21, (d, K * n))], dtype=object)
    lw, lh = Fraction(7, 5), Fraction(3, 10)
    exact = trace_derivatives(Hq, lw, lh, K)
    ex = {k: Fraction(str(v)) for k, v in exact.items()}   # python-flint fmpq -> Fraction, exactly
    with mpmath.workdps(30):
        Hm = np.array([[mpmath.mpf(v.numerator) / v.denominator for v in row] for row in Hq], dtype=object)
        mp = trace_derivatives(Hm, mpmath.mpf(7) / 5, mpmath.mpf(3) / 10, K)
        for k in ex:
            q = Fraction(*mpmath.libmp.to_rational(mp[k]._mpf_))
            assert abs(q - ex[k]) <= Fraction(1, 10 ** 25) * max(1, abs(ex[k])), k   # 30 digits, ~5 lost
    fl = trace_derivatives(np.array(Hq, dtype=float), float(lw), float(lh), K)
    for k in ex:
        assert abs(fl[k] - float(ex[k])) <= 1e-12 * max(1.0, abs(float(ex[k]))), k    # a 3 x 3 inverse in float64
    assert ex["dT_W"] <= 0 and ex["dT_B"] >= ex["dT_B_lower"] > 0
    verdict.verified(method="exact (flint) == mpmath dps 30 == float64 closed forms; sign and lower bound exact",
                     evidence={k: str(v) for k, v in ex.items()} | {"seed": SEED + 1})
