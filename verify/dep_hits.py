r"""Which package functions each check called, recorded without a tracer: the light backend of
:class:`verify.coverage_map.Recorder` in ``--verify-deps`` mode (the report's incremental runs).

Why not coverage.py there: a claim's fingerprint needs the *functions* its checks executed, not lines or arcs, and
under Python <= 3.11 any ``sys.settrace`` tracer puts the interpreter in its slow tracing mode for every frame,
library code included. Measured on the 2-core Intel machine: the sympy-heavy slow check
``test_generic_identities_larger_m_and_sizes`` took 16.4 s plain and 35.1 s under the coverage recorder, and the
same 35 s with coverage measuring no file at all (``--source`` of a package that does not exist): the cost is
the tracing mode, not the measuring.

How: each function of the package gets one statement in front of its body, ``__verify_dep__(<line>)``, with
``<line>`` the first line of its body, so that :meth:`verify.coverage_map.SourceIndex.function_of` maps it to
that very function. The statement keeps the line numbers of everything else (tracebacks, ``co_firstlineno``).
Modules imported after :func:`install` are compiled from instrumented source by an import hook; modules already
imported get the instrumented code objects swapped into their functions (matched by qualified name and first
line: the same source, so the same closures). A module's import-time execution is recorded as one hit on its
skeleton (``<module>``), as coverage.py records its module-level lines.

Not recorded, as under coverage.py: code compiled by numba (left uninstrumented: its Python body never runs) and
code run in other processes. Not recorded, unlike coverage.py: a lambda or comprehension at module level called
later (each enclosing *function* is recorded when it runs), and functions made before :func:`install` by a
factory of a module imported before it. Both are covered conservatively: every module imported before
:func:`install` counts as executed in every check (:attr:`FunctionHits.preloaded`), and the skeleton of every
module imported during collection reaches every check through the collection contexts. ``tests/test_dep_hits.py``
checks, on real checks, that the functions recorded here are the functions coverage.py records.
"""

from __future__ import annotations

import ast
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from pathlib import Path

from ._parse import parse

__all__ = ["FunctionHits", "instrument_source", "NAME"]

#: the name of the hit function in the instrumented modules' globals
NAME = "__verify_dep__"
#: decorators whose functions are compiled by numba: their Python body is not the code that runs (an intrinsic's
#: body runs once, while numba compiles its caller)
COMPILED = {"njit", "jit", "vectorize", "guvectorize", "cfunc", "generated_jit", "stencil", "overload", "intrinsic"}


def decorator_name(node: ast.expr) -> str:
    node = node.func if isinstance(node, ast.Call) else node
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


class _Insert(ast.NodeTransformer):
    def _visit_def(self, node):
        self.generic_visit(node)
        if any(decorator_name(d) in COMPILED for d in node.decorator_list):
            return node
        first = node.body[0]
        call = ast.Expr(ast.Call(ast.Name(NAME, ast.Load()), [ast.Constant(first.lineno)], []))
        for n in ast.walk(call):   # the hit sits on the body's first line: no other line number moves
            n.lineno, n.col_offset = first.lineno, first.col_offset
            n.end_lineno, n.end_col_offset = first.lineno, first.col_offset
        doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
        node.body.insert(1 if doc else 0, call)
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = _visit_def


def instrument_source(source: str, filename: str) -> types.CodeType:
    """The module code of ``source`` with a hit in front of every function body (see the module docstring)."""
    tree = _Insert().visit(parse(source, filename))
    return compile(tree, filename, "exec", dont_inherit=True)


def _qualname(code: types.CodeType) -> str:
    return getattr(code, "co_qualname", code.co_name)   # co_qualname from Python 3.11 on


def _codes(code: types.CodeType, out: dict) -> dict:
    """Every function code object inside ``code``, by (qualified name, first line)."""
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out[(_qualname(c), c.co_firstlineno)] = c
            _codes(c, out)
    return out


class _Hit:
    """The ``__verify_dep__`` of one file: adds ``(file, line)`` to the recorder's current context."""

    __slots__ = ("rec", "path")

    def __init__(self, rec: "FunctionHits", path: str):
        self.rec, self.path = rec, path

    def __call__(self, line: int) -> None:
        self.rec.current.add((self.path, line))


