"""Paper N, the UFM, the central path and the flow (secs. 2-4, Apps. A-B): the statements, checked.

Sections 2-4 and Apps. A-B: the UFM minimisers, the central path, its gradient flow and the NC metrics, with the
degenerate counterexamples of Thm 4.1 and Cor. 4.2 and their corrected statements. Exact checks evaluate the sympy
expressions of :mod:`verify.symbolic.central_path` at random rational instances whose covariances are built from the
definitions; numeric checks use :mod:`verify.numeric.ufm` / :mod:`verify.numeric.central_path` (float64, and mpmath
where float64 cannot settle the question).
"""

from __future__ import annotations

from fractions import Fraction
import functools
import warnings

import mpmath
import numpy as np
import pytest
from scipy.optimize import minimize
import sympy
from sympy.polys.matrices import DomainMatrix

from verify.engine import adversarial_max, exact_zero, random_rational_matrix
from verify.numeric import central_path as flow, ufm
from verify.numeric.nc_metrics import nc_metrics
from verify.statements import constants, current, holds, hypotheses_hold, sides
from verify.objectives import (
    bdist_ratio as _bdist_ratio, get_objective, lemb1_ratio as _lemb1_ratio, nc1_violation as _nc1_violation,
    tw_violation as _tw_violation,
)
from verify.symbolic import central_path as cp


SEED = 20240601


# --------------------------------------------------------------------------- exact instances
def _exact_instances():
    """(label, H, K, lam_W, lam_H) covering d<Kn, d>Kn, d<K, n=1, a collapsed class, lam_H=0."""
    rng = np.random.default_rng(SEED)
    out = []
    for label, d, K, n, lam_H in [("d<Kn, nonzero mean", 3, 2, 2, sympy.Rational(1, 3)),
                                  ("d>Kn", 5, 2, 2, sympy.Rational(2, 5)),
                                  ("d<K", 2, 3, 2, sympy.Rational(1, 7)),
                                  ("n=1 (Sigma_W = 0)", 3, 2, 1, sympy.Rational(1, 2)),
                                  ("collapsed class (singular Sigma_W)", 3, 3, 2, sympy.Rational(3, 4)),
                                  ("lam_H = 0", 4, 3, 2, sympy.Integer(0))]:
        H = random_rational_matrix(rng, d, K * n)
        if label.startswith("collapsed"):
            H[:, 1] = H[:, 0]
        out.append((label, H, K, sympy.Rational(int(rng.integers(1, 9)), int(rng.integers(1, 6))), lam_H))
    return out


INSTANCES = _exact_instances()


