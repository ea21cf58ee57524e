"""Tests of verify/numeric/lower_bound.py against dense computations and the exact-loss API."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from verify import VerifyInputError
from verify.numeric import frames as F
from verify.numeric import lower_bound as L
from verify.numeric.superposition_loss import exact_loss_from_A


@pytest.mark.parametrize("r,m,k", [(3, 3, 64), (3, 3, 100), (2, 3, 37), (3, 2, 11)])
def test_block_stats_match_dense_gram(r, m, k):
    V = F.build_frame(r, m, n_columns=k).dense()
    M = np.rint((V.T @ V) * 2 ** r).astype(np.int64)          # exact integer sums S
    st = L.frame_block_stats(r, m, k)
    assert sum(mult for mult, _ in st.rows) == k
    dense = {}
    for i in range(k):
        off = np.delete(M[i], i)
        key = tuple(Fraction(int(np.sum(off.astype(object) ** e)), 2 ** (r * e)) for e in range(2, 2 * m + 1, 2))
        dense[key] = dense.get(key, 0) + 1
    mine = {tuple(T[e] for e in range(2, 2 * m + 1, 2)): mult for mult, T in st.rows}
    assert mine == dense


def test_numerator_denominator_match_exact_loss():
    r, m, k, p = 3, 3, 50, Fraction(1, 5)
    V = F.build_frame(r, m, n_columns=k).dense()
    a, b = L.numerator_denominator(L.frame_block_stats(r, m, k), p, "uniform")
    for t in (0.5, 1.0, 2.0):
        want = 2 * t ** 3 * float(a) - t ** 6 * float(b)
        assert exact_loss_from_A(t * (V.T @ V), float(p), m=3, mu="uniform") == pytest.approx(want, rel=1e-10)


def test_paper_k_and_target():
    assert L.paper_k(8, 3, Fraction(1, 512)) == 512             # p <= d^-m: k = d^m
    assert L.paper_k(8, 3, Fraction(1, 8)) == 32                # d p^(1/m) / p = 8 * 2 * ... = 32
    assert L.paper_k(8, 3, 1) == 8
    pt = L.lower_bound_point(3, 3, Fraction(1, 8))
    assert pt["k"] == 32 and pt["sup"] == pt["a"] ** 2 / pt["b"] and pt["ratio"] > 0


def test_F_attained_small_cases():
    res = L.F_attained(2, 1)                                      # m = 1: orthonormal, F = d
    assert res["F"] == 4 and res["F_over_d_m"] == 1
    res = L.F_attained(3, 3)
    assert 0 < res["F_over_d_m"] <= 1


def test_eq22_bound_values():
    assert L.eq22_bound(4, 3, Fraction(1, 2), 8) == max(Fraction(4), Fraction(1, 8) * 8 * 27)


@pytest.mark.parametrize("call,match", [
    (lambda: L.frame_block_stats(3, 3, 0), "'k'"),
    (lambda: L.frame_block_stats(3, 3, 513), "'k'"),
    (lambda: L.lower_bound_point(3, 2, Fraction(1, 2)), "'m'"),
    (lambda: L.lower_bound_point(3, 3, 0), "'p'"),
    (lambda: L.paper_k(1, 3, 0.5), "'d'"),
    (lambda: L.F_attained(3, 2), "'m'"),
    (lambda: L.eq22_bound(8, 3, Fraction(3, 2), 8), "'p'"),
    (lambda: L.eq22_bound(8, 3, Fraction(1, 2), 0), "'k'"),
])
def test_bad_input(call, match):
    with pytest.raises(VerifyInputError, match=match):
        call()


def test_as_fraction_names_the_callers_parameter():
    """An irrational, non-finite or non-numeric value is refused naming the caller's parameter (not 'value'), by
    every entry point of Theorem 4.2's exact arithmetic; exact inputs keep their value."""
    import sympy

    from verify.numeric.frames.theorem42 import compare_frames

    assert L.as_fraction(sympy.Rational(3, 7)) == Fraction(3, 7) and L.as_fraction("0.125") == Fraction(1, 8)
    assert L.as_fraction(0.1) == Fraction(0.1)                       # a float is taken exactly, not rounded
    cases = [(lambda: L.as_fraction("abc", "x"), "Argument 'x' must be rational, not 'abc'."),
             (lambda: L.as_fraction(float("inf"), "x"), "Argument 'x' must be rational, not inf."),
             (lambda: L.as_fraction(sympy.pi), "Argument 'value' must be rational, not pi."),
             (lambda: L.lower_bound_point(4, 3, sympy.sqrt(2) / 8), "Argument 'p' must be rational, not sqrt(2)/8."),
             (lambda: L.lower_bound_point(4, 3, sympy.sqrt(2) / 8, k=16),
              "Argument 'p' must be rational, not sqrt(2)/8."),
             (lambda: L.eq22_bound(16, 3, sympy.sqrt(2) / 8, 16), "Argument 'p' must be rational, not sqrt(2)/8."),
             (lambda: compare_frames(2, [sympy.sqrt(2) / 8]), "Argument 'ps' must be rational, not sqrt(2)/8.")]
    for fn, message in cases:
        with pytest.raises(VerifyInputError) as info:
            fn()
        assert str(info.value) == message
