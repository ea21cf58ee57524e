"""Paper N, certified (issue 25): the deciding numbers of the checks recomputed in exact rationals (flint fmpq,
floats at their binary values) or Arb balls, at the points the checks evaluate (the objectives' seeded starts
and adversarial maximisers of :mod:`verify.objectives`). Verified claims record a certified margin, refuted ones
a certified interval for their counterexample (``verdict.certified``; it never sets a verdict)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from flint import fmpq

from verify import certified as C
from verify.numeric import central_path as flow
from verify.numeric import ufm
from verify.numeric import perturbation as P
from verify.objectives import get_objective, unpack_central
from verify.symbolic import perturbation as S

EXACT = "exact rationals (flint fmpq; float inputs at their binary values)"
BALLS = "exact rationals + Arb balls for square roots; eigenvalue bounds by exact LDL^T (t A - B > 0) and Rayleigh quotients"
N_PTS = 24  # seeded starts per objective: the check's own sampler and seed (verify.objectives)


@pytest.mark.claim("N-lemB.1")
def test_lemB1_bound_certified_at_search_points(verdict):
    """Lemma B.1: ||grad L(H)||_F^2 <= ((3/lW + lH)/(Kn))^2 ||H||_F^2 exactly (gradient (7) in fmpq) at the
    objective's seeded starts and its adversarial maximiser (where the float ratio is closest to 1)."""
    for name, size in (("N-lemB.1", (2, 2, 2)), ("N-lemB.1:d3K2n1", (3, 2, 1))):
        pts = C.objective_points(name, N_PTS, search_starts=2)
        margins = [1 - C.sqrt_enclosure(C.enclosure(C.lemb1_sq_ratio(x, *size))).hi for x in pts]
        obj = get_objective(name)
        fl = [obj.ratio(x) for x in pts]
        # independent route: the float objective agrees with the certified value (round-off of O(1) sums)
        assert all(abs((1 - m) - f) < 1e-12 for m, f in zip((float(m) for m in margins), fl))
        ev = C.margin_evidence(margins, f"Lemma B.1 ({name}), ratio <= 1", EXACT,
                               "the ratio at the seeded starts and at the adversarial maximiser (inputs exact)",
                               objective=name, seed=obj.seed, max_float_ratio=max(fl))
        verdict.certified("margin", ev)


@pytest.mark.claim("N-thm4.1-W")
def test_thm41_TW_derivative_sign_certified(verdict):
    """Thm 4.1, second bullet: e^{-2 lH t} dT_W/dt = -(2/K) Tr(Sigma_W C SigmaB~ C) <= 0, exactly at the
    objective's seeded starts and its maximiser (normalised as in the objective; balls for the norms)."""
    pts = C.objective_points("N-thm4.1-W", N_PTS, search_starts=2)
    obj = get_objective("N-thm4.1-W")
    margins = [C.tw_margin(x) for x in pts]
    assert all(abs(float(m.lo) + obj.ratio(x)) < 1e-12 for m, x in zip(margins, pts))  # float route agrees
    verdict.certified("margin", C.margin_evidence(
        margins, "Thm 4.1: -e^{-2 lH t} dT_W/dt / (|Sigma_W| |C SigmaB~ C|) >= 0", BALLS,
        "the sign of dT_W/dt at each point (closed form of App. A, exact); the ODE solution itself is not certified",
        objective="N-thm4.1-W", seed=obj.seed))


@pytest.mark.claim("N-lemC.3")
def test_lemC3_norm_certified(verdict):
    """Lemma C.3: ||A^{-1/2} B A^{-1/2}||_op = lambda_max(B, A) <= 1, enclosed exactly (hypotheses A > 0,
    A - B > 0 decided exactly) at the seeded feasible starts and the adversarial maximiser."""
    pts = C.objective_points("N-lemC.3", N_PTS, search_starts=2)
    obj = get_objective("N-lemC.3")
    encl = [C.lemc3_bound(x) for x in pts]
    assert all(inside for inside, _ in encl)
    assert all(e.lo - fmpq(1, 10 ** 9) <= C.to_fmpq(obj.ratio(x)) <= e.hi + fmpq(1, 10 ** 9)  # float eig: ~1e-9
               for (_, e), x in zip(encl, pts))
    verdict.certified("margin", C.margin_evidence(
        [1 - e.hi for _, e in encl], "Lemma C.3: ||A^{-1/2} B A^{-1/2}||_op <= 1", EXACT,
        "the operator norm at each point (upper end: t A - B > 0 proved exactly)", objective="N-lemC.3",
        seed=obj.seed, max_upper=max(C.upper_float(e.hi) for _, e in encl)))


