r"""The frames package's refusals, records and routes that a user reads or takes, compared whole (issue 41, gap classes
(a) a message or record not compared whole, (b) a route never run, (d) a refusal untested).

* every refusal of the constructions' and certificates' input helpers (``_frame_size``, ``_check_size``,
  ``code_parameters``, ``build_code_frame``'s size limit, ``_check_codes``, ``_column_indices``) is one
  ``VerifyInputError`` line naming the parameter and what is allowed, compared character for character with the text
  written here, on both sides of each limit (the size limits moved by patching them, so both sides are cheap);
* :meth:`Frame.metadata` of a general-d frame as a whole dict;
* the distributed routes (``client=``) of :func:`~verify.numeric.frames.cert_wht.certify` and
  :func:`~verify.numeric.frames.cert_rank.radical_dim_counts` / ``quadratic_certificate`` on an in-process Dask
  cluster, equal to the serial route and to the column sums of the entry-by-entry reference, with the chunking
  patched small so that several tasks run and the last one is partial.
"""

import logging
import math
from unittest import mock

import numpy as np
import pytest

from verify import VerifyInputError
from verify.numeric.frames import cert_rank as CR
from verify.numeric.frames import cert_wht as CW
from verify.numeric.frames import constructions as C
from verify.numeric.frames import description as D
from verify.numeric.frames import operator as OP
from gf_reference import bch_signs, code_signs, poly_text


def refused(call) -> str:
    with pytest.raises(VerifyInputError) as exc:
        call()
    return str(exc.value)


# ---- (a) size limits: the whole advice, both sides of the limit -------------------------------------------------

FRAME_ADVICE = ("build it with --implicit (ImplicitFrame / save_implicit: parameters and certificate, applied without "
                "storing the signs) or certify it with certify (neither materialises the frame).")
CODE_ADVICE = ("build it with --implicit (ImplicitCodeFrame: parameters and certificate) or certify it with "
               "code_certificate (neither materialises it).")


def test_too_large_frames_are_refused_with_the_whole_advice():
    assert refused(lambda: C.build_frame(16, 2)) == (
        f"Argument 'd' gives a 65536 x {2 ** 32} frame, more than {2 ** 30} entries; " + FRAME_ADVICE)
    assert refused(lambda: C.build_general_frame(70000, 2)) == (
        f"Argument 'd' gives a 70000 x {70000 ** 2} frame, more than {2 ** 30} entries; " + FRAME_ADVICE)
    assert refused(lambda: C.build_code_frame("kerdock", 12)) == (
        f"Argument 'r' gives a 4096 x {2 ** 23} kerdock frame, more than {2 ** 30} entries; " + CODE_ADVICE)
    assert refused(lambda: C.build_code_frame("dg", 8, 2)) == (
        f"Argument 'r' gives a 256 x {2 ** 29} dg frame, more than {2 ** 30} entries; " + CODE_ADVICE)


@pytest.mark.parametrize("r,m,n", [(3, 2, 64), (3, 2, 37), (2, 3, 1)])
def test_the_frame_size_limit_is_inclusive(r, m, n):
    """Exactly MAX_FRAME_BITS entries are built; one fewer allowed entry refuses (the limit patched to the size)."""
    d = 2 ** r
    with mock.patch.object(D, "MAX_FRAME_BITS", d * n):
        assert C.build_frame(r, m, n_columns=n).signs.shape == (d, n)
    with mock.patch.object(D, "MAX_FRAME_BITS", d * n - 1):
        assert refused(lambda: C.build_frame(r, m, n_columns=n)) == (
            f"Argument 'd' gives a {d} x {n} frame, more than {d * n - 1} entries; " + FRAME_ADVICE)


