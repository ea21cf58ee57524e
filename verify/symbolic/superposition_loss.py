r"""Paper S, section 2 and Remark 4.3: the exact population loss :math:`\tilde L(W)`, derived with sympy.

Model: :math:`x_i = \xi_i b_i` with :math:`b_i \sim \mathrm{Bernoulli}(p)`, :math:`\xi_i \sim \mu`
symmetric, :math:`A = W^T W`, :math:`\phi(t) = t^m` with :math:`m` odd, and

.. math:: \tilde L(W) = 2\,\mathbb E\langle x, \phi(Ax)\rangle - \mathbb E\|\phi(Ax)\|_2^2
          = \sum_{i=1}^n \bigl(2\,\mathbb E[x_i y_i^m] - \mathbb E[y_i^{2m}]\bigr),
          \qquad y_i = \sum_j A_{ij} x_j .

Derivation (generic in odd :math:`m`, nothing typed per :math:`m`):

* :math:`\mathbb E x^k = p\mu_k` for even :math:`k \ge 2` and 0 for odd :math:`k`; the cumulants
  :math:`\kappa_k(x)` follow from the moments through the (sympy) Bell polynomials.
* :math:`y_i` is a sum of independent terms, so :math:`\kappa_k(y_i) = \kappa_k(x) S_{k,i}` with
  :math:`S_{k,i} = \sum_j A_{ij}^k`; odd cumulants vanish, so only even power sums enter, and
  :math:`\mathbb E y_i^{2m}` is the complete Bell polynomial of those cumulants.
* :math:`\mathbb E[x_i y_i^m]`: split :math:`y_i = A_{ii} x_i + z_i` with :math:`z_i` independent of
  :math:`x_i` and :math:`\kappa_k(z_i) = \kappa_k(x) T_{k,i}`, :math:`T_{k,i} = \sum_{j\ne i} A_{ij}^k`.

So :math:`\tilde L = \sum_i f_m(p, \mu, A_{ii}, T_{2,i}, \dots, T_{2m,i})` with a polynomial
:math:`f_m` (:func:`row_polynomial`). The off-diagonal sums :math:`T` are the numerically stable
statistics (no cancellation :math:`S_k - A_{ii}^k`); ``stats="full"`` gives the paper-style form in
:math:`S_k`.

>>> f = row_polynomial(1)
>>> sympy.expand(f - (2*p*mu(2)*a - p*mu(2)*(a**2 + T(2))))
0
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Any, Sequence

import sympy

from .._validate import verify_choice, verify_odd_m
from ..latex import formula

__all__ = [
    "p", "a", "mu", "S", "T", "row_symbols", "x_moment", "x_cumulant", "moment_from_cumulants",
    "row_cross_and_square", "row_polynomial", "row_gradient", "loss_expression", "loss_of_W",
    "grad_expression", "collapsed_row_polynomial", "collapsed_row_symbols", "brute_force_loss", "first_order_term", "diagonal_case", "unsuperposed_supremum",
    "linear_case", "scaling_identity", "tensor_identity", "F_objective",
]

#: Bernoulli rate
p = sympy.Symbol("p", positive=True)
#: the diagonal entry :math:`A_{ii}` of the row under consideration
a = sympy.Symbol("A_{ii}", real=True)


@lru_cache(maxsize=None)
def mu(k: int) -> sympy.Symbol:
    r"""The moment symbol :math:`\mu_k = \int \xi^k \mu(d\xi)`."""
    return sympy.Symbol(f"mu_{k}", positive=True)


@lru_cache(maxsize=None)
def S(k: int) -> sympy.Symbol:
    r"""Row power sum :math:`S_{k,i} = \sum_j A_{ij}^k` (diagonal included)."""
    return sympy.Symbol(f"S_{{{k},i}}", nonnegative=True)


@lru_cache(maxsize=None)
def T(k: int) -> sympy.Symbol:
    r"""Off-diagonal row power sum :math:`T_{k,i} = \sum_{j \ne i} A_{ij}^k`."""
    return sympy.Symbol(f"T_{{{k},i}}", nonnegative=True)


def row_symbols(m: int, stats: str = "offdiag") -> tuple:
    r"""Argument order of the row polynomial: :math:`(p, \mu_2, \mu_4, \dots, \mu_{2m}, A_{ii}, T_2, \dots, T_{2m})`.

    Use it to lambdify: ``sympy.lambdify(row_symbols(3), row_polynomial(3), modules="torch")``.
    With ``stats="full"`` the last block is :math:`S_2, \dots, S_{2m}`.
    """
    m = verify_odd_m(m)
    verify_choice(stats, "stats", ("offdiag", "full"))
    sums = T if stats == "offdiag" else S
    return (p, *[mu(k) for k in range(2, 2 * m + 1, 2)], a, *[sums(k) for k in range(2, 2 * m + 1, 2)])


def x_moment(k: int) -> sympy.Expr:
    r""":math:`\mathbb E x^k` for :math:`x = \xi b`: :math:`1` (k = 0), :math:`p\mu_k` (k even), 0 (k odd)."""
    if k == 0:
        return sympy.Integer(1)
    return p * mu(k) if k % 2 == 0 else sympy.Integer(0)


def moment_from_cumulants(n: int, kappa: Sequence[sympy.Expr]) -> sympy.Expr:
    r"""Complete Bell polynomial :math:`\mathbb E X^n = B_n(\kappa_1, \dots, \kappa_n)`; ``kappa[k]`` is :math:`\kappa_k`."""
    if n == 0:
        return sympy.Integer(1)
    return sympy.Add(*[sympy.bell(n, j, tuple(kappa[1:n - j + 2])) for j in range(1, n + 1)])


@lru_cache(maxsize=None)
def x_cumulant(k: int) -> sympy.Expr:
    r"""Cumulant :math:`\kappa_k(x) = \sum_j (-1)^{j-1}(j-1)!\,B_{k,j}(\mathbb E x, \mathbb E x^2, \dots)` (a polynomial in p)."""
    moments = tuple(x_moment(i) for i in range(1, k + 1))
    return sympy.expand(sum((-1) ** (j - 1) * sympy.factorial(j - 1) * sympy.bell(k, j, moments[:k - j + 1])
                            for j in range(1, k + 1)))


@lru_cache(maxsize=None)
def row_cross_and_square(m: int) -> tuple:
    r"""The two row expectations in the off-diagonal statistics, unexpanded (for fast lambdify):

    .. math:: \mathbb E[x_i y_i^m] = \sum_{k=0}^m \binom mk A_{ii}^k\, \mathbb E x^{k+1}\, \mathbb E z_i^{m-k},
              \qquad \mathbb E y_i^{2m} = B_{2m}\bigl(\kappa_k(x)(A_{ii}^k + T_k)\bigr).
    """
    m = verify_odd_m(m)
    kap = [sympy.Integer(0)] + [x_cumulant(k) for k in range(1, 2 * m + 1)]
    kap_z = [kap[k] * T(k) if k % 2 == 0 else 0 for k in range(2 * m + 1)]
    kap_y = [kap[k] * (a ** k + T(k)) if k % 2 == 0 else 0 for k in range(2 * m + 1)]
    cross = sum(sympy.binomial(m, k) * a ** k * x_moment(k + 1) * moment_from_cumulants(m - k, kap_z)
                for k in range(m + 1))
    square = moment_from_cumulants(2 * m, kap_y)
    return cross, square


@lru_cache(maxsize=None)
def row_polynomial(m: int, stats: str = "offdiag", expand: bool = True) -> sympy.Expr:
    r"""The row contribution :math:`f_m = 2\mathbb E[x_i y_i^m] - \mathbb E[y_i^{2m}]` of :math:`\tilde L`.

    ``stats="offdiag"``: in :math:`(p, \mu_k, A_{ii}, T_k)`; ``stats="full"``: in :math:`(p, \mu_k, A_{ii}, S_k)`
    via :math:`T_k = S_k - A_{ii}^k`. ``expand=False`` keeps the nested cumulant form (fewer operations).

    >>> sympy.expand(row_polynomial(3).subs({T(k): 0 for k in (2, 4, 6)}))
    -A_{ii}**6*mu_6*p + 2*A_{ii}**3*mu_4*p
    """
    m = verify_odd_m(m)
    verify_choice(stats, "stats", ("offdiag", "full"))
    cross, square = row_cross_and_square(m)
    f = 2 * cross - square
    if stats == "full":
        f = f.subs({T(k): S(k) - a ** k for k in range(2, 2 * m + 1, 2)})
    return sympy.expand(f) if expand else f


@lru_cache(maxsize=None)
def row_gradient(m: int) -> tuple:
    r"""Partial derivatives :math:`(\partial f_m/\partial A_{ii}, \partial f_m/\partial T_2, \dots, \partial f_m/\partial T_{2m})`."""
    f = row_polynomial(m, expand=False)
    return tuple(sympy.diff(f, s) for s in (a, *[T(k) for k in range(2, 2 * m + 1, 2)]))


@lru_cache(maxsize=None)
def collapsed_row_polynomial(m: int) -> tuple:
    r"""The loss collapsed onto the per-row full power sums :math:`P_{k,i} = S_{k,i} = \sum_j A_{ij}^k` and one
    whole-matrix sum: ``(g_m, c_m)`` with

    .. math:: \tilde L = \sum_{i=1}^n g_m\bigl(p, \mu, A_{ii}, S_{2,i}, \dots, S_{2m-2,i}\bigr)
              + c_m \sum_{i,j} A_{ij}^{2m}, \qquad c_m = -\kappa_{2m}(x) = \partial f_m / \partial S_{2m,i}.

    Derived, not typed: :math:`f_m` of :func:`row_polynomial` in the full sums (``stats="full"``) is affine in
    :math:`S_{2m,i}` with a coefficient free of the row (it enters :math:`\mathbb E y_i^{2m}` only through the
    cumulant :math:`\kappa_{2m}(y_i) = \kappa_{2m}(x) S_{2m,i}`, a one-block partition, and not the cross term,
    whose moments of :math:`z_i` have degree at most m - 1); both facts are checked here and a failure raises.
    So :math:`\sum_i S_{2m,i} = \sum_{ij} A_{ij}^{2m} = \langle S_{2m}, S_{2m}\rangle` (the power-sum tensor with
    itself) costs one pass over the tensor, not a contraction per row: what the ``"collapsed"`` route of
    :func:`verify.numeric.superposition_loss.exact_loss` evaluates.

    >>> g, c = collapsed_row_polynomial(1)
    >>> sympy.expand(g), c
    (2*A_{ii}*mu_2*p, -mu_2*p)
    """
    m = verify_odd_m(m)
    f = sympy.expand(row_polynomial(m, "full"))
    top = S(2 * m)
    c = sympy.expand(sympy.diff(f, top))
    row_vars = {a, *(S(k) for k in range(2, 2 * m + 1, 2))}
    if c.free_symbols & row_vars or sympy.diff(f, top, 2) != 0:
        raise ArithmeticError(f"f_{m} is not affine in S_{2 * m} with a row-free coefficient")
    if sympy.expand(c + x_cumulant(2 * m)) != 0:
        raise ArithmeticError(f"the coefficient of S_{2 * m} is not -kappa_{2 * m}(x)")
    g = sympy.expand(f - c * top)
    return g, c


def collapsed_row_symbols(m: int) -> tuple:
    r"""Argument order of :func:`collapsed_row_polynomial`'s :math:`g_m`:
    :math:`(p, \mu_2, \dots, \mu_{2m}, A_{ii}, S_2, \dots, S_{2m-2})`."""
    m = verify_odd_m(m)
    return (p, *[mu(k) for k in range(2, 2 * m + 1, 2)], a, *[S(k) for k in range(2, 2 * m - 1, 2)])


def _row_stats(A: sympy.Matrix, i: int, m: int) -> dict:
    n = A.shape[0]
    sub = {a: A[i, i]}
    for k in range(2, 2 * m + 1, 2):
        sub[T(k)] = sum((A[i, j] ** k for j in range(n) if j != i), sympy.Integer(0))
    return sub


def loss_expression(A: Any, m: int) -> sympy.Expr:
    r""":math:`\tilde L` for an explicit symmetric ``A`` (sympy matrix: rational or symbolic entries), as an
    expanded polynomial in :math:`p` and the :math:`\mu_k`.

    >>> loss_expression(sympy.eye(2), 1)
    2*mu_2*p
    """
    m = verify_odd_m(m)
    A = sympy.Matrix(A)
    f = row_polynomial(m)
    return sympy.expand(sum((f.xreplace(_row_stats(A, i, m)) for i in range(A.shape[0])), sympy.Integer(0)))


def loss_of_W(W: Any, m: int) -> sympy.Expr:
    r""":math:`\tilde L(W)` via :math:`A = W^T W` (sympy matrix W, shape d x n)."""
    W = sympy.Matrix(W)
    return loss_expression(W.T * W, m)


def grad_expression(W: Any, m: int) -> sympy.Matrix:
    r"""Exact gradient :math:`\nabla_W \tilde L = W (G + G^T)` from the chain rule through :math:`A = W^T W`:

    .. math:: G_{ij} = \delta_{ij}\,\partial_{A_{ii}} f_m(i) + (1-\delta_{ij}) \sum_{l=1}^m 2l\,A_{ij}^{2l-1}\,
              \partial_{T_{2l}} f_m(i).
    """
    m = verify_odd_m(m)
    W = sympy.Matrix(W)
    A = W.T * W
    n = A.shape[0]
    grads = row_gradient(m)
    G = sympy.zeros(n, n)
    for i in range(n):
        d_i = [g.xreplace(_row_stats(A, i, m)) for g in grads]
        for j in range(n):
            if i == j:
                G[i, j] = d_i[0]
            else:
                G[i, j] = sum(2 * l * A[i, j] ** (2 * l - 1) * d_i[l] for l in range(1, m + 1))
    return (W * (G + G.T)).applyfunc(sympy.expand)


def brute_force_loss(A: Any, m: int, moments: Any = None, objective: str = "Ltilde") -> sympy.Expr:
    r"""An independent route to :math:`\tilde L`: enumerate the sparsity patterns :math:`b \in \{0,1\}^n`
    (weight :math:`p^{|b|}(1-p)^{n-|b|}`), expand :math:`2\langle x, (Ax)^{\odot m}\rangle - \|(Ax)^{\odot m}\|^2`
    as a polynomial in :math:`\xi` and replace each monomial by its product of moments.

    ``moments``: ``None`` for the symbols :math:`\mu_k`, else a callable ``k -> mu_k``.
    ``objective="L"`` gives the loss :math:`\mathcal L = \mathbb E\|(Ax)^{\odot m} - x\|^2` instead.
    Cost :math:`2^n` expansions of degree :math:`2m`; meant for :math:`n \le 3`.
    """
    m = verify_odd_m(m)
    verify_choice(objective, "objective", ("Ltilde", "L"))
    A = sympy.Matrix(A)
    n = A.shape[0]
    xi = sympy.symbols(f"xi_1:{n + 1}")
    mom = (lambda k: mu(k)) if moments is None else moments
    total = sympy.Integer(0)
    for b in itertools.product((0, 1), repeat=n):
        x = sympy.Matrix([xi[j] * b[j] for j in range(n)])
        y = A * x
        if objective == "Ltilde":
            sample = sum(2 * x[i] * y[i] ** m - y[i] ** (2 * m) for i in range(n))
        else:
            sample = sum((y[i] ** m - x[i]) ** 2 for i in range(n))
        poly = sympy.Poly(sympy.expand(sample), *xi)
        expectation = sympy.Integer(0)
        for exps, coeff in poly.terms():
            if any(e % 2 for e in exps):
                continue  # a symmetric mu has vanishing odd moments
            expectation += coeff * sympy.Mul(*[mom(e) for e in exps if e])
        k = sum(b)
        total += p ** k * (1 - p) ** (n - k) * expectation
    return sympy.expand(total)


def first_order_term(m: int) -> sympy.Expr:
    r"""Coefficient of :math:`p^1` of the row polynomial, in the full power sums (Remark 4.3):
    :math:`2\mu_{m+1}A_{ii}^m - \mu_{2m} S_{2m,i}`."""
    return sympy.expand(row_polynomial(m, "full")).coeff(p, 1)


def diagonal_case(m: int) -> sympy.Expr:
    r"""Row polynomial for diagonal :math:`A` (all :math:`T_k = 0`), eq. (9): :math:`p(2\mu_{m+1}A_{ii}^m - \mu_{2m}A_{ii}^{2m})`."""
    m = verify_odd_m(m)
    return sympy.expand(row_polynomial(m).subs({T(k): 0 for k in range(2, 2 * m + 1, 2)}))


def unsuperposed_supremum(m: int) -> dict:
    r"""Maximise the diagonal row term over :math:`A_{ii} \ge 0` (eq. 10), derived from :func:`diagonal_case`.

    With :math:`t = A_{ii}^m` the row term is a concave quadratic :math:`p(2\mu_{m+1}t - \mu_{2m}t^2)`; its
    stationary point is the maximiser. Returns ``{"t_star", "a_star", "row_max"}``; with at most
    :math:`d` nonzero diagonal entries (rank A <= d) the supremum is :math:`d \cdot` ``row_max``.
    """
    m = verify_odd_m(m)
    t = sympy.Symbol("t", positive=True)
    g = sympy.expand(diagonal_case(m).subs(a, t ** sympy.Rational(1, m)))
    if sympy.degree(g, t) != 2 or not g.coeff(t, 2).is_negative:  # the stationary point is the max only then
        raise ArithmeticError("the diagonal row term is not a concave quadratic in A_ii^m")
    (t_star,) = sympy.solve(sympy.diff(g, t), t)
    return {"t_star": t_star, "a_star": t_star ** sympy.Rational(1, m),
            "row_max": sympy.factor(g.subs(t, t_star)), "row_in_t": g}


def linear_case() -> tuple:
    r"""m = 1 in matrix form: the derived row polynomial summed over rows equals
    :math:`p\mu_2\operatorname{tr}(2A - A^2)` because :math:`\sum_i (A_{ii}^2 + T_{2,i}) = \|A\|_F^2 = \operatorname{tr}A^2`.
    Returns ``(row polynomial, p mu_2 (2 A_ii - S_2))``, equal polynomials."""
    f = row_polynomial(1, "full")
    return f, p * mu(2) * (2 * a - S(2))


def F_objective(B: Any, m: int) -> sympy.Expr:
    r"""Remark 4.3's :math:`\mathcal F(B) = 2\sum_i B_{ii}^m - \sum_{i,j} B_{ij}^{2m}`."""
    B = sympy.Matrix(B)
    n = B.shape[0]
    return 2 * sum(B[i, i] ** m for i in range(n)) - sum(B[i, j] ** (2 * m) for i in range(n) for j in range(n))