@pytest.mark.claim("N-lemC.4")
def test_lemC4_four_bounds_certified(verdict):
    """Lemma C.4, (13)-(16), exactly as generalised eigenvalues against A = SigmaT~ + lW/K I at the seeded starts
    and the adversarial maximiser ((15)-(16) squared: ||A^{-1/2} X||_op^2 / (Kn))."""
    pts = C.objective_points("N-lemC.4", N_PTS, search_starts=1)
    obj = get_objective("N-lemC.4")
    margins, per = [], {}
    for x in pts:
        b = C.lemc4_bounds(x)
        assert abs(max(float(b["(13)"].hi), float(b["(14)"].hi), np.sqrt(float(b["(15)"].hi)),
                       np.sqrt(float(b["(16)"].hi))) - obj.ratio(x)) < 1e-9  # float inverse square roots: 1e-9
        for k, e in b.items():
            margins.append(1 - e.hi)
            per[k] = min(per.get(k, 1.0), C.lower_float(1 - e.hi))
    seeded = C.margin_evidence(margins[:-4], "seeded starts", EXACT, "")  # the last 4: the adversarial maximiser
    verdict.certified("margin", C.margin_evidence(
        margins, "Lemma C.4: the four ratios (13)-(16) <= 1", EXACT, "each of the four norms at each point",
        strict=False, objective="N-lemC.4", seed=obj.seed, margin_lower_per_bound=per,
        margin_lower_seeded_starts=seeded["margin_lower"], log10_lam_W_at_maximiser=float(pts[-1][-1]),
        note="the adversarial maximiser drives lam_W to ~1e-16, where all four ratios are within ~1e-16 of 1: "
             "certified <= 1 there (margin >= 0, t = 1 proved by an exact PSD test), > 0 at the seeded starts"))


@pytest.mark.claim("N-B-distance", "N-eq8")
def test_appB_distance_certified_at_returned_minimisers(verdict):
    """App. B distance bound at the reduced solver's minimisers (beta = 1.05 nKM, the objective's points): the
    ratio ||H - H0||^2 / ((beta/nKM - 1)^{-1} ||H0||)^2 exactly at the returned H, and the residual of (8) there
    exactly; the minimiser itself is an optimiser's output and is not certified, only what follows at it."""
    pts = C.objective_points("N-B-distance", 8)
    margins, res = [], []
    for x in pts:
        H0f, lwf, lhf = unpack_central(x)
        nKMf = 3 / lwf + lhf
        Hf = ufm.solve_perturbed(H0f, nKMf * 1.05, lwf, lhf, 2, polish=False)
        H0, lw, lh = C.central_point(x)
        H, beta = C.exact_array(Hf), C.to_fmpq(nKMf * 1.05)
        nKM = 3 / lw + lh
        sq = C.frob_sq(H - H0) * (beta / nKM - 1) ** 2 / C.frob_sq(H0)
        margins.append(1 - C.sqrt_enclosure(C.enclosure(sq)).hi)
        r = ufm.stationarity_residual(H, H0, beta, lw, lh, 2)
        res.append(C.upper_float(C.sqrt_enclosure(C.enclosure(C.frob_sq(r) / C.frob_sq(H0))).hi))
    assert max(res) < 1e-5  # L-BFGS without polish: gtol-limited (the objective's tol is 1e-6 on the ratio)
    verdict.certified("margin", C.margin_evidence(
        margins, "App. B: ||H_{1/beta} - H0|| <= (beta/(nKM) - 1)^{-1} ||H0||", EXACT,
        "the inequality at the solver's returned H (inputs exact); the residual of (8) at it, certified: "
        "the returned H is a stationary point to that accuracy", objective="N-B-distance",
        max_relative_residual_eq8=max(res)), claim="N-B-distance")
    verdict.certified("margin", C.margin_evidence(
        [fmpq(1, 10 ** 5) - C.to_fmpq(r) for r in res], "eq. (8): relative residual < 1e-5 at the returned minimisers",
        EXACT, "|H - H0 + (Kn/beta) grad L(H)| / |H0| at the solver's output, exactly; the minimiser is the solver's",
        max_relative_residual=max(res)), claim="N-eq8")


