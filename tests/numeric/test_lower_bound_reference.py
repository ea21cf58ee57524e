r"""Theorem 4.2's lower bound (:mod:`verify.numeric.lower_bound`) against references written here.

References: the Gram block :math:`M^{(k)}` of the Lemma A.4 frame from an entrywise GF(2^r) sign matrix (shift-and-add
arithmetic, the trace as the sum of Frobenius powers); the row expectations :math:`\mathbb E[x_i (Mx)_i^m]` and
:math:`\mathbb E[(Mx)_i^{2m}]` by the binomial recursion of sums of independent coordinates (moments
:math:`\mathbb E x^e = p\,\mu_e`, the Gaussian's :math:`(e-1)!!` and the Rademacher's 1 written here), in exact
rationals; the target and ratio at 60 digits with mpmath. Sizes k cross the powers of two (exact multiples and
off by one), every odd m up to 5, several p.
"""

import math
from fractions import Fraction

import galois
import mpmath
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.numeric import lower_bound as LB
from gf_reference import gf_mul, gf_pow, gf_trace

REF = settings.get_profile("reference")


def gram_block(r: int, m: int, k: int) -> np.ndarray:
    """Integer d * M^(k) (top-left k x k block of the Lemma A.4 frame's Gram)."""
    poly = int(galois.GF(2 ** r).irreducible_poly)
    d = 2 ** r
    x, cols = np.arange(d), np.arange(k, dtype=np.int64)
    acc = np.zeros((d, k), dtype=np.int64)
    for j in range(m):
        acc ^= gf_mul(gf_pow(x, 2 * j + 1, poly, r)[:, None], ((cols >> (r * j)) & (d - 1))[None, :], poly, r)
    S = 1 - 2 * gf_trace(acc, poly, r)
    return S.T @ S


def xi_moment(mu: str, e: int) -> Fraction:
    if e % 2:
        return Fraction(0)
    return Fraction(math.prod(range(e - 1, 0, -2))) if mu == "gaussian" else Fraction(1)


def sum_moments(coeffs, p: Fraction, mu: str, n: int) -> list:
    """[E[(sum_j c_j x_j)^q] for q = 0..n], x_j iid with E x^e = p mu_e (e >= 1), by the binomial recursion."""
    mom = [Fraction(1)] + [Fraction(0)] * n
    xm = [Fraction(1)] + [p * xi_moment(mu, e) for e in range(1, n + 1)]
    for c in coeffs:
        mom = [sum(math.comb(q, i) * mom[i] * c ** (q - i) * xm[q - i] for i in range(q + 1)) for q in range(n + 1)]
    return mom


def row_expectations(row: list, i: int, m: int, p: Fraction, mu: str) -> tuple:
    """(E[x_i (Mx)_i^m], E[(Mx)_i^{2m}]) for one row of M (M_ii = row[i])."""
    others = [c for j, c in enumerate(row) if j != i and c]
    R = sum_moments(others, p, mu, 2 * m)
    xm = [Fraction(1)] + [p * xi_moment(mu, e) for e in range(1, 2 * m + 2)]
    a = row[i]
    cross = sum(math.comb(m, q) * a ** q * xm[q + 1] * R[m - q] for q in range(m + 1))
    square = sum(math.comb(2 * m, q) * a ** q * xm[q] * R[2 * m - q] for q in range(2 * m + 1))
    return cross, square


@st.composite
def blocks(draw):
    r = draw(st.integers(1, 3))
    m = draw(st.sampled_from([1, 3, 5]))
    top = min(2 ** (r * m), 96)
    marks = [v for v in (2 ** j + o for j in range(0, 8) for o in (-1, 0, 1)) if 1 <= v <= top]
    k = draw(st.one_of(st.sampled_from(marks), st.integers(1, top)))
    return r, m, k


@REF
@given(blocks(), st.fractions(Fraction(1, 1000), 1, max_denominator=1000), st.sampled_from(["gaussian", "rademacher"]))
def test_frame_block_stats_and_eq19_against_the_gram_block(block, p, mu):
    r, m, k = block
    d = 2 ** r
    G = gram_block(r, m, k)
    st_ = LB.frame_block_stats(r, m, k)
    assert (st_.r, st_.m, st_.k, st_.d) == (r, m, k, d)
    # the row patterns: off-diagonal power sums T_e of each row, grouped
    want: dict = {}
    for i in range(k):
        T = tuple(sum((Fraction(int(G[i, j]), d) ** e for j in range(k) if j != i), Fraction(0))
                  for e in range(2, 2 * m + 1, 2))
        want[T] = want.get(T, 0) + 1
    got = {tuple(T[e] for e in range(2, 2 * m + 1, 2)): mult for mult, T in st_.rows}
    assert got == want and sum(got.values()) == k
    for e in range(2, 2 * m + 1, 2):
        assert st_.max_T(e) == max(T[(e - 2) // 2] for T in want)
    # eq. (19): a and b, summed row by row from the independent-coordinate moments
    rows = [[Fraction(int(v), d) for v in G[i]] for i in range(k)]
    a = b = Fraction(0)
    for i in range(k):
        c, s = row_expectations(rows[i], i, m, p, mu)
        a += c
        b += s
    assert LB.numerator_denominator(st_, p, mu) == (a, b)
    T0 = {e: Fraction(sum(int(G[0, j]) ** e for j in range(1, k)), d ** e) for e in range(2, 2 * m + 1, 2)}
    assert LB.row_terms(m, p, mu, T0) == row_expectations(rows[0], 0, m, p, mu)
    # one point of Thm 4.2 at this k
    pt = LB.lower_bound_point(r, m, p, mu, k=k)
    with mpmath.workdps(60):
        target = min(mpmath.mpf(p.numerator) / p.denominator * d ** m,
                     d * mpmath.root(mpmath.mpf(p.numerator) / p.denominator, m))
        ratio = (mpmath.mpf((a * a / b).numerator) / (a * a / b).denominator) / target
    assert (pt["d"], pt["m"], pt["p"], pt["k"], pt["a"], pt["b"]) == (d, m, str(p), k, a, b)
    assert pt["sup"] == a * a / b and pt["t_star_pow_m"] == a / b
    assert math.isclose(pt["target"], float(target), rel_tol=1e-15)
    assert math.isclose(pt["ratio"], float(ratio), rel_tol=1e-14)
    # sup_t (2 t^m a - t^2m b) = a^2/b, attained at t^m = a/b and nowhere exceeded
    s = a / b
    assert 2 * s * a - s * s * b == a * a / b
    for u in (s * Fraction(9, 10), s * Fraction(11, 10)):
        assert 2 * u * a - u * u * b < a * a / b


@REF
@given(st.integers(1, 4), st.sampled_from([1, 3]))
def test_F_attained_against_the_full_gram(r, m):
    if 2 ** (r * m) > 2 ** 9:
        m = 1
    d, N = 2 ** r, 2 ** (r * m)
    G = gram_block(r, m, N)
    Sigma = sum(Fraction(int(v), d) ** (2 * m) for v in G.reshape(-1))
    got = LB.F_attained(r, m)
    T2m = (Sigma - N) / N
    assert got == {"d": d, "m": m, "N": N, "F": Fraction(N * N) / Sigma, "F_over_d_m": Fraction(N) / Sigma,
                   "s_pow_m": Fraction(N) / Sigma, "T_2m": T2m}
    # F(sM) = 2 s^m N - s^2m Sigma is maximal at s^m = N / Sigma
    s = got["s_pow_m"]
    for u in (s / 2, s * 2):
        assert 2 * u * N - u * u * Sigma < got["F"]
