"""The result cache: entries, fingerprints, and the soundness of incremental runs on an edited copy."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from verify.cache import AVAILABLE, RESULT_ENV, Cache, CacheWarning, Sources, check_fingerprint, claim_fingerprint
from verify.coverage_map import SourceIndex

ROOT = Path(__file__).resolve().parents[1]


def test_entries_round_trip_and_a_corrupt_one_is_ignored_with_a_warning(tmp_path):
    cache = Cache(tmp_path / "c")
    cache.put("check", "a::b", {"x": [1, 2]})
    assert Cache(tmp_path / "c").get("check", "a::b") == {"x": [1, 2]}
    [entry] = (tmp_path / "c" / "check").glob("*.json")
    text = entry.read_text()
    for bad in (text[: len(text) // 2], text.replace("[1,2]", "[1,3]"), "[]", "\xff"):
        entry.write_text(bad, encoding="latin-1")
        with pytest.warns(CacheWarning, match="corrupt or foreign"):
            assert Cache(tmp_path / "c").get("check", "a::b") is None
    # an entry copied under another key (a foreign entry) is not trusted either
    cache.put("check", "a::b", {"x": 1})
    [entry] = (tmp_path / "c" / "check").glob("*.json")
    shutil.copy(entry, tmp_path / "c" / "check" / (Cache._name("other") + ".json"))
    with pytest.warns(CacheWarning):
        assert cache.get("check", "other") is None
    assert cache.get("missing", "k") is None


def test_a_foreign_folder_is_refused_and_a_foreign_marker_ignored(tmp_path):
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="'cache_dir' must be a verify cache folder"):
        Cache(tmp_path / "home")
    (tmp_path / "f").write_text("x")
    with pytest.raises(ValueError, match="'cache_dir' must be a folder"):
        Cache(tmp_path / "f")
    cache = Cache(tmp_path / "c")
    cache.put("check", "k", 1)
    (tmp_path / "c" / "verify-cache.json").write_text('{"tool": "something else", "format": 1}')
    with pytest.warns(CacheWarning, match="another tool or format"):
        other = Cache(tmp_path / "c")
    assert other.get("check", "k") is None


def test_source_index_assigns_lines_to_the_innermost_function_and_digests_each_alone():
    src = textwrap.dedent('''\
        import os
        K = 3

        @staticmethod
        def outer(x,
                  y=K):
            z = x + y

            def inner(t):
                return t * 2
            return inner(z)

        class C:
            a = 1

            def method(self):
                return self.a
        ''')
    idx = SourceIndex(src)
    assert [idx.function_of(n) for n in (1, 2, 4, 5, 6, 7, 9, 10, 11, 14, 16, 17)] == [
        "<module>", "<module>", "<module>", "<module>", "<module>", "outer", "outer", "outer.<locals>.inner",
        "outer", "<module>", "<module>", "C.method"]
    edited = SourceIndex(src.replace("return self.a", "return self.a + 0"))
    moved = {q for q in ("outer", "outer.<locals>.inner", "C.method", "<module>") if idx.digest(q) != edited.digest(q)}
    assert moved == {"C.method"}
    const = SourceIndex(src.replace("K = 3", "K = 4"))
    assert const.digest("<module>") != idx.digest("<module>") and const.digest("outer") == idx.digest("outer")
    assert idx.digest("gone") is None


def test_compiled_code_is_skeleton():
    """numba-compiled functions, intrinsics and the factories that define them never run as Python inside the checks
    that use them (no check records them), so their text belongs to the module's skeleton: an edit of a kernel or
    of an intrinsic inside a factory moves the skeleton, an edit of a plain function does not."""
    src = textwrap.dedent('''\
        from numba import njit
        from numba.extending import intrinsic


        @njit(cache=True)
        def kernel(x):
            return x + 1


        def factory(R):
            @intrinsic
            def rows(typingctx, a):
                return R
            return rows


        def plain(x):
            return kernel(x)
        ''')
    idx = SourceIndex(src)
    lines = src.splitlines()
    at = {text.strip(): i for i, text in enumerate(lines, start=1)}
    assert idx.function_of(at["return x + 1"]) == "<module>" and idx.function_of(at["return R"]) == "<module>"
    assert idx.function_of(at["return rows"]) == "<module>" and idx.function_of(at["return kernel(x)"]) == "plain"
    for old, new in (("return x + 1", "return x + 2"), ("return R", "return R + 1")):
        edited = SourceIndex(src.replace(old, new))
        assert edited.digest("<module>") != idx.digest("<module>") and edited.digest("plain") == idx.digest("plain")
    edited = SourceIndex(src.replace("return kernel(x)", "return kernel(x) * 1"))
    assert edited.digest("<module>") == idx.digest("<module>") and edited.digest("plain") != idx.digest("plain")


def test_fingerprint_moves_with_a_function_a_data_file_or_the_check_module(tmp_path):
    pkg = tmp_path / "verify"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "m.py").write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    (tmp_path / "test_x.py").write_text("from verify.m import f\n")
    (tmp_path / "data.txt").write_text("1")
    entry = {"nodeid": "test_x.py::t", "file": "test_x.py",
             "deps": {"functions": [["verify/m.py", "f"]], "files": [str(tmp_path / "data.txt")]}}

    def fp():
        return check_fingerprint(entry, Sources(tmp_path, tmp_path), [])

    first = fp()
    (pkg / "m.py").write_text("def f():\n    return 1\n\n\ndef g():\n    return 3\n")   # g: not executed
    assert fp() == first
    (pkg / "m.py").write_text("def f():\n    return 0\n\n\ndef g():\n    return 3\n")
    second = fp()
    assert second != first
    (tmp_path / "data.txt").write_text("2")
    assert fp() != second
    (tmp_path / "test_x.py").write_text("from verify.m import f  # seed 2\n")
    assert fp() not in (first, second)
    (pkg / "m.py").write_text("def h():\n    return 0\n")   # f renamed away: no fingerprint, the check re-runs
    assert fp() is None and claim_fingerprint([("a", None)]) is None


#: the package's environment variables that change no result: where the cache lives, how dependencies are recorded
#: (VERIFY_BLAS_THREADS enters the fingerprint on its own, as ``blas_threads``)
NOT_RESULTS = {"VERIFY_CACHE_DIR", "VERIFY_DEPS_BACKEND", "VERIFY_BLAS_THREADS"}


def test_every_environment_variable_the_package_reads_is_fingerprinted_or_named_harmless():
    # a new VERIFY_* switch read by the package or the checks must enter RESULT_ENV (or be named here, with why):
    # otherwise a result computed with it would be reused without it
    root = Path(__file__).resolve().parents[1]
    read = {m for folder in ("verify", "proofs_checks") for f in (root / folder).rglob("*.py")
            for m in re.findall(r"VERIFY_[A-Z_]+", f.read_text(encoding="utf-8"))}
    assert read - NOT_RESULTS == set(RESULT_ENV), sorted(read ^ (set(RESULT_ENV) | NOT_RESULTS))


@pytest.mark.parametrize("var", ["VERIFY_WD_SENSITIVITY", "VERIFY_RESIDUAL_CNN", "VERIFY_STATEMENT_VARIANT",
                                 "VERIFY_NUMERICS"])
def test_fingerprint_moves_with_each_result_changing_environment_variable(tmp_path, monkeypatch, var):
    # a report run with --sensitivity (or a residual-CNN run, or an injected statement variant) must not reuse the
    # result of a run without it, nor the reverse; unset and "0" are the same run
    (tmp_path / "test_x.py").write_text("def t():\n    pass\n")
    entry = {"nodeid": "test_x.py::t", "file": "test_x.py", "deps": {"functions": [], "files": []}}

    def fp():
        return check_fingerprint(entry, Sources(tmp_path, tmp_path), [])

    for other in RESULT_ENV:
        monkeypatch.delenv(other, raising=False)
    plain = fp()
    monkeypatch.setenv(var, "0")
    assert fp() == plain
    monkeypatch.setenv(var, "1")
    with_flag = fp()
    assert with_flag != plain
    monkeypatch.setenv(var, "other")
    assert fp() not in (plain, with_flag)


#: a suite whose dependencies on ``verify._validate._is_int`` are known by construction: directly, through
#: another package function, and through a session-scoped fixture shared by two checks
SOUND_SUITE = '''
import pytest
from verify._validate import verify_choice, verify_int, verify_odd_m, verify_probability


@pytest.fixture(scope="session")
def shared():
    return verify_int(2, "k")          # verify_int calls _is_int


@pytest.mark.claim("S-eq9")
def test_direct(verdict):
    assert verify_odd_m(3) == 3        # calls _is_int
    verdict.verified(method="direct", evidence={"m": 3})


def _helper():
    return verify_int(5, "n")


@pytest.mark.claim("S-eq10")
def test_indirect(verdict):
    assert _helper() == 5
    verdict.verified(method="indirect", evidence={"n": 5})


@pytest.mark.claim("S-eq11")
def test_fixture_first(verdict, shared):
    verdict.verified(method="fixture", evidence={"k": shared})


@pytest.mark.claim("S-eq12")
def test_fixture_second(verdict, shared):
    verdict.verified(method="fixture", evidence={"k": shared})


@pytest.mark.claim("S-linear")
def test_other(verdict):
    assert verify_probability(0.5) == 0.5   # _as_real, never _is_int
    verdict.verified(method="other", evidence={"p": 0.5})


@pytest.mark.claim("N-etf")
def test_none(verdict):
    assert verify_choice("a", "x", ["a"]) == "a"
    verdict.verified(method="none", evidence={})
'''

RUNNER = '''
import json, sys
from pathlib import Path
from verify.report import aggregate, run_suite, write_json
suite, cache, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
stats = {}
code, checks = run_suite(fast=True, suite=Path(suite), progress=False, workers=1,
                         cache_dir=None if cache == "-" else Path(cache), stats=stats)
write_json(aggregate(checks), out)
print(json.dumps({"code": code, "reused": stats["reused"], "rerun": stats["rerun"]}))
'''


def test_an_edited_function_reruns_exactly_the_claims_whose_checks_execute_it(tmp_path):
    import verify

    pkg = tmp_path / "pkg"
    shutil.copytree(Path(verify.__file__).parent, pkg / "verify", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "test_sound.py").write_text(SOUND_SUITE)
    env = {**os.environ, "PYTHONPATH": str(pkg), "PYTHONDONTWRITEBYTECODE": "1"}

    def report(cache: str, name: str) -> dict:
        proc = subprocess.run([sys.executable, "-c", RUNNER, str(tmp_path / "suite"), cache, str(tmp_path / name)],
                              capture_output=True, text=True, env=env, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr[-2000:]
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        assert got["code"] == 0
        return got

    claims = ["N-etf", "S-eq10", "S-eq11", "S-eq12", "S-eq9", "S-linear"]
    cache = str(tmp_path / "cache")
    cold = report(cache, "cold.json")
    assert cold["reused"] == [] and cold["rerun"] == claims
    assert report(cache, "warm.json") == {"code": 0, "reused": claims, "rerun": []}
    validate = pkg / "verify" / "_validate.py"
    text = validate.read_text()
    old = "def _is_int(value: Any) -> bool:\n"
    assert text.count(old) == 1
    validate.write_text(text.replace(old, old + "    _edited = True  # changes nothing a check sees\n"))
    edited = report(cache, "edited.json")
    assert edited["rerun"] == ["S-eq10", "S-eq11", "S-eq12", "S-eq9"], edited
    assert edited["reused"] == ["N-etf", "S-linear"]
    report("-", "fresh.json")   # no cache at all
    fresh = (tmp_path / "fresh.json").read_bytes()
    assert (tmp_path / "edited.json").read_bytes() == fresh and (tmp_path / "warm.json").read_bytes() == fresh
    # an edit of a function no check executes moves nothing
    text = validate.read_text()
    old = "def verify_less(value: Any, bound: Any, name: str, allowed: str) -> Any:\n"
    validate.write_text(text.replace(old, old + "    _edited = True\n"))
    assert report(cache, "untouched.json")["rerun"] == []
    assert (tmp_path / "untouched.json").read_bytes() == fresh


COVERAGE_SUITE = '''
import pytest
from verify._validate import verify_int, verify_probability


@pytest.fixture(scope="module")
def shared():
    return verify_int(2, "k")


@pytest.mark.claim("S-eq9")
def test_int(shared):
    assert verify_int(3, "n", minimum=1) == 3


@pytest.mark.claim("S-eq10")
def test_probability(shared):
    assert verify_probability(0.5) == 0.5
    with open(__file__.replace("test_cov.py", "data.txt")) as fh:
        assert fh.read() == "7"
'''


def test_coverage_map_records_each_check_with_its_shared_fixtures_and_files(tmp_path):
    from verify.coverage_map import CoverageMap, collect

    (tmp_path / "test_cov.py").write_text(COVERAGE_SUITE)
    (tmp_path / "data.txt").write_text("7")
    data = tmp_path / "cov.sqlite"
    code = collect([str(tmp_path), "-q", "-p", "no:randomly", "-p", "no:cacheprovider", f"--rootdir={tmp_path}"], data)
    assert code == 0
    cmap = CoverageMap.load(data)
    assert cmap.contexts() == ["test_cov.py::test_int", "test_cov.py::test_probability"]
    first, second = (cmap.executed_functions(n) for n in cmap.contexts())
    # the module-scoped fixture ran in the first check's setup; the second depends on it all the same
    assert ("verify/_validate.py", "verify_int") in first and ("verify/_validate.py", "verify_int") in second
    assert ("verify/_validate.py", "verify_probability") in second - first
    assert cmap.files_read("test_cov.py::test_probability") == {str(tmp_path / "data.txt")}
    assert cmap.files_read("test_cov.py::test_int") == set()
    lines = cmap.executed_lines("test_cov.py::test_int")["verify/_validate.py"]
    assert lines and all(isinstance(n, int) for n in lines)
    both = cmap.branch_coverage(cmap.contexts())
    one = cmap.branch_coverage(["test_cov.py::test_int"])
    assert 0 < one["covered"] <= both["covered"] < both["total"]   # the error branches are never taken
    assert both["covered"] + len(both["missing"]) == both["total"]
    import re

    assert all(re.fullmatch(r"verify/[\w/]+\.py:\d+->-?\d+", m) for m in both["missing"]), both["missing"][:5]
    assert any(m.startswith("verify/_validate.py:") for m in both["missing"])
    with pytest.raises(ValueError, match="'data_file' must be a coverage data file"):
        CoverageMap.load(tmp_path / "nothing.sqlite")


PROBE_SUITE = '''
import pytest
from verify.empirical.data import data_available


@pytest.mark.claim("N-table1-wd")
def test_full_preset(tmp_path):
    folder = __file__.replace("test_probe.py", "fm")
    if not data_available("fashion-mnist", folder)[0]:
        pytest.skip("no data")
'''


def test_a_data_set_probe_enters_the_fingerprint(tmp_path):
    """A check that asks whether an optional data set is installed (a full preset skips without it, a quick one then
    decides) depends on the answer: the probe is recorded with the files it read, and the fingerprint moves when the
    data set appears or goes, so a cached skip is never reused once the data are there (and back)."""
    from verify.coverage_map import CoverageMap, collect

    (tmp_path / "test_probe.py").write_text(PROBE_SUITE)
    data = tmp_path / "cov.sqlite"
    code = collect([str(tmp_path), "-q", "-p", "no:randomly", "-p", "no:cacheprovider", f"--rootdir={tmp_path}"], data)
    assert code == 0
    files = CoverageMap.load(data).files_read("test_probe.py::test_full_preset")
    assert files == {AVAILABLE + "fashion-mnist\t" + str(tmp_path / "fm")}
    check = {"nodeid": "test_probe.py::test_full_preset", "file": "test_probe.py",
             "deps": {"functions": [], "files": sorted(files)}}

    def fingerprint():
        return check_fingerprint(check, Sources(tmp_path), [])

    absent = fingerprint()
    (tmp_path / "fm").mkdir()
    present = fingerprint()
    assert absent is not None and present is not None and present != absent
    (tmp_path / "fm").rmdir()
    assert fingerprint() == absent
    unknown = {**check, "deps": {"functions": [], "files": [AVAILABLE + "imagenet\t"]}}
    assert check_fingerprint(unknown, Sources(tmp_path), []) is None   # a data set this version does not know