@pytest.mark.claim("N-minimisers-R", "N-D-residual")
def test_collapsed_minimisers_exact_stationarity(verdict):
    """Every partial orthonormal R gives a minimiser: at exact rational collapsed points (rational_collapsed_point,
    Cayley frames R) the gradient of objective (1)'s reduction, the residual W*H* - Y + cY and the optimal W(H)
    are exactly zero (an identity: margin = exact zero residual, certified)."""
    rows = []
    for seed, (a, b, d, K, n) in enumerate([("1/3", "3/2", 3, 2, 2), ("2/5", "1/2", 4, 3, 2), ("1/2", "1/7", 5, 2, 3)]):
        R = S.cayley_frame(d, K, seed=seed)
        pt = S.rational_collapsed_point(a, b, R, n)
        H, W = C.exact_array(np.array(pt["H"].tolist())), C.exact_array(np.array(pt["W"].tolist()))
        lw, lh = C.to_fmpq(pt["lam_W"]), C.to_fmpq(pt["lam_H"])
        g = ufm.grad_central_path_loss(H, lw, lh, K)
        Wopt = ufm.optimal_W(H, lw, K)
        Y = np.kron(np.eye(K, dtype=int), np.ones((1, n), dtype=int)).astype(object)
        resid = W @ H - Y + Y * C.to_fmpq(pt["c"])
        assert C.frob_sq(g) == 0 and C.frob_sq(Wopt - W) == 0 and C.frob_sq(resid) == 0
        rows.append({"d": d, "K": K, "n": n, "sigma_H": a, "sigma_W": b})
    ev = C.margin_evidence([fmpq(1)] * len(rows), "grad L(H*) = 0, W*(H*) = W, W*H* - Y = -cY (exact zeros)",
                           EXACT, "exact identities at 3 rational collapsed minimisers (margin: residual exactly 0)",
                           cases=rows)
    ev["statement"] = f"exact identities grad L = 0, W*(H) = W, W H - Y = -cY: hold exactly at all {len(rows)} points (certified)"
    verdict.certified("margin", ev, claim="N-minimisers-R")


# --------------------------------------------------------------------------- refutations: certified intervals
@pytest.mark.claim("N-thmC.2")
def test_thmC2_counterexample_ratio_certified(verdict):
    """Thm C.2's constant 11 lH/(Kn) is beaten by a certified secant: for the objective's seeded points inside
    the hypotheses (lW lH < 1), |grad L(H + s dH) - grad L(H)| / (s |dH|) is a lower bound of the Lipschitz
    constant (any secant is); computed exactly at s = 2^-20, over 11 lH/(Kn), enclosed with Arb square roots."""
    obj = get_objective("N-thmC.2")
    d, K, n = 3, 2, 2
    k = d * K * n
    rng = np.random.default_rng(obj.seed)
    best = None
    for _ in range(12):  # the objective's first 12 seeded starts; the statement fails at random points
        x = np.asarray(obj.sampler(rng), dtype=float)
        if not np.isfinite(obj.ratio(x)) or obj.ratio(x) <= 1:
            continue
        H, dH = C.exact_array(x[:k].reshape(d, K * n)), C.exact_array(x[k:2 * k].reshape(d, K * n))
        lw, lh = C.to_fmpq(10.0 ** x[2 * k]), C.to_fmpq(10.0 ** x[2 * k + 1])
        assert lw * lh < 1  # inside the hypothesis, exactly
        s = fmpq(1, 2 ** 20)
        diff = ufm.grad_central_path_loss(H + dH * s, lw, lh, K) - ufm.grad_central_path_loss(H, lw, lh, K)
        sec = C.frob_sq(diff) / (s * s * C.frob_sq(dH))  # squared secant slope
        claimed = 11 * lh / (K * n)
        ratio = C.sqrt_enclosure(C.enclosure(sec / (claimed * claimed)))
        assert ratio.lo > 1
        if best is None or ratio.lo > best[0].lo:
            best = (ratio, float(lw), float(lh), obj.ratio(x))
    assert best is not None
    ratio, lw, lh, fl = best
    assert abs(float(ratio.lo) / fl - 1) < 1e-3  # secant at s = 2^-20 vs the float derivative: O(s) + round-off
    verdict.certified("ratio", C.interval_evidence(
        ratio, "measured Lipschitz lower bound / claimed 11 lH/(Kn)", BALLS,
        "a secant slope of grad L (7) at exact inputs (a rigorous lower bound of the Lipschitz constant)",
        lam_W=lw, lam_H=lh, lam_W_lam_H=lw * lh, s="2^-20", objective="N-thmC.2", float_ratio=fl))


