"""benchmarks/mutation_judge.py: a mutmut mutant becomes exactly the edit mutmut's own diff shows."""

import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SOURCE = '''\
def f(a, b=2):
    """doc"""
    c = a * b + 1
    return c if c > 3 else -c


def h(a):
    c = a * 2 + 1
    return c


class K:
    def g(self, x):
        return x ** 2 - 1


class K2:
    def g(self, x):
        return x + 5
'''


@pytest.fixture
def judge(benchmark_script):
    return benchmark_script("mutation_judge")


def _generate(tmp_path, monkeypatch, path: Path, src: str) -> list[str]:
    """mutmut's mutants of one module ``path`` holding ``src``, generated in ``tmp_path`` (the cwd)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.mutmut]\nsource_paths = ["verify/"]\n')
    (tmp_path / path).parent.mkdir(parents=True)
    (tmp_path / "mutants" / path).parent.mkdir(parents=True)
    (tmp_path / path).write_text(src)
    mm = pytest.importorskip("mutmut.__main__")
    with open(tmp_path / "mutants" / path, "w") as out:
        made = mm.write_all_mutants_to_file(out=out, source=src, filename=path)
    return [mm.get_mutant_name(path, n) for n in made.mutant_names]


def test_edit_of_is_the_mutant_mutmut_diffs_and_occurs_once(tmp_path, monkeypatch, judge):
    """Every mutant mutmut generates for a small module (functions, a method, a default argument, and a line
    that occurs twice in the file, in f and in h) turns into an (old, new) edit that occurs once in the file and
    whose changed lines are those of mutmut's own diff of that mutant (an independent route: mutmut reads the
    generated function back, the judge rebuilds the module and compares lines)."""
    path = Path("verify/numeric/x.py")
    names = _generate(tmp_path, monkeypatch, path, SOURCE)
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    assert len(names) >= 10 and any("ǁKǁg" in n for n in names) and any("ǁK2ǁg" in n for n in names)
    judge = judge
    for name in names:
        old, new = judge.edit_of(name, str(path))
        assert SOURCE.count(old) == 1 and old != new
        diff = get_diff_for_mutant(name, path=str(path)).splitlines()[2:]
        minus = [ln[1:].strip() for ln in diff if ln.startswith("-")]
        plus = [ln[1:].strip() for ln in diff if ln.startswith("+")]
        changed_old = [ln.strip() for ln, ln2 in zip(old.splitlines(), new.splitlines()) if ln != ln2]
        changed_new = [ln2.strip() for ln, ln2 in zip(old.splitlines(), new.splitlines()) if ln != ln2]
        assert (changed_old, changed_new) == (minus, plus), name
        mutated = SOURCE.replace(old, new)
        if "ǁK2ǁg" in name:   # a method is found in its own class, not in the first class with that name
            assert SOURCE.index(old) > SOURCE.index("class K2:")
        assert mutated != SOURCE and compile(mutated, "x.py", "exec")


def test_a_repeated_line_is_widened_until_unique(tmp_path, monkeypatch, judge):
    """``c = a * 2 + 1`` would be ambiguous against a copy elsewhere: the edit takes lines above it."""
    src = SOURCE + textwrap.dedent('''

        def h2(a):
            c = a * 2 + 1
            return c
        ''')
    path = Path("verify/numeric/y.py")
    names = _generate(tmp_path, monkeypatch, path, src)
    judge = judge
    hit = 0
    for name in names:
        if "x_h2__" not in name:
            continue
        old, new = judge.edit_of(name, str(path))
        assert src.count(old) == 1
        hit += old.startswith("def h2(a):\n    c = a * 2 + 1\n") or "c = a * 2 + 1" not in old
    assert hit >= 1


def _fake_verdicts(monkeypatch):
    """A claim's verdict = the sorted outcomes of its checks (enough to see which results the rule merges)."""
    import verify.mutants as vm

    monkeypatch.setattr(vm, "_verdict_of", lambda checks, claim: ",".join(
        sorted(c["outcome"] for c in checks if claim in c["ids"])))


def test_union_outcome_applies_the_claim_rule_to_every_claim_of_the_union(monkeypatch, judge):
    """Union mode's kill rule is verify.mutants._classify's, applied to each claim: exit 1 / 2 / timeout kill;
    exit 0 kills only when some claim's verdict (its run checks, the unrun ones at their baseline) moves."""
    _fake_verdicts(monkeypatch)
    uo = judge.union_outcome
    base = [{"nodeid": "a", "ids": ["C1"], "outcome": "passed"}, {"nodeid": "b", "ids": ["C1", "C2"], "outcome": "passed"},
            {"nodeid": "c", "ids": ["C2"], "outcome": "xfailed"}]
    verdicts = {"C1": "passed,passed", "C2": "passed,xfailed"}
    assert uo(None, None, base, ["C1", "C2"], verdicts)[0] == "killed"
    st, detail = uo(1, [{"nodeid": "b", "ids": ["C1", "C2"], "outcome": "failed"}], base, ["C1", "C2"], verdicts)
    assert st == "killed" and "b" in detail
    assert uo(2, None, base, ["C1"], verdicts, "ImportError")[0] == "killed"
    assert uo(3, None, base, ["C1"], verdicts)[0] == "error"
    # only b ran and passed: c keeps its baseline xfail, so no verdict moves
    assert uo(0, [{"nodeid": "b", "ids": ["C1", "C2"], "outcome": "passed"}], base, ["C1", "C2"], verdicts)[0] \
        == "survived"
    # c ran and now passes (an xfail that no longer fails): C2's verdict moves although exit is 0
    st, detail = uo(0, [{"nodeid": "c", "ids": ["C2"], "outcome": "passed"}], base, ["C1", "C2"], verdicts)
    assert st == "killed" and "C2" in detail


