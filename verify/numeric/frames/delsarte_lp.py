r"""Layer 0 of :mod:`verify.numeric.frames`: the Delsarte linear-programming bound for real line packings,
solved with scipy's LP and **certified exactly** (a rational dual-feasible polynomial checked in exact
arithmetic), so the lower bound on coherence it reports is a theorem, not a float.

Derivation. Let :math:`Q_k` be the Gegenbauer polynomials of :math:`S^{d-1}` normalised by
:math:`Q_k(1) = 1`: :math:`Q_0 = 1`, :math:`Q_1 = t`,
:math:`(k+d-2)\,Q_{k+1}(t) = (2k+d-2)\,t\,Q_k(t) - k\,Q_{k-1}(t)` (for :math:`d = 2` Chebyshev, :math:`d = 3`
Legendre). They are positive definite on the sphere: :math:`\sum_{i,j} Q_k(\langle x_i, x_j\rangle) \ge 0`
for any unit vectors. Take N unit vectors with coherence :math:`\mu`, i.e. every
:math:`t = \langle x_i, x_j\rangle` (:math:`i \ne j`) in the angle set :math:`[-\mu, \mu]`, and an even
polynomial :math:`f(t) = \sum_{k \le K} f_k Q_{2k}(t)` with :math:`f_0 > 0`, :math:`f_k \ge 0` and
:math:`f(t) \le 0` on :math:`[-\mu, \mu]`. Then

.. math:: N^2 f_0 \le \sum_k f_k \sum_{i,j} Q_{2k}(\langle x_i, x_j\rangle) = \sum_{i,j} f(\langle x_i, x_j\rangle)
          \le N f(1) \quad\Longrightarrow\quad N \le f(1)/f_0 .

Only even degrees enter (lines: :math:`\pm x` are the same line, and :math:`Q_{2k}` is even), so with
:math:`x = t^2` the conditions live on :math:`[0, \mu^2]` and :math:`P_k(x) = Q_{2k}(\sqrt x)` is a polynomial
with rational coefficients (a Jacobi polynomial :math:`P_k^{((d-3)/2, -1/2)}(2x - 1)` up to normalisation).
Hence: **if such an f with** :math:`f \le 0` **on** :math:`[0, x_0]` **has** :math:`f(1)/f_0 < N`, **every N
lines in** :math:`\mathbb R^d` **have** :math:`\mu^2 > x_0`. Degree 1 in x (:math:`f = Q_0 + c\,Q_2`) gives the
Welch bound, degree 2 the Levenstein bound; higher degrees can only improve them.

Certificate. The LP (minimise :math:`f(1)` with :math:`f_0 = 1`, :math:`f_k \ge 0`, :math:`f \le 0` on a grid
of :math:`[0, x_0]`) is solved in floats and bisected on :math:`x_0`; the solution is rounded to rationals
(:math:`f_k \ge 0` exactly), a rational :math:`c \ge \max_{[0,x_0]} f` is proved by Sturm's theorem
(``f - c`` has no real root in :math:`[0, x_0]` and is negative at 0, exact over :math:`\mathbb Q`), and
:math:`g = f - c` is the dual-feasible polynomial: :math:`g_0 = 1 - c > 0`, the bound is
:math:`(f(1) - c)/(1 - c)`, an exact rational, checked :math:`< N`.

>>> b = lp_bound(3, 6)                    # six lines in R^3 (icosahedron diagonals): mu = 1/sqrt(5)
>>> 0.2 - 1e-6 < float(b.x0) < 0.2, b.n_bound < 6
(True, True)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from ..._validate import VerifyInputError, verify_int

__all__ = ["gegenbauer_x", "lp_value", "lp_bound", "LPBound", "certify_lp_polynomial"]

#: default largest degree in x = t^2 (degree 2K in t); K = 1 is Welch's polynomial, K = 2 Levenstein's
LP_DEGREE = 10
#: grid points of [0, x0] in the float LP (Chebyshev nodes, denser near both ends where the optimum touches)
LP_GRID = 300
#: bisection steps on x0 (2^-32 of [0, 1]: far below the certification slack)
BISECT_STEPS = 32
#: the bisection aims at an LP value below n (1 - TARGET_SLACK): room for the exact certificate's rounding and c
TARGET_SLACK = 1e-6


@lru_cache(maxsize=64)
def gegenbauer_x(d: int, K: int) -> tuple:
    r"""Exact :math:`P_k(x) = Q_{2k}(\sqrt x)` for :math:`k = 0..K` as tuples of ``Fraction`` power-basis
    coefficients in x (lowest first), from the three-term recurrence in t with exact rationals."""
    d = verify_int(d, "d", minimum=2)
    K = verify_int(K, "K", minimum=0)
    # polynomials in t as coefficient lists (lowest first)
    Q = [[Fraction(1)], [Fraction(0), Fraction(1)]]
    for k in range(1, 2 * K):
        a, b, c = Fraction(2 * k + d - 2, k + d - 2), Fraction(k, k + d - 2), Q[k]
        nxt = [Fraction(0)] + [a * v for v in c]
        for i, v in enumerate(Q[k - 1]):
            nxt[i] -= b * v
        Q.append(nxt)
    out = []
    for k in range(K + 1):
        q = Q[2 * k]
        if any(q[i] for i in range(1, len(q), 2)):  # pragma: no cover - Q_2k is even by the recurrence
            raise AssertionError("odd coefficient in an even Gegenbauer polynomial")
        out.append(tuple(q[0::2]))
    return tuple(out)


def _q_float(d: int, K: int, t: np.ndarray) -> np.ndarray:
    """Float values Q_{2k}(t), k = 0..K (rows), by the same recurrence (stable, unlike the power basis)."""
    t = np.asarray(t, dtype=np.float64)
    prev, cur = np.ones_like(t), t.copy()
    rows = [prev]
    for k in range(1, 2 * K):
        prev, cur = cur, ((2 * k + d - 2) * t * cur - k * prev) / (k + d - 2)
        if k % 2 == 1:
            rows.append(cur)
    return np.array(rows[: K + 1])


def _grid(x0: float, n: int) -> np.ndarray:
    j = np.arange(n)
    return x0 * (1 - np.cos(np.pi * j / (n - 1))) / 2  # Chebyshev-Lobatto nodes of [0, x0], both ends included


def lp_value(d: int, x0: float, K: int = LP_DEGREE, grid: int = LP_GRID):
    r"""Float LP: :math:`\min f(1)` over :math:`f = 1 + \sum_{k=1}^K f_k Q_{2k}`, :math:`f_k \ge 0`,
    :math:`f \le 0` on the grid of :math:`[0, x_0]`. Returns ``(value, f)`` (``value = inf`` when infeasible)."""
    from scipy.optimize import linprog

    xs = _grid(x0, grid)
    P = _q_float(d, K, np.sqrt(xs))[1:].T                 # (grid, K)
    scale = np.maximum(1.0, np.abs(P).max(axis=0))         # column scaling: variables of similar size
    res = linprog(np.ones(K) / scale, A_ub=P / scale, b_ub=-np.ones(len(xs)), bounds=(0, None), method="highs")
    if res.status != 0:
        return math.inf, None
    f = res.x / scale
    return 1.0 + float(f.sum()), f


def _poly_eval(coeffs, x: Fraction) -> Fraction:
    acc = Fraction(0)
    for c in reversed(coeffs):
        acc = acc * x + c
    return acc


def certify_lp_polynomial(d: int, f_k, x0: Fraction, c: Fraction) -> Fraction | None:
    r"""Exact check of a dual-feasible polynomial: :math:`g = 1 - c + \sum_{k \ge 1} f_k P_k(x)` with rational
    :math:`f_k \ge 0`, :math:`0 \le c < 1`, and :math:`g < 0` on :math:`[0, x_0]` (Sturm's theorem over
    :math:`\mathbb Q`: no real root there, negative at 0). Returns the bound :math:`g(1)/g_0` or ``None``."""
    import sympy

    f_k = [Fraction(v) for v in f_k]
    x0, c = Fraction(x0), Fraction(c)
    if any(v < 0 for v in f_k) or not 0 <= c < 1 or not 0 <= x0 < 1:
        return None
    P = gegenbauer_x(d, len(f_k))
    coeffs = [Fraction(0)] * (len(f_k) + 1)
    coeffs[0] = 1 - c
    for k, fk in enumerate(f_k, start=1):
        for i, v in enumerate(P[k]):
            coeffs[i] += fk * v
    if _poly_eval(coeffs, Fraction(0)) >= 0:
        return None
    x = sympy.Symbol("x")
    poly = sympy.Poly([sympy.Rational(v.numerator, v.denominator) for v in reversed(coeffs)], x, domain="QQ")
    if poly.count_roots(0, sympy.Rational(x0.numerator, x0.denominator)) != 0:
        return None
    return (1 - c + sum(f_k)) / (1 - c)  # P_k(1) = 1


@dataclass
class LPBound:
    r"""An exactly certified Delsarte LP bound: every ``n`` lines in :math:`\mathbb R^d` have :math:`\mu^2 > x_0`.

    ``x0`` exact (string ``x0_exact``), ``mu`` = :math:`\sqrt{x_0}` (float, rounded down), ``n_bound`` the exact
    rational :math:`g(1)/g_0 < n` proved for packings with :math:`\mu^2 \le x_0`, ``coefficients`` the rational
    :math:`g_k / g_0` (k = 1..K) of the certificate polynomial in the basis :math:`P_k`, ``c`` the proved
    :math:`\max_{[0,x_0]} f` subtracted."""

    d: int
    n: int
    degree: int
    x0_exact: str
    mu: float
    n_bound_exact: str
    coefficients: list
    c_exact: str
    float_lp_mu: float

    @property
    def x0(self) -> Fraction:
        return Fraction(self.x0_exact)

    @property
    def n_bound(self) -> Fraction:
        return Fraction(self.n_bound_exact)

    def as_dict(self) -> dict:
        return asdict(self)


def _rationalise(f: np.ndarray, denom: int = 2 ** 40) -> list:
    return [Fraction(max(0, round(float(v) * denom)), denom) if v > 0 else Fraction(0) for v in f]


@lru_cache(maxsize=256)
def lp_bound(d: int, n: int, K: int = LP_DEGREE, grid: int = LP_GRID) -> LPBound:
    r"""The largest :math:`x_0` (to ~1e-9 relative) with a certified LP polynomial of degree ``K`` in x
    proving :math:`\mu^2 > x_0` for every ``n`` lines in :math:`\mathbb R^d`. ``n <= d``: ``x0 = 0``
    (an orthonormal set exists, so no positive bound holds)."""
    d = verify_int(d, "d", minimum=2)
    n = verify_int(n, "n", minimum=1)
    K = verify_int(K, "K", minimum=1, maximum=40)
    grid = verify_int(grid, "grid", minimum=16)
    if n <= d:
        return LPBound(d, n, K, "0", 0.0, str(d), [], "0", 0.0)
    lo, hi = 0.0, 1.0
    for _ in range(BISECT_STEPS):
        mid = (lo + hi) / 2
        if lp_value(d, mid, K, grid)[0] < n * (1 - TARGET_SLACK):
            lo = mid
        else:
            hi = mid
    float_mu = math.sqrt(lo)
    # certify at x0 <= lo: round the LP polynomial, prove c >= max f on [0, x0] exactly, back off if needed
    x0 = Fraction(lo).limit_denominator(2 ** 60)
    x0 = min(x0, Fraction(lo))
    for attempt in range(12):
        value, f = lp_value(d, float(x0), K, grid)
        if f is not None:
            fk = _rationalise(f)
            xs = _grid(float(x0), 20 * grid)
            vals = 1.0 + (_q_float(d, K, np.sqrt(xs))[1:].T @ np.asarray([float(v) for v in fk]))
            c = Fraction(max(0.0, float(vals.max()))) * 2 + Fraction(1, 2 ** 50)
            for _ in range(3):
                if c >= 1:
                    break
                bound = certify_lp_polynomial(d, fk, x0, c)
                if bound is not None and bound < n:
                    return LPBound(d, n, K, str(x0), _sqrt_down(x0), str(bound),
                                   [str(v / (1 - c)) for v in fk], str(c), float_mu)
                c *= 16
        x0 = x0 * (1 - Fraction(4 ** attempt, 10 ** 6))  # back off (1e-6, 4e-6, ... relative) and retry
    raise RuntimeError(f"LP bound for d={d}, n={n}: no certificate found")  # pragma: no cover


def _sqrt_down(x: Fraction) -> float:
    """A float <= sqrt(x) (so the reported float bound is still a valid lower bound)."""
    s = math.sqrt(float(x))
    while Fraction(s) ** 2 > x:
        s = math.nextafter(s, 0.0)
    return s
