"""Paper N, §2-§4 and App. A-B: UFM minimisers, the central path, its gradient flow, NC metrics.

Exact checks evaluate the sympy expressions of :mod:`verify.symbolic.central_path` at random
rational instances whose covariances are built from the definitions; numeric checks use
:mod:`verify.numeric.ufm` / :mod:`verify.numeric.central_path` (float64, and mpmath where float64
cannot settle the question).
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy
from scipy.optimize import minimize
from sympy.polys.matrices import DomainMatrix

from verify.engine import adversarial_max, exact_zero, random_rational_matrix
from verify.numeric import central_path as flow
from verify.numeric import ufm
from verify.numeric.nc_metrics import nc_metrics
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
    rng = np.random.default_rng(SEED)
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
        rows.append({"d": d, "K": K, "lam_W": lw, "lam_H": lh, "value": float(target), "best_lbfgs": best})
    assert worst_grad < 1e-13  # float64 evaluation of an exactly-zero gradient
    verdict.verified(method="hp: 50-digit values for 8 R per case + float stationarity + L-BFGS comparison",
                     evidence={"cases": rows, "max_value_spread_over_R": worst_spread,
                               "max_abs_gradient": worst_grad, "seed": SEED})


def _cor31_runs(cases, betas, starts):
    rows, worst, other_stationary, tol = [], 0.0, 0, 0.0
    for i, (d, K, n, lw, lh) in enumerate(cases):
        R = np.linalg.qr(np.random.default_rng(SEED + 30 + i).standard_normal((d, K)))[0]
        Ws, Hs = ufm.collapsed_minimiser(R, lw, lh, n)
        xs = np.concatenate([Ws.ravel(), Hs.ravel()])
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
                         "min_gap_to_f*": gap})
    assert worst < tol
    return rows, worst, other_stationary, tol


@pytest.mark.claim("N-cor3.1")
def test_cor31_collapsed_input_is_kept(verdict):
    """H0 = H*: no start of a joint L-BFGS on (2) goes below f(W*, H*; H*), every start reaching that value sits
    at (W*, H*) (uniqueness), and the reduced solver returns H*."""
    rows, worst, other, tol = _cor31_runs(UFM_CASES[:2], (0.1, 10.0), starts=3)
    verdict.verified(method="num: joint L-BFGS on (2) from random starts + reduced solver",
                     evidence={"runs": rows, "max_abs_deviation_from_(W*,H*)": worst, "allowed_from_curvature": tol,
                               "starts_ending_at_other_stationary_points": other, "seed": SEED})


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
    for label, H, K, lw, lh in INSTANCES:
        ns, inst = cp.build(H.rows, K, H.cols // K), cp.instance(H, K, lw, lh)
        forms = [cp.evaluate(f, ns, inst) for f in cp.wstar_forms(ns)]
        assert all(exact_zero(F - forms[0]) for F in forms[1:]), label
        # and it is the minimiser in W: the gradient of (1) in W vanishes there
        W = forms[0]
        gW = (W * H - inst["Y"]) * H.T / (K * inst["n"]) + lw * W / K
        assert exact_zero(gW), label
    verdict.verified(method="sym: exact rationals, both forms and dF/dW = 0",
                     evidence={"instances": _sizes(), "seed": SEED})


@pytest.mark.claim("N-decomp")
def test_decomposition_exact(verdict):
    for label, H, K, lw, lh in INSTANCES:
        ns, inst = cp.build(H.rows, K, H.cols // K), cp.instance(H, K, lw, lh)
        lhs, rhs = cp.decomposition(ns)
        assert exact_zero(cp.evaluate(lhs - rhs, ns, inst)), label
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
                assert exact_zero(_definition_loss_derivative(H, K, lw, lh, i, j) - G[i, j]), (d, K, n, i, j)
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
    for label, H, K, lw, lh in INSTANCES:
        ns, inst, der = _flow_derivatives(H, K, lw, lh)
        lem = cp.lemma_a1(ns)
        for key in ("SB", "SW", "ST"):
            assert exact_zero(der[key] - cp.evaluate(lem[key], ns, inst)), (label, key)
    verdict.verified(method="sym: exact rationals, derivative of the definitions along V = -Kn grad L (eq. 7)",
                     evidence={"instances": _sizes(), "seed": SEED})


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
            top = cp.evaluate(ch["dT_B"][-1], ns, inst, {ns.t: t})
            assert sympy.N(top - low, 30) >= 0, label
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


def _run_flow(H0, K, lw, lh, t_end=5.0, points=120):
    sol = flow.solve_flow(H0, lw, lh, K, t_end, rtol=1e-11, atol=1e-14)
    ts = np.linspace(0, t_end, points)
    tr = flow.flow_traces(sol, ts, lh, K)
    ders = [flow.trace_derivatives(sol.sol(t).reshape(sol.shape), lw, lh, K) for t in ts]
    return tr, ders


@pytest.mark.claim("N-thm4.1-W")
def test_thm41_TW_decreases(verdict):
    """10 seeded flows (lH = 0 in 4, lW down to 1e-3, large global means, d < K allowed): e^{2 lH t} Tr Sigma_W
    never increases on a 120-point grid (beyond 1e-9 relative integration error) and its closed-form
    derivative is <= 0 at every grid point; plus the degenerate Sigma_B = 0 start."""
    worst_inc, worst_der = -np.inf, -np.inf
    cases = _flow_cases() + [(_degenerate_H0(), 2, 0.5, 0.1)]
    for H0, K, lw, lh in cases:
        tr, ders = _run_flow(H0, K, lw, lh)
        inc = np.max(np.diff(tr["T_W"]) / tr["T_W"][0])
        worst_inc = max(worst_inc, inc)
        dtw = np.array([dd["dT_W"] for dd in ders])
        worst_der = max(worst_der, dtw.max())
        assert inc <= 1e-9  # rtol 1e-11 over ~1e3 steps
        assert dtw.max() <= 1e-13 * np.abs(dtw).max()  # a float trace of a product: round-off only
    search = adversarial_max(_tw_violation, lambda r: r.standard_normal(10), n_starts=6, seed=SEED)
    assert search.best <= 1e-12
    verdict.verified(method="hp: solve_ivp DOP853 rtol 1e-11 + closed-form derivative + adversarial search",
                     evidence={"flows": len(cases), "max_rel_increase_on_grid": worst_inc,
                               "max_dT_W_at_grid": worst_der,
                               **search.evidence("worst_normalised_dT_W (<= 0 up to round-off)"), "seed": SEED + 3})


def _unpack(x, d=2, K=2, n=2):
    H = x[: d * K * n].reshape(d, K * n)
    # lW = e^x in [e^-12, e^5]; lH = max(e^y - 1/2, 0) so that the search also visits lH = 0
    x = np.clip(x, -12.0, 5.0)
    return H, float(np.exp(x[-2])), max(float(np.exp(x[-1])) - 0.5, 0.0)


def _tw_violation(x):
    H, lw, lh = _unpack(x)
    c = ufm.covariances(H, 2)
    C = np.linalg.inv(c["Sigma_T_tilde"] + lw / 2 * np.eye(2))
    dtw = flow.trace_derivatives(H, lw, lh, 2)["dT_W"]
    scale = np.linalg.norm(c["Sigma_W"]) * np.linalg.norm(C @ c["Sigma_B_tilde"] @ C)
    return dtw / scale if scale > 0 else np.nan


def _nc1_violation(x):
    H, lw, lh = _unpack(x)
    tw, tb = np.trace(ufm.covariances(H, 2)["Sigma_W"]), np.trace(ufm.covariances(H, 2)["Sigma_B"])
    if tw <= 0 or tb <= 0:
        return np.nan
    der = flow.trace_derivatives(H, lw, lh, 2)
    return der["dT_W"] / tw - der["dT_B"] / tb  # d/dt log NC1~ (the e^{2 lH t} factors cancel)


@pytest.mark.claim("N-thm4.1-nc1", "N-thm4.1-B", corrected=True)
def test_thm41_nc1_and_TB_with_nondegenerate_means(verdict):
    """Corrected statement (Sigma_B(H0) != 0): on the same 10 flows NC1~ strictly decreases and
    e^{2 lH t} Tr Sigma_B strictly increases on the grid, the closed-form derivative dT_B/dt is positive
    at every grid point, and an adversarial search finds no positive d/dt log NC1~."""
    worst_nc1, worst_tb, min_der = -np.inf, np.inf, np.inf
    for H0, K, lw, lh in _flow_cases():
        tr, ders = _run_flow(H0, K, lw, lh)
        rel_nc1 = np.diff(tr["nc1_tilde"]) / tr["nc1_tilde"][:-1]
        rel_tb = np.diff(tr["T_B"]) / tr["T_B"][:-1]
        worst_nc1, worst_tb = max(worst_nc1, rel_nc1.max()), min(worst_tb, rel_tb.min())
        min_der = min(min_der, min(dd["dT_B"] / np.trace(ufm.covariances(H0, K)["Sigma_B"]) for dd in ders))
        # strict on the grid: each step must move by more than the integration error (1e-9 relative)
        assert rel_nc1.max() < -1e-9 and rel_tb.min() > 1e-9
        assert all(dd["dT_B"] >= dd["dT_B_lower"] > 0 for dd in ders)
    search = adversarial_max(_nc1_violation, lambda r: r.standard_normal(10), n_starts=6, seed=SEED)
    assert search.best < 0
    # mpmath odefun: where float steps get small (late, lH = 0) 30-digit values settle strictness
    H0 = np.random.default_rng(SEED + 4).standard_normal((2, 4))
    Hs = flow.solve_flow_mp(H0, 0.5, 0, 2, [0, 0.5, 1], dps=20)
    with mpmath.workdps(20):
        vals = [ufm.nc1_tilde(Ht, 2) for Ht in Hs]
    assert vals[0] > vals[1] > vals[2]
    fl = flow.flow_traces(flow.solve_flow(H0, 0.5, 0, 2, 1.0), [1.0], 0, 2)["nc1_tilde"][0]
    assert abs(fl - float(vals[2])) < 1e-8 * abs(fl)  # float path (rtol 1e-10) agrees with the 20-digit one
    verdict.verified(method="hp: solve_ivp rtol 1e-11 on 10 flows + closed-form derivatives + adversarial "
                            "search + mpmath odefun (20 digits)",
                     evidence={"max_rel_step_of_NC1tilde": worst_nc1, "min_rel_step_of_T_B": worst_tb,
                               "min_dT_B_over_TrSigmaB0": min_der,
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
    verdict.refuted(counterexample=counter, claim="N-thm4.1-B", method="sym + num",
                    corrected="e^{2 lH t} Tr Sigma_B(H_t) strictly increases if moreover " + fix[4:],
                    evidence={"invariance_exact_points": 5, "seed": SEED + 5})
    verdict.refuted(counterexample=counter, claim="N-thm4.1-nc1", method="sym + num",
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
        if H0.size <= 12:
            with mpmath.workdps(40):
                Hm = ufm.solve_perturbed(H0, 20.0, lw, lh, K, dps=40)
                rm = max(abs(v) for v in ufm.stationarity_residual(Hm, ufm.as_mp(H0), 20, lw, lh, K).ravel())
            worst_mp = max(worst_mp, float(rm))
    assert worst_mp < 1e-35
    verdict.verified(method="num: joint L-BFGS on (2) (no reduction) + 40-digit Newton root of (8)",
                     evidence={"cases": 6, "betas": [2, 20, 200], "max_rel_residual_eq8": worst,
                               "max_residual_mp40": worst_mp, "seed": SEED + 6})


def _lemb1_ratio(x, d=2, K=2, n=2):
    H, lw, lh = _unpack(x, d, K, n)
    g = ufm.grad_central_path_loss(H, lw, lh, K)
    nh = np.linalg.norm(H)
    return np.linalg.norm(g) / ((3 / lw + lh) / (K * n) * nh) if nh > 0 else np.nan


@pytest.mark.claim("N-lemB.1")
def test_lemma_b1_gradient_bound(verdict):
    """||grad L(H)||_F <= (1/Kn)(3/lW + lH) ||H||_F: 400 random (H, lW, lH) incl. lH = 0, tiny lW and
    nonzero means, then Nelder-Mead maximisation of the ratio (d=2, K=2, n=2 and d=3, K=2, n=1)."""
    rng = np.random.default_rng(SEED + 7)
    worst = 0.0
    for _ in range(400):
        d, K, n = int(rng.integers(1, 6)), int(rng.integers(2, 5)), int(rng.integers(1, 4))
        x = np.concatenate([rng.standard_normal(d * K * n) * 10 ** rng.uniform(-2, 2), rng.uniform(-5, 2, 2)])
        worst = max(worst, _lemb1_ratio(x, d, K, n))
    s1 = adversarial_max(_lemb1_ratio, lambda r: np.concatenate([r.standard_normal(8), r.uniform(-4, 1, 2)]),
                         n_starts=6, seed=SEED)
    s2 = adversarial_max(lambda x: _lemb1_ratio(x, 3, 2, 1),
                         lambda r: np.concatenate([r.standard_normal(6), r.uniform(-4, 1, 2)]), n_starts=6, seed=SEED)
    best = max(worst, s1.best, s2.best)
    assert best <= 1.0
    # where the search goes: lW -> inf with lH > 0 makes grad L ~ lH H/(Kn), so the ratio tends to 1
    H = np.random.default_rng(SEED + 7).standard_normal((2, 4))
    tight = _lemb1_ratio(np.concatenate([H.ravel(), [np.log(1e2), np.log(1.5)]]))
    verdict.verified(method="num: random sampling + adversarial maximisation of ||grad L|| / bound",
                     evidence={"random_worst_ratio": worst, "adversarial_worst_ratio": max(s1.best, s2.best),
                               "ratio_at_lW=100_lH=1": tight,
                               "note": "sup = 1, approached as lW -> inf with lH > 0 (the bound is tight)",
                               "seed": SEED + 7})


@pytest.mark.claim("N-B-distance")
def test_appB_distance_bound(verdict):
    """||H_{1/beta} - H0||_F <= (beta/(nKM) - 1)^{-1} ||H0||_F with M = (3/lW + lH)/(Kn), for beta = nKM * q,
    q in {1.05, 1.5, 3, 10, 100}, on the App. B cases."""
    worst = 0.0
    for H0, K, lw, lh in _b_cases():
        nKM = 3 / lw + lh
        for q in (1.05, 1.5, 3.0, 10.0, 100.0):
            beta = nKM * q
            H = ufm.solve_perturbed(H0, beta, lw, lh, K, starts=3, seed=SEED)
            ratio = np.linalg.norm(H - H0) / (np.linalg.norm(H0) / (beta / nKM - 1))
            worst = max(worst, ratio)
    assert worst <= 1.0
    verdict.verified(method="num: minimiser of (2) (L-BFGS, 3 starts, Newton polish) vs the bound",
                     evidence={"cases": 6, "q=beta/(nKM)": [1.05, 1.5, 3, 10, 100], "worst_ratio": worst,
                               "seed": SEED + 6})


def _bdist_ratio(x, q=1.05):
    H0, lw, lh = _unpack(x)
    nKM = 3 / lw + lh
    beta = nKM * q
    H = ufm.solve_perturbed(H0, beta, lw, lh, 2, polish=False)
    nh = np.linalg.norm(H0)
    return np.linalg.norm(H - H0) / (nh / (beta / nKM - 1)) if nh > 0 else np.nan


@pytest.mark.slow
@pytest.mark.claim("N-B-distance")
def test_appB_distance_bound_adversarial(verdict):
    """Nelder-Mead maximisation of ||H_{1/beta} - H0|| / bound over (H0, lW, lH), d=2, K=2, n=2, beta = 1.05 nKM."""
    search = adversarial_max(_bdist_ratio, lambda r: np.concatenate([r.standard_normal(8), r.uniform(-3, 1, 2)]),
                             n_starts=4, seed=SEED, maxiter=150)
    assert search.best <= 1.0
    verdict.verified(method="num: adversarial maximisation of the ratio (reduced solver, L-BFGS)",
                     evidence=search.evidence("worst_ratio"))


@pytest.mark.claim("N-B-limit")
def test_appB_limit_and_order(verdict):
    """beta (H_{1/beta} - H0) -> -Kn grad L(H0): the error at beta = 10^2..10^6 (40-digit roots of (8))
    falls like beta^{-p}; the fitted order p is reported (first order expected)."""
    rng = np.random.default_rng(SEED + 8)
    H0 = rng.standard_normal((2, 4)) + 1.0
    K, lw, lh = 2, 0.4, 0.2
    betas = [10.0**k for k in range(2, 7)]
    errs = []
    with mpmath.workdps(40):
        H0m = ufm.as_mp(H0)
        target = ufm.grad_central_path_loss(H0m, lw, lh, K) * (-4)
        for b in betas:
            Hb = ufm.solve_perturbed(H0, b, lw, lh, K, dps=40)
            E = (Hb - H0m) * b - target
            errs.append(float(mpmath.sqrt(sum(e * e for e in E.ravel()))))
    slope = float(np.polyfit(np.log(betas), np.log(errs), 1)[0])
    assert errs == sorted(errs, reverse=True) and abs(slope + 1) < 0.05  # O(1/beta): Taylor of (8)
    verdict.verified(method="hp: 40-digit Newton roots of (8), log-log fit",
                     evidence={"betas": betas, "errors": errs, "fitted_order": -slope, "seed": SEED + 8})


@pytest.mark.claim("N-cor4.2", corrected=True)
def test_cor42_nondegenerate(verdict):
    """Sigma_B(H0) != 0: NC1~(H_{1/beta}) < NC1~(H0) for every beta >= C on a grid up to 1e6;
    the smallest grid value C from which it holds is reported per case."""
    grid = [0.5, 2, 10, 100, 1e4, 1e6]
    Cs = []
    for H0, K, lw, lh in _b_cases():
        ok = [ufm.nc1_tilde(ufm.solve_perturbed(H0, b, lw, lh, K, starts=2, seed=SEED), K) < ufm.nc1_tilde(H0, K)
              for b in grid]
        # C(H0): the first grid point after the last failure; "for beta > C" needs at least the three largest
        # grid values (beta = 100, 1e4, 1e6) to satisfy the inequality
        first = max([i + 1 for i, v in enumerate(ok) if not v], default=0)
        assert first <= len(grid) - 3
        Cs.append(grid[first])
    verdict.verified(method="num: minimiser of (2) on a beta grid",
                     evidence={"grid": grid, "C_per_case": Cs, "seed": SEED + 6})


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
