"""verify.certified: exact / ball enclosures (independent routes: numpy eigvalsh, mpmath, exact formulas)."""

import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, fmpq

from verify import VerifyInputError
from verify import certified as C


def test_to_fmpq_is_exact_for_floats_and_rejects_bad_input():
    assert C.to_fmpq(0.1) == fmpq(Fraction(0.1).numerator, Fraction(0.1).denominator)  # binary value, not 1/10
    assert C.to_fmpq(0.1) != fmpq(1, 10)
    assert C.to_fmpq(np.float64(-2.5)) == fmpq(-5, 2) and C.to_fmpq(np.int64(7)) == 7
    for bad in (float("nan"), float("inf"), True, "1", None):
        with pytest.raises(VerifyInputError, match="Argument 'x'"):
            C.to_fmpq(bad)


@pytest.mark.parametrize("seed,scale", [(0, 1.0), (1, 1e-3), (2, 250.0)])
def test_gen_lambda_max_encloses_scipy_value_both_sides(seed, scale):
    import scipy.linalg

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((5, 5))
    A = X @ X.T + 0.3 * np.eye(5)
    Y = rng.standard_normal((5, 3))
    B = scale * (Y @ Y.T)
    e = C.gen_lambda_max(B, A)
    ref = scipy.linalg.eigh(B, A, eigvals_only=True)[-1]
    lo, hi = e.bounds()
    assert lo <= ref * (1 + 1e-12) and ref * (1 - 1e-12) <= hi  # float reference within round-off of the ends
    assert (hi - lo) <= 1e-9 * ref  # and the enclosure is tight (a loose one would pass the line above)
    # the upper end is a proof: t A - B is positive definite exactly, and a bit below the lower end it is not
    assert C.is_pd(C.exact_array(A) * e.hi - C.exact_array(B))
    assert not C.is_pd(C.exact_array(A) * (e.lo * (1 - fmpq(1, 10 ** 6))) - C.exact_array(B))


def test_is_pd_and_is_psd_decide_exactly():
    I = np.eye(3, dtype=int).astype(object)
    J = np.ones((3, 3), dtype=int).astype(object)
    assert C.is_pd(I) and not C.is_pd(I - J / 3 * 3) and C.is_psd(J) and not C.is_pd(J)
    assert not C.is_psd(-I) and not C.is_psd(np.array([[0, 1], [1, 0]], dtype=object))
    # ball entries: a ball straddling 0 is not a proof
    assert not C.is_pd(np.array([[arb(0, 1e-3)]], dtype=object)) and C.is_pd(np.array([[arb(1, 1e-3)]], dtype=object))


def test_count_below_and_spectrum_matches_against_eigvalsh():
    rng = np.random.default_rng(5)
    Q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    S = Q @ np.diag([-2.0, 0.5, 0.5, 3.0]) @ Q.T
    w = np.linalg.eigvalsh(S)
    assert C.count_below(S, 0.0) == 1 and C.count_below(S, 1.0) == 3 and C.count_below(S, 10.0) == 4
    assert C.spectrum_matches(S, w, 1e-9)["ok"]
    assert not C.spectrum_matches(S, [-2.0, 0.5, 3.0, 3.0], 1e-9)["ok"]  # wrong multiplicities are caught


def test_op_norm_and_ratio_and_sqrt_enclosures():
    X = np.array([[3.0, 0.0], [4.0, 0.0], [0.0, 1.0]])  # |X|_op = 5
    e = C.sqrt_enclosure(C.op_norm_sq(X))
    assert e.lo <= 5 <= e.hi
    r = C.ratio_interval(C.enclosure(fmpq(9)), C.enclosure(fmpq(1)))
    assert r.exact and r.text() == "[9, 9]"
    s = C.sqrt_enclosure(C.enclosure(fmpq(2)))
    with mpmath.workdps(40):
        ref = mpmath.sqrt(2)
        assert mpmath.mpf(C.lower_float(s.lo)) <= ref <= mpmath.mpf(C.upper_float(s.hi))
    with pytest.raises(VerifyInputError, match="'den'"):
        C.ratio_interval(fmpq(1), fmpq(0))
    with pytest.raises(VerifyInputError, match="'lo'"):
        C.enclosure(fmpq(2), fmpq(1))


