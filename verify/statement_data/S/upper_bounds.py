r"""Statement objects of paper S's upper bounds (eqs. 12-13, Thm 3.1, Lemma A.2).

The input law and the derived loss are :mod:`verify.statement_data.S._law`'s.

* ``S-eq12`` (eqs. 12-13): odd :math:`\psi` of degree <= 5, :math:`\mathbb E\psi(x)^2 = 1`:
  :math:`|\mathbb E[x\psi(x)]|^{e} \le C p^{e_p}\mu_2^{e_\mu}`, :math:`e = 2`, the rest 1.
* ``S-thm3.1`` (Thm 3.1): :math:`\tilde L(W) \le C_2 p^{e_p} d^{e_d}`, :math:`C_2 = \mu_2, e_p = 1, e_d = m`.
* ``S-lemA.2`` (Lemma A.2), 2 x 2: :math:`A = [[a, b], [b, c]] \succ 0`:
  :math:`b^2/c \le C \|A\|_{op}^{e}`, :math:`C = e = 1`.
"""

from __future__ import annotations

import sympy
from sympy import Rational as R

from ...statements import Field, Hypothesis, Param, Statement, Witness
from ._law import (
                  LTILDE_W,
                  PARAM_P,
                  PARAM_S,
                  PARAM_W,
                  PARAMS_DN,
                  PROJECTIONS,
                  ZERO_W,
                  C,
                  a,
                  b,
                  c,
                  d,
                  e,
                  ed,
                  emu,
                  ep,
                  m,
                  mu,
                  p,
)

c1, c3, c5 = sympy.symbols("c_1 c_3 c_5")
_cs = (c1, c3, c5)
_exps = sympy.Integer(0) + sum(cj * mu(2 * j + 2) for j, cj in enumerate(_cs))  # E[xi psi(xi)]
_epsi2 = sum(ci * cj * mu(2 * i + 2 * j + 2) for i, ci in enumerate(_cs) for j, cj in enumerate(_cs))
_eq12_att = tuple({"p": pp, "s": ss, "c_1": k, "c_3": 0, "c_5": 0}
                  for pp, ss, k in ((R(1, 2), R(3), 1), (R(1), R(1, 5), R(2)), (R(1, 10), R(1, 10), R(-1)),
                                    (R(1), R(4), 1)))
EQ12 = Statement(
    claim="S-eq12", where="eq. (12)-(13)",
    params=(PARAM_P, PARAM_S, *(Param(str(x), "rat", lo=-2, hi=2) for x in _cs)),
    # |E x psi|^e with psi normalised: (p E[xi psi])^e / (p E[psi^2])^(e/2)
    lhs=sympy.Abs(p * _exps) ** e / (p * _epsi2) ** (e / 2), relation="<=", rhs=C * p ** ep * mu(2) ** emu,
    fields=(Field("e", "exponent", 2, "the square of |E[x psi(x)]|^2"), Field("C", "constant", 1),
            Field("e_p", "exponent", 1), Field("e_mu", "exponent", 1)),
    hypotheses=(Hypothesis("psi != 0", _epsi2 > 0, implied_by="psi = 0 has E psi^2 = 0, outside the normalisation"),),
    witnesses=(Witness("attained", _eq12_att, "psi linear: Cauchy-Schwarz is an equality"),
               Witness("slack", ({"p": R(1, 2), "s": R(1), "c_1": 0, "c_3": 1, "c_5": 0},),
                       "psi = x^3 / sqrt(E x^6): |E x psi|^2 = (3/5) p mu_2")),
    budget=40, starts=3, seed=12,
)

THM31 = Statement(
    claim="S-thm3.1", where="Thm 3.1, Thm 2.2(1)",
    params=(Param("m", "int", values=(1, 3)), *PARAMS_DN, PARAM_P, PARAM_S, PARAM_W),
    lhs=LTILDE_W.symbol, relation="<=", rhs=sympy.Symbol("C_2") * p ** ep * d ** ed,
    fields=(Field("C_2", "constant", mu(2), "C_2 = mu_2, the proof's constant"), Field("e_p", "exponent", 1),
            Field("e_d", "exponent", m)),
    computed=(LTILDE_W,),
    witnesses=(Witness("attained", PROJECTIONS, "m = 1: rank-d projections attain mu_2 p d^m"),
               Witness("slack", ZERO_W, "W = 0: Ltilde = 0")),
    budget=40, starts=3, seed=31,
)

_lema2_att = tuple({"a": sc, "c": sc * eps ** 2, "b": sc * eps * (1 - eps)}
                   for eps in (R(1, 10), R(1, 100), R(1, 10000)) for sc in (R(1, 100), R(1), R(100)))
_lam = (a + c) / 2 + sympy.sqrt(((a - c) / 2) ** 2 + b ** 2)
LEMA2 = Statement(
    claim="S-lemA.2", where="Lemma A.2",
    params=(Param("a", "rat", lo=-4, hi=4), Param("b", "rat", lo=-4, hi=4), Param("c", "rat", lo=-4, hi=4)),
    lhs=b ** 2 / c, relation="<=", rhs=C * _lam ** e,
    fields=(Field("C", "constant", 1), Field("e", "exponent", 1, "||A||_op to the power 1")),
    hypotheses=(Hypothesis("A22 > 0", c > 0, implied_by="a > 0 and ac - b^2 > 0 force c > 0"),
                Hypothesis("A11 > 0", a > 0, implied_by="c > 0 and ac - b^2 > 0 force a > 0"),
                Hypothesis("det A > 0", a * c - b ** 2 > 0,
                           outside=({"a": 1, "b": 10, "c": 1},)),),  # indefinite: 100 > 11
    witnesses=(Witness("approached", _lema2_att, "a = sc, c = sc eps^2, b = sc eps (1 - eps): the ratio tends to 1"),
               Witness("slack", ({"a": 1, "b": 0, "c": 1},), "b = 0: the left side is 0")),
    strict_holds="A11 - A12 A22^-1 A21 > 0 (Schur complement) gives ||A12 A22^-1 A21|| < ||A11|| <= ||A||",
    budget=60, starts=4, seed=2,
)

STATEMENTS = (EQ12, THM31, LEMA2,)
