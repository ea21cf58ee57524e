"""Helpers shared by the reporters: the verdict label, one-line evidence, severity order."""

from __future__ import annotations

import json
import math
import re
from typing import Any

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


# --------------------------------------------------------------------------- short, readable values
#: significant digits of a float in the short forms (errata, Markdown, findings); the JSON keeps every digit
DIGITS = 4
#: at most this many fields in a short table; the rest stays in the JSON report
MAX_FIELDS = 12
#: strings longer than this are cut in the short forms (the whole text stays in the JSON report)
MAX_TEXT = 160


def fmt_value(v: Any) -> str:
    """A recorded value, short: integers and exact fractions (strings such as ``"1/3"``) as they are, floats to
    :data:`DIGITS` significant digits, booleans and ``None`` in words, long text cut.

    >>> fmt_value(0.30000000000000004), fmt_value(12345678.9), fmt_value(3), fmt_value("1/3"), fmt_value(True)
    ('0.3', '1.235e+07', '3', '1/3', 'true')
    """
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:.{DIGITS}g}" if math.isfinite(v) else str(v)
    text = " ".join(str(v).split())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "\u2026"


def _shape(v: list) -> str:
    dims, x = [], v
    while isinstance(x, list):
        dims.append(len(x))
        x = x[0] if x else None
    return "\u00d7".join(map(str, dims))


def short_fields(value: Any, limit: int = MAX_FIELDS) -> list[tuple[str, str]]:
    """A recorded dict (a counterexample, a justification) as at most ``limit`` ``(field, short value)`` rows: nested
    dicts one level deep as ``a / b``, lists of up to four scalars inline, bigger lists and matrices by their shape
    ("4×8 values"); the last row says how many fields were left to the JSON report.

    >>> short_fields({"lam_W": 0.1, "H0": [[1.0, 2.0], [3.0, 4.0]], "run": {"ratio": 9.000000001, "n": 2}})
    [('lam_W', '0.1'), ('run / ratio', '9'), ('run / n', '2'), ('H0', '2×2 values (in the JSON report)')]
    """
    rows: list[tuple[int, str, str]] = []  # (rank, field, value): scalars first, then nested values, then shapes

    def add(key, v, depth):
        if isinstance(v, dict) and depth < 1 and v and not (len(v) > 4 and all(isinstance(x, dict) for x in v.values())):
            for k, x in v.items():
                add(f"{key} / {k}", x, depth + 1)
        elif isinstance(v, dict):
            rows.append((2, key, f"{len(v)} entries (in the JSON report)"))
        elif isinstance(v, (list, tuple)):
            v = list(v)
            if len(v) <= 4 and all(not isinstance(x, (list, dict)) for x in v):
                rows.append((depth, key, "[" + ", ".join(fmt_value(x) for x in v) + "]"))
            else:
                rows.append((2, key, f"{_shape(v)} values (in the JSON report)"))
        else:
            rows.append((depth, key, fmt_value(v)))

    if isinstance(value, dict):
        for k, v in value.items():
            add(str(k), v, 0)
    else:
        add("value", value, 1)
    rows = [(k, v) for _rank, k, v in sorted(rows, key=lambda r: r[0])]  # stable: recorded order within a rank
    if len(rows) > limit:
        rows = rows[: limit - 1] + [("\u2026", f"{len(rows) - limit + 1} more fields in the JSON report")]
    return rows


def _max_number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, (list, tuple)):
        xs = [x for x in (_max_number(y) for y in v) if x is not None]
        return max(xs) if xs else None
    return None


