r"""Paper N, §5 and App. C-D: the perturbation matrix :math:`\mathbf F` derived with sympy.

Everything here is *derived*: the derivatives of

.. math:: f(\mathbf W,\mathbf H;\mathbf H_0)=\tfrac1{2Kn}\|\mathbf W\mathbf H-\mathbf Y\|_F^2+\tfrac{\lambda_W}{2K}\|\mathbf W\|_F^2
          +\tfrac{\lambda_H}{2Kn}\|\mathbf H\|_F^2+\tfrac{\beta}{2Kn}\|\mathbf H-\mathbf H_0\|_F^2

come from ``sympy.diff`` of :math:`f` written entrywise; :math:`\sigma_{\bar H}`, :math:`\sigma_W` from the
stationarity of :math:`f` restricted to the collapsed ansatz; the spectrum of the blocks of the
first-order :math:`\mathbf F` (5) from the factorised characteristic polynomials of the symbolic blocks,
in the symbols :math:`\lambda_H,\lambda_W,\beta>0`. The paper's expressions (``paper_*``) are typed in
only to be *compared* with the derived ones.

Internally :math:`\lambda_H=p^2`, :math:`\lambda_W=q^2` (``p, q > 0``) so that every entry of :math:`\mathbf F` at
a collapsed minimiser is a rational function of :math:`p, q, \beta` and charpolys factor over
:math:`\mathbb Q(p,q,\beta)`; results are returned in :math:`\lambda_H,\lambda_W,\beta`.

>>> spec = Fkk_spectrum(3, 2, 2)
>>> sum(spec.values())
6
"""

from __future__ import annotations

from functools import lru_cache

import sympy
from sympy.matrices.expressions.kronecker import kronecker_product as _kp

from .._validate import VerifyInputError, verify_int
from ..latex import formula

__all__ = [
    "lam_H", "lam_W", "beta", "p", "q", "commutation_matrix", "svec", "kron", "derivative_residuals",
    "reduced_objective", "collapsed_sigmas", "collapsed_F", "Fkk_spectrum", "Fkk_tilde_singular_values",
    "full_F_spectrum", "paper_Fkk_spectrum", "paper_thm52", "spectra_equal", "to_pq", "to_lams",
    "cayley_frame", "rational_collapsed_point", "Z_blocks_paper", "exact_F1", "eigen_sign_analysis",
    "radial_loss_curvature", "thmC2_sharp", "exact_loss_hessian",
]

lam_H, lam_W, beta = sympy.symbols("lambda_H lambda_W beta", positive=True)
p, q = sympy.symbols("p q", positive=True)  # p = sqrt(lambda_H), q = sqrt(lambda_W)


def to_pq(expr):
    """Rewrite an expression in :math:`\\lambda_H,\\lambda_W` with :math:`\\lambda_H=p^2,\\lambda_W=q^2` (square roots disappear)."""
    return sympy.sympify(expr).subs({lam_H: p ** 2, lam_W: q ** 2})


def to_lams(expr):
    """Inverse of :func:`to_pq`: :math:`p=\\sqrt{\\lambda_H}`, :math:`q=\\sqrt{\\lambda_W}`."""
    return sympy.sympify(expr).subs({p: sympy.sqrt(lam_H), q: sympy.sqrt(lam_W)})


def _zero(expr) -> bool:
    """Exact zero test (expand + cancel in p, q; no ``simplify``); matrices entrywise."""
    if isinstance(expr, sympy.MatrixBase):
        return all(_zero(x) for x in expr)
    return sympy.cancel(sympy.expand(to_pq(expr))) == 0


# --------------------------------------------------------------------------- Kronecker / vec helpers
def kron(A, B) -> sympy.Matrix:
    """Explicit Kronecker product of two explicit sympy matrices."""
    return sympy.Matrix(_kp(sympy.Matrix(A), sympy.Matrix(B)))


def svec(M) -> sympy.Matrix:
    """Column-stack :math:`\\mathrm{vec}` of a sympy matrix."""
    M = sympy.Matrix(M)
    return sympy.Matrix([M[i, j] for j in range(M.cols) for i in range(M.rows)])


def commutation_matrix(m: int, n: int) -> sympy.Matrix:
    """:math:`\\mathbf K_{m,n}\\in\\{0,1\\}^{mn\\times mn}` with :math:`\\mathbf K_{m,n}\\mathrm{vec}(\\mathbf A)=\\mathrm{vec}(\\mathbf A^\\top)`, :math:`\\mathbf A\\in\\mathbb R^{m\\times n}`.

    >>> A = sympy.Matrix(2, 3, sympy.symbols('a:6'))
    >>> commutation_matrix(2, 3) * svec(A) == svec(A.T)
    True
    """
    m, n = verify_int(m, "m", minimum=1), verify_int(n, "n", minimum=1)
    Kmn = sympy.zeros(m * n, m * n)
    for i in range(m):
        for j in range(n):
            Kmn[i * n + j, j * m + i] = 1  # vec(A)[j*m+i] = A[i,j] = vec(A^T)[i*n+j]
    return Kmn


