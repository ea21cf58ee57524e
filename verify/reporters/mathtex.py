r"""Formulas as pictures, offline: matplotlib's mathtext (a TeX subset, no TeX installation) to SVG data URIs.

mathtext parses most of what sympy's printer writes (fractions, roots, sums, sub- and superscripts,
``\left( \right)``, ``\mathbf``); where it fails (matrices, ``\begin{...}`` environments, unknown macros)
:func:`math_uri` returns ``None`` and the reporter typesets the sympy object as MathML (:func:`mathml`, rendered by
the browser), or, for a line the module gives as a LaTeX string, shows the source in a ``<code>`` block.

>>> math_uri(r"\frac{a}{b} + \sqrt{x}").startswith("data:image/svg+xml;base64,")
True
>>> math_uri(r"\begin{pmatrix} a & b \end{pmatrix}") is None
True
"""

from __future__ import annotations

import base64
import io
from functools import lru_cache

#: longest LaTeX item rendered as a picture: mathtext lays a formula out on one line; longer ones are MathML
#: (the browser breaks and scales them), or scroll inside their card
MAX_TEX = 1500
#: LaTeX spellings mathtext does not know, and the ones it does (the picture only: the alt text keeps the source)
_MATHTEXT_SPELLING = ((r"\le ", r"\leq "), (r"\ge ", r"\geq "), (r"\Bigl(", r"\left("), (r"\Bigr)", r"\right)"),
                      (r"\bigl(", r"\left("), (r"\bigr)", r"\right)"), (r"\Bigl[", r"\left["), (r"\Bigr]", r"\right]"))
#: point size of the formula pictures: the report's body text is 14 px, a formula reads at about the same size
FONTSIZE = 14


@lru_cache(maxsize=512)
def math_uri(tex: str, fontsize: int = FONTSIZE) -> str | None:
    """``tex`` (math mode, without dollars) as a deterministic SVG data URI, or ``None`` if mathtext cannot
    typeset it."""
    import matplotlib
    from matplotlib.figure import Figure

    tex = " ".join(tex.split()) + " "
    for a, b in _MATHTEXT_SPELLING:
        tex = tex.replace(a, b)
    tex = tex.strip()
    if not tex or len(tex) > MAX_TEX or "\\begin" in tex or "&" in tex:
        return None
    fig = Figure(figsize=(0.01, 0.01))
    fig.text(0, 0, f"${tex}$", fontsize=fontsize)
    buf = io.BytesIO()
    try:
        with matplotlib.rc_context({"svg.hashsalt": "verify-report", "svg.fonttype": "path",
                                    "mathtext.fontset": "cm"}):
            fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight", pad_inches=0.02,
                        transparent=True)
    except (ValueError, RuntimeError):  # mathtext's parse errors are ValueErrors; layout failures RuntimeErrors
        return None
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def formula_items(names=None, params: dict | None = None) -> list[dict]:
    """Registry formulas (:func:`verify.latex.formulas`) as ``[{"name", "description", "params", "items": [{"tex",
    "img"}]}]``: each display line of :meth:`~verify.latex.Formula.latex` typeset by :func:`math_uri` (``img`` is
    ``None`` where mathtext fails). ``names`` selects some (default all)."""
    from ..latex import formulas, get_formula, to_latex

    table = formulas() if names is None else {n: get_formula(n) for n in names}
    out = []
    for name, f in table.items():
        try:
            objs = f.items(**(params or {}).get(name, {}))
        except Exception as exc:  # one formula that fails to derive must not cost the report the others
            out.append({"name": name, "description": f.description, "params": f.params,
                        "items": [], "error": f"{type(exc).__name__}: {exc}"})
            continue
        try:
            texs = [o if isinstance(o, str) else to_latex(o) for o in objs]
        except Exception as exc:  # a printer failure likewise
            out.append({"name": name, "description": f.description, "params": f.params,
                        "items": [], "error": f"{type(exc).__name__}: {exc}"})
            continue
        out.append({"name": name, "description": f.description, "params": dict(f.params),
                    "items": [_item(obj, tex) for obj, tex in zip(objs, texs)]})
    return out


def mathml(obj) -> str | None:
    """A sympy object as presentation MathML (``<math display="block">``), which the browser typesets natively
    (matrices, long sums); ``None`` for LaTeX strings."""
    if isinstance(obj, str):
        return None
    from sympy.printing.mathml import mathml as to_mathml

    try:
        body = to_mathml(obj, printer="presentation")
    except Exception:  # a printer gap must not cost the page its formula: the LaTeX source is shown instead
        return None
    return f'<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">{body}</math>'


def _item(obj, tex: str) -> dict:
    """One display line: the mathtext picture where mathtext typesets it, else MathML from the sympy object, else
    (a LaTeX string mathtext cannot read) the source."""
    tex = tex.strip()
    img = math_uri(tex)
    return {"tex": tex, "img": img, "mathml": None if img else mathml(obj)}
