r"""Each claim's statement typeset: the words of :attr:`verify.claims.Claim.statement`, its mathematics as LaTeX.

:data:`TEX` maps a claim ID (every claim of :data:`~verify.claims.CLAIMS` and :data:`~verify.claims.BEYOND`) to the
statement as text with inline math ``$...$``, in the papers' notation (``$\tilde{\mathcal{L}}(W)$`` where the plain
statement writes ``Ltilde(W)``, ``$\lambda_{H}$`` for ``lam_H``). The plain statement stays the registry's (a terminal
prints it); the report document carries both (``statement``, ``statement_tex``), and each reporter typesets this one:
the HTML report as MathML, the Markdown report and the documentation site as ``$...$`` math, the errata as LaTeX.

So that one string serves LaTeX, Markdown and HTML alike, an entry is held to a grammar (:func:`problems`, checked
for every entry by ``tests/test_statement_texts.py``): the text between the math is plain words and punctuation
(none of ``\ _ ^ { } % & # ~ | < > " $``), the math is inline only and never holds ``|`` (a Markdown table's cell
separator: ``\lvert x \rvert``, ``\lVert A \rVert``, ``\mid``), and the words of the plain statement outside its
mathematics are all there.

>>> parts(r"If $A$ is diagonal, $\tilde{\mathcal{L}} = 0$.")
[('text', 'If '), ('math', 'A'), ('text', ' is diagonal, '), ('math', '\\tilde{\\mathcal{L}} = 0'), ('text', '.')]
"""

from __future__ import annotations

import re

__all__ = ["TEX", "parts", "problems", "TEXT_FORBIDDEN"]

#: characters the text between the math may not hold: markup in LaTeX or Markdown (and ``$``, which opens math)
TEXT_FORBIDDEN = set("\\_^{}%&#~|<>\"$")
_MATH = re.compile(r"\$([^$]*)\$")


def parts(tex: str) -> list[tuple[str, str]]:
    """``tex`` split into ``("text", words)`` and ``("math", latex)`` in reading order (empty text parts left out)."""
    out, pos = [], 0
    for m in _MATH.finditer(tex):
        if m.start() > pos:
            out.append(("text", tex[pos:m.start()]))
        out.append(("math", m.group(1)))
        pos = m.end()
    if pos < len(tex):
        out.append(("text", tex[pos:]))
    return out


def problems(tex: str) -> list[str]:
    """What breaks the grammar of an entry (empty when it holds): unbalanced ``$``, display math, markup in the text,
    ``|`` or surrounding spaces in the math (MyST and GitHub read ``$ x $`` as two dollars, not math)."""
    out = []
    if tex.count("$") % 2:
        out.append("an odd number of $")
    if "$$" in tex or "\\[" in tex or "\\(" in tex:
        out.append("display or \\( math: inline $...$ only")
    for kind, s in parts(tex):
        if kind == "text":
            bad = sorted(set(s) & TEXT_FORBIDDEN)
            if bad:
                out.append(f"markup {''.join(bad)!r} in the text {s.strip()!r}")
        else:
            if not s.strip():
                out.append("empty math")
            if "|" in s:
                out.append(f"'|' in the math {s!r} (\\lvert, \\rvert, \\lVert, \\rVert, \\mid)")
            if s != s.strip():
                out.append(f"spaces inside the dollars of {s!r}")
    return out


