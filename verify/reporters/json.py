"""The JSON reporter (``verify report --json``): the report document itself, which ``--compare`` and
``verify errata --from-json`` read back (:func:`read_json`)."""

from __future__ import annotations

import json
from pathlib import Path

from .._io import atomic_write_text
from .._validate import VerifyInputError


def write_json(doc: dict, path: str | Path) -> None:
    """Write the document atomically (key order kept: it is the registry's order)."""
    atomic_write_text(path, json.dumps(doc, indent=1, sort_keys=False) + "\n")


def read_json(path: str | Path, option: str = "path") -> dict:
    """A document written by :func:`write_json`; :class:`~verify.VerifyInputError` naming ``option`` otherwise."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise VerifyInputError(f"Argument '{option}' must be a readable JSON file written by "
                               f"'verify report --json', not {str(path)!r}.") from None
    rows = doc.get("claims") if isinstance(doc, dict) else None
    beyond = doc.get("beyond", []) if isinstance(doc, dict) else None
    if (not isinstance(rows, list) or not isinstance(beyond, list)
            or not all(isinstance(r, dict) and isinstance(r.get("id"), str) and isinstance(r.get("verdict"), str)
                       and isinstance(r.get("paper"), str) for r in rows + beyond)):
        raise VerifyInputError(f"Argument '{option}' must be a report written by 'verify report --json' (claims with "
                               f"an id, a paper and a verdict), not {str(path)!r}.")
    # the reporters read these; a report from an older version may lack them
    doc.setdefault("beyond", [])
    doc.setdefault("summary", {})
    doc.setdefault("severity", {})
    doc.setdefault("headline", f"{len(rows)} claims")
    return doc
