r"""GF(2^r) arithmetic of the frames layer (:mod:`verify.numeric.frames.field`) and the coherence bounds
(:mod:`verify.numeric.frames.bounds`) against references written here.

References: GF(2^r) arithmetic written here (shift-and-add products modulo the irreducible polynomial), the trace
as the sum of the Frobenius powers :math:`z + z^2 + \dots + z^{2^{r-1}}`, powers by square and multiply, the parity by ``bin().count``, the Walsh-Hadamard transform by scipy's Sylvester
matrix, the bounds by their textbook formulas in exact rationals and by attainment (orthonormal bases, the simplex)
and by random frames (never below). ``r`` runs over 1..13, across ``TABLE_MAX_R = 12`` (table gathers vs the direct
route) and the int16 / int32 switch of the butterfly (r = 14, 15); both irreducible polynomials' conventions.
"""

import math
from fractions import Fraction
from functools import lru_cache

import galois
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import hadamard

from verify.numeric.frames import bounds as B
from verify.numeric.frames import field as F
from gf_reference import gf_mul, gf_pow, gf_trace as ref_trace

REF = settings.get_profile("reference")


#: a second irreducible modulus per degree (standard tables; the reciprocal of the default where that differs),
#: so that no convention tied to galois's default modulus goes unnoticed
OTHER_POLY = {1: 0b11, 2: 0b111, 3: 0b1101, 4: 0b11001, 5: 0b101001, 6: 0b1100001, 7: 0b11000001, 8: 0x11B,
              9: (1 << 9) | (1 << 5) | 1, 10: (1 << 10) | (1 << 7) | 1, 11: (1 << 11) | (1 << 9) | 1, 12: 0x1053,
              13: (1 << 13) | (1 << 12) | (1 << 10) | (1 << 9) | 1}


@lru_cache(maxsize=None)
def modulus(r: int, alt: bool) -> int:
    return OTHER_POLY[r] if alt else int(galois.GF(2 ** r).irreducible_poly)


@REF
@given(st.sampled_from([1, 3, 5, 12, 13]), st.integers(0, 2 ** 32 - 1))
def test_trace_mask_form_and_power_table_against_reference(r, seed):
    """Galois's default modulus at a few degrees, both sides of ``TABLE_MAX_R`` (the package compiles a field per
    degree and modulus, about a second each: every degree and the other moduli run in the slow tier below)."""
    check_field_tables(r, False, seed)


@pytest.mark.slow
@pytest.mark.parametrize("alt", [False, True])
@pytest.mark.parametrize("r", sorted(OTHER_POLY))
def test_trace_mask_form_and_power_table_every_degree_and_modulus(r, alt):
    check_field_tables(r, alt, r)


def check_field_tables(r, alt, seed):
    mod = modulus(r, alt)
    poly = mod if alt else None
    assert int(F.field_of(r, poly).irreducible_poly) == mod
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2 ** r, size=min(2 ** r, 300))
    tr = ref_trace(z, mod, r)
    assert set(np.unique(tr)) <= {0, 1}
    assert np.array_equal(F.fast_trace(z, r, poly).astype(np.int64), tr)
    tau = F.trace_mask(r, poly)
    assert all(bin(int(v) & tau).count("1") % 2 == t for v, t in zip(z, tr))
    beta = F.trace_form(r, poly)
    c, x = rng.integers(0, 2 ** r, size=200), rng.integers(0, 2 ** r, size=200)
    cx = gf_mul(c, x, mod, r)
    assert all(bin(int(beta[ci]) & int(xi)).count("1") % 2 == t for ci, xi, t in zip(c, x, ref_trace(cx, mod, r)))
    j = int(rng.integers(0, 4))
    allx = np.arange(2 ** r)
    assert np.array_equal(F.power_table(r, j, poly), gf_pow(allx, 2 * j + 1, mod, r))
    par = F.parity_table(r)
    assert [int(v) for v in par] == [bin(v).count("1") % 2 for v in range(2 ** r)]