@pytest.mark.claim("N-thm5.2")
def test_thm52_n1_sigma_min_certified(verdict):
    """Thm 5.2 with n = 1 at an exact rational collapsed point with beta = 10 sqrt(lH/lW) (beta >> max(1, lH),
    lW lH < 1): sigma_min(F_kk) of F (5) (exact_F1, exact rationals) is 1 - 4 lH (1 - c)/beta, not
    1 - sqrt(lH/lW)/beta; certified ratio of the gaps 1 - sigma_min, measured / claimed."""
    d, K, n = 3, 2, 1
    a, b = sympy.Rational(1, 5), sympy.Integer(4)  # sigma_H, sigma_W: lam_H = 4, lam_W = 1/100, c = 1/5
    pt = S.rational_collapsed_point(a, b, sympy.eye(d)[:, :K], n)
    lh, lw, c = pt["lam_H"], pt["lam_W"], pt["c"]
    r = b / a  # sqrt(lam_H / lam_W)
    assert r ** 2 == lh / lw and lh * lw < 1
    beta = 10 * r
    F = S.exact_F1(pt["W"], pt["H"], beta, lw, lh, K, n)
    Fkk = C.exact_array(np.array(F[:d * n, :d * n].tolist()))
    assert all(Fkk[i, j] == Fkk[j, i] for i in range(d) for j in range(d)) and C.is_pd(Fkk)  # sigma = eigenvalue
    lam_min = C.gen_lambda_max(-Fkk)  # -lambda_min
    gap = C.enclosure(1 + lam_min.lo, 1 + lam_min.hi)  # 1 - sigma_min
    claimed_gap = C.to_fmpq(r / beta)
    ratio = C.ratio_interval(gap, claimed_gap)
    predicted = C.to_fmpq(4 * lh * (1 - c) / beta) / claimed_gap
    assert ratio.lo <= predicted <= ratio.hi and ratio.hi < 1
    verdict.certified("ratio", C.interval_evidence(
        ratio, "(1 - sigma_min(F_kk)) measured / claimed sqrt(lH/lW)/beta, n = 1", EXACT,
        "sigma_min of the exact F (5) block at an exact collapsed point (LDL^T bounds)",
        d=d, K=K, n=n, lam_H=str(lh), lam_W=str(lw), beta=str(beta), predicted_exact=str(predicted)))


def _equal_means_H0(seed=3):
    """Equal class means, nonzero within-class spread (class 2 = class 1 reordered), exact rationals."""
    rng = np.random.default_rng(seed)
    a = np.array([[fmpq(int(rng.integers(-6, 7)), 5) for _ in range(2)] for _ in range(3)], dtype=object)
    return np.hstack([a, a[:, ::-1]])


@pytest.mark.claim("N-thm4.1-nc1", "N-thm4.1-B", "N-cor4.2")
def test_thm41_cor42_degenerate_counterexample_certified(verdict):
    """The degenerate counterexample of Thm 4.1 (nc1, B) and Cor. 4.2: with equal class means Tr Sigma_B(H0) = 0
    exactly, its flow derivative e^{-2 lH t} dT_B/dt = 0 exactly (so T_B is not strictly increasing), and the
    minimiser equation (8) keeps the equal-means subspace (the class-mean part of grad L is equal across classes,
    exactly), while Tr Sigma_W(H0) > 0: NC1~ = Tr Sigma_W / Tr Sigma_B is x/0. The certified ratio is
    Tr Sigma_B / Tr Sigma_W in [0, 0]."""
    H0 = _equal_means_H0()
    lw, lh = fmpq(1, 2), fmpq(1, 10)
    cov = ufm.covariances(H0, 2)
    tb, tw = sum(cov["Sigma_B"][i, i] for i in range(3)), sum(cov["Sigma_W"][i, i] for i in range(3))
    der = flow.trace_derivatives(H0, lw, lh, 2)
    g = ufm.grad_central_path_loss(H0, lw, lh, 2)
    gbar = g.reshape(3, 2, 2).sum(axis=2)
    assert tb == 0 and tw > 0 and der["dT_B"] == 0 and all(gbar[i, 0] == gbar[i, 1] for i in range(3))
    ratio = C.ratio_interval(C.enclosure(tb), C.enclosure(tw))
    for cid in ("N-thm4.1-nc1", "N-thm4.1-B", "N-cor4.2"):
        verdict.certified("ratio", C.interval_evidence(
            ratio, "Tr Sigma_B(H0) / Tr Sigma_W(H0) (NC1~ = x/0; dT_B/dt = 0)", EXACT,
            "Tr Sigma_B = 0, dT_B/dt = 0 and the equal-means invariance of grad L at H0, exactly",
            lam_W="1/2", lam_H="1/10", Tr_Sigma_W=str(tw), dT_B_dt=str(der["dT_B"])), claim=cid)


