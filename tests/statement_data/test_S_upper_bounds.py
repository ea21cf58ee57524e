"""The statement objects of paper S's upper bounds (verify/statement_data/S/upper_bounds.py): their fields are the
paper's, their witnesses are what they say (decided exactly, without the check), each has at least three false
variants, a variant set in the environment reaches the claim's own check, and (slow tier) the statement's own search
refutes every false variant and keeps the paper's statement and the true controls verified."""

import pytest
import sympy
from statement_checks import (
    assert_search_catches_every_false_variant,
    check_under_variant,
    classified_variants,
)

from proofs_checks.S.upper_bounds import test_certified as certified_checks
from proofs_checks.S.upper_bounds import test_statements as checks
from verify.statement_data import get_statement
from verify.statements import classify, constants, evaluate, variants

CLAIMS = ("S-lemA.3", "S-eq11", "S-fn3", "S-fn4", "S-eq16", "S-lemA.1", "S-thm2.2-2")

#: the constants and exponents as the paper prints them (Lemma A.3, eq. 11, footnotes 3-4, eq. 16, Lemma A.1,
#: Thm 2.2(2) with C_3 = K + K^3 from its proof)
PAPER = {"S-lemA.3": {"C_a": 2, "e": 2, "K": 1}, "S-eq11": {"e_n": 2, "e_lambda": -1, "K": 1},
         "S-fn3": {"K_L": 1, "e_L": 2, "K_R": 1, "e_R": 2}, "S-fn4": {"K": 1, "K_r": 1}, "S-eq16": {"C": 1, "e": 2},
         "S-lemA.1": {"C": -1}, "S-thm2.2-2": {"e_P": 1, "e_L": 3, "e_d": 1}}


@pytest.mark.parametrize("claim", CLAIMS)
def test_fields_are_the_papers(claim):
    assert constants(claim) == {k: sympy.Integer(v) for k, v in PAPER[claim].items()}


@pytest.mark.parametrize("claim", CLAIMS)
def test_witnesses_hold_as_described(claim):
    """Attained and identity witnesses are equalities of the paper's statement, slack ones strict, exactly."""
    st = get_statement(claim)
    for w in st.witnesses:
        for env in w.points:
            r = evaluate(st, env)
            assert r["holds"] is True, (claim, w.kind, env)
            diff = sympy.nsimplify(sympy.sympify(r["rhs"]) - sympy.sympify(r["lhs"]))
            if w.kind in ("attained", "identity"):
                assert diff == 0, (claim, w.kind, env, diff)
            elif w.kind == "slack":
                assert diff > 0, (claim, env)


@pytest.mark.parametrize("claim", CLAIMS)
def test_at_least_three_false_variants_and_a_true_control_without_a_check(claim, monkeypatch):
    classes = [c["class"] for c in classified_variants(claim, monkeypatch).values()]
    assert classes.count("false") >= 3 and classes.count("true") >= 1, (claim, classes)


def test_the_exponent_variants_of_lemma_a3_are_refuted_at_both_scales():
    """e - 1 fails where tr(M Sigma^+ M^T) > 1, e + 1 where |C*y| < 1: the data carries both scales, so neither is
    mistaken for a true control (the left side holds the field, so the rhs-ratio rule would call it true)."""
    st = get_statement("S-lemA.3")
    for name in ("e -1", "e +1", "C_a x 11/10"):
        v = next(x for x in variants(st) if x.name == name)
        assert classify(st, v)["class"] == "false", name


_CHECK = {"S-lemA.3": checks.test_lemA3_statement_at_the_maximiser_and_around_it,
          "S-eq11": checks.test_eq11_spectral_sum_exact_on_2x2,
          "S-fn3": checks.test_fn3_statement_at_the_adversarial_points,
          "S-fn4": certified_checks.test_fn4_factorisation_exact,
          "S-eq16": checks.test_eq16_gaussian_dense,
          "S-lemA.1": checks.test_lemA1_closed_forms,
          "S-thm2.2-2": checks.test_thm22_2_iid_slc_bound,
          "S-lemA.2": checks.test_lemA2_random_adversarial_exact,
          "S-eq12": checks.test_eq12_exact_sup_over_polynomials,
          "S-thm3.1": checks.test_thm31_chain_exact}




