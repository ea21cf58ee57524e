"""Frame files: canonical metadata, round trips over every CLI size in budget, legacy files, tampering.

Issue 15: the digest was taken over ``json.dumps(meta)`` while histogram keys were ints; after loading
they are strings and sort differently, so any histogram whose keys mix digit counts (d = 64) failed
its own checksum.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verify._io import canonical, canonical_json
from verify._validate import VerifyInputError
from verify.cli import main
from verify.numeric import frames

DATA = Path(__file__).resolve().parents[1] / "data"

# every (r, m) the CLI accepts within MAX_FRAME_BITS; (7, 3) and (10, 2) take seconds each -> slow
POW2 = [(r, m) for r in range(1, 11) for m in (1, 2, 3) if 2 ** r * 2 ** (r * m) <= frames.MAX_FRAME_BITS]
SLOW = {(7, 3), (10, 2)}


def _cli(*args) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(args))
    return code, out.getvalue()


def _roundtrip(tmp_path, *build_args) -> None:
    f = tmp_path / "f.npz"
    code, built = _cli("frame", "build", *build_args, "-o", str(f), "--json")
    assert code == 0
    code, again = _cli("frame", "certify", str(f), "--json")
    assert code == 0
    a, b = json.loads(built), json.loads(again)
    a.pop("seconds"), b.pop("seconds")
    assert canonical(a) == canonical(b)  # the same certificate, histogram included
    first = f.read_bytes()
    assert _cli("frame", "build", *build_args, "-o", str(f))[0] == 0
    assert f.read_bytes() == first  # same bytes on rebuild


@pytest.mark.parametrize("r,m", [pytest.param(r, m, marks=pytest.mark.slow) if (r, m) in SLOW else (r, m)
                                 for r, m in POW2])
def test_pow2_roundtrip(tmp_path, r, m):
    _roundtrip(tmp_path, "--d", str(2 ** r), "--m", str(m))


@pytest.mark.parametrize("m", [1, 2])
def test_general_roundtrip_all_d(tmp_path, m):
    for d in range(2, 128):
        _roundtrip(tmp_path, "--d", str(d), "--m", str(m), "--general")


def test_d64_histogram_keys_mix_digit_counts(tmp_path):
    # the reported case: keys 0, 8, 16 sort differently as ints and as strings
    f = tmp_path / "f.npz"
    meta = frames.save_frame(frames.build_frame(6, 2), f, frames.certify(6, 2))
    assert sorted(meta["certificate"]["histogram"]) == ["0", "16", "8"]
    frame, loaded = frames.load_frame(f)
    assert loaded == meta
    assert frames.certify_frame(frame).max_abs_sum == 16


@pytest.mark.parametrize("name,max_abs", [("frame_v1_d64_m2.npz", 16), ("frame_v1_d12_m2_general.npz", 8)])
def test_version1_files_still_load(name, max_abs):
    # written by verify 0.1.0 (format_version 1): their checksum verifies under the old rule
    frame, meta = frames.load_frame(DATA / name)
    assert meta["format_version"] == 1
    assert frames.certify_frame(frame).max_abs_sum == max_abs


def test_version1_tampered_says_how_to_rebuild(tmp_path):
    z = dict(np.load(DATA / "frame_v1_d64_m2.npz"))
    meta = json.loads(str(z["meta"]))
    meta["certificate"]["max_abs_sum"] = 8
    z["meta"] = np.array(json.dumps(meta, sort_keys=True))
    np.savez(tmp_path / "t.npz", **z)
    with pytest.raises(VerifyInputError, match="rebuild it with 'verify frame build' --d 64 --m 2"):
        frames.load_frame(tmp_path / "t.npz")


# ----------------------------------------------------------------------------- canonical metadata
_keys = st.one_of(st.text(max_size=6), st.integers(-10 ** 6, 10 ** 6))
_leaf = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70),
                  st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
_json = st.recursive(_leaf, lambda c: st.one_of(st.lists(c, max_size=4), st.dictionaries(_keys, c, max_size=4)),
                     max_leaves=20)


def _collides(value) -> bool:
    if isinstance(value, dict):
        names = [k if isinstance(k, str) else json.dumps(k) for k in value]
        return len(set(names)) < len(names) or any(_collides(v) for v in value.values())
    return isinstance(value, list) and any(_collides(v) for v in value)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(user=st.dictionaries(_keys, _json, max_size=5))
def test_metadata_roundtrip_property(tmp_path, user):
    f = tmp_path / "p.npz"
    frame = frames.build_frame(2, 2)
    if _collides(user):
        with pytest.raises(VerifyInputError, match="two keys that read alike"):
            frames.save_frame(frame, f, frames.certify(2, 2), user=user)
        return
    meta = frames.save_frame(frame, f, frames.certify(2, 2), user=user)
    first = f.read_bytes()
    loaded_frame, loaded = frames.load_frame(f)
    assert loaded == meta
    assert canonical_json(loaded) == canonical_json(meta) == canonical_json({**meta})
    assert json.loads(canonical_json(user)) == loaded["user"]
    assert frames.certify_frame(loaded_frame).as_dict()["histogram"] == frames.certify(2, 2).histogram
    frames.save_frame(frame, f, frames.certify(2, 2), user=user)
    assert f.read_bytes() == first


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_canonical_floats_roundtrip_exactly(x):
    assert json.loads(canonical_json({"x": x}))["x"] == x


@pytest.mark.parametrize("bad", [{"x": math.nan}, {"x": [math.inf]}, {1: 0, "1": 0}, {(1, 2): 0}, {"x": object()}])
def test_canonical_refuses_non_json(bad):
    with pytest.raises(VerifyInputError, match="Argument 'value"):
        canonical_json(bad)


# ----------------------------------------------------------------------------- tampering
def _tampered(tmp_path, how: str) -> Path:
    f = tmp_path / "f.npz"
    assert _cli("frame", "build", "--d", "64", "--m", "2", "-o", str(f))[0] == 0
    if how == "truncate":
        data = f.read_bytes()
        (tmp_path / "t.npz").write_bytes(data[: len(data) // 2])
        return tmp_path / "t.npz"
    z = dict(np.load(f))
    if how == "bit":
        z["bits"] = z["bits"].copy()
        z["bits"][3, 5] ^= 1
    else:
        meta = json.loads(str(z["meta"]))
        meta["certificate"]["histogram"]["16"] += 1
        z["meta"] = np.array(canonical_json(meta))
    np.savez(tmp_path / "t.npz", **z)
    return tmp_path / "t.npz"


@pytest.mark.parametrize("how", ["bit", "meta", "truncate"])
def test_tampered_refused_exit_2(tmp_path, capsys, how):
    path = _tampered(tmp_path, how)
    capsys.readouterr()
    assert main(["frame", "certify", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Argument 'path'" in err[0]


def test_interrupted_save_leaves_no_file(tmp_path, monkeypatch):
    f = tmp_path / "f.npz"

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", boom)
    with pytest.raises(KeyboardInterrupt):
        frames.save_frame(frames.build_frame(3, 2), f)
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- issue 12: new constructions
@pytest.mark.parametrize("build_args", [
    ("--d", "16", "--construction", "kerdock"),
    ("--d", "64", "--construction", "kerdock"),
    ("--d", "16", "--construction", "dg", "--delta", "1"),
    ("--d", "64", "--construction", "dg", "--delta", "1"),
])
def test_code_frame_roundtrip(tmp_path, build_args):
    _roundtrip(tmp_path, *build_args)
    f = tmp_path / "f.npz"
    frame, meta = frames.load_frame(f)
    assert meta["construction"] == build_args[3] and frame.construction == build_args[3]
    with np.load(f) as z:  # plain numpy: unpack the bits, apply the scale, compare with the construction
        V = z["scale"] * (1 - 2 * np.unpackbits(z["bits"], axis=1, count=int(z["shape"][1])).astype(float))
    from verify.numeric.frames import build_code_frame

    assert np.array_equal(V, build_code_frame(meta["construction"], meta["r"], meta["delta"] or None).dense())


def test_code_frame_tampered_refused(tmp_path):
    f = tmp_path / "k.npz"
    assert _cli("frame", "build", "--d", "16", "--construction", "kerdock", "-o", str(f))[0] == 0
    z = dict(np.load(f))
    z["bits"] = z["bits"].copy()
    z["bits"][0, 0] ^= 1
    meta = json.loads(str(z["meta"]))
    meta["checksum"] = frames._digest(z["bits"], meta)  # even with a recomputed checksum ...
    z["meta"] = np.array(canonical_json(meta))
    np.savez(tmp_path / "t.npz", **z)
    frame, _ = frames.load_frame(tmp_path / "t.npz")
    with pytest.raises(VerifyInputError, match="kerdock construction"):  # ... the signs are re-derived
        frames.certify_frame(frame)


# ----------------------------------------------------------------------------- every refusal of save_frame / load_frame, whole
def _bad_file_text(path, why: str) -> str:
    return f"Argument 'path' must be a frame file written by 'verify frame build'; {path}: {why}."


def _rewrite(src, dst, bits_flip: bool = False, meta_edit=None, scale=None, bits=None, drop=None) -> Path:
    """A copy of the frame file ``src`` at ``dst`` with the bits flipped at (0, 0), its metadata edited, its scale or
    bits replaced, or one array dropped (the checksum is left as it was)."""
    with np.load(src) as f:
        z = {k: f[k] for k in f.files}
    if bits_flip:
        z["bits"] = z["bits"].copy()
        z["bits"][0, 0] ^= 1
    if bits is not None:
        z["bits"] = bits
    if meta_edit is not None:
        meta = json.loads(str(z["meta"]))
        meta_edit(meta)
        z["meta"] = np.array(json.dumps(meta, sort_keys=True))
    if scale is not None:
        z["scale"] = np.float64(scale)
    if drop is not None:
        del z[drop]
    np.savez(dst, **z)
    return Path(dst)


@pytest.mark.parametrize("name,d,m_paper,general", [("frame_v1_d64_m2.npz", 64, 2, False),
                                                    ("frame_v1_d12_m2_general.npz", 12, 2, True)])
@pytest.mark.parametrize("how", ["bits", "meta"])
def test_version1_checksum_mismatch_message_whole(tmp_path, name, d, m_paper, general, how):
    """A tampered verify 0.1.0 file (format_version 1) is refused with the whole rebuild advice: the d, the paper's
    m and ``--general`` exactly when the file holds a general frame (the d12 file: field rows 8, internal m 4)."""
    def edit(meta):
        meta["certificate"]["max_abs_sum"] += 1
    path = _rewrite(DATA / name, tmp_path / "t.npz", bits_flip=how == "bits", meta_edit=edit if how == "meta" else None)
    with pytest.raises(VerifyInputError) as err:
        frames.load_frame(path)
    advice = f"rebuild it with 'verify frame build' --d {d} --m {m_paper}" + (" --general" if general else "")
    assert str(err.value) == _bad_file_text(path, "checksum mismatch (corrupt or modified) - if it was written by "
                                                  "verify 0.1.0, " + advice)


@pytest.mark.parametrize("build", [lambda: frames.build_frame(3, 2), lambda: frames.build_general_frame(12, 2),
                                   lambda: frames.build_code_frame("kerdock", 4)], ids=["bch", "general", "kerdock"])
def test_current_format_refusals_whole(tmp_path, build):
    """A file of the current format: a checksum mismatch carries no legacy advice (general or not); a file whose
    checksum holds but whose bits have the wrong shape names the shapes; a wrong scale, unreadable metadata, a
    missing array and an unreadable archive are each named, with the path as given."""
    frame = build()
    src = tmp_path / "f.npz"
    frames.save_frame(frame, src)
    for kw in ({"bits_flip": True}, {"meta_edit": lambda meta: meta.update(user={"x": 1})},
               {"meta_edit": lambda meta: meta.update(format_version=1)}):   # a current file claiming version 1
        path = _rewrite(src, tmp_path / "t.npz", **kw)
        with pytest.raises(VerifyInputError) as err:
            frames.load_frame(path)
        hint = ""
        if kw.get("meta_edit") is not None and json.loads(str(np.load(path)["meta"]))["format_version"] == 1:
            hint = (f" - if it was written by verify 0.1.0, rebuild it with 'verify frame build' --d {frame.n_rows} "
                    f"--m {frame.m_paper or frame.m}" + (" --general" if frame.general else ""))
        assert str(err.value) == _bad_file_text(path, "checksum mismatch (corrupt or modified)" + hint)
    r, N, D = frame.r, frame.n_columns, frame.n_rows
    want = (2 ** r, (N + 7) // 8)
    # the wrong shape, with a checksum that matches it (forged with the file format's own digest)
    with np.load(src) as f:
        z = {k: f[k] for k in f.files}
    bits = np.zeros((want[0], want[1] + 1), dtype=np.uint8)
    meta = json.loads(str(z["meta"]))
    meta.pop("checksum")
    meta["checksum"] = frames.fileformat._digest(bits, meta)
    np.savez(tmp_path / "s.npz", bits=bits, scale=z["scale"], shape=z["shape"], meta=np.array(canonical_json(meta)))
    with pytest.raises(VerifyInputError) as err:
        frames.load_frame(tmp_path / "s.npz")
    assert str(err.value) == _bad_file_text(tmp_path / "s.npz", f"wrong shape: bits {bits.shape}, shape {[D, N]}, "
                                                                f"expected bits {want}")
    path = _rewrite(src, tmp_path / "c.npz", scale=2.0 / math.sqrt(2 ** r))
    with pytest.raises(VerifyInputError) as err:
        frames.load_frame(path)
    assert str(err.value) == _bad_file_text(path, "wrong scale")
    for key in ("r", "m", "d", "n_columns", "irreducible_poly"):
        path = _rewrite(src, tmp_path / f"u_{key}.npz", meta_edit=lambda meta, key=key: meta.pop(key))
        with pytest.raises(VerifyInputError) as err:
            frames.load_frame(path)
        assert str(err.value) == _bad_file_text(path, "metadata unreadable")
    for key in ("bits", "scale", "shape", "meta"):
        path = _rewrite(src, tmp_path / f"x_{key}.npz", drop=key)
        with np.load(path) as f, pytest.raises(KeyError) as numpy_says:
            f[key]
        with pytest.raises(VerifyInputError) as err:
            frames.load_frame(path)
        assert str(err.value) == _bad_file_text(path, f"missing array {numpy_says.value}")
    raw = src.read_bytes()
    for content, exc_name in ((raw[: len(raw) // 2], "BadZipFile"), (b"not a zip" * 10, "ValueError"),
                              (b"", "EOFError")):
        path = tmp_path / "b.npz"
        path.write_bytes(content)
        with pytest.raises(VerifyInputError) as err:
            frames.load_frame(path)
        assert str(err.value) == _bad_file_text(path, f"not a readable .npz ({exc_name})")


class _NotCallable:
    as_dict = 5


@pytest.mark.parametrize("bad", [7, "certify", {"histogram": {}}, [1], 2.5, _NotCallable(), frames.build_frame(2, 2)])
def test_save_frame_refusals_whole_name_the_type_given(tmp_path, bad):
    """Every refusal of save_frame names the argument and the type given, whole, and writes nothing."""
    frame = frames.build_frame(3, 2)
    with pytest.raises(VerifyInputError) as err:
        frames.save_frame(frame, tmp_path / "f.npz", certificate=bad)
    assert str(err.value) == ("Argument 'certificate' must be a certificate (from certify, certify_general or "
                              f"code_certificate) or None, not {type(bad).__name__}.")
    if not isinstance(bad, frames.Frame):
        with pytest.raises(VerifyInputError) as err:
            frames.save_frame(bad, tmp_path / "f.npz")
        assert str(err.value) == ("Argument 'frame' must be a Frame (from build_frame, build_general_frame, "
                                  f"build_code_frame or load_frame), not {type(bad).__name__}.")
    if not isinstance(bad, str):
        with pytest.raises(VerifyInputError) as err:
            frames.save_frame(frame, bad)
        assert str(err.value) == f"Argument 'path' must be a file path (str or os.PathLike), not {type(bad).__name__}."
    assert list(tmp_path.iterdir()) == []


def test_loaded_frame_and_implicit_file_refusals_whole(tmp_path):
    """Every refusal of a LoadedFrame's exports and of load_implicit names the value given, whole: a too-large
    implicit frame (its d x N), a torch dtype or matrix_free that is not one, matrix_free on frames without a fast
    route (the construction named), a dense file given to load_implicit, a tampered parameter-only file."""
    torch = pytest.importorskip("torch")
    big = tmp_path / "big.npz"
    frames.save_implicit(frames.ImplicitFrame(10, 3), big)
    loaded = frames.load_frame(big, allow_implicit=True)
    with pytest.raises(VerifyInputError) as err:
        loaded.as_array()
    assert str(err.value) == (f"Argument 'frame' is a 1024 x {2 ** 30} implicit frame, more than "
                              f"{frames.MAX_FRAME_BITS} entries; use as_linear_operator() or as_torch() (matrix-free) "
                              "instead.")
    for bad in ("float", torch.int32, np.float32, 64):
        with pytest.raises(VerifyInputError) as err:
            loaded.as_torch(dtype=bad)
        assert str(err.value) == ("Argument 'dtype' must be a torch floating dtype (torch.float32, torch.float64) or "
                                  f"None, not {bad!r}.")
    for bad in (1, 0, "yes", 1.0, np.bool_(True)):
        with pytest.raises(VerifyInputError) as err:
            loaded.as_torch(matrix_free=bad)
        assert str(err.value) == f"Argument 'matrix_free' must be True, False or None, not {bad!r}."
    fr = frames.build_frame(3, 2)
    other = frames.Frame(r=3, m=2, n_rows=8, n_columns=64, signs=-fr.signs, irreducible_poly=fr.irreducible_poly)
    for name, frame, cons in (("k", frames.build_code_frame("kerdock", 4), "kerdock"),
                              ("g", frames.build_general_frame(12, 2), "bch"), ("o", other, "bch")):
        frames.save_frame(frame, tmp_path / f"{name}.npz")
        with pytest.raises(VerifyInputError) as err:
            frames.load_frame(tmp_path / f"{name}.npz").as_torch(matrix_free=True)
        assert str(err.value) == ("Argument 'matrix_free' must be False for kerdock / dg / general-d frames and for "
                                  f"signs that are not the construction's, not True ({cons}).")
        with pytest.raises(VerifyInputError) as err:
            frames.load_implicit(tmp_path / f"{name}.npz")
        assert str(err.value) == _bad_file_text(tmp_path / f"{name}.npz", "not a parameter-only (implicit) frame file")
    small = tmp_path / "small.npz"
    frames.save_implicit(frames.ImplicitFrame(3, 2), small)
    path = _rewrite(small, tmp_path / "t.npz", meta_edit=lambda meta: meta.update(m=3))
    for call in (lambda: frames.load_implicit(path), lambda: frames.load_frame(path, allow_implicit=True)):
        with pytest.raises(VerifyInputError) as err:
            call()
        assert str(err.value) == _bad_file_text(path, "checksum mismatch (corrupt or modified)")


def test_save_frame_refuses_an_unwritable_path_by_name_before_writing(tmp_path):
    """A path in no folder, a folder, an empty name: each refused whole under the parameter's own name ('path'),
    before anything is written."""
    frame = frames.build_frame(3, 2)
    missing = tmp_path / "no-such-folder" / "f.npz"
    cases = [(missing, f"Argument 'path' must be a file in an existing folder, not {str(missing)!r} "
                       f"(no folder {str(missing.parent)!r})."),
             (tmp_path, f"Argument 'path' must be a file, not the folder {str(tmp_path)!r}."),
             ("", "Argument 'path' must be a file name, not ''."),
             ("  ", "Argument 'path' must be a file name, not '  '.")]
    for path, message in cases:
        with pytest.raises(VerifyInputError) as err:
            frames.save_frame(frame, path)
        assert str(err.value) == message
    assert list(tmp_path.iterdir()) == []
