"""Paper N, the perturbation matrix F (sec. 5, Apps. C-D): the statements, checked.

Section 5 and Apps. C-D: the perturbation matrix F (Thms C.1, 5.1, C.2, 5.2, Lemmas C.3-C.4, App. D, Fig. 1), with
the counterexamples of the refuted theorems and their corrected statements. Every check stays inside its claim's
hypotheses (lambda_H lambda_W < 1, d >= K (d > K for Thm 5.2), beta > 0) unless it says otherwise; counterexamples
are instances *satisfying* the stated hypotheses, read literally: no unstated range restriction or nonsingularity is
assumed, and each verified claim's evidence records what was searched, over which ranges, the worst ratio found and
any range restriction the evidence needs that the statement does not state.
"""

from __future__ import annotations

import functools
import itertools
import json
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.linalg
import sympy

from verify.engine import adversarial_max
from verify.numeric import perturbation as P, ufm
from verify.numeric.perturbation_figures import reproduce_fig1, stretch_comparison
from verify.numeric.ufm import grad_central_path_loss, optimal_W, solve_perturbed
from verify.objectives import (
    get_objective, normal_then_uniform, thmc2_sharp_hessian_ratio, thmc2_sharp_lip_ratio, thmc2_sharp_map_ratio,
)
from verify.statement_data.N.perturbation import directions
from verify.statements import constants, current, holds, hypotheses_hold, sides
from verify.symbolic import perturbation as S


SIZES = [(3, 2, 2), (4, 2, 3), (5, 3, 2)]


SYMB = "symbolic lam_W, lam_H, beta > 0 (every value, beta edge values included)"  # (d, K, n) with d > K: symbolic spectra at several sizes


def _random_problem(seed, d=4, K=3, n=2, beta=30.0, lam_W=0.8, lam_H=0.6):
    rng = np.random.default_rng(seed)
    H0 = rng.standard_normal((d, K * n))
    dH0 = rng.standard_normal(H0.shape)
    return H0, dH0 / np.linalg.norm(dH0), dict(beta=beta, lam_W=lam_W, lam_H=lam_H, K=K, n=n)


def _minimiser(H0, pr):
    H = solve_perturbed(H0, pr["beta"], pr["lam_W"], pr["lam_H"], pr["K"])
    return optimal_W(H, pr["lam_W"], pr["K"]), H


# =========================================================================== App. C: derivatives
@pytest.mark.claim("N-C-derivs")
def test_C_derivatives_of_f_match_sympy_diff(verdict):
    """(11), the Hessian blocks and the mixed block (E + H^T kron W^T)/Kn: sympy.diff of f written entrywise; numeric
    side: f (package) against (2) written here, (11) against central differences of f, and every Hessian block
    (HH, WW, WH) against central differences of (11), at a non-stationary float point with d > K, n > 1."""
    res = {f"{s}": S.derivative_residuals(*s) for s in [(3, 2, 2), (2, 2, 2), (3, 1, 3)]}
    assert all(v == 0 for r in res.values() for v in r.values())
    rng = np.random.default_rng(3)
    d, K, n, b, lw, lh = 3, 2, 2, 7.0, 0.4, 0.3
    W, H, H0 = rng.standard_normal((K, d)), rng.standard_normal((d, K * n)), rng.standard_normal((d, K * n))
    Y = np.kron(np.eye(K), np.ones((1, n)))
    f_here = (np.sum((W @ H - Y) ** 2) / (2 * K * n) + lw / (2 * K) * np.sum(W ** 2) + lh / (2 * K * n) * np.sum(H ** 2)
              + b / (2 * K * n) * np.sum((H - H0) ** 2))
    f_err = abs(P.objective(W, H, H0, b, lw, lh, K, n) - f_here)
    h = 1e-5
    B = P.hessian_blocks(W, H, b, lw, lh, K, n)
    gH0, gW0 = P.gradients(W, H, H0, b, lw, lh, K, n)
    g_err, cols = 0.0, {"HH": [], "WH": [], "WW": []}
    for j in range(K * d):  # columns d/dw_j of grad_H (WH block) and grad_W (WW block); d/dw_j of f
        E = P.unvec(np.eye(K * d)[j] * h, K, d)
        gp, gm = P.gradients(W + E, H, H0, b, lw, lh, K, n), P.gradients(W - E, H, H0, b, lw, lh, K, n)
        cols["WH"].append((gp[0] - gm[0]) / (2 * h)), cols["WW"].append((gp[1] - gm[1]) / (2 * h))
        fd = (P.objective(W + E, H, H0, b, lw, lh, K, n) - P.objective(W - E, H, H0, b, lw, lh, K, n)) / (2 * h)
        g_err = max(g_err, abs(fd - gW0[j]))
    for j in range(d * K * n):  # columns d/dh_j of grad_H (HH block); d/dh_j of f
        E = P.unvec(np.eye(d * K * n)[j] * h, d, K * n)
        gp, gm = P.gradients(W, H + E, H0, b, lw, lh, K, n), P.gradients(W, H - E, H0, b, lw, lh, K, n)
        cols["HH"].append((gp[0] - gm[0]) / (2 * h))
        fd = (P.objective(W, H + E, H0, b, lw, lh, K, n) - P.objective(W, H - E, H0, b, lw, lh, K, n)) / (2 * h)
        g_err = max(g_err, abs(fd - gH0[j]))
    errs = {key: float(np.max(np.abs(np.array(c).T - B[key]))) for key, c in cols.items()}
    assert f_err < 1e-12 and g_err < 1e-8  # FD of a quartic: truncation h^2 * O(10) = 1e-9, rounding eps/h ~ 1e-11
    assert max(errs.values()) < 1e-8 and np.array_equal(B["HW"], B["WH"].T)  # same FD reason (gradient is cubic)
    # (11) and the Hessian blocks as the statement object states them (its constants and exponents), against the
    # package's derivatives (checked against central differences of f above), along the object's directions
    VH, VW = (P.vec(np.array(M.tolist(), dtype=float)) for M in directions(d, K, n))
    exact = lambda x: sympy.Rational(Fraction(float(x)))
    mine = {"gH": VH @ gH0, "gW": VW @ gW0, "hHH": VH @ B["HH"] @ VH, "hWW": VW @ B["WW"] @ VW, "hWH": VH @ B["WH"] @ VW}
    q = lambda M: sympy.Matrix(M.shape[0], M.shape[1], [exact(x) for x in M.flat])
    gap, _ = sides("N-C-derivs", {"d": d, "K": K, "n": n, "n_cols": K * n, "W": q(W), "H": q(H), "H0": q(H0),
                                  "lambda_W": exact(lw), "lambda_H": exact(lh), "beta": exact(b)},
                   **{key: exact(v) for key, v in mine.items()})
    assert gap < 1e-10  # float64 contractions of O(10) entries
    # and decided exactly at the same point rounded to simple rationals, with the object's derivatives by sympy.diff
    # of f (exact): the identity holds there with equality (an edited constant, or the relation '<' or '>', fails)
    simple = lambda M: sympy.Matrix(M.shape[0], M.shape[1], [sympy.Rational(round(4 * float(x)), 4) for x in M.flat])
    assert holds("N-C-derivs", {"d": d, "K": K, "n": n, "n_cols": K * n, "W": simple(W), "H": simple(H),
                                "H0": simple(H0), "lambda_W": sympy.Rational(2, 5), "lambda_H": sympy.Rational(3, 7),
                                "beta": sympy.Rational(9, 2)}) is True
    verdict.verified(method="sym: sympy.diff of f vs App. C formulas (exact); num: central differences chain",
                     evidence={"sizes_dKn": list(res), "nonzero_entries": res, "objective_err": f_err,
                               "gradient_fd_max_err": g_err, "hessian_fd_max_err": errs, "seed": 3,
                               "statement_gap": float(gap),
                               "audit": _audit("sympy.diff identity at 3 sizes (symbolic W, H, H0, lambdas, beta); "
                                               "FD at a non-stationary point", "every W, H, H0, lambda, beta (symbolic)",
                                               {"nonzero_entries": 0, "hessian_fd_max_err": max(errs.values())},
                                               needs="none: an identity, no hypothesis and nothing inverted")})


# =========================================================================== Thm C.1 / Thm 5.1
def _audit(searched, ranges, worst, needs="nothing beyond the stated hypotheses", **extra):
    """The audit record of a claim's evidence, its hypotheses read literally: what was searched, over which ranges,
    the worst ratio, and which range restriction (if any) the evidence needs that the statement does not state."""
    return {"standard": "hypotheses read literally ('beta >> max{1, lam_H}' says nothing about lam_W; no "
                        "unstated nonsingularity), every lam_W, lam_H > 0 with lam_H lam_W < 1, edge values of beta, "
                        "generic and collapsed inputs",
            "searched": searched, "ranges": ranges, "worst": worst, "range_restriction_needed": needs, **extra}


# the singular instance of Thm C.1 / 5.1: H0 = 0, beta = 1/lam_W - lam_H (exact rationals); beta = 99 = 99 max{1, lam_H}
SING = dict(d=3, K=2, n=2, lam_W=sympy.Rational(1, 100), lam_H=sympy.Integer(1))


SING["beta"] = 1 / SING["lam_W"] - SING["lam_H"]


@functools.lru_cache(maxsize=None)
def _singular_instance():
    """At H0 = 0 and beta = rho = 1/lam_W - lam_H the unique minimiser of (2) is (0, 0) (problem (2) at H0 = 0 is the
    UFM (1) with lam_H + beta, and lam_W (lam_H + beta) = 1 is Thm 2.2's degenerate case), and the Schur complement of
    Thm C.1 is singular (exact rationals, App. C blocks built here from S._E). The perturbed minimisers for
    H0 = t v (v the unit class-mean direction) come from solve_perturbed (full problem; 3 starts at the smallest t)
    and, independently,
    from an mpmath root of the radial equation L'(s) + beta (s - s0) = 0, L derived by sympy (radial_loss_curvature)."""
    d, K, n, lw, lh, b = (SING[k] for k in ("d", "K", "n", "lam_W", "lam_H", "beta"))
    Kn = K * n
    lwm, lhm = mpmath.mpf(lw.p) / lw.q, mpmath.mpf(lh.p) / lh.q
    Z0, W0 = sympy.zeros(d, Kn), sympy.zeros(K, d)
    E = S._E(W0, Z0, K, n)  # App. C's E(W, H) at (0, 0): residual -Y
    HH = (lh + b) * sympy.eye(d * Kn) / Kn  # I kron W^T W = 0
    WW = lw * sympy.eye(K * d) / K  # H H^T kron I = 0
    WH = E / Kn  # H^T kron W^T = 0
    schur = HH - WH * WW.inv() * WH.T
    nullity = d * Kn - schur.rank()
    M0 = S.exact_loss_hessian(Z0, lw, lh, K, n)  # Kn Hess L(0): schur = (M0 + beta I)/Kn
    assert (schur - (M0 + b * sympy.eye(d * Kn)) / Kn).is_zero_matrix
    rad = S.radial_loss_curvature()
    dL = sympy.lambdify((rad["s"], S.lam_W, S.lam_H), rad["dL"], "mpmath")
    v = np.kron(np.eye(d)[:, :K], np.ones((1, n)))
    v /= np.linalg.norm(v)
    ts, norms, radial, resid = [1e-2, 1e-3, 1e-4], [], [], []
    for t in ts:
        H = solve_perturbed(t * v, float(b), float(lw), float(lh), K, starts=3 if t == ts[-1] else 1)  # 3 starts ~30x one
        s0 = t / np.sqrt(Kn)  # H0 = s0 R kron 1^T
        with mpmath.workdps(30):
            guess = (float(lw) ** 2 * float(b) * s0 / 2) ** (1 / 3)  # the cubic law (thmC2_sharp's series)
            sr = mpmath.findroot(lambda s: dL(s, lwm, lhm) + float(b) * (s - s0), guess)
        norms.append(float(np.linalg.norm(H)))
        radial.append(float(sr) * np.sqrt(Kn))
        resid.append(float(np.linalg.norm(H - float(sr) * np.sqrt(Kn) * v)))
    F5 = np.eye(d * Kn) - np.array(M0, dtype=float) / float(b)  # eq. (5) at the minimiser (0, 0)
    return {"schur_nullity": int(nullity), "schur_size": d * Kn, "t": ts, "norm_dH": norms, "radial_norm_dH": radial,
            "solver_vs_radial": max(resid), "order_in_t": P.fitted_order(ts, norms),
            "ratio_dH_over_dH0": [a / t for a, t in zip(norms, ts)], "op_norm_F5": float(np.linalg.norm(F5, 2)),
            "cubic_law": "L'(s) + rho s = 2 s^3/lam_W^2 + O(s^5) (series asserted in test_thmC2_sharp)"}


# (lam_W, lam_H, beta, seed): the Fig. 1-like instance; small lam_W with large lam_H and beta; small lambdas with a
# small beta (problem (2) not convex: 10/lam_W > beta, |F|_op > 1); large lambdas with beta = 1; H0 = 0 with beta
# 10% above the singular value 1/lam_W - lam_H (nondegenerate, |F|_op = 11: a nearly singular Schur complement)
C1_CASES = [pytest.param(0.8, 0.6, 30.0, 11, id="lW0.8-lH0.6-b30"),
            pytest.param(0.02, 3.0, 300.0, 15, id="lW0.02-lH3-b300"),
            pytest.param(0.05, 0.05, 3.0, 13, id="lW0.05-lH0.05-b3", marks=pytest.mark.slow),
            pytest.param(3.0, 2.0, 1.0, 14, id="lW3-lH2-b1", marks=pytest.mark.slow),
            pytest.param(0.5, 0.5, 1.5 * 1.1, None, id="H0=0-b1.1rho", marks=pytest.mark.slow)]


@pytest.mark.parametrize("lam_W,lam_H,beta,seed", C1_CASES)
@pytest.mark.claim("N-thmC.1", corrected=True)
def test_thmC1_exact_F_against_minimisers_of_problem_2(verdict, lam_W, lam_H, beta, seed):
    """Corrected Thm C.1 (Schur complement nonsingular, i.e. I + M/beta > 0 at the minimiser): vec(dH) = F vec(dH0) +
    O(|dH0|^2) and the dW formula, with dH, dW from actual minimisers of (2) (solve_perturbed, independent of the
    Hessian code), at several (lambda, beta) across the range, random H0 and H0 = 0 just above the singular beta;
    fitted orders in t. The smallest eigenvalue of I + M/beta is recorded (the hypothesis the correction adds)."""
    H0, dH0, pr = _random_problem(seed=seed or 0, beta=beta, lam_W=lam_W, lam_H=lam_H)
    if seed is None:  # H0 = 0 (minimiser (0, 0) for beta > 1/lam_W - lam_H), dH0 along the class means
        H0 = np.zeros_like(H0)
        dH0 = np.kron(np.eye(4)[:, :3], np.ones((1, 2)))
        dH0 /= np.linalg.norm(dH0)
    W, H = _minimiser(H0, pr)
    args = (W, H, pr["beta"], pr["lam_W"], pr["lam_H"], pr["K"], pr["n"])
    F, G = P.F_exact(*args), P.dW_map(*args)
    lam_min = float(np.linalg.eigvalsh(np.eye(F.shape[0]) + P.loss_hessian(H, lam_W, lam_H, 3, 2) / beta)[0])
    # at H0 = 0 the linear regime is |dH| << (beta - rho)^{1/2} lam_W / 2^{1/2} ~ 0.1 (cubic law), |dH| ~ 11 t
    ts = [1e-1, 3e-2, 1e-2, 3e-3] if seed is not None else [3e-3, 1e-3, 3e-4, 1e-4]
    eH, eW, rel = [], [], []
    for t in ts:
        Wt, Ht = _minimiser(H0 + t * dH0, pr)
        eH.append(np.linalg.norm(P.vec(Ht - H) - t * F @ P.vec(dH0)))
        eW.append(np.linalg.norm(P.vec(Wt - W) - t * G @ P.vec(dH0)))
        rel.append(eH[-1] / np.linalg.norm(P.vec(Ht - H)))
    oH, oW = P.fitted_order(ts, eH), P.fitted_order(ts, eW)
    # order 2 expected (3 at H0 = 0: the map H0 -> (W*, H*) is odd there); +-0.2 allows the next terms at the
    # largest t to bend the log-log fit
    order = 2 if seed is not None else 3
    assert order - 0.2 < oH < order + 0.2 and order - 0.2 < oW < order + 0.2
    assert rel[-1] < 1e-3 and lam_min > 0  # the linear term dominates: F is the derivative, not just some O(t) map
    verdict.verified(method="num: solve (2) at H0 and H0 + t dH0 (solve_perturbed), fit error orders in t",
                     evidence={"t": ts, "err_dH": eH, "err_dW": eW, "order_dH": oH, "order_dW": oW,
                               "relative_err_dH_smallest_t": rel[-1], "op_norm_F": float(np.linalg.norm(F, 2)),
                               "lambda_min(I + M/beta)": lam_min, "seed": seed, **pr, "d": 4,
                               "H0": "random" if seed is not None else "0 (beta = 1.1 (1/lam_W - lam_H))"})


