"""Statements as data (verify/statements.py, verify/statement_data/) and ``verify variants``.

The default tier runs the variants of two quick claims and a few hand-written edits; the slow tier runs every
covered claim. What is asserted is the project's target: every false variant refuted by the statement's own search
with a certified counterexample, no true control refuted, the paper's statement itself verified. Then the
default tier's seeded sample; and that the claims' checks read their constants from the statement objects: a scan
of the checks for a constant typed as a literal (with a check of its power), and a variant set in the environment
reaching a claim's own check.
"""

import ast
import dataclasses
import json
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

import verify.statements as engine
from verify.statement_data import STATEMENTS, get_statement, statements
from verify.statements import check, classify, run_claim, run_variant, sample_variants, summarise, variants

from proofs_checks.S.frames import test_statements as frames_checks
from proofs_checks.S.loss import test_statements as loss_checks

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
    from verify.claims import CLAIMS

    # paper N's covered claims, in catalogue order, and only they
    assert [st.claim for st in statements(paper="N")] == [c.id for c in CLAIMS if c.id.startswith("N-")
                                                            and c.id in STATEMENTS]
    assert {"N-lemC.3", "N-D-sigmas"} <= {st.claim for st in statements(paper="N")}
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


# --------------------------------------------------------------------------- no check re-types a constant
# The checks of a claim with a statement object read its constants and exponents from the object
# (verify.statements.current / constants / holds), so a variant injected into the object reaches every check and a
# constant is typed once. The scan below looks, in each such claim's check functions and the module helpers they
# call, for the statement's constants typed as literals, in two forms:
#  (a) a ratio bound: a constant that multiplies a whole side of the statement, as a bare comparand of an order
#      comparison (``ratio <= 1``) or with a float slack (``ratio <= 1 + 1e-12``; a relative slack on a bound the
#      check computed, ``bound * (1 + 1e-12)``, is not one);
#  (b) a part of the statement's formula that carries a constant or exponent, with the paper's value typed in:
#      an expression of the check that equals (as a function of the statement's parameters, compared at random
#      rational points) a sub-expression of the statement holding a field, e.g. ``(n - 1) * math.sqrt(2 ** r)``
#      for ``(C n - D) 2^{r e}``.
SUITE = Path(__file__).resolve().parents[1] / "proofs_checks"
_SQRT = ("sqrt",)
#: the functions by which a check reads its claim's statement object (verify.statements)
STATEMENT_READERS = ("constants", "holds", "sides", "current")


def _literal(node):
    """The value of a numeric literal (``2``, ``-1``, ``0.5``, ``Fraction(1, 2)``, ``sympy.Rational(1, 2)``), else
    None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return Fraction(node.value).limit_denominator(10 ** 6)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _literal(node.operand)
        return None if v is None else -v
    name = getattr(node.func, "attr", getattr(node.func, "id", "")) if isinstance(node, ast.Call) else ""
    if name in ("Rational", "Fraction", "R") and len(node.args) == 2:
        a, b = _literal(node.args[0]), _literal(node.args[1])
        return a / b if a is not None and b else None
    return None


def _is_slack(node) -> bool:
    """A float slack: a literal below 1e-3 in size (``1e-12``, ``2e-4``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, float):
        return 0 < abs(node.value) < 1e-3
    v = _literal(node)
    return v is not None and 0 < abs(v) < Fraction(1, 1000)


def _bound_constants(st) -> set:
    """The statement's constants that a check compares a ratio with: numeric constants that are a factor of a whole
    side (``C`` of ``lhs <= C rhs'``, so ``lhs / rhs' <= C``)."""
    out = set()
    for f in st.fields:
        if f.kind == "constant" and sympy.sympify(f.value).is_Number:
            for side in (st.lhs, st.rhs):
                if sympy.sympify(side).as_independent(f.symbol, as_Add=False)[1] == f.symbol:
                    out.add(Fraction(str(sympy.nsimplify(f.value))))
    return out


def _field_forms(st) -> list:
    """The sub-expressions of the statement (both sides, the suprema's bodies) that hold a field, with the fields'
    paper values put in, that still hold a number and a parameter: the forms a check would type."""
    sub = {f.symbol: sympy.sympify(f.value) for f in st.fields}
    fsyms = set(sub)
    params = {p.symbol for p in st.params}
    out = []
    for side in [st.lhs, st.rhs] + [sp.expr for sp in st.sups]:
        for node in sympy.preorder_traversal(sympy.sympify(side)):
            if node.free_symbols & fsyms and node not in fsyms:
                form = node.xreplace(sub)
                if form.free_symbols and form.free_symbols <= params and form.atoms(sympy.Number) - {1, -1} \
                        and form not in out:
                    out.append(form)
    return out


