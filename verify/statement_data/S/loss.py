r"""Statement objects of paper S's loss (eqs. 6, 9, 10 and sec. 2's linear case).

The input law and the derived loss are :mod:`verify.statement_data.S._law`'s.

* ``S-eq9`` (eq. 9): :math:`A` diagonal: :math:`\tilde L = p\sum_i (C\mu_{m+1}A_{ii}^{e_1} - \mu_{2m}A_{ii}^{e_2})`,
  :math:`C = 2, e_1 = m, e_2 = 2m` (n = 2).
* ``S-eq6`` (eqs. 6-7): :math:`\mathcal L(W) = C p^{e_p} n^{e_n} \mu_2^{e_\mu} - \tilde L(W)`, all 1;
  :math:`\mathcal L` by the package's brute-force route (sparsity patterns enumerated, moments replaced).
* ``S-eq10`` (eq. 10): :math:`d\,\sup_{a > 0}` of eq. (9)'s row term :math:`= C p^{e_p} d^{e_d}
  \mu_{m+1}^{e_1}\mu_{2m}^{e_2}`, :math:`C = 1, e_p = e_d = 1, e_1 = 2, e_2 = -1`.
* ``S-linear`` (sec. 2): :math:`m = 1`: :math:`\tilde L(W) \le C p^{e_p}\mu_2^{e_\mu} d^{e_d}`, all 1.
"""

from __future__ import annotations

import numpy as np
import sympy
from sympy import Rational as R

from ...statements import Computed, Field, Param, Statement, Sup, Witness
from ._law import (
                 EXPECT_CROSS,
                 EXPECT_SQUARE,
                 INNER_UV,
                 LOSS_L,
                 TENSOR_UV,
                 Cb,
                 e,
                 p_coefficient,
                 LTILDE_DIAG,
                 LTILDE_W,
                 PARAM_P,
                 PARAM_S,
                 PARAM_W,
                 PARAMS_DN,
                 PROJECTIONS,
                 ZERO_W,
                 C,
                 Ca,
                 a1,
                 a2,
                 d,
                 e1,
                 e2,
                 ed,
                 emu,
                 ep,
                 m,
                 mu,
                 n,
                 p,
                 t,
)

_eq6_pts = tuple({"m": mm, "d": 2, "n": 2, "p": pp, "s": ss, "W": sympy.Matrix([[1, R(1, 2)], [R(-1, 3), 2]])}
                 for mm, pp, ss in ((1, R(1, 3), R(2)), (3, R(1, 2), R(1, 3))))
EQ6 = Statement(
    claim="S-eq6", where="eq. (6)-(7)",
    params=(Param("m", "int", values=(1, 3)), Param("d", "int", values=(1, 2)), Param("n", "int", values=(2, 3)),
            PARAM_P, PARAM_S, Param("W", "matrix", lo=-2, hi=2, shape=("d", "n"))),
    lhs=LOSS_L.symbol, relation="=", rhs=C * p ** ep * n ** sympy.Symbol("e_n") * mu(2) ** emu - LTILDE_W.symbol,
    fields=(Field("C", "constant", 1), Field("e_p", "exponent", 1), Field("e_n", "exponent", 1),
            Field("e_mu", "exponent", 1)),
    computed=(LOSS_L, LTILDE_W),
    witnesses=(Witness("identity", _eq6_pts, "an identity in W: any point"),),
    budget=12, starts=0, seed=6,
)

_diag_pts = tuple({"m": mm, "p": pp, "s": ss, "a_1": x, "a_2": y}
                  for mm, pp, ss, x, y in ((1, R(1, 3), R(2), R(1, 2), R(3, 2)), (3, R(1, 2), R(1, 3), R(2), R(1, 3)),
                                            (3, R(1), R(3), R(1), R(0))))
EQ9 = Statement(
    claim="S-eq9", where="eq. (9)",
    params=(Param("m", "int", values=(1, 3)), PARAM_P, PARAM_S, Param("a_1", "rat", lo=0, hi=3, lo_open=False),
            Param("a_2", "rat", lo=0, hi=3, lo_open=False)),
    lhs=LTILDE_DIAG.symbol, relation="=",
    rhs=p * (Ca * mu(m + 1) * (a1 ** e1 + a2 ** e1) - mu(2 * m) * (a1 ** e2 + a2 ** e2)),
    fields=(Field("C_a", "constant", 2, "the 2 of 2E<x, phi(Ax)>"), Field("e_1", "exponent", m),
            Field("e_2", "exponent", 2 * m)),
    computed=(LTILDE_DIAG,),
    witnesses=(Witness("identity", _diag_pts, "an identity in A_ii: any point"),),
    budget=24, starts=1, seed=9,
)

