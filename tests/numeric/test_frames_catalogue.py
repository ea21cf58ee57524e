"""Tests of verify/numeric/frames/catalogue.py and the Frobenius reduction of cert_codes.py: the frame table
(certified coherence against the exactly certified lower bound), the best frame for a size, DG for d >= 4096,
and the coherence-1 explanation."""

from __future__ import annotations

from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import VerifyInputError
from verify.numeric import frames as F
from verify.numeric.frames import catalogue, cert_codes
from verify.numeric.frames.field import MAX_R


@pytest.mark.parametrize("cons,r,delta", [("kerdock", 8, None), ("dg", 6, 2), ("dg", 8, 1),
                                          pytest.param("kerdock", 10, None, marks=pytest.mark.slow)])
def test_frobenius_reduction_same_histogram(cons, r, delta):
    # three routes: ranks over every form, ranks over orbit representatives, WHT over representatives
    full = F.code_certificate(cons, r, delta, symmetry=False)
    red = F.code_certificate(cons, r, delta)
    wht = F.code_certificate(cons, r, delta, method="wht")
    assert full.histogram == red.histogram == wht.histogram and full.radical_dims == red.radical_dims
    assert full.forms_scanned == 2 * 2 ** ((full.delta + 1) * (r - 1))
    # the reduction scans about 1/m' of the forms (orbits of size m' under Frobenius, u' in {0,1} for u0 = 0)
    assert red.forms_scanned <= full.forms_scanned // (r - 1) + 2 ** ((full.delta + 1) * (r - 1)) // 2 ** (r - 1) * 4 + 64
    assert red.forms_scanned <= F.code_scan_size(r, full.delta) + 2 ** (r - 1)


def test_orbit_weights_must_tile(monkeypatch):
    # the certificate refuses a reduction whose orbit weights do not cover every form (a wrong orbit length)
    orig = cert_codes._orbits

    def short(*a, **k):
        rep, length = orig(*a, **k)
        return rep, length - (length > 1)
    monkeypatch.setattr(cert_codes, "_orbits", short)
    with pytest.raises(AssertionError, match="orbit weights"):
        F.code_certificate("dg", 6, 1)


def test_dg_d4096_certified_exactly():
    # DG(12, 1): d^3/4 = 2^34 columns; coherence exactly 2/sqrt(d) = 1/32 (the design), radicals only 0, 2, 12
    c = F.code_certificate("dg", 12, 1)
    assert c.n_columns == 2 ** 34 and c.coherence_exact == "1/32" and set(c.radical_dims) == {0, 2, 12}
    # exact counts: every ordered pair of distinct columns once (the diagonal removed)
    assert sum(c.histogram.values()) == c.n_columns * (c.n_columns - 1) // 2 ** (12 + 11)
    assert c.radical_dims[12] == 2 ** 11  # the zero forms: u = u', c = c'


def test_table_rows_lower_bounds():
    rows = F.frame_table(64)
    by = {(row.construction, row.parameter): row for row in rows}
    for row in rows:
        lb = Fraction(row.lower_bound_sq)
        assert lb == Fraction(F.best_lower_bound(64, row.n_columns).value_sq)
        assert row.lower_bound ** 2 <= lb                   # the float is rounded down
        if row.coherence_exact is not None:
            assert Fraction(row.coherence_exact) ** 2 >= lb  # certified coherence never beats a certified bound
            if lb:
                assert row.ratio_to_lower_bound == pytest.approx(row.coherence / row.lower_bound, rel=1e-15)
    assert by["kerdock", "delta=0"].ratio_to_lower_bound == pytest.approx(1, abs=1e-6)  # Levenstein-optimal
    assert by["bch", "m=3"].lower_bound_name == "lp"  # the LP beats Welch and Levenstein at N = d^3
    assert by["bch", "m=1"].lower_bound == 0 and by["bch", "m=1"].ratio_to_lower_bound is None


@pytest.mark.slow  # quadratic_certificate(16, 3) and DG(12, 1): tens of seconds on 2 busy cores
def test_table_rows_every_even_r_up_to_16():
    rows = F.frame_table(2 ** 16, max_forms=1, lp=False)  # no code certificate in budget: rows still listed
    assert [row.parameter for row in rows if row.construction in ("kerdock", "dg")] == [f"delta={k}" for k in range(8)]
    assert all(row.coherence is None and "2^" in row.note for row in rows[3:])
    assert rows[-1].n_columns == 2 ** (8 * 15 + 16)
    dg12 = [row for row in F.frame_table(4096, lp=False) if row.construction == "dg"]
    assert dg12[0].coherence_exact == "1/32" and all(row.coherence is None for row in dg12[1:])


