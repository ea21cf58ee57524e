r"""The errata reporter (``verify errata``): for each paper, a letter to its authors.

A letter per paper (one LaTeX document, or Markdown): the paper's own counts, then every refuted claim, most serious
first, each with the statement as the paper writes it, the finding, the counterexample in a sentence that states the
failing inequality with its numbers (small matrices and tables typeset beside it, larger ones in the letter's
numbered appendix), why it fails, the hypothesis to add, the corrected statement typeset from sympy objects, the
derived formulas of the registry (a formula shared by several refutations printed once and referenced) and, in
words, what the checks of the corrected statement establish; then the typos found while checking. Node ids, raw
records and package internals stay in the JSON report.

Everything about a paper is read from :mod:`verify.erratum_texts` (keyed by claim ID); this module only lays it
out. A claim with no entry there (or a record its reader does not recognise) gets the record's numbers as a table.
Text goes through pylatexenc's encoder (:func:`verify.latex.tex_escape`), math through sympy's printer.

>>> doc = {"claims": [], "beyond": [], "summary": {}, "severity": {}, "headline": "0 claims"}
>>> "\\begin{document}" in errata_latex(doc, formulas={})
True
"""

from __future__ import annotations

import re
from typing import Any

from ..claims import PAPERS, SEVERITIES, TITLES
from ..erratum_texts import (_NAMES, ERRATA, EXTRA_FORMULAS, FORMULA_CAPTIONS, PAPER_TEXT, corrected_parts,
                             counterexample, exact, natural, num, typos)
from ..latex import tex_escape
from ._common import (correction_checks, finding, label_latex, refuted_by_severity, statement_markdown,
                      statement_parts)

__all__ = ["PAPER_TEXT", "corrected_latex", "corrected_markdown", "corrected_parts", "errata_latex",
           "errata_markdown", "typos"]

#: a matrix with more rows or columns than these goes to the appendix; so does a table with more rows
MAX_ROWS, MAX_COLS, MAX_TABLE_ROWS = 8, 6, 12
_SEVERITY_WORDS = {"error": "error", "missing-hypothesis": "missing hypothesis", "degenerate": "degenerate case"}
_SEVERITY_PLURAL = {"error": ("error", "errors"), "missing-hypothesis": ("missing hypothesis", "missing hypotheses"),
                    "degenerate": ("degenerate case", "degenerate cases")}
_VERDICT_WORDS = (("verified", "verified"), ("supported", "supported by experiment"), ("refuted", "refuted"),
                  ("contradicted", "contradicted by experiment"), ("inconclusive", "inconclusive"),
                  ("not-checked", "not checked"))


# --------------------------------------------------------------------------- corrected statements, typeset
def _math(obj: Any) -> str:
    from ..latex import ORDER, _Printer

    return _Printer({"order": ORDER, "symbol_names": dict(_NAMES)}).doprint(obj)


def corrected_latex(row: dict) -> tuple[str, bool]:
    """The corrected statement of a refuted row as LaTeX (text mode, math inline and displayed): typeset from
    :func:`~verify.erratum_texts.corrected_parts` when the recorded text matches its fingerprint, else the recorded
    text escaped. Returns ``(latex, typeset)``."""
    recorded = str((row.get("evidence") or {}).get("corrected") or "")
    entry = corrected_parts().get(row["id"])
    if entry is None or not recorded.startswith(entry[0]):
        return (tex_escape(recorded) if recorded else "none recorded."), False
    text = ""
    for part in entry[1]:
        if isinstance(part, str):
            piece = part
        elif isinstance(part, tuple):
            piece = f"\\[ {_math(part[1])} \\]"
        else:
            piece = f"${_math(part)}$"
        glued = isinstance(part, str) and piece[:1] in ",.;:)"  # punctuation after math: no space before it
        text += ("" if not text or glued else " ") + piece
    return text, True


def corrected_markdown(row: dict) -> str:
    tex, typeset = corrected_latex(row)
    if not typeset:
        return " ".join(str((row.get("evidence") or {}).get("corrected") or "none recorded.").split())
    return tex.replace("\\[ ", "$$").replace(" \\]", "$$")