@pytest.mark.parametrize("cons,r,delta", [("kerdock", 2, None), ("kerdock", 4, None), ("dg", 4, 1)])
def test_the_code_frame_size_limit_is_inclusive(cons, r, delta):
    n = 2 ** (((delta or 0) + 1) * (r - 1) + r)
    with mock.patch.object(C, "MAX_FRAME_BITS", 2 ** r * n):
        F = C.build_code_frame(cons, r, delta)
    galois_default = {1: 0b11, 3: 0b1011}[r - 1]
    assert np.array_equal(F.signs.astype(np.int64), code_signs(r, delta or 0, np.arange(n), galois_default))
    with mock.patch.object(C, "MAX_FRAME_BITS", 2 ** r * n - 1):
        assert refused(lambda: C.build_code_frame(cons, r, delta)) == (
            f"Argument 'r' gives a {2 ** r} x {n} {cons} frame, more than {2 ** r * n - 1} entries; " + CODE_ADVICE)


# ---- (d) every refusal of the input helpers ---------------------------------------------------------------------

def test_code_parameters_refusals_and_domain():
    assert refused(lambda: C.code_parameters("bch", 4)) == "Argument 'construction' must be one of 'kerdock', 'dg', not 'bch'."
    assert refused(lambda: C.code_parameters("kerdock", 1)) == "Argument 'r' must be an integer >= 2 and <= 16, not 1."
    assert refused(lambda: C.code_parameters("kerdock", 18)) == "Argument 'r' must be an integer >= 2 and <= 16, not 18."
    for r in (3, 5, 15):
        for cons in ("kerdock", "dg"):
            assert refused(lambda: C.code_parameters(cons, r)) == \
                f"Argument 'r' must be even for {cons} frames (d = 4^k), not {r}."
    for bad in (1, -1, 2):
        assert refused(lambda: C.code_parameters("kerdock", 6, bad)) == \
            f"Argument 'delta' must be 0 (or omitted) for kerdock frames, not {bad}."
    assert refused(lambda: C.code_parameters("dg", 2)) == \
        "Argument 'r' must be >= 4 for dg frames (1 <= delta <= (r-2)/2), not 2."
    for r in (4, 6, 8, 16):
        t = (r - 2) // 2
        for bad in (0, t + 1):
            assert refused(lambda: C.code_parameters("dg", r, bad)) == \
                f"Argument 'delta' must be an integer >= 1 and <= {t}, not {bad}."
        # the whole domain: (m', delta, 2^((delta+1) m' + r)) for every allowed delta
        assert C.code_parameters("kerdock", r) == C.code_parameters("kerdock", r, 0) == (r - 1, 0, 2 ** (2 * r - 1))
        assert C.code_parameters("dg", r) == (r - 1, 1, 2 ** (3 * r - 2))
        for delta in range(1, t + 1):
            assert C.code_parameters("dg", r, delta) == (r - 1, delta, 2 ** ((delta + 1) * (r - 1) + r))


def test_frame_size_and_certificate_code_refusals():
    assert refused(lambda: C.build_frame(0, 2)) == "Argument 'r' must be an integer >= 1 and <= 16, not 0."
    assert refused(lambda: C.build_frame(17, 1)) == "Argument 'r' must be an integer >= 1 and <= 16, not 17."
    assert refused(lambda: C.build_frame(2, 0)) == "Argument 'm' must be an integer >= 1, not 0."
    assert refused(lambda: C.build_frame(2, 2, n_columns=0)) == \
        "Argument 'n_columns' must be an integer >= 1 and <= 16, not 0."
    assert refused(lambda: C.build_frame(2, 2, n_columns=17)) == \
        "Argument 'n_columns' must be an integer >= 1 and <= 16, not 17."
    assert refused(lambda: CW.certify(2, 2, n_columns=1)) == \
        "Argument 'n_columns' must be an integer >= 2 and <= 16, not 1."
    assert CW.certify(2, 2, n_columns=2).n_columns == 2 and C.build_frame(2, 2, n_columns=1).n_columns == 1
    assert refused(lambda: CW.character_sums(3, 2, 12)) == "Argument 'n_codes' must be a multiple of 2^r = 8, not 12."
    assert refused(lambda: CW.character_sums(3, 2, 4)) == "Argument 'n_codes' must be an integer >= 8 and <= 64, not 4."
    assert refused(lambda: CW.character_sums(3, 2, 72)) == \
        "Argument 'n_codes' must be an integer >= 8 and <= 64, not 72."
    for route in ({}, {"client": object()}):
        assert refused(lambda: CW.certify(3, 2, method="fwht", **route)) == \
            "Argument 'method' must be one of 'blas', 'butterfly', not 'fwht'."
    assert refused(lambda: C.general_parameters(1, 2)) == "Argument 'd' must be an integer >= 2 and <= 131071, not 1."
    assert refused(lambda: C.general_parameters(2 ** 17, 2)) == \
        f"Argument 'd' must be an integer >= 2 and <= 131071, not {2 ** 17}."
    assert refused(lambda: C.random_frame(3, 4, "x")) == "Argument 'kind' must be one of 'gaussian', 'sign', not 'x'."


