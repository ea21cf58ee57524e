r"""Theorem 4.2 rerun over frames (:func:`verify.numeric.frames.theorem42.compare_frames`) against a reassembly
written here.

Reference: every candidate block enumerated (the paper's frame at every power of two :math:`2^r..2^{rm}` and the
paper's k; every Kerdock / DG sub-frame size), each block's exact :math:`\sup_t\tilde L = a^2/b` from eqs. (19)-(20)
(:func:`verify.numeric.lower_bound.numerator_denominator`, itself checked against the Gram block), the maximum
taken here, and the ratio to :math:`\min(pd^m, dp^{1/m})` in mpmath at 50 digits.
"""

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import VerifyInputError
from verify.numeric import lower_bound as LB
from verify.numeric.frames import theorem42 as T42

REF = settings.get_profile("reference")
REF_FEW = settings(REF, max_examples=min(REF.max_examples, 6))


def ratio50(sup: Fraction, p: Fraction, d: int, m: int) -> float:
    with mpmath.workdps(50):
        pm = mpmath.mpf(p.numerator) / p.denominator
        return float(mpmath.mpf(sup.numerator) / sup.denominator / min(pm * d ** m, d * pm ** (mpmath.mpf(1) / m)))


def best(blocks, p, mu, d, m) -> dict:
    sups = [(Fraction(a) ** 2 / Fraction(b), st.k) for st in blocks for a, b in [LB.numerator_denominator(st, p, mu)]]
    top = max(s for s, _ in sups)
    k = next(k for s, k in sups if s == top)     # the first block reaching the maximum, in the given order
    return {"sup": top, "k": k, "ratio": ratio50(top, p, d, m)}


@REF_FEW
@given(st.sampled_from([2, 4]), st.sampled_from([1, 3]), st.sampled_from(["gaussian", "rademacher", "uniform"]),
       st.lists(st.fractions(Fraction(1, 64), 1, max_denominator=64), min_size=1, max_size=2),
       st.sampled_from(["default", "kerdock"]))
def test_compare_frames_against_every_block(r, m, mu, ps, cons):
    d = 2 ** r
    constructions = None if cons == "default" else [("kerdock", None)]
    got = T42.compare_frames(r, ps, m=m, mu=mu, constructions=constructions)
    want_cons = [("kerdock", None)] + [("dg", dl) for dl in range(1, (r - 2) // 2 + 1)] if constructions is None \
        else constructions
    names = [c if dl is None else f"dg{dl}" for c, dl in want_cons]
    code_blocks = {name: [T42.code_block_stats(c, r, m, s, l, dl) for s, l, _ in T42.code_subframe_sizes(c, r, dl)]
                   for name, (c, dl) in zip(names, want_cons)}
    assert got["d"] == d and got["m"] == m and got["mu"] == mu and len(got["points"]) == len(ps)
    assert got["sizes"] == {**{n: max(b.k for b in bl) for n, bl in code_blocks.items()}, "paper": d ** m}
    for p, row in zip(ps, got["points"]):
        kp = LB.paper_k(d, m, p)
        assert row["p"] == str(p) and row["paper_k"] == kp
        paper = LB.lower_bound_point(r, m, p, mu)
        assert row["paper_sup"] == paper["sup"] and row["paper_ratio"] == pytest.approx(ratio50(paper["sup"], p, d, m),
                                                                                        rel=1e-12)
        ks = sorted({2 ** j for j in range(r, r * m + 1)})
        ref = best([LB.frame_block_stats(r, m, k) for k in ks] + [LB.frame_block_stats(r, m, kp)], p, mu, d, m)
        assert row["paper_best"]["sup"] == ref["sup"] and row["paper_best"]["k"] == ref["k"]
        assert row["paper_best"]["ratio"] == pytest.approx(ref["ratio"], rel=1e-12)
        assert row["paper_best"]["sup"] >= row["paper_sup"]          # the paper's k is one of the candidates
        for name, bl in code_blocks.items():
            ref = best(bl, p, mu, d, m)
            assert row[name]["sup"] == ref["sup"] and row[name]["k"] == ref["k"], name
            assert row[name]["ratio"] == pytest.approx(ref["ratio"], rel=1e-12)
        assert set(row) == {"p", "paper_k", "paper_ratio", "paper_sup", "paper_best", *names}
    with pytest.raises(VerifyInputError, match="'m'"):
        T42.compare_frames(r, ps, m=2)
    with pytest.raises(VerifyInputError, match="'r'"):
        T42.compare_frames(1, ps, m=m)
