"""Statements as data (verify/statements.py, verify/statement_data/) and ``verify variants``.

The default tier runs the variants of two quick claims and a few hand-written edits; the slow tier runs every
covered claim. What is asserted is the project's target: every false variant refuted by the statement's own search
with a certified counterexample, no true control refuted, the paper's statement itself verified.
"""

import dataclasses
import json
import subprocess
import sys

import pytest
import sympy

import verify.statements as engine
from verify.statement_data import STATEMENTS, get_statement, statements
from verify.statements import check, classify, run_claim, run_variant, sample_variants, summarise, variants

QUICK = ("S-eq12", "N-D-sigmas")


def _assert_run(r):
    assert r["original"]["check"] == "verified", r["original"]
    assert r["false"] >= 3, f"{r['claim']}: fewer than 3 false variants"
    for v in r["variants"]:
        assert v["outcome"] not in ("missed", "false alarm"), (r["claim"], v)
        if v["outcome"] == "caught":
            ce = v["counterexample"]
            assert ce["certified"] in ("exact rationals", "Arb balls") and ce["found_by"], ce
            assert "classified_at" in v  # a false variant is false at an instance of the data, exactly


@pytest.mark.parametrize("claim", QUICK)
def test_variants_of_quick_claims_are_caught(claim):
    _assert_run(run_claim(get_statement(claim)))


@pytest.mark.slow
@pytest.mark.parametrize("claim", sorted(STATEMENTS))
def test_variants_of_every_covered_claim_are_caught(claim):
    _assert_run(run_claim(get_statement(claim)))


def test_the_check_never_reads_the_classifiers_instances():
    # the same search with the data's instances wiped: the same verdict and the same counterexample
    st = get_statement("S-lemA.2")
    v = next(x for x in variants(st) if x.name == "C x 9/10")
    a = check(v.statement)
    b = check(dataclasses.replace(v.statement, witnesses=(), hypotheses=tuple(
        dataclasses.replace(h, outside=()) for h in v.statement.hypotheses)))
    assert a.verdict == b.verdict == "refuted" and a.counterexample == b.counterexample
    assert a.counterexample["point"] not in [engine._show_env(st, w) for w in st.witnesses[0].points]


def test_classification_runs_no_check(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("classify called the check")

    monkeypatch.setattr(engine, "check", forbidden)
    st = get_statement("N-lemC.3")
    classes = [classify(st, v)["class"] for v in variants(st)]
    assert classes.count("false") >= 3 and "true" in classes


def test_variants_edit_the_named_fields_and_the_latex_follows():
    st = get_statement("S-lemA.2")
    names = [v.name for v in variants(st)]
    assert names[:6] == ["C x 1/2", "C x 9/10", "C x 11/10", "C x 2", "e -1", "e +1"]
    assert {"relation >=", "relation <", "drop det A > 0"} <= set(names)
    v = variants(st)[1]
    assert v.statement.field("C").value == sympy.Rational(9, 10)
    assert r"\frac{9}{10}" in v.statement.latex() and r"\frac{9}{10}" not in st.latex()
    assert st.latex().count(r" \le ") == 1


def test_classification_by_exact_reasoning():
    st = get_statement("S-thm3.1")
    cls = {v.name: classify(st, v)["class"] for v in variants(st)}
    # attained at m = 1 by projections: smaller constant, p^2, d^(m-1), strict: false
    assert cls["C_2 x 9/10"] == cls["e_p +1"] == cls["e_d -1"] == cls["relation <"] == "false"
    # implied: larger constant, p^0 (p <= 1), d^(m+1) (d >= 1)
    assert cls["C_2 x 11/10"] == cls["e_p -1"] == cls["e_d +1"] == "true"


# hand-written edits of the statement objects (not the engine's variants): each is false at an instance the
# edit's comment names, and the statement's own search must refute it
def _hand_edits():
    a, b, c = sympy.symbols("a b c")
    lW, lH = sympy.symbols("lambda_W lambda_H")
    p, s, d = sympy.symbols("p s d")
    lema2, sig, lin, eq12 = (get_statement(x) for x in ("S-lemA.2", "N-D-sigmas", "S-linear", "S-eq12"))
    return [
        # ||A|| replaced by tr A / 2: at a = 1, c = eps^2, b = eps (1 - eps) the left side is ~ 1, the right ~ 1/2
        dataclasses.replace(lema2, rhs=(a + c) / 2, fields=()),
        # (1 - c)^2 replaced by 1 - c^2
        dataclasses.replace(sig, rhs=1 - lW * lH, fields=()),
        # p mu_2 d replaced by p mu_2 (d - 1/2): projections attain p mu_2 d
        dataclasses.replace(lin, rhs=p * s * (d - sympy.Rational(1, 2)), fields=()),
        # mu_2 replaced by mu_4 / 3 (equal only at unit variance s = 1)
        dataclasses.replace(eq12, rhs=p * 3 * s ** 2 / 3, fields=(eq12.fields[0],)),
    ]


@pytest.mark.parametrize("i", range(4))
def test_hand_written_wrong_statements_are_refuted(i):
    st = _hand_edits()[i]
    r = check(st)
    assert r.verdict == "refuted" and r.counterexample["certified"] in ("exact rationals", "Arb balls")


def test_summary_counts():
    rows = [{"false": 3, "caught": 3, "true": 2, "false_alarms": 0, "unknown": 1, "variants": [0] * 6,
             "original": {"check": "verified"}}]
    s = summarise(rows)
    assert (s["recall"], s["false_alarms"], s["unknown"], s["originals_verified"]) == (1.0, 0, 1, 1)


def test_statements_selection_and_bad_input():
    assert [st.claim for st in statements(paper="N")] == ["N-lemC.3", "N-D-sigmas"]
    assert "S-lemA.4-weil" in [st.claim for st in statements(paper="S")]
    with pytest.raises(ValueError, match="'--claim'"):
        statements(claims=["S-nope"])
    with pytest.raises(ValueError, match="'--paper'"):
        statements(paper="X")


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "verify", "variants", *args], capture_output=True, text=True,
                          timeout=600)


