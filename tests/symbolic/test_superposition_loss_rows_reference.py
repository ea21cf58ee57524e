r"""The row polynomial of paper S and its derived forms (:mod:`verify.symbolic.superposition_loss`: ``row_*``,
``first_order_term``, ``unsuperposed_supremum``, ``linear_case``, ``scaling_identity``, ``tensor_identity``) against
references written here.

Reference: a concrete row of A (diagonal :math:`A_{ii}` and off-diagonal entries :math:`c_1, \dots, c_r`, rational or
symbolic) and the expectations :math:`\mathbb E[x_i y_i^m]`, :math:`\mathbb E[y_i^{2m}]` of
:math:`y_i = A_{ii}x_i + \sum_j c_jx_j` by the binomial recursion of sums of independent coordinates with
:math:`\mathbb E x^k = p\mu_k` (k even, 0 odd): no cumulants, no Bell polynomials. The derivatives in
:math:`T_k = \sum_j c_j^k` are recovered from derivatives in the entries :math:`c_j` by the chain rule (a linear
system over m distinct entries).
"""

import itertools
import math

import numpy as np
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.symbolic import superposition_loss as SS

REF = settings.get_profile("reference")


def xm(k: int, p, mus: dict):
    if k == 0:
        return sympy.Integer(1)
    return p * mus[k] if k % 2 == 0 else sympy.Integer(0)


def sum_moments(coeffs, n: int, p, mus):
    mom = [sympy.Integer(1)] + [sympy.Integer(0)] * n
    for c in coeffs:
        mom = [sympy.expand(sum(sympy.binomial(q, i) * mom[i] * c ** (q - i) * xm(q - i, p, mus) for i in range(q + 1)))
               for q in range(n + 1)]
    return mom


def row_reference(a, cs, m: int, p, mus):
    """(E[x_i y^m], E[y^{2m}]) for y = a x_i + sum_j c_j x_j."""
    R = sum_moments(cs, 2 * m, p, mus)
    cross = sum(sympy.binomial(m, q) * a ** q * xm(q + 1, p, mus) * R[m - q] for q in range(m + 1))
    square = sum(sympy.binomial(2 * m, q) * a ** q * xm(q, p, mus) * R[2 * m - q] for q in range(2 * m + 1))
    return sympy.expand(cross), sympy.expand(square)


def rat(data, lo=-20, hi=20, den=7):
    return sympy.Rational(data.draw(st.integers(lo, hi)), data.draw(st.integers(1, den)))


@REF
@given(st.sampled_from([1, 3, 5]), st.integers(0, 3), st.data())
def test_row_polynomial_against_a_concrete_row(m, r, data):
    p = sympy.Rational(data.draw(st.integers(1, 10)), 10)
    mus = {k: sympy.Integer(math.prod(range(k - 1, 0, -2))) if data.draw(st.booleans()) else sympy.Integer(1)
           for k in range(2, 2 * m + 1, 2)}
    a = rat(data)
    cs = [rat(data) for _ in range(r)]
    cross, square = row_reference(a, cs, m, p, mus)
    vals = {SS.p: p, SS.a: a, **{SS.mu(k): mus[k] for k in mus},
            **{SS.T(k): sum((c ** k for c in cs), sympy.Integer(0)) for k in mus}}
    c_got, s_got = SS.row_cross_and_square(m)
    assert c_got.subs(vals) == cross and s_got.subs(vals) == square
    f = SS.row_polynomial(m)
    assert f.subs(vals) == 2 * cross - square
    assert SS.row_polynomial(m, expand=False).subs(vals) == 2 * cross - square
    full = {**{k: v for k, v in vals.items() if k not in [SS.T(j) for j in mus]},
            **{SS.S(k): a ** k + vals[SS.T(k)] for k in mus}}
    assert SS.row_polynomial(m, "full").subs(full) == 2 * cross - square
    # the argument order for lambdify
    syms = SS.row_symbols(m)
    assert syms == (SS.p, *[SS.mu(k) for k in mus], SS.a, *[SS.T(k) for k in mus])
    assert SS.row_symbols(m, "full")[-len(mus):] == tuple(SS.S(k) for k in mus)
    fn = sympy.lambdify(syms, f)
    assert fn(*[vals[s] for s in syms]) == 2 * cross - square
    # first-order term: the coefficient of p^1 of the row's expectation, in (A_ii, S_k)
    P = sympy.Symbol("P")
    c1, s1 = row_reference(a, cs, m, P, mus)
    assert SS.first_order_term(m).subs({SS.a: a, **{SS.mu(k): mus[k] for k in mus},
                                        **{SS.S(k): a ** k + vals[SS.T(k)] for k in mus}}) == \
        sympy.expand(2 * c1 - s1).coeff(P, 1)
    for name in ("mu", "S", "T"):
        assert getattr(SS, name)(4).name.startswith({"mu": "mu_4", "S": "S_{4", "T": "T_{4"}[name])


