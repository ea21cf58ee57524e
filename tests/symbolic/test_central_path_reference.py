r"""App. A of paper N as sympy matrix expressions (:mod:`verify.symbolic.central_path`) against references written
here, at exact rational instances: covariances by centring matrices (not sums of outer products); :math:`W^*(H)` by
solving the normal equations :math:`W(HH^\top + n\lambda_WI) = YH^\top`; :math:`\mathcal L(H) = f(W^*, H)`; its
gradient by the envelope theorem :math:`\frac1{Kn}W^{*\top}(W^*H - Y) + \frac{\lambda_H}{Kn}H` (and torch autograd in
float); derivatives along the flow as exact derivatives in t of the covariances at :math:`H + tV` (quadratic in t);
Theorem 2.2's reduced problem by evaluating its objective around the claimed minimiser.
"""

import numpy as np
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.symbolic import central_path as CP

REF = settings.get_profile("reference")


@st.composite
def instances(draw):
    K = draw(st.integers(1, 3))
    n = draw(st.integers(1, 2))
    d = draw(st.integers(1, 3))
    H = sympy.Matrix(d, K * n, lambda i, j: sympy.Rational(draw(st.integers(-9, 9)), draw(st.integers(1, 4))))
    lw = sympy.Rational(draw(st.integers(1, 20)), draw(st.integers(1, 10)))
    lh = sympy.Rational(draw(st.integers(0, 20)), draw(st.integers(1, 10)))
    return H, K, n, d, lw, lh


def covs(H, K, n):
    d = H.shape[0]
    Jn = sympy.ones(n, n) / n
    Pw = sympy.diag(*[sympy.eye(n) - Jn] * K)                 # within-class centring of the columns
    Mk = sympy.diag(*[sympy.ones(n, 1) / n] * K)             # (Kn x K): class means
    Hbar = H * Mk
    PK = sympy.eye(K) - sympy.ones(K, K) / K
    return {"Hbar": Hbar, "SW": H * Pw * H.T / (K * n), "SB": Hbar * PK * Hbar.T / K,
            "ST": H * H.T / (K * n), "SBt": Hbar * Hbar.T / K, "d": d}


