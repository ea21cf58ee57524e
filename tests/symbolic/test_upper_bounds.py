"""Tests of verify/symbolic/upper_bounds.py."""

from __future__ import annotations

import sympy

from verify.latex import get_formula
from verify.symbolic import upper_bounds as sub


def test_lemA3_gradient():
    assert all(e == 0 for e in sub.lemA3_gradient_residual(3, 2))


def test_lemA3_gap_zero_in_row_space_and_not_outside():
    S = sympy.Matrix([[1, 1], [1, 1]])  # singular, row space span(1, 1)
    D = sympy.Matrix(1, 2, sympy.symbols("d0 d1"))
    assert sub.lemA3_gap(sympy.Matrix([[2, 2]]), S, D) == 0
    assert sub.lemA3_gap(sympy.Matrix([[1, -1]]), S, D) != 0  # M outside the row space: the formula fails


def test_constants():
    a = sympy.symbols("a_1:4")
    assert sympy.expand(sub.second_moment_linear_form(3) - sub.p * sub.mu2 * sum(t ** 2 for t in a)) == 0
    assert sub.thm31_constant() == sub.mu2
    assert sub.thm32_constant() == sub.K + sub.K ** 3
    assert sub.thm32_steps()["lip"] == sub.K


def test_thm32_steps_general_match_numeric_chain():
    from verify.numeric.upper_bounds import thm32_chain

    a, b = sympy.symbols("alpha beta", positive=True)
    gen = sub.thm32_steps()["general"]
    ch = thm32_chain(a, b)
    assert sympy.simplify(gen["Ey2"] - ch["Ey2"]) == 0 and sympy.simplify(gen["Em2"] - ch["Em2"]) == 0
    assert sympy.simplify(gen["lip"] ** 2 - ch["lipschitz_sq"]) == 0


def test_formulas_registered():
    for name in ("S-thm3.1-C2", "S-thm3.2-C3", "S-lemA.3"):
        assert get_formula(name).latex()
    assert "K^{3}" in get_formula("S-thm3.2-C3").latex()
