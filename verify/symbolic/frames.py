r"""Paper S, Lemma A.4: the frame over :math:`\mathbb F_{2^r}` and its Weil bound, as sympy formulas.

* :func:`frame_entry` - :math:`V_{x;\mathbf a} = \psi(\sum_{j<m} a_j x^{2j+1})/\sqrt d`;
* :func:`gram_entry` - :math:`(V^TV)_{\mathbf a\mathbf b} = \frac1d\sum_x \psi(P(x))`, :math:`P = \sum_j (a_j - b_j)x^{2j+1}`;
* :func:`weil_coherence_bound` - Weil's :math:`(\deg P - 1)\sqrt{2^r}` divided by :math:`d`, i.e.
  :math:`(2m-2)/\sqrt{2^r}` (and :math:`(4m-2)/\sqrt{2^r}` for the general-d construction with 2m).

>>> weil_coherence_bound(5, 3)
sqrt(2)/2
>>> weil_below_one_threshold(3)
32
"""

from __future__ import annotations

import sympy

from .._validate import verify_int
from ..latex import formula

__all__ = ["frame_entry", "gram_entry", "weil_coherence_bound", "weil_below_one_threshold"]

_x, _d, _r = sympy.symbols("x d r", positive=True)
_psi = sympy.Function(r"\psi")
_tr = sympy.Function(r"\operatorname{tr}")


def _coeffs(name: str, m: int) -> list:
    return [sympy.Symbol(f"{name}_{j}") for j in range(m)]


def frame_entry(m: int) -> sympy.Eq:
    r""":math:`V_{x;\mathbf a} = \psi(\sum_{j=0}^{m-1} a_j x^{2j+1}) / \sqrt d`, with :math:`\psi(z) = (-1)^{\operatorname{tr} z}`."""
    m = verify_int(m, "m", minimum=1)
    a = _coeffs("a", m)
    arg = sum(a[j] * _x ** (2 * j + 1) for j in range(m))
    return sympy.Eq(sympy.Symbol(r"V_{x;\mathbf{a}}"), _psi(arg) / sympy.sqrt(_d))


def gram_entry(m: int) -> sympy.Eq:
    r"""Gram entry as a character sum of the odd polynomial :math:`P = \sum_j (a_j - b_j) x^{2j+1}` (eq. 26)."""
    m = verify_int(m, "m", minimum=1)
    a, b = _coeffs("a", m), _coeffs("b", m)
    P = sum((a[j] - b[j]) * _x ** (2 * j + 1) for j in range(m))
    return sympy.Eq(sympy.Symbol(r"(V^T V)_{\mathbf{a};\mathbf{b}}"),
                    sympy.Sum(_psi(P), (_x, 0, _d - 1)) / _d)  # x runs over F_{2^r} by its integer representation


def weil_coherence_bound(r: int, m: int, general: bool = False) -> sympy.Expr:
    r"""The lemma's bound :math:`(\deg P - 1)\sqrt{2^r}/2^r` with :math:`\deg P \le 2m-1` (``general``: :math:`4m-1`)."""
    r = verify_int(r, "r", minimum=1)
    m = verify_int(m, "m", minimum=1)
    deg = 4 * m - 1 if general else 2 * m - 1
    q = sympy.Integer(2) ** r
    return sympy.radsimp((deg - 1) * sympy.sqrt(q) / q)


def weil_below_one_threshold(m: int, general: bool = False) -> int:
    r"""Smallest :math:`2^r` with :math:`(2m-2)/\sqrt{2^r} < 1` (``general``: :math:`4m-2`), solved exactly."""
    m = verify_int(m, "m", minimum=1)
    r = 1
    while not weil_coherence_bound(r, m, general) < 1:
        r += 1
    return 2 ** r


@formula("S-frame", "Lemma A.4 frame V (rows x in GF(2^r), columns a in GF(2^r)^m) and its Gram entries", m=3)
def _frame_formula(m=3):
    return [frame_entry(m),
            sympy.Eq(_psi(sympy.Symbol("z")), (-1) ** _tr(sympy.Symbol("z"))),
            sympy.Eq(_tr(sympy.Symbol("z")), sympy.Sum(sympy.Symbol("z") ** (2 ** sympy.Symbol("i")),
                                                        (sympy.Symbol("i"), 0, _r - 1))),
            gram_entry(m)]


@formula("S-weil", "Weil bound of Lemma A.4 instantiated: |(V^T V)_ab| <= (2m-2)/sqrt(2^r) for a != b", r=8, m=3)
def _weil_formula(r=8, m=3):
    M = sympy.Symbol(r"\left|(V^T V)_{\mathbf{a};\mathbf{b}}\right|")
    bound = weil_coherence_bound(r, m)
    return [sympy.Le(M, sympy.Mul(2 * m - 2, 1 / sympy.sqrt(sympy.Integer(2) ** r), evaluate=False)),
            sympy.Le(M, bound), sympy.Le(M, bound.evalf(8))]
