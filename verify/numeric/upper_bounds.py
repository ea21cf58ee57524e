r"""Paper S, section 3 and Lemmas A.1-A.3: the two upper bounds on :math:`\sup_W \tilde L(W)`.

**Theorem 3.1** (:math:`O(pd^m)`). With :math:`y = (Wx)^{\otimes m}`, :math:`\tilde L(W) = 2E\langle x, C_W y\rangle
- E\|C_W y\|^2 \le \mathcal M(W) = \sup_C (2E\langle x, Cy\rangle - E\|Cy\|^2) = \operatorname{tr}(M\Sigma^+M^T)`
(Lemma A.3), :math:`\Sigma = E[yy^T]`, :math:`M = E[xy^T]`. Eq. (11) writes :math:`\mathcal M(W)` as a sum of
:math:`r = \operatorname{rank}\Sigma \le d^m` terms :math:`\|E[x\psi_i(x)]\|^2` with unit-variance odd
polynomials :math:`\psi_i`, and eq. (12)-(13) bound each by :math:`p\mu_2`. So the proof's constant is

.. math:: \sup_W \tilde L(W) \le \mathcal M(W) \le r\,p\,\mu_2 \le C_2\,p\,d^m, \qquad C_2 = \mu_2 .

(the proof even gives :math:`r \le \binom{d+m-1}{m}`, the number of distinct monomials of :math:`Wx`).

**Theorem 3.2** (:math:`O(d)`). For :math:`x = \xi\odot b`, :math:`\xi \sim \nu \propto e^{-V}`,
:math:`K^{-1} I \preceq \nabla^2 V \preceq K I`: :math:`\tilde L(W) \le E\|E[x\mid Px]\|^2` (eq. 16), and with
:math:`y = x_{1..d}`, :math:`z = x_{d+1..n}`: :math:`E\|y\|^2 \le Kd` (Poincare), :math:`m(y) = E[z\mid y]` is
:math:`K`-Lipschitz (Lemma A.1, Brascamp-Lieb, Lemma A.2), so :math:`E\|m(y)\|^2 = \tfrac12 E\|m(y)-m(y')\|^2
\le K^2 E\|y\|^2 \le K^3 d` *provided* :math:`E m(y) = E z = 0`. Hence

.. math:: \sup_W \tilde L(W) \le C_3\, d, \qquad C_3 = K + K^3 .

Moments of linear forms of :math:`x` (coordinates i.i.d., given by their cumulants) are computed
exactly from set partitions: :math:`E\prod_t \langle l_t, x\rangle = \sum_\pi \prod_{B\in\pi}
\kappa_{|B|} \sum_j \prod_{t\in B} l_{t,j}` (:func:`linear_form_moment`); this works for Fractions
(exact) and floats alike, and for non-centred coordinates.

>>> from fractions import Fraction
>>> round(float(tensor_bound([[1.0, 0.5, 0.0], [0.0, 1.0, 1.0]], 0.1, m=3).value), 6) > 0
True
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, Sequence

import mpmath
import numpy as np
import sympy

from .._validate import (
    VerifyInputError,
    verify_array,
    verify_int,
    verify_odd_m,
    verify_positive,
    verify_probability,
    verify_square_symmetric,
)

__all__ = [
    "to_fraction",
    "coordinate_cumulants",
    "linear_form_moment",
    "monomial_exponents",
    "TensorBound",
    "tensor_bound",
    "eq11_terms",
    "lemA3_objective",
    "lemA3_value",
    "lemA3_maximise",
    "eq12_projection_matrix",
    "thm31_constant",
    "thm31_bound",
    "strong_log_concavity_K",
    "logcosh_gaussian",
    "thm32_constant",
    "thm32_bound",
    "schur_ratio",
    "footnote4_factor",
    "footnote3_sides",
    "marginal_curvature",
    "loss_parts",
    "general_loss",
    "scaling_coefficients",
    "optimally_scaled",
    "structured_candidates",
    "conditional_energy_1d",
    "lemA1_sides",
]


# --------------------------------------------------------------------------- moments of linear forms
def to_fraction(v: Any) -> Fraction:
    """Exact conversion of an int / float (its binary value) / Fraction / sympy Rational; raises for irrationals.

    >>> to_fraction(sympy.Rational(3, 4)), to_fraction(0.5)
    (Fraction(3, 4), Fraction(1, 2))
    """
    if isinstance(v, Fraction):
        return v
    if isinstance(v, (int, np.integer)):
        return Fraction(int(v))
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(v):
            raise VerifyInputError(f"Argument 'value' must be finite, not {v!r}.")
        return Fraction(float(v))  # the exact binary value of the float
    s = sympy.sympify(v)
    if not s.is_Rational:
        raise VerifyInputError(f"Argument 'value' must be rational for exact arithmetic, not {v!r}.")
    return Fraction(int(s.p), int(s.q))


def _moment_fn(mu: Any) -> Callable[[int], Any]:
    from .distributions import get_distribution

    dist = get_distribution(mu)
    return dist.moment


def coordinate_cumulants(mu: Any, p: Any, kmax: int, exact: bool = True, moments: Sequence | None = None) -> list:
    r"""Cumulants :math:`\kappa_0..\kappa_{kmax}` of one coordinate :math:`x = \xi b`, :math:`E x^k = p\mu_k`.

    Uses :math:`\kappa_n = m_n - \sum_{k=1}^{n-1}\binom{n-1}{k-1}\kappa_k m_{n-k}`. ``moments`` (raw moments
    :math:`E\xi^k`, index 0..kmax) overrides ``mu`` (used for non-centred examples); ``exact`` gives Fractions.

    >>> coordinate_cumulants("gaussian", Fraction(1, 2), 4)[2:]
    [Fraction(1, 2), Fraction(0, 1), Fraction(3, 4)]
    """
    kmax = verify_int(kmax, "kmax", minimum=1)
    verify_probability(p, "p")
    conv = to_fraction if exact else float
    if moments is None:
        mom = _moment_fn(mu)
        raw = [conv(mom(k)) if k else conv(1) for k in range(kmax + 1)]
    else:
        if len(moments) < kmax + 1:
            raise VerifyInputError(f"Argument 'moments' must hold at least {kmax + 1} entries, not {len(moments)}.")
        raw = [conv(v) for v in moments[: kmax + 1]]
    pp = conv(p)
    mx = [conv(1)] + [pp * raw[k] for k in range(1, kmax + 1)]
    kap = [conv(0)] * (kmax + 1)
    for n_ in range(1, kmax + 1):
        kap[n_] = mx[n_] - sum(math.comb(n_ - 1, k - 1) * kap[k] * mx[n_ - k] for k in range(1, n_))
    return kap


@lru_cache(maxsize=None)
def _partitions(T: int, sizes: frozenset) -> tuple:
    """Set partitions of ``range(T)`` whose block sizes all lie in ``sizes`` (block with 0 first)."""
    def rec(items):
        if not items:
            yield ()
            return
        first, rest = items[0], items[1:]
        for k in range(0, len(rest) + 1):
            if k + 1 not in sizes:
                continue
            for comb in itertools.combinations(rest, k):
                left = tuple(i for i in rest if i not in comb)
                for tail in rec(left):
                    yield ((first,) + comb,) + tail

    return tuple(rec(tuple(range(T))))


def linear_form_moment(L: Any, cumulants: Sequence) -> Any:
    r""":math:`E\prod_{t} \langle L_t, x\rangle` for :math:`x` with i.i.d. coordinates of cumulants ``cumulants[k]``.

    Sum over set partitions :math:`\pi` of the factors: :math:`\prod_{B\in\pi}\kappa_{|B|}\sum_j\prod_{t\in B}L_{t,j}`
    (joint cumulants of independent sums add). ``L`` may be a float or an object (Fraction) array.

    >>> float(linear_form_moment(np.array([[1.0, 1.0]] * 2), [0, 0, 1.0]))   # E (x1 + x2)^2, unit variance
    2.0
    """
    L = np.asarray(L)
    T = L.shape[0]
    if T == 0:
        return 1
    sizes = frozenset(k for k in range(1, T + 1) if k < len(cumulants) and cumulants[k] != 0)
    total = 0
    block_cache: dict = {}
    for part in _partitions(T, sizes):
        term = 1
        for B in part:
            if B not in block_cache:
                block_cache[B] = cumulants[len(B)] * np.prod(L[list(B)], axis=0).sum()
            term = term * block_cache[B]
        total = total + term
    return total


def monomial_exponents(d: int, m: int) -> list[tuple]:
    """Exponent vectors :math:`\\alpha \\in \\mathbb N^d`, :math:`|\\alpha| = m` (graded lexicographic order)."""
    d = verify_int(d, "d", minimum=1)
    m = verify_int(m, "m", minimum=0)
    return [tuple(c.count(i) for i in range(d)) for c in itertools.combinations_with_replacement(range(d), m)]


def _rows_of(W: np.ndarray, alpha: tuple) -> list:
    return [W[i] for i, a in enumerate(alpha) for _ in range(a)]


# --------------------------------------------------------------------------- Theorem 3.1 / Lemma A.3 / eq. (11)
@dataclass
class TensorBound:
    r""":math:`\mathcal M(W) = \operatorname{tr}(M\Sigma^+M^T)` and its ingredients (monomial basis of :math:`y`)."""

    value: Any
    Sigma: Any  # E[y y^T], y = monomials of Wx of degree m
    M: Any  # E[x y^T]
    rank: int
    exponents: list
    mean_y: Any  # E[y] (0 for symmetric mu, odd m)

    def tensor_basis(self, d: int, m: int) -> tuple[np.ndarray, np.ndarray]:
        """:math:`(\\Sigma, M)` for the paper's :math:`y = (Wx)^{\\otimes m} \\in \\mathbb R^{d^m}` (float)."""
        index = {a: k for k, a in enumerate(self.exponents)}
        T = np.zeros((d ** m, len(self.exponents)))
        for r, tup in enumerate(itertools.product(range(d), repeat=m)):
            T[r, index[tuple(tup.count(i) for i in range(d))]] = 1.0
        S = np.array(self.Sigma, dtype=float)
        Mm = np.array(self.M, dtype=float)
        return T @ S @ T.T, Mm @ T.T


