r"""The central-path flow of paper N (:mod:`verify.numeric.central_path`) and the UFM solvers
(:func:`verify.numeric.ufm.solve_ufm`, :func:`~verify.numeric.ufm.solve_perturbed`, the conversions) against
references written here.

References: :math:`\mathcal L(H) = f(W^*(H), H)` written in torch (float64) with :math:`W^*` a differentiable solve,
its gradient and directional derivatives by autograd; the flow integrated by scipy's implicit Radau method on that
autograd field (a different integrator and a different vector field code); traces from the definitions; the
perturbed problem (2) minimised by Newton's method on the autograd Hessian (it is strongly convex for
:math:`\beta > 1/\lambda_W`); the UFM minimum against the orthogonally collapsed minimiser (Thm 2.2).
"""

import math
from fractions import Fraction
from unittest import mock

import mpmath
import numpy as np
import torch
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

from verify.numeric import central_path as CP
from verify.numeric import perturbation as P
from verify.numeric import ufm

REF = settings.get_profile("reference")


def loss_t(Ht, lw, lh, K, n):
    d = Ht.shape[0]
    Y = torch.kron(torch.eye(K, dtype=torch.float64), torch.ones(1, n, dtype=torch.float64))
    W = torch.linalg.solve(Ht @ Ht.T + n * lw * torch.eye(d, dtype=torch.float64), Ht @ Y.T).T
    Kn = K * n
    return ((W @ Ht - Y) ** 2).sum() / (2 * Kn) + lw / (2 * K) * (W ** 2).sum() + lh / (2 * Kn) * (Ht ** 2).sum()


def grad_L(H, lw, lh, K, n):
    Ht = torch.tensor(np.asarray(H, dtype=float), requires_grad=True)
    return torch.autograd.grad(loss_t(Ht, lw, lh, K, n), Ht)[0].numpy()


def traces(H, K, n):
    d = H.shape[0]
    Hbar = H.reshape(d, K, n).mean(axis=2)
    Hc = H - np.repeat(Hbar, n, axis=1)
    Mc = Hbar - Hbar.mean(axis=1, keepdims=True)
    return np.trace(Hc @ Hc.T) / (K * n), np.trace(Mc @ Mc.T) / K


@st.composite
def instances(draw):
    K = draw(st.integers(1, 3))
    n = draw(st.integers(1, 3))
    d = draw(st.integers(1, 4))
    lw = draw(st.sampled_from([1e-3, 0.1, 0.5, 2.0]))
    lh = draw(st.sampled_from([0.0, 1e-3, 0.1, 1.0]))
    scale = draw(st.sampled_from([0.1, 1.0, 5.0]))
    H = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1))).standard_normal((d, K * n)) * scale
    return H, lw, lh, K, n, d


@REF
@given(instances())
def test_flow_rhs_and_trace_derivatives_against_autograd(inst):
    H, lw, lh, K, n, d = inst
    v = -K * n * grad_L(H, lw, lh, K, n)
    np.testing.assert_allclose(CP.flow_rhs(H, lw, lh, K), v, rtol=0, atol=1e-10 * max(1.0, np.abs(v).max()))
    # the exact route, at the float input's binary value
    ex = CP.flow_rhs(ufm.as_exact([[Fraction(x) for x in row] for row in H]), Fraction(lw), Fraction(lh), K)
    np.testing.assert_allclose(np.array(ex, dtype=float), v, rtol=0, atol=1e-10 * max(1.0, np.abs(v).max()))
    # e^{-2 lam_H t} d/dt (e^{2 lam_H t} Tr Sigma(H_t)) = 2 lam_H Tr Sigma + D Tr Sigma [v], by autograd
    Ht = torch.tensor(H, requires_grad=True)
    Hbar = Ht.reshape(d, K, n).mean(dim=2)
    Hc = Ht - Hbar.repeat_interleave(n, dim=1)
    Mc = Hbar - Hbar.mean(dim=1, keepdim=True)
    trW, trB = (Hc ** 2).sum() / (K * n), (Mc ** 2).sum() / K
    gW = torch.autograd.grad(trW, Ht, retain_graph=True)[0].numpy()
    gB = torch.autograd.grad(trB, Ht)[0].numpy()
    got = CP.trace_derivatives(H, lw, lh, K)
    dW = 2 * lh * float(trW.detach()) + float((gW * v).sum())
    dB = 2 * lh * float(trB.detach()) + float((gB * v).sum())
    tol = 1e-9 * max(1.0, abs(float(trW.detach())) + abs(float(trB.detach()))) * max(1.0, np.abs(v).max())
    assert math.isclose(float(got["dT_W"]), dW, rel_tol=1e-8, abs_tol=tol)
    assert math.isclose(float(got["dT_B"]), dB, rel_tol=1e-8, abs_tol=tol)
    Hbt = H.reshape(d, K, n).mean(axis=2)
    C = np.linalg.inv(H @ H.T / (K * n) + lw / K * np.eye(d))
    Mcn = Hbt - Hbt.mean(axis=1, keepdims=True)
    lower = 2 * lw / K ** 2 * np.trace(Mcn @ Mcn.T / K @ C @ C)
    assert math.isclose(float(got["dT_B_lower"]), lower, rel_tol=1e-9, abs_tol=1e-14)
    assert float(got["dT_B_lower"]) <= float(got["dT_B"]) * (1 + 1e-9) + 1e-14  # the proof's bound holds
    assert float(got["dT_W"]) <= 1e-12 * max(1.0, abs(dW))                        # Tr Sigma_W e^{..} decreases


