r"""The errata reporter (``verify errata``): per paper, every refuted claim, most serious first, and the typos.

For each refuted claim of the report document: the statement as the paper writes it (quoted in the paper's own
LaTeX, :data:`PAPER_TEXT`; our words where no quote is stored), the severity and why, the counterexample with the
exact numbers the check recorded, the corrected statement with its derived formula from the registry
(:func:`verify.latex.formulas`) where one exists, and the pytest node ids of the checks of the corrected statement
(``corrected=True``). Then the typos found while checking (:data:`TYPOS`). Output: a LaTeX document that pdflatex
compiles (amsmath, amssymb, geometry, longtable) or Markdown.

The quotes are the papers' text, not numbers: ``tests/test_errata.py`` checks each against the paper's text when
``shared/papers`` is at hand.

>>> doc = {"claims": [], "beyond": [], "summary": {}, "severity": {}, "headline": "0 claims"}
>>> "\\begin{document}" in errata_latex(doc, formulas={})
True
"""

from __future__ import annotations

import math
from typing import Any

from ..claims import PAPERS
from ..latex import _tex_escape as _latex_escape
from ._common import correction_checks, refuted_by_severity

#: The statements of the claims that are (or were) refuted, as the paper writes them: ``(location, parts)`` with
#: parts ``("text", paper text with $...$ math)`` or ``("math", a display formula)``, verbatim from the paper but
#: for the removed ``\color[rgb]{0,0,0}`` wrappers.
PAPER_TEXT: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "S-thm3.2": ("Theorem 3.2", [
        ("text", r"consider the following alternate data distribution: $x=(\xi_{1}b_{1},\ldots,\xi_{n}b_{n})$ where "
                 r"$(\xi_{1},\ldots,\xi_{n})\sim\nu$ for some $(K^{-1},K)$ -strongly log-concave $\nu$ , i.e., $\nu$ "
                 r"has density $\propto e^{-V(x)}$ with"),
        ("math", r"K^{-1}\cdot I_{n}\preceq\nabla^{2}V(x)\preceq K\cdot I_{n},"),
        ("text", r"Then, defining $\tilde{\mathcal{L}}(W)$ analogously to (7), we have"),
        ("math", r"\sup_{W}\tilde{\mathcal{L}}(W)=O(d)."),
    ]),
    "N-thm4.1-nc1": ("Theorem 4.1, first bullet", [
        ("text", r"Assume that $\lambda_{W}>0$, $\lambda_{H}\geq 0$, and that $\mathbf{H}_{0}$ has nonzero within-class "
                 r"variability (i.e., $\boldsymbol{\Sigma}_{W}(\mathbf{H}_{0})\neq\mathbf{0}$). Then, along the "
                 r"gradient flow, which is stated in (4), we have that"),
        ("text", r"$\widetilde{NC}_{1}(\mathbf{H}_{t})$ strictly decreases along the flow until it reaches zero."),
    ]),
    "N-thm4.1-B": ("Theorem 4.1, third bullet", [
        ("text", r"Assume that $\lambda_{W}>0$, $\lambda_{H}\geq 0$, and that $\mathbf{H}_{0}$ has nonzero within-class "
                 r"variability (i.e., $\boldsymbol{\Sigma}_{W}(\mathbf{H}_{0})\neq\mathbf{0}$). Then, along the "
                 r"gradient flow, which is stated in (4), we have that"),
        ("text", r"$t\mapsto e^{2\lambda_{H}t}\Tr(\boldsymbol{\Sigma}_{B}(\mathbf{H}_{t}))$ strictly increases along "
                 r"the flow."),
    ]),
    "N-cor4.2": ("Corollary 4.2", [
        ("text", r"Assume that $\mathbf{H}_{0}$ has nonzero within-class variability (i.e., "
                 r"$\boldsymbol{\Sigma}_{W}(\mathbf{H}_{0})\neq\mathbf{0}$). Then, there exists some constant "
                 r"$C=C(\mathbf{H}_{0})>0$ such that for $\beta>C$ we have that "
                 r"$\widetilde{NC}_{1}(\mathbf{H}_{1/\beta})<\widetilde{NC}_{1}(\mathbf{H}_{0})$."),
    ]),
    "N-thm5.2": ("Theorem 5.2", [
        ("text", r"Consider the setting of Theorem 5.1, $\lambda_{H}\lambda_{W}<1$ (assumed in Theorem 2.2), $d>K$, "
                 r"$\beta\gg{\mathrm{max}\{1,\lambda_{H}\}}$, and the representation of (5) that is given in (6). Let "
                 r"$\mathbf{H}_{0}$ be a collapse features matrix (minimizer of (1) for the same "
                 r"$\lambda_{H},\lambda_{W}$ as in (2)). Then, for $k,\tilde{k}\in[K]$ with $k\neq\tilde{k}$ we have "
                 r"that $\mathbf{F}_{k,k}$ is full rank, $\mathbf{F}_{k,\tilde{k}}$ is rank-1, and"),
        ("math", r"\sigma_{max}(\mathbf{F}_{k,k})=1,"),
        ("math", r"\sigma_{min}(\mathbf{F}_{k,k})=1-\beta^{-1}\sqrt{\lambda_{H}/\lambda_{W}},"),
        ("math", r"\sigma_{max}(\mathbf{F}_{k,\tilde{k}})=2\beta^{-1}\lambda_{H}(1-\sqrt{\lambda_{H}\lambda_{W}})."),
    ]),
    "N-thmC.2": ("Theorem C.2 and its proof", [
        ("text", r"Let $\mathbf{H}^{*}$ be the minimizer of problem (2) for a predefined $\mathbf{H}_{0}$. For "
                 r"$\beta>11\lambda_{H}$ and $\lambda_{W}\lambda_{H}<1$, the map $\mathbf{H}_{0}\mapsto\mathbf{H}^{*}$ "
                 r"is $(1-\frac{11\lambda_{H}}{\beta})^{-1}$-Lipschitz."),
        ("text", r"We first show that $\nabla\mathcal{L}$ is $\frac{11\lambda_{H}}{Kn}$-Lipschitz."),
    ]),
}

