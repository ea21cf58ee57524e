"""Helpers shared by the reporters: the verdict label, one-line evidence, severity order."""

from __future__ import annotations

import json
import re
from typing import Any

from ..claims import SEVERITIES
from ..decision import NOT_SIGNIFICANT_WORDS
from ..statement_texts import parts, problems
from ._numbers import fmt_apart, fmt_number, humanize_text

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


def _md_escape(text: str) -> str:
    for ch in "\\`*_[]<>|$#":
        text = text.replace(ch, "\\" + ch)
    return text


def text_md(text) -> str:
    r"""``text`` as literal Markdown text on one line: the characters that Markdown (CommonMark, MyST, GitHub) reads
    as markup are escaped."""
    return _md_escape(" ".join(str(text).split()))


def typeset_parts(tex: Any) -> list[tuple[str, str]] | None:
    """The parts of a typeset text (a report's ``statement_tex``, ``hypothesis_tex``, ``note_tex``:
    :func:`verify.statement_texts.parts`), or ``None`` where there is none (a report older than them) or one that
    breaks the texts' grammar (a hand-edited report: never trusted), and the reporters show the plain words."""
    if not isinstance(tex, str) or not tex.strip() or problems(tex):
        return None
    return parts(tex)


def statement_parts(row: dict) -> list[tuple[str, str]] | None:
    """The parts of a row's typeset statement (:func:`typeset_parts` of its ``statement_tex``)."""
    return typeset_parts(row.get("statement_tex"))


def typeset_markdown(tex: Any, plain: str) -> str:
    """A typeset text as Markdown on one line: its words escaped, its math as ``$...$`` (GitHub and MyST's
    dollarmath typeset it; the texts' grammar keeps ``|`` out, so it also sits in a table cell); ``plain``, escaped,
    where ``tex`` is not a sound typeset text."""
    ps = typeset_parts(tex)
    if ps is None:
        return text_md(plain)
    out = "".join(f"${s}$" if kind == "math" else _md_escape(s) for kind, s in ps)
    return " ".join(out.split())


def statement_markdown(row: dict) -> str:
    """A row's statement as Markdown (:func:`typeset_markdown` of its ``statement_tex``, else its ``statement``)."""
    return typeset_markdown(row.get("statement_tex"), row.get("statement", ""))


def refuted_by_severity(rows: list) -> list:
    """The refuted and contradicted rows, most serious severity first, then by ID."""
    bad = [r for r in rows if r["verdict"] in ("refuted", "contradicted")]
    return sorted(bad, key=lambda r: (SEVERITY_ORDER.get(r.get("severity"), len(SEVERITY_ORDER)), r["id"]))


def correction_checks(row: dict) -> list[str]:
    """Node ids of the passing ``corrected=True`` checks of a claim: the checks of its corrected statement."""
    return [c["check"] for c in row.get("checks", []) if c.get("corrected") and c.get("outcome") == "passed"]


# --------------------------------------------------------------------------- short, readable values
# DIGITS (significant digits of a float in the short forms; the JSON keeps every digit) comes from ._numbers
#: at most this many fields in a short table; the rest stays in the JSON report
MAX_FIELDS = 12
#: strings longer than this are cut in the short forms (the whole text stays in the JSON report)
MAX_TEXT = 160


def fmt_value(v: Any, limit: int | None = MAX_TEXT) -> str:
    """A recorded value, short (:mod:`verify.reporters._numbers`): integers and exact fractions (strings such as
    ``"1/3"``) exact while they are short, floats to :data:`DIGITS` significant digits, booleans and ``None`` in
    words, the numbers inside a text shortened the same way, long text cut.

    >>> fmt_value(0.30000000000000004), fmt_value(12345678.9), fmt_value(3), fmt_value("1/3"), fmt_value(True)
    ('0.3', '1.235e+07', '3', '1/3', 'true')
    >>> fmt_value("replay 0.123456789012345678901234567890 at start 3")
    'replay 0.1235 at start 3'
    """
    if isinstance(v, (bool, int, float)) or v is None:
        return fmt_number(v)
    text = humanize_text(" ".join((v if isinstance(v, str) else fmt_number(v)).split()))
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "\u2026"


