r"""Statement objects of paper N's perturbation matrix F (Lemma C.3, App. D).

* ``N-lemC.3`` (Lemma C.3): :math:`0 \preceq B \prec A \Rightarrow \|A^{-1/2}BA^{-1/2}\|_{op} \le C`, :math:`C = 1`,
  on 2 x 2 symmetric matrices; the norm is :math:`\max|\lambda|` over the roots of
  :math:`\det(B - \lambda A) = 0`, in closed form.
* ``N-D-sigmas`` (App. D): :math:`\sigma_{\bar H}^2 \sigma_W^2 = (C - \sqrt{\lambda_W\lambda_H})^e`,
  :math:`C = 1`, :math:`e = 2`, with :math:`\sigma_{\bar H}^2 = \sqrt{\lambda_W/\lambda_H} - \lambda_W`,
  :math:`\sigma_W^2 = \sqrt{\lambda_H/\lambda_W} - \lambda_H`.
"""

from __future__ import annotations

import sympy
from sympy import Rational as R

from ...statements import Field, Hypothesis, Param, Statement, Witness

a11, a12, a22, b11, b12, b22 = sympy.symbols("a11 a12 a22 b11 b12 b22")
_alpha = a11 * a22 - a12 ** 2
_beta = a11 * b22 + a22 * b11 - 2 * a12 * b12
_gamma = b11 * b22 - b12 ** 2
_disc = sympy.sqrt(_beta ** 2 - 4 * _alpha * _gamma)
#: :math:`\|A^{-1/2} B A^{-1/2}\|_{op}`: the largest |root| of det(B - lam A) = alpha lam^2 - beta lam + gamma
_gen_norm = sympy.Max(sympy.Abs((_beta + _disc) / (2 * _alpha)), sympy.Abs((_beta - _disc) / (2 * _alpha)))


def _ab(A, B):
    return {"a11": A[0], "a12": A[1], "a22": A[2], "b11": B[0], "b12": B[1], "b22": B[2]}


_lemc3_approach = tuple(_ab((s, 0, 2 * s), tuple(x * (1 - e) for x in (s, 0, 2 * s)))
                        for e in (R(1, 4), R(1, 20), R(1, 1000)) for s in (R(1, 10), R(3))) + \
    tuple(_ab((2, 1, 3), tuple(x * (1 - e) for x in (2, 1, 3))) for e in (R(1, 20), R(1, 1000)))

LEMC3 = Statement(
    claim="N-lemC.3", where="Lemma C.3",
    params=tuple(Param(n, "rat", lo=-4, hi=4) for n in ("a11", "a12", "a22", "b11", "b12", "b22")),
    lhs=_gen_norm, relation="<=", rhs=sympy.Symbol("C"),
    fields=(Field("C", "constant", 1, "the bound 1 of Lemma C.3"),),
    hypotheses=(
        Hypothesis("B positive semidefinite", sympy.And(b11 >= 0, b22 >= 0, _gamma >= 0),
                   outside=(_ab((1, 0, 1), (-2, 0, -2)),)),  # B = -2A < A: the norm is 2
        Hypothesis("A - B positive definite", sympy.And(a11 - b11 > 0, (a11 - b11) * (a22 - b22) - (a12 - b12) ** 2 > 0),
                   outside=(_ab((1, 0, 1), (2, 0, 2)),)),  # B = 2A: the norm is 2
        Hypothesis("A positive definite", sympy.And(a11 > 0, _alpha > 0),
                   implied_by="B >= 0 and A - B > 0 give A = B + (A - B) > 0"),
    ),
    witnesses=(Witness("approached", _lemc3_approach, "B = (1 - eps) A: the norm is 1 - eps"),
               Witness("slack", (_ab((1, 0, 1), (0, 0, 0)),), "B = 0: the norm is 0")),
    strict_holds="A - B > 0 gives B <= (1 - delta) A for some delta > 0, so the norm is at most 1 - delta < 1",
    budget=80, starts=4, seed=3,
)

lW, lH = sympy.symbols("lambda_W lambda_H")
_c = sympy.sqrt(lW * lH)
_sig_H = sympy.sqrt(lW / lH) - lW
_sig_W = sympy.sqrt(lH / lW) - lH
_pts = tuple({"lambda_W": x, "lambda_H": y} for x, y in ((R(1, 2), R(1, 8)), (R(2), R(1, 3)), (R(1, 10), R(5))))

DSIGMAS = Statement(
    claim="N-D-sigmas", where="App. D",
    params=(Param("lambda_W", "rat", lo=0, hi=None), Param("lambda_H", "rat", lo=0, hi=None)),
    lhs=_sig_H * _sig_W, relation="=", rhs=(sympy.Symbol("C") - _c) ** sympy.Symbol("e"),
    fields=(Field("C", "constant", 1, "the 1 of (1 - c)^2"), Field("e", "exponent", 2, "the square of (1 - c)^2")),
    hypotheses=(Hypothesis("c = sqrt(lambda_W lambda_H) < 1", lW * lH < 1,
                           not_needed="the product expands to 1 - 2 sqrt(lW lH) + lW lH for all lW, lH > 0"),),
    witnesses=(Witness("identity", _pts, "an identity: it holds at every point of the domain"),),
    budget=40, starts=2, seed=5,
)

STATEMENTS = (DSIGMAS, LEMC3)