@pytest.mark.claim("N-thmC.1")
def test_thmC1_as_stated_singular_schur_complement(verdict):
    """Thm C.1 read literally (any H0, any beta > 0, 'the minimiser'): at H0 = 0 and beta = 1/lam_W - lam_H the
    minimiser (0, 0) is unique, yet the Schur complement that F inverts is singular (exact rationals, nullity Kd),
    and dH is not linear in dH0: |dH| ~ t^{1/3} (fitted exponent), |dH|/|dH0| grows like t^{-2/3}, so no matrix F
    gives vec(dH) = F vec(dH0) + O(|dH|^2, |dW|^2, |dH0|^2). The proof inverts the Hessian of (10) without stating
    that it is nonsingular. Audit of the other inputs: the corrected check (generic H0 over four (lambda, beta),
    H0 = 0 just above the singular beta) and collapsed H0, where M >= 0 (F (5) <= 1, App. D) keeps it nonsingular."""
    r = _singular_instance()
    assert r["schur_nullity"] == SING["K"] * SING["d"]  # exact rank of a rational matrix
    assert r["solver_vs_radial"] < 1e-10  # two routes to the perturbed minimiser (full solver vs radial mpmath root)
    assert abs(r["order_in_t"] - 1 / 3) < 0.03  # exponent 1/3 (+ the s^5 term of the series bends the fit by ~0.01)
    assert r["ratio_dH_over_dH0"][-1] > 50 * r["op_norm_F5"]  # not O(1): |dH|/|dH0| ~ t^{-2/3}
    inst = {k: str(v) for k, v in SING.items()}
    verdict.refuted(
        counterexample={**inst, "H0": "0", "dH0": "t v, v = unit class-mean direction", **r},
        severity="missing-hypothesis",
        justification={"hypothesis": "the Schur complement (equivalently the Hessian of (10)) is nonsingular at the "
                                     "minimiser, i.e. I + M/beta > 0 with M = Kn Hess L(H*) = lam_H I + I kron W*^T W* "
                                     "- Z*; beta > 1/lam_W - lam_H gives it for every H0 (sharp Thm C.2)",
                       "repair": "test_thmC1_exact_F_against_minimisers_of_problem_2 (corrected=True)"},
        evidence={"audit": _audit("exact Schur complement at the singular beta; solve_perturbed + radial mpmath root",
                                  {"t": r["t"], "H0": "0, generic random (corrected check), collapsed (App. D)"},
                                  {"ratio_dH_over_dH0_smallest_t": r["ratio_dH_over_dH0"][-1]},
                                  needs="I + M/beta nonsingular at the minimiser (unstated)")},
        corrected="if the Schur complement is nonsingular at the minimiser (I + M/beta > 0, M = Kn Hess L(H*); true "
                  "for every H0 when beta > 1/lam_W - lam_H, and at every collapsed H0), vec(dH) = F vec(dH0) + "
                  "O(|dH0|^2) and the dW formula hold; at a singular one dH is not linear in dH0 (|dH| ~ |dH0|^{1/3} "
                  "at H0 = 0, beta = 1/lam_W - lam_H)",
        method="sym: exact rational Schur complement; num: solve_perturbed vs mpmath radial root, fitted exponent")


# (lam_W, lam_H, seed, beta scale): random H0 at moderate, small-lam_W and large-lam_W settings
T51_CASES = [pytest.param(0.8, 0.6, 12, 1.0, id="lW0.8-lH0.6"),
             pytest.param(0.05, 2.0, 16, 10.0, id="lW0.05-lH2"),
             pytest.param(5.0, 0.05, 17, 1.0, id="lW5-lH0.05", marks=pytest.mark.slow)]


@pytest.mark.parametrize("lam_W,lam_H,seed,scale", T51_CASES)
@pytest.mark.claim("N-thm5.1", corrected=True)
def test_thm51_first_order_F_error_is_order_beta_minus_2(verdict, lam_W, lam_H, seed, scale):
    """Corrected Thm 5.1, the O(beta^-2) part (beta > |M|_op): F of (5) = exact F + O(beta^-2): the Neumann step
    (Z*/beta identity), the leading error term M^2/beta^2 (M = beta (I - F_(5))) and finite differences of actual
    minimisers, over beta = scale * (25 ... 400); the smallest beta/|M|_op is recorded."""
    H0, dH0, pr = _random_problem(seed=seed, lam_W=lam_W, lam_H=lam_H)
    betas = [scale * b for b in (25.0, 50.0, 100.0, 200.0, 400.0)]
    eF, eFD, ident, lead, over = [], [], [], [], []
    t = 1e-5  # central differences: O(t^2) = 1e-10 truncation, solver noise 1e-15 / t = 1e-10
    for b in betas:
        q = {**pr, "beta": b}
        W, H = _minimiser(H0, q)
        args = (W, H, b, q["lam_W"], q["lam_H"], q["K"], q["n"])
        Fe, F1 = P.F_exact(*args), P.F_first_order(*args)
        N = Fe.shape[0]
        M = q["lam_H"] * np.eye(N) + np.kron(np.eye(q["K"] * q["n"]), W.T @ W) - P.Z_star(W, H, q["lam_W"], q["K"], q["n"])
        over.append(b / float(np.linalg.norm(M, 2)))
        ident.append(float(np.max(np.abs(Fe - np.linalg.inv(np.eye(N) + M / b)))))  # the Z*/beta rewriting
        eF.append(float(np.linalg.norm(Fe - F1, 2)))
        # (I + M/b)^{-1} - (I - M/b) = M^2/b^2 - M^3/b^3 + ...: the leading term, relative error O(|M|/b)
        lead.append(float(np.linalg.norm(b * b * (Fe - F1) - M @ M, 2) / np.linalg.norm(M @ M, 2)))
        Hp, Hm = _minimiser(H0 + t * dH0, q)[1], _minimiser(H0 - t * dH0, q)[1]
        eFD.append(float(np.linalg.norm(P.vec(Hp - Hm) / (2 * t) - F1 @ P.vec(dH0))))
    inv_b = [1 / b for b in betas]
    oF, oFD, oL = P.fitted_order(inv_b, eF), P.fitted_order(inv_b, eFD), P.fitted_order(inv_b, lead)
    assert max(ident) < 1e-12 and min(over) > 1  # float64 inverse of a well-conditioned (I + M/beta); beta > |M|
    assert 1.8 < oF < 2.2 and 1.8 < oFD < 2.2  # order 2 in 1/beta; +-0.2 for the O(beta^-3) bend at the smallest beta
    assert 0.8 < oL < 1.2 and lead[-1] < 0.1  # the O(beta^-2) coefficient is M^2 itself (order-1 remainder)
    verdict.verified(method="num: |F_exact - F_(5)|_op, beta^2 (F_exact - F_(5)) vs M^2, FD of minimisers vs 1/beta",
                     evidence={"beta": betas, "op_err": eF, "fd_err": eFD, "order_op": oF, "order_fd": oFD,
                               "leading_term_rel_err": lead, "order_leading": oL, "lam_W": lam_W, "lam_H": lam_H,
                               "schur_rewrite_max_err": max(ident), "min_beta_over_norm_M": min(over), "seed": seed})


def _collapsed_gap(lw, lh, b, d=3, K=2, n=2, seed=None):
    W, H = P.collapsed_point(d, K, n, lw, lh, seed=seed)
    return float(np.linalg.norm(P.F_exact(W, H, b, lw, lh, K, n) - P.F_first_order(W, H, b, lw, lh, K, n), 2))


@pytest.mark.claim("N-thm5.1")
def test_thm51_as_stated(verdict):
    """Thm 5.1 read literally: 'for beta >> max{1, lam_H}, accuracy O(beta^-2, |dH0|^2)'. (a) Collapsed H0 (the
    paper's own use), lam_H = 1, beta = B max{1, lam_H} for B = 10, 100, 1000 and lam_W = lam_H/beta^2 (free in the
    statement): |F - F_(5)|_op = x^2/(1 + x) at x = sqrt(lam_H/lam_W)/beta = 1, i.e. 1/2 exactly (derived spectrum of
    the whole F (5) contains 1 - x; F = (2I - F_(5))^{-1}) and 1/2 by dense float64 - so the error times
    (beta/max{1, lam_H})^2 is B^2/2, unbounded in the stated regime. (b) H0 = 0, beta = 1/lam_W - lam_H = 99
    max{1, lam_H}: dH is not linear in dH0 at all (|dH| ~ |dH0|^{1/3}, the singular instance of Thm C.1)."""
    spec = S.full_F_spectrum(3, 2, 2)  # eigenvalues e of the whole F (5) at a collapsed minimiser (derived)
    rows = {}
    for B in (10, 100, 1000):
        lh, b = 1.0, float(B)
        lw = lh / b ** 2
        # exact: at lam_H = 1, lam_W = 1/B^2, beta = B the square roots are rational; F = (2I - F_(5))^{-1} shares
        # F (5)'s eigenvectors, so |F - F_(5)|_op = max_e |1/(2 - e) - e|
        ev = _spec_at(spec, sympy.Integer(1), sympy.Rational(1, B * B), sympy.Integer(B))
        gap_exact = max(abs(1 / (2 - e) - e) for e in ev)
        gap = _collapsed_gap(lw, lh, b)
        assert gap_exact == sympy.Rational(1, 2) and lw * lh < 1
        assert abs(gap - 0.5) < 1e-8  # float64 dense inverse, entries up to r = B (relative 1e-8)
        rows[f"B={B}"] = {"lam_W": lw, "lam_H": lh, "beta": b, "beta/max(1,lam_H)": B, "op_gap_float": gap,
                          "op_gap_exact": str(gap_exact), "gap*(beta/max(1,lam_H))^2": gap * B * B}
    r = _singular_instance()
    assert r["ratio_dH_over_dH0"][-1] > 50 * r["op_norm_F5"] and abs(r["order_in_t"] - 1 / 3) < 0.03  # as in C.1
    verdict.refuted(
        counterexample={"collapsed_H0_x=1": rows,
                        "H0=0, beta=1/lam_W-lam_H": {**{k: str(v) for k, v in SING.items()},
                                                      "ratio_dH_over_dH0": r["ratio_dH_over_dH0"], "t": r["t"],
                                                      "order_in_t": r["order_in_t"], "op_norm_F5": r["op_norm_F5"]}},
        severity="missing-hypothesis",
        justification={"hypothesis": "beta > |M|_op at the minimiser, M = Kn Hess L(H*) = beta (I - F_(5)) (the "
                                     "Neumann series' range; = sqrt(lam_H/lam_W) at a collapsed H0, and implied for "
                                     "every H0 by beta > max{1/lam_W - lam_H, lam_H + 1/(4 lam_W)}, the sharp Kn Lip of "
                                     "Thm C.2); 'beta >> max{1, lam_H}' bounds neither because lam_W is free",
                       "repair": "test_thm51_corrected and test_thm51_first_order_F_error_is_order_beta_minus_2 "
                                 "(corrected=True)"},
        evidence={"audit": _audit("collapsed H0 at x = r/beta = 1 for three B; H0 = 0 at the singular beta",
                                  {"B = beta/max{1, lam_H}": [10, 100, 1000], "lam_W": "lam_H/beta^2"},
                                  {"gap*(beta/max(1,lam_H))^2 at B=1000": rows["B=1000"]["gap*(beta/max(1,lam_H))^2"]},
                                  needs="beta > |M|_op (unstated; the evidence of the previous verdict recorded it)")},
        corrected="if beta > |M|_op at the minimiser (M = Kn Hess L(H*); implied for every H0 by beta > max{1/lam_W "
                  "- lam_H, lam_H + 1/(4 lam_W)}; at a collapsed H0 |M|_op = sqrt(lam_H/lam_W)), then vec(dH) = "
                  "F_(5) vec(dH0) + E vec(dH0) + O(|dH0|^2) with |E|_op = max_i x_i^2/(1 + x_i) <= |M|^2/(beta "
                  "(beta - |M|)), x_i = eig_i(M)/beta; at a collapsed H0 |E|_op = x^2/(1 + x), x = sqrt(lam_H/lam_W)/beta",
        method="sym: derived spectrum of the whole F (5); num: dense exact vs first-order F; the C.1 singular instance")