_row = p * (2 * mu(m + 1) * t ** m - mu(2 * m) * t ** (2 * m))
_eq10_pts = tuple({"m": mm, "p": pp, "s": ss, "d": dd}
                  for mm, pp, ss, dd in ((1, R(1, 3), R(2), 2), (3, R(1, 2), R(1, 3), 3), (3, R(1), R(3), 1)))
EQ10 = Statement(
    claim="S-eq10", where="eq. (10)",
    params=(Param("m", "int", values=(1, 3)), PARAM_P, PARAM_S, Param("d", "int", values=(1, 2, 3))),
    lhs=d * sympy.Symbol("rowsup"), relation="=",
    rhs=C * p ** ep * d ** ed * mu(m + 1) ** e1 * mu(2 * m) ** e2,
    fields=(Field("C", "constant", 1), Field("e_p", "exponent", 1), Field("e_d", "exponent", 1),
            Field("e_1", "exponent", 2, "mu_{m+1}^2"), Field("e_2", "exponent", -1, "1 / mu_{2m}")),
    sups=(Sup("rowsup", t, _row, r"\text{row term of (9)}"),),
    witnesses=(Witness("identity", _eq10_pts, "eq. (10) is an equality for every m, p, s, d"),),
    budget=24, starts=1, seed=10,
)

LINEAR = Statement(
    claim="S-linear", where="sec. 2",
    params=(Param("m", "int", values=(1,)), *PARAMS_DN, PARAM_P, PARAM_S, PARAM_W),
    lhs=LTILDE_W.symbol, relation="<=", rhs=C * p ** ep * mu(2) ** emu * d ** ed,
    fields=(Field("C", "constant", 1), Field("e_p", "exponent", 1), Field("e_mu", "exponent", 1),
            Field("e_d", "exponent", 1)),
    computed=(LTILDE_W,),
    witnesses=(Witness("attained", PROJECTIONS, "rank-d orthogonal projections A = W^T W attain p mu_2 d"),
               Witness("slack", ZERO_W, "W = 0: Ltilde = 0")),
    budget=40, starts=3, seed=11,
)

# --------------------------------------------------------------------------- S-exact-loss
_exact_pts = tuple({"m": mm, "d": 2, "n": nn, "p": pp, "s": ss, "W": W}
                   for mm, nn, pp, ss, W in ((1, 2, R(1, 3), R(2), sympy.Matrix([[1, R(1, 2)], [R(-1, 3), 2]])),
                                             (3, 2, R(1, 2), R(1, 3), sympy.Matrix([[1, R(1, 2)], [R(-1, 3), 2]])),
                                             (3, 3, R(1, 5), R(3), sympy.Matrix([[1, 0, R(1, 2)], [0, R(-3, 2), 1]]))))
EXACT_LOSS = Statement(
    claim="S-exact-loss", where="sec. 2, eq. (7)",
    params=(Param("m", "int", values=(1, 3)), Param("d", "int", values=(1, 2)), Param("n", "int", values=(2, 3)),
            PARAM_P, PARAM_S, Param("W", "matrix", lo=-2, hi=2, shape=("d", "n"))),
    lhs=LTILDE_W.symbol, relation="=", rhs=Ca * EXPECT_CROSS.symbol - Cb * EXPECT_SQUARE.symbol,
    fields=(Field("C_a", "constant", 2, "the 2 of 2 E<x, phi(Ax)>"),
            Field("C_b", "constant", 1, "the 1 of E|phi(Ax)|^2")),
    computed=(LTILDE_W, EXPECT_CROSS, EXPECT_SQUARE),
    witnesses=(Witness("identity", _exact_pts, "the derived polynomial is eq. (7)'s expectation at every W"),),
    budget=10, starts=0, seed=7,
)