def _q(x):
    return C.to_fmpq(x)


def _collapsed(a, b, d, K, n, seed=None):
    """An exact rational collapsed minimiser (sigma_H = a, sigma_W = b) with a Cayley frame (identity if no seed)."""
    R = S.cayley_frame(d, K, seed=seed) if seed is not None else sympy.eye(d)[:, :K]
    pt = S.rational_collapsed_point(a, b, R, n)
    return pt, C.exact_array(np.array(pt["W"].tolist())), C.exact_array(np.array(pt["H"].tolist()))


@pytest.mark.claim("N-thm2.2", "N-cor3.1")
def test_thm22_cor31_global_minimum_certified_at_solver_outputs(verdict):
    """Thm 2.2: objective (1) at the L-BFGS minimisers (solve_ufm, its returned W, H as exact numbers) and at seeded
    random points is >= its value at the exact rational collapsed minimiser (same rational lambdas): the global
    minimum is certified not beaten there. Cor. 3.1: with H0 = H*, the reduced objective of (2) at the solver's
    minimiser and at random H is >= its value at H* (grad L(H*) = 0 exactly)."""
    rng = np.random.default_rng(22)
    m22, m31 = [], []
    for a, b, d, K, n in [("1/2", "4/3", 3, 2, 2), ("2/3", "1/2", 4, 3, 1)]:
        pt, W, H = _collapsed(a, b, d, K, n)
        lw, lh = _q(pt["lam_W"]), _q(pt["lam_H"])
        fstar = ufm.ufm_objective(W, H, lw, lh, K)
        sol = ufm.solve_ufm(d, K, n, float(pt["lam_W"]), float(pt["lam_H"]), starts=2, seed=0)
        pts = [(sol["W"], sol["H"])] + [(rng.standard_normal((K, d)), rng.standard_normal((d, K * n))) for _ in range(4)]
        m22 += [ufm.ufm_objective(C.exact_array(Wx), C.exact_array(Hx), lw, lh, K) - fstar for Wx, Hx in pts]
        beta = fmpq(30)
        f2 = ufm.perturbed_objective(H, H, beta, lw, lh, K)
        assert C.frob_sq(ufm.grad_central_path_loss(H, lw, lh, K)) == 0
        Hs = ufm.solve_perturbed(np.array(H, dtype=float), 30.0, float(pt["lam_W"]), float(pt["lam_H"]), K)
        for Hx in [Hs] + [np.array(H, dtype=float) + 0.3 * rng.standard_normal(H.shape) for _ in range(4)]:
            m31.append(ufm.perturbed_objective(C.exact_array(Hx), H, beta, lw, lh, K) - f2)
    verdict.certified("margin", C.margin_evidence(
        m22, "Thm 2.2: objective (1) >= its value at the collapsed minimiser", EXACT,
        "the objective at the solver's returned points and at random points vs the exact minimum value (rational "
        "lambdas); the solver's optimality itself is not certified", strict=False, seed=22), claim="N-thm2.2")
    verdict.certified("margin", C.margin_evidence(
        m31, "Cor. 3.1: objective (2) with H0 = H* is >= its value at H*", EXACT,
        "the objective at the solver's minimiser and random H vs its value at H* (gradient exactly 0 there)",
        strict=False, seed=22), claim="N-cor3.1")