def _equal_as_functions(code_expr, form, syms) -> bool:
    rng = random.Random(0)
    for _ in range(3):
        point = {s: sympy.Rational(rng.randint(3, 40), rng.randint(1, 7)) for s in syms}
        point.update({s: sympy.Integer(rng.choice((3, 5, 7))) for s in syms if s.name in ("m", "n", "r", "d")})
        try:
            a, b = (sympy.N(e.xreplace(point), 30) for e in (code_expr, form))
        except (TypeError, ValueError, ZeroDivisionError):
            return False
        if not (a.is_number and b.is_number) or abs(a - b) > 1e-20 * (1 + abs(b)):
            return False
    return True


def _to_sympy(node, names):
    """A check's expression as sympy, its names read as the statement's parameters (None when it uses another
    name or a call other than a square root)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and getattr(n.func, "attr", getattr(n.func, "id", "")) not in _SQRT + (
                "Rational", "Fraction", "R"):
            return None
        if isinstance(n, ast.Name) and n.id not in names and n.id not in ("math", "np", "sympy", "Fraction", "R"):
            return None
        if isinstance(n, (ast.Subscript, ast.Compare, ast.BoolOp, ast.Lambda, ast.comprehension)):
            return None
    text = ast.unparse(node).replace("math.sqrt", "sqrt").replace("np.sqrt", "sqrt").replace("sympy.sqrt", "sqrt")
    try:
        return sympy.sympify(text, locals={**names, "sqrt": sympy.sqrt, "Fraction": sympy.Rational,
                                           "R": sympy.Rational, "Rational": sympy.Rational})
    except (sympy.SympifyError, SyntaxError, TypeError, AttributeError):
        return None


def typed_constants(st, fn, helpers=()) -> list:
    """Where the check function ``fn`` (an ``ast.FunctionDef``) and the module ``helpers`` it calls type a constant
    of the statement ``st``: ``[(line, form, code)]``."""
    # a check that reads the statement object compares its own normalised ratio (value / the statement's bound) with
    # 1: rule (a) is for the checks that compare a raw ratio with the constant typed in
    reads = any(isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", "")) in STATEMENT_READERS
                for tree in (fn, *helpers) for n in ast.walk(tree))
    consts = set() if reads else _bound_constants(st)
    names = {p.name: sympy.Symbol(p.name, positive=True) for p in st.params if p.kind != "matrix"}
    forms = [f.xreplace({sympy.Symbol(k): v for k, v in names.items()}) for f in _field_forms(st)]
    out = []
    for tree in (fn, *helpers):
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE))
                                                     for op in node.ops):
                for side in (node.left, *node.comparators):  # the ratio's bound itself, not a relative slack
                    if _literal(side) in consts:
                        out.append((node.lineno, "a ratio bound", ast.unparse(node)))
                    elif isinstance(side, ast.BinOp) and isinstance(side.op, (ast.Add, ast.Sub)) \
                            and _literal(side.left) in consts and _is_slack(side.right):
                        out.append((node.lineno, "a ratio bound with slack", ast.unparse(node)))
            elif isinstance(node, (ast.BinOp, ast.Call)) and forms and any(
                    _literal(x) is not None for x in ast.walk(node)) and _literal(node) is None:
                e = _to_sympy(node, names)
                if isinstance(e, sympy.Expr) and e.free_symbols:
                    for form in forms:
                        if _equal_as_functions(e, form, sorted(e.free_symbols | form.free_symbols, key=str)):
                            out.append((node.lineno, f"the statement's {form}", ast.unparse(node)))
                            break
    return out


def _claim_checks():
    """(claim, file, check function, the module helpers it calls) for every non-corrected check of a claim with a
    statement object."""
    out = []
    for path in sorted(SUITE.rglob("test_*.py")):
        tree = ast.parse(path.read_text())
        helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("_")}
        for fn in [n for n in tree.body if isinstance(n, ast.FunctionDef)]:
            ids, corrected = [], False
            for d in fn.decorator_list:
                for n in ast.walk(d):
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "claim":
                        ids += [a.value for a in n.args if isinstance(a, ast.Constant)]
                        corrected |= any(k.arg == "corrected" and getattr(k.value, "value", False) for k in n.keywords)
            called = [helpers[n.func.id] for n in ast.walk(fn) if isinstance(n, ast.Call)
                      and isinstance(n.func, ast.Name) and n.func.id in helpers]
            for cid in ids:
                if cid in STATEMENTS and not corrected:
                    out.append((cid, path.relative_to(SUITE), fn, tuple(dict.fromkeys(called))))
    return out


#: checks that type a number equal to a part of a statement for another reason: (file, check) -> why
NOT_THE_STATEMENT = {
    ("S/frames/test_outputs.py", "test_exported_frame_entry_is_the_built_frame"):
        "the frame's column scale 2^(-r/2) (the construction V = signs / sqrt(d)), not the lemma's bound",
    ("S/frames/test_outputs.py", "test_saved_frame_reloads_bit_for_bit_with_its_certificate"):
        "the saved file's scale field 2^(-r/2) (the construction's normalisation), not the lemma's bound",
    ("S/lower_bound/test_routes.py", "test_frame_statistics_by_the_untabulated_trace_equal_the_tabulated"):
        "the frame's column count N = 2^(rm) (the number of codes), not Remark 4.3's order d^m",
}


def test_no_check_retypes_a_constant_of_its_statement():
    bad = []
    for cid, path, fn, helpers in _claim_checks():
        if (path.as_posix(), fn.name) in NOT_THE_STATEMENT:
            continue
        for line, form, code in typed_constants(get_statement(cid), fn, helpers):
            bad.append(f"{path}:{line} {fn.name} [{cid}]: {form} typed as {code}")
    assert not bad, "\n".join(sorted(set(bad)))


def test_the_scan_finds_a_retyped_constant():
    """The scan has power: the Weil bound typed by hand, a ratio bound with slack, a bare ratio bound are found; the
    same checks reading the statement object are not."""
    weil, lema2 = get_statement("S-lemA.4-weil"), get_statement("S-lemA.2")
    typed = ast.parse("def f(v, n, r):\n    assert abs(v) <= (n - 1) * math.sqrt(2 ** r)\n").body[0]
    read = ast.parse("def f(v, n, r):\n    assert holds('S-lemA.4-weil', {'n': n, 'r': r}, S_P=v)\n").body[0]
    found = typed_constants(weil, typed)
    assert found and all(line == 2 and form.startswith("the statement's") for line, form, _ in found)
    assert typed_constants(weil, read) == []
    slack = ast.parse("def f(w):\n    assert w <= 1 + 1e-12\n    assert w > 1\n").body[0]
    assert sorted(x[1] for x in typed_constants(lema2, slack)) == ["a ratio bound", "a ratio bound with slack"]
    ok = ast.parse("def f(w):\n    C = constants('S-lemA.2')['C']\n    assert w <= C + 1e-12\n").body[0]
    assert typed_constants(lema2, ok) == []


class _Verdict:
    """Stands in for the plugin's ``verdict`` fixture: records nothing."""

    def verified(self, **kwargs):
        pass