def _labels(K, n):
    return kron(sympy.eye(K), sympy.ones(1, n))


# --------------------------------------------------------------------------- App. C: derivatives
def _E(W, H, K, n):
    d = H.rows
    R = W * H - _labels(K, n)
    cols = []
    for i in range(d):
        for k in range(K):
            e = sympy.zeros(d, K)
            e[i, k] = 1
            cols.append(svec(e * R))  # e_{d,i} e_{K,k}^T R
    return sympy.Matrix.hstack(*cols)


def derivative_residuals(d: int = 3, K: int = 2, n: int = 2) -> dict:
    """Differentiate :math:`f` (entrywise, with ``sympy.diff``) and subtract the paper's App. C formulas:
    (11) for :math:`\\nabla_H f,\\nabla_W f`; :math:`\\nabla_H^\\top\\nabla_H f`, :math:`\\nabla_W^\\top\\nabla_W f`;
    :math:`\\nabla_W^\\top\\nabla_H f=\\frac1{Kn}(\\mathbf E+\\mathbf H^\\top\\otimes\\mathbf W^\\top)`;
    :math:`\\nabla_{H_0}^\\top\\nabla_H f=-\\frac\\beta{Kn}\\mathbf I`, :math:`\\nabla_{H_0}^\\top\\nabla_W f=\\mathbf 0`.
    Returns ``{name: number of nonzero entries of (derived - paper)}`` (all symbolic, exact)."""
    d, K, n = verify_int(d, "d", minimum=1), verify_int(K, "K", minimum=1), verify_int(n, "n", minimum=1)
    Kn = K * n
    W = sympy.Matrix(K, d, lambda a, b: sympy.Symbol(f"w_{a}_{b}"))
    H = sympy.Matrix(d, Kn, lambda a, b: sympy.Symbol(f"h_{a}_{b}"))
    H0 = sympy.Matrix(d, Kn, lambda a, b: sympy.Symbol(f"g_{a}_{b}"))
    Y = _labels(K, n)
    sq = lambda M: sum(x ** 2 for x in M)
    f = (sq(W * H - Y) / (2 * Kn) + lam_W * sq(W) / (2 * K) + lam_H * sq(H) / (2 * Kn)
         + beta * sq(H - H0) / (2 * Kn))
    h, w, h0, y = svec(H), svec(W), svec(H0), svec(Y)
    gH = sympy.Matrix([sympy.diff(f, x) for x in h])
    gW = sympy.Matrix([sympy.diff(f, x) for x in w])
    I_Kn = sympy.eye(Kn)
    paper = {
        "grad_H": (gH, (kron(I_Kn, W.T) * (kron(I_Kn, W) * h - y) + lam_H * h + beta * (h - h0)) / Kn),
        "grad_W": (gW, kron(H, sympy.eye(K)) * (kron(H.T, sympy.eye(K)) * w - y) / Kn + lam_W * w / K),
        "hess_HH": (gH.jacobian(h), (kron(I_Kn, W.T * W) + (lam_H + beta) * sympy.eye(d * Kn)) / Kn),
        "hess_WW": (gW.jacobian(w), kron(H * H.T, sympy.eye(K)) / Kn + lam_W * sympy.eye(K * d) / K),
        "hess_WH": (gH.jacobian(w), (_E(W, H, K, n) + kron(H.T, W.T)) / Kn),
        "hess_H0H": (gH.jacobian(h0), -beta * sympy.eye(d * Kn) / Kn),
        "hess_H0W": (gW.jacobian(h0), sympy.zeros(K * d, d * Kn)),
    }
    return {name: sum(1 for x in (a - b) if sympy.expand(x) != 0) for name, (a, b) in paper.items()}


# --------------------------------------------------------------------------- App. D: collapsed minimiser
@lru_cache(maxsize=None)
def reduced_objective(d: int = 3, K: int = 2, n: int = 2):
    """Objective (1) on the collapsed ansatz :math:`\\mathbf H=s_H\\mathbf R\\otimes\\mathbf 1_n^\\top`, :math:`\\mathbf W=s_W\\mathbf R^\\top`
    (:math:`\\mathbf R=[\\mathbf I_K;\\mathbf 0]`), computed from the matrices; returns ``(g, s_W, s_H)``."""
    sW, sH = sympy.symbols("s_W s_H", positive=True)
    R = sympy.eye(d)[:, :K]
    H = sH * kron(R, sympy.ones(1, n))
    W = sW * R.T
    sq = lambda M: sum(x ** 2 for x in M)
    g = sq(W * H - _labels(K, n)) / (2 * K * n) + lam_W * sq(W) / (2 * K) + lam_H * sq(H) / (2 * K * n)
    return sympy.expand(g), sW, sH


