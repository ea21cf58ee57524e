"""The statement objects of paper N's central path (verify/statement_data/N/central_path.py): their data is the
paper's, their classes come from exact reasoning at their own instances, the engine's two additions they need
(a computed quantity that reads the fields; a matrix shape ``K*n``), and a variant set in the environment reaching
each claim's own check in proofs_checks/N/central_path (a false variant fails it, a true control passes it)."""

from __future__ import annotations

import random

import numpy as np
import pytest
import sympy

import verify.statements as engine
from verify.numeric import ufm
from verify.statement_data import get_statement
from verify.statement_data.N import central_path as data
from verify.statements import classify, evaluate, hypotheses_hold, variants

from proofs_checks.N.central_path import test_statements as checks
from statement_checks import classified_variants

CLAIMS = ("N-thm2.2", "N-cor3.1", "N-decomp", "N-Wstar", "N-L-closed", "N-eq7", "N-lemA.1", "N-thm4.1-W", "N-thm4.1-dT",
          "N-eq8", "N-lemB.1", "N-B-distance", "N-B-limit", "N-etf", "N-metrics", "N-minimisers-R")

R = sympy.Rational


def _classes(claim):
    return {name: c["class"] for name, c in classified_variants(claim).items()}


@pytest.mark.parametrize("claim", CLAIMS)
def test_the_papers_statement_holds_exactly_at_its_own_instances(claim):
    """Every witness lies inside the statement's domain and the paper's statement holds there, decided exactly (an
    identity: equal sides; an attained case: equal sides; an approached or slack case: the relation)."""
    st = get_statement(claim)
    for w in st.witnesses:
        for env in w.points:
            assert hypotheses_hold(st, env) is True, (claim, w.kind)
            r = evaluate(st, env)
            assert r["holds"] is True, (claim, w.kind, r)
            if w.kind in ("identity", "attained"):
                assert engine._decide(r["lhs"], "=", r["rhs"]) is True, (claim, w.kind, r)


@pytest.mark.parametrize("claim", CLAIMS)
def test_at_least_three_false_variants_and_a_true_control(claim):
    classes = _classes(claim)
    assert sum(c == "false" for c in classes.values()) >= 3, classes
    assert "true" in classes.values(), classes


def test_classes_follow_the_papers_constants():
    # Lemma B.1: tight as lam_W lam_H -> oo (the approached witness), so a smaller 1/(Kn) or lam_H coefficient is
    # false, a larger 1/(Kn) true (a factor >= 1); lam_H >= 0 is needed (lam_H = -5, lam_W = 1/2: ratio > 5)
    c = _classes("N-lemB.1")
    assert c["c_0 x 9/10"] == c["C_H x 9/10"] == c["drop lam_H >= 0"] == c["relation <"] == "false"
    assert c["c_0 x 11/10"] == c["c_0 x 2"] == "true"
    # Thm 4.1: attained (means orthogonal to the spread), so a larger C is false; lam_H >= 0 is not needed
    c = _classes("N-thm4.1-W")
    assert c["C x 11/10"] == c["C x 2"] == c["relation <"] == c["relation >="] == "false"
    assert c["drop lam_H >= 0"] == "true"
    # App. A: (d - K)/(2K) is false to drop only because the witnesses have d != K
    c = _classes("N-L-closed")
    assert c["rhs: drop -C_3*(-K + d)"] == c["e x 9/10"] == c["C_2 x 11/10"] == "false"


def test_lemB1_approached_instance_is_close_to_the_bound():
    """The approached witnesses of Lemma B.1 reach the bound within 1e-3 (ratio in (1 - 1e-3, 1)), in Arb balls: a
    false 9/10 variant is false there by a margin, not by round-off."""
    st = get_statement("N-lemB.1")
    for env in st.witnesses[0].points:
        r = evaluate(st, env)
        ratio = engine.to_arb(r["lhs"]) / engine.to_arb(r["rhs"])
        assert ratio < 1 and ratio > 1 - engine.arb("1e-3"), ratio


def test_a_computed_quantity_that_reads_the_fields_follows_a_variant():
    """N-L-closed's Tr((Sigma_W + e lam_W I)(SigmaT~ + e lam_W I)^{-1}) with e = 1/K, and with the variant e x 2,
    against the same trace computed here with FLINT rationals: the field reaches the quantity."""
    st = get_statement("N-L-closed")
    env = st.witnesses[0].points[0]
    H = ufm.as_exact(np.array(env["H"].tolist(), dtype=object))
    cov = ufm.covariances(H, env["K"])
    for name, e in (("", R(1, env["K"])), ("e x 2", R(2, env["K"]))):
        vst = st if not name else next(v.statement for v in variants(st) if v.name == name)
        c = next(x for x in vst.computed if x.name == "TrAC")
        got = c.exact(engine._computed_env(vst, c, env))
        shift = np.eye(env["d"], dtype=int).astype(object) * ufm._to_fmpq(e * env["lambda_W"])
        want = ufm._trace((cov["Sigma_W"] + shift) @ ufm._inv(cov["Sigma_T_tilde"] + shift, "exact"))
        assert got == sympy.Rational(int(want.p), int(want.q)), name
    assert engine._computed_env(st, st.computed[0], {"d": 2}) == {"d": 2}  # a quantity that does not read them


