r"""Paper S, section 3 and Lemma A.3, symbolic side: the explicit constants of the two upper bounds and the
closed form of Lemma A.3, derived with sympy.

* Lemma A.3: :math:`f(C) = 2\operatorname{tr}(CM^T) - \operatorname{tr}(C\Sigma C^T)` has gradient
  :math:`2M - 2C\Sigma`; if :math:`M = D\Sigma` then, with :math:`C^* = M\Sigma^+`,
  :math:`f(C^* + \Delta) = \operatorname{tr}(M\Sigma^+M^T) - \operatorname{tr}(\Delta\Sigma\Delta^T)`, so the
  supremum is :math:`\operatorname{tr}(M\Sigma^+M^T)` (:func:`lemA3_gap`).
* Theorem 3.1: :math:`E\langle a, x\rangle^2 = p\mu_2\|a\|^2` (derived from the moments), so eq. (13) bounds each of
  the :math:`r \le d^m` terms of eq. (11) by :math:`p\mu_2`: :math:`C_2 = \mu_2` (:func:`thm31_constant`).
* Theorem 3.2: :math:`C_3 = K + K^3` assembled from the proof's steps (:func:`thm32_constant`).

>>> thm32_constant()
K**3 + K
"""

from __future__ import annotations

import sympy

from .._validate import verify_int
from ..latex import formula

__all__ = ["lemA3_symbols", "lemA3_objective", "lemA3_gradient_residual", "lemA3_gap",
           "second_moment_linear_form", "thm31_constant", "thm31_chain", "thm32_constant", "thm32_steps"]

p, mu2, K, d, m, r = sympy.symbols("p mu_2 K d m r", positive=True)


def lemA3_symbols(q: int, rr: int) -> tuple[sympy.Matrix, sympy.Matrix, sympy.Matrix]:
    """Symbolic ``C`` (q x r), ``M`` (q x r) and symmetric ``Sigma`` (r x r)."""
    q = verify_int(q, "q", minimum=1)
    rr = verify_int(rr, "rr", minimum=1)
    C = sympy.Matrix(q, rr, lambda i, j: sympy.Symbol(f"C_{i}{j}"))
    M = sympy.Matrix(q, rr, lambda i, j: sympy.Symbol(f"M_{i}{j}"))
    S = sympy.Matrix(rr, rr, lambda i, j: sympy.Symbol(f"S_{min(i, j)}{max(i, j)}"))
    return C, M, S


def lemA3_objective(C: sympy.Matrix, M: sympy.Matrix, S: sympy.Matrix) -> sympy.Expr:
    r""":math:`2\operatorname{tr}(CM^T) - \operatorname{tr}(C\Sigma C^T)`."""
    return 2 * (C * M.T).trace() - (C * S * C.T).trace()


def lemA3_gradient_residual(q: int = 2, rr: int = 3) -> sympy.Matrix:
    r""":math:`\nabla_C f - (2M - 2C\Sigma)` by ``sympy.diff`` entrywise (zero matrix when the proof's gradient is right)."""
    C, M, S = lemA3_symbols(q, rr)
    f = lemA3_objective(C, M, S)
    grad = C.applyfunc(lambda c: sympy.diff(f, c))
    return (grad - (2 * M - 2 * C * S)).applyfunc(sympy.expand)


def lemA3_gap(M: sympy.Matrix, S: sympy.Matrix, Delta: sympy.Matrix) -> sympy.Expr:
    r""":math:`f(M\Sigma^+ + \Delta) - [\operatorname{tr}(M\Sigma^+M^T) - \operatorname{tr}(\Delta\Sigma\Delta^T)]`
    (expanded); zero whenever the rows of ``M`` lie in the row space of ``S`` (the proof's case)."""
    Sp = S.pinv()
    val = (M * Sp * M.T).trace()
    return sympy.expand(lemA3_objective(M * Sp + Delta, M, S) - (val - (Delta * S * Delta.T).trace()))


def second_moment_linear_form(n: int = 3) -> sympy.Expr:
    r""":math:`E\langle a, x\rangle^2` for independent centred :math:`x_i` with :math:`Ex_i^2 = p\mu_2`, derived by
    expanding and taking expectations monomial by monomial (eq. 13)."""
    n = verify_int(n, "n", minimum=1)
    a = sympy.symbols(f"a_1:{n + 1}")
    x = sympy.symbols(f"x_1:{n + 1}")
    poly = sympy.Poly(sympy.expand(sum(ai * xi for ai, xi in zip(a, x)) ** 2), *x)
    moment = {0: 1, 1: 0, 2: p * mu2}
    return sympy.expand(sum(c * sympy.Mul(*[moment[e] for e in mon]) for mon, c in poly.terms()))


