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
    _as_real,
    verify_array,
    verify_at_least,
    verify_int,
    verify_nonnegative,
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
    "thm32_chain",
    "sparsity_patterns",
    "centred_slc_1d",
    "nu_loss_parts",
    "nu_sup_loss",
    "gaussian_conditional_chain",
    "gaussian_pattern_energy",
]


# --------------------------------------------------------------------------- moments of linear forms
def to_fraction(value: Any) -> Fraction:
    """Exact conversion of an int / float (its binary value) / Fraction / sympy Rational; raises for irrationals.

    >>> to_fraction(sympy.Rational(3, 4)), to_fraction(0.5)
    (Fraction(3, 4), Fraction(1, 2))
    """
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise VerifyInputError(f"Argument 'value' must be finite, not {value!r}.")
        return Fraction(float(value))  # the exact binary value of the float
    try:
        s = sympy.sympify(value)
    except (sympy.SympifyError, TypeError, ValueError):
        s = None   # not a number sympy reads (None, text, containers): refused below like an irrational
    if not isinstance(s, sympy.Basic) or not s.is_Rational:
        raise VerifyInputError(f"Argument 'value' must be rational for exact arithmetic, not {value!r}.")
    return Fraction(int(s.p), int(s.q))


def _check_reals(values: Any, name: str, what: str) -> Sequence:
    """A sequence of finite real numbers (floats, Fractions, sympy rationals: exact types kept), else a refusal."""
    allowed = f"a sequence {what} of finite real numbers"
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or not hasattr(values, "__getitem__"):
        raise VerifyInputError(f"Argument {name!r} must be {allowed}, not {values!r}.")
    for v in values:
        if isinstance(v, complex):   # numpy's complex would convert to its real part
            raise VerifyInputError(f"Argument {name!r} must be {allowed}, not {v!r}.")
        _as_real(v, name, allowed)
    return values


def _check_L(L: Any) -> np.ndarray:
    """The rows of a product of linear forms: a 2-D float array, or an object (exact) array of real entries."""
    L = np.asarray(L) if isinstance(L, np.ndarray) and L.dtype == object else verify_array(L, "L", ndim=2)
    if L.ndim != 2:
        raise VerifyInputError(f"Argument 'L' must be a 2-D array (T x n), not {L.ndim}-D.")
    if L.dtype == object:
        for v in L.reshape(-1):
            if isinstance(v, complex):
                raise VerifyInputError(f"Argument 'L' must be an array of finite real numbers, not {v!r}.")
            _as_real(v, "L", "an array of finite real numbers")
    return L


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
        _check_reals(moments, "moments", "[E xi^0, E xi^1, ...]")
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
    return _linear_form_moment(_check_L(L), _check_reals(cumulants, "cumulants", "[kappa_0, kappa_1, ...]"))


def _linear_form_moment(L: np.ndarray, cumulants: Sequence) -> Any:
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
            v = _linear_form_moment(np.array(_rows_of(W, exps[a]) + _rows_of(W, exps[b])), kap)
            Sigma[a, b] = Sigma[b, a] = v
    E = np.eye(n, dtype=int)
    Mx = np.full((n, q), zero, dtype=object if exact else float)
    for j in range(n):
        ej = np.array([Fraction(int(v)) for v in E[j]], dtype=object) if exact else E[j].astype(float)
        for a in range(q):
            Mx[j, a] = _linear_form_moment(np.array([ej] + _rows_of(W, exps[a])), kap)
    mean_y = [_linear_form_moment(np.array(_rows_of(W, e)), kap) for e in exps]
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


