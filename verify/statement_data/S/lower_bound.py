r"""Statement objects of paper S's lower bound (eqs. 19-20).

The input law and the derived loss are :mod:`verify.statement_data.S._law`'s.

* ``S-eq19`` (eqs. 19-20): :math:`\sup_{t > 0}(C_a t^{e_1} a - t^{e_2} b) = C a^{e_a} b^{e_b}`,
  :math:`C_a = 2, e_1 = m, e_2 = 2m, C = 1, e_a = 2, e_b = -1`.
* ``S-eq21`` (eq. 21): M symmetric k x k with :math:`M_{ii} = 1` (k = 3, its off-diagonal entries free):
  :math:`\mathbb E\langle x, (Mx)^{\odot m}\rangle \ge C p^{e_p} \mu_{m+1}^{e_\mu} k^{e_k}`, all 1; the left side by
  enumerating the sparsity patterns (:func:`verify.statement_data.S._law.pattern_expectations`).
* ``S-rem4.3-attained`` (Remark 4.3 with Lemma 4.1/A.4): the frame with the optimal scale reaches
  :math:`\mathcal F(s^* M) \ge C d^{e_d} / (1 + C_m^{e_w})`, :math:`C = 1, e_d = m`, :math:`C_m = 2m - 2` (Lemma A.4's
  coherence :math:`|M_{ij}| \le C_m d^{-1/2}`), :math:`e_w = 2m`: the order :math:`d^m` with the constant the lemmas
  give (:math:`\sum_{j \ne i} M_{ij}^{2m} \le d^m (C_m^2/d)^m`); :math:`\mathcal F(s^* M)` is the package's exact
  frame statistic (:func:`verify.numeric.lower_bound.F_attained`).
"""

from __future__ import annotations

import sympy
from sympy import Rational as R

from ...statements import Computed, Field, Param, Statement, Sup, Witness
from ._law import PARAM_P, PARAM_S, C, Ca, a, b, e1, e2, ea, eb, emu, ep, m, cross_float, mu, p, pattern_expectations, t

_eq19_pts = tuple({"m": mm, "a": x, "b": y} for mm, x, y in ((1, R(1, 2), R(3)), (3, R(2), R(1, 5)), (5, R(7), R(7))))
EQ19 = Statement(
    claim="S-eq19", where="eq. (19)-(20)",
    params=(Param("m", "int", values=(1, 3, 5)), Param("a", "rat", lo=0, hi=None), Param("b", "rat", lo=0, hi=None)),
    lhs=sympy.Symbol("sup_t"), relation="=", rhs=C * a ** ea * b ** eb,
    fields=(Field("C_a", "constant", 2), Field("e_1", "exponent", m), Field("e_2", "exponent", 2 * m),
            Field("C", "constant", 1), Field("e_a", "exponent", 2), Field("e_b", "exponent", -1)),
    sups=(Sup("sup_t", t, Ca * t ** e1 * a - t ** e2 * b, ""),),
    witnesses=(Witness("identity", _eq19_pts, "an identity in a, b > 0"),),
    budget=24, starts=1, seed=19,
)

# --------------------------------------------------------------------------- eq. (21)
_moff = sympy.symbols("M_12 M_13 M_23")
k_, ek = sympy.symbols("k e_k")


def _unit_diagonal(env):
    m12, m13, m23 = (sympy.Rational(env[str(x)]) for x in _moff)
    return sympy.Matrix([[1, m12, m13], [m12, 1, m23], [m13, m23, 1]])


def _numerator(env):
    return pattern_expectations(_unit_diagonal(env), int(env["m"]), env["p"], env["s"])[0]


def _numerator_float(env):
    m12, m13, m23 = (float(env[str(x)]) for x in _moff)
    return cross_float([[1, m12, m13], [m12, 1, m23], [m13, m23, 1]], int(env["m"]), env["p"], env["s"])


NUMERATOR = Computed("a", _numerator, _numerator_float,
                     r"\mathbb E\langle x, (M^{(k)}x)^{\odot m}\rangle")


def _pt21(mm, pp, ss, offs=(0, 0, 0)):
    return {"m": mm, "k": 3, "p": pp, "s": ss, **dict(zip(map(str, _moff), offs))}


EQ21 = Statement(
    claim="S-eq21", where="eq. (21)",
    params=(Param("m", "int", values=(1, 3)), Param("k", "int", values=(3,)), PARAM_P, PARAM_S,
            *(Param(str(x), "rat", lo=-2, hi=2) for x in _moff)),
    lhs=NUMERATOR.symbol, relation=">=", rhs=C * p ** ep * mu(m + 1) ** emu * k_ ** ek,
    fields=(Field("C", "constant", 1), Field("e_p", "exponent", 1, "E x_i^{m+1} = p mu_{m+1}"),
            Field("e_mu", "exponent", 1), Field("e_k", "exponent", 1, "one term per row, k rows")),
    computed=(NUMERATOR,),
    witnesses=(Witness("attained", (_pt21(3, R(1, 2), R(3)), _pt21(3, R(1, 3), R(1, 4)), _pt21(1, R(1, 5), R(2)),
                                    _pt21(1, R(1, 2), R(1, 3), (R(1, 2), -1, R(2, 3)))),
                       "M = I: only alpha_i = m survives; m = 1: the numerator is p mu_2 tr M for every M"),
               Witness("slack", (_pt21(3, R(1, 2), R(2), (R(1, 2), 0, 0)),),
                       "m = 3, M_12 = 1/2: the terms alpha_j = 2 add 3 p^2 mu_2^2 M_12^2 per row")),
    budget=40, starts=2, seed=21,
)


# --------------------------------------------------------------------------- Remark 4.3: the frame reaches d^m
def _frame_F(env):
    from ...numeric.lower_bound import F_attained

    F = F_attained(int(env["r"]), int(env["m"]))["F"]
    return sympy.Rational(F.numerator, F.denominator)


FRAME_F = Computed("F_star", _frame_F, lambda e: float(_frame_F(e)), r"\mathcal F(s^* M)")
r_, ed_, ew, Cm = sympy.symbols("r e_d e_w C_m")
ATTAINED = Statement(
    claim="S-rem4.3-attained", where="Remark 4.3, Lemma 4.1",
    params=(Param("m", "int", values=(1, 3)), Param("r", "int", values=(1, 2, 3, 4, 5))),
    lhs=FRAME_F.symbol, relation=">=", rhs=C * (2 ** r_) ** ed_ / (1 + Cm ** ew),
    fields=(Field("C", "constant", 1), Field("e_d", "exponent", m, "the order d^m"),
            Field("C_m", "constant", 2 * m - 2, "Lemma A.4's coherence |M_ij| <= (2m - 2)/sqrt(d)"),
            Field("e_w", "exponent", 2 * m, "sum_j M_ij^{2m} <= d^m (C_m^2/d)^m")),
    computed=(FRAME_F,),
    witnesses=(Witness("attained", tuple({"m": 1, "r": rr} for rr in (1, 3, 5)),
                       "m = 1: the frame is the orthonormal Walsh basis, F = d"),
               Witness("slack", ({"m": 3, "r": 2},), "m = 3, d = 4: F = 128/17 > 4^3/4097")),
    budget=12, starts=0, seed=43,
)

STATEMENTS = (EQ19, EQ21, ATTAINED)
