r"""Numbers as a reader takes them in: the one formatter of the human outputs (the terminal table, verdicts.md,
the finding lines). The JSON report keeps every digit; these forms keep what a reader can use.

* an exact value stays exact: an integer as it is (up to :data:`MAX_INT_DIGITS` digits), a fraction ``27/40`` as
  it is while numerator and denominator are short (:data:`MAX_FRACTION_DIGITS` digits each);
* a float, a longer fraction or a huge integer to :data:`DIGITS` significant digits (``0.3776``, ``1.235e+99``,
  a huge integer with its digit count);
* an interval ``[lo, hi]`` with both ends to :data:`INTERVAL_DIGITS` significant digits (``[0.67500, 0.67500]``), or
  ``27/40 (exact)`` when both ends are the same exact rational;
* numbers inside a recorded text (a replay to 30 digits, a 100-digit integer, a fraction of two 18-digit integers)
  shortened the same way (:func:`humanize_text`), identifiers such as ``S-thm3.2`` or ``F_5`` untouched.

>>> fmt_number(0.30000000000000004), fmt_number(Fraction(27, 40)), fmt_number(10 ** 100)
('0.3', '27/40', '1.000e+100 (101 digits)')
>>> fmt_interval(0.6749999999999999, 0.6750000000000002), fmt_interval("27/40", "27/40")
('[0.67500, 0.67500]', '27/40 (exact)')
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

__all__ = ["DIGITS", "INTERVAL_DIGITS", "MAX_INT_DIGITS", "MAX_FRACTION_DIGITS", "fmt_number", "fmt_apart",
           "fmt_interval", "humanize_text", "parse_exact"]

#: significant digits of a float (and of a fraction or integer too long to read) in the human outputs
DIGITS = 4
#: significant digits of each end of an interval: one more than a value, so that a narrow interval shows its ends
INTERVAL_DIGITS = 5
#: longest integer written out digit by digit (a longer one: its leading digits and its digit count)
MAX_INT_DIGITS = 12
#: longest numerator or denominator of a fraction written exactly (``27/40``; a longer one to DIGITS digits)
MAX_FRACTION_DIGITS = 6

_FRACTION = re.compile(r"\s*(-?\d+)\s*/\s*(\d+)\s*")


def _sig(x: Fraction | Decimal | float, digits: int, keep_zeros: bool = False) -> str:
    """``x`` to ``digits`` significant digits, exactly rounded (a Fraction or a huge integer is not first turned
    into a float, so nothing overflows): ``%g`` style, trailing zeros dropped unless ``keep_zeros``."""
    if isinstance(x, float):
        if not math.isfinite(x):
            return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
        d = Decimal(x)
    elif isinstance(x, Fraction):
        with localcontext() as ctx:
            ctx.prec = digits + 10
            d = Decimal(x.numerator) / Decimal(x.denominator)
    else:
        d = Decimal(x)
    if d == 0:
        return "0"
    with localcontext() as ctx:
        ctx.prec = digits + 10
        text = format(d, f".{digits}g")   # Decimal's %g keeps trailing zeros
    mant, _, exp = text.lower().partition("e")
    if not keep_zeros and "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    # exponents as Python writes a float's: e+07, e-05
    return mant + (f"e{int(exp):+03d}" if exp else "")


def parse_exact(v: Any) -> Fraction | None:
    """An exact rational a recorded value stands for: an ``int``, a :class:`~fractions.Fraction` or a string
    ``"p/q"`` / ``"p"``; ``None`` for anything else (floats included: they are measurements, not exact)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, Fraction)):
        return Fraction(v)
    if isinstance(v, str):
        m = _FRACTION.fullmatch(v)
        if m and int(m[2]) != 0:
            return Fraction(int(m[1]), int(m[2]))
        if re.fullmatch(r"\s*-?\d+\s*", v):
            return Fraction(int(v))
    return None


def _fmt_int(n: int) -> str:
    text = str(n)
    digits = len(text.lstrip("-"))
    if digits <= MAX_INT_DIGITS:
        return text
    return f"{_sig(Decimal(n), DIGITS, keep_zeros=True)} ({digits} digits)"


