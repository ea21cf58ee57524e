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
    """n = 30: the static model puts the exact route far below the sampler's pilot, so nothing is timed."""
    W = np.random.default_rng(14).normal(size=(4, 30))
    est = SL.loss_to_accuracy(W, 0.1, 3, "uniform", rtol=1e-3)
    assert est.method.startswith("exact:") and est.value == SL.exact_loss(W, 0.1, 3, "uniform")
    assert est.error <= 1e-3 * abs(est.value)
    assert est.model["exact"] * SL._MODEL_SLACK < est.model["rb_cv_sample"] * SL._RB_PILOT
    assert est.predicted == {} and est.reason.startswith("auto, by the static model (before sampling)")


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


COSTS_MESSAGE = ("Argument 'costs' must be None or a dict of CPU seconds (finite real numbers >= 0) keyed by some of "
                 "'exact', 'rb_cv_prepare', 'rb_cv_sample', not ")


@pytest.mark.parametrize("costs", [0.5, [("exact", 1.0)], "exact", {"gram": 1.0}, {1: 1.0}, {"exact": -1e-9},
                                   {"exact": float("nan")}, {"rb_cv_sample": float("inf")}, {"exact": True},
                                   {"exact": "1"}, {"exact": 1j}, {"exact": None}, {"exact": np.array([1.0])},
                                   {"exact": 1.0, "rb_cv": 2.0}])
@pytest.mark.parametrize("method", ["auto", "exact", "rb_cv"])
def test_bad_costs_are_refused_in_one_line_naming_the_parameter_and_its_range(costs, method):
    """Every method refuses a bad ``costs`` before any work: one line, the parameter, its allowed range, the value."""
    with pytest.raises(VerifyInputError) as exc:
        SL.loss_to_accuracy(np.eye(2), 0.1, 3, method=method, costs=costs)
    msg = str(exc.value)
    assert msg.startswith(COSTS_MESSAGE) and "\n" not in msg and isinstance(exc.value, ValueError)


def test_good_costs_on_their_bounds_are_accepted():
    """Zero seconds, integers, numpy floats, a subset of the keys and an empty dict are costs."""
    W = np.random.default_rng(14).normal(size=(4, 30))
    for costs in ({}, {"exact": 0}, {"exact": np.float64(2.5), "rb_cv_sample": 0.0}, None):
        assert SL.loss_to_accuracy(W, 0.1, 3, rtol=0.5, costs=costs, method="exact").method == "exact:gram"


# ---- the route choice, from injected costs (nothing here is timed: the clock is a counter) -------------------------

W_SPREAD = np.random.default_rng(15).normal(size=(6, 3000)) / np.sqrt(6)   # p = 0.01, rtol = 0.02: N = 117 (seed 2)


@pytest.fixture
def no_timing(monkeypatch):
    """The CPU clock replaced by a counter (each reading 1 ms later), the exact route's measurement by a failure:
    a decision that reads either shows."""
    ticks = iter(range(10**9))
    monkeypatch.setattr(SL, "_clock", lambda: next(ticks) * 1e-3)

    def measured(*a, **k):
        raise AssertionError("the exact route was timed")
    monkeypatch.setattr(SL, "_exact_seconds", measured)


def test_auto_takes_the_sampler_where_the_given_costs_make_it_cheaper(no_timing):
    """Costs given: the sampler's preparation and pilot (0.1 + 16 x 0.01 s, x 1.25) below the exact route's 10 s, and
    every later round's too, so the sampler runs to rtol; its value, error and sample count are the forced sampler's
    with the same seed (the same draws: the pilot's first samples drawn one by one change nothing), and the record
    gives the costs back."""
    costs = {"exact": 10.0, "rb_cv_prepare": 0.1, "rb_cv_sample": 0.01}
    est = SL.loss_to_accuracy(W_SPREAD, 0.01, 3, rtol=0.02, seed=2, costs=costs)
    forced = SL.loss_to_accuracy(W_SPREAD, 0.01, 3, rtol=0.02, seed=2, method="rb_cv")
    assert est.method == "rb_cv" and (est.value, est.error, est.samples) == (forced.value, forced.error, forced.samples)
    assert est.samples == 117 and est.predicted == costs
    assert est.reason.startswith("auto, by costs given (before sampling): the sampler's preparation and 16 samples "
                                 "0.26 s x margin 1.25 < exact:")
    assert "(after 16 samples, 165 asked): the sampler's 149 further samples 1.49 s x margin 1.25 < exact" in est.reason


