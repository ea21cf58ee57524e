"""Helpers shared by the reporters: the verdict label, one-line evidence, severity order."""

from __future__ import annotations

import json

from ..claims import SEVERITIES

#: refutations most serious first (``verify.claims.SEVERITIES``); anything else after them
SEVERITY_ORDER = {sev: i for i, sev in enumerate(SEVERITIES)}


def verdict_label(row: dict) -> str:
    """The verdict as a reader should see it: with its severity, its scale, and any surviving mutant.

    >>> verdict_label({"verdict": "refuted", "severity": "error"})
    'refuted (error)'
    >>> verdict_label({"verdict": "supported", "scale": "reduced: d = 4", "power": {"killed": 2, "total": 2}})
    'supported (reduced scale: d = 4) [killed 2/2]'
    """
    text = row["verdict"]
    if row.get("severity"):
        text += f" ({row['severity']})"
    if row.get("scale"):
        text += " (" + ("paper scale" if row["scale"] == "paper" else "reduced scale: " + row["scale"][9:]) + ")"
    power = row.get("power")
    if power:
        surv = power.get("survivors") or []
        text += f" [killed {power['killed']}/{power['total']}" + (f"; SURVIVING: {', '.join(surv)}" if surv else "") + "]"
    return text


def short(evidence: dict, width: int) -> str:
    """The evidence on one line, cut to ``width`` characters."""
    text = "; ".join(f"{k}={json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v}"
                     for k, v in evidence.items())
    return text if len(text) <= width else text[: width - 3] + "..."


def refuted_by_severity(rows: list) -> list:
    """The refuted and contradicted rows, most serious severity first, then by ID."""
    bad = [r for r in rows if r["verdict"] in ("refuted", "contradicted")]
    return sorted(bad, key=lambda r: (SEVERITY_ORDER.get(r.get("severity"), len(SEVERITY_ORDER)), r["id"]))


def correction_checks(row: dict) -> list[str]:
    """Node ids of the passing ``corrected=True`` checks of a claim: the checks of its corrected statement."""
    return [c["check"] for c in row.get("checks", []) if c.get("corrected") and c.get("outcome") == "passed"]