def test_outward_rounding():
    third = fmpq(1, 3)
    assert Fraction(C.lower_float(third)) < Fraction(1, 3) < Fraction(C.upper_float(third))
    assert C.lower_float(fmpq(1, 2)) == 0.5 == C.upper_float(fmpq(1, 2))  # exact floats are kept
    # exact balls too (a margin of exactly 0 reads 0, not -5e-324), inexact ones are rounded outward
    assert C.lower_float(arb(0)) == 0.0 == C.upper_float(arb(0)) and C.lower_float(arb(3) - 3) == 0.0
    t = arb(1) / 3
    assert Fraction(C.lower_float(t)) < Fraction(1, 3) < Fraction(C.upper_float(t))
    with mpmath.workdps(40):  # the true sqrt(2), not its float, lies strictly inside
        assert mpmath.mpf(C.lower_float(arb(2).sqrt())) < mpmath.sqrt(2) < mpmath.mpf(C.upper_float(arb(2).sqrt()))


def test_margin_evidence_states_and_refuses():
    ev = C.margin_evidence([fmpq(1, 10), fmpq(3, 100), arb("0.5")], "x <= 1", "exact", "all")
    assert ev["points"] == 3 and ev["margin_lower"] <= 0.03 and "holds at all 3 points" in ev["statement"]
    with pytest.raises(VerifyInputError, match="certified positive"):
        C.margin_evidence([fmpq(1), fmpq(0)], "x <= 1", "exact", "all")
    assert C.margin_evidence([fmpq(0)], "x <= 1", "exact", "all", strict=False)["margin_lower"] == 0
    with pytest.raises(VerifyInputError, match="certified positive"):
        C.margin_evidence([fmpq(-1, 10 ** 20)], "x <= 1", "exact", "all", strict=False)


def test_objective_certifiers_agree_with_float_objectives():
    """The exact recomputations of verify.certified against the float objectives at their seeded starts."""
    from verify.objectives import get_objective

    for name, f in (("N-lemB.1", lambda x: float(C.lemb1_sq_ratio(x)) ** 0.5),
                    ("S-lemA.2", lambda x: float(C.lema2_bound(x).lo)),
                    ("N-lemC.3", lambda x: float(C.lemc3_bound(x)[1].lo)),
                    ("N-thm4.1-W", lambda x: -float(C.tw_margin(x).lo))):
        obj = get_objective(name)
        for x in C.objective_points(name, 3):
            assert abs(f(x) - obj.ratio(x)) <= 1e-9 * max(1.0, abs(obj.ratio(x))), name  # float round-off


