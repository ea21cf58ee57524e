"""Which package code each check executed: coverage.py with one dynamic context per check.

:func:`collect` runs pytest under coverage.py (``branch=True``, only the ``verify`` package measured) and
switches coverage's dynamic context with the run, so every line and arc is labelled by what executed it:

* ``<nodeid>`` - the check itself (setup, call and teardown of its function-scoped fixtures);
* ``fixture:<baseid>::<name>`` - a class/module/session-scoped fixture, computed once and shared by every
  check that uses it (attributing it to the first such check only would make the others' dependencies
  incomplete);
* ``collect:<module nodeid>`` - the import of a check module (its module-level code, parametrisations).

:class:`CoverageMap` reads the data back per check, folding into a check's context those of the shared
fixtures it uses and of its module's collection: ``executed_lines(nodeid)`` is everything the check's
result depended on. Files are named by their path relative to the package's parent folder
(``verify/numeric/frames.py``, the convention of :class:`verify.mutants.Mutant`); functions by their
qualified name, found with :mod:`ast` (innermost enclosing ``def``; methods ``Class.method``; a line
outside every function is ``<module>``).

The same recorder serves :mod:`verify.report`'s incremental runs (``--verify-deps``): there each check's
executed functions travel with its teardown report, so a result and its dependencies arrive together. Those
need functions only, so there the recorder counts them with :mod:`verify.dep_hits` instead of coverage.py's
tracer (which doubled the Python-heavy checks under Python 3.11); ``VERIFY_DEPS_BACKEND=coverage`` keeps
coverage.py there too.

Example::

    from verify.coverage_map import CoverageMap, collect
    collect(["proofs_checks/S/loss/test_statements.py", "-q"], Path("cov.sqlite"))
    cmap = CoverageMap.load(Path("cov.sqlite"))
    node = cmap.contexts()[0]
    cmap.executed_functions(node)        # {("verify/numeric/superposition_loss.py", "exact_loss"), ...}
    cmap.branch_coverage([node])         # {"covered": .., "total": .., "missing": ["verify/x.py:12->14", ...]}
"""

from __future__ import annotations

import ast
import bisect
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

import pytest

from ._parse import PARSE_LOCK, parse  # noqa: F401  (PARSE_LOCK: the one lock, importable from here too)
from .cache import AVAILABLE

__all__ = ["collect", "CoverageMap", "SourceIndex", "source_index", "package_dir", "MODULE"]

PACKAGE = "verify"
#: the qualified name of code outside every function (module and class bodies)
MODULE = "<module>"


def lru_caches(prefixes=("verify.numeric", "verify.symbolic", "verify.objectives")) -> list:
    """The ``functools.lru_cache`` wrappers of the loaded modules under ``prefixes`` (module level and one
    class level down), for :class:`verify.route_map.FreshCaches` and the recorder here."""
    out, seen = [], set()
    for name, mod in list(sys.modules.items()):
        if mod is None or not name.startswith(prefixes):
            continue
        for obj in list(vars(mod).values()):
            for f in [obj, *(vars(obj).values() if isinstance(obj, type) else ())]:
                f = getattr(f, "__func__", f)
                if callable(getattr(f, "cache_clear", None)) and id(f) not in seen:
                    seen.add(id(f))
                    out.append(f)
    return out


def package_dir() -> Path:
    """The folder of the ``verify`` package that is imported (the installed one, or a mutant copy)."""
    import verify

    return Path(verify.__file__).resolve().parent


def _rel(path: str | os.PathLike, pkg: Path | None = None) -> str | None:
    """``verify/x/y.py`` for a file of the package, else None."""
    pkg = pkg or package_dir()
    try:
        return Path(path).resolve().relative_to(pkg.parent).as_posix()
    except ValueError:
        return None


# ------------------------------------------------------------------ source index (ast)



