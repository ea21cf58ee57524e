"""The loss to a requested accuracy (verify.numeric.superposition_loss.loss_to_accuracy): the Rao-Blackwellised,
control-variate sampler's intervals cover the exact loss at their stated rate (two-sided binomial bounds: neither
too narrow nor too wide), for several laws; the choice between the sampler and the exact route; determinism."""

import numpy as np
import pytest
from scipy.stats import binom
from scipy.stats import t as student_t

import verify.numeric.power_sums as PS

import verify.numeric.superposition_loss as SL
from verify import VerifyInputError

SEEDS = 200
CONF = 0.95


def _coverage_bounds(n=SEEDS, rate=CONF, tail=0.002):
    """Counts of covering intervals outside [lo, hi] have probability < 2 x 0.002 at the true rate (binomial)."""
    return int(binom.ppf(tail, n, rate)), int(binom.isf(tail, n, rate))


@pytest.mark.parametrize("mu,m,p", [("gaussian", 3, 0.1),
                                    pytest.param("uniform", 3, 0.2, marks=pytest.mark.slow),
                                    pytest.param("laplace", 5, 0.1, marks=pytest.mark.slow)])
def test_rb_intervals_cover_the_exact_loss_at_their_rate(mu, m, p):
    """200 seeds, 300 samples each (d = 4, n = 60, scale 0.6; the cross-fitted control variates): the 95% intervals
    hold the exact loss in a count within the binomial bounds [lo, hi] = [180, 198] of 200 draws at rate 0.95
    (P(outside) < 0.4% for a correct sampler; intervals 30% too narrow cover ~86%, too wide ~99.5%). The
    per-sample values are skewed (skewness -2 to -3 with six features in a support), so the t-interval's rate is
    reached only with a few hundred samples: measured 193 (gaussian) and 189 (uniform) of 200 at N = 300, 176-182
    at N = 40. The count is fixed by the seeds (deterministic), so the check cannot flicker."""
    W = 0.6 * np.random.default_rng(11).normal(size=(4, 60))
    exact = SL.exact_loss(W, p, m, mu)
    hits = 0
    for seed in range(SEEDS):
        est = SL.loss_to_accuracy(W, p, m, mu, rtol=0.5, seed=seed, confidence=CONF, method="rb_cv", samples=300)
        assert est.method == "rb_cv" and est.samples == 300 and est.error > 0
        hits += abs(est.value - exact) <= est.error
    lo, hi = _coverage_bounds()
    assert lo <= hits <= hi, (hits, lo, hi)


def test_rb_samples_are_unbiased_and_the_controls_mean_zero():
    """Over 3000 samples the raw mean of y is the exact loss within 4 standard errors, and every control variate's
    mean is zero within 4 of its standard errors (a wrong known mean would show here)."""
    W = 0.6 * np.random.default_rng(12).normal(size=(3, 40))
    exact = SL.exact_loss(W, 0.15, 3, "rademacher")
    ys, hs = SL.rb_loss_samples(W, 0.15, 3, "rademacher", samples=3000, seed=5, outputs=16)
    assert abs(ys.mean() - exact) <= 4 * ys.std() / np.sqrt(len(ys))
    for j in range(hs.shape[1]):
        assert abs(hs[:, j].mean()) <= 4 * hs[:, j].std() / np.sqrt(len(ys)) + 1e-12 * np.abs(hs[:, j]).max(), j


def test_control_variates_cut_the_spread():
    """At d = 10, n = 20000, p = 0.005 the cross-fitted control variates cut the standard error at least threefold."""
    W = np.random.default_rng(13).normal(size=(10, 20000)) / np.sqrt(10)
    ys, hs = SL.rb_loss_samples(W, 0.005, 3, "gaussian", samples=60, seed=1)
    raw = SL._cv_estimate(ys, hs[:, :0])[1]
    assert SL._cv_estimate(ys, hs)[1] * 3 <= raw


def test_auto_takes_the_exact_route_where_it_is_cheaper_and_meets_rtol():
    W = np.random.default_rng(14).normal(size=(4, 30))
    est = SL.loss_to_accuracy(W, 0.1, 3, "uniform", rtol=1e-3)
    assert est.method.startswith("exact:") and est.value == SL.exact_loss(W, 0.1, 3, "uniform")
    assert est.error <= 1e-3 * abs(est.value)
    assert est.predicted["exact"] < est.predicted["rb_cv_sample"] * SL._RB_PILOT


def test_rb_route_meets_the_requested_accuracy():
    """Forced sampler, samples chosen by the pilot: the stated half-width is at most rtol |value| and the exact loss
    is within it (seeded: one fixed draw)."""
    W = np.random.default_rng(15).normal(size=(6, 3000)) / np.sqrt(6)
    exact = SL.exact_loss(W, 0.01, 3)
    est = SL.loss_to_accuracy(W, 0.01, 3, rtol=0.02, seed=2, method="rb_cv")
    assert est.method == "rb_cv" and est.samples >= SL._RB_PILOT
    assert est.error <= 0.02 * abs(est.value) and abs(est.value - exact) <= est.error


def test_deterministic():
    W = np.random.default_rng(16).normal(size=(4, 50))
    a = SL.loss_to_accuracy(W, 0.1, 3, rtol=0.1, seed=7, method="rb_cv")
    b = SL.loss_to_accuracy(W, 0.1, 3, rtol=0.1, seed=7, method="rb_cv")
    assert (a.value, a.error, a.samples) == (b.value, b.error, b.samples)
    c = SL.loss_to_accuracy(W, 0.1, 3, rtol=0.1, seed=8, method="rb_cv")
    assert c.value != a.value