def tensor_bound(W: Any, p: Any, m: int = 3, mu: Any = "gaussian", exact: bool = False) -> TensorBound:
    r"""The proof's intermediate bound :math:`\mathcal M(W)` of Theorem 3.1 (via Lemma A.3).

    :math:`y` is taken in the basis of the :math:`\binom{d+m-1}{m}` distinct monomials of :math:`z = Wx`: it
    spans the same functions as :math:`(Wx)^{\otimes m}`, and :math:`\sup_C` depends only on that span.
    ``exact=True`` needs a rational ``W`` (Fraction / int / sympy entries), rational ``p`` and rational
    moments; :math:`\Sigma^+` is then handled exactly by restricting to a maximal independent set of
    monomials (rref pivots), where :math:`\Sigma` is invertible.

    >>> tb = tensor_bound([[1, 0], [0, 1]], Fraction(1, 4), m=1, exact=True)   # linear case: M = p mu_2 d
    >>> tb.value, tb.rank
    (Fraction(1, 2), 2)
    """
    m = verify_odd_m(m)
    verify_probability(p, "p")
    if exact:
        W = np.array([[to_fraction(v) for v in row] for row in np.asarray(W, dtype=object)], dtype=object)
        if W.ndim != 2:
            raise VerifyInputError(f"Argument 'W' must be a 2-D array, not an array of shape {W.shape}.")
    else:
        W = verify_array(W, "W", ndim=2)
    d, n = W.shape
    kap = coordinate_cumulants(mu, p, 2 * m, exact=exact)
    exps = monomial_exponents(d, m)
    q = len(exps)
    zero = Fraction(0) if exact else 0.0
    Sigma = np.full((q, q), zero, dtype=object if exact else float)
    for a in range(q):
        for b in range(a, q):
            v = linear_form_moment(np.array(_rows_of(W, exps[a]) + _rows_of(W, exps[b])), kap)
            Sigma[a, b] = Sigma[b, a] = v
    E = np.eye(n, dtype=int)
    Mx = np.full((n, q), zero, dtype=object if exact else float)
    for j in range(n):
        ej = np.array([Fraction(int(v)) for v in E[j]], dtype=object) if exact else E[j].astype(float)
        for a in range(q):
            Mx[j, a] = linear_form_moment(np.array([ej] + _rows_of(W, exps[a])), kap)
    mean_y = [linear_form_moment(np.array(_rows_of(W, e)), kap) for e in exps]
    if exact:
        S = sympy.Matrix(Sigma.tolist())
        _, piv = S.rref()
        piv = list(piv)
        Ssub = S.extract(piv, piv)
        Msub = sympy.Matrix(Mx.tolist()).extract(list(range(n)), piv)
        val = (Msub * Ssub.inv() * Msub.T).trace()
        return TensorBound(to_fraction(val), Sigma, Mx, len(piv), exps, mean_y)
    evals = np.linalg.eigvalsh(Sigma)
    # relative rank cut: eigenvalues below q * eps * lambda_max are round-off of exact zeros
    tol = max(q, 1) * np.finfo(float).eps * max(float(evals.max()), 1e-300) * 10
    rank = int((evals > tol).sum())
    val = float(np.trace(Mx @ np.linalg.pinv(Sigma, rcond=tol / max(float(evals.max()), 1e-300), hermitian=True) @ Mx.T))
    return TensorBound(val, Sigma, Mx, rank, exps, np.array(mean_y, dtype=float))


