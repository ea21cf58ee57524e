"""Paper S, the frames over GF(2^r) (Lemma 4.1, Lemma A.4, and the frames beyond them): adversarial and
hypothesis-necessity searches, and the violation ratios they maximise.
"""

from __future__ import annotations


import pytest


from proofs_checks._searches import (_params, _replayed, check_necessity, check_replay, check_variants,
                                     necessity_rows, statement_claims)


@pytest.mark.parametrize("row", _params(necessity_rows("S/frames")))
def test_hypothesis_necessity(row, verdict):
    """Default tier (:func:`proofs_checks._searches.check_necessity`)."""
    check_necessity(verdict, row)


@pytest.mark.parametrize("name", _replayed("S/frames"))
def test_replay_route_equals_float_ratio_at_the_seeded_start(verdict, name):
    """The replay route equals the float64 ratio at the seeded start (:func:`proofs_checks._searches.check_replay`)."""
    check_replay(verdict, name)


# --------------------------------------------------------------------------- statement variants
@pytest.mark.parametrize("claim", statement_claims("S/frames"))
def test_statement_variants_sample(verdict, claim, statement_store):
    """A seeded, fixed sample of the statement variants of the part's claims (two false, one true control each):
    every false variant refuted by the statement's own search, the control kept verified (recorded beside the
    verdict, :func:`proofs_checks._searches.check_variants`)."""
    check_variants(verdict, claim, sample=True, store=statement_store)


@pytest.mark.slow
@pytest.mark.parametrize("claim", statement_claims("S/frames"))
def test_statement_variants_every_one(verdict, claim, statement_store):
    """Every variant of the part's statement objects (constants scaled, exponents moved, relations reversed or
    made strict, terms and hypotheses dropped): the recall and false alarms of the report."""
    check_variants(verdict, claim, store=statement_store)
