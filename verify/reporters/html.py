r"""The HTML reporter (``verify report --html FILE``): one self-contained page that opens offline.

Everything is inline: the CSS, a few lines of plain JavaScript (the filters), the figures
(:mod:`~verify.reporters.figures`, SVG data URIs) and the formulas (:mod:`~verify.reporters.mathtex`, MathML). A
Content-Security-Policy ``<meta>`` forbids every network request (only ``data:`` images, inline style and
script), so a page that tried to load anything would show it as a console error.

The page: the headline; counts by verdict, severity and scale per paper; filters by paper, verdict, severity and
kind; one card per claim (statement and where, verdict with severity or scale, method, the evidence as nested
tables, counterexample and corrected statement, mutant power, the pytest node ids of the deciding checks and of
the corrected statement's checks, the registry formula of the same name); the results beyond the papers in their
own marked section; the figures; the remaining registry formulas. No timestamps: the same document and the same
figures give the same bytes.

>>> doc = {"claims": [], "beyond": [], "summary": {"total": {}}, "severity": {}, "headline": "0 claims"}
>>> page = render_html(doc, figures=[], formulas=[])
>>> page.startswith("<!DOCTYPE html>") and "0 claims" in page
True
"""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path
from typing import Any

from .._io import atomic_write_text
from ..claims import ALL_VERDICTS, PAPERS, SEVERITIES
from ._common import (correction_checks, experiment_summary, finding, found_text, label_parts, necessity_intro,
                      typeset_parts, variant_counts, variant_found, variants_line, verdict_label)
from .mathtex import doc_formulas, inline_math_ml, math_ml

#: evidence keys shown in their own part of a card rather than in the evidence table
_OWN_PARTS = ("counterexample", "corrected", "reason")
#: row keys the card shows in their own parts; any other key of a row (added by a later version) gets a generic part
_DOC_KEYS = ("claims", "beyond", "summary", "severity", "headline", "formulas", "figure_data", "variants", "necessity")
_ROW_KEYS = ("id", "paper", "where", "kind", "statement", "statement_tex", "verdict", "severity", "justification",
             "scale", "method", "evidence", "checks", "power", "variants")
#: lists longer than this are cut in the table (first and last items) with the whole list behind <details>
_LIST_CUT = 12
#: nesting shown as tables down to this depth, compact text below
_MAX_DEPTH = 4

_CSS = """
:root{--ok:#1a7f37;--bad:#b42318;--warn:#9a6700;--mute:#57606a;--line:#d0d7de;--bg:#f6f8fa}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#fff}
header,main{max-width:1200px;margin:0 auto;padding:0 16px}
header{padding-top:16px}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:24px 0 8px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:0}
.headline{font-size:15px}
table{border-collapse:collapse}
.counts td,.counts th{border:1px solid var(--line);padding:2px 5px;text-align:right}
.counts th:first-child,.counts td:first-child{text-align:left}
#filters{position:sticky;top:0;background:#fff;padding:8px 0;border-bottom:1px solid var(--line);z-index:2}
#filters label{margin-right:12px}
.card{border:1px solid var(--line);border-radius:6px;margin:10px 0;padding:10px 12px;background:#fff}
.card[hidden]{display:none}
.card.beyond{background:#fbf7ff;border-color:#c8b6e2}
.card .meta{color:var(--mute);font-size:12px}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;color:#fff;background:var(--mute)}
.v-verified,.v-supported{background:var(--ok)}.v-refuted,.v-contradicted{background:var(--bad)}
.v-inconclusive{background:var(--warn)}.v-not-checked{background:#8c959f}
.part{margin:6px 0}.part>b{display:inline-block;min-width:120px}
table.ev{margin:2px 0;font-size:12px}
table.ev th,table.ev td{border:1px solid var(--line);padding:1px 6px;vertical-align:top;text-align:left}
table.ev th{background:var(--bg);font-weight:600}
code,.num{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
.id{white-space:nowrap}
pre.tex{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--bg);padding:4px 6px;margin:2px 0}
.scroll{max-width:100%;overflow-x:auto}
main,.card,.part{min-width:0}
/* words are never broken inside: tables take their words' widths and scroll sideways in their box */
body{overflow-wrap:normal;word-break:normal;hyphens:manual;-webkit-hyphens:manual}
td,th{overflow-wrap:normal;word-break:normal;hyphens:manual}
/* a card or section reached by a link stops below the sticky filter bar (its height, set by the script) */
.card,h2,figure{scroll-margin-top:calc(var(--bar,64px) + 8px)}
details.part>summary{cursor:pointer}details.part>summary>b{display:inline-block;min-width:120px}
ul.refuted{padding-left:18px}ul.refuted li{margin:2px 0}
.finding{font-weight:600;color:var(--bad);margin:4px 0}
.counts{font-size:12px}
math{font-size:16px}.formula math{overflow-x:auto;overflow-y:hidden;max-width:100%}
ul.checks{margin:2px 0;padding-left:18px;font-size:12px}
.outcome-passed{color:var(--ok)}.outcome-failed,.outcome-error{color:var(--bad)}.outcome-skipped{color:var(--mute)}
figure{margin:12px 0;border:1px solid var(--line);border-radius:6px;padding:8px;background:#fff}
figure img{max-width:100%;height:auto}
figcaption{font-size:12px;color:var(--mute)}
.inline-math math{vertical-align:baseline}
.scroll.math{overflow-y:hidden;padding:3px 0}
.note{color:var(--warn)}
.banner{background:#f3edfb;border:1px solid #c8b6e2;border-radius:6px;padding:6px 10px}
"""

