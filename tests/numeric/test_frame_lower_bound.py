"""Tests of verify/numeric/frames/theorem42.py: exact row statistics of Kerdock / DG sub-frames against the
dense Gram matrix, and the comparison driver on a small case."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from verify import VerifyInputError
from verify.numeric import frames as C
from verify.numeric.frames import theorem42 as FL
from verify.numeric import lower_bound as LB


def _dense_rows(cons, r, delta, s, l, m=3) -> dict:
    fr = C.build_code_frame(cons, r, delta)
    mp = r - 1
    code = np.arange(fr.n_columns) >> r
    sel = ((code & (2 ** mp - 1)) < 2 ** s) & ((code >> mp) < 2 ** l)
    S = fr.signs[:, sel].astype(np.int64)
    G = S.T @ S  # exact integers d * M
    np.fill_diagonal(G, 0)
    d = 2 ** r
    out: dict = {}
    for row in G:
        # |G| <= d = 64 and <= 2^11 columns: sum of G^6 < 2^47, exact in int64
        key = tuple(Fraction(int((row ** e).sum()), d ** e) for e in range(2, 2 * m + 1, 2))
        out[key] = out.get(key, 0) + 1
    return out


@pytest.mark.parametrize("cons,r,delta,s,l", [("kerdock", 4, None, 3, 0), ("kerdock", 4, None, 1, 0),
                                              ("dg", 4, 1, 3, 2), ("kerdock", 6, None, 4, 0), ("dg", 6, 1, 5, 1)])
def test_block_stats_equal_dense_gram(cons, r, delta, s, l):
    st = FL.code_block_stats(cons, r, 3, s, l, delta)
    assert st.k == 2 ** (s + l + r)
    assert {tuple(T[e] for e in (2, 4, 6)): mult for mult, T in st.rows} == _dense_rows(cons, r, delta, s, l)


def test_whole_kerdock_frame_pattern():
    # d = 16: each column meets 7 other u's x 16 shifts, all with |M| = 1/4 (nondegenerate differences)
    st = FL.code_block_stats("kerdock", 4, 3, 3, 0)
    assert st.rows == [(128, {2: Fraction(7), 4: Fraction(7, 16), 6: Fraction(7, 256)})]


def test_compare_frames_small():
    res = FL.compare_frames(4, [Fraction(1), Fraction(1, 64), Fraction(1, 4096)])
    assert res["sizes"] == {"kerdock": 128, "dg1": 1024, "paper": 4096}
    for row in res["points"]:
        # the paper's own point is one of the candidates of its best-k search
        assert row["paper_best"]["ratio"] >= row["paper_ratio"] * (1 - 1e-12)  # float ratios of exact sups
        assert row["paper_ratio"] == pytest.approx(LB.lower_bound_point(4, 3, Fraction(row["p"]))["ratio"], rel=1e-12)


def test_bad_input():
    with pytest.raises(VerifyInputError, match="Argument 's'"):
        FL.code_block_stats("dg", 6, 3, 2, 1, 1)
    with pytest.raises(VerifyInputError, match="Argument 'm'"):
        FL.code_block_stats("kerdock", 6, 2, 2, 0)
    with pytest.raises(VerifyInputError, match="Argument 'l'"):
        FL.code_block_stats("kerdock", 6, 3, 5, 1)


def test_form_budget_counts_the_l_code_coordinates_at_the_real_budget(monkeypatch):
    """The forms ranked are 2^(2s + l): with l > 0 (DG's code coordinates) the budget counts them. At the real
    budget (2^21): DG(8, 3) with s = 7 and l = 8 asks 2^22 forms and is refused whole before any work (a budget that
    ignored l, or subtracted it, would start 2^6 .. 2^14 forms instead). Both sides of the boundary, at a budget
    lowered to 2^7 so that the accepted side is cheap: l = 1 (2^7 forms, accepted, equal to the dense Gram's rows)
    and l = 2 (2^8, refused)."""
    assert FL.MAX_FORMS == 2 ** 21
    with pytest.raises(VerifyInputError) as err:
        FL.code_block_stats("dg", 8, 3, 7, 8, 3)
    assert str(err.value) == f"Argument 'l' makes 2^22 forms, more than {2 ** 21}."
    monkeypatch.setattr(FL, "MAX_FORMS", 2 ** 7)
    st = FL.code_block_stats("dg", 4, 3, 3, 1, 1)          # 2^(6 + 1) = 2^7 forms: on the budget
    assert {tuple(T[e] for e in (2, 4, 6)): mult for mult, T in st.rows} == _dense_rows("dg", 4, 1, 3, 1)
    with pytest.raises(VerifyInputError) as err:
        FL.code_block_stats("dg", 4, 3, 3, 2, 1)
    assert str(err.value) == "Argument 'l' makes 2^8 forms, more than 128."
