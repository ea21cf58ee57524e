"""What the reporters print of an experiment: what it decided (the median over seeds, by the sign test), the verdict of
the paper's explanation beside the claim's (Fig. 6: interference), and the descriptive means where the paper reports
means (Table 1). Torch-free: the decisions come from verify.decision on fixed per-seed effects."""

from __future__ import annotations

import numpy as np

from verify import docs_pages
from verify.commands.reproduce import summary_text
from verify.decision import decide
from verify.reporters import html, markdown, terminal
from verify.reporters._common import PAPER_REPORTS_MEANS, experiment_summary, mechanism_summary

EFFECT, CONTRAST = "blurred: WD_W = 0 vs base", "interference excess, WD_W = 0 vs base"


def _fig6_row(eoi: float) -> dict:
    # 13 seeds: the effect positive in every seed (~0.77), the contrast centred near 0 with SD 0.25
    contrast = np.linspace(-0.4, 0.42, 13)[[5, 0, 12, 3, 8, 1, 10, 6, 2, 11, 4, 9, 7]]
    effect = 0.765 + 0.02 * np.arange(13) / 13 + contrast
    dec = decide({EFFECT: effect}, claimed="x", effect_of_interest=eoi, estimand="median over seeds of e; signed")
    mech = decide({CONTRAST: contrast}, claimed="the paper's explanation", effect_of_interest=eoi,
                  estimand="median over seeds of c; signed")
    mech["share_of_effect"] = {"upper_share": mech["comparisons"][CONTRAST]["ci95_median"][1] / float(np.median(effect))}
    return {"id": "N-fig6-interference", "paper": "N", "where": "Fig. 6", "kind": "emp", "statement": "s",
            "verdict": dec["verdict"], "scale": "reduced: real MNIST", "method": "emp",
            "evidence": {"dataset": "mnist5k", "seeds": list(range(13)), "decision": dec, "mechanism": mech}}


def test_fig6_line_carries_both_verdicts_and_what_was_decided():
    row = _fig6_row(2.0)
    share = row["evidence"]["mechanism"]["share_of_effect"]["upper_share"]
    assert 0.2 < share < 0.5
    line = experiment_summary(row)
    assert row["verdict"] == "supported" and line.startswith("decided on the median over seeds, sign test; for: ")
    assert (f"mechanism (the paper's explanation; not the verdict): inconclusive: small: {CONTRAST}; at most "
            f"{share:.0%} of the effect") in line
    assert "mean per-seed effect" not in line          # the paper's Fig. 6 reports no means
    # at the planned effect 1 SD the same contrast is underpowered (the interval holds 0.25), not small
    assert "inconclusive: underpowered: " in experiment_summary(_fig6_row(1.0))
    # every reporter prints it beside the claim's verdict
    assert "inconclusive: small" in terminal.row_text(row)
    assert "inconclusive: small" in markdown.row_evidence(row, {})
    assert "inconclusive: small" in html._card(row, False, {}, {})
    text = summary_text("nc-interference", {"decision": row["evidence"]["decision"], "scale": row["scale"],
                                            "mechanism": row["evidence"]["mechanism"]}, [])
    head = text.splitlines()[0]
    assert head.startswith("nc-interference: supported (reduced scale: real MNIST) - decided on the median over seeds, "
                           "sign test - mechanism (the paper's explanation; not the verdict): inconclusive: small")


def test_mechanism_line_contradicted_and_absent():
    against = decide({CONTRAST: -np.arange(1.0, 14.0)}, claimed="x")
    assert mechanism_summary(against).endswith("contradicted (against: " + CONTRAST + ")")
    assert mechanism_summary(None) == "" and mechanism_summary({"reason": "no verdict"}) == ""