_JS = """
(function(){
  var bar = document.getElementById('filters');
  function barHeight(){ if (bar) { document.documentElement.style.setProperty('--bar', bar.offsetHeight + 'px'); } }
  barHeight(); window.addEventListener('resize', barHeight);
  var sel = document.querySelectorAll('#filters select');
  function apply(){
    var f = {};
    sel.forEach(function(s){ f[s.name] = s.value; });
    var shown = 0, cards = document.querySelectorAll('.card');
    cards.forEach(function(c){
      var ok = (!f.paper || c.dataset.paper === f.paper) && (!f.verdict || c.dataset.verdict === f.verdict) &&
               (!f.severity || c.dataset.severity === f.severity) &&
               (!f.kind || c.dataset.kind.split(' ').indexOf(f.kind) >= 0);
      c.hidden = !ok;
      if (ok) { shown += 1; }
    });
    document.getElementById('shown').textContent = shown + ' of ' + cards.length + ' cards shown';
  }
  sel.forEach(function(s){ s.addEventListener('change', apply); });
  apply();
})();
"""

_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _anchor(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in str(name))


# --------------------------------------------------------------------------- evidence as tables
def _num(v: float | int) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int):
        return str(v)
    if not math.isfinite(v):
        return str(v)
    short = f"{v:.6g}"
    full = repr(v)
    return f'<span class="num" title="{esc(full)}">{esc(short)}</span>' if short != full else f'<span class="num">{full}</span>'


#: a record key shown as a column header: a short name (``max_err``, ``beta``), not an expression
_WORDLIKE = re.compile(r"^[A-Za-z][A-Za-z0-9_ .\-]{0,23}$")


def header(key: Any) -> str:
    """A part's title in words: ``max_abs_err`` -> ``max abs err`` (the JSON keeps the key)."""
    return " ".join(str(key).replace("_", " ").split())


def label(key: Any) -> str:
    """A record's field name as HTML, as the errata name it (:func:`~verify.reporters._common.label_parts`): words
    escaped, the papers' symbols as inline MathML (``lam_H`` as λ_H; the text where latex2mathml cannot translate
    it); the recorded key is the cell's ``title``."""
    return "".join((math_ml(s, display=False) or esc(s)) if kind == "math" else esc(s)
                   for kind, s in label_parts(" ".join(str(key).split())))


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float, str))


def _record_keys(items: list) -> list | None:
    """The union of keys when ``items`` are like records (dicts of scalars or short lists, at most 12 keys, each key in
    at least half of them), else ``None``."""
    if not items or not all(isinstance(x, dict) and x for x in items):
        return None
    keys: list = []
    for x in items:
        keys += [k for k in x if k not in keys]
    if len(keys) > 12 or any(sum(k in x for x in items) * 2 < len(items) for k in keys):
        return None
    if not all(_WORDLIKE.match(str(k)) for k in keys):  # formulas as column headers read badly and overflow
        return None
    flat = all(_scalar(y) or (isinstance(y, list) and len(y) <= _LIST_CUT and all(_scalar(z) for z in y))
               for x in items for y in x.values())
    return keys if flat else None