#: registry formulas of a claim beyond the ones named after it (``NAME`` or ``NAME-...``)
EXTRA_FORMULAS = {"N-thm4.1-nc1": ["N-dT"], "N-thm4.1-B": ["N-dT"], "N-cor4.2": ["N-dT"]}


def _kron_sizes(d: int = 4, K: int = 2, n: int = 3) -> dict:
    """Sizes of both sides of the App. D typo at one instance, computed (numpy.kron) rather than typed."""
    import numpy as np

    typed = np.kron(np.kron(np.eye(K), np.ones((1, n))), np.eye(d)).shape
    return {"d": d, "K": K, "n": n, "typed": typed, "residual": (K, K * n)}


def _class_columns(k: int = 2, K: int = 3, n: int = 2, d: int = 4) -> dict:
    """1-based column range of class ``k`` in H (from the labels :math:`Y` of
    :func:`verify.numeric.perturbation.labels`) and the range the paper's text gives."""
    import numpy as np

    from ..numeric.perturbation import labels

    cols = np.flatnonzero(labels(K, n)[k - 1] == 1) + 1  # Y = I_K kron 1_n^T: row k marks the columns of class k
    return {"k": k, "K": K, "n": n, "d": d, "columns": (int(cols[0]), int(cols[-1])),
            "paper": (d * n * (k - 1) + 1, d * n * K), "n_columns_of_H": K * n}


