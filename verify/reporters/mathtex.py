r"""Formulas as pictures, offline: matplotlib's mathtext (a TeX subset, no TeX installation) to SVG data URIs.

mathtext parses most of what sympy's printer writes (fractions, roots, sums, sub- and superscripts,
``\left( \right)``, ``\mathbf``); where it fails (matrices, ``\begin{...}`` environments, unknown macros)
:func:`math_uri` returns ``None`` and the reporter shows the LaTeX source in a ``<code>`` block instead.

>>> math_uri(r"\frac{a}{b} + \sqrt{x}").startswith("data:image/svg+xml;base64,")
True
>>> math_uri(r"\begin{pmatrix} a & b \end{pmatrix}") is None
True
"""

from __future__ import annotations

import base64
import io
from functools import lru_cache

#: longest LaTeX item rendered as a picture: mathtext lays a formula out on one line, so longer ones overflow a
#: card and read better as source
MAX_TEX = 700


@lru_cache(maxsize=512)
def math_uri(tex: str, fontsize: int = 11) -> str | None:
    """``tex`` (math mode, without dollars) as a deterministic SVG data URI, or ``None`` if mathtext cannot
    typeset it."""
    import matplotlib
    from matplotlib.figure import Figure

    tex = " ".join(tex.split())
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
    from ..latex import formulas, get_formula

    table = formulas() if names is None else {n: get_formula(n) for n in names}
    out = []
    for name, f in table.items():
        try:
            tex = f.latex(**(params or {}).get(name, {}))
        except Exception as exc:  # one formula that fails to derive must not cost the report the others
            out.append({"name": name, "description": f.description, "params": f.params,
                        "items": [], "error": f"{type(exc).__name__}: {exc}"})
            continue
        items = [t.strip() for t in tex.split("\\\\\n") if t.strip()]
        out.append({"name": name, "description": f.description, "params": dict(f.params),
                    "items": [{"tex": t, "img": math_uri(t)} for t in items]})
    return out
