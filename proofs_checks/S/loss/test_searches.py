"""Paper S, the exact population loss (sec. 2, Remark 4.3): the searches of its claims:
the variants of their statement objects (:mod:`verify.statements`), each decided by the statement's own search.
"""

import pytest

from proofs_checks._searches import check_variants, statement_claims


# --------------------------------------------------------------------------- statement variants
@pytest.mark.parametrize("claim", statement_claims("S/loss"))
def test_statement_variants_sample(verdict, claim, statement_store):
    """A seeded, fixed sample of the statement variants of the part's claims (two false, one true control each):
    every false variant refuted by the statement's own search, the control kept verified (recorded beside the
    verdict, :func:`proofs_checks._searches.check_variants`)."""
    check_variants(verdict, claim, sample=True, store=statement_store)


@pytest.mark.slow
@pytest.mark.parametrize("claim", statement_claims("S/loss"))
def test_statement_variants_every_one(verdict, claim, statement_store):
    """Every variant of the part's statement objects (constants scaled, exponents moved, relations reversed or
    made strict, terms and hypotheses dropped): the recall and false alarms of the report."""
    check_variants(verdict, claim, store=statement_store)