@lru_cache(maxsize=None)
def collapsed_sigmas() -> dict:
    """:math:`\\sigma_{\\bar H}^2,\\sigma_W^2` solved from :math:`\\nabla g=0` of :func:`reduced_objective` (positive root),
    with :math:`\\sigma_{\\bar H}\\sigma_W` and the optimal value; keys ``sigma_H2, sigma_W2, sigma_H, sigma_W, product, value``."""
    g, sW, sH = reduced_objective()
    sols = sympy.solve([sympy.diff(g, sW), sympy.diff(g, sH)], [sW, sH], dict=True)
    if len(sols) != 1:
        raise RuntimeError(f"expected one positive stationary point of the reduced objective, got {sols}")
    s = sols[0]
    sH_pq = sympy.factor(to_pq(s[sH]))
    sW_pq = sympy.factor(to_pq(s[sW]))
    return {"sigma_H": sH_pq, "sigma_W": sW_pq,
            "sigma_H2": to_lams(sympy.factor(sympy.expand(sH_pq ** 2))),
            "sigma_W2": to_lams(sympy.factor(sympy.expand(sW_pq ** 2))),
            "product": to_lams(sympy.factor(sympy.expand(sH_pq * sW_pq))),
            "value": to_lams(sympy.factor(sympy.expand(to_pq(g.subs(s)))))}


def cayley_frame(d: int, K: int, seed: int = 0) -> sympy.Matrix:
    """An exact rational partial orthonormal :math:`\\mathbf R\\in\\mathbb Q^{d\\times K}`: first columns of the Cayley
    transform :math:`(\\mathbf I-\\mathbf S)(\\mathbf I+\\mathbf S)^{-1}` of a seeded random rational skew :math:`\\mathbf S`."""
    import numpy as np

    d, K = verify_int(d, "d", minimum=1), verify_int(K, "K", minimum=1, maximum=d)
    rng = np.random.default_rng(seed)
    S = sympy.zeros(d, d)
    for i in range(d):
        for j in range(i + 1, d):
            S[i, j] = sympy.Rational(int(rng.integers(-4, 5)), int(rng.integers(1, 4)))
            S[j, i] = -S[i, j]
    Q = (sympy.eye(d) - S) * (sympy.eye(d) + S).inv()
    return Q[:, :K]


def rational_collapsed_point(a, b, R: sympy.Matrix, n: int) -> dict:
    """An exact collapsed minimiser with :math:`\\sigma_{\\bar H}=a`, :math:`\\sigma_W=b` rational (:math:`0<ab<1`):
    by the stationarity of :func:`reduced_objective`, :math:`\\lambda_W=a(1-ab)/b`, :math:`\\lambda_H=b(1-ab)/a`, :math:`c=1-ab`.
    Returns ``{W, H, lam_W, lam_H, c}`` (sympy Rationals)."""
    a, b = sympy.Rational(a), sympy.Rational(b)
    if not (a > 0 and b > 0 and a * b < 1):
        raise VerifyInputError(f"Argument 'a*b' must be in (0, 1) with a, b > 0 (c = 1 - ab in (0, 1)), not {a * b}.")
    n = verify_int(n, "n", minimum=1)
    return {"W": b * R.T, "H": a * kron(R, sympy.ones(1, n)), "lam_W": a * (1 - a * b) / b,
            "lam_H": b * (1 - a * b) / a, "c": 1 - a * b}


def exact_F1(W, H, beta_, lam_W_, lam_H_, K, n, return_Z=False):
    """Eq. (5) for explicit sympy matrices (exact when the entries are rational)."""
    d = H.rows
    G = _E(W, H, K, n).T + kron(H, W)
    C = kron(H * H.T, sympy.eye(K)) + n * lam_W_ * sympy.eye(K * d)
    Z = G.T * C.LUsolve(G)
    F = ((1 - lam_H_ / beta_) * sympy.eye(d * K * n) - kron(sympy.eye(K * n), W.T * W) / beta_ + Z / beta_)
    return (F, Z) if return_Z else F