#: a claim ID (``S-lemA.4-general``, ``N-thmC.2-sharp``): kept on one line wherever a table shows it
_CLAIM_ID = re.compile(r"[SNX]-[A-Za-z0-9.]+(?:-[A-Za-z0-9.]+)*")


def render_value(v: Any, depth: int = 0) -> str:
    """A JSON value as HTML: dicts as two-column tables, lists of records as tables with one column per key,
    short lists of numbers inline, long ones cut with the whole list behind ``<details>``, strings escaped."""
    if v is None:
        return '<span class="num">null</span>'
    if isinstance(v, (bool, int, float)):
        return _num(v)
    if isinstance(v, str):
        return f'<span class="id">{esc(v)}</span>' if _CLAIM_ID.fullmatch(v) else esc(v)
    if depth >= _MAX_DEPTH:
        return f"<code>{esc(json.dumps(v, sort_keys=True)[:2000])}</code>"
    if isinstance(v, dict):
        if not v:
            return "<code>{}</code>"
        inner = _record_keys(list(v.values()))
        if inner and len(v) > 1:  # a dict of like records (per setting, per instance): one row each
            head = "<th></th>" + "".join(f'<th title="{esc(k)}">{label(k)}</th>' for k in inner)
            body = "".join(f'<tr><th title="{esc(name)}">{label(name)}</th>' + "".join(f"<td>{render_value(x.get(k, ''), depth + 1)}</td>"
                                                                 for k in inner) + "</tr>" for name, x in v.items())
            return f'<table class="ev"><tr>{head}</tr>{body}</table>'
        rows = "".join(f'<tr><th title="{esc(k)}">{label(k)}</th><td>{render_value(x, depth + 1)}</td></tr>'
                       for k, x in v.items())
        return f'<table class="ev">{rows}</table>'
    if isinstance(v, (list, tuple)):
        if not v:
            return "<code>[]</code>"
        if all(_scalar(x) for x in v):
            cells = [render_value(x, depth + 1) for x in v]
            if len(cells) <= _LIST_CUT:
                return "[" + ", ".join(cells) + "]"
            head = ", ".join(cells[:6]) + ", &hellip;, " + ", ".join(cells[-3:])
            return (f"[{head}] <details><summary>all {len(cells)}</summary>[" + ", ".join(cells) + "]</details>")
        keys = _record_keys(v) if len(v) <= 200 else None
        if keys:
            head = "".join(f'<th title="{esc(k)}">{label(k)}</th>' for k in keys)
            body = "".join("<tr>" + "".join(f"<td>{render_value(x.get(k, ''), depth + 1)}</td>" for k in keys)
                           + "</tr>" for x in v)
            return f'<table class="ev"><tr>{head}</tr>{body}</table>'
        if all(isinstance(x, list) and all(_scalar(y) for y in x) for x in v) and len(v) <= 12 \
                and max(len(x) for x in v) <= 12:
            body = "".join("<tr>" + "".join(f"<td>{render_value(y, depth + 1)}</td>" for y in x) + "</tr>" for x in v)
            return f'<table class="ev">{body}</table>'
        rows = "".join(f"<tr><th>{i}</th><td>{render_value(x, depth + 1)}</td></tr>" for i, x in enumerate(v[:50]))
        more = f"<tr><td colspan=2>&hellip; {len(v) - 50} more</td></tr>" if len(v) > 50 else ""
        return f'<table class="ev">{rows}{more}</table>'
    return esc(v)


# --------------------------------------------------------------------------- parts of the page
def _badge(row: dict) -> str:
    return f'<span class="badge v-{esc(row["verdict"])}">{esc(verdict_label(row))}</span>'


def _formula_html(f: dict) -> str:
    params = ", ".join(f"{k} = {v}" for k, v in f.get("params", {}).items())
    out = [f'<div class="formula" id="formula-{_anchor(f["name"])}"><b><code>{esc(f["name"])}</code></b> '
           f'{esc(f["description"])}' + (f' <span class="meta">({esc(params)})</span>' if params else "") + "<br>"]
    if f.get("error"):
        out.append(f'<span class="note">could not be derived: {esc(f["error"])}</span>')
    for item in f["items"]:
        if item.get("mathml"):  # typeset by the browser; the LaTeX source on hover
            out.append(f'<div class="scroll math" title="{esc(item["tex"])}">{item["mathml"]}</div>')
        else:  # a line latex2mathml cannot translate: the source, readable and copyable
            out.append(f'<pre class="tex"><code>{esc(item["tex"])}</code></pre>')
    out.append("</div>")
    return "".join(out)


