r"""Wrong statements written by hand, independently of the variant engine: issue 43's third target.

Each :class:`HandEdit` is one statement object of :mod:`verify.statement_data` edited the way a paper's author or a
transcriber gets a formula wrong (a coefficient inside a formula, a swapped variable or index, a wrong double
factorial, a sign flip of one term, :math:`\mu_4` for :math:`\mu_2^2`, d for d - 1, a lost factor of 2, a wrong
exponent on one factor, a bound with the wrong parameter dependence), plus true rewrites as controls (the same
statement typed otherwise, or a weaker bound). They were written from the papers, the claim catalogue and the
statement objects, not from :func:`verify.statements.variants`.

Every edit says what it is and how we know:

* a false edit names an ``instance``, an exact point of the statement's domain that satisfies its hypotheses and at
  which the edited relation fails, evaluated exactly (``tests/statement_data/test_hand_edits.py``); the search is
  never handed it;
* a true edit is ``equivalent`` (both sides equal the paper's, symbolically) or ``weaker`` with the ``gap`` (the
  edited bound minus the paper's, on the side that loosens it), non-negative on the whole domain.

``$VERIFY_STATEMENT_VARIANT=CLAIM::edit:<name>`` makes the claim's checks read the edited statement
(:func:`verify.statements.current`); ``verify variants --edits [--checks]`` decides the catalogue by the statements'
own search and by the claims' own checks.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import sympy
from sympy import Rational as R

from .._validate import VerifyInputError
from . import get_statement
from .S._law import mu

#: the prefix of an edit's name in ``$VERIFY_STATEMENT_VARIANT`` (``CLAIM::edit:<name>``)
PREFIX = "edit:"

m, p, s, d, n, t = sympy.symbols("m p s d n t")
a, b, c = sympy.symbols("a b c")
a1, a2 = sympy.symbols("a_1 a_2")
lW, lH = sympy.symbols("lambda_W lambda_H")
K = sympy.Symbol("K")


@dataclass(frozen=True)
class HandEdit:
    """One hand-written edit of ``claim``'s statement. ``truth``: ``"false"`` (with ``instance``, where it fails)
    or ``"true"`` (``how``: ``"equivalent"`` or ``"weaker"``). A weaker edit's ``gap`` is how much looser its bound
    is (the edited bound minus the paper's for an upper bound, the reverse for a lower bound), written so that it is
    visibly >= 0: a polynomial with non-negative coefficients in the parameters (all >= 0 where a gap reads them)
    and in ``atoms`` (``(symbol name, expression)`` pairs, each expression >= 0 on the domain, e.g. ``n - d``, a
    determinant under the hypotheses) and ``nonneg`` (computed quantities >= 0 by definition, e.g. a norm)."""

    name: str
    claim: str
    truth: str
    description: str
    statement: Any
    instance: dict | None = None
    how: str = ""
    gap: Any = None
    atoms: tuple = ()
    nonneg: tuple = ()

    @property
    def edits_fields(self) -> bool:
        """Whether the edit changes a field's value (what :func:`verify.statements.constants` gives a check), or only
        the sides or hypotheses (which a check sees only through ``holds``/``sides``/``current``)."""
        return self.statement.fields != get_statement(self.claim).fields


def _witness(claim: str, i: int = 0, kind: str | None = None) -> dict:
    """The ``i``-th point of the statement data's first witness (of ``kind``): an identity holds at any point, so a
    point where the paper's identity is evaluated is a point where a wrong one shows."""
    ws = [w for w in get_statement(claim).witnesses if kind is None or w.kind == kind]
    return dict(ws[0].points[i])


def _fields(st, **values):
    """``st``'s fields with some values replaced (a named constant typed wrong)."""
    for k in values:
        st.field(k)  # a name that is not a field of st is a bug of the catalogue: say so
    return tuple(replace(f, value=values[f.name]) if f.name in values else f for f in st.fields)


def _edit(claim, fields: dict | None = None, **changes):
    """``claim``'s statement with ``changes`` (sides, hypotheses) and the ``fields`` named given new values. The
    fields are kept even where an edited side no longer reads them: a check reads them by name."""
    st = get_statement(claim)
    return replace(st, **changes, **({"fields": _fields(st, **fields)} if fields else {}))


def _mu_wrong_factorial(k):
    r""":math:`\mu_k` with :math:`k!!` for :math:`(k-1)!!` (the double factorial off by one)."""
    k = sympy.sympify(k)
    return s ** (k / 2) * sympy.factorial2(k)


def _catalogue() -> list:
    E = []

    def add(name, claim, truth, description, statement, **kw):
        E.append(HandEdit(name, claim, truth, description, statement, **kw))

    ltd = sympy.Symbol("Ltilde")
    # ------------------------------------------------------------------ S-eq9: the diagonal loss
    add("eq9-mu2m-as-mu-m+1-squared", "S-eq9", "false", "mu_{2m} typed as mu_{m+1}^2 (equal only at s = 1)",
        _edit("S-eq9", rhs=p * (2 * mu(m + 1) * (a1 ** m + a2 ** m) - mu(m + 1) ** 2 * (a1 ** (2 * m) + a2 ** (2 * m)))),
        instance={"m": 1, "p": R(1, 2), "s": R(2), "a_1": R(1), "a_2": R(0)})
    add("eq9-exponent-m+1-on-a1", "S-eq9", "false", "A_11^{2m} typed as A_11^{m+1} in the quartic term",
        _edit("S-eq9", rhs=p * (2 * mu(m + 1) * (a1 ** m + a2 ** m) - mu(2 * m) * (a1 ** (m + 1) + a2 ** (2 * m)))),
        instance={"m": 3, "p": R(1, 2), "s": R(1, 3), "a_1": R(2), "a_2": R(0)})
    add("eq9-cross-term-without-2", "S-eq9", "false", "the 2 of 2 E<x, phi(Ax)> lost inside the formula",
        _edit("S-eq9", rhs=p * (mu(m + 1) * (a1 ** m + a2 ** m) - mu(2 * m) * (a1 ** (2 * m) + a2 ** (2 * m)))),
        instance={"m": 1, "p": R(1, 3), "s": R(2), "a_1": R(1, 2), "a_2": R(3, 2)})
    add("eq9-sign-of-quartic-term", "S-eq9", "false", "the quartic term added instead of subtracted",
        _edit("S-eq9", rhs=p * (2 * mu(m + 1) * (a1 ** m + a2 ** m) + mu(2 * m) * (a1 ** (2 * m) + a2 ** (2 * m)))),
        instance={"m": 1, "p": R(1, 3), "s": R(2), "a_1": R(1, 2), "a_2": R(3, 2)})
    add("eq9-per-coordinate-form", "S-eq9", "true", "the same sum written per coordinate, a_i^m (2 mu_{m+1} - "
        "mu_{2m} a_i^m)",
        _edit("S-eq9", rhs=p * sum(x ** m * (2 * mu(m + 1) - mu(2 * m) * x ** m) for x in (a1, a2))),
        how="equivalent")

    # ------------------------------------------------------------------ S-eq10: the optimum of a row
    add("eq10-mu2m-as-mu-m+1-squared", "S-eq10", "false", "1/mu_{2m} typed as 1/mu_{m+1}^2 (the optimum p d)",
        _edit("S-eq10", rhs=p * d * mu(m + 1) ** 2 / mu(m + 1) ** 2),
        instance={"m": 1, "p": R(1, 3), "s": R(2), "d": 2})
    add("eq10-d-minus-1", "S-eq10", "false", "d rows counted as d - 1",
        _edit("S-eq10", rhs=p * (d - 1) * mu(m + 1) ** 2 / mu(2 * m)),
        instance={"m": 1, "p": R(1, 3), "s": R(2), "d": 2})
    add("eq10-double-factorial", "S-eq10", "false", "mu_{m+1} with (m+1)!! for m!!",
        _edit("S-eq10", rhs=p * d * _mu_wrong_factorial(m + 1) ** 2 / mu(2 * m)),
        instance={"m": 1, "p": R(1, 3), "s": R(2), "d": 2})
    add("eq10-mu-s-written-out", "S-eq10", "true", "the optimum with the Gaussian moments written out: "
        "p d s ((m)!!)^2 / (2m - 1)!!",
        _edit("S-eq10", rhs=p * d * s * sympy.factorial2(m) ** 2 / sympy.factorial2(2 * m - 1)),
        how="equivalent")

    # ------------------------------------------------------------------ S-linear
    proj2 = {"m": 1, "d": 2, "n": 3, "p": R(1, 2), "s": R(2), "W": sympy.Matrix([[1, 0, 0], [0, 1, 0]])}
    add("linear-no-d", "S-linear", "false", "the bound without its d (wrong parameter dependence: p mu_2)",
        _edit("S-linear", rhs=p * mu(2)), instance=proj2)
    add("linear-p-squared", "S-linear", "false", "p^2 for p (the mask counted twice)",
        _edit("S-linear", rhs=p ** 2 * mu(2) * d), instance=proj2)
    add("linear-n-for-d", "S-linear", "true", "d replaced by n >= d (a weaker bound)",
        _edit("S-linear", rhs=p * mu(2) * n), how="weaker",
        gap=p * s * sympy.Symbol("g"), atoms=(("g", n - d),))
    add("linear-without-p", "S-linear", "true", "p <= 1 dropped (a weaker bound mu_2 d)",
        _edit("S-linear", rhs=mu(2) * d), how="weaker",
        gap=sympy.Symbol("g") * s * d, atoms=(("g", 1 - p),))

    # ------------------------------------------------------------------ S-thm3.1
    add("thm3.1-C2-mu4-over-3", "S-thm3.1", "false", "C_2 = mu_4 / 3 (= mu_2^2) for mu_2",
        _edit("S-thm3.1", fields={"C_2": mu(4) / 3}),
        instance={**proj2, "s": R(1, 2)})
    add("thm3.1-d-to-m-minus-1", "S-thm3.1", "false", "d^{m-1} for d^m",
        _edit("S-thm3.1", fields={"e_d": m - 1}), instance=proj2)
    add("thm3.1-C2-plus-mu4", "S-thm3.1", "true", "C_2 = mu_2 + mu_4 (a looser proof constant)",
        _edit("S-thm3.1", fields={"C_2": mu(2) + mu(4)}), how="weaker", gap=3 * s ** 2 * p * d ** m)

    # ------------------------------------------------------------------ S-lemA.2
    lam = (a + c) / 2 + sympy.sqrt(((a - c) / 2) ** 2 + b ** 2)
    near = {"a": R(1), "b": R(9, 100), "c": R(1, 100)}  # a = 1, c = eps^2, b = eps (1 - eps), eps = 1/10
    add("lemA.2-smaller-eigenvalue", "S-lemA.2", "false", "||A|| typed as the smaller eigenvalue (sign of the root)",
        _edit("S-lemA.2", rhs=(a + c) / 2 - sympy.sqrt(((a - c) / 2) ** 2 + b ** 2)), instance=near)
    add("lemA.2-c-squared", "S-lemA.2", "false", "b^2 / c typed as b^2 / c^2",
        _edit("S-lemA.2", lhs=b ** 2 / c ** 2), instance=near)
    add("lemA.2-trace", "S-lemA.2", "true", "||A|| <= tr A = a + c (A > 0): a weaker bound",
        _edit("S-lemA.2", rhs=a + c), how="weaker",
        gap=sympy.Symbol("det") / sympy.Symbol("lam"), atoms=(("det", a * c - b ** 2), ("lam", lam)))

    # ------------------------------------------------------------------ S-eq11
    m1, m2 = sympy.symbols("m_1 m_2")
    inv_form = (m1 ** 2 * c - 2 * m1 * m2 * b + m2 ** 2 * a) / (a * c - b ** 2)
    add("eq11-sigma-for-inverse", "S-eq11", "false", "tr(M Sigma M^T) for tr(M Sigma^-1 M^T)",
        _edit("S-eq11", rhs=m1 ** 2 * a + 2 * m1 * m2 * b + m2 ** 2 * c),
        instance={"a": R(2), "b": R(0), "c": R(1), "m_1": R(1), "m_2": R(0)})
    add("eq11-det-without-b2", "S-eq11", "false", "det Sigma typed as a c (the -b^2 lost)",
        _edit("S-eq11", rhs=(m1 ** 2 * c - 2 * m1 * m2 * b + m2 ** 2 * a) / (a * c)),
        instance={"a": R(2), "b": R(1, 2), "c": R(1), "m_1": R(1), "m_2": R(0)})
    add("eq11-sign-of-cross-term", "S-eq11", "false", "+2 m_1 m_2 b for -2 m_1 m_2 b in the adjugate",
        _edit("S-eq11", rhs=(m1 ** 2 * c + 2 * m1 * m2 * b + m2 ** 2 * a) / (a * c - b ** 2)),
        instance={"a": R(2), "b": R(1, 2), "c": R(1), "m_1": R(1), "m_2": R(1)})
    add("eq11-adjugate-form", "S-eq11", "true", "M Sigma^-1 M^T written through the adjugate over the determinant",
        _edit("S-eq11", rhs=inv_form),
        how="equivalent")

    # ------------------------------------------------------------------ S-eq12
    add("eq12-p-squared", "S-eq12", "false", "the bound p^2 mu_2 (the mask counted twice)",
        _edit("S-eq12", fields={"e_p": 2}), instance={"p": R(1, 2), "s": R(3), "c_1": R(1), "c_3": 0, "c_5": 0})
    add("eq12-mu4-for-mu2", "S-eq12", "false", "the bound p mu_4 / 3 (= p mu_2^2) for p mu_2",
        _edit("S-eq12", rhs=p * mu(4) / 3), instance={"p": R(1, 2), "s": R(1, 2), "c_1": R(1), "c_3": 0, "c_5": 0})
    add("eq12-bound-mu2-only", "S-eq12", "true", "p <= 1 dropped: |E x psi|^2 <= mu_2 (weaker)",
        _edit("S-eq12", rhs=mu(2)), how="weaker",
        gap=sympy.Symbol("g") * s, atoms=(("g", 1 - p),))

    # ------------------------------------------------------------------ S-eq19: the one-dimensional supremum
    add("eq19-completing-square-2b", "S-eq19", "false", "the optimum a^2 / (2b) (the 2 of 2 a t^m forgotten when "
        "completing the square)", _edit("S-eq19", rhs=a ** 2 / (2 * b)), instance={"m": 1, "a": R(1), "b": R(1)})
    add("eq19-a-to-the-1", "S-eq19", "false", "a / b for a^2 / b (wrong exponent on a)",
        _edit("S-eq19", rhs=a / b), instance={"m": 3, "a": R(2), "b": R(1, 5)})

    # ------------------------------------------------------------------ S-eq21
    add("eq21-mu2m-for-mu-m+1", "S-eq21", "false", "p mu_{2m} k for p mu_{m+1} k (the moment of the square term)",
        _edit("S-eq21", rhs=p * mu(2 * m) * sympy.Symbol("k")), instance=_witness("S-eq21", 0, "attained"))

    # ------------------------------------------------------------------ S-eq22: the denominator (Rosenthal)
    kk, dd, CR, Cm = sympy.symbols("k d C_R C_m")
    e_1, e_2, e_3, e_w = sympy.symbols("e_1 e_2 e_3 e_w")
    row_2m = mu(2 * m) * p ** e_1 * (1 + kk * (Cm ** 2 / dd) ** e_w)  # p mu_2m sum_j M_ij^2m, bounded
    row_2 = mu(2) ** m * p ** e_2 * (1 + Cm ** 2 * kk / dd) ** e_3    # (p mu_2 sum_j M_ij^2)^m, bounded
    add("eq22-min-for-max", "S-eq22", "false", "Rosenthal's max(sum E X^2m, (sum E X^2)^m) read as a min",
        _edit("S-eq22", rhs=CR * kk * sympy.Min(row_2m, row_2)), instance=_witness("S-eq22", 0, "slack"))
    add("eq22-diagonal-left-out", "S-eq22", "false", "the row sums over j != i only (the diagonal M_ii = 1 left out "
        "of sum_j M_ij^2m and sum_j M_ij^2)",
        _edit("S-eq22", rhs=CR * kk * sympy.Max(mu(2 * m) * p ** e_1 * kk * (Cm ** 2 / dd) ** e_w,
                                                mu(2) ** m * p ** e_2 * (Cm ** 2 * kk / dd) ** e_3)),
        instance=_witness("S-eq22", 0, "attained"))
    add("eq22-1+k/d-dropped", "S-eq22", "false", "p^m k for p^m k (1 + k/d)^m (the growth of the row sums of M_ij^2 "
        "with k forgotten)", _edit("S-eq22", rhs=CR * kk * sympy.Max(row_2m, mu(2) ** m * p ** e_2)),
        instance=_witness("S-eq22", 1, "slack"))

    # ------------------------------------------------------------------ S-thm4.2: the construction at the paper's k
    jj, Cc, e_4 = sympy.symbols("j C e_4")
    pj = 2 ** (-m * jj)
    norm = Cc * mu(m + 1) ** 2 / mu(2 * m)
    add("thm4.2-max-for-min", "S-thm4.2", "false", "max(p d^m, d p^(1/m)) for the min (the two regimes of k swapped)",
        _edit("S-thm4.2", rhs=norm * sympy.Max(pj ** e_1 * dd ** e_2, dd ** e_3 * pj ** e_4)),
        instance=_witness("S-thm4.2", 2))
    add("thm4.2-d-to-the-m-twice", "S-thm4.2", "false", "d^m p^(1/m) for d p^(1/m) (the d^m of the other branch)",
        _edit("S-thm4.2", rhs=norm * sympy.Min(pj ** e_1 * dd ** e_2, dd ** e_2 * pj ** e_4)),
        instance=_witness("S-thm4.2", 4))
    add("thm4.2-k-for-pk", "S-thm4.2", "false", "d p^(1/m) / p for d p^(1/m) (the paper's k typed for pk)",
        _edit("S-thm4.2", rhs=norm * sympy.Min(pj ** e_1 * dd ** e_2, dd ** e_3 * pj ** e_4 / pj)),
        instance=_witness("S-thm4.2", 5))

    # ------------------------------------------------------------------ S-eq6
    add("eq6-d-for-n", "S-eq6", "false", "E|x|^2 = p d mu_2 (d for n)",
        _edit("S-eq6", rhs=p * d * mu(2) - ltd),
        instance={"m": 1, "d": 1, "n": 2, "p": R(1, 3), "s": R(2), "W": sympy.Matrix([[1, R(1, 2)]])})
    add("eq6-mu2-squared", "S-eq6", "false", "E|x|^2 = p n mu_2^2 (mu_4 / 3 for mu_2)",
        _edit("S-eq6", rhs=p * n * mu(4) / 3 - ltd), instance=_witness("S-eq6", 0))
    add("eq6-moment-written-out", "S-eq6", "true", "E|x|^2 = n p s written out",
        _edit("S-eq6", rhs=n * p * s - ltd), how="equivalent")

    # ------------------------------------------------------------------ S-exact-loss
    X, Y = sympy.symbols("X Y")
    add("exact-loss-cross-without-2", "S-exact-loss", "false", "E<x, phi> counted once (the 2 of the cross term lost)",
        _edit("S-exact-loss", rhs=X - Y), instance=_witness("S-exact-loss", 0))
    add("exact-loss-sign-of-square", "S-exact-loss", "false", "+E|phi|^2 for -E|phi|^2",
        _edit("S-exact-loss", rhs=2 * X + Y), instance=_witness("S-exact-loss", 0))

    # ------------------------------------------------------------------ S-tensor
    add("tensor-coefficient-m", "S-tensor", "false", "<u, v>^m = m <u^(x)m, v^(x)m> (a stray factor m)",
        _edit("S-tensor", rhs=m * sympy.Symbol("T_uv")), instance=_witness("S-tensor", 2))

    # ------------------------------------------------------------------ S-rem4.3-first-order
    ws = sympy.Matrix(2, 3, sympy.symbols("w_11 w_12 w_13 w_21 w_22 w_23"))
    A = ws.T * ws
    add("first-order-diagonal-only", "S-rem4.3-first-order", "false",
        "sum_ij A_ij^{2m} typed as sum_i A_ii^{2m} (an index lost)",
        _edit("S-rem4.3-first-order", rhs=2 * mu(m + 1) * sum(A[i, i] ** m for i in range(3))
              - mu(2 * m) * sum(A[i, i] ** (2 * m) for i in range(3))), instance=_witness("S-rem4.3-first-order", 2))
    add("first-order-mu-m+1-squared", "S-rem4.3-first-order", "false", "mu_{2m} typed as mu_{m+1}^2",
        _edit("S-rem4.3-first-order", rhs=2 * mu(m + 1) * sum(A[i, i] ** m for i in range(3))
              - mu(m + 1) ** 2 * sum(A[i, j] ** (2 * m) for i in range(3) for j in range(3))),
        instance=_witness("S-rem4.3-first-order", 2))

    # ------------------------------------------------------------------ S-rem4.3-bound
    add("bound-m-for-rank", "S-rem4.3-bound", "false", "F(B) <= m for F(B) <= rank B~ (wrong parameter)",
        _edit("S-rem4.3-bound", rhs=m), instance=_witness("S-rem4.3-bound", 0, "attained"))

    # ------------------------------------------------------------------ S-thm2.2-2
    add("thm2.2-2-d-to-the-m", "S-thm2.2-2", "true", "(K + K^3) d^m for (K + K^3) d (weaker: d >= 1, m >= 1)",
        _edit("S-thm2.2-2", rhs=(K + K ** 3) * d ** m), how="weaker",
        gap=(K + K ** 3) * sympy.Symbol("g"), atoms=(("g", d ** m - d),))
    add("thm2.2-2-inverted-constants", "S-thm2.2-2", "false", "(1/K + 1/K^3) d: the bounds on v'' read inverted",
        _edit("S-thm2.2-2", rhs=(1 / K + K ** -3) * d),
        instance={"m": 1, "d": 1, "n": 4, "p": R(1), "s": R(2), "K": R(2), "W": sympy.Matrix([[1, 0, 0, 0]])})

    # ------------------------------------------------------------------ S-lemA.1
    add("lemA.1-sign", "S-lemA.1", "false", "d/ds E f = +Cov(f, dV/ds) (the minus sign lost)",
        _edit("S-lemA.1", fields={"C": 1}), instance=_witness("S-lemA.1", 0))

    # ------------------------------------------------------------------ S-fn4
    add("fn4-trace-n", "S-fn4", "false", "tr Pi = n for tr Pi = d (the rank of P swapped for its width)",
        _edit("S-fn4", lhs=get_statement("S-fn4").lhs.xreplace({d: n})), instance=_witness("S-fn4", 0))

    # ------------------------------------------------------------------ S-lem4.1
    add("lem4.1-sqrt2-as-2", "S-lem4.1", "true", "C_m = 2 (4m - 2) for (4m - 2) sqrt 2 (weaker)",
        _edit("S-lem4.1", fields={"C_m": 2 * (4 * m - 2)}), how="weaker",
        gap=(2 - sympy.sqrt(2)) * sympy.Symbol("g") * d ** R(-1, 2), atoms=(("g", 4 * m - 2),))
    add("lem4.1-over-d", "S-lem4.1", "false", "coherence <= C_m / d for C_m / sqrt(d) (the square root lost)",
        _edit("S-lem4.1", fields={"e": 1}), instance=_witness("S-lem4.1", 0, "approached"))

    # ------------------------------------------------------------------ paper N
    c_ = sympy.sqrt(lW * lH)
    add("D-sigmas-c-squared", "N-D-sigmas", "false", "(1 - lambda_W lambda_H)^2: c^2 for c",
        _edit("N-D-sigmas", rhs=(1 - lW * lH) ** 2), instance={"lambda_W": R(1, 4), "lambda_H": R(1, 4)})
    add("D-sigmas-sign", "N-D-sigmas", "false", "(1 + c)^2 for (1 - c)^2",
        _edit("N-D-sigmas", rhs=(1 + c_) ** 2), instance={"lambda_W": R(1, 4), "lambda_H": R(1, 4)})
    add("D-sigmas-expanded", "N-D-sigmas", "true", "(1 - c)^2 expanded: 1 - 2 c + lambda_W lambda_H",
        _edit("N-D-sigmas", rhs=1 - 2 * c_ + lW * lH), how="equivalent")

    d_, K_, n_ = sympy.symbols("d K n")
    add("D-eig-K-minus-1", "N-D-eig", "false", "(1 - (K - 1)/d)/n for (1 - K/d)/n",
        _edit("N-D-eig", rhs=(1 - (K_ - 1) / d_) / n_), instance=_witness("N-D-eig", 0))
    add("D-eig-d-over-K", "N-D-eig", "false", "(1 - d/K)/n: the ratio inverted",
        _edit("N-D-eig", rhs=(1 - d_ / K_) / n_), instance=_witness("N-D-eig", 0))
    add("D-eig-one-fraction", "N-D-eig", "true", "(d - K)/(d n), one fraction",
        _edit("N-D-eig", rhs=(d_ - K_) / (d_ * n_)), how="equivalent")

    add("D.1-full-F-K-squared", "N-D.1-full-F", "false", "K^2 inter-class eigenvalues (K for K - 1)",
        _edit("N-D.1-full-F", rhs=K_ ** 2), instance=_witness("N-D.1-full-F", 0))
    add("D.1-full-F-unordered-pairs", "N-D.1-full-F", "false", "K (K - 1) / 2 (unordered pairs of classes)",
        _edit("N-D.1-full-F", rhs=K_ * (K_ - 1) / 2), instance=_witness("N-D.1-full-F", 0))
    add("D.1-full-F-expanded", "N-D.1-full-F", "true", "K^2 - K", _edit("N-D.1-full-F", rhs=K_ ** 2 - K_),
        how="equivalent")

    add("L-closed-lambdaW-over-n", "N-L-closed", "false", "lambda_W / n for lambda_W / K in Sigma_W and SigmaT~",
        _edit("N-L-closed", fields={"e": 1 / n_}), instance=_witness("N-L-closed", 1))  # n = 2 != K = 3
    add("L-closed-sign-of-d-K", "N-L-closed", "false", "+(d - K)/(2K) for -(d - K)/(2K)",
        _edit("N-L-closed", fields={"C_3": -1 / (2 * K_)}), instance=_witness("N-L-closed", 0))

    add("metrics-over-n", "N-metrics", "false", "NC_1 = (1/n) sum_k NC_1^(k): n for K",
        _edit("N-metrics", fields={"c": 1 / n_}),
        instance={"d": 2, "K": 3, "n": 2, "H": sympy.Matrix([[R(7, 5), R(-1, 3), 2, R(1, 2), 1, 0],
                                                             [R(-3, 2), R(5, 4), R(2, 7), -1, R(1, 3), 2]])})

    etf_pt = {**_witness("N-etf", 0), "G": sympy.Matrix([[R(2, 3), R(-1, 4)], [R(3, 2), 1]])}  # entries in [-2, 2]
    add("etf-over-K-minus-1", "N-etf", "false", "the centring projector with 1/(K - 1) for 1/K",
        _edit("N-etf", fields={"c_K": 1 / (K_ - 1)}), instance=etf_pt)
    add("etf-rho-not-squared", "N-etf", "false", "t for t^2 (the scale of the Gram matrix not squared)",
        _edit("N-etf", rhs=get_statement("N-etf").rhs.xreplace({t: sympy.sqrt(t)})), instance=etf_pt)

    add("decomp-sign", "N-decomp", "false", "SigmaT~ = Sigma_W - SigmaB~ (a sign)",
        _edit("N-decomp", fields={"c_B": -1}), instance=_witness("N-decomp", 0))

    add("lemB.1-lambdaW-upstairs", "N-lemB.1", "false", "3 lambda_W for 3 / lambda_W (wrong dependence on lambda_W)",
        _edit("N-lemB.1", rhs=get_statement("N-lemB.1").rhs.xreplace({sympy.Symbol("C_W") / lW:
                                                                        sympy.Symbol("C_W") * lW})),
        # a small H and lambda_W: the gradient is ~ |H| / lambda_W, far above 3 lambda_W |H|
        instance={**_witness("N-lemB.1", 0, "slack"), "H": _witness("N-lemB.1", 0, "slack")["H"] / 100,
                  "lambda_W": R(1, 10), "lambda_H": R(0)})
    add("lemB.1-four-over-lambdaW", "N-lemB.1", "true", "4 / lambda_W for 3 / lambda_W (weaker)",
        _edit("N-lemB.1", fields={"C_W": 4}), how="weaker",
        gap=sympy.Symbol("H_F") / (K_ * n_ * lW), nonneg=("H_F",))
    return E


@lru_cache(maxsize=1)
def catalogue() -> tuple:
    """Every hand edit, in catalogue order (built once: the statement objects are immutable)."""
    out = tuple(_catalogue())
    names = [e.name for e in out]
    dup = sorted({x for x in names if names.count(x) > 1})
    if dup:
        raise AssertionError(f"hand edits named twice: {dup}")
    return out


def edits(claims=None, paper: str | None = None) -> list:
    """The hand edits of ``claims`` (claim IDs; default every one) and ``paper`` ("S", "N" or None)."""
    if paper not in (None, "S", "N"):
        raise VerifyInputError(f"Argument '--paper' must be S or N, not {paper!r}.")
    known = {e.claim for e in catalogue()}
    for cl in claims or ():
        if cl not in known:
            raise VerifyInputError(f"Argument '--claim' must be a claim with hand edits ({', '.join(sorted(known))}), "
                                   f"not {cl!r}.")
    return [e for e in catalogue() if (not claims or e.claim in claims) and (paper is None or e.claim[0] == paper)]


def get_edit(claim: str, name: str) -> HandEdit:
    """The hand edit ``name`` of ``claim`` (the part after ``edit:`` in ``$VERIFY_STATEMENT_VARIANT``)."""
    for e in catalogue():
        if e.claim == claim and e.name == name:
            return e
    raise VerifyInputError(f"Environment variable VERIFY_STATEMENT_VARIANT must name a hand edit of {claim} "
                           f"({', '.join(e.name for e in catalogue() if e.claim == claim) or 'none'}), not {name!r}.")