def labels(K, n):
    return sympy.Matrix(K, K * n, lambda r, c: 1 if c // n == r else 0)


def wstar(H, K, n, lw):
    d = H.shape[0]
    Y = labels(K, n)
    # W (H H^T + n lw I) = Y H^T, solved for W^T
    return (H * H.T + n * lw * sympy.eye(d)).LUsolve(H * Y.T).T


def loss(H, W, K, n, lw, lh):
    Y = labels(K, n)
    R = W * H - Y
    return (R.norm() ** 2 / (2 * K * n) + lw / (2 * K) * W.norm() ** 2 + lh / (2 * K * n) * H.norm() ** 2)


@REF
@given(instances())
def test_instance_wstar_loss_chain_and_decomposition(inst_args):
    H, K, n, d, lw, lh = inst_args
    ns = CP.build(d, K, n)
    assert (ns.d, ns.K, ns.n) == (d, K, n) and ns.H.shape == (d, K * n) and ns.Hbar.shape == (d, K)
    inst = CP.instance(H, K, lw, lh)
    ref = covs(H, K, n)
    for key in ("Hbar", "SW", "SB", "ST", "SBt"):
        assert sympy.simplify(inst[key] - ref[key]) == sympy.zeros(*ref[key].shape), key
    assert inst["Y"] == labels(K, n) and (inst["K"], inst["n"], inst["d"]) == (K, n, d)
    W = wstar(H, K, n, lw)
    for form in CP.wstar_forms(ns):
        assert sympy.simplify(CP.evaluate(form, ns, inst) - W) == sympy.zeros(K, d)
    lhs, rhs = CP.decomposition(ns)
    assert CP.evaluate(lhs, ns, inst) == CP.evaluate(rhs, ns, inst)
    Lref = sympy.nsimplify(loss(H, W, K, n, lw, lh))
    chain = CP.loss_chain(ns)
    for key in ("term1", "term2", "sum12", "term3", "L"):
        vals = [sympy.simplify(CP.evaluate(e, ns, inst)) for e in chain[key]]
        assert all(sympy.simplify(v - vals[0]) == 0 for v in vals), key
    assert sympy.simplify(CP.evaluate(chain["L"][0], ns, inst) - Lref) == 0
    assert sympy.simplify(CP.evaluate(chain["L"][1], ns, inst) - Lref) == 0


@settings(REF, max_examples=max(6, REF.max_examples // 3))
@given(instances())
def test_gradient_lemma_a1_and_trace_derivatives_along_the_flow(inst_args):
    H, K, n, d, lw, lh = inst_args
    ns = CP.build(d, K, n)
    inst = CP.instance(H, K, lw, lh)
    W = wstar(H, K, n, lw)
    g_ref = W.T * (W * H - labels(K, n)) / (K * n) + lh / (K * n) * H      # envelope theorem
    g = CP.evaluate(CP.gradient(ns), ns, inst)
    assert sympy.simplify(g - g_ref) == sympy.zeros(d, K * n)
    # float check of the envelope gradient by autograd
    Ht = torch.tensor(np.array(H.tolist(), dtype=float), requires_grad=True)
    Yt = torch.tensor(np.array(labels(K, n).tolist(), dtype=float))
    Wt = torch.linalg.solve(Ht @ Ht.T + n * float(lw) * torch.eye(d, dtype=torch.float64), Ht @ Yt.T).T
    Lt = (((Wt @ Ht - Yt) ** 2).sum() / (2 * K * n) + float(lw) / (2 * K) * (Wt ** 2).sum()
          + float(lh) / (2 * K * n) * (Ht ** 2).sum())
    (gt,) = torch.autograd.grad(Lt, Ht)
    np.testing.assert_allclose(np.array(g_ref.tolist(), dtype=float), gt.numpy(), rtol=1e-9, atol=1e-12)
    # derivatives along the flow dH/dt = -Kn grad L: the covariances at H + tV are quadratic in t
    t = sympy.Symbol("tt")
    V = -K * n * g_ref
    moved = covs(H + t * V, K, n)
    dot = {k: moved[k].diff(t).subs(t, 0) for k in ("SB", "SW", "ST")}
    a1 = CP.lemma_a1(ns)
    for key in ("SB", "SW", "ST"):
        assert sympy.simplify(CP.evaluate(a1[key], ns, inst) - dot[key]) == sympy.zeros(d, d), key
    chains = CP.trace_derivative_chains(ns)
    tv = sympy.Rational(1, 3)
    extra = {ns.t: tv, chains["dtrW"]: dot["SW"].trace(), chains["dtrB"]: dot["SB"].trace()}
    dW = [sympy.simplify(CP.evaluate(e, ns, inst, extra)) for e in chains["dT_W"]]
    dB = [sympy.simplify(CP.evaluate(e, ns, inst, extra)) for e in chains["dT_B"]]
    E = sympy.exp(2 * lh * tv)
    want_W = E * (dot["SW"].trace() + 2 * lh * covs(H, K, n)["SW"].trace())
    want_B = E * (dot["SB"].trace() + 2 * lh * covs(H, K, n)["SB"].trace())
    assert all(sympy.simplify(v - want_W) == 0 for v in dW)
    assert all(sympy.simplify(v - want_B) == 0 for v in dB)
    lower = sympy.simplify(CP.evaluate(chains["dT_B_lower"], ns, inst, extra))
    assert sympy.simplify(want_B - lower) >= 0 and sympy.simplify(want_W) <= 0


@settings(REF, max_examples=max(6, REF.max_examples // 3))
@given(st.integers(1, 30), st.integers(1, 30), st.integers(1, 10))
def test_reduced_ufm_minimiser_against_its_objective(a, b, den):
    res = CP.reduced_ufm()
    lw, lh = sympy.Rational(a, 10 * den), sympy.Rational(b, 10 * den)
    f = res["f"].subs({res["lam_W"]: lw, res["lam_H"]: lh})
    s, w = res["s"], res["w"]
    for sol in res["solutions"]:                       # every returned point is stationary
        pt = {s: sol[s].subs({res["lam_W"]: lw, res["lam_H"]: lh}), w: sol[w].subs({res["lam_W"]: lw, res["lam_H"]: lh})}
        if pt[s].is_real and pt[w].is_real:
            assert sympy.simplify(f.diff(s).subs(pt)) == 0 and sympy.simplify(f.diff(w).subs(pt)) == 0
    if lw * lh >= 1:
        return  # only the origin is a minimiser there (c >= 1); rho is the collapsed branch's value
    rho = res["rho"].subs({res["lam_W"]: lw, res["lam_H"]: lh})
    ratio = res["ratio"].subs({res["lam_W"]: lw, res["lam_H"]: lh})
    sv = sympy.sqrt(rho)
    pt = {s: sv, w: ratio * sv}
    val = sympy.simplify(f.subs(pt))
    assert sympy.simplify(val - res["value"].subs({res["lam_W"]: lw, res["lam_H"]: lh})) == 0
    assert sympy.simplify(f.diff(s).subs(pt)) == 0 and sympy.simplify(f.diff(w).subs(pt)) == 0
    fn = sympy.lambdify((s, w), f, modules="numpy")
    X, Yg = np.meshgrid(np.linspace(-3, 3, 61), np.linspace(-3, 3, 61))
    assert float(val) <= float(np.min(fn(X, Yg))) + 1e-12  # the global minimum on a grid


@REF
@given(st.integers(2, 6), st.fractions(0, 10))
def test_etf_identity_by_numpy(K, rho):
    lhs, rhs = CP.etf_identity(K, sympy.Rational(rho.numerator, rho.denominator))
    P = np.eye(K) - np.ones((K, K)) / K
    want = float(rho) * P
    np.testing.assert_allclose(np.array(lhs.tolist(), dtype=float), want, rtol=1e-12, atol=1e-15)
    assert lhs == rhs
