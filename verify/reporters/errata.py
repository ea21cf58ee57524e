r"""The errata reporter (``verify errata``): per paper, every refuted claim, most serious first, and the typos.

For each refuted claim of the report document: the statement as the paper writes it (quoted in the paper's own
LaTeX, :data:`PAPER_TEXT`; our words where no quote is stored), the severity and a one-sentence finding (what fails,
by how much, :func:`~verify.reporters._common.finding`), the counterexample as a short table (fields named as
mathematics, :func:`~verify.reporters._common.label_parts`, a nested record's name once above its fields; integers
and exact fractions as recorded, floats to 4 significant digits, matrices by their shape: the full record and the
recorded keys stay in the JSON report), the corrected statement typeset from sympy objects (:data:`CORRECTED`; the recorded text, escaped, for a
statement not in that table), the derived formulas of the registry (:func:`verify.latex.formulas`), and the pytest
node ids of the checks of the corrected statement (``corrected=True``). Then the typos found while checking
(:func:`typos`; "none found" when a paper has none). Output: a LaTeX document that pdflatex compiles (amsmath,
amssymb, geometry, longtable) or Markdown. Text goes through pylatexenc's encoder
(:func:`verify.latex.tex_escape`), math through sympy's printer (:func:`verify.latex.to_latex`).

The quotes are the papers' text, not numbers: ``tests/test_errata.py`` checks each against the paper's text when
``shared/papers`` is at hand.

>>> doc = {"claims": [], "beyond": [], "summary": {}, "severity": {}, "headline": "0 claims"}
>>> "\\begin{document}" in errata_latex(doc, formulas={})
True
"""

from __future__ import annotations

from typing import Any

import sympy