def _statement_env(H, K, lw=None, lh=None, **probes):
    """A check's exact instance as the parameters of the claim's statement object (:mod:`verify.statement_data.N.
    central_path`): sizes, H, the lambdas and the probes (``G``, ``V``, ``g``)."""
    env = {"d": H.rows, "K": K, "n": H.cols // K, "H": sympy.Matrix(H), **probes}
    if lw is not None:
        env["lambda_W"] = sympy.nsimplify(lw)
    if lh is not None:
        env["lambda_H"] = sympy.nsimplify(lh)
    return env


def _sizes(insts=INSTANCES):
    return [f"{lab}: d={H.rows},K={K},n={H.cols // K}" for lab, H, K, _, _ in insts]


# --------------------------------------------------------------------------- §2: Theorem 2.2
@pytest.mark.claim("N-thm2.2")
def test_thm22_collapsed_family_closed_form(verdict):
    """Proof step: on H = s R (x) 1^T, W = w R^T the objective is 1/2(ws-1)^2 + lW w^2/2 + lH s^2/2;
    its stationary points give rho = s^2 = (1-c) sqrt(lW/lH), w/s = sqrt(lH/lW), and for c > 1 only (0, 0) is real."""
    r = cp.reduced_ufm()
    a, b = sympy.symbols("a b", positive=True)  # lW = a^2, lH = b^2 removes the radicals
    sub = {r["lam_W"]: a**2, r["lam_H"]: b**2}
    c = a * b
    assert exact_zero(sympy.expand((r["rho"].subs(sub) - (1 - c) * a / b) * b))
    assert exact_zero(sympy.powsimp(r["ratio"].subs(sub)) - b / a)
    assert exact_zero(r["value"].subs(sub) - (c - c**2 / 2))
    # c > 1: s^2 = rho < 0, so no real nonzero stationary point
    rng = np.random.default_rng(SEED)
    neg = []
    for _ in range(20):
        lw = sympy.Rational(int(rng.integers(2, 20)), int(rng.integers(1, 4)))
        lh = (1 + sympy.Rational(int(rng.integers(1, 9)), 10)) / lw   # c^2 = lW lH > 1
        neg.append(bool(r["rho"].subs({r["lam_W"]: lw, r["lam_H"]: lh}) < 0))
    assert all(neg)
    # the statement object (its constants and exponents of rho, c and w_k): at the collapsed point that the reduced
    # solve gives (rational there: lW/lH = 64 and 400), objective (1) equals the reduced solve's minimum c - c^2/2
    # (the attained value, derived here, not read from the object) and the object's relation holds there with
    # equality in it: a larger bound, or the strict '>', fails at this point; at the origin the object holds too
    R2 = sympy.Matrix([[sympy.Rational(3, 5), sympy.Rational(-4, 5)], [sympy.Rational(4, 5), sympy.Rational(3, 5)]])
    for lw, lh, Rm, n in ((4, sympy.Rational(1, 16), R2, 2), (4, sympy.Rational(1, 100),
                                                              sympy.Matrix.vstack(R2, sympy.zeros(1, 2)), 1)):
        vals = {r["lam_W"]: lw, r["lam_H"]: lh}
        root = sympy.sqrt(r["rho"].subs(vals))
        H, W = root * sympy.kronecker_product(Rm, sympy.ones(1, n)), r["ratio"].subs(vals) * root * Rm.T
        assert all(x.is_Rational for x in list(H) + list(W))
        f = ufm.ufm_objective(ufm.as_exact(np.array(W.tolist(), dtype=object)),
                              ufm.as_exact(np.array(H.tolist(), dtype=object)), lw, lh, Rm.cols)
        env = {**_statement_env(H, Rm.cols, lw, lh), "W": W, "s": 1}
        f = sympy.Rational(int(f.p), int(f.q))
        assert f == r["value"].subs(vals), (lw, lh, f)          # attained: objective (1) at the point is the minimum
        assert holds("N-thm2.2", env, f=f) is True, (lw, lh, sides("N-thm2.2", env, f=f))
        assert holds("N-thm2.2", {**env, "s": 0}, f=sympy.Rational(1, 2)) is True
    verdict.verified(method="sym: sympy solve of the reduced stationarity equations, exact",
                     evidence={"rho": str(r["rho"]), "w_over_s": str(r["ratio"]), "min_value": "c - c^2/2",
                               "c_gt_1_points_with_rho_lt_0": sum(neg), "seed": SEED})


UFM_CASES = [(3, 3, 2, 0.5, 0.8), (5, 3, 2, 0.2, 0.3), (4, 2, 3, 1.0, 0.9), (6, 4, 2, 0.05, 2.0),
             (4, 3, 2, 2.0, 0.7)]  # last: c = sqrt(1.4) > 1


def _thm22_runs(cases, starts):
    worst_gap, worst_struct, rows = -np.inf, 0.0, []
    for i, (d, K, n, lw, lh) in enumerate(cases):
        c = np.sqrt(lw * lh)
        R = np.linalg.qr(np.random.default_rng(i).standard_normal((d, K)))[0]
        W0, H0 = ufm.collapsed_minimiser(R, lw, lh, n)
        closed = float(ufm.ufm_objective(W0, H0, lw, lh, K))
        res = ufm.solve_ufm(d, K, n, lw, lh, starts=starts, seed=SEED + i)
        # no start may beat the closed form (allowing L-BFGS's final 1e-12 of float noise)
        gap = (closed - min(res["values"])) / max(1.0, abs(closed))
        worst_gap = max(worst_gap, gap)
        assert gap <= 1e-12
        H, W = res["H"], res["W"]
        cov = ufm.covariances(H, K)
        rho = ufm.collapse_rho(lw, lh)
        Hbar = cov["Hbar"]
        struct = max(np.abs(cov["Sigma_W"]).max(), np.abs(Hbar.T @ Hbar - rho * np.eye(K)).max(),
                     np.abs(W - np.sqrt(lh / lw) * Hbar.T).max())
        worst_struct = max(worst_struct, struct)
        # L-BFGS stops at |grad| ~ 1e-13; near c ~ 1 the transversal curvature is ~1e-2, so 1e-6 on positions
        assert struct < 1e-6
        rows.append({"d": d, "K": K, "n": n, "lam_W": lw, "lam_H": lh, "c": round(c, 6),
                     "closed_value": closed, "best_lbfgs": res["value"]})
    return {"cases": rows, "starts_per_case": starts, "max_rel_improvement_over_closed_form": worst_gap,
            "max_structure_error": worst_struct, "seed": SEED}


@pytest.mark.claim("N-thm2.2")
def test_thm22_global_minimisers_numeric(verdict):
    """No L-BFGS start ends below the closed-form value; the best ones are orthogonally collapsed with the
    stated rho and W = sqrt(lH/lW) Hbar^T (or (0, 0) when c > 1). Cases: d = K, d > K, c > 1."""
    ev = _thm22_runs([UFM_CASES[0], UFM_CASES[2], UFM_CASES[4]], starts=3)
    verdict.verified(method="num: L-BFGS (exact gradient), seeded starts vs closed form", evidence=ev)


@pytest.mark.slow
@pytest.mark.claim("N-thm2.2")
def test_thm22_global_minimisers_sweep(verdict):
    """The same on all five cases with 12 starts each."""
    ev = _thm22_runs(UFM_CASES, starts=12)
    verdict.verified(method="num: L-BFGS (exact gradient), 12 seeded starts per case vs closed form", evidence=ev)


@pytest.mark.claim("N-etf")
def test_etf_from_orthogonal_means(verdict):
    """Hbar^T Hbar = rho I  =>  (Hbar - hG 1^T)^T (Hbar - hG 1^T) = rho (I - 11^T/K): exact, for a rational
    orthonormal R (Cayley transform) and symbolic rho, K = 2..7, d = K..K+2."""
    rho = sympy.Symbol("rho", positive=True)
    rng, probes = np.random.default_rng(SEED), np.random.default_rng(SEED + 23)
    checked = []
    for K in range(2, 8):
        for d in (K, K + 2):
            S = random_rational_matrix(rng, d, d)
            S = S - S.T                                            # skew => Cayley Q orthogonal
            Q = (sympy.eye(d) - S) * (sympy.eye(d) + S).inv()
            Hbar = sympy.sqrt(rho) * Q[:, :K]
            assert exact_zero(Hbar.T * Hbar - rho * sympy.eye(K))
            hG = Hbar * sympy.ones(K, 1) / K
            M = Hbar - hG * sympy.ones(1, K)
            lhs, rhs = cp.etf_identity(K, rho)
            assert exact_zero(M.T * M - rhs) and exact_zero(lhs - rhs)
            # the statement object's rho (I - (1/K) 1 1^T) (its constants) at rho = t^2 = 9/4, a seeded probe G
            t = sympy.Rational(3, 2)
            G = random_rational_matrix(probes, K, K)
            assert holds("N-etf", {"d": d, "K": K, "t": t, "G": G, "S": S},
                         TrGM=(G * (M.T * M).subs(rho, t ** 2)).trace(), TrG=G.trace(), sumG=sum(G)) is True, (d, K)
            checked.append([d, K])
    verdict.verified(method="sym: exact rationals (Cayley-orthogonal R), symbolic rho",
                     evidence={"(d,K)": checked, "seed": SEED})


@pytest.mark.claim("N-minimisers-R")
def test_every_partial_orthonormal_R_is_a_minimiser(verdict):
    """For random and structured R (R^T R = I), (W*, H*) built from R reaches the same value c - c^2/2
    at 50 digits, is stationary, and no L-BFGS start (2 per case) goes below it."""
    rows, worst_spread, worst_grad = [], 0.0, 0.0
    for i, (d, K, n, lw, lh) in enumerate(UFM_CASES[:3]):
        rng = np.random.default_rng(SEED + 10 + i)
        Rs = [np.linalg.qr(rng.standard_normal((d, K)))[0] for _ in range(6)]
        Rs.append(np.eye(d)[:, :K])
        Rs.append(np.eye(d)[:, rng.permutation(d)[:K]])
        with mpmath.workdps(50):
            lwm, lhm = mpmath.mpf(lw), mpmath.mpf(lh)
            c = mpmath.sqrt(lwm * lhm)
            target = c - c**2 / 2
            spread = mpmath.mpf(0)
            for R in Rs:
                Rm = mpmath.qr(mpmath.matrix(R.tolist()))[0]           # re-orthonormalise at 50 digits
                Rm = np.array(Rm.tolist(), dtype=object)[:, :K]
                rho = (1 - c) * mpmath.sqrt(lwm / lhm)
                Hm = mpmath.sqrt(rho) * np.kron(Rm, np.ones((1, n), dtype=int))
                Wm = mpmath.sqrt(lhm / lwm) * mpmath.sqrt(rho) * Rm.T
                spread = max(spread, abs(ufm.ufm_objective(Wm, Hm, lwm, lhm, K) - target))
        worst_spread = max(worst_spread, float(spread))
        assert spread < mpmath.mpf(10) ** -45  # 50-digit arithmetic, 5 digits of round-off slack
        for R in Rs:
            W, H = ufm.collapsed_minimiser(R, lw, lh, n)
            g = ufm._ufm_value_grad(np.concatenate([W.ravel(), H.ravel()]), d, K, n, lw, lh)[1]
            worst_grad = max(worst_grad, float(np.abs(g).max()))
        best = ufm.solve_ufm(d, K, n, lw, lh, starts=2, seed=SEED + 20 + i)["value"]
        assert best >= float(target) - 1e-12  # no start below the family's value (float noise only)
        # the statement object's point (its rho, kappa and sqrt(rho)) for a rational R: the solver's best value is
        # not below it, and the solver's own point is no counterexample (the object decides f(W, H) >= f(W_R, H_R))
        res = ufm.solve_ufm(d, K, n, lw, lh, starts=1, seed=SEED + 40 + i)
        W_b, H_b = (np.array([[sympy.Rational(Fraction(v).limit_denominator(10 ** 12)) for v in row] for row in A])
                    for A in (res["W"], res["H"]))
        S = sympy.Matrix(d, d, lambda a, b: sympy.Rational(a - 2 * b, 3 + a + b))
        env = {"d": d, "K": K, "n": n, "H": sympy.Matrix(H_b), "W": sympy.Matrix(W_b), "s": 1, "S": S,
               "lambda_W": sympy.nsimplify(lw), "lambda_H": sympy.nsimplify(lh)}
        assert holds("N-minimisers-R", {**env, "s": 0}, f=sympy.Rational(1, 2)) is True
        f_b = ufm.ufm_objective(W_b, H_b, sympy.nsimplify(lw), sympy.nsimplify(lh), K)   # exact (FLINT)
        lhs, rhs = sides("N-minimisers-R", env, f=sympy.Rational(int(f_b.p), int(f_b.q)))
        assert lhs.is_Rational and abs(float(lhs) - float(rhs)) < 1e-9, (lhs, rhs)   # L-BFGS: ~1e-12 from the min
        rows.append({"d": d, "K": K, "lam_W": lw, "lam_H": lh, "value": float(target), "best_lbfgs": best})
    assert worst_grad < 1e-13  # float64 evaluation of an exactly-zero gradient
    # attained, exactly: for a rational partial orthonormal R (Cayley) and lambdas where the reduced solve's rho is a
    # square (lW/lH = 64, 400), (W_R, H_R) built here from the reduced solve's rho and w/s is rational, objective (1)
    # there is the reduced minimum c - c^2/2, and the object's relation holds at that point with its own f(W_R, H_R):
    # equality is inside '>=' and outside '>', so a strict or a larger bound fails here
    r = cp.reduced_ufm()
    for d, lw, lh, n in ((2, 4, sympy.Rational(1, 16), 2), (3, 4, sympy.Rational(1, 100), 1)):
        S = sympy.Matrix(d, d, lambda a, b: sympy.Rational(a - 2 * b, 3 + a + b))
        A = S - S.T
        Rm = ((sympy.eye(d) - A) * (sympy.eye(d) + A).inv())[:, :2]
        vals = {r["lam_W"]: lw, r["lam_H"]: lh}
        root = sympy.sqrt(r["rho"].subs(vals))
        H, W = root * sympy.kronecker_product(Rm, sympy.ones(1, n)), r["ratio"].subs(vals) * root * Rm.T
        assert all(x.is_Rational for x in list(H) + list(W))
        f = ufm.ufm_objective(ufm.as_exact(np.array(W.tolist(), dtype=object)),
                              ufm.as_exact(np.array(H.tolist(), dtype=object)), lw, lh, 2)
        f = sympy.Rational(int(f.p), int(f.q))
        assert f == r["value"].subs(vals), (d, f)
        env = {"d": d, "K": 2, "n": n, "H": H, "W": W, "s": 1, "S": S, "lambda_W": sympy.Integer(lw), "lambda_H": lh}
        assert holds("N-minimisers-R", env, f=f) is True, (d, sides("N-minimisers-R", env, f=f))
    verdict.verified(method="hp: 50-digit values for 8 R per case + float stationarity + L-BFGS comparison",
                     evidence={"cases": rows, "max_value_spread_over_R": worst_spread,
                               "max_abs_gradient": worst_grad, "seed": SEED})


def _cor31_runs(cases, betas, starts):
    rows, worst, other_stationary, tol = [], 0.0, 0, 0.0
    for i, (d, K, n, lw, lh) in enumerate(cases):
        R = np.linalg.qr(np.random.default_rng(SEED + 30 + i).standard_normal((d, K)))[0]
        Ws, Hs = ufm.collapsed_minimiser(R, lw, lh, n)
        xs = np.concatenate([Ws.ravel(), Hs.ravel()])
        # proof step: (W*, H*) minimises (1), so H* minimises L and grad L(H*) = 0 - for the eq. (7) code and for the
        # definition's (envelope) gradient alike; hence H0 = H* solves (8) for every beta. Exact zero; 1e-13 allows
        # float64 round-off of O(1) products
        g_star = max(np.abs(ufm.grad_central_path_loss(Hs, lw, lh, K)).max(),
                     np.abs(_grad_envelope(Hs, K, lw, lh)).max())
        assert g_star < 1e-13
        for beta in betas:
            def f(x):
                val, g = ufm._ufm_value_grad(x, d, K, n, lw, lh)
                D = x[K * d:] - Hs.ravel()
                g = g.copy()
                g[K * d:] += beta * D / (K * n)
                return val + beta * D @ D / (2 * K * n), g

            fstar = f(xs)[0]
            # smallest Hessian eigenvalue at (W*, H*) (central differences of the exact gradient): a start whose
            # value is within 1e-12 of f* lies within sqrt(2e-12 / mu) of the strict minimiser
            E = 1e-6 * np.eye(xs.size)
            hess = np.array([(f(xs + e)[1] - f(xs - e)[1]) / 2e-6 for e in E])
            mu = float(np.linalg.eigvalsh((hess + hess.T) / 2)[0])
            assert mu > 0
            tol = max(tol, 2 * np.sqrt(2e-12 / mu))  # factor 2: L-BFGS's own stopping slack
            H = ufm.solve_perturbed(Hs, beta, lw, lh, K, starts=starts, seed=SEED + i)
            dev = max(np.abs(H - Hs).max(), np.abs(ufm.optimal_W(H, lw, K) - Ws).max())
            rng = np.random.default_rng(SEED + 40 + i)
            gap = np.inf
            for _ in range(starts):
                res = minimize(f, rng.standard_normal(xs.size), jac=True, method="L-BFGS-B",
                               options={"maxiter": 20000, "gtol": 1e-13, "ftol": 0})
                gap = min(gap, res.fun - fstar)
                # a start counts for uniqueness if it reached the minimal value (float noise 1e-12)
                if res.fun - fstar <= 1e-12:
                    dev = max(dev, np.abs(res.x - xs).max())
                else:
                    other_stationary += 1
            assert gap >= -1e-12  # nothing below f(W*, H*; H*)
            worst = max(worst, dev)
            rows.append({"d": d, "K": K, "lam_W": lw, "lam_H": lh, "beta": beta, "max_abs_dev": dev,
                         "min_gap_to_f*": gap, "max_abs_grad_L(H*)": g_star})
    assert worst < tol
    return rows, worst, other_stationary, tol


@pytest.mark.claim("N-cor3.1")
def test_cor31_collapsed_input_is_kept(verdict):
    """H0 = H*: no start of a joint L-BFGS on (2) goes below f(W*, H*; H*), every start reaching that value sits
    at (W*, H*) (uniqueness), and the reduced solver returns H*."""
    rows, worst, other, tol = _cor31_runs(UFM_CASES[:2], (0.1, 10.0), starts=3)
    _cor31_statement_exact()
    verdict.verified(method="num: joint L-BFGS on (2) from random starts + reduced solver",
                     evidence={"runs": rows, "max_abs_deviation_from_(W*,H*)": worst, "allowed_from_curvature": tol,
                               "starts_ending_at_other_stationary_points": other, "seed": SEED})


def _cor31_statement_exact():
    """Cor. 3.1's statement object at its irrational point, decided exactly (sympy radicals, Arb balls; equality by
    the exact zero test): at lambdas where H* holds sqrt 6, sqrt(3/2) and the nested sqrt((1 - 1/sqrt 6) sqrt(2/3)),
    f_2(W* + sA, H* + sB; H*) against the object's f_2(W*, H*; H*) for every coordinate direction (A, B) of W and H
    and s = +-1/1000 (a point that is not the minimiser of (2) descends along one of them), and at s = 0. The value
    at s = 0 is the minimum c - c^2/2 of (1) (Thm 2.2, computed here at 50 digits: the point is the minimiser, not
    only a point where the object's two sides agree), and every displaced point is strictly above it (uniqueness)."""
    st = current("N-cor3.1")
    for d, n, lw, lh, beta in ((2, 2, sympy.Integer(2), sympy.Rational(1, 32), sympy.Integer(1)),
                               (3, 1, sympy.Rational(1, 2), sympy.Rational(1, 8), sympy.Rational(7, 2)),
                               (3, 1, sympy.Rational(1, 3), sympy.Rational(1, 2), sympy.Integer(2))):
        K = 2
        dirs = [(sympy.zeros(K, d), sympy.zeros(d, K * n), sympy.Integer(0))]
        for i in range(K * d):
            dirs += [(sympy.Matrix(K, d, lambda a, b: int(a * d + b == i)), sympy.zeros(d, K * n), sg * sympy.Rational(1, 1000))
                     for sg in (1, -1)]
        for i in range(d * K * n):
            dirs += [(sympy.zeros(K, d), sympy.Matrix(d, K * n, lambda a, b: int(a * K * n + b == i)),
                      sg * sympy.Rational(1, 1000)) for sg in (1, -1)]
        c = sympy.sqrt(lw * lh)
        for A, B, sc in dirs:
            env = {"d": d, "K": K, "n": n, "A": A, "B": B, "s": sc, "lambda_W": lw, "lambda_H": lh, "beta": beta}
            if hypotheses_hold(st, env) is not True:
                continue
            assert holds("N-cor3.1", env) is True, (d, lw, lh, A, B, sc)
            lhs, rhs = sides("N-cor3.1", env)
            gap = sympy.N(lhs - (c - c ** 2 / 2), 50)
            assert (abs(gap) < 1e-40) if sc == 0 else (gap > 1e-12), (d, lw, lh, sc, gap)


@pytest.mark.slow
@pytest.mark.claim("N-cor3.1")
def test_cor31_collapsed_input_is_kept_sweep(verdict):
    """The same with 4 cases x 3 betas x 8 starts."""
    rows, worst, other, tol = _cor31_runs(UFM_CASES[:4], (0.1, 1.0, 10.0), starts=8)
    verdict.verified(method="num: joint L-BFGS on (2), 8 random starts per (case, beta)",
                     evidence={"runs": len(rows), "max_abs_deviation_from_(W*,H*)": worst, "allowed_from_curvature": tol,
                               "starts_ending_at_other_stationary_points": other, "seed": SEED})


# --------------------------------------------------------------------------- App. A: exact identities
@pytest.mark.claim("N-Wstar")
def test_wstar_both_forms_exact(verdict):
    rng = np.random.default_rng(SEED + 20)
    for label, H, K, lw, lh in INSTANCES:
        ns, inst = cp.build(H.rows, K, H.cols // K), cp.instance(H, K, lw, lh)
        forms = [cp.evaluate(f, ns, inst) for f in cp.wstar_forms(ns)]
        assert all(exact_zero(F - forms[0]) for F in forms[1:]), label
        # and it is the minimiser in W: the gradient of (1) in W vanishes there
        W = forms[0]
        gW = (W * H - inst["Y"]) * H.T / (K * inst["n"]) + lw * W / K
        assert exact_zero(gW), label
        # the statement object's forms (its constants n, 1/K, lam_W/K): <G, grad_W f(F_1)> + <G, grad_W f(F_2)> = 0
        G = random_rational_matrix(rng, K, H.rows)
        assert holds("N-Wstar", _statement_env(H, K, lw, G=G)) is True, label
    verdict.verified(method="sym: exact rationals, both forms and dF/dW = 0",
                     evidence={"instances": _sizes(), "seed": SEED})


@pytest.mark.claim("N-decomp")
def test_decomposition_exact(verdict):
    rng = np.random.default_rng(SEED + 21)
    for label, H, K, lw, lh in INSTANCES:
        ns, inst = cp.build(H.rows, K, H.cols // K), cp.instance(H, K, lw, lh)
        lhs, rhs = cp.decomposition(ns)
        assert exact_zero(cp.evaluate(lhs - rhs, ns, inst)), label
        # the statement object's coefficients, at the traces of the definitions against a seeded probe G
        G = random_rational_matrix(rng, H.rows, H.rows)
        assert holds("N-decomp", _statement_env(H, K), T_T=(G * inst["ST"]).trace(), T_W=(G * inst["SW"]).trace(),
                     T_Bt=(G * inst["SBt"]).trace()) is True, label
    verdict.verified(method="sym: exact rationals, covariances from their definitions",
                     evidence={"instances": _sizes(), "seed": SEED})


@pytest.mark.claim("N-L-closed")
def test_loss_closed_form_every_step_exact(verdict):
    """Each displayed equality of App. A (fit term: 3 steps, weight term, their sum: 2 steps, feature term,
    and the final closed form against the definition with W*(H) = Y H^T (HH^T + n lW I)^-1)."""
    steps = 0
    for label, H, K, lw, lh in INSTANCES:
        ns, inst = cp.build(H.rows, K, H.cols // K), cp.instance(H, K, lw, lh)
        chain = cp.loss_chain(ns)
        for key, forms in chain.items():
            vals = [cp.evaluate(f, ns, inst) for f in forms]
            for a, b in zip(vals, vals[1:]):
                assert exact_zero(a - b), (label, key)
                steps += 1
        assert exact_zero(cp.evaluate(cp.loss_definition(ns) - chain["L"][1], ns, inst)), label
        # the statement object's closed form (its constants), at the definition's value of L and Tr SigmaT~
        assert holds("N-L-closed", _statement_env(H, K, lw, lh), L=cp.evaluate(cp.loss_definition(ns), ns, inst),
                     TrT=inst["ST"].trace()) is True, label
        assert ufm.central_path_loss(ufm.as_exact(np.array(H.tolist())), lw, lh, K) == \
            ufm.as_exact([[cp.evaluate(chain["L"][1], ns, inst)]])[0, 0], label
        steps += 2
    verdict.verified(method="sym: exact rationals, every intermediate equality",
                     evidence={"instances": _sizes(), "equalities_checked": steps, "seed": SEED})


def _definition_loss_derivative(H, K, lw, lh, i, j):
    """d/ds L(H + s E_ij) at s = 0, L from its definition, differentiated by sympy in the field QQ(s)."""
    s = sympy.Symbol("s")
    F = sympy.QQ.frac_field(s)
    d, n = H.rows, H.cols // K
    Hs = H.copy()
    Hs[i, j] += s
    Hd = DomainMatrix.from_Matrix(Hs).convert_to(F)
    Yd = DomainMatrix.from_Matrix(cp.instance(H, K, lw, lh)["Y"]).convert_to(F)
    W = Yd * Hd.transpose() * (Hd * Hd.transpose() + DomainMatrix.eye(d, F) * F.convert(n * lw)).inv()
    R = W * Hd - Yd

    def tr(A):
        return sum((A[k, k].element for k in range(A.shape[0])), F.zero)

    L = (tr(R * R.transpose()) * F.convert(sympy.Rational(1, 2 * K * n)) + tr(W * W.transpose()) * F.convert(lw / (2 * K))
         + tr(Hd * Hd.transpose()) * F.convert(lh / (2 * K * n)))
    return F.to_sympy(L.diff(F.gens[0])).subs(s, 0)


@pytest.mark.claim("N-eq7")
def test_gradient_against_sympy_diff(verdict):
    """d/ds L(H + s E_ij) at s = 0 by sympy differentiation of the *definition* of L, every entry."""
    rng = np.random.default_rng(SEED + 1)
    entries = 0
    for d, K, n in [(2, 2, 2), (3, 2, 1), (2, 3, 1)]:
        H = random_rational_matrix(rng, d, K * n)
        lw, lh = sympy.Rational(int(rng.integers(1, 9)), 5), sympy.Rational(int(rng.integers(0, 9)), 7)
        ns = cp.build(d, K, n)
        G = cp.evaluate(cp.gradient(ns), ns, cp.instance(H, K, lw, lh))
        for i in range(d):
            for j in range(K * n):
                dL = _definition_loss_derivative(H, K, lw, lh, i, j)
                assert exact_zero(dL - G[i, j]), (d, K, n, i, j)
                # the statement object's (7) (its constants) along V = E_ij, at sympy's derivative of the definition
                E = sympy.zeros(d, K * n)
                E[i, j] = 1
                assert holds("N-eq7", _statement_env(H, K, lw, lh, V=E), dL_V=dL) is True, (d, K, n, i, j)
                entries += 1
    verdict.verified(method="sym: sympy differentiation (field QQ(s)) of the definition of L, exact",
                     evidence={"sizes": [[2, 2, 2], [3, 2, 1], [2, 3, 1]], "entries": entries, "seed": SEED + 1})


@pytest.mark.claim("N-eq7")
def test_gradient_directional_precision_ladder(verdict):
    """<grad L(H), V> against mpmath.diff of L(H + sV) (definition of L) at 15, 30 and 50 digits, d=6, K=3, n=3."""
    rng = np.random.default_rng(SEED + 2)
    H0, V0 = rng.standard_normal((6, 9)), rng.standard_normal((6, 9))
    H0[:, :3] += 2.0  # nonzero global mean
    errs = {}
    for dps in (15, 30, 50):
        with mpmath.workdps(dps):
            H, V = ufm.as_mp(H0), ufm.as_mp(V0)
            lw, lh = mpmath.mpf(3) / 10, mpmath.mpf(1) / 5
            fd = mpmath.diff(lambda t: ufm.central_path_loss_direct(H + V * t, lw, lh, 3), 0)
            an = (ufm.grad_central_path_loss(H, lw, lh, 3) * V).sum()
            errs[dps] = float(abs(fd - an) / abs(an))
            assert errs[dps] < 10.0 ** (5 - dps)  # mpmath.diff loses a few digits to its step; 5 allowed
    verdict.verified(method="hp: mpmath.diff of the definition vs eq. (7), precision ladder",
                     evidence={"rel_err_by_dps": errs, "seed": SEED + 2})


def _flow_derivatives(H, K, lw, lh):
    """d Sigma / dt along (4) at H for Sigma_B, Sigma_W, Sigma_T~, independently of Lemma A.1: each Sigma is
    quadratic in H, so (Sigma(H + V) - Sigma(H - V)) / 2 is exactly its derivative along V = -Kn grad L(H)."""
    n = H.cols // K
    ns, inst = cp.build(H.rows, K, n), cp.instance(H, K, lw, lh)
    V = -K * n * cp.evaluate(cp.gradient(ns), ns, inst)
    plus, minus = cp.instance(H + V, K, lw, lh), cp.instance(H - V, K, lw, lh)
    return ns, inst, {key: (plus[key] - minus[key]) / 2 for key in ("SB", "SW", "ST")}


@pytest.mark.claim("N-lemA.1")
def test_lemma_a1_exact(verdict):
    """dSigma/dt along (4), from the definitions (exact central difference of a quadratic), against Lemma A.1."""
    rng = np.random.default_rng(SEED + 22)
    for label, H, K, lw, lh in INSTANCES:
        ns, inst, der = _flow_derivatives(H, K, lw, lh)
        lem = cp.lemma_a1(ns)
        for key in ("SB", "SW", "ST"):
            assert exact_zero(der[key] - cp.evaluate(lem[key], ns, inst)), (label, key)
        # the statement object's forms (its 1/K, 2 lam_H and the lam_W/K of C), at the derivatives of the
        # definitions, against seeded probes G_B, G_W, G_T (the three identities at once)
        G = {x: random_rational_matrix(rng, H.rows, H.rows) for x in ("SB", "SW", "ST")}
        given = {"dSigma_G": sum((G[x] * der[x]).trace() for x in G), "Sigma_G": sum((G[x] * inst[x]).trace() for x in G)}
        assert holds("N-lemA.1", _statement_env(H, K, lw, lh, G_B=G["SB"], G_W=G["SW"], G_T=G["ST"]),
                     **given) is True, label
    verdict.verified(method="sym: exact rationals, derivative of the definitions along V = -Kn grad L (eq. 7)",
                     evidence={"instances": _sizes(), "seed": SEED})


def _to_sympy(x):
    return sympy.Rational(int(x.p), int(x.q)) if hasattr(x, "p") else sympy.nsimplify(x)


@functools.lru_cache(maxsize=1)
def _exact_trace_derivatives():
    """Per exact instance: the float/exact code path :func:`flow.trace_derivatives` (run in exact rationals) and the
    independent values e^{-2 lH t} dT/dt at t = 0, i.e. dTr(Sigma)/dt + 2 lH Tr(Sigma), with dSigma/dt from the
    definitions along V = -Kn grad L (eq. 7, itself checked against sympy's derivative of the definition)."""
    rows = []
    for label, H, K, lw, lh in INSTANCES:
        ns, inst, der = _flow_derivatives(H, K, lw, lh)
        indep = {"dT_W": der["SW"].trace() + 2 * lh * inst["SW"].trace(),
                 "dT_B": der["SB"].trace() + 2 * lh * inst["SB"].trace()}
        code = flow.trace_derivatives(ufm.as_exact(np.array(H.tolist())), lw, lh, K)
        rows.append((label, inst, indep, {k: _to_sympy(v) for k, v in code.items()}))
    return rows


@pytest.mark.claim("N-thm4.1-dT", "N-thm4.1-W")
def test_trace_derivative_closed_forms_code_exact(verdict):
    """The package's closed forms (verify.numeric.central_path.trace_derivatives, evaluated in exact rationals)
    equal dT_W/dt and dT_B/dt obtained independently from the definitions, exactly, on every instance (two-sided:
    a wrong factor of either sign shows); the lower bound (2 lW/K^2) Tr(Sigma_B C^2) is tight exactly when
    Sigma_W = 0 (n = 1: equality asserted) and strict otherwise."""
    tight = []
    for label, inst, indep, code in _exact_trace_derivatives():
        for key in ("dT_W", "dT_B"):
            assert exact_zero(code[key] - indep[key]), (label, key)
        gap = code["dT_B"] - code["dT_B_lower"]
        if exact_zero(inst["SW"]):
            assert exact_zero(gap), label          # the dropped term 2/K Tr(Sigma_B C Sigma_W C) is 0
            tight.append(label)
        else:
            assert gap > 0 or exact_zero(inst["SB"]), label
    assert tight  # the n = 1 instance exercised the equality case
    verdict.verified(method="sym: exact rationals, package closed forms vs derivatives of the definitions",
                     evidence={"instances": _sizes(), "lower_bound_tight_on": tight, "seed": SEED})


@pytest.mark.claim("N-thm4.1-dT")
def test_trace_derivative_chains_exact(verdict):
    """Each equality of the dT_W/dt and dT_B/dt chains, with dTr(Sigma)/dt computed independently
    (from the definitions), and the final bound dT_B/dt >= (2 lW/K^2) e^{2 lH t} Tr(Sigma_B C^2)."""
    for label, H, K, lw, lh in INSTANCES:
        ns, inst, der = _flow_derivatives(H, K, lw, lh)
        ch = cp.trace_derivative_chains(ns)
        extra = {ch["dtrW"]: der["SW"].trace(), ch["dtrB"]: der["SB"].trace()}
        for t in (0, sympy.Rational(3, 2)):
            for key in ("dT_W", "dT_B"):
                vals = [cp.evaluate(f, ns, inst, {ns.t: t, **extra}) for f in ch[key]]
                assert all(exact_zero(v - vals[0]) for v in vals[1:]), (label, key, t)
            low = cp.evaluate(ch["dT_B_lower"], ns, inst, {ns.t: t})
            # the statement object's closed forms (its constants), at the derivatives of the definitions; the probe g
            # weighs the T_B identity
            for g in (sympy.Rational(3, 2), sympy.Rational(-2, 7)):
                assert holds("N-thm4.1-dT", _statement_env(H, K, lw, lh, g=g), D_W=der["SW"].trace(),
                             D_B=der["SB"].trace(), T_W=inst["SW"].trace(), T_B=inst["SB"].trace()) is True, label
            top = cp.evaluate(ch["dT_B"][-1], ns, inst, {ns.t: t})
            assert sympy.N(top - low, 30) >= 0, label
            if exact_zero(inst["SW"]):  # n = 1: the dropped PSD term vanishes, so the bound is attained (tight)
                assert exact_zero(top - low), label
    verdict.verified(method="sym: exact rationals at t = 0 and t = 3/2 (factor e^{2 lH t} kept symbolic)",
                     evidence={"instances": _sizes(), "seed": SEED})


# --------------------------------------------------------------------------- Theorem 4.1 along the flow
def _random_cases(seed, count, d_range, n_range, lw_log10):
    """Seeded (H0, K, lW, lH): every third case lH = 0, every second a large nonzero global mean."""
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(count):
        d, K, n = int(rng.integers(*d_range)), int(rng.integers(2, 5)), int(rng.integers(*n_range))
        lw = float(10 ** rng.uniform(*lw_log10))
        lh = 0.0 if i % 3 == 0 else float(10 ** rng.uniform(-2, 0))
        H0 = rng.standard_normal((d, K * n)) + (3.0 * rng.standard_normal((d, 1)) if i % 2 else 0.0)
        cases.append((H0, K, lw, lh))
    return cases


def _flow_cases():
    return _random_cases(SEED + 3, 10, (2, 7), (2, 5), (-3, 0.5))


def _structured_flow_cases():
    """Starts at the edges of Thm 4.1's hypotheses (Sigma_W(H0) != 0, and Sigma_B(H0) != 0 for the corrected
    statement): rank-1 Sigma_B (collinear means, K = 4); class means 1e-3 apart (Tr Sigma_B / Tr Sigma_W ~ 4e-7,
    close to the degenerate set); d > Kn (singular Sigma_W); d < K; lW = 1e-4 and lW = 30 with lH = 3
    (c = sqrt(lW lH) > 1, where the UFM minimiser is 0; H_t -> 0 like e^{-lH t}, so it runs to t = 1 only, before
    the integrator's absolute tolerance 1e-14 becomes a visible fraction of H_t).
    Items: (label, H0, K, lW, lH, t_end)."""
    rng = np.random.default_rng(SEED + 12)
    out = []

    def spread(d, K, n):  # within-class spread with zero class means, so that it leaves Sigma_B as built
        x = rng.standard_normal((d, K, n))
        return (x - x.mean(axis=2, keepdims=True)).reshape(d, K * n)

    v, base = rng.standard_normal((5, 1)), rng.standard_normal((5, 1))
    means = base + v * np.array([[0.0, 1.0, 2.5, -1.0]])
    out.append(("rank-1 Sigma_B", np.repeat(means, 2, axis=1) + spread(5, 4, 2), 4, 0.3, 0.1, 5.0))
    means = rng.standard_normal((3, 1)) + 1e-3 * rng.standard_normal((3, 3))
    out.append(("means 1e-3 apart", np.repeat(means, 3, axis=1) + spread(3, 3, 3), 3, 0.5, 0.0, 5.0))
    out.append(("d > Kn", rng.standard_normal((8, 4)), 2, 0.2, 0.05, 5.0))
    out.append(("d < K", rng.standard_normal((2, 10)), 5, 0.1, 0.2, 5.0))
    out.append(("lW = 1e-4", rng.standard_normal((3, 6)), 2, 1e-4, 0.0, 5.0))
    out.append(("lW = 30, lH = 3 (c > 1)", rng.standard_normal((3, 6)), 3, 30.0, 3.0, 1.0))
    return out


def _run_flow(H0, K, lw, lh, t_end=5.0, points=120):
    sol = flow.solve_flow(H0, lw, lh, K, t_end, rtol=1e-11, atol=1e-14)
    ts = np.linspace(0, t_end, points)
    tr = flow.flow_traces(sol, ts, lh, K)
    ders = [flow.trace_derivatives(sol.sol(t).reshape(sol.shape), lw, lh, K) for t in ts]
    tr["fd"] = _fd_against_closed_form(sol, lw, lh, K, ts=(0.0, 0.1 * t_end, 0.5 * t_end))
    return tr, ders


def _fd_against_closed_form(sol, lw, lh, K, ts, h=1e-4):
    """Two-sided value check of the closed forms along the *solved* flow: finite differences (step h, one-sided
    second order at t = 0) of T_W, T_B and NC1~ on the trajectory against e^{2 lH t} dT/dt from
    :func:`flow.trace_derivatives` at H_t (and d NC1~/dt = NC1~ (T_W'/T_W - T_B'/T_B)). Relative errors, per
    quantity; a wrong factor in the vector field, the exponential weight or the closed forms shows as O(1)."""
    errs = {"T_W": 0.0, "T_B": 0.0, "NC1~": 0.0}
    for t in ts:
        pts = [t, t + h, t + 2 * h] if t == 0 else [t, t - h, t + h]
        tr = flow.flow_traces(sol, pts, lh, K)
        dd = flow.trace_derivatives(sol.sol(t).reshape(sol.shape), lw, lh, K)
        e = np.exp(2 * lh * t)
        closed = {"T_W": e * dd["dT_W"], "T_B": e * dd["dT_B"]}
        tb = np.trace(ufm.covariances(sol.sol(t).reshape(sol.shape), K)["Sigma_B"])
        if tb > 0:
            closed["NC1~"] = tr["nc1_tilde"][0] * (dd["dT_W"] / tr["tr_W"][0] - dd["dT_B"] / tb)
        for key, val in closed.items():
            y = tr["nc1_tilde"] if key == "NC1~" else tr[key]
            fd = (-3 * y[0] + 4 * y[1] - y[2]) / (2 * h) if t == 0 else (y[2] - y[1]) / (2 * h)
            if val != 0:
                errs[key] = max(errs[key], abs(fd - val) / abs(val))
    return errs


@pytest.mark.claim("N-thm4.1-W")
def test_thm41_TW_decreases(verdict):
    """10 seeded flows (lH = 0 in 4, lW down to 1e-3, large global means, d < K allowed), the structured starts
    (rank-1 Sigma_B, nearly equal means, d > Kn, lW = 1e-4, c > 1) and the degenerate Sigma_B = 0 start:
    e^{2 lH t} Tr Sigma_W never increases on a 120-point grid (beyond 1e-9 relative integration error), its
    closed-form derivative is <= 0 at every grid point, and - two-sided - that closed form equals the finite
    difference of T_W along the solved trajectory (and, in exact rationals, the derivative of the definitions)."""
    worst_inc, worst_der, worst_fd = -np.inf, -np.inf, 0.0
    cases = [(H0, K, lw, lh, 5.0) for H0, K, lw, lh in _flow_cases() + [(_degenerate_H0(), 2, 0.5, 0.1)]]
    cases += [c[1:] for c in _structured_flow_cases()]
    for H0, K, lw, lh, t_end in cases:
        tr, ders = _run_flow(H0, K, lw, lh, t_end)
        inc = np.max(np.diff(tr["T_W"]) / tr["T_W"][0])
        worst_inc = max(worst_inc, inc)
        dtw = np.array([dd["dT_W"] for dd in ders])
        worst_der = max(worst_der, dtw.max())
        worst_fd = max(worst_fd, tr["fd"]["T_W"])
        assert inc <= 1e-9  # rtol 1e-11 over ~1e3 steps
        assert dtw.max() <= 1e-13 * np.abs(dtw).max()  # a float trace of a product: round-off only
        # central difference, h = 1e-4: truncation ~h^2 = 1e-8 relative, plus trajectory error ~rtol/h = 1e-7
        assert tr["fd"]["T_W"] < 1e-5
    for label, _, indep, code in _exact_trace_derivatives():
        assert exact_zero(code["dT_W"] - indep["dT_W"]), label
    # the statement object (its C of e^{C lH t}): dTr Sigma_W/dt <= -C lH Tr Sigma_W, dTr Sigma_W/dt from the
    # definitions, at the exact instances and - two-sided - at the attained case: class means on e_1, the spread on
    # e_2 (C diagonal, Tr(Sigma_W C SigmaB~ C) = 0), where the two sides are equal
    sp = sympy.Rational(7, 10)
    orth = sympy.Matrix([[1, 1, 3, 3], [sp, -sp, sp, -sp]])
    for label, H, K, lw, lh in INSTANCES + [("means orthogonal to the spread", orth, 2, sympy.Rational(5, 2),
                                             sympy.Rational(3, 10))]:
        ns, inst, der = _flow_derivatives(H, K, lw, lh)
        given = {"D_W": der["SW"].trace(), "T_W": inst["SW"].trace()}
        assert holds("N-thm4.1-W", _statement_env(H, K, lw, lh), **given) is True, label
    lhs, rhs = sides("N-thm4.1-W", _statement_env(orth, 2, sympy.Rational(5, 2), sympy.Rational(3, 10)), **given)
    assert lhs == rhs and lhs < 0
    search = adversarial_max(_tw_violation, get_objective("N-thm4.1-W").sampler, n_starts=6, seed=SEED)
    assert search.best <= 1e-12
    verdict.verified(method="hp: solve_ivp DOP853 rtol 1e-11 + closed-form derivative + adversarial search",
                     evidence={"flows": len(cases), "max_rel_increase_on_grid": worst_inc,
                               "max_dT_W_at_grid": worst_der, "max_rel_err_fd_vs_closed_form_dT_W": worst_fd,
                               "structured_starts": [c[0] for c in _structured_flow_cases()],
                               **search.evidence("worst_normalised_dT_W (<= 0 up to round-off)"), "seed": SEED + 3})


@pytest.mark.claim("N-thm4.1-nc1", "N-thm4.1-B", corrected=True)
def test_thm41_nc1_and_TB_with_nondegenerate_means(verdict):
    """Corrected statement (Sigma_W(H0) != 0 and Sigma_B(H0) != 0), over its whole generality: the 10 seeded flows
    (lH = 0 in 4, lW down to 1e-3, large global means, d < K) and the structured starts (rank-1 Sigma_B, class
    means 1e-3 apart, d > Kn with singular Sigma_W, d < K, lW = 1e-4, lW = 30 with c > 1). On each: NC1~ strictly
    decreases and e^{2 lH t} Tr Sigma_B strictly increases on the grid; dT_B/dt >= its lower bound > 0 at every
    grid point; two-sided, the closed forms equal the finite differences of T_B and NC1~ along the solved
    trajectory and (exact rationals) the derivatives of the definitions; NC1~ equals Tr Sigma_W / Tr Sigma_B
    transcribed independently; an adversarial search finds no positive d/dt log NC1~."""
    worst_nc1, worst_tb, min_der, worst_fd, worst_def = -np.inf, np.inf, np.inf, 0.0, 0.0
    cases = [("seeded", *c, 5.0) for c in _flow_cases()] + _structured_flow_cases()
    for label, H0, K, lw, lh, t_end in cases:
        n = H0.shape[1] // K
        means = H0.reshape(H0.shape[0], K, n).mean(axis=2)
        assert np.trace(np.cov(means, bias=True)) > 0 and np.any(H0 != np.repeat(means, n, axis=1))  # hypotheses
        tr, ders = _run_flow(H0, K, lw, lh, t_end)
        rel_nc1 = np.diff(tr["nc1_tilde"]) / tr["nc1_tilde"][:-1]
        rel_tb = np.diff(tr["T_B"]) / tr["T_B"][:-1]
        worst_nc1, worst_tb = max(worst_nc1, rel_nc1.max()), min(worst_tb, rel_tb.min())
        min_der = min(min_der, min(dd["dT_B"] / np.trace(ufm.covariances(H0, K)["Sigma_B"]) for dd in ders))
        # strict on the grid: each step must move by more than the integration error (1e-9 relative)
        assert rel_nc1.max() < -1e-9 and rel_tb.min() > 1e-9, label
        assert all(dd["dT_B"] >= dd["dT_B_lower"] > 0 for dd in ders), label
        # central difference, h = 1e-4: truncation ~h^2 = 1e-8 relative, plus trajectory error ~rtol/h = 1e-7
        assert tr["fd"]["T_B"] < 1e-5 and tr["fd"]["NC1~"] < 1e-5, (label, tr["fd"])
        worst_fd = max(worst_fd, tr["fd"]["T_B"], tr["fd"]["NC1~"])
        # NC1~ from its definition (3), written out here: ||H - Hbar (x) 1^T||^2 / (Kn) over ||Hbar - hG 1^T||^2 / K
        m0 = means - means.mean(axis=1, keepdims=True)
        nc1_def = (np.sum((H0 - np.repeat(means, n, axis=1)) ** 2) / (K * n)) / (np.sum(m0**2) / K)
        worst_def = max(worst_def, abs(tr["nc1_tilde"][0] - nc1_def) / nc1_def)
        assert abs(tr["nc1_tilde"][0] - nc1_def) <= 1e-12 * nc1_def, label  # two float sums of squares: round-off
    for label, _, indep, code in _exact_trace_derivatives():
        assert exact_zero(code["dT_B"] - indep["dT_B"]), label
    search = adversarial_max(_nc1_violation, get_objective("N-thm4.1-nc1:nondegenerate").sampler, n_starts=6,
                             seed=SEED)
    assert search.best < 0
    # mpmath odefun: where float steps get small (late, lH = 0) 30-digit values settle strictness
    H0 = np.random.default_rng(SEED + 4).standard_normal((2, 4))
    Hs = flow.solve_flow_mp(H0, 0.5, 0, 2, [0, 0.5, 1], dps=20)
    with mpmath.workdps(20):
        vals = [ufm.nc1_tilde(Ht, 2) for Ht in Hs]
    assert vals[0] > vals[1] > vals[2]
    fl = flow.flow_traces(flow.solve_flow(H0, 0.5, 0, 2, 1.0), [1.0], 0, 2)["nc1_tilde"][0]
    assert abs(fl - float(vals[2])) < 1e-8 * abs(fl)  # float path (rtol 1e-10) agrees with the 20-digit one
    verdict.verified(method="hp: solve_ivp rtol 1e-11 on 16 flows + closed-form derivatives (vs finite differences "
                            "and exact derivatives of the definitions) + adversarial "
                            "search + mpmath odefun (20 digits)",
                     evidence={"max_rel_step_of_NC1tilde": worst_nc1, "min_rel_step_of_T_B": worst_tb,
                               "min_dT_B_over_TrSigmaB0": min_der, "flows": len(cases),
                               "structured_starts": [c[0] for c in _structured_flow_cases()],
                               "max_rel_err_fd_vs_closed_form_T_B_NC1": worst_fd,
                               "max_rel_err_NC1tilde_vs_definition": worst_def,
                               **search.evidence("sup_found_dlogNC1_dt (must be < 0)"),
                               "mp_NC1tilde_t0_0.5_1": [mpmath.nstr(v, 15) for v in vals], "seed": SEED + 3})


def _degenerate_H0():
    """Nonzero within-class variability, all class means equal (Sigma_B = 0): class 2 = class 1 reordered."""
    a = np.array([[1.0, -0.5, 0.25], [0.3, 2.0, -1.0]]).T        # d=3, two samples
    return np.hstack([a, a[:, ::-1]])


@pytest.mark.claim("N-thm4.1-nc1", "N-thm4.1-B")
def test_thm41_counterexample_equal_class_means(verdict):
    """Theorem 4.1 assumes only lW > 0, lH >= 0, Sigma_W(H0) != 0. If all class means coincide
    (Sigma_B(H0) = 0), the flow keeps them equal (exact: the class-mean part of the vector field is
    (1/K) C A C Hbar - lH Hbar, so Hbar P = 0 is invariant), hence Tr Sigma_B(H_t) = 0 for all t:
    T_B is constant 0 (not strictly increasing) and NC1~ = Tr Sigma_W / 0 is undefined."""
    H0 = _degenerate_H0()
    K, lw, lh = 2, sympy.Rational(1, 2), sympy.Rational(1, 10)
    # exact invariance on random points of the subspace {class means equal}
    rng = np.random.default_rng(SEED + 5)
    for _ in range(5):
        a = random_rational_matrix(rng, 3, 2)
        b = random_rational_matrix(rng, 3, 1)
        Hx = sympy.Matrix.hstack(a, a[:, 1], a[:, 0]) + b * sympy.ones(1, 4)  # class 2 = class 1 reordered
        ns, inst = cp.build(3, 2, 2), cp.instance(Hx, K, lw, lh)
        assert exact_zero(inst["SB"]) and not exact_zero(inst["SW"])
        V = -4 * cp.evaluate(cp.gradient(ns), ns, inst)
        Vbar = cp.instance(V, K, lw, lh)["Hbar"]
        assert exact_zero(Vbar[:, 0] - Vbar[:, 1])
    sol = flow.solve_flow(H0, 0.5, 0.1, K, 5.0)
    tr = flow.flow_traces(sol, np.linspace(0, 5, 11), 0.1, K)
    # exactly 0 in exact arithmetic; in float64 the class means stay equal up to round-off (|diff|^2 ~ eps^2 ~ 1e-32),
    # 1e-25 leaves room for its accumulation along the flow while being far below Tr Sigma_W ~ 1
    assert np.max(tr["tr_B"]) < 1e-25 and tr["tr_W"][-1] < tr["tr_W"][0]
    counter = {"H0": H0.tolist(), "K": 2, "n": 2, "lam_W": 0.5, "lam_H": 0.1,
               "Tr_Sigma_W(H0)": float(tr["tr_W"][0]), "max_t_in_[0,5]_Tr_Sigma_B(H_t)": float(np.max(tr["tr_B"]))}
    fix = "add the hypothesis Sigma_B(H0) != 0 (class means not all equal)"
    repair = ("test_thm41_nc1_and_TB_with_nondegenerate_means (corrected=True): with Sigma_B(H0) != 0 both "
              "statements hold on flows across d < K, d > Kn, rank-deficient Sigma_B, lH = 0, lW in [1e-4, 30]")
    verdict.refuted(counterexample=counter, claim="N-thm4.1-B", method="sym + num", severity="degenerate",
                    justification={"quantity": "Tr Sigma_B(H_t) = 0 for every t (the equal-means subspace is "
                                               "invariant under (4)): T_B is the trivial constant 0",
                                   "repair": repair},
                    corrected="e^{2 lH t} Tr Sigma_B(H_t) strictly increases if moreover " + fix[4:],
                    evidence={"invariance_exact_points": 5, "seed": SEED + 5})
    verdict.refuted(counterexample=counter, claim="N-thm4.1-nc1", method="sym + num", severity="degenerate",
                    justification={"quantity": "NC1~(H_t) = Tr Sigma_W(H_t) / Tr Sigma_B(H_t) = x/0, undefined "
                                               "for every t", "repair": repair},
                    corrected="NC1~(H_t) strictly decreases if moreover " + fix[4:] + " (else NC1~ = x/0)",
                    evidence={"invariance_exact_points": 5, "seed": SEED + 5})


# --------------------------------------------------------------------------- App. B and Corollary 4.2
def _b_cases():
    # n >= 2: Cor. 4.2 needs Sigma_W(H0) != 0
    return _random_cases(SEED + 6, 6, (2, 5), (2, 4), (-2, 0.5))


@pytest.mark.claim("N-eq8")
def test_eq8_first_order_condition(verdict):
    """Minimise (2) jointly in (W, H) with L-BFGS (no reduction) and check H - H0 = -(Kn/beta) grad L(H);
    then the 40-digit root of (8) from the reduced solver has residual < 1e-35."""
    worst, worst_mp = 0.0, 0.0
    for i, (H0, K, lw, lh) in enumerate(_b_cases()):
        d, n = H0.shape[0], H0.shape[1] // K
        for beta in (2.0, 20.0, 200.0):
            def f(x):
                val, g = ufm._ufm_value_grad(x, d, K, n, lw, lh)
                D = x[K * d:] - H0.ravel()
                g = g.copy()
                g[K * d:] += beta * D / (K * n)
                return (val + beta * D @ D / (2 * K * n)) * K * n, g * K * n
            x0 = np.concatenate([ufm.optimal_W(H0, lw, K).ravel(), H0.ravel()])
            res = minimize(f, x0, jac=True, method="L-BFGS-B", options={"maxiter": 50000, "gtol": 1e-13, "ftol": 0})
            H = res.x[K * d:].reshape(d, K * n)
            r = np.abs(ufm.stationarity_residual(H, H0, beta, lw, lh, K)).max() / np.abs(H0).max()
            worst = max(worst, r)
            assert r < 1e-8  # joint L-BFGS gtol 1e-13 on the Kn-scaled objective
            # (8) with the statement object's constant c = Kn: H - H0 + (c/beta) grad L(H) = 0, same tolerance
            c = float(constants("N-eq8", K=K, n=n)["c"])
            r_obj = np.abs(H - H0 + c / beta * ufm.grad_central_path_loss(H, lw, lh, K)).max() / np.abs(H0).max()
            assert r_obj < 1e-8, r_obj
        if H0.size <= 12:
            with mpmath.workdps(40):
                Hm = ufm.solve_perturbed(H0, 20.0, lw, lh, K, dps=40)
                rm = max(abs(v) for v in ufm.stationarity_residual(Hm, ufm.as_mp(H0), 20, lw, lh, K).ravel())
            worst_mp = max(worst_mp, float(rm))
    assert worst_mp < 1e-35
    # the statement object decided exactly: at seeded rational (H, V, lambdas, beta), H0 given by (8) with the
    # object's c, the derivative of (2) in H along V (envelope theorem: W = W*(H), the gradient of the definition,
    # exact) is what the object's relation compares with 0: '=' must hold (a scaled c, or '<', '>', fails here)
    rng = np.random.default_rng(SEED + 18)
    for d, K, n, lw, lh, beta in ((2, 2, 2, sympy.Rational(1, 3), sympy.Rational(2, 7), sympy.Integer(20)),
                                  (3, 2, 1, sympy.Rational(5, 2), sympy.Integer(0), sympy.Rational(7, 2))):
        H, V = random_rational_matrix(rng, d, K * n), random_rational_matrix(rng, d, K * n)
        c = constants("N-eq8", K=K, n=n)["c"]
        g = _grad_envelope_exact(H, K, lw, lh)
        H0 = H + c / beta * g
        Y = sympy.Matrix(K, K * n, lambda a, j: 1 if j // n == a else 0)
        W = Y * H.T * (H * H.T + n * lw * sympy.eye(d)).inv()
        foc = sum(x * y for x, y in zip(V, (W.T * (W * H - Y) + lh * H + beta * (H - H0)) / (K * n)))
        env = {"d": d, "K": K, "n": n, "H": H, "V": V, "lambda_W": lw, "lambda_H": lh, "beta": beta}
        assert holds("N-eq8", env, foc_V=foc) is True, (d, K, n, foc)
    verdict.verified(method="num: joint L-BFGS on (2) (no reduction) + 40-digit Newton root of (8)",
                     evidence={"cases": 6, "betas": [2, 20, 200], "max_rel_residual_eq8": worst,
                               "max_residual_mp40": worst_mp, "seed": SEED + 6})


@pytest.mark.claim("N-lemB.1")
def test_lemma_b1_gradient_bound(verdict):
    """||grad L(H)||_F <= (1/Kn)(3/lW + lH) ||H||_F: 400 random (H, lW, lH) incl. lH = 0, tiny lW and
    nonzero means, then Nelder-Mead maximisation of the ratio (d=2, K=2, n=2 and d=3, K=2, n=1). Two-sided: the
    gradient bounded is the gradient of L (eq. 7 code against the envelope-theorem gradient of the definition,
    written out here, at every random point), and the tightness the proof implies (sup = 1, approached as
    lW -> inf with lH > 0, where grad L -> lH H/(Kn)) is asserted, not only recorded."""
    rng = np.random.default_rng(SEED + 7)
    worst, worst_grad = 0.0, 0.0
    for _ in range(400):
        d, K, n = int(rng.integers(1, 6)), int(rng.integers(2, 5)), int(rng.integers(1, 4))
        x = np.concatenate([rng.standard_normal(d * K * n) * 10 ** rng.uniform(-2, 2), rng.uniform(-5, 2, 2)])
        worst = max(worst, _lemb1_ratio(x, d, K, n))
        H = x[: d * K * n].reshape(d, K * n)
        lw, lh = float(np.exp(x[-2])), max(float(np.exp(x[-1])) - 0.5, 0.0)
        g_env = _grad_envelope(H, K, lw, lh)
        err = np.linalg.norm(ufm.grad_central_path_loss(H, lw, lh, K) - g_env) / np.linalg.norm(g_env)
        worst_grad = max(worst_grad, err)
        # the envelope route solves with H H^T + n lW I (condition up to ~1e8 here: lW >= e^-5, |H| <= ~1e3):
        # float error <= ~1e-8; a wrong factor (K, n, 2) is an O(1) error
        assert err < 1e-6, (d, K, n, lw, lh, err)
        c = {k: float(v) for k, v in constants("N-lemB.1", K=K, n=n).items()}   # the statement object's constants
        bound = c["c_0"] * (c["C_W"] / lw + c["C_H"] * lh) * np.linalg.norm(H)
        assert np.linalg.norm(g_env) <= bound * (1 + 1e-12)   # the lemma for the definition's gradient itself
    o1, o2 = get_objective("N-lemB.1"), get_objective("N-lemB.1:d3K2n1")
    s1 = adversarial_max(o1.ratio, o1.sampler, n_starts=6, seed=SEED)
    s2 = adversarial_max(o2.ratio, o2.sampler, n_starts=6, seed=SEED)
    best = max(worst, s1.best, s2.best)
    assert best <= 1.0
    # tightness: at lW = 1e6, lH = 1 the gradient is lH H/(Kn) + O(1/lW) (its lH K H term), so |grad L| Kn/|H| is
    # 1 within 1e-4 (a gradient missing its factor K gives ~1/K), and the statement object's bound, whose value
    # there is (3/lW + lH)/(Kn) |H| = |grad L| (1 + O(1e-6)), still holds: a smaller constant fails here
    tight = {}
    for d, K, n in [(2, 2, 2), (3, 4, 1), (5, 3, 3)]:
        H = rng.standard_normal((d, K * n)) + rng.standard_normal((d, 1))
        g = ufm.grad_central_path_loss(H, 1e6, 1.0, K)
        asym = np.linalg.norm(g) * (K * n) / np.linalg.norm(H)
        assert abs(asym - 1) < 1e-4, (d, K, n, asym)
        c = {k: float(v) for k, v in constants("N-lemB.1", K=K, n=n).items()}
        tight[f"d={d},K={K},n={n}"] = r = np.linalg.norm(g) / (c["c_0"] * (c["C_W"] / 1e6 + c["C_H"] * 1.0)
                                                               * np.linalg.norm(H))
        assert r <= 1.0
    _lemb1_statement_exact()
    verdict.verified(method="num: random sampling + adversarial maximisation of ||grad L|| / bound; gradient vs "
                            "envelope-theorem gradient of the definition; tightness asserted",
                     evidence={"random_worst_ratio": worst, "adversarial_worst_ratio": max(s1.best, s2.best),
                               "max_rel_err_grad_vs_envelope": worst_grad, "ratio_at_lW=1e6_lH=1": tight,
                               "note": "sup = 1, approached as lW -> inf with lH > 0 (the bound is tight)",
                               "seed": SEED + 7})


def _grad_envelope_exact(H, K, lw, lh):
    """:func:`_grad_envelope` in exact rationals (sympy matrices): W* = Y H^T (H H^T + n lW I)^{-1}."""
    d, n = H.rows, H.cols // K
    Y = sympy.Matrix(K, K * n, lambda a, j: 1 if j // n == a else 0)
    W = Y * H.T * (H * H.T + n * lw * sympy.eye(d)).inv()
    return (W.T * (W * H - Y) + lh * H) / (K * n)


def _lemb1_statement_exact():
    """Lemma B.1's statement object decided exactly at the check's own points: seeded rational H at three sizes and
    H = 0, lambdas from small to lW = 10^6 (where the bound is approached: grad L -> lH H/(Kn), asserted below from
    the gradient alone) and lH < 0 (outside the hypothesis lH >= 0: such points are evaluated only when the current
    statement drops it), the gradient by the exact envelope route of the definition (:func:`_grad_envelope_exact`),
    the norms as exact radicals; each H also scaled by 1/100 (small H: the regime of the 3/lW term, where
    |grad L| Kn/|H| reaches 1/lW). At every point inside the current statement's hypotheses the object must hold: a
    smaller constant fails near lW = 10^6, a dropped term at lH = 0 or lW = 10^6, a wrong dependence on lW (3 lW
    for 3/lW) at small H and lW = 1/3, the reversed relation wherever the gradient is below the bound, the strict
    one at H = 0 (both sides 0)."""
    st = current("N-lemB.1")
    rng = np.random.default_rng(SEED + 17)
    lams = ((sympy.Rational(1, 3), sympy.Integer(0)), (sympy.Rational(5, 2), sympy.Rational(2, 7)),
            (sympy.Integer(10) ** 6, sympy.Integer(1)), (sympy.Rational(1, 2), sympy.Integer(-5)),
            (sympy.Integer(3), sympy.Rational(-1, 7)))
    admitted, near, small = 0, [], []
    for d, K, n in ((2, 2, 2), (3, 2, 1), (2, 3, 2)):
        Hr = random_rational_matrix(rng, d, K * n)
        # Hr / 100: the regime of the 3/lW term (H -> 0: grad L -> -H Y^T Y/(n lW Kn), so |grad L| Kn/|H| reaches
        # up to 1/lW there, a third of that term), where a wrong dependence on lW shows; at Hr the lH term or the
        # fit to Y dominates
        for H in (Hr, sympy.zeros(d, K * n), Hr / 100):
            for lw, lh in lams:
                env = {"d": d, "K": K, "n": n, "H": H, "s": 1, "lambda_W": lw, "lambda_H": lh}
                if hypotheses_hold(st, env) is not True:
                    continue
                admitted += 1
                g = _grad_envelope_exact(H, K, lw, lh)
                gn, hn = sympy.sqrt(sum(x ** 2 for x in g)), sympy.sqrt(sum(x ** 2 for x in H))
                assert holds("N-lemB.1", env, gradL_F=gn, H_F=hn) is True, (
                    d, K, n, lw, lh, sides("N-lemB.1", env, gradL_F=gn, H_F=hn))
                if lw == 10 ** 6 and hn != 0:
                    near.append(float(gn * K * n / (lh * hn)))
                if lh == 0 and hn != 0 and H == Hr / 100:
                    small.append(float(gn * K * n * lw / hn))
    # the approached case is among the points: |grad L| Kn / (lH |H|) = 1 + O(1/lW) there (the gradient's limit);
    # and the 3/lW term's regime is among them: at small H and lH = 0, |grad L| Kn lW/|H| is above 1/2 (its limit
    # |H Y^T Y|/(n |H|) <= 1 as H -> 0)
    assert admitted >= 27 and len(near) == 6 and max(abs(r - 1) for r in near) < 1e-4, (admitted, near)
    assert len(small) == 3 and min(small) > 0.5, small


def _grad_envelope(H, K, lw, lh):
    """grad L(H) = d/dH f(W, H)|_{W = W*(H)} (envelope theorem: d f/dW = 0 at W*), from the definition of L:
    W* = Y H^T (H H^T + n lW I)^{-1}, d f/dH = W^T (W H - Y)/(Kn) + lH H/(Kn). Plain numpy, written out here."""
    d, n = H.shape[0], H.shape[1] // K
    Y = np.kron(np.eye(K), np.ones((1, n)))
    W = np.linalg.solve(H @ H.T + n * lw * np.eye(d), H @ Y.T).T
    return (W.T @ (W @ H - Y) + lh * H) / (K * n)


@pytest.mark.claim("N-B-distance")
def test_appB_distance_bound(verdict):
    """||H_{1/beta} - H0||_F <= (beta/(nKM) - 1)^{-1} ||H0||_F with M = (3/lW + lH)/(Kn), for beta = nKM * q,
    q in {1.001 (the edge of beta > nKM), 1.05, 3, 100}, on four App. B cases (lW from 0.16 to 2.2, lH = 0 in
    two; the slow sweep: six cases, six q). Two-sided on its input: each H_{1/beta} is checked to satisfy (8)
    with the gradient of the definition (envelope theorem, written out here), so a solver following a wrong
    gradient cannot pass."""
    ev = _bdist_runs(_b_cases()[:4], (1.001, 1.05, 3.0, 100.0), starts=2)
    verdict.verified(method="num: minimiser of (2) (L-BFGS, 2 starts, Newton polish, checked against (8) with the "
                            "definition's gradient) vs the bound", evidence=ev)


@pytest.mark.slow
@pytest.mark.claim("N-B-distance")
def test_appB_distance_bound_sweep(verdict):
    """The same on all six App. B cases, q in {1.001, 1.05, 1.5, 3, 10, 100}, 3 starts."""
    ev = _bdist_runs(_b_cases(), (1.001, 1.05, 1.5, 3.0, 10.0, 100.0), starts=3)
    verdict.verified(method="num: minimiser of (2) (L-BFGS, 3 starts, Newton polish) vs the bound", evidence=ev)


def _bdist_runs(cases, qs, starts):
    worst, best, worst_stat, worst_nontrivial, nontrivial = 0.0, np.inf, 0.0, 0.0, 0
    k = {key: float(v) for key, v in constants("N-B-distance").items()}  # nKM and the bound: the object's constants
    for H0, K, lw, lh in cases:
        nKM, n = k["C_W"] / lw + k["C_H"] * lh, H0.shape[1] // K
        for q in qs:
            beta = nKM * q
            H = ufm.solve_perturbed(H0, beta, lw, lh, K, starts=starts, seed=SEED)
            bound = np.linalg.norm(H0) * (beta / nKM - k["C_1"]) ** k["e"]
            ratio = np.linalg.norm(H - H0) / bound
            worst, best = max(worst, ratio), min(best, ratio)
            # regime: comparing with H = 0 (L >= 0, L(0) = 1/2) gives |H - H0|^2 <= Kn/beta + |H0|^2 for free; the
            # bound says something only where it is below that
            if bound < np.sqrt(K * n / beta + np.linalg.norm(H0) ** 2):
                nontrivial += 1
                worst_nontrivial = max(worst_nontrivial, ratio)
            stat = np.linalg.norm(H - H0 + K * n / beta * _grad_envelope(H, K, lw, lh)) / np.linalg.norm(H - H0)
            worst_stat = max(worst_stat, stat)
            assert stat < 1e-6  # root polish to 1e-15; the envelope route's solve loses <= ~1e-9 here
    assert worst <= 1.0 and nontrivial >= len(cases)  # at least one non-trivial q per case on average
    _bdist_statement_exact()
    return {"cases": len(cases), "q=beta/(nKM)": list(qs), "starts": starts, "worst_ratio": worst,
            "instances_below_trivial_bound": nontrivial, "worst_ratio_there": worst_nontrivial,
            "least_ratio": best, "max_rel_residual_eq8_definition_gradient": worst_stat, "seed": SEED + 6}


def _bdist_statement_exact():
    """App. B's distance bound, the statement object decided exactly at the check's own points. Every minimiser
    H_{1/beta} of (2) satisfies (8), so a pair (H0, H_{1/beta}) is given by H (any matrix: the stationary point) and
    H0 = H + (Kn/beta) grad L(H), the gradient by the exact envelope route of the definition (written here); the
    norms are exact radicals. Points: seeded rational H at two sizes, H = 0 (both sides 0: a strict relation fails),
    a collapsed one-axis H with lW = lH = 100 and beta = 10^6 (the bound approached: the gradient tends to lH H/(Kn),
    asserted below from the gradient alone), and beta = q nKM (nKM from the object) for q = 1.05 (near the edge: a
    larger 1 of beta/(nKM) - 1 makes the bound negative), 3 and 1/2 (outside beta > nKM: evaluated only when the
    current statement drops that hypothesis)."""
    st = current("N-B-distance")
    k = constants("N-B-distance")
    rng = np.random.default_rng(SEED + 19)
    one_axis = sympy.Matrix([[sympy.Rational(17, 10)] * 2 + [sympy.Rational(-3, 5)] * 2, [0] * 4])
    pts = [(one_axis, 2, sympy.Integer(100), sympy.Integer(100), sympy.Integer(10) ** 6)]
    for d, K, n in ((3, 2, 2), (2, 3, 1)):
        for H in (random_rational_matrix(rng, d, K * n), sympy.zeros(d, K * n)):
            for lw, lh in ((sympy.Rational(1, 3), sympy.Integer(0)), (sympy.Rational(5, 2), sympy.Rational(2, 7))):
                nkm = k["C_W"] / lw + k["C_H"] * lh
                pts += [(H, K, lw, lh, q * nkm) for q in (sympy.Rational(21, 20), sympy.Integer(3), sympy.Rational(1, 2))]
    admitted, near = 0, None
    for H, K, lw, lh, beta in pts:
        n = H.cols // K
        env = {"d": H.rows, "K": K, "n": n, "H": H, "lambda_W": lw, "lambda_H": lh, "beta": beta}
        if hypotheses_hold(st, env) is not True:
            continue
        admitted += 1
        g = _grad_envelope_exact(H, K, lw, lh)
        H0 = H + K * n / beta * g
        dist, h0 = sympy.sqrt(sum(x ** 2 for x in H - H0)), sympy.sqrt(sum(x ** 2 for x in H0))
        assert holds("N-B-distance", env, dist=dist, H0_F=h0) is True, (
            H.shape, lw, lh, beta, sides("N-B-distance", env, dist=dist, H0_F=h0))
        if beta == 10 ** 6:
            near = float(sympy.sqrt(sum(x ** 2 for x in g)) * K * n / (lh * sympy.sqrt(sum(x ** 2 for x in H))))
    # 17 of the 25 points are inside beta > nKM (the q = 1/2 ones are not); the approached point is among them:
    # |grad L| Kn / (lH |H|) = 1 + O(1/(lW lH)) there (measured 1 - 9.4e-5), so the bound is nearly attained
    assert admitted >= 17 and near is not None and abs(near - 1) < 1e-3, (admitted, near)


@pytest.mark.slow
@pytest.mark.claim("N-B-distance")
def test_appB_distance_bound_adversarial(verdict):
    """Nelder-Mead maximisation of ||H_{1/beta} - H0|| / bound over (H0, lW, lH), d=2, K=2, n=2, beta = 1.05 nKM."""
    search = adversarial_max(_bdist_ratio, get_objective("N-B-distance").sampler,
                             n_starts=4, seed=SEED, maxiter=150)
    assert search.best <= 1.0
    verdict.verified(method="num: adversarial maximisation of the ratio (reduced solver, L-BFGS)",
                     evidence=search.evidence("worst_ratio"))


@pytest.mark.claim("N-B-limit")
def test_appB_limit_and_order(verdict):
    """beta (H_{1/beta} - H0) -> -Kn grad L(H0): the error at beta = 10^2..10^6 (40-digit roots of (8)) falls like
    beta^{-1} (fitted order asserted), on three (lW, lH) instances (moderate; small lW with lH = 0 and n = 1;
    c = sqrt(lW lH) > 1). The target -Kn grad L(H0) is the envelope-theorem gradient of the *definition* of L at
    40 digits (not the eq. (7) code that the root solver uses), so a wrong gradient shows as a non-vanishing error."""
    rng = np.random.default_rng(SEED + 8)
    rows = []
    for (d, K, n, lw, lh) in [(2, 2, 2, 0.4, 0.2), (2, 3, 1, 0.02, 0.0), (3, 2, 2, 5.0, 2.0)]:
        H0 = rng.standard_normal((d, K * n)) + 1.0
        betas = [10.0**k for k in range(2, 7)]
        errs = []
        with mpmath.workdps(40):
            H0m = ufm.as_mp(H0)
            c = constants("N-B-limit", K=K, n=n)["c"]  # the Kn of -Kn grad L(H0), from the statement object
            target = _grad_envelope_mp(H0m, K, mpmath.mpf(lw), mpmath.mpf(lh)) * (-mpmath.mpf(c.p) / c.q)
            tnorm = mpmath.sqrt(sum(e * e for e in target.ravel()))
            for b in betas:
                Hb = ufm.solve_perturbed(H0, b, lw, lh, K, dps=40)
                E = (Hb - H0m) * b - target
                errs.append(float(mpmath.sqrt(sum(e * e for e in E.ravel())) / tnorm))
        slope = float(np.polyfit(np.log(betas), np.log(errs), 1)[0])
        # O(1/beta) from the Taylor expansion of (8); 0.05 allows the fit's curvature from the O(1/beta^2) term;
        # relative error at beta = 1e6 below 1e-3 (it is C/beta with C = O(1) here)
        assert errs == sorted(errs, reverse=True) and abs(slope + 1) < 0.05 and errs[-1] < 1e-3, (d, K, n, errs)
        rows.append({"d": d, "K": K, "n": n, "lam_W": lw, "lam_H": lh, "betas": betas, "rel_errors": errs,
                     "fitted_order": -slope})
    # the statement object at exact points: its limit (the implicit function theorem on (2)'s first-order system,
    # exact) against the limit the check measures itself - Richardson's 2 q(2 beta) - q(beta) of q(beta) =
    # <V, beta (H_{1/beta} - H0)> from 40-digit roots of (2) for the exact inputs, error O(1/beta^2) - and the
    # object's relation decided exactly there (a scaled Kn, or '<', '>', fails)
    Fr = Fraction
    for H0, V, lw, lh in (([[Fr(3, 2), Fr(-1, 3)], [Fr(1, 4), Fr(2)]], [[1, Fr(-1, 2)], [Fr(2, 3), Fr(5, 4)]],
                           Fr(2, 5), Fr(1, 5)),
                          ([[Fr(7, 4), Fr(1, 2)], [Fr(-2, 3), Fr(1, 5)]], [[Fr(-3, 2), 1], [Fr(1, 3), Fr(2)]],
                           Fr(1, 20), Fr(0))):
        H0e = np.array(H0, dtype=object)
        q = []
        with mpmath.workdps(40):
            for b in (10 ** 5, 2 * 10 ** 5):
                Hb = ufm.solve_perturbed(H0e, Fr(b), lw, lh, 2, dps=40)
                q.append(sum(mpmath.mpf(v.numerator) / v.denominator * (x - mpmath.mpf(h.numerator) / h.denominator) * b
                             for v, x, h in zip(np.array(V, dtype=object).ravel(), Hb.ravel(), H0e.ravel())))
            measured = 2 * q[1] - q[0]
        env = {"d": 2, "K": 2, "n": 1, "H": sympy.Matrix(H0), "V": sympy.Matrix(V),
               "lambda_W": sympy.Rational(lw), "lambda_H": sympy.Rational(lh)}
        lhs, rhs = sides("N-B-limit", env)
        assert abs(float(lhs) - float(measured)) < 1e-8 * max(1.0, abs(float(lhs))), (float(lhs), float(measured))
        assert holds("N-B-limit", env) is True, (lhs, rhs)
    verdict.verified(method="hp: 40-digit Newton roots of (8) vs the definition's gradient at 40 digits, log-log fit",
                     evidence={"instances": rows, "seed": SEED + 8})


def _grad_envelope_mp(H, K, lw, lh):
    """:func:`_grad_envelope` in mpmath (object arrays of mpf): W* = Y H^T (H H^T + n lW I)^{-1}."""
    d, n = H.shape[0], H.shape[1] // K
    Y = np.kron(np.eye(K, dtype=int), np.ones((1, n), dtype=int)).astype(object)
    M = mpmath.matrix((H @ H.T).tolist()) + n * lw * mpmath.eye(d)
    W = (Y @ H.T) @ np.array(mpmath.inverse(M).tolist(), dtype=object)
    return (W.T @ (W @ H - Y) + H * lh) / (K * n)


def _nc1_tilde_definition(H, K):
    """NC1~ = Tr Sigma_W / Tr Sigma_B (eq. 3), transcribed here from the sums of §4 (independent of the package)."""
    n = H.shape[1] // K
    means = H.reshape(H.shape[0], K, n).mean(axis=2)
    tw = np.sum((H - np.repeat(means, n, axis=1)) ** 2) / (K * n)
    return tw / (np.sum((means - means.mean(axis=1, keepdims=True)) ** 2) / K)


def _cor42_runs(cases, grid):
    rows, worst_lim, worst_def = [], 0.0, 0.0
    for label, H0, K, lw, lh in cases:
        assert _nc1_tilde_definition(H0, K) > 0    # hypotheses: Sigma_W(H0) != 0 and Sigma_B(H0) != 0 (finite)
        nc0 = _nc1_tilde_definition(H0, K)
        ok, sols = [], {}
        for b in grid:
            # small beta: (2) need not be convex, so a second (random) start; from beta = 1e3 the penalty dominates
            H = sols[b] = ufm.solve_perturbed(H0, b, lw, lh, K, starts=2 if b < 100 else 1, seed=SEED)
            val = ufm.nc1_tilde(H, K)
            worst_def = max(worst_def, abs(val - _nc1_tilde_definition(H, K)) / val)
            assert abs(val - _nc1_tilde_definition(H, K)) <= 1e-12 * val  # two float sums of squares: round-off
            ok.append(bool(val < nc0))
        # C(H0): the first grid point after the last failure; "for beta > C" needs at least the three largest
        # grid values to satisfy the inequality
        first = max([i + 1 for i, v in enumerate(ok) if not v], default=0)
        assert first <= len(grid) - 3, (label, ok)
        # App. B's chain: beta (NC1~(H_{1/beta}) - NC1~(H0)) -> d/dt NC1~(H_t)|_0 = NC1~ (T_W'/T_W - T_B'/T_B) < 0,
        # with the closed forms of Thm 4.1 (exact-checked under N-thm4.1-dT); relative error must fall like 1/beta
        dd = flow.trace_derivatives(H0, lw, lh, K)
        c0 = ufm.covariances(H0, K)
        slope = nc0 * (dd["dT_W"] / np.trace(c0["Sigma_W"]) - dd["dT_B"] / np.trace(c0["Sigma_B"]))
        assert slope < 0
        errs = [abs(b * (_nc1_tilde_definition(sols[b], K) - nc0) / slope - 1) for b in (1e4, 1e5)]
        # first order in 1/beta: the relative error at beta = 1e5 is below 1e-4 (measured <= 2e-5) and drops by the
        # factor 10 of beta, within 30%. Not at 1e6: there the float difference of the two NC1~ values carries
        # ~eps / (beta^-1 Tr Sigma_B-relative change), ~1e-7 for the means-1e-3-apart start, which blurs the ratio
        assert errs[1] < 1e-4 and 7 < errs[0] / max(errs[1], 1e-300) < 13, (label, errs)
        worst_lim = max(worst_lim, errs[1])
        rows.append({"case": label, "d": H0.shape[0], "K": K, "n": H0.shape[1] // K, "lam_W": lw, "lam_H": lh,
                     "C_grid": grid[first], "dNC1_dt_at_0": slope, "limit_rel_err_beta_1e4_1e5": errs})
    return {"cases": rows, "grid": grid, "max_limit_rel_err_at_beta_1e5": worst_lim,
            "max_rel_err_NC1tilde_vs_definition": worst_def, "seed": SEED + 6}


@pytest.mark.claim("N-cor4.2", corrected=True)
def test_cor42_nondegenerate(verdict):
    """Corrected statement (Sigma_W(H0) != 0, Sigma_B(H0) != 0) over its generality: the structured starts of
    Thm 4.1 (rank-1 Sigma_B, class means 1e-3 apart, d > Kn, d < K, lW = 1e-4, lW = 30 with c > 1) and two
    seeded App. B cases. NC1~(H_{1/beta}) < NC1~(H0) for every beta >= C on a grid up to 1e6 (C reported), and
    the proof's limit beta (NC1~(H_{1/beta}) - NC1~(H0)) -> d/dt NC1~(H_t)|_0 < 0 holds at first order."""
    cases = [(c[0], *c[1:5]) for c in _structured_flow_cases()]
    cases += [(f"seeded {i}", *c) for i, c in enumerate(_b_cases()[:2])]
    ev = _cor42_runs(cases, [0.5, 10, 1e4, 1e5, 1e6])
    verdict.verified(method="num: minimiser of (2) on a beta grid + first-order limit against the closed-form "
                            "d NC1~/dt", evidence=ev)


@pytest.mark.slow
@pytest.mark.claim("N-cor4.2", corrected=True)
def test_cor42_nondegenerate_sweep(verdict):
    """The same on all six seeded App. B cases with a finer beta grid."""
    cases = [(f"seeded {i}", *c) for i, c in enumerate(_b_cases())]
    ev = _cor42_runs(cases, [0.5, 2, 10, 100, 1e4, 1e5, 1e6])
    verdict.verified(method="num: minimiser of (2) on a beta grid + first-order limit", evidence=ev)


@pytest.mark.claim("N-cor4.2")
def test_cor42_counterexample_equal_class_means(verdict):
    """Cor. 4.2 assumes only Sigma_W(H0) != 0. With equal class means, Sigma_B(H0) = 0 and the minimiser of (2)
    keeps the class means equal (any beta where it is unique, checked with 4 starts), so both sides are x/0."""
    H0, K, lw, lh = _degenerate_H0(), 2, 0.5, 0.1
    rows = []
    for b in (10.0, 100.0, 1000.0):
        Hs = [ufm.solve_perturbed(H0, b, lw, lh, K, starts=4, seed=SEED + j) for j in range(2)]
        assert np.abs(Hs[0] - Hs[1]).max() < 1e-9  # same minimiser from different seeds
        c = ufm.covariances(Hs[0], K)
        rows.append({"beta": b, "Tr_Sigma_B": float(np.trace(c["Sigma_B"])), "Tr_Sigma_W": float(np.trace(c["Sigma_W"]))})
        assert rows[-1]["Tr_Sigma_B"] < 1e-25 and rows[-1]["Tr_Sigma_W"] > 0  # 1e-25: squared float round-off, as above
    verdict.refuted(counterexample={"H0": H0.tolist(), "K": 2, "lam_W": lw, "lam_H": lh, "minimisers": rows,
                                    "NC1tilde(H0)": "Tr Sigma_W / 0"},
                    severity="degenerate",
                    justification={"quantity": "NC1~(H0) = Tr Sigma_W(H0) / Tr Sigma_B(H0) = x/0 and likewise "
                                               "NC1~(H_{1/beta}): both sides of the inequality are undefined",
                                   "repair": "test_cor42_nondegenerate (corrected=True)"},
                    corrected="NC1~(H_{1/beta}) < NC1~(H0) for beta > C(H0) if moreover Sigma_B(H0) != 0",
                    method="num", evidence={"betas": [10, 100, 1000]})


# --------------------------------------------------------------------------- §6 / App. E.2: metrics
@pytest.mark.claim("N-metrics")
def test_metrics_exact_identities(verdict):
    """NC1 = (1/K) sum_k NC1^(k) exactly (sympy pinv) on rational instances; the float implementation agrees
    with the exact values; NC2 = 0 and NC3 = 0 on an exact simplex ETF with aligned W."""
    worst = 0.0
    for label, H, K, lw, lh in INSTANCES:
        n = H.cols // K
        inst = cp.instance(H, K, lw, lh)
        SBp = inst["SB"].pinv()
        per = []
        for k in range(K):
            Hk = H[:, k * n:(k + 1) * n] - inst["Hbar"][:, k] * sympy.ones(1, n)
            per.append((Hk * Hk.T / n * SBp).trace() / K)
        nc1 = (inst["SW"] * SBp).trace() / K
        assert exact_zero(nc1 - sum(per) / K), label
        assert holds("N-metrics", _statement_env(H, K), NC_1=nc1, sum_NC_1k=sum(per)) is True, label  # its 1/K
        m = nc_metrics(np.array(H.tolist(), dtype=float), K=K)
        tr_b = inst["SB"].trace()
        exact_vals = [nc1, inst["SW"].trace() / tr_b if tr_b != 0 else None] + per
        got = [m.nc1, m.nc1_tilde] + list(m.nc1_per_class)
        for e, g in zip(exact_vals, got):
            if e is not None:
                worst = max(worst, abs(float(e) - g) / max(1.0, abs(float(e))))
    assert worst < 1e-10  # float64 SVD/eigh round-off on O(1) rational data
    # the package's NC2/NC3 on collapsed features whose means form a simplex ETF (rotated by a random orthonormal
    # R, shifted by a global mean) with W aligned to the centred means: NC1 = NC2 = NC3 = 0 up to round-off; and
    # the same metrics are clearly nonzero for random class means (so the zeros are not vacuous)
    rng = np.random.default_rng(SEED + 9)
    etf_worst, generic_min = 0.0, np.inf
    for K in range(2, 7):
        d, n = K + 2, 3
        R = np.linalg.qr(rng.standard_normal((d, K)))[0]
        means = R @ (np.eye(K) - np.ones((K, K)) / K) + rng.standard_normal((d, 1))
        H = np.kron(means, np.ones((1, n)))
        m = nc_metrics(H, K=K, W=(means - means.mean(axis=1, keepdims=True)).T)
        etf_worst = max(etf_worst, m.nc1, m.nc2, m.nc3)
        if K >= 3:  # K = 2: any two distinct means are an ETF, so NC2 = 0 is correct there
            Hg = np.kron(rng.standard_normal((d, K)), np.ones((1, n)))
            mg = nc_metrics(Hg, K=K, W=rng.standard_normal((K, d)))
            generic_min = min(generic_min, mg.nc2, mg.nc3)
    assert etf_worst < 1e-12 and generic_min > 1e-3  # 1e-12: float64 round-off of O(1) unit-norm Gram matrices
    verdict.verified(method="sym: exact pinv identity; num: float implementation vs exact values; NC2/NC3 on ETFs",
                     evidence={"instances": _sizes(), "max_rel_err_float_vs_exact": worst,
                               "etf_max_nc1_nc2_nc3": etf_worst, "random_means_min_nc2_nc3": generic_min,
                               "seed": SEED, "etf_seed": SEED + 9})


def _nc_exact(H, K, W=None):
    """The paper's definitions (§4, §6, App. E.2) transcribed independently of :mod:`verify.numeric.nc_metrics`,
    in exact rationals (sympy ``pinv`` of the exact Sigma_B), square roots kept as radicals and evaluated at 30
    digits only at the end: NC1, NC1~, NC1^(k), NC2 and (with ``W``) NC3."""
    d, n = H.rows, H.cols // K
    cols = [[H[:, k * n + i] for i in range(n)] for k in range(K)]
    hbar = [sum(c, sympy.zeros(d, 1)) / n for c in cols]
    hG = sum(hbar, sympy.zeros(d, 1)) / K
    Sk = [sum(((h - hbar[k]) * (h - hbar[k]).T for h in cols[k]), sympy.zeros(d, d)) / n for k in range(K)]
    SW = sum(Sk, sympy.zeros(d, d)) / K                       # (1/Kn) sum_{k,i}: balanced classes
    Hbb = sympy.Matrix.hstack(*[m - hG for m in hbar])
    SB = Hbb * Hbb.T / K
    SBp = SB.pinv()
    P = (sympy.eye(K) - sympy.ones(K, K) / K) / sympy.sqrt(K - 1)

    def etf_dist(G):
        nG = sympy.sqrt(sum(g**2 for g in G))
        return sympy.sqrt(sum((G[i, j] / nG - P[i, j]) ** 2 for i in range(K) for j in range(K)))

    out = {"NC1": (SW * SBp).trace() / K, "NC1_tilde": SW.trace() / SB.trace(),
           "NC1_per_class": [(S * SBp).trace() / K for S in Sk], "NC2": etf_dist(Hbb.T * Hbb),
           "rank_SB": SB.rank(), "rank_SW": SW.rank()}
    if W is not None:
        out["NC3"] = etf_dist(W * Hbb)
    # eigenvalue spread of Sigma_B (largest / smallest nonzero), to record the conditioning the check reached
    with mpmath.workdps(60):   # exact rationals -> 60 digits: the spread reaches 1e14, far inside 60 digits
        ev = [abs(v) for v in mpmath.eigsy(mpmath.matrix([[mpmath.mpf(x.p) / x.q for x in row]
                                                          for row in SB.tolist()]))[0]]
        nz = [v for v in ev if v > mpmath.mpf(10) ** -40 * max(ev)]   # exact zeros come out ~1e-60
        out["cond_SB"] = float(max(nz) / min(nz))
    return out


def _metric_instances():
    """Rational features covering what the paper's use produces: generic; d > Kn (singular Sigma_W); d < K;
    two classes almost merged (Sigma_B's smallest nonzero eigenvalue down to ~1e-14 of its largest, as for
    features whose class means are close, e.g. shallow layers or near the equal-means set of Thm 4.1);
    collinear means (rank-1 Sigma_B, K = 3); means close to a simplex ETF (small NC2, NC3)."""
    rng = np.random.default_rng(SEED + 11)
    out = []
    for label, d, K, n in [("generic", 4, 3, 3), ("d>Kn: singular Sigma_W", 7, 2, 2), ("d<K", 2, 4, 2)]:
        out.append((label, random_rational_matrix(rng, d, K * n), K, random_rational_matrix(rng, K, d)))
    d, K, n = 4, 3, 3
    base, spread = random_rational_matrix(rng, d, K), random_rational_matrix(rng, d, K * n) / 5
    for k in range(K):   # zero class means of the spread, so that it leaves the class means (and Sigma_B) alone
        spread[:, k * n:(k + 1) * n] -= spread[:, k * n:(k + 1) * n] * sympy.ones(n, n) / n
    v = random_rational_matrix(rng, d, 1)
    for k in (1, 2, 4, 7, 9):
        eps = sympy.Rational(1, 10**k)
        means = sympy.Matrix.hstack(base[:, 0], base[:, 1], base[:, 1] + eps * v)
        H = sympy.Matrix.hstack(*[means[:, c] * sympy.ones(1, n) for c in range(K)]) + spread * eps
        out.append((f"near-merged classes, eps=1e-{k}", H, K, random_rational_matrix(rng, K, d)))
    means = sympy.Matrix.hstack(base[:, 0], base[:, 0] + v, base[:, 0] + 3 * v)     # collinear: rank Sigma_B = 1
    out.append(("collinear means (rank-1 Sigma_B)", sympy.Matrix.hstack(
        *[means[:, c] * sympy.ones(1, n) for c in range(K)]) + spread, K, random_rational_matrix(rng, K, d)))
    R = sympy.Matrix([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]])                  # exact ETF frame + 1e-3 noise
    etf = R * (sympy.eye(3) - sympy.ones(3, 3) / 3)
    means = etf + random_rational_matrix(rng, d, K) / 1000
    H = sympy.Matrix.hstack(*[means[:, c] * sympy.ones(1, n) for c in range(K)]) + spread / 100
    out.append(("near-ETF means, W near aligned", H, K, etf.T + random_rational_matrix(rng, K, d) / 1000))
    return out


@pytest.mark.claim("N-metrics")
def test_metrics_against_independent_exact_definitions(verdict):
    """Every metric of the float implementation against the paper's definitions transcribed independently
    (exact rationals, exact pseudo-inverse, radicals at 30 digits), two-sided, on instances whose Sigma_B has
    condition number up to ~1e14 (near-merged classes: a pinv cutoff above machine precision drops a direction
    that the exact pseudo-inverse keeps), singular Sigma_W (d > Kn), d < K, rank-deficient Sigma_B and
    near-ETF means (NC2, NC3 ~ 1e-3, where a wrong matrix norm or ETF normalisation shows)."""
    rows, worst = [], 0.0
    for label, H, K, W in _metric_instances():
        ex = _nc_exact(H, K, W)
        m = nc_metrics(np.array(H.tolist(), dtype=float), K=K, W=np.array(W.tolist(), dtype=float))
        pairs = [("NC1", ex["NC1"], m.nc1), ("NC1_tilde", ex["NC1_tilde"], m.nc1_tilde), ("NC2", ex["NC2"], m.nc2),
                 ("NC3", ex["NC3"], m.nc3)] + [(f"NC1^({k})", e, g) for k, (e, g) in
                                                enumerate(zip(ex["NC1_per_class"], m.nc1_per_class))]
        errs = {}
        for name, e, g in pairs:
            e = float(sympy.N(e, 30))
            errs[name] = abs(g - e) / abs(e) if e != 0 else abs(g)
        # float64 input rounding (1e-16 relative) is amplified by Sigma_B's conditioning: the smallest class-mean
        # singular value s_min gets ~eps_mach s_max / s_min relative error, doubled in NC1 ~ 1/s_min^2; 1e-5 covers
        # s_min / s_max = 1e-9 (cond 1e18: ~4e-7) with an order of slack, and is far below the O(1) change that a
        # wrong cutoff (1e-6 or sqrt(eps) relative), norm or normalisation makes
        e_max = max(errs.values())
        assert e_max < 1e-5, (label, errs)
        worst = max(worst, e_max)
        rows.append({"instance": label, "d": H.rows, "K": K, "n": H.cols // K, "rank_Sigma_B": ex["rank_SB"],
                     "rank_Sigma_W": ex["rank_SW"], "cond_Sigma_B": float(ex["cond_SB"]),
                     "NC1": float(sympy.N(ex["NC1"], 15)), "NC2": float(sympy.N(ex["NC2"], 15)),
                     "NC3": float(sympy.N(ex["NC3"], 15)), "max_rel_err": e_max})
    assert max(r["cond_Sigma_B"] for r in rows) > 1e17 and any(r["rank_Sigma_W"] < r["d"] for r in rows)
    verdict.verified(method="sym: paper's definitions in exact rationals (exact pinv, radicals) vs float "
                            "nc_metrics, ill-conditioned and rank-deficient covariances included",
                     evidence={"instances": rows, "max_rel_err": worst, "seed": SEED + 11})


SEED_2 = 1860


@pytest.mark.claim("N-L-closed")
def test_exported_central_path_loss_keeps_sizes_symbolic_and_equals_the_definition(verdict):
    r"""``verify latex`` exports App. A's closed form of :math:`\mathcal L(H)` (formula N-L) with the sizes d, K, n
    kept symbolic (``build()`` with no sizes). The exported right side, at an exact H (d = 3, K = 2, n = 2, entries
    random rationals times 7/5) and :math:`\lambda_W, \lambda_H = 1/3, 2/7`, equals :math:`\mathcal L(H)` from its
    definition, objective (1) at :math:`(W^*(H), H)` (``central_path_loss_direct``, FLINT rationals), exactly."""
    from verify.engine import random_rational_matrix
    from verify.latex import get_formula
    from verify.numeric import ufm
    from verify.symbolic import central_path as cp

    ns = cp.build()
    assert all(isinstance(s, sympy.Symbol) and s.is_integer and s.is_positive for s in (ns.d, ns.K, ns.n))
    rhs = get_formula("N-L").expr().rhs
    assert {ns.d, ns.K} <= rhs.free_symbols
    d, K, n = 3, 2, 2
    H = sympy.Rational(7, 5) * random_rational_matrix(np.random.default_rng(SEED_2 + 2), d, K * n)
    lw, lh = Fraction(1, 3), Fraction(2, 7)
    got = cp.evaluate(rhs, ns, cp.instance(H, K, sympy.Rational(1, 3), sympy.Rational(2, 7)),
                      extra={ns.d: d, ns.K: K, ns.n: n})
    Hf = np.array([[Fraction(int(x.p), int(x.q)) for x in row] for row in H.tolist()], dtype=object)
    want = ufm.central_path_loss_direct(Hf, lw, lh, K)
    assert got == sympy.Rational(int(want.numerator), int(want.denominator))
    verdict.verified(method="exported N-L (symbolic d, K, n) == objective (1) at W*(H), exact",
                     evidence={"L": str(got)})


@pytest.mark.claim("N-eq8")
def test_perturbed_minimiser_restarts_from_the_seeded_perturbations_it_documents(verdict, monkeypatch):
    r"""``solve_perturbed(starts=3, seed=s)`` minimises (2) from :math:`H_0` and from the two seeded perturbations
    :math:`H_0 + \sigma z_i` it documents (:math:`\sigma` the RMS entry of :math:`H_0`, :math:`z_i` the successive
    ``default_rng(s).standard_normal`` draws), so a seed reproduces the same restarts; the result has the lowest
    value of (2) over the three L-BFGS runs (each evaluated again by ``perturbed_objective``) and solves (8).
    Here :math:`H_0` has scale 1.7, d = 3, K = 2, n = 2, :math:`\beta = 0.9` (small: restarts can matter)."""
    from verify.numeric import ufm

    H0 = 1.7 * np.random.default_rng(SEED_2 + 3).standard_normal((3, 4))
    beta, lw, lh, K = 0.9, 0.5, 0.1, 2
    starts, runs = [], []
    real = ufm.minimize

    def recording(fun, x0, **kw):
        starts.append(np.array(x0, copy=True))
        res = real(fun, x0, **kw)
        runs.append(res.x.copy())
        return res

    monkeypatch.setattr(ufm, "minimize", recording)
    H = ufm.solve_perturbed(H0, beta, lw, lh, K, starts=3, seed=SEED_2)
    rng, sigma = np.random.default_rng(SEED_2), np.linalg.norm(H0) / np.sqrt(H0.size)
    want = [H0.ravel()] + [H0.ravel() + sigma * rng.standard_normal(H0.size) for _ in range(2)]
    assert len(starts) == 3 and all(np.array_equal(a, b) for a, b in zip(starts, want))   # the same float ops
    vals = [ufm.perturbed_objective(x.reshape(H0.shape), H0, beta, lw, lh, K) for x in runs]
    # the polish may only lower (2): float64 evaluation noise of an O(1) objective, 1e-12 relative
    assert ufm.perturbed_objective(H, H0, beta, lw, lh, K) <= min(vals) * (1 + 1e-12)
    assert np.abs(ufm.stationarity_residual(H, H0, beta, lw, lh, K)).max() < 1e-10   # root polish to tol 1e-15
    verdict.verified(method="solve_perturbed's restarts are H0 and H0 + sigma z_i (seeded); best of (2), solves (8)",
                     evidence={"values": [float(v) for v in vals], "seed": SEED_2})


SEED_3 = 1907


@pytest.mark.claim("N-minimisers-R")
def test_float_gradient_is_float64_and_equals_the_exact_gradient(verdict):
    r"""The float route of the gradient (7) returns a float64 array (the arithmetic a caller chose), equal to the
    exact rational route at the same dyadic point to float rounding (d = 3, K = 2, n = 2, non-unit lambdas)."""
    from verify.numeric import ufm

    rng = np.random.default_rng(SEED_3)
    Hq = rng.integers(-5, 6, size=(3, 4)) / 4                 # dyadic: exactly representable in both arithmetics
    g = ufm.grad_central_path_loss(Hq, 0.375, 1.25, 2)
    ge = ufm.grad_central_path_loss(np.array([[Fraction(v) for v in row] for row in Hq], dtype=object),
                                    Fraction(3, 8), Fraction(5, 4), 2)
    assert isinstance(g, np.ndarray) and g.dtype == np.float64 and g.shape == (3, 4)
    exact = np.array([[float(Fraction(int(v.p), int(v.q))) if hasattr(v, "q") else float(v) for v in row]
                      for row in ge])
    assert np.allclose(g, exact, rtol=1e-12, atol=1e-15)      # one Cholesky solve of a 3 x 3 system in float64
    verdict.verified(method="float gradient dtype float64; equal to the exact gradient",
                     evidence={"max_abs": float(np.abs(exact).max())})


SEED_4 = 1830


@pytest.mark.claim("N-thm2.2")
def test_ufm_solver_runs_lbfgsb_with_its_options(verdict):
    r"""``solve_ufm`` is L-BFGS with its own stopping rules (``ftol = 0``, 30 memory pairs, ``gtol`` 1e-13): an
    optimiser that does not understand them ignores them with an ``OptimizeWarning``, so the solve must run without
    any warning; and it reaches Thm 2.2's closed-form minimum (collapsed minimiser) to 1e-12, at c < 1 and c > 1."""
    from scipy.optimize import OptimizeWarning

    from verify.numeric import ufm

    rows = []
    for d, K, n, lw, lh in ((3, 3, 2, 0.5, 0.8), (4, 3, 2, 2.0, 0.7)):
        R = np.linalg.qr(np.random.default_rng(SEED_4).standard_normal((d, K)))[0]
        closed = float(ufm.ufm_objective(*ufm.collapsed_minimiser(R, lw, lh, n), lw, lh, K))
        with warnings.catch_warnings():
            warnings.simplefilter("error", OptimizeWarning)
            res = ufm.solve_ufm(d, K, n, lw, lh, starts=2, seed=SEED_4)
        # no start below the closed form, the best at it: L-BFGS's final float noise, 1e-12 relative
        assert all(v >= closed - 1e-12 * max(1.0, abs(closed)) for v in res["values"])
        assert res["value"] == pytest.approx(closed, rel=1e-12, abs=1e-12)
        rows.append({"d": d, "K": K, "n": n, "lam_W": lw, "lam_H": lh, "closed": closed})
    verdict.verified(method="num: solve_ufm without optimiser warnings vs the closed-form minimum",
                     evidence={"cases": rows, "seed": SEED_4})


# --------------------------------------------------------------------------- fixed bug: solve_perturbed(dps)
@pytest.mark.claim("N-eq8")
def test_high_precision_minimiser_keeps_exact_inputs_exact(verdict):
    r"""``solve_perturbed(..., dps=D)`` refines the root of (8), :math:`H - H_0 + \frac{Kn}\beta\nabla\mathcal L(H) =
    0`, at D digits. With exact rational inputs (H0 entries and :math:`\lambda_H = 1/10` not dyadic, so float64 would
    round them) the root must be that of the exact inputs: its residual of (8) evaluated at 70 digits with the
    exact inputs is below :math:`10^{6-D}` relative for D = 15, 30, 50 (findroot stops near :math:`2^{10}` ulps), the
    three agree to the precision of each, and the dps-50 root of the float64-rounded inputs differs from it by more
    than 1e-16 (the rounding of H0 entries of size 30 is ~4e-15, moved through an O(1) Jacobian) and less than 1e-12."""
    from verify.numeric import ufm

    Fr = Fraction
    H0 = np.array([[Fr(100, 3), Fr(-200, 7)], [Fr(50, 9), Fr(100, 11)]], dtype=object)   # d = 2, K = 2, n = 1
    beta, lw, lh, K = Fr(20), Fr(1, 2), Fr(1, 10), 2
    sols = {dps: ufm.solve_perturbed(H0, beta, lw, lh, K, dps=dps) for dps in (15, 30, 50)}
    rounded = ufm.solve_perturbed(np.array(H0, dtype=float), float(beta), float(lw), float(lh), K, dps=50)
    with mpmath.workdps(70):
        H0m = ufm.as_mp(H0)
        scale = max(abs(v) for v in H0m.ravel())
        exact = [mpmath.mpf(x.numerator) / x.denominator for x in (beta, lw, lh)]

        def resid(H):
            return max(abs(v) for v in ufm.stationarity_residual(H, H0m, *exact, K).ravel()) / scale

        def dist(X, Y):
            return max(abs(x - y) for x, y in zip(X.ravel(), Y.ravel()))

        res = {dps: resid(H) for dps, H in sols.items()}
        for dps, r_ in res.items():
            assert r_ < mpmath.mpf(10) ** (6 - dps), (dps, r_)
        assert dist(sols[30], sols[50]) < mpmath.mpf(10) ** -25 * scale
        assert dist(sols[15], sols[50]) < mpmath.mpf(10) ** -10 * scale
        gap = dist(rounded, sols[50])
        assert mpmath.mpf(10) ** -16 < gap < mpmath.mpf(10) ** -12, gap
        assert resid(rounded) > mpmath.mpf(10) ** -20           # the rounded inputs' root is not the exact one's
    # the residuals themselves stay out of the evidence (they depend on the float start's last bits); the bounds do not
    verdict.verified(method="hp: 15/30/50-digit roots of (8) for exact inputs, residual at 70 digits; vs the "
                            "float64-rounded inputs' root",
                     evidence={"dps": [15, 30, 50], "residual_bound": "1e-(dps-6)",
                               "gap_to_rounded_inputs": "in (1e-16, 1e-12)"})
