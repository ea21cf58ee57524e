r"""Paper S, Theorem 4.2, eqs. (19)-(20): optimising the scale t of :math:`A = tM^{(k)}`, derived with sympy.

:math:`\tilde L` is a sum of row terms of degree m (cross term) and 2m (square term) in the entries of A
(:func:`verify.symbolic.superposition_loss.row_cross_and_square`), so :math:`\tilde L(tM) = 2t^m a - t^{2m} b`
(eq. 19). With :math:`u = t^m > 0` this is a concave quadratic, maximised at :math:`u^* = a/b` with value
:math:`a^2/b` (eq. 20).

>>> optimised_t()["sup"]
a**2/b
"""

from __future__ import annotations

import sympy

from .._validate import verify_odd_m
from ..latex import formula
from . import superposition_loss as sym

__all__ = ["homogeneity_defect", "optimised_t", "a_sym", "b_sym", "t_sym"]

t_sym = sympy.Symbol("t", positive=True)
a_sym = sympy.Symbol("a", positive=True)
b_sym = sympy.Symbol("b", positive=True)


def homogeneity_defect(m: int) -> tuple:
    r"""Degrees of homogeneity of the row terms: substitute :math:`A_{ii} \to tA_{ii}`, :math:`T_e \to t^e T_e` and
    return ``(cross(t) - t^m cross(1), square(t) - t^{2m} square(1))`` expanded (both 0 when eq. (19) holds)."""
    m = verify_odd_m(m)
    cross, square = sym.row_cross_and_square(m)
    sub = {sym.a: t_sym * sym.a, **{sym.T(e): t_sym ** e * sym.T(e) for e in range(2, 2 * m + 1, 2)}}
    return (sympy.expand(cross.xreplace(sub) - t_sym ** m * cross),
            sympy.expand(square.xreplace(sub) - t_sym ** (2 * m) * square))


def optimised_t(m: int = 3) -> dict:
    r"""Maximise :math:`g(t) = 2t^m a - t^{2m} b` over :math:`t > 0`: returns the stationary :math:`t^m`, the
    supremum and the second derivative in :math:`u = t^m` (negative: a maximum)."""
    m = verify_odd_m(m)
    u = sympy.Symbol("u", positive=True)
    g = 2 * u * a_sym - u ** 2 * b_sym              # g(t) with u = t^m
    (u_star,) = sympy.solve(sympy.diff(g, u), u)
    return {"g": g.subs(u, t_sym ** m), "u_star": u_star, "t_star": u_star ** sympy.Rational(1, m),
            "sup": sympy.factor(g.subs(u, u_star)), "second_derivative": sympy.diff(g, u, 2)}


@formula("S-eq19-20", "lower bound of Thm 4.2: Ltilde(t M^(k)) = 2 t^m a - t^{2m} b, optimised over t", m=3)
def _eq19_formula(m=3):
    res = optimised_t(m)
    L = sympy.Symbol(r"\tilde{L}(t M^{(k)})")
    a_def = sympy.Symbol(r"\mathbb{E}\langle x, (M^{(k)}x)^{\odot m}\rangle")
    b_def = sympy.Symbol(r"\mathbb{E}\|M^{(k)}x\|_{2m}^{2m}")
    return [sympy.Eq(L, res["g"]), sympy.Eq(a_sym, a_def), sympy.Eq(b_sym, b_def),
            sympy.Eq(t_sym, res["t_star"]),
            sympy.Ge(sympy.Symbol(r"\sup_W \tilde{L}(W)"), sympy.Symbol(r"\sup_{k \le d^m}") * res["sup"])]