def test_a_matrix_shape_given_by_an_expression_of_the_sizes():
    st = get_statement("N-decomp")
    rng = random.Random(0)
    seen = set()
    for i in range(40):
        env = engine._sample(st, rng, simple=i % 2 == 0)
        assert env["H"].shape == (env["d"], env["K"] * env["n"]) and env["G"].shape == (env["d"], env["d"])
        seen.add(env["H"].shape)
    assert len(seen) >= 4


class _Verdict:
    def verified(self, **kwargs):
        pass


#: each claim's own check in proofs_checks/N/central_path/test_statements.py
OWN_CHECK = {"N-thm2.2": checks.test_thm22_collapsed_family_closed_form,
             "N-minimisers-R": checks.test_every_partial_orthonormal_R_is_a_minimiser,
             "N-decomp": checks.test_decomposition_exact, "N-eq8": checks.test_eq8_first_order_condition, "N-Wstar": checks.test_wstar_both_forms_exact,
             "N-L-closed": checks.test_loss_closed_form_every_step_exact,
             "N-eq7": checks.test_gradient_against_sympy_diff, "N-thm4.1-W": checks.test_thm41_TW_decreases,
             "N-thm4.1-dT": checks.test_trace_derivative_chains_exact,
             "N-lemB.1": checks.test_lemma_b1_gradient_bound, "N-lemA.1": checks.test_lemma_a1_exact,
             "N-etf": checks.test_etf_from_orthogonal_means, "N-metrics": checks.test_metrics_exact_identities}


@pytest.mark.parametrize("spec, fails", [
    ("N-decomp::c_W x 9/10", True), ("N-decomp::relation <=", False),
    ("N-Wstar::e x 11/10", True), ("N-Wstar::a x 1/2", True), ("N-Wstar::relation >=", False),
    ("N-L-closed::C_3 x 2", True), ("N-L-closed::e x 9/10", True), ("N-L-closed::relation <=", False),
    ("N-eq7::c_H x 9/10", True), ("N-eq7::relation >=", False),
    ("N-thm4.1-W::C x 11/10", True), ("N-thm4.1-W::relation >=", True), ("N-thm4.1-W::drop lam_H >= 0", False),
    ("N-thm4.1-dT::C_2 x 1/2", True), ("N-thm4.1-dT::relation <=", False),
    ("N-lemB.1::c_0 x 9/10", True), ("N-lemB.1::C_H x 1/2", True), ("N-lemB.1::c_0 x 11/10", False),
    ("N-lemA.1::e x 2", True), ("N-lemA.1::C x 9/10", True), ("N-lemA.1::relation >=", False),
    ("N-etf::c_K x 11/10", True), ("N-etf::relation <=", False),
    ("N-metrics::c x 1/2", True), ("N-metrics::relation >=", False),
    ("N-minimisers-R::C x 9/10", True), ("N-minimisers-R::e_h +1", True), ("N-minimisers-R::drop d >= K", False),
    ("N-eq8::c x 9/10", True), ("N-eq8::relation <=", False),
    ("N-thm2.2::C x 9/10", True), ("N-thm2.2::e_1 +1", True), ("N-thm2.2::drop c <= 1", False),
])
def test_a_variant_set_in_the_environment_reaches_the_claims_own_check(monkeypatch, spec, fails):
    claim = spec.split("::")[0]
    st = get_statement(claim)
    name = spec.split("::")[1]
    cls = classify(st, next(v for v in variants(st) if v.name == name))["class"]
    assert cls == ("false" if fails else "true"), (spec, cls)
    monkeypatch.setenv(engine.VARIANT_ENV, spec)
    if fails:
        with pytest.raises(AssertionError):
            OWN_CHECK[claim](_Verdict())
    else:
        OWN_CHECK[claim](_Verdict())


def test_the_module_lists_every_statement_once():
    assert [s.claim for s in data.STATEMENTS] == list(CLAIMS)


