r"""The collapsed route's flop count (:func:`verify.numeric.power_sums.collapsed_flops`) against the kernels' own
layout tables.

Reference: the numbers of coefficients, built monomials and block rows read off the layout the kernels run
(``_tensor_tables``: its ``pos`` entries that are not padding, the lengths of its build blocks, its rows), not the
binomial closed forms the count uses; the coefficients also as :math:`\sum_k\binom{d+2k-1}{2k}`. Sizes cross the
tiled kernel's threshold (d = 11 against 12 at m = 4).
"""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import VerifyInputError
from verify.numeric import power_sums as PS

REF = settings.get_profile("reference")


def layout(d: int, m: int) -> tuple:
    """(coefficients, built monomials, block rows) of the kernels' layout for (d, m)."""
    blocks, rows, pos, _, _ = PS._tensor_tables(d, m)
    sigma = int((pos >= 0).sum())
    assert sigma == sum(math.comb(d + 2 * k - 1, 2 * k) for k in range(1, m + 1))
    return sigma, int(blocks[:, 2].sum()), len(rows)


@settings(REF, max_examples=min(REF.max_examples, 15))
@given(st.one_of(st.tuples(st.integers(1, 8), st.integers(1, 4)), st.sampled_from([(11, 4), (12, 4)])),
       st.booleans())
def test_collapsed_flops_against_the_kernels_layout(dm, grad):
    d, m = dm
    sigma, build, rows = layout(d, m)
    acc = build + (rows if sigma > PS._TILED_MAX else 0) + 2 * sigma        # the tiled kernel needs no row product
    contract = weighted = 0
    if m > 1:
        s1, b1, r1 = layout(d, m - 1)
        contract, weighted = b1 + 2 * r1 + 2 * s1, b1 + r1 + 2 * s1
    want = acc + contract + 2 * d
    if grad:
        want += weighted + (build + 6 * sigma + rows + 4 * build) + 2 * d * m
    assert PS.collapsed_flops(d, m, grad) == want
    # the collapsed route contracts one degree fewer than the direct route: strictly cheaper for m > 1
    ours = PS.tensor_flops(d, m, grad)["ours"]
    assert (PS.collapsed_flops(d, m, grad) < ours) if m > 1 else PS.collapsed_flops(d, m, grad) <= ours
    for bad in ((0, m), (d, 0)):
        with pytest.raises(VerifyInputError):
            PS.collapsed_flops(*bad)


def test_collapsed_flops_on_both_sides_of_the_tiled_threshold():
    """d = 11, m = 4 lies below the tiled kernel's cap and d = 12 above: the row products enter the count only there."""
    (s11, b11, r11), (s12, b12, r12) = layout(11, 4), layout(12, 4)
    assert s11 <= PS._TILED_MAX < s12
    for d, (s, b, r) in ((11, (s11, b11, r11)), (12, (s12, b12, r12))):
        s1, b1, r1 = layout(d, 3)
        extra = r if d == 12 else 0
        assert PS.collapsed_flops(d, 4) == b + extra + 2 * s + b1 + 2 * r1 + 2 * s1 + 2 * d