# the typeset statements, keyed by claim ID (registry order: paper S, paper N, the results beyond the papers); a
# plain comment, not a doc comment, so that the API reference does not print the whole table as the value
TEX: dict[str, str] = {
    # ---- paper S
    "S-eq6": (r"The reconstruction loss splits as $\mathcal{L}(W) = pn\mu_{2} - \tilde{\mathcal{L}}(W)$, so"
              r" minimising $\mathcal{L}$ is maximising $\tilde{\mathcal{L}}$."),
    "S-exact-loss": (r"For every odd $m$, $\tilde{\mathcal{L}}(W) = 2\mathbb{E}\langle x, \phi(Ax) \rangle "
                     r"- \mathbb{E}\left\lVert \phi(Ax) \right\rVert_{2}^{2}$ ($A = W^\top W$) is an "
                     r"explicit polynomial in $p$, the moments of $\mu$ and the entries of $A$; it matches "
                     r"Monte Carlo."),
    "S-eq9": (r"If $A$ is diagonal, $\tilde{\mathcal{L}} = p \cdot \sum_{i} \left(2\mu_{m+1} A_{ii}^{m} - "
              r"\mu_{2m} A_{ii}^{2m}\right)$."),
    "S-eq10": (r"Without superposition ($A$ diagonal, rank $\leqslant d$) the best $\tilde{\mathcal{L}}$ is"
               r" exactly $pd\mu_{m+1}^{2}/\mu_{2m}$, i.e. $\Theta(pd)$."),
    "S-linear": (r"With $\phi(t) = t$, $\tilde{\mathcal{L}} = p\mu_{2} \operatorname{tr}(2A - A^{2})$, at "
                 r"most $p\mu_{2} d$, with equality for rank-$d$ projections."),
    "S-tensor": (r"$\langle u, v \rangle^{m}$ equals the inner product of the $m$-fold tensor powers, which"
                 r" rewrites $\tilde{\mathcal{L}}$ through the matrix $C_{W}$."),
    "S-lemA.3": (r"The supremum over linear maps $C$ of $2\mathbb{E}\langle x, Cy \rangle - "
                 r"\mathbb{E}\left\lVert Cy \right\rVert_{2}^{2}$ equals $\operatorname{tr}(M "
                 r"\Sigma^{\dagger} M^\top)$, $M = \mathbb{E}[xy^\top]$, $\Sigma = \mathbb{E}[yy^\top]$."),
    "S-eq11": (r"$\mathcal{M}(W)$ equals the sum over eigen-directions of $\left\lVert \mathbb{E}[x \langle"
               r" y, u_{i} \rangle] \right\rVert_{2}^{2} / \lambda_{i}$; each normalised polynomial has "
               r"unit variance."),
    "S-eq12": (r"For an odd polynomial $\psi$ of degree $m$ with $\mathbb{E}\psi(x)^{2} = 1$, $\left\lVert "
               r"\mathbb{E}[x \psi(x)] \right\rVert_{2}^{2} \leqslant p\mu_{2}$."),
    "S-thm3.1": (r"$\sup_{W} \tilde{\mathcal{L}}(W) \leqslant C_{2} pd^{m}$, with the explicit constant "
                 r"$C_{2}$ that the proof produces."),
    "S-fn3": (r"Restricting a sample to its support $S$ (and $W$ to the columns in $S$) does not lower the "
              r"per-sample objective."),
    "S-fn4": (r"Any $W$ factors as $W = W^{\prime} P$ with $P$ an orthogonal projection of rank $d$ (from "
              r"the SVD)."),
    "S-eq16": (r"$\tilde{\mathcal{L}}(W)$ is bounded by $\mathbb{E}\left\lVert \mathbb{E}[x \mid Px] "
               r"\right\rVert_{2}^{2}$, the energy of the best reconstruction from the projected input."),
    "S-lemA.1": (r"For a family $\mu_{s}$ with density prop. to $\exp(-V_{s})$, "
                 r"$\frac{\mathrm{d}}{\mathrm{d}s} \mathbb{E}_{\mu_{s}} f = -\mathrm{Cov}(f, "
                 r"\mathrm{d}V_{s}/\mathrm{d}s)$."),
    "S-lemA.2": (r"For a positive definite block matrix $A$, $\left\lVert A_{12} A_{22}^{-1} A_{21} "
                 r"\right\rVert_{\mathrm{op}} \leqslant \left\lVert A \right\rVert_{\mathrm{op}}$."),
    "S-thm2.2-2": (r"For a symmetric i.i.d. $(K^{-1}, K)$-strongly log-concave $\mu$ and Bernoulli$(p)$ "
                   r"supports, $\sup_{W} \tilde{\mathcal{L}} \leqslant C_{3} d$ with the explicit constant "
                   r"of the proof."),
    "S-thm3.2": (r"For any $(K^{-1}, K)$-strongly log-concave $\nu$ on $(\xi_{1}, \ldots, \xi_{n})$ and any"
                 r" distribution of sparsity patterns, $\sup_{W} \tilde{\mathcal{L}} \leqslant C_{3} d$ "
                 r"with the explicit constant of the proof."),
    "S-lem4.1": (r"There is $V$ in $\mathbb{R}^{d \times d^{m}}$ whose Gram matrix $M = V^\top V$ has unit "
                 r"diagonal and off-diagonal entries at most $C_{m}/\sqrt{d} < 1$ once $d$ is large enough."),
    "S-lemA.4-trace": (r"The field trace $\operatorname{GF}(2^{r}) \to \operatorname{GF}(2)$ is "
                       r"$\operatorname{GF}(2)$-linear, $\psi(z) = (-1)^{\operatorname{tr}(z)}$ is an "
                       r"additive character, and $\psi(-z) = \psi(z)$."),
    "S-lemA.4-weil": (r"For a polynomial $P$ of odd degree, $\left\lvert \sum_{x} \psi(P(x)) \right\rvert "
                      r"\leqslant (\deg P - 1) \sqrt{2^{r}}$ (Weil bound)."),
    "S-lemA.4-pow2": (r"For $d = 2^{r}$ the character-sum frame satisfies $\left\lvert (V^\top "
                      r"V)_{\mathbf{a};\mathbf{b}} \right\rvert \leqslant (2m - 2)/\sqrt{d}$ for "
                      r"$\mathbf{a} \neq \mathbf{b}$."),
    "S-lemA.4-general": (r"For arbitrary $d$, building with $2m$ in place of $m$, keeping the first $d^{m}$"
                         r" columns and padding zero rows gives the lemma."),
    "S-random-frames": (r"Random frames only achieve coherence of order $\sqrt{\log d / d}$, worse than the"
                        r" algebraic construction."),
    "S-eq19": (r"For $A = tM^{(k)}$, $\tilde{\mathcal{L}} = 2t^{m} a - t^{2m} b$ and the optimum over $t > "
               r"0$ is $a^{2}/b$."),
    "S-eq21": (r"The numerator $a$ is at least $p\mu_{m+1} k$ because every term of its multinomial "
               r"expansion is non-negative."),
    "S-eq22": (r"The denominator $b$ is at most a constant times $\max(pk, p^{m} k (1 + k/d)^{m})$ "
               r"(Rosenthal's inequality)."),
    "S-thm4.2": (r"With the paper's choice of $k$, $\sup_{W} \tilde{\mathcal{L}}$ is at least a constant "
                 r"times $\min(pd^{m}, dp^{1/m})$."),
    "S-rem4.3-first-order": (r"To first order in $p$, $\tilde{\mathcal{L}} = p \left(2\mu_{m+1} \sum_{i} "
                             r"A_{ii}^{m} - \mu_{2m} \sum_{i,j} A_{ij}^{2m}\right) + O(p^{2})$."),
    "S-rem4.3-scaling": (r"Taking $A = cB$ with $c = (\mu_{m+1}/\mu_{2m})^{1/m}$ turns the first-order term"
                         r" into $p \cdot \frac{\mu_{m+1}^{2}}{\mu_{2m}} \cdot \mathcal{F}(B)$."),
    "S-rem4.3-bound": (r"$\mathcal{F}(B) = \operatorname{tr}(2\tilde{B} - \tilde{B}^{2})$ is at most rank "
                       r"$\tilde{B}$, which is at most $d^{m}$."),
    "S-rem4.3-attained": (r"The frame of Lemma 4.1, optimally scaled, reaches $\mathcal{F}(B)$ of order "
                          r"$d^{m}$."),
    "S-fig3": (r"Trained $\tilde{\mathcal{L}}$ for $d = 10, 15$, $m = 3$, $n = 6000$ grows with slope $1$ "
               r"in $\log_{d} p$ once $p \leqslant d^{-m}$."),
    # ---- paper N
    "N-thm2.2": (r"Every global minimiser of the UFM (1) is orthogonally collapsed with $\rho = (1 - "
                 r"c)\sqrt{\frac{\lambda_{W}}{\lambda_{H}}}$ and $\mathbf{W}^{*} = "
                 r"\sqrt{\lambda_{H}/\lambda_{W}}\,\overline{\mathbf{H}}^{*\top}$; for $c > 1$ the only "
                 r"minimiser is $(\mathbf{0}, \mathbf{0})$."),
    "N-etf": (r"If $\overline{\mathbf{H}}^{\top}\overline{\mathbf{H}} = \rho\mathbf{I}$, the globally "
              r"centred class means form a simplex ETF."),
    "N-minimisers-R": r"Every partial orthonormal matrix $\mathbf{R}$ yields a global minimiser of (1).",
    "N-cor3.1": (r"With $\mathbf{H}_{0} = \mathbf{H}^{*}$, the perturbed problem (2) has the unique "
                 r"minimiser $(\mathbf{W}^{*}, \mathbf{H}^{*})$."),
    "N-Wstar": (r"The optimal classifier is $\mathbf{W}^{*}(\mathbf{H}) = "
                r"\mathbf{Y}\mathbf{H}^{\top}(\mathbf{H}\mathbf{H}^{\top} + n\lambda_{W}\mathbf{I})^{-1} = "
                r"\frac{1}{K}\overline{\mathbf{H}}^{\top}(\tilde{\boldsymbol{\Sigma}}_{T} + "
                r"\frac{\lambda_{W}}{K}\mathbf{I})^{-1}$."),
    "N-decomp": (r"The non-centred total covariance splits as $\tilde{\boldsymbol{\Sigma}}_{T} = "
                 r"\boldsymbol{\Sigma}_{W} + \tilde{\boldsymbol{\Sigma}}_{B}$."),
    "N-L-closed": (r"The central-path loss has the closed form "
                   r"$\frac{1}{2K}\operatorname{Tr}\left((\boldsymbol{\Sigma}_{W} + "
                   r"\frac{\lambda_{W}}{K}\mathbf{I})(\tilde{\boldsymbol{\Sigma}}_{T} + "
                   r"\frac{\lambda_{W}}{K}\mathbf{I})^{-1}\right) + "
                   r"\frac{\lambda_{H}}{2}\operatorname{Tr}\tilde{\boldsymbol{\Sigma}}_{T} - \frac{d - "
                   r"K}{2K}$, and every intermediate equality of App. A holds."),
    "N-eq7": r"The gradient of $\mathcal{L}$ is given by eq. (7).",
    "N-lemA.1": (r"Along the flow (4), $\frac{d\boldsymbol{\Sigma}_{B}}{dt}$, "
                 r"$\frac{d\boldsymbol{\Sigma}_{W}}{dt}$ and $\frac{d\tilde{\boldsymbol{\Sigma}}_{T}}{dt}$ "
                 r"are given by Lemma A.1."),
    "N-thm4.1-nc1": (r"$\widetilde{NC}_{1}(\mathbf{H}_{t})$ decreases strictly along the gradient flow "
                     r"until it reaches zero."),
    "N-thm4.1-W": (r"$e^{2\lambda_{H}t}\operatorname{Tr}\boldsymbol{\Sigma}_{W}(\mathbf{H}_{t})$ is "
                   r"non-increasing along the flow."),
    "N-thm4.1-B": (r"$e^{2\lambda_{H}t}\operatorname{Tr}\boldsymbol{\Sigma}_{B}(\mathbf{H}_{t})$ is "
                   r"strictly increasing along the flow."),
    "N-thm4.1-dT": r"Closed forms of $\frac{d\,T_{W}}{dt}$ and $\frac{d\,T_{B}}{dt}$ along the flow.",
    "N-eq8": (r"The minimiser of (2) satisfies $\mathbf{H}_{1/\beta} - \mathbf{H}_{0} = "
              r"-\frac{Kn}{\beta}\nabla\mathcal{L}(\mathbf{H}_{1/\beta})$."),
    "N-cor4.2": (r"$\widetilde{NC}_{1}(\mathbf{H}_{1/\beta}) < \widetilde{NC}_{1}(\mathbf{H}_{0})$ once "
                 r"$\beta$ exceeds a constant $C(\mathbf{H}_{0})$."),
    "N-lemB.1": (r"$\left\lVert\nabla\mathcal{L}(\mathbf{H})\right\rVert_{F} \leq "
                 r"\frac{1}{Kn}\left(\frac{3}{\lambda_{W}} + "
                 r"\lambda_{H}\right)\left\lVert\mathbf{H}\right\rVert_{F}$."),
    "N-B-distance": (r"$\left\lVert\mathbf{H}_{1/\beta} - \mathbf{H}_{0}\right\rVert_{F} \leq "
                     r"\left(\frac{\beta}{nKM} - 1\right)^{-1}\left\lVert\mathbf{H}_{0}\right\rVert_{F}$."),
    "N-B-limit": (r"$\beta(\mathbf{H}_{1/\beta} - \mathbf{H}_{0})$ tends to "
                  r"$-Kn\nabla\mathcal{L}(\mathbf{H}_{0})$ as $\beta$ grows."),
    "N-C-derivs": (r"The first derivatives (11), the Hessian blocks and the mixed block with "
                   r"$\mathbf{E}(\mathbf{W}, \mathbf{H})$ of the objective of (2)."),
    "N-thmC.1": (r"$\mathrm{vec}(\delta\mathbf{H}) = \mathbf{F}\,\mathrm{vec}(\delta\mathbf{H}_{0}) + "
                 r"O(\left\lVert\delta\mathbf{H}_{0}\right\rVert^{2})$ with $\mathbf{F} = \frac{\beta}{Kn}$"
                 r" times the inverse Schur complement; $\delta\mathbf{W}$ follows."),
    "N-thm5.1": (r"The first-order (Neumann) approximation (5) of $\mathbf{F}$ has error $O(\beta^{-2})$ "
                 r"plus $O(\left\lVert\delta\mathbf{H}_{0}\right\rVert^{2})$."),
    "N-lemC.3": (r"If $\mathbf{B} \prec \mathbf{A}$ and $\mathbf{A} \succ 0$ then "
                 r"$\left\lVert\mathbf{A}^{-1/2}\mathbf{B}\mathbf{A}^{-1/2}\right\rVert_{\mathrm{op}} \leq "
                 r"1$."),
    "N-lemC.4": r"The four operator-norm bounds (13)-(16).",
    "N-C2-derivative": (r"The expression used for $\frac{d}{dt}\nabla\mathcal{L}(\mathbf{H}_{t})$ in the "
                        r"proof of Theorem C.2."),
    "N-thmC.2": (r"$\nabla\mathcal{L}$ is $\left(\frac{11\lambda_{H}}{Kn}\right)$-Lipschitz, and "
                 r"$\mathbf{H}_{0} \mapsto \mathbf{H}^{*}$ is $\left(1 - "
                 r"\frac{11\lambda_{H}}{\beta}\right)^{-1}$-Lipschitz when $\beta > 11\lambda_{H}$ and "
                 r"$\lambda_{W}\lambda_{H} < 1$."),
    "N-D-sigmas": (r"At a collapsed minimiser $\sigma_{\overline{H}}^{2} = "
                   r"\sqrt{\frac{\lambda_{W}}{\lambda_{H}}} - \lambda_{W}$, $\sigma_{W}^{2} = "
                   r"\sqrt{\frac{\lambda_{H}}{\lambda_{W}}} - \lambda_{H}$, with product $(1 - c)^{2}$."),
    "N-D-residual": r"At a collapsed minimiser $\mathbf{W}^{*}\mathbf{H}^{*} - \mathbf{Y} = -c\mathbf{Y}$.",
    "N-D-commutation": r"The commutation-matrix identities (17) for $\mathbf{K}_{d,K}$.",
    "N-D-Z-blocks": r"The blocks $\mathbf{Z}^{*}_{k,\tilde{k}}$ of eq. (18).",
    "N-D-mu-lambda": r"The scalars $\mu_{i}$ and $\lambda_{i}$ of eqs. (19)-(20).",
    "N-D-eig": (r"The eigendecomposition (21) of $\mathbf{F}_{k,k}$; a fraction $\frac{1 - K/d}{n}$ of its "
                r"eigenvalues equal $1$."),
    "N-thm5.2": (r"$\mathbf{F}_{k,k}$ has full rank and $\mathbf{F}_{k,\tilde{k}}$ rank $1$; "
                 r"$\sigma_{\max}(\mathbf{F}_{k,k}) = 1$, $\sigma_{\min}(\mathbf{F}_{k,k}) = 1 - "
                 r"\frac{1}{\beta}\sqrt{\frac{\lambda_{H}}{\lambda_{W}}}$ and "
                 r"$\sigma_{\max}(\mathbf{F}_{k,\tilde{k}}) = \frac{2\lambda_{H}(1 - "
                 r"\sqrt{\lambda_{H}\lambda_{W}})}{\beta}$."),
    "N-D.1-full-F": (r"The spectrum of the whole $\mathbf{F}$ looks like a stretched version of the "
                     r"diagonal blocks' spectrum."),
    "N-fig1": (r"The spectrum of $\mathbf{F}_{k,k}$ for $\beta = 100$, $K = 4$, $d = 10$, $n = 10$, "
               r"$\lambda_{W} = \sqrt{2}$ and several $\lambda_{H}$, as plotted."),
    "N-metrics": (r"Definitions of $NC_{1}$, $\widetilde{NC}_{1}$, $NC_{2}$, $NC_{3}$ and per-class "
                  r"$NC_{1}^{(k)}$, with $NC_{1} = \frac{1}{K}\sum_{k}NC_{1}^{(k)}$."),
    "N-fig2-layerwise": (r"In a layer-wise trained MLP, $NC_{1}$ and $\widetilde{NC}_{1}$ of the deepest "
                         r"features fall as layers are added."),
    "N-table1-wd": (r"Changing the feature layers' weight decay moves $NC_{1}/NC_{2}$ more than changing "
                    r"the last layer's."),
    "N-fig6-interference": (r"With two degraded classes, larger last-layer weight decay lowers the NC "
                            r"metrics of the other classes."),
    "N-E2-depth": r"NC metrics are larger at intermediate features than at the deepest ones.",
    # ---- beyond the papers
    "X-S-quadratic-certificate": (r"For $m \leqslant 3$ the full histogram of the Lemma A.4 frame's "
                                  r"character sums follows exactly from the $\operatorname{GF}(2)$ radical "
                                  r"dimensions of its quadratic parts; it equals the WHT certificate "
                                  r"wherever both run and Kasami's weight distributions of the duals of the"
                                  r" 2- and 3-error-correcting BCH codes."),
    "X-S-kerdock-frames": (r"For even $r$ the binary Kerdock frame ($d^{2}/2$ columns, plus the standard "
                           r"basis) has coherence exactly $1/\sqrt{d}$: half the paper's $m = 2$ coherence,"
                           r" meeting the Levenstein bound with equality."),
    "X-S-dg-frames": (r"The Delsarte-Goethals frame $\mathrm{DG}(r, \delta)$ has "
                      r"$d^{\delta+2}/2^{\delta+1}$ columns at coherence exactly $2^{\delta}/\sqrt{d}$ "
                      r"($\mathrm{DG}(r, 1)$: about $d^{3}/4$ columns at the paper's $m = 2$ coherence)."),
    "X-S-thm4.2-better-frames": (r"Rerunning Thm 4.2's exact bound $a^{2}/b$ ($m = 3$) with every frame at "
                                 r"its own best power-of-two $k$ separates two gains over the paper's worst"
                                 r" constant over $p$: choosing $k$ better for the paper's own frame (about"
                                 r" $1.15\times$ at $d = 16$, $1.2\times$ at $d = 64$), and, at that same "
                                 r"$k$ rule, the lower-coherence $\mathrm{DG}(r, 1)$ sub-frames (about "
                                 r"$1.15$-$1.2\times$ more), which are never worse than the paper's frame "
                                 r"at any $p$ tested. More columns at the paper's coherence "
                                 r"($\mathrm{DG}(r, 2)$ against $\mathrm{DG}(r, 1)$) give exactly the same "
                                 r"bound at every $p$ where that was tested: in full at $d = 64$, and at $d"
                                 r" = 256$ (slow tier) one bit of $c$ beyond $\mathrm{DG}(8, 1)$; Thm 3.1 "
                                 r"caps the bound at order $pd^{m}$ anyway."),
}