def test_appB_classes_come_from_their_own_instances():
    """App. B's distance bound: approached by a collapsed one-axis H at lW = lH = 100, beta = 10^6 (a smaller lam_H
    coefficient, a squared inverse, the reversed relation are false there), a larger 1 of beta/(nKM) - 1 makes the
    bound negative at beta = 1.05 nKM, H = 0 refutes the strict relation, beta = nKM/2 the dropped hypothesis. The
    limit: an identity at non-unit H0, V, lambdas, so every scaled Kn and both strict relations are false."""
    c = _classes("N-B-distance")
    assert c["C_H x 9/10"] == c["C_H x 1/2"] == c["e -1"] == c["relation >="] == "false"
    assert c["C_1 x 11/10"] == c["C_1 x 2"] == c["relation <"] == c["drop beta > nKM"] == "false"
    assert c["C_W x 2"] == c["e +1"] == "unknown" and c["drop beta > 0"] == "true"  # implied by beta > nKM
    c = _classes("N-B-limit")
    assert [k for k, v in c.items() if v == "false"] == ["c x 1/2", "c x 9/10", "c x 11/10", "c x 2", "relation <",
                                                         "relation >"]
    assert c["relation <="] == c["relation >="] == "true"


@pytest.mark.parametrize("spec, fails", [("N-B-limit::relation >", True), ("N-B-limit::relation >=", False)])
def test_a_variant_reaches_appB_limit_check(monkeypatch, spec, fails):
    """N-B-limit's own check: the strict '>' is caught only where the check decides the object exactly (its limit
    measured from 40-digit roots matches the object's, the relation then fails); the weaker '>=' passes."""
    monkeypatch.setenv(engine.VARIANT_ENV, spec)
    if fails:
        with pytest.raises(AssertionError):
            checks.test_appB_limit_and_order(_Verdict())
    else:
        checks.test_appB_limit_and_order(_Verdict())


@pytest.mark.parametrize("spec, fails", [
    ("N-B-distance::C_1 x 11/10", True), ("N-B-distance::drop beta > nKM", True), ("N-B-distance::e -1", True),
    ("N-B-distance::relation <", True), ("N-B-distance::C_W x 2", False), ("N-B-distance::drop beta > 0", False),
])
def test_a_variant_reaches_appB_distance_check(monkeypatch, spec, fails):
    """The exact part of N-B-distance's own check (its float minimiser runs take minutes) under a variant: false ones
    fail it, and C_W x 2 (weaker: a larger bound on a narrower beta-range, though not shown so) passes it."""
    monkeypatch.setenv(engine.VARIANT_ENV, spec)
    if fails:
        with pytest.raises(AssertionError):
            checks._bdist_statement_exact()
    else:
        checks._bdist_statement_exact()


def test_cor31_is_stated_at_an_irrational_point_and_decided_exactly():
    """Cor. 3.1's attained instances: H* holds sqrt 6 and sqrt(3/2) (irrational), both sides are radicals, decided
    equal by the exact zero test (not by rounding); a wrong point (C x 9/10) is refuted along its own axis in Arb."""
    st = get_statement("N-cor3.1")
    fields = {f.symbol: f.value for f in st.fields}
    for env in st.witnesses[0].points:
        scale = data._a.xreplace({**fields, data.lW: env["lambda_W"], data.lH: env["lambda_H"]})
        assert scale in (sympy.sqrt(6), sympy.sqrt(sympy.Rational(3, 2)))  # the entries of H* are irrational
        r = evaluate(st, env)
        assert r["holds"] is True and engine._decide(r["lhs"], "=", r["rhs"]) is True
    c = _classes("N-cor3.1")
    assert all(c[f"C x {k}"] == "false" for k in ("1/2", "9/10", "11/10", "2"))
    assert all(c[f"{e} {dv}"] == "false" for e in ("e_1", "e_2", "e_h") for dv in ("-1", "+1"))
    assert c["relation >"] == c["relation <="] == "false" and c["e_c -1"] == "unknown"  # e_c - 1: rho < 0, no point


#: the term (kappa a^2 - 1)^2/2 of Cor. 3.1's bound, as its variant names it
_COR31_TERM = "((lambda_H/lambda_W)**e_2*((lambda_W/lambda_H)**e_1*(C - (lambda_H*lambda_W)**e_c))**(2*e_h) - 1)**2/2"


@pytest.mark.parametrize("spec, fails", [
    ("N-cor3.1::C x 11/10", True), ("N-cor3.1::e_h +1", True), ("N-cor3.1::relation >", True),
    ("N-cor3.1::relation <=", True),
    ("N-cor3.1::rhs: drop " + _COR31_TERM, False),
])
def test_a_variant_reaches_cor31_check(monkeypatch, spec, fails):
    """The exact part of Cor. 3.1's own check (its L-BFGS runs are the slow part) under a variant: false ones fail
    it, the weaker bound without the (kappa a^2 - 1)^2/2 term (a true control) passes it."""
    monkeypatch.setenv(engine.VARIANT_ENV, spec)
    if fails:
        with pytest.raises(AssertionError):
            checks._cor31_statement_exact()
    else:
        checks._cor31_statement_exact()