def _dims(d, K, n, strict: bool = True) -> tuple[int, int, int]:
    r"""Validated sizes: :math:`d > K` (Thm 5.2) when ``strict``, else :math:`d \ge K` (Thm 5.1)."""
    d, K, n = verify_int(d, "d", minimum=1), verify_int(K, "K", minimum=1), verify_int(n, "n", minimum=1)
    if d < K or (strict and d == K):
        rel, why = ("> K", "Thm 5.2 assumes d > K") if strict else (">= K", "Thm 5.1 assumes d >= K")
        raise VerifyInputError(f"Argument 'd' must be an integer {rel} = {K} ({why}), not {d}.")
    return d, K, n


@lru_cache(maxsize=None)
def collapsed_F(d: int = 3, K: int = 2, n: int = 2) -> sympy.Matrix:
    """The first-order :math:`\\mathbf F` (5) at the collapsed minimiser :math:`\\mathbf H^*=\\sigma_{\\bar H}\\mathbf R\\otimes\\mathbf 1_n^\\top`,
    :math:`\\mathbf W^*=\\sigma_W\\mathbf R^\\top`, :math:`\\mathbf R=[\\mathbf I_K;\\mathbf 0]`, with the derived :math:`\\sigma`'s;
    entries are rational in :math:`p=\\sqrt{\\lambda_H}, q=\\sqrt{\\lambda_W}, \\beta`."""
    d, K, n = _dims(d, K, n)
    s = collapsed_sigmas()
    R = sympy.eye(d)[:, :K]
    W = s["sigma_W"] * R.T
    H = s["sigma_H"] * kron(R, sympy.ones(1, n))
    F = exact_F1(W, H, beta, q ** 2, p ** 2, K, n)
    return F.applyfunc(lambda x: sympy.cancel(sympy.expand(x)))


def _eigen_multiset(M: sympy.Matrix) -> dict:
    """Eigenvalues with multiplicities of a symbolic matrix, from the factorised charpolys of its
    connected components (sparsity blocks); each charpoly must split into linear factors."""
    x = sympy.Symbol("x")
    out: dict = {}
    for comp in M.connected_components():
        sub = M.extract(comp, comp)
        _, factors = sympy.factor_list(sub.charpoly(x).as_expr(), x)
        for fac, mult in factors:
            P = sympy.Poly(fac, x)
            if P.degree() != 1:
                raise RuntimeError(f"charpoly factor of degree {P.degree()}: {fac}")
            root = sympy.cancel(-P.coeff_monomial(1) / P.coeff_monomial(x))
            for key in list(out):
                if sympy.cancel(key - root) == 0:
                    root = key
                    break
            out[root] = out.get(root, 0) + mult
    return out


def _blk(F, k, kt, d, n):
    dn = d * n
    return F[k * dn:(k + 1) * dn, kt * dn:(kt + 1) * dn]


@lru_cache(maxsize=None)
def Fkk_spectrum(d: int = 3, K: int = 2, n: int = 2, k: int = 0) -> dict:
    """Derived eigenvalues of the intra-class block :math:`\\mathbf F_{k,k}` (symmetric, so singular values are their
    absolute values): ``{expression in lambda_H, lambda_W, beta: multiplicity}``."""
    F = collapsed_F(d, K, n)
    spec = _eigen_multiset(_blk(F, k, k, d, n))
    return {sympy.factor(to_lams(e)): m for e, m in spec.items()}


@lru_cache(maxsize=None)
def Fkk_tilde_singular_values(d: int = 3, K: int = 2, n: int = 2, k: int = 0, kt: int = 1) -> dict:
    """Derived squared singular values of :math:`\\mathbf F_{k,\\tilde k}` (:math:`k\\neq\\tilde k`), i.e. the eigenvalues of
    :math:`\\mathbf F_{k,\\tilde k}^\\top\\mathbf F_{k,\\tilde k}`, with multiplicities; also returns the eigenvalues of the block itself
    under key ``'eigenvalues'``."""
    F = collapsed_F(d, K, n)
    B = _blk(F, k, kt, d, n)
    sq = _eigen_multiset((B.T * B).applyfunc(sympy.cancel))
    return {"squared_singular_values": {sympy.factor(to_lams(e)): m for e, m in sq.items()},
            "eigenvalues": {sympy.factor(to_lams(e)): m for e, m in _eigen_multiset(B).items()}}


@lru_cache(maxsize=None)
def full_F_spectrum(d: int = 3, K: int = 2, n: int = 2) -> dict:
    """Derived eigenvalues (with multiplicities) of the whole :math:`dnK\\times dnK` matrix :math:`\\mathbf F` (5) at the collapsed minimiser."""
    return {sympy.factor(to_lams(e)): m for e, m in _eigen_multiset(collapsed_F(d, K, n)).items()}