@pytest.mark.claim("N-D-eig", "N-D.1-full-F", "N-D-Z-blocks")
def test_D_spectra_certified_by_inertia(verdict):
    """App. D: the closed-form spectrum (21) of F_kk (closed_form_Fkk_spectrum) and the structured spectrum of the
    whole F (5) (collapsed_full_spectrum) are certified against the exact rational F (5) (exact_F1 at a rational
    collapsed point): every closed-form eigenvalue has exactly its multiplicity of exact eigenvalues within
    1e-9 and none lie elsewhere (Sylvester inertia counts, exact). Z* (eq. 18): the float Z_star against the exact
    block formula, certified error."""
    rows = []
    for a, b, d, K, n, beta in [("1/2", "4/3", 3, 2, 2, 40), ("2/5", "3/2", 4, 2, 2, 25)]:
        pt, W, H = _collapsed(a, b, d, K, n)
        lw, lh = pt["lam_W"], pt["lam_H"]
        F, Z = S.exact_F1(pt["W"], pt["H"], sympy.Integer(beta), lw, lh, K, n, return_Z=True)
        Fq = C.exact_array(np.array(F.tolist()))
        Fkk = Fq[:d * n, :d * n]
        cf = P.closed_form_Fkk_spectrum(d, K, n, float(beta), float(lw), float(lh))
        Wf, Hf = np.array(pt["W"].tolist(), dtype=float), np.array(pt["H"].tolist(), dtype=float)
        full = P.collapsed_full_spectrum(Wf, Hf, float(beta), float(lw), float(lh), K, n)
        kk, whole = C.spectrum_matches(Fkk, cf, 1e-9), C.spectrum_matches(Fq, full, 1e-9)
        assert kk["ok"] and whole["ok"]  # 1e-9: float eigenvalues of O(1) matrices vs exact counts
        Zf = P.Z_star(Wf, Hf, float(lw), K, n)
        Zp = C.exact_array(np.array(S.Z_blocks_paper(d, K, n, sympy.eye(d)[:, :K], sympy.Rational(a) ** 2, lw,
                                                      pt["c"]).tolist()))
        assert all(x == y for x, y in zip(C.exact_array(np.array(Z.tolist())).flat, Zp.flat))  # (18) exactly
        zerr = max(abs(C.to_fmpq(x) - y) for x, y in zip(Zf.flat, Zp.flat))
        rows.append({"d": d, "K": K, "n": n, "beta": beta, "Fkk_windows": len(kk["windows"]),
                     "F_windows": len(whole["windows"]), "Z_float_err": C.upper_float(zerr), "zerr": zerr})
    for cid, what in (("N-D-eig", "eq. (21): closed-form spectrum of F_kk"),
                      ("N-D.1-full-F", "App. D.1: structured spectrum of the whole F (5)")):
        ev = C.margin_evidence([fmpq(1, 10 ** 9)] * len(rows), what + " = exact spectrum within 1e-9", EXACT,
                               "inertia counts of the exact F (5) at both ends of every window, exactly",
                               cases=[{k: v for k, v in r.items() if k != "zerr"} for r in rows])
        ev["statement"] = f"{what}: every eigenvalue within 1e-9 with its multiplicity at all {len(rows)} points (certified)"
        verdict.certified("margin", ev, claim=cid)
    verdict.certified("margin", C.margin_evidence(
        [fmpq(1, 10 ** 12) - r["zerr"] for r in rows], "eq. (18): float Z* within 1e-12 of the exact blocks", EXACT,
        "exact identity Z* = (18) at rational points; the float route's error, exactly",
        cases=[{k: v for k, v in r.items() if k != "zerr"} for r in rows]), claim="N-D-Z-blocks")


@pytest.mark.claim("N-thm5.1")
def test_thm51_counterexample_gap_certified(verdict):
    """Thm 5.1's counterexample: a rational collapsed point with lam_H = 1, lam_W = 1/r^2 and beta = r = q^2 + 1
    (sigma_H = q/r, sigma_W = q; x = sqrt(lam_H/lam_W)/beta = 1, beta/max(1, lam_H) = r): with F = (I + M/beta)^{-1},
    M = beta (I - F_(5)), the gap |F - F_(5)|_op is enclosed exactly (= 1/2): times (beta/max(1, lam_H))^2 it is
    r^2/2, not bounded in the stated regime."""
    d, K, n, q = 3, 2, 2, 10
    r = q * q + 1
    pt = S.rational_collapsed_point(sympy.Rational(q, r), sympy.Integer(q), sympy.eye(d)[:, :K], n)
    assert pt["lam_H"] == 1 and pt["lam_W"] == sympy.Rational(1, r * r)
    F5 = S.exact_F1(pt["W"], pt["H"], sympy.Integer(r), pt["lam_W"], pt["lam_H"], K, n)
    N = F5.rows
    F = (2 * sympy.eye(N) - F5).inv()  # (I + M/beta)^{-1} with M/beta = I - F_(5)
    G = C.exact_array(np.array((F - F5).tolist()))
    gap = C.sqrt_enclosure(C.op_norm_sq(G))
    scaled = C.enclosure(to_arb_times(gap.lo, r * r), to_arb_times(gap.hi, r * r))
    assert gap.lo <= fmpq(1, 2) <= gap.hi and scaled.lo > 1000
    verdict.certified("ratio", C.interval_evidence(
        scaled, f"|F - F_(5)|_op (beta/max(1, lam_H))^2 at beta/max(1,lam_H) = {r}", EXACT,
        "the gap of the exact F (5) and (I + M/beta)^{-1} at an exact collapsed point; the Schur-complement form of "
        "F is the claim's own check's identity", gap=gap.bounds(), lam_W=f"1/{r * r}", lam_H=1, beta=r))


def to_arb_times(x, k):
    return C.to_arb(x) * k