def test_report_rows_carry_certified_and_necessity_records_whatever_the_verdict():
    """verify.report: a refuted claim's certified interval (a record with another verdict word) reaches its row, the
    side records set no verdict, the headline counts them, and verified hp/num claims without a margin say why."""
    from verify.report import aggregate, format_markdown

    ratio = {"verdict": "certified", "claims": ["S-thm3.2"], "kind": "ratio",
             "evidence": {"statement": "r in [2, 2] (certified)", "interval": [2, 2], "route": "exact", "certified": "x"}}
    refuted = {"verdict": "refuted", "claims": ["S-thm3.2"], "severity": "missing-hypothesis", "evidence": {},
               "justification": {"hypothesis": "h", "repair": "r"}, "counterexample": {"x": 1}}
    margin = {"verdict": "certified", "claims": ["S-lemA.2"], "kind": "margin",
              "evidence": {"statement": "s", "points": 2, "margin_lower": 0.1, "route": "exact", "certified": "x"}}
    nec = {"verdict": "necessity", "claims": ["S-lemA.2"], "hypothesis": "A > 0", "outcome": "needed",
           "evidence": {"search": {"objective": "S-lemA.2:drop-pd-indefinite", "threshold": 1.0, "starts_run": 1},
                        "counterexample": {"value": 5.0, "start": 0}}}
    checks = [{"nodeid": "a::t1", "ids": ["S-thm3.2"], "corrected": False, "outcome": "passed", "records": [refuted]},
              {"nodeid": "b::t2", "ids": ["S-thm3.2"], "corrected": False, "outcome": "passed", "records": [ratio]},
              {"nodeid": "b::t3", "ids": ["S-lemA.2"], "corrected": False, "outcome": "passed", "records": [margin]},
              {"nodeid": "b::t4", "ids": ["S-lemA.2"], "corrected": False, "outcome": "passed", "records": [nec]},
              {"nodeid": "c::t5", "ids": ["S-lemA.2", "S-eq16"], "corrected": False, "outcome": "passed",
               "records": [{"verdict": "verified", "claims": ["S-lemA.2", "S-eq16"], "evidence": {}}]},
              {"nodeid": "c::t6", "ids": ["S-lemA.3"], "corrected": False, "outcome": "passed",
               "records": [{"verdict": "verified", "claims": ["S-lemA.3"], "evidence": {}}]}]
    doc = aggregate(checks, only_checked=True)
    rows = {r["id"]: r for r in doc["claims"]}
    assert rows["S-thm3.2"]["verdict"] == "refuted" and rows["S-thm3.2"]["certified"][0]["kind"] == "ratio"
    assert rows["S-lemA.2"]["verdict"] == "verified" and rows["S-lemA.2"]["certified"][0]["check"] == "b::t3"
    assert "certified_why_not" in rows["S-eq16"] and "certified_why_not" not in rows["S-lemA.2"]
    assert doc["necessity"][0]["outcome"] == "needed" and doc["necessity"][0]["claim"] == "S-lemA.2"
    # the not-searchable hypotheses of the verified claims follow, with their reason (S-lemA.1 did not run: absent)
    ns = [n for n in doc["necessity"] if n["outcome"] == "not searchable"]
    assert [n["claim"] for n in ns] == ["S-lemA.3"] and "undefined" in ns[0]["note"]
    assert "(1 more not searchable)" in doc["headline"]
    assert "certified margins on 1 of 3 verified hp/num claims" in doc["headline"]
    assert "certified counterexample intervals on 1 of 1 refuted" in doc["headline"]
    assert "1 of 1 hypotheses shown necessary" in doc["headline"]
    md = format_markdown(doc)
    assert "## Hypothesis-necessity table" in md and "r in [2, 2] (certified)" in md
    # a check recording only side records sets no verdict: alone, the claim is inconclusive (and says why)
    alone = aggregate(checks[1:2], only_checked=True)["claims"][0]
    assert alone["verdict"] == "inconclusive" and "certification" in alone["evidence"]["reason"]


def _default_tier_margin_claims(path) -> set:
    """The claim IDs that the default-tier checks of ``path`` give a certified margin (static, by ``ast``): a test
    without ``@pytest.mark.slow`` whose source (or that of a module-level helper it calls) records ``"margin"``;
    the IDs are its literal ``claim=`` targets there, else (or with a ``claim=`` variable) its marker's."""
    import ast

    text = path.read_text()
    tree = ast.parse(text)
    funcs = {f.name: ast.get_source_segment(text, f) for f in tree.body if isinstance(f, ast.FunctionDef)}
    out = set()
    for f in tree.body:
        if not (isinstance(f, ast.FunctionDef) and f.name.startswith("test_")):
            continue
        marks = [ast.get_source_segment(text, d) for d in f.decorator_list]
        if any(m.endswith("mark.slow") for m in marks):
            continue
        src = funcs[f.name] + "".join(funcs[c.func.id] for c in ast.walk(f)
                                      if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in funcs)
        if '"margin"' not in src:
            continue
        targeted = set(re.findall(r'claim="([SN]-[^"]+)"', src))
        marker = set(re.findall(r'"([SN]-[^"]+)"', next(m for m in marks if "mark.claim(" in m)))
        # claim=<a variable> (a loop over the marker's IDs): count the marker's IDs
        out |= marker | targeted if (not targeted or re.search(r"claim=[a-z_]", src)) else targeted
    return out