def typos() -> list[dict]:
    """The typos: ``{"paper", "where", "quote" (paper LaTeX, verbatim), "correction" (LaTeX), "why", "claims"}``."""
    sz = _kron_sizes()
    cc = _class_columns()
    return [
        {"paper": "N", "where": "Sec. 5, Remark after Theorem 5.2 (also App. D.1)",
         "quote": r"as visualized in Figure 2 for $\beta=100,K=4,d=10,n=10,\lambda_{W}=\sqrt{2}$ and various values of "
                  r"$\lambda_{H}$",
         "correction": "Figure 1",
         "why": r"the spectrum of $\mathbf{F}_{k,k}$ is Figure 1 (caption: ``The effect of $\lambda_{H}$ on the "
                r"spectrum of $\mathbf{F}_{k,k}$''); Figure 2 is the layer-wise MLP experiment. App. D.1 repeats it: "
                r"``the configurations that have been used in Figure 2''.",
         "claims": ["N-fig1"]},
        {"paper": "N", "where": "Sec. 5, definition of the blocks of (6)",
         "quote": r"$\delta\mathbf{H}^{(k)}:=\delta\mathbf{H}[:,dn(k-1)+1:dnK]\in\mathbb{R}^{d\times n}$",
         "correction": r"$\delta\mathbf{H}^{(k)}:=\delta\mathbf{H}[:,n(k-1)+1:nk]\in\mathbb{R}^{d\times n}$",
         "why": (r"$\delta\mathbf{H}\in\mathbb{R}^{d\times Kn}$ has $Kn$ columns, $n$ per class; e.g. for "
                 rf"$K={cc['K']}, n={cc['n']}, d={cc['d']}$ class $k={cc['k']}$ is columns "
                 rf"${cc['columns'][0]}..{cc['columns'][1]}$ of ${cc['n_columns_of_H']}$, the text's range is "
                 rf"${cc['paper'][0]}..{cc['paper'][1]}$ (the range $dn(k-1)+1:dnk$ indexes the entries of "
                 r"$\mathrm{vec}(\delta\mathbf{H})$, not columns)."),
         "claims": ["N-thm5.2"]},
        {"paper": "N", "where": "App. D, proof of Theorem 5.2",
         "quote": r"$\mathbf{W}^{*}\mathbf{H}^{*}-\mathbf{Y}=-c\mathbf{I}_{K}\otimes\mathbf{1}_{n}^{\top}\otimes"
                  r"\mathbf{I}_{d}$",
         "correction": r"$\mathbf{W}^{*}\mathbf{H}^{*}-\mathbf{Y}=-c\,\mathbf{I}_{K}\otimes\mathbf{1}_{n}^{\top}"
                       r"=-c\mathbf{Y}$",
         "why": (r"$\mathbf{W}^{*}\mathbf{H}^{*}-\mathbf{Y}$ is $K\times Kn$, the right-hand side $Kd\times Knd$ (for "
                 rf"$d={sz['d']}, K={sz['K']}, n={sz['n']}$: ${sz['typed'][0]}\times{sz['typed'][1]}$ against "
                 rf"${sz['residual'][0]}\times{sz['residual'][1]}$); the factor $\otimes\mathbf{{I}}_{{d}}$ belongs "
                 r"to $\mathbf{E}^{*\top}=\mathbf{K}_{d,K}(-c\mathbf{I}_{K}\otimes\mathbf{1}_{n}^{\top}\otimes"
                 r"\mathbf{I}_{d})$ two lines below."),
         "claims": ["N-D-residual"]},
    ]


def _formulas_for(cid: str, formulas: dict | None) -> list:
    """Registry formulas of a claim: ``[(name, description, latex)]``."""
    if formulas is None:
        from ..latex import formulas as registry

        table = registry()
        names = [n for n in table if n == cid or n.startswith(cid + "-")] + EXTRA_FORMULAS.get(cid, [])
        out = []
        for n in names:
            try:
                out.append((n, table[n].description, table[n].latex()))
            except Exception as exc:  # a formula that fails to derive is reported, not fatal to the errata
                out.append((n, f"could not be derived: {type(exc).__name__}: {exc}", None))
        return out
    return [(n, desc, tex) for n, (desc, tex) in formulas.items() if n == cid or n.startswith(cid + "-")
            or n in EXTRA_FORMULAS.get(cid, [])]


