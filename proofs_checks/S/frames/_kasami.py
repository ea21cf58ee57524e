"""The Kasami reference of the quadratic certificate's check (X-S-quadratic-certificate): the signed
distribution of the character sums of the duals of the 2- and 3-error-correcting BCH codes, derived from two
published facts (the set of weights and the BCH bound's power moments), solved exactly with sympy.

Kept beside the check that reads it (proofs_checks/S/frames/test_statements.py) and used by the unit tests too
(tests/numeric/test_frame_quadratic.py): a check must run with the package's own dependencies, so it never loads a
file of tests/ (whose imports include the test extra's hypothesis).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import sympy


@lru_cache(maxsize=None)
def rademacher_moment_poly(k: int) -> sympy.Poly:
    """E[(e_1 + ... + e_n)^k] for iid uniform +-1 signs as a polynomial in n: k! [t^k] cosh(t)^n."""
    t, n = sympy.symbols("t n")
    series = sympy.series(sympy.exp(n * sympy.log(sympy.cosh(t))), t, 0, k + 1).removeO()
    return sympy.Poly(sympy.expand(series.coeff(t, k) * sympy.factorial(k)), n)


def binomial_moment(n: int, k: int) -> Fraction:
    """E[(e_1 + ... + e_n)^k] at a given n, exactly."""
    value = rademacher_moment_poly(k).eval(n)
    return Fraction(int(value.p), int(value.q))


def kasami_reference(r: int, t: int) -> dict:
    r"""Signed distribution of S = sum_x (-1)^tr(sum_{j<t} a_j x^(2j+1)) over all 2^(rt) tuples (a_j), a != 0.

    Derived, not copied, from two published facts:

    * the set of weights. Kasami, "Weight distributions of Bose-Chaudhuri-Hocquenghem codes" (1969), and
      MacWilliams & Sloane, The Theory of Error-Correcting Codes (1977), ch. 15 §4 (duals of the double-
      error-correcting BCH codes, the tables there for m odd and m even): the dual of the t-error-correcting
      primitive binary BCH code of length n = 2^r - 1 (t = 2, 3) has nonzero weights in
      2^(r-1) + {0, +-2^((r+w)/2 - 1)} with w = r mod 2, r mod 2 + 2, ..., r mod 2 + 2(t-1);
      here weight = (2^r - S)/2, so S = 2^r - 2 wt is 0 or +-2^((r+w)/2);
    * the BCH bound: the BCH code has minimum distance >= 2t + 1 (MacWilliams & Sloane ch. 7 §6), so its dual
      is an orthogonal array of strength 2t and the first 2t power moments of n - 2 wt = S - 1 equal those of
      n independent signs (the Pless power moments used in ch. 15 to derive those tables).

    The moment equations k = 0..2t determine the counts uniquely (a Vandermonde system), solved exactly.
    """
    n = 2 ** r - 1
    ws = [r % 2 + 2 * i for i in range(t)]
    values = [0] + [s * 2 ** ((r + w) // 2) for w in ws for s in (1, -1)]
    total = 2 ** (r * t)
    A = sympy.Matrix([[sympy.Integer(v - 1) ** k for v in values] for k in range(2 * t + 1)])
    # right side: total * moment, minus the zero tuple (S = 2^r), which is not among the unknowns
    b = sympy.Matrix([sympy.Rational(total) * sympy.Rational(*binomial_moment(n, k).as_integer_ratio())
                      - sympy.Integer(2 ** r - 1) ** k for k in range(2 * t + 1)])
    sol, params = A.gauss_jordan_solve(b)
    assert params.shape[0] == 0  # unique
    return {v: int(c) for v, c in zip(values, sol) if c != 0}
