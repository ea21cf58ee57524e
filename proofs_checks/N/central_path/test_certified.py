"""Paper N, the UFM, the central path and the flow (secs. 2-4, Apps. A-B): certified margins.

The numbers that decide each claim are recomputed in exact rationals (flint fmpq, floats at their binary values) or
in Arb balls, so that a verdict does not rest on floating-point rounding. They are evaluated at the points the checks
evaluate: the seeded starts and adversarial maximisers of the objectives of :mod:`verify.objectives`, and the
minimisers the package's solvers return. A verified claim records a certified margin, a refuted one a certified
interval for its counterexample (``verdict.certified``; it never sets a verdict).
"""

from __future__ import annotations

from flint import fmpq
import numpy as np
import pytest
import sympy

from verify import certified as C
from verify.numeric import central_path as flow, perturbation as P, ufm
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