def _card(row: dict, beyond: bool, formulas: dict, figures_by_claim: dict) -> str:
    ev = dict(row.get("evidence") or {})
    own = {k: ev.pop(k) for k in _OWN_PARTS if k in ev}
    kinds = " ".join(k.strip() for k in str(row.get("kind", "")).split(","))
    attrs = (f'data-paper="{esc(row["paper"])}" data-verdict="{esc(row["verdict"])}" '
             f'data-severity="{esc(row.get("severity") or "")}" data-kind="{esc(kinds)}"')
    out = [f'<article class="card{" beyond" if beyond else ""}" id="claim-{_anchor(row["id"])}" {attrs}>',
           f'<h3><code class="id">{esc(row["id"])}</code> {_badge(row)}</h3>',
           f'<div class="meta">paper {esc(row["paper"])} &middot; {esc(row["where"])} &middot; kind {esc(row.get("kind", ""))}'
           + (" &middot; beyond the paper" if beyond else "") + "</div>",
           f'<p class="statement">{statement_html(row)}</p>']
    line = finding(row)
    if line:  # what fails, by how much: one line above the details
        out.append(f'<p class="finding">{esc(line[0].upper() + line[1:])}</p>')
    out.append(f'<div class="part"><b>method</b> {esc(row.get("method", ""))}</div>')
    if row.get("scale"):
        out.append(f'<div class="part"><b>scale</b> {esc(row["scale"])}</div>')
        summary = experiment_summary(row)   # what it decided, and the mechanism's verdict beside the claim's
        if summary:
            out.append(f'<div class="part"><b>decision</b> {esc(summary)}</div>')
    if row.get("severity"):
        out.append(f'<div class="part"><b>severity</b> {esc(row["severity"])}</div>')
        if row.get("justification"):
            out.append(_part(f'why {esc(row["severity"])}', render_value(row["justification"])))
    if "counterexample" in own:
        out.append(_part("counterexample", render_value(own["counterexample"])))
    if "corrected" in own:
        out.append(f'<div class="part"><b>corrected statement</b> {_corrected_html(row, own["corrected"])}</div>')
    if "reason" in own:
        out.append(_part("reason", render_value(own["reason"])))
    power = row.get("power")
    if power:
        surv = power.get("survivors") or []
        out.append(f'<div class="part"><b>mutant power</b> killed {esc(power.get("killed"))} of {esc(power.get("total"))}'
                   + (f'; <span class="note">surviving: {esc(", ".join(surv))}</span>' if surv else "") + "</div>")
    cov = row.get("coverage")
    if isinstance(cov, dict) and "percent" in cov:  # beside the power: how much of the code behind it the checks run
        out.append(f'<div class="part"><b>branch coverage</b> {esc(cov["percent"])}% ({esc(cov.get("covered"))} of '
                   f'{esc(cov.get("total"))} branches of {esc(cov.get("functions"))} functions); '
                   f'{esc(cov.get("percent_net"))}% without the {esc(cov.get("exceptions"))} listed exceptions '
                   '(validation, guards, types; reasons in the JSON)</div>')
    if ev:
        out.append(_part("evidence", render_value(ev), collapse=True))
    if row.get("variants"):
        c = variant_counts(row)
        out.append(_part("statement variants", _variants_table(row["variants"]), collapse=True,
                         note=f"{c['caught']}/{c['false']} false variants caught, "
                              f"{c['false_alarms']}/{c['true']} true controls flagged"))
    for key in [k for k in row if k not in _ROW_KEYS]:  # fields other reporters' authors add (coverage, certified..)
        if row[key] not in (None, "", [], {}):
            out.append(_part(esc(header(key)), render_value(row[key])))
    deciding = [c for c in row.get("checks", []) if not c.get("corrected")]
    if deciding:
        out.append(_part("decided by", '<ul class="checks">' + "".join(
            f'<li><code>{_nodeid(c["check"])}</code> <span class="outcome-{esc(c["outcome"])}">{esc(c["outcome"])}</span>'
            + (f' &mdash; {esc(c["reason"])}' if c.get("reason") else "") + "</li>" for c in deciding) + "</ul>",
            collapse=len(deciding) > 3, note=f"{len(deciding)} checks"))
    fixes = correction_checks(row)
    if fixes:
        out.append(_part("corrected statement checked by", '<ul class="checks">' +
                         "".join(f"<li><code>{_nodeid(c)}</code></li>" for c in fixes) + "</ul>",
                         collapse=len(fixes) > 3, note=f"{len(fixes)} checks"))
    per_check = [(c["check"], r) for c in row.get("checks", []) for r in c.get("records", []) or [] if r.get("evidence")]
    if len(per_check) > 1:  # the row shows the merged evidence; each check's own is one click away
        out.append("<details><summary>evidence of each check</summary>" + "".join(
            f'<div class="part"><code>{_nodeid(n)}</code> ({esc(r.get("verdict", ""))}) <div class="scroll">{render_value(r["evidence"])}</div></div>'
            for n, r in per_check) + "</details>")
    if row["id"] in formulas:
        out.append('<div class="part"><b>derived formula</b>' + _formula_html(formulas[row["id"]]) + "</div>")
    for key, title in figures_by_claim.get(row["id"], []):
        out.append(f'<div class="part"><b>figure</b> <a href="#figure-{_anchor(key)}">{esc(title)}</a></div>')
    out.append("</article>")
    return "\n".join(out)


