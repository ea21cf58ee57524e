"""Helpers of the routes checks of paper N (both parts): points of the UFM in every arithmetic (float,
exact rationals, mpmath), the ladder of arithmetics, the exact collapsed minimiser.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import numpy as np
import sympy

from verify.numeric import ufm


def _point(rng, d, K, n, scale):
    """A rational H (d x Kn, entries k/8 times ``scale``, class means apart) as an object array of Fractions."""
    means = rng.integers(-12, 13, (d, K))
    raw = np.repeat(means, n, axis=1) + rng.integers(-6, 7, (d, K * n))
    H = np.array([[Fraction(int(v), 8) * scale for v in row] for row in raw], dtype=object)
    H[0, 1] = Fraction(int(raw[0, 1]) or 3)          # one integral entry: the exact route's int branch
    return H


def _mixed(Hq, types=(Fraction, sympy.Rational, flint.fmpq, int)):
    """The same exact matrix with every entry type the exact route accepts: int (every integral entry but the
    first), Fraction, sympy Rational, flint fmpq, cycled over the others (the first entry a Fraction: the route is
    chosen by it). The points here have an integral entry, so every type occurs (``types``: those required)."""
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
    assert {type(x) for x in out.flat} >= set(types)   # every branch is taken
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


# --------------------------------------------------------------------------- the perturbed model (2) by every route
def _like(A, H):
    """``A`` (Fractions) in the arithmetic of ``H``: mpmath entries for an mpmath ``H``, float64 for a float one,
    as is (exact) otherwise - the H0 a user of that arithmetic passes."""
    first = np.ravel(H)[0]
    if isinstance(first, mpmath.mpf):
        return ufm.as_mp(A)
    return np.array(A, dtype=float) if isinstance(first, float) else A


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
