"""Paper S, the lower bound (Thm 4.2, eqs. 19-22): the outputs a user reads.

What ``lower_bound_point`` reports for Thm 4.2's point - the exact rationals a and b, the supremum and where it is
attained - is checked against the quadratic it claims to maximise, recomputed here from the reported numbers; and
its refusals of input outside exact rational arithmetic (an irrational p) or outside the frame (a sub-frame size k
outside [1, d^m]) are asserted by their messages, which name the parameter and the range.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from verify._validate import VerifyInputError

from proofs_checks._refusals import raises_exactly as _raises


@pytest.mark.claim("S-thm4.2")
def test_lower_bound_point_reports_the_quadratic_it_maximises(verdict):
    r"""Thm 4.2's point along :math:`A = tM^{(k)}`: :math:`\tilde L = 2s\,a - s^2 b` with :math:`s = t^m`, so the
    reported a, b (exact rationals, b > 0) give the reported sup :math:`a^2/b`, attained at the reported
    :math:`s^* = a/b`: the quadratic, evaluated in Fractions from the reported a and b, equals sup there and is below
    it at :math:`s^* \pm 1/7`. At d = 4, m = 3, p = 1/16 and d = 8, m = 3, p = 1/50 (the paper's k)."""
    from verify.numeric import lower_bound as LB

    rows = []
    for r, m, p in ((2, 3, Fraction(1, 16)), (3, 3, Fraction(1, 50))):
        pt = LB.lower_bound_point(r, m, p)
        a, b, s = Fraction(pt["a"]), Fraction(pt["b"]), Fraction(pt["t_star_pow_m"])
        f = lambda x: 2 * x * a - x * x * b                              # noqa: E731
        assert b > 0 and s == a / b and Fraction(pt["sup"]) == f(s) == a * a / b
        assert f(s - Fraction(1, 7)) < f(s) and f(s + Fraction(1, 7)) < f(s)
        rows.append({"d": pt["d"], "k": pt["k"], "a": str(a), "b": str(b)})
    verdict.verified(method="lower_bound_point: sup = a^2/b = max of 2 s a - s^2 b, from the reported a, b",
                     evidence={"cases": rows})


@pytest.mark.claim("S-thm4.2")
def test_lower_bound_point_refuses_an_irrational_p_and_a_k_out_of_range(verdict):
    r"""Thm 4.2's point is exact rational arithmetic: ``as_fraction`` refuses an irrational (sympy) value naming it;
    ``lower_bound_point`` refuses such a p, and a sub-frame size k outside [1, d^m], naming k and the range; a k
    inside the range (the paper's own k) gives the default point."""
    from verify.numeric import lower_bound as LB

    _raises(lambda: LB.as_fraction(sympy.sqrt(2)), "Argument 'value' must be rational, not sqrt(2).")
    with pytest.raises(VerifyInputError, match=r"must be rational, not sqrt\(2\)/8\.$"):
        LB.lower_bound_point(4, 3, sympy.sqrt(2) / 8)
    for bad in (0, 16 ** 3 + 1):
        _raises(lambda: LB.lower_bound_point(4, 3, Fraction(1, 16), k=bad),
                f"Argument 'k' must be an integer >= 1 and <= 4096, not {bad}.")
    p = Fraction(1, 16)
    kp = LB.paper_k(16, 3, p)
    assert LB.lower_bound_point(4, 3, p, k=kp)["sup"] == LB.lower_bound_point(4, 3, p)["sup"]
    verdict.verified(method="lower_bound_point / as_fraction refusals name the parameter and the range",
                     evidence={"d": 16, "m": 3, "p": "1/16", "paper_k": kp})
