"""What the searches of every part share: the hypothesis-necessity rows (:mod:`verify.necessity`), the
objectives with a replay route (:mod:`verify.objectives`) and the claims with a statement object whose variants are
searched (:mod:`verify.statements`), each as ``pytest.param`` marked with its claim and selected by the claim's part
(:attr:`verify.claims.Claim.part`), so each part's ``test_searches.py`` runs its own."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from verify.claims import get_claim
from verify.necessity import DEFAULT_BUDGET, FAST_BUDGET, ROWS, run_row
from verify.objectives import OBJECTIVES, get_objective, replay_point
from verify.statement_data import STATEMENTS, get_statement
from verify.statements import run_claim, sample_variants


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
    # (the first GF(2^r) replay in a process pays galois' one-time compilation, ~6 s; the others ~0.1-0.7 s)
    return [pytest.param(name, marks=pytest.mark.claim(o.claim), id=name) for name, o in sorted(OBJECTIVES.items())
            if o.replay is not None and not (name == o.claim and o.expect == "fails") and get_claim(o.claim).part == part]


def check_necessity(verdict, row, full_budget=False):
    """Run one hypothesis-necessity row and record it. Default tier: a search stops at its first counterexample
    (needed rows: one or a few starts, up to verify search's default budget); the rows it cannot break run
    FAST_BUDGET starts; ``full_budget`` (the slow tier): DEFAULT_BUDGET starts for every row."""
    budget = DEFAULT_BUDGET if full_budget or row.expect == "needed" else FAST_BUDGET
    _record(verdict, row, run_row(row, budget=budget))


def check_replay(verdict, name):
    r"""The replay route of objective ``name`` (exact rationals or an mpmath ladder) at the check's seeded start
    equals the float64 ratio within the registry's own float slack ``tol`` (relative, at least 1e-9: the float
    ratio's round-off), and the violation flag it reports agrees with the float one unless the value lies within
    that slack of the threshold. A point outside the hypotheses (``nan``) is ``nan`` by both routes and never a
    violation."""
    obj = get_objective(name)
    x = obj.sampler(np.random.default_rng(obj.seed))
    out = replay_point(name, x)
    fv = out["float_value"]
    assert out["objective"] == name and out["claim"] == obj.claim and out["threshold"] == obj.threshold
    if not math.isfinite(fv):
        assert out["violates"] is False and "nan" in out["value"]
        kind = "nan"
    else:
        text = out["value"]
        v = float(Fraction(text)) if "/" in text else float(text)
        slack = max(obj.tol, 1e-9)
        assert abs(v - fv) <= slack * max(1.0, abs(fv)), (name, v, fv)
        if abs(fv - obj.threshold) > slack * max(1.0, abs(obj.threshold)):
            assert out["violates"] == (fv > obj.threshold)
        kind = "exact" if "/" in text else "mpmath"
    verdict.verified(method=f"num: replay route ({kind}) == float64 ratio at the seeded start",
                     evidence={"objective": name, "float_value": fv, "replay_value": out["value"], "seed": obj.seed})


def statement_claims(part):
    """The claims of ``part`` with a statement object (:mod:`verify.statement_data`), each marked with its claim."""
    return [pytest.param(c, marks=pytest.mark.claim(c), id=c) for c in STATEMENTS if get_claim(c).part == part]


def check_variants(verdict, claim, sample=False, store=None):
    """The variants of ``claim``'s statement object (``sample``: the seeded, fixed sample of the default tier,
    :func:`verify.statements.sample_variants`; else every variant), each decided by the statement's own search
    (``store``: the session's, fixture ``statement_store``, so a search another check of the session ran is read,
    not run again) and recorded beside the verdict (``verdict.variant``, never a verdict). Fails when the paper's
    statement is not verified by that search, when a false variant is not refuted with a certified counterexample the search found
    itself, or when a true control is refuted."""
    st = get_statement(claim)
    res = run_claim(st, only=sample_variants(st) if sample else None, store=store)
    for row in res["variants"]:
        verdict.variant(row)
    assert res["original"]["check"] == "verified", res["original"]
    bad = [f"{r['variant']}: {r['outcome']} ({r['reason']})" for r in res["variants"]
           if r["outcome"] in ("missed", "false alarm")]
    assert not bad, "; ".join(bad)
    for r in res["variants"]:
        if r["outcome"] == "caught":
            ce = r["counterexample"]
            assert ce["certified"] in ("exact rationals", "Arb balls") and ce["found_by"], (r["variant"], ce)
    if not sample:  # the project's target: at least 3 false variants of each statement
        assert res["false"] >= 3, f"{claim}: {res['false']} false variants"
    else:  # the sample holds both classes, so both the recall and the false alarms are exercised every run
        assert res["false"] and res["true"], res