class _Loader(importlib.machinery.SourceFileLoader):
    rec: "FunctionHits"

    def source_to_code(self, data, path, *, _optimize=-1):
        return instrument_source(importlib.util.decode_source(data), path)

    def exec_module(self, module):
        path = str(Path(self.path).resolve())
        module.__dict__[NAME] = _Hit(self.rec, path)
        self.rec.current.add((path, 0))           # the import-time code: the skeleton (line 0 is outside every def)
        super().exec_module(module)

    # never read or write the bytecode cache: instrumented code must not reach a plain import, nor the reverse
    def get_code(self, fullname):
        return self.source_to_code(self.get_data(self.path), self.path)


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, rec: "FunctionHits"):
        self.rec = rec

    def find_spec(self, fullname, path=None, target=None):
        if not (fullname == self.rec.package or fullname.startswith(self.rec.package + ".")):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec
        origin = str(Path(spec.origin).resolve())
        if not origin.startswith(self.rec.root + "/") or origin in self.rec.omit:
            return spec
        loader = _Loader(fullname, spec.origin)
        loader.rec = self.rec
        spec.loader = loader
        return spec


class FunctionHits:
    """Per context (a check, a shared fixture, a collection), the ``(file, line)`` hits of the package's
    functions; the interface :class:`verify.coverage_map.Recorder` needs of coverage.py (``start``, ``stop``,
    ``switch_context``) plus :meth:`lines`."""

    def __init__(self, package: str, root: str | Path, omit: list[str] = ()):
        self.package = package
        self.root = str(Path(root).resolve())
        self.omit = {str(Path(p).resolve()) for p in omit}
        self.data: dict[str, set] = {"": set()}
        self.current = self.data[""]
        self.preloaded: set[tuple[str, int]] = set()
        self._finder = None

    def switch_context(self, ctx: str) -> None:
        self.current = self.data.setdefault(ctx, set())

    def start(self) -> None:
        for name, mod in list(sys.modules.items()):
            if name == self.package or name.startswith(self.package + "."):
                self._instrument_loaded(mod)
        self._finder = _Finder(self)
        sys.meta_path.insert(0, self._finder)

    def stop(self) -> None:
        if self._finder in sys.meta_path:
            sys.meta_path.remove(self._finder)

    def lines(self, contexts: list[str]) -> dict[str, set[int]]:
        """``{file: lines}`` hit in any of ``contexts`` (line 0: the module's import-time code)."""
        out: dict[str, set[int]] = {}
        for ctx in contexts:
            for path, line in self.data.get(ctx, ()):
                out.setdefault(path, set()).add(line)
        return out

    def _instrument_loaded(self, mod) -> None:
        path = getattr(mod, "__file__", None)
        if not path or not path.endswith(".py"):
            return
        path = str(Path(path).resolve())
        if not path.startswith(self.root + "/") or path in self.omit:
            return
        try:
            codes = _codes(instrument_source(Path(path).read_text(encoding="utf-8"), path), {})
        except (OSError, SyntaxError, UnicodeDecodeError):
            return
        mod.__dict__[NAME] = _Hit(self, path)
        self.preloaded.add((path, 0))   # its import ran before: count its skeleton in every check (conservative)
        seen: set[int] = set()
        for obj in list(vars(mod).values()):
            self._swap(obj, codes, mod.__name__, seen)

    def _swap(self, obj, codes: dict, modname: str, seen: set) -> None:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, (staticmethod, classmethod)):
            return self._swap(obj.__func__, codes, modname, seen)
        if isinstance(obj, property):
            for f in (obj.fget, obj.fset, obj.fdel):
                if f is not None:
                    self._swap(f, codes, modname, seen)
            return
        if isinstance(obj, type):
            if obj.__module__ == modname:
                for v in list(vars(obj).values()):
                    self._swap(v, codes, modname, seen)
            return
        wrapped = getattr(obj, "__wrapped__", None)   # functools.wraps / lru_cache: the function inside
        if wrapped is not None and not isinstance(obj, types.ModuleType):
            self._swap(wrapped, codes, modname, seen)
        if isinstance(obj, types.FunctionType) and obj.__module__ == modname:
            new = codes.get((_qualname(obj.__code__), obj.__code__.co_firstlineno))
            if new is not None and new.co_freevars == obj.__code__.co_freevars:
                obj.__code__ = new
