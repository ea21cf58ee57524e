"""Fixtures shared by the tests of the report and its reporters: the synthetic suite, written and run once per use."""

import importlib.util
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# The differential (reference) property tests use the profile "reference": a modest number of examples in the
# default tier; VERIFY_REFERENCE_PROFILE=slow gives the same tests many more examples (a nightly run).
_REFERENCE = {"default": 25, "slow": 400}
settings.register_profile(
    "reference", max_examples=_REFERENCE[os.environ.get("VERIFY_REFERENCE_PROFILE", "default")], deadline=None,
    derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                             HealthCheck.filter_too_much])

#: a small synthetic suite (a few checks of registered claims, every verdict kind), shared by the report, HTML,
#: errata and CLI tests
SUITE = (Path(__file__).parent / "data" / "synthetic_suite.txt").read_text()


@pytest.fixture(scope="session")
def synthetic_suite(tmp_path_factory):
    """``make(name, extra="", folder=None)``: ``folder`` (made here; default a fresh temporary one) holding the
    synthetic suite plus ``extra`` checks as the module ``test_<name>.py`` (the module name shows in the checks'
    node ids)."""
    def make(name: str, extra: str = "", folder: Path | None = None) -> Path:
        root = tmp_path_factory.mktemp(name) if folder is None else Path(folder)
        root.mkdir(parents=True, exist_ok=True)
        (root / f"test_{name}.py").write_text(SUITE + extra)
        return root
    return make


@pytest.fixture(scope="session")
def synthetic_report(synthetic_suite):
    """``report(name, extra="")``: the report document (:func:`verify.report.aggregate`) of a fast-tier run of
    ``synthetic_suite(name, extra)``; the run must pass."""
    from verify.report import aggregate, run_suite

    def report(name: str, extra: str = "") -> dict:
        code, checks = run_suite(fast=True, suite=synthetic_suite(name, extra), progress=False)
        assert code == 0
        return aggregate(checks)
    return report


@pytest.fixture(scope="session")
def benchmark_script():
    """``load(name)``: the script ``benchmarks/<name>.py`` as a module (the benchmarks are scripts, not a package,
    so they are loaded from their files), each loaded once per session."""
    root = Path(__file__).resolve().parents[1] / "benchmarks"
    loaded = {}

    def load(name: str):
        if name not in loaded:
            spec = importlib.util.spec_from_file_location(name, root / f"{name}.py")
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            loaded[name] = mod
        return loaded[name]
    return load
