"""benchmarks/mutation_score.py: the two-phase estimate of a partly judged sample."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _score():
    spec = importlib.util.spec_from_file_location("mutation_score", ROOT / "benchmarks" / "mutation_score.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_fully_judged_second_phase_is_the_plain_proportion():
    e = _score().two_phase_estimate(k_a=170, n_a=226, n_b=174, k_b=120, m_b=174)
    assert e["estimate"] == pytest.approx(290 / 400)
    # no subsampling left: the variance is the first phase's, p(1-p)/n
    half = 1.959963984540054 * np.sqrt(e["estimate"] * (1 - e["estimate"]) / 400)
    assert (e["low"], e["high"]) == pytest.approx((e["estimate"] - half, e["estimate"] + half))
    assert e["bounds"] == pytest.approx((290 / 400, 290 / 400))


def test_the_interval_covers_the_population_score_at_its_level():
    """Simulation of the design it is used for: a population with a score of 0.7, a sample of 400, the mutants
    that die early judged whole (phase A, kill rate 0.95) and a random subsample of 60 of the others (phase B,
    kill rate 0.45); the 95% interval must cover the population's score in 93-97% of 2000 draws (the Monte Carlo
    error of a 95% coverage over 2000 draws is 0.5%: the band is 4 standard errors wide)."""
    est = _score().two_phase_estimate
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


def test_too_small_a_subsample_is_refused_by_name():
    with pytest.raises(ValueError, match="m_b"):
        _score().two_phase_estimate(1, 2, 3, 1, 1)