@settings(REF, max_examples=max(4, REF.max_examples // 2))
@given(st.sampled_from([1, 3, 12, 13]), st.just(False), st.integers(1, 3), st.integers(0, 2),
       st.integers(0, 2 ** 32 - 1))
def test_sign_bits_against_galois_both_sides_of_the_table_size(r, alt, n_digits, start, seed):
    mod = modulus(r, alt)
    poly = mod if alt else None
    start = min(start, n_digits)
    rng = np.random.default_rng(seed)
    C = int(rng.integers(1, 6))
    codes = rng.integers(0, 2 ** min(62, r * n_digits), size=C)
    got = F.sign_bits(r, codes, n_digits, start, poly)
    x = np.arange(2 ** r)
    powers = {j: gf_pow(x, 2 * j + 1, mod, r) for j in range(start, n_digits)}
    for row, code in zip(got, codes):
        acc = np.zeros(2 ** r, dtype=np.int64)
        for j in range(start, n_digits):
            cj = (int(code) >> (r * j)) & ((1 << r) - 1)
            acc ^= gf_mul(np.full(2 ** r, cj), powers[j], mod, r)
        assert np.array_equal(row.astype(np.int64), ref_trace(acc, mod, r))


@REF
@given(st.integers(0, 15), st.integers(1, 3), st.integers(0, 2 ** 32 - 1))
def test_walsh_hadamard_against_sylvester_matrix(r, C, seed):
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2, size=(C, 2 ** r)).astype(np.uint8)
    signs = 1 - 2 * bits.astype(np.int64)
    H = hadamard(2 ** r, dtype=np.int64) if r <= 10 else None
    ref = signs @ H if H is not None else None
    for method in ("blas", "butterfly"):
        got = F.wht_rows(bits, r, method).astype(np.int64)
        if ref is not None:
            assert np.array_equal(got, ref), method
        else:  # at r > 10 the dense matrix is large: entries at sampled frequencies u, H[u, x] = (-1)^popcount(u&x)
            for u in rng.integers(0, 2 ** r, size=4):
                col = np.array([1 - 2 * (bin(int(u) & x).count("1") % 2) for x in range(2 ** r)])
                assert np.array_equal(got[:, u], signs @ col), method
        # Parseval: sum of squares = 2^r * 2^r per row (a wrong sign anywhere breaks it)
        assert np.all((got ** 2).sum(1) == 4 ** r)
    a = rng.integers(-50, 50, size=(2, 2 ** min(r, 10))).astype(np.int64)
    np.testing.assert_array_equal(F.fwht(a.copy()), a @ hadamard(a.shape[1], dtype=np.int64))


@REF
@given(st.integers(1, 12), st.integers(1, 200), st.integers(0, 2 ** 32 - 1))
def test_coherence_bounds_formula_attainment_and_random_frames(d, n, seed):
    w2 = Fraction(n - d, d * (n - 1)) if n > d else Fraction(0)
    assert B.welch_bound_sq(d, n) == w2 and math.isclose(B.welch_bound(d, n), math.sqrt(w2), rel_tol=1e-15)
    lev = Fraction(3 * n - d * d - 2 * d, (d + 2) * (n - d)) if 2 * n > d * (d + 1) else None
    assert B.levenstein_bound_sq(d, n) == lev
    assert (B.levenstein_bound(d, n) is None) == (lev is None)
    if lev is not None:
        assert math.isclose(B.levenstein_bound(d, n), math.sqrt(lev), rel_tol=1e-15)
    # attainment: an orthonormal basis (N = d) has coherence 0, the simplex (N = d + 1) coherence 1/d = Welch
    assert B.welch_bound_sq(d, d) == 0 and B.welch_bound_sq(d, d + 1) == Fraction(1, d * d)
    # and no frame beats it: random unit vectors
    V = np.random.default_rng(seed).standard_normal((d, n))
    V /= np.linalg.norm(V, axis=0)
    G = np.abs(V.T @ V - np.eye(n))
    if n > 1:
        assert G.max() ** 2 >= float(w2) * (1 - 1e-12)
        if lev is not None:
            assert G.max() ** 2 >= float(lev) * (1 - 1e-12)


@REF
@given(st.integers(1, 40), st.booleans())
def test_weil_threshold_is_the_smallest_power_of_two(m, general):
    c = 4 * m - 2 if general else 2 * m - 2
    d = F.MAX_R and B.weil_threshold_d(m, general)
    r = int(math.log2(d))
    assert 2 ** r == d and r >= 1
    assert c / math.sqrt(d) < 1 and (r == 1 or c / math.sqrt(2 ** (r - 1)) >= 1)