def scaling_identity(m: int) -> sympy.Expr:
    r"""Remark 4.3 / eq. (23) at the row level: with :math:`A = cB`, :math:`c^m = \mu_{m+1}/\mu_{2m}`, the first-order
    term is :math:`p\,\mu_{m+1}^2/\mu_{2m}\,(2B_{ii}^m - \sum_j B_{ij}^{2m})`. Returns the difference (0 when it holds)."""
    m = verify_odd_m(m)
    c = (mu(m + 1) / mu(2 * m)) ** sympy.Rational(1, m)
    b, sb = sympy.Symbol("B_{ii}"), sympy.Symbol(f"S^B_{2 * m}")
    first = p * first_order_term(m)
    scaled = first.subs({a: c * b, S(2 * m): c ** (2 * m) * sb})
    claimed = p * mu(m + 1) ** 2 / mu(2 * m) * (2 * b ** m - sb)
    return sympy.expand(sympy.powsimp(sympy.expand(scaled - claimed), force=True))


def tensor_identity(d: int, m: int) -> sympy.Expr:
    r""":math:`\langle u, v\rangle^m - \langle u^{\otimes m}, v^{\otimes m}\rangle` for symbolic :math:`u, v \in \mathbb R^d` (0 when it holds)."""
    m = verify_odd_m(m)
    u, v = sympy.symbols(f"u1:{d + 1}"), sympy.symbols(f"v1:{d + 1}")
    lhs = sum(ui * vi for ui, vi in zip(u, v)) ** m
    rhs = sum(sympy.Mul(*[u[k] for k in idx]) * sympy.Mul(*[v[k] for k in idx])
              for idx in itertools.product(range(d), repeat=m))
    return sympy.expand(lhs - rhs)