def test_auto_takes_the_exact_route_where_the_given_costs_make_it_cheaper(no_timing, monkeypatch):
    """Costs given: the sampler's preparation and pilot (16 x 0.01 s, x 1.25 = 0.2 s) above the exact route's
    0.1 s: the exact route, nothing sampled, not even W's preparation."""
    def never(*a, **k):
        raise AssertionError("the sampler ran")
    monkeypatch.setattr(SL, "_rb_prepare", never)
    monkeypatch.setattr(SL, "_rb_draw", never)
    costs = {"exact": 0.1, "rb_cv_prepare": 0.0, "rb_cv_sample": 0.01}
    est = SL.loss_to_accuracy(W_SPREAD, 0.01, 3, rtol=0.02, seed=2, costs=costs)
    assert est.method == f"exact:{PS.choose_route('auto', 6, 3000, 3, tensor=True)}" and est.samples == 0
    assert est.value == SL.exact_loss(W_SPREAD, 0.01, 3) and est.predicted == costs
    assert est.reason.startswith("auto, by costs given (before sampling): the sampler's preparation and 16 samples "
                                 "0.16 s x margin 1.25 >= exact:")


@pytest.mark.parametrize("exact,route", [(20.0, "exact"), (20.000001, "rb_cv")])
def test_a_near_tie_goes_to_the_exact_route(no_timing, exact, route):
    """At the margin's edge: 16 samples of 1 s (nothing to prepare) times 1.25 is 20 s; an exact route of 20 s wins,
    one of a microsecond more loses (the comparison is strict)."""
    est = SL.loss_to_accuracy(W_SPREAD, 0.01, 3, rtol=0.5, seed=2,
                              costs={"exact": exact, "rb_cv_prepare": 0.0, "rb_cv_sample": 1.0})
    assert est.method.split(":")[0] == route


def test_the_sampler_gives_way_when_its_spread_asks_for_more_than_the_exact_route_costs(no_timing):
    """Costs given: the pilot (16 x 0.01 s, x 1.25 = 0.2 s) is cheaper than the exact route's 1 s, but its spread
    asks for 165 samples: the 149 further ones (1.49 s, x 1.25) cost more, so the exact route is run after the
    pilot (16 samples drawn, recorded)."""
    costs = {"exact": 1.0, "rb_cv_prepare": 0.0, "rb_cv_sample": 0.01}
    est = SL.loss_to_accuracy(W_SPREAD, 0.01, 3, rtol=0.02, seed=2, costs=costs)
    assert est.method.startswith("exact:") and est.samples == 16 and est.value == SL.exact_loss(W_SPREAD, 0.01, 3)
    assert est.reason.endswith("(after 16 samples, 165 asked): the sampler's 149 further samples 1.49 s x margin "
                               "1.25 >= exact:" + est.method.split(":")[1] + " 1 s")


@pytest.mark.parametrize("exact_s,route,drawn", [(0.1, "rb_cv", 117), (0.01, "exact", 2)])
def test_measured_costs_decide_after_the_preparation_and_the_first_samples(no_timing, monkeypatch, exact_s, route,
                                                                          drawn):
    """Where the static model leaves it open (its slack made infinite here), the exact route's cost is measured
    (replaced: ``exact_s``) and the sampler's by its own preparation and first two samples (each 1 ms on the counter
    clock): the rest of the pilot, 14 x 1 ms x 1.25 = 17.5 ms, is drawn where the exact route costs more (then the
    sampler runs to rtol, its value the forced sampler's), else the exact route is run after 2 samples."""
    monkeypatch.setattr(SL, "_MODEL_SLACK", float("inf"))
    monkeypatch.setattr(SL, "_exact_seconds", lambda *a: (exact_s, None))
    est = SL.loss_to_accuracy(W_SPREAD, 0.01, 3, rtol=0.02, seed=2)
    assert est.method.split(":")[0] == route and est.samples == drawn
    assert "not by the static model (before sampling)" in est.reason
    assert ("measured on this host (after the preparation and 2 samples): the sampler's 14 further samples 0.014 s "
            f"x margin 1.25 {'<' if route == 'rb_cv' else '>='} exact:") in est.reason
    assert est.predicted["rb_cv_prepare"] == pytest.approx(1e-3) and est.predicted["exact"] == exact_s
    if route == "rb_cv":
        forced = SL.loss_to_accuracy(W_SPREAD, 0.01, 3, rtol=0.02, seed=2, method="rb_cv")
        assert (est.value, est.error, est.samples) == (forced.value, forced.error, forced.samples)
    else:
        assert est.value == SL.exact_loss(W_SPREAD, 0.01, 3) and est.predicted["rb_cv_sample"] == pytest.approx(1e-3)


