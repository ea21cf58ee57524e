"""Tests of verify/numeric/frames.py: construction, fast trace, WHT certificate, persistence, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from verify import VerifyInputError
from verify.numeric import frames as F


def test_fwht_matches_hadamard_matrix():
    from scipy.linalg import hadamard

    rng = np.random.default_rng(0)
    x = rng.integers(-5, 6, size=(3, 16))
    # scipy's Sylvester Hadamard matrix has H[u, x] = (-1)^popcount(u & x)
    assert np.array_equal(F.fwht(x.copy()), x @ hadamard(16).T)
    with pytest.raises(VerifyInputError, match="power-of-two"):
        F.fwht(np.zeros(6, dtype=np.int64))


@pytest.mark.parametrize("r", [1, 2, 5, 8])
def test_fast_trace_and_trace_form_against_galois(r):
    GF = F.field_of(r)
    rng = np.random.default_rng(r)
    z = rng.integers(0, 2 ** r, size=50)
    assert np.array_equal(F.fast_trace(z, r), np.asarray(GF(z).field_trace(), dtype=np.uint8))
    c, x = rng.integers(0, 2 ** r, size=50), rng.integers(0, 2 ** r, size=50)
    lhs = np.asarray((GF(c) * GF(x)).field_trace(), dtype=np.int64)
    rhs = np.array([bin(int(F.trace_form(r)[ci]) & int(xi)).count("1") % 2 for ci, xi in zip(c, x)])
    assert np.array_equal(lhs, rhs)


def test_trace_form_is_a_bijection():
    for r in range(1, 9):
        assert np.array_equal(np.sort(F.trace_form(r)), np.arange(2 ** r))


@pytest.mark.parametrize("r,m", [(1, 3), (2, 2), (3, 2), (4, 2), (3, 3), (5, 2)])
def test_frame_matches_reference_and_certificate_matches_gram(r, m):
    fr = F.build_frame(r, m)
    assert np.array_equal(fr.signs, F.build_frame_reference(r, m))
    assert F.gram_coherence(fr.signs, exact_int=True) == F.certify(r, m).max_abs_sum
    S = F.character_sums(r, m)
    assert np.array_equal(S, fr.signs.T.astype(np.int64) @ fr.signs[:, 0].astype(np.int64))


def test_truncated_certificate_equals_dense_gram():
    for d, m in [(5, 2), (6, 1), (11, 1), (3, 2)]:
        fr = F.build_general_frame(d, m)
        V = fr.dense()
        assert V.shape == (d, d ** m)
        G = V.T @ V
        np.fill_diagonal(G, 0)
        cert = F.certify_general(d, m)
        assert round(np.abs(G).max() * 2 ** fr.r) == cert.max_abs_sum
        assert cert.general and cert.d == d and cert.m_paper == m


def test_certificate_fields_and_bounds():
    cert = F.certify(8, 2)
    assert cert.n_columns == 2 ** 16 and cert.max_abs_sum == 32 and cert.coherence_exact == "1/8"
    assert cert.welch_bound < cert.levenstein_bound < cert.coherence <= cert.weil_bound
    assert sum(cert.histogram.values()) == 2 ** 16 - 1          # every nonzero difference counted once
    assert set(cert.evidence()) >= {"r", "m", "d", "n_columns", "max_abs_sum", "coherence", "weil_bound",
                                    "welch_bound", "levenstein_bound"}
    assert "seconds" not in cert.evidence()
    assert F.levenstein_bound(16, 100) is None                   # N <= d(d+1)/2: not applicable
    assert F.weil_threshold_d(3) == 32 and F.weil_threshold_d(3, general=True) == 128


def test_random_frames_seeded_and_unit_norm():
    for kind in ("gaussian", "sign"):
        a, b = F.random_frame(8, 30, kind, seed=3), F.random_frame(8, 30, kind, seed=3)
        assert np.array_equal(a, b)
        assert np.allclose(np.linalg.norm(a, axis=0), 1.0)
    assert 0 < F.gram_coherence(F.random_frame(8, 30, seed=1)) <= 1


def test_save_load_roundtrip_and_plain_numpy_load(tmp_path):
    fr = F.build_frame(4, 2)
    path = tmp_path / "f.npz"
    meta = F.save_frame(fr, path, F.certify(4, 2))
    with np.load(path) as z:                                    # plain numpy, no pickle
        bits, scale, shape = z["bits"], float(z["scale"]), z["shape"].tolist()
        stored = json.loads(str(z["meta"]))
    V = scale * (1 - 2 * np.unpackbits(bits, axis=1, count=shape[1]).astype(np.int8))
    assert np.allclose(V, fr.dense()) and stored["checksum"] == meta["checksum"]
    back, meta2 = F.load_frame(path)
    assert np.array_equal(back.signs, fr.signs) and meta2["irreducible_poly"] == fr.irreducible_poly
    assert F.certify_frame(back).max_abs_sum == F.certify(4, 2).max_abs_sum


def test_general_frame_roundtrip(tmp_path):
    fr = F.build_general_frame(6, 2)
    F.save_frame(fr, tmp_path / "g.npz")
    back, _ = F.load_frame(tmp_path / "g.npz")
    assert np.array_equal(back.dense(), fr.dense()) and back.general and back.m_paper == 2
    assert F.certify_frame(back).max_abs_sum == F.certify_general(6, 2).max_abs_sum


def test_tampered_and_bad_files_are_refused(tmp_path):
    fr = F.build_frame(3, 2)
    path = tmp_path / "f.npz"
    F.save_frame(fr, path)
    z = dict(np.load(path))
    z["bits"] = z["bits"].copy()
    z["bits"][0, 0] ^= 1
    np.savez(tmp_path / "t.npz", **z)
    with pytest.raises(VerifyInputError, match="checksum"):
        F.load_frame(tmp_path / "t.npz")
    z = dict(np.load(path))
    z["shape"] = np.array([8, 63])
    np.savez(tmp_path / "s.npz", **z)
    with pytest.raises(VerifyInputError, match="shape"):
        F.load_frame(tmp_path / "s.npz")
    z = dict(np.load(path))
    meta = json.loads(str(z["meta"]))
    meta["r"] = 4                                                   # metadata edits are covered by the checksum
    z["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "m.npz", **z)
    with pytest.raises(VerifyInputError, match="checksum"):
        F.load_frame(tmp_path / "m.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(VerifyInputError, match="readable"):
        F.load_frame(tmp_path / "junk.npz")
    # a consistent file whose signs are not the construction: certify refuses it
    other = F.Frame(r=3, m=2, n_rows=8, n_columns=64, signs=-fr.signs, irreducible_poly=fr.irreducible_poly)
    with pytest.raises(VerifyInputError, match="signs differ"):
        F.certify_frame(other)


@pytest.mark.parametrize("call,match", [
    (lambda: F.build_frame(0, 2), "'r'"),
    (lambda: F.build_frame(3, 0), "'m'"),
    (lambda: F.certify(17, 1), "'r'"),
    (lambda: F.build_general_frame(1, 2), "'d'"),
    (lambda: F.character_sums(3, 2, n_codes=12), "n_codes"),
    (lambda: F.random_frame(4, 10, "cauchy"), "'kind'"),
    (lambda: F.field_of(4, 0b10000), "irreducible_poly"),
    (lambda: F.build_frame(16, 2), "d"),
    (lambda: F.fast_trace([0, 1], 0), "'r'"),
    (lambda: F.welch_bound(0, 4), "'d'"),
    (lambda: F.levenstein_bound(3, 0), "'n'"),
    (lambda: F.gram_coherence(np.ones(3)), "'V'"),
])
def test_bad_input(call, match):
    with pytest.raises(VerifyInputError, match=match):
        call()


@pytest.mark.parametrize("r,m", [(1, 4), (3, 3), (5, 2), (7, 2), (9, 1)])
def test_blas_and_integer_butterfly_certificates_agree(r, m):
    # the float32 Kronecker route is exact (integers < 2^24); the integer butterfly is the reference
    a, b = F.certify(r, m), F.certify(r, m, method="butterfly")
    assert a.histogram == b.histogram and a.max_abs_sum == b.max_abs_sum
    bits = F.sign_bits(r, np.arange(0, 2 ** r * 4, 2 ** r), m, start_digit=1)
    assert np.array_equal(F.wht_rows(bits, r), F.wht_rows(bits, r, "butterfly"))


@pytest.mark.parametrize("chunk", [1, 16, 31, 64])
@pytest.mark.parametrize("method", ["blas", "butterfly"])
def test_the_asked_wht_method_runs_on_every_chunk(monkeypatch, method, chunk):
    """``method`` chooses the transform (the exact float32 Kronecker product or the integer butterfly): both give the
    same certificate, so only the calls can tell which ran. Every WHT block of ``certify`` (several chunks: the chunk
    size lowered, down to below one row) runs the method asked, on the rows the chunk size allows, and the
    certificate is the other method's."""
    from verify.numeric.frames import cert_wht

    seen, rows = [], []
    real = cert_wht._wht_rows

    def spy(bits, r, how="blas"):
        seen.append(how)
        rows.append(bits.shape[0])
        return real(bits, r, how)

    monkeypatch.setattr(cert_wht, "_wht_rows", spy)
    monkeypatch.setattr(cert_wht, "CHUNK_ELEMENTS", chunk)
    cert = F.certify(4, 2, method=method)
    assert len(seen) >= 2 and set(seen) == {method}
    # the chunks: CHUNK_ELEMENTS // 2^r rows of 2^r sums each, at least one row (a chunk below one row is one row)
    step = max(1, chunk // 16)
    assert rows == [step] * (16 // step) + ([16 % step] if 16 % step else [])
    monkeypatch.undo()
    assert cert.histogram == F.certify(4, 2, method="butterfly" if method == "blas" else "blas").histogram


@pytest.mark.parametrize("method", ["blas", "butterfly"])
@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.uint64])
def test_wht_rows_of_every_integer_dtype_is_the_hadamard_product(method, dtype):
    """The bits may come in any integer (or boolean) dtype: each method gives the Sylvester-Hadamard product of the
    rows (-1)^bits, exactly (a route that read a wider dtype byte by byte would see each bit as several)."""
    r = 3
    bits = np.random.default_rng(7).integers(0, 2, size=(5, 2 ** r))
    H = np.array([[1]])
    for _ in range(r):
        H = np.block([[H, H], [H, -H]])
    want = (1 - 2 * bits) @ H
    got = F.wht_rows(bits.astype(dtype), r, method)
    assert np.array_equal(np.asarray(got, dtype=np.int64), want)


@pytest.mark.parametrize("method", ["blas", "butterfly"])
def test_public_wht_rows_runs_the_method_asked(monkeypatch, method):
    """The public wht_rows passes its ``method`` to the transform (both give the same integers, so only the call can
    tell), for uint8 and wider bit arrays."""
    from verify.numeric.frames import field

    seen = []
    real = field._wht_rows

    def spy(bits, r, how="blas"):
        seen.append((how, bits.dtype))
        return real(bits, r, how)

    monkeypatch.setattr(field, "_wht_rows", spy)
    bits = np.random.default_rng(3).integers(0, 2, size=(3, 8))
    for dtype in (np.uint8, np.int64):
        field.wht_rows(bits.astype(dtype), 3, method)
    assert seen == [(method, np.dtype(np.uint8))] * 2