#: a part longer than this (characters of HTML) is collapsed behind its title, so a card stays a screen or two tall
_COLLAPSE_AT = 1500


def _part(title: str, inner: str, collapse: bool | None = None, note: str = "") -> str:
    """One part of a card: its title, then ``inner`` in a box that scrolls sideways (a wide table never widens the
    page or breaks its words). ``collapse`` (default: when ``inner`` is long) puts it behind a ``<details>`` that the
    reader opens."""
    if collapse is None:
        collapse = len(inner) > _COLLAPSE_AT
    body = f'<div class="scroll">{inner}</div>'
    if collapse:
        return f'<details class="part"><summary><b>{title}</b> <span class="meta">{esc(note) or "show"}</span></summary>{body}</details>'
    return f'<div class="part"><b>{title}</b> {body}</div>'


def _nodeid(nodeid: str) -> str:
    """A pytest node id that may wrap after ``/`` and ``::`` (between names), never inside a name."""
    return esc(nodeid).replace("/", "/<wbr>").replace("::", "::<wbr>")


def _refuted_list(doc: dict) -> str:
    """The claims a reader looks for first: every refuted and contradicted claim, linked to its card, with its
    one-line finding."""
    rows = [r for r in doc.get("claims", []) if r["verdict"] in ("refuted", "contradicted")]
    if not rows:
        return "<p>No claim is refuted or contradicted in this report.</p>"
    items = []
    for r in rows:
        line = finding(r)
        items.append(f'<li><a href="#claim-{_anchor(r["id"])}"><code class="id">{esc(r["id"])}</code></a> '
                     f'{_badge(r)} {esc(r["where"])}' + (f': {esc(line[0].upper() + line[1:])}' if line else "")
                     + "</li>")
    return '<ul class="refuted">' + "".join(items) + "</ul>"


_MATH_SEGMENT = re.compile(r"\$([^$]+)\$|\\\[(.+?)\\\]", re.S)


def typeset_html(tex: Any, plain: str) -> str:
    """A typeset text (:func:`~verify.reporters._common.typeset_parts`) as HTML: the words escaped, the math as inline
    MathML (:func:`~verify.reporters.mathtex.inline_math_ml`: a long formula wraps after its relations, as in TeX)
    with its LaTeX on hover; ``plain``, escaped, where ``tex`` is not a sound typeset text or latex2mathml cannot
    translate a part."""
    ps = typeset_parts(tex)
    if ps is None:
        return esc(plain)
    out = []
    for kind, s in ps:
        if kind == "text":
            out.append(esc(s))
            continue
        ml = inline_math_ml(s)
        if ml is None:
            return esc(plain)
        out.append(f'<span class="inline-math" title="{esc(s)}">{ml}</span>')
    return "".join(out)


