"""The result cache behind incremental runs: fingerprints, and a cache folder written atomically.

A check's **fingerprint** digests everything its result depends on:

* the source of every package function the check executed (recorded per check with coverage.py contexts,
  :mod:`verify.coverage_map`), each function's text on its own, so an edit of a function moves exactly the
  checks that executed it;
* the *skeleton* (the code outside every function: imports, constants, class bodies) of every package
  module those functions live in, and of every package module the check module imports, directly or not;
* the check module's whole source (its seeds included) and the suite's ``conftest.py`` files;
* the content of every data file the check read (paths recorded with an audit hook on ``open``);
* the versions of Python, numpy, scipy, sympy, mpmath, galois, torch (and the other libraries a verdict
  can depend on: python-flint, scikit-learn, pytest, hypothesis), and the BLAS thread setting.

A claim's fingerprint is the digest of its selected checks' (node id, fingerprint) pairs: a verdict is reused
only when none of them moved and no check was added or removed.

The cache folder holds one JSON file per entry (``<kind>/<key>.json``) and a marker ``verify-cache.json``. An
entry carries its format, kind, key and the sha256 of its payload; one that does not parse, or whose digest,
kind or key is wrong, is ignored with a :class:`CacheWarning` and recomputed. A folder without the marker that
is not empty is foreign and refused (``ValueError`` naming ``cache_dir``), so the cache never writes into (or
trusts) a folder it did not make.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any

from ._io import atomic_write_text, canonical_json

__all__ = ["Cache", "CacheWarning", "RESULT_ENV", "environment", "check_fingerprint", "claim_fingerprint", "default_cache_dir",
           "FORMAT"]

#: 2: a check's dependencies include its probes of optional data sets (AVAILABLE); format-1 entries lack them, so a
#: check that skipped for want of a data set would be reused after it was installed
FORMAT = 2
MARKER = "verify-cache.json"
_TOOL = "verify result cache"
#: the libraries whose versions enter every fingerprint (a missing one enters as None)
LIBRARIES = ("numpy", "scipy", "sympy", "mpmath", "galois", "torch", "python-flint", "scikit-learn", "pytest",
             "hypothesis", "coverage")


class CacheWarning(UserWarning):
    """A cache entry was ignored (corrupt or foreign); it is recomputed."""


def default_cache_dir(root: Path) -> Path:
    """``$VERIFY_CACHE_DIR``, else ``<project>/.verify-cache``."""
    env = os.environ.get("VERIFY_CACHE_DIR")
    return Path(env) if env else Path(root) / ".verify-cache"


@lru_cache(maxsize=1)
def _versions() -> tuple:
    from importlib import metadata

    out = [("python", sys.version.split()[0] + " " + sys.implementation.name)]
    for lib in LIBRARIES:
        try:
            out.append((lib, metadata.version(lib)))
        except metadata.PackageNotFoundError:
            out.append((lib, None))
    return tuple(out)


#: a check's data dependency that is a probe, not a file: ``AVAILABLE + name + "\t" + root`` (root "" for the
#: default place) stands for ``verify.empirical.data.data_available(name, root)``'s answer (recorded by
#: verify.coverage_map from the audit event that function raises)
AVAILABLE = "available:"

#: the environment variables that change what a check runs or records (the pre-registered sensitivity runs, the
#: opt-in residual-CNN run, an injected statement variant, the experiments' numerical path): a result computed
#: without one is not the result with it
RESULT_ENV = ("VERIFY_WD_SENSITIVITY", "VERIFY_RESIDUAL_CNN", "VERIFY_STATEMENT_VARIANT", "VERIFY_NUMERICS")


def environment() -> dict:
    """What every fingerprint includes besides the code: library versions, the BLAS thread setting and the
    variables of :data:`RESULT_ENV` (unset and ``"0"`` are the same run)."""
    flags = {k: os.environ.get(k, "0").strip() or "0" for k in RESULT_ENV}
    return {"versions": dict(_versions()), "blas_threads": os.environ.get("VERIFY_BLAS_THREADS", "1"),
            **{k: v for k, v in flags.items() if v != "0"}}


def _sha(text: str | bytes) -> str:
    return hashlib.sha256(text if isinstance(text, bytes) else text.encode()).hexdigest()


class Sources:
    """Digests of the files as they are now, computed once per run (a run reads each file once).

    ``root`` is pytest's rootdir (check modules, conftest and data files are named relative to it);
    ``pkg_root`` the folder that holds the imported ``verify`` package (its files are ``verify/...``).
    """

    def __init__(self, root: Path, pkg_root: Path | None = None):
        from .coverage_map import package_dir

        self.root = Path(root).resolve()
        self.pkg_root = Path(pkg_root).resolve() if pkg_root else package_dir().parent
        self._file: dict[str, str | None] = {}
        self._closure: dict[str, frozenset] = {}
        # per run, as the digests: a report computes a fingerprint per check (hundreds), each walking the imports
        # of the modules it touched; without these the same files were stat'ed and resolved millions of times
        # (a warm report spent about 30 of its 45 s there, cProfile)
        self._imports: dict[str, list[str]] = {}
        self._index: dict[str, Any] = {}

    def _path(self, name: str) -> Path:
        if os.path.isabs(name):
            return Path(name)
        return (self.pkg_root if name.startswith("verify/") else self.root) / name

    def file_digest(self, name: str) -> str | None:
        key = str(name)
        if key.startswith(AVAILABLE):   # a probe of an optional data set: its answer now, not a file's bytes
            if key not in self._file:
                from .empirical.data import data_available

                data_name, _, root = key[len(AVAILABLE):].partition("\t")
                try:
                    self._file[key] = _sha("available" if data_available(data_name, root or None)[0] else "absent")
                except ValueError:   # a data set this version does not know: the check must re-run
                    self._file[key] = None
            return self._file[key]
        if key not in self._file:
            try:
                self._file[key] = _sha(self._path(key).read_bytes())
            except OSError:
                self._file[key] = None
        return self._file[key]

    def function_digest(self, rel: str, qualname: str) -> str | None:
        index = self._source_index(self.pkg_root / rel)
        return None if index is None else index.digest(qualname)

    def _source_index(self, path: Path):
        from .coverage_map import source_index

        key = str(path)
        if key not in self._index:
            self._index[key] = source_index(path)
        return self._index[key]

    def imports_closure(self, name: str) -> frozenset:
        """The package modules (``verify/...py``) that ``name`` (a package file or a check module) imports,
        directly or through others, with their packages' ``__init__.py``."""
        if name in self._closure:
            return self._closure[name]
        seen: set[str] = set()
        todo = [name]
        while todo:
            cur = todo.pop()
            if cur in seen:
                continue
            seen.add(cur)
            todo.extend(m for m in self._direct_imports(cur) if m not in seen)
        self._closure[name] = frozenset(s for s in seen if s.startswith("verify/"))
        return self._closure[name]

    def _direct_imports(self, name: str) -> list[str]:
        if name not in self._imports:
            self._imports[name] = self._read_imports(name)
        return self._imports[name]

    def _read_imports(self, name: str) -> list[str]:
        index = self._source_index(self._path(name))
        if index is None:
            return []
        here = name.split("/")[:-1] if name.startswith("verify/") else []   # the package the module sits in
        out = []
        for mod, level in index.imports:
            if level:
                if not here:
                    continue
                base = here[:len(here) - (level - 1)] if level > 1 else list(here)
                parts = base + [p for p in mod.split(".") if p]
            else:
                parts = mod.split(".")
            if not parts or parts[0] != "verify":
                continue
            # the module itself, or (for "from pkg import name") the package; and every parent __init__
            for k in range(1, len(parts) + 1):
                stem = "/".join(parts[:k])
                for cand in (stem + ".py", stem + "/__init__.py"):
                    if (self.pkg_root / cand).is_file():
                        out.append(cand)
        return out