def eq11_terms(Sigma: Any, M: Any, rtol: float = 1e-10) -> dict:
    r"""Eq. (11): :math:`\Sigma = \sum_i \lambda_i u_iu_i^T` (nonzero part); terms :math:`\|Mu_i\|^2/\lambda_i`
    and the variances :math:`u_i^T\Sigma u_i/\lambda_i` of the normalised polynomials (all 1).

    ``rtol``: eigenvalues below ``rtol * lambda_max`` count as zero (round-off of an exactly singular Sigma).
    """
    S = verify_array(Sigma, "Sigma", ndim=2)
    Mm = verify_array(M, "M", ndim=2)
    lam, U = np.linalg.eigh(S)
    keep = lam > rtol * lam.max()
    lam, U = lam[keep], U[:, keep]
    terms = np.sum((Mm @ U) ** 2, axis=0) / lam
    variances = np.einsum("ki,kl,li->i", U, S, U) / lam
    return {"terms": terms, "sum": float(terms.sum()), "variances": variances, "rank": int(keep.sum())}


def lemA3_objective(C: Any, M: Any, Sigma: Any) -> Any:
    r"""The Lemma A.3 objective :math:`2\operatorname{tr}(CM^T) - \operatorname{tr}(C\Sigma C^T)`
    (= :math:`2E\langle x, Cy\rangle - E\|Cy\|^2`). Works for numpy and sympy matrices."""
    if isinstance(C, sympy.MatrixBase):
        return 2 * (C * M.T).trace() - (C * Sigma * C.T).trace()
    C, M, Sigma = (np.asarray(a, dtype=float) for a in (C, M, Sigma))
    return 2 * np.trace(C @ M.T) - np.trace(C @ Sigma @ C.T)


