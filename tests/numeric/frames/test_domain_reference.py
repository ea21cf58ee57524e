r"""The rest of the domain of :mod:`verify.numeric.frames`' constructions, certificates and Delsarte LP, against
references written here (issue 41: options away from their defaults, sizes across the chunk thresholds).

* ``build_code_frame`` with its column chunk (``CHUNK_FORMS``) patched to sizes that do not divide the frame: the
  frame entry by entry from shift-and-add GF(2^{m'}) arithmetic (``tests/gf_reference.py``);
* ``gram_coherence`` in float32 and in exact integers, chunked at every width, against the full Gram matrix;
* ``lp_bound`` of degree K = 1 and K = 2 against the closed forms of the Welch and Levenstein bounds (the optimum of
  the degree-1 LP is Welch's polynomial, that of the degree-2 LP Levenstein's where it applies, else Welch's), at the
  bisection's target :math:`n(1 - \text{TARGET\_SLACK})`, to 1e-8 relative; its trivial record (n <= d) whole; its
  refusals; ``certify_lp_polynomial``'s refusal of every malformed certificate.
"""

import math
from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import VerifyInputError
from verify.numeric.frames import cert_wht as CW
from verify.numeric.frames import constructions as C
from verify.numeric.frames import delsarte_lp as D
from gf_reference import code_signs

REF = settings.get_profile("reference")


@pytest.mark.parametrize("cons,r,delta,chunk", [("kerdock", 4, None, 3), ("dg", 4, 1, 5), ("kerdock", 2, None, 1),
                                                ("kerdock", 6, None, 7), ("dg", 4, 1, 16)])
def test_code_frame_across_its_column_chunks(cons, r, delta, chunk):
    """step = CHUNK_FORMS * 64 // 2^r columns per chunk: 12, 20, 16, 7 and 64 here, the last chunk partial or whole."""
    dl = delta or 0
    n = 2 ** ((dl + 1) * (r - 1) + r)
    with mock.patch.object(C, "CHUNK_FORMS", chunk):
        F = C.build_code_frame(cons, r, delta)
    poly = {1: 0b11, 3: 0b1011, 5: 0b100101}[r - 1]   # galois' default moduli
    assert np.array_equal(F.signs.astype(np.int64), code_signs(r, dl, np.arange(n), poly))
    assert F.signs.dtype == np.int8 and (F.n_rows, F.n_columns, F.m, F.delta) == (2 ** r, n, dl + 1, dl)


