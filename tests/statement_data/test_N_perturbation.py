"""The statement objects of paper N's perturbation part (verify/statement_data/N/perturbation.py).

Each object's classification (exact, check-free) has at least three false variants and a true control; the paper's
statement is verified by its own search; the claims' own checks read the object, so a variant named by
VERIFY_STATEMENT_VARIANT reaches them (a false one fails them, a true control passes). The engine branches these
statements need are checked here too: a bound 0 (the fields in the left side), a Max in the LaTeX, and a rounded
search point that left a parameter's open domain.
"""

import inspect

import pytest
import sympy

import verify.statements as engine
from verify.statement_data import get_statement
from verify.statements import check, classify, evaluate, variants

from proofs_checks.N.perturbation import test_routes as routes_checks
from proofs_checks.N.perturbation import test_statements as part_checks
from statement_checks import classified_variants

NEW = ("N-C-derivs", "N-C2-derivative", "N-D-residual", "N-D-commutation", "N-D-Z-blocks", "N-D-mu-lambda", "N-D-eig",
       "N-D.1-full-F", "N-lemC.4", "N-fig1")


class _Verdict:
    """Stands in for the plugin's ``verdict`` fixture: records nothing."""

    def verified(self, **kwargs):
        pass


@pytest.mark.parametrize("claim", NEW)
def test_classification_has_three_false_variants_and_a_control(claim):
    classes = [c["class"] for c in classified_variants(claim).values()]
    assert classes.count("false") >= 3 and classes.count("true") >= 1, (claim, classes)


@pytest.mark.parametrize("claim", NEW)
def test_the_papers_statement_is_verified_by_its_own_search(claim):
    r = check(get_statement(claim))
    assert r.verdict == "verified" and r.evidence["tested"] >= 10, r.evidence


