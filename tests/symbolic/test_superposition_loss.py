"""Tests of verify/symbolic/superposition_loss.py (the sympy derivation of paper S's exact loss)."""

import doctest

import numpy as np
import pytest
import sympy
from sympy.stats import E as expectation, Normal

from verify.engine import random_rational_matrix
from verify.latex import get_formula
from verify.symbolic import superposition_loss as S

p, a, mu = S.p, S.a, S.mu


def test_doctests():
    assert doctest.testmod(S, raise_on_error=False).failed == 0


def test_cumulants_of_sparse_variable():
    assert S.x_cumulant(2) == p * mu(2)
    assert sympy.expand(S.x_cumulant(4) - (p * mu(4) - 3 * p ** 2 * mu(2) ** 2)) == 0
    assert all(S.x_cumulant(k) == 0 for k in (1, 3, 5))


def test_moment_from_cumulants_matches_sympy_stats_gaussian():
    s2 = sympy.Rational(3, 2)
    kappa = [0, 0, s2] + [0] * 8
    X = Normal("X", 0, sympy.sqrt(s2))
    for n in (2, 4, 6, 8, 10):
        assert sympy.simplify(S.moment_from_cumulants(n, kappa) - expectation(X ** n)) == 0


def test_row_polynomial_full_and_offdiag_agree():
    for m in (1, 3, 5):
        full = S.row_polynomial(m, "full")
        off = S.row_polynomial(m)
        back = off.subs({S.T(k): S.S(k) - a ** k for k in range(2, 2 * m + 1, 2)})
        assert sympy.expand(full - back) == 0


def test_row_symbols_cover_polynomial_and_lambdify_to_torch():
    torch = pytest.importorskip("torch")
    m = 3
    syms = S.row_symbols(m)
    assert S.row_polynomial(m).free_symbols <= set(syms)
    fn = sympy.lambdify(syms, S.row_polynomial(m), modules="torch")
    # torch.pow rejects (float, int): scalars go in as 0-d tensors too
    args = [torch.tensor(v, dtype=torch.float64) for v in
            (0.3, 1.0, 3.0, 15.0, [0.5, 0.7], [0.1, 0.2], [0.01, 0.02], [0.001, 0.003])]
    ref = sympy.lambdify(syms, S.row_polynomial(m), modules="numpy")(*[np.asarray(x) for x in args])
    assert np.allclose(fn(*args).numpy(), ref, rtol=1e-14, atol=0)


def test_loss_expression_matches_brute_force_n2():
    rng = np.random.default_rng(0)
    A = random_rational_matrix(rng, 2, 2)
    A = (A + A.T) / 2
    assert sympy.expand(S.loss_expression(A, 3) - S.brute_force_loss(A, 3)) == 0


def test_gradient_equals_sympy_differentiation():
    rng = np.random.default_rng(1)
    w = sympy.Matrix(2, 2, sympy.symbols("w1:5"))
    point = dict(zip(w, random_rational_matrix(rng, 2, 2)))
    for m in (1, 3):
        L = S.loss_of_W(w, m)
        auto = w.applyfunc(lambda e: sympy.diff(L, e).xreplace(point))
        derived = S.grad_expression(w.xreplace(point), m)
        assert (auto - derived).applyfunc(sympy.expand).is_zero_matrix


def test_first_order_diagonal_and_supremum():
    assert S.first_order_term(5) == 2 * mu(6) * a ** 5 - mu(10) * S.S(10)
    assert S.diagonal_case(1) == sympy.expand(p * (2 * mu(2) * a - mu(2) * a ** 2))
    r = S.unsuperposed_supremum(3)
    assert r["t_star"] == mu(4) / mu(6)


def test_tensor_and_scaling_identities():
    assert S.tensor_identity(2, 3) == 0
    assert S.scaling_identity(3) == 0


def test_F_objective_of_identity():
    assert S.F_objective(sympy.eye(3), 3) == 3


@pytest.mark.parametrize("bad", [2, 0, -1, 2.5, "3", True])
def test_bad_m(bad):
    with pytest.raises(ValueError, match="'m'"):
        S.row_polynomial(bad)


def test_bad_stats_and_objective():
    with pytest.raises(ValueError, match="'stats'"):
        S.row_polynomial(3, "diag")
    with pytest.raises(ValueError, match="'objective'"):
        S.brute_force_loss(sympy.eye(1), 1, objective="loss")


@pytest.mark.parametrize("name", ["S-loss", "S-loss-row", "S-loss-grad", "S-loss-first-order", "S-eq9", "S-eq10"])
def test_formulas_render_for_m5(name):
    tex = get_formula(name).latex(m=5)
    assert "mu" in tex and "False" not in tex


def test_linear_formula_renders():
    assert r"\operatorname{tr}" in get_formula("S-linear").latex()
