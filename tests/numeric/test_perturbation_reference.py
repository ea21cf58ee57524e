r"""The perturbation matrix F of paper N (:mod:`verify.numeric.perturbation`) against references written here.

References: problem (2)'s objective written here in torch (float64) and every derivative by automatic
differentiation (gradients, the full Hessian in :math:`(\mathrm{vec}\,\mathbf H, \mathrm{vec}\,\mathbf W)`, mixed
blocks); F by the implicit function theorem on the *full* Hessian (one dense inverse, no Schur complement):
:math:`\mathbf F = \frac{\beta}{Kn}[\nabla^2_{zz} f]^{-1}_{HH}`; :math:`\mathbf Z^*` and :math:`\mathbf F_1` from those
blocks; :math:`\mathcal L(\mathbf H) = f(\mathbf W^*(\mathbf H), \mathbf H)` with :math:`\mathbf W^*` a differentiable
solve, its Hessian and the derivative of its gradient by autograd; spectra and singular values by numpy's dense
routines. Points: random (not only collapsed) :math:`(\mathbf W, \mathbf H)` at non-unit scales, d > K >= 2, n >= 1,
:math:`\beta` and :math:`\lambda` over several decades.
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import VerifyInputError
from verify.numeric import perturbation as P

REF = settings.get_profile("reference")


def vec_t(X):
    return X.T.reshape(-1)


def unvec_t(v, rows, cols):
    return v.reshape(cols, rows).T


def f_torch(W, H, H0, beta, lw, lh, K, n):
    Kn = K * n
    Y = torch.kron(torch.eye(K, dtype=torch.float64), torch.ones(1, n, dtype=torch.float64))
    return (((W @ H - Y) ** 2).sum() / (2 * Kn) + lw / (2 * K) * (W ** 2).sum() + lh / (2 * Kn) * (H ** 2).sum()
            + beta / (2 * Kn) * ((H - H0) ** 2).sum())


def full_hessian(W, H, H0, beta, lw, lh, K, n):
    """Hessian of f in z = (vec H, vec W), by autograd."""
    d = H.shape[0]
    Wt, Ht, H0t = (torch.tensor(a, dtype=torch.float64) for a in (W, H, H0))
    nh = d * K * n

    def g(z):
        return f_torch(unvec_t(z[nh:], K, d), unvec_t(z[:nh], d, K * n), H0t, beta, lw, lh, K, n)
    z = torch.cat([vec_t(Ht), vec_t(Wt)])
    return torch.autograd.functional.hessian(g, z).numpy(), nh


@st.composite
def points(draw, collapsed: bool = False):
    K = draw(st.integers(2, 3))
    d = draw(st.integers(K + 1, K + 2))
    n = draw(st.integers(1, 3))
    lw = draw(st.sampled_from([1e-2, 0.1, 0.5, 3.0]))
    lh = draw(st.sampled_from([1e-2, 0.1, 0.5, 3.0]))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    scale = draw(st.sampled_from([0.05, 1.0, 7.0]))
    if collapsed:
        if lw * lh >= 1:
            lh = 0.5 / lw
        W, H = P.collapsed_point(d, K, n, lw, lh, seed=seed % 7)
    else:
        W, H = rng.standard_normal((K, d)) * scale, rng.standard_normal((d, K * n)) * scale
    H0 = rng.standard_normal(H.shape) * scale
    # beta large enough that the full Hessian is positive definite (F exists), over several decades
    beta = draw(st.sampled_from([1.0, 30.0, 1e3])) * (1 + scale ** 2 * d) + 1 / lw
    return W, H, H0, beta, lw, lh, K, n, d


@REF
@given(points())
def test_objective_gradients_and_hessian_blocks_against_autograd(pt):
    W, H, H0, beta, lw, lh, K, n, d = pt
    Wt = torch.tensor(W, requires_grad=True)
    Ht = torch.tensor(H, requires_grad=True)
    val = f_torch(Wt, Ht, torch.tensor(H0), beta, lw, lh, K, n)
    gW, gH = torch.autograd.grad(val, [Wt, Ht])
    assert math.isclose(P.objective(W, H, H0, beta, lw, lh, K, n), float(val), rel_tol=1e-12)
    got_gH, got_gW = P.gradients(W, H, H0, beta, lw, lh, K, n)
    np.testing.assert_allclose(got_gH, vec_t(gH).numpy(), rtol=1e-10, atol=1e-12 * beta)
    np.testing.assert_allclose(got_gW, vec_t(gW).numpy(), rtol=1e-10, atol=1e-12)
    Hs, nh = full_hessian(W, H, H0, beta, lw, lh, K, n)
    B = P.hessian_blocks(W, H, beta, lw, lh, K, n)
    tol = 1e-12 * np.abs(Hs).max()
    np.testing.assert_allclose(B["HH"], Hs[:nh, :nh], rtol=0, atol=tol)
    np.testing.assert_allclose(B["WW"], Hs[nh:, nh:], rtol=0, atol=tol)
    np.testing.assert_allclose(B["WH"], Hs[:nh, nh:], rtol=0, atol=tol)
    np.testing.assert_allclose(B["HW"], Hs[nh:, :nh], rtol=0, atol=tol)
    # E from its definition: column i K + k is vec(e_i e_k^T (W H - Y))
    R = W @ H - P.labels(K, n)
    E = np.zeros((d * K * n, K * d))
    for i in range(d):
        for k in range(K):
            M = np.zeros((d, K * n))
            M[i] = R[k]
            E[:, i * K + k] = M.T.reshape(-1)
    np.testing.assert_array_equal(P.E_matrix(W, H, K, n), E)
    np.testing.assert_array_equal(B["E"], E)


@REF
@given(points())
def test_F_exact_dW_map_Z_star_and_F1_against_the_implicit_function_theorem(pt):
    W, H, H0, beta, lw, lh, K, n, d = pt
    Hs, nh = full_hessian(W, H, H0, beta, lw, lh, K, n)
    Kn = K * n
    inv = np.linalg.inv(Hs)
    # d z*/d H0 = -Hess^{-1} d(grad f)/d H0, and d(grad_H f)/d H0 = -beta/(Kn) I
    F_ref = beta / Kn * inv[:nh, :nh]
    dW_ref = beta / Kn * inv[nh:, :nh]
    scale = np.abs(F_ref).max()
    cond = np.linalg.cond(Hs)
    tol = 1e-13 * cond * scale
    np.testing.assert_allclose(P.F_exact(W, H, beta, lw, lh, K, n), F_ref, rtol=0, atol=tol)
    np.testing.assert_allclose(P.dW_map(W, H, beta, lw, lh, K, n), dW_ref, rtol=0, atol=1e-13 * cond * np.abs(dW_ref).max() + tol)
    # Z* = (Kn WH)(Kn WW)^{-1}(Kn HW) and F_1 of eq. (5)
    Z_ref = Kn * Hs[:nh, nh:] @ np.linalg.solve(Hs[nh:, nh:], Hs[nh:, :nh])
    np.testing.assert_allclose(P.Z_star(W, H, lw, K, n), Z_ref, rtol=0, atol=1e-11 * max(1, np.abs(Z_ref).max()))
    F1_ref = (1 - lh / beta) * np.eye(nh) - np.kron(np.eye(Kn), W.T @ W) / beta + Z_ref / beta
    F1 = P.F_first_order(W, H, beta, lw, lh, K, n)
    np.testing.assert_allclose(F1, F1_ref, rtol=0, atol=1e-11 * max(1, np.abs(Z_ref).max()) / beta + 1e-14)
    rng = np.random.default_rng(nh)
    V = rng.standard_normal((nh, 2)) * 1e3
    op = P.F1_operator(W, H, beta, lw, lh, K, n)
    np.testing.assert_allclose(op.matmat(V), F1_ref @ V, rtol=0, atol=1e-9 * np.abs(F1_ref @ V).max())
    np.testing.assert_allclose(op.rmatvec(V[:, 0]), F1_ref.T @ V[:, 0], rtol=0, atol=1e-9 * np.abs(V).max())
    # the exact F as (2 I - F_1)^{-1}, matrix-free (CG): the implicit-function F
    opF = P.F_exact_operator(W, H, beta, lw, lh, K, n)
    np.testing.assert_allclose(opF.matvec(V[:, 0]), F_ref @ V[:, 0], rtol=0, atol=1e-8 * cond * np.abs(F_ref @ V[:, 0]).max())
    # blocks of F, and the five quantities of Thm 5.2 from numpy's SVD
    if K >= 2:
        dn = d * n
        np.testing.assert_array_equal(P.block(F1, 1, 0, d, n), F1[dn:2 * dn, :dn])
        s = P.block_summary(F1_ref, d, K, n, k=0, kt=1)
        sd = np.linalg.svd(F1_ref[:dn, :dn], compute_uv=False)
        so = np.linalg.svd(F1_ref[:dn, dn:2 * dn], compute_uv=False)
        cut = 1e-10 * np.linalg.svd(F1_ref, compute_uv=False)[0]
        assert s["rank_Fkk"] == int((sd > cut).sum()) and s["rank_Fkkt"] == int((so > cut).sum())
        assert math.isclose(s["sigma_max_Fkk"], sd[0], rel_tol=1e-10)
        assert math.isclose(s["sigma_min_Fkk"], sd[-1], rel_tol=1e-8, abs_tol=1e-12 * sd[0])
        assert math.isclose(s["sigma_max_Fkkt"], so[0], rel_tol=1e-10, abs_tol=1e-14)
        with pytest.raises(VerifyInputError):
            P.block_summary(F1_ref, d, K, n, k=1, kt=1)


@REF
@given(points(collapsed=True))
def test_collapsed_spectra_and_closed_form_against_dense_eigenvalues(pt):
    W, H, H0, beta, lw, lh, K, n, d = pt
    Hs, nh = full_hessian(W, H, H0, beta, lw, lh, K, n)
    Kn = K * n
    Z_ref = Kn * Hs[:nh, nh:] @ np.linalg.solve(Hs[nh:, nh:], Hs[nh:, :nh])
    F1 = (1 - lh / beta) * np.eye(nh) - np.kron(np.eye(Kn), W.T @ W) / beta + Z_ref / beta
    F1 = (F1 + F1.T) / 2
    dn = d * n
    tol = 1e-9 * max(1.0, np.abs(F1).max())
    for k in range(K):
        want = np.sort(np.linalg.eigvalsh(F1[k * dn:(k + 1) * dn, k * dn:(k + 1) * dn]))[::-1]
        np.testing.assert_allclose(P.collapsed_block_spectrum(W, H, k, beta, lw, lh, K, n), want, rtol=0, atol=tol)
    kt = (k + 1) % K
    sv = np.linalg.svd(F1[:dn, dn:2 * dn], compute_uv=False)
    np.testing.assert_allclose(P.collapsed_offdiag_singular_values(W, H, 0, 1, beta, lw, K, n), sv, rtol=0, atol=tol)
    assert kt != k or K == 1
    np.testing.assert_allclose(P.collapsed_full_spectrum(W, H, beta, lw, lh, K, n),
                               np.sort(np.linalg.eigvalsh(F1))[::-1], rtol=0, atol=tol)
    # the orthogonally collapsed minimiser: stationary for the UFM loss (autograd), classes collapsed, W H = c Y
    Wt, Ht = torch.tensor(W, requires_grad=True), torch.tensor(H, requires_grad=True)
    val = f_torch(Wt, Ht, torch.zeros(H.shape, dtype=torch.float64), 0.0, lw, lh, K, n)
    gW, gH = torch.autograd.grad(val, [Wt, Ht])
    assert float(gW.abs().max()) < 1e-12 and float(gH.abs().max()) < 1e-12
    assert np.allclose(H, np.repeat(H[:, ::n], n, axis=1), rtol=0, atol=1e-15)
    # the closed-form spectrum (21) of App. D at the minimiser, against F_kk's dense eigenvalues
    got = P.closed_form_Fkk_spectrum(d, K, n, beta, lw, lh)
    want = np.sort(np.linalg.eigvalsh(F1[:dn, :dn]))[::-1]
    np.testing.assert_allclose(got, want, rtol=0, atol=tol)


def central_loss_torch(Ht, lw, lh, K, n):
    d = Ht.shape[0]
    Y = torch.kron(torch.eye(K, dtype=torch.float64), torch.ones(1, n, dtype=torch.float64))
    W = torch.linalg.solve(Ht @ Ht.T + n * lw * torch.eye(d, dtype=torch.float64), Ht @ Y.T).T
    return f_torch(W, Ht, Ht.detach(), 0.0, lw, lh, K, n), W


@REF
@given(points())
def test_loss_hessian_derivative_of_gradient_and_lemma_c4_against_autograd(pt):
    W_, H, H0, beta, lw, lh, K, n, d = pt
    Kn = K * n
    Ht = torch.tensor(H)

    def L(h):
        return central_loss_torch(unvec_t(h, d, Kn), lw, lh, K, n)[0]
    h = vec_t(Ht)
    Hess = torch.autograd.functional.hessian(L, h).numpy()
    M = P.loss_hessian(H, lw, lh, K, n)
    np.testing.assert_allclose(M, Kn * Hess, rtol=0, atol=1e-10 * max(1.0, np.abs(Kn * Hess).max()))
    e = np.linalg.eigvalsh((Kn * Hess + Kn * Hess.T) / 2)
    ratio = max((e[-1] - lh) * 4 * lw, (lh - e[0]) * lw)
    assert math.isclose(P.hessian_extremes_ratio(H, lw, lh, K, n), ratio, rel_tol=1e-8, abs_tol=1e-10)
    c = P.thmC2_sharp_constants(lw, lh, K, n)
    assert e[-1] <= c["kappa_max"] * (1 + 1e-9) and e[0] >= c["kappa_min"] - 1e-9 * abs(c["kappa_min"])
    assert c == pytest.approx({"kappa_max": lh + 1 / (4 * lw), "kappa_min": lh - 1 / lw,
                               "lip": max(1 / lw - lh, lh + 1 / (4 * lw)) / Kn, "rho": 1 / lw - lh,
                               "paper_lip": 11 * lh / Kn, "loose_lip": (10 / lw + lh) / Kn}, rel=1e-15)
    # d/dt grad L(H + t dH) at t = 0: the Hessian applied to dH
    dH = np.random.default_rng(d * Kn).standard_normal(H.shape)
    np.testing.assert_allclose(P.grad_L_derivative_paper(H, dH, lw, lh, K, n), unvec_t(torch.tensor(Hess @ vec_t(torch.tensor(dH)).numpy()), d, Kn).numpy(),
                               rtol=0, atol=1e-9 * max(1.0, np.abs(Hess).max() * np.abs(dH).max()))
    # Lemma C.4's four norms from the definitions (covariances written here, A^{-1/2} by eigh)
    Hbar = H.reshape(d, K, n).mean(axis=2)
    Hc = H - np.repeat(Hbar, n, axis=1)
    ST, SW = H @ H.T / Kn, Hc @ Hc.T / Kn
    A = ST + lw / K * np.eye(d)
    w, V = np.linalg.eigh(A)
    Ais = V @ np.diag(w ** -0.5) @ V.T
    got = P.lemma_c4_norms(H, lw, K, n)
    want = {"13": np.linalg.norm(Ais @ ST @ Ais, 2), "14": np.linalg.norm(Ais @ SW @ Ais, 2),
            "15": np.linalg.norm(Ais @ H, 2), "16": np.linalg.norm(Ais @ Hc, 2)}
    for key, bound in (("13", 1.0), ("14", 1.0), ("15", math.sqrt(Kn)), ("16", math.sqrt(Kn))):
        assert math.isclose(got[key][0], want[key], rel_tol=1e-9) and got[key][1] == bound
        assert want[key] <= bound * (1 + 1e-12)  # the lemma's bounds hold at every H
