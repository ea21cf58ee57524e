r"""The Lemma A.4 frames, their certificates, operators and files (:mod:`verify.numeric.frames`: ``description``,
``constructions``, ``cert_wht``, ``cert_rank``, ``operator``, ``fileformat``) against references written here.

References: GF(2^r) arithmetic by shift-and-add products modulo the irreducible polynomial and the trace as the sum
of the Frobenius powers (nothing from the package's tables); the frame as the sign matrix
:math:`(-1)^{\operatorname{tr}(\sum_j a_j x^{2j+1})}` built entry by entry from that arithmetic; coherences and
character sums from the full integer Gram matrix and the column sums; radical dimensions of quadratic forms by
enumerating the radical :math:`\{y : Q(x+y)+Q(x)+Q(y) = 0\ \forall x\}`; GF(2) ranks by galois' linear algebra; the
character sums of a form of radical dimension w by enumerating an explicit such form over every linear shift; the
operators against the dense reference matrix; the files by reading them back. Sizes cross the chunk thresholds
(``CHUNK_ELEMENTS``, ``BATCH``, the operators' ``chunk_elements``) at random positions, with exact multiples and
off-by-one column counts, and both irreducible polynomials.
"""

import math
import tempfile
from fractions import Fraction
from pathlib import Path
from unittest import mock

import galois
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import hadamard
from scipy.stats import beta as beta_law
from scipy.stats import binomtest, kstest

from verify import VerifyInputError
from verify.numeric.frames import cert_rank as CR
from verify.numeric.frames import cert_wht as CW
from verify.numeric.frames import constructions as C
from verify.numeric.frames import fileformat as FF
from verify.numeric.frames import operator as OP
from verify.numeric.frames.catalogue import certify_frame
from verify.numeric.frames.description import Frame
from gf_reference import gf_mul, gf_pow, gf_trace

REF = settings.get_profile("reference")

#: a second irreducible modulus per degree (not galois' default), so that no convention tied to one modulus hides
OTHER_POLY = {1: 0b11, 2: 0b111, 3: 0b1101, 4: 0b11001, 5: 0b101001, 6: 0b1100001, 7: 0b11000001}


def modulus(r: int, alt: bool) -> int:
    return OTHER_POLY[r] if alt else int(galois.GF(2 ** r).irreducible_poly)


def ref_signs(r: int, m: int, n: int, poly: int) -> np.ndarray:
    """Sign matrix (2^r, n) of the Lemma A.4 frame: column n <-> digits a_j = (n >> rj) & (2^r - 1)."""
    d = 2 ** r
    x, cols = np.arange(d), np.arange(n, dtype=np.int64)
    acc = np.zeros((d, n), dtype=np.int64)
    for j in range(m):
        a = (cols >> (r * j)) & (d - 1)
        acc ^= gf_mul(gf_pow(x, 2 * j + 1, poly, r)[:, None], a[None, :], poly, r)
    return (1 - 2 * gf_trace(acc, poly, r)).astype(np.int64)


def off_diagonal_max(S: np.ndarray) -> int:
    G = S.T @ S
    np.fill_diagonal(G, 0)
    return int(np.abs(G).max()) if G.size else 0


def smallest_weil_d(m: int, general: bool) -> int:
    c = 4 * m - 2 if general else 2 * m - 2
    return next(2 ** r for r in range(1, 200) if c * c < 2 ** r)


@st.composite
def frame_sizes(draw, max_cols: int = 2 ** 12):
    """(r, m, n_columns, alt): n_columns an exact power of d, one off it, or anywhere in [2, d^m]."""
    r = draw(st.integers(1, 6))
    m = draw(st.integers(1, 3))
    total = 2 ** (r * m)
    while total > max_cols:
        m -= 1
        total = 2 ** (r * m)
    if total < 2:
        m, total = 1, 2 ** r
    marks = sorted({v for k in range(1, m + 1) for v in (2 ** (r * k) - 1, 2 ** (r * k), 2 ** (r * k) + 1)
                    if 2 <= v <= total})
    n = draw(st.one_of(st.sampled_from(marks), st.integers(2, total)))
    return r, m, n, draw(st.booleans())