def _instance_text(instance: Any, limit: int = 6) -> str:
    """The parameters of an instance (``lam_W = 0.1, K = 2``): named numbers only, not derived quantities
    (``beta/(11 lam_H)``) or explanations, which stay in the table and the JSON."""
    if isinstance(instance, dict):
        pairs = [(k, v) for k, v in instance.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
                 and re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", str(k))]
        return ", ".join(f"{k} = {fmt_value(v)}" for k, v in pairs[:limit])
    return fmt_value(instance)


def _clause(text: Any) -> str:
    """The first clause of a recorded explanation: its explanatory asides dropped (a bracket opened after a space by a
    lower-case word, ``(the Neumann series' range; ...)``, nested brackets included; a bracket of the mathematics,
    ``beta (I - F_(5))``, stays), then up to the first colon or semicolon.

    >>> _clause("beta > |M| at the minimiser, M = beta (I - F_(5)) (the series' range; = 1 at (0)); 'x' bounds neither")
    'beta > |M| at the minimiser, M = beta (I - F_(5))'
    """
    text, kept, depth = " ".join(str(text).split()), [], 0
    for i, c in enumerate(text):
        if depth == 0 and c == "(" and text[i - 1:i] == " " and text[i + 1:i + 2].islower():
            depth = 1
            if kept and kept[-1] == " ":
                kept.pop()
        elif depth:
            depth += {"(": 1, ")": -1}.get(c, 0)
        else:
            kept.append(c)
    text = "".join(kept)
    for stop in (": ", "; "):
        if stop in text[10:]:
            text = text[: text.index(stop, 10)]
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "\u2026"


def finding(row: dict) -> str:
    """One sentence: what fails and by how much, from the refutation's justification (the full record stays in the
    JSON report).

    >>> finding({"verdict": "refuted", "severity": "error",
    ...          "justification": {"instance": {"lam_W": 0.1, "lam_H": 0.1, "K": 2, "n": 2}, "ratio": 9.0000001}})
    'fails by a factor 9 at lam_W = 0.1, lam_H = 0.1, K = 2, n = 2.'
    >>> finding({"verdict": "refuted", "severity": "degenerate", "justification": {"quantity": "NC1~ = 0/0"}})
    'degenerate: NC1~ = 0/0.'
    """
    j = row.get("justification") or {}
    sev = row.get("severity")
    if row.get("verdict") == "refuted" and isinstance(j, dict):
        if sev == "error":
            ratio = _max_number(j.get("ratio"))
            where = _instance_text(j.get("instance"))
            text = (f"fails by a factor {fmt_value(ratio)}" if ratio is not None else "fails") + (f" at {where}" if where else "")
            return text + "."
        if sev == "missing-hypothesis" and j.get("hypothesis"):
            return f"holds only under a hypothesis the paper does not state: {_clause(j['hypothesis'])}."
        if sev == "degenerate" and j.get("quantity"):
            return f"degenerate: {_clause(j['quantity'])}."
        return "refuted" + (f" ({sev})" if sev else "") + "."
    if row.get("verdict") == "contradicted":
        scale = row.get("scale")
        where = "" if not scale else " (paper scale)" if scale == "paper" else f" (reduced scale: {str(scale)[9:]})"
        return "contradicted by the experiment" + where + "."
    return ""


def evidence_line(row: dict, width: int = 400) -> str:
    """The deciding numbers of a claim on one line of at most ``width`` characters: the finding of a refutation,
    the reason of an undecided claim, then the top-level scalar evidence (floats to :data:`DIGITS` digits);
    nested evidence is named, not dumped (it is in the JSON and HTML reports)."""
    ev = row.get("evidence") or {}
    parts = []
    lead = finding(row)
    if lead:
        parts.append(lead)
    elif ev.get("reason") or row.get("reason"):
        parts.append(_clause(ev.get("reason") or row.get("reason")))
    nested = []
    for k, v in ev.items():
        if k in ("counterexample", "corrected", "reason"):
            continue
        if isinstance(v, (dict, list, tuple)):
            small = isinstance(v, (list, tuple)) and len(v) <= 4 and all(isinstance(x, (int, float)) for x in v)
            if small:
                parts.append(f"{k} = [" + ", ".join(fmt_value(x) for x in v) + "]")
            else:
                nested.append(str(k))
        else:
            parts.append(f"{k} = {fmt_value(v)}")
    if nested:
        parts.append("details: " + ", ".join(nested))
    text = "; ".join(parts)
    return text if len(text) <= width else text[: width - 1] + "\u2026"