def _lemA3_inputs(M: Any, Sigma: Any) -> tuple[np.ndarray, np.ndarray]:
    """Float ``M`` (q x r) and symmetric ``Sigma`` (r x r) of Lemma A.3, validated."""
    Sigma = verify_square_symmetric(Sigma, "Sigma")
    M = verify_array(M, "M", ndim=2, shape=(None, Sigma.shape[0]))
    return M, Sigma


def lemA3_value(M: Any, Sigma: Any) -> Any:
    r""":math:`\operatorname{tr}(M\Sigma^+M^T)`; exact (sympy ``pinv``) for sympy matrices, else float64."""
    if isinstance(Sigma, sympy.MatrixBase):
        if not (Sigma.is_square and M.cols == Sigma.rows):
            raise VerifyInputError(f"Arguments 'M' ({M.shape}) and 'Sigma' ({Sigma.shape}) must be q x r and r x r.")
        return (M * Sigma.pinv() * M.T).trace()
    M, Sigma = _lemA3_inputs(M, Sigma)
    return float(np.trace(M @ np.linalg.pinv(Sigma, hermitian=True) @ M.T))


def lemA3_maximise(M: Any, Sigma: Any, seed: int = 0) -> tuple[float, np.ndarray]:
    """Maximise the Lemma A.3 objective over C numerically (scipy L-BFGS, random start); no formula used."""
    from scipy.optimize import minimize

    M, Sigma = _lemA3_inputs(M, Sigma)
    seed = verify_int(seed, "seed", minimum=0)
    q, r = M.shape
    x0 = np.random.default_rng(seed).standard_normal(q * r)

    def f(c):
        C = c.reshape(q, r)
        return -lemA3_objective(C, M, Sigma), -(2 * M - 2 * C @ Sigma).ravel()

    res = minimize(f, x0, jac=True, method="L-BFGS-B", options={"gtol": 1e-13, "ftol": 1e-15, "maxiter": 5000})
    return float(-res.fun), res.x.reshape(q, r)


