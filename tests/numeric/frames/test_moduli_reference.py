r"""Every irreducible modulus of small degree, through every public function of :mod:`verify.numeric.frames` that
takes ``irreducible_poly``, against references written here (issue 41, gap class (e): an option only at its default).

The field, its trace, the Lemma A.4 frame, the Kerdock / Delsarte-Goethals frames, their certificates (WHT, ranks,
codes), the character sums, the radical dimensions and the implicit operators are each run with **every**
irreducible polynomial of the degree (``galois.irreducible_polys``), not only galois' default one, and compared with:
GF(2^r) arithmetic by shift-and-add products modulo that polynomial and the trace as the sum of the Frobenius powers
(``tests/gf_reference.py``); the frames entry by entry from that arithmetic; coherences, histograms and character
sums from the full integer Gram matrix and the column sums; radical dimensions by enumerating the radical; the
recorded metadata as a whole dict written here. Large fields (r = 9, 13; 12, 14, 16 in the slow tier) run with
their largest irreducible modulus, on both sides of the sign tables' size. Every function also refuses each malformed modulus with one
message naming the parameter and the allowed polynomials.

Frames of different moduli are the same frame up to permutations of rows and columns (a field isomorphism is
linear and keeps the trace), so a full frame's certificate is the same for every modulus; what tells the moduli
apart is the sign matrix, a partial frame (its first n columns), a per-code quantity (a character sum, a radical
dimension) and the refusal of a polynomial that is not an irreducible one of the right degree.
"""

import math
import os
from fractions import Fraction
from unittest import mock

import galois
import numpy as np
import pytest

from verify import VerifyInputError
from verify.numeric.frames import cert_codes as CC
from verify.numeric.frames import cert_rank as CR
from verify.numeric.frames import cert_wht as CW
from verify.numeric.frames import constructions as C
from verify.numeric.frames import field as FL
from verify.numeric.frames import operator as OP
from verify.numeric.frames.catalogue import certify_frame
from gf_reference import bch_signs, code_signs, gf_mul, gf_pow, gf_trace, parity, poly_text

#: every irreducible polynomial of degree r (a new galois field costs about a second each): all of them for r <= 4
#: and, in the default tier, galois' default and the largest other one for r = 5, 6 (VERIFY_REFERENCE_PROFILE=slow:
#: all 23 of degree <= 6)
ALL = os.environ.get("VERIFY_REFERENCE_PROFILE", "default") == "slow"


def moduli(r: int) -> list:
    polys = [int(p) for p in galois.irreducible_polys(2, r)]
    return polys if ALL or r <= 4 else sorted({int(galois.GF(2 ** r).irreducible_poly), polys[-1]})


MODULI = [(r, p) for r in range(1, 7) for p in moduli(r)]


def _id(case) -> str:
    return f"r{case[0]}-{case[1]:#b}"


def gram(S: np.ndarray) -> np.ndarray:
    """The integer Gram matrix of a sign matrix (float64 products of small integers are exact)."""
    X = S.astype(np.float64)
    return np.rint(X.T @ X).astype(np.int64)


def gram_off_max(S: np.ndarray) -> int:
    G = gram(S)
    np.fill_diagonal(G, 0)
    return int(np.abs(G).max()) if G.size else 0


def radical_dim(q: np.ndarray, r: int) -> int:
    """w: the radical {y : Q(x+y) + Q(x) + Q(y) = 0 for all x} of the form with values q, enumerated."""
    x = np.arange(2 ** r)
    B = q[x[:, None] ^ x[None, :]] ^ q[:, None] ^ q[None, :]
    return int((~B.any(axis=0)).sum()).bit_length() - 1