#: (indices, the end of the refusal after "Argument 'NAME' must hold "), for a frame of 64 columns
BAD_INDICES = [
    ([1.0], "integer column indices in [0, 64), not an array of float64."),
    (np.array([0.5, 2.0]), "integer column indices in [0, 64), not an array of float64."),
    (np.array([3], dtype=np.float32), "integer column indices in [0, 64), not an array of float32."),
    ([True, False], "integer column indices in [0, 64), not an array of bool."),
    (["3"], "integer column indices in [0, 64), not an array of <U1."),
    (np.array([1 + 0j]), "integer column indices in [0, 64), not an array of complex128."),
    ([], None),
    # empty arrays that are not of numbers: no index, but not an empty list either; refused, shown as given
    (np.array([], dtype=bool), "integer column indices in [0, 64), not array([], dtype=bool)."),
    (np.array([], dtype="<U1"), "integer column indices in [0, 64), not array([], dtype='<U1')."),
    (np.array([], dtype=complex), "integer column indices in [0, 64), not array([], dtype=complex128)."),
    ([-1, 5], "column indices in [0, 64), not -1 (at position 0)."),
    ([3, 64, -2], "column indices in [0, 64), not 64 (at position 1)."),
    (np.array([[0, 1], [70, 2]]), "column indices in [0, 64), not 70 (at position 2)."),
    (np.array([2 ** 40], dtype=np.uint64), f"column indices in [0, 64), not {2 ** 40} (at position 0)."),
]


@pytest.mark.parametrize("idx,tail", BAD_INDICES, ids=range(len(BAD_INDICES)))
def test_column_index_refusals_of_every_entry_point(idx, tail):
    """ImplicitFrame.columns, ImplicitCodeFrame.columns (``idx``) and code_sign_bits (``columns``) share one rule."""
    lemma = OP.ImplicitFrame(3, 2)                     # 64 columns
    code = OP.ImplicitCodeFrame("kerdock", 4, n_columns=64)
    calls = [("idx", lambda: lemma.columns(idx)), ("idx", lambda: code.columns(idx))]
    if tail is None:   # an empty list is no index at all: zero columns
        assert lemma.columns(idx).shape == (8, 0) and code.columns(idx).shape == (16, 0)
        assert C.code_sign_bits("kerdock", 4, idx).shape == (0, 16)
        assert lemma.columns(np.array([], dtype=np.float64)).shape == (8, 0)
        return
    for name, call in calls:
        assert refused(call) == f"Argument '{name}' must hold " + tail
    # code_sign_bits: the same rule over the whole kerdock r = 4 frame (128 columns)
    want = ("Argument 'columns' must hold " + tail).replace("[0, 64)", "[0, 128)")
    if "at position" in tail:
        arr = np.asarray(idx).astype(np.int64).reshape(-1)
        bad = np.flatnonzero((arr < 0) | (arr >= 128))
        if not bad.size:   # 64 and 70 are columns of the larger frame: accepted there
            assert C.code_sign_bits("kerdock", 4, idx).shape == (arr.size, 16)
            return
        want = f"Argument 'columns' must hold column indices in [0, 128), not {int(arr[bad[0]])} (at position {int(bad[0])})."
    assert refused(lambda: C.code_sign_bits("kerdock", 4, idx)) == want