# --------------------------------------------------------------------------- eq. (12)-(13)
def eq12_projection_matrix(n: int, m: int, p: Any, mu: Any = "gaussian") -> sympy.Matrix:
    r"""Exact :math:`Q = M G^+ M^T` with :math:`G_{\alpha\beta} = E[x^\alpha x^\beta]`, :math:`M_{j\alpha} = E[x_jx^\alpha]`
    over all degree-:math:`m` monomials :math:`x^\alpha` in :math:`n` variables.

    :math:`\sup_{\psi}\|E[x\psi(x)]\|^2` over degree-:math:`m` homogeneous :math:`\psi` with :math:`E\psi^2 = 1`
    equals :math:`\lambda_{\max}(Q)` (project :math:`\langle a, x\rangle` onto the span), so eq. (12)-(13)
    says :math:`p\mu_2 I - Q \succeq 0`.
    """
    n = verify_int(n, "n", minimum=1)
    m = verify_odd_m(m)
    verify_probability(p, "p")
    mom = _moment_fn(mu)
    pp = to_fraction(p)
    mx = [Fraction(1)] + [pp * to_fraction(mom(k)) for k in range(1, 2 * m + 2)]

    def E(alpha):
        out = Fraction(1)
        for a in alpha:
            out *= mx[a]
        return out

    exps = monomial_exponents(n, m)
    G = sympy.Matrix(len(exps), len(exps), lambda a, b: sympy.Rational(E(tuple(u + v for u, v in zip(exps[a], exps[b])))))
    Mm = sympy.Matrix(n, len(exps), lambda j, a: sympy.Rational(
        E(tuple(v + (1 if i == j else 0) for i, v in enumerate(exps[a])))))
    _, piv = G.rref()
    piv = list(piv)
    Gs = G.extract(piv, piv)
    Ms = Mm.extract(list(range(n)), piv)
    return Ms * Gs.inv() * Ms.T


# --------------------------------------------------------------------------- the explicit constants
def _mu2(mu: Any) -> Any:
    return _moment_fn(mu)(2)


def thm31_constant(mu: Any = "gaussian") -> Any:
    r"""Theorem 3.1's constant :math:`C_2 = \mu_2`: :math:`\tilde L \le \mathcal M(W) \le r p\mu_2`
    (eq. 11 + eq. 13), :math:`r \le d^m` (proof of Thm 3.1, after eq. 11)."""
    return _mu2(mu)


def thm31_bound(d: int, p: Any, m: int = 3, mu: Any = "gaussian", sharp: bool = False) -> Any:
    r""":math:`C_2 p d^m`; ``sharp=True`` uses the proof's :math:`r \le \binom{d+m-1}{m}` instead of :math:`d^m`."""
    d = verify_int(d, "d", minimum=1)
    m = verify_odd_m(m)
    verify_probability(p, "p")
    r = math.comb(d + m - 1, m) if sharp else d ** m
    return thm31_constant(mu) * p * r


_NOT_SLC = {
    "uniform": "uniform: v'' = 0 inside the support (not strongly convex), no positive density outside",
    "laplace": "Laplace: v(x) = |x|/b has v'' = 0 for x != 0 (log-concave, not strongly)",
    "rademacher": "Rademacher: discrete, no density",
}


def strong_log_concavity_K(mu: Any) -> tuple[Any, str]:
    r"""The hypothesis of Thm 2.2(2): :math:`K` with :math:`v'' \in [K^{-1}, K]` for :math:`\mu \propto e^{-v}`
    (from :meth:`Distribution.strong_log_concavity`), or ``None``, with the reason in words.

    Gaussian :math:`N(0, s^2)`: :math:`v'' = s^{-2}`, :math:`K = \max(s^2, s^{-2})`; uniform, Laplace, Rademacher:
    not strongly log-concave, so Theorem 3.2 says nothing about them.

    >>> strong_log_concavity_K("laplace")[0] is None
    True
    """
    from .distributions import get_distribution

    dist = get_distribution(mu)
    K = dist.strong_log_concavity()
    if K is not None:
        return K, f"{dist.name}: v'' = 1/variance is constant, K = max(variance, 1/variance)"
    base = dist.name.split("(")[0]
    return None, _NOT_SLC.get(base, f"{dist.name}: not known to be strongly log-concave")


