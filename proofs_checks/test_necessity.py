"""The hypothesis-necessity table (issue 25, :mod:`verify.necessity`): for each stated hypothesis of a verified
theorem, ``verify search`` on the statement without it. Every row records ``verdict.necessity`` for its claim
(it never sets a verdict) and asserts the outcome the registry expects, so a search that loses its power to find
the counterexample (or a weakened statement that starts failing) makes the check fail."""

from __future__ import annotations

import pytest

from verify.necessity import DEFAULT_BUDGET, FAST_BUDGET, ROWS, run_row


def _params(rows):
    return [pytest.param(r, marks=pytest.mark.claim(r.claim), id=r.objective) for r in rows]


def _record(verdict, row, res):
    assert res["outcome"] == row.expect, res
    if res["outcome"] == "needed":
        # the counterexample is real: beyond the threshold by more than the objective's float tolerance
        s = res["search"]
        assert res["counterexample"]["value"] > s["threshold"] + s["tol"]
    else:
        assert res["search"]["starts_run"] == res["search"]["budget"]  # the whole budget ran
    verdict.necessity(row.hypothesis, res["outcome"], {k: v for k, v in res.items() if k != "outcome"})


@pytest.mark.parametrize("row", _params(ROWS))
def test_hypothesis_necessity(row, verdict):
    """Default tier: a search stops at its first counterexample (needed rows: one or a few starts, up to verify
    search's default budget); the rows it cannot break run FAST_BUDGET starts here, DEFAULT_BUDGET in the slow tier."""
    _record(verdict, row, run_row(row, budget=DEFAULT_BUDGET if row.expect == "needed" else FAST_BUDGET))


@pytest.mark.slow
@pytest.mark.parametrize("row", _params([r for r in ROWS if r.expect != "needed"]))
def test_hypothesis_not_needed_full_budget(row, verdict):
    """Slow tier: the rows the search could not break, at verify search's full default budget."""
    _record(verdict, row, run_row(row, budget=DEFAULT_BUDGET))