@pytest.mark.claim("N-thmC.1")
def test_thmC1_singular_schur_complement_certified(verdict):
    """Thm C.1's counterexample: at H0 = 0 (minimiser (0, 0)) and beta = 1/lam_W - lam_H the matrix F inverts,
    I + M/beta = 2I - F_(5), is singular: exact rank dKn - Kd (flint fmpq_mat), so its smallest eigenvalue is
    exactly 0 (certified interval [0, 0])."""
    from flint import fmpq_mat

    d, K, n = 3, 2, 2
    lw, lh = sympy.Rational(1, 2), sympy.Rational(1, 10)
    beta = 1 / lw - lh
    F5 = S.exact_F1(sympy.zeros(K, d), sympy.zeros(d, K * n), beta, lw, lh, K, n)
    N = F5.rows
    A = 2 * sympy.eye(N) - F5
    Aq = fmpq_mat(N, N, [C.to_fmpq(x) for x in A])
    nullity = N - Aq.rank()
    assert nullity == K * d
    # lambda_min = 0 exactly: A >= 0 (PSD, exact) and singular
    assert C.is_psd(C.exact_array(np.array(A.tolist())))
    verdict.certified("ratio", C.interval_evidence(
        C.enclosure(fmpq(0)), "lambda_min(I + M/beta) of the Schur complement F inverts (H0 = 0, beta = 1/lam_W - lam_H)",
        EXACT, "exact rank (nullity Kd) and exact positive semidefiniteness of 2I - F_(5)", nullity=nullity,
        lam_W="1/2", lam_H="1/10", beta=str(beta), d=d, K=K, n=n))


def _f2_exact(W, H, H0, beta, lw, lh, K):
    """Objective (2) in exact rationals: objective (1) (ufm_objective, exact route) + beta/(2Kn) |H - H0|^2."""
    n = H.shape[1] // K
    return ufm.ufm_objective(W, H, lw, lh, K) + beta * C.frob_sq(H - H0) / (2 * K * n)


@pytest.mark.claim("N-C-derivs")
def test_C_first_derivatives_certified(verdict):
    """App. C, eq. (11): the float first derivatives (perturbation.gradients) against exact ones. f is a polynomial
    of degree 4 along every coordinate, so its exact derivative is the Richardson combination
    (4 D(t/2) - D(t))/3 of exact central differences D(t) (no truncation error); certified max error <= 1e-12."""
    rng = np.random.default_rng(11)
    margins = []
    d, K, n = 3, 2, 2
    for _ in range(2):
        Wf, Hf, H0f = rng.standard_normal((K, d)), rng.standard_normal((d, K * n)), rng.standard_normal((d, K * n))
        bf, lwf, lhf = 7.0, 0.8, 0.3
        gH, gW = P.gradients(Wf, Hf, H0f, bf, lwf, lhf, K, n)
        W, H, H0 = C.exact_array(Wf), C.exact_array(Hf), C.exact_array(H0f)
        b, lw, lh = _q(bf), _q(lwf), _q(lhf)
        t = fmpq(1, 8)

        def D(X, idx, h):
            Xp, Xm = X.copy(), X.copy()
            Xp[idx] += h
            Xm[idx] -= h
            args = (Xp, H) if X is W else (W, Xp)
            argm = (Xm, H) if X is W else (W, Xm)
            return (_f2_exact(*args, H0, b, lw, lh, K) - _f2_exact(*argm, H0, b, lw, lh, K)) / (2 * h)

        for X, g in ((H, gH), (W, gW)):
            exact = {idx: (4 * D(X, idx, t / 2) - D(X, idx, t)) / 3 for idx in np.ndindex(X.shape)}
            # vec is column-stacking (perturbation.vec): entry (i, j) is component j * rows + i
            err = max(abs(_q(g[j * X.shape[0] + i]) - e) for (i, j), e in exact.items())
            margins.append(fmpq(1, 10 ** 12) - err)
    verdict.certified("margin", C.margin_evidence(
        margins, "eq. (11): float gradients within 1e-12 of the exact derivatives", EXACT,
        "exact derivatives of the polynomial objective (2) (exact Richardson of exact differences) at seeded points",
        seed=11))