# --------------------------------------------------------------------------- LaTeX registry
_Lt = sympy.Symbol(r"\tilde{L}")
_i, _j, _n = sympy.symbols("i j n", integer=True, positive=True)
_f = sympy.Function("f_m")


def _collect_p(expr: sympy.Expr) -> sympy.Expr:
    return sympy.collect(sympy.expand(expr), p)


@formula("S-loss", "exact population loss Ltilde(W) for odd m, as a polynomial in p, mu_k and row power sums", m=3)
def _loss_formula(m=3):
    f = row_polynomial(m, "full")
    return [sympy.Eq(_Lt, sympy.Sum(_f(_i), (_i, 1, _n))),
            sympy.Eq(_f(_i), _collect_p(f)),
            sympy.Eq(sympy.Symbol(r"S_{k,i}"), sympy.Sum(sympy.Symbol(r"A_{ij}") ** sympy.Symbol("k"), (_j, 1, _n)))]


@formula("S-loss-row", "row polynomial f_m in (p, mu_k, A_ii, off-diagonal power sums T_k)", m=3)
def _row_formula(m=3):
    return sympy.Eq(_f(_i), _collect_p(row_polynomial(m)))


@formula("S-loss-grad", "gradient of Ltilde w.r.t. W: W(G + G^T) with G from the row polynomial", m=3)
def _grad_formula(m=3):
    names = [r"\partial_{A_{ii}} f_m"] + [rf"\partial_{{T_{{{2 * l},i}}}} f_m" for l in range(1, m + 1)]
    G = sympy.Symbol(r"G_{ij}")
    rhs = sympy.Symbol(r"\delta_{ij}") * sympy.Symbol(names[0]) + (1 - sympy.Symbol(r"\delta_{ij}")) * sum(
        2 * l * sympy.Symbol(r"A_{ij}") ** (2 * l - 1) * sympy.Symbol(names[l]) for l in range(1, m + 1))
    derivs = [sympy.Eq(sympy.Symbol(nm), _collect_p(sympy.expand(g))) for nm, g in zip(names, row_gradient(m))]
    d = sympy.Symbol("d")
    Wm, Gm = sympy.MatrixSymbol("W", d, _n), sympy.MatrixSymbol("G", _n, _n)
    grad = sympy.MatrixSymbol(r"\nabla_{W} \tilde{L}", d, _n)
    return [sympy.Eq(grad, Wm * (Gm + Gm.T), evaluate=False), sympy.Eq(G, rhs), *derivs]