# --------------------------------------------------------------------------- the paper's expressions (for comparison)
def paper_Fkk_spectrum(d: int, K: int, n: int) -> dict:
    """The spectrum of :math:`\\mathbf F_{k,k}` as App. D states it: eigenvalues :math:`\\lambda_i` (19)-(20) on
    :math:`\\mathbf s_j\\otimes\\mathbf r_i, j\\ge2` and :math:`\\lambda_i+\\mu_i/\\beta` on :math:`\\mathbf s_1\\otimes\\mathbf r_i` (21)."""
    d, K, n = _dims(d, K, n)
    c = sympy.sqrt(lam_H * lam_W)
    r = sympy.sqrt(lam_H / lam_W)
    lam_in = 1 - r / beta          # (19), 1 <= i <= K
    lam_out = 1 - lam_H / beta     # (20), K < i <= d
    mu_k = (2 * c - 1) ** 2 * r
    mu_i = (c ** 2 + (1 - c) ** 2) * r
    mu_j = lam_H
    items = [(lam_in, K * (n - 1)), (lam_out, (d - K) * (n - 1)), (lam_in + mu_k / beta, 1),
             (lam_in + mu_i / beta, K - 1), (lam_out + mu_j / beta, d - K)]
    out: dict = {}
    for e, m in items:
        if m == 0:
            continue
        key = next((k for k in out if _zero(k - e)), e)
        out[key] = out.get(key, 0) + m
    return out


def paper_thm52() -> dict:
    """Theorem 5.2 as stated: :math:`\\sigma_{\\max}(\\mathbf F_{k,k})=1`, :math:`\\sigma_{\\min}(\\mathbf F_{k,k})=1-\\beta^{-1}\\sqrt{\\lambda_H/\\lambda_W}`,
    :math:`\\sigma_{\\max}(\\mathbf F_{k,\\tilde k})=2\\beta^{-1}\\lambda_H(1-\\sqrt{\\lambda_H\\lambda_W})`."""
    return {"sigma_max_Fkk": sympy.Integer(1), "sigma_min_Fkk": 1 - sympy.sqrt(lam_H / lam_W) / beta,
            "sigma_max_Fkkt": 2 * lam_H * (1 - sympy.sqrt(lam_H * lam_W)) / beta}


def spectra_equal(a: dict, b: dict) -> bool:
    """Two ``{expression: multiplicity}`` multisets are equal (expressions compared exactly)."""
    left = dict(b)
    for e, m in a.items():
        match = next((k for k in left if _zero(k - e)), None)
        if match is None or left[match] != m:
            return False
        del left[match]
    return not left


def Z_blocks_paper(d: int, K: int, n: int, R: sympy.Matrix, sigma_H2, lam_W_, c) -> sympy.Matrix:
    """The whole :math:`\\mathbf Z^*` assembled from the blocks (18):
    :math:`\\frac1n\\mathbf 1\\mathbf 1^\\top\\otimes(\\delta_{k\\tilde k}c^2\\mathbf A+\\delta_{k\\tilde k}\\frac{(1-c)^2}{\\sigma_{\\bar H}^2+\\lambda_W}\\mathbf R\\mathbf R^\\top
    -\\frac{2c(1-c)}{\\sigma_{\\bar H}^2+\\lambda_W}\\mathbf r_{\\tilde k}\\mathbf r_k^\\top)`, :math:`\\mathbf A=(\\sigma_{\\bar H}^2\\mathbf R\\mathbf R^\\top+\\lambda_W\\mathbf I)^{-1}`."""
    d, K, n = _dims(d, K, n, strict=False)
    if not isinstance(R, sympy.MatrixBase) or R.shape != (d, K):
        raise VerifyInputError(f"Argument 'R' must be a sympy Matrix of shape ({d}, {K}), not {getattr(R, 'shape', R)!r}.")
    A = (sigma_H2 * R * R.T + lam_W_ * sympy.eye(d)).inv()
    J = sympy.ones(n, n) / n
    den = sigma_H2 + lam_W_
    rows = []
    for k in range(K):
        row = []
        for kt in range(K):
            inner = -2 * c * (1 - c) / den * R[:, kt] * R[:, k].T
            if k == kt:
                inner += c ** 2 * A + (1 - c) ** 2 / den * R * R.T
            row.append(kron(J, inner))
        rows.append(sympy.Matrix.hstack(*row))
    return sympy.Matrix.vstack(*rows)