def logcosh_gaussian(a: Any = 1, kmax: int = 10, dps: int = 40) -> tuple:
    r"""A non-Gaussian strongly log-concave :math:`\mu \propto e^{-v}`, :math:`v = x^2/2 + a\log\cosh x`:
    :math:`v'' = 1 + a\,\mathrm{sech}^2 x \in [1, 1 + a]`, so :math:`K = 1 + a` (sympy checks the range).

    Returns ``(MomentSequence, K)``: moments :math:`\mu_1..\mu_{kmax}` by mpmath quadrature at ``dps`` digits, read
    as exact decimals (30 significant digits).
    """
    from .distributions import MomentSequence

    verify_positive(a, "a")
    kmax = verify_int(kmax, "kmax", minimum=2)
    x = sympy.Symbol("x", real=True)
    v = x ** 2 / 2 + sympy.Rational(str(a)) * sympy.log(sympy.cosh(x))
    v2 = sympy.diff(v, x, 2).rewrite(sympy.exp)
    lo, hi = sympy.limit(v2, x, sympy.oo), v2.subs(x, 0)  # sech^2 decreases in |x|: extremes at infinity and 0
    K = max(sympy.nsimplify(hi), 1 / sympy.nsimplify(lo))
    vf = sympy.lambdify(x, v, "mpmath")
    pts = [-mpmath.inf, 0, mpmath.inf]
    mom = []
    with mpmath.workdps(dps):
        Z = mpmath.quad(lambda t: mpmath.exp(-vf(t)), pts)
        for k in range(1, kmax + 1):
            mk = mpmath.quad(lambda t: t ** k * mpmath.exp(-vf(t)), pts) / Z if k % 2 == 0 else 0
            mom.append(sympy.Rational(mpmath.nstr(mk, 30)) if k % 2 == 0 else sympy.Integer(0))
    return MomentSequence(mom, name=f"logcosh({a})"), K


def thm32_constant(K: Any) -> Any:
    r"""Theorem 3.2's constant :math:`C_3 = K + K^3`: :math:`E\|y\|^2 \le Kd` (Poincare) plus
    :math:`E\|m(y)\|^2 \le K^2 E\|y\|^2 \le K^3 d` (Lipschitz step with Lemmas A.1, A.2)."""
    verify_positive(K, "K")
    return K + K ** 3


def thm32_bound(d: int, K: Any) -> Any:
    """:math:`C_3 d = (K + K^3) d`."""
    return thm32_constant(K) * verify_int(d, "d", minimum=1)


# --------------------------------------------------------------------------- Lemma A.2, footnotes 3, 4
def schur_ratio(A: Any, k: int) -> float:
    r""":math:`\|A_{12}A_{22}^{-1}A_{21}\|_{op} / \|A\|_{op}` for a positive definite :math:`A`, leading block size ``k``."""
    A = verify_array(A, "A", ndim=2)
    k = verify_int(k, "k", minimum=1, maximum=A.shape[0] - 1)
    X = A[:k, k:] @ np.linalg.solve(A[k:, k:], A[k:, :k])
    return float(np.linalg.norm(X, 2) / np.linalg.norm(A, 2))


