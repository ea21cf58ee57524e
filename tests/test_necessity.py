"""verify.necessity: the rows, the weakened objectives (against independent routes) and run_row's outcome."""

import math
import re
from fractions import Fraction

import numpy as np
import pytest

from verify import VerifyInputError
from verify import objectives as O
from verify.claims import CLAIMS, claim_ids
from verify.necessity import NOT_SEARCHABLE, REFUTED_THEOREMS, ROWS, row_named, run_row
from verify.objectives import (get_objective, lemc3_ratio, lema2_ratio, lemb1_ratio, lema2_weakened_ratio,
                               lemc3_weakened_ratio, lemb1_negative_lamH_ratio, tw_negative_lamH_violation,
                               tw_violation)


def test_rows_name_real_claims_and_objectives():
    known = set(claim_ids())
    for r in ROWS:
        assert r.claim in known and get_objective(r.objective).claim == r.claim
    for r in NOT_SEARCHABLE:
        assert r.claim in known and r.objective == "" and r.note and r.expect == "not searchable"
    assert len({(r.claim, r.hypothesis) for r in ROWS + NOT_SEARCHABLE}) == len(ROWS) + len(NOT_SEARCHABLE)
    with pytest.raises(VerifyInputError, match="'objective'"):
        row_named("nope")
    with pytest.raises(VerifyInputError, match="not searchable"):
        run_row(NOT_SEARCHABLE[0], budget=1)


def test_table_covers_every_theorem_and_lemma_of_the_catalogue():
    """Every Thm / Lemma / Cor of the catalogue has rows (searched or not searchable), unless its checks refute it."""
    theorems = {c.id for c in CLAIMS if re.match(r"(Thm|Lemma|Cor)\b", c.where)}
    covered = {r.claim for r in ROWS + NOT_SEARCHABLE}
    assert theorems == covered | set(REFUTED_THEOREMS), (theorems - covered - set(REFUTED_THEOREMS))
    assert not covered & set(REFUTED_THEOREMS)


def test_weakened_objectives_reduce_to_the_theorems_inside_the_kept_hypotheses():
    """Where the dropped hypothesis happens to hold, the weakened ratio equals the theorem's own objective."""
    rng = np.random.default_rng(0)
    k = 6
    for _ in range(20):
        x = np.concatenate([2 * rng.standard_normal(k), 0.5 * rng.standard_normal(k)])
        a, b = lemc3_ratio(x), lemc3_weakened_ratio(x, drop="B-below-A")
        if np.isfinite(a):
            assert abs(a - b) < 1e-12
    z = rng.standard_normal(16)
    B = z.reshape(4, 4)
    A = B @ B.T + 1e-9 * np.eye(4)
    sym = A[np.tril_indices(4)]
    assert abs(lema2_weakened_ratio(sym, drop="indefinite") - lema2_ratio(z)) < 1e-9


def test_negative_lamH_objectives_at_lamH_to_zero_match_the_closed_forms():
    """As b -> -12 the weakened lam_H -> 0: the product-rule derivative (from the definitions) has the closed form's
    sign, and Lemma B.1's ratio tends to the theorem's at lam_H = 0."""
    rng = np.random.default_rng(1)
    for _ in range(5):
        x = rng.standard_normal(10)
        x[-1] = -12.0
        assert tw_negative_lamH_violation(x) <= 1e-12
        y = x.copy()
        y[-1] = np.log(0.5)  # unpack_central: lam_H = e^b - 1/2 = 0
        assert np.sign(tw_negative_lamH_violation(x)) == np.sign(tw_violation(y)) or abs(tw_violation(y)) < 1e-12
        assert abs(lemb1_negative_lamH_ratio(x) - lemb1_ratio(y)) < 1e-4  # lam_H = -3/lam_W * e^-12 / (1 + .)


