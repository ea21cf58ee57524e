r"""Statement objects of paper S's lower bound (eqs. 19-20).

The input law and the derived loss are :mod:`verify.statement_data.S._law`'s.

* ``S-eq19`` (eqs. 19-20): :math:`\sup_{t > 0}(C_a t^{e_1} a - t^{e_2} b) = C a^{e_a} b^{e_b}`,
  :math:`C_a = 2, e_1 = m, e_2 = 2m, C = 1, e_a = 2, e_b = -1`.
"""

from __future__ import annotations

import sympy
from sympy import Rational as R

from ...statements import Field, Param, Statement, Sup, Witness
from ._law import C, Ca, a, b, e1, e2, ea, eb, m, t

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

STATEMENTS = (EQ19,)