@pytest.mark.parametrize("exact_s,route,drawn", [(1.0, "rb_cv", 117), (1e-3, "exact", 16)])
def test_the_exact_route_is_timed_only_when_a_later_round_leaves_the_model_undecided(no_timing, monkeypatch, exact_s,
                                                                                    route, drawn):
    """The static model takes the sampler before sampling (scripted verdicts) and is undecided after the pilot:
    only then is the exact route timed (replaced: ``exact_s``), against the pilot's mean time per sample (the
    counter clock: 1 ms for the second probe, 1 ms for the other 14; the first left out): 149 x 2/15 ms x 1.25 =
    25 ms goes on below 1 s (the forced sampler's value) and gives way above 1 ms (the exact route after 16)."""
    verdicts = iter(["rb_cv", None, None, None, None])
    monkeypatch.setattr(SL, "_model_verdict", lambda s, e: next(verdicts))
    timed = []
    monkeypatch.setattr(SL, "_exact_seconds", lambda *a: timed.append(1) or (exact_s, None))
    est = SL.loss_to_accuracy(W_SPREAD, 0.01, 3, rtol=0.02, seed=2)
    assert est.method.split(":")[0] == route and est.samples == drawn and timed == [1]
    assert est.reason.split("; ")[0].startswith("auto, by the static model (before sampling)")
    assert "not by the static model (after 16 samples, 165 asked)" in est.reason
    assert f"the sampler's 149 further samples {149 * 2e-3 / 15:.3g} s x margin 1.25" in est.reason
    if route == "rb_cv":
        forced = SL.loss_to_accuracy(W_SPREAD, 0.01, 3, rtol=0.02, seed=2, method="rb_cv")
        assert (est.value, est.error) == (forced.value, forced.error)
    else:
        assert est.value == SL.exact_loss(W_SPREAD, 0.01, 3)


def test_a_small_w_timed_whole_keeps_its_value(monkeypatch):
    """Where the exact route's slice would be half of W or more, timing it runs the whole route: its value is the
    result's, the route not run twice (the counter clock; the model's slack infinite so that the costs are timed)."""
    ticks = iter(range(10**9))
    monkeypatch.setattr(SL, "_clock", lambda: next(ticks) * 1e-3)
    monkeypatch.setattr(SL, "_MODEL_SLACK", float("inf"))
    calls = []
    real = SL.exact_loss
    monkeypatch.setattr(SL, "exact_loss", lambda W, *a, **k: calls.append(W.shape[1]) or real(W, *a, **k))
    W = np.random.default_rng(14).normal(size=(4, 300))
    est = SL.loss_to_accuracy(W, 0.1, 3, rtol=0.5, seed=2)
    assert est.method.startswith("exact:") and est.samples == 2 and calls == [256, 300]
    assert est.value == real(W, 0.1, 3) and est.predicted["exact"] == pytest.approx(1e-3)


def test_the_static_model_decides_alone_only_beyond_its_slack():
    """``_model_verdict``: a route more than 8x below the other wins by the model; within 8x either way, None."""
    assert SL._model_verdict(1.0, 8.0 + 1e-9) == "rb_cv" and SL._model_verdict(8.0 + 1e-9, 1.0) == "exact"
    assert SL._model_verdict(1.0, 8.0) is None and SL._model_verdict(8.0, 1.0) is None
    assert SL._model_verdict(1.0, 1.0) is None


def test_the_exact_route_is_extrapolated_from_its_fixed_cost_and_a_slice():
    """``_extrapolate``: 1 ms fixed at model cost 10, 11 ms at 110 give 1 + 0.1 x (1010 - 10) ms = 101 ms at 1010;
    a slice timed at or below the fixed call (noise) still costs at least half its own rate."""
    assert SL._extrapolate(1e-3, 11e-3, 10.0, 110.0, 1010.0) == pytest.approx(0.101)
    assert SL._extrapolate(2e-3, 1e-3, 10.0, 110.0, 1010.0) == pytest.approx(2e-3 + 0.5 * 1e-3 / 110 * 1000)
    assert SL._extrapolate(1e-3, 4e-3, 10.0, 10.0, 100.0) == pytest.approx(0.04)


