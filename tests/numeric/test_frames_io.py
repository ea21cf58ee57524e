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
