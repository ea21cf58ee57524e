"""The plain-text reporter: the table of ``verify report`` and the verdict summary (also the pytest plugin's)."""

from __future__ import annotations

from ..claims import VERDICTS
from ._common import evidence_line, verdict_label


def format_summary(doc: dict) -> str:
    """Counts by verdict per paper, the headline with severities, and the refuted / contradicted claims."""
    lines = []
    for paper, counts in doc["summary"].items():
        lines.append(f"{'paper ' + paper if paper != 'total' else 'total':<8} " +
                     "  ".join(f"{v}: {n}" for v, n in counts.items() if n or v in VERDICTS))
    lines.append(doc["headline"])
    for r in doc["claims"]:
        if r["verdict"] in ("refuted", "contradicted"):
            lines.append(f"  {r['id']:<22} {verdict_label(r)}")
    if doc.get("beyond"):
        lines.append("beyond the papers (not claims of the papers): " +
                     ", ".join(f"{r['id']} {verdict_label(r)}" for r in doc["beyond"]))
    return "\n".join(lines) + "\n"


def format_table(doc: dict, width: int = 110) -> str:
    """The plain-text table printed by ``verify report`` (the verdict column is as wide as its longest label)."""
    def block(rows):
        vw = max([13] + [len(verdict_label(r)) for r in rows])
        ew = max(30, width - 52 - vw)
        out = [f"{'ID':<22} {'verdict':<{vw}} {'method':<28} evidence", "-" * (52 + vw + ew)]
        # the deciding numbers (a refutation's finding first), not a dump of nested evidence
        out += [f"{r['id']:<22} {verdict_label(r):<{vw}} {str(r['method'])[:28]:<28} {evidence_line(r, ew)}"
                for r in rows]
        return out

    lines = block(doc["claims"])
    if doc.get("beyond"):
        lines += ["", "Beyond the papers (results of this package, not claims the papers make):"] + block(doc["beyond"])
    lines.append("")
    return "\n".join(lines) + "\n" + format_summary(doc)