def statement_html(row: dict) -> str:
    """A claim's statement as HTML (:func:`typeset_html` of its ``statement_tex``, else its ``statement``)."""
    return typeset_html(row.get("statement_tex"), row.get("statement", ""))


def _corrected_html(row: dict, recorded: Any) -> str:
    """The corrected statement typeset as in the errata (:func:`~verify.reporters.errata.corrected_latex`): its math
    as MathML (:func:`~verify.reporters.mathtex.math_ml`, the LaTeX on hover), its text through pylatexenc's
    LaTeX-to-text; the recorded text where no typeset form matches it (or a part cannot be translated)."""
    from pylatexenc.latex2text import LatexNodes2Text

    from .errata import corrected_latex
    tex, typeset = corrected_latex(row)
    if not typeset:
        return render_value(recorded)
    out, pos = [], 0
    for m in _MATH_SEGMENT.finditer(tex):
        out.append(esc(LatexNodes2Text().latex_to_text(tex[pos:m.start()])))
        math, display = (m.group(1), False) if m.group(1) is not None else (m.group(2).strip(), True)
        ml = math_ml(math, display=display)
        if ml is None:
            return render_value(recorded)
        out.append(f'<div class="scroll math" title="{esc(math)}">{ml}</div>' if display else
                   f'<span class="inline-math" title="{esc(math)}">{ml}</span>')
        pos = m.end()
    out.append(esc(LatexNodes2Text().latex_to_text(tex[pos:])))
    return "".join(out) + f'<details><summary>as recorded</summary>{esc(recorded)}</details>'


def summary_counts(doc: dict) -> dict:
    """Per paper: counts by verdict, refutations by severity, experiments by scale (paper / reduced)."""
    rows = doc.get("claims", [])
    out = {}
    for p in [p for p in PAPERS if any(r["paper"] == p for r in rows)] + ["total"]:
        mine = [r for r in rows if p == "total" or r["paper"] == p]
        scale: dict = {}
        for r in mine:
            if r.get("scale"):
                s = "paper scale" if r["scale"] == "paper" else "reduced scale"
                scale.setdefault(s, {v: 0 for v in ("supported", "contradicted", "inconclusive", "not-checked")})
                scale[s][r["verdict"]] = scale[s].get(r["verdict"], 0) + 1
        out[p] = {"verdict": {v: sum(r["verdict"] == v for r in mine) for v in ALL_VERDICTS},
                  "severity": {s: sum(r.get("severity") == s for r in mine) for s in SEVERITIES},
                  "scale": scale}
    return out


def _variants_table(variants: list) -> str:
    """A claim's statement variants: name, kind, class, outcome (marked when it breaks the recall or is a false
    alarm) and what the statement's own search found."""
    body = "".join(
        f"<tr><td>{esc(v.get('variant', ''))}</td><td>{esc(v.get('kind', ''))}</td><td>{esc(v.get('class', ''))}</td>"
        f"<td><b>{esc(v.get('outcome', ''))}</b></td><td>{esc(variant_found(v))}</td></tr>" for v in variants)
    return ("<table><tr><th>variant</th><th>kind</th><th>class</th><th>outcome</th><th>found</th></tr>"
            + body + "</table>")


def _variants_summary_html(doc: dict) -> str:
    """The statement variants overall (recall and false alarms) and per claim, each claim linked to its card."""
    vs = doc.get("variants")
    if not vs:
        return ""
    line = variants_line(vs)
    rows = "".join(
        f'<tr><td><a href="#claim-{_anchor(r["id"])}"><code class="id">{esc(r["id"])}</code></a></td>'
        f"<td>{c['caught']}/{c['false']}</td><td>{c['false_alarms']}/{c['true']}</td><td>{c['unknown']}</td></tr>"
        for r in doc.get("claims", []) if r.get("variants") for c in [variant_counts(r)])
    return (f'<p id="variants"><b>{esc(line[0].upper() + line[1:])}.</b> A false variant (a wrong statement near '
            "the claim) must be refuted by the statement's own search; a true control must stay verified.</p>"
            '<div class="scroll"><table class="counts"><tr><th>claim</th><th>false variants caught</th>'
            f"<th>true controls flagged</th><th>unknown</th></tr>{rows}</table></div>")


