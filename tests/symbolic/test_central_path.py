"""Tests of verify.symbolic.central_path: the expression builders, exact evaluation, LaTeX registry."""

import pytest
import sympy

from verify import VerifyInputError
from verify.latex import formulas
from verify.symbolic import central_path as cp


@pytest.mark.parametrize("name", ["N-Wstar", "N-L", "N-eq7", "N-lemA.1", "N-dT"])
def test_formulas_registered_with_latex(name):
    tex = formulas()[name].latex()
    assert r"\tilde{\Sigma}_{T}" in tex or r"\Sigma" in tex


def test_evaluate_is_exact():
    ns = cp.build(2, 2, 1)
    inst = cp.instance(sympy.Matrix([[1, 2], [3, 5]]), 2, sympy.Rational(1, 2), 0)
    val = cp.evaluate(cp.loss_chain(ns)["L"][1], ns, inst)
    assert isinstance(val, sympy.Rational)
    assert val == cp.evaluate(cp.loss_definition(ns), ns, inst)


def test_instance_definitions():
    inst = cp.instance(sympy.Matrix([[1, 3, 2, 2]]), 2, 1, 0)
    assert inst["Hbar"] == sympy.Matrix([[2, 2]])
    assert inst["SB"] == sympy.zeros(1, 1) and inst["SW"] == sympy.Matrix([[1]]) / 2


def test_reduced_ufm_rho():
    r = cp.reduced_ufm()
    val = r["rho"].subs({r["lam_W"]: sympy.Rational(1, 4), r["lam_H"]: 1})
    assert sympy.nsimplify(val) == sympy.Rational(1, 4)


def test_bad_input():
    with pytest.raises(VerifyInputError, match="'Hv'"):
        cp.instance(sympy.ones(2, 3), 2, 1, 0)
    with pytest.raises(VerifyInputError, match="'K'"):
        cp.etf_identity(1, 1)
    with pytest.raises(VerifyInputError, match="'d'"):
        cp.build(0, 2, 2)


@pytest.mark.parametrize("rows,cols", [(1, 1), (2, 3), (3, 2), (1, 4)])
def test_evaluate_expands_identity_and_all_ones_blocks_of_any_shape(rows, cols):
    """Identity and all-ones blocks of an expression become explicit matrices of their own shape, square or not
    (an all-ones r x c block is not the r x r one), inside a product with the instance's matrices."""
    from sympy import Identity, OneMatrix

    ns = cp.build(2, 2, 1)
    inst = cp.instance(sympy.Matrix([[1, 2], [3, 5]]), 2, sympy.Rational(1, 2), 0)
    assert cp.evaluate(OneMatrix(rows, cols), ns, inst) == sympy.ones(rows, cols)
    assert cp.evaluate(Identity(rows) * OneMatrix(rows, cols) * 3, ns, inst) == 3 * sympy.ones(rows, cols)
    got = cp.evaluate(ns.H * OneMatrix(2, cols), ns, inst)          # H is d x Kn = 2 x 2
    assert got == sympy.Matrix([[1, 2], [3, 5]]) * sympy.ones(2, cols)
