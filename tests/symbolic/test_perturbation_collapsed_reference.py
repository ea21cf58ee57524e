r"""App. D and the sharp Thm C.2 of paper N in sympy (:mod:`verify.symbolic.perturbation`: ``reduced_objective``,
``collapsed_sigmas``, ``radial_loss_curvature``, ``thmC2_sharp``) against references written here: the UFM objective
and the central-path loss :math:`\mathcal L(H) = f(W^*(H), H)` in torch (float64) on the collapsed family, their
gradients and the curvature :math:`\hat v^\top\nabla^2(Kn\mathcal L)\hat v` by autograd, the extremes of the radial
curvature on a fine grid of s, for several :math:`(\lambda_H, \lambda_W)` on both sides of the branch threshold.
"""

import math

import numpy as np
import sympy
import torch
from scipy.optimize import minimize_scalar
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.numeric.perturbation import thmC2_sharp_constants
from verify.symbolic import perturbation as SP

REF = settings.get_profile("reference")


def ufm_f(W, H, lw, lh, K, n):
    Y = torch.kron(torch.eye(K, dtype=torch.float64), torch.ones(1, n, dtype=torch.float64))
    return (((W @ H - Y) ** 2).sum() / (2 * K * n) + lw / (2 * K) * (W ** 2).sum() + lh / (2 * K * n) * (H ** 2).sum())


def central_L(H, lw, lh, K, n):
    d = H.shape[0]
    Y = torch.kron(torch.eye(K, dtype=torch.float64), torch.ones(1, n, dtype=torch.float64))
    W = torch.linalg.solve(H @ H.T + n * lw * torch.eye(d, dtype=torch.float64), H @ Y.T).T
    return ufm_f(W, H, lw, lh, K, n)


def ray(d, K, n):
    R = np.eye(d)[:, :K]
    return torch.tensor(np.kron(R, np.ones((1, n))))


@REF
@given(st.sampled_from([0.05, 0.2, 0.5, 1.5]), st.sampled_from([0.05, 0.3, 0.6, 2.0]), st.floats(0.1, 3.0),
       st.floats(0.1, 3.0))
def test_reduced_objective_sigmas_and_radial_loss_against_autograd(lw, lh, sw, sh):
    d, K, n = 3, 2, 2
    g, sW, sH = SP.reduced_objective(d, K, n)
    sub = {SP.lam_W: sympy.nsimplify(lw), SP.lam_H: sympy.nsimplify(lh)}
    R = torch.tensor(np.eye(d)[:, :K])
    val = ufm_f(sw * R.T, sh * ray(d, K, n), lw, lh, K, n)
    assert math.isclose(float(g.subs(sub).subs({sW: sw, sH: sh})), float(val), rel_tol=1e-12)
    # the radial central-path loss and its curvature along the unit direction of the ray
    rad = SP.radial_loss_curvature(d, K, n)
    s = rad["s"]
    Hs = torch.tensor(sh * ray(d, K, n).numpy(), requires_grad=True)
    Lv = central_L(Hs, lw, lh, K, n)
    assert math.isclose(float(rad["L"].subs(sub).subs(s, sh)), float(Lv.detach()), rel_tol=1e-11)
    v = ray(d, K, n) / math.sqrt(K * n)
    (gr,) = torch.autograd.grad(Lv, Hs, create_graph=True)
    dL = float((gr * v).sum().detach()) * math.sqrt(K * n)   # d/ds L(s R (x) 1^T) = <grad, R (x) 1^T>
    assert math.isclose(float(rad["dL"].subs(sub).subs(s, sh)), dL, rel_tol=1e-9, abs_tol=1e-12)
    (hv,) = torch.autograd.grad((gr * v).sum(), Hs)
    curv = K * n * float((hv * v).sum())             # v^T Hess(Kn L) v
    assert math.isclose(float(rad["kappa"].subs(sub).subs(s, sh)), curv, rel_tol=1e-8, abs_tol=1e-10)
    if lw * lh < 1:  # the collapsed minimiser: stationary for the UFM objective, at the derived value
        sig = SP.collapsed_sigmas()
        sHv = float(sig["sigma_H"].subs({SP.p: sympy.sqrt(sub[SP.lam_H]), SP.q: sympy.sqrt(sub[SP.lam_W])}))
        sWv = float(sig["sigma_W"].subs({SP.p: sympy.sqrt(sub[SP.lam_H]), SP.q: sympy.sqrt(sub[SP.lam_W])}))
        assert math.isclose(float(sig["sigma_H2"].subs(sub)), sHv ** 2, rel_tol=1e-12)
        assert math.isclose(float(sig["sigma_W2"].subs(sub)), sWv ** 2, rel_tol=1e-12)
        assert math.isclose(float(sig["product"].subs(sub)), sHv * sWv, rel_tol=1e-12)
        Wt = torch.tensor(sWv * np.eye(d)[:, :K].T, requires_grad=True)
        Ht = torch.tensor(sHv * ray(d, K, n).numpy(), requires_grad=True)
        fv = ufm_f(Wt, Ht, lw, lh, K, n)
        gW, gH = torch.autograd.grad(fv, [Wt, Ht])
        assert float(gW.abs().max()) < 1e-12 and float(gH.abs().max()) < 1e-12
        # the value, per (1) normalised by the ansatz: g at the stationary point
        assert math.isclose(float(sig["value"].subs(sub)), float(g.subs(sub).subs({sW: sWv, sH: sHv})), rel_tol=1e-12)