@REF
@given(frame_sizes(), st.integers(0, 2 ** 32 - 1), st.booleans())
def test_build_frame_and_its_certificate_against_the_entrywise_reference(size, seed, small_chunks):
    r, m, n, alt = size
    mod = modulus(r, alt)
    S = ref_signs(r, m, n, mod)
    d = 2 ** r
    # small chunks: the chunked loops of the construction and of the WHT scan run over several chunks, the last
    # one partial at a random column; otherwise the real CHUNK_ELEMENTS (one chunk at these sizes)
    chunk = int(np.random.default_rng(seed).integers(d, 4 * d + 1)) if small_chunks else C.CHUNK_ELEMENTS
    with mock.patch.object(C, "CHUNK_ELEMENTS", chunk), mock.patch.object(CW, "CHUNK_ELEMENTS", chunk):
        F = C.build_frame(r, m, n_columns=n, irreducible_poly=mod if alt else None)
        cert = CW.certify(r, m, n_columns=n, irreducible_poly=mod if alt else None,
                          method="butterfly" if seed % 2 else "blas")
    assert (F.r, F.m, F.n_rows, F.n_columns, F.irreducible_poly, F.m_paper, F.general, F.construction) == \
        (r, m, d, n, mod, m, False, "bch")
    assert F.signs.dtype == np.int8 and np.array_equal(F.signs.astype(np.int64), S)
    assert F.scale == 1 / math.sqrt(d)
    np.testing.assert_array_equal(F.dense(), S / math.sqrt(d))
    np.testing.assert_array_equal(F.as_array(np.float32), (S / math.sqrt(d)).astype(np.float32))
    z = np.random.default_rng(seed).standard_normal(n)
    np.testing.assert_allclose(F.as_linear_operator().matvec(z), S @ z / math.sqrt(d), rtol=1e-12, atol=1e-12)
    meta = F.metadata()
    assert (meta["r"], meta["m"], meta["d"], meta["field_rows"], meta["n_columns"], meta["irreducible_poly"],
            meta["scale"]) == (r, m, d, d, n, mod, 1 / math.sqrt(d))
    if not alt:
        assert np.array_equal(C.build_frame_reference(r, m, n).astype(np.int64), S)
    # certificate: the exact coherence is the Gram's off-diagonal maximum (integers, units 1/d)
    top = off_diagonal_max(S)
    n_codes = max(d, 1 << (n - 1).bit_length())
    sums = ref_signs(r, m, n_codes, mod).sum(axis=0)
    hist = np.bincount(np.abs(sums[1:]), minlength=d + 1)
    w2 = Fraction(n - d, d * (n - 1)) if n > d else Fraction(0)
    lev2 = Fraction(3 * n - d * d - 2 * d, (d + 2) * (n - d)) if 2 * n > d * (d + 1) else None
    coh = Fraction(top, d)
    weil = (2 * m - 2) / math.sqrt(d)
    assert (cert.r, cert.m, cert.d, cert.n_columns, cert.max_abs_sum) == (r, m, d, n, top)
    assert cert.coherence_exact == str(coh) and cert.coherence == float(coh)
    assert cert.histogram == {v: int(c) for v, c in enumerate(hist) if c}
    assert math.isclose(cert.weil_bound, weil, rel_tol=1e-15, abs_tol=0)
    assert math.isclose(cert.welch_bound, math.sqrt(w2), rel_tol=1e-15)
    assert (cert.levenstein_bound is None) == (lev2 is None)
    if lev2 is not None:
        assert math.isclose(cert.levenstein_bound, math.sqrt(lev2), rel_tol=1e-15)
        assert math.isclose(cert.ratio_to_levenstein, float(coh) / math.sqrt(lev2), rel_tol=1e-14)
    else:
        assert cert.ratio_to_levenstein is None
    assert cert.ratio_to_weil == (float(coh) / weil if weil else None)
    assert cert.ratio_to_welch == (pytest.approx(float(coh) / math.sqrt(w2), rel=1e-14) if w2 else None)
    assert cert.weil_below_one_from_d == smallest_weil_d(m, False)
    assert cert.below_one == (top < d) and cert.general is False and cert.m_paper == m
    assert "seconds" not in cert.evidence() and "histogram" not in cert.evidence()
    assert cert.evidence()["max_abs_sum"] == top
    # every character sum: the column sums of the frame's first n_codes columns (codes 0 <= c < n_codes)
    if n_codes % d == 0:
        with mock.patch.object(CW, "CHUNK_ELEMENTS", chunk):
            got = CW.character_sums(r, m, n_codes, irreducible_poly=mod if alt else None)
        np.testing.assert_array_equal(got, sums)
    # the naive Gram route, chunked at a random width (the last block partial)
    V = S / math.sqrt(d)
    G = np.abs(V.T @ V)
    np.fill_diagonal(G, 0)
    width = int(np.random.default_rng(seed + 1).integers(1, n + 2))
    assert math.isclose(CW.gram_coherence(V, chunk=width), float(G.max()), rel_tol=1e-12, abs_tol=1e-15)
    assert CW.gram_coherence(S, chunk=width, exact_int=True) == top


