"""The plugin and the report, on a small synthetic suite written by the test."""

import json
import textwrap

import pytest

from verify.report import aggregate, format_markdown, format_table, run_suite, write_json

SUITE = textwrap.dedent(
    """
    import pytest

    @pytest.mark.claim("S-eq9")
    def test_verified(verdict):
        verdict.verified(method="exact", evidence={"points": 3, "max_err": 0.0})

    @pytest.mark.claim("S-eq10", "S-linear")
    def test_two_claims(verdict):
        verdict.refuted(counterexample={"d": 2}, corrected="the fixed statement", claim="S-eq10")
        verdict.verified(claim="S-linear")

    @pytest.mark.claim("S-eq10", corrected=True)
    def test_corrected(verdict):
        verdict.verified(evidence={"ok": 1})

    @pytest.mark.claim("S-tensor")
    def test_skipped():
        pytest.skip("needs something absent")

    @pytest.mark.claim("N-etf")
    def test_undecided(verdict):
        verdict.inconclusive(reason="spread covers the effect")

    @pytest.mark.slow
    @pytest.mark.claim("S-eq6")
    def test_slow_and_failing():
        assert False
    """
)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    root = tmp_path_factory.mktemp("suite")
    (root / "test_synthetic.py").write_text(SUITE)
    return root


def _by_id(doc):
    return {c["id"]: c for c in doc["claims"]}


def test_fast_tier_verdicts(suite):
    code, checks = run_suite(fast=True, suite=suite, progress=False)
    assert code == 0
    doc = aggregate(checks)
    rows = _by_id(doc)
    assert len(rows) == 70
    assert rows["S-eq9"]["verdict"] == "verified" and rows["S-eq9"]["evidence"] == {"points": 3, "max_err": 0.0}
    assert rows["S-eq10"]["verdict"] == "refuted"
    assert rows["S-eq10"]["evidence"]["counterexample"] == {"d": 2}
    assert rows["S-eq10"]["evidence"]["corrected"] == "the fixed statement"
    assert any(c["corrected"] for c in rows["S-eq10"]["checks"])
    assert rows["S-linear"]["verdict"] == "verified"
    assert rows["S-tensor"]["verdict"] == "not-checked" and "needs something absent" in rows["S-tensor"]["evidence"]["reason"]
    assert rows["N-etf"]["verdict"] == "inconclusive"
    assert rows["S-eq6"]["verdict"] == "not-checked"  # slow: deselected in the fast tier
    assert doc["summary"]["S"]["verified"] == 2 and doc["summary"]["total"]["not-checked"] == 66


def test_failing_check_makes_claim_inconclusive_and_suite_red(suite):
    code, checks = run_suite(fast=False, suite=suite, progress=False)
    assert code == 1
    row = _by_id(aggregate(checks))["S-eq6"]
    assert row["verdict"] == "inconclusive" and "a check failed" in row["evidence"]["reason"]


def test_paper_filter(suite):
    _, checks = run_suite(fast=True, paper="N", suite=suite, progress=False)
    doc = aggregate(checks, paper="N")
    assert {c["paper"] for c in doc["claims"]} == {"N"} and list(doc["summary"]) == ["N", "total"]
    assert _by_id(doc)["N-etf"]["verdict"] == "inconclusive"


def test_outputs_are_deterministic(suite, tmp_path):
    docs = []
    for i in range(2):
        _, checks = run_suite(fast=True, suite=suite, progress=False)
        write_json(aggregate(checks), tmp_path / f"r{i}.json")
        docs.append((tmp_path / f"r{i}.json").read_bytes())
    assert docs[0] == docs[1]
    doc = json.loads(docs[0])
    assert set(doc) == {"claims", "summary"}
    assert {"id", "paper", "verdict", "method", "evidence", "checks"} <= set(doc["claims"][0])
    assert "S-eq9" in format_table(doc) and "| `S-eq9` |" in format_markdown(doc)


def test_bad_paper():
    with pytest.raises(ValueError, match="'paper' must be one of 'S', 'N'"):
        run_suite(paper="X", progress=False)
