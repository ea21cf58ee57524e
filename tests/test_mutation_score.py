"""benchmarks/mutation_score.py: the two-phase estimate of a partly judged sample."""

from pathlib import Path

import numpy as np
import pytest
from scipy.stats import beta, binomtest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def score(benchmark_script):
    return benchmark_script("mutation_score")


def test_a_fully_judged_second_phase_is_the_plain_proportion(score):
    e = score.two_phase_estimate(k_a=170, n_a=226, n_b=174, k_b=120, m_b=174)
    assert e["estimate"] == pytest.approx(290 / 400)
    # no subsampling left: the variance is the first phase's, p(1-p)/n
    half = 1.959963984540054 * np.sqrt(e["estimate"] * (1 - e["estimate"]) / 400)
    assert (e["low"], e["high"]) == pytest.approx((e["estimate"] - half, e["estimate"] + half))
    assert e["bounds"] == pytest.approx((290 / 400, 290 / 400))


def test_the_interval_covers_the_population_score_at_its_level(score):
    """Simulation of the design it is used for: a population with a score of 0.7, a sample of 400, the mutants
    that die early judged whole (phase A, kill rate 0.95) and a random subsample of 60 of the others (phase B,
    kill rate 0.45); the 95% interval must cover the population's score in 93-97% of 2000 draws (the Monte Carlo
    error of a 95% coverage over 2000 draws is 0.5%: the band is 4 standard errors wide)."""
    est = score.two_phase_estimate
    rng = np.random.default_rng(7)
    share_a, pa, pb = 0.5, 0.95, 0.45
    truth = share_a * pa + (1 - share_a) * pb
    hits = 0
    for _ in range(2000):
        in_a = rng.random(400) < share_a
        killed = np.where(in_a, rng.random(400) < pa, rng.random(400) < pb)
        b = np.flatnonzero(~in_a)
        sub = rng.choice(b, size=60, replace=False)
        e = est(int(killed[in_a].sum()), int(in_a.sum()), len(b), int(killed[sub].sum()), 60)
        hits += e["low"] <= truth <= e["high"]
    assert 0.93 <= hits / 2000 <= 0.97, hits / 2000


def test_too_small_a_subsample_is_refused_by_name(score):
    with pytest.raises(ValueError, match="m_b"):
        score.two_phase_estimate(1, 2, 3, 1, 1)


def test_the_saved_progress_is_refused_when_corrupt_or_foreign(tmp_path, score):
    """The committed copy of a run's progress is what a new sitting resumes from: a file that is not one is
    refused by name (never trusted, never overwritten)."""
    mod = score
    assert mod.load_saved(tmp_path / "absent.json") is None
    bad = tmp_path / "p.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="--progress"):
        mod.load_saved(bad)
    bad.write_text('{"first": {}}')
    with pytest.raises(ValueError, match="--progress"):
        mod.load_saved(bad)
    good = {"engine": mod.ENGINE, "sample": 3, "seed": 1, "commit": "c", "first": {"m": "killed"}, "names": ["m"]}
    bad.write_text(__import__("json").dumps(good))
    assert mod.load_saved(bad) == good


def test_save_writes_the_work_copy_and_the_committed_copy_whole(tmp_path, monkeypatch, score):
    mod = score
    extra = tmp_path / "saved.json"
    monkeypatch.setattr(mod, "SAVED", [extra])
    mod._save(tmp_path / "progress.json", {"first": {"b": "survived", "a": "killed"}})
    assert (tmp_path / "progress.json").read_text() == extra.read_text()
    assert __import__("json").loads(extra.read_text()) == {"first": {"a": "killed", "b": "survived"}}


def test_an_unknown_commit_is_refused_by_name(score):
    with pytest.raises(ValueError, match="--commit"):
        score.resolve_commit("no-such-revision-xyz")
    head = score.resolve_commit("HEAD")
    assert len(head) == 40


def test_the_two_phase_paragraph_of_a_union_only_run_counts_no_tests_in_full(score):
    """A run judged in union mode from the start: the 'no tests' mutants (no run needed) are phase A, the
    rest a random subsample; an edit that could not be rebuilt is in neither."""
    mod = score
    sample = [f"m{i}" for i in range(10)]
    first = {"m0": "no tests", "m1": "error", "m2": "killed", "m3": "survived", "m4": "killed"}
    detail = {f"first:{n}": {"mode": "union"} for n in ("m2", "m3", "m4")}
    text = mod.two_phase({"first": first, "detail": detail}, sample)
    e = mod.two_phase_estimate(0, 1, 8, 2, 3)
    assert f"**{e['estimate']:.1%}**" in text and "the 1 mutants judged in full" in text
    assert "the other 8, 3 judged in union mode, 2 killed" in text


def test_the_per_module_table_after_the_fixes_counts_first_pass_and_rerun_kills(score):
    """The report's second table: per module, killed in the first pass or in the re-run of the gaps, over the judged
    mutants, with the Wilson interval of that count; an unjudged ('error') mutant is left out, as in the first."""
    population = {"verify/a.py": ["a1", "a2", "a3"], "verify/b.py": ["b1", "b2"]}
    sample = ["a1", "a2", "a3", "b1", "b2"]
    progress = {"commit": "0" * 40, "seed": 1, "sample": 5, "names": sample,
                "first": {"a1": "killed", "a2": "survived", "a3": "survived", "b1": "survived", "b2": "error"},
                "rerun": {"a2": "killed", "a3": "survived", "b1": "killed"}}
    text = score.report(progress, sample, population, {}, True)
    table = text.split("Per module after the gap fixes")[1].split("## Survivors")[0]
    wa, ca = score._intervals(2, 3)
    wb, cb = score._intervals(1, 1)
    wo, co = score._intervals(3, 4)
    assert f"| `verify/a.py` | 3 | 2 | 66.7% | {wa} | {ca} |" in table
    assert f"| `verify/b.py` | 1 | 1 | 100.0% | {wb} | {cb} |" in table
    assert f"| **overall** | 4 | 3 | **75.0%** | {wo} | {co} |" in table