@pytest.mark.claim("N-thm5.1", corrected=True)
def test_thm51_corrected(verdict):
    """The corrected Thm 5.1 in full generality: points H that minimise (2) for random H0 (three sizes, lambdas
    over three decades) and collapsed H0, beta = |M|_op (1 + 10^v), v in [-3, 1] (H is stationary for (2) with
    H0' = H + Kn/beta grad L(H), nondegenerate as I + M/beta > 0; the gap is algebraic in M = Kn Hess L(H)):
    |F - F_(5)|_op equals max_i x_i^2/(1 + x_i) (eigenvalues of M, an independent route) and is <= |M|^2/(beta (beta
    - |M|)), with |M|_op <= the sharp max{1/lam_W - lam_H, lam_H + 1/(4 lam_W)} at every point; at collapsed H0 the
    gap is x^2/(1 + x) with x = sqrt(lam_H/lam_W)/beta (below, at and above the threshold)."""
    rng = np.random.default_rng(41)
    worst = {"gap_vs_eigen_formula": 0.0, "gap_over_bound": 0.0, "norm_M_over_sharp": 0.0}
    count, ranges = 0, {"log10_lam_W": [], "log10_lam_H": [], "v": []}
    for (d, K, n) in [(3, 2, 2), (4, 3, 2), (2, 2, 3)]:
        for _ in range(4):
            lw, lh = 10.0 ** rng.uniform(-2, 1), 10.0 ** rng.uniform(-2, 1)
            if lw * lh >= 1:
                lh = 0.5 / lw
            H0 = rng.standard_normal((d, K * n))
            b0 = 2 * (1 / lw + lh)  # a start beta where (2) is strongly convex; the point H is then fixed
            H = solve_perturbed(H0, b0, lw, lh, K, starts=2)
            M = P.loss_hessian(H, lw, lh, K, n)
            e = np.linalg.eigvalsh(M)
            nM = float(np.abs(e).max())
            worst["norm_M_over_sharp"] = max(worst["norm_M_over_sharp"],
                                             nM / (K * n * P.thmC2_sharp_constants(lw, lh, K, n)["lip"]))
            v = rng.uniform(-3, 1)
            b = nM * (1 + 10.0 ** v)  # H minimises (2) for H0' = H + Kn/b grad L(H) when I + M/b > 0 (true: b > |M|)
            W = optimal_W(H, lw, K)
            gap = float(np.linalg.norm(P.F_exact(W, H, b, lw, lh, K, n) - P.F_first_order(W, H, b, lw, lh, K, n), 2))
            x = e / b
            formula = float(np.max(x * x / (1 + x)))
            worst["gap_vs_eigen_formula"] = max(worst["gap_vs_eigen_formula"], abs(gap - formula) / formula)
            worst["gap_over_bound"] = max(worst["gap_over_bound"], gap / (nM * nM / (b * (b - nM))))
            ranges["log10_lam_W"].append(np.log10(lw)), ranges["log10_lam_H"].append(np.log10(lh)), ranges["v"].append(v)
            count += 1
    # relative: dense inverse of I + M/b with cond up to 1 + 1e3 (v = -3): 1e-12 * 1e3 round-off
    assert worst["gap_vs_eigen_formula"] < 1e-8 and worst["gap_over_bound"] <= 1 + 1e-9
    assert worst["norm_M_over_sharp"] <= 1 + 1e-9  # float64 eigenvalues (sharp Thm C.2 bound on |M|)
    coll = {}
    for (lw, lh, d, K, n) in [(0.5, 0.5, 3, 2, 2), (1e-3, 0.9, 4, 2, 2), (2.0, 0.05, 4, 3, 2), (1e-4, 1.0, 3, 2, 3)]:
        r_ = np.sqrt(lh / lw)
        errs = []
        for x in (2.0, 1.0, 0.5, 0.1, 0.01):  # beta = r/x: below, at and above the Neumann threshold
            gap = _collapsed_gap(lw, lh, r_ / x, d, K, n, seed=d + K)
            errs.append(abs(gap - x * x / (1 + x)) / (x * x / (1 + x)))
        assert max(errs) < 1e-8  # float64 dense inverse; entries up to r ~ 1e2 (relative)
        coll[f"lW={lw},lH={lh},d={d},K={K},n={n}"] = {"r": r_, "max_rel_err_vs_x^2/(1+x)": max(errs)}
    verdict.verified(method="num: exact vs first-order F at minimisers of (2) (random and collapsed H0) vs the "
                            "eigenvalue formula and the bound",
                     evidence={"random_instances": count, "worst": worst, "seed": 41, "collapsed": coll,
                               "ranges": {k: [min(v_), max(v_)] for k, v_ in ranges.items()},
                               "audit": _audit("random H0 at three sizes, collapsed H0 at four lambda pairs",
                                               {"log10 lam_W, lam_H": [-2, 1], "log10(beta/|M| - 1)": [-3, 1],
                                                "collapsed x = r/beta": [2.0, 1.0, 0.5, 0.1, 0.01]},
                                               worst, needs="beta > |M|_op (stated in the correction)")})


# =========================================================================== Lemmas C.3, C.4
def _psd(x, m):
    L = np.zeros((m, m))
    L[np.tril_indices(m)] = x
    return L @ L.T


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # nan outside the hypotheses
@pytest.mark.claim("N-lemC.3")
def test_lemmaC3_random_and_adversarial(verdict):
    """B PSD, B < A, A > 0 => |A^{-1/2} B A^{-1/2}|_op <= 1: adversarial search over 3x3 pairs, near-boundary and
    ill-conditioned pairs (cond(A) up to 1e9, singular B); two-sided: the value equals the largest generalised
    eigenvalue of (B, A) (scipy, an independent route) and the bound is tight (sup = 1, approached as B -> A)."""
    m, k = 3, 6
    # the ratio (nan outside the hypotheses) and its feasible rejection-sampled start: verify.objectives
    obj = get_objective("N-lemC.3")
    ratio, start = obj.ratio, obj.sampler
    res = adversarial_max(ratio, start, n_starts=4, seed=5, maxiter=300)
    assert np.isfinite(res.best)
    rng = np.random.default_rng(6)
    rand, pts = [], []
    for i in range(200):  # near-boundary pairs B = A - (tiny PD); every 4th with ill-conditioned A and singular B
        A = _psd(rng.standard_normal(k), m) + 1e-3 * np.eye(m)
        B = A - 10.0 ** rng.uniform(-9, -1) * _psd(rng.standard_normal(k), m) / 10
        if i % 4 == 0:
            u = np.linalg.qr(rng.standard_normal((m, m)))[0]
            A = (u * np.array([1.0, 1e-4, 1e-9])) @ u.T  # cond(A) = 1e9
            B = (u[:, :2] * np.array([1.0 - 1e-6, 1e-4 * rng.uniform(0, 1)])) @ u[:, :2].T  # rank 2 (singular)
        if np.linalg.eigvalsh(B).min() >= -1e-15 and np.linalg.eigvalsh(A - B).min() > 0:
            w, V = np.linalg.eigh(B)
            LB = np.linalg.qr(((V * np.sqrt(np.clip(w, 0, None))) @ V.T).T)[1].T  # B = LB LB^T, LB lower, B singular ok
            x = np.concatenate([np.linalg.cholesky(A)[np.tril_indices(m)], LB[np.tril_indices(m)]])
            rand.append(ratio(x))
            pts.append(x)
    worst = max(res.best, max(rand))
    C = float(constants("N-lemC.3")["C"])  # the lemma's bound, from its statement object
    assert worst <= C + 1e-9  # float64 eigen-decompositions of matrices with condition up to ~1e9
    # tight: the search reaches the supremum of the family B = (1 - eps) A (whose norm is 1 - eps: A^{-1/2} B A^{-1/2}
    # = (1 - eps) I), computed here by scipy's generalised solver, not read from the statement (a weaker bound, a
    # true control, must not fail here); pairs with A - B ~ 1e-9 reach 1 - O(1e-8)
    A0 = _psd(np.arange(1.0, k + 1.0), m)
    family = max(float(scipy.linalg.eigh((1 - e) * A0, A0, eigvals_only=True)[-1]) for e in (1e-6, 1e-9, 1e-12))
    assert min(family - r for r in rand) < 1e-6 and worst > family - 1e-6
    _lemC3_statement_at_exact_pairs()

    def gen_eig(x):  # max eigenvalue of B v = t A v: scipy's Cholesky-based generalized solver, no A^{-1/2}
        return float(scipy.linalg.eigh(_psd(x[k:], m), _psd(x[:k], m), eigvals_only=True)[-1])

    r2 = np.random.default_rng(7)
    checks = [res.x] + pts[1::4][:10] + [start(r2) for _ in range(10)]
    agree = max(abs(ratio(x) - gen_eig(x)) / max(1.0, gen_eig(x)) for x in checks)
    assert agree < 1e-6  # both float64; cond(A) up to 1e9 costs up to ~1e-7 relative in either route
    verdict.verified(method="num: random, near-boundary, ill-conditioned pairs + Nelder-Mead maximisation; values vs "
                            "generalised eigenvalues (scipy)",
                     evidence={**res.evidence(), "random_pairs": len(rand), "worst_ratio_overall": worst,
                               "closest_to_1": 1 - min(1 - r for r in rand), "value_agreement_gen_eig": agree,
                               "points_compared": len(checks), "seeds": [5, 6, 7],
                               "audit": _audit("random, near-boundary, ill-conditioned pairs; Nelder-Mead",
                                               "cond(A) up to 1e9, singular B, A - B down to 1e-9", worst,
                                               needs="none (the stated B < A, A > 0 are the lemma's whole range)"),
                               "worst_instance_cholesky_factors": np.round(res.x, 12).tolist()})


def _sym2(rng, scale):
    """A seeded rational symmetric 2 x 2 matrix M M^T (positive semidefinite), entries of M in {-8..8}/4, times
    ``scale``: ``(m11, m12, m22)``."""
    M = sympy.Matrix(2, 2, [sympy.Rational(int(v), 4) for v in rng.integers(-8, 9, 4)])
    P = M * M.T * scale
    return P[0, 0], P[0, 1], P[1, 1]


def _lemC3_statement_at_exact_pairs():
    """Lemma C.3's statement object decided exactly at rational 2 x 2 pairs the check builds itself: A = M M^T + I/4
    (positive definite), B = t A + eps P (P positive semidefinite) for t from -2 to 2 (so that each hypothesis is
    violated alone: t < 0 makes B indefinite with A - B > 0, t > 1 makes A - B indefinite with B >= 0) and B = 0.
    At every pair inside the *current* statement's hypotheses (a variant that drops one admits the pairs outside it)
    the object must hold; the norm is also computed here independently (the largest |root| of det(B - lam A), by
    sympy's roots of the quadratic), and the pairs reach the family's supremum: B = (1 - 10^-6) A has norm
    1 - 10^-6, so a bound below 1 fails, and B = 0 has norm 0, so the reversed relation fails."""
    st = current("N-lemC.3")
    rng = np.random.default_rng(33)
    lam = sympy.Symbol("lam")
    pairs = []
    for i, t in enumerate((sympy.Integer(-2), sympy.Rational(-1, 2), sympy.Integer(0), sympy.Rational(1, 3),
                           sympy.Rational(9, 10), 1 - sympy.Rational(1, 10 ** 6), sympy.Integer(1),
                           sympy.Rational(3, 2), sympy.Integer(2))):
        a = tuple(x + y for x, y in zip(_sym2(rng, 1), (sympy.Rational(1, 4), 0, sympy.Rational(1, 4))))
        for eps in (0, sympy.Rational(1, 50)):
            b = tuple(t * x + y for x, y in zip(a, _sym2(rng, eps)))
            pairs.append((a, b))
    pairs.append(((sympy.Integer(3), sympy.Integer(1), sympy.Integer(2)), (0, 0, 0)))
    admitted, top, low = 0, sympy.Integer(0), None
    for a, b in pairs:
        env = {"a11": a[0], "a12": a[1], "a22": a[2], "b11": b[0], "b12": b[1], "b22": b[2]}
        if hypotheses_hold(st, env) is not True:
            continue
        admitted += 1
        A, B = sympy.Matrix([[a[0], a[1]], [a[1], a[2]]]), sympy.Matrix([[b[0], b[1]], [b[1], b[2]]])
        norm = max(abs(r) for r in sympy.roots(sympy.Poly((B - lam * A).det(), lam), multiple=True))
        top = sympy.Max(top, norm)
        low = norm if low is None else sympy.Min(low, norm)
        assert holds("N-lemC.3", env) is True, (env, float(norm), sides("N-lemC.3", env))
    # 7 of the 19 pairs are inside all three hypotheses (seeded): the sample is not emptied by them
    assert admitted >= 7 and top == 1 - sympy.Rational(1, 10 ** 6) and low == 0, (admitted, top, low)


@pytest.mark.claim("N-lemC.4")
def test_lemmaC4_bounds_13_to_16(verdict):
    """(13)-(16) on random, scaled, collapsed, rank-one and zero-class-mean H, and by adversarial search over H and
    lambda_W. Two-sided: each norm equals an independent closed form (covariances built here; (13) = s/(s + lam_W/K),
    s = lambda_max(Sigma_T~); (14) = generalised eigenvalue of (Sigma_W, A); (15), (16) = sqrt(Kn (13)), sqrt(Kn (14)),
    the proof's identities), and each bound is tight (ratio -> 1 for large H / small lam_W)."""
    d, K, n = 3, 2, 2
    rng = np.random.default_rng(7)
    worst = {key: 0.0 for key in ("13", "14", "15", "16")}
    Hs = [s * rng.standard_normal((d, K * n)) for s in (1e-3, 1.0, 1e3) for _ in range(20)]
    Hs += [np.kron(rng.standard_normal((d, K)), np.ones((1, n))), np.outer(rng.standard_normal(d), rng.standard_normal(K * n))]
    Z = rng.standard_normal((d, K * n))
    Hs += [1e3 * (Z - np.repeat(Z.reshape(d, K, n).mean(axis=2), n, axis=1))]  # zero class means: Sigma_W = Sigma_T~
    agree = 0.0
    k = constants("N-lemC.4", K=K, n=n)  # the four bounds, from the statement object
    bound = {"13": float(k["C_13"]), "14": float(k["C_14"]), "15": float(k["C_15"] * (K * n) ** k["e_15"]),
             "16": float(k["C_16"] * (K * n) ** k["e_16"])}
    for H in Hs:
        ST = H @ H.T / (K * n)
        Hc = H - np.repeat(H.reshape(d, K, n).mean(axis=2), n, axis=1)
        SW = Hc @ Hc.T / (K * n)
        for lw in (1e-4, 0.1, 1.0, 1e2):
            vals = P.lemma_c4_norms(H, lw, K, n)
            s = np.linalg.eigvalsh(ST)[-1]
            A = ST + lw / K * np.eye(d)
            g = scipy.linalg.eigh(SW, A, eigvals_only=True)[-1]
            ref = {"13": s / (s + lw / K), "14": g, "15": np.sqrt(K * n * s / (s + lw / K)), "16": np.sqrt(K * n * max(g, 0))}
            for key, (val, pkg_bound) in vals.items():
                # the bound the package reports beside each norm is the statement's (an output a user reads)
                assert abs(pkg_bound - bound[key]) <= 1e-12 * bound[key], (key, pkg_bound, bound[key])
                worst[key] = max(worst[key], val / bound[key])
                agree = max(agree, abs(val - ref[key]) / max(1.0, ref[key]))
    obj = get_objective("N-lemC.4")  # max of the four ratios at (H, lam_W = 10^x[-1]), d, K, n = 3, 2, 2
    res = adversarial_max(obj.ratio, obj.sampler, n_starts=4, seed=8, maxiter=400)
    assert np.isfinite(res.best) and max(worst.values()) <= 1 + 1e-9 and res.best <= 1 + 1e-9  # round-off of inverse square roots
    # sqrt of a generalised eigenvalue near 0 (collapsed / tiny H) loses half the digits: 1e-7 absolute
    assert agree < 1e-7
    assert min(worst.values()) > 1 - 1e-6  # each bound tight: H ~ 1e3, lam_W = 1e-4 gives 1 - O(1e-10)
    verdict.verified(method="num: random/scaled/collapsed/rank-one/zero-mean H vs closed forms + adversarial search",
                     evidence={"worst_ratio_per_bound": worst, "closed_form_agreement": agree, "seed": 7,
                               **res.evidence("adversarial_worst_ratio"),
                               "worst_instance_H_then_log10_lam_W": np.round(res.x, 12).tolist(),
                               "audit": _audit("random/scaled/collapsed/rank-one/zero-mean H, adversarial search",
                                               {"lam_W": [1e-4, 1e2], "|H| scale": [1e-3, 1e3]},
                                               max(max(worst.values()), res.best),
                                               needs="none (any H, lam_W > 0; A >= lam_W/K I is always invertible)")})


# =========================================================================== proof of Thm C.2
def _mp_directional_derivative(H, dH, lw, lh, K, dps=40):
    """d/dt grad L(H + t dH) at 0 by an mpmath central difference (h = 1e-12: truncation ~1e-24)."""
    with mpmath.workdps(dps):
        h = mpmath.mpf("1e-12")
        Hm = np.array([[mpmath.mpf(float(x)) for x in row] for row in H], dtype=object)
        Dm = np.array([[mpmath.mpf(float(x)) for x in row] for row in dH], dtype=object)
        lwm, lhm = mpmath.mpf(lw), mpmath.mpf(lh)
        gp = grad_central_path_loss(Hm + Dm * h, lwm, lhm, K)
        gm = grad_central_path_loss(Hm - Dm * h, lwm, lhm, K)
        return np.array((gp - gm) / (2 * h), dtype=float)