@pytest.mark.claim("N-metrics")
def test_metrics_float_route_certified(verdict):
    """sec. 6 / App. E.2: nc_metrics' float NC1~, NC1 and NC1^(k) against exact rationals from the definitions
    (exact covariances, Sigma_B^+ by sympy's exact pseudo-inverse of the rank K-1 Sigma_B); certified relative error
    <= 1e-10 (float pinv of a rank-deficient matrix: cutoff-limited, ~1e-13 observed), and NC1 = mean NC1^(k) exactly."""
    from verify.numeric.nc_metrics import nc_metrics

    rng = np.random.default_rng(6)
    margins = []
    for d, K, n in [(3, 3, 2), (4, 3, 3), (5, 2, 2)]:
        Hf = rng.standard_normal((d, K * n))
        m = nc_metrics(Hf, K=K)
        H = C.exact_array(Hf)
        cov = ufm.covariances(H, K)
        SB = sympy.Matrix(d, d, lambda i, j: sympy.Rational(int(cov["Sigma_B"][i, j].p), int(cov["Sigma_B"][i, j].q)))
        SBp = C.exact_array(np.array(SB.pinv().tolist()))
        tw = sum(cov["Sigma_W"][i, i] for i in range(d))
        tb = sum(cov["Sigma_B"][i, i] for i in range(d))
        nc1 = sum(((cov["Sigma_W"] @ SBp)[i, i] for i in range(d)), fmpq(0)) / K
        per = []
        for k in range(K):
            Hk = H[:, k * n:(k + 1) * n]
            ck = Hk - np.repeat(Hk.sum(axis=1, keepdims=True) / n, n, axis=1)
            Sk = ck @ ck.T / n
            per.append(sum(((Sk @ SBp)[i, i] for i in range(d)), fmpq(0)) / K)
        assert sum(per, fmpq(0)) / K == nc1  # NC1 = (1/K) sum_k NC1^(k), exactly (balanced classes)
        for fl, ex in [(m.nc1_tilde, tw / tb), (m.nc1, nc1)] + list(zip(m.nc1_per_class, per)):
            margins.append(fmpq(1, 10 ** 10) - abs(_q(fl) - ex) / abs(ex))
    verdict.certified("margin", C.margin_evidence(
        margins, "NC1~, NC1, NC1^(k): float within 1e-10 relative of the exact definitions", EXACT,
        "the float metrics at seeded H against exact rationals (exact pseudo-inverse)", seed=6))


@pytest.mark.claim("N-eq7", "N-C2-derivative")
def test_gradient_and_its_derivative_exact_by_power_series(verdict):
    """eq. (7): <grad L(H), D> equals d/dt L(H + tD)|_0 *exactly*, the latter from the definition L(H) =
    f(W*(H), H) in truncated power series over the rationals (flint fmpq_series); proof of Thm C.2: the paper's
    ten-term expression of d/dt grad L (float, perturbation.grad_L_derivative_paper) against the exact series
    derivative of (7), certified relative error <= 1e-10 (float64 products of ten terms, condition up to 1/lam_W)."""
    rng = np.random.default_rng(7)
    n_eq7, margins = 0, []
    for d, K, n, lw, lh in [(3, 2, 2, 0.7, 0.3), (4, 3, 2, 0.3, 1.7), (2, 2, 3, 2.5, 0.05), (3, 2, 2, 1e-2, 0.5)]:
        for _ in range(2):
            H, D = rng.standard_normal((d, K * n)), rng.standard_normal((d, K * n))
            g = ufm.grad_central_path_loss(C.exact_array(H), _q(lw), _q(lh), K)
            assert C.directional_derivative_of_loss(H, D, lw, lh, K) == sum(
                a * b for a, b in zip(g.flat, C.exact_array(D).flat))
            n_eq7 += 1
            exact = C.derivative_of_gradient(H, D, lw, lh, K)
            paper = P.grad_L_derivative_paper(H, D, lw, lh, K, n)
            err2 = C.frob_sq(C.exact_array(paper) - exact) / C.frob_sq(exact)
            margins.append(fmpq(1, 10 ** 20) - err2)  # squared: relative error <= 1e-10
    ev = C.margin_evidence([fmpq(1)] * n_eq7, "eq. (7) = d/dt L(H + tD) exactly", EXACT,
                           "exact identity at seeded float H, D (inputs exact), sizes up to (4, 3, 2), lam_W down to 1e-2",
                           seed=7)
    ev["statement"] = f"eq. (7): <grad L, D> = d/dt L(H + tD) exactly at all {n_eq7} points (certified)"
    verdict.certified("margin", ev, claim="N-eq7")
    verdict.certified("margin", C.margin_evidence(
        margins, "Thm C.2 proof: the paper's d/dt grad L within 1e-10 relative of the exact derivative (squared)",
        EXACT, "the float expression at seeded points against the exact power-series derivative of (7)", seed=7),
        claim="N-C2-derivative")