def eigen_sign_analysis(spec: dict) -> dict:
    """Sign facts about a derived spectrum of :math:`\\mathbf F_{k,k}` that follow from the hypotheses alone, by sympy's
    sign deduction on factored expressions (no ``simplify``):

    * ``le_1`` / ``ge_floor``: every eigenvalue :math:`e` has :math:`1-e\\ge0` and :math:`e-(1-\\sqrt{\\lambda_H/\\lambda_W}/\\beta)\\ge0`, given
      :math:`\\lambda_H,\\lambda_W,\\beta>0`, :math:`c<1` (substituting :math:`\\lambda_H=p^2`, :math:`\\lambda_W=(c/p)^2`, :math:`c=1/(1+u)`, all positive);
    * ``floor_positive_stated``: whether :math:`1-\\sqrt{\\lambda_H/\\lambda_W}/\\beta>0` follows from these (sympy: ``None`` = undecided);
    * ``floor_positive_if_beta_gt_sqrt``: the same when :math:`\\beta=\\sqrt{\\lambda_H/\\lambda_W}(1+v)`, :math:`v>0`.
    """
    u, v = sympy.symbols("u v", positive=True)
    sub = {q: 1 / ((1 + u) * p)}  # c = pq = 1/(1+u) in (0, 1)
    floor = 1 - sympy.sqrt(lam_H / lam_W) / beta
    sign = lambda e, s: sympy.factor(sympy.cancel(to_pq(e).subs(s)))
    return {"le_1": all(bool(sign(1 - e, sub).is_nonnegative) for e in spec),
            "ge_floor": all(bool(sign(e - floor, sub).is_nonnegative) for e in spec),
            "floor_positive_stated": sign(floor, sub).is_positive,
            "floor_positive_if_beta_gt_sqrt": bool(sign(floor, {beta: p / q * (1 + v)}).is_positive)}


# --------------------------------------------------------------------------- LaTeX
@formula("N-D-sigmas", "sigma_Hbar^2, sigma_W^2 and their product at a collapsed minimiser (derived)")
def _sigmas_formula():
    s = collapsed_sigmas()
    sH2, sW2, c = sympy.symbols(r"\sigma_{\bar{H}}^{2} \sigma_{W}^{2} c")
    return [sympy.Eq(sH2, s["sigma_H2"]), sympy.Eq(sW2, s["sigma_W2"]),
            sympy.Eq(sympy.Symbol(r"\sigma_{\bar{H}}\sigma_{W}"), s["product"])]


@formula("N-D-eig", "spectrum of the intra-class block F_kk at a collapsed minimiser, with multiplicities (derived)",
         d=3, K=2, n=2)
def _fkk_formula(d=3, K=2, n=2):
    return [sympy.Eq(sympy.Symbol(rf"\mathrm{{eig}}_{{\times {m}}}(F_{{kk}})"), e)
            for e, m in sorted(Fkk_spectrum(d, K, n).items(), key=lambda t: str(t[0]))]


@formula("N-thm5.2", "sigma_max(F_kk~)^2 of the inter-class block and the extreme eigenvalues of F_kk (derived)",
         d=3, K=2, n=2)
def _thm52_formula(d=3, K=2, n=2):
    sv = Fkk_tilde_singular_values(d, K, n)["squared_singular_values"]
    out = [sympy.Eq(sympy.Symbol(rf"\sigma^2_{{\times {m}}}(F_{{k\tilde{{k}}}})"), e) for e, m in sv.items()]
    spec = Fkk_spectrum(d, K, n)
    return out + [sympy.Eq(sympy.Symbol(rf"\lambda_{{\times {m}}}(F_{{kk}})"), e) for e, m in spec.items()]


@formula("N-D.1-full-F", "spectrum of the whole first-order F at a collapsed minimiser (derived)", d=3, K=2, n=2)
def _full_formula(d=3, K=2, n=2):
    return [sympy.Eq(sympy.Symbol(rf"\mathrm{{eig}}_{{\times {m}}}(F)"), e) for e, m in full_F_spectrum(d, K, n).items()]