# --------------------------------------------------------------------------- S-tensor
_tensor_pts = tuple({"m": mm, "d": dd, "k": 2, "U": U}
                    for mm, dd, U in ((1, 2, sympy.Matrix([[1, R(1, 2)], [2, 3]])),
                                      (3, 2, sympy.Matrix([[1, R(1, 2)], [2, 3]])),
                                      (3, 3, sympy.Matrix([[R(1, 3), 2], [-1, R(1, 2)], [R(3, 2), 1]]))))
TENSOR = Statement(
    claim="S-tensor", where="proof of Thm 3.1",
    params=(Param("m", "int", values=(1, 3)), Param("d", "int", values=(2, 3)), Param("k", "int", values=(2,)),
            Param("U", "matrix", lo=-2, hi=2, shape=("d", "k"))),
    lhs=INNER_UV.symbol ** e, relation="=", rhs=C * TENSOR_UV.symbol,
    fields=(Field("e", "exponent", m, "the power m of <u, v>^m"), Field("C", "constant", 1)),
    computed=(INNER_UV, TENSOR_UV),
    witnesses=(Witness("identity", _tensor_pts, "an identity in u, v (the columns of U); <u, v> = 13/2, 5/6"),),
    budget=16, starts=0, seed=34,
)

# --------------------------------------------------------------------------- Remark 4.3
_w = sympy.symbols("w_11 w_12 w_13 w_21 w_22 w_23")
_Wsym = sympy.Matrix(2, 3, _w)
_A = _Wsym.T * _Wsym
_first = Ca * mu(m + 1) * sum(_A[i, i] ** e1 for i in range(3)) \
    - Cb * mu(2 * m) * sum(_A[i, j] ** e2 for i in range(3) for j in range(3))


def _first_coefficient(env, exact=True):
    W = sympy.Matrix(2, 3, [env[str(x)] for x in _w])
    return p_coefficient(W.T * W, int(env["m"]), env["s"], 1, exact)


FIRST_COEFF = Computed("L_1", _first_coefficient, lambda e: _first_coefficient(e, False),
                       r"[p^1]\,\tilde L(W)")
_first_pts = tuple({"m": mm, "s": ss, **dict(zip(map(str, _w), ws))}
                   for mm, ss, ws in ((1, R(2), (1, R(1, 2), 0, R(-1, 3), 2, 1)),
                                      (3, R(1, 3), (1, R(1, 2), R(-3, 2), R(-1, 3), 2, 1)),
                                      (3, R(5, 2), (R(1, 2), 1, R(2, 3), 0, R(-1, 2), R(3, 2)))))
FIRST_ORDER = Statement(
    claim="S-rem4.3-first-order", where="Remark 4.3",
    params=(Param("m", "int", values=(1, 3)), PARAM_S, *(Param(str(x), "rat", lo=-2, hi=2) for x in _w)),
    lhs=FIRST_COEFF.symbol, relation="=", rhs=_first,
    fields=(Field("C_a", "constant", 2, "the 2 of 2 mu_{m+1} sum A_ii^m"),
            Field("C_b", "constant", 1, "the 1 of mu_{2m} sum A_ij^{2m}"),
            Field("e_1", "exponent", m, "A_ii^m"), Field("e_2", "exponent", 2 * m, "A_ij^{2m}")),
    computed=(FIRST_COEFF,),
    witnesses=(Witness("identity", _first_pts, "the p^1 coefficient of the derived loss at every W (d = 2, n = 3)"),),
    budget=16, starts=0, seed=43,
)

_v = sympy.symbols("v_11 v_12 v_21 v_22")
_Vsym = sympy.Matrix(2, 2, _v)
_B = _Vsym.T * _Vsym
_ec, _eF = sympy.symbols("e_c C_F")
_c = (mu(m + 1) / mu(2 * m)) ** _ec
_scaled_first = Ca * mu(m + 1) * sum((_c * _B[i, i]) ** m for i in range(2)) \
    - mu(2 * m) * sum((_c * _B[i, j]) ** (2 * m) for i in range(2) for j in range(2))
_scaling_pts = tuple({"m": mm, "s": ss, **dict(zip(map(str, _v), vs))}
                     for mm, ss, vs in ((3, R(1, 2), (1, R(1, 2), R(-1, 3), 2)), (3, R(3), (R(2, 3), 1, 0, R(-3, 2))),
                                        (1, R(2), (1, R(1, 2), R(-1, 3), 2))))
