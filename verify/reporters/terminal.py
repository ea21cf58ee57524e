"""The plain-text reporter: the table of ``verify report`` and the verdict summary (also the pytest plugin's).

The table fits the terminal (:data:`DEFAULT_WIDTH` columns when its width is unknown): four columns, the claim ID
(never split), the verdict with a short tag of its severity or scale, the power (mutants killed of those tried) and
the finding, wrapped within its column to at most :data:`MAX_ROW_LINES` lines; a longer finding is given whole under
"Details" after the table. The long scale descriptions, counterexamples and nested evidence are in the Markdown,
HTML and JSON reports.
"""

from __future__ import annotations

import textwrap

from ..claims import VERDICTS
from ._common import evidence_line, experiment_summary, shared_evidence

#: the table's width when the terminal's is unknown (a pipe, a file, CI)
DEFAULT_WIDTH = 100
#: most lines of one row; a longer finding moves to the details under the table
MAX_ROW_LINES = 3
#: narrowest finding column beside the others; narrower terminals get the finding under the ID instead
MIN_FINDING = 24
#: severities as a short tag in the verdict column
SEVERITY_TAG = {"error": "error", "missing-hypothesis": "missing hyp.", "degenerate": "degenerate"}
_GAP = "  "


def verdict_tag(row: dict) -> str:
    """The verdict with a short tag: the severity of a refutation, the scale of an experiment.

    >>> verdict_tag({"verdict": "refuted", "severity": "missing-hypothesis"})
    'refuted (missing hyp.)'
    >>> verdict_tag({"verdict": "supported", "scale": "reduced: 3 seeds of 10, 20 epochs of 350"})
    'supported [reduced]'
    """
    text = row["verdict"]
    if row.get("severity"):
        text += f" ({SEVERITY_TAG.get(row['severity'], row['severity'])})"
    if row.get("scale"):
        text += " [paper]" if row["scale"] == "paper" else " [reduced]"
    return text


def power_cell(row: dict) -> str:
    """Mutants killed of those tried (``2/2``; ``1/2!`` when one survived), ``-`` without a power run."""
    power = row.get("power")
    if not power:
        return "-"
    return f"{power['killed']}/{power['total']}" + ("!" if power.get("survivors") else "")


def row_text(row: dict, shared: set | frozenset = frozenset()) -> str:
    """The finding column of a row, whole: an experiment's summary (:func:`experiment_summary`), else the deciding
    numbers (:func:`evidence_line`); the surviving mutants named."""
    text = experiment_summary(row) if row.get("scale") else ""
    text = text or evidence_line(row, None, shared)
    surv = (row.get("power") or {}).get("survivors") or []
    if surv:
        text += ("; " if text else "") + "surviving mutants: " + ", ".join(surv)
    return text or "-"


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False) or [""]


def format_summary(doc: dict, width: int = DEFAULT_WIDTH) -> str:
    """Counts by verdict per paper, the headline with severities, and the refuted / contradicted claims; every line
    at most ``width`` characters (longer ones wrap, indented)."""
    lines = []
    for paper, counts in doc["summary"].items():
        lines.append(f"{'paper ' + paper if paper != 'total' else 'total':<8} " +
                     "  ".join(f"{v}: {n}" for v, n in counts.items() if n or v in VERDICTS))
    lines.append(doc["headline"])
    vs = doc.get("variants") or {}
    for key, word in (("missed", "false variants missed"), ("alarms", "true controls flagged")):
        if vs.get(key):  # the variants that broke the recall or raised a false alarm, by name
            lines.append(f"  {word}: " + "; ".join(vs[key]))
    bad = [r for r in doc["claims"] if r["verdict"] in ("refuted", "contradicted")]
    idw = max([0] + [len(r["id"]) for r in bad])
    for r in bad:
        lines.append(f"  {r['id']:<{idw}}  {verdict_tag(r)}")
    if doc.get("beyond"):
        lines.append("beyond the papers (not claims of the papers): " +
                     ", ".join(f"{r['id']} {verdict_tag(r)}" for r in doc["beyond"]))
    out = []
    for line in lines:
        out += textwrap.wrap(line, width, subsequent_indent="    ", break_long_words=True,
                             break_on_hyphens=False) or [""]
    return "\n".join(out) + "\n"


def format_table(doc: dict, width: int = DEFAULT_WIDTH) -> str:
    """The plain-text table printed by ``verify report``: no line wider than ``width`` (see the module docstring)."""
    width = max(40, int(width))
    shared = shared_evidence(doc)
    rows_all = doc["claims"] + doc.get("beyond", [])
    idw = max([2] + [len(r["id"]) for r in rows_all])
    vw = max([7] + [len(verdict_tag(r)) for r in rows_all])
    pw = max([5] + [len(power_cell(r)) for r in rows_all])
    fw = width - idw - vw - pw - 3 * len(_GAP)
    stacked = fw < MIN_FINDING   # a narrow terminal: the finding on its own lines under the ID
    details: list[tuple[str, str]] = []

    def block(rows):
        if stacked:
            head = f"{'ID':<{idw}}{_GAP}{'verdict':<{vw}}{_GAP}power"
            out = [head if len(head) <= width else "ID  verdict  power", "    finding", "-" * width]
        else:
            out = [f"{'ID':<{idw}}{_GAP}{'verdict':<{vw}}{_GAP}{'power':<{pw}}{_GAP}finding", "-" * width]
        for r in rows:
            text = row_text(r, shared.get(r["id"], frozenset()))
            lines = _wrap(text, (width - 4) if stacked else fw)
            if len(lines) > MAX_ROW_LINES:
                details.append((r["id"], text))
                lines = lines[: MAX_ROW_LINES - 1] + ["\u2026 (whole under Details)"]
            if stacked:   # the ID alone on its line when the verdict does not fit beside it
                head = f"{r['id']:<{idw}}{_GAP}{verdict_tag(r):<{vw}}{_GAP}{power_cell(r)}".rstrip()
                if len(head) > width:
                    head = f"{r['id']}{_GAP}{verdict_tag(r)}{_GAP}{power_cell(r)}"
                out += [head] if len(head) <= width else [r["id"], f"    {verdict_tag(r)}{_GAP}{power_cell(r)}"]
                out += ["    " + ln for ln in lines]
                continue
            first = f"{r['id']:<{idw}}{_GAP}{verdict_tag(r):<{vw}}{_GAP}{power_cell(r):<{pw}}{_GAP}"
            out.append((first + lines[0]).rstrip())
            pad = " " * len(first)
            out += [(pad + ln).rstrip() for ln in lines[1:]]
        return out

    lines = block(doc["claims"])
    if doc.get("beyond"):
        lines += [""] + _wrap("Beyond the papers (results of this package, not claims the papers make):", width) \
            + block(doc["beyond"])
    if details:
        lines += ["", "Details"]
        for cid, text in details:
            lines += textwrap.wrap(f"{cid}: {text}", width, subsequent_indent="    ", break_long_words=True,
                                   break_on_hyphens=False)
    lines += _wrap("Power: mutants killed / tried (! = one survived). Scales, counterexamples and every number: "
                   "the --markdown, --html and --json reports.", width)
    lines.append("")
    return "\n".join(lines) + "\n" + format_summary(doc, width)
