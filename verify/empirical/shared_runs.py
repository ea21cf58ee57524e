"""Training runs shared by the checks of one pytest session, across pytest-xdist workers.

Why: a claim decided on several data sets and losses (paper N's Table 1: 2 data sets x 2 losses, each a few minutes
of training) is one long computation; as one check (or as checks sharing a module-scoped fixture, which
:mod:`verify.xdist_schedule` keeps on one worker) it leaves the second worker idle. Instead each unit of training is
its own check, and every check that needs a unit gets it from a :class:`RunStore`: a folder shared by the session's
workers, one JSON file per unit, computed under a per-unit file lock by the first check that asks and read back by
the others. Whatever the order the workers reach the units in, each unit is trained once and every check reads the
same values (the unit is returned from its file, also by the check that trained it).

No deadlock: a check holds at most one unit's lock, only while it trains that unit, never while waiting for another.

The lock is :mod:`filelock`'s (a dependency of torch, so present wherever the experiments run).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable

from filelock import FileLock, Timeout

from .._io import atomic_write_text, canonical_json
from .._validate import VerifyInputError

__all__ = ["RunStore", "session_folder"]


def session_folder(tmp_path_factory: Any) -> Path:
    """The folder every worker of this pytest session shares: the parent of the worker's base temporary folder under
    pytest-xdist (``.../pytest-N/popen-gwK`` -> ``.../pytest-N``), the base temporary folder itself without it (its
    parent would be shared with other sessions)."""
    base = Path(tmp_path_factory.getbasetemp())
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "verify-shared-runs"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class RunStore:
    """Units of training, each computed once per folder: :meth:`get` ``(name, key, compute)``.

    ``key`` (JSON-able) is everything the unit depends on that the session may vary (data set, loss, preset, seeds):
    its digest names the file, so two different requests never share a unit."""

    def __init__(self, folder: Any):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise VerifyInputError(f"Argument 'folder' must be an existing folder, not {str(folder)!r}.")

    def path(self, name: str, key: Any) -> Path:
        digest = hashlib.sha256(canonical_json(key).encode()).hexdigest()[:16]
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)
        return self.folder / f"{safe}-{digest}.json"

    def has(self, name: str, key: Any) -> bool:
        return self.path(name, key).is_file()

    def get(self, name: str, key: Any, compute: Callable[[], Any]) -> Any:
        """The unit ``name`` / ``key``: read from its file, or computed by ``compute()`` (under the unit's lock, so a
        check of another worker that asks meanwhile waits and then reads it) and written first."""
        path = self.path(name, key)
        with FileLock(str(path) + ".lock"):
            if not path.is_file():
                atomic_write_text(path, json.dumps(compute()))
        return json.loads(path.read_text(encoding="utf-8"))

    def get_all(self, requests: list) -> list:
        """Several units ``[(name, key, compute), ...]``, in that order. First every missing unit whose lock is free
        is computed here (a unit another worker is training is passed over, not waited for), then the rest are
        waited for: two workers that need the same units split them instead of queueing on one."""
        for name, key, compute in requests:
            path = self.path(name, key)
            if path.is_file():
                continue
            lock = FileLock(str(path) + ".lock")
            try:
                lock.acquire(timeout=0)
            except Timeout:
                continue
            try:
                if not path.is_file():
                    atomic_write_text(path, json.dumps(compute()))
            finally:
                lock.release()
        return [self.get(name, key, compute) for name, key, compute in requests]
