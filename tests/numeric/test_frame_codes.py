"""Tests of the Kerdock and Delsarte-Goethals layers of verify/numeric/frames/ (constructions, cert_codes,
catalogue): the frames against their dense Gram matrices, rank certificate against WHT certificate, the table,
bad input."""

from __future__ import annotations

import numpy as np
import pytest

from verify import VerifyInputError
from verify.numeric import frames as C
from verify.numeric import frames as F


def _gram_hist(signs: np.ndarray) -> dict:
    S = signs.astype(np.int64)
    G = np.abs(S.T @ S)
    np.fill_diagonal(G, -1)  # drop the diagonal
    vals, cnt = np.unique(G[G >= 0], return_counts=True)
    return dict(zip(vals.tolist(), cnt.tolist()))


@pytest.mark.parametrize("cons,r,delta", [("kerdock", 2, None), ("kerdock", 4, None), ("kerdock", 6, None),
                                          ("dg", 4, 1)])
def test_certificate_equals_dense_gram(cons, r, delta):
    fr = C.build_code_frame(cons, r, delta)
    cert = C.code_certificate(cons, r, delta)
    assert fr.n_columns == cert.n_columns == 2 ** ((cert.delta + 1) * (r - 1) + r)
    # each (u, u', c xor c', b xor b') of the certificate's histogram is hit by 2^(delta m') 2^r column pairs
    k = 2 ** (cert.delta * (r - 1)) * 2 ** r
    assert _gram_hist(fr.signs) == {v: c * k for v, c in cert.histogram.items()}
    assert F.gram_coherence(fr.signs, exact_int=True) == cert.max_abs_sum


@pytest.mark.parametrize("cons,r,delta", [("kerdock", r, None) for r in (2, 4, 6, 8, 10)]
                         + [("dg", 4, 1), ("dg", 6, 1), ("dg", 6, 2), ("dg", 8, 1)])
def test_rank_certificate_equals_wht_and_design(cons, r, delta):
    a = C.code_certificate(cons, r, delta, method="rank")
    b = C.code_certificate(cons, r, delta, method="wht")
    assert a.histogram == b.histogram
    # design coherence 2^delta / sqrt(d) is attained exactly: |S| = 2^(r/2 + delta)
    assert a.max_abs_sum == 2 ** (r // 2 + a.delta)
    assert max(a.radical_dims) == r  # only the zero form (the diagonal pairs) has radical V
    assert max(w for w in a.radical_dims if w < r) <= 2 * a.delta


def test_kerdock_with_identity_meets_levenstein():
    for r in (4, 6, 8):
        c = C.code_certificate("kerdock", r, include_identity=True)
        assert c.n_columns == 2 ** (2 * r - 1) + 2 ** r and c.coherence_exact == f"1/{2 ** (r // 2)}"
        if c.levenstein_bound is not None:
            assert c.ratio_to_levenstein == pytest.approx(1, abs=1e-12)  # float sqrt of an exact square


def test_wrong_kerdock_form_is_caught(monkeypatch):
    # the check can fail: dropping the eps tr(ux) coupling leaves radicals of dimension >= 2
    from verify.numeric.frames import cert_codes

    orig = cert_codes._tables

    def broken(mp, delta, pts, poly):
        K, T = orig(mp, delta, pts, poly)
        K2, _ = orig(mp, delta, pts & (2 ** mp - 1), poly)  # eps = 0 everywhere: K_u(x, 0)
        return K2, T
    monkeypatch.setattr(cert_codes, "_tables", broken)  # where code_certificate looks it up
    assert C.code_certificate("kerdock", 6).max_abs_sum > 8


def test_sign_bits_match_formula_with_galois():
    r, mp = 6, 5
    GF = F.field_of(mp)
    cols = np.array([0, 1, 77, 64 * 9 + 5, 64 * 31 + 63])
    bits = C.code_sign_bits("kerdock", r, cols)
    for n, row in zip(cols, bits):
        u, b = GF(int(n >> r)), int(n & 63)
        for v in range(64):
            x, eps = GF(v & 31), v >> 5
            val = sum(int(((u * x) ** (2 ** k + 1)).field_trace()) for k in (1, 2)) + eps * int((u * x).field_trace())
            assert row[v] == (val + bin(b & v).count("1")) % 2


def test_table_rows():
    rows = C.frame_table(64, lp=False)  # the rows themselves; lower bounds: test_frames_catalogue.py
    names = [(row.construction, row.parameter) for row in rows]
    assert names == [("bch", "m=1"), ("bch", "m=2"), ("bch", "m=3"), ("kerdock", "delta=0"), ("dg", "delta=1"),
                     ("dg", "delta=2")]
    by = {(row.construction, row.parameter): row for row in rows}
    assert by["kerdock", "delta=0"].coherence_exact == "1/8" and by["bch", "m=2"].coherence_exact == "1/4"
    assert by["dg", "delta=1"].coherence_exact == by["bch", "m=2"].coherence_exact
    assert by["dg", "delta=1"].n_columns == 64 ** 3 // 4 > by["bch", "m=2"].n_columns
    assert [row.construction for row in C.frame_table(32, lp=False)] == ["bch"] * 3  # odd r: no Kerdock
    assert C.frame_table(64, max_forms=10, lp=False)[-1].coherence is None


@pytest.mark.parametrize("call,match", [
    (lambda: C.code_parameters("kerdock", 5), "Argument 'r'"),
    (lambda: C.code_parameters("dg", 2), "Argument 'r'"),
    (lambda: C.code_parameters("dg", 8, 4), "Argument 'delta'"),
    (lambda: C.code_parameters("kerdock", 8, 1), "Argument 'delta'"),
    (lambda: C.code_parameters("gold", 8), "Argument 'construction'"),
    (lambda: C.code_certificate("kerdock", 8, method="x"), "Argument 'method'"),
    (lambda: C.build_code_frame("dg", 12, 2), "Argument 'r'"),
    (lambda: C.frame_table(48), "Argument 'd'"),
])
def test_bad_input(call, match):
    with pytest.raises(VerifyInputError, match=match):
        call()


@pytest.mark.parametrize("module", ["verify.numeric.frames", "verify.numeric.frames.field",
                                    "verify.numeric.frames.bounds", "verify.numeric.frames.delsarte_lp",
                                    "verify.numeric.frames.constructions", "verify.numeric.frames.cert_wht",
                                    "verify.numeric.frames.cert_rank", "verify.numeric.frames.cert_codes",
                                    "verify.numeric.frames.operator", "verify.numeric.frames.catalogue",
                                    "verify.numeric.frames.theorem42"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