@pytest.mark.parametrize("d,n,m", [(10, 10**6, 3), (4, 5000, 3), (6, 3000, 5)])
def test_the_slice_is_the_fewest_columns_at_its_share_of_the_cost(d, n, m):
    route = PS.choose_route("auto", d, n, m, tensor=True)
    k = SL._slice_columns(d, n, m, route)

    def cost(j):
        return PS.route_costs(d, j, m)[route]
    assert 1 <= k <= n and cost(k) >= cost(n) / 64 and (k == 1 or cost(k - 1) < cost(n) / 64)


def test_the_sampler_drawn_in_parts_is_the_sampler_drawn_at_once():
    """Runs of 1, 1 and 14 samples from one generator are the draws of one run of 16 (the pilot's probes)."""
    W = 0.8 * np.random.default_rng(22).normal(size=(4, 40))
    dist, K = SL.get_distribution("uniform"), 40
    with SL.single_blas_thread():
        prep = SL._rb_prepare(W, 3)
    rng = np.random.default_rng(9)
    parts = [SL._rb_draw(W, prep, 0.15, 3, dist, k, rng, K) for k in (1, 1, 14)]
    ys, hs = SL.rb_loss_samples(W, 0.15, 3, "uniform", samples=16, seed=9)
    assert np.array_equal(np.concatenate([y for y, _ in parts]), ys)
    assert np.array_equal(np.concatenate([h for _, h in parts]), hs)


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
    confidence as given, no host costs (nothing timed) and the model's costs: the exact route's from route_costs and
    the sampler's preparation and per-sample costs from their documented model (at two scales of W, so a relative
    and an absolute error differ)."""
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
        assert est.model == {"exact": PS.route_costs(d, n, m)[route],
                             "rb_cv_prepare": SL._RB_PREPARE_ENTRY_FLOPS * d * n,
                             "rb_cv_sample": SL._RB_ENTRY_FLOPS * (m + 3) / 6 * (pn * pn + K * pn)
                             + SL._RB_SAMPLE_OVERHEAD_FLOPS}
        assert est.predicted == {} and est.reason == "method='exact'"     # forced: nothing timed


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
    assert set(est.predicted) == {"rb_cv_prepare", "rb_cv_sample"} and est.reason == "method='rb_cv'"


@pytest.mark.parametrize("n,whole", [(1024, True), (1025, True), (1026, False), (1536, False)])
def test_exact_route_is_timed_whole_exactly_when_its_slice_is_half_of_W(n, whole):
    """The exact route's cost is measured on a slice of W's columns, or on W itself where the slice would be half of
    W or more (then its value is kept): at n = 1024 and 1025 the slice (512 columns, twice the 256-column warm-up) is
    half of W, at 1026 it is below half. Both sides of the boundary, each with its value: W's loss or None."""
    W = np.random.default_rng(n).normal(size=(3, n)) * 0.7
    assert SL._EXACT_TINY == 256 and SL._slice_columns(3, n, 3, "gram") < 512
    seconds, value = SL._exact_seconds(W, 0.2, 3, SL.get_distribution("gaussian"), "gram")
    assert seconds > 0
    if whole:
        assert value == SL.exact_loss(W, 0.2, 3, "gaussian", route="gram")
    else:
        assert value is None


@pytest.mark.parametrize("given, source", [({"exact": 1.0, "rb_cv_sample": 1e-3}, "given"),
                                           ({"exact": 1.0}, "given and measured")])
def test_each_decision_says_whether_its_costs_were_given_or_measured(no_timing, monkeypatch, given, source):
    """The decision after the pilot's first samples weighs the sampler's cost per sample against the exact route's:
    its reason says "given" where both were passed in ``costs``, "given and measured" where one was (the third,
    "measured on this host", where neither: above); the preparation's cost is measured in both cases, so the static
    model (its slack made infinite) leaves the first decision open."""
    monkeypatch.setattr(SL, "_MODEL_SLACK", float("inf"))
    monkeypatch.setattr(SL, "_exact_seconds", lambda *a: pytest.fail("the exact route's cost was given"))
    est = SL.loss_to_accuracy(W_SPREAD, 0.01, 3, rtol=0.02, seed=2, costs=given)
    assert est.method == "rb_cv"
    assert f"auto, by costs {source} (after the preparation and 2 samples): the sampler's 14 further samples " in \
        est.reason
    assert est.predicted["exact"] == 1.0 and est.predicted["rb_cv_prepare"] == pytest.approx(1e-3)
