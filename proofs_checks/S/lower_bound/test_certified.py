r"""Paper S, the lower bound (Thm 4.2, eqs. 19-22): certified margins.

The numbers that decide each claim are recomputed in exact rationals (floats at their binary values; moments of mu
from the distribution table, exact where rational) or in Arb balls, so that a verdict does not rest on
floating-point rounding. Here that is eq. (21), :math:`a \ge p\mu_{m+1}k`, on the blocks of the Lemma A.4 frame
with moments that are rational: a verified claim records a certified margin, a refuted one a certified interval for
its ratio.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from verify import certified as C
from verify.numeric import lower_bound as L
from verify.numeric.distributions import get_distribution
from verify.statements import constants


EXACT = "exact rationals (fractions / flint fmpq; float inputs at their binary values)"


@pytest.mark.claim("S-eq21")
def test_eq21_numerator_margin_certified(verdict):
    """eq. (21): a >= p mu_{m+1} k exactly on the Lemma A.4 frame blocks M^(k) (d = 8, 16; m = 3), mu with rational
    moments; the margin is 0 for k = d (orthonormal Walsh columns, (21) an equality) and positive beyond."""
    margins, n_pos = [], 0
    for r in (2, 3):
        d = 2 ** r
        for k in (d, 3 * d // 2 + 1, d * d):
            st = L.frame_block_stats(r, 3, k)
            for mu in ("gaussian", "rademacher", "uniform", "laplace"):
                mu4 = get_distribution(mu).moment(4)
                for p in (Fraction(1, 8), Fraction(1, 512), Fraction(1, 10 ** 3)):
                    a, _ = L.numerator_denominator(st, p, mu)
                    # eq. (21)'s bound, its constant and exponents from the statement object
                    c = constants("S-eq21", m=3)
                    bound = C.to_fmpq(c["C"] * sympy.Rational(p) ** c["e_p"] * mu4 ** c["e_mu"] * k ** c["e_k"])
                    mg = C.to_fmpq(a) - bound
                    margins.append(mg / bound)
                    n_pos += mg > 0
    verdict.certified("margin", C.margin_evidence(
        margins, "eq. (21): a >= p mu_4 k (relative margin)", EXACT, "a at each (d, k, p, mu), exactly",
        strict=False, strictly_positive_at=n_pos))