def _flat(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Nested dicts as ``(a / b, leaf)`` pairs (leaves: scalars and lists, kept exactly as recorded)."""
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            out += _flat(v, f"{prefix} / {k}" if prefix else str(k))
        return out
    return [(prefix or "value", value)]


def _exact(v: Any) -> str:
    """A recorded value with all its digits: floats by ``repr`` (round-trip exact), lists element by element."""
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else str(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_exact(x) for x in v) + "]"
    return str(v)


def _sections(doc: dict, paper: str | None) -> list[tuple[str, list]]:
    papers = [paper] if paper else list(PAPERS)
    return [(p, [r for r in refuted_by_severity(doc.get("claims", [])) if r["paper"] == p and r["verdict"] == "refuted"])
            for p in papers]


# --------------------------------------------------------------------------- LaTeX
_PREAMBLE = r"""\documentclass[10pt]{article}
\usepackage[margin=2cm]{geometry}
\usepackage{amsmath,amssymb}
\usepackage{longtable}
\allowdisplaybreaks
\newcommand{\Tr}{\operatorname{Tr}}
\setlength{\parindent}{0pt}
\setlength{\parskip}{4pt}
\begin{document}
"""


def _tex_escape(text: str) -> str:
    """Text for LaTeX: the specials escaped, and < > | as their text symbols (in the default OT1 encoding the
    characters themselves print as other glyphs)."""
    return (_latex_escape(text).replace("<", r"\textless{}").replace(">", r"\textgreater{}")
            .replace("|", r"\textbar{}"))


def _tt(text: str) -> str:
    """Monospace text that may break after commas, ``::`` and ``/`` (long lists of exact numbers, node ids)."""
    return r"\texttt{" + (_tex_escape(text).replace(", ", r",\allowbreak{} ").replace("::", r"::\allowbreak{}")
                          .replace("/", r"/\allowbreak{}")) + "}"


def _latex_table(value: Any) -> str:
    rows = _flat(value)
    body = "\n".join(f"{_tt(k)} & {_tt(_exact(v))} \\\\" for k, v in rows)
    return "\\begin{longtable}{@{}p{0.3\\linewidth}p{0.66\\linewidth}@{}}\n" + body + "\n\\end{longtable}"


def _latex_quote(cid: str, row: dict) -> str:
    if cid in PAPER_TEXT:
        where, parts = PAPER_TEXT[cid]
        body = "\n".join(f"\\[ {s} \\]" if kind == "math" else s for kind, s in parts)
        return f"\\textbf{{As the paper states it}} ({_tex_escape(where)}):\n\\begin{{quote}}\n{body}\n\\end{{quote}}"
    return (f"\\textbf{{The statement}} ({_tex_escape(row['where'])}; in our words, no quote stored):\n"
            f"\\begin{{quote}}\n{_tex_escape(row['statement'])}\n\\end{{quote}}")


def _latex_formula(tex: str) -> str:
    items = [t.strip() for t in tex.split("\\\\\n") if t.strip()]
    return "\\begin{gather*}\n" + " \\\\\n".join(items) + "\n\\end{gather*}"


def errata_latex(doc: dict, paper: str | None = None, formulas: dict | None = None) -> str:
    """The errata as a LaTeX document. ``formulas``: ``{name: (description, latex)}`` to use instead of the registry
    (tests; ``None`` derives them)."""
    out = [_PREAMBLE, r"\section*{Errata found by \texttt{verify}}",
           _tex_escape(doc.get("headline", "")) + ".",
           "Each refuted claim is checked as the paper states it; the counterexample's numbers are those the check "
           "recorded, and the corrected statement has its own check."]
    for p, rows in _sections(doc, paper):
        out.append(f"\\section{{Paper {p}: {_tex_escape(PAPERS[p])}}}")
        if not rows:
            out.append("No refuted claim in this report.")
        for r in rows:
            ev = r.get("evidence") or {}
            out.append(f"\\subsection{{\\texttt{{{_tex_escape(r['id'])}}} ({_tex_escape(r['where'])}): "
                       f"{_tex_escape(r.get('severity') or 'refuted')}}}")
            out.append(_latex_quote(r["id"], r))
            if "counterexample" in ev:
                out.append("\\textbf{Counterexample} (exact recorded values):\n" + _latex_table(ev["counterexample"]))
            if r.get("justification"):
                out.append(f"\\textbf{{Why {_tex_escape(r.get('severity') or '')}}}:\n" + _latex_table(r["justification"]))
            out.append("\\textbf{Corrected statement}: " + (_tex_escape(str(ev["corrected"])) if ev.get("corrected")
                                                             else "none recorded."))
            for name, desc, tex in _formulas_for(r["id"], formulas):
                out.append(f"Derived formula \\texttt{{{_tex_escape(name)}}} ({_tex_escape(desc)}):")
                if tex:
                    out.append(_latex_formula(tex))
            fixes = correction_checks(r)
            out.append("\\textbf{Checked by}: " + (", ".join(_tt(c) for c in fixes) if fixes else
                                                   "no check of a corrected statement in this report."))
    out.append(r"\section{Typos}")
    out.append(r"\begin{itemize}")
    rows = {r["id"]: r for r in doc.get("claims", [])}
    for t in typos():
        if paper and t["paper"] != paper:
            continue
        checks = [c["check"] for cid in t["claims"] for c in rows.get(cid, {}).get("checks", [])
                  if c.get("outcome") == "passed"]
        out.append(f"\\item Paper {t['paper']}, {_tex_escape(t['where'])}: ``{t['quote']}'' should read "
                   f"``{t['correction']}''. {t['why']}" +
                   (" Checked by " + ", ".join(_tt(c) for c in checks) + "." if checks else ""))
    out.append(r"\end{itemize}")
    out.append(r"\end{document}")
    return "\n\n".join(out) + "\n"


# --------------------------------------------------------------------------- Markdown
def _md_value(v: Any) -> str:
    return "`" + _exact(v).replace("`", "'") + "`"


def _md_table(value: Any) -> list[str]:
    esc = lambda s: str(s).replace("|", "\\|")
    return ["| field | value |", "|---|---|"] + [f"| {esc(k)} | {esc(_md_value(v))} |" for k, v in _flat(value)]


def errata_markdown(doc: dict, paper: str | None = None, formulas: dict | None = None) -> str:
    """The errata as Markdown (math in ``$...$`` and ``$$...$$``, as GitHub renders it)."""
    out = ["# Errata found by `verify`", "", doc.get("headline", ""), ""]
    for p, rows in _sections(doc, paper):
        out += [f"## Paper {p}: {PAPERS[p]}", ""]
        if not rows:
            out += ["No refuted claim in this report.", ""]
        for r in rows:
            ev = r.get("evidence") or {}
            out += [f"### `{r['id']}` ({r['where']}): {r.get('severity') or 'refuted'}", ""]
            if r["id"] in PAPER_TEXT:
                where, parts = PAPER_TEXT[r["id"]]
                out += [f"**As the paper states it** ({where}):", ""]
                for kind, s in parts:
                    out += ([f"> $${s}$$"] if kind == "math" else [f"> {s}"]) + [">"]
                out[-1] = ""
            else:
                out += [f"**The statement** ({r['where']}; in our words, no quote stored): {r['statement']}", ""]
            if "counterexample" in ev:
                out += ["**Counterexample** (exact recorded values):", ""] + _md_table(ev["counterexample"]) + [""]
            if r.get("justification"):
                out += [f"**Why {r.get('severity')}:**", ""] + _md_table(r["justification"]) + [""]
            out += [f"**Corrected statement:** {ev.get('corrected') or 'none recorded.'}", ""]
            for name, desc, tex in _formulas_for(r["id"], formulas):
                out += [f"Derived formula `{name}` ({desc}):", ""]
                if tex:
                    out += ["$$\\begin{gathered}", tex, "\\end{gathered}$$", ""]
            fixes = correction_checks(r)
            out += ["**Checked by:** " + (", ".join(f"`{c}`" for c in fixes) if fixes else
                                          "no check of a corrected statement in this report."), ""]
    out += ["## Typos", ""]
    rows = {r["id"]: r for r in doc.get("claims", [])}
    for t in typos():
        if paper and t["paper"] != paper:
            continue
        checks = [c["check"] for cid in t["claims"] for c in rows.get(cid, {}).get("checks", [])
                  if c.get("outcome") == "passed"]
        out.append(f"* Paper {t['paper']}, {t['where']}: “{t['quote']}” should read “{t['correction']}”. "
                   f"{t['why'].replace('``', '“').replace(chr(39) * 2, '”')}" +
                   (" Checked by " + ", ".join(f"`{c}`" for c in checks) + "." if checks else ""))
    return "\n".join(out) + "\n"
