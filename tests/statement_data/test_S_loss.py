"""The statement objects of paper S's loss part (sec. 2, Remark 4.3): ``S-exact-loss``, ``S-tensor``,
``S-rem4.3-first-order``, ``S-rem4.3-scaling``, ``S-rem4.3-bound``.

Their fields are the paper's constants and exponents; their false variants are false at instances of the data (exact
classification, no check) and refuted by the statement's own search; the quantities they compute agree with the
package's other routes; and a variant set in ``VERIFY_STATEMENT_VARIANT`` reaches the claims' own checks.
"""

import pytest
import sympy
from sympy import Rational as R

import verify.statements as engine
from verify.statement_data import get_statement
from verify.statement_data.S._law import p_coefficient, pattern_expectations
from verify.statements import check, classify, run_claim, variants
from verify.symbolic import superposition_loss as S

from proofs_checks.S.loss import test_certified as loss_certified
from proofs_checks.S.loss import test_routes as loss_routes
from proofs_checks.S.loss import test_statements as loss_checks
from statement_checks import check_under_variant, classified_variants

CLAIMS = ("S-exact-loss", "S-tensor", "S-rem4.3-first-order", "S-rem4.3-scaling", "S-rem4.3-bound")
m = sympy.Symbol("m")

#: the paper's constants and exponents (sec. 2 eq. 7, proof of Thm 3.1, Remark 4.3, eq. 23)
PAPER = {
    "S-exact-loss": {"C_a": 2, "C_b": 1},
    "S-tensor": {"e": m, "C": 1},
    "S-rem4.3-first-order": {"C_a": 2, "C_b": 1, "e_1": m, "e_2": 2 * m},
    "S-rem4.3-scaling": {"C_a": 2, "e_c": 1 / m, "C": 1, "e_1": 2, "e_2": -1, "C_F": 2},
    "S-rem4.3-bound": {"C_F": 2, "e_1": m, "e_2": 2 * m, "C": 1},
}


@pytest.mark.parametrize("claim", CLAIMS)
def test_fields_are_the_papers_constants(claim):
    st = get_statement(claim)
    assert {f.name: sympy.sympify(f.value) for f in st.fields} == PAPER[claim]
    assert st.where and st.claim == claim


@pytest.mark.parametrize("claim", CLAIMS)
def test_at_least_three_false_variants_by_exact_reasoning(claim):
    false = [c for c in classified_variants(claim).values() if c["class"] == "false"]
    assert len(false) >= 3
    assert all("instance" in c for c in false)  # each false at an instance of the data, exactly


@pytest.mark.parametrize("claim", ("S-tensor", "S-rem4.3-first-order", "S-rem4.3-scaling"))
def test_every_variant_of_the_quick_statements_is_decided_as_classified(claim):
    """Recall 1 and no false alarm, the paper's statement verified (the others: the part's searches, slow tier)."""
    r = run_claim(get_statement(claim))
    assert r["original"]["check"] == "verified" and r["recall"] == 1 and r["false_alarms"] == 0, r


def test_the_expectations_add_up_to_the_brute_force_loss():
    """2 X - Y of the pattern enumeration (the parts of eq. 7 separately) equals the package's brute-force
    Ltilde at the same A, p and N(0, s) moments; and X, Y are homogeneous of degrees m, 2m in A (power: a wrong
    exponent in either part breaks one of the two)."""
    A = sympy.Matrix([[R(3, 2), R(-1, 2), R(1, 3)], [R(-1, 2), 1, R(1, 4)], [R(1, 3), R(1, 4), R(2, 3)]])
    for mm, pp, ss in ((1, R(1, 3), R(5, 2)), (3, R(1, 2), R(1, 3))):
        X, Y = pattern_expectations(A, mm, pp, ss)
        brute = S.brute_force_loss(A, mm, moments=lambda k: ss ** R(k, 2) * sympy.factorial2(k - 1)).xreplace({S.p: pp})
        assert 2 * X - Y == brute and X != 0 and Y > 0
        X2, Y2 = pattern_expectations(2 * A, mm, pp, ss)
        assert (X2, Y2) == (2 ** mm * X, 2 ** (2 * mm) * Y)