def check_fingerprint(check: dict, sources: Sources, suite_files: list[str]) -> str | None:
    """The fingerprint of one check from its recorded dependencies, against the files as they are now.

    ``check``: ``{"nodeid", "file", "deps": {"functions": [[path, qualname], ...], "files": [...]}}`` with
    ``file`` the check module relative to the project root; ``suite_files``: the conftest files. None when a
    dependency can no longer be read (the check must re-run).
    """
    deps = check.get("deps")
    if not isinstance(deps, dict):
        return None
    parts: list[Any] = [environment(), check["nodeid"]]
    module = check["file"]
    parts.append(["check-module", module, sources.file_digest(module)])
    parts.append(["conftest", [[f, sources.file_digest(f)] for f in suite_files]])
    funcs = sorted({(f, q) for f, q in deps.get("functions", [])})
    mods = set()
    for rel, qual in funcs:
        digest = sources.function_digest(rel, qual)
        if digest is None:
            return None
        parts.append(["function", rel, qual, digest])
        mods.add(rel)
    # module-level code (constants, imports, class bodies) of every module the check touched or imports
    closure = set(sources.imports_closure(module))
    for rel in mods:
        closure |= sources.imports_closure(rel)
    for rel in sorted(closure):
        digest = sources.function_digest(rel, "<module>")
        if digest is None:
            return None
        parts.append(["skeleton", rel, digest])
    for f in sorted(deps.get("files", [])):
        digest = sources.file_digest(f)
        if digest is None:
            return None
        parts.append(["data", f, digest])
    return _sha(canonical_json(parts))


