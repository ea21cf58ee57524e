"""The one number formatter of the human outputs (verify.reporters._numbers): floats to 4 significant digits that
read back within that precision, exact fractions exact, huge integers and long fractions short, intervals with ends
that a reader can compare, numbers inside a text shortened without touching identifiers."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.reporters._numbers import (DIGITS, MAX_FRACTION_DIGITS, fmt_apart, fmt_interval, fmt_number, humanize_text,
                                       parse_exact)

finite = st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x != 0)


@settings(max_examples=300, deadline=None)
@given(finite)
def test_a_float_reads_back_within_its_significant_digits(x):
    text = fmt_number(x)
    mant = text.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    assert len(mant) <= DIGITS
    # read back exactly (a float near the largest one rounds up past it)
    assert abs(Fraction(Decimal(text)) - Fraction(x)) <= Fraction(1, 2 * 10 ** (DIGITS - 1)) * abs(Fraction(x))


@settings(max_examples=300, deadline=None)
@given(st.integers(-10 ** MAX_FRACTION_DIGITS + 1, 10 ** MAX_FRACTION_DIGITS - 1),
       st.integers(1, 10 ** MAX_FRACTION_DIGITS - 1))
def test_a_short_exact_fraction_stays_exact(p, q):
    x = Fraction(p, q)
    for given_as in (x, f"{x.numerator}/{x.denominator}"):
        assert Fraction(fmt_number(given_as)) == x
        assert parse_exact(fmt_number(given_as)) == x


@settings(max_examples=200, deadline=None)
@given(st.integers(10 ** 7, 10 ** 30), st.integers(10 ** 7, 10 ** 30))
def test_a_long_fraction_is_shown_to_four_digits_and_marked_approximate(p, q):
    x = Fraction(p, q)
    if x.denominator == 1 or (x.denominator < 10 ** MAX_FRACTION_DIGITS and x.numerator < 10 ** MAX_FRACTION_DIGITS):
        return   # an integer or a short fraction: exact (the tests above)
    text = fmt_number(f"{x.numerator}/{x.denominator}")
    assert text.startswith("\u2248")
    assert math.isclose(float(text[1:]), float(x), rel_tol=0.5 * 10 ** (1 - DIGITS))


@pytest.mark.parametrize("n", [10 ** 99 + 12345, -(3 ** 200)])
def test_a_huge_integer_is_its_leading_digits_and_its_length(n):
    text = fmt_number(n)
    assert len(text) < 30 and f"({len(str(abs(n)))} digits)" in text
    assert math.isclose(float(text.split(" ")[0]), n, rel_tol=1e-3)


def test_small_integers_and_words_are_as_they_are():
    assert [fmt_number(v) for v in (0, 7, -12, 10 ** 11, True, None)] == ["0", "7", "-12", "100000000000", "true",
                                                                          "none"]


def test_intervals():
    assert fmt_interval(0.6749999999999999, 0.6750000000000002) == "[0.67500, 0.67500]"
    assert fmt_interval("27/40", "27/40") == "27/40 (exact)"
    assert fmt_interval(1, 2) == "[1, 2]"
    lo, hi = fmt_interval(0.1234567, 0.1234987)[1:-1].split(", ")
    assert float(lo) < float(hi)   # five digits: the ends of a narrow interval still differ


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e6, 1e6), st.floats(0, 1e6))
def test_an_interval_keeps_its_order(lo, width):
    hi = lo + width
    a, b = fmt_interval(lo, hi)[1:-1].split(", ")
    assert float(a) <= float(b)


def test_numbers_in_text():
    text = ("best -0.9003801515352409 <= 1.0 at S-thm3.2, F_5 = 3, n = 48; M_W = 402846142247017353/1066802487543587780;"
            " replay 0.123456789012345678901234567890; N = " + "9" * 100)
    out = humanize_text(text)
    assert "-0.9004" in out and "S-thm3.2" in out and "F_5 = 3" in out and "n = 48" in out
    assert "M_W \u2248 0.3776" in out and "replay 0.1235" in out and "(100 digits)" in out
    assert not any(len(tok) > 12 and tok.strip(";").isdigit() for tok in out.split())


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10 ** MAX_FRACTION_DIGITS - 1), st.integers(1, 10 ** MAX_FRACTION_DIGITS - 1))
def test_a_short_fraction_in_a_text_is_kept_as_written(p, q):
    # "killed 3/3" is a count of mutants, not the number 1; "2/4" may be a ratio the reader compares with "3/4"
    assert humanize_text(f"killed {p}/{q} mutants") == f"killed {p}/{q} mutants"


def test_a_number_with_thousands_separators_is_left_whole():
    # "50,000 images" once read as 50 and 000 = 0 ("50,0 images")
    assert humanize_text("for CIFAR-10 (50,000 images); 5,000-image subset") == \
        "for CIFAR-10 (50,000 images); 5,000-image subset"
    assert humanize_text("best -0.9003801515352409, at n = 48, K = 3") == "best -0.9004, at n = 48, K = 3"


def _shown(text: str) -> Fraction:
    """The number a reader takes from a shown value (``≈`` dropped)."""
    text = text.lstrip("\u2248").split(" (")[0]   # "1.000e+12 (13 digits)": the leading digits
    return Fraction(text) if "/" in text else Fraction(Decimal(text))


exact_or_float = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300),
    st.fractions(max_denominator=10 ** 15),
    st.builds(lambda p, q: f"{p}/{q}", st.integers(-10 ** 25, 10 ** 25), st.integers(1, 10 ** 13)))


@settings(max_examples=400, deadline=None)
@given(exact_or_float, exact_or_float, st.booleans())
def test_two_different_values_read_apart_and_the_right_way_round(a, b, near):
    """fmt_apart against exact comparison: two different numbers never read the same, their shown values are in the
    same order as the numbers, each shown value is the number rounded to the digits shown (an exact one exactly,
    marked ``≈`` otherwise), and two numbers that fmt_number already tells apart are shown as fmt_number shows
    them. ``near``: b moved to within a few parts in 10^9 of a, where 4 digits cannot tell them apart."""
    xa = parse_exact(a) if parse_exact(a) is not None else a
    if near:
        b = xa * (1 + Fraction(3, 10 ** 9)) + Fraction(1, 10 ** 12) if isinstance(xa, Fraction) else \
            float(xa) * (1 + 3e-9) + 1e-12
    xb = parse_exact(b) if parse_exact(b) is not None else b
    sa, sb = fmt_apart(a, b)
    va, vb = _shown(sa), _shown(sb)
    fa, fb = Fraction(xa), Fraction(xb)
    if fa != fb:
        assert sa != sb and (va < vb) == (fa < fb) and (va > vb) == (fa > fb), (a, b, sa, sb)
    else:
        assert sa == sb
    ra, rb = _shown(fmt_number(xa)), _shown(fmt_number(xb))
    if fa == fb or (ra != rb and (ra < rb) == (fa < fb)):   # fmt_number already reads right
        assert (sa, sb) == (fmt_number(xa), fmt_number(xb))
    for s, x, v in ((sa, xa, va), (sb, xb, vb)):
        # a float is a measurement, never marked; an exact value shown without the mark is shown exactly
        assert not (s.startswith("\u2248") and not isinstance(x, Fraction))
        assert s.startswith("\u2248") or not isinstance(x, Fraction) or v == x or "digits)" in s
        digits = len(s.lstrip("\u2248-").split("e")[0].replace(".", "").lstrip("0")) or 1
        if "/" not in s and "digits)" not in s:
            assert abs(v - Fraction(x)) <= Fraction(1, 2 * 10 ** (digits - 1)) * abs(Fraction(x)) * 10


def test_fmt_apart_of_what_is_not_a_number_is_humanized_text():
    assert fmt_apart("sqrt(21)/42 = [0.10910894511799618, 0.10910894511799619]", "1/20") == \
        ("sqrt(21)/42 = [0.10911, 0.10911]", "1/20")


def test_exact_values_that_agree_past_a_float_s_digits_still_read_apart():
    """Two exact rationals equal to 25 digits (more than a float holds) read apart: exactly where the decimal is
    exact, marked approximate where it is not."""
    b, c = 1 + Fraction(1, 10 ** 25), 1 + Fraction(1, 3 * 10 ** 25)
    assert fmt_apart(1, b) == ("1", "1.0000000000000000000000001")
    assert fmt_apart(f"{c.numerator}/{c.denominator}", "1") == ("\u22481.00000000000000000000000003", "1")