def thm31_constant() -> sympy.Expr:
    r""":math:`C_2`: each eq. (11) term :math:`\le E\langle a,x\rangle^2 E\psi^2` with :math:`\|a\| = 1`,
    :math:`E\psi^2 = 1` (eq. 13), i.e. :math:`\le p\mu_2`; divided by :math:`p`."""
    n = 3
    a = sympy.symbols(f"a_1:{n + 1}")
    per_term = second_moment_linear_form(n).subs(a[0] ** 2, 1 - sum(t ** 2 for t in a[1:]))
    return sympy.expand(per_term / p)


def thm31_chain() -> list:
    r"""The chain :math:`\tilde L \le \mathcal M(W) = \sum_{i\le r}\|E[x\psi_i]\|^2 \le r p\mu_2 \le C_2 p d^m`."""
    Lt, MW = sympy.symbols(r"\tilde{L}(W) \mathcal{M}(W)")
    C2 = thm31_constant()
    return [sympy.Le(Lt, MW), sympy.Le(MW, r * p * C2), sympy.Le(r, sympy.binomial(d + m - 1, m)),
            sympy.Le(sympy.binomial(d + m - 1, m), d ** m), sympy.Eq(sympy.Symbol("C_2"), C2)]


def thm32_steps() -> dict:
    r"""The proof's quantities (per unit of :math:`d`) for a potential with :math:`\alpha I \preceq \nabla^2V \preceq
    \beta I`, then at the paper's :math:`\alpha = K^{-1}`, :math:`\beta = K`:

    * Poincare (footnote 5): :math:`\mathrm{Var} f \le \alpha^{-1}E\|\nabla f\|^2`; with :math:`f = \langle e_i, x
      \rangle`, :math:`\|\nabla f\| = 1`: ``Ey2`` :math:`= E\|y\|^2/d \le \alpha^{-1}` (centred);
    * Brascamp-Lieb + Lemma A.2: :math:`\mathrm{Var}(\langle v,\nabla_yV\rangle|y) \le \|M\|_{op} \le \beta`;
    * ``lip``: :math:`|f'(0)|^2 \le \mathrm{Var}(\langle u,z\rangle|y)\,\mathrm{Var}(\langle v,\nabla_yV\rangle|y)
      \le \alpha^{-1}\beta`, Lipschitz constant :math:`\sqrt{\alpha^{-1}\beta}`;
    * ``Em2``: :math:`E\|m(y)\|^2/d = \tfrac12 E\|m(y)-m(y')\|^2/d \le \tfrac12\,\mathrm{lip}^2\cdot 2\,Ey2`
      (uses :math:`E m(y) = 0`).
    """
    alpha, beta = sympy.symbols("alpha beta", positive=True)
    x = sympy.Symbol("x_i", real=True)
    grad_sq = sympy.diff(x, x) ** 2                      # |grad <e_i, x>|^2 = 1
    poincare = grad_sq / alpha
    brascamp_lieb = beta
    Ey2 = poincare
    lip = sympy.sqrt(poincare * brascamp_lieb)
    Em2 = sympy.Rational(1, 2) * lip ** 2 * 2 * Ey2
    at_K = {alpha: 1 / K, beta: K}
    return {"Ey2": Ey2.subs(at_K), "lip": sympy.simplify(lip.subs(at_K)), "Em2": sympy.expand(Em2.subs(at_K)),
            "general": {"Ey2": Ey2, "lip": lip, "Em2": sympy.expand(Em2)}}


def thm32_constant() -> sympy.Expr:
    r""":math:`C_3 = E\|y\|^2/d + E\|m(y)\|^2/d = K + K^3`."""
    st = thm32_steps()
    return sympy.expand(st["Ey2"] + st["Em2"])


@formula("S-thm3.1-C2", "Theorem 3.1: the explicit constant C_2 = mu_2 and the proof's chain of bounds")
def _thm31_formula():
    return thm31_chain()


@formula("S-thm3.2-C3", "Theorem 3.2: the explicit constant C_3 = K + K^3 (centred nu)")
def _thm32_formula():
    Lt = sympy.Symbol(r"\sup_W \tilde{L}(W)")
    return [sympy.Eq(sympy.Symbol("C_3"), thm32_constant()), sympy.Le(Lt, thm32_constant() * d)]


@formula("S-lemA.3", "Lemma A.3: sup over C of 2E<x,Cy> - E|Cy|^2, completed square", q=1, r=2)
def _lemA3_formula(q=1, r=2):
    C, M, S = lemA3_symbols(int(q), int(r))
    return [sympy.Eq(sympy.Symbol("f(C)"), lemA3_objective(C, M, S)),
            r"\nabla_C f = " + sympy.latex(2 * M - 2 * C * S),
            r"\sup_C f(C) = \operatorname{tr}(M \Sigma^{+} M^{T})"]