@settings(REF, max_examples=max(5, REF.max_examples // 3))
@given(instances(), st.sampled_from([0.3, 1.0, 2.5]))
def test_solve_flow_and_traces_against_radau_on_the_autograd_field(inst, t_end):
    H, lw, lh, K, n, d = inst
    sol = CP.solve_flow(H, lw, lh, K, t_end)

    def rhs(_t, y):
        return (-K * n * grad_L(y.reshape(H.shape), lw, lh, K, n)).ravel()
    ref = solve_ivp(rhs, (0, t_end), H.ravel(), method="Radau", rtol=1e-11, atol=1e-13, dense_output=True)
    ts = [0.0, t_end / 3, t_end]
    for t in ts:
        np.testing.assert_allclose(sol.sol(t), ref.sol(t), rtol=0, atol=1e-7 * max(1.0, np.abs(H).max()))
    tr = CP.flow_traces(sol, ts, lh, K)
    assert list(tr["t"]) == ts
    for i, t in enumerate(ts):
        tw, tb = traces(sol.sol(t).reshape(H.shape), K, n)
        assert math.isclose(tr["tr_W"][i], tw, rel_tol=1e-12, abs_tol=1e-300)
        assert math.isclose(tr["tr_B"][i], tb, rel_tol=1e-12, abs_tol=1e-300)
        assert math.isclose(tr["T_W"][i], math.exp(2 * lh * t) * tw, rel_tol=1e-12, abs_tol=1e-300)
        assert math.isclose(tr["T_B"][i], math.exp(2 * lh * t) * tb, rel_tol=1e-12, abs_tol=1e-300)
        assert tr["nc1_tilde"][i] == (tw / tb if tb > 0 else math.inf) or \
            math.isclose(tr["nc1_tilde"][i], tw / tb, rel_tol=1e-12)


@settings(REF, max_examples=max(3, REF.max_examples // 8))
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from([0.0, 0.1]))
def test_solve_flow_mp_against_radau(seed, lh):
    K, n, d, lw = 2, 1, 2, 0.5
    H = np.random.default_rng(seed).standard_normal((d, K * n))
    ts = [0.05, 0.2]
    got = CP.solve_flow_mp(H, lw, lh, K, ts, dps=20)

    def rhs(_t, y):
        return (-K * n * grad_L(y.reshape(H.shape), lw, lh, K, n)).ravel()
    ref = solve_ivp(rhs, (0, ts[-1]), H.ravel(), method="Radau", rtol=1e-12, atol=1e-14, dense_output=True)
    for t, Hm in zip(ts, got):
        assert all(isinstance(x, mpmath.mpf) for x in Hm.flat)
        np.testing.assert_allclose(np.array(Hm, dtype=float).ravel(), ref.sol(t), rtol=0, atol=1e-9)


@REF
@given(st.lists(st.one_of(st.integers(-10 ** 30, 10 ** 30), st.fractions(max_denominator=10 ** 20)), min_size=1,
                max_size=6))
def test_as_exact_and_as_mp_are_the_exact_values(xs):
    A = np.array(xs, dtype=object).reshape(1, -1)
    ex = ufm.as_exact(A)
    assert all(isinstance(v, fmpq) and Fraction(int(v.p), int(v.q)) == Fraction(x) for v, x in zip(ex.flat, xs))
    with mpmath.workdps(60):
        mp = ufm.as_mp(A)
        for v, x in zip(mp.flat, xs):
            f = Fraction(x)
            assert v == mpmath.mpf(f.numerator) / f.denominator


@settings(REF, max_examples=max(5, REF.max_examples // 3))
@given(st.integers(2, 3), st.integers(1, 2), st.sampled_from([0.1, 0.5]), st.sampled_from([0.1, 0.5]))
def test_solve_ufm_reaches_the_collapsed_global_minimum(K, n, lw, lh):
    d = K + 1
    res = ufm.solve_ufm(d, K, n, lw, lh, starts=3, seed=1)
    Wc, Hc = P.collapsed_point(d, K, n, lw, lh)
    fmin = P.objective(Wc, Hc, Hc, 1.0, lw, lh, K, n)  # beta term zero at H0 = H
    Wt, Ht = torch.tensor(res["W"], requires_grad=True), torch.tensor(res["H"], requires_grad=True)
    Y = torch.kron(torch.eye(K, dtype=torch.float64), torch.ones(1, n, dtype=torch.float64))
    f = ((Wt @ Ht - Y) ** 2).sum() / (2 * K * n) + lw / (2 * K) * (Wt ** 2).sum() + lh / (2 * K * n) * (Ht ** 2).sum()
    gW, gH = torch.autograd.grad(f, [Wt, Ht])
    assert math.isclose(res["value"], float(f), rel_tol=1e-12)
    assert res["value"] == min(res["values"]) and len(res["values"]) == 3
    assert float(gW.abs().max()) < 1e-6 and float(gH.abs().max()) < 1e-6
    assert abs(res["value"] - fmin) <= 1e-9 * max(1.0, fmin)   # the global minimum, from both sides


def newton_minimiser(H0, beta, lw, lh, K, n):
    """Newton's method on L(H) + beta/(2Kn) |H - H0|^2 with the autograd Hessian (strongly convex here)."""
    shape = H0.shape
    x = torch.tensor(H0.ravel(), dtype=torch.float64)
    H0t = torch.tensor(H0)

    def obj(v):
        Hm = v.reshape(shape)
        return loss_t(Hm, lw, lh, K, n) + beta / (2 * K * n) * ((Hm - H0t) ** 2).sum()
    for _ in range(60):
        g = torch.autograd.functional.jacobian(obj, x)
        Hs = torch.autograd.functional.hessian(obj, x)
        step = torch.linalg.solve(Hs, g)
        x = x - step
        if float(step.abs().max()) < 1e-15 * max(1.0, float(x.abs().max())):
            break
    return x.numpy().reshape(shape)


@settings(REF, max_examples=max(5, REF.max_examples // 2))
@given(instances(), st.sampled_from([1.5, 10.0]), st.booleans())
def test_solve_perturbed_against_newton_on_the_autograd_hessian(inst, bfac, krylov):
    H0, lw, lh, K, n, d = inst
    beta = bfac / lw + 1.0  # beta > 1/lam_W - lam_H: I + M/beta > 0 for every H0, a unique minimiser
    ref = newton_minimiser(H0, beta, lw, lh, K, n)
    # the polish's threshold crossed either way at these sizes
    with mock.patch.object(ufm, "_HYBR_MAX_UNKNOWNS", 0 if krylov else 400):
        H = ufm.solve_perturbed(H0, beta, lw, lh, K, n)
    np.testing.assert_allclose(H, ref, rtol=0, atol=1e-8 * max(1.0, np.abs(ref).max()))
    if d * K * n <= 6 and not krylov:
        Hm = ufm.solve_perturbed(H0, beta, lw, lh, K, n, dps=30)
        assert all(isinstance(x, mpmath.mpf) for x in Hm.flat)
        np.testing.assert_allclose(np.array(Hm, dtype=float), ref, rtol=0, atol=1e-10 * max(1.0, np.abs(ref).max()))
