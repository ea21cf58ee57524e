"""Tests of verify/numeric/frames/cert_rank.py: GF(2) ranks, radical dimensions, histograms against the
WHT certificate, against the published (Kasami) weight distributions, and the r = 12 / r = 16 targets."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import VerifyInputError
from verify.numeric import frames as F
from verify.numeric.frames import cert_rank as Q
from proofs_checks.S.frames._kasami import binomial_moment, kasami_reference


def _signed_wht(r: int, m: int) -> dict:
    S = F.character_sums(r, m)
    vals, cnt = np.unique(S[1:], return_counts=True)  # code 0 (the diagonal) excluded, as in certify
    return dict(zip(vals.tolist(), cnt.tolist()))


def test_gf2_rank_against_galois():
    import galois

    GF2 = galois.GF(2)
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 8, 13):
        M = rng.integers(0, 2, size=(15, n, n))
        M[:5] = 0
        M[5:10, :, 0] = M[5:10, :, -1]  # some rank-deficient ones (n > 1)
        rows = (M << np.arange(n)).sum(axis=2).astype(np.uint64)
        want = [int(np.linalg.matrix_rank(GF2(mat))) for mat in M]
        assert Q.gf2_rank(rows).tolist() == want
    with pytest.raises(VerifyInputError, match="Argument 'rows'"):
        Q.gf2_rank(np.array([[-1]]))


@pytest.mark.parametrize("r", [2, 3, 4, 5, 6])
def test_radical_dims_against_brute_force_alternating_form(r):
    # independent route: B(x, y) = Q(x+y) + Q(x) + Q(y) for all x, y with galois arithmetic; radical by rank
    import galois

    GF = F.field_of(r)
    X = GF(np.arange(2 ** r))
    rng = np.random.default_rng(r)
    pairs = rng.integers(0, 2 ** r, size=(6, 2))
    for a1, a2 in pairs:
        Qx = np.asarray((GF(int(a1)) * X ** 3 + GF(int(a2)) * X ** 5).field_trace(), dtype=np.int64)
        basis = [1 << i for i in range(r)]
        B = np.array([[Qx[x ^ y] ^ Qx[x] ^ Qx[y] for y in basis] for x in basis])
        w = r - int(np.linalg.matrix_rank(galois.GF(2)(B)))
        assert Q.lemma_radical_dims(r, [a1], [a2])[0] == w


@pytest.mark.parametrize("r,m", [(r, m) for r in range(1, 7) for m in (1, 2, 3)])
def test_histogram_equals_wht_certificate(r, m):
    q = Q.quadratic_certificate(r, m)
    full = Q.quadratic_certificate(r, m, symmetry=False)
    assert q.histogram == full.histogram == F.certify(r, m).histogram
    assert q.signed_histogram == full.signed_histogram == _signed_wht(r, m)
    assert q.max_abs_sum == F.certify(r, m).max_abs_sum


@pytest.mark.slow
@pytest.mark.parametrize("r", [7, 8])
def test_histogram_equals_wht_certificate_slow(r):
    q = Q.quadratic_certificate(r, 3)
    assert q.histogram == F.certify(r, 3).histogram
    assert q.signed_histogram == _signed_wht(r, 3)


def test_counts_derivation_fails_when_wrong():
    # the check can fail: a wrong number of nonzero shifts (2^(r-w+1)) breaks agreement with the WHT
    counts = Q.radical_dim_counts(5, 3)
    good, _ = Q.sums_from_radicals(5, counts)
    bad = {w: c for w, c in counts.items()}
    bad[3] = bad.get(3, 0) + 1
    bad[1] -= 1
    assert Q.sums_from_radicals(5, bad)[0] != F.certify(5, 3).histogram == good
    with pytest.raises(VerifyInputError, match="r - w even"):
        Q.sums_from_radicals(5, {2: 1})


# ----------------------------------------------------------------------------- Kasami reference values
def test_rademacher_moments_by_direct_sum():
    # the series route against the definition sum_j C(n, j) (n - 2j)^k / 2^n
    for n in (1, 2, 7, 31):
        for k in range(7):
            assert binomial_moment(n, k) == Fraction(sum(comb(n, j) * (n - 2 * j) ** k for j in range(n + 1)), 2 ** n)


@pytest.mark.parametrize("r,t", [(r, 2) for r in range(3, 11)] + [(r, 3) for r in range(5, 10)])
def test_against_kasami_weight_distributions(r, t):
    # r = 4, t = 3 is left out: x^5 has a cyclotomic coset of size 2 in GF(16), so that BCH dual is degenerate
    ref = kasami_reference(r, t)
    assert Q.quadratic_certificate(r, t).signed_histogram == ref


@pytest.mark.parametrize("r", [3, 5, 7, 9, 11])
def test_double_error_dual_closed_form_odd_r(r):
    # MacWilliams & Sloane ch. 15 §4 (odd m), also Kasami (1969): weights 2^(r-1) -+ 2^((r-1)/2) occur
    # (2^r - 1)(2^(r-2) +- 2^((r-3)/2)) times and 2^(r-1) occurs (2^r - 1)(2^(r-1) + 1) times
    n = 2 ** r - 1
    ref = {2 ** ((r + 1) // 2): n * (2 ** (r - 2) + 2 ** ((r - 3) // 2)),
           0: n * (2 ** (r - 1) + 1),
           -2 ** ((r + 1) // 2): n * (2 ** (r - 2) - 2 ** ((r - 3) // 2))}
    assert Q.quadratic_certificate(r, 2).signed_histogram == ref == (kasami_reference(r, 2) if r <= 9 else ref)


# ----------------------------------------------------------------------------- targets
def test_r12_m3_exact():
    # its time is a benchmark's business (benchmarks/bench_frame_operator.py), not a test's
    q = Q.quadratic_certificate(12, 3)
    assert sum(q.histogram.values()) == 2 ** 36 - 1 and q.max_abs_sum == 256 and q.coherence_exact == "1/16"
    # sum over all codes of S: only x = 0 survives (2^(rm)); minus the diagonal code's 2^r
    assert sum(v * c for v, c in q.signed_histogram.items()) == 2 ** 36 - 2 ** 12


def test_r12_m3_against_kasami():
    assert Q.quadratic_certificate(12, 3).signed_histogram == kasami_reference(12, 3)


@pytest.mark.slow
def test_r16_m3_exact():
    q = Q.quadratic_certificate(16, 3)
    assert sum(q.histogram.values()) == 2 ** 48 - 1 and q.max_abs_sum == 2 ** 10
    # Parseval over every code: sum S^2 = 2^(rm) * 2^r, minus the diagonal code's (2^r)^2
    assert sum(v * v * c for v, c in q.histogram.items()) == 2 ** 48 * 2 ** 16 - 2 ** 32
    assert q.signed_histogram == kasami_reference(16, 3)


def test_symmetry_reduction_is_exact_r8():
    assert Q.radical_dim_counts(8, 3) == Q.radical_dim_counts(8, 3, symmetry=False)


def test_bad_input():
    with pytest.raises(VerifyInputError, match="Argument 'm'"):
        Q.quadratic_certificate(5, 4)
    with pytest.raises(VerifyInputError, match="Argument 'r'"):
        Q.quadratic_certificate(17, 3)


@pytest.mark.slow
def test_dask_client_gives_the_same_certificates():
    from verify.distributed import get_client

    with get_client(n_workers=1) as client:
        assert Q.quadratic_certificate(10, 3, client=client).histogram == Q.quadratic_certificate(10, 3).histogram
        assert Q.quadratic_certificate(5, 3, symmetry=False, client=client).signed_histogram == _signed_wht(5, 3)
        assert F.certify(6, 3, client=client).histogram == F.certify(6, 3).histogram
        assert F.certify(5, 3, n_columns=1000, client=client).histogram == F.certify(5, 3, n_columns=1000).histogram


# ----------------------------------------------------------------------------- GF(2) ranks, differential
def _bit_matrix(rows: np.ndarray) -> np.ndarray:
    """(n_rows, 64) 0/1 matrix of uint64 bit-mask rows: entry (i, j) = bit j of rows[i]."""
    return ((rows[:, None] >> np.arange(64, dtype=np.uint64)[None, :]) & np.uint64(1)).astype(np.int64)


@st.composite
def _rank_batches(draw):
    """A batch of bit-mask matrices: random words (bit 63 included), words of a few bits only (the early exit),
    combinations of a few random words (rank-deficient), duplicated and zero rows, more rows than 64 columns."""
    n_rows = draw(st.integers(1, 70))
    B = draw(st.integers(1, 5))
    kind = draw(st.sampled_from(["random", "low", "top", "span", "dup"]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    words = rng.integers(0, 2 ** 63, size=(B, n_rows), dtype=np.uint64) * np.uint64(2) + \
        rng.integers(0, 2, size=(B, n_rows), dtype=np.uint64)   # all 64 bits
    if kind == "low":
        words &= np.uint64(2 ** draw(st.integers(1, 8)) - 1)
    elif kind == "top":
        words |= np.uint64(1) << np.uint64(63)       # every row holds bit 63 (the last word bit)
    elif kind == "span":
        k = draw(st.integers(1, 6))
        basis = rng.integers(0, 2 ** 63, size=(B, k), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        coef = rng.integers(0, 2, size=(B, n_rows, k)).astype(bool)
        words = np.zeros_like(words)
        for j in range(k):
            words ^= np.where(coef[:, :, j], basis[:, j:j + 1], np.uint64(0))
    elif kind == "dup":
        words[:, rng.integers(0, n_rows, size=n_rows // 2 + 1)] = words[:, :1]
        words[:, rng.integers(0, n_rows, size=n_rows // 4 + 1)] = 0
    return words


@settings(max_examples=60, deadline=None)
@given(_rank_batches())
def test_gf2_rank_differential_against_galois_on_64_bit_words(words):
    """Every rank of the batch equals galois' rank of the 0/1 matrix over GF(2) (the reference ranks each matrix on
    its own; the package eliminates the batch together, pivot rows included in the XOR sweep but kept)."""
    import galois

    GF2 = galois.GF(2)
    want = [int(np.linalg.matrix_rank(GF2(_bit_matrix(w)))) for w in words]
    assert Q.gf2_rank(words).tolist() == want
    # non-negative int64 masks (bits 0..62) are the same bits
    low = (words & np.uint64(2 ** 63 - 1)).astype(np.int64)
    assert Q.gf2_rank(low).tolist() == [int(np.linalg.matrix_rank(GF2(_bit_matrix(w.astype(np.uint64)))))
                                        for w in low]


# ----------------------------------------------------------------------------- the symmetry option: default and cost
@pytest.mark.parametrize("r,m", [(1, 2), (2, 3), (3, 2), (3, 3), (4, 3), (5, 3), (6, 1), (6, 2)])
def test_symmetry_default_is_the_reduction_with_the_same_certificate(r, m, monkeypatch):
    """quadratic_certificate and radical_dim_counts reduce by symmetry unless told not to: the default records
    symmetry=True and its rank count; both options give the same counts, histograms and coherence; and the recorded
    ranks_computed is the number of GF(2) ranks actually taken (counted at gf2_rank): orbit representatives
    gcd(3, d-1) + gcd(5, d-1) d with the reduction, every nonzero quadratic part d^(m-1) - 1 without."""
    import math

    counted = []
    real = Q.gf2_rank
    monkeypatch.setattr(Q, "gf2_rank", lambda rows: (counted.append(len(rows)), real(rows))[1])

    def run(**kw):
        counted.clear()
        cert = Q.quadratic_certificate(r, m, **kw).as_dict()
        n_ranks = sum(counted)
        counted.clear()
        counts = Q.radical_dim_counts(r, m, **kw)
        assert sum(counted) == n_ranks and counts == cert["radical_dims"]
        cert.pop("seconds")
        return cert, n_ranks

    d = 2 ** r
    default, n_default = run()
    on, n_on = run(symmetry=True)
    off, n_off = run(symmetry=False)
    reps = (math.gcd(3, d - 1) if m >= 2 else 0) + (math.gcd(5, d - 1) * d if m == 3 else 0)
    assert default == on and n_default == n_on == reps
    assert default["symmetry"] is True and off["symmetry"] is False
    assert default["ranks_computed"] == n_default and off["ranks_computed"] == n_off == d ** (m - 1) - 1
    def same(c):
        return {k: v for k, v in c.items() if k not in ("symmetry", "ranks_computed")}
    assert same(on) == same(off)
    if d ** (m - 1) - 1 > reps:
        assert n_on < n_off