@pytest.mark.claim("N-C2-derivative")
def test_C2_derivative_expression(verdict):
    """The ten-term expression of d/dt grad L(H_t) in the proof of Thm C.2 equals the derivative of (7) (mpmath central
    difference of the package-independent gradient): random H over lambdas in [0.1, 3], plus the paper's own and
    boundary inputs - an ill-conditioned A (lam_W = 1e-3), a collapsed H and its near-collapsed perturbation, and a
    second size (d, K, n) = (4, 3, 2)."""
    rng = np.random.default_rng(9)
    cases = []
    for i in range(4):
        cases.append((rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), 10.0 ** rng.uniform(-1, 0.5),
                      10.0 ** rng.uniform(-1, 0.5), 2, 2, "random"))
    cases.append((rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), 1e-3, 0.5, 2, 2, "lam_W=1e-3"))
    Wc, Hc = P.collapsed_point(3, 2, 2, 0.5, 0.8, seed=4)
    cases.append((Hc, rng.standard_normal((3, 4)), 0.5, 0.8, 2, 2, "collapsed H"))
    cases.append((Hc + 1e-4 * rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), 0.5, 0.8, 2, 2, "near-collapsed"))
    cases.append((rng.standard_normal((4, 6)), rng.standard_normal((4, 6)), 0.3, 0.7, 3, 2, "d=4,K=3,n=2"))
    errs = {}
    for H, dH, lw, lh, K, n, label in cases:
        ref = _mp_directional_derivative(H, dH, lw, lh, K)
        err = float(np.max(np.abs(P.grad_L_derivative_paper(H, dH, lw, lh, K, n) - ref)) / np.max(np.abs(ref)))
        errs[label] = max(errs.get(label, 0.0), err)
    # float64 evaluation of a 10-term product chain: cond(A) <= ~1e2 for the random cases (1e-10), up to
    # K/lam_W ~ 2e3 times |H|^2 for lam_W = 1e-3 (1e-9)
    assert max(v for k, v in errs.items() if k != "lam_W=1e-3") < 1e-10 and errs["lam_W=1e-3"] < 1e-9
    # the expression as the statement object states it (its prefactor, 1/(Kn) and lambda_H K), against the mpmath
    # derivative contracted with the object's direction, at d = K = n = 2 (the object's size)
    H2, dH2, lw2, lh2 = 1.3 * rng.standard_normal((2, 4)), rng.standard_normal((2, 4)), 0.4, 0.7
    V = np.array(directions(2, 2, 2)[0].tolist(), dtype=float)
    ref = float((V * _mp_directional_derivative(H2, dH2, lw2, lh2, 2)).sum())
    exact = lambda x: sympy.Rational(Fraction(float(x)))
    q = lambda M: sympy.Matrix(M.shape[0], M.shape[1], [exact(x) for x in M.flat])
    gap, _ = sides("N-C2-derivative", {"d": 2, "K": 2, "n": 2, "n_cols": 4, "H": q(H2), "dH": q(dH2),
                                       "lambda_W": exact(lw2), "lambda_H": exact(lh2)}, D_L=exact(ref))
    assert gap < 1e-10 * max(1.0, abs(ref))  # the mpmath difference (1e-24) rounded to float64
    # decided exactly at the same point rounded to simple rationals, the derivative by the object's exact route
    # (FLINT power series of L from its definition): the identity holds with equality ('<', '>' fail here)
    simple = lambda M: sympy.Matrix(M.shape[0], M.shape[1], [sympy.Rational(round(4 * float(x)), 4) for x in M.flat])
    assert holds("N-C2-derivative", {"d": 2, "K": 2, "n": 2, "n_cols": 4, "H": simple(H2), "dH": simple(dH2),
                                     "lambda_W": sympy.Rational(2, 5), "lambda_H": sympy.Rational(7, 10)}) is True
    errs["statement object, d=2"] = float(gap)
    verdict.verified(method="hp: mpmath (dps 40) central difference of grad L (7) vs the paper's expression",
                     evidence={"instances": len(cases), "max_rel_err_by_case": errs, "seed": 9,
                               "audit": _audit("random H over lambdas, lam_W = 1e-3, collapsed and near-collapsed H, "
                                               "a second size", {"lam_W, lam_H": [1e-3, 3.2]}, max(errs.values()),
                                               needs="none: an identity (A_t >= lam_W/K I is invertible for every H)")})


# counterexample instance for Thm C.2: H0 = 0 is inside the hypotheses (beta > 11 lam_H, lam_W lam_H < 1)
C2 = dict(d=3, K=2, n=2, lam_W=0.1, lam_H=0.1, beta=200.0)


@pytest.mark.claim("N-thmC.2")
def test_thmC2_both_statements_refuted(verdict):
    """grad L is not 11 lam_H/(Kn)-Lipschitz, and H0 -> H* is not (1 - 11 lam_H/beta)^{-1}-Lipschitz: a real error.
    The proof's last step 10/lam_W + lam_H <= 11 lam_H needs lam_H lam_W >= 1, the opposite of the hypothesis. The
    curvature of L at H = 0 along the class means is derived with sympy from the objective (1) on the collapsed
    ansatz (independent of the gradient code), and the measured/claimed ratio grows like 1/lam_H as lam_H -> 0.
    The pair attains the sharp constant of the corrected statement (test_thmC2_sharp), recorded with the region
    1/12 <= lam_H lam_W < 1 where the statement as written holds."""
    d, K, n, lw, lh, b = (C2[k] for k in ("d", "K", "n", "lam_W", "lam_H", "beta"))
    assert b > 11 * lh and lw * lh < 1 and b / (11 * lh) > 100  # well inside the hypotheses
    v = np.kron(np.eye(d)[:, :K], np.ones((1, n)))  # class-mean direction, where L curves down at 0
    v /= np.linalg.norm(v)
    # derived: L(s R kron 1^T) = min_{s_W} g(s_W, s) with g the objective (1) on the ansatz; |H|_F = s sqrt(Kn)
    g, sW, sH = S.reduced_objective()
    Ls = g.subs(sW, sympy.solve(sympy.diff(g, sW), sW)[0])
    curv = sympy.factor(sympy.diff(Ls, sH, 2).subs(sH, 0))  # = lam_H - 1/lam_W
    assert S._zero(curv - (S.lam_H - 1 / S.lam_W))

    def measured(lw_, lh_, s=1e-4):  # |grad L(s v) - grad L(-s v)| / (2s): the Hessian of L at 0 along v
        gs = lambda X: grad_central_path_loss(X, lw_, lh_, K)
        return float(np.linalg.norm(gs(s * v) - gs(-s * v)) / (2 * s))

    lip_pair, claimed_lip = measured(lw, lh), 11 * lh / (K * n)
    derived_lip = abs(float(curv.subs({S.lam_W: lw, S.lam_H: lh}))) / (K * n)
    assert abs(lip_pair / derived_lip - 1) < 1e-6  # quartic term of L: relative O(s^2 / lam_W) = 1e-7 at s = 1e-4
    ratio = lip_pair / claimed_lip
    sharp, sc = S.thmC2_sharp(), P.thmC2_sharp_constants(lw, lh, K, n)
    assert abs(lip_pair / sc["lip"] - 1) < 1e-6  # the pair attains the sharp constant (same quartic-term reason)
    # statement 2: actual minimisers of (2) for H0 = 0 and H0 = t v; beta > 1/lam_W - lam_H (the weak-convexity
    # modulus of Kn L, test_thmC2_sharp) makes (2) strongly convex in H, so these are the unique minimisers
    assert b > 10 / lw + lh > 1 / lw - lh
    H_a = solve_perturbed(np.zeros((d, K * n)), b, lw, lh, K, starts=3)
    t = 1e-3
    H_b = solve_perturbed(t * v, b, lw, lh, K, starts=3)
    map_ratio = float(np.linalg.norm(H_b - H_a) / t)
    claimed_map = 1 / (1 - 11 * lh / b)
    derived_map = 1 / (1 - (1 / lw - lh) / b)  # F = (I + M/beta)^{-1}, M = Kn Hess L(0) = (lam_H - 1/lam_W) on v
    assert abs(map_ratio / derived_map - 1) < 1e-5  # O(t^2) nonlinearity of the map at t = 1e-3 + solver tolerance
    assert map_ratio > claimed_map and (map_ratio - 1) / (claimed_map - 1) > 5
    # unbounded inside the hypotheses: lam_H -> 0 at fixed lam_W (two lam_W), beta = 2 (10/lam_W + lam_H) > 11 lam_H
    sweep, lhs = {}, (1e-1, 1e-2, 1e-3, 1e-4)
    for lw_s in (0.1, 0.5):
        rat, excess = [], []
        for lh_s in lhs:
            b_s = 2 * (10 / lw_s + lh_s)
            rat.append(measured(lw_s, lh_s) / (11 * lh_s / (K * n)))
            Fz = P.F_exact(np.zeros((K, d)), np.zeros((d, K * n)), b_s, lw_s, lh_s, K, n)  # H = 0 minimises (2) at H0 = 0
            excess.append((float(np.linalg.norm(Fz, 2)) - 1) / (1 / (1 - 11 * lh_s / b_s) - 1))
        pred = [(1 / lw_s - x) / (11 * x) for x in lhs]  # derived ratio (1/lam_W - lam_H)/(11 lam_H)
        assert max(abs(a / p - 1) for a, p in zip(rat, pred)) < 1e-6  # same quartic-term reason as above
        slope = P.fitted_order(lhs, rat)
        assert -1.05 < slope < -0.95 and all(a < b_ for a, b_ in zip(rat, rat[1:]))  # ratio ~ 1/(11 lam_W lam_H)
        assert all(a < b_ for a, b_ in zip(excess, excess[1:])) and excess[-1] > 1e3
        sweep[f"lam_W={lw_s}"] = {"lam_H": list(lhs), "grad_ratio_measured_over_claimed": rat, "derived": pred,
                                  "fitted_exponent_in_lam_H": slope, "map_excess_ratio (|F|-1)/(claimed-1)": excess}
    verdict.refuted(
        counterexample={**C2, "H_pair": "(+-1e-4) * v, v = normalised [I_K;0] kron 1_n^T",
                        "grad_L_lipschitz_measured": lip_pair, "claimed_11lamH_over_Kn": claimed_lip,
                        "H0_pair": "0 and 1e-3 * v", "map_ratio_measured": map_ratio,
                        "claimed_map_constant": claimed_map},
        severity="error",
        justification={"instance": {**C2, "lam_W*lam_H": lw * lh, "beta/(11 lam_H)": b / (11 * lh),
                                    "why_inside": "lam_W lam_H = 0.01 < 1, beta = 200 > 11 lam_H = 1.1, generic H"},
                       "ratio": ratio,
                       "map_excess_ratio": (map_ratio - 1) / (claimed_map - 1),
                       "growth": "ratio = (1/lam_W - lam_H)/(11 lam_H) -> infinity as lam_H -> 0 (sweep in evidence)"},
        evidence={"lipschitz_ratio_sweep": sweep, "derived_curvature_at_0": str(curv),
                  "derived_lipschitz_lower_bound": derived_lip, "derived_map_constant": derived_map,
                  "proof_step": "last inequality (1/(K^2 n))(10K/lam_W + lam_H K) <= 11 lam_H/(Kn) needs lam_H lam_W >= 1",
                  "sharp": {"Kn_lip": str(sharp["lip_Kn"]), "attaining_pair": "(H, dH) = (0, v) if lam_H lam_W <= 3/8, "
                            "else (sqrt(lam_W) R kron 1_n^T, v); v = unit class-mean direction",
                            "region_where_stated_theorem_holds": "lam_H lam_W in " + str(sharp["region_c"]),
                            "at_this_instance": {"sharp_lip": sc["lip"], "paper_lip": sc["paper_lip"],
                                                 "sharp/paper": sc["lip"] / sc["paper_lip"]}},
                  "remark_loose_constant": {"statement": "the proof's own chain gives (10/lam_W + lam_H)/(Kn) (true, "
                                                         "not sharp)", "loose/sharp_at_this_instance":
                                            sc["loose_lip"] / sc["lip"],
                                            "loose/sharp": "(10 + c)/max{1 - c, c + 1/4}, c = lam_H lam_W: ~10 for small c"}},
        corrected="sharp: grad L is Lip-Lipschitz with Kn Lip = max{1/lam_W - lam_H, lam_H + 1/(4 lam_W)} (every "
                  "lam_W, lam_H > 0; attained: Hess(Kn L) has eigenvalue lam_H - 1/lam_W at H = 0 and lam_H + "
                  "1/(4 lam_W) at H = sqrt(lam_W) R kron 1_n^T, along the class means); for beta > max{rho, 0}, rho = "
                  "1/lam_W - lam_H, the map H0 -> H* is (1 - rho/beta)^{-1}-Lipschitz (attained at H0 = 0); for beta < "
                  "rho it is set-valued at H0 = 0 (d >= K: the collapsed orbit of the UFM with lam_H + beta) and jumps "
                  "there (H*(+-t v) -> +-s* sqrt(Kn) v), though bounded on bounded sets (|H* - H0|^2 <= (2/beta) Kn "
                  "L(H0)); at beta = rho, H*(0) = 0 is unique but |H*(t v)| ~ t^{1/3}: not Lipschitz; Thm C.2 as "
                  "written holds iff 1/12 <= lam_H lam_W < 1. "
                  "Remark: the proof's chain gives the true but ~10x looser (10/lam_W + lam_H)/(Kn)",
        method="num: gradient pair at 0 vs sympy-derived curvature; minimisers of (2) (solve_perturbed); lam_H sweep")


# exact instances for the sharp Thm C.2: (lam_W = a^2, lam_H) on both branches (c = lam_H lam_W vs 3/8) and both sides
# of the region c >= 1/12 where Thm C.2 as written holds, its boundary c = 1/12 included; sizes incl. d = K, a frame
SHARP_CASES = [(sympy.Rational(1, 2), sympy.Rational(1, 10), 3, 2, 2, None),   # c = 1/40: first branch, paper false
               (sympy.Rational(1, 2), sympy.Rational(1, 3), 3, 2, 2, 1),      # c = 1/12: paper exactly sharp
               (sympy.Rational(3, 2), sympy.Rational(1, 3), 2, 2, 2, None),   # c = 3/4: second branch, d = K
               (sympy.Rational(1, 3), sympy.Rational(27, 8), 4, 2, 2, 3)]     # c = 3/8: both branches equal