def test_table_lists_rows_past_the_budget():
    rows = F.frame_table(256, max_forms=1, lp=False)
    assert [row.parameter for row in rows[3:]] == [f"delta={k}" for k in range(4)]
    assert all(row.coherence is None and "not certified" in row.note for row in rows[3:])


def test_best_frame_choices():
    b = F.best_frame(64, 4000)
    # 4000 columns at d = 64: the bch m = 2 frame's first 4000 (1/4), Kerdock too small, DG(6,1) sub-frame <= 1/4
    assert (b.construction, b.parameter, b.exact, b.coherence_exact) == ("bch", "m=2", True, "1/4")
    assert Fraction(b.coherence_exact) ** 2 >= Fraction(b.lower_bound_sq) and b.ratio_to_lower_bound >= 1
    k = F.best_frame(64, 2000)
    assert (k.construction, k.coherence_exact, k.exact) == ("kerdock", "1/8", False)  # a Kerdock sub-frame
    assert F.best_frame(64, 64).construction == "identity"
    s = F.best_frame(32, 2000)  # odd r (no Kerdock / DG): the first 2000 columns of the m = 3 frame, exactly
    assert s.parameter == "m=3" and s.exact and s.coherence_exact == F.certify(5, 3, n_columns=2000).coherence_exact
    with pytest.raises(VerifyInputError, match="Argument 'd'"):
        F.best_frame(48, 100)
    with pytest.raises(VerifyInputError, match="Argument 'n'"):
        F.best_frame(16, 1)


def test_coherence_one_reason():
    why = F.coherence_one_reason(F.certify(4, 3))
    assert why.startswith("coherence 1:") and "d = 32" in why and "m = 3" in why
    assert F.coherence_one_reason(F.certify(5, 3)) is None
    gen = F.coherence_one_reason(F.certify_general(12, 2))
    assert gen is None or "general" not in gen


# ----------------------------------------------------------------------------- best_frame's bch candidate, every route
def _smallest_m(d: int, n: int) -> int:
    """The smallest m >= 1 with d^m >= n, by integer powers."""
    m = 1
    while d ** m < n:
        m += 1
    return m


def _next_pow2(n: int) -> int:
    """The smallest power of two >= n, by doubling."""
    p = 1
    while p < n:
        p *= 2
    return p


def _dense_coherence(r: int, m: int, n: int) -> str:
    """max |<v_i, v_j>| over distinct columns of the first n columns, exactly: integer Gram of the sign matrix."""
    S = np.rint(F.build_frame(r, m, n_columns=n).dense() * np.sqrt(2 ** r)).astype(np.int64)
    G = S.T @ S
    np.fill_diagonal(G, 0)
    return str(Fraction(int(np.abs(G).max()), 2 ** r))


def _bch_refusal(d: int, n: int, budget: int) -> str:
    return (f"Argument 'n' needs a WHT scan of {_next_pow2(n)} codes (m = {_smallest_m(d, n)} > 3), more than "
            f"{budget}; ask for at most d^3 = {d ** 3} columns.")


@settings(max_examples=30, deadline=None)
@given(r=st.sampled_from([1, 3]), k=st.integers(2, 11), data=st.data())
def test_best_frame_bch_candidate_on_both_sides_of_the_scan_budget(r, k, data):
    """With the scan budget lowered to 2^k (so that both sides are cheap): n = d^m with m <= 3 -> the whole
    frame, exact; the first n columns scan within budget (2^ceil(log2 n) <= 2^k) -> exact, the coherence of those
    columns; over budget with m <= 3 -> the whole m-frame's coherence, not exact; over budget with m > 3 -> the
    refusal, whole, naming the scan size 2^ceil(log2 n) (n just above a power of two: one more bit than n - 1's
    predecessor). References: the integer Gram matrix of the dense frame."""
    d = 2 ** r
    hi = min(d ** 8, 2 ** (k + 2), 4 * d ** 3)
    n = data.draw(st.one_of(st.integers(d + 1, hi), st.sampled_from([2 ** k, 2 ** k + 1, d ** 3, d ** 3 + 1])
                            .filter(lambda v: d < v <= d ** 8)), label="n")
    m = _smallest_m(d, n)
    with mock.patch.object(catalogue, "BEST_MAX_CODES", 2 ** k):
        if m > 3 and _next_pow2(n) > 2 ** k:
            with pytest.raises(VerifyInputError) as err:
                F.best_frame(d, n, lp=False)
            assert str(err.value) == _bch_refusal(d, n, 2 ** k)
            return
        b = F.best_frame(d, n, lp=False)
    (bch,) = [c for c in b.candidates if c["construction"] == "bch"]
    exact = n == d ** m or _next_pow2(n) <= 2 ** k
    assert bch == {"construction": "bch", "parameter": f"m={m}", "n_full": d ** m,
                   "coherence_exact": _dense_coherence(r, m, n if exact else d ** m), "exact": exact}


