r"""Paper N: the three arithmetics of the central-path closed forms, each a route of the claims that use them.

:mod:`verify.numeric.ufm` writes each closed form once and evaluates it in the arithmetic the entries of ``H``
select: float64 arrays, object arrays of exact rationals (``flint.fmpq``, ``Fraction``, sympy ``Rational`` or
integers, converted entry by entry) and object arrays of ``mpmath.mpf``. A user reaches every one of them with
the claim's own inputs, so each claim's quantity is computed here by all of them at one rational point: the
exact route with mixed entry types equals the exact route with Fractions exactly, mpmath at 30 digits equals it
to 25 digits, float64 to 1e-12; then the claim's statement is asserted on the exact value, both sides where it is
a bound. Points have d > K, non-unit scales and non-zero class means, so a dropped scale or a wrong exponent shows.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest
import sympy

from verify.numeric import ufm

SEED = 1803


def _point(rng, d, K, n, scale):
    """A rational H (d x Kn, entries k/8 times ``scale``, class means apart) as an object array of Fractions."""
    means = rng.integers(-12, 13, (d, K))
    raw = np.repeat(means, n, axis=1) + rng.integers(-6, 7, (d, K * n))
    H = np.array([[Fraction(int(v), 8) * scale for v in row] for row in raw], dtype=object)
    H[0, 1] = Fraction(int(raw[0, 1]) or 3)          # one integral entry: the exact route's int branch
    return H


def _mixed(Hq):
    """The same exact matrix with every entry type the exact route accepts: int (every integral entry but the
    first), Fraction, sympy Rational, flint fmpq, cycled over the others (the first entry a Fraction: the route is
    chosen by it). The points here have an integral entry, so every type occurs."""
    out = np.empty(Hq.shape, dtype=object)
    for i, v in enumerate(Hq.flat):
        kind = i % 4
        if v.denominator == 1 and i > 0:
            out.flat[i] = int(v)
        elif kind == 2:
            out.flat[i] = sympy.Rational(v.numerator, v.denominator)
        elif kind == 3:
            out.flat[i] = flint.fmpq(v.numerator, v.denominator)
        else:
            out.flat[i] = v
    assert {type(x) for x in out.flat} >= {Fraction, sympy.Rational, flint.fmpq, int}   # every branch is taken
    return out


def _frac(v):
    """An exact or mpmath number as a Fraction (exactly: fmpq via its string, mpf via its binary value)."""
    if isinstance(v, mpmath.mpf):
        return Fraction(*mpmath.libmp.to_rational(v._mpf_))
    return Fraction(str(v))


def _as_fractions(x):
    return np.vectorize(_frac, otypes=[object])(np.asarray(x, dtype=object))


def ladder(f, Hq, lw, lh, K):
    r"""``f(H, lam_W, lam_H, K)`` by every arithmetic of :mod:`~verify.numeric.ufm` at the rational point ``Hq``;
    returns the exact value (Fractions). Asserts: exact (Fraction entries) == exact (mixed entry types, scalars
    as fmpq and sympy) exactly; mpmath at dps 30 (entries converted from the mixed types, scalars Fraction and
    sympy) within 1e-25 relative; float64 within 1e-12 relative (closed forms through one d x d inverse of
    condition < 1e3 at these points)."""
    exact = _as_fractions(f(Hq, lw, lh, K))
    mixed = _as_fractions(f(_mixed(Hq), flint.fmpq(lw.numerator, lw.denominator), sympy.Rational(lh), K))
    assert np.array_equal(exact, mixed)
    size = max(abs(v) for v in np.ravel(exact)) or Fraction(1)
    with mpmath.workdps(30):
        mp = f(ufm.as_mp(_mixed(Hq)), lw, sympy.Rational(lh), K)
        assert isinstance(np.ravel(np.asarray(mp, dtype=object))[0], mpmath.mpf)      # the mpmath route ran
        err = max(abs(a - b) for a, b in zip(np.ravel(_as_fractions(mp)), np.ravel(exact)))
        assert err <= Fraction(1, 10 ** 25) * size, float(err / size)
    fl = np.asarray(f(np.array(Hq, dtype=float), float(lw), float(lh), K), dtype=float)
    assert np.abs(fl - np.asarray(exact, dtype=float)).max() <= 1e-12 * float(size)
    return exact


def _grad_eq7_literal(H, lw, lh, K):
    r"""(7) as printed: :math:`\frac1{K^2n}(C(H-\bar H\otimes1_n^\top) - C(\Sigma_W+\frac{\lambda_W}KI)CH +
    \lambda_HKH)`, :math:`C = (\tilde\Sigma_T+\frac{\lambda_W}KI)^{-1}`, from the covariances (not the code's
    class-mean form)."""
    H, K, n, kind = ufm._prepare(H, K)
    lw, lh = ufm._scalar(lw, kind), ufm._scalar(lh, kind)
    c = ufm.covariances(H, K)
    eye = ufm._eye(H.shape[0], kind)
    C = ufm._inv(c["Sigma_T_tilde"] + eye * (lw / K), kind)
    Hc = H - np.repeat(c["Hbar"], n, axis=1)
    return (C @ Hc - C @ (c["Sigma_W"] + eye * (lw / K)) @ C @ H + H * (lh * K)) / (K * K * n)


CASES = [(3, 2, 2, Fraction(7, 5), Fraction(3, 10), Fraction(3, 2)), (4, 3, 1, Fraction(2, 9), Fraction(0), Fraction(5, 4))]


@pytest.mark.claim("N-L-closed")
def test_loss_closed_form_equals_definition_in_every_arithmetic(verdict):
    r"""App. A's closed form of :math:`\mathcal L(H)` equals objective (1) at :math:`(W^*(H), H)` (the definition,
    :func:`~verify.numeric.ufm.central_path_loss_direct`) exactly, each computed by the exact (mixed entry types),
    mpmath and float64 routes; d = 3, 4 > K, :math:`\lambda_H = 0` in one case."""
    rng = np.random.default_rng(SEED)
    rows = []
    for d, K, n, lw, lh, s in CASES:
        Hq = _point(rng, d, K, n, s)
        closed = ladder(ufm.central_path_loss, Hq, lw, lh, K)
        definition = ladder(ufm.central_path_loss_direct, Hq, lw, lh, K)
        assert closed == definition and closed > 0
        rows.append({"d": d, "K": K, "n": n, "lam_W": str(lw), "lam_H": str(lh), "L": str(closed)})
    verdict.verified(method="exact (fmpq from int/Fraction/sympy/fmpq) == mpmath dps 30 == float64; closed form == "
                            "definition exactly", evidence={"cases": rows, "seed": SEED})


@pytest.mark.claim("N-eq7")
def test_gradient_code_equals_printed_eq7_in_every_arithmetic(verdict):
    r"""The code's gradient (the class-mean form, Cholesky in float64, an inverse otherwise) equals (7) as printed,
    written out from the covariances here, exactly, by every arithmetic; and it is the derivative of
    :math:`\mathcal L`: the exact difference quotient of the closed form along a rational direction V (step
    :math:`h = 2^{-20}`) is within :math:`O(h)` of :math:`\langle\nabla\mathcal L, V\rangle`."""
    rng = np.random.default_rng(SEED + 1)
    rows = []
    for d, K, n, lw, lh, s in CASES:
        Hq = _point(rng, d, K, n, s)
        g = ladder(ufm.grad_central_path_loss, Hq, lw, lh, K)
        assert np.array_equal(g, ladder(_grad_eq7_literal, Hq, lw, lh, K))
        V = _point(rng, d, K, n, Fraction(1))
        h = Fraction(1, 2 ** 20)
        q = (_frac(ufm.central_path_loss(Hq + V * h, lw, lh, K)) - _frac(ufm.central_path_loss(Hq, lw, lh, K))) / h
        dd = sum(a * b for a, b in zip(g.flat, V.flat))
        # forward difference of a smooth rational function: error h * |second derivative| ~ 1e-6 |dd| at most here
        assert abs(q - dd) <= Fraction(1, 10 ** 4) * max(1, abs(dd)), (float(q), float(dd))
        rows.append({"d": d, "K": K, "n": n, "directional": float(dd), "difference_quotient": float(q)})
    verdict.verified(method="exact/mpmath/float64 gradient == printed (7) exactly; exact difference quotient",
                     evidence={"cases": rows, "seed": SEED + 1})


@pytest.mark.claim("N-lemB.1")
def test_lemma_b1_bound_in_every_arithmetic_and_tight(verdict):
    r""":math:`\|\nabla\mathcal L(H)\|_F^2 \le ((3/\lambda_W+\lambda_H)/(Kn))^2\|H\|_F^2` compared exactly (squares:
    no root) at the exact gradient, itself equal across the three arithmetics; two-sided: at
    :math:`\lambda_W = 10^6, \lambda_H = 1` (where :math:`\nabla\mathcal L \to \lambda_H H/(Kn)`) the squared ratio
    exceeds :math:`1 - 10^{-4}`, so a weakened gradient (a lost factor K) fails."""
    rng = np.random.default_rng(SEED + 2)
    rows = []
    for d, K, n, lw, lh, s in [*CASES, (3, 2, 2, Fraction(10 ** 6), Fraction(1), Fraction(3, 2))]:
        Hq = _point(rng, d, K, n, s)
        g = ladder(ufm.grad_central_path_loss, Hq, lw, lh, K)
        lhs = sum(v * v for v in g.flat)
        rhs = ((3 / lw + lh) / (K * n)) ** 2 * sum(v * v for v in Hq.flat)
        ratio_sq = lhs / rhs
        assert 0 < ratio_sq <= 1
        if lw == 10 ** 6:
            assert ratio_sq > 1 - Fraction(1, 10 ** 4)
        rows.append({"d": d, "K": K, "n": n, "lam_W": str(lw), "lam_H": str(lh), "ratio_sq": float(ratio_sq)})
    verdict.verified(method="exact: squared bound at the exact gradient (equal across exact/mpmath/float64); tight "
                            "at large lam_W", evidence={"cases": rows, "seed": SEED + 2})


def _collapsed(a, b, d, K, n, seed):
    """An exact collapsed minimiser (:func:`verify.symbolic.perturbation.rational_collapsed_point`: a rational Cayley
    frame R, :math:`\\sigma_{\\bar H} = a`, :math:`\\sigma_W = b`) as Fractions, with its lam_W, lam_H and c."""
    from verify.symbolic import perturbation as S

    # a zero row appended to a Cayley frame of Q^{(d-1) x K}: still orthonormal columns, and H* gets integral (zero)
    # entries, so the exact route's int branch runs too
    R = S.cayley_frame(d - 1, K, seed=seed).col_join(sympy.zeros(1, K))
    pt = S.rational_collapsed_point(sympy.Rational(a), sympy.Rational(b), R, n)
    to_q = lambda M: np.array([[Fraction(int(v.p), int(v.q)) for v in row] for row in M.tolist()], dtype=object)  # noqa: E731
    return to_q(pt["H"]), to_q(pt["W"]), *(Fraction(int(pt[k].p), int(pt[k].q)) for k in ("lam_W", "lam_H", "c"))


# (a, b, d, K, n, Cayley seed): d > K, a, b away from 1 (non-unit scales of H* and W*)
COLLAPSED = [(Fraction(2, 3), Fraction(3, 5), 4, 2, 3, 1), (Fraction(5, 4), Fraction(1, 3), 4, 3, 2, 2)]


@pytest.mark.claim("N-D-residual")
def test_residual_minus_cY_with_W_from_optimal_W_in_every_arithmetic(verdict):
    r""":math:`W^*H^* - Y = -cY` at exact collapsed minimisers, with :math:`W^* = YH^{*\top}(H^*H^{*\top} +
    n\lambda_WI)^{-1}` computed by :func:`~verify.numeric.ufm.optimal_W` (an independent route to the collapsed
    :math:`W^*`, equal to it exactly) in every arithmetic."""
    rows = []
    for a, b, d, K, n, seed in COLLAPSED:
        H, W, lw, lh, c = _collapsed(a, b, d, K, n, seed)
        Wopt = ladder(lambda H_, lw_, lh_, K_: ufm.optimal_W(H_, lw_, K_), H, lw, lh, K)
        assert np.array_equal(Wopt, W)
        Y = np.kron(np.eye(K, dtype=int), np.ones((1, n), dtype=int)).astype(object)
        assert np.array_equal(Wopt @ H - Y, -c * Y) and 0 < c < 1
        rows.append({"d": d, "K": K, "n": n, "lam_W": str(lw), "lam_H": str(lh), "c": str(c)})
    verdict.verified(method="exact: optimal_W (exact/mpmath/float64 routes) at rational collapsed minimisers; "
                            "W*H* - Y = -cY exactly", evidence={"cases": rows})


@pytest.mark.claim("N-minimisers-R")
def test_collapsed_point_is_stationary_with_value_c_minus_half_c2_in_every_arithmetic(verdict):
    r"""At exact collapsed minimisers built from a rational partial orthonormal R: the gradient (7) of
    :math:`\mathcal L` vanishes exactly and :math:`\mathcal L(H^*)` equals objective (1) at :math:`(W^*, H^*)`,
    :math:`c - c^2/2`, exactly - each by every arithmetic; and a perturbed point has a larger loss (a minimum,
    not only a stationary point, along a rational direction)."""
    rng = np.random.default_rng(SEED + 3)
    rows = []
    for a, b, d, K, n, seed in COLLAPSED:
        H, W, lw, lh, c = _collapsed(a, b, d, K, n, seed)
        g = ladder(ufm.grad_central_path_loss, H, lw, lh, K)
        assert all(v == 0 for v in g.flat)
        L = ladder(ufm.central_path_loss, H, lw, lh, K)
        # W as fmpq: ufm_objective converts H's entries but not W's (Fraction W with exact H raises TypeError)
        f = _frac(ufm.ufm_objective(ufm.as_exact(W), H, lw, lh, K))
        assert L == f == c - c * c / 2
        V = _point(rng, d, K, n, Fraction(1, 16))
        assert _frac(ufm.central_path_loss(H + V, lw, lh, K)) > L
        rows.append({"d": d, "K": K, "n": n, "c": str(c), "value": str(L)})
    verdict.verified(method="exact: zero gradient, value c - c^2/2 (exact/mpmath/float64 routes), larger nearby",
                     evidence={"cases": rows, "seed": SEED + 3})


@pytest.mark.claim("N-thm2.2")
def test_collapsed_minimiser_form_exact_in_every_arithmetic(verdict):
    r"""Thm 2.2's form of the minimiser at exact collapsed points: :math:`W^*(H^*)` by
    :func:`~verify.numeric.ufm.optimal_W` (every arithmetic) equals :math:`\sqrt{\lambda_H/\lambda_W}\bar H^{*\top}`
    exactly, :math:`\bar H^{*\top}\bar H^* = \rho I` with :math:`\rho` = :func:`~verify.numeric.ufm.collapse_rho` on
    exact rational input (its sympy route) and by float input; and for :math:`c = \sqrt{\lambda_W\lambda_H} > 1`
    both routes give :math:`\rho = 0` (the zero minimiser)."""
    rows = []
    for a, b, d, K, n, seed in COLLAPSED:
        H, W, lw, lh, c = _collapsed(a, b, d, K, n, seed)
        Wopt = ladder(lambda H_, lw_, lh_, K_: ufm.optimal_W(H_, lw_, K_), H, lw, lh, K)
        Hbar = _as_fractions(ufm.class_means(H, K))
        assert np.array_equal(Wopt, (b / a) * Hbar.T)              # sqrt(lH/lW) = b/a exactly here
        rho = ufm.collapse_rho(lw, lh)                            # exact: sympy
        assert sympy.Rational(rho) == sympy.Rational(a.numerator ** 2, a.denominator ** 2) and rho != 0
        assert np.array_equal(Hbar.T @ Hbar, np.eye(K, dtype=int) * Fraction(int(sympy.numer(rho)), int(sympy.denom(rho))))
        assert abs(ufm.collapse_rho(float(lw), float(lh)) - float(rho)) <= 1e-15 * float(rho)   # two float roundings
        rows.append({"d": d, "K": K, "n": n, "c": str(c), "rho": str(rho)})
    big = (Fraction(3), Fraction(1, 2))                            # c = sqrt(3/2) > 1
    assert ufm.collapse_rho(*big) == 0 and ufm.collapse_rho(*map(float, big)) == 0.0
    verdict.verified(method="exact: optimal_W (exact/mpmath/float64) == sqrt(lH/lW) Hbar^T; Hbar^T Hbar = rho I with "
                            "collapse_rho exact and float; rho = 0 for c > 1", evidence={"cases": rows})