@REF
@given(st.integers(2, 40), st.integers(1, 2))
def test_general_d_frame_and_certificate_against_the_reference(d, m):
    r = d.bit_length() - 1
    assert C.general_parameters(d, m) == (r, 2 * m, d ** m)
    S = ref_signs(r, 2 * m, d ** m, modulus(r, False))
    F = C.build_general_frame(d, m)
    assert (F.r, F.m, F.n_rows, F.n_columns, F.general, F.m_paper) == (r, 2 * m, d, d ** m, True, m)
    V = np.zeros((d, d ** m))
    V[: 2 ** r] = S / math.sqrt(2 ** r)
    np.testing.assert_array_equal(F.dense(), V)
    cert = CW.certify_general(d, m)
    top = off_diagonal_max(S)
    n = d ** m
    w2 = Fraction(n - d, d * (n - 1)) if n > d else Fraction(0)
    assert (cert.d, cert.n_columns, cert.max_abs_sum, cert.general, cert.m_paper, cert.m) == \
        (d, n, top, True, m, 2 * m)
    assert cert.coherence_exact == str(Fraction(top, 2 ** r))
    assert math.isclose(cert.welch_bound, math.sqrt(w2), rel_tol=1e-15)
    assert cert.weil_below_one_from_d == smallest_weil_d(m, True)


def radical_dims_brute(Q: np.ndarray, r: int) -> np.ndarray:
    """w for each row of Q (values of a quadratic form at every x): the radical {y : B(x, y) = 0 for all x}."""
    d = 2 ** r
    x = np.arange(d)
    xy = x[:, None] ^ x[None, :]
    out = []
    for q in Q:
        B = q[xy] ^ q[:, None] ^ q[None, :]
        size = int((~B.any(axis=0)).sum())
        w = size.bit_length() - 1
        assert 2 ** w == size
        out.append(w)
    return np.array(out)


def quadratic_values(r: int, a1, a2, poly: int) -> np.ndarray:
    """tr(a1 x^3 + a2 x^5) for every x, one row per pair."""
    x = np.arange(2 ** r)
    a1, a2 = np.broadcast_arrays(np.asarray(a1).reshape(-1), np.asarray(a2).reshape(-1))
    v = gf_mul(a1[:, None], gf_pow(x, 3, poly, r)[None, :], poly, r) ^ \
        gf_mul(a2[:, None], gf_pow(x, 5, poly, r)[None, :], poly, r)
    return gf_trace(v, poly, r)