class SourceIndex:
    """One Python file: which function each line belongs to, and a digest of each function's source.

    A function's span starts at its first decorator and ends at its last line; a nested ``def`` is its own
    function (its lines are not the outer one's). Everything outside every function - imports, constants,
    class bodies, decorators of classes - is the module's *skeleton*, digested as one piece, so an edit of a
    module-level constant moves every check that executed code of the module.

    Compiled code is skeleton too: a function compiled by numba (a decorator in
    :data:`verify.dep_hits.COMPILED`, numba intrinsics included) never runs as Python, so no check records it,
    and neither does a function that defines one (an intrinsic factory runs once, at import, inside whichever
    check imported the module first). Their text joins the skeleton, which every check that touches or imports the
    module digests: an edit of a kernel moves all of those checks.
    """

    def __init__(self, text: str):
        self.text = text
        lines = text.splitlines(keepends=True)
        self.spans: list[tuple[int, int, str]] = []   # (first line, last line, qualname), 1-based inclusive
        self.heads: list[tuple[int, int]] = []         # (first line, last line of the signature)
        try:
            tree = parse(text)
        except SyntaxError:
            tree = None
        self.parsed = tree is not None
        self.imports: set[tuple[str, int]] = set()   # (module, level) as written
        if tree is not None:
            self._walk(tree, "")
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    self.imports.update((a.name, 0) for a in node.names)
                elif isinstance(node, ast.ImportFrom):
                    base = node.module or ""
                    self.imports.add((base, node.level))
                    self.imports.update((f"{base}.{a.name}" if base else a.name, node.level) for a in node.names)
        self.spans.sort()
        self._starts = [s[0] for s in self.spans]
        digests: dict[str, hashlib._Hash] = {}
        owned = [False] * (len(lines) + 2)
        for first, last, name in self.spans:
            h = digests.setdefault(name, hashlib.sha256())
            h.update("".join(lines[first - 1:last]).encode())
        for first, last, name in self.spans:
            # a parent's digest includes its nested defs' text: an edit there moves both, which is safe
            for i in range(first, last + 1):
                owned[i] = True
        self.function_digests = {name: h.hexdigest() for name, h in digests.items()}
        skeleton = "".join(line for i, line in enumerate(lines, start=1) if not owned[i])
        self.skeleton_digest = hashlib.sha256(skeleton.encode()).hexdigest()

    def _walk(self, node, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if _defines_compiled(child):
                    continue                # its lines stay unowned: the module's skeleton
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                name = f"{prefix}{child.name}"
                self.spans.append((first, child.end_lineno, name))
                # decorators, the def line and default values run in the enclosing scope, at definition
                self.heads.append((first, child.body[0].lineno - 1))
                self._walk(child, f"{name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                self._walk(child, f"{prefix}{child.name}.")
            else:
                self._walk(child, prefix)

    def function_of(self, line: int) -> str:
        """The innermost function whose body holds ``line`` (``<module>`` if none: module or class level).

        The decorators and the ``def`` line of a function run when it is defined, in the enclosing scope,
        so they belong to that scope."""
        i = bisect.bisect_right(self._starts, line)
        for first, last, name in reversed(self.spans[:i]):   # the latest start that holds it is the innermost
            if first <= line <= last and not self._in_head(first, line):
                return name
        return MODULE

    def _in_head(self, first: int, line: int) -> bool:
        return any(f == first and line <= h for f, h in self.heads)

    def digest(self, qualname: str) -> str | None:
        """The digest of one function's source (``<module>``: the skeleton); None if it no longer exists."""
        if qualname == MODULE:
            return self.skeleton_digest
        return self.function_digests.get(qualname)


def _defines_compiled(fn: ast.AST) -> bool:
    """Whether ``fn`` is compiled by numba or defines a function that is (see :class:`SourceIndex`)."""
    from .dep_hits import COMPILED, decorator_name

    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
               and any(decorator_name(d) in COMPILED for d in n.decorator_list) for n in ast.walk(fn))


@lru_cache(maxsize=512)
def _index_cached(path: str, mtime_ns: int, size: int) -> SourceIndex:
    return SourceIndex(Path(path).read_text(encoding="utf-8"))


def source_index(path: str | os.PathLike) -> SourceIndex | None:
    """The :class:`SourceIndex` of a file as it is now (cached by mtime and size); None if unreadable."""
    try:
        st = os.stat(path)
        return _index_cached(str(Path(path).resolve()), st.st_mtime_ns, st.st_size)
    except (OSError, UnicodeDecodeError):
        return None


# ------------------------------------------------------------------ the recorder (a pytest plugin object)

def _is_controller(config) -> bool:
    """An xdist controller runs no check: coverage belongs in its workers."""
    return not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", None) not in (None, 0)


class Recorder:
    """Switches coverage's dynamic context as pytest collects, sets up fixtures and runs checks.

    ``deps=True`` (the report's incremental mode) attaches each check's executed functions and the data files
    it read to its teardown report (``user_properties`` key ``verify-deps``), so they reach the xdist
    controller with the result. ``data_file`` (the :func:`collect` mode) saves the coverage data and a JSON
    sidecar (``<data_file>.verify-<pid>.json``: per check its module and shared fixtures, the data files read).
    """

    def __init__(self, data_file: str | None, branch: bool, deps: bool, exclude: list[str] | None = None,
                 root: str | None = None):
        import coverage

        self.pkg = package_dir()
        # the recorder itself is the measuring tool, not code a check depends on (_parse: its parses, which the hits
        # backend's instrumentation runs inside a check whenever a module is imported)
        omit = [str(self.pkg / name) for name in ("coverage_map.py", "dep_hits.py", "_parse.py")]
        if deps and not branch and not data_file and os.environ.get("VERIFY_DEPS_BACKEND", "hits") != "coverage":
            # the report's incremental runs need functions only: hits without a tracer (verify.dep_hits says why)
            from .dep_hits import FunctionHits

            self.cov = FunctionHits(PACKAGE, self.pkg, omit=omit)
        else:
            self.cov = coverage.Coverage(data_file=data_file, data_suffix=True if data_file else None,
                                         branch=branch, source_pkgs=[PACKAGE], config_file=False, omit=omit)
        self.data_file = data_file
        self.deps = deps
        self.context = ""
        self.items: dict[str, dict] = {}
        self.files_read: dict[str, set[str]] = {}
        self.root = str(Path(root).resolve()) if root else None
        self.exclude = [str(Path(p).resolve()) for p in (exclude or [])]
        if self.root:   # pytest's own caches under the project are no data either
            self.exclude += [os.path.join(self.root, ".pytest_cache"), os.path.join(self.root, ".hypothesis"),
                             os.path.join(self.root, ".verify-cache")]
        self._ctx_funcs: dict[str, set] = {}   # finished shared contexts (fixtures, collection): functions
        self._collected: list[str] = []         # every ``collect:`` context of this process
        # memoised helpers (functools.lru_cache): a check that reads a cached value depends on the code that
        # computed it, which ran in the context of an earlier check; these record who filled each cache
        self._cache_counts: dict[int, tuple] = {}   # id(wrapper) -> (hits, misses) when the check started
        self._fillers: dict[int, set] = {}          # id(wrapper) -> functions of the contexts that filled it
        self.cov.start()
        self._audit_on = True
        sys.addaudithook(self._audit)

    # data files: every regular file opened for reading under the project, except code and caches
    def _audit(self, event, args):
        if event == "verify.data.available" and self._audit_on:   # a probe of an optional data set (by name)
            self.files_read.setdefault(self.context, set()).add(AVAILABLE + "\t".join(args))
            return
        if event != "open" or not self._audit_on or not args or not isinstance(args[0], (str, bytes, os.PathLike)):
            return
        mode = args[1] if len(args) > 1 else "r"      # builtins.open: (file, mode, flags); os.open: (path, None, flags)
        flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
        if isinstance(mode, str) and any(c in mode for c in "wax+"):
            return
        if mode is None and flags & (os.O_WRONLY | os.O_RDWR):
            return
        self._audit_on = False  # the checks below open nothing, but be safe against recursion
        try:
            path = os.path.abspath(os.fsdecode(args[0]))
            # the interpreter and the libraries (a virtual environment inside the project too) are no data:
            # their versions are in the fingerprint
            if (path.endswith((".py", ".pyc", ".pth", ".so")) or "__pycache__" in path or
                    any(path.startswith(e) for e in self.exclude) or path.startswith(sys.prefix + os.sep)
                    or path.startswith(sys.base_prefix + os.sep) or not os.path.isfile(path)):
                return
            # outside the project, the system and scratch files are no data of the checks either
            if not (self.root and path.startswith(self.root + os.sep)) and (
                    path.startswith(("/proc", "/dev", "/sys", "/etc")) or path.startswith(tempfile.gettempdir())):
                return
            self.files_read.setdefault(self.context, set()).add(path)
        finally:
            self._audit_on = True

    def _switch(self, ctx: str) -> str:
        prev, self.context = self.context, ctx
        self.cov.switch_context(ctx)
        return prev

    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(self, collector):
        if not isinstance(collector, pytest.Module):
            yield
            return
        self._collected.append(f"collect:{collector.nodeid}")
        prev = self._switch(f"collect:{collector.nodeid}")
        try:
            yield
        finally:
            self._switch(prev)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        if fixturedef.scope == "function":
            yield
            return
        prev = self._switch(_fixture_context(fixturedef))
        try:
            yield
        finally:
            self._switch(prev)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.items[item.nodeid] = {"module": _module_nodeid(item), "fixtures": _shared_fixtures(item)}
        self._started = time.perf_counter()
        if self.deps:
            self._cache_counts = {k: v[1:] for k, v in _memo_counts().items()}
        prev = self._switch(item.nodeid)
        try:
            yield
        finally:
            self._switch(prev)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        if not self.deps or call.when != "teardown":
            return
        report = outcome.get_result()
        # the check's own time (setup, call, teardown; not the recording): the mutant runner orders checks by it
        seconds = round(time.perf_counter() - getattr(self, "_started", time.perf_counter()), 3)
        prev = self._switch("")   # the recorder's own calls are none of the check's
        counts = _memo_counts()   # before the recorder's own work below
        self._switch(prev)
        meta = self.items.get(item.nodeid) or {"module": _module_nodeid(item), "fixtures": _shared_fixtures(item)}
        # the import of *every* collected check module: a package module imported (and its import-time code
        # run) while another check module was collected serves this check as much as that one's
        shared = [f"collect:{meta['module']}", *self._collected, *meta["fixtures"]]
        funcs = set(self._functions([item.nodeid]))
        for ctx in dict.fromkeys(shared):
            if ctx not in self._ctx_funcs:
                self._ctx_funcs[ctx] = set(self._functions([ctx]))
            funcs |= self._ctx_funcs[ctx]
        funcs |= self._memo_dependencies(counts, funcs)
        read = set()
        for ctx in [item.nodeid, *shared]:
            read |= self.files_read.get(ctx, set())
        payload = {"functions": sorted(funcs), "files": sorted(read), "seconds": seconds}
        report.user_properties.append(("verify-deps", json.dumps(payload, sort_keys=True)))

    def _memo_dependencies(self, counts: dict, funcs: set) -> set:
        """The functions behind the cached values this check read: for every memoised helper it hit, what
        the checks that filled that cache executed (an over-approximation: all of it). A cache this check
        filled records this check's functions as its fillers."""
        extra: set = set()
        for key, (_, hits, misses) in counts.items():
            hits0, misses0 = self._cache_counts.get(key, (0, 0))
            if hits > hits0:
                extra |= self._fillers.get(key, set())
            if misses > misses0:
                self._fillers.setdefault(key, set()).update(funcs)
        return extra

    def _functions(self, contexts: list[str]) -> list[tuple[str, str]]:
        if hasattr(self.cov, "lines"):   # verify.dep_hits.FunctionHits
            out = set()
            hits = self.cov.lines(contexts)
            for path, line in self.cov.preloaded:
                hits.setdefault(path, set()).add(line)
            for path, lines in hits.items():
                rel, index = _rel(path, self.pkg), source_index(path)
                if rel is not None and index is not None:
                    out.update((rel, index.function_of(n)) for n in lines)
            return sorted(out)
        data = self.cov.get_data()
        data.set_query_contexts([f"^{re.escape(c)}$" for c in contexts])
        out = set()
        for path in data.measured_files():
            rel = _rel(path, self.pkg)
            lines = data.lines(path)
            if rel is None or not lines:
                continue
            index = source_index(path)
            if index is None:
                continue
            out.update((rel, index.function_of(n)) for n in lines)
        data.set_query_contexts(None)
        return sorted(out)

    def pytest_unconfigure(self, config):
        self.stop()

    def stop(self) -> None:
        if self.cov is None:
            return
        self._audit_on = False
        self.cov.stop()
        if self.data_file:
            self.cov.save()
            side = {"items": self.items, "files_read": {k: sorted(v) for k, v in self.files_read.items()}}
            from ._io import atomic_write_text

            atomic_write_text(f"{self.data_file}.verify-{os.getpid()}.json", json.dumps(side, sort_keys=True))
        self.cov = None


#: the recorder's own memoised helpers (called while it reads coverage back) are no dependency of a check
_OWN_MEMO = ("verify.coverage_map", "verify.cache")


def _memo_counts() -> dict[int, tuple]:
    """``{id(wrapper): (wrapper, hits, misses)}`` for every ``functools.lru_cache`` of the loaded package and
    check modules (:func:`lru_caches`)."""

    out = {}
    for f in lru_caches((PACKAGE, "proofs_checks", "tests")):
        if getattr(f, "__module__", "") in _OWN_MEMO:
            continue
        try:
            info = f.cache_info()
        except (AttributeError, TypeError):
            continue
        out[id(f)] = (f, info.hits, info.misses)
    return out


def _module_nodeid(item) -> str:
    mod = item.getparent(pytest.Module)
    return mod.nodeid if mod is not None else item.nodeid.split("::")[0]


def _fixture_context(fixturedef) -> str:
    return f"fixture:{fixturedef.baseid}::{fixturedef.argname}"


def _shared_fixtures(item) -> list[str]:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    out = []
    for name in info.names_closure:
        defs = info.name2fixturedefs.get(name)
        if defs and defs[-1].scope != "function":
            out.append(_fixture_context(defs[-1]))
    return sorted(set(out))


def start(config, data_file: str | None = None, branch: bool = False, deps: bool = False) -> Recorder | None:
    """Start a :class:`Recorder` in this pytest process (not in an xdist controller) and register it."""
    if _is_controller(config):
        return None
    exclude = [os.environ["VERIFY_CACHE_DIR"]] if os.environ.get("VERIFY_CACHE_DIR") else []
    rec = Recorder(data_file, branch=branch, deps=deps, exclude=exclude, root=str(config.rootpath))
    config.pluginmanager.register(rec, "verify-coverage-recorder")
    return rec


# ------------------------------------------------------------------ collect and read back

def collect(pytest_args: list[str], data_file: Path) -> int:
    """Run ``pytest *pytest_args`` under coverage.py (branch coverage of the ``verify`` package, one dynamic
    context per check nodeid) in a subprocess; write the combined data to ``data_file``; return pytest's exit
    code. Works with ``-n N`` (each xdist worker records, the parts are combined)."""
    import coverage

    data_file = Path(data_file).resolve()
    if not data_file.parent.is_dir():
        raise ValueError(f"Argument 'data_file' must be a file in an existing folder, not {str(data_file)!r}.")
    for stale in data_file.parent.glob(data_file.name + ".*"):
        stale.unlink()
    if data_file.exists():
        data_file.unlink()
    cmd = [sys.executable, "-m", "pytest", *map(str, pytest_args), f"--verify-coverage={data_file}"]
    code = subprocess.run(cmd).returncode
    parts = sorted(p for p in data_file.parent.glob(data_file.name + ".*") if ".verify-" not in p.name)
    cov = coverage.Coverage(data_file=str(data_file), config_file=False)
    cov.combine([str(p) for p in parts], keep=False)
    cov.save()
    side = {"items": {}, "files_read": {}}
    for p in sorted(data_file.parent.glob(data_file.name + ".verify-*.json")):
        part = json.loads(p.read_text())
        side["items"].update(part["items"])
        for ctx, files in part["files_read"].items():
            side["files_read"][ctx] = sorted(set(side["files_read"].get(ctx, [])) | set(files))
        p.unlink()
    from ._io import atomic_write_text

    atomic_write_text(f"{data_file}.verify.json", json.dumps(side, sort_keys=True, indent=1))
    return code


class CoverageMap:
    """Per-check coverage read back from a :func:`collect` data file."""

    def __init__(self, data, side: dict):
        self.data = data
        self.items = side.get("items", {})
        self.read = side.get("files_read", {})
        self._pkg_parent = self._find_parent()

    @classmethod
    def load(cls, data_file: Path) -> "CoverageMap":
        from coverage import CoverageData

        data_file = Path(data_file)
        if not data_file.is_file():
            raise ValueError(f"Argument 'data_file' must be a coverage data file written by collect(), "
                             f"not {str(data_file)!r}.")
        data = CoverageData(basename=str(data_file))
        data.read()
        side_path = Path(f"{data_file}.verify.json")
        side = json.loads(side_path.read_text()) if side_path.exists() else {}
        return cls(data, side)

    def _find_parent(self) -> Path | None:
        for path in self.data.measured_files():
            p = Path(path)
            for parent in p.parents:
                if parent.name == PACKAGE and (parent / "__init__.py").exists():
                    return parent.parent
        return None

    def _rel(self, path: str) -> str:
        if self._pkg_parent is not None:
            try:
                return Path(path).relative_to(self._pkg_parent).as_posix()
            except ValueError:
                pass
        return Path(path).as_posix()

    def contexts(self) -> list[str]:
        """The nodeids of the checks that ran (the shared ``fixture:``/``collect:`` contexts are folded in)."""
        ids = set(self.items) or {c for c in self.data.measured_contexts()
                                  if c and not c.startswith(("fixture:", "collect:"))}
        return sorted(ids)

    def _contexts_of(self, nodeid: str) -> list[str]:
        meta = self.items.get(nodeid, {})
        shared = [f"collect:{meta['module']}"] if meta.get("module") else []
        return [nodeid, *shared, *meta.get("fixtures", [])]

    def _query(self, nodeids, what: str) -> dict:
        ctxs = sorted({c for n in nodeids for c in self._contexts_of(n)})
        self.data.set_query_contexts([f"^{re.escape(c)}$" for c in ctxs])
        try:
            out = {}
            for path in self.data.measured_files():
                got = self.data.arcs(path) if what == "arcs" else self.data.lines(path)
                if got:
                    out[self._rel(path)] = set(got)
            return out
        finally:
            self.data.set_query_contexts(None)

    def executed_lines(self, nodeid: str) -> dict[str, set[int]]:
        """``{file: {line, ...}}`` executed by the check (with its shared fixtures and module collection)."""
        return self._query([nodeid], "lines")

    def arcs(self, nodeid: str) -> dict[str, set[tuple[int, int]]]:
        """``{file: {(from, to), ...}}``: the arcs (branches taken) executed by the check."""
        return self._query([nodeid], "arcs")

    def _abs(self, rel: str) -> Path:
        return (self._pkg_parent / rel) if self._pkg_parent is not None else Path(rel)

    def executed_functions(self, nodeid: str) -> set[tuple[str, str]]:
        """``{(file, qualified function name), ...}`` that the check executed (``<module>``: module-level code)."""
        out = set()
        for rel, lines in self.executed_lines(nodeid).items():
            index = source_index(self._abs(rel))
            if index is not None:
                out.update((rel, index.function_of(n)) for n in lines)
        return out

    def files_read(self, nodeid: str) -> set[str]:
        """Data files (not code) the check opened for reading, absolute paths."""
        return {f for c in self._contexts_of(nodeid) for f in self.read.get(c, [])}

    def branch_coverage(self, nodeids, functions=None) -> dict:
        """Branch coverage of the functions that ``nodeids`` executed (or of ``functions``, a set of
        ``(file, qualname)``) by those checks together.

        Returns ``{"covered": int, "total": int, "missing": ["file:line->line", ...], "functions": n}``; the
        branches of a function are coverage.py's possible arcs out of its lines that have more than one
        destination (a negative destination is an exit of the function, as coverage.py writes it).
        """
        from coverage.python import PythonParser

        nodeids = list(nodeids)
        if functions is None:
            functions = set()
            for n in nodeids:
                functions |= self.executed_functions(n)
        functions = {f for f in functions if f[1] != MODULE}
        taken = self._query(nodeids, "arcs")
        by_file: dict[str, set[str]] = {}
        for rel, name in functions:
            by_file.setdefault(rel, set()).add(name)
        covered = total = 0
        missing = []
        for rel in sorted(by_file):
            path = self._abs(rel)
            index = source_index(path)
            if index is None:
                continue
            parser = PythonParser(filename=str(path))
            parser.parse_source()
            arcs = parser.arcs()
            exits: dict[int, set[int]] = {}
            for a, b in arcs:
                exits.setdefault(a, set()).add(b)
            done = taken.get(rel, set())
            for src in sorted(exits):
                dests = exits[src]
                if len(dests) < 2 or index.function_of(src) not in by_file[rel]:
                    continue
                for dst in sorted(dests):
                    total += 1
                    if (src, dst) in done:
                        covered += 1
                    else:
                        missing.append(f"{rel}:{src}->{dst}")
        return {"covered": covered, "total": total, "missing": missing, "functions": len(functions)}