@pytest.mark.claim("N-thmC.2", corrected=True)
def test_thmC2_sharp(verdict):
    """The sharp Thm C.2. (a) sympy: the radial curvature kappa(s) of Kn L along the class means (from objective (1) on
    the ansatz, the same at two sizes), its max lam_H + 1/(4 lam_W) at s = sqrt(lam_W), its min lam_H - 1/lam_W at 0,
    the branch threshold c = 3/8, the region c in [1/12, 1) where Thm C.2 as written holds, the orbit s*^2 and the
    cubic law at beta = rho. (b) exact rationals: Hess(Kn L) = lam_H I + I kron W*^T W* - Z* at H = sqrt(lam_W) R
    kron 1^T and at H = 0 has exactly these extreme eigenvalues, with the class-mean eigenvector (the attaining pair),
    on both branches, at c = 1/12 (the paper's constants exactly equal the sharp ones) and at d = K; F at H0 = 0 has
    norm exactly 1/(1 - rho/beta). (c) float64 searches: both Hessian bounds over H and lambdas (one ratio), the
    sharp gradient constant by the paper's ten-term expression, the sharp map constant, all <= 1; the ten-term route
    attains 1 at the pair. (d) beta in (11 lam_H, rho): the map jumps at H0 = 0 by 2 s* sqrt(Kn); (e) beta = rho:
    Hoelder-1/3 (the C.1 singular instance)."""
    sym = S.thmC2_sharp()
    lh_, lw_, b_ = S.lam_H, S.lam_W, S.beta
    facts = {"s_argmax=sqrt(lam_W)": S._zero(sym["s_argmax"] - sympy.sqrt(lw_)),
             "kappa_max": S._zero(sym["kappa_max"] - (lh_ + 1 / (4 * lw_))),
             "kappa_min=kappa(0)": S._zero(sym["kappa_min"] - (lh_ - 1 / lw_)), "kappa_inf": sym["kappa_inf"] == lh_,
             "threshold_c=3/8": sym["branch_threshold_c"] == [sympy.Rational(3, 8)],
             "region": sym["region_c"] == sympy.Interval.Ropen(sympy.Rational(1, 12), 1),
             "s_star2": S._zero(sym["s_star2"] - (sympy.sqrt(lw_ / (lh_ + b_)) - lw_)),
             "cubic_2/lam_W^2": S._zero(sym["cubic_coefficient"] - 2 / lw_ ** 2),
             "size_free": S._zero(S.radial_loss_curvature(4, 3, 2)["kappa"] - sym["kappa"])}
    assert all(facts.values()), facts
    exact = {}
    for a, lh, d, K, n, seed in SHARP_CASES:
        lw = a * a
        R = sympy.eye(d)[:, :K] if seed is None else S.cayley_frame(d, K, seed=seed)
        vH = S.kron(R, sympy.ones(1, n))
        v = S.svec(vH)
        kmax, kmin = lh + 1 / (4 * lw), lh - 1 / lw
        M_top, M_0 = S.exact_loss_hessian(a * vH, lw, lh, K, n), S.exact_loss_hessian(sympy.zeros(d, K * n), lw, lh, K, n)
        e_top, e_0 = S._eigen_multiset(M_top), S._eigen_multiset(M_0)
        assert max(e_top) == kmax and (M_top * v - kmax * v).is_zero_matrix  # attained along the class means
        assert min(e_0) == kmin and e_0[kmin] == K * d and (M_0 * v - kmin * v).is_zero_matrix
        assert min(e_top) >= kmin and max(e_0) <= kmax  # inside the bounds (the bounds hold for every H: search)
        rho = 1 / lw - lh
        b = 2 * abs(rho)
        Fnorm = max(1 / (1 + e / b) for e in e_0)  # F = (I + M/beta)^{-1}, M symmetric: exact eigenvalues
        assert Fnorm == 1 / (1 - rho / b)
        lip_Kn = max(-kmin, kmax)
        c = lw * lh
        paper_holds = bool(lip_Kn <= 11 * lh and rho <= 11 * lh)
        assert paper_holds == bool(c >= sympy.Rational(1, 12))  # the derived region, decided exactly here
        exact[f"lam_W={lw},lam_H={lh},d={d},K={K},n={n}"] = {
            "c": str(c), "Kn_lip": str(lip_Kn), "eig_max_at_sqrt(lam_W)R1": str(kmax), "eig_min_at_0": str(kmin),
            "branch": "1/lam_W - lam_H" if -kmin >= kmax else "lam_H + 1/(4 lam_W)", "|F(H0=0)|_op at beta=2|rho|": str(Fnorm),
            "paper_11lam_H": str(11 * lh), "stated_theorem_holds": paper_holds}
    assert [r["stated_theorem_holds"] for r in exact.values()] == [False, True, True, True]
    # (c) float searches (one ratio per bound) and the ten-term route at the attaining pair
    search = {}
    for name in ("N-thmC.2:sharp-hessian", "N-thmC.2:sharp-map", "N-thmC.2:sharp-grad"):
        obj = get_objective(name)
        res = adversarial_max(obj.ratio, obj.sampler, n_starts=1, seed=obj.seed, maxiter=300)
        assert np.isfinite(res.best) and res.best <= 1 + obj.tol  # float64 round-off (objective registry tol)
        search[name] = res.best
    d, K, n = 3, 2, 2
    vf = np.kron(np.eye(d)[:, :K], np.ones((1, n)))
    at_pair = {}
    for lw, lh in ((0.1, 0.1), (2.0, 0.3)):  # c = 0.01 (first branch), 0.6 (second)
        Hp = np.zeros((d, K * n)) if lw * lh <= 3 / 8 else np.sqrt(lw) * vf
        x = np.concatenate([Hp.ravel(), vf.ravel(), [np.log10(lw), np.log10(lh)]])
        at_pair[f"lam_W={lw},lam_H={lh}"] = get_objective("N-thmC.2:sharp-grad").ratio(x)
        # the float routes of the other two objectives reach exactly 1 at their attaining points too (H = 0 for
        # the lower Hessian bound and the map, sqrt(lam_W) R kron 1^T for the upper bound): searches started at
        # random H rarely get there, these points make both sides of each bound fail if a constant is off
        lg = [np.log10(lw), np.log10(lh)]
        at_pair[f"hessian at 0, lam_W={lw},lam_H={lh}"] = thmc2_sharp_hessian_ratio(np.concatenate([np.zeros(12), lg]))
        at_pair[f"hessian at sqrt(lam_W)R1, lam_W={lw},lam_H={lh}"] = thmc2_sharp_hessian_ratio(
            np.concatenate([np.sqrt(lw) * vf.ravel(), lg]))
        at_pair[f"map at 0, lam_W={lw},lam_H={lh}"] = thmc2_sharp_map_ratio(np.concatenate([np.zeros(12), lg, [0.0]]))
    # float64 of a ten-term chain / eigenvalues of a 12 x 12 Schur complement / a dense inverse at exact pairs
    assert max(abs(r - 1) for r in at_pair.values()) < 1e-10
    # (d) beta in (11 lam_H, rho) at lam_W = lam_H = 0.1: H*(+-t v) -> +-s* v, a jump of 2 s* sqrt(Kn)
    lw, lh, b = 0.1, 0.1, 5.0
    assert 11 * lh < b < 1 / lw - lh
    s_star = float(sympy.sqrt(sym["s_star2"].subs({S.lam_W: sympy.Rational(1, 10), S.lam_H: sympy.Rational(1, 10),
                                                   S.beta: 5})))
    vu = vf / np.linalg.norm(vf)
    jump = {}
    for t in (1e-3, 1e-6):
        # 3 starts (global minimiser) at the decisive t = 1e-6; 1 start at t = 1e-3 (3 starts cost ~30x the time)
        Hp, Hm = (solve_perturbed(sg * t * vu, b, lw, lh, K, starts=3 if t < 1e-4 else 1) for sg in (1, -1))
        jump[str(t)] = {"|H*(tv) - H*(-tv)|": float(np.linalg.norm(Hp - Hm)), "|H0 - H0'|": 2 * t,
                        "H*(tv) along +v": float(np.sum(Hp * vu))}
    pred = 2 * s_star * np.sqrt(K * n)
    assert abs(jump["1e-06"]["|H*(tv) - H*(-tv)|"] / pred - 1) < 1e-4  # O(t) shift of the minimiser + solver tolerance
    assert jump["1e-06"]["H*(tv) along +v"] > 0 and jump["0.001"]["|H*(tv) - H*(-tv)|"] > 0.9 * pred
    sing = _singular_instance()
    assert abs(sing["order_in_t"] - 1 / 3) < 0.03  # beta = rho: |H*| ~ |H0|^{1/3} (cubic law, asserted in (a))
    verdict.verified(method="sym: radial curvature, extrema, region; exact rationals: Hessian spectra at the attaining "
                            "points; num: searches of both bounds, ten-term route, minimisers across the jump",
                     evidence={"derived": {k: bool(v) for k, v in facts.items()},
                               "Kn_lip": str(sym["lip_Kn"]), "map_constant": str(sym["map_constant"]),
                               "region_stated_theorem_holds": "lam_H lam_W in " + str(sym["region_c"]),
                               "exact_instances": exact, "search_worst_ratio_1start_300iter": search,
                               "ten_term_ratio_at_attaining_pair": at_pair,
                               "beta_between_11lamH_and_rho": {"lam_W": lw, "lam_H": lh, "beta": b, "s_star": s_star,
                                                              "predicted_jump_2s*sqrt(Kn)": pred, "measured": jump,
                                                              "behaviour": "bounded on bounded sets (|H* - H0|^2 <= "
                                                                           "(2/beta) Kn L(H0)), set-valued at H0 = 0, "
                                                                           "jumps there"},
                               "beta_equal_rho": {"instance": {k: str(v) for k, v in SING.items()},
                                                  "fitted_exponent": sing["order_in_t"],
                                                  "behaviour": "H*(0) = 0 unique (Thm 2.2, degenerate case); "
                                                               "|H*(t v)| ~ t^{1/3}: not Lipschitz at H0 = 0"},
                               "remark_loose": "(10/lam_W + lam_H)/(Kn) (the proof's chain) is true, not sharp: "
                                               "(10 + c)/max{1 - c, c + 1/4} times the sharp constant",
                               "audit": _audit("exact spectra at 4 rational instances; 3 Nelder-Mead searches",
                                               {"log10 lam_W, lam_H": [-3, 2], "c": "both branches, 1/12 and 3/8"},
                                               search, needs="none (any lam_W, lam_H > 0, any d, K, n)")})


@pytest.mark.slow
@pytest.mark.claim("N-thmC.2", corrected=True)
def test_thmC2_sharp_searches_three_sizes(verdict):
    """The sharp bounds by longer searches (2 starts, 500 iterations) at three sizes including d = K: every ratio
    <= 1 and each comes within 1% of 1 at (3, 2, 2) (the bounds are attained, so a search must approach them)."""
    res = {}
    for (d, K, n) in [(3, 2, 2), (4, 3, 2), (2, 2, 3)]:
        k = d * K * n
        row = {}
        for name, fn, sampler in [
                ("hessian", thmc2_sharp_hessian_ratio, functools.partial(normal_then_uniform, k=k, lo=-3, hi=2, m=2)),
                ("grad", thmc2_sharp_lip_ratio, functools.partial(normal_then_uniform, k=2 * k, lo=-2, hi=1, m=2)),
                ("map", thmc2_sharp_map_ratio,
                 functools.partial(normal_then_uniform, k=k, lo=-2, hi=1, m=2, more=((-2, 1, 1),)))]:
            r = adversarial_max(functools.partial(fn, d=d, K=K, n=n), sampler, n_starts=2,
                                seed=get_objective(f"N-thmC.2:sharp-{name}").seed, maxiter=500)
            assert np.isfinite(r.best) and r.best <= 1 + 1e-9  # float64 round-off (objective registry tol)
            row[name] = r.best
        res[str((d, K, n))] = row
    assert min(res["(3, 2, 2)"].values()) > 0.99  # within 1% of the attained value
    verdict.verified(method="num: Nelder-Mead maximisation of the three sharp ratios at three sizes",
                     evidence={"per_size": res, "seeds": [23, 21, 22]})


# =========================================================================== App. D: collapsed minimiser
@pytest.mark.claim("N-D-sigmas")
def test_D_sigmas_derived(verdict):
    """sigma_Hbar^2, sigma_W^2 solved from the stationarity of (1) on the collapsed ansatz."""
    s = S.collapsed_sigmas()
    lh, lw = S.lam_H, S.lam_W
    c = sympy.sqrt(lh * lw)
    k = constants("N-D-sigmas")  # the constant and exponent of (1 - c)^2, from the statement object
    ok = {"sigma_H2": S._zero(s["sigma_H2"] - (sympy.sqrt(lw / lh) - lw)),
          "sigma_H2_eq_(1-c)sqrt(lW/lH)": S._zero(s["sigma_H2"] - (1 - c) * sympy.sqrt(lw / lh)),
          "sigma_W2": S._zero(s["sigma_W2"] - (sympy.sqrt(lh / lw) - lh)),
          "product_sq_(1-c)^2": S._zero(s["sigma_H2"] * s["sigma_W2"] - (k["C"] - c) ** k["e"]),
          "below_value_at_0": S._zero((sympy.Rational(1, 2) - s["value"]) - (k["C"] - c) ** k["e"] / 2)}
    assert all(ok.values())
    # the statement object itself, decided exactly at points of both kinds (rational sigmas where lW/lH and lW lH
    # are squares, algebraic ones elsewhere; c < 1 and c > 1, where the identity still holds): its left side is the
    # product of the sigmas derived above (a dropped term fails here) and its relation holds (a strict relation, a
    # scaled constant or a moved exponent fails here)
    pts = [(sympy.Rational(1, 4), sympy.Rational(1, 9)), (sympy.Rational(9, 4), sympy.Rational(1, 4)),
           (sympy.Rational(1, 50), sympy.Rational(2, 1)), (sympy.Integer(4), sympy.Integer(1)),
           (sympy.Integer(2), sympy.Rational(1, 3)), (sympy.Rational(1, 10), sympy.Integer(5))]
    for lw_, lh_ in pts:
        derived = (s["sigma_H2"] * s["sigma_W2"]).subs({lw: lw_, lh: lh_})
        lhs, _ = sides("N-D-sigmas", {"lambda_W": lw_, "lambda_H": lh_})
        assert S._zero(lhs - derived), (lw_, lh_, lhs, derived)
        assert holds("N-D-sigmas", {"lambda_W": lw_, "lambda_H": lh_}) is True, (lw_, lh_)
    verdict.verified(method="sym: sympy.solve of grad g = 0, g = objective (1) on H = s_H R kron 1^T, W = s_W R^T",
                     evidence={"checks": ok, "sigma_H2": str(s["sigma_H2"]), "sigma_W2": str(s["sigma_W2"]),
                               "optimal_value_minus_half": str(sympy.factor(s["value"] - sympy.Rational(1, 2))),
                               "audit": _audit("sympy.solve, symbolic", "symbolic lam_W, lam_H > 0 (c < 1 stated)",
                                               0, needs="none beyond the stated c < 1 (sigma > 0)")})


@pytest.mark.claim("N-D-residual")
def test_D_residual_minus_cY(verdict):
    """W*H* - Y = -c Y: symbolically (derived sigmas, R = [I;0]) and exactly with a rational Cayley frame."""
    s = S.collapsed_sigmas()
    d, K, n = 4, 2, 3
    k = constants("N-D-residual")  # -C c Y, c = (lam_H lam_W)^e: the coefficient and exponent, from the object
    cY = lambda lh, lw: k["C"] * (lh * lw) ** k["e"]
    R = sympy.eye(d)[:, :K]
    Y = S.kron(sympy.eye(K), sympy.ones(1, n))
    res_sym = (s["sigma_W"] * R.T) * (s["sigma_H"] * S.kron(R, sympy.ones(1, n))) - Y + cY(S.p ** 2, S.q ** 2) * Y
    pt = S.rational_collapsed_point(sympy.Rational(2, 3), sympy.Rational(3, 5), S.cayley_frame(d, K, seed=1), n)
    res_exact = pt["W"] * pt["H"] - Y + cY(pt["lam_H"], pt["lam_W"]) * Y
    assert S._zero(res_sym) and res_exact == sympy.zeros(K, K * n)
    # the statement object, decided exactly at the check's own collapsed points (rational p, q) and, when the current
    # statement drops c < 1, at c > 1 points (the minimiser is 0 there): ||W*H* - Y||^2 and <W*H* - Y, Y> from W*, H*
    # built here; a dropped term, a scaled C, a moved exponent or a strict relation fails
    for pt, d_, n_ in _pq_points(K):
        Rm = pt["W"] * pt["H"] - S.kron(sympy.eye(K), sympy.ones(1, n_))
        Y_ = S.kron(sympy.eye(K), sympy.ones(1, n_))
        env = {"p": pt["p"], "q": pt["q"], "d": d_, "K": K, "n": n_}
        if hypotheses_hold(current("N-D-residual"), env) is True:
            assert holds("N-D-residual", env, R_F2=sum(x ** 2 for x in Rm),
                         R_Y=sum(x * y for x, y in zip(Rm, Y_))) is True, env
    verdict.verified(method="sym + exact rationals", evidence={"d": d, "K": K, "n": n, "sigma_H": "2/3",
                                                               "sigma_W": "3/5", "cayley_seed": 1,
                                                               "audit": _audit("symbolic and exact", "symbolic lam_W, "
                                                                               "lam_H (c < 1 stated); a Cayley frame",
                                                                               0, needs="none: an identity")})