@settings(REF, max_examples=max(5, REF.max_examples // 3))
@given(st.integers(1, 12), st.integers(2, 40), st.integers(0, 2 ** 32 - 1), st.booleans())
def test_gram_coherence_every_chunk_and_precision(d, n, seed, signs):
    rng = np.random.default_rng(seed)
    V = rng.choice([-1, 1], size=(d, n)) if signs else rng.standard_normal((d, n))
    X = V.astype(np.float64)
    G = np.abs(X.T @ X)
    np.fill_diagonal(G, 0)
    want = float(G.max())
    for chunk in {1, 2, n - 1, n, n + 1, int(rng.integers(1, n + 1))} - {0}:
        assert math.isclose(CW.gram_coherence(V, chunk=chunk), want, rel_tol=1e-12, abs_tol=1e-12)
        got32 = CW.gram_coherence(V, chunk=chunk, dtype=np.float32)
        if signs:   # integer sign matrices: exact in float32 (|entries| <= d < 2^24)
            assert got32 == want
            assert CW.gram_coherence(V, chunk=chunk, exact_int=True) == int(want)
        else:
            assert math.isclose(got32, want, rel_tol=1e-5, abs_tol=1e-5 * d)
    with pytest.raises(VerifyInputError) as exc:
        CW.gram_coherence(V, chunk=0)
    assert str(exc.value) == "Argument 'chunk' must be an integer >= 1, not 0."


def welch_levenstein_target(d: int, n: int, K: int) -> float:
    """The largest x0 at which the degree-K LP (K = 1, 2) still proves N < n(1 - TARGET_SLACK): the Welch bound at
    that N for K = 1; for K = 2 the larger of it and Levenstein's (which applies for 2N > d(d+1))."""
    N = n * (1 - 1e-6)   # the documented target slack, written here (not read from the module under test)
    welch = (N - d) / (d * (N - 1))
    if K == 1 or 2 * N <= d * (d + 1):
        return welch
    return max(welch, (3 * N - d * d - 2 * d) / ((d + 2) * (N - d)))


@settings(REF, max_examples=max(6, REF.max_examples // 2))
@given(st.integers(2, 8), st.integers(1, 200), st.sampled_from([1, 2]), st.sampled_from([16, 40]))
def test_lp_bound_of_degree_one_and_two_is_the_welch_and_levenstein_closed_form(d, extra, K, grid):
    n = d + extra
    b = D.lp_bound(d, n, K, grid)
    want = welch_levenstein_target(d, n, K)
    x0 = Fraction(b.x0_exact)
    assert (b.d, b.n, b.degree) == (d, n, K)
    assert float(x0) <= want * (1 + 1e-12) and float(x0) >= want * (1 - 1e-8), (float(x0), want)
    assert b.float_lp_mu ** 2 >= float(x0) * (1 - 1e-12) and b.float_lp_mu ** 2 <= want * (1 + 1e-12)
    # the certificate itself: g = 1 + sum_k g_k P_k (coefficients already divided by 1 - c) proves N <= n_bound < n
    coeffs = [Fraction(v) for v in b.coefficients]
    c = Fraction(b.c_exact)
    assert len(coeffs) == K and all(v >= 0 for v in coeffs) and 0 <= c < Fraction(1, 2 ** 20)
    assert b.n_bound == 1 + sum(coeffs) and b.n_bound < n
    # and it keeps the LP's value: rounded to rationals finely enough that c is negligible and the proved bound is the
    # bisection's target n(1 - 1e-6) up to 1e-8 relative (a coarse rounding would prove less: a larger c, a larger bound)
    assert c < Fraction(1, 2 ** 36) and float(b.n_bound) <= n * (1 - 1e-6) * (1 + 1e-8)
    assert D.certify_lp_polynomial(d, [v * (1 - c) for v in coeffs], x0, c) == b.n_bound
    # mu: sqrt(x0) rounded down, i.e. the largest float whose square is at most x0
    assert Fraction(b.mu) ** 2 <= x0 < Fraction(math.nextafter(b.mu, math.inf)) ** 2


@pytest.mark.parametrize("d,n", [(2, 1), (2, 2), (7, 3), (9, 9)])
def test_lp_bound_with_at_most_d_lines_is_the_trivial_record(d, n):
    for K in (1, 10):
        assert D.lp_bound(d, n, K).as_dict() == {
            "d": d, "n": n, "degree": K, "x0_exact": "0", "mu": 0.0, "n_bound_exact": str(d), "coefficients": [],
            "c_exact": "0", "float_lp_mu": 0.0}


def test_lp_refusals_and_malformed_certificates():
    def refused(call):
        with pytest.raises(VerifyInputError) as exc:
            call()
        return str(exc.value)
    assert refused(lambda: D.lp_bound(1, 5)) == "Argument 'd' must be an integer >= 2, not 1."
    assert refused(lambda: D.lp_bound(3, 0)) == "Argument 'n' must be an integer >= 1, not 0."
    assert refused(lambda: D.lp_bound(3, 5, 0)) == "Argument 'K' must be an integer >= 1 and <= 40, not 0."
    assert refused(lambda: D.lp_bound(3, 5, 41)) == "Argument 'K' must be an integer >= 1 and <= 40, not 41."
    assert refused(lambda: D.lp_bound(3, 5, 2, 15)) == "Argument 'grid' must be an integer >= 16, not 15."
    assert refused(lambda: D.gegenbauer_x(1, 2)) == "Argument 'd' must be an integer >= 2, not 1."
    assert refused(lambda: D.gegenbauer_x(3, -1)) == "Argument 'K' must be an integer >= 0, not -1."
    # a valid certificate (Welch's polynomial for d = 3 just past its edge at x0 = 1/4), then each part made invalid
    d, x0 = 3, Fraction(1, 4)
    f1 = Fraction(d - 1) / (1 - d * x0) * Fraction(1001, 1000)
    assert D.certify_lp_polynomial(d, [f1], x0, 0) == 1 + f1
    assert D.certify_lp_polynomial(d, [f1, 0], x0, 0) == 1 + f1                     # a zero coefficient is allowed
    assert D.certify_lp_polynomial(d, [f1, Fraction(-1, 10 ** 9)], x0, 0) is None    # negative coefficient
    assert D.certify_lp_polynomial(d, [f1], x0, Fraction(-1, 10 ** 9)) is None       # c < 0
    assert D.certify_lp_polynomial(d, [f1], x0, 1) is None                           # c >= 1
    assert D.certify_lp_polynomial(d, [f1], Fraction(-1, 10 ** 9), 0) is None        # x0 < 0
    assert D.certify_lp_polynomial(d, [f1], 1, 0) is None                            # x0 >= 1
    assert D.certify_lp_polynomial(d, [f1 / 4], x0, 0) is None                       # g has a root in [0, x0]
    assert D.certify_lp_polynomial(d, [Fraction(0)], Fraction(0), Fraction(1, 2)) is None  # g(0) = 1/2 > 0
    # with c: g = 1 - c + f1 P_1 (bound (1 - c + f1) / (1 - c))
    c = Fraction(1, 100)
    g1 = Fraction(d - 1) * (1 - c) / (1 - d * x0) * Fraction(1001, 1000)
    assert D.certify_lp_polynomial(d, [g1], x0, c) == (1 - c + g1) / (1 - c)
