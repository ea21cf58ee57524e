import re
from pathlib import Path

import pytest

from verify.claims import CLAIMS, claim_ids, get_claim

CATALOGUE = Path(__file__).resolve().parents[1].parent / "shared" / "claims.md"


def test_registry_is_well_formed():
    assert len(CLAIMS) == 71
    assert len({c.id for c in CLAIMS}) == 71
    for c in CLAIMS:
        assert c.paper in ("S", "N") and c.id.startswith(c.paper + "-")
        assert c.statement and c.where
        assert set(k.strip() for k in c.kind.split(",")) <= {"sym", "hp", "num", "emp"}


@pytest.mark.skipif(not CATALOGUE.exists(), reason="shared/claims.md is not beside this checkout")
def test_registry_matches_the_catalogue_exactly():
    ids = re.findall(r"^\| `([SN]-[^`]*)`", CATALOGUE.read_text(), re.M)
    assert ids == claim_ids()


def test_unknown_claim_id_is_a_clear_error():
    with pytest.raises(ValueError, match="'claim_id' must be a registered claim ID"):
        get_claim("S-nope")


def test_paper_filter():
    assert len(claim_ids("S")) + len(claim_ids("N")) == 71