def test_the_per_module_minimum_raises_small_strata_and_keeps_the_proportional_shares(score):
    """Largest remainders of 10 over sizes 100/3/10 give 9/0/1; a minimum of 4 raises b to its whole 3 and c to
    4, and leaves a's share; 0 is the old allocation (the same draw as the first sittings)."""
    pop = {"a": [f"a{i}" for i in range(100)], "b": ["b0", "b1", "b2"], "c": [f"c{i}" for i in range(10)]}
    assert score.allocation(pop, 10) == {"a": 9, "b": 0, "c": 1}
    assert score.allocation(pop, 10, 4) == {"a": 9, "b": 3, "c": 4}
    drawn = score.stratified_sample(pop, 10, 3, 4)
    assert len(drawn) == 16 and set(pop["b"]) <= set(drawn) and len(set(drawn)) == 16
    assert score.stratified_sample(pop, 10, 3) == score.stratified_sample(pop, 10, 3, 0)
    with pytest.raises(ValueError, match="--per-module-min"):
        score.allocation(pop, 10, -1)


def test_the_stratified_estimate_weights_by_stratum_size_and_covers_at_its_level(score):
    """The estimate is sum_h N_h/N k_h/n_h (a small, over-sampled stratum does not pull it); with one stratum it is
    the Clopper-Pearson interval; and over 1500 draws of a design like the sitting's (a large stratum at 0.92, a
    small over-sampled one at 0.5, a tiny new-code one at 0.7) the 95% interval holds the population's score in
    at least 93% of them (the Monte Carlo error at 1500 draws is 0.6%)."""
    e = score.stratified_estimate([(900, 10, 9), (100, 10, 1)])
    assert e["estimate"] == pytest.approx(0.9 * 0.9 + 0.1 * 0.1)
    # one stratum: the unbiased variance p(1-p)(1-f)/(n-1) gives the effective size (n-1)/(1-f), and the
    # interval is Clopper-Pearson's at that size (beta quantiles at a fractional count), a little wider than at n
    one = score.stratified_estimate([(10_000, 40, 30)])
    n_eff = 39 / (1 - 40 / 10_000)
    assert one["n_eff"] == pytest.approx(n_eff, rel=1e-12)
    x = 0.75 * n_eff
    assert one["low"] == pytest.approx(float(beta.ppf(0.025, x, n_eff - x + 1)), rel=1e-12)
    assert one["high"] == pytest.approx(float(beta.ppf(0.975, x + 1, n_eff - x)), rel=1e-12)
    ci = binomtest(30, 40).proportion_ci(0.95, "exact")
    assert one["low"] < ci.low < ci.high < one["high"]
    assert score.stratified_estimate([(50, 5, 5), (50, 5, 5)])["high"] == 1.0
    assert score.stratified_estimate([(50, 0, 0)]) is None
    rng = np.random.default_rng(3)
    sizes, rates, draws = (18_000, 1_500, 400), (0.92, 0.5, 0.7), (60, 8, 8)
    truth = sum(N * r for N, r in zip(sizes, rates)) / sum(sizes)
    hits = 0
    for _ in range(1500):
        rows = [(N, n, int(rng.hypergeometric(int(N * r), N - int(N * r), n))) for N, r, n in zip(sizes, rates, draws)]
        e = score.stratified_estimate(rows)
        hits += e["low"] <= truth <= e["high"]
    assert hits / 1500 >= 0.93, hits / 1500


def test_the_tests_page_gives_the_score_without_the_equivalent_survivors(score):
    """Survivors triaged equivalent leave the denominator of the second score (each stratum's size scaled by its
    share of the others); the lowest module is named with its counts; gaps and kills stay where they are."""
    population = {"verify/a.py": [f"a{i}" for i in range(100)], "verify/b.py": [f"b{i}" for i in range(300)]}
    strata = dict(population)
    sample = [f"a{i}" for i in range(10)] + [f"b{i}" for i in range(10)]
    tests = {n: "killed" for n in sample}
    tests.update({"a0": "survived", "a1": "survived", "b0": "survived"})
    triage = {"a0": {"class": "equivalent", "reason": "x"}, "a1": {"class": "gap (a)", "reason": "y"},
              "b0": {"class": "equivalent", "reason": "z"}}
    progress = {"tests": tests, "commit": "0" * 40, "seed": 1, "sample": 20}
    page = score.tests_only_report(progress, sample, population, strata, triage, {"per_module_min": 5})
    raw = score.stratified_estimate([(100, 10, 8), (300, 10, 9)])
    adj = score.stratified_estimate([(90, 9, 8), (270, 9, 9)])
    assert f"Weighted score {raw['estimate']:.1%}" in page
    assert (f"Excluding the 2 survivors triaged equivalent (no test can kill them; the usual mutation score leaves "
            f"them out, each stratum's size scaled by its share of the others): weighted **{adj['estimate']:.1%}**, "
            f"95% CI [{adj['low']:.1%}, {adj['high']:.1%}]; lowest module `verify/a.py` 88.9% (8/9).") in page
    del triage["a0"], triage["b0"]
    assert "Excluding" not in score.tests_only_report(progress, sample, population, strata, triage, {})