def _fmt_fraction(x: Fraction) -> str:
    if x.denominator == 1:
        return _fmt_int(x.numerator)
    if len(str(abs(x.numerator))) <= MAX_FRACTION_DIGITS and len(str(x.denominator)) <= MAX_FRACTION_DIGITS:
        return f"{x.numerator}/{x.denominator}"
    return "\u2248" + _sig(x, DIGITS)  # approximately: the exact fraction is in the JSON report


def fmt_number(v: Any) -> str:
    """A recorded number for a reader (see the module docstring); anything that is not a number as ``str``.

    >>> fmt_number(12345678.9), fmt_number(3), fmt_number("402846142247017353/1066802487543587780")
    ('1.235e+07', '3', '≈0.3776')
    """
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    if isinstance(v, float):
        return _sig(v, DIGITS)
    exact = parse_exact(v)
    if exact is not None:
        return _fmt_int(exact.numerator) if exact.denominator == 1 else _fmt_fraction(exact)
    try:  # numpy scalars, mpmath numbers, sympy numbers
        import numbers

        if isinstance(v, numbers.Integral):
            return _fmt_int(int(v))
        if isinstance(v, numbers.Rational):
            return _fmt_fraction(Fraction(int(v.numerator), int(v.denominator)))
        if isinstance(v, numbers.Real) or type(v).__name__ == "mpf":
            return _sig(float(v), DIGITS)
    except (TypeError, ValueError, OverflowError):
        pass
    return str(v)


def fmt_apart(value: Any, bound: Any) -> tuple[str, str]:
    """A value and the bound it is compared with, each as :func:`fmt_number` writes it, or, where that makes two
    different numbers read the same, to the fewest more significant digits at which they read apart: a search's
    best 0.99999998 against the bound 1 must not read "1 <= 1", nor a counterexample's two long fractions
    "≈-1.017e+11 = ≈-1.017e+11 fails". Rounding both to the same digits keeps their order, so two different strings
    read the right way round. Exact rationals (``int``, :class:`~fractions.Fraction`, ``"p/q"``) keep their ``≈``
    when shortened; anything that is not a number is shown as :func:`humanize_text` writes it.

    >>> fmt_apart(-0.9003801515352409, 1.0), fmt_apart(0.9999999768136254, 1.0), fmt_apart(1.0, 0.9999990463256836)
    (('-0.9004', '1'), ('0.99999998', '1'), ('1', '0.999999'))
    >>> fmt_apart(0.0, 0.0), fmt_apart("29/200", "19/200"), fmt_apart(0.3, 0.3)
    (('0', '0'), ('29/200', '19/200'), ('0.3', '0.3'))
    >>> fmt_apart("-360314386830890647815825/3543369523456", "-360322163423167903248225/3543369523456")
    ('≈-1.01687e+11', '≈-1.01689e+11')
    """
    exact = parse_exact(value), parse_exact(bound)
    try:
        xs = [e if e is not None else float(v) for e, v in zip(exact, (value, bound))]
    except (TypeError, ValueError):
        return humanize_text(value), humanize_text(bound)
    first = fmt_number(xs[0]), fmt_number(xs[1])
    if xs[0] == xs[1] or not all(math.isfinite(x) for x in xs):
        return first
    ra, rb = _reads(first[0]), _reads(first[1])
    if isinstance(ra, Fraction) and isinstance(rb, Fraction) and ra != rb and (ra < rb) == (xs[0] < xs[1]):
        return first   # they read apart and the right way round ("1/74" against "≈0.01351" does not)
    # floats part by their 17th digit at the latest; exact rationals may agree further
    for digits in range(DIGITS + 1, 18 if None in exact else 60):
        a, b = _sig(xs[0], digits), _sig(xs[1], digits)
        if a != b:
            return tuple(t if e is None or Fraction(Decimal(t)) == e else "\u2248" + t for t, e in zip((a, b), exact))
    return first