SCALING = Statement(
    claim="S-rem4.3-scaling", where="Remark 4.3, eq. (23)",
    params=(Param("m", "int", values=(1, 3)), PARAM_S, *(Param(str(x), "rat", lo=-2, hi=2) for x in _v)),
    lhs=_scaled_first, relation="=",
    rhs=C * mu(m + 1) ** e1 * mu(2 * m) ** e2 * (_eF * sum(_B[i, i] ** m for i in range(2))
                                                  - sum(_B[i, j] ** (2 * m) for i in range(2) for j in range(2))),
    fields=(Field("C_a", "constant", 2, "the 2 of the first-order term 2 mu_{m+1} sum A_ii^m"),
            Field("e_c", "exponent", 1 / m, "c = (mu_{m+1}/mu_{2m})^{1/m}"),
            Field("C", "constant", 1), Field("e_1", "exponent", 2, "mu_{m+1}^2"),
            Field("e_2", "exponent", -1, "1 / mu_{2m}"), Field("C_F", "constant", 2, "the 2 of F(B) = 2 sum B_ii^m - ...")),
    witnesses=(Witness("identity", _scaling_pts, "an identity in B = V^T V (2 x 2), s != 1"),),
    budget=16, starts=0, seed=23,
)

_u = sympy.symbols("u_11 u_12 u_13 u_21 u_22 u_23")
_Usym = sympy.Matrix(2, 3, _u)
_Bu = _Usym.T * _Usym


def _rank_Btilde(env, exact=True):
    V = sympy.Matrix(2, 3, [sympy.Rational(env[str(x)]) for x in _u])
    B = (V.T * V).applyfunc(lambda t: t ** int(env["m"]))
    return sympy.Integer(B.rank()) if exact else float(np.linalg.matrix_rank(np.array(B.tolist(), dtype=float)))


RANK_BT = Computed("r", _rank_Btilde, lambda e: _rank_Btilde(e, False), r"\operatorname{rank}\tilde B")


def _bound_pt(mm, rows):
    return {"m": mm, **dict(zip(map(str, _u), [x for row in rows for x in row]))}


_bound_att = (_bound_pt(1, ((1, 0, 0), (0, 1, 0))), _bound_pt(3, ((1, 0, 0), (0, -1, 0))),
              _bound_pt(1, ((1, 0, 0), (0, R(3, 5), R(-4, 5)))), _bound_pt(1, ((R(1, 3), R(2, 3), R(2, 3)), (0, 0, 0))),
              _bound_pt(3, ((0, 1, 0), (0, 0, 0))))
_bound_slack = (_bound_pt(1, ((2, 0, 0), (0, 2, 0))), _bound_pt(3, ((1, 1, 0), (0, 1, 1))))
BOUND = Statement(
    claim="S-rem4.3-bound", where="Remark 4.3",
    params=(Param("m", "int", values=(1, 3)), *(Param(str(x), "rat", lo=-2, hi=2) for x in _u)),
    lhs=_eF * sum(_Bu[i, i] ** e1 for i in range(3)) - sum(_Bu[i, j] ** e2 for i in range(3) for j in range(3)),
    relation="<=", rhs=C * RANK_BT.symbol,
    fields=(Field("C_F", "constant", 2, "the 2 of tr(2 B~ - B~^2)"), Field("e_1", "exponent", m, "B~_ii = B_ii^m"),
            Field("e_2", "exponent", 2 * m, "tr B~^2 = sum B_ij^{2m}"), Field("C", "constant", 1, "F <= 1 rank B~")),
    computed=(RANK_BT,),
    witnesses=(Witness("attained", _bound_att, "B~ an orthogonal projection (orthonormal rows of V, m = 1; "
                                               "orthonormal or zero columns): F = rank B~"),
               Witness("slack", _bound_slack, "V = 2 [I 0] (m = 1): F = -16; overlapping columns (m = 3)")),
    budget=60, starts=2, seed=4,
)

STATEMENTS = (EQ6, EQ9, EQ10, LINEAR, EXACT_LOSS, TENSOR, FIRST_ORDER, SCALING, BOUND)
