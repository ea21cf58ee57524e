"""The Markdown reporter (``verify report --markdown``): the table with full evidence, the refutations."""

from __future__ import annotations

import json

from ..claims import ALL_VERDICTS
from ._common import correction_checks, refuted_by_severity, short, verdict_label


def format_markdown(doc: dict) -> str:
    """The report as a Markdown document (full evidence)."""
    esc = lambda s: str(s).replace("|", "\\|").replace("\n", " ")
    out = ["# Verdicts", "", doc["headline"], "", "| ID | paper | where | verdict | method | evidence |",
           "|---|---|---|---|---|---|"]
    for r in doc["claims"]:
        out.append(f"| `{r['id']}` | {r['paper']} | {esc(r['where'])} | **{esc(verdict_label(r))}** | {esc(r['method'])} | "
                   f"{esc(short(r['evidence'], 10_000))} |")
    refuted = refuted_by_severity(doc["claims"])
    if refuted:
        out += ["", "## Refuted and contradicted claims", ""]
        for r in refuted:
            ev = r["evidence"]
            out += [f"### `{r['id']}` ({r['where']}): {esc(verdict_label(r))}", "", f"*Statement:* {r['statement']}", ""]
            if r.get("justification"):
                out += [f"*Why {r['severity']}:* `{json.dumps(r['justification'], sort_keys=True)}`", ""]
            out += [f"*Counterexample:* `{json.dumps(ev.get('counterexample'), sort_keys=True)}`", "",
                    f"*Corrected statement:* {ev.get('corrected', 'none found')}", ""]
            fixes = correction_checks(r)
            out.append("*Corrected statement checked by:* " + (", ".join(f"`{c}`" for c in fixes) or "no check"))
            out.append("")
    if doc.get("beyond"):
        out += ["", "## Beyond the papers", "", "Results of this package that the papers do not claim.", "",
                "| ID | where | verdict | method | evidence |", "|---|---|---|---|---|"]
        for r in doc["beyond"]:
            out.append(f"| `{r['id']}` | {esc(r['where'])} | **{esc(verdict_label(r))}** | {esc(r['method'])} | "
                       f"{esc(short(r['evidence'], 10_000))} |")
    out += ["", "## Summary", "", "| paper | " + " | ".join(ALL_VERDICTS) + " |", "|---" * (len(ALL_VERDICTS) + 1) + "|"]
    for paper, counts in doc["summary"].items():
        out.append(f"| {paper} | " + " | ".join(str(counts[v]) for v in ALL_VERDICTS) + " |")
    out += ["", "Refutations by severity: " + ", ".join(f"{s}: {n}" for s, n in doc["severity"].items())]
    return "\n".join(out) + "\n"
