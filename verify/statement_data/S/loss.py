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

import sympy
from sympy import Rational as R

from ...statements import Field, Param, Statement, Sup, Witness
from ._law import (
                 LOSS_L,
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

STATEMENTS = (EQ6, EQ9, EQ10, LINEAR,)