def test_the_first_coefficient_is_the_derived_losss():
    """The p^1 (and p^0, p^2) coefficients of the derived loss, by the row polynomial, equal those of the package's
    loss_expression at the same A with N(0, s) moments put in."""
    A = sympy.Matrix([[R(3, 2), R(-1, 2), R(1, 3)], [R(-1, 2), 1, R(1, 4)], [R(1, 3), R(1, 4), R(2, 3)]])
    for mm, ss in ((1, R(5, 2)), (3, R(1, 3))):
        poly = sympy.Poly(S.loss_expression(A, mm).xreplace(
            {S.mu(k): ss ** (k // 2) * sympy.factorial2(k - 1) for k in range(2, 2 * mm + 1, 2)}), S.p)
        for power in (0, 1, 2):
            assert p_coefficient(A, mm, ss, power) == poly.coeff_monomial(S.p ** power)
        assert p_coefficient(A, mm, ss, 0) == 0 and p_coefficient(A, mm, ss, 1) != 0
        assert abs(p_coefficient(A, mm, ss, 1, exact=False) - float(poly.coeff_monomial(S.p))) < 1e-12 * abs(
            float(poly.coeff_monomial(S.p)))


def test_a_scaled_constant_of_the_left_side_is_not_classified_by_the_right_sides_ratio():
    """S-rem4.3-bound's C_F lives in the left side: scaling it leaves the right side alone, so "the bound changes by
    the factor 1" is no reason; the variant is classified by an instance (C_F x 2: false) or by the sign of what the
    edit adds to lhs - rhs (C_F x 1/2 subtracts a sum of even powers: true, for that reason)."""
    st = get_statement("S-rem4.3-bound")
    by = {v.name: classify(st, v) for v in variants(st)}
    assert by["C_F x 1/2"]["class"] == "true" and "non-positive number" in by["C_F x 1/2"]["reason"]
    assert "factor 1," not in by["C_F x 1/2"]["reason"] and "factor 1 " not in by["C_F x 1/2"]["reason"]
    assert by["C_F x 2"]["class"] == "false"
    assert by["C x 2"]["class"] == "true" and by["C x 9/10"]["class"] == "false"


def test_the_bound_is_attained_so_a_smaller_constant_is_refuted_by_the_search():
    st = get_statement("S-rem4.3-bound")
    v = next(x for x in variants(st) if x.name == "C x 9/10")
    res = check(v.statement)
    assert res.verdict == "refuted" and res.counterexample["certified"] == "exact rationals"


class _Verdict:
    """Stands in for the plugin's ``verdict`` fixture: records nothing."""

    def verified(self, **kwargs):
        pass

    def certified(self, *args, **kwargs):
        pass


CHECKS = {"S-exact-loss": loss_checks.test_exact_loss_equals_brute_force_expectation,
          "S-tensor": loss_checks.test_tensor_identity_and_C_W_rewrite,
          "S-rem4.3-first-order": loss_checks.test_rem43_first_order_term,
          "S-rem4.3-scaling": loss_checks.test_rem43_scaling_identity,
          "S-rem4.3-bound": loss_certified.test_rem43_F_below_rank_certified}


@pytest.mark.parametrize("spec, fails", [
    ("S-exact-loss::C_a x 11/10", True), ("S-exact-loss::C_b x 1/2", True),
    ("S-tensor::e +1", True), ("S-tensor::C x 2", True), ("S-tensor::relation >=", False),
    ("S-rem4.3-first-order::e_2 -1", True), ("S-rem4.3-first-order::C_a x 9/10", True),
    ("S-rem4.3-scaling::e_c +1", True), ("S-rem4.3-scaling::C_F x 11/10", True), ("S-rem4.3-scaling::e_2 -1", True),
    ("S-rem4.3-scaling::relation <=", False),
    ("S-rem4.3-bound::C x 9/10", True), ("S-rem4.3-bound::C x 2", False)])
def test_a_variant_in_the_environment_reaches_the_claims_own_check(monkeypatch, spec, fails):
    """The checks read the statement object: a false variant named by VERIFY_STATEMENT_VARIANT fails the claim's own
    check, a true control passes it."""
    check_fn = CHECKS[spec.split("::")[0]]
    monkeypatch.setenv(engine.VARIANT_ENV, spec)
    if fails:
        with pytest.raises((AssertionError, ValueError)):
            check_fn(_Verdict())
    else:
        check_fn(_Verdict())


@pytest.mark.parametrize("name", ["C x 9/10", "e_1 +1", "e_2 -1", "C_F x 11/10"])
def test_the_bound_check_reads_the_statement_in_its_exact_part(monkeypatch, name):
    """S-rem4.3-bound's check in test_statements reads the object too: a false variant fails it at the attaining
    projections or at V = 2 [I 0] (before its L-BFGS part)."""
    monkeypatch.setenv(engine.VARIANT_ENV, "S-rem4.3-bound::" + name)
    with pytest.raises(AssertionError):
        loss_checks.test_rem43_F_bounded_by_rank_of_Btilde(_Verdict())


@pytest.mark.slow
def test_the_bound_check_passes_a_true_control(monkeypatch):
    """C x 2 (a larger bound) passes the whole check: its attainment count is F = rank B~, not F = C rank B~."""
    monkeypatch.setenv(engine.VARIANT_ENV, "S-rem4.3-bound::C x 2")
    loss_checks.test_rem43_F_bounded_by_rank_of_Btilde(_Verdict())


def _term_variant(claim: str, side: str) -> str:
    """The name of the first variant of ``claim`` that drops a term of ``side`` (``lhs``, ``rhs``, ``sup``)."""
    return next(v.name for v in variants(get_statement(claim)) if v.name.startswith(f"{side}: drop"))


#: (claim, variant name or (claim, side) of a dropped term, whether it is false, the check that must see it)
RELATION_AND_TERM_EDITS = [
    ("S-eq6", "relation <", True, loss_checks.test_eq6_loss_is_pnmu2_minus_ltilde),
    ("S-eq6", ("S-eq6", "rhs"), True, loss_checks.test_eq6_loss_is_pnmu2_minus_ltilde),
    ("S-eq9", "relation >", True, loss_checks.test_eq9_diagonal_A),
    ("S-eq9", ("S-eq9", "rhs"), True, loss_checks.test_eq9_diagonal_A),
    ("S-eq10", ("S-eq10", "sup"), True, loss_checks.test_eq10_unsuperposed_supremum),
    ("S-eq10", "relation <", True, loss_checks.test_eq10_unsuperposed_supremum),
    ("S-tensor", "relation <", True, loss_checks.test_tensor_identity_and_C_W_rewrite),
    ("S-linear", "relation <", True, loss_checks.test_linear_case_formula_bound_and_attainment),
    ("S-linear", "relation >=", True, loss_certified.test_linear_bound_certified_at_maximiser),
    ("S-linear", "C x 2", False, loss_certified.test_linear_bound_certified_at_maximiser),
    ("S-linear", "e_d +1", False, loss_routes.test_maximise_result_reports_what_it_found),
    ("S-rem4.3-first-order", "relation >", True, loss_checks.test_rem43_first_order_term),
    ("S-rem4.3-first-order", ("S-rem4.3-first-order", "rhs"), True, loss_checks.test_rem43_first_order_term),
    ("S-rem4.3-scaling", "C_a x 9/10", True, loss_checks.test_rem43_scaling_identity),
    ("S-rem4.3-scaling", ("S-rem4.3-scaling", "lhs"), True, loss_checks.test_rem43_scaling_identity),
    ("S-rem4.3-scaling", ("S-rem4.3-scaling", "rhs"), True, loss_checks.test_rem43_scaling_identity),
    ("S-rem4.3-bound", "relation >=", True, loss_checks.test_rem43_F_bounded_by_rank_of_Btilde),
    ("S-rem4.3-bound", "relation <", True, loss_certified.test_rem43_F_below_rank_certified),
    ("S-rem4.3-bound", "C_F x 1/2", False, loss_certified.test_rem43_F_below_rank_certified),
    ("S-rem4.3-bound", ("S-rem4.3-bound", "lhs"), True, loss_certified.test_rem43_F_below_rank_certified),
]


@pytest.mark.parametrize("claim, name, fails, check_fn", RELATION_AND_TERM_EDITS,
                         ids=[f"{c}::{n if isinstance(n, str) else n[1] + ' term'}" for c, n, _, _ in
                              RELATION_AND_TERM_EDITS])
def test_an_edited_relation_or_a_dropped_term_reaches_the_claims_own_check(monkeypatch, claim, name, fails,
                                                                           check_fn):
    """The checks evaluate the statement object itself (holds / sides) at their points, with the quantities by their
    own routes: a reversed or strict relation, a dropped term, fails them; a weaker true statement (a larger bound,
    C_F halved in F <= C rank B~) passes them, their reach being compared with the attained case, not the bound."""
    name = name if isinstance(name, str) else _term_variant(*name)
    st = get_statement(claim)
    v = next(x for x in variants(st) if x.name == name)
    assert classify(st, v)["class"] == ("false" if fails else "true")
    check_under_variant(monkeypatch, check_fn, f"{claim}::{name}", fails)
