"""verify/dep_hits.py: the tracer-free function recorder of the report's incremental runs, against coverage.py."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from verify.coverage_map import MODULE, SourceIndex
from verify.dep_hits import NAME, FunctionHits, instrument_source

DEMO = textwrap.dedent('''\
    """A module with every kind of function the package has."""
    from __future__ import annotations

    import functools

    LIMIT = 3
    square = lambda x: x * x   # noqa: E731 (module-level lambda: its skeleton)


    def plain(x):
        return x + 1


    def documented(x):
        """Docstring first: the hit goes after it."""
        return plain(x) * 2


    def outer(x):
        def inner(y):
            return y - 1
        return inner(x)


    @functools.lru_cache(maxsize=None)
    def cached(x):
        return x * 10


    def njit(fn):          # stands for numba's: its functions are left alone
        return fn


    @njit
    def compiled(x):
        return x


    def gen(n):
        yield from range(n)


    class Shape:
        def __init__(self, n):
            self.n = n

        @property
        def size(self):
            return self.n

        @staticmethod
        def unit():
            return 1

        @classmethod
        def make(cls):
            return cls(2)

        def __repr__(self):
            return f"Shape({self.n})"
    ''')


def _demo_package(tmp_path: Path, monkeypatch, name: str) -> Path:
    """A package ``name`` with DEMO as its module ``mod``, importable for this test."""
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text(DEMO)
    monkeypatch.syspath_prepend(str(tmp_path))
    return pkg


def _functions(rec: FunctionHits, path: Path, contexts) -> set:
    index = SourceIndex(path.read_text())
    return {index.function_of(n) for n in rec.lines(contexts).get(str(path.resolve()), set())}


def _exercise(mod):
    mod.documented(1), mod.outer(2), mod.cached(3), mod.cached(3), mod.compiled(4), list(mod.gen(2))
    s = mod.Shape.make()
    return s.size, s.unit(), repr(s)


EXPECTED = {"plain", "documented", "outer", "outer.<locals>.inner", "cached", "gen", "Shape.__init__", "Shape.size",
            "Shape.unit", "Shape.make", "Shape.__repr__"}


def test_instrumented_code_keeps_every_line_number_and_skips_compiled_functions():
    plain = compile(DEMO, "demo.py", "exec")
    inst = instrument_source(DEMO, "demo.py")

    def lines(code, out):
        name = getattr(code, "co_qualname", code.co_name)
        out.setdefault(name, set()).update(n for _, _, n in code.co_lines() if n)
        out[name + "@first"] = code.co_firstlineno
        for c in code.co_consts:
            if hasattr(c, "co_lines"):
                lines(c, out)
        return out

    before, after = lines(plain, {}), lines(inst, {})
    assert before.keys() == after.keys()
    assert all(before[k] == after[k] for k in before if k.endswith("@first"))     # co_firstlineno unchanged
    # every line keeps its number (tracebacks); the only new one is a docstring's, where the hit sits
    assert all(before[k] <= after[k] for k in before) and after["documented"] - before["documented"] == {15}
    assert all(before[k] == after[k] for k in before if k != "documented")
    names = lambda code: {n for c in code.co_consts if hasattr(c, "co_names") for n in c.co_names}  # noqa: E731
    assert NAME in names(inst) and NAME not in names(plain)
    compiled = next(c for c in inst.co_consts if getattr(c, "co_name", "") == "compiled")
    assert NAME not in compiled.co_names                # numba's Python body never runs: not instrumented


def test_hits_name_the_functions_a_context_called(tmp_path, monkeypatch):
    pkg = _demo_package(tmp_path, monkeypatch, "depdemo")
    rec = FunctionHits("depdemo", pkg)
    rec.start()
    try:
        rec.switch_context("import")
        import depdemo.mod as mod
        rec.switch_context("check-a")
        _exercise(mod)
        rec.switch_context("check-b")
        mod.plain(0)
    finally:
        rec.stop()
        sys.modules.pop("depdemo.mod", None)
        sys.modules.pop("depdemo", None)
    path = pkg / "mod.py"
    assert _functions(rec, path, ["import"]) == {MODULE, "njit"}      # the skeleton; its decorator ran too
    assert _functions(rec, path, ["check-a"]) == EXPECTED
    assert _functions(rec, path, ["check-b"]) == {"plain"}
    assert "compiled" not in _functions(rec, path, ["check-a"])


def test_a_module_imported_before_the_recorder_gets_its_code_swapped(tmp_path, monkeypatch):
    pkg = _demo_package(tmp_path, monkeypatch, "depdemo2")
    import depdemo2.mod as mod          # before start: functions, methods, property, lru_cache, closures
    try:
        rec = FunctionHits("depdemo2", pkg)
        rec.start()
        rec.switch_context("check")
        _exercise(mod)
        rec.stop()
    finally:
        sys.modules.pop("depdemo2.mod", None)
        sys.modules.pop("depdemo2", None)
    path = pkg / "mod.py"
    assert _functions(rec, path, ["check"]) == EXPECTED
    assert (str(path.resolve()), 0) in rec.preloaded     # its skeleton counts in every check (conservative)


# the compiled tensor kernels' checks (S/loss/test_statements.py: about 50 s under coverage.py) in the slow tier; the
# default tier compares the backends on two quick real check files of both papers
@pytest.mark.parametrize("target", [pytest.param("proofs_checks/S/loss/test_statements.py", marks=pytest.mark.slow),
                                    "proofs_checks/S/loss/test_outputs.py",
                                    "proofs_checks/N/perturbation/test_routes.py"])
def test_recorded_functions_are_those_coverage_records(tmp_path, target):
    """On real checks, one pytest run per backend: every function coverage.py records for a check is recorded by
    the hits too, and the only extras are the skeletons of the modules imported before the recorder started."""
    root = Path(__file__).resolve().parents[1]
    if not (root / target).exists():
        pytest.skip(f"{target} is not beside this test")
    out = {}
    for backend in ("coverage", "hits"):
        js = tmp_path / f"{backend}.json"
        env = dict(os.environ, VERIFY_DEPS_BACKEND=backend)
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                              target, "--verify-deps", f"--verify-json={js}"], cwd=root, env=env,
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
        out[backend] = {c["nodeid"]: {tuple(f) for f in c["deps"]["functions"]}
                        for c in json.loads(js.read_text())["checks"]}
    assert out["coverage"].keys() == out["hits"].keys() and len(out["hits"]) >= 5
    for node, funcs in out["coverage"].items():
        assert funcs <= out["hits"][node], (node, sorted(funcs - out["hits"][node]))
        assert all(q == MODULE for _, q in out["hits"][node] - funcs), (node, sorted(out["hits"][node] - funcs))
        assert len(funcs) > 10            # a check executes real package code: the comparison is not empty
