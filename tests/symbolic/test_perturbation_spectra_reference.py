r"""App. C-D of paper N in sympy (:mod:`verify.symbolic.perturbation`: ``exact_F1``, ``exact_loss_hessian``,
``collapsed_F`` and the derived spectra, the paper's spectrum, ``spectra_equal``, ``to_pq`` / ``to_lams``) against
references written here: problem (2)'s objective in torch (float64) and its full Hessian by autograd, from which
:math:`\mathbf Z^*` and :math:`\mathbf F_1` follow as blocks (no Kronecker formulas), the loss Hessian of
:math:`\mathcal L(H) = f(W^*(H), H)` by autograd, and every spectrum by numpy's dense eigen / singular value routines
at the numerically collapsed minimiser (an orthonormal frame other than :math:`[I_K; 0]`), for several
:math:`(\lambda_H, \lambda_W, \beta)`.
"""

import numpy as np
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.numeric.perturbation import collapsed_point
from verify.symbolic import perturbation as SP

REF = settings.get_profile("reference")


def labels_t(K, n):
    return torch.kron(torch.eye(K, dtype=torch.float64), torch.ones(1, n, dtype=torch.float64))


def F1_and_Z(W, H, beta, lw, lh, K, n):
    """F_1 of eq. (5) and Z* from the autograd Hessian of f in (vec H, vec W)."""
    d = H.shape[0]
    nh, Kn = d * K * n, K * n

    def f(z):
        Hm = z[:nh].reshape(K * n, d).T
        Wm = z[nh:].reshape(d, K).T
        return (((Wm @ Hm - labels_t(K, n)) ** 2).sum() / (2 * Kn) + lw / (2 * K) * (Wm ** 2).sum()
                + lh / (2 * Kn) * (Hm ** 2).sum())
    z = torch.cat([torch.tensor(H).T.reshape(-1), torch.tensor(W).T.reshape(-1)])
    Hs = torch.autograd.functional.hessian(f, z).numpy()
    Z = Kn * Hs[:nh, nh:] @ np.linalg.solve(Hs[nh:, nh:], Hs[nh:, :nh])
    F1 = (1 - lh / beta) * np.eye(nh) - np.kron(np.eye(Kn), W.T @ W) / beta + Z / beta
    return F1, Z


def as_float(M):
    return np.array(M.tolist(), dtype=float)