@formula("S-loss-first-order", "first-order term in p of Ltilde (Remark 4.3)", m=3)
def _first_order_formula(m=3):
    # the coefficient-extraction bracket has no sympy object: the left-hand side is written as LaTeX
    return [r"\left[p^{1}\right] f_{m}(i) = " + sympy.latex(first_order_term(m)),
            r"\tilde{L} = p \Bigl(2\mu_{m+1} \sum_i A_{ii}^m - \mu_{2m} \sum_{i,j} A_{ij}^{2m}\Bigr) + O(p^2)"
            .replace("m+1", str(m + 1)).replace("2m", str(2 * m)).replace("^m", f"^{{{m}}}")]


@formula("S-eq9", "Ltilde for unsuperposed W (A diagonal), eq. (9)", m=3)
def _eq9_formula(m=3):
    return sympy.Eq(_Lt, sympy.Sum(diagonal_case(m), (_i, 1, _n)))


@formula("S-eq10", "supremum of Ltilde over unsuperposed W, eq. (10)", m=3)
def _eq10_formula(m=3):
    r = unsuperposed_supremum(m)
    d = sympy.Symbol("d", positive=True)
    return [sympy.Eq(sympy.Symbol(r"A_{ii}^{*}"), r["a_star"]),
            sympy.Eq(sympy.Symbol(r"\sup_{A\ \mathrm{diagonal}} \tilde{L}"), d * r["row_max"])]


@formula("S-linear", "linear case phi(t) = t: Ltilde = p mu_2 tr(2A - A^2)")
def _linear_formula():
    f, _ = linear_case()
    return [sympy.Eq(sympy.Function("f_1")(_i), sympy.factor(f)),
            sympy.Eq(_Lt, p * mu(2) * sympy.Symbol(r"\operatorname{tr}(2A - A^2)"))]