def _reads(text: str) -> Fraction | str:
    """The number a reader takes from a shown value: ``≈`` and a digit count dropped, ``p/q`` or a decimal."""
    text = text.lstrip("\u2248").split(" (")[0]
    try:
        return Fraction(text) if "/" in text else Fraction(Decimal(text))
    except (ValueError, ArithmeticError):
        return text


def fmt_interval(lo: Any, hi: Any) -> str:
    """A certified interval: ``"27/40 (exact)"`` when both ends are the same exact rational, else both ends to
    :data:`INTERVAL_DIGITS` significant digits with their trailing zeros (``[0.67500, 0.67500]``: the ends agree to
    the digits shown), ends that are short exact rationals as they are."""
    a, b = parse_exact(lo), parse_exact(hi)
    if a is not None and a == b:
        return f"{fmt_number(lo)} (exact)"

    def end(x: Any) -> str:
        e = parse_exact(x)
        if e is not None and e.denominator == 1 and len(str(abs(e.numerator))) <= MAX_INT_DIGITS:
            return str(e.numerator)
        if e is not None:
            return _sig(e, INTERVAL_DIGITS, keep_zeros=True)
        try:
            return _sig(float(x), INTERVAL_DIGITS, keep_zeros=True)
        except (TypeError, ValueError, OverflowError):
            return str(x)

    return f"[{end(lo)}, {end(hi)}]"


# a number in running text: not glued to an identifier (S-thm3.2, F_5, x2, v1.0 stay), a decimal, an integer or a
# fraction p/q of integers, with an optional exponent
_NUM = r"-?(?:\d+\.\d+|\d+)(?:[eE][-+]?\d+)?"
_IN_TEXT = re.compile(rf"(?<![\w.\-^/])(?<!\d,){_NUM}(?:/\d+)?(?![\w.]|/\d|,\d)")   # "50,000" stays whole
_INTERVAL_IN_TEXT = re.compile(rf"\[\s*({_NUM}(?:/\d+)?)\s*,\s*({_NUM}(?:/\d+)?)\s*\]")


def _short_token(tok: str) -> str:
    if "/" in tok:
        num, den = tok.lstrip("-").split("/")
        if len(num) <= MAX_FRACTION_DIGITS and len(den) <= MAX_FRACTION_DIGITS:
            return tok   # short as written; a count such as "killed 3/3" is not the number 1
        exact = parse_exact(tok)
        return tok if exact is None else _fmt_fraction(exact)
    if re.fullmatch(r"-?\d+", tok):
        return _fmt_int(int(tok))
    mant = tok.lower().split("e")[0].lstrip("-").replace(".", "").lstrip("0")
    if len(mant) <= DIGITS + 1:   # already short (0.675, 12.75, 1e-6): as written
        return tok
    return _sig(float(tok), DIGITS)


def humanize_text(text: Any) -> str:
    """A recorded text with its numbers shortened (:func:`fmt_number`'s rules; an ``[a, b]`` pair as an interval),
    everything else unchanged.

    >>> humanize_text("ratio 1.000000000000000000000000000012 at H0 = [0.6749999999999999, 0.6750000000000002]")
    'ratio 1 at H0 = [0.67500, 0.67500]'
    >>> humanize_text("S-thm3.2 holds at d = 4, K = 3; M_W = 402846142247017353/1066802487543587780")
    'S-thm3.2 holds at d = 4, K = 3; M_W ≈ 0.3776'
    >>> humanize_text("verified [killed 3/3]")
    'verified [killed 3/3]'
    """
    text = str(text)

    def interval(m: re.Match) -> str:
        lo, hi = m[1], m[2]
        if len(lo) + len(hi) <= 2 * (INTERVAL_DIGITS + 3):
            return m[0]
        return fmt_interval(lo, hi)

    text = _INTERVAL_IN_TEXT.sub(interval, text)
    text = _IN_TEXT.sub(lambda m: _short_token(m[0]), text)
    return re.sub("=\\s*\u2248", "\u2248 ", text)   # "M_W = ≈0.3776" reads "M_W ≈ 0.3776"