@REF
@given(st.sampled_from([0.05, 0.2, 0.5, 1.5, 4.0]), st.sampled_from([0.01, 0.3, 0.6, 2.0]))
def test_thmC2_sharp_extremes_against_a_grid_of_the_radial_curvature(lw, lh):
    t = SP.thmC2_sharp()
    sub = {SP.lam_W: sympy.nsimplify(lw), SP.lam_H: sympy.nsimplify(lh)}
    kap = sympy.lambdify(SP.radial_loss_curvature()["s"], t["kappa"].subs(sub), "numpy")
    grid = np.concatenate([np.linspace(0, 5 * math.sqrt(lw) + 5, 200001)])
    vals = kap(grid)
    kmax, kmin = float(t["kappa_max"].subs(sub)), float(t["kappa_min"].subs(sub))
    # the grid's best point, refined by a bounded scalar search between its neighbours (a grid alone is off by
    # O(h^2) at a smooth maximum)
    i = int(vals.argmax())
    lo_, hi_ = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    best = minimize_scalar(lambda x: -kap(x), bounds=(lo_, hi_), method="bounded", options={"xatol": 1e-14})
    assert math.isclose(max(vals.max(), -best.fun), kmax, rel_tol=1e-9)
    assert vals.max() <= kmax * (1 + 1e-12) + 1e-12          # never above the derived maximum
    assert math.isclose(vals.min(), kmin, rel_tol=1e-9, abs_tol=1e-12) and vals.min() >= kmin - 1e-9 * abs(kmin)
    assert math.isclose(float(t["s_argmax"].subs(sub)), best.x, rel_tol=1e-5, abs_tol=1e-6)
    assert math.isclose(float(t["kappa_inf"].subs(sub)), lh, rel_tol=1e-12)
    num = thmC2_sharp_constants(lw, lh, 1, 1)
    assert math.isclose(kmax, num["kappa_max"], rel_tol=1e-12) and math.isclose(kmin, num["kappa_min"], rel_tol=1e-12)
    assert math.isclose(float(t["lip_Kn"].subs(sub)), max(-kmin, kmax), rel_tol=1e-12)
    assert math.isclose(float(t["rho"].subs(sub)), 1 / lw - lh, rel_tol=1e-12)
    # the branch threshold c = lam_H lam_W where the two sides of Lip meet
    (cth,) = t["branch_threshold_c"]
    assert math.isclose(float(cth) / lw + 1 / (4 * lw), 1 / lw - float(cth) / lw, rel_tol=1e-12)
    # Thm C.2 as written (Kn Lip <= 11 lam_H and rho <= 11 lam_H) holds exactly on region_c
    c = lw * lh
    holds = max(1 / lw - lh, lh + 1 / (4 * lw)) <= 11 * lh and 1 / lw - lh <= 11 * lh and c < 1
    assert bool(t["region_c"].contains(sympy.nsimplify(c))) == holds
    # for 0 < beta < rho the orbit radius solves L'(s) + beta s = 0
    rho = 1 / lw - lh
    if rho > 0:
        beta = rho / 2
        s2 = float(t["s_star2"].subs({**sub, SP.beta: sympy.nsimplify(beta)}))
        if s2 > 0:
            dL = sympy.lambdify(SP.radial_loss_curvature()["s"], SP.radial_loss_curvature()["dL"].subs(sub), "math")
            s_ = math.sqrt(s2)
            assert abs(dL(s_) + beta * s_) <= 1e-10 * max(1.0, abs(beta * s_))