def test_the_moduli_are_all_the_irreducible_polynomials():
    """The reference list itself: by trial division, every polynomial of degree r with no factor of degree <= r/2."""
    def irreducible(p: int) -> bool:
        deg = p.bit_length() - 1
        for q in range(2, 2 ** (deg // 2 + 1)):
            a = p
            while a.bit_length() >= q.bit_length():   # carry-less remainder
                a ^= q << (a.bit_length() - q.bit_length())
            if a == 0:
                return False
        return True
    assert [(r, p) for r in range(1, 7) for p in galois.irreducible_polys(2, r)] == \
        [(r, p) for r in range(1, 7) for p in range(2 ** r, 2 ** (r + 1)) if irreducible(p)]
    assert set(MODULI) <= {(r, int(p)) for r in range(1, 7) for p in galois.irreducible_polys(2, r)}


@pytest.mark.parametrize("case", MODULI, ids=_id)
def test_field_and_trace_with_every_modulus(case):
    r, poly = case
    GF = FL.field_of(r, poly)
    # r = 1: x and x + 1 give the same arithmetic on {0, 1}; galois' GF(2) records x + 1
    assert int(GF.irreducible_poly) == (poly if r > 1 else 0b11) and GF.order == 2 ** r
    z = np.arange(2 ** r, dtype=np.int64)
    tr = gf_trace(z, poly, r)
    assert FL.fast_trace(z, r, poly).tolist() == tr.tolist()
    assert FL.trace_mask(r, poly) == sum(int(tr[1 << i]) << i for i in range(r))
    beta = FL.trace_form(r, poly)
    want = sum(gf_trace(gf_mul(z, 1 << i, poly, r), poly, r) << i for i in range(r))
    assert beta.tolist() == want.tolist()
    for j in range(3):
        assert FL.power_table(r, j, poly).tolist() == gf_pow(z, 2 * j + 1, poly, r).tolist()
    # sign bits of random codes of 3 digits, both table routes (r <= TABLE_MAX_R and above it)
    codes = np.random.default_rng(poly).integers(0, 2 ** (3 * r), size=40)
    want_bits = (1 - bch_signs(r, 3, codes, poly).T) // 2
    assert FL.sign_bits(r, codes, 3, irreducible_poly=poly).tolist() == want_bits.tolist()
    with mock.patch.object(FL, "TABLE_MAX_R", 0):
        assert FL.sign_bits(r, codes, 3, start_digit=1, irreducible_poly=poly).tolist() == \
            ((1 - bch_signs(r, 3, codes & ~(2 ** r - 1), poly).T) // 2).tolist()


@pytest.mark.parametrize("case", MODULI, ids=_id)
def test_lemma_frame_its_certificates_and_operator_with_every_modulus(case):
    r, poly = case
    d = 2 ** r
    m = 2 if r > 1 else 3
    rng = np.random.default_rng(poly)
    # a partial frame (the certificate of the first n columns depends on the modulus), crossing powers of two
    n = int(rng.integers(d + 1, min(d ** m, 2 ** 10) + 1))
    S = bch_signs(r, m, np.arange(n), poly)
    F = C.build_frame(r, m, n_columns=n, irreducible_poly=poly)
    assert np.array_equal(F.signs.astype(np.int64), S)
    assert (F.irreducible_poly, F.r, F.m, F.n_columns) == ((poly if r > 1 else 3), r, m, n)
    meta = F.metadata()
    assert meta == {
        "r": r, "m": m, "m_paper": m, "d": d, "field_rows": d, "n_columns": n, "general": False,
        "irreducible_poly": F.irreducible_poly, "irreducible_poly_str": poly_text(F.irreducible_poly),
        "column_order": "column n <-> (a_0..a_{m-1}), a_j = (n >> (r*j)) & (2^r - 1); a_0 least significant",
        "element_encoding": "galois integer representation (polynomial basis)",
        "entry": "V[x, n] = scale * (1 - 2*bit[x, n]) for x < 2^r, zero rows below",
        "scale": 1 / math.sqrt(d)}
    # WHT certificate of the first n columns, both methods, against the Gram matrix and the column sums
    n_codes = max(d, 1 << (n - 1).bit_length())
    sums = bch_signs(r, m, np.arange(n_codes), poly).sum(axis=0)
    hist = np.bincount(np.abs(sums[1:]), minlength=d + 1)
    top = gram_off_max(S)
    for method in ("blas", "butterfly"):
        cert = CW.certify(r, m, n_columns=n, irreducible_poly=poly, method=method)
        assert cert.max_abs_sum == top and cert.coherence_exact == str(Fraction(top, d))
        assert cert.histogram == {v: int(c) for v, c in enumerate(hist) if c}
    assert CW.character_sums(r, m, n_codes, irreducible_poly=poly).tolist() == sums.tolist()
    # the first 2d + 1 columns: codes with c_1 in {0, 1, 2, 3}, whose sums depend on the modulus (at r = 4, 6 some
    # moduli give other histograms than galois' default one)
    if m * r > r + 2:
        first = bch_signs(r, m, np.arange(4 * d), poly).sum(axis=0)[1:]
        cert2 = CW.certify(r, m, n_columns=2 * d + 1, irreducible_poly=poly)
        assert cert2.histogram == {int(k): int(v) for k, v in zip(*np.unique(np.abs(first), return_counts=True))}
    # a frame read back is checked against its own modulus, and certified with it
    assert certify_frame(F).histogram == cert.histogram
    # the rank certificate of the full frame (m <= 3), by enumerated radicals of tr(a1 x^3 + a2 x^5)
    a = np.arange(d ** (m - 1))
    a1, a2 = a & (d - 1), (a >> r) & (d - 1)
    x = np.arange(d)
    q = gf_trace(gf_mul(a1[:, None], gf_pow(x, 3, poly, r)[None, :], poly, r)
                 ^ gf_mul(a2[:, None], gf_pow(x, 5, poly, r)[None, :], poly, r), poly, r)
    w = np.array([radical_dim(row, r) for row in q])
    assert CR.lemma_radical_dims(r, a1, a2, poly).tolist() == w.tolist()
    counts = {int(k): int(v) for k, v in zip(*np.unique(w, return_counts=True))}
    for symmetry in (True, False):
        assert CR.radical_dim_counts(r, m, symmetry, irreducible_poly=poly) == counts
    full = bch_signs(r, m, np.arange(d ** m), poly).sum(axis=0)[1:]
    qc = CR.quadratic_certificate(r, m, irreducible_poly=poly)
    assert qc.histogram == {int(k): int(v) for k, v in zip(*np.unique(np.abs(full), return_counts=True))}
    assert qc.signed_histogram == {int(k): int(v) for k, v in zip(*np.unique(full, return_counts=True))}
    # the implicit operator: columns and products against the reference matrix
    op = OP.ImplicitFrame(r, m, n, irreducible_poly=poly, chunk_elements=int(rng.integers(1, 3 * n)))
    assert op.parameters()["irreducible_poly"] == F.irreducible_poly
    V = S / math.sqrt(d)
    idx = rng.integers(0, n, size=6)
    np.testing.assert_array_equal(op.columns(idx), V[:, idx])
    z, y = rng.standard_normal(n), rng.standard_normal(d)
    np.testing.assert_allclose(op.matvec(z), V @ z, rtol=0, atol=1e-12 * math.sqrt(n))
    np.testing.assert_allclose(op.rmatvec(y), V.T @ y, rtol=0, atol=1e-12 * math.sqrt(d))


#: (construction, r, delta) with a field GF(2^(r-1)) of degree 1, 3 or 5, small enough for the full Gram matrix
CODE_CASES = [(cons, r, delta, int(p)) for cons, r, delta in [("kerdock", 2, None), ("kerdock", 4, None),
                                                                ("dg", 4, 1), ("kerdock", 6, None)]
              for p in moduli(r - 1)]


@pytest.mark.parametrize("case", CODE_CASES, ids=lambda c: f"{c[0]}{c[1]}-{c[3]:#b}")
def test_code_frames_and_certificates_with_every_modulus(case):
    cons, r, delta, poly = case
    dl = delta or 0
    mp, d = r - 1, 2 ** r
    n = 2 ** ((dl + 1) * mp + r)
    S = code_signs(r, dl, np.arange(n), poly)
    F = C.build_code_frame(cons, r, delta, irreducible_poly=poly)
    assert np.array_equal(F.signs.astype(np.int64), S)
    rec = poly if mp > 1 else 0b11
    assert F.metadata() == {
        "construction": cons, "delta": dl, "r": r, "m": dl + 1, "m_paper": None, "d": d, "field_rows": d,
        "n_columns": n, "general": False, "irreducible_poly": rec, "irreducible_poly_str": poly_text(rec),
        "field": f"GF(2^{mp}) x GF(2): row v = x | (eps << {mp})",
        "column_order": f"column n <-> (u, c_1..c_delta, b): b = n & (2^r - 1), code = n >> r, u = code & "
                        f"(2^{mp} - 1), c_j = (code >> ({mp}*j)) & (2^{mp} - 1)",
        "element_encoding": "galois integer representation (polynomial basis)",
        "entry": "V[v, n] = scale * (-1)^(K_u(x, eps) + sum_j tr(c_j x^(2^j+1)) + <b, v>), "
                 "K_u = sum_{k=1}^{t} tr((u x)^(2^k+1)) + eps tr(u x), t = (r-2)/2",
        "scale": 1 / math.sqrt(d)}
    rng = np.random.default_rng(poly + r)
    cols = rng.integers(0, n, size=9)
    assert C.code_sign_bits(cons, r, cols, delta, irreducible_poly=poly).T.tolist() == ((1 - S[:, cols]) // 2).tolist()
    # the certificate (every modulus: the same histogram, the frames being isomorphic), by the Gram of the frame
    G = gram(S)
    top = gram_off_max(S)
    rows = np.arange(2 ** mp) << r
    hist = np.bincount(np.abs(G[rows]).reshape(-1), minlength=d + 1)
    hist[d] -= rows.size
    want = {int(k): int(hist[k]) for k in np.nonzero(hist)[0]}
    for method in ("rank", "wht"):
        for symmetry in (True, False):
            cert = CC.code_certificate(cons, r, delta, method=method, irreducible_poly=poly, symmetry=symmetry)
            assert cert.histogram == want and cert.max_abs_sum == top
    assert certify_frame(F).histogram == want
    op = OP.ImplicitCodeFrame(cons, r, delta, irreducible_poly=poly, chunk_elements=int(rng.integers(1, 2 * n)))
    assert op.parameters()["irreducible_poly"] == rec
    V = S / math.sqrt(d)
    np.testing.assert_array_equal(op.columns(cols), V[:, cols])
    z = rng.standard_normal(n)
    np.testing.assert_allclose(op.matvec(z), V @ z, rtol=0, atol=1e-12 * math.sqrt(n))


def _bad_moduli(r: int) -> list:
    """Malformed moduli of a degree-r field: reducible ones of degree r, irreducible ones of another degree, values
    that are no polynomial bit mask (0, 1, negative, float, bool, text)."""
    reducible = [p for p in range(2 ** r, 2 ** (r + 1)) if not galois.Poly.Int(p, field=galois.GF(2)).is_irreducible()]
    other = [int(p) for p in galois.irreducible_polys(2, r + 1)][:1] + [int(p) for p in galois.irreducible_polys(2, 1)
                                                                          if r != 1]
    default = int(galois.GF(2 ** r).irreducible_poly)
    return reducible[:2] + other[:2] + [0, 1, -default, float(default), default + 0.5, True, str(default)]


def _refusal(r: int, value) -> str:
    shown = value if isinstance(value, int) and not isinstance(value, bool) else repr(value)
    return f"Argument 'irreducible_poly' must be an irreducible polynomial of degree {r} over GF(2), not {shown}."


#: every public entry point taking irreducible_poly: (name, call(poly), degree of its field)
ENTRY_POINTS = [
    ("field_of", lambda p: FL.field_of(3, p), 3),
    ("field_of r=1", lambda p: FL.field_of(1, p), 1),
    ("trace_mask", lambda p: FL.trace_mask(3, p), 3),
    ("fast_trace", lambda p: FL.fast_trace([1, 2], 3, p), 3),
    ("trace_form", lambda p: FL.trace_form(3, p), 3),
    ("power_table", lambda p: FL.power_table(3, 1, p), 3),
    ("sign_bits", lambda p: FL.sign_bits(3, np.arange(4), 2, irreducible_poly=p), 3),
    ("build_frame", lambda p: C.build_frame(3, 2, irreducible_poly=p), 3),
    ("certify", lambda p: CW.certify(3, 2, irreducible_poly=p), 3),
    ("character_sums", lambda p: CW.character_sums(3, 2, irreducible_poly=p), 3),
    ("lemma_radical_dims", lambda p: CR.lemma_radical_dims(3, [1], [2], p), 3),
    ("radical_dim_counts", lambda p: CR.radical_dim_counts(3, 3, irreducible_poly=p), 3),
    ("quadratic_certificate", lambda p: CR.quadratic_certificate(3, 3, irreducible_poly=p), 3),
    ("ImplicitFrame", lambda p: OP.ImplicitFrame(3, 2, irreducible_poly=p), 3),
    ("code_sign_bits", lambda p: C.code_sign_bits("kerdock", 4, [0, 5], irreducible_poly=p), 3),
    ("build_code_frame", lambda p: C.build_code_frame("kerdock", 4, irreducible_poly=p), 3),
    ("code_certificate rank", lambda p: CC.code_certificate("kerdock", 4, irreducible_poly=p), 3),
    ("code_certificate wht", lambda p: CC.code_certificate("dg", 4, 1, method="wht", irreducible_poly=p), 3),
    # without the symmetry scan no Frobenius table is built: the modulus is refused before any work all the same
    ("code_certificate no symmetry", lambda p: CC.code_certificate("kerdock", 4, irreducible_poly=p, symmetry=False), 3),
    ("code_certificate wht no symmetry",
     lambda p: CC.code_certificate("kerdock", 4, method="wht", irreducible_poly=p, symmetry=False), 3),
    ("ImplicitCodeFrame", lambda p: OP.ImplicitCodeFrame("kerdock", 4, irreducible_poly=p), 3),
    ("kerdock r=2", lambda p: C.build_code_frame("kerdock", 2, irreducible_poly=p), 1),
]


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=lambda e: e[0])
def test_every_entry_point_refuses_each_malformed_modulus(entry):
    _, call, r = entry
    default = int(galois.GF(2 ** r).irreducible_poly)
    call(default)   # the default modulus first: a cached table must not let a malformed one through afterwards
    for bad in _bad_moduli(r):
        with pytest.raises(VerifyInputError) as exc:
            call(bad)
        assert str(exc.value) == _refusal(r, bad), bad


def walsh_hadamard(f: np.ndarray) -> np.ndarray:
    """F(u) = sum_x f(x) (-1)^popcount(u & x), by butterflies written here."""
    F = f.astype(np.int64).copy()
    h = 1
    while h < F.size:
        F = F.reshape(-1, 2, h)
        F = np.stack([F[:, 0] + F[:, 1], F[:, 0] - F[:, 1]], axis=1).reshape(-1)
        h *= 2
    return F


@pytest.mark.parametrize("r", [9, 13, pytest.param(12, marks=pytest.mark.slow), pytest.param(14, marks=pytest.mark.slow),
                               pytest.param(16, marks=pytest.mark.slow)])
def test_large_fields_with_a_non_default_modulus(r):
    """Both sign routes (tables up to TABLE_MAX_R = 12, parities above), the implicit operator's columns and the WHT
    certificate of the first 2^(r+1) + 3 columns (codes with c_1 in {0, 1, 2, 3}) with the largest irreducible modulus of
    degree r; the sums by tr(c_0 x) = <beta(c_0), x> with beta from the reference arithmetic and a WHT written here."""
    poly = int(galois.irreducible_poly(2, r, method="max"))
    assert poly != int(galois.GF(2 ** r).irreducible_poly)
    d = 2 ** r
    rng = np.random.default_rng(r)
    codes = rng.integers(0, d * d, size=5)
    S = bch_signs(r, 2, codes, poly)
    assert FL.sign_bits(r, codes, 2, irreducible_poly=poly).tolist() == ((1 - S.T) // 2).tolist()
    op = OP.ImplicitFrame(r, 2, irreducible_poly=poly)
    np.testing.assert_array_equal(op.columns(codes), S / math.sqrt(d))
    x = np.arange(d, dtype=np.int64)
    beta = sum(gf_trace(gf_mul(x, 1 << i, poly, r), poly, r) << i for i in range(r))
    hist = np.zeros(d + 1, dtype=np.int64)
    for c1 in range(4):
        f = 1 - 2 * gf_trace(gf_mul(gf_pow(x, 3, poly, r), c1, poly, r), poly, r)
        sums = walsh_hadamard(f)[beta]          # S(c_0, c_1) for c_0 = 0 .. d - 1
        hist += np.bincount(np.abs(sums), minlength=d + 1)
    hist[d] -= 1                                # the diagonal (code 0)
    cert = CW.certify(r, 2, n_columns=2 * d + 3, irreducible_poly=poly)
    assert cert.histogram == {v: int(c) for v, c in enumerate(hist) if c}