def test_not_certified_list_matches_the_certified_checks():
    """Static cross-check of verify.certified.NOT_CERTIFIED against the default-tier certified checks: every verified
    hp/num claim of the catalogue (the refuted ones excluded) has a margin check or a reason, never both."""
    from pathlib import Path

    from verify.claims import CLAIMS
    from verify.necessity import REFUTED_THEOREMS

    root = Path(__file__).resolve().parents[1] / "proofs_checks"
    margins = set().union(*(_default_tier_margin_claims(p) for p in sorted(root.rglob("test_certified.py"))))
    proof = {c.id for c in CLAIMS if ("hp" in c.kind or "num" in c.kind) and "emp" not in c.kind}
    verified = proof - set(REFUTED_THEOREMS)
    assert not margins & set(C.NOT_CERTIFIED), margins & set(C.NOT_CERTIFIED)
    assert verified <= margins | set(C.NOT_CERTIFIED), verified - margins - set(C.NOT_CERTIFIED)
    assert len(verified & margins) >= 30  # issue 25: at least 30 verified hp/num claims with a default-tier margin


def test_plugin_certified_and_necessity_records_validate():
    import types

    from verify.pytest_plugin import Verdict

    node = types.SimpleNamespace(nodeid="x::y", user_properties=[])
    v = Verdict(node, ["S-lemA.2"])
    v.certified("margin", {"statement": "s", "points": 1, "margin_lower": 0.5, "route": "r", "certified": "c"})
    v.necessity("A > 0", "needed", {"search": {}, "counterexample": {}})
    assert [__import__("json").loads(p)["verdict"] for _, p in node.user_properties] == ["certified", "necessity"]
    with pytest.raises(pytest.UsageError, match="kind="):
        v.certified("bound", {})
    with pytest.raises(pytest.UsageError, match="evidence keys"):
        v.certified("ratio", {"statement": "s"})
    with pytest.raises(pytest.UsageError, match="outcome"):
        v.necessity("h", "maybe", {"search": {}})
    with pytest.raises(pytest.UsageError, match="counterexample"):
        v.necessity("h", "needed", {"search": {}})
    with pytest.raises(pytest.UsageError, match="cannot be"):
        Verdict(node, ["S-fig3"]).certified("margin", {"statement": "s", "points": 1, "margin_lower": 0,
                                                       "route": "r", "certified": "c"})


def test_html_page_shows_certified_and_necessity():
    from verify.reporters.html import render_html
    from verify.report import aggregate

    nec = {"verdict": "necessity", "claims": ["S-lemA.2"], "hypothesis": "A > 0", "outcome": "needed",
           "evidence": {"search": {"objective": "o", "threshold": 1.0}, "counterexample": {"value": 5.0, "start": 0}}}
    cert = {"verdict": "certified", "claims": ["S-lemA.2"], "kind": "margin",
            "evidence": {"statement": "holds at all 7 points (certified)", "points": 7, "margin_lower": 0.1,
                         "route": "exact", "certified": "x"}}
    doc = aggregate([{"nodeid": "a::b", "ids": ["S-lemA.2"], "corrected": False, "outcome": "passed",
                      "records": [nec, cert, {"verdict": "verified", "claims": ["S-lemA.2"], "evidence": {}}]}],
                    only_checked=True)
    page = render_html(doc, figures=[], formulas=[])
    assert "holds at all 7 points (certified)" in page and "A &gt; 0" in page and "necessity" in page.lower()


def test_docstring_examples():
    import doctest

    result = doctest.testmod(C, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
