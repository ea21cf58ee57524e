"""The mutation harness: collection, stale edits, equivalent mutants, and one real run in a copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify.mutants import Mutant, collect, power_by_claim, run_all, run_mutant

ROOT = Path(__file__).resolve().parents[1]


def test_collect_finds_the_curated_mutants_and_filters_by_claim():
    every = collect(ROOT / "proofs_checks")
    assert len(every) >= 1 and all(isinstance(m, Mutant) for m in every)
    only = collect(ROOT / "proofs_checks", claims=["S-eq10"])
    assert only and {m.claim for m in only} == {"S-eq10"}
    with pytest.raises(ValueError, match="'claim_id' must be a registered claim ID"):
        collect(ROOT / "proofs_checks", claims=["S-nope"])


def test_stale_and_equivalent_mutants_are_not_run():
    stale = Mutant("S-eq9", "verify/claims.py", "text that is nowhere", "x", "stale")
    assert run_mutant(stale, ROOT, "verified").outcome == "error"
    same = Mutant("S-eq9", "verify/claims.py", "x", "y", "nothing", equivalent="documented as equivalent")
    assert run_mutant(same, ROOT, "verified").outcome == "equivalent"
    power = power_by_claim([run_mutant(stale, ROOT, "verified"), run_mutant(same, ROOT, "verified")])
    assert power["S-eq9"] == {"killed": 0, "total": 1, "survivors": [], "equivalent": 1, "errors": [stale.name]}


def test_a_breaking_edit_is_killed_and_the_tree_is_untouched():
    path = ROOT / "verify/numeric/upper_bounds.py"
    before = path.read_bytes()
    text = path.read_text()
    # a wrong sign in Lemma A.2's operator-norm helper would be subtle; an exception at import is certain
    m = Mutant("S-lemA.2", "verify/numeric/upper_bounds.py", text.splitlines()[0], "raise RuntimeError('mutant')",
               "the module cannot be imported")
    [res] = run_all([m], root=ROOT, progress=False)
    assert res.outcome == "killed", res.detail
    assert path.read_bytes() == before