@REF
@given(st.integers(1, 5), st.integers(1, 3), st.booleans(), st.booleans(), st.integers(1, 64))
def test_quadratic_certificate_against_enumerated_radicals_and_sums(r, m, alt, symmetry, batch):
    if r == 5 and m == 3:
        m = 2  # 2^15 columns: the slow profile's examples keep r <= 4 at m = 3 (a second each)
    mod = modulus(r, alt)
    poly = mod if alt else None
    d = 2 ** r
    # radical dimensions of every quadratic part (a_1, a_2), enumerated
    a = np.arange(d ** (m - 1))
    a1, a2 = a & (d - 1), (a >> r) & (d - 1)
    w = radical_dims_brute(quadratic_values(r, a1, a2, mod), r)
    counts = {int(k): int(v) for k, v in zip(*np.unique(w, return_counts=True))}
    # BATCH small: the vectorised rank batches split at a random position
    with mock.patch.object(CR, "BATCH", batch):
        assert np.array_equal(CR.lemma_radical_dims(r, a1, a2, poly), w)
        assert CR.radical_dim_counts(r, m, symmetry=symmetry, irreducible_poly=poly) == counts
        cert = CR.quadratic_certificate(r, m, symmetry=symmetry, irreducible_poly=poly)
    sums = ref_signs(r, m, d ** m, mod).sum(axis=0)[1:]
    hist = {int(k): int(v) for k, v in zip(*np.unique(np.abs(sums), return_counts=True))}
    signed = {int(k): int(v) for k, v in zip(*np.unique(sums, return_counts=True))}
    n = d ** m
    top = max(k for k in hist if k) if any(hist) else 0
    coh = Fraction(top, d)
    w2 = Fraction(n - d, d * (n - 1)) if n > d else Fraction(0)
    lev2 = Fraction(3 * n - d * d - 2 * d, (d + 2) * (n - d)) if 2 * n > d * (d + 1) else None
    assert (cert.r, cert.m, cert.d, cert.n_columns, cert.max_abs_sum) == (r, m, d, n, top)
    assert cert.histogram == hist and cert.signed_histogram == signed
    assert cert.radical_dims == counts and cert.symmetry == symmetry
    assert cert.coherence_exact == str(coh) and cert.coherence == float(coh)
    assert math.isclose(cert.welch_bound, math.sqrt(w2), rel_tol=1e-15)
    assert cert.ratio_to_welch == (pytest.approx(float(coh) / math.sqrt(w2), rel=1e-14) if w2 else None)
    if lev2 is None:
        assert cert.levenstein_bound is None and cert.ratio_to_levenstein is None
    else:
        assert math.isclose(cert.levenstein_bound, math.sqrt(lev2), rel_tol=1e-15)
    # ranks: one per orbit representative of x -> lambda x (a_1 != 0 = a_2: gcd(3, d-1); a_2 != 0: gcd(5, d-1) d)
    reps = (math.gcd(3, d - 1) if m >= 2 else 0) + (math.gcd(5, d - 1) * d if m == 3 else 0)
    assert cert.ranks_computed == (reps if symmetry else d ** (m - 1) - 1)
    if m >= 2 and not alt:  # the WHT certificate of the same frame agrees (same field, default modulus)
        assert CW.certify(r, m).histogram == hist


