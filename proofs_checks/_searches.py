"""What the searches of every part share: the hypothesis-necessity rows (:mod:`verify.necessity`) and the
objectives with a replay route (:mod:`verify.objectives`), each as ``pytest.param`` marked with its claim and
selected by the claim's part (:attr:`verify.claims.Claim.part`), so each part's ``test_searches.py`` runs its own."""

from __future__ import annotations

import pytest

from verify.claims import get_claim
from verify.necessity import ROWS


def _params(rows):
    return [pytest.param(r, marks=pytest.mark.claim(r.claim), id=r.objective) for r in rows]


def necessity_rows(part, slow=False):
    """The necessity rows of the claims of ``part``; ``slow``: only those the search could not break (run at the full
    budget in the slow tier)."""
    return [r for r in ROWS if get_claim(r.claim).part == part and (not slow or r.expect != "needed")]


def _record(verdict, row, res):
    assert res["outcome"] == row.expect, res
    if res["outcome"] == "needed":
        # the counterexample is real: beyond the threshold by more than the objective's float tolerance
        s = res["search"]
        assert res["counterexample"]["value"] > s["threshold"] + s["tol"]
    else:
        assert res["search"]["starts_run"] == res["search"]["budget"]  # the whole budget ran
    verdict.necessity(row.hypothesis, res["outcome"], {k: v for k, v in res.items() if k != "outcome"})


def _replayed(part):
    """Every registered objective with a replay route (exact or mpmath; a float-only objective's replay is its
    float ratio, nothing to compare), but those of claims the paper gets wrong (their own objective ``fails``),
    each marked with its claim: ``verify search`` re-evaluates a point by the objective's replay route."""
    from verify.objectives import OBJECTIVES

    # (the first GF(2^r) replay in a process pays galois' one-time compilation, ~6 s; the others ~0.1-0.7 s)
    return [pytest.param(name, marks=pytest.mark.claim(o.claim), id=name) for name, o in sorted(OBJECTIVES.items())
            if o.replay is not None and not (name == o.claim and o.expect == "fails") and get_claim(o.claim).part == part]