def _necessity_html(doc: dict) -> list[str]:
    """The hypothesis-necessity table (:func:`verify.report.necessity_table`), one row per hypothesis: the claim (linked
    to its card), the hypothesis dropped, the outcome and what the search found in the reader's digits
    (:func:`~verify.reporters._common.found_text`; every digit and the replay stay in the card's evidence and the
    JSON report)."""
    rows = doc.get("necessity") or []
    if not rows:
        return []
    cards = {r["id"] for r in doc.get("claims", []) + doc.get("beyond", [])}

    def claim(cid):
        code = f'<code class="id">{esc(cid)}</code>'
        return f'<a href="#claim-{_anchor(cid)}">{code}</a>' if cid in cards else code

    body = "".join(f"<tr><td>{claim(n.get('claim', ''))}</td>"
                   f"<td>{typeset_html(n.get('hypothesis_tex'), n.get('hypothesis dropped', ''))}</td>"
                   f"<td><b>{esc(n.get('outcome', ''))}</b></td><td>{esc(found_text(n.get('found', '')))}</td>"
                   f"<td>{typeset_html(n.get('note_tex'), n.get('note', ''))}</td></tr>" for n in rows)
    return ['<h2 id="necessity">Hypothesis-necessity table</h2>',
            f"<p>{necessity_intro(lambda w: f'<b>{esc(w)}</b>')}</p>",
            '<div class="scroll"><table class="necessity"><tr><th>claim</th><th>hypothesis dropped</th>'
            f"<th>outcome</th><th>found</th><th>note</th></tr>{body}</table></div>"]


def _summary_html(doc: dict) -> str:
    counts = summary_counts(doc)
    # two header rows (verdicts; refutations by severity) so that the table fits an 800 px window
    group = (f'<tr><th></th><th colspan="{len(ALL_VERDICTS)}">verdict</th>'
             f'<th colspan="{len(SEVERITIES)}">refuted, by severity</th></tr>')
    head = "".join(f"<th>{esc(v)}</th>" for v in ALL_VERDICTS) + "".join(f"<th>{esc(s.replace('-', ' '))}</th>"
                                                                        for s in SEVERITIES)
    body = ""
    for p, c in counts.items():
        body += (f"<tr><td>{esc(p)}</td>"
                 + "".join(f"<td>{c['verdict'][v]}</td>" for v in ALL_VERDICTS)
                 + "".join(f"<td>{c['severity'][s]}</td>" for s in SEVERITIES) + "</tr>")
    out = f'<div class="scroll"><table class="counts">{group}<tr><th>paper</th>{head}</tr>{body}</table></div>'
    srows = [(p, s, n) for p, c in counts.items() for s, n in c["scale"].items()]
    if srows:
        verds = ("supported", "contradicted", "inconclusive", "not-checked")
        out += ('<p>Experiments by scale:</p><table class="counts"><tr><th>paper</th><th>scale</th>' +
                "".join(f"<th>{v}</th>" for v in verds) + "</tr>" +
                "".join(f"<tr><td>{esc(p)}</td><td>{esc(s)}</td>" + "".join(f"<td>{n.get(v, 0)}</td>" for v in verds)
                        + "</tr>" for p, s, n in srows) + "</table>")
    return out


def _filters_html(doc: dict) -> str:
    rows = doc.get("claims", []) + doc.get("beyond", [])

    def select(name, label, values):
        opts = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
        return f'<label>{label} <select name="{name}" id="filter-{name}"><option value="">all</option>{opts}</select></label>'

    kinds = sorted({k.strip() for r in rows for k in str(r.get("kind", "")).split(",") if k.strip()})
    papers = [p for p in PAPERS if any(r["paper"] == p for r in rows)]
    verdicts = [v for v in ALL_VERDICTS if any(r["verdict"] == v for r in rows)]
    return ('<div id="filters">' + select("paper", "paper", papers) + select("verdict", "verdict", verdicts) +
            select("severity", "severity", SEVERITIES) + select("kind", "kind", kinds) +
            ' <span id="shown" class="meta"></span></div>')


def _figure_html(pic: dict) -> str:
    links = ", ".join(f'<a href="#claim-{_anchor(c)}">{esc(c)}</a>' for c in pic.get("claims", []))
    out = [f'<figure id="figure-{_anchor(pic["key"])}"><h3>{esc(pic["title"])}</h3>']
    if pic.get("img"):
        out.append(f'<img src="{pic["img"]}" alt="{esc(pic["title"])}">')
    if pic.get("note"):
        out.append(f'<p class="note">{esc(pic["note"])}</p>')
    out.append(f'<figcaption>{esc(pic.get("caption", ""))}' + (f" Claims: {links}." if links else "") + "</figcaption>")
    out.append("</figure>")
    return "".join(out)