def eq11_terms(Sigma: Any, M: Any, rtol: float | None = None) -> dict:
    r"""Eq. (11): :math:`\Sigma = \sum_i \lambda_i u_iu_i^T` (nonzero part); terms :math:`\|Mu_i\|^2/\lambda_i`
    and the variances :math:`u_i^T\Sigma u_i/\lambda_i` of the normalised polynomials (all 1).

    ``rtol``: eigenvalues below ``rtol * lambda_max`` count as zero (round-off of an exactly singular Sigma); the
    default ``10 * size * eps`` keeps genuine eigenvalues down to ~1e-13 of the largest, which the paper's own
    :math:`\Sigma` has when rows of W are nearly parallel.
    """
    S = verify_array(Sigma, "Sigma", ndim=2)
    Mm = verify_array(M, "M", ndim=2)
    lam, U = np.linalg.eigh(S)
    if rtol is None:
        rtol = 10 * S.shape[0] * np.finfo(float).eps
    else:
        rtol = float(verify_positive(rtol, "rtol"))
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
    Sigma = verify_array(Sigma, "Sigma", ndim=2)
    C = verify_array(C, "C", ndim=2, shape=(None, Sigma.shape[0]))
    M = verify_array(M, "M", ndim=2, shape=C.shape)
    if Sigma.shape[0] != Sigma.shape[1]:
        raise VerifyInputError(f"Argument 'Sigma' must be a square matrix, not shape {Sigma.shape}.")
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
    dps = verify_int(dps, "dps", minimum=5)
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
    :math:`E\|m(y)\|^2 \le K^2 E\|y\|^2 \le K^3 d` (Lipschitz step with Lemmas A.1, A.2); the steps one by one
    are :func:`thm32_chain`. ``K`` may be a positive sympy symbol.

    :math:`K \ge 1`: for an isotropic law the Poincare inequality applied to :math:`f(y) = y_i` gives
    :math:`1 = E y_i^2 \le K`, so no law of the theorem has :math:`K < 1` (such a ``K`` is refused)."""
    if isinstance(K, sympy.Basic) and not K.is_number:
        if not K.is_positive or (K - 1).is_negative:
            raise VerifyInputError(f"Argument 'K' must be a positive symbol or a real number >= 1, not {K!r}.")
    else:
        verify_at_least(K, 1, "K")
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
    if W.ndim != 2:   # an object array (exact entries) is not checked by verify_array
        raise VerifyInputError(f"Argument 'W' must be a 2-D array (d x n), not {W.ndim}-D.")
    if exact:
        for v in W.reshape(-1):
            if isinstance(v, complex):
                raise VerifyInputError(f"Argument 'W' must be an array of finite real numbers, not {v!r}.")
            _as_real(v, "W", "an array of finite real numbers")
    cumulants = _check_reals(cumulants, "cumulants", "[kappa_0, kappa_1, ...]")
    A = W.T @ W
    n = A.shape[0]
    a = b = 0
    for i in range(n):
        e = np.array([Fraction(int(i == j)) for j in range(n)], dtype=object) if exact else np.eye(n)[i]
        a = a + _linear_form_moment(np.array([e] + [A[i]] * m), cumulants)
        b = b + _linear_form_moment(np.array([A[i]] * (2 * m)), cumulants)
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
    W = verify_array(W, "W", ndim=2)
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
    seed = verify_int(seed, "seed", minimum=0)
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
    # a Fraction (the package's exact rate) is not an mpmath number: its quotient is taken at the working precision
    pp, s2 = (mpmath.mpf(t.numerator) / t.denominator if isinstance(t, Fraction) else mpmath.mpf(t)
              for t in (p, sigma2))
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


# --------------------------------------------------------------------------- Theorem 3.2 in full generality
def thm32_chain(alpha: Any, beta: Any, d: Any = 1) -> dict:
    r"""The constants of each step of the proof of Theorem 3.2 for a potential with
    :math:`\alpha I \preceq \nabla^2 V \preceq \beta I` (the paper's :math:`\alpha = K^{-1}`, :math:`\beta = K`),
    assembled step by step (the paper's constant :func:`thm32_constant` must come out of this chain):

    * ``poincare`` :math:`= 1/\alpha`: :math:`\mathrm{Var}(f) \le \alpha^{-1}E\|\nabla f\|^2` (footnote 5), used for
      :math:`E y_i^2` and for :math:`\mathrm{Var}(\langle u, z\rangle\mid y)` (unit :math:`u`);
    * ``brascamp_lieb`` :math:`= \beta`: :math:`\mathrm{Var}(\langle v,\nabla_yV\rangle\mid y) \le
      \|M_{zy}^TM_{zz}^{-1}M_{zy}\|_{op} \le \|M\|_{op}` (Lemma A.2) :math:`\le \beta`;
    * ``lipschitz_sq`` :math:`= \alpha^{-1}\beta`: Cauchy-Schwarz on :math:`f'(0) = -\mathrm{Cov}(\cdot,\cdot\mid y)`;
    * ``Ey2`` :math:`= d/\alpha`, ``Em2`` :math:`= \tfrac12\,\mathrm{lipschitz\_sq}\,E\|y-y'\|^2 =
      \mathrm{lipschitz\_sq}\cdot Ey2` (uses :math:`E m(y) = 0`), ``total`` = ``Ey2 + Em2``.

    Works for floats, Fractions and sympy symbols.

    >>> thm32_chain(Fraction(1, 2), 2)["total"]          # K = 2: (K + K^3) d = 10
    Fraction(10, 1)
    """
    poincare = 1 / alpha
    brascamp_lieb = beta
    lipschitz_sq = poincare * brascamp_lieb
    Ey2 = d * poincare
    Em2 = lipschitz_sq * Ey2
    return {"poincare": poincare, "brascamp_lieb": brascamp_lieb, "lipschitz_sq": lipschitz_sq,
            "Ey2": Ey2, "Em2": Em2, "total": Ey2 + Em2}


def sparsity_patterns(kind: str, n: int, p: Any = None, k: int | None = None, blocks: int | None = None) -> tuple:
    r"""A distribution on sparsity patterns :math:`b \in \{0,1\}^n` as ``(patterns (N x n int array), probs)``.

    * ``"bernoulli"``: i.i.d. Bernoulli(``p``) (the paper's Thm 2.2);
    * ``"fixed"``: a uniformly random support of exactly ``k`` coordinates (not a product measure);
    * ``"blocks"``: ``blocks`` equal blocks of coordinates, each switched on together with probability ``p``
      (positively correlated coordinates);
    * ``"one-of-pairs"``: coordinates paired (2j, 2j+1), exactly one of each pair on, uniformly (negatively correlated).

    >>> P, w = sparsity_patterns("fixed", 3, k=1)
    >>> P.tolist(), [float(t) for t in w]
    ([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0.3333333333333333, 0.3333333333333333, 0.3333333333333333])
    """
    n = verify_int(n, "n", minimum=1)
    # every pattern is enumerated: 2^n (or binom(n, k), 2^blocks, 2^(n/2)) rows
    counts = {"bernoulli": 2 ** n, "fixed": math.comb(n, k) if isinstance(k, int) and 0 <= k <= n else 1,
              "blocks": 2 ** blocks if isinstance(blocks, int) and 1 <= blocks <= n else 1,
              "one-of-pairs": 2 ** (n // 2)}
    if counts.get(kind, 1) > 2 ** 20:
        raise VerifyInputError(f"Argument 'n' must give at most 2^20 enumerated patterns for {kind!r}, not n = {n}.")
    if kind == "bernoulli":
        verify_probability(p, "p")
        pats = np.array(list(itertools.product((0, 1), repeat=n)), dtype=int)
        s = pats.sum(axis=1)
        probs = np.array([float(p) ** int(t) * (1 - float(p)) ** int(n - t) for t in s])
    elif kind == "fixed":
        k = verify_int(k, "k", minimum=0, maximum=n)
        pats = np.array([[int(i in c) for i in range(n)] for c in itertools.combinations(range(n), k)], dtype=int)
        probs = np.full(len(pats), 1.0 / len(pats))
    elif kind == "blocks":
        verify_probability(p, "p")
        blocks = verify_int(blocks, "blocks", minimum=1, maximum=n)
        if n % blocks:
            raise VerifyInputError(f"Argument 'blocks' must divide n = {n}, not {blocks}.")
        size = n // blocks
        on = np.array(list(itertools.product((0, 1), repeat=blocks)), dtype=int)
        pats = np.repeat(on, size, axis=1)
        s = on.sum(axis=1)
        probs = np.array([float(p) ** int(t) * (1 - float(p)) ** int(blocks - t) for t in s])
    elif kind == "one-of-pairs":
        if n % 2:
            raise VerifyInputError(f"Argument 'n' must be even for 'one-of-pairs', not {n}.")
        ch = np.array(list(itertools.product((0, 1), repeat=n // 2)), dtype=int)
        pats = np.zeros((len(ch), n), dtype=int)
        pats[:, 0::2], pats[:, 1::2] = ch, 1 - ch
        probs = np.full(len(pats), 1.0 / len(pats))
    else:
        raise VerifyInputError(f"Argument 'kind' must be one of bernoulli, fixed, blocks, one-of-pairs, not {kind!r}.")
    keep = probs > 0
    return pats[keep], probs[keep]


def centred_slc_1d(v: sympy.Expr, x: sympy.Symbol, kmax: int = 6, dps: int = 30) -> dict:
    r"""A one-dimensional strongly log-concave law :math:`\propto e^{-v}` moved to mean 0 (asymmetric allowed).

    Returns ``{"mean": E t, "central": [1, 0, c_2, .., c_kmax], "cumulants": [0, 0, k_2, ..], "alpha", "beta"}``:
    central moments by mpmath quadrature at ``dps`` digits, and the curvature range
    :math:`[\alpha, \beta]` of :math:`v''` from sympy (inf over the critical points of :math:`v''` and its
    limits at :math:`\pm\infty`, evaluated numerically). A translation leaves the Hessian unchanged.
    """
    kmax = verify_int(kmax, "kmax", minimum=2)
    dps = verify_int(dps, "dps", minimum=5)
    v2 = sympy.diff(v, x, 2)
    f2 = sympy.lambdify(x, v2, "mpmath")
    vf = sympy.lambdify(x, v, "mpmath")
    with mpmath.workdps(dps):
        cands = [mpmath.mpf(sympy.limit(v2, x, s)) for s in (sympy.oo, -sympy.oo)]
        d3 = sympy.lambdify(x, sympy.diff(v2, x), "mpmath")
        for x0 in np.linspace(-6, 6, 25):  # critical points of v'' (the bumps used here lie in [-6, 6])
            try:
                cands.append(f2(mpmath.findroot(d3, mpmath.mpf(float(x0)))))
            except (ValueError, ZeroDivisionError):
                pass
        alpha, beta = min(cands), max(cands)
        pts = [-mpmath.inf, -5, 0, 5, mpmath.inf]
        Z = mpmath.quad(lambda t: mpmath.exp(-vf(t)), pts)
        mean = mpmath.quad(lambda t: t * mpmath.exp(-vf(t)), pts) / Z
        central = [mpmath.mpf(1), mpmath.mpf(0)] + [
            mpmath.quad(lambda t: (t - mean) ** k * mpmath.exp(-vf(t)), pts) / Z for k in range(2, kmax + 1)]
    kap = coordinate_cumulants(None, 1, kmax, exact=False, moments=[float(c) for c in central])
    return {"mean": float(mean), "central": [float(c) for c in central], "cumulants": kap,
            "alpha": float(alpha), "beta": float(beta)}


def _cumulant_parts(R: np.ndarray, C: np.ndarray, kap: Sequence, m: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Per row :math:`i`: :math:`E[u_iv_i^m]` and :math:`E[v_i^{2m}]` for :math:`u_i = \langle R_i,\xi\rangle`,
    :math:`v_i = \langle C_i,\xi\rangle`, :math:`\xi` i.i.d. centred with cumulants ``kap`` (joint cumulants of
    linear forms are :math:`\kappa_k\sum_j\prod_t L_{t,j}`; moments = sums over partitions without singletons)."""
    def S(*powers):
        out = np.ones_like(C)
        for P, e in powers:
            out = out * P ** e
        return out.sum(axis=-1)

    k2, k3, k4 = (kap[j] if j < len(kap) else 0.0 for j in (2, 3, 4))
    if m == 1:
        return k2 * S((R, 1), (C, 1)), k2 * S((C, 2))
    if m == 3:
        k6 = kap[6]
        s2, s3, s4, s6 = S((C, 2)), S((C, 3)), S((C, 4)), S((C, 6))
        # partitions of {u,v,v,v} without singletons (kappa_1 = 0): {uvvv} and 3 x {uv}{vv}
        a = k4 * S((R, 1), (C, 3)) + 3 * (k2 * S((R, 1), (C, 1))) * (k2 * s2)
        # of {v x 6}: {6}, 15 x {4}{2}, 10 x {3}{3}, 15 x {2}{2}{2}
        b = k6 * s6 + 15 * k4 * s4 * k2 * s2 + 10 * (k3 * s3) ** 2 + 15 * (k2 * s2) ** 3
        return a, b
    raise VerifyInputError(f"Argument 'm' must be 1 or 3 for the non-product loss, not {m}.")


def _cumulant_parts_dC(R: np.ndarray, C: np.ndarray, kap: Sequence, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Derivatives of the per-row sums of :func:`_cumulant_parts` with respect to ``C`` (same shape as ``C``)."""
    k2, k3, k4 = (kap[j] if j < len(kap) else 0.0 for j in (2, 3, 4))
    if m == 1:
        return k2 * R, 2 * k2 * C
    k6 = kap[6]
    s2 = (C ** 2).sum(-1, keepdims=True)
    s3 = (C ** 3).sum(-1, keepdims=True)
    s4 = (C ** 4).sum(-1, keepdims=True)
    src = (R * C).sum(-1, keepdims=True)
    da = 3 * k4 * R * C ** 2 + 3 * k2 ** 2 * (R * s2 + 2 * src * C)
    db = (6 * k6 * C ** 5 + 15 * k4 * k2 * (4 * C ** 3 * s2 + 2 * s4 * C) + 60 * k3 ** 2 * s3 * C ** 2
          + 90 * k2 ** 3 * s2 ** 2 * C)
    return da, db


def _nu_parts_and_grad(W: np.ndarray, G: np.ndarray, cumulants: Sequence, patterns: tuple, m: int) -> tuple:
    pats, probs = patterns
    probs = np.asarray(probs, dtype=float)
    A = W.T @ W
    R = np.asarray(pats, dtype=float)[:, :, None] * G[None]
    C = np.einsum("ij,pjk->pik", A, R)
    ai, bi = _cumulant_parts(R, C, cumulants, m)
    da, db = _cumulant_parts_dC(R, C, cumulants, m)
    # C_p = A R_p: dF/dA = sum_p pi_p dF/dC_p R_p^T; A = W^T W: dF/dW = W (dF/dA + dF/dA^T)
    gA_a = np.tensordot(probs[:, None, None] * da, R, axes=([0, 2], [0, 2]))
    gA_b = np.tensordot(probs[:, None, None] * db, R, axes=([0, 2], [0, 2]))
    return (float(probs @ ai.sum(axis=1)), float(probs @ bi.sum(axis=1)),
            W @ (gA_a + gA_a.T), W @ (gA_b + gA_b.T))


def nu_loss_parts(W: Any, G: Any, cumulants: Sequence, patterns: tuple, m: int = 3) -> tuple[float, float]:
    r""":math:`\tilde L(tW) = 2t^{2m}a - t^{4m}b` for :math:`x = b \odot (G\xi)`, :math:`\xi` i.i.d. centred with
    ``cumulants`` (so :math:`\nu = \mathrm{law}(G\xi)` is correlated, non-product, and asymmetric when
    :math:`\kappa_3 \ne 0`) and :math:`b` drawn from ``patterns = (array, probs)`` (:func:`sparsity_patterns`).
    Returns :math:`(a, b)`; :math:`\sup_t\tilde L(tW) = a^2/b` if :math:`a > 0`. ``m`` is 1 or 3.

    If :math:`V(\xi) = \sum_j v(\xi_j)` with :math:`v'' \in [\alpha_0, \beta_0]`, the potential of :math:`\nu` has
    Hessian :math:`G^{-T}\mathrm{diag}(v'')G^{-1} \in [\alpha_0/\sigma_{max}(G)^2, \beta_0/\sigma_{min}(G)^2]`.
    """
    W = verify_array(W, "W", ndim=2)
    G = verify_array(G, "G", ndim=2, shape=(W.shape[1], W.shape[1]))
    cumulants = _check_reals(cumulants, "cumulants", "[kappa_0, kappa_1, ...]")
    pats, probs = patterns
    A = W.T @ W
    R = np.asarray(pats, dtype=float)[:, :, None] * G[None]   # per pattern, rows e_i^T D_b G: u_i = x_i
    C = np.einsum("ij,pjk->pik", A, R)                       # v_i = <A_i, x> = A_i^T D_b G xi
    ai, bi = _cumulant_parts(R, C, cumulants, m)
    probs = np.asarray(probs, dtype=float)
    return float(probs @ ai.sum(axis=1)), float(probs @ bi.sum(axis=1))


def nu_sup_loss(d: int, G: Any, cumulants: Sequence, patterns: tuple, m: int = 3, restarts: int = 4,
                seed: int = 0, x0: list | None = None) -> tuple[float, np.ndarray]:
    r""":math:`\sup_W \tilde L(W)` for the model of :func:`nu_loss_parts`: maximise the scale-free
    :math:`a(W)^2/b(W)` (= :math:`\sup_t \tilde L(tW)`) over directions by scipy L-BFGS (finite-difference
    gradient), from ``x0`` and random starts. Returns the best value and its (optimally scaled) W."""
    from scipy.optimize import minimize

    d = verify_int(d, "d", minimum=1)
    G = verify_array(G, "G", ndim=2)
    n = G.shape[0]
    cumulants = _check_reals(cumulants, "cumulants", "[kappa_0, kappa_1, ...]")
    restarts = verify_int(restarts, "restarts", minimum=0)
    rng = np.random.default_rng(verify_int(seed, "seed", minimum=0))

    def neg(flat):
        a, b, ga, gb = _nu_parts_and_grad(flat.reshape(d, n), G, cumulants, patterns, m)
        if a <= 0 or b <= 0:
            return 0.0, np.zeros_like(flat)
        return -(a * a / b), -(2 * a / b * ga - a * a / b ** 2 * gb).ravel()

    starts = [verify_array(w, "x0", shape=(d, n)).ravel() for w in (x0 or [])]
    starts += [rng.standard_normal(d * n) for _ in range(restarts)]
    best = (0.0, np.zeros((d, n)))
    for s in starts:
        s = s / np.linalg.norm(s)
        res = minimize(neg, s, jac=True, method="L-BFGS-B", options={"maxiter": 1000, "gtol": 1e-11, "ftol": 1e-15})
        if -res.fun > best[0]:
            Wb = res.x.reshape(d, n)
            a, b = nu_loss_parts(Wb, G, cumulants, patterns, m)
            best = (float(a * a / b), (a / b) ** (1 / (2 * m)) * Wb)
    return best


def gaussian_conditional_chain(Sigma: Any, P: Any) -> dict:
    r"""The proof of Theorem 3.2 step by step for a centred Gaussian :math:`\nu = N(0, \Sigma)` and a rank-:math:`d`
    projection with orthonormal rows ``P`` (closed forms):

    rotate to :math:`(y, z) = (Px, P_\perp x)`, covariance :math:`\Sigma'`, precision :math:`\Lambda = \Sigma'^{-1}`
    (the Hessian of the potential, constant). Then :math:`m(y) = \Sigma'_{zy}\Sigma'^{-1}_{yy}y
    = -\Lambda_{zz}^{-1}\Lambda_{zy}y` and the quantities are

    * ``energy`` :math:`E\|E[x\mid Px]\|^2 = E\|y\|^2 + E\|m(y)\|^2`; ``Ey2`` :math:`= \operatorname{tr}\Sigma'_{yy}`;
      ``Em2`` :math:`= \operatorname{tr}(J\Sigma'_{yy}J^T)`, :math:`J = -\Lambda_{zz}^{-1}\Lambda_{zy}`;
    * ``var_z`` :math:`= \max_u \mathrm{Var}(\langle u, z\rangle\mid y) = \lambda_{max}(\Lambda_{zz}^{-1})`;
    * ``schur`` :math:`= \|\Lambda_{zy}^T\Lambda_{zz}^{-1}\Lambda_{zy}\|_{op}` (Brascamp-Lieb, equal for Gaussians);
    * ``lipschitz_sq`` :math:`= \|J\|_{op}^2`; ``alpha``, ``beta``: extreme eigenvalues of :math:`\Lambda`;
    * ``max_var_y`` :math:`= \max_i \Sigma'_{ii}` over the :math:`y` coordinates (Poincare: :math:`\le 1/\alpha`).
    """
    Sigma = verify_square_symmetric(Sigma, "Sigma")
    P = verify_array(P, "P", ndim=2, shape=(None, Sigma.shape[0]))
    d, n = P.shape
    if np.linalg.norm(P @ P.T - np.eye(d)) > 1e-10:  # orthonormal rows up to float64 round-off
        raise VerifyInputError("Argument 'P' must have orthonormal rows.")
    _, _, Vt = np.linalg.svd(P, full_matrices=True)
    Q = np.vstack([P, Vt[d:]])             # rotation: first d rows span P's row space (they are P itself)
    Sp = Q @ Sigma @ Q.T
    Lam = np.linalg.inv(Sp)
    ev = np.linalg.eigvalsh(Lam)
    Syy = Sp[:d, :d]
    out = {"alpha": float(ev[0]), "beta": float(ev[-1]), "Ey2": float(np.trace(Syy)),
           "max_var_y": float(np.max(np.diag(Syy)))}
    if n == d:
        out.update(Em2=0.0, var_z=0.0, schur=0.0, lipschitz_sq=0.0)
    else:
        Lzz, Lzy = Lam[d:, d:], Lam[d:, :d]
        J = -np.linalg.solve(Lzz, Lzy)
        out.update(Em2=float(np.trace(J @ Syy @ J.T)), var_z=float(np.max(np.linalg.eigvalsh(np.linalg.inv(Lzz)))),
                   schur=float(np.linalg.norm(Lzy.T @ np.linalg.solve(Lzz, Lzy), 2)),
                   lipschitz_sq=float(np.linalg.norm(J, 2) ** 2))
    out["energy"] = out["Ey2"] + out["Em2"]
    # independent route for the energy: E|Sigma P^T (P Sigma P^T)^{-1} P x|^2
    B = Sigma @ P.T @ np.linalg.solve(P @ Sigma @ P.T, P)
    out["energy_direct"] = float(np.trace(B @ Sigma @ B.T))
    return out


def gaussian_pattern_energy(W: Any, Sigma: Any, patterns: tuple, rcond: float | None = None) -> float:
    r"""The proof's bound after conditioning on the support (footnote 3) and eq. (16):
    :math:`\sum_b \pi_b E\|E[x_S\mid W_Sx_S]\|^2` for :math:`x_S \sim N(0, \Sigma_{SS})`,
    :math:`= \sum_b\pi_b\operatorname{tr}(\Sigma_S W_S^T(W_S\Sigma_SW_S^T)^+W_S\Sigma_S)`.

    ``rcond``: eigenvalues of :math:`W_S\Sigma_SW_S^T` below ``rcond`` times the largest count as zero (default:
    numpy's round-off cutoff); a numerically found W has its exact degeneracies only up to the optimiser's noise."""
    W = verify_array(W, "W", ndim=2)
    Sigma = verify_square_symmetric(Sigma, "Sigma")
    rcond = None if rcond is None else float(verify_nonnegative(rcond, "rcond"))
    tot = 0.0
    for pat, pr in zip(*patterns):
        S = np.flatnonzero(pat)
        if S.size == 0:
            continue
        WS, SS = W[:, S], Sigma[np.ix_(S, S)]
        Gm = WS @ SS @ WS.T
        B = SS @ WS.T @ (np.linalg.pinv(Gm, hermitian=True) if rcond is None
                         else np.linalg.pinv(Gm, rcond=rcond, hermitian=True)) @ WS
        tot += pr * float(np.trace(B @ SS @ B.T))
    return tot