@pytest.mark.parametrize("spec, fails", [("S-lemA.4-weil::C x 9/10", True), ("S-lemA.4-weil::C x 11/10", False),
                                         ("S-lemA.4-weil::e -1", True), ("S-eq9::C_a x 9/10", True),
                                         ("S-eq9::e_2 +1", True)])
def test_a_variant_set_in_the_environment_reaches_the_claims_own_check(monkeypatch, spec, fails):
    """The checks read the statement object (verify.statements.current), so a variant named by
    VERIFY_STATEMENT_VARIANT is what the claim's own check tests: a false one fails it, a true control passes."""
    check = {"S-lemA.4-weil": frames_checks.test_weil_bound_every_odd_degree_polynomial_small_fields,
             "S-eq9": loss_checks.test_eq9_diagonal_A}[spec.split("::")[0]]
    check(_Verdict())                                    # the paper's statement: the check passes
    monkeypatch.setenv(engine.VARIANT_ENV, spec)
    if fails:
        with pytest.raises(AssertionError):
            check(_Verdict())
    else:
        check(_Verdict())


def test_each_statement_lives_in_its_claims_part():
    """The data module of a statement is the part of the paper its claim's checks live in (claims.PARTS)."""
    from verify.claims import PARTS
    from verify.statement_data import PART_MODULES

    assert set(PART_MODULES) == set(PARTS) - {"experiments"}
    for part, mod in PART_MODULES.items():
        for st in mod.STATEMENTS:
            assert st.claim in PARTS[part], (st.claim, part)


def test_every_verified_proof_claim_of_the_committed_report_has_a_statement_object():
    """Issue 43's coverage: each claim checked by proof (kind sym, hp or num) that the committed report verifies has
    a statement object, so its variants can be injected (the count of its false variants is asserted by the slow
    tier's every-variant check, :func:`proofs_checks._searches.check_variants`)."""
    report = json.loads((Path(__file__).resolve().parents[1] / "docs" / "_data" / "verdicts.json").read_text())
    proof = [c["id"] for c in report["claims"]
             if c["verdict"] == "verified" and {"sym", "hp", "num"} & {k.strip() for k in c["kind"].split(",")}]
    assert len(proof) >= 50, proof  # the report's list, not an empty one
    assert sorted(set(proof) - {st.claim for st in statements()}) == []