def render_html(doc: dict, figures: list | None = None, formulas: list | None = None,
                title: str = "verify: claim-by-claim verdicts") -> str:
    """The page for a report document. ``figures``: pictures from :func:`~verify.reporters.figures.build_figures`
    (``None``: build them all); ``formulas``: from :func:`~verify.reporters.mathtex.typeset` (``None``: the
    document's own ``formulas``, typeset, or the whole registry derived now when it has none)."""
    if figures is None:
        from .figures import build_figures

        figures = build_figures(doc)
    if formulas is None:
        formulas = doc_formulas(doc)
    ids = {r["id"] for r in doc.get("claims", []) + doc.get("beyond", [])}
    by_name = {f["name"]: f for f in formulas if f["name"] in ids}
    figures_by_claim: dict = {}
    for pic in figures:
        for c in pic.get("claims", []):
            figures_by_claim.setdefault(c, []).append((pic["key"], pic["title"]))
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             '<link rel="icon" href="data:,">', f"<title>{esc(title)}</title>", f"<style>{_CSS}</style></head><body>",
             f"<header><h1>{esc(title)}</h1>",
             f'<p class="headline">{esc(doc.get("headline", ""))}</p>',
             "<p>" + " &middot; ".join(f"<b>paper {esc(p)}</b>: {esc(t)}" for p, t in PAPERS.items()) + "</p>",
             '<nav><a href="#refuted">refuted and contradicted</a> &middot; <a href="#claims">claims</a> &middot; <a href="#beyond">beyond the papers</a> &middot; '
             + ('<a href="#necessity">hypothesis necessity</a> &middot; ' if doc.get("necessity") else "") +
             '<a href="#figures">figures</a> &middot; <a href="#formulas">formulas</a></nav></header><main>',
             "<h2>Summary</h2>", _summary_html(doc), _variants_summary_html(doc),
             '<h2 id="refuted">Refuted and contradicted claims</h2>', _refuted_list(doc), _filters_html(doc),
             '<h2 id="claims">Claims of the papers</h2>']
    parts += [_card(r, False, by_name, figures_by_claim) for r in doc.get("claims", [])]
    parts.append('<h2 id="beyond">Beyond the papers</h2>')
    parts.append('<p class="banner">Results of this package that the papers do not claim (IDs <code>X-...</code>); they '
                 'are not counted in the summary above.</p>')
    parts += [_card(r, True, by_name, figures_by_claim) for r in doc.get("beyond", [])] or ["<p>None in this report.</p>"]
    parts += _necessity_html(doc)
    for key in [k for k in doc if k not in _DOC_KEYS and doc[k] not in (None, "", [], {})]:
        # a part of the document added by a later version (e.g. the necessity table): shown, as tables
        parts.append(f'<h2 id="doc-{_anchor(key)}">{esc(header(key)).capitalize()}</h2>')
        parts.append(f'<div class="scroll">{render_value(doc[key])}</div>')
    parts.append('<h2 id="figures">Figures</h2>')
    parts += [_figure_html(p) for p in figures] or ["<p>No figures in this report.</p>"]
    parts.append('<h2 id="formulas">Derived formulas</h2>')
    parts.append("<p>The formula registry (<code>verify latex --list</code>), in the papers' form, as MathML; "
                 "where a line cannot be translated, its LaTeX source is shown.</p>")
    for f in formulas:
        if f["name"] in by_name:
            parts.append(f'<p><code>{esc(f["name"])}</code>: shown on the card of '
                         f'<a href="#claim-{_anchor(f["name"])}">{esc(f["name"])}</a>.</p>')
        else:
            parts.append(_formula_html(f))
    parts.append(f"</main><script>{_JS}</script></body></html>")
    return "\n".join(parts) + "\n"


def write_html(doc: dict, path: str | Path, figures: list | None = None, formulas: list | None = None) -> None:
    """Render and write the page atomically."""
    atomic_write_text(path, render_html(doc, figures=figures, formulas=formulas))
