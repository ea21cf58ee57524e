"""The terminal table of ``verify report`` fits the terminal: no line wider than the width asked for, IDs never
split, every claim's finding given whole (in its column or under Details), numbers short, a claim's row with its own
numbers only, experiments summarised in words."""

from __future__ import annotations

import pytest

from verify.reporters.terminal import format_table

SCALE = "reduced: " + "; ".join(f"step {i}: a long description of what was reduced from the paper's run" for i in range(8))


def _doc():
    rows = [
        {"id": "S-thm3.2", "paper": "S", "verdict": "refuted", "severity": "error",
         "justification": {"instance": {"K": 3, "d": 1, "m": 3, "n": 48}, "ratio": 1.2750000000000001},
         "evidence": {"sup_Ltilde": "51/4", "C3d": 10, "replay": "12.750000000000000000000000000001"},
         "checks": [{"check": "proofs_checks/test_S.py::test_thm32"}], "power": {"killed": 2, "total": 2}},
        {"id": "S-fn3", "paper": "S", "verdict": "verified", "evidence": {"N": int("9" * 100), "points": 40},
         "checks": [{"check": "proofs_checks/test_S.py::test_fn3"}]},
        {"id": "S-lemA.3", "paper": "S", "verdict": "verified", "evidence": {"M_W": "402846142247017353/1066802487543587780",
         "rank": 2}, "checks": [{"check": "proofs_checks/test_cov.py::test_many"}]},
        {"id": "S-eq10", "paper": "S", "verdict": "verified", "evidence": {"M_W": "402846142247017353/1066802487543587780",
         "rank": 2, "ratio_at_optimum": 0.30000000000000004}, "checks": [{"check": "proofs_checks/test_cov.py::test_many"},
                                                                          {"check": "proofs_checks/test_S.py::test_eq10"}]},
        {"id": "N-table1-wd", "paper": "N", "verdict": "contradicted", "scale": SCALE,
         "evidence": {"dataset": "fashion_mnist", "seeds": [0, 1, 2, 3, 4],
                      "decision": {"comparisons": {"MSE/0": {"outcome": "for"}, "MSE/x2": {"outcome": "against"},
                                                   "CE/0": {"outcome": "for"}}},
                      "post_hoc_replication": {"verdict": "supported", "seeds": [100, 104], "scale": SCALE},
                      "descriptive_run": {"what": "Table 1's MNIST part on real MNIST (descriptive)",
                                          "verdict": "inconclusive"}},
         "checks": [{"check": "proofs_checks/test_empirical_N.py::test_wd"}], "power": {"killed": 1, "total": 2,
                                                                                         "survivors": ["wd-sign"]}},
        {"id": "N-fig6", "paper": "N", "verdict": "inconclusive", "scale": SCALE,
         "evidence": {"reason": "a: underpowered (median/SD = 0.31 < MDE 1.20 SD at 80% power with 5 seeds); b: not "
                                "significant (median/SD = 1.50 >= MDE 1.20 SD at 80% power with 5 seeds)",
                      "decision": {"comparisons": {"a": {"outcome": "n.s."}, "b": {"outcome": "n.s."}}}},
         "checks": [{"check": "proofs_checks/test_empirical_N.py::test_fig6"}]},
        {"id": "N-a-claim-with-a-rather-long-identifier", "paper": "N", "verdict": "verified",
         "evidence": {"note": "word " * 200}, "checks": [{"check": "x::y"}]},
    ]
    return {"claims": rows, "beyond": [], "headline": "7 claims: 4 verified, 1 refuted (1 error), 1 contradicted",
            "summary": {"S": {"verified": 3, "refuted": 1}, "N": {"verified": 1, "contradicted": 1, "inconclusive": 1},
                        "total": {"verified": 4, "refuted": 1, "contradicted": 1, "inconclusive": 1}}}


@pytest.mark.parametrize("width", [40, 60, 80, 100, 160])
def test_no_line_wider_than_the_terminal(width):
    text = format_table(_doc(), width=width)
    assert max(len(line) for line in text.splitlines()) <= width
    for row in _doc()["claims"]:   # an ID is never split
        assert any(line.startswith(row["id"]) for line in text.splitlines())


def test_every_word_of_a_long_finding_is_shown():
    text = " ".join(format_table(_doc(), width=100).split())
    assert text.count("word") >= 200 and "Details" in text


def test_numbers_for_people_and_own_numbers_only():
    text = format_table(_doc(), width=100)
    assert "51/4" in text and "(100 digits)" in text and "9" * 20 not in text
    assert "12.750000" not in text and "0.30000000000000004" not in text and "ratio_at_optimum = 0.3" in text
    # M_W comes from one check of two claims: in neither row
    eq10 = next(line for line in text.splitlines() if line.startswith("S-eq10"))
    assert "M_W" not in eq10
    assert "replay" not in text   # how a search ran stays in the JSON


def test_experiments_say_for_against_post_hoc_and_why_inconclusive():
    text = " ".join(format_table(_doc(), width=160).split())
    assert "against: MSE/x2" in text and "for: MSE/0, CE/0" in text
    assert "post hoc corrected statement, replicated on fresh seeds 100-104: supported" in text
    assert "MNIST part on real MNIST (descriptive): inconclusive" in text
    assert "underpowered: a" in text and "not significant: b" in text
    assert "contradicted [reduced]" in text and "step 7" not in text   # the scale's long text: in the other reports
    assert "1/2!" in text and "surviving mutants: wd-sign" in text
