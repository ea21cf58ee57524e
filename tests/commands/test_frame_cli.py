"""``verify frame build | certify | info``: round trip, JSON certificate, bad input (exit 2, one line)."""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction
import sys

import numpy as np
import pytest

from verify.cli import main


def _run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def test_build_certify_info_roundtrip(tmp_path, capsys):
    out = tmp_path / "f.npz"
    assert main(["frame", "build", "--d", "16", "--m", "2", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["frame", "certify", str(out), "--json"]) == 0
    cert = json.loads(capsys.readouterr().out)
    for key in ("r", "m", "d", "n_columns", "max_abs_sum", "coherence", "weil_bound", "welch_bound",
                "levenstein_bound", "seconds"):
        assert key in cert
    assert (cert["r"], cert["d"], cert["n_columns"], cert["max_abs_sum"]) == (4, 16, 256, 8)
    assert main(["frame", "info", str(out)]) == 0
    info = capsys.readouterr().out
    assert "checksum" in info and "x^4" in info
    with np.load(out) as z:
        assert list(z["shape"]) == [16, 256]


def test_general_build_and_direct_certify(tmp_path, capsys):
    out = tmp_path / "g.npz"
    assert main(["frame", "build", "--d", "12", "--m", "2", "--general", "-o", str(out), "--json"]) == 0
    built = json.loads(capsys.readouterr().out)
    assert built["d"] == 12 and built["n_columns"] == 144 and built["general"]
    assert main(["frame", "certify", "--d", "12", "--m", "2", "--general", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["max_abs_sum"] == built["max_abs_sum"]


@pytest.mark.parametrize("args", [
    ["frame", "build", "--d", "12", "--m", "2", "-o", "x.npz"],      # not a power of two
    ["frame", "build", "--d", "16", "--m", "0", "-o", "x.npz"],      # m < 1
    ["frame", "build", "--d", "1", "--m", "2", "-o", "x.npz"],       # r < 1
    ["frame", "certify", "missing.npz"],
    ["frame", "certify"],
    ["frame", "info", "junk.npz"],
    ["frame"],
])
def test_bad_input_exit_2(tmp_path, monkeypatch, capsys, args):
    (tmp_path / "junk.npz").write_bytes(b"junk")
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("verify: error:")


def test_bad_input_subprocess_one_line(tmp_path):
    proc = _run("frame", "build", "--d", "12", "--m", "2", "-o", "x.npz", cwd=tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_tampered_file_exit_2(tmp_path):
    out = tmp_path / "f.npz"
    assert main(["frame", "build", "--d", "8", "--m", "2", "-o", str(out)]) == 0
    z = dict(np.load(out))
    z["bits"] = z["bits"].copy()
    z["bits"][1, 1] ^= 4
    np.savez(tmp_path / "t.npz", **z)
    assert main(["frame", "certify", str(tmp_path / "t.npz")]) == 2


# ----------------------------------------------------------------------------- issue 12
def test_table_prints_every_construction(capsys):
    assert main(["frame", "table", "--d", "64"]) == 0
    out = capsys.readouterr().out
    for word in ("bch", "kerdock", "dg", "Welch", "Levenstein", "1/8"):
        assert word in out
    assert main(["frame", "table", "--d", "64", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {(r["construction"], r["coherence_exact"]) for r in rows} >= {("kerdock", "1/8"), ("dg", "1/4")}


def test_certify_quadratic_matches_wht(capsys):
    assert main(["frame", "certify", "--d", "64", "--m", "3", "--method", "quadratic", "--json"]) == 0
    q = json.loads(capsys.readouterr().out)
    assert main(["frame", "certify", "--d", "64", "--m", "3", "--json"]) == 0
    w = json.loads(capsys.readouterr().out)
    assert q["histogram"] == w["histogram"] and q["max_abs_sum"] == w["max_abs_sum"] == 32
    assert main(["frame", "certify", "--d", "256", "--construction", "dg", "--delta", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["coherence_exact"] == "1/8"


def test_implicit_build_writes_parameters_only(tmp_path, capsys):
    out = tmp_path / "big.npz"
    assert main(["frame", "build", "--d", "1024", "--m", "3", "--implicit", "-o", str(out), "--json"]) == 0
    cert = json.loads(capsys.readouterr().out)
    assert cert["n_columns"] == 2 ** 30 and cert["max_abs_sum"] == 128
    assert out.stat().st_size < 10_000
    assert main(["frame", "info", str(out)]) == 0
    assert "implicit" in capsys.readouterr().out
    assert main(["frame", "certify", str(out), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["histogram"] == cert["histogram"]


@pytest.mark.parametrize("args", [
    ["frame", "build", "--d", "32", "--construction", "kerdock", "-o", "x.npz"],         # odd r
    ["frame", "build", "--d", "64", "--construction", "dg", "--delta", "3", "-o", "x.npz"],
    ["frame", "build", "--d", "64", "--construction", "kerdock", "--m", "2", "-o", "x.npz"],
    ["frame", "build", "--d", "64", "--construction", "gold", "-o", "x.npz"],
    ["frame", "build", "--d", "64", "--m", "2", "--delta", "1", "-o", "x.npz"],
    ["frame", "build", "--d", "64", "-o", "x.npz"],                                       # bch needs --m
    ["frame", "build", "--d", "64", "--construction", "dg", "--general", "-o", "x.npz"],
    ["frame", "best", "--d", "48", "--n", "100"],
    ["frame", "best", "--d", "64", "--n", "two"],
    ["frame", "best", "--d", "64", "--n", "1"],
    ["frame", "best", "--d", "64", "--n", "100", "--max-forms", "0"],
    ["frame", "table", "--d", "64", "--max-forms", "0"],
    ["frame", "certify", "--d", "64", "--m", "4", "--method", "quadratic"],
    ["frame", "certify", "--d", "64", "--m", "2", "--method", "fast"],
    ["frame", "table", "--d", "48"],
])
def test_issue12_bad_input_exit_2(tmp_path, monkeypatch, capsys, args):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("verify: error:") and "Argument" in lines[0]


def test_scheduler_bad_address_exit_2(capsys):
    assert main(["frame", "certify", "--d", "64", "--m", "3", "--scheduler", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Argument 'scheduler'" in err[0]


@pytest.mark.slow
def test_scheduler_local_same_certificate(capsys):
    assert main(["frame", "certify", "--d", "64", "--m", "3", "--method", "quadratic", "--scheduler", "local",
                 "--json"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert main(["frame", "certify", "--d", "64", "--m", "3", "--scheduler", "local", "--json"]) == 0
    b = json.loads(capsys.readouterr().out)
    assert a["histogram"] == b["histogram"] and a["max_abs_sum"] == 32


# ----------------------------------------------------------------------------- issue 23 and issue 20's frame items
def test_table_shows_lower_bound_and_ratio(capsys):
    assert main(["frame", "table", "--d", "16", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    for row in rows:
        assert {"lower_bound", "lower_bound_sq", "lower_bound_name", "ratio_to_lower_bound"} <= set(row)
        if row["coherence_exact"] is not None:  # a certified frame never beats a certified lower bound
            assert Fraction(row["coherence_exact"]) ** 2 >= Fraction(row["lower_bound_sq"])
    kerdock = next(r for r in rows if r["construction"] == "kerdock")
    assert kerdock["ratio_to_lower_bound"] == pytest.approx(1, abs=1e-6)  # Kerdock + identity meets Levenstein
    assert main(["frame", "table", "--d", "16"]) == 0
    out = capsys.readouterr().out
    assert "lower bound" in out and "ratio" in out and "levenstein" in out


def test_best_json_and_output(tmp_path, capsys):
    out = tmp_path / "b.npz"
    assert main(["frame", "best", "--d", "64", "--n", "2^12", "-o", str(out), "--json"]) == 0
    best = json.loads(capsys.readouterr().out)
    assert (best["construction"], best["parameter"], best["coherence_exact"], best["exact"]) == ("bch", "m=2", "1/4", True)
    assert best["ratio_to_lower_bound"] >= 1 and best["wrote"] == "signs"
    assert main(["frame", "certify", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["coherence_exact"] == "1/4"
    assert main(["frame", "best", "--d", "1024", "--n", "2^30", "-o", str(tmp_path / "big.npz")]) == 0
    text = capsys.readouterr().out
    assert "parameters only (implicit)" in text and "ratio" in text and (tmp_path / "big.npz").stat().st_size < 10_000


@pytest.mark.parametrize("args", [
    ["frame", "build", "--d", "16", "--m", "2", "-o", "nofolder/x.npz"],
    ["frame", "build", "--d", "16", "--m", "2", "-o", "."],
    ["frame", "build", "--d", "256", "--construction", "kerdock", "-o", "nofolder/x.npz"],
    ["frame", "best", "--d", "64", "--n", "100", "-o", "nofolder/x.npz"],
    ["frame", "certify", "nofolder/x.npz"],
    ["frame", "info", "nofolder/x.npz"],
])
def test_paths_checked_before_any_work(tmp_path, monkeypatch, capsys, args):
    monkeypatch.chdir(tmp_path)
    import verify.numeric.frames as FR

    def boom(*a, **k):  # any work at all would reach one of these
        raise AssertionError("work started before the paths were checked")
    for name in ("build_frame", "build_code_frame", "certify", "best_frame", "code_certificate", "load_frame"):
        monkeypatch.setattr(FR, name, boom)
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ("Argument '-o'" in err[0] or "Argument 'file'" in err[0])


def test_coherence_one_warns_why(tmp_path, capsys):
    assert main(["frame", "build", "--d", "16", "--m", "3", "-o", str(tmp_path / "f.npz")]) == 0
    err = capsys.readouterr().err
    assert "warning: coherence 1" in err and "equal up to sign" in err and "d = 32" in err
    assert main(["frame", "build", "--d", "32", "--m", "3", "-o", str(tmp_path / "g.npz")]) == 0
    assert "warning" not in capsys.readouterr().err


def test_readme_frame_examples(tmp_path, capsys):
    # the README's example builds as written; the too-big one says how to build it (--implicit)
    assert main(["frame", "build", "--d", "256", "--m", "2", "-o", str(tmp_path / "frame.npz")]) == 0
    capsys.readouterr()
    assert main(["frame", "build", "--d", "256", "--m", "3", "-o", str(tmp_path / "x.npz")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--implicit" in err[0] and not (tmp_path / "x.npz").exists()


@pytest.mark.slow  # the exact DG(12, 1) certificate twice (build, then re-certify): ~20 s on a busy machine
def test_dg_d4096_implicit_build_and_certify(tmp_path, capsys):
    out = tmp_path / "dg.npz"
    assert main(["frame", "build", "--d", "4096", "--construction", "dg", "--delta", "1", "--implicit", "-o",
                 str(out), "--json"]) == 0
    built = json.loads(capsys.readouterr().out)
    assert built["coherence_exact"] == "1/32" and built["n_columns"] == 2 ** 34
    assert main(["frame", "certify", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["histogram"] == built["histogram"]


@pytest.mark.parametrize("argv", [["build", "--d", "16", "--m", "1"], ["build", "--d", "16", "--m", "3", "--construction", "kerdock"],
                                  ["best", "--d", "16", "--n", "20"]])
def test_bad_output_path_fails_before_the_frames_library_loads(tmp_path, argv):
    """A bad ``-o`` is refused before galois is imported (its import alone takes over a second): exit 2, one
    line naming ``-o``, and no frames module loaded. Checked in a fresh interpreter, where nothing imported galois."""
    bad = str(tmp_path / "missing" / "f.npz")
    code = ("import sys; from verify.cli import main; rc = main(['frame', *sys.argv[1:]]); "
            "print(rc, 'galois' in sys.modules, 'verify.numeric.frames' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, *argv, "-o", bad], capture_output=True, text=True)
    assert out.stdout.split() == ["2", "False", "False"], out.stdout + out.stderr
    assert out.stderr.count("\n") == 1 and "Argument '-o'" in out.stderr
