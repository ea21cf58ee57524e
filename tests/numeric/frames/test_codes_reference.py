r"""Kerdock / Delsarte-Goethals frames, their certificates, the catalogue and Thm 4.2 with code sub-frames
(:mod:`verify.numeric.frames`: ``constructions``, ``cert_codes``, ``operator``, ``catalogue``, ``theorem42``) against
references written here.

References: the frame entry by entry, :math:`(-1)^{K_u(v) + T_{\mathbf c}(x) + \langle b, v\rangle}` with
:math:`K_u = \sum_{k=1}^t \operatorname{tr}((ux)^{2^k+1}) + \varepsilon\operatorname{tr}(ux)`, from shift-and-add
GF(2^{m'}) arithmetic and the trace as the sum of Frobenius powers; coherences, histograms and row power sums
from the full integer Gram matrix; radical dimensions by enumerating the radical; Frobenius orbits by enumeration
(not Burnside's count); the catalogue's rows and best frame from brute-force Gram coherences of every candidate.
"""

import math
from fractions import Fraction
from functools import lru_cache

import galois
import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import VerifyInputError
from verify.numeric import lower_bound as LB
from verify.numeric.frames import bounds as B
from verify.numeric.frames import catalogue as CAT
from verify.numeric.frames import cert_codes as CC
from verify.numeric.frames import cert_wht as CW
from verify.numeric.frames import constructions as C
from verify.numeric.frames import operator as OP
from verify.numeric.frames import theorem42 as T42
from verify.numeric.frames.cert_rank import quadratic_certificate
from gf_reference import code_signs as gf_code_signs
from gf_reference import gf_mul, gf_pow, gf_trace

REF = settings.get_profile("reference")

#: (construction, r, delta) small enough for a full Gram matrix (at most 2^11 columns of 2^6 rows)
CODES = [("kerdock", 2, None), ("kerdock", 4, None), ("kerdock", 6, None), ("dg", 4, 1)]


def code_signs(r: int, delta: int, columns: np.ndarray) -> np.ndarray:
    """(2^r, len(columns)) signs of the Kerdock (delta = 0) / DG(r, delta) frame, entry by entry."""
    cols = np.asarray(columns, dtype=np.int64)
    return _code_signs(r, delta, cols.size)[:, cols] if cols.size and np.array_equal(cols, np.arange(cols.size)) \
        else _code_signs_of(r, delta, cols)


@lru_cache(maxsize=None)
def _code_signs(r: int, delta: int, n: int) -> np.ndarray:
    """The first n columns, computed once per size (the examples redraw the same few frames)."""
    return _code_signs_of(r, delta, np.arange(n, dtype=np.int64))


def _code_signs_of(r: int, delta: int, columns: np.ndarray) -> np.ndarray:
    return gf_code_signs(r, delta, columns, int(galois.GF(2 ** (r - 1)).irreducible_poly))  # galois's default modulus


def n_code_columns(r: int, delta: int) -> int:
    return 2 ** ((delta + 1) * (r - 1) + r)


def radical_dim(q: np.ndarray, r: int) -> int:
    x = np.arange(2 ** r)
    B_ = q[x[:, None] ^ x[None, :]] ^ q[:, None] ^ q[None, :]
    size = int((~B_.any(axis=0)).sum())
    return size.bit_length() - 1


@REF
@given(st.sampled_from(CODES), st.sampled_from(["rank", "wht"]), st.booleans(), st.booleans(),
       st.integers(0, 2 ** 32 - 1))
