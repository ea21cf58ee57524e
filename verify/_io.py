"""Files written whole, and JSON that survives its own round trip.

* :func:`canonical_json` - one text per value: keys are strings (``{8: 1}`` and ``{"8": 1}`` give the
  same text, which is what ``json.loads`` returns anyway), sorted, no whitespace, ASCII only, and no
  NaN/inf (JSON has no such numbers; Python's ``json`` would write the non-standard ``NaN``). A value
  and ``json.loads(canonical_json(value))`` therefore serialise to the same bytes, so a digest over the
  text is the same before saving and after loading.
* :func:`atomic_write` - write to a temporary name in the same folder, flush, fsync, then rename: an
  interrupted run leaves the old file or no file, never half a file.

>>> canonical_json({"h": {16: 1, 8: 2, 0: 3}, "x": 0.1})
'{"h":{"0":3,"16":1,"8":2},"x":0.1}'
>>> canonical_json(json.loads(canonical_json({"h": {16: 1, 8: 2}}))) == canonical_json({"h": {16: 1, 8: 2}})
True
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any, Iterator

from ._validate import VerifyInputError

__all__ = ["canonical", "canonical_json", "atomic_write", "atomic_write_text", "check_output_path", "check_input_file"]


def canonical(value: Any, _path: str = "value") -> Any:
    """``value`` with every dict key turned into a string (JSON's own rule), checked for key collisions
    (``{1: .., "1": ..}``) and non-finite floats, which have no faithful JSON form."""
    if isinstance(value, dict):
        out: dict = {}
        for key, item in value.items():
            if isinstance(key, bool) or key is None or not isinstance(key, (str, int, float)):
                raise VerifyInputError(f"Argument {_path!r} must have str or int keys, not {key!r}.")
            if isinstance(key, float) and not math.isfinite(key):
                raise VerifyInputError(f"Argument {_path!r} must have finite keys, not {key!r}.")
            skey = key if isinstance(key, str) else json.dumps(key)  # json's own spelling of 8 or 0.5
            if skey in out:
                raise VerifyInputError(f"Argument {_path!r} must not have two keys that read alike as JSON ({skey!r}).")
            out[skey] = canonical(item, f"{_path}[{skey}]")
        return out
    if isinstance(value, (list, tuple)):
        return [canonical(v, f"{_path}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, float) and not math.isfinite(value):
        raise VerifyInputError(f"Argument {_path!r} must be a finite number, not {value!r}.")
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise VerifyInputError(f"Argument {_path!r} must be JSON data (dict, list, str, number, bool, None), "
                           f"not {type(value).__name__}.")


def canonical_json(value: Any) -> str:
    """The canonical JSON text of ``value`` (see the module docstring)."""
    return json.dumps(canonical(value), sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb") -> Iterator[Any]:
    """Open a temporary file beside ``path``; on success it replaces ``path`` in one rename."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent or ".")
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; a written file gets the usual permissions
    try:
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all."""
    with atomic_write(path, "w") as fh:
        fh.write(text)


def check_output_path(path: str | os.PathLike | None, option: str) -> Path | None:
    """Check, before any work, that ``path`` can be written by :func:`atomic_write` (``None`` passes): not a folder,
    in an existing folder where this process may create files, and not an existing file it may not replace.
    :class:`~verify.VerifyInputError` naming ``option`` (the CLI option, e.g. ``'--json'``) otherwise.

    >>> check_output_path("/nonexistent-folder/r.json", "--json")
    Traceback (most recent call last):
    ...
    verify._validate.VerifyInputError: Argument '--json' must be a file in an existing folder, not '/nonexistent-folder/r.json' (no folder '/nonexistent-folder').
    """
    if path is None:
        return None
    text = os.fspath(path)
    if not text.strip():
        raise VerifyInputError(f"Argument {option!r} must be a file name, not {text!r}.")
    target = Path(text)
    parent = target.resolve().parent if target.name else target.resolve()
    if target.is_dir() or not target.name:
        raise VerifyInputError(f"Argument {option!r} must be a file, not the folder {text!r}.")
    if not parent.is_dir():
        raise VerifyInputError(f"Argument {option!r} must be a file in an existing folder, not {text!r} "
                               f"(no folder {str(parent)!r}).")
    # atomic_write creates a temporary file beside the target and renames it: the folder must be writable
    if not os.access(parent, os.W_OK | os.X_OK):
        raise VerifyInputError(f"Argument {option!r} must be a file in a writable folder, not {text!r} "
                               f"(folder {str(parent)!r} is not writable).")
    if target.exists() and not target.is_file():
        raise VerifyInputError(f"Argument {option!r} must be a regular file, not {text!r}.")
    return target


def check_input_file(path: str | os.PathLike | None, option: str) -> Path | None:
    """Check, before any work, that ``path`` is a readable file (``None`` passes); :class:`~verify.VerifyInputError`
    naming ``option`` otherwise."""
    if path is None:
        return None
    target = Path(os.fspath(path))
    if not target.is_file() or not os.access(target, os.R_OK):
        raise VerifyInputError(f"Argument {option!r} must be a readable file, not {os.fspath(path)!r}"
                               + (" (no such file)." if not target.exists() else "."))
    return target
