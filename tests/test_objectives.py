"""verify.objectives: the registry of violation ratios shared by proofs_checks and `verify search`."""

from fractions import Fraction

import numpy as np
import pytest

from verify import VerifyInputError
from verify.claims import claim_ids
from verify.objectives import OBJECTIVES, get_objective, objective_names, replay_point

REQUIRED = ["N-lemB.1", "N-lemC.3", "N-lemC.4", "S-lemA.2", "N-thmC.2", "S-fn3", "S-thm3.1"]


def test_registry_covers_the_issue_claims_and_uses_real_claim_ids():
    assert set(REQUIRED) <= set(OBJECTIVES)
    known = set(claim_ids())
    for name, obj in OBJECTIVES.items():
        assert obj.name == name and obj.claim in known and name.split(":")[0] == obj.claim
        assert obj.expect in ("holds", "fails") and obj.tol >= 0
    assert get_objective("N-thmC.2").expect == "fails"


@pytest.mark.parametrize("name", sorted(set(objective_names()) - {"N-B-distance"}))
def test_sampler_shape_determinism_and_replay_agrees(name):
    obj = get_objective(name)
    a, b = obj.sampler(np.random.default_rng(3)), obj.sampler(np.random.default_rng(3))
    assert a.shape == (obj.dim,) and np.array_equal(a, b)
    rng = np.random.default_rng(4)
    # a point inside the hypotheses (the sampler is meant to give one most of the time)
    x = next(x for x in (obj.sampler(rng) for _ in range(50)) if np.isfinite(obj.ratio(x)))
    rep = replay_point(name, x)
    assert rep["float_value"] == obj.ratio(x)
    if obj.replay is not None:
        exact = float(Fraction(rep["value"])) if "/" in rep["value"] or "rational" in rep["method"] \
            else float(rep["value"])
        # float64 vs exact / 50-digit: the objectives' float round-off (condition numbers below ~1e6)
        assert abs(exact - rep["float_value"]) <= 1e-8 * max(1.0, abs(exact)), rep
        assert rep["violates"] == (exact > obj.threshold)


def test_exact_replays_are_rationals():
    obj = get_objective("S-fn3")
    x = obj.sampler(np.random.default_rng(0))
    v = obj.replay(x)["value"]
    assert isinstance(v, Fraction) and v <= 0  # = -|phi(W_{S^c}^T W_S x_S)|^2 / (1 + |RHS|), exactly
    v = get_objective("S-thm3.1").replay(get_objective("S-thm3.1").sampler(np.random.default_rng(0)))["value"]
    assert isinstance(v, Fraction)


def test_thm31_ratio_is_one_for_a_projection_at_m1():
    """Ltilde(P) = p mu_2 d for a projection P at m = 1, the bound's value: ratio exactly 1 (the bound is tight)."""
    from functools import partial

    from verify.objectives import _thm31_replay, thm31_ratio

    W = np.eye(2, 6).ravel()
    assert _thm31_replay(W, m=1)["value"] == 1
    assert abs(partial(thm31_ratio, m=1)(W) - 1) < 1e-12


def test_thmC2_paper_constant_fails_exactly_where_the_check_says():
    """At H = 0 and lam_W = lam_H = 0.1 (the check's instance) the ratio is (1/lam_W - lam_H)/(11 lam_H) = 9."""
    obj = get_objective("N-thmC.2")
    v = np.kron(np.eye(3)[:, :2], np.ones((1, 2))).ravel()
    x = np.concatenate([np.zeros(12), v / np.linalg.norm(v), [-1.0, -1.0]])
    assert abs(obj.ratio(x) - (10 - 0.1) / 1.1) < 1e-9
    rep = replay_point("N-thmC.2", x)
    assert rep["violates"] and abs(float(rep["value"]) - 9) < 1e-20
    assert not get_objective("N-thmC.2:corrected-grad").violates(get_objective("N-thmC.2:corrected-grad").ratio(x))
    x[-2:] = [0.5, 0.6]  # lam_W lam_H >= 1: outside the hypothesis
    assert np.isnan(obj.ratio(x))


def test_lemC3_replay_checks_the_hypotheses_exactly():
    obj = get_objective("N-lemC.3")
    x = np.concatenate([np.eye(3)[np.tril_indices(3)], 2 * np.eye(3)[np.tril_indices(3)]])  # B = 4A: not B < A
    assert np.isnan(obj.ratio(x))
    rep = replay_point("N-lemC.3", x)
    assert rep["inside_hypotheses_exact"] is False and rep["violates"] is False


def test_bad_input():
    with pytest.raises(VerifyInputError, match="Argument 'claim' must be one of"):
        get_objective("S-nope")
    with pytest.raises(VerifyInputError, match="Argument 'x' must be 16 finite numbers"):
        replay_point("S-lemA.2", [1.0, 2.0])
    with pytest.raises(VerifyInputError, match="Argument 'x'"):
        replay_point("S-lemA.2", [float("nan")] * 16)


@pytest.mark.parametrize("module", ["verify.objectives", "verify.search", "verify.distributed"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
