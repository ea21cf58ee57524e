"""The hand-written wrong statements (verify/statement_data/hand_edits.py) and ``verify variants --edits``.

Each false edit is shown false at its own instance by exact evaluation (never by the search); each true edit is
shown implied (equal sides, or a gap that is visibly >= 0). Then the statement's own search must refute every false
edit with a certified counterexample and spare every true one (the whole catalogue: about 30 s), an edit named in the
environment must reach a claim's own check, and the CLI's bad input is one line and exit 2. The claims' own checks
over the whole catalogue (``verify variants --edits --checks``) take tens of minutes: measured, not asserted here.
"""

import itertools
import subprocess
import sys

import pytest
import sympy
from statement_checks import check_under_variant

from proofs_checks.N.central_path import test_statements as cp_checks
from proofs_checks.S.lower_bound import test_statements as lb_checks
from proofs_checks.S.upper_bounds import test_statements as ub_checks
from verify import statements as engine
from verify.statement_data import get_statement
from verify.statement_data.hand_edits import PREFIX, catalogue, edits, get_edit
from verify.statements import evaluate, hypotheses_hold
from verify.variant_checks import run_edit_checks, run_edit_search

FALSE = [e for e in catalogue() if e.truth == "false"]
TRUE = [e for e in catalogue() if e.truth == "true"]


def _ids(es):
    return [e.name for e in es]


def test_the_catalogue_is_large_and_covers_both_papers():
    claims = {e.claim for e in catalogue()}
    assert len(catalogue()) >= 40 and len(claims) >= 20, (len(catalogue()), len(claims))
    assert {c[0] for c in claims} == {"S", "N"}
    assert len(FALSE) >= 40 and len(TRUE) >= 8
    assert len({e.name for e in catalogue()}) == len(catalogue())
    for e in catalogue():
        assert e.statement.claim == e.claim and e.statement != get_statement(e.claim), e.name
        assert (e.instance is not None) == (e.truth == "false") and e.description, e.name
        assert e.truth == "false" or e.how in ("equivalent", "weaker"), e.name


def _in_domain(st, env) -> bool:
    for p in st.params:
        v = env[p.name]
        if p.kind == "int" and v not in p.values:
            return False
        if p.kind == "rat" and not p.contains(sympy.sympify(v)):
            return False
        if p.kind == "matrix":
            vals = {k: x for k, x in env.items() if not isinstance(x, sympy.MatrixBase)}
            shape = tuple(int(sympy.sympify(x).xreplace({sympy.Symbol(k): y for k, y in vals.items()}))
                          for x in p.shape)
            if v.shape != shape or any(not (p.lo <= x <= p.hi) for x in v):
                return False
    return True


@pytest.mark.parametrize("e", FALSE, ids=_ids(FALSE))
def test_a_false_edit_fails_at_its_instance_where_the_paper_holds(e):
    st, env = e.statement, e.instance
    assert _in_domain(st, env), e.name
    assert hypotheses_hold(st, env) is True, e.name
    assert evaluate(get_statement(e.claim), env)["holds"] is True, e.name  # a point of the paper's statement
    assert evaluate(st, env)["holds"] is False, (e.name, evaluate(st, env))


def _substituted(st):
    lhs, rhs = st.substituted()
    return sympy.sympify(lhs), sympy.sympify(rhs)


def _grid(st):
    """Exact points of ``st``'s domain (every integer value, simple rationals) where its hypotheses hold."""
    simple = [sympy.Rational(x) for x in ("1/100", "1/3", "1/2", "1", "3/2", "2", "10", "-1/2", "-1")]
    axes = [[sympy.Integer(v) for v in p.values] if p.kind == "int" else [x for x in simple if p.contains(x)]
            for p in st.params if p.kind != "matrix"]
    names = [p.name for p in st.params if p.kind != "matrix"]
    for combo in itertools.product(*axes):
        env = dict(zip(names, combo))
        if hypotheses_hold(st, env) is True:
            yield env


@pytest.mark.parametrize("e", TRUE, ids=_ids(TRUE))
def test_a_true_edit_is_implied_by_the_paper(e):
    orig, st = get_statement(e.claim), e.statement
    assert st.relation == orig.relation and st.hypotheses == orig.hypotheses, e.name
    (l0, r0), (l1, r1) = _substituted(orig), _substituted(st)
    if e.how == "equivalent":
        assert sympy.simplify(l1 - l0) == 0 and sympy.simplify(r1 - r0) == 0, e.name
        return
    # weaker: the same left side, a bound looser by the gap, the gap >= 0 on the domain
    assert sympy.simplify(l1 - l0) == 0, e.name
    diff = r1 - r0 if orig.relation in ("<=", "<") else r0 - r1
    atoms = dict(e.atoms)
    assert sympy.simplify(diff - e.gap.xreplace({sympy.Symbol(k): v for k, v in atoms.items()})) == 0, e.name
    # visibly >= 0: every symbol of the gap is a parameter >= 0 on the domain, an atom, or a computed norm
    params = {p.name: p for p in orig.params}
    for x in e.gap.free_symbols:
        if x.name in atoms or x.name in e.nonneg:
            continue
        p = params[x.name]
        assert (p.kind == "int" and min(p.values) >= 0) or (p.kind == "rat" and p.lo is not None and p.lo >= 0), x
    pos = {x: sympy.Symbol(x.name, positive=True) for x in e.gap.free_symbols}
    assert e.gap.xreplace(pos).is_nonnegative is True, (e.name, e.gap)
    # each atom >= 0 at every point of an exact grid of the domain (atoms are elementary: n - d, 1 - p, det A, ...)
    for env in _grid(orig):
        for name, expr in atoms.items():
            v = sympy.sympify(expr).xreplace({sympy.Symbol(k): x for k, x in env.items()})
            assert engine._decide(v, ">=", 0) is True, (e.name, name, env)