def test_accepted_column_indices_are_flattened_in_order():
    lemma, code = OP.ImplicitFrame(3, 2), OP.ImplicitCodeFrame("dg", 4, 1)
    S = bch_signs(3, 2, np.arange(64), 0b1011) / math.sqrt(8)
    idx = np.array([[5, 0], [63, 5]], dtype=np.uint8)
    np.testing.assert_array_equal(lemma.columns(idx), S[:, [5, 0, 63, 5]])
    np.testing.assert_array_equal(lemma.columns(np.int64(7)), S[:, [7]])
    T = code_signs(4, 1, np.arange(1024), 0b1011)
    cols = [1023, 0, 512]
    np.testing.assert_array_equal(code.columns(np.array(cols, dtype=np.int32)), T[:, cols] / 4)
    assert C.code_sign_bits("dg", 4, [[1023], [0]], 1).tolist() == ((1 - T[:, [1023, 0]].T) // 2).tolist()


# ---- (a) the general-d frame's record, whole ----------------------------------------------------------------------

@pytest.mark.parametrize("d,m", [(3, 1), (12, 1), (5, 2)])
def test_general_frame_metadata_whole(d, m):
    r = d.bit_length() - 1
    F = C.build_general_frame(d, m)
    poly = {1: 0b11, 2: 0b111, 3: 0b1011}[r]
    assert F.metadata() == {
        "r": r, "m": 2 * m, "m_paper": m, "d": d, "field_rows": 2 ** r, "n_columns": d ** m, "general": True,
        "irreducible_poly": poly, "irreducible_poly_str": poly_text(poly),
        "column_order": "column n <-> (a_0..a_{m-1}), a_j = (n >> (r*j)) & (2^r - 1); a_0 least significant",
        "element_encoding": "galois integer representation (polynomial basis)",
        "entry": "V[x, n] = scale * (1 - 2*bit[x, n]) for x < 2^r, zero rows below",
        "scale": 1 / math.sqrt(2 ** r)}
    V = np.zeros((d, d ** m))
    V[: 2 ** r] = bch_signs(r, 2 * m, np.arange(d ** m), poly) / math.sqrt(2 ** r)
    np.testing.assert_array_equal(F.dense(), V)
    np.testing.assert_array_equal(F.as_array(np.float32), V.astype(np.float32))
    z = np.arange(d ** m, dtype=np.float64)
    np.testing.assert_allclose(F.as_linear_operator().matvec(z), V @ z, rtol=1e-13, atol=1e-12)
    assert refused(lambda: F.as_array(np.int32)) == \
        "Argument 'dtype' must be a numpy float dtype (float32, float64), not <class 'numpy.int32'>."
    assert refused(lambda: F.as_torch(dtype="float")) == \
        "Argument 'dtype' must be a torch floating dtype (torch.float32, torch.float64) or None, not 'float'."
    import torch

    assert refused(lambda: F.as_torch(dtype=torch.int32)) == \
        "Argument 'dtype' must be a torch floating dtype (torch.float32, torch.float64) or None, not torch.int32."
    assert refused(lambda: F.as_torch(device="tpu")) == \
        "Argument 'device' must be a torch device such as 'cpu' or 'cuda', not 'tpu'."
    t32, t64 = F.as_torch(), F.as_torch(device="cpu", dtype=torch.float64)
    assert (t32.dtype, t64.dtype, t32.device.type) == (torch.float32, torch.float64, "cpu")
    np.testing.assert_array_equal(t32.numpy(), V.astype(np.float32))
    np.testing.assert_array_equal(t64.numpy(), V)


# ---- (b) the distributed routes ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def client():
    """An in-process Dask cluster (threads, no worker processes: starts in well under a second, and a patched
    chunk size is seen by the tasks)."""
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as c:
        yield c


#: (r, m, n_columns, modulus or None, method, CHUNK_ELEMENTS): several tasks (the chunk a few rows of 2^r), the last
#: partial; the first n columns with n off a power of two; the default and non-default moduli (at r = 4, n = 40 and
#: r = 6, n = 200 the certificate of the first n columns differs between these moduli and galois' default one)
DISTRIBUTED = [(3, 3, 300, None, "blas", 8 * 5), (4, 2, 256, 0b11001, "butterfly", 16 * 3), (4, 2, 40, 0b11001, "blas", 16),
               (6, 2, 200, 0b1001001, "butterfly", 64 * 3),
               (5, 2, 700, 0b111101, "blas", 32 * 4), (2, 3, 64, None, "butterfly", 4), (6, 2, 4096, None, "blas",
                                                                                          2 ** 20)]


@pytest.mark.parametrize("method", ["blas", "butterfly"])
def test_the_distributed_route_runs_the_asked_wht_method(client, method):
    """Both transforms give the same certificate, so only the calls tell which ran: every task of the distributed
    route (threads: the patched function is the one the tasks call) runs the method asked, as the serial route does
    (tests/numeric/test_frames.py)."""
    seen = []
    real = CW._wht_rows

    def spy(bits, r, how="blas"):
        seen.append(how)
        return real(bits, r, how)

    with mock.patch.object(CW, "CHUNK_ELEMENTS", 16 * 3), mock.patch.object(CW, "_wht_rows", spy):
        cert = CW.certify(4, 2, method=method, client=client)
    assert len(seen) >= 2 and set(seen) == {method}
    assert cert.histogram == CW.certify(4, 2, method="blas").histogram


@pytest.mark.parametrize("r,m,n,poly,method,chunk", DISTRIBUTED)
def test_certify_distributed_route_equals_the_serial_route_and_the_reference(client, r, m, n, poly, method, chunk):
    with mock.patch.object(CW, "CHUNK_ELEMENTS", chunk):
        dist = CW.certify(r, m, n_columns=n, irreducible_poly=poly, method=method, client=client)
        serial = CW.certify(r, m, n_columns=n, irreducible_poly=poly, method=method)
    assert dist.evidence() == serial.evidence() and dist.histogram == serial.histogram
    d = 2 ** r
    n_codes = max(d, 1 << (n - 1).bit_length())
    mod = poly or int(C.field_of(r).irreducible_poly)
    sums = bch_signs(r, m, np.arange(n_codes), mod).sum(axis=0)
    hist = np.bincount(np.abs(sums[1:]), minlength=d + 1)
    assert dist.histogram == {v: int(c) for v, c in enumerate(hist) if c}
    assert dist.max_abs_sum == max((v for v, c in enumerate(hist) if c), default=0)
    if poly is not None:   # the route refuses a malformed modulus like the serial one (one message)
        bad = poly ^ 1     # even: divisible by x
        with pytest.raises(VerifyInputError) as exc:
            CW.certify(r, m, n_columns=n, irreducible_poly=bad, method=method, client=client)
        assert str(exc.value) == (f"Argument 'irreducible_poly' must be an irreducible polynomial of degree {r} over "
                                  f"GF(2), not {bad}.")


@pytest.mark.parametrize("r,m,symmetry,poly,batch", [(3, 3, True, None, 8), (4, 3, False, 0b10011, 40),
                                                     (5, 3, True, 0b111101, 64), (4, 2, True, None, 16)])
def test_rank_certificate_distributed_route_equals_the_serial_route(client, r, m, symmetry, poly, batch):
    with mock.patch.object(CR, "BATCH", batch):
        dist = CR.radical_dim_counts(r, m, symmetry, irreducible_poly=poly, client=client)
        serial = CR.radical_dim_counts(r, m, symmetry, irreducible_poly=poly)
        qd = CR.quadratic_certificate(r, m, symmetry, irreducible_poly=poly, client=client)
    assert dist == serial == qd.radical_dims
    d = 2 ** r
    mod = poly or int(C.field_of(r).irreducible_poly)
    sums = bch_signs(r, m, np.arange(d ** m), mod).sum(axis=0)[1:]
    assert qd.signed_histogram == {int(k): int(v) for k, v in zip(*np.unique(sums, return_counts=True))}


# ---- (e) the progress option: the same result, and the bar named as written here ---------------------------------

def test_progress_bars_change_nothing_but_the_terminal(capsys, client):
    from verify.numeric.frames import catalogue as CAT
    from verify.numeric.frames import cert_codes as CC

    runs = [
        (lambda p: CC.code_certificate("dg", 4, 1, progress=p).evidence(), "dg r=4"),
        (lambda p: CR.radical_dim_counts(3, 3, progress=p), "ranks r=3"),
        (lambda p: CR.radical_dim_counts(3, 3, progress=p, client=client), "ranks r=3"),
        (lambda p: CR.quadratic_certificate(4, 3, progress=p).evidence(), "ranks r=4"),
        (lambda p: [row.as_dict() for row in CAT.frame_table(4, lp=False, progress=p)], "frame table d=4"),
        (lambda p: CAT.best_frame(4, 6, lp=False, progress=p).as_dict(), "kerdock r=2"),
    ]
    for run, desc in runs:
        capsys.readouterr()
        quiet = run(False)
        assert desc not in capsys.readouterr().err
        loud = run(True)
        assert desc in capsys.readouterr().err, desc
        if isinstance(quiet, dict) and "seconds" in quiet:
            quiet.pop("seconds"), loud.pop("seconds")
        assert loud == quiet, desc


@pytest.mark.parametrize("cons,r,delta,chunk_forms", [("kerdock", 4, None, 2), ("dg", 4, 1, 3), ("kerdock", 6, None, 1)])
def test_code_frame_chunks_are_the_largest_within_the_memory_bound(monkeypatch, cons, r, delta, chunk_forms):
    """build_code_frame computes its sign bits in column chunks of CHUNK_FORMS * 64 entries (2^r rows each): every
    chunk within that bound, all but the last exactly as wide as it allows, every column once, in order; the frame
    is the one built in a single chunk."""
    whole = C.build_code_frame(cons, r, delta)
    widths, starts = [], []
    real = C.code_sign_bits

    def spy(construction, rr, cols, dl=None, poly=None):
        widths.append(len(cols))
        starts.append(int(cols[0]))
        return real(construction, rr, cols, dl, poly)

    monkeypatch.setattr(C, "CHUNK_FORMS", chunk_forms)
    monkeypatch.setattr(C, "code_sign_bits", spy)
    got = C.build_code_frame(cons, r, delta)
    step = max(1, chunk_forms * 64 // 2 ** r)
    n = whole.n_columns
    assert widths == [step] * (n // step) + ([n % step] if n % step else [])
    assert starts == list(range(0, n, step)) and max(widths) * 2 ** r <= max(chunk_forms * 64, 2 ** r)
    assert np.array_equal(got.signs, whole.signs)


def test_each_distributed_route_labels_its_progress_bar(client, monkeypatch):
    """The progress bar a user watches on a cluster names what runs: the WHT certificate its r and m, the rank
    certificate its r; the rank route passes its ``progress`` on (the WHT route always shows its bar)."""
    import verify.distributed as DIST

    seen = []
    real = DIST.map_ordered

    def spy(client_, fn, items, *, desc=None, progress=True):
        seen.append((desc, progress))
        return real(client_, fn, items, desc=desc, progress=False)

    monkeypatch.setattr(DIST, "map_ordered", spy)
    CW.certify(4, 2, client=client)
    CR.radical_dim_counts(3, 3, client=client, progress=False)
    CR.radical_dim_counts(3, 3, client=client, progress=True)
    assert seen == [("WHT r=4 m=2", True), ("ranks r=3", False), ("ranks r=3", True)]
