"""Results shared by the checks of one pytest session, across pytest-xdist workers: each computed once.

Why: two checks of one session may need the same long computation - the units of training of paper N's Table 1
(:mod:`verify.empirical.shared_runs`), or a statement's search on its variants, which the default tier's sample and
the slow tier's every-variant check both run (:func:`verify.statements.run_claim`). As one check, or as checks
sharing a module-scoped fixture (which :mod:`verify.xdist_schedule` keeps on one worker), such work leaves the
other worker idle; computed by each check, it is paid twice. Instead every check asks a :class:`SessionStore`: a
folder shared by the session's workers (:func:`session_folder`), one JSON file per result, computed under a
per-result file lock by the first check that asks and read back by the others. Whatever order the workers reach
the results in, each is computed once and every check reads the same values (a result is returned from its file,
also to the check that computed it).

No deadlock: a check holds at most one result's lock, only while it computes that result, never while waiting for
another. A file that does not parse, or that holds another request's key, is computed again, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable

from filelock import FileLock, Timeout

from ._io import atomic_write_text, canonical_json
from ._validate import VerifyInputError

__all__ = ["SessionStore", "session_folder"]


def session_folder(tmp_path_factory: Any, name: str = "verify-shared-runs") -> Path:
    """The folder ``name`` every worker of this pytest session shares: under the parent of the worker's base
    temporary folder under pytest-xdist (``.../pytest-N/popen-gwK`` -> ``.../pytest-N``), under the base temporary
    folder itself without it (its parent would be shared with other sessions).

    A worker is known by its base folder, ``popen-<$PYTEST_XDIST_WORKER>`` (pytest-xdist's name), not by the
    variable alone: a pytest session started inside a worker (a mutant's run, a check's own subprocess) inherits
    the variable but has a base folder of its own, whose parent holds every session's; sharing that would hand
    one session's results (the unmutated code's) to another (a mutant's)."""
    base = Path(tmp_path_factory.getbasetemp())
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    folder = (base.parent if worker and base.name == f"popen-{worker}" else base) / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class SessionStore:
    """Results, each computed once per folder: :meth:`get` ``(name, key, compute)``.

    ``key`` (JSON-able) is everything the result depends on that the session may vary (a data set, a loss, a
    preset, a statement and its variant): its digest names the file, so two different requests never share a
    result; the file also holds the key, checked when read. ``compute()`` must return a JSON-able value."""

    def __init__(self, folder: Any):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise VerifyInputError(f"Argument 'folder' must be an existing folder, not {str(folder)!r}.")

    def path(self, name: str, key: Any) -> Path:
        digest = hashlib.sha256(canonical_json(key).encode()).hexdigest()[:16]
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)
        return self.folder / f"{safe}-{digest}.json"

    def _read(self, path: Path, key: Any) -> tuple[bool, Any]:
        """``(True, value)`` when ``path`` holds this key's result, ``(False, None)`` when it is absent, does not
        parse or holds another key (a foreign or half-copied file)."""
        try:
            got = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False, None
        if not isinstance(got, dict) or set(got) != {"key", "value"} or got["key"] != json.loads(json.dumps(key)):
            return False, None
        return True, got["value"]

    def _write(self, path: Path, key: Any, compute: Callable[[], Any]) -> None:
        atomic_write_text(path, json.dumps({"key": key, "value": compute()}))

    def has(self, name: str, key: Any) -> bool:
        return self._read(self.path(name, key), key)[0]

    def _fill(self, path: Path, key: Any, compute: Callable[[], Any], wait: bool = True) -> None:
        """Under the result's lock, compute and write it unless its file already holds it; ``wait=False``: leave it
        to whoever holds the lock (another worker computing it) instead of waiting."""
        lock = FileLock(str(path) + ".lock")
        try:
            lock.acquire(timeout=-1 if wait else 0)
        except Timeout:
            return
        try:
            if not self._read(path, key)[0]:
                self._write(path, key, compute)
        finally:
            lock.release()

    def get(self, name: str, key: Any, compute: Callable[[], Any]) -> Any:
        """The result ``name`` / ``key``: read from its file, or computed by ``compute()`` (under the result's lock,
        so a check of another worker that asks meanwhile waits and then reads it) and written first."""
        path = self.path(name, key)
        self._fill(path, key, compute)
        ok, value = self._read(path, key)
        if not ok:  # written whole a moment ago: only a folder changed under the session gets here
            raise OSError(f"the session store's file {str(path)!r} could not be read back")
        return value

    def get_all(self, requests: list) -> list:
        """Several results ``[(name, key, compute), ...]``, in that order. First every missing result whose lock is
        free is computed here (one another worker is computing is passed over, not waited for), then the rest are
        waited for: two workers that need the same results split them instead of queueing on one."""
        for name, key, compute in requests:
            path = self.path(name, key)
            if not self._read(path, key)[0]:
                self._fill(path, key, compute, wait=False)
        return [self.get(name, key, compute) for name, key, compute in requests]