# --------------------------------------------------------------------------- the registry's formulas
def _formulas_for(cid: str, formulas: dict | None) -> list:
    """Registry formulas of a claim: ``[(name, description, latex)]``."""
    if formulas is None:
        from ..latex import formulas as registry

        table = registry()
        names = [n for n in table if n == cid or n.startswith(cid + "-")] + EXTRA_FORMULAS.get(cid, [])
        return [_registry_formula(n) for n in names]
    return [(n, desc, tex) for n, (desc, tex) in formulas.items() if n == cid or n.startswith(cid + "-")
            or n in EXTRA_FORMULAS.get(cid, [])]


def _saved_formulas(doc: dict, formulas: dict | None) -> dict | None:
    """``formulas`` if given, else the report's own derived formulas (``doc["formulas"]``, written when the suite
    ran) as ``{name: (description, latex)}``; ``None`` (derive from the registry) for a report without them or with a
    malformed list (never trusted)."""
    from .mathtex import valid_entries

    if formulas is not None or not valid_entries(doc.get("formulas")):
        return formulas
    return {e["name"]: (e["description"], " \\\\\n".join(e["tex"])) if "tex" in e else
            (f"could not be derived: {e['error']}", None) for e in doc["formulas"]}


def _registry_formula(name: str) -> tuple:
    """``(name, description, latex)`` of a registry formula at its default parameters (derived once per process by
    :func:`~verify.reporters.mathtex.formula_tex`)."""
    from .mathtex import formula_tex

    (e,) = formula_tex([name])
    if "error" in e:  # a formula that fails to derive is reported, not fatal to the errata
        return name, f"could not be derived: {e['error']}", None
    return name, e["description"], " \\\\\n".join(e["tex"])


def _caption(name: str, desc: str) -> str:
    """A formula's caption: the words of :data:`~verify.erratum_texts.FORMULA_CAPTIONS`, else its description."""
    return FORMULA_CAPTIONS.get(name) or tex_escape(desc)


# --------------------------------------------------------------------------- what a letter holds
def _rows(doc: dict, paper: str) -> list:
    return [r for r in refuted_by_severity(doc.get("claims", [])) if r["paper"] == paper and r["verdict"] == "refuted"]


def _papers(doc: dict, paper: str | None) -> list[str]:
    return [paper] if paper else list(PAPERS)


