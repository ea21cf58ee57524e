r"""The feature laws of paper S (:mod:`verify.numeric.distributions`) against the textbook moments and against
moments of finite symmetric laws computed here.

References: :math:`N(0, s^2)`: :math:`(k-1)!!\,s^k`; uniform on :math:`[-h, h]`: :math:`h^k/(k+1)`; Laplace(b):
:math:`k!\,b^k`; Rademacher: 1 (odd moments 0), in exact rationals, with non-unit scales; quadrature at 30 digits
against the same table; a moment sequence taken from a random finite symmetric law (valid by construction) and one
made invalid by lowering one even moment below what the Hankel matrix allows (found exactly here).
"""

import math
from fractions import Fraction
from itertools import combinations

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import VerifyInputError
from verify.numeric import distributions as D

REF = settings.get_profile("reference")

SCALES = st.sampled_from([Fraction(1), Fraction(1, 4), Fraction(9, 2), Fraction(1, 1000), Fraction(37, 3)])


def table(name: str, s: Fraction, k: int) -> Fraction:
    if k % 2:
        return Fraction(0)
    if name == "gaussian":
        return Fraction(math.prod(range(k - 1, 0, -2))) * s ** (k // 2)   # s = variance
    if name == "uniform":
        return s ** k / (k + 1)                                            # s = half-width
    if name == "laplace":
        return Fraction(math.factorial(k)) * s ** k                         # s = scale
    return Fraction(1)


def rat(x) -> Fraction:
    x = sympy.Rational(x)
    return Fraction(int(x.p), int(x.q))


@REF
@given(st.sampled_from(["gaussian", "uniform", "laplace", "rademacher"]), SCALES, st.integers(0, 12))
def test_moments_against_the_table(name, s, k):
    spec = name if name == "rademacher" else f"{name}({s})"
    dist = D.get_distribution(spec)
    assert rat(dist.moment(k)) == table(name, s if name != "rademacher" else Fraction(1), k)
    assert [rat(v) for v in dist.moments(k)] == [table(name, s, j) for j in range(k + 1)]
    cls = {"gaussian": D.Gaussian, "uniform": D.Uniform, "laplace": D.Laplace}.get(name)
    if cls is not None:
        assert rat(cls(sympy.Rational(s.numerator, s.denominator)).moment(k)) == table(name, s, k)
    else:
        assert rat(D.Rademacher().moment(k)) == table(name, s, k)
    assert isinstance(dist, D.Distribution)


@settings(REF, max_examples=max(4, REF.max_examples // 3))  # a quadrature at 30 digits per example
@given(st.sampled_from(["gaussian", "uniform", "laplace", "rademacher"]),
       st.sampled_from([Fraction(1), Fraction(1, 4), Fraction(5, 2)]), st.integers(0, 8))
def test_moment_by_quadrature_against_the_table(name, s, k):
    spec = name if name == "rademacher" else f"{name}({s})"
    got = D.moment_by_quadrature(spec, k, dps=30)
    ref = table(name, s if name != "rademacher" else Fraction(1), k)
    with mpmath.workdps(30):
        assert abs(got - mpmath.mpf(ref.numerator) / ref.denominator) <= mpmath.mpf(10) ** -20 * (1 + abs(got))


@REF
@given(st.lists(st.tuples(st.fractions(Fraction(1, 10), 3, max_denominator=20), st.integers(1, 5)),
                min_size=1, max_size=3), st.integers(1, 4))
def test_moment_sequence_of_a_finite_law_and_an_invalid_one(atoms, half):
    r"""Moments of :math:`\sum_a w_a(\delta_{x_a} + \delta_{-x_a})/2` (normalised weights) are a valid sequence: the
    class returns them exactly. Lowering :math:`\mu_4` below the Cauchy-Schwarz limit
    (:math:`\mu_2^2 \le \mu_4`) breaks positivity of the Hankel matrix: refused."""
    total = sum(w for _, w in atoms)
    K = 2 * half
    mom = [sum((Fraction(w, total) * x ** k for x, w in atoms), Fraction(0)) if k % 2 == 0 else Fraction(0)
           for k in range(1, K + 1)]
    seq = D.MomentSequence([sympy.Rational(v.numerator, v.denominator) for v in mom])
    assert [rat(seq.moment(k)) for k in range(1, K + 1)] == mom
    with pytest.raises(VerifyInputError, match="'k'"):
        seq.moment(K + 2)
    if K >= 4:
        bad = list(mom)
        bad[3] = mom[1] ** 2 / 2  # mu_4 < mu_2^2: the 2 x 2 Hankel minor is negative
        with pytest.raises(VerifyInputError, match="'moments'"):
            D.MomentSequence([sympy.Rational(v.numerator, v.denominator) for v in bad])


def _det(M: list) -> Fraction:
    """Determinant of a small Fraction matrix by exact elimination (the reference below needs nothing else)."""
    M = [list(row) for row in M]
    n, det = len(M), Fraction(1)
    for c in range(n):
        piv = next((r for r in range(c, n) if M[r][c] != 0), None)
        if piv is None:
            return Fraction(0)
        if piv != c:
            M[c], M[piv], det = M[piv], M[c], -det
        det *= M[c][c]
        for r in range(c + 1, n):
            f = M[r][c] / M[c][c]
            M[r] = [a - f * b for a, b in zip(M[r], M[c])]
    return det


def _hankel_psd(mom: list) -> bool:
    """Positive semidefinite iff every principal minor (not only the leading ones) is >= 0: all subsets."""
    full = [Fraction(1)] + list(mom)
    n = len(mom) // 2 + 1
    H = [[full[i + j] for j in range(n)] for i in range(n)]
    return all(_det([[H[i][j] for j in S] for i in S]) >= 0
               for k in range(1, n + 1) for S in combinations(range(n), k))


@REF
@given(st.integers(1, 4), st.lists(st.fractions(Fraction(-1, 2), 40, max_denominator=12), min_size=4, max_size=4),
       st.sampled_from([None, "edge", "below"]), SCALES)
def test_moment_sequence_accepts_exactly_the_positive_semidefinite_hankel(half, evens, edge, s):
    r"""Random symmetric sequences :math:`(0, \mu_2, 0, \mu_4, \dots)` at a non-unit scale :math:`s^k`, some put on the
    boundary (:math:`\mu_4 = \mu_2^2`: a singular, still semidefinite Hankel matrix, the two-atom law) or just
    below it: accepted exactly when every principal minor is :math:`\ge 0` (exact reference), and a refusal is the
    whole message naming the sequence."""
    K = 2 * half
    mom = []
    for k in range(1, K + 1):
        mom.append(Fraction(0) if k % 2 else evens[k // 2 - 1] * s ** k)
    if edge and K >= 4:
        mom[3] = mom[1] ** 2 - (0 if edge == "edge" else Fraction(1, 10 ** 9) * s ** 4)
    want = _hankel_psd(mom)
    args = [sympy.Rational(v.numerator, v.denominator) for v in mom]
    if want:
        seq = D.MomentSequence(args)
        assert [rat(seq.moment(k)) for k in range(1, K + 1)] == mom
    else:
        with pytest.raises(VerifyInputError) as info:
            D.MomentSequence(args)
        assert str(info.value) == ("Argument 'moments' must be a valid moment sequence (Hankel matrix (mu_(i+j)) "
                                   f"positive semidefinite), not {[str(sympy.Rational(v.numerator, v.denominator)) for v in mom]}.")