# --------------------------------------------------------------------------- Thm C.2, sharp (best constants, attained)
@lru_cache(maxsize=None)
def radial_loss_curvature(d: int = 3, K: int = 2, n: int = 2) -> dict:
    r"""The central-path loss :math:`\mathcal L` of (7) on the collapsed ray :math:`\mathbf H=s\,\mathbf R\otimes\mathbf 1_n^\top`,
    derived from the objective (1) on the ansatz (:func:`reduced_objective`, minimised over :math:`s_W` with ``sympy.solve``):
    :math:`\mathcal L(s)=\frac{\lambda_W}{2(s^2+\lambda_W)}+\frac{\lambda_H}2s^2`. Along the unit direction
    :math:`\hat{\mathbf v}=\mathbf R\otimes\mathbf 1_n^\top/\sqrt{Kn}`, :math:`\hat{\mathbf v}^\top\nabla^2(Kn\mathcal L)\hat{\mathbf v}=\kappa(s):=\mathcal L''(s)`
    (:math:`\|\mathbf H\|_F=s\sqrt{Kn}`). Returns ``{L, dL, kappa, s}`` (expressions in ``s``, :math:`\lambda_H,\lambda_W`)."""
    d, K, n = _dims(d, K, n, strict=False)
    g, sW, sH = reduced_objective(d, K, n)
    lin = sympy.Poly(sympy.diff(g, sW), sW)  # g is quadratic in s_W: one stationary point (no sympy.solve needed)
    if lin.degree() != 1:
        raise RuntimeError(f"expected d g / d s_W linear in s_W, got degree {lin.degree()}")
    L = sympy.cancel(g.subs(sW, sympy.cancel(-lin.coeff_monomial(1) / lin.coeff_monomial(sW))))
    return {"L": L, "dL": sympy.factor(sympy.cancel(sympy.diff(L, sH))),
            "kappa": sympy.factor(sympy.cancel(sympy.diff(L, sH, 2))), "s": sH}


@lru_cache(maxsize=None)
def thmC2_sharp() -> dict:
    r"""The sharp Theorem C.2, derived. With :math:`c=\lambda_H\lambda_W` and :math:`\kappa` of :func:`radial_loss_curvature`:

    * :math:`\max_s\kappa=\kappa(\sqrt{\lambda_W})=\lambda_H+\frac1{4\lambda_W}` (``sympy.solve`` of :math:`\kappa'=0`) and
      :math:`\min_s\kappa=\kappa(0)=\lambda_H-\frac1{\lambda_W}`; these are the extreme eigenvalues of :math:`\nabla^2(Kn\mathcal L)`
      over *every* :math:`\mathbf H` (upper: the Hessian of a partial minimum is at most :math:`\mathbf I\otimes\mathbf W^{*\top}\mathbf W^*+\lambda_H\mathbf I`
      and :math:`\|\mathbf W^*(\mathbf H)\|_{op}^2\le\frac1{4\lambda_W}`; lower: :math:`Kn\mathcal L=\frac{n\lambda_W}2\mathrm{tr}(\mathbf Y(\mathbf H^\top\mathbf H+n\lambda_W\mathbf I)^{-1}\mathbf Y^\top)+\frac{\lambda_H}2\|\mathbf H\|_F^2`
      has second derivative :math:`\ge(\lambda_H-\frac1{\lambda_W})\|\Delta\|_F^2`), so the sharp Lipschitz constant of :math:`\nabla\mathcal L` is
      :math:`\mathrm{Lip}=\frac1{Kn}\max\{\frac1{\lambda_W}-\lambda_H,\ \lambda_H+\frac1{4\lambda_W}\}` (first branch iff :math:`c\le\frac38`);
    * the weak-convexity modulus :math:`\rho=\frac1{\lambda_W}-\lambda_H`: for :math:`\beta>\max\{\rho,0\}` the map :math:`\mathbf H_0\mapsto\mathbf H^*`
      is :math:`(1-\rho/\beta)^{-1}`-Lipschitz, attained at :math:`\mathbf H_0=\mathbf 0`;
    * Thm C.2 as written (both parts, every :math:`\beta>11\lambda_H`) holds iff :math:`\frac1{12}\le c<1`;
    * for :math:`0<\beta<\rho` the minimisers at :math:`\mathbf H_0=\mathbf 0` are the orbit :math:`s_*\mathbf R\otimes\mathbf 1_n^\top` with
      :math:`s_*^2=\sqrt{\lambda_W/(\lambda_H+\beta)}-\lambda_W` (from :math:`\mathcal L'(s)+\beta s=0`; it is Thm 2.2's radius with
      :math:`\lambda_H+\beta`, the UFM that (2) is at :math:`\mathbf H_0=\mathbf 0`);
      at :math:`\beta=\rho`, :math:`\mathcal L'(s)+\rho s=\frac{2}{\lambda_W^2}s^3+O(s^5)` (series), so :math:`s\sim(\lambda_W^2\beta s_0/2)^{1/3}`.

    Keys: ``kappa, s_argmax, kappa_max, kappa_min, kappa_inf, lip_Kn, branch_threshold_c, rho, map_constant,
    paper_lip_Kn, loose_lip_Kn, region_c, s_star2, cubic_coefficient``; ``c`` is :data:`sympy.Symbol` ``"c"``."""
    rad = radial_loss_curvature()
    s, kappa = rad["s"], rad["kappa"]
    crit = [r for r in sympy.solve(sympy.numer(sympy.together(sympy.diff(kappa, s))), s) if r.is_positive]
    if len(crit) != 1:
        raise RuntimeError(f"expected one positive critical point of the radial curvature, got {crit}")
    kmax = sympy.factor(sympy.cancel(kappa.subs(s, crit[0])))
    kmin = sympy.factor(kappa.subs(s, 0))
    kinf = sympy.limit(kappa, s, sympy.oo)
    c = sympy.Symbol("c", positive=True)
    up, down = sympy.expand(kmax * lam_W).subs(lam_H, c / lam_W), sympy.expand(-kmin * lam_W).subs(lam_H, c / lam_W)
    threshold = sympy.solve(sympy.Eq(up, down), c)
    paper = 11 * lam_H
    # both parts of Thm C.2 as written: Kn Lip <= 11 lam_H (gradient) and rho <= 11 lam_H (map, every beta > 11 lam_H)
    region = sympy.Intersection(*(sympy.solve_univariate_inequality(sympy.expand(e - 11 * c) <= 0, c, relational=False)
                                  for e in (up, down)), sympy.Interval.open(0, 1))
    rho = -kmin
    # H0 = 0: stationarity L'(s) + beta s = 0 with s != 0 is a quadratic in u = s^2; its root that can be positive
    u = sympy.Symbol("u")
    quad = sympy.numer(sympy.together(sympy.cancel((rad["dL"] + beta * s) / s).subs(s, sympy.sqrt(u))))
    roots = [r for r in sympy.solve(quad, u) if not (r + lam_W).is_negative]
    if len(roots) != 1:
        raise RuntimeError(f"expected one admissible orbit radius, got {roots}")
    s_star2 = roots[0]
    rho_val = sympy.cancel(rho)
    cubic = sympy.series(sympy.cancel((rad["dL"] + rho_val * s)), s, 0, 5).removeO()
    return {"kappa": kappa, "s_argmax": crit[0], "kappa_max": kmax, "kappa_min": kmin, "kappa_inf": kinf,
            "lip_Kn": sympy.Max(-kmin, kmax), "branch_threshold_c": threshold, "rho": rho,
            "map_constant": 1 / (1 - rho / beta), "paper_lip_Kn": paper, "loose_lip_Kn": 10 / lam_W + lam_H,
            "region_c": region, "s_star2": s_star2, "cubic_coefficient": sympy.factor(cubic.coeff(s, 3)),
            "series_at_beta_rho": sympy.expand(cubic), "c": c}