def _count_words(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _intro(doc: dict, paper: str, rows: list) -> str:
    """The opening paragraph: this paper's counts only."""
    counts = (doc.get("summary") or {}).get(paper) or {}
    parts = [f"{counts[v]} {w}" for v, w in _VERDICT_WORDS if counts.get(v)]
    total = sum(counts.get(v, 0) for v, _ in _VERDICT_WORDS)
    sev = [_count_words(sum(r.get("severity") == s for r in rows), *_SEVERITY_PLURAL[s]) for s in SEVERITIES
           if any(r.get("severity") == s for r in rows)]
    text = ("We checked the claims of your paper one at a time, by exact computation where we could and by "
            "certified or high-precision numerics otherwise. ")
    if total:
        text += f"Of the {total} claims we list, " + _join(parts) + ". "
    if rows:
        text += (("The refutation below is" if len(rows) == 1 else f"The {len(rows)} refutations below are")
                 + " ordered by seriousness (" + _join(sev) + "). For each we give the statement as you wrote it, "
                 "what fails, a counterexample with its numbers, why it fails, a corrected statement and how we "
                 "checked it. The typos we met are listed at the end.")
    else:
        text += "We found no refuted claim."
    return text


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""


def _fallback(record: Any) -> dict:
    """A record no reader recognises: its numbers as a table (strings that are not numbers are left out), matrices
    typeset; a nested record with more rows than a table holds gets its own table (the letter's appendix); rows
    in numeric order."""
    mats, groups = [], {}

    def walk(v, path, rows):
        if isinstance(v, dict):
            for k in sorted(v, key=lambda k: natural(str(k))):
                walk(v[k], path + [str(k)], rows)
        elif _is_matrix(v):
            mats.append({"label": ", ".join(label_latex(p) for p in path), "entries": v})
        elif isinstance(v, list) and v and all(exact(x) is not None for x in v):
            rows.append((path, "$" + ",\\ ".join(num(x) for x in v) + "$"))
        elif isinstance(v, (int, float, str)) and not isinstance(v, bool) and exact(v) is not None:
            rows.append((path, f"${num(v)}$"))

    main: list = []
    items = record.items() if isinstance(record, dict) else [("", record)]
    for k, v in sorted(items, key=lambda kv: natural(str(kv[0]))):
        rows: list = []
        walk(v, [str(k)] if k != "" else [], rows)
        (groups.setdefault(str(k), rows) if len(rows) > MAX_TABLE_ROWS else main.extend(rows))

    def table(rows, caption="", drop=0):  # a group's table names its rows without the group's own name
        return {"caption": caption, "header": ["", "value"],
                "rows": [[", ".join(label_latex(p) for p in path[drop:]), val] for path, val in rows]}

    tables = ([table(main)] if main else []) + [table(rows, label_latex(k), 1) for k, rows in groups.items()]
    return {"text": "", "tables": tables, "matrices": mats}


def _is_matrix(v: Any) -> bool:
    return (isinstance(v, list) and len(v) > 0 and all(isinstance(r, list) and len(r) == len(v[0]) and r for r in v)
            and all(exact(x) is not None for r in v for x in r))


def _big(item: dict) -> bool:
    if "entries" in item:
        return len(item["entries"]) > MAX_ROWS or len(item["entries"][0]) > MAX_COLS
    return len(item["rows"]) > MAX_TABLE_ROWS


def _parts(r: dict) -> dict:
    """The parts of one refutation, LaTeX: finding, counterexample, why, hypothesis, repair."""
    entry = ERRATA.get(r["id"], {})
    ev = r.get("evidence") or {}
    cx = counterexample(r["id"], ev.get("counterexample")) if "counterexample" in ev else None
    if cx is None and "counterexample" in ev:
        cx = _fallback(ev["counterexample"])
    line = finding(r)
    return {"finding": entry.get("finding") or (tex_escape(line[0].upper() + line[1:]) if line else ""),
            "counterexample": cx, "why": entry.get("why"), "hypothesis": entry.get("hypothesis"),
            "repair": entry.get("repair")}


def _checked(r: dict) -> str:
    n = len(correction_checks(r))
    if not n:
        return "No check of the corrected statement ran in this report."
    return f"{'One check' if n == 1 else f'{n} checks'} of the corrected statement {'passes' if n == 1 else 'pass'}."


# --------------------------------------------------------------------------- LaTeX
_PREAMBLE = r"""\documentclass[11pt]{article}
\usepackage[margin=2.2cm]{geometry}
\usepackage{amsmath,amssymb}
\usepackage{longtable,booktabs}
\allowdisplaybreaks
\newcommand{\Tr}{\operatorname{Tr}}
\setlength{\parindent}{0pt}
\setlength{\parskip}{5pt}
\setcounter{MaxMatrixCols}{20}
\begin{document}
"""


def _label(kind: str, p: str, key: str) -> str:
    return f"{kind}:{p}:" + re.sub(r"[^A-Za-z0-9.-]", "-", key)


def _tex_matrix(entries: list) -> str:
    return (r"\begin{pmatrix}" + r" \\ ".join(" & ".join(num(x) for x in row) for row in entries)
            + r"\end{pmatrix}")


def _matrix_display(item: dict, md: bool = False) -> str:
    """A matrix of a counterexample: ``name = (...)`` for a named one (math), ``label: (...)`` for a record's field."""
    o, c = ("$$", "$$") if md else (r"\[ ", r" \]")
    if "label" in item:
        return f"{item['label']}:" + ("\n\n" if md else "\n") + f"{o}{_tex_matrix(item['entries'])}{c}"
    return f"{o}{item['name']} = {_tex_matrix(item['entries'])}{c}"


def _what(item: dict) -> str:
    if "entries" not in item:
        return "The table of recorded values"
    return f"The matrix {item['label']}" if "label" in item else f"${item['name']}$"


def _tex_table(t: dict, long: bool = False) -> str:
    cols = len(t["header"])
    env = "longtable" if long else "tabular"
    head = " & ".join(t["header"]) + r" \\ \midrule"
    body = "\n".join(" & ".join(c if "$" in c or not c else f"${c}$" for c in row) + r" \\" for row in t["rows"])
    spec = "l" * cols
    inner = f"\\begin{{{env}}}{{{spec}}}\n\\toprule\n{head}\n{body}\n\\bottomrule\n\\end{{{env}}}"
    cap = f"\\textit{{{t['caption']}}}\n\n" if t.get("caption") else ""
    return cap + (inner if long else "\\begin{center}\n" + inner + "\n\\end{center}")


def _tex_formula(tex: str, label: str) -> str:
    items = [t.strip() for t in tex.split("\\\\\n") if t.strip()]
    return ("\\begin{equation}\\label{" + label + "}\n\\begin{gathered}\n" + " \\\\\n".join(items)
            + "\n\\end{gathered}\n\\end{equation}")


def _tex_quote(cid: str, r: dict) -> str:
    if cid in PAPER_TEXT:
        where, parts = PAPER_TEXT[cid]
        body = "\n".join(f"\\[ {s} \\]" if kind == "math" else s for kind, s in parts)
        return f"\\textbf{{As stated}} ({tex_escape(where)}):\n\\begin{{quote}}\n{body}\n\\end{{quote}}"
    # the typeset statement is LaTeX already (its grammar keeps markup out of the text); the plain one is escaped
    body = r["statement_tex"] if statement_parts(r) is not None else tex_escape(r["statement"])
    return (f"\\textbf{{The claim}} ({tex_escape(r['where'])}, in our words):\n"
            f"\\begin{{quote}}\n{body}\n\\end{{quote}}")


def _letter_latex(doc: dict, p: str, formulas: dict | None) -> list[str]:
    rows = _rows(doc, p)
    out = [r"\begin{center}{\Large Errata}\\[4pt]" + "{\\large ``" + tex_escape(TITLES[p]) + "''}\\end{center}",
           "Dear authors,", _intro(doc, p, rows)]
    appendix, printed = [], {}
    for r in rows:
        sec = _label("sec", p, r["id"])
        where = PAPER_TEXT.get(r["id"], (r["where"],))[0]
        out.append(f"\\section{{{tex_escape(where)}: {_SEVERITY_WORDS.get(r.get('severity'), 'refuted')}}}"
                   f"\\label{{{sec}}}")
        out.append(_tex_quote(r["id"], r))
        parts = _parts(r)
        if parts["finding"]:
            out.append("\\textbf{Finding.} " + parts["finding"])
        cx = parts["counterexample"]
        if cx is not None:
            out.append("\\textbf{Counterexample.} " + cx["text"])
            for item in cx["matrices"] + cx["tables"]:
                if _big(item):
                    lab = _label("app", p, f"{r['id']}-{len(appendix)}")
                    appendix.append((lab, r, item))
                    out.append(f"{_what(item)} is in Appendix~\\ref{{{lab}}}.")
                elif "entries" in item:
                    out.append(_matrix_display(item))
                else:
                    out.append(_tex_table(item))
        if parts["why"]:
            out.append("\\textbf{Why it fails.} " + parts["why"])
        if parts["hypothesis"]:
            out.append("\\textbf{Hypothesis to add.} " + parts["hypothesis"])
        out.append("\\textbf{Corrected statement.} " + corrected_latex(r)[0])
        for name, desc, tex in _formulas_for(r["id"], formulas):
            if name in printed:
                out.append(f"The derived formula \\eqref{{{printed[name]}}} (Section~\\ref{{"
                           f"{printed[name].replace('eq:', 'sec:', 1).rsplit('@', 1)[0]}}}) applies here too: "
                           f"{_caption(name, desc)}.")
            elif tex:
                lab = _label("eq", p, r["id"]) + "@" + re.sub(r"[^A-Za-z0-9.-]", "-", name)
                printed[name] = lab
                out.append(f"Derived formula: {_caption(name, desc)},\n" + _tex_formula(tex, lab))
        out.append("\\textbf{How the correction was checked.} " + (parts["repair"] + " " if parts["repair"] else "")
                   + _checked(r))
    out.append("\\section*{Typos}")
    found = [t for t in typos() if t["paper"] == p]
    if not found:
        out.append("None found.")
    else:
        out.append(r"\begin{itemize}")
        for t in found:
            out.append(f"\\item {tex_escape(t['where'])}: ``{t['quote']}'' should read ``{t['correction']}''. {t['why']}")
        out.append(r"\end{itemize}")
    out.append("With best regards,\\\\ the authors of \\texttt{verify}")
    if appendix:
        out.append(r"\appendix")
        for lab, r, item in appendix:
            where = PAPER_TEXT.get(r["id"], (r["where"],))[0]
            if "entries" in item:
                out.append(f"\\section{{{tex_escape(where)}: {_what(item)[0].lower() + _what(item)[1:]}}}\\label{{{lab}}}")
                out.append(_matrix_display(item))
            else:
                out.append(f"\\section{{{tex_escape(where)}: recorded values}}\\label{{{lab}}}")
                out.append(_tex_table(item, long=True))
    return out


def errata_latex(doc: dict, paper: str | None = None, formulas: dict | None = None) -> str:
    """The errata as a LaTeX document: a letter for ``paper``, or for each paper in turn (each on its own pages,
    with its own counts, sections and appendix). ``formulas``: ``{name: (description, latex)}`` to use instead of
    the registry (tests; ``None`` derives them)."""
    formulas = _saved_formulas(doc, formulas)
    out = [_PREAMBLE]
    for i, p in enumerate(_papers(doc, paper)):
        if i:
            out += [r"\clearpage", r"\setcounter{section}{0}\setcounter{equation}{0}\setcounter{page}{1}"]
            out.append(r"\renewcommand{\thesection}{\arabic{section}}")
        out += _letter_latex(doc, p, formulas)
    out.append(r"\end{document}")
    return "\n\n".join(out) + "\n"


# --------------------------------------------------------------------------- Markdown
def _md_text(tex: str) -> str:
    """LaTeX text of :mod:`verify.erratum_texts` as Markdown: displayed math in ``$$``, quotes as quotes."""
    s = tex.replace("\\[", "\n\n$$").replace("\\]", "$$\n\n").replace("``", "“").replace("''", "”")
    s = s.replace("\\'e", "é").replace("~", " ").replace("\\,", " ")
    return re.sub(r"\n{3,}", "\n\n", s).strip()


def _md_table(t: dict) -> list[str]:
    out = [f"*{_md_text(t['caption'])}*", ""] if t.get("caption") else []
    out.append("| " + " | ".join(h or " " for h in t["header"]) + " |")
    out.append("|" + "---|" * len(t["header"]))
    for row in t["rows"]:
        out.append("| " + " | ".join(c if "$" in c or not c else f"${c}$" for c in row) + " |")
    return out + [""]


def _letter_markdown(doc: dict, p: str, formulas: dict | None) -> list[str]:
    rows = _rows(doc, p)
    out = [f"# Errata: “{TITLES[p]}”", "", "Dear authors,", "", _intro(doc, p, rows), ""]
    appendix, printed = [], {}
    for i, r in enumerate(rows, 1):
        where = PAPER_TEXT.get(r["id"], (r["where"],))[0]
        out += [f"## {i}. {where}: {_SEVERITY_WORDS.get(r.get('severity'), 'refuted')}", ""]
        if r["id"] in PAPER_TEXT:
            out += [f"**As stated** ({where}):", ""]
            for kind, s in PAPER_TEXT[r["id"]][1]:
                out += ([f"> $${s}$$"] if kind == "math" else [f"> {s}"]) + [">"]
            out[-1] = ""
        else:
            out += [f"**The claim** ({r['where']}, in our words): {statement_markdown(r)}", ""]
        parts = _parts(r)
        if parts["finding"]:
            out += [f"**Finding.** {_md_text(parts['finding'])}", ""]
        cx = parts["counterexample"]
        if cx is not None:
            out += [f"**Counterexample.** {_md_text(cx['text'])}", ""]
            for item in cx["matrices"] + cx["tables"]:
                if _big(item):
                    appendix.append((where, item))
                    out += [f"{_what(item)} is in Appendix A.{len(appendix)}.", ""]
                elif "entries" in item:
                    out += [_matrix_display(item, md=True), ""]
                else:
                    out += _md_table(item)
        for key, title in (("why", "Why it fails."), ("hypothesis", "Hypothesis to add.")):
            if parts[key]:
                out += [f"**{title}** {_md_text(parts[key])}", ""]
        out += [f"**Corrected statement.** {corrected_markdown(r)}", ""]
        for name, desc, tex in _formulas_for(r["id"], formulas):
            if name in printed:
                out += [f"The derived formula of section {printed[name]} applies here too: {_md_text(_caption(name, desc))}.", ""]
            elif tex:
                printed[name] = i
                out += [f"Derived formula: {_md_text(_caption(name, desc))},", "", "$$\\begin{gathered}", tex,
                        "\\end{gathered}$$", ""]
        out += ["**How the correction was checked.** " + (_md_text(parts["repair"]) + " " if parts["repair"] else "")
                + _checked(r), ""]
    out += ["## Typos", ""]
    found = [t for t in typos() if t["paper"] == p]
    if not found:
        out += ["None found.", ""]
    for t in found:
        out.append(f"* {t['where']}: “{t['quote']}” should read “{t['correction']}”. {_md_text(t['why'])}")
    if found:
        out.append("")
    out += ["With best regards,  ", "the authors of `verify`", ""]
    if appendix:
        out += ["## Appendix", ""]
        for k, (where, item) in enumerate(appendix, 1):
            if "entries" in item:
                out += [f"### A.{k}. {where}: {_what(item)[0].lower() + _what(item)[1:]}", "", _matrix_display(item, md=True), ""]
            else:
                out += [f"### A.{k}. {where}: recorded values", ""] + _md_table(item)
    return out


def errata_markdown(doc: dict, paper: str | None = None, formulas: dict | None = None) -> str:
    """The errata as Markdown (math in ``$...$`` and ``$$...$$``, as GitHub renders it): a letter per paper."""
    formulas = _saved_formulas(doc, formulas)
    out = []
    for i, p in enumerate(_papers(doc, paper)):
        if i:
            out += ["---", ""]
        out += _letter_markdown(doc, p, formulas)
    return "\n".join(out).rstrip("\n") + "\n"


def errata_documents(doc: dict, target, fmt: str, paper: str | None = None) -> dict:
    """``{path: text}``: one document per paper, each a letter to that paper's authors with its own counts. With
    ``paper`` the one document is written to ``target``; without, the papers' documents go beside it, named
    ``<stem>-S<suffix>`` and ``<stem>-N<suffix>`` (``errata.tex`` gives ``errata-S.tex`` and ``errata-N.tex``).

    >>> sorted(str(p) for p in errata_documents({"claims": []}, "out/errata.tex", "latex"))
    ['out/errata-N.tex', 'out/errata-S.tex']
    """
    from pathlib import Path

    render = errata_latex if fmt == "latex" else errata_markdown
    target = Path(target)
    if paper is not None:
        return {target: render(doc, paper=paper)}
    return {target.with_name(f"{target.stem}-{p}{target.suffix}"): render(doc, paper=p) for p in PAPERS}