@REF
@given(st.integers(2, 3), st.integers(1, 2), st.data())
def test_exact_F1_and_loss_hessian_against_autograd(K, n, data):
    d = K + 1
    rq = lambda: sympy.Rational(data.draw(st.integers(-6, 6)), data.draw(st.integers(1, 3)))  # noqa: E731
    W = sympy.Matrix(K, d, lambda i, j: rq())
    H = sympy.Matrix(d, K * n, lambda i, j: rq())
    beta = sympy.Rational(data.draw(st.integers(1, 200)), 2)
    lw = sympy.Rational(data.draw(st.integers(1, 20)), 10)
    lh = sympy.Rational(data.draw(st.integers(1, 20)), 10)
    F, Z = SP.exact_F1(W, H, beta, lw, lh, K, n, return_Z=True)
    F1r, Zr = F1_and_Z(as_float(W), as_float(H), float(beta), float(lw), float(lh), K, n)
    scale = max(1.0, np.abs(Zr).max())
    np.testing.assert_allclose(as_float(Z), Zr, rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(as_float(F), F1r, rtol=0, atol=1e-9 * scale / float(beta) + 1e-14)
    # the loss Hessian M(H) = Kn Hess L(H), L(H) = f(W*(H), H)
    Hf = as_float(H)
    Kn = K * n

    def L(h):
        Hm = h.reshape(K * n, d).T
        Wm = torch.linalg.solve(Hm @ Hm.T + n * float(lw) * torch.eye(d, dtype=torch.float64), Hm @ labels_t(K, n).T).T
        return (((Wm @ Hm - labels_t(K, n)) ** 2).sum() / (2 * Kn) + float(lw) / (2 * K) * (Wm ** 2).sum()
                + float(lh) / (2 * Kn) * (Hm ** 2).sum())
    Hess = torch.autograd.functional.hessian(L, torch.tensor(Hf).T.reshape(-1)).numpy() * Kn
    M = as_float(SP.exact_loss_hessian(H, lw, lh, K, n))
    np.testing.assert_allclose(M, Hess, rtol=0, atol=1e-8 * max(1.0, np.abs(Hess).max()))


def multiset_values(spec: dict, sub: dict) -> np.ndarray:
    return np.sort(np.concatenate([np.full(m, complex(sympy.N(e.subs(sub), 30)).real) for e, m in spec.items()]))


@settings(REF, max_examples=max(6, REF.max_examples // 3))
@given(st.sampled_from([(3, 2, 1), (3, 2, 2), (4, 2, 1), (4, 3, 1)]), st.sampled_from([0.05, 0.3, 0.9]),
       st.sampled_from([0.2, 0.7, 2.0]), st.sampled_from([3.0, 40.0, 1e3]), st.integers(0, 5))
def test_collapsed_spectra_against_dense_eigenvalues(dims, lw, lh, beta, seed):
    d, K, n = dims
    if lw * lh >= 1:
        lh = 0.5 / lw
    W, H = collapsed_point(d, K, n, lw, lh, seed=seed)
    F1, _ = F1_and_Z(W, H, beta, lw, lh, K, n)
    F1 = (F1 + F1.T) / 2
    dn = d * n
    sub = {SP.lam_W: sympy.nsimplify(lw), SP.lam_H: sympy.nsimplify(lh), SP.beta: sympy.nsimplify(beta)}
    tol = 1e-9 * max(1.0, np.abs(F1).max())
    blk = F1[:dn, :dn]
    np.testing.assert_allclose(multiset_values(SP.Fkk_spectrum(d, K, n), sub), np.sort(np.linalg.eigvalsh(blk)),
                               rtol=0, atol=tol)
    np.testing.assert_allclose(multiset_values(SP.paper_Fkk_spectrum(d, K, n), sub), np.sort(np.linalg.eigvalsh(blk)),
                               rtol=0, atol=tol)
    np.testing.assert_allclose(multiset_values(SP.full_F_spectrum(d, K, n), sub), np.sort(np.linalg.eigvalsh(F1)),
                               rtol=0, atol=tol)
    off = F1[:dn, dn:2 * dn]
    sv = SP.Fkk_tilde_singular_values(d, K, n)
    np.testing.assert_allclose(multiset_values(sv["squared_singular_values"], sub),
                               np.sort(np.linalg.svd(off, compute_uv=False) ** 2), rtol=0, atol=tol)
    np.testing.assert_allclose(multiset_values(sv["eigenvalues"], sub), np.sort(np.linalg.eigvals(off).real),
                               rtol=0, atol=1e-7)
    # collapsed_F itself (at R = [I_K; 0]): the same spectrum, in p = sqrt(lam_H), q = sqrt(lam_W)
    Fc = SP.collapsed_F(d, K, n).subs({SP.p: sympy.sqrt(sub[SP.lam_H]), SP.q: sympy.sqrt(sub[SP.lam_W]),
                                       SP.beta: sub[SP.beta]})
    np.testing.assert_allclose(np.sort(np.linalg.eigvalsh(as_float(Fc.evalf(30)))), np.sort(np.linalg.eigvalsh(F1)),
                               rtol=0, atol=tol)


@REF
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 3), st.integers(1, 4)), min_size=1, max_size=4,
                unique_by=lambda t: t[:2]), st.integers(0, 3), st.integers(1, 9), st.integers(1, 9))
def test_spectra_equal_and_the_pq_substitutions(items, which, pn, qn):
    L, Wv, b = SP.lam_H, SP.lam_W, SP.beta
    spec = {sympy.Integer(a) + sympy.Integer(c) * sympy.sqrt(L / Wv) / b: m for a, c, m in items}
    # the same multiset written differently (expanded over a common denominator, reordered)
    same = {sympy.together(e): m for e, m in reversed(list(spec.items()))}
    assert SP.spectra_equal(spec, same) and SP.spectra_equal(same, spec)
    key = list(spec)[which % len(spec)]
    assert not SP.spectra_equal(spec, {**spec, key: spec[key] + 1})
    assert not SP.spectra_equal(spec, {(k + 1 / b if k == key else k): m for k, m in spec.items()})
    assert not SP.spectra_equal(spec, {**spec, sympy.Integer(7) + b: 1})
    # to_pq / to_lams: lam_H = p^2, lam_W = q^2, both ways, at a point
    e = sum(spec)
    pv, qv, bv = sympy.Rational(pn, 3), sympy.Rational(qn, 4), sympy.Rational(5, 2)
    at_l = e.subs({L: pv ** 2, Wv: qv ** 2, b: bv})
    assert sympy.simplify(SP.to_pq(e).subs({SP.p: pv, SP.q: qv, b: bv}) - at_l) == 0
    assert sympy.simplify(SP.to_lams(SP.to_pq(e)) - e) == 0
