"""The Markdown reporter (``verify report --markdown``): one readable line of deciding numbers per claim, the
refutations with their finding, a short counterexample and the typeset corrected statement. Nested evidence is named,
not dumped: it is in the JSON report (every digit) and the HTML report (as tables). No table cell is longer than
:data:`MAX_CELL` characters."""

from __future__ import annotations

from ..claims import ALL_VERDICTS
from ._common import (correction_checks, evidence_line, experiment_summary, finding, found_text, markdown_fields,
                      refuted_by_severity, shared_evidence, statement_markdown, typeset_markdown, typeset_parts,
                      variant_counts, variant_found, variants_line, verdict_label)
from ._numbers import fmt_interval, humanize_text

#: longest table cell (characters): a cell is one line of a table a reader scans, not a data dump
MAX_CELL = 400


def cell(text, humanize: bool = True) -> str:
    """Text for one Markdown table cell: one line, ``|`` escaped, at most :data:`MAX_CELL` characters; its numbers
    to useful digits (every digit: the JSON) unless ``humanize=False`` (a text already worded for a reader, whose
    digits were chosen on purpose: :func:`~verify.reporters._common.found_text`)."""
    text = " ".join(str(text).split())
    text = humanize_text(text) if humanize else text
    if len(text) > MAX_CELL - 8:  # room for the escapes of | below
        text = text[: MAX_CELL - 9] + "\u2026"
    out = text.replace("|", "\\|")
    while len(out) > MAX_CELL:  # many | in the text: cut further
        text = text[:-10] + "\u2026"
        out = text.replace("|", "\\|")
    return out


def cell_tex(tex, plain: str) -> str:
    """A typeset text for one table cell (:func:`~verify.reporters._common.typeset_markdown`: the math as ``$...$``,
    never cut or humanised, since a cut or a changed digit inside the math would break or falsify it); the plain
    text as :func:`cell` has it where there is no sound typeset text or it is longer than a cell."""
    if typeset_parts(tex) is None:
        return cell(plain)
    out = typeset_markdown(tex, plain)
    return out if len(out) <= MAX_CELL else cell(plain)


def row_evidence(row: dict, shared: dict) -> str:
    """The evidence cell of a claim: an experiment's summary (for and against, post hoc, replications, other data
    sets, why inconclusive) then its deciding numbers; a proof claim's own deciding numbers (not those it shares with
    the other claims of a check: :func:`~verify.reporters._common.shared_evidence`)."""
    own = evidence_line(row, MAX_CELL - 10, shared.get(row["id"], frozenset()))
    summary = experiment_summary(row)
    return f"{summary}. {own}" if summary else own


def format_markdown(doc: dict) -> str:
    """The report as a Markdown document."""
    from .errata import corrected_markdown

    shared = shared_evidence(doc)
    out = ["# Verdicts", "", doc.get("headline", ""), "",
           "Evidence: the deciding numbers (floats to 4 significant digits); the full evidence is in the JSON and "
           "HTML reports.", "", "| ID | paper | where | verdict | method | evidence |", "|---|---|---|---|---|---|"]
    for r in doc["claims"]:
        out.append(f"| `{r['id']}` | {r['paper']} | {cell(r.get('where', ''))} | **{cell(verdict_label(r))}** | "
                   f"{cell(r.get('method', ''))} | {cell(row_evidence(r, shared))} |")
    refuted = refuted_by_severity(doc["claims"])
    if refuted:
        out += ["", "## Refuted and contradicted claims", ""]
        for r in refuted:
            ev = r.get("evidence") or {}
            out += [f"### `{r['id']}` ({r.get('where', '')}): {verdict_label(r)}", "",
                    f"*Statement:* {statement_markdown(r)}", ""]
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
                       f"{cell(r.get('method', ''))} | {cell(row_evidence(r, shared))} |")
    out += certified_sections(doc)
    out += variant_sections(doc)
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
        out += [f"| `{cid}` | {esc(certified_text(c['evidence']))} | {esc(c['evidence'].get('route', ''))} |"
                for cid, c in cert]
    if doc.get("necessity"):
        out += ["", "## Hypothesis-necessity table", "", "| ID | hypothesis dropped | outcome | found | note |",
                "|---|---|---|---|---|"]
        out += [f"| `{n['claim']}` | {cell_tex(n.get('hypothesis_tex'), n['hypothesis dropped'])} | "
                f"**{esc(n['outcome'])}** | {esc(found_text(n['found']), humanize=False)} | "
                f"{cell_tex(n.get('note_tex'), n['note'])} |" for n in doc["necessity"]]
    return out


def variant_sections(doc: dict) -> list:
    """The statement variants (:mod:`verify.statements`): the recall and false alarms overall and per claim, then
    every variant with its class, outcome and what the statement's own search found."""
    if not doc.get("variants"):
        return []
    rows = [r for r in doc["claims"] if r.get("variants")]
    line = variants_line(doc["variants"])
    out = ["", "## Statement variants", "",
           "Each claim with a statement object is checked against wrong statements near it (constants scaled, "
           "exponents moved, relations reversed or made strict, terms and hypotheses dropped): a false variant must be "
           "refuted by the statement's own search, a true control must stay verified.", "",
           f"**{line[0].upper() + line[1:]}.**", "",
           "| ID | false variants caught | true controls flagged | unknown |", "|---|---|---|---|"]
    for r in rows:
        c = variant_counts(r)
        out.append(f"| `{r['id']}` | {c['caught']}/{c['false']} | {c['false_alarms']}/{c['true']} | {c['unknown']} |")
    out += ["", "| ID | variant | class | outcome | found |", "|---|---|---|---|---|"]
    out += [f"| `{r['id']}` | {cell(v.get('variant', ''))} | {cell(v.get('class', ''))} | "
            f"**{cell(v.get('outcome', ''))}** | {cell(variant_found(v), humanize=False)} |" for r in rows
            for v in r["variants"]]
    return out




def certified_text(ev: dict) -> str:
    """A certified record for a reader: its statement with the numbers shortened, the interval as
    :func:`~verify.reporters._numbers.fmt_interval` writes it."""
    text = humanize_text(ev.get("statement", ""))
    iv = ev.get("interval")
    if isinstance(iv, (list, tuple)) and len(iv) == 2 and "[" not in text:   # the statement may state it already
        text += f" (interval {fmt_interval(*iv)})"
    return text