def test_char_sums_against_the_wht_route_and_the_artin_schreier_case():
    """char_sum (galois, from the definition) against the WHT character sums of the frames package on odd-term P,
    and the excluded form x^2 + x = Q^2 - Q (Q = x): sum = 2^r exactly."""
    from verify.numeric import frames as F

    rng = np.random.default_rng(3)
    for r, m in [(2, 2), (3, 2), (3, 3)]:
        S = F.character_sums(r, m)
        for c in rng.choice(S.size, size=12, replace=False).tolist():
            coeffs = [0] * (2 * m)
            for j in range(m):
                coeffs[2 * j + 1] = (c >> (r * j)) & (2 ** r - 1)
            assert O.char_sum(r, tuple(coeffs)) == int(S[c])
        assert O.char_sum(r, (0, 1, 1)) == 2 ** r


def test_even_degree_and_even_exponent_objectives_hit_exactly_the_folded_polynomials():
    """tr(c2 x^2) = tr(c2^(2^(r-1)) x): S(c0 + c1 x + c2 x^2) = +-2^r iff c1 = c2^(2^(r-1)), else 0 (galois power)."""
    from verify.numeric import frames as F

    rng = np.random.default_rng(4)
    hits = 0
    for _ in range(60):
        x = rng.standard_normal(4)
        r, (c0, c1, c2) = O._weil_even_point(x)
        GF = F.field_of(r)
        folded = int(GF(c2) ** (2 ** (r - 1))) == c1
        ratio = O.weil_even_degree_ratio(x)
        # |S| / sqrt(2^r) in float: one division and one sqrt, so equal to sqrt(2^r) within 1e-15 relative
        assert math.isclose(ratio, math.sqrt(2 ** r) if folded else 0.0, rel_tol=1e-15, abs_tol=0.0)
        rep = O._weil_even_replay(x)
        assert Fraction(rep["squared_ratio"]) == (Fraction(2 ** r) if folded else 0)  # the squared ratio, exact
        assert abs(float(rep["value"]) - ratio) < 1e-15 * max(1, ratio)  # 50-digit sqrt vs float sqrt
        hits += folded
        y = rng.standard_normal(3)
        _, (_, d1, d2) = O._odd_free_point(y)
        if d1 or d2:
            fold = int(F.field_of(3)(d2) ** 4) == d1
            assert math.isclose(O.pow2_all_exponents_ratio(y), 8 / (2 * math.sqrt(8)) if fold else 0.0, rel_tol=1e-15)
    assert 0 < hits < 60  # both branches exercised


def test_small_d_coherence_against_the_dense_gram():
    """The certificates' coherence at small d against the dense Gram of the built frame (exact integers)."""
    from verify.numeric import frames as F

    for r in (1, 2, 3):
        signs = F.build_frame(r, 2).signs.astype(np.int64)
        G = signs.T @ signs
        np.fill_diagonal(G, 0)
        x = np.array([(r - 1 + 0.5) / 3])  # the digit r - 1
        assert O._small_d(x, False) == 2 ** r
        assert O._small_d_replay(x)["value"] == Fraction(int(np.abs(G).max()), 2 ** r)
    for d in (5, 12):
        fr = F.build_general_frame(d, 2)
        V = fr.dense()
        G = V.T @ V
        np.fill_diagonal(G, 0)
        x = np.array([(d - 2 + 0.5) / 14])
        assert O._small_d(x, True) == d
        assert abs(O.small_d_coherence(x, general=True) - np.abs(G).max()) < 1e-12  # dyadic float sums: exact-ish


