"""The report's progress bar advances by the recorded seconds of each check, not by the count of checks, so its ETA
is the work left at the measured pace; it shows on a pseudo-terminal too."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from verify.report import _Progress, expected_durations


def _finish(bar, nodeid):
    bar.pytest_runtest_logreport(SimpleNamespace(when="teardown", nodeid=nodeid))


def test_the_bar_is_weighed_by_expected_seconds(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    ids = ["t::long", "t::a", "t::b", "t::never_timed"]
    bar = _Progress(total=ids, durations={"t::long": 100.0, "t::a": 1.0, "t::b": 2.0})
    assert bar.bar.total == 100 + 1 + 2 + 2   # the unknown check counts as the median of the timed ones
    _finish(bar, "t::long")
    assert bar.bar.n / bar.bar.total > 0.9   # one check of four, but nearly all the work: the bar says so
    for n in ids[1:]:
        _finish(bar, n)
    assert bar.bar.n == bar.bar.total and bar.done == 4
    bar.pytest_sessionfinish()


def test_the_shipped_hint_times_the_suite():
    durations = expected_durations(Path("/nonexistent"))
    suite = [k for k in durations if k.startswith("proofs_checks/")]
    assert len(suite) > 100 and max(durations[k] for k in suite) > 100 * min(durations[k] for k in suite)


SUITE = '''
import time, pytest

@pytest.mark.claim("S-eq9")
def test_one(verdict):
    time.sleep(0.2)
    verdict.verified(method="m", evidence={"x": 1})
'''


def test_the_bar_shows_on_a_pseudo_terminal(tmp_path):
    (tmp_path / "test_pty_suite.py").write_text(SUITE)
    code = (f"import sys; sys.path.insert(0, {str(Path.cwd())!r}); from verify.report import run_suite; "
            f"from pathlib import Path; run_suite(suite=Path({str(tmp_path)!r}), progress=True)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[1]),
                                                        os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(["script", "-qec", f"{sys.executable} -c \"{code}\"", "/dev/null"], capture_output=True,
                          text=True, timeout=120, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "checks 1/1: 100%" in proc.stdout, proc.stdout


def test_the_first_eta_is_the_recorded_work_and_then_the_measured_pace(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    bar = _Progress(total=["t::a", "t::b"], durations={"t::a": 60.0, "t::b": 60.0}, workers=2)
    assert bar.eta() == "01:00"   # 120 s of recorded work on 2 workers, before anything finished
    bar.pytest_sessionfinish()
