r"""Paper N: the branches of the functions behind a claim that its other checks leave unrun (issue 18's coverage).

:mod:`verify.route_map` measures, per claim, the branch coverage of the package functions its checks execute.
The checks here run each claim's own quantity through the inputs a user or the search passes and the other
checks do not - the default frame and rational hyper-parameters of the collapsed point at n = 1, the solver
routes of (2) at an exact collapsed minimiser, the starts of the hypothesis-dropped searches where their ratio is
undefined - each against an independent route (dense eigenvalues, the exact minimiser, numpy's condition number).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

SEED = 1819


class _Draws:
    """A stand-in for ``numpy.random.Generator`` whose ``standard_normal`` returns the given vectors in turn: a
    search start that first lands where the ratio is undefined (a draw a real generator makes with tiny
    probability, so only this way at a fixed cost)."""

    def __init__(self, *xs):
        self.xs = list(xs)

    def standard_normal(self, k):
        x = np.asarray(self.xs.pop(0), dtype=float)
        assert x.shape == (k,)
        return x


@pytest.mark.claim("N-D.1-full-F")
def test_full_F_is_stretched_block_spectrum_at_n1_default_frame_rational_lams(verdict):
    r"""App. D.1 at n = 1 (one sample per class: (21) has no eigenvalue of multiplicity K(n-1) or (d-K)(n-1)),
    d = 3, K = 2, beta = 40, at the collapsed point with the default frame (``seed=None``) and Fraction
    :math:`\lambda_W = 7/10, \lambda_H = 9/10` (the exact sympy route of collapse_rho): the whole spectrum of F
    (``collapsed_full_spectrum``) equals dense eigvalsh of (5) to 1e-11 (float64 eigenvalues of O(1) after O(dK)
    accumulations), and both equal K copies of (21) with the K(K-1) eigenvalues
    :math:`1 - 2\lambda_H(1-c)/\beta` split half to 1 and half to :math:`1 - 4\lambda_H(1-c)/\beta`; the split
    multiset differs from the plain K copies (``spectra_equal``, both ways round)."""
    import sympy

    from verify.numeric import perturbation as P
    from verify.symbolic import perturbation as S

    d, K, n, b = 3, 2, 1, 40.0
    lw, lh = Fraction(7, 10), Fraction(9, 10)
    W, H = P.collapsed_point(d, K, n, lw, lh)
    assert np.array_equal(H[K:], np.zeros((d - K, K * n)))                 # default frame R = [I_K; 0]
    dense = np.sort(np.linalg.eigvalsh(P.F_first_order(W, H, b, 0.7, 0.9, K, n)))[::-1]
    full = P.collapsed_full_spectrum(W, H, b, 0.7, 0.9, K, n)
    assert np.abs(dense - full).max() < 1e-11
    paper = S.paper_Fkk_spectrum(d, K, n)
    assert sum(paper.values()) == d * n
    c = sympy.sqrt(S.lam_H * S.lam_W)
    mid, low = 1 - 2 * S.lam_H * (1 - c) / S.beta, 1 - 4 * S.lam_H * (1 - c) / S.beta
    copies = {e: K * m for e, m in paper.items()}
    split = dict(copies)
    key = next(k for k in split if S._zero(k - mid))
    split[key] -= K * (K - 1)
    split = {e: m for e, m in split.items() if m}
    split[sympy.Integer(1)] = split.get(sympy.Integer(1), 0) + K * (K - 1) // 2
    split[low] = split.get(low, 0) + K * (K - 1) // 2
    assert not S.spectra_equal(split, copies) and not S.spectra_equal(copies, split)
    vals = {S.lam_W: sympy.Rational(7, 10), S.lam_H: sympy.Rational(9, 10), S.beta: 40}
    pred = np.sort([float(e.subs(vals)) for e, m in split.items() for _ in range(m)])[::-1]
    assert np.abs(pred - dense).max() < 1e-11
    verdict.verified(method="num: structured whole spectrum == dense eigvalsh == K copies of (21) split (n = 1, "
                            "default frame, Fraction lams)", evidence={"d": d, "K": K, "n": n, "beta": b,
                                                                        "spectrum": full.tolist()})


@pytest.mark.claim("N-thm4.1-W")
def test_tw_without_positive_lamW_undefined_where_W_star_is_and_start_redrawn(verdict):
    r"""The search objective of Thm 4.1 without :math:`\lambda_W > 0` (:math:`\lambda_W = -e^a`): where
    :math:`HH^\top + n\lambda_WI` is singular (H with :math:`HH^\top = 2I`, a = 0, n = 2: numpy's condition number
    is infinite) :math:`W^*(H)` does not exist and the ratio is nan; ``finite_normal`` redraws such a start and
    returns the next draw, where the ratio is finite and in [-1, 1] (a derivative over the sum of its two terms'
    magnitudes)."""
    from verify import objectives as O

    H = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]])
    bad = np.concatenate([H.ravel(), [0.0, 0.3]])
    assert np.linalg.cond(H @ H.T - 2 * np.eye(2)) > 1e8                 # the independent singularity test
    assert np.isnan(O.tw_negative_lamW_violation(bad))
    good = np.random.default_rng(SEED).standard_normal(10)
    x = O.finite_normal(_Draws(bad, good), O.tw_negative_lamW_violation, 10)
    v = O.tw_negative_lamW_violation(x)
    assert np.array_equal(x, good) and np.isfinite(v) and -1 <= v <= 1
    verdict.verified(method="num: ratio nan at a singular HH^T + n lam_W I (cond = inf); the start redrawn",
                     evidence={"ratio_at_redrawn_start": float(v), "seed": SEED})


@pytest.mark.claim("N-lemC.4")
def test_lemc4_without_positive_lamW_undefined_at_singular_sigma_T_and_start_redrawn(verdict):
    r"""The search objective of Lemma C.4 without :math:`\lambda_W > 0`: at an H whose last row is zero,
    :math:`\tilde\Sigma_T` is singular (its smallest eigenvalue, by numpy, is 0), no :math:`\lambda_W < 0` keeps
    :math:`\mathbf A \succ 0`, and the ratio is nan; ``finite_normal`` redraws and returns the next draw, whose ratio
    is finite and positive (the largest of four generalised eigenvalue ratios of PSD pencils)."""
    from verify import objectives as O
    from verify.numeric import ufm

    rng = np.random.default_rng(SEED + 1)
    H = rng.standard_normal((3, 4))
    H[2] = 0.0
    bad = np.concatenate([H.ravel(), [0.5]])
    assert np.linalg.eigvalsh(ufm.covariances(H, 2)["Sigma_T_tilde"]).min() <= 1e-9
    assert np.isnan(O.lemc4_negative_lamW_ratio(bad))
    good = rng.standard_normal(13)
    x = O.finite_normal(_Draws(bad, good), O.lemc4_negative_lamW_ratio, 13)
    v = O.lemc4_negative_lamW_ratio(x)
    assert np.array_equal(x, good) and np.isfinite(v) and v > 0
    verdict.verified(method="num: ratio nan at a singular Sigma_T~ (numpy eigenvalue 0); the start redrawn",
                     evidence={"ratio_at_redrawn_start": float(v), "seed": SEED + 1})


@pytest.mark.claim("N-thm2.2")
def test_collapsed_minimiser_is_found_by_every_solver_route_of_2(verdict, monkeypatch):
    r"""Thm 2.2's collapsed minimiser :math:`H^*` (exact, d = 3, K = 2, n = 1, rational Cayley frame) is the point
    every route of ``solve_perturbed`` returns from :math:`H_0 = H^*` (beta = 4): exact-typed H0, 3 seeded starts,
    no polish, a refused polish (the tolerances of ``test_routes_N_arithmetic``), mpmath Newton at 30 digits
    (within 1e-12) - each returns :math:`H^*`, whose class means satisfy :math:`\bar H^\top\bar H = \rho I` with
    :math:`\rho` = collapse_rho exactly."""
    import mpmath

    from proofs_checks.test_routes_N_arithmetic import _assert_routes_find, _collapsed, _solver_routes
    from verify.numeric import ufm

    a, b = Fraction(3, 4), Fraction(2, 3)
    H, W, lw, lh, c = _collapsed(a, b, 3, 2, 1, 3)
    assert 0 < c < 1
    Hbar = ufm.class_means(np.array(H, dtype=float), 2)
    assert np.abs(Hbar.T @ Hbar - float(a * a) * np.eye(2)).max() <= 1e-15     # rho = a^2 (float rounding)
    scale = float(np.sqrt(float(sum(v * v for v in H.flat))))
    # mp=True: the mpmath Newton route at 30 digits too (6 unknowns); checked here against the exact H* itself
    routes = _solver_routes(H, Fraction(4), lw, lh, 2, monkeypatch, mp=True)
    Hm = routes.pop("mpmath30_mp")
    _assert_routes_find(H, H, Fraction(4), lw, lh, 2, routes, scale)
    # within 1e-12 of H*: H0's float64 image is within 1e-16 of H*, times the O(1) condition of H0 -> H at beta = 4
    assert max(abs(Fraction(*mpmath.libmp.to_rational(v._mpf_)) - q) for v, q in zip(Hm.flat, H.flat)) \
        <= Fraction(1, 10 ** 12) * Fraction(scale)
    verdict.verified(method="num: every solve_perturbed route from H0 = H* returns the exact collapsed H*",
                     evidence={"routes": sorted(routes), "a": str(a), "b": str(b)})
