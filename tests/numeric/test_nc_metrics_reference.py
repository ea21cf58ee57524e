r"""Neural-collapse metrics (:mod:`verify.numeric.nc_metrics`) against their definitions in exact rationals.

Reference: class means, :math:`\Sigma_W`, :math:`\Sigma_B`, :math:`\Sigma_k` by sums over the samples (sympy
rationals), :math:`\Sigma_B^\dagger` by sympy's exact pseudo-inverse (rank :math:`\le K - 1`, so singular whenever
:math:`d \ge K`), NC2 / NC3 by their formulas; unbalanced classes through ``labels``, non-unit scales, an exactly
collapsed class, and the streaming accumulator fed in random batches.
"""

import numpy as np
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.numeric import nc_metrics as NC

REF = settings.get_profile("reference")


def ref_metrics(F: list, y: list, K: int, W=None) -> dict:
    d = len(F[0])
    X = [sympy.Matrix(f) for f in F]
    cls = {k: [X[i] for i in range(len(X)) if y[i] == k] for k in range(K)}
    means = {k: sum(v, sympy.zeros(d, 1)) / len(v) for k, v in cls.items()}
    g = sum(means.values(), sympy.zeros(d, 1)) / K
    N = len(X)
    SW = sum(((x - means[y[i]]) * (x - means[y[i]]).T for i, x in enumerate(X)), sympy.zeros(d, d)) / N
    SB = sum(((m - g) * (m - g).T for m in means.values()), sympy.zeros(d, d)) / K
    SBp = SB.pinv()
    out = {"nc1": (SW * SBp).trace() / K, "nc1_tilde": SW.trace() / SB.trace(),
           "per_class": [(sum(((x - means[k]) * (x - means[k]).T for x in cls[k]), sympy.zeros(d, d)) / len(cls[k])
                          * SBp).trace() / K for k in range(K)]}
    Hc = sympy.Matrix.hstack(*[means[k] - g for k in range(K)])
    etf = (sympy.eye(K) - sympy.ones(K, K) / K) / sympy.sqrt(K - 1)
    G = Hc.T * Hc
    out["nc2"] = (G / G.norm() - etf).norm()
    if W is not None:
        M = sympy.Matrix(W) * Hc
        out["nc3"] = (M / M.norm() - etf).norm() if M.norm() != 0 else None  # undefined: W kills the means
    return out


@settings(REF, max_examples=max(4, REF.max_examples // 2))  # exact pseudo-inverses per example
@given(st.integers(1, 4), st.integers(2, 3), st.data())
def test_nc_metrics_against_exact_definitions(d, K, data):
    counts = [data.draw(st.integers(1, 3)) for _ in range(K)]
    scale = data.draw(st.sampled_from([1, 1000, sympy.Rational(1, 64)]))
    F, y = [], []
    for k, c in enumerate(counts):
        base = [data.draw(st.integers(-4, 4)) for _ in range(d)]
        collapsed = data.draw(st.booleans())
        for _ in range(c):
            F.append([scale * (b if collapsed else b + data.draw(st.integers(-2, 2))) for b in base])
            y.append(k)
    order = data.draw(st.permutations(range(len(F))))
    F, y = [F[i] for i in order], [y[i] for i in order]
    ref = ref_metrics(F, y, K)
    if ref["nc1_tilde"].has(sympy.zoo, sympy.nan) or sympy.Matrix(F).rank() == 0:
        return  # all class means equal: Sigma_B = 0 (the metrics' own degenerate case)
    Ff = np.array([[float(v) for v in row] for row in F])
    Wt = [[data.draw(st.integers(-3, 3)) for _ in range(d)] for _ in range(K)]
    m = NC.nc_metrics(Ff, K=K, labels=np.array(y), W=np.array(Wt, dtype=float))
    ref = ref_metrics(F, y, K, W=Wt)
    tol = lambda v: 1e-8 * (1 + abs(float(v)))  # noqa: E731
    for key in ("nc1", "nc1_tilde", "nc2"):
        assert abs(getattr(m, key) - float(ref[key])) <= tol(ref[key]), key
    if ref["nc3"] is not None:
        assert abs(m.nc3 - float(ref["nc3"])) <= tol(ref["nc3"])
    assert all(abs(a - float(b)) <= tol(b) for a, b in zip(m.nc1_per_class, ref["per_class"]))
    assert list(m.class_counts) == counts
    # the streaming accumulator, fed in random batches, gives the same numbers, with and without the per-class
    # scatter (its two routes of the second moment: per class, or one syrk of the whole batch)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(F)), max_size=3)))
    for per_class in (True, False):
        acc = NC.NCAccumulator(d, K, per_class=per_class)
        for a, b in zip([0] + cuts, cuts + [len(F)]):
            if b > a:  # (an empty batch's labels would be a float array)
                acc.update(Ff[a:b], np.array(y[a:b]))
        s = acc.result(W=np.array(Wt, dtype=float))
        assert isinstance(s, NC.NCMetrics)
        for key in ("nc1", "nc1_tilde", "nc2"):
            assert abs(getattr(s, key) - getattr(m, key)) <= tol(getattr(m, key)), (key, per_class)
        if per_class:
            assert all(abs(a - float(b)) <= tol(b) for a, b in zip(s.nc1_per_class, ref["per_class"]))
        else:
            assert acc.s2_class is None and np.isnan(s.nc1_per_class).all() and s.nc1_per_class.shape == (K,)


@REF
@given(st.integers(2, 9))
def test_etf_target_and_to_numpy(K):
    E = NC.etf_target(K)
    ref = (np.eye(K) - np.ones((K, K)) / K) / np.sqrt(K - 1)
    assert np.abs(E - ref).max() <= 1e-15 and abs(np.linalg.norm(E) - 1) <= 1e-14
    x = [[1, 2], [3, 4]]
    a = NC.to_numpy(x, "x", ndim=2)
    assert a.dtype == np.float64 and np.array_equal(a, np.array(x, dtype=float))