@REF
@given(st.sampled_from([1, 3]), st.data())
def test_row_gradient_against_the_chain_rule_of_a_concrete_row(m, data):
    """d f / d c_j = sum_k (d f / d T_k) k c_j^(k-1) over m distinct entries c_j: solve for the m partials."""
    p = sympy.Rational(data.draw(st.integers(1, 10)), 10)
    mus = {k: sympy.Integer(1) for k in range(2, 2 * m + 1, 2)}
    a = rat(data)
    c = sympy.symbols(f"c1:{m + 1}")
    As = sympy.Symbol("As")
    cross, square = row_reference(As, c, m, p, mus)
    f = 2 * cross - square
    cv = [sympy.Integer(j + 1) * rat(data, 1, 9) for j in range(m)]   # distinct nonzero entries
    while len(set(cv)) < m:
        cv = [sympy.Integer(j + 1) * rat(data, 1, 9) for j in range(m)]
    at = {As: a, **dict(zip(c, cv))}
    ks = list(mus)
    Mx = sympy.Matrix(m, m, lambda j, i: ks[i] * cv[j] ** (ks[i] - 1))
    rhs = sympy.Matrix([sympy.diff(f, cj).subs(at) for cj in c])
    dT = Mx.LUsolve(rhs)
    vals = {SS.p: p, SS.a: a, **{SS.mu(k): mus[k] for k in mus}, **{SS.T(k): sum(v ** k for v in cv) for k in ks}}
    g = SS.row_gradient(m)
    assert sympy.simplify(g[0].subs(vals) - sympy.diff(f, As).subs(at)) == 0
    for i in range(m):
        assert sympy.simplify(g[1 + i].subs(vals) - dT[i]) == 0


@REF
@given(st.sampled_from([1, 3, 5]), st.integers(1, 6), st.sampled_from(["gaussian", "rademacher"]))
def test_unsuperposed_supremum_and_linear_case_against_the_diagonal_row(m, pnum, law):
    p = sympy.Rational(pnum, 6)
    mus = {k: (sympy.Integer(math.prod(range(k - 1, 0, -2))) if law == "gaussian" else sympy.Integer(1))
           for k in range(2, 2 * m + 2, 2)}
    res = SS.unsuperposed_supremum(m)
    sub = {SS.p: p, **{SS.mu(k): v for k, v in mus.items()}}
    t_star, row_max = res["t_star"].subs(sub), res["row_max"].subs(sub)
    A = sympy.Symbol("A", positive=True)
    cross, square = row_reference(A, [], m, p, mus)
    g = 2 * cross - square
    assert t_star == mus[m + 1] / mus[2 * m] and sympy.simplify(res["a_star"].subs(sub) ** m - t_star) == 0
    assert sympy.simplify(g.subs(A, res["a_star"].subs(sub)) - row_max) == 0      # attained
    for av in [sympy.Rational(j, 8) for j in range(0, 40)]:
        assert sympy.simplify(row_max - g.subs(A, av)) >= 0                    # and never exceeded
    assert sympy.expand(res["row_in_t"].subs(sub).subs(sympy.Symbol("t", positive=True), A ** m) - g) == 0
    # m = 1 in matrix form: the row polynomial is p mu_2 (2 A_ii - S_2)
    f, lin = SS.linear_case()
    assert sympy.expand(f - lin) == 0
    c = [sympy.Rational(pnum, 3), -sympy.Rational(1, 2)]
    cr, sq = row_reference(A, c, 1, p, mus)
    S2 = A ** 2 + sum(x ** 2 for x in c)
    assert sympy.expand(lin.subs({SS.p: p, SS.mu(2): mus[2], SS.a: A, SS.S(2): S2}) - (2 * cr - sq)) == 0


@REF
@given(st.integers(1, 3), st.sampled_from([1, 3]), st.integers(0, 2 ** 32 - 1))
def test_tensor_and_scaling_identities(d, m, seed):
    assert SS.tensor_identity(d, m) == 0
    assert SS.scaling_identity(m) == 0
    rng = np.random.default_rng(seed)
    u, v = rng.integers(-5, 6, size=d), rng.integers(-5, 6, size=d)
    U, V = u, v
    for _ in range(m - 1):
        U, V = np.kron(U, u), np.kron(V, v)
    assert int(u @ v) ** m == int(U @ V)   # <u, v>^m = <u^(x)m, v^(x)m>, integers
    # the scaling: A = cB with c^m = mu_{m+1}/mu_2m turns the first-order term into p mu_{m+1}^2/mu_2m (2B^m - S^B)
    mus = {k: sympy.Integer(math.prod(range(k - 1, 0, -2))) for k in range(2, 2 * m + 2, 2)}
    cm = mus[m + 1] / mus[2 * m]
    B = sympy.Rational(int(rng.integers(1, 9)), 4)
    off = [sympy.Rational(int(x), 3) for x in rng.integers(-4, 5, size=2)]
    P = sympy.Symbol("P")
    c = cm ** sympy.Rational(1, m)
    cr, sq = row_reference(c * B, [c * o for o in off], m, P, mus)
    first = sympy.expand(2 * cr - sq).coeff(P, 1)
    SB = B ** (2 * m) + sum(o ** (2 * m) for o in off)
    assert sympy.simplify(first - mus[m + 1] ** 2 / mus[2 * m] * (2 * B ** m - SB)) == 0