@pytest.mark.parametrize("args", [["--claim", "S-nope"], ["--paper", "X"],
                                  ["--claim", "N-D-sigmas", "--json", "/no/such/dir/v.json"]])
def test_cli_bad_input_is_one_line_and_exit_2(args):
    proc = _cli(*args)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_cli_sample(tmp_path):
    out = tmp_path / "v.json"
    proc = _cli("--claim", "N-D-sigmas", "--json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "recall 10/10 (100.0%), false alarms 0/3" in proc.stdout
    doc = json.loads(out.read_text())
    assert doc["summary"]["caught"] == doc["summary"]["false"] == 10


def test_checks_read_the_current_statement(monkeypatch):
    # the route a claim's own check takes: its computed value, the statement object's relation and constants
    assert engine.holds("S-lemA.4-weil", {"r": 2, "n": 3}, S_P=4) is True          # attained: 4 = (3 - 1) sqrt(4)
    monkeypatch.setenv(engine.VARIANT_ENV, "S-lemA.4-weil::C x 9/10")
    assert engine.current("S-lemA.4-weil").field("C").value == sympy.Rational(9, 10)
    assert engine.holds("S-lemA.4-weil", {"r": 2, "n": 3}, S_P=4) is False
    assert engine.current("S-lemA.2") is get_statement("S-lemA.2")                 # another claim: the paper's
    monkeypatch.setenv(engine.VARIANT_ENV, "S-lemA.4-weil::no such edit")
    with pytest.raises(ValueError, match="VERIFY_STATEMENT_VARIANT"):
        engine.current("S-lemA.4-weil")


def test_the_default_tiers_sample_is_fixed_and_holds_both_classes():
    for claim in sorted(STATEMENTS):
        st = get_statement(claim)
        a, b = sample_variants(st), sample_variants(st)
        assert [v.name for v in a] == [v.name for v in b]            # seeded: the same variants every run
        classes = sorted(classify(st, v)["class"] for v in a)
        assert classes == ["false", "false", "true"], (claim, classes)
        order = [v.name for v in variants(st)]
        assert [order.index(v.name) for v in a] == sorted(order.index(v.name) for v in a)
    st = get_statement("S-lemA.2")
    assert [v.name for v in sample_variants(st, seed=1)] != [v.name for v in sample_variants(st, seed=2)] or \
        len(variants(st)) <= 3
    assert sample_variants(st, n_false=0, n_true=0) == []


@pytest.mark.parametrize("kw, name", [({"n_false": -1}, "n_false"), ({"n_true": 1.5}, "n_true"),
                                      ({"n_false": True}, "n_false")])
def test_sample_variants_bad_input_names_the_parameter(kw, name):
    with pytest.raises(ValueError, match=f"'{name}'") as exc:
        sample_variants(get_statement("S-lemA.2"), **kw)
    assert len(str(exc.value).splitlines()) == 1


def test_run_variant_is_one_row_of_run_claim():
    st = get_statement("N-D-sigmas")
    vs = variants(st)[:3]
    whole = run_claim(st, only=vs)
    assert whole["variants"] == [run_variant(st, v) for v in vs]
    for row in whole["variants"]:
        assert row["outcome"] == engine.OUTCOMES[(row["class"], row["check"])]