@pytest.mark.parametrize("kw,name", [({"rtol": 0}, "rtol"), ({"rtol": 1.5}, "rtol"), ({"confidence": 1}, "confidence"),
                                     ({"method": "mc"}, "method"), ({"samples": 2, "method": "rb_cv"}, "samples")])
def test_bad_input(kw, name):
    with pytest.raises(VerifyInputError, match=f"'{name}'"):
        SL.loss_to_accuracy(np.eye(2), 0.1, 3, **kw)


def _cv_reference(ys, hs):
    """``_cv_estimate`` written from its docstring, by other means: q is the largest count of controls with
    5 q + 2 <= N // 2 (at most the columns given), found by counting up; each fold's coefficients by the normal
    equations of [1, H] on the other fold (no rescaling of the columns: the residuals do not depend on it); N = 1
    has no spread, so an infinite error on 1 degree of freedom."""
    N = len(ys)
    q = 0
    while q < hs.shape[1] and 5 * (q + 1) + 2 <= N // 2:
        q += 1
    if q == 0:
        return float(np.mean(ys)), (float(np.std(ys, ddof=1)) / np.sqrt(N) if N > 1 else float("inf")), max(1, N - 1)
    z = np.empty(N)
    for use in (np.arange(0, N, 2), np.arange(1, N, 2)):
        fit = np.setdiff1d(np.arange(N), use)
        X = np.column_stack([np.ones(len(fit)), hs[fit, :q]])
        beta = np.linalg.solve(X.T @ X, X.T @ ys[fit])
        z[use] = ys[use] - hs[use, :q] @ beta[1:]
    return float(z.mean()), float(z.std(ddof=1) / np.sqrt(N)), N - 1


# the sizes around the first control's threshold (N // 2 - 2 >= 5: N = 14), the second's (N = 24) and the edges
@pytest.mark.parametrize("N", [1, 2, 3, 13, 14, 15, 23, 24, 25, 60])
@pytest.mark.parametrize("cols", [0, 1, 3])
def test_cv_estimate_against_its_definition_at_every_size_boundary(N, cols):
    """Values, standard errors and degrees of freedom of the control-variate estimate against a plain
    reference at sample counts 1, 2, 3, either side of each threshold where a control is added, and with fewer
    columns than the count allows; y and the controls on non-unit, unequal scales (the controls correlated with y,
    so a control that is dropped or mis-fitted moves the value)."""
    rng = np.random.default_rng(100 * N + cols)
    hs = rng.normal(size=(N, cols)) * np.array([1e-3, 40.0, 2.5])[:cols]
    ys = 7.0 + 1e3 * rng.normal(size=N) + (hs / np.array([1e-3, 40.0, 2.5])[:cols]).sum(axis=1) * 900.0
    got, want = SL._cv_estimate(ys, hs), _cv_reference(ys, hs)
    assert got[2] == want[2] and isinstance(got[2], int)
    assert got[0] == pytest.approx(want[0], rel=1e-9, abs=1e-9)
    if N == 1:
        assert got[1] == float("inf")
    else:
        assert got[1] == pytest.approx(want[1], rel=1e-8)


def test_every_field_of_the_exact_route():
    """``method="exact"``: every field of the result against its reference - the value is exact_loss's on the
    route the costs choose, the error the documented round-off allowance 1e-12 |value|, no samples, the
    confidence as given, and the predicted costs: the exact route's from route_costs and the sampler's per-sample
    cost from its documented model (at two scales of W, so a relative and an absolute error differ)."""
    for scale in (1.0, 37.0):
        W = scale * np.random.default_rng(21).normal(size=(3, 25))
        d, n, m, p = 3, 25, 3, 0.2
        est = SL.loss_to_accuracy(W, p, m, "laplace", rtol=0.05, confidence=0.8, method="exact")
        route = PS.choose_route("auto", d, n, m, tensor=True)
        assert est.method == f"exact:{route}"
        assert est.value == SL.exact_loss(W, p, m, "laplace", route=route)
        assert est.error == 1e-12 * abs(est.value) and est.error > 0
        assert est.samples == 0 and est.confidence == 0.8
        K, pn = min(SL._RB_OUTPUTS, n), p * n
        assert est.predicted == {"exact": PS.route_costs(d, n, m)[route],
                                 "rb_cv_sample": SL._RB_ENTRY_FLOPS * (m + 3) / 6 * (pn * pn + K * pn)
                                 + SL._RB_SAMPLE_OVERHEAD_FLOPS}


@pytest.mark.parametrize("samples,conf", [(4, 0.95), (30, 0.5), (61, 0.99)])
def test_every_field_of_the_sampler_with_fixed_samples(samples, conf):
    """``method="rb_cv"`` with N fixed (4 is the smallest allowed; 30 and 61 add controls): the value and error are
    the control-variate estimate of the same seeded samples and the Student t half-width at its degrees of freedom,
    the samples N, the confidence as given, and no further prediction (no round of sampling)."""
    W = 0.8 * np.random.default_rng(22).normal(size=(4, 40))
    est = SL.loss_to_accuracy(W, 0.15, 3, "uniform", rtol=0.3, seed=9, confidence=conf, method="rb_cv",
                              samples=samples)
    ys, hs = SL.rb_loss_samples(W, 0.15, 3, "uniform", samples=samples, seed=9)
    value, se, dof = _cv_reference(ys, hs)
    assert est.method == "rb_cv" and est.samples == samples and est.confidence == conf
    assert est.value == pytest.approx(value, rel=1e-9)
    assert est.error == pytest.approx(float(student_t.ppf(0.5 + conf / 2, dof)) * se, rel=1e-8)
    assert set(est.predicted) == {"exact", "rb_cv_sample"}
