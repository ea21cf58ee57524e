"""Tests of verify/numeric/frames/delsarte_lp.py and bounds.py: the Delsarte LP bound for real line packings,
certified exactly, against its ingredients (Gegenbauer polynomials from scipy, positive definiteness on random
points), against known optimal packings (d = 2: regular polygons' lines; d = 3: tetrahedron, icosahedron,
cube), against Welch and Levenstein, and against certified frames (Kerdock + identity meets Levenstein)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.special import eval_chebyt, eval_gegenbauer, eval_legendre

from verify import VerifyInputError
from verify.numeric.frames import bounds as B
from verify.numeric.frames import delsarte_lp as LP


def _poly(coeffs, x: float) -> float:
    return float(sum(float(c) * x ** i for i, c in enumerate(coeffs)))


@pytest.mark.parametrize("d", [2, 3, 5, 17])
def test_gegenbauer_in_x_matches_scipy(d):
    # P_k(t^2) = Q_2k(t), Q_n = C_n^(lambda)(t) / C_n^(lambda)(1), lambda = (d-2)/2 (Chebyshev at d = 2, Legendre at 3)
    P = LP.gegenbauer_x(d, 6)
    ts = np.linspace(-1, 1, 41)
    for k, coeffs in enumerate(P):
        n = 2 * k
        if d == 2:
            ref = eval_chebyt(n, ts)
        elif d == 3:
            ref = eval_legendre(n, ts)
        else:
            lam = (d - 2) / 2
            ref = eval_gegenbauer(n, lam, ts) / eval_gegenbauer(n, lam, 1.0)
        got = np.array([_poly(coeffs, t * t) for t in ts])
        # float evaluation of a degree <= 6 rational polynomial with O(1) coefficients: 1e-9 absolute
        assert np.max(np.abs(got - ref)) < 1e-9
        assert sum(coeffs) == 1  # P_k(1) = 1 exactly


def test_gegenbauer_positive_definite_on_random_points():
    # the LP's one inequality: sum_ij Q_2k(<x_i, x_j>) >= 0 for any unit vectors (here 60 Gaussian points, seed 3)
    rng = np.random.default_rng(3)
    for d in (2, 3, 7):
        X = rng.standard_normal((60, d))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        G = np.clip(X @ X.T, -1, 1)
        vals = LP._q_float(d, 5, G.reshape(-1))
        sums = vals.reshape(6, 60, 60).sum(axis=(1, 2))
        assert sums[0] == 3600 and np.all(sums > -1e-8)  # float sums of 3600 O(1) terms: 1e-8 absolute
        # and the float recurrence agrees with the exact polynomials
        P = LP.gegenbauer_x(d, 5)
        t = G[0, 1:6]
        for k in range(6):
            assert np.allclose(vals[k].reshape(60, 60)[0, 1:6], [_poly(P[k], v * v) for v in t], atol=1e-12)


@pytest.mark.parametrize("n", [3, 5])
def test_plane_lines_regular_polygon(n):
    # in R^2 the best n lines are at angle pi/n: coherence cos(pi/n); the bound must hold and is nearly tight
    b = LP.lp_bound(2, n)
    opt = Fraction(math.cos(math.pi / n)) ** 2
    assert b.x0 < opt                         # valid: strictly below the attained mu^2 (exact comparison)
    assert float(b.x0) > float(opt) - 1e-4    # sharp to 1e-4 (the LP is tight in the plane; certification slack)
    assert b.n_bound < n


@pytest.mark.parametrize("n,mu2", [(4, Fraction(1, 9)), (6, Fraction(1, 5)), (7, Fraction(1, 3))])
def test_space_lines_known_packings(n, mu2):
    # R^3: 4 lines of the tetrahedron (1/3), 6 icosahedron diagonals (1/sqrt 5) - both meet Welch -, and
    # 7 lines (3 axes + 4 cube diagonals, mu = 1/sqrt 3): the bound must stay below each attained mu^2
    b = LP.lp_bound(3, n)
    assert b.x0 < mu2
    w = B.welch_bound_sq(3, n)
    assert float(b.x0) > float(w) - 1e-5  # at least Welch, up to the certification slack (1e-5)
    if n in (4, 6):
        assert float(b.x0) > float(mu2) - 1e-5  # Welch-tight cases: the LP finds them


def test_kerdock_with_identity_is_lp_tight():
    # 2^11 + 64 lines in R^64 at coherence 1/8 exist (certified in test_frame_codes): the LP cannot exceed 1/64
    b = LP.lp_bound(64, 2 ** 11 + 64)
    assert b.x0 < Fraction(1, 64) and float(b.x0) > 1 / 64 - 1e-7
    assert Fraction(B.best_lower_bound(64, 2 ** 11 + 64).value_sq) <= Fraction(1, 64)


@pytest.mark.parametrize("d,n", [(8, 100), (256, 2 ** 20)])
def test_lp_at_least_welch_and_levenstein(d, n):
    b = LP.lp_bound(d, n)
    lev = B.levenstein_bound_sq(d, n)
    ref = max(B.welch_bound_sq(d, n), lev or 0)
    # the LP contains Welch's (K = 1) and Levenstein's (K = 2) polynomials: >= both, up to 1e-6 relative slack
    assert float(b.x0) >= float(ref) * (1 - 1e-6)
    lb = B.best_lower_bound(d, n)
    assert Fraction(lb.value_sq) == max(Fraction(b.x0), ref) and lb.value ** 2 <= Fraction(lb.value_sq)


def test_certificate_recheck_exact_and_independent():
    b = LP.lp_bound(16, 256)
    coeffs = [Fraction(v) for v in b.coefficients]
    # the stored polynomial g / g_0 = 1 + sum_k c_k P_k is dual feasible on its own: same exact bound
    assert LP.certify_lp_polynomial(16, coeffs, b.x0, Fraction(0)) == b.n_bound < 256
    # independent negativity check: flint's certified complex roots (Arb balls) - no real one in [0, x0]
    import flint

    P = LP.gegenbauer_x(16, len(coeffs))
    g = [Fraction(1)] + [Fraction(0)] * len(coeffs)
    for k, c in enumerate(coeffs, start=1):
        for i, v in enumerate(P[k]):
            g[i] += c * v
    poly = flint.fmpq_poly([flint.fmpq(v.numerator, v.denominator) for v in g])
    x0 = flint.arb(flint.fmpq(b.x0.numerator, b.x0.denominator))
    for root, _ in poly.complex_roots():
        maybe_real = root.imag.contains(0)
        in_range = root.real.upper() >= 0 and root.real.lower() <= x0
        assert not (maybe_real and in_range)
    for j in range(101):  # and exact values at 101 rational points
        x = b.x0 * Fraction(j, 100)
        assert sum(gi * x ** i for i, gi in enumerate(g)) < 0


def test_welch_polynomial_exactly():
    # f = Q_0 + a Q_2 with a = (d-1)/(1 - d x0) vanishes at x0: not strictly negative -> refused; with c > 0 it
    # is accepted and the bound is (1 - c + a)/(1 - c), exactly
    d, x0 = 5, Fraction(1, 10)
    a = Fraction(d - 1, 1) / (1 - d * x0)
    assert LP.certify_lp_polynomial(d, [a], x0, Fraction(0)) is None
    c = Fraction(1, 1000)
    assert LP.certify_lp_polynomial(d, [a], x0, c) == (1 - c + a) / (1 - c)
    assert LP.certify_lp_polynomial(d, [a], x0 * 2, c) is None       # past the root: positive part, refused
    assert LP.certify_lp_polynomial(d, [-a], x0, c) is None          # negative coefficient: not dual feasible
    assert LP.certify_lp_polynomial(d, [a, Fraction(0)], x0, Fraction(1)) is None  # g_0 = 0


def test_trivial_and_bad_input():
    assert LP.lp_bound(8, 8).x0 == 0 and B.best_lower_bound(8, 5).value == 0  # orthonormal sets exist
    with pytest.raises(VerifyInputError, match="Argument 'd'"):
        LP.lp_bound(1, 5)
    with pytest.raises(VerifyInputError, match="Argument 'n'"):
        LP.lp_bound(4, 0)
    with pytest.raises(VerifyInputError, match="Argument 'K'"):
        LP.lp_bound(4, 20, K=0)