def footnote4_factor(W: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""Footnote 4: :math:`W = U^T\Sigma V` (SVD), :math:`P` = first :math:`d` rows of :math:`V` and
    :math:`W' = U^T\Sigma_{[:, :d]}`, so :math:`W = W'P`, :math:`PP^T = I_d` (:math:`P^TP` is the rank-:math:`d`
    orthogonal projection)."""
    W = verify_array(W, "W", ndim=2)
    d, n = W.shape
    if n < d:
        raise VerifyInputError(f"Argument 'W' must have at least as many columns as rows (n >= d), not shape {W.shape}.")
    U, s, Vt = np.linalg.svd(W, full_matrices=True)
    return U * s, Vt[:d]


def footnote3_sides(W: Any, x: Any, m: int = 3) -> tuple[float, float, float]:
    r"""Footnote 3 (ii): for ``x`` supported on :math:`S`, returns
    :math:`(\langle x,\phi(W^TWx)\rangle - \|\phi(W^TWx)\|^2,\ \langle x_S, \phi(W_S^TW_Sx_S)\rangle
    - \|\phi(W_S^TW_Sx_S)\|^2,\ \|\phi(W_{S^c}^TW_Sx_S)\|^2)`; exactly, left = right - third."""
    m = verify_odd_m(m)
    W = verify_array(W, "W", ndim=2)
    x = verify_array(x, "x", shape=(W.shape[1],))
    S = np.flatnonzero(x)
    out = (W.T @ (W @ x)) ** m
    WS = W[:, S]
    outS = (WS.T @ (WS @ x[S])) ** m
    off = np.delete(out, S)
    return float(x @ out - out @ out), float(x[S] @ outS - outS @ outS), float(off @ off)


def marginal_curvature(V: sympy.Expr, y: sympy.Symbol, z: sympy.Symbol, y0: Any) -> Any:
    r"""Footnote 3 (i): :math:`\frac{d^2}{dy^2}\bigl(-\log\int e^{-V(y,z)}dz\bigr)` at :math:`y_0`, the curvature of the
    marginal potential of a 2-D Gibbs measure (``mpmath.diff`` of a quadrature, current precision).

    >>> ys, zs = sympy.symbols("y z")
    >>> float(marginal_curvature((ys**2 + zs**2) / 2 + ys * zs / 2, ys, zs, 0))   # Gaussian: Schur complement 3/4
    0.75
    """
    Vf = sympy.lambdify((y, z), V, "mpmath")
    pts = [-mpmath.inf, 0, mpmath.inf]
    return mpmath.diff(lambda t: -mpmath.log(mpmath.quad(lambda u: mpmath.exp(-Vf(t, u)), pts)), mpmath.mpf(y0), 2)


# --------------------------------------------------------------------------- losses and the sup over W
def loss_parts(W: Any, cumulants: Sequence, m: int = 3) -> tuple:
    r"""Eq. (19)'s :math:`a = \sum_i E[x_i(a_i^Tx)^m]` and :math:`b = \sum_i E[(a_i^Tx)^{2m}]` (:math:`A = W^TW`) for
    i.i.d. coordinates given by their cumulants (any, e.g. non-centred): :math:`\tilde L(tW) = 2t^{2m}a - t^{4m}b`,
    :math:`\sup_t = a^2/b` when :math:`a > 0`. Exact for Fraction input.

    >>> loss_parts(np.array([[Fraction(1)]]), [0, 0, Fraction(1)], m=1)   # N(0,1), W = 1: a = 1, b = 1
    (Fraction(1, 1), Fraction(1, 1))
    """
    m = verify_odd_m(m)
    exact = np.asarray(W).dtype == object
    W = np.asarray(W) if exact else verify_array(W, "W", ndim=2)
    A = W.T @ W
    n = A.shape[0]
    a = b = 0
    for i in range(n):
        e = np.array([Fraction(int(i == j)) for j in range(n)], dtype=object) if exact else np.eye(n)[i]
        a = a + linear_form_moment(np.array([e] + [A[i]] * m), cumulants)
        b = b + linear_form_moment(np.array([A[i]] * (2 * m)), cumulants)
    return a, b


def general_loss(W: Any, cumulants: Sequence, m: int = 3) -> Any:
    r""":math:`\tilde L(W) = 2a - b` with :math:`(a, b)` = :func:`loss_parts` (any i.i.d. coordinate law)."""
    a, b = loss_parts(W, cumulants, m)
    return 2 * a - b


def scaling_coefficients(W: Any, p: Any, m: int = 3, mu: Any = "gaussian", loss: Callable | None = None) -> tuple:
    r"""Eq. (19): :math:`\tilde L(tW) = 2 s a - s^2 b` with :math:`s = t^{2m}`; returns :math:`(a, b)` from two
    evaluations :math:`\tilde L(W) = 2a - b`, :math:`\tilde L(2^{1/(2m)}W) = 4a - 4b`."""
    from .superposition_loss import exact_loss

    loss = loss or (lambda V: exact_loss(V, p, m=m, mu=mu))
    W = np.asarray(W, dtype=float)
    l1, l2 = loss(W), loss(2 ** (1 / (2 * m)) * W)
    b = (2 * l1 - l2) / 2
    return (l1 + b) / 2, b


def optimally_scaled(W: Any, p: Any, m: int = 3, mu: Any = "gaussian") -> tuple[np.ndarray, float]:
    r""":math:`tW` with the best :math:`t`: value :math:`a^2/b` if :math:`a > 0` (else :math:`W \to 0`, value 0)."""
    a, b = scaling_coefficients(W, p, m, mu)
    W = np.asarray(W, dtype=float)
    if a <= 0 or b <= 0:
        return 0 * W, 0.0
    s = a / b
    return s ** (1 / (2 * m)) * W, float(a * a / b)


def structured_candidates(d: int, n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Unscaled structured W's: diagonal (unsuperposed), random Gaussian, random projection (orthonormal
    rows), harmonic frame (unit columns at equally spread angles, d = 2) or random unit-column frame."""
    d = verify_int(d, "d", minimum=1)
    n = verify_int(n, "n", minimum=d)
    rng = np.random.default_rng(seed)
    out = {"diagonal": np.hstack([np.eye(d), np.zeros((d, n - d))]),
           "random": rng.standard_normal((d, n)) / math.sqrt(n)}
    Q, _ = np.linalg.qr(rng.standard_normal((n, d)))
    out["projection"] = Q.T
    if d == 2:
        th = np.pi * np.arange(n) / n
        out["frame"] = np.vstack([np.cos(th), np.sin(th)])
    else:
        F = rng.standard_normal((d, n))
        out["frame"] = F / np.linalg.norm(F, axis=0)
    return out


# --------------------------------------------------------------------------- eq. (16) with sparsity, d = 1
def conditional_energy_1d(v: Any, p: Any, sigma2: Any = 1) -> Any:
    r""":math:`E\|E[x \mid \langle v, x\rangle]\|^2` for :math:`x = \xi\odot b`, :math:`\xi \sim N(0, \sigma^2 I_n)`,
    :math:`b` i.i.d. Bernoulli(:math:`p`), :math:`\|v\| = 1` (rank-1 projection, eq. 16 with :math:`d = 1`).

    Given :math:`b`, :math:`s = \langle v, x\rangle \sim N(0, \sigma^2\|v_b\|^2)` and :math:`E[x\mid s,b] =
    v_b s/\|v_b\|^2` (:math:`v_b = v\odot b`); patterns with :math:`v_b = 0` put an atom at :math:`s = 0` where the
    conditional mean is 0. So the energy is :math:`\int \|\sum_b \pi_b\varphi_b(s) v_b s/\|v_b\|^2\|^2 /
    \sum_b\pi_b\varphi_b(s)\,ds` (mpmath quadrature at the current precision).
    """
    verify_probability(p, "p")
    verify_positive(sigma2, "sigma2")
    vf = verify_array(v, "v", ndim=1)
    # unit norm up to the round-off of a float64 normalisation (the formula assumes |v| = 1)
    if vf.size == 0 or abs(float(np.linalg.norm(vf)) - 1.0) > 1e-12:
        raise VerifyInputError(f"Argument 'v' must be a unit vector, not one of norm {float(np.linalg.norm(vf))}.")
    v = [mpmath.mpf(t) for t in v]
    n = len(v)
    pp, s2 = mpmath.mpf(p), mpmath.mpf(sigma2)
    comps = []
    for b in itertools.product((0, 1), repeat=n):
        vb = [vi * bi for vi, bi in zip(v, b)]
        nb = mpmath.fsum(t * t for t in vb)
        if nb == 0:
            continue
        pi_b = pp ** sum(b) * (1 - pp) ** (n - sum(b))
        comps.append((pi_b, nb, vb))

    def integrand(s):
        dens = [pi_b * mpmath.npdf(s, 0, mpmath.sqrt(s2 * nb)) for pi_b, nb, _ in comps]
        total = mpmath.fsum(dens)
        if total == 0:
            return mpmath.mpf(0)
        num = [mpmath.fsum(w * vb[j] * s / nb for w, (_, nb, vb) in zip(dens, comps)) for j in range(n)]
        return mpmath.fsum(t * t for t in num) / total

    # break the line at each component's scale: components of very different widths make the ratio sharp
    scales = sorted({mpmath.sqrt(s2 * nb) for _, nb, _ in comps})
    pts = [-mpmath.inf] + [-t for t in reversed(scales)] + [mpmath.mpf(0)] + scales + [mpmath.inf]
    return mpmath.quad(integrand, pts)


# --------------------------------------------------------------------------- Lemma A.1
def lemA1_sides(V: sympy.Expr, f: sympy.Expr, x: sympy.Symbol, s: sympy.Symbol, s0: Any) -> tuple:
    r"""Both sides of Lemma A.1 for a 1-D Gibbs family :math:`\mu_s \propto e^{-V(x,s)}` at the current mpmath
    precision: :math:`\frac{d}{ds}E_{\mu_s}f` by numerical differentiation (``mpmath.diff``) of the quadrature
    ratio, and :math:`-\mathrm{Cov}_{\mu_s}(f, \partial_sV)` with :math:`\partial_sV` derived by sympy.

    >>> xs, ss = sympy.symbols("x s")
    >>> l, r = lemA1_sides((xs - ss)**2 / 2, xs, xs, ss, 0)   # E f = s, Cov(x, -(x-s)) = -1
    >>> float(l), float(r)
    (1.0, 1.0)
    """
    Vf = sympy.lambdify((x, s), V, "mpmath")
    ff = sympy.lambdify(x, f, "mpmath")
    dVf = sympy.lambdify((x, s), sympy.diff(V, s), "mpmath")
    pts = [-mpmath.inf, 0, mpmath.inf]

    def E(g, t):
        w = lambda u: mpmath.exp(-Vf(u, t))  # noqa: E731
        return mpmath.quad(lambda u: g(u) * w(u), pts) / mpmath.quad(w, pts)

    s0 = mpmath.mpf(s0)
    lhs = mpmath.diff(lambda t: E(ff, t), s0)
    dV = lambda u: dVf(u, s0)  # noqa: E731
    rhs = -(E(lambda u: ff(u) * dV(u), s0) - E(ff, s0) * E(dV, s0))
    return lhs, rhs