def test_C2_derived_side_is_the_definitions_mixed_derivative():
    # L(H + t D + s V) by sympy (slow, exact) at one point equals the FLINT series route the statement uses
    from verify.statement_data.N import perturbation as data

    env = data._c2_point(sympy.Rational(1, 2), sympy.Rational(3, 2), sympy.Rational(1, 5), 7)
    _, K, n, H, D, V, lw, lh = data._c2_mats(env)
    t, s = sympy.symbols("t s")
    Ht = H + t * D + s * V
    Y = sympy.Matrix(K, K * n, lambda a, b: 1 if b // n == a else 0)
    M = Ht * Ht.T + n * lw * sympy.eye(2)
    Ws = Y * Ht.T * M.adjugate() / M.det()
    sq = lambda X: sum(x ** 2 for x in X)
    L = sq(Ws * Ht - Y) / (2 * K * n) + lw * sq(Ws) / (2 * K) + lh * sq(Ht) / (2 * K * n)
    # d/ds at s = 0 first, then d/dt at t = 0 (the small expression first: seconds, not minutes)
    dL = sympy.diff(sympy.diff(L, s).subs(s, 0), t).subs(t, 0)
    assert sympy.nsimplify(dL) == data._c2_derived(env) != 0


def test_residual_identity_fails_off_the_papers_constant_exactly():
    # at p = 1/2, q = 1/3 (c = 1/6, d = 3, K = 2, n = 2): ||W*H* - Y + C c Y||^2 = K n c^2 (1 - C)^2
    st = get_statement("N-D-residual")
    env = {"p": sympy.Rational(1, 2), "q": sympy.Rational(1, 3), "d": 3, "K": 2, "n": 2}
    assert evaluate(st, env)["lhs"] == 0
    v = next(x for x in variants(st) if x.name == "C x 2").statement
    assert evaluate(v, env)["lhs"] == 4 * sympy.Rational(1, 36)


def test_mu_lambda_derived_values_at_a_point():
    # p = 1/2, q = 1/3, beta = 40: sqrt(lH/lW) = 3/2, c = 1/6; lambda_k = 1 - 3/80, mu_k = (2/3)^2 3/2 = 2/3
    st = get_statement("N-D-mu-lambda")
    env = {"p": sympy.Rational(1, 2), "q": sympy.Rational(1, 3), "beta": 40, "d": 3, "K": 2, "n": 2}
    vals = {c.name: c.exact(env) for c in st.computed}
    assert vals["lam_k"] == 1 - sympy.Rational(3, 80) and vals["mu_k"] == sympy.Rational(2, 3)
    assert vals["lam_j"] == 1 - sympy.Rational(1, 160) and vals["mu_j"] == sympy.Rational(1, 4)


def test_eig_share_outside_c_below_one_is_not_a_point_of_the_statement():
    st = get_statement("N-D-eig")
    ones = next(c for c in st.computed if c.name == "s_1")
    env = {"p": 2, "q": 1, "beta": 5, "d": 4, "K": 2, "n": 2}
    with pytest.raises(ArithmeticError):
        ones.exact(env)
    assert ones.exact({**env, "q": sympy.Rational(1, 3)}) == sympy.Rational(1, 4)  # (1 - 2/4)/2


def test_lemC4_bound_zero_gives_no_ratio_and_the_larger_constants_stay_unknown():
    st = get_statement("N-lemC.4")
    cls = {v.name: classify(st, v)["class"] for v in variants(st)}
    assert cls["C_13 x 9/10"] == cls["e_15 -1"] == cls["relation >="] == "false"
    assert cls["C_13 x 2"] == "unknown" and cls["relation <"] == "true"
    assert r"\le" in st.latex()  # the Max of held constants falls back to the values


def test_lemC4_strict_control_is_not_refuted_at_lambda_W_zero():
    # Nelder-Mead rounds lambda_W to 0 (outside the open domain), where (13) = 1: the search skips that point
    st = get_statement("N-lemC.4")
    v = next(x for x in variants(st) if x.name == "relation <")
    assert check(v.statement).verdict == "verified"


@pytest.mark.parametrize("spec, check_fn, fails", [
    ("N-D-residual::C x 9/10", part_checks.test_D_residual_minus_cY, True),
    ("N-D-residual::e +1", routes_checks.test_residual_minus_cY_with_W_from_optimal_W_in_every_arithmetic, True),
    ("N-D-residual::relation <=", part_checks.test_D_residual_minus_cY, False),
    ("N-C-derivs::C_b x 9/10", part_checks.test_C_derivatives_of_f_match_sympy_diff, True),
    ("N-C-derivs::e_K +1", part_checks.test_C_derivatives_of_f_match_sympy_diff, True),
    ("N-C-derivs::relation >=", part_checks.test_C_derivatives_of_f_match_sympy_diff, False),
    ("N-C2-derivative::e_Kn +1", part_checks.test_C2_derivative_expression, True),
    ("N-C2-derivative::C_H x 1/2", part_checks.test_C2_derivative_expression, True),
    ("N-C2-derivative::relation <=", part_checks.test_C2_derivative_expression, False),
    ("N-D-commutation::C x 11/10", part_checks.test_D_commutation_identities, True),
    ("N-D-commutation::relation >=", part_checks.test_D_commutation_identities, False),
    ("N-D-mu-lambda::C_2 x 11/10", part_checks.test_D_mu_lambda_eqs_19_20, True),
    ("N-D-mu-lambda::e_r +1", part_checks.test_D_mu_lambda_eqs_19_20, True),
    ("N-D-Z-blocks::e_n -1", part_checks.test_D_Z_blocks_eq18, True),
    ("N-D-Z-blocks::relation >=", part_checks.test_D_Z_blocks_eq18, False),
    ("N-D-eig::C x 1/2", routes_checks.test_collapsed_point_default_frame_rational_lams_and_n1_spectrum_and_Z_blocks,
     True),
    ("N-D-eig::C x 9/10", part_checks.test_fig1_reproduced, True),  # Figure 1's share of ones is App. D's
    ("N-D-eig::relation >=", part_checks.test_fig1_reproduced, False),
    ("N-D.1-full-F::C x 2", part_checks.test_D1_full_F_is_stretched_block_spectrum, True),
    ("N-D.1-full-F::e_1 +1", routes_checks.test_full_F_is_stretched_block_spectrum_at_n1_default_frame_rational_lams,
     True),
    ("N-D.1-full-F::relation <=", routes_checks.test_full_F_is_stretched_block_spectrum_at_n1_default_frame_rational_lams,
     False),
    ("N-lemC.4::C_15 x 9/10", part_checks.test_lemmaC4_bounds_13_to_16, True),
    ("N-lemC.4::relation <", part_checks.test_lemmaC4_bounds_13_to_16, False),
    ("N-lemC.4::C_13 x 9/10", routes_checks.test_lemma_c4_norms_against_mpmath_eigenvalues_of_exact_covariances, True),
    ("N-lemC.4::e_16 -1", routes_checks.test_lemma_c4_norms_against_mpmath_eigenvalues_of_exact_covariances, True),
    ("N-lemC.4::relation <", routes_checks.test_lemma_c4_norms_against_mpmath_eigenvalues_of_exact_covariances, False),
    ("N-lemC.4::relation >=", routes_checks.test_lemma_c4_norms_against_mpmath_eigenvalues_of_exact_covariances, True),
    ("N-fig1::C_r x 9/10", part_checks.test_fig1_reproduced, True),
    ("N-fig1::relation >", part_checks.test_fig1_reproduced, True),
    ("N-fig1::relation <=", part_checks.test_fig1_reproduced, False),
    ("N-D-mu-lambda::relation <", part_checks.test_D_mu_lambda_eqs_19_20, True),
    ("N-D-commutation::lhs: drop E_F2", part_checks.test_D_commutation_identities, True),
    ("N-D-residual::drop c = sqrt(lambda_H lambda_W) < 1", part_checks.test_D_residual_minus_cY, True),
])
def test_a_variant_in_the_environment_reaches_the_claims_own_check(monkeypatch, tmp_path, spec, check_fn, fails):
    args = (_Verdict(), tmp_path) if "tmp_path" in inspect.signature(check_fn).parameters else (_Verdict(),)
    monkeypatch.setenv(engine.VARIANT_ENV, spec)
    if fails:
        with pytest.raises(AssertionError):
            check_fn(*args)
    else:
        check_fn(*args)


def test_fig1_states_the_plotted_curves_at_the_figures_setting():
    """Figure 1's object: at lambda_W = sqrt 2 (exact), beta = 100, the curves' top is 1, their floor
    1 - sqrt(lambda_H/lambda_W)/100 (an algebraic number, decided equal by the exact zero test), five steps."""
    st = get_statement("N-fig1")
    S_ = next(c for c in st.computed if c.name == "s_min")
    v = S_.exact({"lambda_H": sympy.Rational(3, 10)})
    assert not v.is_Rational and abs(sympy.N(v - (1 - sympy.sqrt(sympy.Rational(3, 10) / sympy.sqrt(2)) / 100), 50)) < 1e-45
    assert next(c for c in st.computed if c.name == "levels").exact({"lambda_H": sympy.Rational(3, 10)}) == 5