def _pq_points(K):
    """``(point, d, n)``: exact collapsed minimisers of (1) with rational p = sqrt(lam_H), q = sqrt(lam_W) (sigma_Hbar =
    a, sigma_W = b with a/b and 1 - ab squares: (3/5, 3/5), p = q = 4/5; (6/5, 3/10), p = 2/5, q = 8/5), a Cayley frame
    R, and two points with c = pq > 1, where Thm 2.2's minimiser is (0, 0) (``ufm.collapse_rho`` is 0 there)."""
    out = []
    for a, b, d, n in ((sympy.Rational(3, 5), sympy.Rational(3, 5), 4, 3), (sympy.Rational(6, 5), sympy.Rational(3, 10), 3, 2)):
        pt = S.rational_collapsed_point(a, b, S.cayley_frame(d, K, seed=3), n)
        pt["p"], pt["q"] = sympy.sqrt(pt["lam_H"]), sympy.sqrt(pt["lam_W"])
        assert pt["p"].is_Rational and pt["q"].is_Rational and pt["p"] * pt["q"] == pt["c"]
        out.append((pt, d, n))
    for p_, q_, d, n in ((2, 1, 3, 2), (sympy.Rational(3, 2), sympy.Rational(5, 4), 4, 1)):
        assert ufm.collapse_rho(sympy.Integer(q_) ** 2, sympy.Integer(p_) ** 2) == 0
        out.append(({"W": sympy.zeros(K, d), "H": sympy.zeros(d, K * n), "p": sympy.sympify(p_), "q": sympy.sympify(q_),
                     "lam_H": sympy.sympify(p_) ** 2, "lam_W": sympy.sympify(q_) ** 2}, d, n))
    return out


@pytest.mark.claim("N-D-commutation")
def test_D_commutation_identities(verdict):
    """K^T (X1 kron X2) K = X2 kron X1, (17) K (x kron Y) = Y kron x, and E*^T = K_{d,K}(-c I_K kron 1_n^T kron I_d)."""
    d, K, n, m = 3, 2, 2, 2
    Kdk = S.commutation_matrix(d, K)
    X1 = sympy.Matrix(d, d, sympy.symbols(f"a:{d * d}"))
    X2 = sympy.Matrix(K, K, sympy.symbols(f"b:{K * K}"))
    x = sympy.Matrix(K, 1, sympy.symbols(f"x:{K}"))
    Ym = sympy.Matrix(d, m, sympy.symbols(f"y:{d * m}"))
    id1 = Kdk.T * S.kron(X1, X2) * Kdk - S.kron(X2, X1)
    id17 = Kdk * S.kron(x, Ym) - S.kron(Ym, x)
    pt = S.rational_collapsed_point(sympy.Rational(1, 2), sympy.Rational(4, 3), S.cayley_frame(d, K, seed=2), n)
    Et = S._E(pt["W"], pt["H"], K, n).T
    k = constants("N-D-commutation")  # -C c, c = (lam_H lam_W)^e: the coefficient and exponent, from the object
    cc = k["C"] * (pt["lam_H"] * pt["lam_W"]) ** k["e"]
    idE = Et - Kdk * (-cc) * S.kron(S.kron(sympy.eye(K), sympy.ones(1, n)), sympy.eye(d))
    A = sympy.Matrix(d, K, sympy.symbols(f"z:{d * K}"))  # the definition K_{d,K} vec(A) = vec(A^T)
    idK = Kdk * S.svec(A) - S.svec(A.T)
    assert id1 == sympy.zeros(*id1.shape) and id17 == sympy.zeros(*id17.shape) and idE == sympy.zeros(*idE.shape)
    assert idK == sympy.zeros(*idK.shape)
    # the statement object, decided exactly at the check's own points (rational p, q; c > 1 only when the current
    # statement drops c < 1): ||E*^T||^2, <E*^T, K_{d,K} M>, ||K_{d,K} M||^2 from E* and K_{d,K} built here
    for pt, d_, n_ in _pq_points(K):
        Et_ = S._E(pt["W"], pt["H"], K, n_).T
        KM = S.commutation_matrix(d_, K) * S.kron(S.kron(sympy.eye(K), sympy.ones(1, n_)), sympy.eye(d_))
        env = {"p": pt["p"], "q": pt["q"], "d": d_, "K": K, "n": n_}
        if hypotheses_hold(current("N-D-commutation"), env) is True:
            assert holds("N-D-commutation", env, E_F2=sum(x ** 2 for x in Et_), E_KM=sum(x * y for x, y in zip(Et_, KM)),
                         KM_F2=sum(x ** 2 for x in KM)) is True, env
    verdict.verified(method="sym: generic symbolic matrices; exact rationals for E*",
                     evidence={"d": d, "K": K, "n": n, "m": m, "K_def": "K_{d,K} vec(A) = vec(A^T), A in R^{d x K}",
                               "audit": _audit("generic symbolic matrices", "every X1, X2, x, Y (symbolic)", 0,
                                               needs="none: identities")})


def _z_forms_of(Z, R, d, n):
    r"""The forms of Z* the statement object of (18) reads: :math:`(s_1 \otimes r_i)^\top Z_{kk}(s_1 \otimes r_i)` for
    i = k, i != k, i > K (a unit vector orthogonal to R), the cross form of the block (k, k~) and the form on
    :math:`s_2 \otimes r_k` (k = 1, k~ = 2), with unnormalised vectors divided by their squared norms."""
    rj = R.T.nullspace()[0]
    one, s2 = sympy.ones(n, 1), sympy.Matrix([1, -1] + [0] * (n - 2))
    dn = d * n
    blk = lambda k, kt: Z[k * dn:(k + 1) * dn, kt * dn:(kt + 1) * dn]
    form = lambda u, B, v: (u.T * B * v)[0] / sympy.sqrt((u.T * u)[0] * (v.T * v)[0])
    u = lambda s, r: S.kron(s, r)
    return {"z_kk": form(u(one, R[:, 0]), blk(0, 0), u(one, R[:, 0])),
            "z_ki": form(u(one, R[:, 1]), blk(0, 0), u(one, R[:, 1])),
            "z_kj": form(u(one, rj), blk(0, 0), u(one, rj)),
            "z_kkt": form(u(one, R[:, 1]), blk(0, 1), u(one, R[:, 0])),
            "z_s2": form(u(s2, R[:, 0]), blk(0, 0), u(s2, R[:, 0]))}


@pytest.mark.claim("N-D-Z-blocks")
def test_D_Z_blocks_eq18(verdict):
    """Z* from its definition equals the block formula (18), exactly (rational Cayley frames) and in float64."""
    cases = []
    for (d, K, n, a, b, seed) in [(4, 2, 2, sympy.Rational(2, 3), sympy.Rational(3, 5), 3),
                                  (3, 3, 2, sympy.Rational(1, 2), sympy.Rational(5, 4), 4)]:
        R = S.cayley_frame(d, K, seed=seed)
        pt = S.rational_collapsed_point(a, b, R, n)
        _, Z = S.exact_F1(pt["W"], pt["H"], 100, pt["lam_W"], pt["lam_H"], K, n, return_Z=True)
        Zp = S.Z_blocks_paper(d, K, n, R, a ** 2, pt["lam_W"], pt["c"])
        assert Z == Zp
        if d > K:  # (18) with the statement object's constants, on forms of this Z (frame R, its complement r_j)
            assert holds("N-D-Z-blocks", {"p": sympy.sqrt(pt["lam_H"]), "q": sympy.sqrt(pt["lam_W"]), "d": d, "K": K,
                                          "n": n}, **_z_forms_of(Z, R, d, n))
        cases.append({"d": d, "K": K, "n": n, "sigma_H": str(a), "sigma_W": str(b), "cayley_seed": seed})
    # float64 at a larger size, and the off-diagonal blocks have rank one
    d, K, n, lw, lh = 7, 3, 3, 0.7, 0.9
    W, H = P.collapsed_point(d, K, n, lw, lh, seed=5)
    Z = P.Z_star(W, H, lw, K, n)
    R = H[:, ::n] / np.linalg.norm(H[:, 0])
    Zp = np.array(S.Z_blocks_paper(d, K, n, sympy.Matrix(R), float(np.linalg.norm(H[:, 0]) ** 2), lw,
                                   float(np.sqrt(lw * lh))), dtype=float)
    err = float(np.max(np.abs(Z - Zp)))
    ranks = [int(np.linalg.matrix_rank(P.block(Z, k, kt, d, n), tol=1e-10)) for k in range(K) for kt in range(K) if k != kt]
    assert err < 1e-12 and set(ranks) == {1}  # float64 round-off of O(1) entries
    verdict.verified(method="exact rationals (sympy) + float64", evidence={"exact_cases": cases, "float_max_err": err,
                                                                           "offdiag_ranks": sorted(set(ranks)),
                                                                           "audit": _audit(
        "exact at two rational points incl. d = K, float64 at d = 7", "c in (0, 1); (sigma^2 R R^T + lam_W I) and "
        "(H H^T kron I + n lam_W I) are positive definite for every lam_W > 0", err, needs="none: an identity")})


@pytest.mark.claim("N-D-mu-lambda")
def test_D_mu_lambda_eqs_19_20(verdict):
    """lambda_i (Rayleigh quotient on s_2 kron r_i) and mu_i = beta (s_1 - s_2 quotients) of the derived F_kk."""
    d, K, n, k = 4, 2, 3, 0
    F = S.collapsed_F(d, K, n)
    Fkk = F[:d * n, :d * n]
    s1 = sympy.ones(n, 1) / sympy.sqrt(n)
    s2 = sympy.Matrix([1, -1] + [0] * (n - 2)) / sympy.sqrt(2)
    f = constants("N-D-mu-lambda")  # the 1 of (19)-(20), the square root, the 2c and the squares, from the object
    c, r = sympy.sqrt(S.lam_H * S.lam_W), (S.lam_H / S.lam_W) ** f["e_r"]
    expected_lam = lambda i: f["C_1"] - r / S.beta if i < K else f["C_1"] - S.lam_H / S.beta
    expected_mu = lambda i: ((f["C_2"] * c - 1) ** f["e_2"] * r if i == k else (c ** f["e_2"] + (1 - c) ** f["e_2"]) * r) \
        if i < K else S.lam_H
    ok, quot = [], {}
    for i in range(d):
        ri = sympy.eye(d)[:, i]
        v1, v2 = S.kron(s1, ri), S.kron(s2, ri)
        lam_i = (v2.T * Fkk * v2)[0]
        mu_i = S.beta * ((v1.T * Fkk * v1)[0] - lam_i)
        quot[i] = (S.to_lams(lam_i), S.to_lams(mu_i))
        ok.append(S._zero(S.to_lams(lam_i) - expected_lam(i)) and S._zero(S.to_lams(mu_i) - expected_mu(i)))
    assert all(ok)
    # the statement object decided exactly at rational p = sqrt(lam_H), q = sqrt(lam_W), beta, with the quotients
    # computed above (i = k, a second i <= K, i > K): identities, so '=' holds and '<', '>' fail
    for pv, qv, bv in ((sympy.Rational(4, 5), sympy.Rational(4, 5), sympy.Integer(40)),
                       (sympy.Rational(2, 5), sympy.Rational(8, 5), sympy.Rational(7, 2))):
        at = lambda e: sympy.simplify(e.subs({S.lam_H: pv ** 2, S.lam_W: qv ** 2, S.beta: bv}))  # exact rationals
        given = {"lam_k": at(quot[k][0]), "lam_j": at(quot[K][0]), "mu_k": at(quot[k][1]), "mu_i": at(quot[1][1]),
                 "mu_j": at(quot[K][1])}
        assert holds("N-D-mu-lambda", {"p": pv, "q": qv, "beta": bv, "d": d, "K": K, "n": n}, **given) is True, given
    verdict.verified(method="sym: quadratic forms of the derived F_kk (R = [I;0]) vs (19), (20) and mu_i",
                     evidence={"d": d, "K": K, "n": n, "per_i_match": ok,
                               "audit": _audit("symbolic quadratic forms", SYMB, 0,
                                               needs="none: identities in beta (lambda_i = 0 at beta = r is allowed)")})


@pytest.mark.claim("N-D-eig")
def test_D_eig_spectrum_21_derived_and_numeric(verdict):
    """Derived spectrum of F_kk (factorised charpolys) = (21) with multiplicities at several sizes; eigenvalue 1 has
    share (1-K/d)/n; the numeric spectrum (dense, random frame; Kronecker-reduced at d=64, K=10, n=50) matches."""
    sym, never_one = {}, {}
    cc = sympy.Symbol("c", positive=True)
    for (d, K, n) in SIZES:
        spec = S.Fkk_spectrum(d, K, n)
        assert S.spectra_equal(spec, S.paper_Fkk_spectrum(d, K, n))
        ones = sum(m for e, m in spec.items() if S._zero(e - 1))
        assert holds("N-D-eig", {"d": d, "K": K, "n": n}, s_1=sympy.Rational(ones, d * n))  # (1 - K/d)/n, the object's
        sym[str((d, K, n))] = {str(e): m for e, m in spec.items()}
        # audit: the share holds at every beta > 0: e - 1 = (numerator free of beta)/beta for the other eigenvalues,
        # and that numerator (with lam_W = c^2/lam_H, i.e. q = c/p) has no zero c in (0, 1)
        for e in spec:
            if S._zero(e - 1):
                continue
            num = sympy.numer(sympy.together(sympy.cancel(S.to_pq(e - 1))))
            zeros = sympy.solveset(sympy.factor(num.subs(S.q, cc / S.p)), cc, sympy.Interval.open(0, 1))
            never_one[f"{(d, K, n)}: {e}"] = S.beta not in num.free_symbols and zeros == sympy.EmptySet
    assert all(never_one.values())
    num = {}
    for (d, K, n, lw, lh, b, dense) in [(5, 3, 3, 0.7, 0.9, 40.0, True), (6, 2, 4, 2.0, 0.3, 80.0, True),
                                        (64, 10, 50, np.sqrt(2), 0.3, 100.0, False)]:
        W, H = P.collapsed_point(d, K, n, lw, lh, seed=d)
        red = P.collapsed_block_spectrum(W, H, 1, b, lw, lh, K, n)
        ref = P.closed_form_Fkk_spectrum(d, K, n, b, lw, lh)
        err = float(np.max(np.abs(red - ref)))
        if dense:
            F = P.F_first_order(W, H, b, lw, lh, K, n)
            err = max(err, float(np.max(np.abs(np.sort(np.linalg.eigvalsh(P.block(F, 1, 1, d, n)))[::-1] - ref))))
        assert err < 1e-11  # float64 eigenvalues of size 1 after O(d) accumulations
        num[f"d={d},K={K},n={n}"] = err
    verdict.verified(method="sym: charpoly factorisation of symbolic F_kk; num: dense + Kronecker-reduced spectra",
                     evidence={"derived_spectra": sym, "numeric_max_abs_err": num,
                               "audit": _audit("charpoly factorisation at 3 sizes (symbolic beta); other eigenvalues "
                                               "never 1", SYMB, max(num.values()), never_one=never_one,
                                               needs="none: (21) and the share (1-K/d)/n hold at every beta > 0, "
                                                     "including beta = r, r/2 where (19)/(21) vanish")})


