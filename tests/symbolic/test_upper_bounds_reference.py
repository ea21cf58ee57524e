r"""Lemma A.3 and eq. (13) of paper S in sympy (:mod:`verify.symbolic.upper_bounds`) against references written here:
the objective as :math:`2\mathbb E\langle x, Cy\rangle - \mathbb E\|Cy\|^2` over an explicit finite law of
:math:`(x, y)` (its M and Sigma computed from the atoms); the gradient by exact central differences (exact for a
quadratic); the gap of the completed square both where the proof's case holds (rows of M in Sigma's row space:
zero) and where it does not (nonzero); :math:`\mathbb E\langle a, x\rangle^2` by enumerating a finite centred law.
"""

import itertools
import math

import numpy as np
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.numeric import upper_bounds as UBn
from verify.symbolic import upper_bounds as SU

REF = settings.get_profile("reference")


def rint(data, lo=-3, hi=3):
    return sympy.Integer(data.draw(st.integers(lo, hi)))


@REF
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 4), st.data())
def test_lemA3_objective_is_the_expectation_over_a_finite_law(q, rr, atoms, data):
    C, M, S = SU.lemA3_symbols(q, rr)
    assert C.shape == M.shape == (q, rr) and S.shape == (rr, rr) and S == S.T
    assert len(C.free_symbols | M.free_symbols) == 2 * q * rr and len(S.free_symbols) == rr * (rr + 1) // 2
    xs = [sympy.Matrix(q, 1, lambda i, j: rint(data)) for _ in range(atoms)]
    ys = [sympy.Matrix(rr, 1, lambda i, j: rint(data)) for _ in range(atoms)]
    w = [sympy.Rational(1, atoms)] * atoms
    Mv = sum((wi * x * y.T for wi, x, y in zip(w, xs, ys)), sympy.zeros(q, rr))
    Sv = sum((wi * y * y.T for wi, y in zip(w, ys)), sympy.zeros(rr, rr))
    Cv = sympy.Matrix(q, rr, lambda i, j: rint(data))
    direct = sum(wi * (2 * (x.T * Cv * y)[0] - (Cv * y).norm() ** 2) for wi, x, y in zip(w, xs, ys))
    assert sympy.expand(SU.lemA3_objective(Cv, Mv, Sv) - direct) == 0
    # the gradient 2M - 2C Sigma, by exact central differences (the objective is quadratic in C)
    assert SU.lemA3_gradient_residual(q, rr) == sympy.zeros(q, rr)
    h = sympy.Rational(1, 7)
    for i, j in itertools.product(range(q), range(rr)):
        E = sympy.zeros(q, rr)
        E[i, j] = h
        fd = (SU.lemA3_objective(Cv + E, Mv, Sv) - SU.lemA3_objective(Cv - E, Mv, Sv)) / (2 * h)
        assert fd == (2 * Mv - 2 * Cv * Sv)[i, j]


@REF
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.data())
def test_lemA3_gap_zero_exactly_in_the_proofs_case(q, rr, k, data):
    k = min(k, rr)
    G = sympy.Matrix(rr, k, lambda i, j: rint(data))
    A = sympy.Matrix(q, k, lambda i, j: rint(data))
    D = sympy.Matrix(q, rr, lambda i, j: rint(data))
    S = G * G.T
    assert SU.lemA3_gap(A * G.T, S, D) == 0             # rows of M in the row space of Sigma
    # a row outside the row space (when Sigma is singular): the completed square no longer holds
    null = (S.nullspace() or [None])[0]
    if null is not None and any(v != 0 for v in D * null):
        M = A * G.T + sympy.Matrix(q, 1, lambda i, j: 1) * null.T
        assert SU.lemA3_gap(M, S, D) != 0


@REF
@given(st.integers(1, 4), st.data())
def test_second_moment_linear_form_against_a_finite_centred_law(n, data):
    """x_i = b_i s_i with b ~ Bernoulli(p), s = +-c with probability 1/2 each: E x_i^2 = p c^2 = p mu_2."""
    expr = SU.second_moment_linear_form(n)
    a = sympy.symbols(f"a_1:{n + 1}")
    av = [rint(data, -5, 5) for _ in range(n)]
    pv = sympy.Rational(data.draw(st.integers(1, 9)), 10)
    c = sympy.Rational(data.draw(st.integers(1, 5)), 2)
    total = 0
    for vals in itertools.product([0, c, -c], repeat=n):
        prob = sympy.Mul(*[(1 - pv) if v == 0 else pv / 2 for v in vals])
        total += prob * sum(ai * v for ai, v in zip(av, vals)) ** 2
    got = expr.subs({SU.p: pv, SU.mu2: c ** 2, **dict(zip(a, av))})
    assert got == total
    # Thm 3.1's constant: each term is at most p mu_2 (unit a), i.e. C_2 = mu_2
    assert sympy.simplify(SU.thm31_constant() - SU.mu2) == 0


@REF
@given(st.integers(1, 20), st.integers(1, 20), st.integers(1, 12), st.sampled_from([1, 3, 5]))
def test_thm31_chain_and_thm32_steps_against_gaussian_integrals(a_num, b_num, dv, mv):
    """Poincare's bound is attained by the Gaussian of precision alpha: E x^2 = 1/alpha, by integration; the
    chain's counting step C(d+m-1, m) <= d^m at integers; C_3 = K + K^3 as the numeric constant."""
    steps = SU.thm32_steps()
    gen = steps["general"]
    alpha_s, beta_s = sorted(gen["lip"].free_symbols, key=lambda s: s.name)
    al = sympy.Rational(a_num, 7)
    be = al + sympy.Rational(b_num, 5)
    x = sympy.Symbol("x", real=True)
    var = sympy.integrate(x ** 2 * sympy.exp(-al * x ** 2 / 2), (x, -sympy.oo, sympy.oo)) / \
        sympy.integrate(sympy.exp(-al * x ** 2 / 2), (x, -sympy.oo, sympy.oo))
    at = {alpha_s: al, beta_s: be}
    assert sympy.simplify(gen["Ey2"].subs(at) - var) == 0
    assert sympy.simplify(gen["lip"].subs(at) - sympy.sqrt(be / al)) == 0
    assert sympy.simplify(gen["Em2"].subs(at) - be / al ** 2) == 0     # (1/2) lip^2 * 2 E y^2
    Kv = sympy.Rational(a_num + 7, 7)
    assert steps["Ey2"].subs(SU.K, Kv) == Kv and steps["lip"].subs(SU.K, Kv) == Kv
    assert steps["Em2"].subs(SU.K, Kv) == Kv ** 3
    assert SU.thm32_constant().subs(SU.K, Kv) == Kv + Kv ** 3 == UBn.thm32_constant(Kv)
    chain = SU.thm31_chain()
    assert len(chain) == 5 and sympy.simplify(chain[-1].rhs - SU.mu2) == 0
    at_dm = {SU.d: dv, SU.m: mv}
    assert chain[2].rhs.subs(at_dm) == sympy.binomial(dv + mv - 1, mv) == math.comb(dv + mv - 1, mv)
    assert bool(chain[3].subs(at_dm))                                   # C(d+m-1, m) <= d^m
    assert chain[1].rhs == SU.r * SU.p * SU.mu2