def _shape(v: list) -> str:
    dims, x = [], v
    while isinstance(x, list):
        dims.append(len(x))
        x = x[0] if x else None
    return "\u00d7".join(map(str, dims))


def grouped_fields(value: Any, limit: int = MAX_FIELDS) -> list[tuple[str | None, str, str]]:
    """A recorded dict (a counterexample, a justification) as at most ``limit`` ``(group, field, short value)`` rows:
    a nested dict one level deep gives the rows of its group (``group`` its key, once per row; ``None`` at the top
    level), lists of up to four scalars inline, bigger lists and matrices by their shape ("4×8 values"), a dict of
    records (a sweep) by its size; the last row says how many fields were left to the JSON report. Order: the
    top-level scalars, then each group whole (recorded order), then the top-level shapes.

    >>> grouped_fields({"lam_W": 0.1, "H0": [[1.0, 2.0], [3.0, 4.0]], "run": {"ratio": 9.000000001, "n": 2}})
    [(None, 'lam_W', '0.1'), ('run', 'ratio', '9'), ('run', 'n', '2'), (None, 'H0', '2×2 values (in the JSON report)')]
    """
    rows: list[tuple[int, str | None, str, str]] = []  # (rank, group, field, value); sorted stably by rank

    def entry(v) -> tuple[bool, str]:  # (a shape rather than a value, its short text)
        if isinstance(v, dict):
            return True, f"{len(v)} entries (in the JSON report)"
        if isinstance(v, (list, tuple)):
            v = list(v)
            if len(v) <= 4 and all(not isinstance(x, (list, dict)) for x in v):
                return False, "[" + ", ".join(fmt_value(x) for x in v) + "]"
            return True, f"{_shape(v)} values (in the JSON report)"
        return False, fmt_value(v)

    items = value.items() if isinstance(value, dict) else [("value", value)]
    for key, v in items:
        if isinstance(v, dict) and v and not all(isinstance(x, dict) for x in v.values()):  # records: by their count
            rows += [(1, str(key), str(k), entry(x)[1]) for k, x in v.items()]
        else:
            shape, text = entry(v)
            rows.append((2 if shape else 0, None, str(key), text))
    out = [(g, k, v) for _rank, g, k, v in sorted(rows, key=lambda r: r[0])]
    if len(out) > limit:
        out = out[: limit - 1] + [(None, "\u2026", f"{len(out) - limit + 1} more fields in the JSON report")]
    return out


# --------------------------------------------------------------------------- field names as a reader reads them
#: Greek letters as the checks spell them in evidence keys (``lam_H``, ``beta``, ``Sigma_B``)
_GREEK = {"lam": "lambda", "lambda": "lambda", "beta": "beta", "sigma": "sigma", "Sigma": "Sigma", "mu": "mu",
          "nu": "nu", "rho": "rho", "delta": "delta", "xi": "xi", "alpha": "alpha", "gamma": "gamma",
          "theta": "theta", "kappa": "kappa", "tau": "tau", "phi": "phi", "omega": "omega", "eps": "varepsilon",
          "epsilon": "varepsilon"}
