"""verify.necessity: the rows, the weakened objectives (against independent routes) and run_row's outcome."""

import numpy as np
import pytest

from verify import VerifyInputError
from verify.claims import claim_ids
from verify.necessity import NOT_SEARCHED, ROWS, row_named, run_row
from verify.objectives import (get_objective, lemc3_ratio, lema2_ratio, lemb1_ratio, lema2_weakened_ratio,
                               lemc3_weakened_ratio, lemb1_negative_lamH_ratio, tw_negative_lamH_violation,
                               tw_violation)


def test_rows_name_real_claims_and_objectives():
    known = set(claim_ids())
    for r in ROWS:
        assert r.claim in known and get_objective(r.objective).claim == r.claim
    assert set(NOT_SEARCHED) <= known and not set(NOT_SEARCHED) & {r.claim for r in ROWS}
    with pytest.raises(VerifyInputError, match="'objective'"):
        row_named("nope")


def test_weakened_objectives_reduce_to_the_theorems_inside_the_kept_hypotheses():
    """Where the dropped hypothesis happens to hold, the weakened ratio equals the theorem's own objective."""
    rng = np.random.default_rng(0)
    k = 6
    for _ in range(20):
        x = np.concatenate([2 * rng.standard_normal(k), 0.5 * rng.standard_normal(k)])
        a, b = lemc3_ratio(x), lemc3_weakened_ratio(x, drop="B-below-A")
        if np.isfinite(a):
            assert abs(a - b) < 1e-12
    z = rng.standard_normal(16)
    B = z.reshape(4, 4)
    A = B @ B.T + 1e-9 * np.eye(4)
    sym = A[np.tril_indices(4)]
    assert abs(lema2_weakened_ratio(sym, drop="indefinite") - lema2_ratio(z)) < 1e-9


def test_negative_lamH_objectives_at_lamH_to_zero_match_the_closed_forms():
    """As b -> -12 the weakened lam_H -> 0: the product-rule derivative (from the definitions) has the closed form's
    sign, and Lemma B.1's ratio tends to the theorem's at lam_H = 0."""
    rng = np.random.default_rng(1)
    for _ in range(5):
        x = rng.standard_normal(10)
        x[-1] = -12.0
        assert tw_negative_lamH_violation(x) <= 1e-12
        y = x.copy()
        y[-1] = np.log(0.5)  # unpack_central: lam_H = e^b - 1/2 = 0
        assert np.sign(tw_negative_lamH_violation(x)) == np.sign(tw_violation(y)) or abs(tw_violation(y)) < 1e-12
        assert abs(lemb1_negative_lamH_ratio(x) - lemb1_ratio(y)) < 1e-4  # lam_H = -3/lam_W * e^-12 / (1 + .)


def test_run_row_outcomes_and_evidence():
    needed = run_row(row_named("N-lemC.3:drop-B-below-A"), budget=4)
    assert needed["outcome"] == "needed" and needed["counterexample"]["value"] > 1
    assert needed["search"]["starts_run"] <= 4 and needed["search"]["seed"] == get_objective("N-lemC.3").seed
    kept = run_row(row_named("N-lemC.3:drop-A-pd"), budget=1)
    assert kept["outcome"] == "not needed at the budget tried" and kept["search"]["starts_run"] == 1
    assert kept["search"]["best"] <= 1 + 1e-9 and "implied" in kept["note"]
    with pytest.raises(VerifyInputError, match="'budget'"):
        run_row(ROWS[0], budget=0)


def test_docstring_examples():
    import doctest

    import verify.necessity as mod

    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