# the hypothesis-necessity table's texts typeset (:mod:`verify.necessity`): ``(claim, hypothesis as the row writes
# it) -> (hypothesis, note)``, in the grammar of :data:`TEX` (an empty note stays empty)
NECESSITY: dict[tuple[str, str], tuple[str, str]] = {
    ("S-thm3.1", "mu symmetric, mean zero (weakened to mu = N(s, 1), any mean s)"):
        (r"$\mu$ symmetric, mean zero (weakened to $\mu = \mathcal{N}(s, 1)$, any mean $s$)",
         (r"the supports stay i.i.d. Bernoulli$(p)$; a non-zero mean adds $p^{2} s^{2} \mathbf{1}\mathbf{1}^\top$ "
          r"to $\mathbb{E} xx^\top$, so $\sup \tilde{\mathcal{L}}$ grows like $n$ (as Thm 3.2's refutation)")),
    ("S-thm3.1", ("b_i i.i.d. Bernoulli(p) (weakened to exchangeable masks: a mixture of two i.i.d. Bernoulli "
                     "laws with mean p)")):
        ((r"$b_{i}$ i.i.d. Bernoulli$(p)$ (weakened to exchangeable masks: a mixture of two i.i.d. Bernoulli laws "
          r"with mean $p$)"),
         (r"a theorem for this family: $\tilde{\mathcal{L}}$ is linear in the law of $x$ and the bound $C_{2} "
          r"pd^{m}$ linear in $p$")),
    ("S-thm3.1", "d > d_0 and n > d^m (weakened to d = 2, n = 4 < d^m = 8)"):
        (r"$d > d_{0}$ and $n > d^{m}$ (weakened to $d = 2$, $n = 4 < d^{m} = 8$)",
         (r"the proof's chain $\tilde{\mathcal{L}} \leqslant \mathcal{M}(W) \leqslant rp\mu_{2}$ with $r \leqslant "
          r"d^{m}$ does not use $n > d^{m}$")),
    ("S-thm2.2-2", "mu symmetric, mean zero (weakened to mu = N(s, 1), still (1/K, K)-strongly log-concave)"):
        ((r"$\mu$ symmetric, mean zero (weakened to $\mu = \mathcal{N}(s, 1)$, still $(K^{-1}, K)$-strongly "
          r"log-concave)"),
         r"Thm 3.2's refutation (non-centred $\nu$) is the same failure"),
    ("S-thm2.2-2", "b_i i.i.d. Bernoulli(p) (weakened to a mixture of two i.i.d. Bernoulli laws with mean p)"):
        (r"$b_{i}$ i.i.d. Bernoulli$(p)$ (weakened to a mixture of two i.i.d. Bernoulli laws with mean $p$)",
         (r"a theorem for this family: $\tilde{\mathcal{L}}$ is linear in the law of $x$ and the bound $C_{3} d$ "
          r"does not depend on $p$")),
    ("S-thm2.2-2", "d > d_0 and n > d^m (weakened to d = 2, n = 4 < d^m = 8)"):
        (r"$d > d_{0}$ and $n > d^{m}$ (weakened to $d = 2$, $n = 4 < d^{m} = 8$)",
         ""),
    ("S-lemA.2", "A positive definite (weakened to: A symmetric, A22 invertible)"):
        (r"$A$ positive definite (weakened to: $A$ symmetric, $A_{22}$ invertible)",
         ""),
    ("S-lemA.2", "A positive definite (weakened to: A positive semidefinite, singular, A22 invertible)"):
        (r"$A$ positive definite (weakened to: $A$ positive semidefinite, singular, $A_{22}$ invertible)",
         (r"a theorem: $A \succeq 0$ with $A_{22} \succ 0$ still has Schur complement $A_{11} - A_{12} A_{22}^{-1} "
          r"A_{21} \succeq 0$, the proof's step")),
    ("S-lem4.1", "d sufficiently large (weakened to every d = 2^r, r = 1..3, for the proof's construction)"):
        ((r"$d$ sufficiently large (weakened to every $d = 2^{r}$, $r = 1, \ldots, 3$, for the proof's "
          r"construction)"),
         (r"the lemma is existential; the row searches its witness, Lemma A.4's construction ($m = 2$), so a "
          r"counterexample shows $d$ large needed for the proof's construction only. The lemma needs it by the "
          r"Levenstein bound: $N = d^{m} > d(d+1)/2$ unit vectors have $\left\lvert M_{ij} \right\rvert^{2} "
          r"\geqslant \frac{3N - d^{2} - 2d}{(d+2)(N-d)}$, about $3/d$, so $C_{m} \geqslant$ about $\sqrt{3}$ and "
          r"$C_{m} d^{-1/2} < 1$ only for $d > C_{m}^{2}$ (not searched here)")),
    ("S-lemA.4-weil", "deg P odd (weakened to P = c0 + c1 x + c2 x^2 of degree 2)"):
        (r"$\deg P$ odd (weakened to $P = c_{0} + c_{1} x + c_{2} x^{2}$ of degree $2$)",
         (r"the counterexamples are of Weil's excluded form $Q^{2} - Q + c$ (e.g. $x^{2} + x$): the sum is $\pm "
          r"2^{r}$")),
    ("S-lemA.4-pow2", ("columns from the odd powers x^(2j+1), so every difference P has odd degree (weakened to"
                          " the powers x^(j+1))")):
        ((r"columns from the odd powers $x^{2j+1}$, so every difference $P$ has odd degree (weakened to the powers "
          r"$x^{j+1}$)"),
         (r"$\operatorname{tr}(cx^{2}) = \operatorname{tr}(c^{2^{r-1}} x)$: an even power folds onto $x$, and two "
          r"columns coincide")),
    ("S-lemA.4-general", "d sufficiently large (weakened to every d = 2..15, m = 2)"):
        (r"$d$ sufficiently large (weakened to every $d = 2, \ldots, 15$, $m = 2$)",
         ""),
    ("N-thm2.2", "d >= K (weakened to d = 1 < K = 2)"):
        (r"$d \geq K$ (weakened to $d = 1 < K = 2$)",
         (r"rank $\overline{\mathbf{H}} \leq d < K$, so $\overline{\mathbf{H}}^{\top}\overline{\mathbf{H}} = "
          r"\rho\mathbf{I}_{K}$ is impossible for $\rho > 0$: the solver's minimiser is at distance $\geq \rho$")),
    ("N-cor3.1", "lam_H lam_W < 1 (weakened to lam_H lam_W > 1, so H* = 0)"):
        ((r"$\lambda_{H}\lambda_{W} < 1$ (weakened to $\lambda_{H}\lambda_{W} > 1$, so $\mathbf{H}^{*} = "
          r"\mathbf{0}$)"),
         (r"a theorem: $f(\mathbf{W}, \mathbf{H}; \mathbf{H}^{*}) = (1)(\mathbf{W}, \mathbf{H}) + "
          r"\frac{\beta}{2Kn}\left\lVert \mathbf{H} - \mathbf{H}^{*} \right\rVert_{F}^{2} \geq \min\,(1) = "
          r"f(\mathbf{W}^{*}, \mathbf{H}^{*}; \mathbf{H}^{*})$, for any $d$, $K$, $c$")),
    ("N-cor3.1", "d >= K (weakened to d = 1 < K = 2, H* the UFM solver's minimiser of (1))"):
        (r"$d \geq K$ (weakened to $d = 1 < K = 2$, $\mathbf{H}^{*}$ the UFM solver's minimiser of (1))",
         (r"a theorem by the same inequality; uniqueness: equality forces $\mathbf{H} = \mathbf{H}^{*}$, then "
          r"$\mathbf{W} = \mathbf{W}^{*}(\mathbf{H}^{*})$ (strictly convex in $\mathbf{W}$)")),
    ("N-lemC.3", "B positive semidefinite"):
        (r"$\mathbf{B}$ positive semidefinite",
         ""),
    ("N-lemC.3", "B < A (A - B positive definite)"):
        (r"$\mathbf{B} \prec \mathbf{A}$ ($\mathbf{A} - \mathbf{B}$ positive definite)",
         ""),
    ("N-lemC.3", "A positive definite"):
        (r"$\mathbf{A}$ positive definite",
         (r"implied by the other two: $\mathbf{B} \succeq 0$ and $\mathbf{A} - \mathbf{B} \succ 0$ give $\mathbf{A}"
          r" \succ 0$, so the search cannot break it")),
    ("N-lemC.4", "lam_W > 0 (weakened to lam_W < 0 with SigmaT~ + lam_W/K I > 0)"):
        ((r"$\lambda_{W} > 0$ (weakened to $\lambda_{W} < 0$ with $\tilde{\boldsymbol{\Sigma}}_{T} + "
          r"\frac{\lambda_{W}}{K}\mathbf{I} \succ 0$)"),
         (r"then $\tilde{\boldsymbol{\Sigma}}_{T} \succ \tilde{\boldsymbol{\Sigma}}_{T} + "
          r"\frac{\lambda_{W}}{K}\mathbf{I}$, so (13) exceeds 1 at every point")),
    ("N-lemB.1", "lam_H >= 0 (weakened to lam_H in (-3/lam_W, 0), the constant stays positive)"):
        (r"$\lambda_{H} \geq 0$ (weakened to $\lambda_{H}$ in $(-3/\lambda_{W}, 0)$, the constant stays positive)",
         ""),
    ("N-lemB.1", ("lam_W > 0 (weakened to lam_W < 0 with HH^T + n lam_W I > 0, where L is finite; constant with"
                     " |lam_W|)")):
        ((r"$\lambda_{W} > 0$ (weakened to $\lambda_{W} < 0$ with $\mathbf{H}\mathbf{H}^{\top} + "
          r"n\lambda_{W}\mathbf{I} \succ 0$, where $\mathcal{L}$ is finite; constant with $\left\lvert \lambda_{W} "
          r"\right\rvert$)"),
         (r"$\mathbf{W}^{*}(\mathbf{H})$ blows up as $\mathbf{H}\mathbf{H}^{\top} + n\lambda_{W}\mathbf{I}$ nears "
          r"singularity while $\left\lVert \mathbf{H} \right\rVert_{F}$ stays bounded: no constant $M$ exists")),
    ("N-thm4.1-W", "lam_H >= 0 (weakened to lam_H < 0)"):
        (r"$\lambda_{H} \geq 0$ (weakened to $\lambda_{H} < 0$)",
         (r"a theorem: the $2\lambda_{H}\operatorname{Tr}\boldsymbol{\Sigma}_{W}$ terms of the product rule and of "
          r"the flow cancel exactly, so $e^{-2\lambda_{H}t}\frac{d}{dt}\left(e^{2\lambda_{H}t}T_{W}\right) = "
          r"-\frac{2}{K}\operatorname{Tr}"
          r"\left(\boldsymbol{\Sigma}_{W}\mathbf{C}\tilde{\boldsymbol{\Sigma}}_{B}\mathbf{C}\right)$"
          r" for every real $\lambda_{H}$")),
    ("N-thm4.1-W", "lam_W > 0 (weakened to lam_W < 0 where HH^T + n lam_W I is invertible)"):
        ((r"$\lambda_{W} > 0$ (weakened to $\lambda_{W} < 0$ where $\mathbf{H}\mathbf{H}^{\top} + "
          r"n\lambda_{W}\mathbf{I}$ is invertible)"),
         (r"a theorem where defined: $\mathbf{C} = \left(\tilde{\boldsymbol{\Sigma}}_{T} + "
          r"\frac{\lambda_{W}}{K}\mathbf{I}\right)^{-1}$ is symmetric, so "
          r"$\mathbf{C}\tilde{\boldsymbol{\Sigma}}_{B}\mathbf{C} = "
          r"\mathbf{C}^{\top}\tilde{\boldsymbol{\Sigma}}_{B}\mathbf{C} \succeq 0$ and "
          r"$\operatorname{Tr}\left(\boldsymbol{\Sigma}_{W}\mathbf{C}\tilde{\boldsymbol{\Sigma}}_{B}\mathbf{C}\right)"
          r" \geq 0$ whatever the sign of $\lambda_{W}$")),
    ("S-thm3.1", "m odd"):
        (r"$m$ odd",
         (r"for even $m$ and symmetric $\mu$, $\mathbb{E}\langle x, \phi(Ax) \rangle$ has odd total degree and "
          r"vanishes, so $\tilde{\mathcal{L}} = -\mathbb{E}\left\lVert \phi(Ax) \right\rVert_{2}^{2} \leqslant 0 < "
          r"C_{2} pd^{m}$: not needed (proved here; the package's exact loss is for odd $m$ only)")),
    ("S-thm2.2-2", "mu (1/K, K)-strongly log-concave"):
        (r"$\mu$ $(K^{-1}, K)$-strongly log-concave",
         (r"the bound's constant $C_{3} = K + K^{3}$ is defined by $K$: without the hypothesis there is no $C_{3}$ "
          r"to exceed")),
    ("S-lemA.1", "V smooth with sufficient decay (Z(s) finite)"):
        (r"$V$ smooth with sufficient decay ($Z(s)$ finite)",
         r"without it $Z(s)$, $\mu_{s}$ and the derivative are undefined"),
    ("S-lemA.1", "f smooth and integrable"):
        (r"$f$ smooth and integrable",
         r"without it $\mathbb{E}_{\mu_{s}} f$ and $\mathrm{Cov}(f, \mathrm{d}V/\mathrm{d}s)$ are undefined"),
    ("S-lemA.3", "x, y with all finite moments"):
        (r"$x$, $y$ with all finite moments",
         r"without second moments $\Sigma$ and $M$ are undefined"),
    ("S-lemA.4-trace", "the field has characteristic 2 (GF(2^r))"):
        (r"the field has characteristic $2$ ($\operatorname{GF}(2^{r})$)",
         (r"$\chi(0) = 1$, $\chi(1) = -1$ is a character of $\operatorname{GF}(2)$ only: $\psi = \chi \circ "
          r"\operatorname{tr}$ is undefined over $\operatorname{GF}(p^{r})$, $p$ odd")),
    ("S-lemA.4-pow2", "d = 2^r"):
        (r"$d = 2^{r}$",
         (r"the construction indexes rows by $\operatorname{GF}(d)$, which has characteristic $2$ only for $d = "
          r"2^{r}$; any other $d$ is Lemma A.4's general case (S-lemA.4-general)")),
    ("S-lemA.4-general", "2m coefficients (instead of m)"):
        (r"$2m$ coefficients (instead of $m$)",
         (r"with $m$ coefficients there are $2^{rm} < d^{m}$ columns when $2^{r} < d$: the first $d^{m}$ columns do"
          r" not exist")),
    ("S-thm4.2", "the usual assumptions (d > d_0, n > d^m)"):
        (r"the usual assumptions ($d > d_{0}$, $n > d^{m}$)",
         (r"an order statement with an unspecified constant $C_{1}$ ($\sup \tilde{\mathcal{L}} \gtrsim \min(pd^{m},"
          r" dp^{1/m})$): a finite search has no threshold to exceed (at $n = 1$, $\sup \tilde{\mathcal{L}} = "
          r"p\mu_{m+1}^{2}/\mu_{2m}$ exactly, so the ratio falls like $1/\min(d^{m}, dp^{1/m-1})$: needed "
          r"asymptotically, by that closed form)")),
    ("N-thm2.2", "lam_W, lam_H > 0"):
        (r"$\lambda_{W}, \lambda_{H} > 0$",
         (r"$\rho = (1 - c)\sqrt{\frac{\lambda_{W}}{\lambda_{H}}}$ is undefined at $\lambda_{H} = 0$, and at "
          r"$\lambda_{W} = 0$ the infimum of (1) is not attained (scale $\mathbf{W}$ up, $\mathbf{H}$ down): no "
          r"global minimiser")),
    ("N-lemA.1", "SigmaT~ + lam_W/K I invertible (lam_W > 0)"):
        (r"$\tilde{\boldsymbol{\Sigma}}_{T} + \frac{\lambda_{W}}{K}\mathbf{I}$ invertible ($\lambda_{W} > 0$)",
         (r"$\mathbf{C}_{B}$, $\tilde{\mathbf{C}}_{B}$, $\mathbf{C}_{W}$ are defined by its inverse: without it the"
          r" derivatives' right-hand sides are undefined")),
    ("N-thm4.1-W", "Sigma_W(H_0) != 0"):
        (r"$\boldsymbol{\Sigma}_{W}(\mathbf{H}_{0}) \neq \mathbf{0}$",
         (r"degenerate: with $\boldsymbol{\Sigma}_{W}(\mathbf{H}_{0}) = \mathbf{0}$ the flow keeps $\mathbf{H}$ "
          r"collapsed, $T_{W} = 0$ for all $t$ and the bullet reads $0 = 0$")),
}