def test_noncentred_and_mixture_ratios_against_closed_forms_for_m1():
    r"""m = 1: :math:`\tilde L(W) = 2\operatorname{tr}(A\Sigma) - \operatorname{tr}(A\Sigma A)` with :math:`\Sigma =
    E xx^\top = p\mu_2 I + p^2 s^2 (11^\top - I)`, so :math:`\sup_t = \operatorname{tr}(A\Sigma)^2/\operatorname{tr}(A\Sigma A)`
    (numpy); the exact replay agrees; at s = 0 the ratio is <= 1 (the theorem)."""
    from verify.numeric.superposition_loss import exact_loss

    rng = np.random.default_rng(5)
    for claim, (d, n, m, p) in O.NONCENTRED_CASE.items():
        p = float(p)
        for s in (0.0, 0.7, -1.9):
            x = np.concatenate([rng.standard_normal(d * n) * rng.uniform(0.2, 2), [s]])
            W = x[:-1].reshape(d, n)
            A = W.T @ W
            Sig = p * (1 + s * s) * np.eye(n) + p * p * s * s * (np.ones((n, n)) - np.eye(n))
            sup = max(np.trace(A @ Sig), 0) ** 2 / np.trace(A @ Sig @ A)
            bound = (1 + s * s) * p * d if claim == "S-thm3.1" else 2 * d
            v = O.noncentred_ratio(x, claim)
            assert abs(v - sup / bound) < 1e-9 * max(1, v)
            assert abs(float(O._noncentred_replay(x, claim)["value"]) - v) < 1e-9 * max(1, v)
            if s == 0:
                assert v <= 1 + 1e-12
        # the mixture: the weighted exact losses of the package's float route at the two Bernoulli parameters
        for _ in range(3):
            x = O.finite_normal(rng, lambda z: O.mixture_masks_ratio(z, claim), d * n + 2)
            w, p1, p2 = O._mixture_weights(x, p)
            W = x[:-2].reshape(d, n)
            ref = w * exact_loss(W, p1, m=1, mu="gaussian") + (1 - w) * exact_loss(W, p2, m=1, mu="gaussian")
            bound = p * d if claim == "S-thm3.1" else 2 * d
            assert abs(O.mixture_masks_ratio(x, claim) - ref / bound) < 1e-9 * max(1, abs(ref / bound))


def test_small_n_ratio_against_two_point_scaling_of_the_exact_loss():
    """sup_t Ltilde(tW) = a^2/b with (a, b) from two exact_loss evaluations (eq. 19), not from loss_parts."""
    from verify.numeric import upper_bounds as ub

    rng = np.random.default_rng(6)
    for claim, (d, n, m, mu, p) in O.SMALL_N_CASE.items():
        for _ in range(2):
            w = rng.standard_normal(d * n)
            a, b = ub.scaling_coefficients(w.reshape(d, n), float(p), m, mu)
            bound = float(p) * d ** m if claim == "S-thm3.1" else 2 * d
            ref = (a * a / b if a > 0 else 0.0) / bound
            assert abs(O.small_n_ratio(w, claim) - ref) < 1e-8 * max(1, ref)


def test_gradient_from_the_definition_and_negative_lamW_objectives():
    """_grad_from_definition (envelope theorem) = the package's closed form (7) at lam_W > 0; at lam_W < 0 the
    derivative of e^{2 lH t} Tr Sigma_W equals the closed form -(2/K) Tr(Sigma_W C SigmaB~ C) e^{0} (<= 0), and
    Lemma C.4's (13) equals 1 + e^b exactly where lambda_min(SigmaT~) is attained."""
    from verify.numeric import ufm

    rng = np.random.default_rng(7)
    for _ in range(5):
        H = rng.standard_normal((2, 4))
        lw, lh = float(rng.uniform(0.2, 2)), float(rng.uniform(0, 1))
        g = O._grad_from_definition(H, lw, lh, 2)
        assert np.allclose(g, ufm.grad_central_path_loss(H, lw, lh, 2), rtol=1e-10, atol=1e-12)
        x = np.concatenate([H.ravel(), rng.uniform(-2, 1, 2)])
        v = O.tw_negative_lamW_violation(x)
        if np.isfinite(v):
            Hh, lwp, lhp = O.unpack_central(x)
            c = ufm.covariances(Hh, 2)
            C = np.linalg.inv(c["Sigma_T_tilde"] - lwp / 2 * np.eye(2))
            closed = -(2 / 2) * np.trace(c["Sigma_W"] @ C @ c["Sigma_B_tilde"] @ C)
            g2 = O._grad_from_definition(Hh, -lwp, lhp, 2)
            HP = Hh - np.repeat(Hh.reshape(2, 2, 2).mean(axis=2), 2, axis=1)
            direct = 2 * lhp * np.trace(c["Sigma_W"]) + 2 / 4 * np.sum(HP * (-4 * g2))
            assert abs(direct - closed) < 1e-8 * max(1, abs(closed)) and v <= 1e-12
        y = np.concatenate([rng.standard_normal(12), [rng.uniform(-2, 2)]])
        assert O.lemc4_negative_lamW_ratio(y) >= (1 + math.exp(y[-1])) * (1 - 1e-9)