@pytest.mark.parametrize("r", [4, 5, 6, 8])
@pytest.mark.parametrize("n", [2 ** 26 + 1, 2 ** 27, 2 ** 27 + 1, 3 * 2 ** 26 + 5])
def test_best_frame_refusals_whole_at_the_real_budget(r, n):
    """The package's own budget (2^26 codes): n just above it is refused with the scan size, the m and the d^3
    named; n above d^8 and a d that is not a power of two are refused naming the value given."""
    d = 2 ** r
    if n > d ** 8:
        want = f"Argument 'n' must be at most d^8 = 2^{8 * r} (the largest bch frame), not {n}."
    else:
        want = _bch_refusal(d, n, 2 ** 26)
    assert catalogue.BEST_MAX_CODES == 2 ** 26
    with pytest.raises(VerifyInputError) as err:
        F.best_frame(d, n, lp=False)
    assert str(err.value) == want
    with pytest.raises(VerifyInputError) as err:
        F.best_frame(d, d ** 8 + 1, lp=False)
    assert str(err.value) == f"Argument 'n' must be at most d^8 = 2^{8 * r} (the largest bch frame), not {d ** 8 + 1}."
    for bad in (d + 1, 3 * d, 2 ** (MAX_R + 1)):
        with pytest.raises(VerifyInputError) as err:
            F.best_frame(bad, n, lp=False)
        assert str(err.value) == f"Argument 'd' must be a power of two 2^r with 1 <= r <= {MAX_R}, not {bad}."


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_certify_frame_refusal_counts_the_differing_signs(data):
    """certify_frame refuses a Lemma A.4 frame with k flipped signs naming k (any k from 1 to every entry, general
    frames included), and a code frame whose signs differ, whole; the untouched frames are certified."""
    import dataclasses

    r, m, general = data.draw(st.sampled_from([(2, 2, False), (3, 2, False), (3, 3, False), (4, 2, True)]))
    fr = F.build_general_frame(12, 2) if general else F.build_frame(r, m)
    size = fr.signs.size
    k = data.draw(st.one_of(st.integers(1, 5), st.integers(1, size), st.just(size)), label="k")
    flat = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1))).choice(size, size=k, replace=False)
    signs = fr.signs.copy()
    signs.reshape(-1)[flat] *= -1
    with pytest.raises(VerifyInputError) as err:
        F.certify_frame(dataclasses.replace(fr, signs=signs))
    assert str(err.value) == f"Argument 'frame' must hold the Lemma A.4 construction; {k} signs differ."
    assert F.certify_frame(fr).n_columns == fr.n_columns
    for cons, rr, delta in (("kerdock", 4, None), ("dg", 6, 1)):
        code = F.build_code_frame(cons, rr, delta)
        # the untouched code frame is certified as its own construction (delta included: DG(6, 1), not Kerdock)
        got, want = F.certify_frame(code), cert_codes.code_certificate(cons, rr, delta, method="wht")
        assert (got.n_columns, got.max_abs_sum, got.coherence_exact, got.histogram) == \
            (want.n_columns, want.max_abs_sum, want.coherence_exact, want.histogram)
        signs = code.signs.copy()
        signs[0, -1] *= -1
        with pytest.raises(VerifyInputError) as err:
            F.certify_frame(dataclasses.replace(code, signs=signs))
        assert str(err.value) == f"Argument 'frame' must hold the {cons} construction; signs differ."
