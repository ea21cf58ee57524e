"""The CLI contract: bad input is one line on stderr and exit code 2, never a traceback."""

import subprocess
import sys

import pytest

from verify.cli import main


def _run(*args):
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    "args",
    [
        ["latex", "no-such-formula"],
        ["latex", "S-loss", "-p", "m"],
        ["report", "--paper", "X"],
        ["report", "--workers", "0"],
        ["reproduce", "no-such-target", "-o", "x"],
        ["no-such-command"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(args):
    proc = _run(*args)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("verify: error:"), proc.stderr
    assert "Traceback" not in proc.stderr


def test_latex_list_and_out(tmp_path, capsys):
    assert main(["latex", "--list"]) == 0
    listed = capsys.readouterr().out.split()
    assert listed
    out = tmp_path / "all.tex"
    assert main(["latex", "--out", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("\\documentclass") and text.rstrip().endswith("\\end{document}")


def test_version():
    proc = _run("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("verify ")