from ..claims import PAPERS
from ..latex import tex_escape
from ._common import correction_checks, finding, grouped_fields, label_latex, markdown_fields, refuted_by_severity

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
    "N-thm5.1": ("Theorem 5.1", [
        ("text", r"Let $d\geq K$, and set some $\mathbf{H}_{0}$ and $\delta\mathbf{H}_{0}$. Let "
                 r"$(\hat{\mathbf{W}}^{*},\hat{\mathbf{H}}^{*})$ be the minimizer of "
                 r"$f(\mathbf{W},\mathbf{H};\mathbf{H}_{0})$ "
                 r"(with $f$ stated in (2)). Let $(\tilde{\mathbf{W}}^{*},\tilde{\mathbf{H}}^{*})$ be the minimizer of "
                 r"$f(\mathbf{W},\mathbf{H};\tilde{\mathbf{H}}_{0}=\mathbf{H}_{0}+\delta\mathbf{H}_{0})$. Define "
                 r"$\delta\mathbf{H}:=\tilde{\mathbf{H}}^{*}-\hat{\mathbf{H}}^{*}$. Then, for "
                 r"$\beta\gg{\mathrm{max}\{1,\lambda_{H}\}}$, with approximation accuracy of "
                 r"$O(\beta^{-2},\|\delta\mathbf{H}_{0}\|^{2})$, we have that"),
        ("math", r"\mathrm{vec}(\delta\mathbf{H})\approx\mathbf{F}~\mathrm{vec}(\delta\mathbf{H}_{0}),"),
        ("text", "with"),
        ("math", r"\mathbf{F}=\mathbf{I}_{dnK}-\frac{\lambda_{H}}{\beta}\mathbf{I}_{dnK}-\frac{1}{\beta}\mathbf{I}_{nK}"
                 r"\otimes\hat{\mathbf{W}}^{*\top}\hat{\mathbf{W}}^{*}+\frac{1}{\beta}\mathbf{Z}^{*},"),
    ]),
    "N-thmC.1": ("Theorem C.1", [
        ("text", r"Let $d\geq K$, and set some $\mathbf{H}_{0}$ and $\delta\mathbf{H}_{0}$. Let "
                 r"$(\hat{\mathbf{W}}^{*},\hat{\mathbf{H}}^{*})$ be the minimizer of "
                 r"$f(\mathbf{W},\mathbf{H};\mathbf{H}_{0})$ "
                 r"(with $f$ stated in (2)). Let $(\tilde{\mathbf{W}}^{*},\tilde{\mathbf{H}}^{*})$ be the minimizer of "
                 r"$f(\mathbf{W},\mathbf{H};\tilde{\mathbf{H}}_{0}=\mathbf{H}_{0}+\delta\mathbf{H}_{0})$. Define "
                 r"$\delta\mathbf{W}:=\tilde{\mathbf{W}}^{*}-\hat{\mathbf{W}}^{*}$ and "
                 r"$\delta\mathbf{H}:=\tilde{\mathbf{H}}^{*}-\hat{\mathbf{H}}^{*}$. Then, with approximation accuracy of "
                 r"$O(\|\delta\mathbf{H}\|^{2},\|\delta\mathbf{W}\|^{2},\|\delta\mathbf{H}_{0}\|^{2})$, we have that"),
        ("math", r"\mathrm{vec}(\delta\mathbf{H})\approx\mathbf{F}~\mathrm{vec}(\delta\mathbf{H}_{0}),"),
        ("math", r"\mathrm{vec}(\delta\mathbf{W})\approx-(\nabla_{W}^{\top}\nabla_{W}f)^{-1}\nabla_{H}^{\top}\nabla_{W}f~"
                 r"\mathbf{F}~\mathrm{vec}(\delta\mathbf{H}_{0}),"),
        ("text", "where"),
        ("math", r"\mathbf{F}=\frac{\beta}{Kn}\left(\nabla_{H}^{\top}\nabla_{H}f-\nabla_{W}^{\top}\nabla_{H}f"
                 r"(\nabla_{W}^{\top}\nabla_{W}f)^{-1}\nabla_{H}^{\top}\nabla_{W}f\right)^{-1}"),
        ("text", r"and all the derivatives of $f$ are evaluated at the point "
                 r"$(\hat{\mathbf{W}}^{*},\hat{\mathbf{H}}^{*};\mathbf{H}_{0})$."),
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



# --------------------------------------------------------------------------- corrected statements, typeset
def _symbols() -> dict:
    pos = dict(positive=True)
    return {"lH": sympy.Symbol("lambda_H", **pos), "lW": sympy.Symbol("lambda_W", **pos),
            "beta": sympy.Symbol("beta", **pos), "K": sympy.Symbol("K", integer=True, positive=True),
            "n": sympy.Symbol("n", integer=True, positive=True), "d": sympy.Symbol("d", integer=True, positive=True),
            "t": sympy.Symbol("t", nonnegative=True)}


def _named(tex: str, commutative: bool = True) -> sympy.Symbol:
    r"""A symbol that prints as ``tex`` (through :data:`_NAMES`): an opaque quantity of the papers (a supremum, a
    trace, a singular value) inside a sympy relation; ``commutative=False`` for a matrix or vector, so that a product
    prints in its order (:math:`\mathbf{F}\operatorname{vec}(\delta\mathbf{H}_0)`)."""
    import hashlib

    sym = sympy.Symbol("q" + hashlib.sha256(tex.encode()).hexdigest()[:12],  # the same name in every process
                       commutative=commutative)
    _NAMES[sym] = tex
    return sym


_NAMES: dict = {}


class _MaxOver(sympy.Function):
    r""":math:`\max_{i} f(x_i)`: the largest value of ``args[1]`` over the index ``args[0]`` (sympy's ``Max`` takes
    its arguments one by one)."""

    nargs = 2

    def _latex(self, printer):
        return rf"\max_{{{printer._print(self.args[0])}}} {printer._print(self.args[1])}"


def _perturbation_parts(S: dict, lip_branches) -> dict:
    r"""The corrected Theorems C.1 and 5.1 of paper N: both need the minimiser's Schur complement
    :math:`\mathbf{I} + \mathbf{M}/\beta` nonsingular (5.1: the Neumann series' range :math:`\beta > \|\mathbf{M}\|`),
    which the sharp constant of Theorem C.2 (``lip_branches``, its two branches) gives for every
    :math:`\mathbf{H}_0`."""
    lH, lW, beta, K, n = (S[k] for k in ("lH", "lW", "beta", "K", "n"))
    M = _named(r"\mathbf{M}", commutative=False)
    hess = _named(r"\nabla^{2}\mathcal{L}(\mathbf{H}^{*})", commutative=False)
    F, F5, E = (_named(t, commutative=False) for t in (r"\mathbf{F}", r"\mathbf{F}_{(5)}", r"\mathbf{E}"))
    v, v0 = (_named(t, commutative=False) for t in (r"\operatorname{vec}(\delta\mathbf{H})",
                                                  r"\operatorname{vec}(\delta\mathbf{H}_{0})"))
    dH, dH0, H0 = _named(r"\|\delta\mathbf{H}\|"), _named(r"\|\delta\mathbf{H}_{0}\|"), _named(r"\mathbf{H}_{0}")
    Mop, Eop = _named(r"\|\mathbf{M}\|_{\mathrm{op}}"), _named(r"\|\mathbf{E}\|_{\mathrm{op}}")
    i, xi, x = sympy.Symbol("i"), sympy.Symbol("x_i", positive=True), sympy.Symbol("x", positive=True)
    eig, eig_min = _named(r"\lambda_{i}(\mathbf{M})"), _named(r"\lambda_{\min}(\mathbf{M})")
    rem = sympy.O(dH0**2)
    m_def = sympy.Eq(M, K * n * hess, evaluate=False)
    rho = 1 / lW - lH
    return {
        "N-thmC.1": ("if the Schur complement is nonsingular at the minimiser", [
            "If the Schur complement is nonsingular at the minimiser, i.e.\\ $\\mathbf{I} + \\mathbf{M}/\\beta$ is "
            "positive definite:", sympy.Gt(eig_min, -beta, evaluate=False), "with", m_def,
            "(true for every $\\mathbf{H}_{0}$ when", sympy.Gt(beta, rho, evaluate=False),
            ", and at every collapsed $\\mathbf{H}_{0}$), then",
            ("display", sympy.Eq(v, F * v0 + rem, evaluate=False)),
            "and the formula for $\\delta\\mathbf{W}$ holds. At a singular one $\\delta\\mathbf{H}$ is not linear in "
            "$\\delta\\mathbf{H}_{0}$:", dH, "is of the order of", sympy.Pow(dH0, sympy.Rational(1, 3)), "at",
            sympy.Eq(H0, 0, evaluate=False), ",", sympy.Eq(beta, rho, evaluate=False), "."]),
        "N-thm5.1": ("if beta > |M|_op at the minimiser", [
            "If", sympy.Gt(beta, Mop, evaluate=False), "at the minimiser, with", m_def, "(implied for every "
            "$\\mathbf{H}_{0}$ by", sympy.Gt(beta, sympy.Max(*lip_branches), evaluate=False), "; at a collapsed "
            "$\\mathbf{H}_{0}$,", sympy.Eq(Mop, sympy.sqrt(lH / lW), evaluate=False), "), then",
            ("display", sympy.Eq(v, F5 * v0 + E * v0 + rem, evaluate=False)), "with",
            ("display", sympy.Eq(Eop, _MaxOver(i, xi**2 / (1 + xi)), evaluate=False)),
            ("display", sympy.Le(Eop, Mop**2 / (beta * (beta - Mop)), evaluate=False)),
            "where", sympy.Eq(xi, eig / beta, evaluate=False), "; at a collapsed $\\mathbf{H}_{0}$,",
            sympy.Eq(Eop, x**2 / (1 + x), evaluate=False), "with", sympy.Eq(x, sympy.sqrt(lH / lW) / beta,
                                                                           evaluate=False), "."]),
    }


def corrected_parts() -> dict:
    r"""The corrected statements of the refuted claims as the checks record them, built from sympy objects:
    ``{claim: (fingerprint, parts)}``. ``fingerprint`` is the start of the ``corrected`` text the check records (the
    typeset form is used only when the recorded text starts with it, so a changed check never gets a stale
    statement); ``parts`` are LaTeX text (``str``), inline relations (sympy objects) and display relations
    (``("display", obj)``). ``tests/test_errata.py`` checks the fingerprints against the checks' source and the
    relations against the registry's derived formulas."""
    S = _symbols()
    lH, lW, beta, K, n, d, t = (S[k] for k in ("lH", "lW", "beta", "K", "n", "d", "t"))
    sup_L = _named(r"\sup_{W}\tilde{\mathcal{L}}(W)")
    mean_term = _named(r"\mathbb{E}_{b}\,\|\mathbb{E}\,x_{S}\|^{2}")
    mean_xi = _named(r"\mathbb{E}_{\nu}\,\xi")
    SB0 = _named(r"\boldsymbol{\Sigma}_{B}(\mathbf{H}_{0})")
    TrB = _named(r"\operatorname{Tr}\boldsymbol{\Sigma}_{B}(\mathbf{H}_{t})")
    TrW = _named(r"\operatorname{Tr}\boldsymbol{\Sigma}_{W}(\mathbf{H}_{t})")
    nc1_t = _named(r"\widetilde{NC}_{1}(\mathbf{H}_{t})")
    nc1_b = _named(r"\widetilde{NC}_{1}(\mathbf{H}_{1/\beta})")
    nc1_0 = _named(r"\widetilde{NC}_{1}(\mathbf{H}_{0})")
    C = _named(r"C(\mathbf{H}_{0})")
    lip_grad = _named(r"\operatorname{Lip}(\nabla\mathcal{L})")
    lip_map = _named(r"\operatorname{Lip}(\mathbf{H}_{0}\mapsto\mathbf{H}^{*})")
    smax, smin = _named(r"\sigma_{\max}(\mathbf{F}_{k,k})"), _named(r"\sigma_{\min}(\mathbf{F}_{k,k})")
    smax_off = _named(r"\sigma_{\max}(\mathbf{F}_{k,\tilde{k}})")
    C3 = K + K**3
    rho = sympy.Symbol("rho")
    c_lip = 10 / lW + lH
    nonzero = sympy.Ne(SB0, 0, evaluate=False)
    lip_branches = (1 / lW - lH, lH + 1 / (4 * lW))  # Kn Lip(grad L) = max of these (sharp Thm C.2)
    return {
        **_perturbation_parts(S, lip_branches),
        "S-thm3.2": ("Theorem 3.2 holds with C_3 = K + K^3 when nu is centred", [
            "If $\\nu$ is centred,", sympy.Eq(mean_xi, 0, evaluate=False),
            "(e.g.\\ symmetric, as in Theorem 2.2(2)), then", ("display", sympy.Le(sup_L, C3 * d, evaluate=False)),
            "and for every $(K^{-1},K)$-strongly log-concave $\\nu$",
            ("display", sympy.Le(sup_L, mean_term + C3 * d, evaluate=False))]),
        "N-thm4.1-B": ("e^{2 lH t} Tr Sigma_B(H_t) strictly increases if moreover", [
            "Under the hypotheses of Theorem 4.1 and moreover", nonzero, "(class means not all equal),",
            sympy.Mul(sympy.exp(2 * lH * t), TrB, evaluate=False), "strictly increases along the flow (with $\\boldsymbol{\\Sigma}_{B}"
            "(\\mathbf{H}_{0}) = 0$ it is the constant $0$)."]),
        "N-thm4.1-nc1": ("NC1~(H_t) strictly decreases if moreover", [
            "Under the hypotheses of Theorem 4.1 and moreover", nonzero, "(class means not all equal),",
            sympy.Eq(nc1_t, TrW / TrB, evaluate=False),
            "strictly decreases along the flow until it reaches zero (with $\\boldsymbol{\\Sigma}_{B}(\\mathbf{H}_{0})"
            " = 0$ the ratio is undefined for every $t$)."]),
        "N-cor4.2": ("NC1~(H_{1/beta}) < NC1~(H0) for beta > C(H0) if moreover", [
            "If moreover", nonzero, ", there is a constant", sympy.Gt(C, 0, evaluate=False), "such that for",
            sympy.Gt(beta, C, evaluate=False), ("display", sympy.Lt(nc1_b, nc1_0, evaluate=False))]),
        "N-thmC.2": ("sharp: grad L is Lip-Lipschitz with Kn Lip = max{1/lam_W - lam_H, lam_H + 1/(4 lam_W)}", [
            "For every $\\lambda_{W}, \\lambda_{H} > 0$, $\\nabla\\mathcal{L}$ is Lipschitz with the sharp constant",
            ("display", sympy.Eq(K * n * lip_grad, sympy.Max(*lip_branches), evaluate=False)),
            "(attained along the class-mean direction: the first branch at $\\mathbf{H} = 0$, the second at the collapsed $\\mathbf{H} = \\sqrt{\\lambda_{W}}\\,R\\otimes\\mathbf{1}^{T}$). With", sympy.Eq(rho, 1 / lW - lH, evaluate=False),
            ", for", sympy.Gt(beta, sympy.Max(rho, 0), evaluate=False), "the map $\\mathbf{H}_{0}\\mapsto\\mathbf{H}^{*}$ "
            "is Lipschitz with", ("display", sympy.Eq(lip_map, sympy.Pow(1 - rho / beta, -1, evaluate=False),
                                                      evaluate=False)),
            "(attained at $\\mathbf{H}_{0} = 0$); for", sympy.Lt(beta, rho, evaluate=False), "it is set-valued and "
            "discontinuous at $\\mathbf{H}_{0} = 0$, and at", sympy.Eq(beta, rho, evaluate=False),
            "only H\\\"older-$1/3$ there. Theorem C.2 as written holds if and only if",
            sympy.Le(sympy.Rational(1, 12), lH * lW, evaluate=False), "and", sympy.Lt(lH * lW, 1, evaluate=False),
            ". (The proof's own chain gives the true but about ten times looser",
            sympy.Le(lip_grad, c_lip / (K * n), evaluate=False), ".)"]),
        "N-thm5.2": ("for n >= 2, d > K, lam_H lam_W < 1 and beta > sqrt(lam_H/lam_W)", [
            "For", sympy.Ge(n, 2, evaluate=False), ",", sympy.Gt(d, K, evaluate=False), ",",
            sympy.Lt(lH * lW, 1, evaluate=False), "and", sympy.Gt(beta, sympy.sqrt(lH / lW), evaluate=False),
            ": $\\mathbf{F}_{k,k}$ is full rank with",
            ("display", sympy.Eq(smax, 1, evaluate=False)),
            ("display", sympy.Eq(smin, 1 - sympy.sqrt(lH / lW) / beta, evaluate=False)),
            "and, for every $\\beta > 0$, $\\mathbf{F}_{k,\\tilde{k}}$ is rank 1 with",
            ("display", sympy.Eq(smax_off, 2 * lH * (1 - sympy.sqrt(lH * lW)) / beta, evaluate=False))]),
    }


def _math(obj: Any) -> str:
    from ..latex import ORDER, _Printer

    return _Printer({"order": ORDER, "symbol_names": dict(_NAMES)}).doprint(obj)


def corrected_latex(row: dict) -> tuple[str, bool]:
    """The corrected statement of a refuted row as LaTeX (text mode, math inline and displayed): typeset from
    :func:`corrected_parts` when the recorded text matches its fingerprint, else the recorded text escaped.
    Returns ``(latex, typeset)``."""
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
    :func:`~verify.reporters.mathtex.formula_tex`: the page and the errata of both papers and of each alone share
    it)."""
    from .mathtex import formula_tex

    (e,) = formula_tex([name])
    if "error" in e:  # a formula that fails to derive is reported, not fatal to the errata
        return name, f"could not be derived: {e['error']}", None
    return name, e["description"], " \\\\\n".join(e["tex"])


def _sections(doc: dict, paper: str | None) -> list[tuple[str, list]]:
    papers = [paper] if paper else list(PAPERS)
    return [(p, [r for r in refuted_by_severity(doc.get("claims", [])) if r["paper"] == p and r["verdict"] == "refuted"])
            for p in papers]


def _typos_for(doc: dict, paper: str) -> list[tuple[dict, list]]:
    rows = {r["id"]: r for r in doc.get("claims", [])}
    return [(t, [c["check"] for cid in t["claims"] for c in rows.get(cid, {}).get("checks", [])
                 if c.get("outcome") == "passed"]) for t in typos() if t["paper"] == paper]


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


def _tt(text: str) -> str:
    """Monospace text that may break after ``::``, ``/`` and ``_`` (node ids)."""
    return r"\texttt{" + (tex_escape(text).replace("::", r"::\allowbreak{}").replace("/", r"/\allowbreak{}")
                          .replace(r"{\_}", r"{\_}\allowbreak{}")) + "}"


def _latex_table(value: Any) -> str:
    """A recorded dict as a short two-column table (:func:`~verify.reporters._common.grouped_fields`): fields by
    :func:`~verify.reporters._common.label_latex`, a group's name once in italics, its fields indented."""
    body, group = [], None
    for g, k, v in grouped_fields(value):
        if g is not None and g != group:
            body.append(r"\multicolumn{2}{@{}l@{}}{\textit{" + label_latex(g) + r"}} \\")
        group = g
        body.append((r"\quad " if g is not None else "") + f"{label_latex(k)} & {tex_escape(v)} " + r"\\")
    body = "\n".join(body)
    return "\\begin{longtable}{@{}p{0.34\\linewidth}p{0.62\\linewidth}@{}}\n" + body + "\n\\end{longtable}"


def _latex_quote(cid: str, row: dict) -> str:
    if cid in PAPER_TEXT:
        where, parts = PAPER_TEXT[cid]
        body = "\n".join(f"\\[ {s} \\]" if kind == "math" else s for kind, s in parts)
        return f"\\textbf{{As the paper states it}} ({tex_escape(where)}):\n\\begin{{quote}}\n{body}\n\\end{{quote}}"
    return (f"\\textbf{{The statement}} ({tex_escape(row['where'])}; in our words, no quote stored):\n"
            f"\\begin{{quote}}\n{tex_escape(row['statement'])}\n\\end{{quote}}")


def _latex_formula(tex: str) -> str:
    items = [t.strip() for t in tex.split("\\\\\n") if t.strip()]
    return "\\begin{gather*}\n" + " \\\\\n".join(items) + "\n\\end{gather*}"


def errata_latex(doc: dict, paper: str | None = None, formulas: dict | None = None) -> str:
    """The errata as a LaTeX document. ``formulas``: ``{name: (description, latex)}`` to use instead of the registry
    (tests; ``None`` derives them)."""
    formulas = _saved_formulas(doc, formulas)
    out = [_PREAMBLE, r"\section*{Errata found by \texttt{verify}}",
           tex_escape(doc.get("headline", "")) + ".",
           "Each refuted claim is checked as the paper states it. The counterexample shows integers and exact "
           "fractions as recorded and other numbers to 4 significant digits; every recorded digit is in the JSON "
           "report. The corrected statement has its own check."]
    for p, rows in _sections(doc, paper):
        out.append(f"\\section{{Paper {p}: {tex_escape(PAPERS[p])}}}")
        if not rows:
            out.append("No refuted claim in this report.")
        for r in rows:
            ev = r.get("evidence") or {}
            out.append(f"\\subsection{{\\texttt{{{tex_escape(r['id'])}}} ({tex_escape(r['where'])}): "
                       f"{tex_escape(r.get('severity') or 'refuted')}}}")
            out.append(_latex_quote(r["id"], r))
            line = finding(r)
            if line:
                out.append("\\textbf{Finding}: " + tex_escape(line[0].upper() + line[1:]))
            if "counterexample" in ev:
                out.append("\\textbf{Counterexample}:\n" + _latex_table(ev["counterexample"]))
            if r.get("justification"):
                out.append(f"\\textbf{{Why {tex_escape(r.get('severity') or '')}}}:\n" + _latex_table(r["justification"]))
            out.append("\\textbf{Corrected statement}: " + corrected_latex(r)[0])
            for name, desc, tex in _formulas_for(r["id"], formulas):
                out.append(f"Derived formula \\texttt{{{tex_escape(name)}}} ({tex_escape(desc)}):")
                if tex:
                    out.append(_latex_formula(tex))
            fixes = correction_checks(r)
            out.append("\\textbf{Checked by}: " + (", ".join(_tt(c) for c in fixes) if fixes else
                                                   "no check of a corrected statement in this report."))
        out.append(f"\\subsection*{{Typos in paper {p}}}")
        found = _typos_for(doc, p)
        if not found:
            out.append("None found.")
            continue
        out.append(r"\begin{itemize}")
        for t, checks in found:
            out.append(f"\\item {tex_escape(t['where'])}: ``{t['quote']}'' should read "
                       f"``{t['correction']}''. {t['why']}" +
                       (" Checked by " + ", ".join(_tt(c) for c in checks) + "." if checks else ""))
        out.append(r"\end{itemize}")
    out.append(r"\end{document}")
    return "\n\n".join(out) + "\n"


# --------------------------------------------------------------------------- Markdown
def errata_markdown(doc: dict, paper: str | None = None, formulas: dict | None = None) -> str:
    """The errata as Markdown (math in ``$...$`` and ``$$...$$``, as GitHub renders it)."""
    formulas = _saved_formulas(doc, formulas)
    out = ["# Errata found by `verify`", "", doc.get("headline", ""), "",
           "Counterexamples: integers and exact fractions as recorded, other numbers to 4 significant digits; every "
           "recorded digit is in the JSON report.", ""]
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
            line = finding(r)
            if line:
                out += [f"**Finding:** {line[0].upper() + line[1:]}", ""]
            if "counterexample" in ev:
                out += ["**Counterexample:**", ""] + markdown_fields(ev["counterexample"]) + [""]
            if r.get("justification"):
                out += [f"**Why {r.get('severity')}:**", ""] + markdown_fields(r["justification"]) + [""]
            out += [f"**Corrected statement:** {corrected_markdown(r)}", ""]
            for name, desc, tex in _formulas_for(r["id"], formulas):
                out += [f"Derived formula `{name}` ({desc}):", ""]
                if tex:
                    out += ["$$\\begin{gathered}", tex, "\\end{gathered}$$", ""]
            fixes = correction_checks(r)
            out += ["**Checked by:** " + (", ".join(f"`{c}`" for c in fixes) if fixes else
                                          "no check of a corrected statement in this report."), ""]
        out += [f"### Typos in paper {p}", ""]
        found = _typos_for(doc, p)
        if not found:
            out += ["None found.", ""]
        for t, checks in found:
            out.append(f"* {t['where']}: “{t['quote']}” should read “{t['correction']}”. "
                       f"{t['why'].replace('``', '“').replace(chr(39) * 2, '”')}" +
                       (" Checked by " + ", ".join(f"`{c}`" for c in checks) + "." if checks else ""))
        if found:
            out.append("")
    return "\n".join(out) + "\n"