@REF
@given(st.integers(1, 10), st.data())
def test_sums_from_radicals_against_explicit_forms(r, data):
    """A form of radical dimension w: Q(x) = x_0 x_1 + x_2 x_3 + ... ((r - w)/2 products); its sums over all
    2^r linear shifts, enumerated, times the count of such forms."""
    ws = [w for w in range(r + 1) if (r - w) % 2 == 0]
    chosen = data.draw(st.lists(st.sampled_from(ws), min_size=1, max_size=3, unique=True))
    counts = {w: data.draw(st.integers(1, 5)) for w in chosen}
    exclude = data.draw(st.booleans()) and r in counts
    d = 2 ** r
    x = np.arange(d)
    bit = lambda v, i: (v >> i) & 1  # noqa: E731
    hist, signed = {}, {}
    for w, c in counts.items():
        q = np.zeros(d, dtype=np.int64)
        for i in range((r - w) // 2):
            q ^= bit(x, 2 * i) & bit(x, 2 * i + 1)
        shifts = np.array([bin(v).count("1") % 2 for v in range(d)])
        par = shifts[x[:, None] & x[None, :]]   # <l, x> for every shift l (rows) and x (columns)
        S = ((-1) ** (q[None, :] ^ par)).sum(axis=1)
        for s in S.tolist():
            hist[abs(s)] = hist.get(abs(s), 0) + c
            signed[s] = signed.get(s, 0) + c
    if exclude:
        hist[d] -= 1
        signed[d] -= 1
    clean = lambda h: {k: v for k, v in sorted(h.items()) if v}  # noqa: E731
    assert CR.sums_from_radicals(r, counts, exclude_zero_code=exclude) == (clean(hist), clean(signed))
    odd = [w for w in range(r + 1) if (r - w) % 2]
    if odd:
        with pytest.raises(VerifyInputError):
            CR.sums_from_radicals(r, {odd[0]: 1})


@REF
@given(st.integers(1, 64), st.integers(0, 8), st.integers(0, 2 ** 32 - 1))
def test_gf2_rank_against_galois(cols, n_rows, seed):
    rng = np.random.default_rng(seed)
    B = int(rng.integers(0, 6))
    dense = rng.integers(0, 2, size=(B, n_rows, cols))
    # low-rank rows too: a product of random factors over GF(2)
    if B and n_rows and seed % 3 == 0:
        k = int(rng.integers(0, n_rows + 1))
        dense = (rng.integers(0, 2, size=(B, n_rows, k)) @ rng.integers(0, 2, size=(B, k, cols))) % 2
    rows = (dense.astype(np.uint64) << np.arange(cols, dtype=np.uint64)).sum(axis=2, dtype=np.uint64) \
        if n_rows else np.zeros((B, 0), dtype=np.uint64)
    GF2 = galois.GF(2)
    want = [int(np.linalg.matrix_rank(GF2(dense[b]))) if n_rows else 0 for b in range(B)]
    assert CR.gf2_rank(rows.reshape(B, n_rows)).tolist() == want


@REF
@given(st.integers(1, 9), st.integers(0, 2 ** 32 - 1))
def test_evaluation_points_and_alternating_rows_against_the_bilinear_form(r, seed):
    rng = np.random.default_rng(seed)
    pts, pairs = CR.evaluation_points(r)
    assert pairs == [(i, j) for i in range(r) for j in range(i + 1, r)]
    assert pts.tolist() == [1 << i for i in range(r)] + [(1 << i) | (1 << j) for i, j in pairs]
    # random quadratic forms Q(x) = sum_{i<=j} A_ij x_i x_j (Q(0) = 0); B(e_i, e_j) = A_ij for i != j
    Bn = int(rng.integers(1, 5))
    A = np.triu(rng.integers(0, 2, size=(Bn, r, r)))
    xb = (pts[:, None] >> np.arange(r)[None, :]) & 1
    q = np.einsum("pi,bij,pj->bp", xb, A, xb) % 2
    got = CR.alternating_rows(q, r)
    np.testing.assert_array_equal(CR.alternating_rows(q.astype(bool), r), got)   # a bool array, as documented
    alt = (A + A.transpose(0, 2, 1)) % 2
    for i in range(r):
        alt[:, i, i] = 0
    want = (alt.astype(np.uint64) << np.arange(r, dtype=np.uint64)).sum(axis=2, dtype=np.uint64)
    np.testing.assert_array_equal(got, want)


@REF
@given(frame_sizes(max_cols=2 ** 11), st.integers(1, 3), st.sampled_from([np.float64, np.float32]),
       st.integers(0, 2 ** 32 - 1))
def test_implicit_frame_products_against_the_dense_reference(size, k, dtype, seed):
    r, m, n, alt = size
    mod = modulus(r, alt)
    d = 2 ** r
    V = ref_signs(r, m, n, mod) / math.sqrt(d)
    rng = np.random.default_rng(seed)
    chunk = int(rng.integers(1, 3 * n + 2))  # chunk_elements at a random position: several chunks, a partial one
    op = OP.ImplicitFrame(r, m, n, irreducible_poly=mod if alt else None, dtype=dtype, chunk_elements=chunk)
    assert op.shape == (d, n)
    assert op.parameters() == {"r": r, "m": m, "d": d, "n_columns": n, "irreducible_poly": mod}
    scale = float(rng.choice([1e-3, 1.0, 1e4]))  # non-unit scales: a wrong normalisation cannot hide
    z = rng.standard_normal((n, k)) * scale
    y = rng.standard_normal((d, k)) * scale
    tol = 1e-12 if dtype == np.float64 else 2e-5
    zz, yy = (z[:, 0], y[:, 0]) if k == 1 else (z, y)
    got = op.matvec(zz.astype(dtype))
    assert got.dtype == dtype and got.shape == (V @ zz).shape
    np.testing.assert_allclose(got, V @ zz, rtol=0, atol=tol * scale * math.sqrt(n) * 4)
    got = op.rmatvec(yy.astype(dtype))
    np.testing.assert_allclose(got, V.T @ yy, rtol=0, atol=tol * scale * math.sqrt(d) * 4)
    idx = rng.integers(0, n, size=5)
    np.testing.assert_allclose(op.columns(idx), V[:, idx], rtol=1e-7 if dtype == np.float32 else 1e-15)
    L = op.as_linear_operator()
    np.testing.assert_allclose(L.matmat(z.astype(dtype)), V @ z, rtol=0, atol=tol * scale * math.sqrt(n) * 4)
    # fwht_kron: the Sylvester-order WHT of rows
    X = rng.standard_normal((3, d))
    np.testing.assert_allclose(OP.fwht_kron(X, r), X @ hadamard(d), rtol=1e-12, atol=1e-12)
    # torch: V z and its backward V^T g
    tz = torch.tensor(zz, dtype=torch.float64, requires_grad=True)
    out = OP.frame_matvec_torch(OP.ImplicitFrame(r, m, n, irreducible_poly=mod if alt else None,
                                                 chunk_elements=chunk), tz)
    np.testing.assert_allclose(out.detach().numpy(), V @ zz, rtol=0, atol=1e-12 * scale * math.sqrt(n) * 4)
    g = rng.standard_normal(out.shape)
    (out * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(tz.grad.numpy(), V.T @ g, rtol=0, atol=1e-12 * math.sqrt(d) * 4)


@settings(REF, max_examples=max(5, REF.max_examples // 3))
@given(frame_sizes(max_cols=2 ** 10), st.integers(0, 2 ** 32 - 1), st.booleans())
def test_frame_files_round_trip_against_the_reference(size, seed, tamper):
    r, m, n, alt = size
    mod = modulus(r, alt)
    d = 2 ** r
    V = ref_signs(r, m, n, mod) / math.sqrt(d)
    rng = np.random.default_rng(seed)
    F = C.build_frame(r, m, n, irreducible_poly=mod if alt else None)
    if tamper:  # a file may hold signs that are not the construction's: the fast routes must not be used
        j = int(rng.integers(0, n))
        F.signs[0, j] *= -1
        V = V.copy()
        V[0, j] *= -1
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.npz"
        cert = CW.certify(r, m, n, irreducible_poly=mod if alt else None)
        meta = FF.save_frame(F, path, certificate=cert, user={"note": "x"})
        assert not FF.is_implicit_file(path)
        loaded = FF.load_frame(path)
        fr, meta2 = loaded
        assert meta2 == meta and meta["user"] == {"note": "x"} and meta["certificate"]["max_abs_sum"] == cert.max_abs_sum
        assert not loaded.implicit
        assert (fr.r, fr.m, fr.n_rows, fr.n_columns, fr.irreducible_poly) == (r, m, d, n, mod)
        np.testing.assert_array_equal(loaded.as_array(), V)
        z = rng.standard_normal((n, 2)) * 1e3
        np.testing.assert_allclose(loaded.as_linear_operator().matmat(z), V @ z, rtol=0,
                                   atol=1e-9 * math.sqrt(n))
        y = rng.standard_normal((d, 2))
        np.testing.assert_allclose(loaded.as_linear_operator().rmatmat(y), V.T @ y, rtol=0, atol=1e-12 * d)
        np.testing.assert_array_equal(loaded.as_torch(dtype=torch.float64).numpy(), V)
        with pytest.raises(VerifyInputError) as info:          # the device is read and checked, like the dtype
            loaded.as_torch(device="tpu")
        assert str(info.value) == "Argument 'device' must be a torch device such as 'cpu' or 'cuda', not 'tpu'."
        if tamper:
            with pytest.raises(VerifyInputError):
                loaded.as_torch(matrix_free=True)
            with pytest.raises(VerifyInputError):
                certify_frame(fr)
        else:
            f = loaded.as_torch(dtype=torch.float64, matrix_free=True)
            np.testing.assert_allclose(f(torch.tensor(z[:, 0])).numpy(), V @ z[:, 0], rtol=0,
                                       atol=1e-9 * math.sqrt(n))
        # implicit (parameter-only) files
        ipath = Path(tmp) / "i.npz"
        op = OP.ImplicitFrame(r, m, n, irreducible_poly=mod if alt else None)
        imeta = FF.save_implicit(op, ipath, certificate=cert)
        assert FF.is_implicit_file(ipath) and imeta["implicit"] is True
        op2, imeta2 = FF.load_implicit(ipath)
        assert imeta2 == imeta and op2.parameters() == op.parameters()
        li = FF.load_frame(ipath, allow_implicit=True)
        assert li.implicit
        if not tamper:
            np.testing.assert_allclose(li.as_array(), V, rtol=1e-15)
            np.testing.assert_allclose(li.as_linear_operator().matvec(z[:, 0]), V @ z[:, 0], rtol=0,
                                       atol=1e-9 * math.sqrt(n))
        with pytest.raises(VerifyInputError):
            FF.load_frame(ipath)  # parameter-only: refused unless allowed
        # a modified file is refused: its checksum no longer matches
        with np.load(path) as zf:
            arrays = {k: zf[k] for k in zf.files}
        arrays["bits"] = arrays["bits"].copy()
        arrays["bits"][0, 0] ^= 1
        bad = Path(tmp) / "bad.npz"
        np.savez(bad, **arrays)
        with pytest.raises(VerifyInputError, match="checksum"):
            FF.load_frame(bad)


def test_frame_rejects_malformed_descriptions():
    with pytest.raises(VerifyInputError):
        C.build_frame(2, 2, n_columns=17)
    assert isinstance(C.build_frame(1, 1), Frame)


@settings(REF, max_examples=max(6, REF.max_examples // 2))
@given(st.integers(2, 12), st.integers(0, 10 ** 6))
def test_random_frames_against_their_laws(d, seed):
    """Gaussian kind: unit columns uniform on the sphere, so x_1^2 ~ Beta(1/2, (d-1)/2) (scipy's KS test, 3000
    columns); sign kind: entries +-1/sqrt(d), each sign a fair coin (a two-sided binomial test)."""
    n = 3000
    V = C.random_frame(d, n, "gaussian", seed)
    assert V.shape == (d, n)
    np.testing.assert_allclose(np.linalg.norm(V, axis=0), np.ones(n), rtol=1e-12)
    assert kstest(V[0] ** 2, beta_law(0.5, (d - 1) / 2).cdf).pvalue > 1e-6
    np.testing.assert_array_equal(V, C.random_frame(d, n, "gaussian", seed))      # seeded
    S = C.random_frame(d, n, "sign", seed)
    assert set(np.unique(S * math.sqrt(d)).round(12).tolist()) <= {-1.0, 1.0}
    assert binomtest(int((S > 0).sum()), S.size, 0.5).pvalue > 1e-6
    assert not np.array_equal(S, C.random_frame(d, n, "sign", seed + 1))