# =========================================================================== Thm 5.2
# exact instance: sigma_Hbar = 1/10, sigma_W = 99/10 -> c = 1/100, r = sqrt(lam_H/lam_W) = 99, lam_H = 99/100,
# lam_W = 1/9900: lam_W < lam_H, so r >> max{1, lam_H} (the regime the stated hypothesis does not exclude)
_A, _B = sympy.Rational(1, 10), sympy.Rational(99, 10)


def _spec_at(spec, lh, lw, b):
    return {sympy.cancel(e.subs({S.lam_H: lh, S.lam_W: lw, S.beta: b})): m for e, m in spec.items()}  # exact: sqrt's rational


@pytest.mark.claim("N-thm5.2")
def test_thm52_as_stated(verdict):
    """Thm 5.2 part by part (each of its five claims on its own). Derived spectra of F (5) evaluated exactly at a
    rational collapsed point with beta >> max{1, lam_H} and beta/r in {1/3, 1/2, 1, 3/2}, r = sqrt(lam_H/lam_W); n = 1;
    the exact F of Thm C.1 (Schur complement) at the same points and at the float lam_W = 1e-4, lam_H = 1, beta = 100
    (beta = r). Proof steps tested: 'in the large beta regime (19) and (20) are positive' (needs beta > r) and 'the
    second term of (21) does not include s_j kron r_i, j > 1' (needs n >= 2)."""
    d, K = 3, 2
    claim = S.paper_thm52()
    pt = S.rational_collapsed_point(_A, _B, sympy.eye(d)[:, :K], 2)
    lh, lw, c = pt["lam_H"], pt["lam_W"], pt["c"]
    r = _B / _A  # = sqrt(lam_H/lam_W) at this point (rational_collapsed_point: lam_H/lam_W = (b/a)^2)
    assert r ** 2 == lh / lw and lh * lw < 1
    sv_off = S.Fkk_tilde_singular_values(d, K, 2)["squared_singular_values"]
    nz = {e: m for e, m in sv_off.items() if not S._zero(e)}
    identically = {  # symbolic in lam_H, lam_W, beta > 0: hold for every beta, every c in (0, 1)
        "F_kk~ rank 1": len(nz) == 1 and list(nz.values()) == [1],
        "sigma_max(F_kk~) = 2 lH (1-c)/beta": len(nz) == 1 and S._zero(list(nz)[0] - claim["sigma_max_Fkkt"] ** 2)}
    # n = 1 and n = 2 as well (the off-diagonal block of the n = 1 matrix)
    nz1 = [e for e in S.Fkk_tilde_singular_values(3, 2, 1)["squared_singular_values"] if not S._zero(e)]
    assert all(identically.values()) and len(nz1) == 1 and S._zero(nz1[0] - claim["sigma_max_Fkkt"] ** 2)

    def parts_F5(spec, b):  # exact rational evaluation of the derived F (5) spectrum and the claimed values
        ev = _spec_at(spec, lh, lw, b)
        sv = sorted(abs(e) for e in ev)
        cl = {k: v.subs({S.lam_H: lh, S.lam_W: lw, S.beta: b}) for k, v in claim.items()}  # rational: r, c rational
        return {"F_kk full rank": all(e != 0 for e in ev), "sigma_max(F_kk) = 1": sv[-1] == cl["sigma_max_Fkk"],
                "sigma_min(F_kk) = 1 - sqrt(lH/lW)/beta": sv[0] == cl["sigma_min_Fkk"],
                "values": {"sigma_max": str(sv[-1]), "sigma_min": str(sv[0]), "claimed_sigma_min": str(cl["sigma_min_Fkk"]),
                           "rank": sum(m for e, m in ev.items() if e != 0), "size": d * 2}}

    def exact_F_parts(lw_, lh_, b, n_):  # dense Thm C.1 F and F (5) at the float collapsed point
        W, H = P.collapsed_point(d, K, n_, float(lw_), float(lh_))
        Fe = P.F_exact(W, H, float(b), float(lw_), float(lh_), K, n_)
        F1 = P.F_first_order(W, H, float(b), float(lw_), float(lh_), K, n_)
        return P.block_summary(Fe, d, K, n_), P.block_summary(F1, d, K, n_), float(np.linalg.norm(Fe - F1, 2))

    spec2 = S.Fkk_spectrum(d, K, 2)
    table, gaps, order = {}, {}, []
    for frac in (sympy.Rational(1, 3), sympy.Rational(1, 2), sympy.Integer(1), sympy.Rational(3, 2)):
        b = frac * r
        assert b > 30 * max(1, lh)  # "beta >> max{1, lam_H}" holds at every row
        row = parts_F5(spec2, b)
        ex, f1, gap = exact_F_parts(lw, lh, b, 2)
        x = float(r / b)
        # |M|_op = r at a collapsed minimiser (M = beta (I - F1), spectrum from (21)); F = (I + M/beta)^{-1} and
        # F1 = I - M/beta share eigenvectors, so |F - F1|_op = x^2/(1 + x), x = r/beta: the Neumann series' remainder
        assert abs(gap - x * x / (1 + x)) < 1e-9 * max(1.0, gap)  # float64 dense inverse, entries up to r ~ 1e2
        assert abs(ex["sigma_min_Fkk"] - 1 / (1 + x)) < 1e-9 and ex["rank_Fkk"] == 2 * d  # exact F: eigenvalue 1/(1+x)
        assert abs(ex["sigma_max_Fkk"] - 1) < 1e-9 and ex["rank_Fkkt"] == 1  # same round-off reason
        row["exact_F_thmC1"] = ex
        table[f"beta = {frac} r = {b}"] = row
        order.append(row)
        gaps[str(frac)] = {"op_gap_exact_vs_F5": gap, "closed_form_x^2/(1+x)": x * x / (1 + x)}
    holds = {k: [row[k] for row in order] for k in ("F_kk full rank", "sigma_max(F_kk) = 1", "sigma_min(F_kk) = 1 - sqrt(lH/lW)/beta")}
    # derived thresholds: full rank fails exactly at beta = r; sigma_max = 1 needs beta >= r/2; sigma_min needs beta >= r
    assert holds == {"F_kk full rank": [True, True, False, True], "sigma_max(F_kk) = 1": [False, True, True, True],
                     "sigma_min(F_kk) = 1 - sqrt(lH/lW)/beta": [False, False, True, True]}
    # n = 1 (no s_j, j >= 2): beta = 3r/2 satisfies beta > r, yet sigma_min is 1 - 4 lam_H (1-c)/beta
    spec1 = S.Fkk_spectrum(d, K, 1)
    n1 = parts_F5(spec1, 3 * r / 2)
    ex1, _, gap1 = exact_F_parts(lw, lh, 3 * r / 2, 1)
    assert n1["F_kk full rank"] and n1["sigma_max(F_kk) = 1"] and not n1["sigma_min(F_kk) = 1 - sqrt(lH/lW)/beta"]
    assert sympy.Rational(n1["values"]["sigma_min"]) == 1 - 4 * lh * (1 - c) / (3 * r / 2)
    x1 = float(4 * lh * (1 - c) / (3 * r / 2))  # n = 1: |M|_op = 4 lam_H (1-c) (no eigenvalue r), so F (5) is in range
    assert abs(gap1 - x1 * x1 / (1 + x1)) < 1e-12  # float64 dense inverse of a well-conditioned I + M/beta
    assert abs(ex1["sigma_min_Fkk"] - 1 / (1 + x1)) < 1e-12 and abs(ex1["sigma_min_Fkk"] - 1 / 3) > 0.5  # claimed: 1/3
    # a float instance where beta >> max{1, lam_H} holds and yet beta = r:
    # lam_W = 1e-4, lam_H = 1, beta = 100 = 100 max{1, lam_H} = r
    exI, f1I, gapI = exact_F_parts(1e-4, 1.0, 100.0, 2)
    assert f1I["rank_Fkk"] == 2 * d - K and exI["rank_Fkk"] == 2 * d and abs(gapI - 0.5) < 1e-9  # rank drop K(n-1)
    reading = ("first-order approximation out of range, not a false property of the map: F (5) fails only where "
               "beta <= r, where |F - F(5)|_op = x^2/(1+x) >= 1/2 (x = r/beta), so F (5) is not an O(beta^-2) "
               "approximation of F there; the exact F of Thm C.1 keeps the property at every failing row")
    parts = {
        "F_kk full rank": {"holds_identically": False, "needs": "beta != r when n >= 2 (beta > r suffices)",
                           "per_beta_over_r_1/3,1/2,1,3/2": holds["F_kk full rank"], "reading": reading,
                           "exact_F_in_failing_regime": "full rank (rank dn) at every row and at the beta = r point"},
        "F_kk~ rank 1": {"holds_identically": True, "needs": "nothing (every beta > 0, c in (0,1), n >= 1)",
                         "exact_F_in_failing_regime": "rank 1 (numerically) at every row"},
        "sigma_max(F_kk) = 1": {"holds_identically": False, "needs": "beta >= r/2 when n >= 2 (and d > K, stated)",
                                "per_beta_over_r_1/3,1/2,1,3/2": holds["sigma_max(F_kk) = 1"], "reading": reading,
                                "exact_F_in_failing_regime": "sigma_max = 1 at every row"},
        "sigma_min(F_kk) = 1 - sqrt(lH/lW)/beta": {
            "holds_identically": False, "needs": "beta >= r and n >= 2",
            "per_beta_over_r_1/3,1/2,1,3/2": holds["sigma_min(F_kk) = 1 - sqrt(lH/lW)/beta"],
            "reading": reading + "; but for n = 1 the theorem is false (beta = 3r/2, F(5) within " + f"{gap1:.1e}"
                       + " of F): sigma_min = 1 - 4 lam_H (1-c)/beta for F (5), 1/(1 + 4 lam_H (1-c)/beta) for F",
            "exact_F_in_failing_regime": "sigma_min = 1/(1 + r/beta) (asserted), not 1 - r/beta"},
        "sigma_max(F_kk~) = 2 lH (1-c)/beta": {"holds_identically": True, "needs": "nothing",
                                               "exact_F": "2 lam_H (1-c)/beta + O(beta^-2)"},
    }
    verdict.refuted(
        counterexample={"d": d, "K": K, "n": 2, "lam_H": str(lh), "lam_W": str(lw), "c": str(c), "r=sqrt(lH/lW)": str(r),
                        "rows": table, "n=1, beta=3r/2": n1["values"],
                        "beta_equals_r_instance lW=1e-4, lH=1, beta=100": {"F5": f1I, "exact_F": exI, "op_gap": gapI}},
        severity="missing-hypothesis",
        justification={
            "hypothesis": "beta > sqrt(lam_H/lam_W) (the proof's 'in the large beta regime (19) is positive'; it is the "
                          "Neumann-series condition |M/beta|_op < 1 of Thm 5.1, |M|_op = sqrt(lam_H/lam_W), which "
                          "beta >> max{1, lam_H} does not give when lam_W < lam_H) and n >= 2 (for sigma_min: the "
                          "eigenvectors s_j kron r_i, j >= 2)",
            "repair": "test_thm52_corrected: with n >= 2, d > K, beta > sqrt(lam_H/lam_W) all five parts hold - sympy "
                      "sign deduction on the derived spectra at 3 sizes and random frames/sizes/lambdas with beta "
                      "down to (1 + 1e-6) sqrt(lam_H/lam_W)"},
        evidence={"parts": parts, "identically_true_parts": identically, "first_order_vs_exact_gap": gaps,
                  "beta_over_max(1,lam_H)_at_rows": [str(f * r / max(1, lh)) for f in
                                                     (sympy.Rational(1, 3), sympy.Rational(1, 2), 1, sympy.Rational(3, 2))]},
        corrected="for n >= 2, d > K, lam_H lam_W < 1 and beta > sqrt(lam_H/lam_W): F_kk is full rank, "
                  "sigma_max(F_kk) = 1, sigma_min(F_kk) = 1 - sqrt(lam_H/lam_W)/beta; F_kk~ is rank 1 with "
                  "sigma_max = 2 lam_H (1 - sqrt(lam_H lam_W))/beta (the last two for every beta > 0)",
        method="sym: derived spectra evaluated exactly at a rational collapsed point; num: dense exact F (Thm C.1)")