def _assert_search_decides(e):
    r = run_edit_search(e)
    if e.truth == "false":
        assert r["outcome"] == "caught", (e.name, r)
        ce = r["counterexample"]
        assert ce["certified"] in ("exact rationals", "Arb balls"), ce
        # the search's counterexample is its own, and it is one: the edited relation fails there, exactly
        env = {k: (sympy.Matrix([[sympy.Rational(x) for x in row] for row in v]) if isinstance(v, list)
                   else sympy.Rational(v)) for k, v in ce["point"].items()}
        assert evaluate(e.statement, env)["holds"] is False
    else:
        assert r["outcome"] == "control held", (e.name, r)


@pytest.mark.parametrize("e", catalogue(), ids=_ids(catalogue()))
def test_the_search_refutes_every_false_edit_and_spares_every_true_one(e):
    _assert_search_decides(e)


def test_an_edit_in_the_environment_reaches_the_claims_own_check(monkeypatch):
    # S-lemA.1's check decides d/ds E f = C Cov through holds(): the lost minus sign must fail it ...
    check_under_variant(monkeypatch, ub_checks.test_lemA1_closed_forms, "S-lemA.1::" + PREFIX + "lemA.1-sign", True)
    assert engine.current("S-lemA.1") == get_edit("S-lemA.1", "lemA.1-sign").statement
    # ... and an edit of another claim leaves it reading the paper's statement
    check_under_variant(monkeypatch, ub_checks.test_lemA1_closed_forms, "S-lemA.2::" + PREFIX + "lemA.2-trace", False)
    assert engine.current("S-lemA.1") == get_statement("S-lemA.1")


@pytest.mark.parametrize("claim, edit, fails, check", [
    # the checks evaluate the statement where each part of the bound is closest to tight: an inverted dependence on
    # K (Thm 2.2(2): projections at s = K) or on lW (Lemma B.1: small H at lW = 1/3) fails them; weaker ones pass
    ("S-thm2.2-2", "thm2.2-2-inverted-constants", True, ub_checks.test_thm22_2_iid_slc_bound),
    pytest.param("S-thm2.2-2", "thm2.2-2-d-to-the-m", False, ub_checks.test_thm22_2_iid_slc_bound,
                 marks=pytest.mark.slow),
    ("N-lemB.1", "lemB.1-lambdaW-upstairs", True, cp_checks.test_lemma_b1_gradient_bound),
    ("N-lemB.1", "lemB.1-four-over-lambdaW", False, cp_checks.test_lemma_b1_gradient_bound),
    # eq. (22) and Thm 4.2: each false edit fails the claim's check at its first block
    ("S-eq22", "eq22-min-for-max", True, lb_checks.test_eq22_denominator_bound),
    ("S-eq22", "eq22-diagonal-left-out", True, lb_checks.test_eq22_denominator_bound),
    ("S-eq22", "eq22-1+k/d-dropped", True, lb_checks.test_eq22_denominator_bound),
    ("S-thm4.2", "thm4.2-max-for-min", True, lb_checks.test_thm42_lower_bound_constant),
    ("S-thm4.2", "thm4.2-d-to-the-m-twice", True, lb_checks.test_thm42_lower_bound_constant),
    ("S-thm4.2", "thm4.2-k-for-pk", True, lb_checks.test_thm42_lower_bound_constant)],
    ids=lambda x: x if isinstance(x, str) else None)
def test_an_edit_fails_the_claims_own_check(monkeypatch, claim, edit, fails, check):
    check_under_variant(monkeypatch, check, f"{claim}::{PREFIX}{edit}", fails)


def test_the_checks_route_runs_the_claims_checks_under_each_edit():
    # N-decomp: one check, which decides Sigma_T~ = c_W Sigma_W + c_B SigmaB~ with the object's constants
    r = run_edit_checks("N-decomp", edits(claims=["N-decomp"]))
    assert r["checks"] and not r["original_failed"], r
    assert (r["false"], r["caught"], r["false_alarms"]) == (1, 1, 0), r
    row = r["edits"][0]
    assert row["edits"] == "fields" and row["failed"][0]["check"].endswith("::test_decomposition_exact"), row


def test_a_wrong_edit_name_is_one_clear_error(monkeypatch):
    monkeypatch.setenv(engine.VARIANT_ENV, "S-lemA.1::" + PREFIX + "no-such-edit")
    with pytest.raises(ValueError, match="VERIFY_STATEMENT_VARIANT.*lemA.1-sign"):
        engine.current("S-lemA.1")
    with pytest.raises(ValueError, match="'--claim'"):
        edits(claims=["S-nope"])
    with pytest.raises(ValueError, match="'--paper'"):
        edits(paper="X")


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "verify", "variants", "--edits", *args], check=False,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("args", [["--claim", "S-nope"], ["--paper", "X"], ["--list"],
                                  ["--claim", "N-D-eig", "--json", "/no/such/dir/v.json"]])
def test_cli_edits_bad_input_is_one_line_and_exit_2(args):
    proc = _cli(*args)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_cli_edits_by_the_search(tmp_path):
    out = tmp_path / "e.json"
    proc = _cli("--claim", "N-D-eig", "--json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "false edits caught 2/2" in proc.stdout and "(false alarms) 0/1" in proc.stdout, proc.stdout
    assert "fails (exact rationals)" in proc.stdout  # the certified counterexample is printed
    assert out.exists()