#: operators that take the next part as their subscript (``sup_t``, ``max_t``) and are subscripts (``sigma_max``)
_OPERATORS = {"max", "min", "sup", "inf"}
#: a subscript: a letter or short lower-case index with digits (``H``, ``0``, ``kk``, ``t``, ``F5``)
_SUB = re.compile(r"[A-Za-z]\d*|\d+|[a-z]{2,3}")
#: the end of a formula that takes the next symbol as its operand (``Tr_Sigma_B``, ``sup_t_Ltilde``)
_OPERAND = re.compile(r"(\\operatorname\{Tr\}|\\(?:max|min|sup|inf)_\{\w+\})$")
#: the identifier runs of a key (snake_case with digits); the rest of the key is punctuation and formula text
_RUN = re.compile(r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*|\^\d+")


def _symbol(part: str) -> str | None:
    r"""The LaTeX of one part of a key that is a symbol (``lam`` -> ``\lambda``, ``H0`` -> ``H_{0}``, ``lH`` ->
    ``\lambda_{H}``, ``dH0`` -> ``\delta H_{0}``, ``Ltilde`` -> ``\tilde{L}``, ``11lamH``, ``Kn``, ``Fkk``), or
    ``None`` for a word."""
    if part in _GREEK:
        return "\\" + _GREEK[part]
    if part == "Tr":
        return r"\operatorname{Tr}"
    m = re.fullmatch(r"(\d*)(?:lam|l)([HW])", part)  # lH, lamH, 11lamH: lambda_H (with its factor)
    if m:
        return rf"{m[1]}\lambda_{{{m[2]}}}"
    m = re.fullmatch(r"d([A-Z])(\d*)", part)  # dH, dH0: a perturbation delta H
    if m:
        return rf"\delta {m[1]}" + (f"_{{{m[2]}}}" if m[2] else "")
    m = re.fullmatch(r"NC(\d)(tilde)?", part)  # the neural-collapse metrics NC1, NC1tilde
    if m:
        return (r"\widetilde{NC}" if m[2] else "NC") + f"_{{{m[1]}}}"
    m = re.fullmatch(r"([A-Za-z])(tilde|hat|bar)", part)
    if m:
        return rf"\{m[2]}{{{m[1]}}}"
    m = re.fullmatch(r"([A-Za-z])(\d*)", part)  # K, d, n, H0, F5
    if m:
        return m[1] + (f"_{{{m[2]}}}" if m[2] else "")
    m = re.fullmatch(r"([A-Z])([ijkt]{2,3})", part)  # Fkk, Fkkt: a block with its indices
    if m:
        return f"{m[1]}_{{{m[2]}}}"
    if re.fullmatch(r"[Kndm]{2,3}", part):  # Kn, dn: products of the papers' sizes
        return part
    return None


def label_parts(key: Any) -> list[tuple[str, str]]:
    r"""A recorded field name as a reader reads it: ``[("text", words) | ("math", LaTeX)]``. Snake case becomes
    words, the papers' symbols become mathematics (``lam_H`` -> :math:`\lambda_{H}`, ``sigma_max`` ->
    :math:`\sigma_{\max}`, ``sup_t_Ltilde`` -> :math:`\sup_{t} \tilde{L}`), ``^3`` after a symbol its exponent; any
    other character stays text. The JSON report keeps the key as recorded.

    >>> label_parts("ratio_dH_over_dH0")
    [('text', 'ratio '), ('math', '\\delta H'), ('text', ' over '), ('math', '\\delta H_{0}')]
    >>> label_parts("lam_W*lam_H")
    [('math', '\\lambda_{W} \\lambda_{H}')]
    """
    out: list[list[str]] = []

    def add(kind: str, s: str) -> None:
        if out and out[-1][0] == kind:
            out[-1][1] += (" " if kind == "math" else "") + s
        else:
            out.append([kind, s])

    pos, key = 0, str(key)
    for m in _RUN.finditer(key):
        if m.start() > pos:
            add("text", key[pos:m.start()].replace("_", " "))
        pos = m.end()
        if m[0].startswith("^"):  # an exponent: on the symbol before it, else text
            if out and out[-1][0] == "math" and m.start() > 0 and key[m.start() - 1] != " ":
                out[-1][1] += f"^{{{m[0][1:]}}}"
            else:
                add("text", m[0])
            continue
        parts, i, first = m[0].split("_"), 0, True
        while i < len(parts):
            p, nxt = parts[i], parts[i + 1] if i + 1 < len(parts) else None
            tex = _symbol(p)
            if tex is None and p in _OPERATORS and nxt is not None and len(nxt) == 1:
                tex = "\\" + p
            if tex is not None and "_" not in tex and nxt is not None and (_SUB.fullmatch(nxt) or nxt in _OPERATORS):
                tex += "_{" + ("\\" + nxt if nxt in _OPERATORS else nxt) + "}"
                i += 1
            if not first and not (tex is not None and _OPERAND.search(out[-1][1])):  # the parts: words apart,
                add("text", " ")  # but an operator and its operand are one formula (add() joins them with a space)
            add("math", tex) if tex is not None else add("text", p)
            i, first = i + 1, False
    if pos < len(key):
        add("text", key[pos:].replace("_", " "))
    for i in range(len(out) - 2, 0, -1):  # a product of symbols, lam_W*lam_H: one formula, as the papers write it
        if out[i] == ["text", "*"] and out[i - 1][0] == out[i + 1][0] == "math":
            out[i - 1: i + 2] = [["math", out[i - 1][1] + " " + out[i + 1][1]]]
    return [(kind, s) for kind, s in out]


def label_markdown(key: Any) -> str:
    """:func:`label_parts` for Markdown: math in ``$...$`` (as GitHub renders it), text with ``*`` and ``|``
    escaped."""
    return "".join(f"${s}$" if kind == "math" else s.replace("*", "\\*").replace("|", "\\|").replace("`", "'")
                   for kind, s in label_parts(_cut(key)))


def markdown_fields(value: Any) -> list[str]:
    """A recorded dict as a short Markdown table (:func:`grouped_fields`, header included): fields by
    :func:`label_markdown`, a group's name once in italics and its fields indented under it."""
    esc = lambda s: " ".join(str(s).split()).replace("|", "\\|").replace("`", "'")
    out, group = ["| field | value |", "|---|---|"], None
    for g, k, v in grouped_fields(value):
        if g is not None and g != group:
            out.append(f"| *{label_markdown(g)}* | |")
        group = g
        out.append(f"| {'&emsp;' if g is not None else ''}{label_markdown(k)} | {esc(v)} |")
    return out


def _cut(key: str) -> str:
    """A field name of at most :data:`MAX_TEXT` characters (a recorded key may be a whole sentence)."""
    key = " ".join(str(key).split())  # one line: a table row
    return key if len(key) <= MAX_TEXT else key[: MAX_TEXT - 1] + "\u2026"


def label_latex(key: Any) -> str:
    """:func:`label_parts` for LaTeX: math in ``$...$``, text through pylatexenc's encoder
    (:func:`verify.latex.tex_escape`)."""
    from ..latex import tex_escape

    return "".join(f"${s}$" if kind == "math" else tex_escape(s) for kind, s in label_parts(_cut(key)))


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


def shared_evidence(doc: dict) -> dict[str, set]:
    """``claim id -> evidence keys it shares with another claim``: a check that tests several claims records its
    numbers for all of them (one ``M_W`` in the rows of three claims); a reader's row shows a claim's own deciding
    numbers, so a (key, value) pair that also sits in the row of a claim with a check in common is left to the
    JSON and HTML reports (a row left without numbers says what its checks did: :func:`evidence_line`)."""
    rows = doc.get("claims", []) + doc.get("beyond", [])
    checks = {r["id"]: {c.get("check") for c in r.get("checks", [])} for r in rows}
    pairs: dict[tuple, list] = {}
    for r in rows:
        for k, v in (r.get("evidence") or {}).items():
            if k in ("counterexample", "corrected", "reason"):
                continue
            pairs.setdefault((k, json.dumps(v, sort_keys=True, default=str)), []).append(r["id"])
    out: dict[str, set] = {}
    for (k, _v), ids in pairs.items():
        for cid in ids:
            if any(o != cid and checks[o] & checks[cid] for o in ids):
                out.setdefault(cid, set()).add(k)
    return out


#: evidence keys that describe how a search ran, not what it found (kept in the JSON report): seeds, replays, the
#: search's objective name and its float value beside the exact one, iteration budgets
INTERNAL_KEYS = re.compile(r"(^|_)(seeds?|replays?(_value)?|objective|float_value|maxiter|method_options|search|"
                           r"traces?|nodeid|route_costs|starts_per_case)$")


def evidence_line(row: dict, width: int | None = 400, shared: set | frozenset = frozenset()) -> str:
    """The deciding numbers of a claim on one line (of at most ``width`` characters; ``None``: whole, for a table
    that wraps it): the finding of a refutation, the reason of an undecided claim, then the top-level scalar
    evidence (numbers by :mod:`verify.reporters._numbers`) except the keys in ``shared`` (:func:`shared_evidence`)
    and how a search ran (:data:`INTERNAL_KEYS`); nested evidence is named, not dumped (it is in the JSON and HTML
    reports)."""
    ev = row.get("evidence") or {}
    parts = []
    lead = finding(row).rstrip(".")
    if lead:
        parts.append(lead)
    elif ev.get("reason") or row.get("reason"):
        parts.append(_clause(humanize_text(ev.get("reason") or row.get("reason"))))
    nested = []
    for k, v in ev.items():
        if k in ("counterexample", "corrected", "reason") or k in shared or INTERNAL_KEYS.search(str(k)):
            continue
        if isinstance(v, (dict, list, tuple)):
            small = isinstance(v, (list, tuple)) and len(v) <= 4 and all(isinstance(x, (int, float)) for x in v)
            if small:
                parts.append(f"{k} = [" + ", ".join(fmt_value(x) for x in v) + "]")
            else:
                nested.append(str(k))
        else:
            value = fmt_value(v, None if width is None else MAX_TEXT)
            parts.append(f"{k} \u2248 {value[1:]}" if value.startswith("\u2248") else f"{k} = {value}")
    if nested:
        parts.append("details: " + ", ".join(nested))
    if row.get("method") and (not parts or (shared and parts == [f"details: {', '.join(nested)}"])):
        parts.insert(0, _clause(humanize_text(row.get("method"))))   # its numbers are shared: what was checked
    text = "; ".join(parts)
    return text if width is None or len(text) <= width else text[: width - 1] + "\u2026"


def _names(names: list, limit: int = 6) -> str:
    names = [str(n) for n in names]
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _why_inconclusive(reason: str) -> str:
    """The reason of an inconclusive experiment in words: "underpowered" / "small" / "not significant" per comparison
    (the MDE arithmetic and the intervals stay in the JSON report), or the rule's reason shortened."""
    reason = " ".join(str(reason).split())
    if reason.startswith("underpowered by design"):
        return _clause(humanize_text(reason))
    groups: dict[str, list] = {}
    for part in reason.split("; "):
        name, sep, rest = part.partition(": ")
        if sep and rest.startswith(NOT_SIGNIFICANT_WORDS):
            word = next(w for w in NOT_SIGNIFICANT_WORDS if rest.startswith(w))
            if "observed against" in rest:
                word += ", observed against"
            groups.setdefault(word, []).append(name)
    if groups:
        return "; ".join(f"{word}: {_names(ns)}" for word, ns in groups.items())
    return _clause(humanize_text(reason))


#: the experiments whose paper reports means over seeds where the rule decides on the median: their summary line gives
#: the mean per-seed effect and its 95% Student-t interval beside the decision (descriptive, not a second decision)
PAPER_REPORTS_MEANS = {"N-table1-wd": "Table 1 reports means over 3 seeds"}


def decided_by(dec: dict) -> str:
    """What an experiment's decision decided, in words: its estimand and test (``"median over seeds, sign test"``);
    empty for a decision that records neither.

    >>> decided_by({"estimand": "median over seeds of x", "test": "exact one-sided sign test (binomial)"})
    'median over seeds, sign test'
    """
    est, test = str(dec.get("estimand") or ""), str(dec.get("test") or "")
    what = "median over seeds" if "median" in est else est.split(";")[0]
    how = "sign test" if "sign test" in test else test.split(" (")[0]
    return ", ".join(x for x in (what, how) if x)


def _means(comps: dict, why: str) -> str:
    """The mean per-seed effect of each comparison with its 95% Student-t interval (descriptive)."""
    cells = [f"{n} {fmt_number(c['mean'])} [{fmt_number(c['ci95_t'][0])}, {fmt_number(c['ci95_t'][1])}]"
             for n, c in comps.items() if isinstance(c, dict) and c.get("mean") is not None and c.get("ci95_t")]
    return f"mean per-seed effect, 95% t interval (descriptive; {why}): " + ", ".join(cells) if cells else ""


def mechanism_summary(mech: Any) -> str:
    """The verdict of an experiment's second decision, the paper's explanation of its effect (Fig. 6: interference),
    with why an inconclusive one is inconclusive and the largest share of the effect it can carry; empty without one.

    >>> mechanism_summary({"verdict": "inconclusive", "reason": "c: small (median/SD = 0.04 < MDE 0.91 SD ...)",
    ...                    "share_of_effect": {"upper_share": 0.37}})
    "mechanism (the paper's explanation; not the verdict): inconclusive: small: c; at most 37% of the effect"
    """
    if not isinstance(mech, dict) or not mech.get("verdict"):
        return ""
    text = str(mech["verdict"])
    if text == "inconclusive":
        text += ": " + _why_inconclusive(mech.get("reason") or "no reason recorded")
    elif text == "contradicted":
        against = [n for n, c in (mech.get("comparisons") or {}).items() if (c or {}).get("outcome") == "against"]
        text += (" (against: " + _names(against) + ")") if against else ""
    share = (mech.get("share_of_effect") or {}).get("upper_share")
    if isinstance(share, (int, float)):
        text += f"; at most {share:.0%} of the effect"
    return "mechanism (the paper's explanation; not the verdict): " + text


def per_dataset_text(ev: dict) -> str:
    """Each deciding data set's verdict (an experiment decided on several data sets, rule 5 of
    :mod:`verify.decision`), the verdict on the runs at zero training error only when it was computed, and the
    verdict of each sensitivity run when they ran.

    >>> per_dataset_text({"per_dataset": [{"name": "MNIST", "verdict": "contradicted"},
    ...     {"name": "Fashion-MNIST", "verdict": "supported"}], "zero_error_only": {"verdict": "inconclusive"}})
    'per data set: MNIST contradicted, Fashion-MNIST supported; runs at zero training error only: inconclusive'
    """
    rows = ev.get("per_dataset")
    parts = []
    if isinstance(rows, list) and rows:
        parts.append("per data set: " + ", ".join(f"{r.get('name', r.get('dataset', '?'))} {r.get('verdict', '?')}"
                                                  for r in rows if isinstance(r, dict)))
    zero = ev.get("zero_error_only")
    if isinstance(zero, dict) and zero.get("verdict"):
        parts.append(f"runs at zero training error only: {zero['verdict']}")
    sens = ev.get("sensitivity")
    if isinstance(sens, dict):  # the pre-registered sensitivity runs (another budget, the paper's per-step WD)
        parts += [f"sensitivity, {r.get('what', name)}: {r.get('verdict', '?')}" for name, r in sens.items()
                  if isinstance(r, dict)]
    return "; ".join(parts)


def experiment_summary(row: dict) -> str:
    """One line on an experiment (a claim with a scale): what it decided (estimand and test), what went for and
    against the claimed direction, why an inconclusive one is inconclusive ("underpowered", "small", "not
    significant"), the verdict of the paper's explanation beside it (:func:`mechanism_summary`), the mean per-seed
    effects where the paper reports means (:data:`PAPER_REPORTS_MEANS`; descriptive), the post-hoc corrected
    statement and its replication on fresh seeds, the descriptive runs on other data sets (Table 1's MNIST part), the
    data set and seeds. Empty for a row that is not an experiment's.

    >>> experiment_summary({"verdict": "contradicted", "scale": "paper", "evidence": {"dataset": "fashion_mnist",
    ...     "seeds": [0, 1, 2], "decision": {"comparisons": {"a": {"outcome": "for"}, "b/x2": {"outcome": "against"}}},
    ...     "post_hoc_replication": {"verdict": "supported", "seeds": [10, 11], "scale": "paper"}}})
    'for: a; against: b/x2; post hoc corrected statement, replicated on fresh seeds 10-11: supported; fashion_mnist, 3 seeds'
    """
    if not row.get("scale"):
        return ""
    ev = row.get("evidence") or {}
    dec = ev.get("decision") if isinstance(ev.get("decision"), dict) else {}
    comps = dec.get("comparisons") or {}
    parts = []
    how = decided_by(dec)
    if how:
        parts.append(f"decided on the {how}")
    by = {o: [n for n, c in comps.items() if isinstance(c, dict) and c.get("outcome") == o]
          for o in ("for", "against", "n.s.")}
    if by["for"]:
        parts.append("for: " + _names(by["for"]))
    if by["against"]:
        parts.append("against: " + _names(by["against"]))
    if row.get("verdict") == "inconclusive":
        parts.append("inconclusive: " + _why_inconclusive(ev.get("reason") or dec.get("reason") or row.get("reason")
                                                          or "no reason recorded"))
    elif by["n.s."]:
        parts.append("not significant: " + _names(by["n.s."]))
    parts.append(mechanism_summary(ev.get("mechanism")))
    if row.get("id") in PAPER_REPORTS_MEANS:
        parts.append(_means(comps, PAPER_REPORTS_MEANS[row["id"]]))
    if ev.get("post_hoc") and ev.get("statement"):
        parts.append("post hoc statement, tested on fresh seeds")
    rep = ev.get("post_hoc_replication")
    if isinstance(rep, dict):
        seeds = rep.get("seeds") or []
        where = f" {seeds[0]}-{seeds[-1]}" if seeds else ""
        parts.append(f"post hoc corrected statement, replicated on fresh seeds{where}: {rep.get('verdict', '?')}"
                     + (" [reduced]" if str(rep.get("scale", "paper")) != "paper" else ""))
    per = per_dataset_text(ev)
    if per:
        parts.append(per)
    desc = ev.get("descriptive_run")
    if isinstance(desc, dict):
        what = str(desc.get("what", "descriptive run"))
        what = what.split(" (")[0]
        parts.append(f"{what} (descriptive): {desc.get('verdict', '?')}")
    if ev.get("dataset") or ev.get("seeds"):
        seeds = ev.get("seeds") if isinstance(ev.get("seeds"), list) else []
        parts.append(", ".join(x for x in (str(ev.get("dataset") or ""), f"{len(seeds)} seeds" if seeds else "") if x))
    return "; ".join(p for p in parts if p)


# --------------------------------------------------------------------------- statement variants
def variant_counts(row: dict) -> dict:
    """One claim's statement variants (its ``variants`` records) counted: ``false`` variants and those ``caught``
    (refuted by the statement's own search), ``true`` controls and the ``false_alarms`` among them (refuted),
    ``unknown`` (not counted in either)."""
    vs = row.get("variants") or []
    return {"false": sum(v.get("class") == "false" for v in vs),
            "caught": sum(v.get("outcome") == "caught" for v in vs),
            "true": sum(v.get("class") == "true" for v in vs),
            "false_alarms": sum(v.get("outcome") == "false alarm" for v in vs),
            "unknown": sum(v.get("class") == "unknown" for v in vs)}


def variants_line(summary: dict) -> str:
    """The variants' numbers in words, from the report's ``variants`` summary.

    >>> variants_line({"claims": 1, "false": 3, "caught": 2, "true": 1, "false_alarms": 0, "unknown": 0})
    'statement variants of 1 claim: recall 2/3 false variants caught, false alarms 0/1 true controls'
    """
    n = summary["claims"]
    text = (f"statement variants of {n} claim{'s' if n != 1 else ''}: recall {summary['caught']}/{summary['false']} "
            f"false variants caught, false alarms {summary['false_alarms']}/{summary['true']} true controls")
    return text + (f", {summary['unknown']} unknown" if summary.get("unknown") else "")


#: the longest exact expression (as :func:`~verify.reporters._numbers.humanize_text` writes it) that a
#: counterexample's side shows beside its Arb enclosure: a longer one (a sum of surds over 100-digit integers, 1,100
#: characters in one cell) is shown as its enclosure alone, which is what a reader compares; the JSON report keeps it
MAX_EXPRESSION = 60
_EXPRESSION_AND_BALL = re.compile(r"(.+) = (\[[^\[\]]*\+/-[^\[\]]*\])")


def _side(text: Any) -> Any:
    """A counterexample's side for a reader: ``"expression = [ball]"`` as the ball alone where the expression is
    longer than :data:`MAX_EXPRESSION` once its numbers are shortened; anything else unchanged."""
    m = _EXPRESSION_AND_BALL.fullmatch(text) if isinstance(text, str) else None
    return m[2] if m and len(humanize_text(m[1])) > MAX_EXPRESSION else text


def variant_found(v: dict) -> str:
    """What the statement's own search found on one variant, for a reader: the counterexample (point, the two sides,
    how it is certified) of a refuted variant, the size of the search of a verified one. Numbers as
    :func:`~verify.reporters._numbers.fmt_number` writes them, the two sides to the digits that tell them apart
    (:func:`~verify.reporters._numbers.fmt_apart`; every digit is in the JSON report).

    >>> variant_found({"search": "refuted", "counterexample": {"point": {"a": "1/2"}, "lhs": "3", "rhs": "2",
    ...                "relation": "<=", "certified": "exact rationals"}})
    'refuted at a = 1/2: 3 <= 2 fails (exact rationals)'
    >>> variant_found({"search": "refuted", "counterexample": {"point": {"s": 0.123456789}, "relation": "=",
    ...                "lhs": "-360314386830890647815825/3543369523456",
    ...                "rhs": "-360322163423167903248225/3543369523456", "certified": "exact rationals"}})
    'refuted at s = 0.1235: ≈-1.01687e+11 = ≈-1.01689e+11 fails (exact rationals)'
    >>> variant_found({"search": "verified", "evidence": {"tested": 40, "seed": 3}})
    'verified at 40 points (seed 3)'
    """
    ce = v.get("counterexample")
    if ce:
        point = ", ".join(f"{k} = {_instance_value(x)}" for k, x in (ce.get("point") or {}).items())
        lhs, rhs = fmt_apart(_side(ce.get("lhs")), _side(ce.get("rhs")))
        return f"refuted at {point}: {lhs} {ce.get('relation')} {rhs} fails ({ce.get('certified')})"
    ev = v.get("evidence") or {}
    return f"{v.get('search', '')} at {ev.get('tested')} points (seed {ev.get('seed')})"


def _instance_value(x: Any) -> str:
    """A point's coordinate: a number as :func:`~verify.reporters._numbers.fmt_number` writes it, a matrix as its
    rows."""
    def num(e: Any) -> str:   # a recorded string ("1/2", "0.123456789") shortened by the same rules
        return humanize_text(e) if isinstance(e, str) else fmt_number(e)

    if isinstance(x, list):
        return "[" + "; ".join(", ".join(num(e) for e in row) if isinstance(row, list) else num(row) for row in x) + "]"
    return num(x)


#: the outcomes of a hypothesis-necessity row, and when each is given (every reporter's introduction to the table)
NECESSITY_OUTCOMES = (("needed", "when one is found"),
                      ("not needed at the budget tried", "when a search of the size shown found none"),
                      ("not searchable", "when the statement means nothing without it (the note says why)"))


def necessity_intro(bold) -> str:
    """The sentence before a necessity table, each outcome word set off by ``bold`` (Markdown's or HTML's)."""
    return ("Each stated hypothesis of a verified theorem dropped (or weakened) in turn and the weakened statement "
            "searched for a counterexample: " + ", ".join(f"{bold(o)} {w}" for o, w in NECESSITY_OUTCOMES) + ".")


#: a necessity row's "found" as :func:`verify.necessity.run_row` writes it: the search survived, or its counterexample
_SEARCHED = re.compile(r"best (\S+) <= (\S+)(?: \+ tol (\S+))? over (\d+) starts x \S+ .* iterations, seed \S+")
_FOUND = re.compile(r"value (\S+) > (\S+) at start (\d+) \(replay .*\)")


def found_text(found: str) -> str:
    """A necessity row's "found" for a reader: the values and the search size, not how the search ran (its method,
    iterations, seed and replay stay in the JSON report).

    >>> found_text("best -0.9003801515352409 <= 1.0 over 32 starts x 100 Nelder-Mead iterations, seed 0")
    'none: largest value -0.9004 <= 1 in 32 searched starts'
    >>> found_text("value 1.2345678 > 1.0 at start 3 (replay 1.23456780000000000000001)")
    'value 1.235 > 1 (start 3)'
    >>> found_text("best 0.9999999768136254 <= 1.0 over 32 starts x 400 Nelder-Mead iterations, seed 2")
    'none: largest value 0.99999998 <= 1 in 32 searched starts'
    >>> found_text("best 1.68e-16 <= 0.0 + tol 1e-12 over 32 starts x 400 Nelder-Mead iterations, seed 7")
    'none: largest value 1.68e-16, within round-off (1e-12) of 0, in 32 searched starts'
    """
    text = str(found)
    m = _SEARCHED.fullmatch(text) or _FOUND.fullmatch(text)
    if m is None:
        return humanize_text(text)
    try:
        value, bound = fmt_apart(float(m[1]), float(m[2]))
    except ValueError:   # not a number as recorded: shown as written
        value, bound = humanize_text(m[1]), humanize_text(m[2])
    if m.re is _FOUND:
        return f"value {value} > {bound} (start {m[3]})"
    if m[3]:   # above the bound by less than the objective's round-off allowance
        return (f"none: largest value {value}, within round-off ({humanize_text(m[3])}) of {bound}, in {m[4]} "
                f"searched starts")
    return f"none: largest value {value} <= {bound} in {m[4]} searched starts"
