r"""Formulas for the HTML report, offline: LaTeX to presentation MathML with latex2mathml, typeset by the browser.

The LaTeX is the papers' form (:meth:`verify.latex.Formula.items`, printed by :func:`verify.latex.to_latex`); the
browser lays the MathML out as text (Chromium renders MathML Core), so a formula is as crisp as the page at any zoom
and costs milliseconds, not a mathtext picture each. A line latex2mathml cannot read, or one with a macro it
passes through untranslated (it would show a backslash), is shown as its LaTeX source in a ``<code>`` block.

The derived LaTeX is carried in the report document (``doc["formulas"]``, :func:`formula_tex`, written when the
suite runs), so rendering a saved report derives nothing; a document without it (an older report) or with a
malformed one (never trusted) is derived again when rendered.

>>> math_ml(r"\frac{a}{b} + \sqrt{x}").startswith('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">')
True
>>> math_ml(r"\frac{1}{\undefinedmacro{x}}") is None
True
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any


def _bold_italic(c: str) -> str:
    r"""The Unicode mathematical bold italic form of a Latin or Greek letter (``c`` itself if there is none): MathML
    Core (Chromium) ignores ``mathvariant`` values other than "normal", so ``\boldsymbol{\Sigma}`` is written with
    the letter itself, as latex2mathml already does for ``\mathbf``."""
    import re
    import unicodedata

    m = re.fullmatch(r"(?:GREEK|LATIN) (CAPITAL|SMALL) LETTER (\w+)", unicodedata.name(c, ""))
    try:
        return unicodedata.lookup(f"MATHEMATICAL BOLD ITALIC {m[1]} {m[2]}") if m else c
    except KeyError:
        return c


@lru_cache(maxsize=2048)
def math_ml(tex: str, display: bool = True) -> str | None:
    """``tex`` (math mode, without dollars) as a ``<math>`` element, or ``None`` where latex2mathml cannot translate
    it (a parse error, or a macro it would pass through as text)."""
    import html
    import re

    import latex2mathml.converter

    tex = " ".join(str(tex).split())
    if not tex:
        return None
    try:
        out = latex2mathml.converter.convert(tex, display="block" if display else "inline")
    except Exception:  # latex2mathml's parse errors derive from Exception directly (no common base class)
        return None
    if "\\" in html.unescape(re.sub(r"<[^>]*>", "", out)):  # an untranslated macro: the source reads better
        return None

    def letters(m):
        return "<mi>" + "".join(f"&#x{ord(_bold_italic(c)):05X};" for c in html.unescape(m.group(1))) + "</mi>"

    return re.sub(r'<mi mathvariant="bold-italic">([^<]*)</mi>', letters, out)


#: where a long inline formula may break: after a relation or a binary ``+``/``-`` at the top level, as TeX breaks
#: inline math. MathML Core lays a ``<math>`` out on one line, so :func:`inline_math_ml` typesets a formula as one
#: ``<math>`` per piece, with a line-break opportunity between them
RELATIONS = frozenset({"=", "<", ">", r"\le", r"\ge", r"\leq", r"\geq", r"\leqslant", r"\geqslant", r"\neq",
                       r"\approx", r"\sim", r"\to", r"\mapsto", r"\prec", r"\succ", r"\preceq", r"\succeq",
                       r"\gtrsim", r"\lesssim", r"\in", r"\subseteq"})
BINARY = frozenset({"+", "-"})


def break_pieces(tex: str) -> list[str]:
    r"""``tex`` cut after each relation (:data:`RELATIONS`) and each binary ``+`` or ``-`` (not a sign: one that
    follows an operand) at the top level, outside braces, parentheses, brackets and ``\left ... \right``, where
    more follows; the pieces joined are ``tex``.

    >>> break_pieces(r"a = \frac{b}{c = d} \leq \left( e = f \right) + g")
    ['a =', ' \\frac{b}{c = d} \\leq', ' \\left( e = f \\right) +', ' g']
    >>> break_pieces(r"-x = (1 - c)^{n} - y")
    ['-x =', ' (1 - c)^{n} -', ' y']
    """
    pieces, start, depth, i, n = [], 0, 0, 0, len(tex)
    operand = False          # whether an operand precedes: a '-' after one is binary, else a sign
    while i < n:
        c, end, cut = tex[i], i + 1, False
        if c == "\\":
            j = i + 1
            while j < n and tex[j].isalpha():
                j += 1
            end = max(j, i + 2)                  # a control word, or a control symbol (\{, \,, \|)
            name = tex[i:end]
            if name in (r"\left", r"\right"):
                depth += 1 if name == r"\left" else -1
                end += 1 if end < n and tex[end] != "\\" else 0    # the delimiter: '(' here, '\lvert' read next
                operand = name == r"\right"
            elif name in RELATIONS:
                cut, operand = depth == 0, False
            elif name not in (r"\,", r"\;", r"\!", r"\quad"):
                operand = True
        elif c in "{}()[]":      # parentheses too (TeX would break inside them; a reader keeps "(1 - c)" whole)
            depth += 1 if c in "{([" else -1
            operand = c in "})]"
        elif c in RELATIONS:
            cut, operand = depth == 0, False
        elif c in BINARY:
            cut, operand = depth == 0 and operand, False
        elif not c.isspace():
            operand = True
        if cut and tex[end:].strip():
            pieces.append(tex[start:end])
            start = end
        i = end
    pieces.append(tex[start:])
    return pieces


def inline_math_ml(tex: str) -> str | None:
    """``tex`` as inline MathML that a narrow column can wrap: one ``<math>`` per piece of :func:`break_pieces`,
    ``<wbr>`` between them (the whole formula as one ``<math>`` where a piece alone does not translate); ``None``
    where latex2mathml cannot translate it."""
    pieces = [math_ml(p, display=False) for p in break_pieces(tex)]
    if len(pieces) > 1 and all(p is not None for p in pieces):
        return "<wbr>".join(pieces)
    return math_ml(tex, display=False)


def formula_tex(names=None, params: dict | None = None) -> list[dict]:
    """The registry's formulas (:func:`verify.latex.formulas`) derived and printed: ``[{"name", "description",
    "params", "tex": [one LaTeX string per display line]}]``, or ``"error"`` instead of ``"tex"`` for a formula that
    fails to derive or print (the others are still given). JSON-friendly: this is ``doc["formulas"]``. Each formula
    is derived once per process (the page and the errata share it)."""
    from ..latex import formulas

    chosen = list(formulas()) if names is None else list(names)
    entries = [_derived(n, tuple(sorted((params or {}).get(n, {}).items()))) for n in chosen]
    return [{**e, **({"tex": list(e["tex"])} if "tex" in e else {})} for e in entries]  # copies: the cache stays intact


@lru_cache(maxsize=None)
def _derived(name: str, params: tuple) -> dict:
    from ..latex import get_formula, to_latex

    f = get_formula(name)
    entry = {"name": name, "description": f.description, "params": dict(f.params)}
    try:
        entry["tex"] = [(o if isinstance(o, str) else to_latex(o)).strip() for o in f.items(**dict(params))]
    except Exception as exc:  # one formula that fails to derive must not cost the report the others
        entry["error"] = f"{type(exc).__name__}: {exc}"
    return entry


def valid_entries(value: Any) -> bool:
    """Whether ``value`` has the shape :func:`formula_tex` returns (a saved report's ``formulas`` is used only then)."""
    def ok(e):
        return (isinstance(e, dict) and isinstance(e.get("name"), str) and isinstance(e.get("description"), str)
                and isinstance(e.get("params", {}), dict)
                and (isinstance(e.get("error"), str) or (isinstance(e.get("tex"), list)
                                                         and all(isinstance(t, str) for t in e["tex"]))))
    return isinstance(value, list) and all(ok(e) for e in value)


def typeset(entries: list[dict]) -> list[dict]:
    """Entries of :func:`formula_tex` with their lines typeset: ``items = [{"tex", "mathml"}]`` (``mathml`` is
    ``None`` where latex2mathml cannot translate the line)."""
    return [{**e, "items": [{"tex": t, "mathml": math_ml(t)} for t in e.get("tex", [])]} for e in entries]


def formula_items(names=None, params: dict | None = None) -> list[dict]:
    """Derive and typeset (:func:`formula_tex`, then :func:`typeset`): what the page shows of a report without
    ``formulas``. ``names`` selects some (default all)."""
    return typeset(formula_tex(names, params))


def doc_formulas(doc: dict) -> list[dict]:
    """The typeset formulas of a report document: its own ``formulas`` when well formed, else derived now."""
    saved = doc.get("formulas")
    return typeset(saved) if valid_entries(saved) else formula_items()
