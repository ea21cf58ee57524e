"""The Markdown reporter (``verify report --markdown``): one readable line of deciding numbers per claim, the
refutations with their finding, a short counterexample and the typeset corrected statement. Nested evidence is named,
not dumped: it is in the JSON report (every digit) and the HTML report (as tables). No table cell is longer than
:data:`MAX_CELL` characters."""

from __future__ import annotations

from ..claims import ALL_VERDICTS
from ._common import (correction_checks, evidence_line, finding, markdown_fields, refuted_by_severity,
                      verdict_label)

#: longest table cell (characters): a cell is one line of a table a reader scans, not a data dump
MAX_CELL = 400


def cell(text) -> str:
    """Text for one Markdown table cell: one line, ``|`` escaped, at most :data:`MAX_CELL` characters."""
    text = " ".join(str(text).split())
    if len(text) > MAX_CELL - 8:  # room for the escapes of | below
        text = text[: MAX_CELL - 9] + "\u2026"
    out = text.replace("|", "\\|")
    while len(out) > MAX_CELL:  # many | in the text: cut further
        text = text[:-10] + "\u2026"
        out = text.replace("|", "\\|")
    return out


def format_markdown(doc: dict) -> str:
    """The report as a Markdown document."""
    from .errata import corrected_markdown

    out = ["# Verdicts", "", doc.get("headline", ""), "",
           "Evidence: the deciding numbers (floats to 4 significant digits); the full evidence is in the JSON and "
           "HTML reports.", "", "| ID | paper | where | verdict | method | evidence |", "|---|---|---|---|---|---|"]
    for r in doc["claims"]:
        out.append(f"| `{r['id']}` | {r['paper']} | {cell(r.get('where', ''))} | **{cell(verdict_label(r))}** | "
                   f"{cell(r.get('method', ''))} | {cell(evidence_line(r, MAX_CELL - 10))} |")
    refuted = refuted_by_severity(doc["claims"])
    if refuted:
        out += ["", "## Refuted and contradicted claims", ""]
        for r in refuted:
            ev = r.get("evidence") or {}
            out += [f"### `{r['id']}` ({r.get('where', '')}): {verdict_label(r)}", "",
                    f"*Statement:* {r.get('statement', '')}", ""]
            line = finding(r)
            if line:
                out += [f"*Finding:* {line[0].upper() + line[1:]}", ""]
            if "counterexample" in ev:
                out += ["*Counterexample:*", ""] + markdown_fields(ev["counterexample"]) + [""]
            if r["verdict"] == "refuted":
                out += [f"*Corrected statement:* {corrected_markdown(r)}", ""]
                fixes = correction_checks(r)
                out.append("*Corrected statement checked by:* " + (", ".join(f"`{c}`" for c in fixes) or "no check"))
                out.append("")
    if doc.get("beyond"):
        out += ["", "## Beyond the papers", "", "Results of this package that the papers do not claim.", "",
                "| ID | where | verdict | method | evidence |", "|---|---|---|---|---|"]
        for r in doc["beyond"]:
            out.append(f"| `{r['id']}` | {cell(r.get('where', ''))} | **{cell(verdict_label(r))}** | "
                       f"{cell(r.get('method', ''))} | {cell(evidence_line(r, MAX_CELL - 10))} |")
    out += certified_sections(doc)
    out += ["", "## Summary", "", "| paper | " + " | ".join(ALL_VERDICTS) + " |", "|---" * (len(ALL_VERDICTS) + 1) + "|"]
    for paper, counts in doc.get("summary", {}).items():
        out.append(f"| {paper} | " + " | ".join(str(counts.get(v, 0)) for v in ALL_VERDICTS) + " |")
    out += ["", "Refutations by severity: " + ", ".join(f"{s}: {n}" for s, n in doc.get("severity", {}).items())]
    return "\n".join(out) + "\n"


def certified_sections(doc: dict) -> list:
    """Issue 25: the certified margins / counterexample intervals per claim, and the hypothesis-necessity table."""
    esc = cell  # one line, | escaped, at most MAX_CELL characters
    out = []
    cert = [(r["id"], c) for r in doc["claims"] for c in r.get("certified", [])]
    if cert:
        out += ["", "## Certified margins and counterexample intervals", "", "| ID | certified | route |", "|---|---|---|"]
        out += [f"| `{cid}` | {esc(c['evidence'].get('statement', ''))} | {esc(c['evidence'].get('route', ''))} |"
                for cid, c in cert]
    if doc.get("necessity"):
        out += ["", "## Hypothesis-necessity table", "", "| ID | hypothesis dropped | outcome | found | note |",
                "|---|---|---|---|---|"]
        out += [f"| `{n['claim']}` | {esc(n['hypothesis dropped'])} | **{esc(n['outcome'])}** | {esc(n['found'])} | "
                f"{esc(n['note'])} |" for n in doc["necessity"]]
    return out
