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


TINY_CHECKS = '''
import pytest
from verify._validate import verify_odd_m


@pytest.mark.claim("S-eq9")
def test_odd_m(verdict):
    assert verify_odd_m(3) == 3
    with pytest.raises(ValueError):
        verify_odd_m(4)
    verdict.verified(method="tiny", evidence={"m": 3})
'''


def test_a_mutant_reruns_only_when_its_claim_or_its_file_moved(tmp_path):
    """One claim process runs the baseline and the mutants; the cache then reuses them until the mutated file
    (or the claim's fingerprint) changes. A tiny project (the package and one check), so that it runs in seconds."""
    import shutil

    shutil.copytree(ROOT / "verify", tmp_path / "verify", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "proofs_checks").mkdir()
    (tmp_path / "proofs_checks" / "test_tiny.py").write_text(TINY_CHECKS)
    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    m = Mutant("S-eq9", "verify/_validate.py", "m < 1 or m % 2 == 0", "m < 1 or m % 2 == 1", "even m accepted")
    same = Mutant("S-eq9", "verify/claims.py", "x", "y", "nothing", equivalent="documented as equivalent")
    cache = tmp_path / "cache"
    stats: dict = {}
    cold = run_all([m, same], root=tmp_path, progress=False, cache_dir=cache, stats=stats)
    assert [r.outcome for r in cold] == ["killed", "equivalent"], cold[0].detail
    assert stats["run"] == 1 and stats["claims_run"] == 1
    warm = run_all([m, same], root=tmp_path, progress=False, cache_dir=cache, stats=stats)
    assert stats == {"reused": 1, "run": 0, "claims_run": 0, "equivalent": 1, "claim_seconds": {}}
    assert [r.as_dict() for r in warm] == [r.as_dict() for r in cold]
    # the mutated file moved (in a function the check does not execute): the claim's fingerprint stays, the
    # mutant runs again
    target = tmp_path / "verify/_validate.py"
    old = "def verify_less(value: Any, bound: Any, name: str, allowed: str) -> Any:\n"
    target.write_text(target.read_text().replace(old, old + "    _edited = True\n"))
    again = run_all([m, same], root=tmp_path, progress=False, cache_dir=cache, stats=stats)
    assert stats["run"] == 1 and again[0].outcome == "killed"