def test_table1_line_gives_the_descriptive_means_beside_the_median():
    effects = {"mse/NC1/x2": [0.5, 0.1, 0.3], "ce/NC1/zero": [-2.0, 1.0, 4.0]}
    dec = decide(effects, claimed="x", estimand="median over seeds of paired contrasts; signed")
    row = {"id": "N-table1-wd", "verdict": dec["verdict"], "scale": "reduced", "evidence": {"decision": dec}}
    line = experiment_summary(row)
    assert "N-table1-wd" in PAPER_REPORTS_MEANS
    # means 0.3 and 1.0, t intervals 0.3 -+ t(2) 0.2 / sqrt 3 and 1 -+ t(2) 3 / sqrt 3 (t(2, 0.975) = 4.3027)
    assert "mean per-seed effect, 95% t interval (descriptive; Table 1 reports means over 3 seeds): " in line
    assert "mse/NC1/x2 0.3 [-0.1968, 0.7968]" in line and "ce/NC1/zero 1 [-6.452, 8.452]" in line
    other = dict(row, id="N-E2-depth")
    assert "mean per-seed effect" not in experiment_summary(other)


def test_experiments_page_shows_the_mechanism_and_table1_means():
    row = _fig6_row(2.0)
    row["experiment"] = docs_pages.experiment_digest(row["evidence"])
    e = row["experiment"]
    assert e["decided_by"] == "median over seeds, sign test" and e["mechanism"]["verdict"] == "inconclusive"
    assert set(e["mechanism"]["comparisons"]) == {CONTRAST}
    page = "\n".join(docs_pages.experiment_section(row))
    assert "**Mechanism (the paper's explanation" in page and "Verdict: **inconclusive** (" in page
    assert "(decided on the median over seeds, sign test)" in page and "mean effect (descriptive)" not in page
    t1 = {"id": "N-table1-wd", "paper": "N", "verdict": "supported", "scale": "reduced", "where": "Table 1",
          "statement": "s", "evidence": {"decision": decide({"a": [0.5, 0.1, 0.3]}, claimed="x",
                                                             estimand="median over seeds of a; signed")}}
    t1["experiment"] = docs_pages.experiment_digest(t1["evidence"])
    page = "\n".join(docs_pages.experiment_section(t1))
    assert "mean effect (descriptive) | 95% t interval of the mean |" in page and "| 0.3 | [" in page
    assert "**Mechanism" not in page


def test_effect_figure_names_the_mechanism_apart_from_the_claims_comparisons():
    from verify.reporters.figures import comparisons

    found = {c["name"]: c["primary"] for c in comparisons(_fig6_row(1.0)["evidence"])}
    assert found == {EFFECT: True, f"mechanism: {CONTRAST}": False}


def test_verdict_page_section_states_the_mechanism_beside_the_verdict():
    row = dict(_fig6_row(2.0), certified=[])
    row["experiment"] = docs_pages.experiment_digest(row["evidence"])
    text = "\n".join(docs_pages.claim_section(row))
    assert "**Verdict: supported" in text
    assert "**Mechanism (the paper's explanation; not the verdict): inconclusive.** Interference excess" in text


def test_pytest_summary_names_the_mechanism_beside_the_claim():
    from verify.pytest_plugin import claims_by_verdict

    lines = claims_by_verdict({"claims": [_fig6_row(2.0), {"id": "N-E2-depth", "verdict": "supported",
                                                           "scale": "reduced", "evidence": {}}]})
    assert lines == ["supported (reduced scale): N-fig6-interference (mechanism: inconclusive), N-E2-depth"]


def test_reproduce_lines_per_claim_say_what_was_decided_and_table1_means():
    dec = decide({"mse/NC1/x2": [0.5, 0.1, 0.3]}, claimed="x", estimand="median over seeds of a; signed")
    text = summary_text("nc-wd", {"decision": {"N-table1-wd": dec, "N-E2-depth": dec}, "scale": "reduced: digits"}, [])
    table1, depth = text.splitlines()[:2]
    assert table1.startswith("N-table1-wd: inconclusive (reduced scale: digits) - decided on the median over seeds, "
                             "sign test") and "mean per-seed effect, 95% t interval" in table1
    assert depth.startswith("N-E2-depth: ") and "decided on the median" in depth and "mean per-seed" not in depth