def test_union_checks_run_a_shared_check_once_and_the_limit_scales_with_them(judge):
    j = judge
    bases = {"C1": {"checks": [{"nodeid": "a"}, {"nodeid": "b"}]}, "C2": {"checks": [{"nodeid": "b"}, {"nodeid": "c"}]}}
    assert [c["nodeid"] for c in j.union_checks(bases, ["C1", "C2"])] == ["a", "b", "c"]
    assert j.union_timeout([2.0, 5.0], 300) == 300 + 3 * 7.0
    assert j.union_timeout([], 120) == 120


def test_the_tests_suite_selects_by_the_line_the_mutant_changes(benchmark_script):
    """The edit's old text starts with unchanged lines that make it unique; the tests are chosen by the first
    line that differs, and a def line (run at import by no test) falls back to the lines of its function."""
    J = benchmark_script("mutation_judge")
    text = "def f(a):\n    x = 1\n    return x\n\n\ndef g(a):\n    x = 1\n    return x + a\n"
    old, new = "def g(a):\n    x = 1\n", "def g(a):\n    x = 2\n"
    assert J.first_changed_line(text, old, new) == 7
    assert J.first_changed_line(text, "def g(a):\n", "def g(a=3):\n") == 6
    assert list(J.function_lines(text, 6)) == [6, 7, 8] and list(J.function_lines(text, 4)) == []
    files = J.importing_tests(ROOT, ["verify/numeric/perturbation_figures.py"])
    assert "tests/numeric/test_perturbation_figures_reference.py" in files
    assert "tests/numeric/test_power_sums_flops_reference.py" not in files


def test_the_tests_suite_selects_files_that_reach_the_module_through_the_package(benchmark_script, tmp_path):
    """A test file that imports a module of the package which imports the mutated one - relatively, lazily inside a
    function, or by its name as a string for importlib (``verify.latex``'s registry) - is selected; one that
    imports only unrelated modules is not. On the project: ``tests/test_latex_notation.py`` runs
    ``verify/symbolic/central_path.py`` through ``verify.latex`` (two of its mutants were killed only there)."""
    J = benchmark_script("mutation_judge")
    v, t = tmp_path / "verify", tmp_path / "tests"
    (v / "sub").mkdir(parents=True)
    t.mkdir()
    (v / "__init__.py").write_text("")
    (v / "sub" / "__init__.py").write_text("")
    (v / "sub" / "target.py").write_text("def f():\n    return 1\n")
    (v / "rel.py").write_text("from .sub import target\n")
    (v / "lazy.py").write_text("def g():\n    from verify.sub.target import f\n    return f()\n")
    (v / "registry.py").write_text("import importlib\nMODS = ['verify.sub.target']\n")
    (v / "chain.py").write_text("from . import rel\n")
    (v / "other.py").write_text("import os\nX = 'verify.sub'\n")
    (v / "sub" / "up.py").write_text("from .. import rel\n")   # two levels up: verify.rel
    for name, text in {"test_rel": "from verify import rel", "test_lazy": "import verify.lazy",
                       "test_registry": "from verify.registry import MODS", "test_chain": "from verify import chain",
                       "test_other": "from verify import other", "test_up": "from verify.sub import up"}.items():
        (t / f"{name}.py").write_text(text + "\n")
    assert J.reaching_modules(tmp_path, ["verify/sub/target.py"]) == {
        "verify.sub.target", "verify.rel", "verify.lazy", "verify.registry", "verify.chain", "verify.sub.up"}
    assert J.importing_tests(tmp_path, ["verify/sub/target.py"]) == [
        "tests/test_chain.py", "tests/test_lazy.py", "tests/test_registry.py", "tests/test_rel.py",
        "tests/test_up.py"]
    assert J.package_imports(tmp_path)["verify.other"] == {"verify", "verify.sub"}   # a package's string
    assert "tests/test_latex_notation.py" in J.importing_tests(ROOT, ["verify/symbolic/central_path.py"])


def test_the_tests_suite_selects_files_that_reach_the_module_through_a_local_helper(benchmark_script, tmp_path):
    """A test file that names no module but imports a module of tests/ that does (the recorded-messages test reaches
    the sweep's modules through test_api_parameters) is selected, transitively; one that imports only unrelated
    helpers is not, nor is a helper that is no test file."""
    J = benchmark_script("mutation_judge")
    t = tmp_path / "tests"
    (t / "sub").mkdir(parents=True)
    (t / "helper_a.py").write_text('MODULES = ("verify.numeric.upper_bounds",)\n')
    (t / "helper_b.py").write_text("import helper_a\n")
    (t / "unrelated.py").write_text("X = 1\n")
    (t / "test_direct.py").write_text("from verify.numeric import upper_bounds\n")
    (t / "sub" / "test_via_two.py").write_text("from helper_b import *\n")
    (t / "test_via_one.py").write_text("import helper_a as H\n")
    (t / "test_other.py").write_text("import unrelated\nfrom verify.numeric import ufm\n")
    got = J.importing_tests(tmp_path, ["verify/numeric/upper_bounds.py"])
    assert got == ["tests/sub/test_via_two.py", "tests/test_direct.py", "tests/test_via_one.py"]
    assert "tests/test_api_messages.py" in J.importing_tests(ROOT, ["verify/numeric/upper_bounds.py"])
