r"""The input law and the derived loss shared by paper S's statement objects.

The input law is :math:`x_i = \xi_i b_i`, :math:`b_i \sim` Bernoulli(p), :math:`\xi_i \sim N(0, s)` (a variance
``s`` of its own, so the statements are checked off the unit scale): :math:`\mu_k = s^{k/2}(k-1)!!` for even k.
:math:`\tilde L` is the package's derived exact loss (:func:`verify.symbolic.superposition_loss.row_polynomial`,
evaluated in exact rationals), never a restatement of the claim under test.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import lru_cache

import numpy as np
import sympy
from sympy import Rational as R

from ...statements import Computed, Param

m, p, s, d, n = sympy.symbols("m p s d n")
a1, a2, a, b, c, t = sympy.symbols("a_1 a_2 a b c t")


def mu(k):
    r""":math:`\mu_k` of :math:`N(0, s)` for even k (k may be an expression in m)."""
    k = sympy.sympify(k)
    return s ** (k / 2) * sympy.factorial2(k - 1)


@lru_cache(maxsize=None)
def _row_function(mm: int):
    from ...symbolic.superposition_loss import row_polynomial, row_symbols

    return sympy.lambdify(row_symbols(mm), row_polynomial(mm), modules="math")  # integer coefficients: exact on Fractions


def _ltilde(A, pp, ss, mm: int, exact: bool):
    """The derived exact loss at the symmetric matrix A (rows through the row polynomial), in Fractions or floats."""
    A = [[Fraction(int(x.p), int(x.q)) if exact else float(x) for x in row] for row in A.tolist()]
    pp = Fraction(int(pp.p), int(pp.q)) if exact else float(pp)
    ss_ = Fraction(int(ss.p), int(ss.q)) if exact else float(ss)
    mus = [ss_ ** (k // 2) * int(sympy.factorial2(k - 1)) for k in range(2, 2 * mm + 1, 2)]
    f = _row_function(mm)
    total = 0
    for i, row in enumerate(A):
        Ts = [sum(row[j] ** k for j in range(len(row)) if j != i) for k in range(2, 2 * mm + 1, 2)]
        total += f(pp, *mus, row[i], *Ts)
    return sympy.Rational(total.numerator, total.denominator) if exact else float(total)


def _ltilde_W(env, exact):
    W = env["W"]
    A = W.T @ W if isinstance(W, np.ndarray) else W.T * W  # float64 array in the search, sympy matrix when exact
    return _ltilde(A, env["p"], env["s"], int(env["m"]), exact)


def _ltilde_diag(env, exact):
    return _ltilde(sympy.diag(env["a_1"], env["a_2"]), env["p"], env["s"], int(env["m"]), exact)


LTILDE_W = Computed("Ltilde", lambda e: _ltilde_W(e, True), lambda e: _ltilde_W(e, False), r"\tilde L(W)")
LTILDE_DIAG = Computed("Ltilde", lambda e: _ltilde_diag(e, True), lambda e: _ltilde_diag(e, False),
                       r"\tilde L(\mathrm{diag}(a_1, a_2))")
def _loss_L(env):
    from ...symbolic.superposition_loss import brute_force_loss
    from ...symbolic.superposition_loss import p as p_sym

    W, mm, ss = env["W"], int(env["m"]), env["s"]
    expr = brute_force_loss(W.T * W, mm, moments=lambda k: ss ** sympy.Rational(k, 2) * sympy.factorial2(k - 1),
                            objective="L")
    return sympy.expand(expr.xreplace({p_sym: env["p"]}))


LOSS_L = Computed("L", _loss_L, lambda e: float(_loss_L(e)), r"\mathcal L(W)")
PARAM_P = Param("p", "rat", lo=0, hi=1, hi_open=False)
PARAM_S = Param("s", "rat", lo=0, hi=None)
C, Ca, e1, e2, ep, ed, emu, ea, eb, e = sympy.symbols("C C_a e_1 e_2 e_p e_d e_mu e_a e_b e")
Cb = sympy.Symbol("C_b")



def _proj(dd, nn):
    """The d x n matrix [I_d 0]: a rank-d orthogonal projection A = W^T W."""
    return sympy.Matrix(dd, nn, lambda i, j: 1 if i == j else 0)


PROJECTIONS = tuple({"m": 1, "d": dd, "n": nn, "p": pp, "s": ss, "W": _proj(dd, nn)}
                 for dd, nn in ((1, 2), (2, 2), (2, 3)) for pp, ss in ((R(1, 3), R(1, 2)), (R(1), R(3)), (R(1, 2), R(5))))
ZERO_W = tuple({"m": 1, "d": 2, "n": 3, "p": R(1, 2), "s": R(2), "W": sympy.zeros(2, 3)} for _ in (0,))
PARAMS_DN = (Param("d", "int", values=(1, 2)), Param("n", "int", values=(2, 3)))
PARAM_W = Param("W", "matrix", lo=-2, hi=2, shape=("d", "n"))


# --------------------------------------------------------------------------- the loss's parts, by two routes
def pattern_expectations(A, mm: int, pp, ss) -> tuple:
    r"""``(X, Y)`` with :math:`X = \mathbb E\langle x, (Ax)^{\odot m}\rangle`, :math:`Y = \mathbb E\|(Ax)^{\odot m}\|^2`,
    exactly, by enumerating the sparsity patterns :math:`b \in \{0, 1\}^n` (weight :math:`p^{|b|}(1-p)^{n-|b|}`) and
    replacing each monomial of :math:`\xi` by its product of moments of :math:`N(0, s)` (odd ones vanish): the two
    parts of eq. (7) separately, by a route that shares nothing with the derived row polynomial. n <= 3."""
    A = sympy.Matrix(A)
    nn = A.shape[0]
    xi = sympy.symbols(f"xi_1:{nn + 1}")
    ss, pp = sympy.Rational(ss), sympy.Rational(pp)
    X = Y = sympy.Integer(0)
    for b in itertools.product((0, 1), repeat=nn):
        x = sympy.Matrix([xi[j] * b[j] for j in range(nn)])
        y = A * x
        weight = pp ** sum(b) * (1 - pp) ** (nn - sum(b))
        for part, k in ((sum(x[i] * y[i] ** mm for i in range(nn)), 0), (sum(y[i] ** (2 * mm) for i in range(nn)), 1)):
            poly = sympy.Poly(sympy.expand(part), *xi)
            e = sympy.Integer(0)
            for exps, coeff in poly.terms():
                if not any(v % 2 for v in exps):
                    e += coeff * sympy.Mul(*[ss ** (v // 2) * sympy.factorial2(v - 1) for v in exps if v])
            if k == 0:
                X += weight * e
            else:
                Y += weight * e
    return X, Y


def _expectations_W(env):
    W = env["W"]
    return pattern_expectations(W.T * W, int(env["m"]), env["p"], env["s"])


EXPECT_CROSS = Computed("X", lambda e: _expectations_W(e)[0], lambda e: float(_expectations_W(e)[0]),
                        r"\mathbb E\langle x, \phi(W^TWx)\rangle")
EXPECT_SQUARE = Computed("Y", lambda e: _expectations_W(e)[1], lambda e: float(_expectations_W(e)[1]),
                         r"\mathbb E\|\phi(W^TWx)\|^2")


@lru_cache(maxsize=None)
def _p_coefficient_function(mm: int, power: int):
    r"""The coefficient of :math:`p^{power}` of the derived row polynomial, a function of
    :math:`(\mu_2, \dots, \mu_{2m}, A_{ii}, T_2, \dots, T_{2m})` (integer coefficients: exact on Fractions)."""
    from ...symbolic.superposition_loss import row_polynomial, row_symbols

    syms = row_symbols(mm)
    coeff = sympy.Poly(row_polynomial(mm), syms[0]).coeff_monomial(syms[0] ** power)
    return sympy.lambdify(syms[1:], coeff, modules="math")


def p_coefficient(A, mm: int, ss, power: int = 1, exact: bool = True):
    r"""The coefficient of :math:`p^{power}` of the derived :math:`\tilde L` at the symmetric matrix A (rows through
    the package's row polynomial; moments of :math:`N(0, s)`), in Fractions (a sympy Rational) or floats."""
    conv = (lambda x: Fraction(int(sympy.Rational(x).p), int(sympy.Rational(x).q))) if exact else float
    A = [[conv(x) for x in row] for row in sympy.Matrix(A).tolist()]
    ss_ = conv(ss)
    mus = [ss_ ** (k // 2) * int(sympy.factorial2(k - 1)) for k in range(2, 2 * mm + 1, 2)]
    f = _p_coefficient_function(mm, power)
    total = 0
    for i, row in enumerate(A):
        Ts = [sum(row[j] ** k for j in range(len(row)) if j != i) for k in range(2, 2 * mm + 1, 2)]
        total += f(*mus, row[i], *Ts)
    return sympy.Rational(total.numerator, total.denominator) if exact else float(total)


def _tensor_power(v, mm: int):
    out = sympy.Matrix(v)
    for _ in range(mm - 1):
        out = sympy.kronecker_product(out, sympy.Matrix(v))
    return out


def _inner_uv(env):
    U = sympy.Matrix(env["U"])
    return (U[:, 0].T * U[:, 1])[0, 0]


def _tensor_uv(env):
    r""":math:`\langle u^{\otimes m}, v^{\otimes m}\rangle` for the columns u, v of U: Kronecker powers (sympy), exact."""
    U, mm = sympy.Matrix(env["U"]), int(env["m"])
    return (_tensor_power(U[:, 0], mm).T * _tensor_power(U[:, 1], mm))[0, 0]


INNER_UV = Computed("uv", _inner_uv, lambda e: float(_inner_uv({**e, "U": sympy.Matrix(np.asarray(e["U"]))})),
                    r"\langle u, v\rangle")
TENSOR_UV = Computed("T_uv", _tensor_uv, lambda e: float(_tensor_uv({**e, "U": sympy.Matrix(np.asarray(e["U"]))})),
                     r"\langle u^{\otimes m}, v^{\otimes m}\rangle")


@lru_cache(maxsize=None)
def _cross_function(mm: int):
    from ...symbolic.superposition_loss import row_cross_and_square, row_symbols

    return sympy.lambdify(row_symbols(mm), row_cross_and_square(mm)[0], modules="math")


def cross_float(A, mm: int, pp, ss) -> float:
    r""":math:`\mathbb E\langle x, (Ax)^{\odot m}\rangle` in float64 through the package's derived row expectation
    :math:`\mathbb E[x_i y_i^m]` (for the search's score only; the exact value is :func:`pattern_expectations`')."""
    A = np.asarray(A, dtype=float)
    pp, ss = float(pp), float(ss)
    mus = [ss ** (k // 2) * float(sympy.factorial2(k - 1)) for k in range(2, 2 * mm + 1, 2)]
    f = _cross_function(mm)
    total = 0.0
    for i in range(A.shape[0]):
        Ts = [float(sum(A[i, j] ** k for j in range(A.shape[0]) if j != i)) for k in range(2, 2 * mm + 1, 2)]
        total += f(pp, *mus, A[i, i], *Ts)
    return total


@lru_cache(maxsize=None)
def _square_function(mm: int):
    from ...symbolic.superposition_loss import row_cross_and_square, row_symbols

    return sympy.lambdify(row_symbols(mm), row_cross_and_square(mm)[1], modules="math")


def square_float_rows(rows, mm: int, pp, ss) -> float:
    r""":math:`\sum_i \mathbb E[y_i^{2m}]` in float64 for rows with :math:`A_{ii} = 1` given as ``(multiplicity,
    {e: T_e})`` (a :class:`verify.numeric.lower_bound.FrameBlockStats`' rows), through the package's derived row
    expectation (for the search's score only; the exact value is
    :func:`verify.numeric.lower_bound.numerator_denominator`'s)."""
    pp, ss = float(pp), float(ss)
    mus = [ss ** (k // 2) * float(sympy.factorial2(k - 1)) for k in range(2, 2 * mm + 1, 2)]
    f = _square_function(mm)
    return sum(mult * f(pp, *mus, 1.0, *[float(T[e]) for e in range(2, 2 * mm + 1, 2)]) for mult, T in rows)
