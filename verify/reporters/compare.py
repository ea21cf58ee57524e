"""``verify report --compare OLD.json``: the claims whose verdict, severity or scale moved between two documents."""

from __future__ import annotations

from .._validate import VerifyInputError
from ..claims import BEYOND, CLAIMS

COMPARED = ("verdict", "severity", "scale")


def compare(old: dict, new: dict, paper: str | None = None) -> list[dict]:
    """Claims whose verdict, severity or scale differ between two report documents (``--json`` output),
    plus claims present in only one of them: ``[{"id", "field", "old", "new"}, ...]`` in registry order.
    ``paper`` restricts both to one paper (a ``--paper`` run against a full earlier report)."""
    def rows(doc):
        if not isinstance(doc, dict) or not isinstance(doc.get("claims"), list):
            raise VerifyInputError("Argument 'old' must be a report written by 'verify report --json'.")
        return {r["id"]: r for r in doc["claims"] + doc.get("beyond", []) if not paper or r.get("paper") == paper}

    a, b = rows(old), rows(new)
    order = [c.id for c in CLAIMS + BEYOND] + sorted((set(a) | set(b)) - {c.id for c in CLAIMS + BEYOND})
    changes = []
    for cid in order:
        if cid not in a and cid not in b:
            continue
        if cid not in a or cid not in b:
            changes.append({"id": cid, "field": "claim", "old": "present" if cid in a else "absent",
                            "new": "present" if cid in b else "absent"})
            continue
        for key in COMPARED:
            if a[cid].get(key) != b[cid].get(key):
                changes.append({"id": cid, "field": key, "old": a[cid].get(key), "new": b[cid].get(key)})
    return changes


def format_changes(changes: list[dict]) -> str:
    if not changes:
        return "compare: no verdict, severity or scale changed\n"
    lines = [f"compare: {len(changes)} change(s)"]
    lines += [f"  {c['id']:<22} {c['field']:<9} {c['old']} -> {c['new']}" for c in changes]
    return "\n".join(lines) + "\n"