def exact_loss_hessian(H: sympy.Matrix, lam_W_, lam_H_, K: int, n: int) -> sympy.Matrix:
    r""":math:`\mathbf M(\mathbf H)=\nabla^2(Kn\mathcal L)(\mathbf H)=\lambda_H\mathbf I+\mathbf I_{Kn}\otimes\mathbf W^{*\top}\mathbf W^*-\mathbf Z^*` with
    :math:`\mathbf W^*=\mathbf Y\mathbf H^\top(\mathbf H\mathbf H^\top+n\lambda_W\mathbf I)^{-1}` (the Schur complement of the Hessian of
    :math:`Kn f` at :math:`\beta=0`; exact for rational entries). Then :math:`\mathbf F=(\mathbf I+\mathbf M/\beta)^{-1}` (Thm C.1)."""
    K, n = verify_int(K, "K", minimum=1), verify_int(n, "n", minimum=1)
    H = sympy.Matrix(H)
    if H.cols != K * n:
        raise VerifyInputError(f"Argument 'H' must have K*n = {K * n} columns, not {H.cols}.")
    d = H.rows
    W = _labels(K, n) * H.T * (H * H.T + n * lam_W_ * sympy.eye(d)).inv()
    _, Z = exact_F1(W, H, 1, lam_W_, lam_H_, K, n, return_Z=True)
    return lam_H_ * sympy.eye(d * K * n) + kron(sympy.eye(K * n), W.T * W) - Z


@formula("N-thmC.2-sharp", "sharp Lipschitz constant of grad L (attained), the sharp map constant for beta > "
                           "max{1/lam_W - lam_H, 0}, and the region of lam_H lam_W where Thm C.2 as written holds (derived)")
def _thmC2_sharp_formula():
    t = thmC2_sharp()
    Lip, Lmap = sympy.Symbol(r"Kn\,\mathrm{Lip}(\nabla\mathcal{L})"), sympy.Symbol(r"\mathrm{Lip}(H_0\mapsto{}H^*)")
    return [sympy.Eq(Lip, t["lip_Kn"]), sympy.Eq(Lmap, t["map_constant"]),
            sympy.Contains(lam_H * lam_W, t["region_c"], evaluate=False)]
