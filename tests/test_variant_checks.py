"""verify.variant_checks: a claim's own checks in proofs_checks, run against its statement's variants."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from verify.statement_data import STATEMENTS, get_statement
from verify.statements import classify, variants
from verify.variant_checks import run_claim_checks, statement_checks


def test_the_scan_selects_the_checks_that_read_the_statement(tmp_path):
    """Checks of the claim that call a reader (directly or through a module helper) are selected; a check of another
    claim, a corrected-statement check and a check that reads nothing are not."""
    part = tmp_path / "proofs_checks" / "S" / "part"
    part.mkdir(parents=True)
    (part / "test_statements.py").write_text(textwrap.dedent("""
        import pytest
        from verify.statements import constants, holds

        def _bound(n):
            return constants("S-eq9")["C_a"] * n

        @pytest.mark.claim("S-eq9")
        def test_direct(verdict):
            assert holds("S-eq9", {})

        @pytest.mark.claim("S-eq9")
        def test_through_a_helper(verdict):
            assert _bound(2) > 0

        @pytest.mark.claim("S-eq9")
        def test_reads_nothing(verdict):
            assert 2 * 3 == 6

        @pytest.mark.claim("S-eq9", corrected=True)
        def test_corrected(verdict):
            assert holds("S-eq9", {})

        @pytest.mark.claim("S-eq10")
        def test_other_claim(verdict):
            assert holds("S-eq10", {})
    """))
    got = statement_checks("S-eq9", suite=tmp_path / "proofs_checks")
    assert got == ["proofs_checks/S/part/test_statements.py::test_direct",
                   "proofs_checks/S/part/test_statements.py::test_through_a_helper"]
    assert statement_checks("S-eq10", suite=tmp_path / "proofs_checks") == [
        "proofs_checks/S/part/test_statements.py::test_other_claim"]


def test_an_edited_check_file_is_read_again(tmp_path):
    """The files' parse is kept between calls (one parse of the suite for every claim, not one per claim); an edit
    that keeps the file's size (and, written at once, perhaps its time stamp), and one that changes it, are both
    seen at the next call."""
    part = tmp_path / "proofs_checks" / "N" / "part"
    part.mkdir(parents=True)
    f = part / "test_statements.py"
    src = textwrap.dedent("""
        import pytest
        from verify.statements import holds

        @pytest.mark.claim("N-eq7")
        def test_a(verdict):
            assert holds("N-eq7", {})
    """)
    f.write_text(src)
    suite = tmp_path / "proofs_checks"
    assert statement_checks("N-eq7", suite=suite) == ["proofs_checks/N/part/test_statements.py::test_a"]
    f.write_text(src.replace("N-eq7", "N-eq8").replace("test_a", "test_b"))      # the same size
    assert statement_checks("N-eq7", suite=suite) == []
    assert statement_checks("N-eq8", suite=suite) == ["proofs_checks/N/part/test_statements.py::test_b"]
    f.write_text(src.replace("holds(\"N-eq7\", {})", "2 > 1"))                  # shorter: reads nothing now
    assert statement_checks("N-eq7", suite=suite) == []


@pytest.mark.parametrize("claim", sorted(STATEMENTS))
def test_every_statement_is_read_by_a_check(claim):
    """A statement object no check reads could not make the suite fail on a wrong statement."""
    assert statement_checks(claim), f"no check of {claim} reads its statement object"


def test_a_false_variant_fails_the_checks_and_a_control_passes():
    """Run in a child pytest: the Weil bound's constant made 9/10 (false: the GF(4), GF(16) cubes attain it) fails the
    claim's own checks, found by them; 11/10 (true: a weaker bound) passes; the paper's statement passes."""
    st = get_statement("S-lemA.4-weil")
    by_name = {v.name: v for v in variants(st)}
    picked = [by_name["C x 9/10"], by_name["C x 11/10"]]
    assert [classify(st, v)["class"] for v in picked] == ["false", "true"]
    r = run_claim_checks(st, only=picked)
    assert r["original_failed"] == []
    rows = {row["variant"]: row for row in r["variants"]}
    assert rows["C x 9/10"]["outcome"] == "caught by the checks"
    assert rows["C x 9/10"]["failed"] and rows["C x 9/10"]["failed"][0]["check"].startswith("proofs_checks/S/frames/")
    assert rows["C x 11/10"]["outcome"] == "control held" and rows["C x 11/10"]["failed"] == []
    assert (r["false"], r["caught"], r["true"], r["false_alarms"]) == (1, 1, 1, 0)


def test_cli_checks_mode_writes_its_record(tmp_path):
    out = tmp_path / "v.json"
    proc = subprocess.run([sys.executable, "-m", "verify", "variants", "--checks", "--claim", "N-lemC.3",
                           "--json", str(out)], check=False, capture_output=True, text=True, timeout=600)
    doc = json.loads(out.read_text())
    assert doc["by"] == "checks" and [c["claim"] for c in doc["claims"]] == ["N-lemC.3"]
    row = doc["claims"][0]
    assert row["checks"] and row["false"] >= 3
    assert "overall, by the claims' own checks: 1 claims" in proc.stdout
    assert proc.returncode == (0 if row["caught"] == row["false"] and row["false_alarms"] == 0 else 1)