@pytest.mark.parametrize("spec, fails", [
    ("S-lemA.3::C_a x 11/10", True), ("S-lemA.3::K x 9/10", True), ("S-lemA.3::K x 2", False),
    ("S-eq11::e_lambda -1", True), ("S-eq11::K x 11/10", True), ("S-eq11::relation <=", False),
    ("S-fn3::K_R x 11/10", True), ("S-fn3::K_L x 2", False),
    ("S-eq16::C x 9/10", True), ("S-eq16::e -1", True), ("S-eq16::C x 2", False),
    ("S-lemA.1::C x 9/10", True), ("S-lemA.1::relation <", True), ("S-lemA.1::relation >=", False),
    ("S-fn4::K x 9/10", True), ("S-fn4::K_r x 2", True), ("S-fn4::relation <=", False),
    ("S-thm2.2-2::relation >=", True), ("S-thm2.2-2::e_d +1", False),
    ("S-lemA.2::e +1", True), ("S-lemA.2::relation >=", True), ("S-lemA.2::drop det A > 0", True),
    ("S-lemA.2::C x 2", False), ("S-lemA.2::relation <", False),
    ("S-eq12::e -1", True), ("S-eq12::relation >=", True), ("S-eq12::C x 11/10", False), ("S-eq12::e_p -1", False),
    ("S-thm3.1::relation <", True), ("S-thm3.1::relation >=", True), ("S-thm3.1::C_2 x 2", False),
    ("S-thm3.1::e_d +1", False)])
def test_a_variant_in_the_environment_reaches_the_claims_own_check(monkeypatch, spec, fails):
    check_under_variant(monkeypatch, _CHECK[spec.split("::")[0]], spec, fails)


@pytest.mark.slow
@pytest.mark.parametrize("claim", CLAIMS)
def test_every_false_variant_is_refuted_by_the_statements_own_search(claim):
    assert_search_catches_every_false_variant(claim)


def test_the_search_keeps_only_points_inside_the_domain():
    """x < 1 on the open interval (0, 1): Nelder-Mead climbs to the open end and a rounded point lands on x = 1,
    where the relation fails; that point is outside the statement (as K = 1 would be for "K > 1"), so the search
    must not report it."""
    from verify.statements import Field, Param, Statement, check

    x, C = sympy.symbols("x C")
    st = Statement(claim="demo", where="", params=(Param("x", "rat", lo=0, hi=1),), lhs=x, relation="<", rhs=C,
                   fields=(Field("C", "constant", 1),), budget=8, starts=2)
    r = check(st)
    assert r.verdict == "verified", r.evidence
    closed = Statement(claim="demo", where="", params=(Param("x", "rat", lo=0, hi=1, hi_open=False),), lhs=x,
                       relation="<", rhs=C, fields=(Field("C", "constant", 1),), budget=8, starts=2)
    assert check(closed).verdict == "refuted"  # with x = 1 in the domain the same search finds it


def test_an_edit_of_the_left_side_is_never_read_as_a_change_of_bound():
    """Lemma A.3's C_a x 9/10 leaves the right side as it is: the rhs-ratio rule must not call it true (it is true,
    sup = 0.81 T, but only by the completed square, which the classifier does not know): unknown. Footnote 3's
    K_L x 2 only subtracts more of a sum of even powers on the left: true, with that reason."""
    st = get_statement("S-lemA.3")
    v = next(x for x in variants(st) if x.name == "C_a x 9/10")
    assert classify(st, v)["class"] == "unknown"
    st = get_statement("S-fn3")
    for name in ("K_L x 2", "K_R x 1/2"):
        c = classify(st, next(x for x in variants(st) if x.name == name))
        assert c["class"] == "true" and "non-negative factors" in c["reason"], (name, c)
    for name in ("K_L x 1/2", "K_R x 2"):  # the other direction: false, at the attained instances
        assert classify(st, next(x for x in variants(st) if x.name == name))["class"] == "false", name


def test_non_negativity_read_off_the_form():
    from verify.statements import Param, _nonneg

    x, m, s = sympy.symbols("x m s")
    params = {x: Param("x", "rat", lo=-2, hi=2), m: Param("m", "int", values=(1, 3)), s: Param("s", "rat", lo=0)}
    assert _nonneg(x ** (2 * m) + x ** 2 * s, params) and _nonneg((x ** 2 + 1) ** sympy.Rational(3, 2), params)
    assert not _nonneg(x ** 3, params) and not _nonneg(x ** m, params) and not _nonneg(x * s, params)
    assert not _nonneg(s - 1, params)
    K = sympy.Symbol("K")
    params[K] = Param("K", "rat", lo=1, hi=2, lo_open=False)
    assert _nonneg(K - 1, params) and _nonneg(K ** 3 * (K - 1) * s, params) and not _nonneg(K - 2, params)


def test_thm22_2_larger_powers_of_k_are_true_controls():
    """e_P + 1 and e_L + 1 only raise the bound (K >= 1): true, read off -K^j (K - 1) d; the smaller powers are true
    only through the Gaussian energy (sup <= s d <= K d), which the classifier does not know: unknown."""
    st = get_statement("S-thm2.2-2")
    cls = {v.name: classify(st, v)["class"] for v in variants(st)}
    assert cls["e_P +1"] == cls["e_L +1"] == "true" and cls["e_P -1"] == cls["e_L -1"] == "unknown"