def test_cor31_and_thm22_weakened_objectives():
    """Cor. 3.1's gap is 0 at H = H* and <= 0 at random H (both weakenings); Thm 2.2's distance is ~0 at d = K
    (the theorem, within the objective's tol) and >= 1 at d = 1 < K (rank)."""
    rng = np.random.default_rng(8)
    x = rng.standard_normal(11)
    x[:8] = 0.0
    assert O.cor31_gap(x) == 0.0
    Hs = O._ufm_minimiser(1, 2, 1, 0.5, 0.5)
    assert O.cor31_gap(np.concatenate([Hs.ravel(), [0.3]]), case="d-below-K") == 0.0
    for _ in range(5):
        assert O.cor31_gap(rng.standard_normal(11)) <= 1e-12
        assert O.cor31_gap(rng.standard_normal(3), case="d-below-K") <= 1e-9
    z = np.array([0.2, -0.5])
    assert O.thm22_small_d_distance(z) >= 1 - 1e-6
    assert O.thm22_small_d_distance(z, d=2, K=2, n=1) < get_objective("N-thm2.2:drop-d-ge-K").tol


def test_run_row_outcomes_and_evidence():
    needed = run_row(row_named("N-lemC.3:drop-B-below-A"), budget=4)
    assert needed["outcome"] == "needed" and needed["counterexample"]["value"] > 1
    assert needed["search"]["starts_run"] <= 4 and needed["search"]["seed"] == get_objective("N-lemC.3").seed
    kept = run_row(row_named("N-lemC.3:drop-A-pd"), budget=1)
    assert kept["outcome"] == "not needed at the budget tried" and kept["search"]["starts_run"] == 1
    assert kept["search"]["best"] <= 1 + 1e-9 and "implied" in kept["note"]
    weil = run_row(row_named("S-lemA.4-weil:drop-odd-degree"), budget=8)
    assert weil["outcome"] == "needed" and weil["counterexample"]["replay_method"].startswith("exact integer sum")
    shifted = run_row(row_named("S-thm3.1:drop-mu-symmetric"), budget=2)  # exact replay: a long rational
    ce = shifted["counterexample"]
    assert shifted["outcome"] == "needed" and Fraction(ce["replay_exact"]) > 1
    assert abs(float(ce["replay"]) - ce["value"]) < 1e-9  # float objective vs exact replay (float64 sums)
    with pytest.raises(VerifyInputError, match="'budget'"):
        run_row(ROWS[0], budget=0)