def claim_fingerprint(pairs: list[tuple[str, str | None]]) -> str | None:
    """The digest of a claim's (node id, check fingerprint) pairs; None if one check has none."""
    if any(fp is None for _, fp in pairs):
        return None
    return _sha(canonical_json(sorted(pairs)))


class Cache:
    """A folder of JSON entries, ``<kind>/<key>.json``, each written whole (temporary name, then rename)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.warned: list[str] = []
        marker = self.path / MARKER
        if self.path.exists() and not self.path.is_dir():
            raise ValueError(f"Argument 'cache_dir' must be a folder, not the file {str(self.path)!r}.")
        if self.path.is_dir() and not marker.exists() and any(self.path.iterdir()):
            raise ValueError(f"Argument 'cache_dir' must be a verify cache folder or a new or empty one, not "
                             f"{str(self.path)!r} (it holds other files and no {MARKER}).")
        if marker.exists():
            try:
                head = json.loads(marker.read_text(encoding="utf-8"))
                ok = head.get("tool") == _TOOL and head.get("format") == FORMAT
            except (OSError, ValueError, AttributeError):
                ok = False
            if not ok:
                self._warn(f"the cache folder {self.path} was written by another tool or format; its entries "
                           "are ignored and rewritten")
                self._stale = True
            else:
                self._stale = False
        else:
            self.path.mkdir(parents=True, exist_ok=True)
            atomic_write_text(marker, canonical_json({"tool": _TOOL, "format": FORMAT}) + "\n")
            self._stale = False

    def _warn(self, message: str) -> None:
        self.warned.append(message)
        warnings.warn(message, CacheWarning, stacklevel=3)

    @staticmethod
    def _name(key: str) -> str:
        return _sha(key)[:40]

    def get(self, kind: str, key: str) -> Any | None:
        """The payload stored under ``(kind, key)``, or None (missing, or ignored with a warning)."""
        if self._stale:
            return None
        path = self.path / kind / f"{self._name(key)}.json"
        if not path.exists():
            return None
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            good = (isinstance(entry, dict) and entry.get("format") == FORMAT and entry.get("kind") == kind
                    and entry.get("key") == key and entry.get("digest") == _sha(canonical_json(entry.get("payload"))))
        except (OSError, ValueError, UnicodeDecodeError):
            good = False
        if not good:
            self._warn(f"ignored a corrupt or foreign cache entry {path}; it is recomputed")
            return None
        return entry["payload"]

    def put(self, kind: str, key: str, payload: Any) -> None:
        folder = self.path / kind
        folder.mkdir(parents=True, exist_ok=True)
        if self._stale:   # a foreign marker: this run owns the folder from now on
            atomic_write_text(self.path / MARKER, canonical_json({"tool": _TOOL, "format": FORMAT}) + "\n")
            self._stale = False
        entry = {"format": FORMAT, "kind": kind, "key": key, "payload": payload,
                 "digest": _sha(canonical_json(payload))}
        atomic_write_text(folder / f"{self._name(key)}.json", canonical_json(entry) + "\n")