@pytest.mark.parametrize("claim", ["S-eq6", "N-eq8", "N-metrics"])
def test_a_store_searches_each_variant_once_and_changes_no_result(claim, tmp_path, monkeypatch):
    """Through a session store (``statement_store``, shared by the default tier's sample and the slow tier's every
    variant) :func:`run_claim` gives what it gives without one, as JSON, and searches the statement and each variant
    once: after the sample, every variant's run searches only the variants the sample did not."""
    from verify.session_store import SessionStore

    st = get_statement(claim)
    sample = sample_variants(st)
    direct_sample, direct_all = run_claim(st, only=sample), run_claim(st)
    searched = []
    real_check = engine.check
    monkeypatch.setattr(engine, "check", lambda s, *a, **k: searched.append(s) or real_check(s, *a, **k))
    store = SessionStore(tmp_path)
    stored_sample = run_claim(st, only=sample, store=store)
    assert len(searched) == 1 + len(sample)
    stored_all = run_claim(st, store=store)
    assert len(searched) == 1 + len(variants(st))
    assert json.dumps(stored_sample) == json.dumps(json.loads(json.dumps(direct_sample)))
    assert json.dumps(stored_all) == json.dumps(json.loads(json.dumps(direct_all)))
    seen = []
    again = run_claim(st, store=store, progress=lambda c, row: seen.append((c, row["variant"])))   # read, not run
    assert len(searched) == 1 + len(variants(st)) and again == stored_all
    assert seen == [(claim, v.name) for v in variants(st)]   # the progress of every row, read ones too, in order
    # each statement searched is a different one: the original, then each variant once
    assert [engine._identity(s) for s in searched] == [engine._identity(s) for s in (
        [st] + [v.statement for v in sample] + [v.statement for v in variants(st) if v not in sample])]


def test_a_store_keeps_two_variants_of_one_name_apart(tmp_path):
    """A variant is stored under its whole statement, not its name, kind or LaTeX: N-eq8's ``c x 1/2`` prints as the
    paper's statement does (it scales a constant of a side that prints alike), so a twin of that name, kind and
    LaTeX whose statement *is* the paper's is searched apart from it, never one read for the other."""
    from verify.session_store import SessionStore

    st = get_statement("N-eq8")
    half = next(v for v in variants(st) if v.name == "c x 1/2")
    twin = dataclasses.replace(half, statement=st)
    assert twin.statement.latex() == half.statement.latex() and (twin.name, twin.kind) == (half.name, half.kind)
    store = SessionStore(tmp_path)
    a, b = run_claim(st, only=[twin], store=store), run_claim(st, only=[half], store=store)
    assert a["variants"][0]["check"] == "verified" and b["variants"][0]["outcome"] == "caught"
    assert json.dumps(b) == json.dumps(json.loads(json.dumps(run_claim(st, only=[half]))))


def test_a_counterexample_reads_as_its_enclosures_where_the_exact_sides_are_too_long():
    """The reader's text of a refuted variant (every route's): an Arb side "expression = [ball]" keeps a short exact
    expression and shows only the ball for a long one (a sum of surds over 100-digit integers filled 1,100
    characters of one table cell); the recorded counterexample keeps both."""
    from verify.reporters._common import MAX_EXPRESSION, variant_found

    ball = "[0.003038187451093547761309917862 +/- 9.53e-34]"
    long = " + ".join(f"{7 ** 60 + k}*sqrt({k + 2})/{11 ** 70}" for k in range(3))
    short = "1477/3600 - sqrt(6)/300"
    ce = {"point": {"s": "1/10"}, "relation": ">=", "certified": "Arb balls"}
    text = variant_found({"search": "refuted", "counterexample": {**ce, "lhs": f"{long} = {ball}",
                                                                   "rhs": f"{short} = [0.4021 +/- 2.42e-31]"}})
    assert text == ("refuted at s = 1/10: [0.003038 +/- 9.53e-34] >= 1477/3600 - sqrt(6)/300 = [0.4021 +/- 2.42e-31] "
                    "fails (Arb balls)")
    edge = "x" * MAX_EXPRESSION   # the longest expression still shown
    text = variant_found({"search": "refuted", "counterexample": {**ce, "lhs": f"{edge} = {ball}", "rhs": "1"}})
    assert f"{edge} = [0.003038 +/- 9.53e-34]" in text
    text = variant_found({"search": "refuted", "counterexample": {**ce, "lhs": f"{edge}x = {ball}", "rhs": "1"}})
    assert "xx" not in text and "[0.003038 +/- 9.53e-34] >= 1" in text
    text = variant_found({"search": "refuted", "counterexample": {**ce, "lhs": "0", "rhs": f"{long} = {ball}"}})
    assert text == "refuted at s = 1/10: 0 >= [0.003038 +/- 9.53e-34] fails (Arb balls)"