@pytest.mark.claim("N-thm5.2", corrected=True)
def test_thm52_corrected(verdict):
    """The corrected Thm 5.2 in full generality (n >= 2, d > K, lam_H lam_W < 1, beta > r = sqrt(lam_H/lam_W)):
    (a) sympy sign deduction on the derived spectra at three sizes: every eigenvalue in [1 - r/beta, 1], both ends
    attained, the lower end > 0 iff beta > r; (b) random sizes K in 2..4, d in K+1..K+4, n in 2..5, random frames R,
    lambdas over 5 decades, beta = r (1 + v) with v down to 1e-6: all five parts (Kronecker-reduced spectra; dense
    F cross-check at the small sizes); (c) the hypothesis is sharp: at beta = r (1 - v) the claimed sigma_min is < 0."""
    facts = {}
    for (d, K, n) in SIZES:
        spec = S.Fkk_spectrum(d, K, n)
        sg = S.eigen_sign_analysis(spec)
        floor = 1 - sympy.sqrt(S.lam_H / S.lam_W) / S.beta
        attained = (sum(m for e, m in spec.items() if S._zero(e - 1)) == d - K
                    and sum(m for e, m in spec.items() if S._zero(e - floor)) == K * (n - 1))
        assert sg["floor_positive_stated"] is not True  # the stated hypotheses do not decide it (see refutation)
        facts[str((d, K, n))] = bool(sg["le_1"] and sg["ge_floor"] and sg["floor_positive_if_beta_gt_sqrt"] and attained)
    rng = np.random.default_rng(31)
    worst = {"sigma_max_Fkk": 0.0, "sigma_min_Fkk": 0.0, "sigma_max_Fkkt": 0.0, "offdiag_second_sv": 0.0, "dense": 0.0}
    ranges = {"K": set(), "d": set(), "n": set(), "log10_v": [], "log10_lam_W": [], "log10_lam_H": []}
    count = 0
    while count < 40:  # numeric sweep through the corrected hypotheses
        lw, lh = 10.0 ** rng.uniform(-4, 1), 10.0 ** rng.uniform(-4, 1)
        if lw * lh >= 1:
            continue
        count += 1
        lv = rng.uniform(-6, 2)
        rr, cc = np.sqrt(lh / lw), np.sqrt(lh * lw)
        b = rr * (1 + 10.0 ** lv)
        K = int(rng.integers(2, 5))
        d, n = K + int(rng.integers(1, 5)), int(rng.integers(2, 6))
        W, H = P.collapsed_point(d, K, n, lw, lh, seed=int(rng.integers(1000)))
        sv = np.abs(P.collapsed_block_spectrum(W, H, 0, b, lw, lh, K, n))
        off = P.collapsed_offdiag_singular_values(W, H, 0, K - 1, b, lw, K, n)
        # relative errors: values of size 1 (F_kk) and 2 lam_H (1-c)/beta (F_kk~), float64 with r up to 1e2.5
        worst["sigma_max_Fkk"] = max(worst["sigma_max_Fkk"], abs(sv.max() - 1))
        worst["sigma_min_Fkk"] = max(worst["sigma_min_Fkk"], abs(sv.min() - (1 - rr / b)) / (1 - rr / b))
        worst["sigma_max_Fkkt"] = max(worst["sigma_max_Fkkt"], abs(off[0] / (2 * lh * (1 - cc) / b) - 1))
        worst["offdiag_second_sv"] = max(worst["offdiag_second_sv"], off[1] / off[0])
        if d * n * K <= 60:  # dense F (5) cross-check of the Kronecker reduction, all five parts
            s = P.block_summary(P.F_first_order(W, H, b, lw, lh, K, n), d, K, n, k=0, kt=K - 1, rtol=1e-12)
            assert s["rank_Fkk"] == d * n and s["rank_Fkkt"] == 1
            worst["dense"] = max(worst["dense"], abs(s["sigma_max_Fkk"] - sv.max()), abs(s["sigma_min_Fkk"] - sv.min()),
                                 abs(s["sigma_max_Fkkt"] - off[0]) / off[0])
        ranges["K"].add(K), ranges["d"].add(d), ranges["n"].add(n)
        ranges["log10_v"].append(lv), ranges["log10_lam_W"].append(np.log10(lw)), ranges["log10_lam_H"].append(np.log10(lh))
    # full rank: sigma_min/(1 - r/beta) - 1 is tiny, so sigma_min > 0 for v >= 1e-6 (relative error 1e-9 << 1)
    assert all(facts.values()) and max(worst["sigma_max_Fkk"], worst["dense"]) < 1e-9
    assert worst["sigma_min_Fkk"] < 1e-6  # relative to 1 - r/beta >= 1e-6: float64 cancellation in 1 - r/beta
    # F_kk~ = M_kk~/beta comes from n X_k^T (A^{-1} kron I) X_k~ with A^{-1} entries up to 1/lam_W <= 1e4 that cancel
    # to 2 lam_H (1-c): relative round-off eps * 1e4 / (2 lam_H (1-c)) <~ 1e-8 at the extremes of the sweep
    assert worst["sigma_max_Fkkt"] < 1e-8 and worst["offdiag_second_sv"] < 1e-8
    # sharpness: just below the threshold the claimed sigma_min is negative, so no singular value can equal it
    lw, lh = 1e-3, 0.5
    b = np.sqrt(lh / lw) * (1 - 1e-3)
    W, H = P.collapsed_point(5, 2, 3, lw, lh, seed=2)
    below = float(np.abs(P.collapsed_block_spectrum(W, H, 0, b, lw, lh, 2, 3)).min())
    assert 1 - np.sqrt(lh / lw) / b < 0 < below
    verdict.verified(method="sym: sign deduction on the derived spectra; num: 40 random instances (sizes, frames, "
                            "lambdas, beta near the threshold) + dense cross-check",
                     evidence={"sizes": facts, "numeric_worst": worst, "seed": 31, "instances": count,
                               "K_values": sorted(ranges["K"]), "d_values": sorted(ranges["d"]),
                               "n_values": sorted(ranges["n"]),
                               "log10_v_range": [min(ranges["log10_v"]), max(ranges["log10_v"])],
                               "log10_lam_W_range": [min(ranges["log10_lam_W"]), max(ranges["log10_lam_W"])],
                               "log10_lam_H_range": [min(ranges["log10_lam_H"]), max(ranges["log10_lam_H"])],
                               "below_threshold_beta=(1-1e-3)r": {"claimed_sigma_min": 1 - np.sqrt(lh / lw) / b,
                                                                  "actual_sigma_min": below}})


# =========================================================================== App. D.1 and Figure 1
@pytest.mark.claim("N-D.1-full-F")
def test_D1_full_F_is_stretched_block_spectrum(verdict):
    """Derived: spec(F) = K copies of spec(F_kk) except that the K(K-1) eigenvalues 1 - 2 lam_H(1-c)/beta split into
    K(K-1)/2 at 1 and K(K-1)/2 at 1 - 4 lam_H(1-c)/beta (same range; F full rank); numeric at the Fig. 1 setting:
    the structured whole spectrum equals dense eigvalsh of F (5) and the derived split of K copies of (21); the
    fraction of sorted positions differing from the stretched block spectrum is the one the closed forms predict
    (< 5%), with the same range."""
    c = sympy.sqrt(S.lam_H * S.lam_W)
    mid, low = 1 - 2 * S.lam_H * (1 - c) / S.beta, 1 - 4 * S.lam_H * (1 - c) / S.beta
    sym = {}
    moved_of = lambda K: sides("N-D.1-full-F", {"K": K}, u_F=0)[1]  # the eigenvalues the stretch misses: the object's
    for (d, K, n) in [(3, 2, 2), (4, 3, 2)]:
        blk = S.Fkk_spectrum(d, K, n)
        pred = {}
        for e, m in blk.items():
            key = next((k for k in pred if S._zero(k - e)), e)
            pred[key] = pred.get(key, 0) + K * m
        for key in list(pred):
            if S._zero(key - mid):
                pred[key] -= moved_of(K)
                if pred[key] == 0:
                    del pred[key]
        for val in (sympy.Integer(1), low):
            key = next(k for k in pred if S._zero(k - val))
            pred[key] += moved_of(K) / 2
        sym[str((d, K, n))] = S.spectra_equal(S.full_F_spectrum(d, K, n), pred)
        # the statement object decided exactly at rational p = sqrt(lam_H) = 2/5, q = sqrt(lam_W) = 8/5 (c = 16/25),
        # beta = 40, with the count of eigenvalues of F beyond K copies of spec(F_kk) made here from the two derived
        # spectra with multiplicities: '=' holds, '<' and '>' fail
        at = {S.lam_H: sympy.Rational(4, 25), S.lam_W: sympy.Rational(64, 25), S.beta: 40}
        mult = lambda spec: {v: sum(m for e, m in spec.items() if sympy.simplify(e.subs(at)) == v)
                             for v in {sympy.simplify(e.subs(at)) for e in spec}}
        mF, mB = mult(S.full_F_spectrum(d, K, n)), mult(blk)
        beyond = sum(max(0, m - K * mB.get(v, 0)) for v, m in mF.items())
        assert holds("N-D.1-full-F", {"p": sympy.Rational(2, 5), "q": sympy.Rational(8, 5), "beta": 40, "d": d,
                                      "K": K, "n": n}, u_F=beyond) is True, (d, K, n, beyond)
    cfg = dict(d=10, K=4, n=10, lam_W=float(np.sqrt(2)), beta=100.0)
    d, K, n, lw, b = cfg["d"], cfg["K"], cfg["n"], cfg["lam_W"], cfg["beta"]
    num = {}
    for lh in (0.05, 0.5):
        W, H = P.collapsed_point(d, K, n, lw, lh, seed=1)
        full = P.collapsed_full_spectrum(W, H, b, lw, lh, K, n)
        Ws, Hs = P.collapsed_point(5, 3, 3, lw, lh, seed=2)  # dense eigvalsh at a small size (400^2 is slow on 2 cores)
        dense = np.sort(np.linalg.eigvalsh(P.F_first_order(Ws, Hs, b, lw, lh, 3, 3)))[::-1]
        dense_err = float(np.max(np.abs(P.collapsed_full_spectrum(Ws, Hs, b, lw, lh, 3, 3) - dense)))
        blk = P.collapsed_block_spectrum(W, H, 0, b, lw, lh, K, n)
        cc = np.sqrt(lh * lw)
        split = np.repeat(P.closed_form_Fkk_spectrum(d, K, n, b, lw, lh), K)
        mids = np.flatnonzero(np.isclose(split, 1 - 2 * lh * (1 - cc) / b, rtol=0, atol=1e-13))  # round-off of O(1)
        moved = int(moved_of(K))
        assert mids.size == moved
        split[mids[: moved // 2]] = 1.0
        split[mids[moved // 2:]] = 1 - 4 * lh * (1 - cc) / b
        split = np.sort(split)[::-1]
        errs = (dense_err, float(np.max(np.abs(full - split))))
        cmp = stretch_comparison(full, blk, K)
        num[str(lh)] = {**cmp, "structured_vs_dense_d5K3n3": errs[0], "structured_vs_derived_split": errs[1]}
        assert max(errs) < 1e-11  # float64 eigenvalues of size 1 after O(dnK) accumulations
        closed_stretched = np.sort(np.repeat(P.closed_form_Fkk_spectrum(d, K, n, b, lw, lh), K))[::-1]
        expected = float(np.mean(np.abs(split - closed_stretched) > 1e-12))  # from the closed forms alone
        assert full.min() > 0 and 0 < expected < 0.05 and cmp["fraction_positions_differing"] == expected
        assert cmp["range_full"] == pytest.approx(cmp["range_block"], abs=1e-12)  # the stretch keeps the range
    assert all(sym.values())
    verdict.verified(method="sym: derived spectrum of the whole F; num: structured vs dense vs derived split at Fig. 1",
                     evidence={"symbolic_split_statement_holds": sym, "fig1_setting": cfg, "numeric": num,
                               "moved_eigenvalues_K(K-1)": moved,
                               "audit": _audit("derived whole-F spectrum at 2 sizes (symbolic beta); Fig. 1 numerics",
                                               SYMB, max(v["structured_vs_derived_split"] for v in num.values()),
                                               needs="none for the stretch (an identity in beta); the aside 'F is full "
                                                     "rank in the large beta regime' needs beta != r etc. (F (5) has "
                                                     "eigenvalue 1 - r/beta), the missing hypothesis of N-thm5.2")})


@pytest.mark.claim("N-fig1")
def test_fig1_reproduced(verdict, tmp_path):
    """Figure 1: numeric spectra of F_kk (dense and Kronecker-reduced) on the closed forms; step-wise (5 levels for
    generic lam_H); share (1-K/d)/n equal to 1 (computed here from the paper's setting); most values decrease as
    lam_H grows; the setting is the paper's (beta = 100, K = 4, d = 10, n = 10, lam_W = sqrt 2)."""
    out = reproduce_fig1(tmp_path, quick=True)
    cfg = out["config"]
    assert (cfg["beta"], cfg["K"], cfg["d"], cfg["n"]) == (100.0, 4, 10, 10) and cfg["lam_W"] == np.sqrt(2)
    assert (tmp_path / "fig1_Fkk_spectrum.png").stat().st_size > 0
    curves = json.loads((tmp_path / "fig1_Fkk_spectrum.json").read_text())["curves"]
    assert out["max_abs_err_numeric_vs_closed_form"] < 1e-12  # float64 round-off of O(1) eigenvalues
    # (1 - K/d)/n, the share App. D states (N-D-eig), read from that claim's statement object
    share = float(sides("N-D-eig", {"d": cfg["d"], "K": cfg["K"], "n": cfg["n"]}, s_1=0)[1])
    for lh, cv in curves.items():
        dense = np.array(cv["numeric_dense"])
        assert dense.size == cfg["d"] * cfg["n"] and np.mean(np.abs(dense - 1) < 1e-12) == pytest.approx(share)
    assert out["fraction_equal_to_one"] == pytest.approx(share, abs=1e-12)
    # the curves as Figure 1's statement object states them (top level, floor, number of steps): the numeric dense
    # spectra against the object's constants, and the object decided exactly at the plotted lambda_H (its quantities
    # from the derived spectrum of F_kk at the figure's sizes: a strict relation fails there)
    k = constants("N-fig1")
    assert out["distinct_values_per_curve"] == [k["L"]] * len(curves) and out["fraction_decreasing_between_successive_lam_H"] > 0.9
    for lh, cv in curves.items():
        dense = np.array(cv["numeric_dense"])
        floor = float(k["C_1"]) - float(k["C_r"]) * (float(lh) / cfg["lam_W"]) ** float(k["e_r"]) / cfg["beta"]
        # float64 eigenvalues of a 100 x 100 symmetric block of size-1 entries: 1e-12
        assert abs(dense.max() - float(k["C_top"])) < 1e-12 and abs(dense.min() - floor) < 1e-12, (lh, dense.min(), floor)
        assert holds("N-fig1", {"lambda_H": sympy.Rational(lh)}) is True, lh
    verdict.verified(method="num: reproduce_fig1 (dense and Kronecker-reduced vs closed form (21))",
                     evidence={**out, "share_of_ones_derived_here": share,
                               "audit": _audit("the paper's setting", {"lam_H": list(cfg["lam_H"])},
                                               out["max_abs_err_numeric_vs_closed_form"],
                                               min_beta_over_sqrt_lamH_over_lamW=min(
                                                   cfg["beta"] / np.sqrt(h / cfg["lam_W"]) for h in cfg["lam_H"]),
                                               needs="none: one stated configuration, beta = 100 > 140 sqrt(lam_H/lam_W)")})


@pytest.mark.slow
@pytest.mark.claim("N-fig1", "N-D-eig")
def test_fig1_size_symbolic_spectrum(verdict):
    """The derived (sympy) spectrum of F_kk at the Figure 1 size d=10, K=4, n=10 equals (21) (about 30 s)."""
    spec = S.Fkk_spectrum(10, 4, 10)
    assert S.spectra_equal(spec, S.paper_Fkk_spectrum(10, 4, 10))
    verdict.verified(method="sym: charpoly factorisation at the Figure 1 size",
                     evidence={"spectrum": {str(e): m for e, m in spec.items()}})


@pytest.mark.slow
@pytest.mark.claim("N-D-eig")
def test_D_eig_numeric_at_d512_n200_K10(verdict):
    """All 102400 eigenvalues of F_kk at d = 512, K = 10, n = 200 (Kronecker-reduced) against (21)."""
    d, K, n, lw, lh, b = 512, 10, 200, float(np.sqrt(2)), 0.3, 100.0
    W, H = P.collapsed_point(d, K, n, lw, lh, seed=1)
    err = float(np.max(np.abs(P.collapsed_block_spectrum(W, H, 3, b, lw, lh, K, n)
                              - P.closed_form_Fkk_spectrum(d, K, n, b, lw, lh))))
    assert err < 1e-11  # float64 eigenvalues of size 1 after O(d) accumulations
    verdict.verified(method="num: Kronecker-reduced spectrum vs closed form (21)",
                     evidence={"d": d, "K": K, "n": n, "lam_W": lw, "lam_H": lh, "beta": b, "max_abs_err": err})


@pytest.mark.claim("N-D-residual")
def test_cayley_frames_come_from_the_documented_rational_skew_law(verdict):
    r"""``cayley_frame`` draws :math:`S` skew with entries :math:`p/q`, :math:`|p| \le 4`, :math:`q \in \{1,2,3\}`.
    From a full frame (K = d) S is recovered exactly by the inverse Cayley transform
    :math:`S = (I - Q)(I + Q)^{-1}`; over the seeds 0..4 at d = 4 every entry lies in the law's support and
    denominators 2 and 3 both occur (30 draws; an integer-only law would show none)."""
    from verify.symbolic import perturbation as S

    support = {sympy.Rational(p, q) for p in range(-4, 5) for q in (1, 2, 3)}
    dens = set()
    for seed in range(5):
        Q = S.cayley_frame(4, 4, seed=seed)
        assert Q.T * Q == sympy.eye(4)
        Sk = (sympy.eye(4) - Q) * (sympy.eye(4) + Q).inv()
        assert Sk == -Sk.T
        for i, j in itertools.combinations(range(4), 2):
            assert Sk[i, j] in support, Sk[i, j]
            dens.add(int(sympy.fraction(Sk[i, j])[1]))
    assert {2, 3} <= dens, dens
    verdict.verified(method="inverse Cayley transform recovers S in the law's support; denominators 2 and 3 occur",
                     evidence={"denominators": sorted(dens)})