def test_code_frames_and_certificates_against_the_entrywise_reference(spec, method, identity, symmetry, seed):
    cons, r, delta = spec
    dl = delta or 0
    d, n = 2 ** r, n_code_columns(r, dl)
    S = code_signs(r, dl, np.arange(n))
    assert C.code_parameters(cons, r, delta) == (r - 1, dl, n)
    F = C.build_code_frame(cons, r, delta)
    assert (F.r, F.m, F.n_rows, F.n_columns, F.construction, F.delta) == (r, dl + 1, d, n, cons, dl)
    assert np.array_equal(F.signs.astype(np.int64), S)
    rng = np.random.default_rng(seed)
    cols = rng.integers(0, n, size=7)
    assert np.array_equal(C.code_sign_bits(cons, r, cols, delta).astype(np.int64).T, (1 - S[:, cols]) // 2)
    with pytest.raises(VerifyInputError):
        C.code_sign_bits(cons, r, np.array([n]), delta)
    # the certificate: Gram of the frame (with the standard basis, scaled to integer units S = d <v_i, v_j>)
    cert = CC.code_certificate(cons, r, delta, method=method, include_identity=identity, symmetry=symmetry)
    G = S.T @ S
    # histogram over ordered classes (u, u', c xor c', b xor b') != diagonal: the rows of the columns (u, 0, 0)
    rows = np.arange(2 ** (r - 1)) << r
    H = np.abs(G[rows])
    hist = np.bincount(H.reshape(-1), minlength=d + 1)
    hist[d] -= rows.size
    top_frame = int(max((k for k in np.nonzero(hist)[0] if k), default=0))
    Gf = G.copy()
    np.fill_diagonal(Gf, 0)
    assert int(np.abs(Gf).max()) == top_frame  # every pair's sum is one of the classes'
    top = max(top_frame, 2 ** (r // 2)) if identity else top_frame  # <col, e_v> d = +-sqrt(d)
    N = n + d if identity else n
    assert (cert.construction, cert.r, cert.d, cert.delta, cert.n_columns, cert.include_identity, cert.method) == \
        (cons, r, d, dl, N, identity, method)
    assert cert.max_abs_sum == top and cert.coherence_exact == str(Fraction(top, d))
    assert cert.histogram == {int(k): int(hist[k]) for k in np.nonzero(hist)[0]}
    assert cert.design_coherence == f"2^{dl}/sqrt({d})"
    w2 = Fraction(N - d, d * (N - 1))
    assert math.isclose(cert.welch_bound, math.sqrt(w2), rel_tol=1e-15)
    assert cert.ratio_to_welch == pytest.approx(float(Fraction(top, d)) / math.sqrt(w2), rel=1e-14)
    lev2 = Fraction(3 * N - d * d - 2 * d, (d + 2) * (N - d)) if 2 * N > d * (d + 1) else None
    assert (cert.levenstein_bound is None) == (lev2 is None)
    if method == "rank":  # radical dimensions of every difference form K_u + K_u' + T_c, u over the whole field
        mp = r - 1
        # Q = K_u + K_u' + T_c: the product of the sign columns (u, 0, 0) and (u', c, 0)
        A = code_signs(r, dl, np.arange(2 ** mp) << r)
        Bm = code_signs(r, dl, np.arange(2 ** (mp * (dl + 1))) << r)
        counts: dict = {}
        for u in range(2 ** mp):
            for q in ((1 - A[:, u][None, :] * Bm.T) // 2):
                w = radical_dim(q, r)
                counts[w] = counts.get(w, 0) + 1
        assert cert.radical_dims == dict(sorted(counts.items()))
    else:
        assert cert.radical_dims == {}
    if symmetry:
        assert cert.forms_scanned == CAT.code_scan_size(r, dl)


def frobenius_orbits(mp: int, k: int) -> int:
    """Orbits of x -> x^2 (digit-wise) on GF(2^mp)^k, by enumeration."""
    poly = int(galois.GF(2 ** mp).irreducible_poly)
    sq = gf_mul(np.arange(2 ** mp), np.arange(2 ** mp), poly, mp)
    mask = 2 ** mp - 1
    seen = np.zeros(2 ** (mp * k), dtype=bool)
    count = 0
    for c in range(2 ** (mp * k)):
        if seen[c]:
            continue
        count += 1
        cur = c
        while not seen[cur]:
            seen[cur] = True
            cur = sum(int(sq[(cur >> (mp * j)) & mask]) << (mp * j) for j in range(k))
    return count


@REF
@given(st.sampled_from([(2, 0), (4, 0), (4, 1), (6, 0), (6, 1), (8, 0), (10, 0)]))
def test_code_scan_size_is_the_enumerated_orbit_count(spec):
    r, delta = spec
    mp = r - 1
    assert CAT.code_scan_size(r, delta) == 2 * frobenius_orbits(mp, delta) + frobenius_orbits(mp, delta + 1)


@REF
@given(st.sampled_from(CODES), st.integers(1, 3), st.sampled_from([np.float64, np.float32]), st.data())
def test_implicit_code_frame_against_the_dense_reference(spec, k, dtype, data):
    cons, r, delta = spec
    dl = delta or 0
    d, total = 2 ** r, n_code_columns(r, dl)
    n = data.draw(st.one_of(st.sampled_from([total, total - 1, d, d + 1, 1]), st.integers(1, total)))
    chunk = data.draw(st.integers(1, 3 * n + 2))
    V = code_signs(r, dl, np.arange(n)) / math.sqrt(d)
    op = OP.ImplicitCodeFrame(cons, r, delta, n_columns=n, dtype=dtype, chunk_elements=chunk)
    assert op.shape == (d, n)
    assert op.parameters() == {"construction": cons, "delta": dl, "r": r, "m": dl + 1, "d": d, "n_columns": n,
                               "irreducible_poly": int(galois.GF(2 ** (r - 1)).irreducible_poly)}
    rng = np.random.default_rng(n * 7 + k)
    z, y = rng.standard_normal((n, k)) * 1e3, rng.standard_normal((d, k)) * 1e-3
    tol = 1e-12 if dtype == np.float64 else 2e-5
    np.testing.assert_allclose(op.matvec(z.astype(dtype)), V @ z, rtol=0, atol=tol * 1e3 * math.sqrt(n) * 4)
    np.testing.assert_allclose(op.rmatvec(y[:, 0].astype(dtype)), V.T @ y[:, 0], rtol=0,
                               atol=tol * 1e-3 * math.sqrt(d) * 4)
    idx = rng.integers(0, n, size=4)
    np.testing.assert_allclose(op.columns(idx), V[:, idx], rtol=1e-7 if dtype == np.float32 else 1e-15)


def brute_coherence(S: np.ndarray) -> Fraction:
    """Coherence of a +-1 matrix with 2^r rows (units: exact Fraction of the Gram's off-diagonal maximum)."""
    G = S.T @ S
    np.fill_diagonal(G, 0)
    return Fraction(int(np.abs(G).max()) if G.size else 0, S.shape[0])


def bch_signs(r: int, m: int, n: int) -> np.ndarray:
    poly = int(galois.GF(2 ** r).irreducible_poly)
    d = 2 ** r
    x, cols = np.arange(d), np.arange(n, dtype=np.int64)
    acc = np.zeros((d, n), dtype=np.int64)
    for j in range(m):
        acc ^= gf_mul(gf_pow(x, 2 * j + 1, poly, r)[:, None], ((cols >> (r * j)) & (d - 1))[None, :], poly, r)
    return (1 - 2 * gf_trace(acc, poly, r)).astype(np.int64)


@REF
@given(st.sampled_from([2, 4, 8, 16]), st.sampled_from([1, 10 ** 9]))
def test_frame_table_rows_against_brute_force_coherences(d, max_forms):
    r = d.bit_length() - 1
    rows = CAT.frame_table(d, max_forms=max_forms, lp=False)
    want = [("bch", f"m={m}", d ** m, brute_coherence(bch_signs(r, m, d ** m)) if d ** m <= 4096 else None, "")
            for m in (1, 2, 3)]
    if r % 2 == 0:
        for delta in range(0, (r - 2) // 2 + 1):
            n = n_code_columns(r, delta)
            cert_ok = CAT.code_scan_size(r, delta) <= max_forms
            coh = None
            if cert_ok:
                S = code_signs(r, delta, np.arange(n))
                if delta == 0:  # with the standard basis (sqrt(d) in integer units)
                    S = np.hstack([S, np.eye(d, dtype=np.int64) * math.isqrt(d)])
                coh = brute_coherence(S)
            want.append(("kerdock" if delta == 0 else "dg", f"delta={delta}", n + (d if delta == 0 else 0), coh,
                         f"2^{delta}/sqrt({d})"))
    assert [(row.construction, row.parameter, row.n_columns) for row in rows] == [w[:3] for w in want]
    for row, (cons, param, n, coh, design) in zip(rows, want):
        lb = B.best_lower_bound(d, n, lp=False)
        w2 = Fraction(n - d, d * (n - 1))
        assert math.isclose(row.welch_bound, math.sqrt(w2), rel_tol=1e-15)
        assert (row.lower_bound, row.lower_bound_sq, row.lower_bound_name) == (lb.value, lb.value_sq, lb.best)
        if cons == "bch" and coh is None:
            continue  # 2^{3r} columns at d = 16: the Gram is too large here (the rank certificate is tested above)
        # the note a reader sees beside each row, whole: the source of the construction, then why it is uncertified
        source = {"bch": "Lemma A.4 (paper)", "kerdock": "with the standard basis", "dg": ""}[cons]
        if coh is None:
            assert row.coherence is None and row.max_abs_sum is None and row.coherence_exact is None
            assert row.note == (f"{source}; " if source else "") + f"not certified (design coherence {design})"
            assert row.ratio_to_lower_bound is None
            continue
        assert row.note == source
        assert row.coherence_exact == str(coh) and row.coherence == float(coh)
        assert row.max_abs_sum == coh * d
        assert row.ratio_to_welch == (pytest.approx(float(coh) / math.sqrt(w2), rel=1e-14) if w2 else None)
        assert row.ratio_to_lower_bound == (pytest.approx(float(coh) / lb.value, rel=1e-14) if lb.value else None)
        assert Fraction(lb.value_sq) <= coh * coh  # the theorems: no frame beats the lower bound
        assert row.as_dict()["coherence_exact"] == row.coherence_exact


@REF
@given(st.sampled_from([2, 4, 8, 16]), st.data())
def test_best_frame_is_the_least_brute_force_coherence(d, data):
    r = d.bit_length() - 1
    marks = [2, d - 1, d, d + 1, d * d // 2, d * d // 2 + 1, d * d, d * d + 1, d ** 3]
    n = data.draw(st.one_of(st.sampled_from([v for v in marks if 2 <= v <= min(d ** 3, 2 ** 11)]),
                            st.integers(2, min(d ** 3, 2 ** 11))))
    got = CAT.best_frame(d, n, lp=False)
    # every candidate: the identity (n <= d), the first n columns of the bch frame with the smallest m
    # (exact), and the smallest Kerdock / DG frame with at least n columns (its full frame's coherence)
    cands = []
    if n <= d:
        cands.append(("identity", Fraction(0), True))
    m = 1
    while d ** m < n:
        m += 1
    cands.append(("bch", brute_coherence(bch_signs(r, m, n)), True))
    if r % 2 == 0:
        for delta in range(0, (r - 2) // 2 + 1):
            size = n_code_columns(r, delta)
            if size >= n:
                cands.append(("kerdock" if delta == 0 else "dg", brute_coherence(code_signs(r, delta, np.arange(size))),
                              size == n))
                break
    best = min(cands, key=lambda c: (c[1], not c[2]))
    assert (got.d, got.n, got.construction, got.coherence_exact, got.exact) == (d, n, best[0], str(best[1]), best[2])
    assert got.coherence == float(best[1])
    # the reported coherence bounds the first n columns of the named frame from above (exactly when exact)
    if got.construction in ("kerdock", "dg"):
        first = brute_coherence(code_signs(r, int(got.parameter.split("=")[1]), np.arange(n)))
        assert first <= best[1] and (first == best[1] or not got.exact)
    lb = B.best_lower_bound(d, n, lp=False)
    assert (got.lower_bound, got.lower_bound_sq, got.lower_bound_name) == (lb.value, lb.value_sq, lb.best)
    assert Fraction(lb.value_sq) <= best[1] ** 2
    assert [c["construction"] for c in got.candidates] == [c[0] for c in cands]
    assert [c["coherence_exact"] for c in got.candidates] == [str(c[1]) for c in cands]


@REF
@given(st.integers(1, 4), st.integers(1, 3))
def test_coherence_one_reason_exactly_when_columns_repeat_a_line(r, m):
    d = 2 ** r
    if d ** m > 2 ** 10:
        m = 1
    S = bch_signs(r, m, d ** m)
    G = S.T @ S
    np.fill_diagonal(G, 0)
    repeated = int((np.abs(G[0]) == d).sum())  # differences from column 0: each nonzero code once
    cert = quadratic_certificate(r, m)
    reason = CAT.coherence_one_reason(cert)
    assert (reason is None) == (repeated == 0)
    if reason is not None:
        assert f"{repeated} nonzero column difference(s)" in reason
        thr = next(2 ** k for k in range(1, 99) if (2 * m - 2) ** 2 < 2 ** k)
        assert f"only from d = {thr} for m = {m}" in reason
    # certify_frame: a frame read back is certified like its construction
    c2 = CAT.certify_frame(C.build_frame(r, m))
    assert c2.max_abs_sum == int(np.abs(G).max()) and c2.histogram == cert.histogram


@REF
@given(st.integers(2, 15), st.integers(1, 2))
def test_coherence_one_reason_of_general_d_frames_names_the_papers_m(d, m):
    """A general-d frame (Lemma A.4's last paragraph) is built with 2m coefficients: its reason for coherence 1 must
    quote Lemma 4.1 for the paper's m, with the general bound (4m - 2)/sqrt(2^r) and its threshold, not the
    construction's 2m (the two differ only here)."""
    if d ** m > 2 ** 10:
        m = 1
    r = d.bit_length() - 1
    S = bch_signs(r, 2 * m, d ** m)
    cert = CW.certify_general(d, m)
    assert (cert.m, cert.m_paper, cert.general) == (2 * m, m, True)
    reason = CAT.coherence_one_reason(cert)
    assert (reason is None) == (brute_coherence(S) < 1)
    if reason is not None:
        thr = next(2 ** k for k in range(1, 99) if (4 * m - 2) ** 2 < 2 ** k)
        assert reason.endswith(f"; Lemma 4.1's Weil bound ({4 * m - 2}/sqrt(2^r)) gives coherence < 1 only from "
                               f"d = {thr} for m = {m}.")
    # a frame read back (certify_frame) gives the same reason
    assert CAT.coherence_one_reason(CAT.certify_frame(C.build_general_frame(d, m))) == reason


def sub_frame_row_sums(r: int, delta: int, m: int, s: int, l: int) -> list:
    """[(rows, {e: T_e})] of M = V^T V for the sub-frame u < 2^s, c < 2^l (all b): by the full Gram."""
    mp = r - 1
    d = 2 ** r
    cols = [((c << mp | u) << r) | b for u in range(2 ** s) for c in range(2 ** l) for b in range(d)]
    S = code_signs(r, delta, np.array(cols))
    G = np.abs(S.T @ S)
    np.fill_diagonal(G, 0)
    # a row's power sums depend only on how often each |S| value occurs in it: group the rows by that
    counts = np.stack([np.bincount(row, minlength=d + 1) for row in G])
    pats: dict = {}
    for key, cnt in zip(*np.unique(counts, axis=0, return_counts=True)):
        T = {e: sum((Fraction(int(c)) * Fraction(v, d) ** e for v, c in enumerate(key.tolist()) if c), Fraction(0))
             for e in range(2, 2 * m + 1, 2)}
        pats[tuple(sorted(T.items()))] = pats.get(tuple(sorted(T.items())), 0) + int(cnt)
    return sorted(((cnt, dict(key)) for key, cnt in pats.items()), key=row_key)


def row_key(row):
    return row[0], sorted(row[1].items())


@REF
@given(st.sampled_from([("kerdock", 4, None), ("dg", 4, 1), ("kerdock", 6, None)]), st.sampled_from([1, 3, 5]),
       st.data())
def test_code_block_stats_against_the_gram_of_the_sub_frame(spec, m, data):
    cons, r, delta = spec
    dl = delta or 0
    mp = r - 1
    sizes = T42.code_subframe_sizes(cons, r, delta)
    assert sizes == [(s, l, 2 ** (s + l + r)) for s, l in [(s, 0) for s in range(mp + 1)] +
                     [(mp, l) for l in range(1, dl * mp + 1)]]
    s, l, k = data.draw(st.sampled_from([z for z in sizes if z[2] <= 2 ** 10]))
    st_ = T42.code_block_stats(cons, r, m, s, l, delta)
    assert (st_.r, st_.m, st_.k) == (r, m, k)
    got = sorted(st_.rows, key=row_key)
    assert got == sub_frame_row_sums(r, dl, m, s, l)
    # best_point: the largest exact sup_t L~ = a^2/b over the blocks, and its ratio at 40 digits
    p = Fraction(data.draw(st.integers(1, 99)), 100)
    sups = []
    for blk in [st_, T42.code_block_stats(cons, r, m, 0, 0, delta)]:
        a, b = LB.numerator_denominator(blk, p, "gaussian")
        sups.append((a * a / b, blk.k))
    best = max(sups, key=lambda t: t[0])
    res = T42.best_point([st_, T42.code_block_stats(cons, r, m, 0, 0, delta)], p, "gaussian", 2 ** r, m)
    assert res["sup"] == best[0]
    with mpmath.workdps(60):
        tgt = min(mpmath.mpf(p.numerator) / p.denominator * (2 ** r) ** m,
                  2 ** r * (mpmath.mpf(p.numerator) / p.denominator) ** (mpmath.mpf(1) / m))
        assert math.isclose(res["ratio"], float(mpmath.mpf(best[0].numerator) / best[0].denominator / tgt),
                            rel_tol=1e-14)


def test_best_point_refuses_what_has_no_best_point():
    """p outside (0, 1] (p = 0 has sup 0 / 0; p = 1 is the edge, accepted) and an empty or foreign block list are
    refused whole, naming the parameter; never a TypeError from the empty maximum."""
    blk = LB.frame_block_stats(2, 3, 4)
    assert T42.best_point([blk], 1, "gaussian", 4, 3)["k"] == 4
    for p in (0, Fraction(-1, 8), Fraction(9, 8)):
        with pytest.raises(VerifyInputError) as info:
            T42.best_point([blk], p, "gaussian", 4, 3)
        assert str(info.value) == f"Argument 'p' must be a probability in (0, 1], not {p!r}."
    for bad, shown in (([], "[]"), ((), "()"), ([blk, "x"], None), (blk, None), (None, "None"), ("x", "'x'")):
        with pytest.raises(VerifyInputError) as info:
            T42.best_point(bad, Fraction(1, 8), "gaussian", 4, 3)
        head = ("Argument 'stats_list' must be a non-empty list of FrameBlockStats (from code_block_stats or "
                "lower_bound.frame_block_stats), not ")
        # whole: the value as given (a long record cut at 60 characters, one line)
        if shown is None:
            text = " ".join(repr(bad).split())
            shown = text if len(text) <= 60 else text[:57] + "..."
        assert str(info.value) == head + shown + "."