def test_docstring_examples():
    import doctest

    import verify.necessity as mod

    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_report_counts_each_hypothesis_once_when_both_tiers_searched_it():
    """A report of both tiers holds two records of a not-needed hypothesis (3 and 32 starts): the headline counts
    it once and the table keeps the larger search; a counterexample from either tier makes it needed."""
    from verify import report

    def rec(hyp, outcome, starts):
        search = {"starts_run": starts, "best": 0.5, "threshold": 1.0, "maxiter": 10, "method": "NM", "seed": 0}
        ev = {"search": search, "note": ""}
        if outcome == "needed":
            ev["counterexample"] = {"value": 1.5, "start": 0, "replay": 1.5}
        return {"hypothesis": hyp, "outcome": outcome, "evidence": ev}

    rows = [{"id": "S-thm3.1", "verdict": "verified", "kind": "num",
             "necessity": [rec("a", "not needed at the budget tried", 3), rec("b", "needed", 3),
                           rec("a", "not needed at the budget tried", 32), rec("c", "not needed at the budget tried", 3),
                           rec("c", "needed", 32)]}]
    c = report.certified_counts(rows)
    assert (c["hypotheses"], c["hypotheses_needed"]) == (3, 2)
    table = [t for t in report.necessity_table(rows) if t["outcome"] != "not searchable"]
    assert [(t["hypothesis dropped"], t["outcome"]) for t in table] == \
        [("a", "not needed at the budget tried"), ("b", "needed"), ("c", "needed")]
    assert "over 32 starts" in table[0]["found"]


@pytest.mark.parametrize("best,threshold,tol,words", [
    (1.6802896593121458e-16, 0.0, 1e-12, "none: largest value 1.68e-16, within round-off (1e-12) of 0, in 32"),
    (-0.0019902654449573585, 0.0, 1e-6, "none: largest value -0.00199 <= 0 in 32"),
    (0.9999999768136254, 1.0, 1e-9, "none: largest value 0.99999998 <= 1 in 32"),
    (0.0, 0.0, 0.0, "none: largest value 0 <= 0 in 32"),
    (0.0, 0.0, 1e-6, "none: largest value 0 <= 0 in 32"),   # at the bound itself: no allowance used
    (0.3, 0.3, 1e-9, "none: largest value 0.3 <= 0.3 in 32"),   # equal: 4 digits, not 17
])
def test_a_search_s_best_value_is_read_against_its_bound_as_compared(best, threshold, tol, words):
    """A search that found no counterexample compared its best value with threshold + tol (the objective's
    round-off allowance): a best value above the threshold is written so (never "1.68e-16 <= 0"), a value just
    under its bound keeps the digits that tell the two apart (never "1 <= 1"), in the Markdown and HTML reports and
    on the docs' verdict page alike (the Markdown cell once shortened the chosen digits again)."""
    import html

    from verify import report
    from verify.docs_pages import necessity_lines, text_md
    from verify.reporters._common import found_text
    from verify.reporters.html import render_html
    from verify.reporters.markdown import certified_sections

    search = {"starts_run": 32, "best": best, "threshold": threshold, "tol": tol, "maxiter": 400,
              "method": "Nelder-Mead", "seed": 3, "objective": "S-thm3.1:drop-iid-masks"}
    rows = [{"id": "S-thm3.1", "verdict": "verified", "kind": "num",
             "necessity": [{"hypothesis": "a", "outcome": "not needed at the budget tried",
                            "evidence": {"search": search, "note": ""}}]}]
    table = report.necessity_table(rows)
    row = table[0]
    assert (" + tol " in row["found"]) == (best > threshold)
    assert found_text(row["found"]) == words + " searched starts"
    # every route a reader takes: the Markdown report, the HTML report, the docs' verdict page
    doc = {"claims": [{"id": "S-thm3.1", "paper": "S", "verdict": "verified"}], "necessity": table}
    md = "\n".join(certified_sections({**doc, "claims": []}))
    assert f"| {words.replace('|', '')} searched starts |" in md.replace("\\<", "<")
    page = render_html({**doc, "claims": [], "beyond": []}, figures=[], formulas=[])
    assert f"<td>{html.escape(words)} searched starts</td>" in page
    assert f"| {text_md(words)} searched starts |" in "\n".join(necessity_lines(doc))
