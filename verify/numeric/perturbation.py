r"""The perturbation matrix :math:`\mathbf F` of paper N (Thm 5.1, Thm C.1, App. D), numerically.

Conventions (those of the paper and of :mod:`verify.numeric.ufm`): :math:`\mathbf H\in\mathbb R^{d\times Kn}`
with the :math:`n` columns of class :math:`k` contiguous, :math:`\mathbf W\in\mathbb R^{K\times d}`,
:math:`\mathbf Y=\mathbf I_K\otimes\mathbf 1_n^\top`, and :math:`\mathrm{vec}` stacks columns
(``X.reshape(-1, order="F")``). With :math:`\mathbf R=\mathbf W\mathbf H-\mathbf Y` the derivatives of

.. math:: f(\mathbf W,\mathbf H;\mathbf H_0)=\tfrac1{2Kn}\|\mathbf W\mathbf H-\mathbf Y\|_F^2
          +\tfrac{\lambda_W}{2K}\|\mathbf W\|_F^2+\tfrac{\lambda_H}{2Kn}\|\mathbf H\|_F^2
          +\tfrac{\beta}{2Kn}\|\mathbf H-\mathbf H_0\|_F^2

are, as stated in App. C,

.. math:: \nabla_H^\top\nabla_H f=\tfrac1{Kn}\big(\mathbf I_{nK}\otimes\mathbf W^\top\mathbf W+(\lambda_H+\beta)\mathbf I\big),\quad
          \nabla_W^\top\nabla_W f=\tfrac1{Kn}\mathbf H\mathbf H^\top\otimes\mathbf I_K+\tfrac{\lambda_W}{K}\mathbf I,\quad
          \nabla_W^\top\nabla_H f=\tfrac1{Kn}\big(\mathbf E+\mathbf H^\top\otimes\mathbf W^\top\big),

the exact Jacobian of :math:`\mathbf H_0\mapsto\mathbf H^*` (Thm C.1)
:math:`\mathbf F=\frac{\beta}{Kn}\,S^{-1}` with the Schur complement :math:`S`, and its first-order (Neumann)
form (5) :math:`\mathbf F_1=\mathbf I-\frac{\lambda_H}{\beta}\mathbf I-\frac1\beta\mathbf I_{nK}\otimes\mathbf W^\top\mathbf W
+\frac1\beta\mathbf Z^*`.

Dense builders are for small sizes; :func:`F1_operator` is matrix-free (any :math:`\mathbf H`) and
:func:`collapsed_block_spectrum` / :func:`collapsed_full_spectrum` use the Kronecker structure of a
collapsed class (:math:`\mathbf H^{(k)}=\bar{\mathbf h}_k\mathbf 1_n^\top`) to get every eigenvalue of
:math:`\mathbf F_{k,k}` from :math:`d\times d` problems (no :math:`(dn)^2` storage).

>>> import numpy as np
>>> W, H = collapsed_point(3, 2, 2, lam_W=0.5, lam_H=0.5)
>>> F = F_first_order(W, H, beta=100.0, lam_W=0.5, lam_H=0.5, K=2, n=2)
>>> F.shape
(12, 12)
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import LinearOperator

from .._validate import VerifyInputError, verify_array, verify_int, verify_less, verify_nonnegative, verify_positive
from .ufm import class_means, collapsed_minimiser, covariances

__all__ = [
    "vec", "unvec", "labels", "check_problem", "collapsed_point", "E_matrix", "hessian_blocks", "gradients",
    "objective", "F_exact", "dW_map", "Z_star", "F_first_order", "block", "F1_operator", "F_exact_operator",
    "collapsed_block_spectrum", "collapsed_offdiag_singular_values", "collapsed_full_spectrum",
    "grad_L_derivative_paper", "lemma_c4_norms", "orthonormal_frame", "closed_form_Fkk_spectrum", "fitted_order",
    "block_summary", "loss_hessian", "thmC2_sharp_constants", "hessian_extremes_ratio",
]


# --------------------------------------------------------------------------- basics
def vec(X: np.ndarray) -> np.ndarray:
    """Column-stack vectorisation :math:`\\mathrm{vec}(\\mathbf X)`."""
    return np.asarray(X).reshape(-1, order="F")


def unvec(v: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Inverse of :func:`vec`."""
    rows, cols = verify_int(rows, "rows", minimum=1), verify_int(cols, "cols", minimum=1)
    v = verify_array(v, "v", ndim=1, shape=(rows * cols,))
    return v.reshape(rows, cols, order="F")


def labels(K: int, n: int) -> np.ndarray:
    """:math:`\\mathbf Y=\\mathbf I_K\\otimes\\mathbf 1_n^\\top`."""
    K, n = verify_int(K, "K", minimum=1), verify_int(n, "n", minimum=1)
    return np.kron(np.eye(K), np.ones((1, n)))


#: a hyper-parameter (or ``W``) that a caller of :func:`check_problem` does not have: ``None`` passed for a
#: required one is refused like any other bad value, not taken for "absent"
class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


_ABSENT = _Absent()


def check_problem(W, H, K, n, beta=_ABSENT, lam_W=_ABSENT, lam_H=_ABSENT):
    """Validate the shapes :math:`\\mathbf W\\in\\mathbb R^{K\\times d}`, :math:`\\mathbf H\\in\\mathbb R^{d\\times Kn}`, :math:`d\\ge K`
    and the positivity of the hyper-parameters (those given: ``None`` is refused, like ``W = None``); returns
    ``(W, H, d)`` as float arrays (``W`` ``None`` when the caller has none)."""
    K = verify_int(K, "K", minimum=1)
    n = verify_int(n, "n", minimum=1)
    H = verify_array(H, "H", ndim=2, shape=(None, K * n))
    d = H.shape[0]
    if d < K:
        raise VerifyInputError(f"Argument 'H' must have d >= K rows (d = {d}, K = {K}), not shape {H.shape}.")
    W = None if W is _ABSENT else verify_array(W, "W", ndim=2, shape=(K, d))
    for value, name in ((beta, "beta"), (lam_W, "lam_W"), (lam_H, "lam_H")):
        if value is not _ABSENT:
            verify_positive(value, name)
    return W, H, d


def orthonormal_frame(d: int, K: int, seed: int | None = None) -> np.ndarray:
    """A partial orthonormal :math:`\\mathbf R\\in\\mathbb R^{d\\times K}` (first columns of the identity if
    ``seed`` is None, else a seeded random one)."""
    d = verify_int(d, "d", minimum=1)
    K = verify_int(K, "K", minimum=1, maximum=d)
    if seed is None:
        return np.eye(d)[:, :K]
    seed = verify_int(seed, "seed", minimum=0)
    q, r = np.linalg.qr(np.random.default_rng(seed).standard_normal((d, K)))
    return q * np.sign(np.diag(r))


def collapsed_point(d, K, n, lam_W, lam_H, seed=None):
    """The orthogonally collapsed minimiser of (1) (Thm 2.2) with the frame :func:`orthonormal_frame` ``(d, K, seed)``,
    built by :func:`verify.numeric.ufm.collapsed_minimiser`; refuses the degenerate case :math:`\\lambda_H\\lambda_W\\ge1`.

    >>> W, H = collapsed_point(3, 2, 2, 0.5, 0.5)
    >>> bool(np.allclose(W @ H, 0.5 * labels(2, 2)))
    True
    """
    verify_positive(lam_W, "lam_W")
    verify_positive(lam_H, "lam_H")
    verify_less(lam_W * lam_H, 1.0, "lam_W*lam_H", "< 1 (non-degenerate case c < 1)")
    return collapsed_minimiser(orthonormal_frame(d, K, seed), lam_W, lam_H, verify_int(n, "n", minimum=1))


def closed_form_Fkk_spectrum(d, K, n, beta, lam_W, lam_H) -> np.ndarray:
    """The spectrum (21) of App. D (descending, with multiplicities) evaluated numerically; its expressions are
    :func:`verify.symbolic.perturbation.paper_Fkk_spectrum`, which the checks compare with the derived ones."""
    from ..symbolic import perturbation as sym

    d, K, n = verify_int(d, "d", minimum=2), verify_int(K, "K", minimum=1), verify_int(n, "n", minimum=1)
    if d <= K:
        raise VerifyInputError(f"Argument 'd' must be an integer > K = {K}, not {d}.")
    verify_positive(beta, "beta")
    verify_positive(lam_W, "lam_W")
    verify_positive(lam_H, "lam_H")
    vals = {sym.lam_H: lam_H, sym.lam_W: lam_W, sym.beta: beta}
    out = [np.full(m, float(e.subs(vals))) for e, m in sym.paper_Fkk_spectrum(d, K, n).items()]
    return np.sort(np.concatenate(out))[::-1]


def fitted_order(xs, errs) -> float:
    """Least-squares slope of :math:`\\log(\\mathrm{err})` against :math:`\\log x` (the empirical order)."""
    xs = verify_array(xs, "xs", ndim=1)
    errs = verify_array(errs, "errs", ndim=1, shape=(xs.size,))
    if xs.size < 2 or np.any(xs <= 0) or np.any(errs <= 0):
        # the minima as they are (an empty array has none): min(initial=0) would show 0 for positive values
        lows = f"minima {xs.min()}, {errs.min()}" if xs.size else "no minima"
        raise VerifyInputError(f"Arguments 'xs' and 'errs' must hold >= 2 positive values each (log-log fit), "
                               f"not {xs.size} values with {lows}.")
    return float(np.polyfit(np.log(xs), np.log(errs), 1)[0])


def block_summary(F, d, K, n, k=0, kt=1, rtol=1e-10) -> dict:
    """The five quantities of Thm 5.2 for a dense :math:`\\mathbf F` (first-order or exact): numerical rank,
    :math:`\\sigma_{\\max}` and :math:`\\sigma_{\\min}` of :math:`\\mathbf F_{k,k}`; rank and :math:`\\sigma_{\\max}` of
    :math:`\\mathbf F_{k,\\tilde k}`. A singular value counts in the rank when it exceeds ``rtol`` times the
    largest singular value of the whole :math:`\\mathbf F` (the blocks' common scale).

    >>> W, H = collapsed_point(3, 2, 2, 0.5, 0.5)
    >>> s = block_summary(F_first_order(W, H, 100.0, 0.5, 0.5, 2, 2), 3, 2, 2)
    >>> s["rank_Fkk"], s["rank_Fkkt"]
    (6, 1)
    """
    d, K, n = verify_int(d, "d", minimum=1), verify_int(K, "K", minimum=2), verify_int(n, "n", minimum=1)
    F = verify_array(F, "F", ndim=2, shape=(d * K * n, d * K * n))
    if k == kt:
        raise VerifyInputError(f"Argument 'kt' must differ from k = {k} (off-diagonal block), not {kt}.")
    verify_nonnegative(rtol, "rtol")
    cut = rtol * np.linalg.norm(F, 2)
    sd = scipy.linalg.svdvals(block(F, k, k, d, n))
    so = scipy.linalg.svdvals(block(F, k, kt, d, n))
    return {"rank_Fkk": int(np.sum(sd > cut)), "sigma_max_Fkk": float(sd[0]), "sigma_min_Fkk": float(sd[-1]),
            "rank_Fkkt": int(np.sum(so > cut)), "sigma_max_Fkkt": float(so[0])}


# --------------------------------------------------------------------------- dense derivatives (App. C)
def E_matrix(W, H, K, n) -> np.ndarray:
    """:math:`\\mathbf E(\\mathbf W,\\mathbf H)\\in\\mathbb R^{dnK\\times Kd}`, column :math:`(i-1)K+k` equal to
    :math:`\\mathrm{vec}(\\mathbf e_{d,i}\\mathbf e_{K,k}^\\top(\\mathbf W\\mathbf H-\\mathbf Y))`."""
    W, H, d = check_problem(W, H, K, n)
    R = W @ H - labels(K, n)
    E = np.zeros((d * K * n, K * d))
    for i in range(d):  # rows j*d + i of vec(e_i e_k^T R) hold R[k, j]
        E[i::d, i * K:(i + 1) * K] = R.T
    return E


def hessian_blocks(W, H, beta, lam_W, lam_H, K, n) -> dict:
    """Dense second derivatives of :math:`f` as stated in App. C: keys ``HH``, ``WW``, ``WH``
    (:math:`\\nabla_W^\\top\\nabla_H f`, shape :math:`dnK\\times Kd`), ``HW`` (its transpose) and ``E``."""
    W, H, d = check_problem(W, H, K, n, beta, lam_W, lam_H)
    Kn = K * n
    E = E_matrix(W, H, K, n)
    HH = (np.kron(np.eye(Kn), W.T @ W) + (lam_H + beta) * np.eye(d * Kn)) / Kn
    WW = np.kron(H @ H.T, np.eye(K)) / Kn + (lam_W / K) * np.eye(K * d)
    WH = (E + np.kron(H.T, W.T)) / Kn
    return {"HH": HH, "WW": WW, "WH": WH, "HW": WH.T, "E": E}


def gradients(W, H, H0, beta, lam_W, lam_H, K, n):
    """First derivatives (11): :math:`(\\nabla_H f,\\nabla_W f)` as vectors of length :math:`dnK` and :math:`Kd`."""
    W, H, d = check_problem(W, H, K, n, beta, lam_W, lam_H)
    H0 = verify_array(H0, "H0", shape=H.shape)
    Kn = K * n
    h, w, y = vec(H), vec(W), vec(labels(K, n))
    gH = (np.kron(np.eye(Kn), W.T) @ (np.kron(np.eye(Kn), W) @ h - y) + lam_H * h + beta * (h - vec(H0))) / Kn
    gW = np.kron(H, np.eye(K)) @ (np.kron(H.T, np.eye(K)) @ w - y) / Kn + (lam_W / K) * w
    return gH, gW


def objective(W, H, H0, beta, lam_W, lam_H, K, n) -> float:
    """:math:`f(\\mathbf W,\\mathbf H;\\mathbf H_0)` of problem (2)."""
    W, H, d = check_problem(W, H, K, n, beta, lam_W, lam_H)
    H0 = verify_array(H0, "H0", shape=H.shape)
    Kn = K * n
    return float(np.sum((W @ H - labels(K, n)) ** 2) / (2 * Kn) + lam_W / (2 * K) * np.sum(W ** 2)
                 + lam_H / (2 * Kn) * np.sum(H ** 2) + beta / (2 * Kn) * np.sum((H - H0) ** 2))


def F_exact(W, H, beta, lam_W, lam_H, K, n) -> np.ndarray:
    """Thm C.1: :math:`\\mathbf F=\\frac{\\beta}{Kn}\\big(\\nabla_H^\\top\\nabla_H f-\\nabla_W^\\top\\nabla_H f(\\nabla_W^\\top\\nabla_W f)^{-1}
    \\nabla_H^\\top\\nabla_W f\\big)^{-1}` at :math:`(\\mathbf W,\\mathbf H)` (dense)."""
    B = hessian_blocks(W, H, beta, lam_W, lam_H, K, n)
    S = B["HH"] - B["WH"] @ np.linalg.solve(B["WW"], B["HW"])
    return beta / (K * n) * np.linalg.inv(S)


def dW_map(W, H, beta, lam_W, lam_H, K, n) -> np.ndarray:
    """Thm C.1: :math:`\\mathrm{vec}(\\delta\\mathbf W)\\approx-(\\nabla_W^\\top\\nabla_W f)^{-1}\\nabla_H^\\top\\nabla_W f\\,\\mathbf F\\,\\mathrm{vec}(\\delta\\mathbf H_0)`;
    returns that :math:`Kd\\times dnK` matrix."""
    B = hessian_blocks(W, H, beta, lam_W, lam_H, K, n)
    return -np.linalg.solve(B["WW"], B["HW"]) @ F_exact(W, H, beta, lam_W, lam_H, K, n)


def Z_star(W, H, lam_W, K, n) -> np.ndarray:
    """:math:`\\mathbf Z^*=(\\mathbf E^\\top+\\mathbf H\\otimes\\mathbf W)^\\top(\\mathbf H\\mathbf H^\\top\\otimes\\mathbf I_K+n\\lambda_W\\mathbf I)^{-1}
    (\\mathbf E^\\top+\\mathbf H\\otimes\\mathbf W)` (dense)."""
    W, H, d = check_problem(W, H, K, n, lam_W=lam_W)
    G = E_matrix(W, H, K, n).T + np.kron(H, W)
    C = np.kron(H @ H.T, np.eye(K)) + n * lam_W * np.eye(K * d)
    return G.T @ np.linalg.solve(C, G)


def F_first_order(W, H, beta, lam_W, lam_H, K, n) -> np.ndarray:
    """Eq. (5): :math:`\\mathbf I-\\frac{\\lambda_H}{\\beta}\\mathbf I-\\frac1\\beta\\mathbf I_{nK}\\otimes\\mathbf W^\\top\\mathbf W+\\frac1\\beta\\mathbf Z^*` (dense)."""
    W, H, d = check_problem(W, H, K, n, beta, lam_W, lam_H)
    N = d * K * n
    return ((1 - lam_H / beta) * np.eye(N) - np.kron(np.eye(K * n), W.T @ W) / beta
            + Z_star(W, H, lam_W, K, n) / beta)


def block(F, k, kt, d, n) -> np.ndarray:
    """The :math:`dn\\times dn` block :math:`\\mathbf F_{k,\\tilde k}` of (6) (0-based class indices)."""
    dn = verify_int(d, "d", minimum=1) * verify_int(n, "n", minimum=1)
    F = verify_array(F, "F", ndim=2)
    K = F.shape[0] // dn
    verify_int(k, "k", minimum=0, maximum=K - 1)
    verify_int(kt, "kt", minimum=0, maximum=K - 1)
    return F[k * dn:(k + 1) * dn, kt * dn:(kt + 1) * dn]


# --------------------------------------------------------------------------- matrix-free F of (5)
def F1_operator(W, H, beta, lam_W, lam_H, K, n) -> LinearOperator:
    """Matrix-free :math:`\\mathbf F_1` of eq. (5) for any :math:`(\\mathbf W,\\mathbf H)`.

    Uses :math:`\\mathbf E^\\top\\mathrm{vec}(\\mathbf D)=\\mathrm{vec}(\\mathbf R\\mathbf D^\\top)`,
    :math:`(\\mathbf H\\otimes\\mathbf W)\\mathrm{vec}(\\mathbf D)=\\mathrm{vec}(\\mathbf W\\mathbf D\\mathbf H^\\top)` and
    :math:`(\\mathbf H\\mathbf H^\\top\\otimes\\mathbf I_K+n\\lambda_W\\mathbf I)^{-1}\\mathrm{vec}(\\mathbf V)=\\mathrm{vec}(\\mathbf V(\\mathbf H\\mathbf H^\\top+n\\lambda_W\\mathbf I)^{-1})`:
    a product costs :math:`O(dKn(d+K))` and nothing of size :math:`(dnK)^2` is stored.
    """
    W, H, d = check_problem(W, H, K, n, beta, lam_W, lam_H)
    R = W @ H - labels(K, n)
    WtW = W.T @ W
    Ainv = np.linalg.inv(H @ H.T + n * lam_W * np.eye(d))
    N = d * K * n

    def mv(v):
        D = unvec(np.ravel(v), d, K * n)
        V = (R @ D.T + W @ D @ H.T) @ Ainv  # C G vec(D), as a K x d matrix
        out = (1 - lam_H / beta) * D - WtW @ D / beta + (V.T @ R + W.T @ V @ H) / beta
        return vec(out)

    return LinearOperator((N, N), matvec=mv, rmatvec=mv, dtype=float)  # F_1 is symmetric


def F_exact_operator(W, H, beta, lam_W, lam_H, K, n, rtol=1e-12) -> LinearOperator:
    """Matrix-free exact :math:`\\mathbf F` of Thm C.1. The Schur complement rewrites (App. C) as
    :math:`\\mathbf F=(\\mathbf I+\\mathbf M/\\beta)^{-1}` with :math:`\\mathbf M=\\lambda_H\\mathbf I+\\mathbf I_{nK}\\otimes\\mathbf W^\\top\\mathbf W-\\mathbf Z^*`,
    i.e. :math:`\\mathbf F=(2\\mathbf I-\\mathbf F_1)^{-1}`; each product is a conjugate-gradient solve with
    :func:`F1_operator`. It needs :math:`\\mathbf I+\\mathbf M/\\beta\\succ0`: at a minimiser of (2) only
    :math:`\\succeq0` is guaranteed (second-order condition), and it is singular at :math:`\\mathbf H_0=\\mathbf 0`,
    :math:`\\beta=1/\\lambda_W-\\lambda_H`, where F does not exist (the counterexample to Thm C.1);
    :math:`\\beta>1/\\lambda_W-\\lambda_H` makes it positive definite for every :math:`\\mathbf H_0`. ``rtol`` is CG's."""
    from scipy.sparse.linalg import cg

    verify_positive(rtol, "rtol")
    op1 = F1_operator(W, H, beta, lam_W, lam_H, K, n)
    N = op1.shape[0]
    S = LinearOperator((N, N), matvec=lambda v: 2 * np.ravel(v) - op1 @ np.ravel(v), dtype=float)

    def mv(v):
        x, info = cg(S, np.ravel(v), rtol=rtol, atol=0.0, maxiter=10 * N)
        if info != 0:
            raise np.linalg.LinAlgError(f"CG did not converge (info={info}): I + M/beta is not positive definite?")
        return x

    return LinearOperator((N, N), matvec=mv, rmatvec=mv, dtype=float)


# --------------------------------------------------------------------------- collapsed classes: Kronecker reduction
def _class_factor(W, H, k, K, n, tol):
    """:math:`\\mathbf X_k\\in\\mathbb R^{Kd\\times d}` with :math:`\\mathbf E_k^\\top+(\\mathbf H^{(k)}\\otimes\\mathbf W)=\\mathbf X_k(\\mathbf 1_n^\\top\\otimes\\mathbf I_d)`,
    valid because class k is collapsed (all its columns equal)."""
    Hk = H[:, k * n:(k + 1) * n]
    hbar = Hk[:, 0]
    if np.max(np.abs(Hk - hbar[:, None])) > tol * max(1.0, np.max(np.abs(Hk))):
        raise VerifyInputError(f"Argument 'H' must have class {k} collapsed (equal columns) for the Kronecker reduction.")
    rbar = W @ hbar - np.eye(K)[:, k]
    d = H.shape[0]
    return np.kron(np.eye(d), rbar[:, None]) + np.kron(hbar[:, None], W)


def _reduced_blocks(W, H, k, kt, lam_W, K, n, tol):
    """:math:`\\mathbf M_{k\\tilde k}=n\\,\\mathbf X_k^\\top(\\mathbf A^{-1}\\otimes\\mathbf I_K)\\mathbf X_{\\tilde k}` with
    :math:`\\mathbf Z^*_{k\\tilde k}=\\frac1n\\mathbf 1\\mathbf 1^\\top\\otimes\\mathbf M_{k\\tilde k}`."""
    d = H.shape[0]
    Ainv = np.linalg.inv(H @ H.T + n * lam_W * np.eye(d))
    Xk = _class_factor(W, H, k, K, n, tol)
    Xt = Xk if kt == k else _class_factor(W, H, kt, K, n, tol)
    # C vec(V) = vec(V Ainv) for V in R^{K x d}; rows of X are indexed i*K + k' (i over d), so one BLAS product
    CX = (Ainv.T @ Xt.reshape(d, K * d)).reshape(K * d, d)
    return n * Xk.T @ CX


def collapsed_block_spectrum(W, H, k, beta, lam_W, lam_H, K, n, tol=1e-12) -> np.ndarray:
    """All :math:`dn` eigenvalues (descending) of the symmetric :math:`\\mathbf F_{k,k}` of (5) when class ``k`` of
    :math:`\\mathbf H` is collapsed. With :math:`\\mathbf P=(1-\\lambda_H/\\beta)\\mathbf I-\\mathbf W^\\top\\mathbf W/\\beta`,
    :math:`\\mathbf F_{k,k}=\\mathbf I_n\\otimes\\mathbf P+\\mathbf J\\otimes\\mathbf M_{kk}/\\beta` (:math:`\\mathbf J=\\frac1n\\mathbf 1\\mathbf 1^\\top`), so
    :math:`\\mathrm{spec}=\\mathrm{spec}(\\mathbf P+\\mathbf M_{kk}/\\beta)\\cup\\mathrm{spec}(\\mathbf P)^{\\times(n-1)}`: :math:`O(d^2K+d^3)` work.
    ``tol`` (relative) decides whether the class's columns are equal.
    """
    W, H, d = check_problem(W, H, K, n, beta, lam_W, lam_H)
    verify_int(k, "k", minimum=0, maximum=K - 1)
    verify_nonnegative(tol, "tol")
    P = (1 - lam_H / beta) * np.eye(d) - W.T @ W / beta
    M = _reduced_blocks(W, H, k, k, lam_W, K, n, tol)
    top = scipy.linalg.eigvalsh(P + (M + M.T) / (2 * beta))  # symmetrise round-off only
    rest = scipy.linalg.eigvalsh(P)
    return np.sort(np.concatenate([top, np.tile(rest, n - 1)]))[::-1]


def collapsed_offdiag_singular_values(W, H, k, kt, beta, lam_W, K, n, tol=1e-12) -> np.ndarray:
    """All :math:`dn` singular values (descending) of :math:`\\mathbf F_{k,\\tilde k}=\\mathbf Z^*_{k\\tilde k}/\\beta`, :math:`k\\ne\\tilde k`, both
    classes collapsed: :math:`\\mathrm{sv}(\\mathbf M_{k\\tilde k}/\\beta)` padded with :math:`d(n-1)` zeros."""
    W, H, d = check_problem(W, H, K, n, beta, lam_W)
    verify_int(k, "k", minimum=0, maximum=K - 1)
    verify_int(kt, "kt", minimum=0, maximum=K - 1)
    if k == kt:
        raise VerifyInputError(f"Argument 'kt' must differ from k = {k} (off-diagonal block), not {kt}.")
    verify_nonnegative(tol, "tol")
    sv = scipy.linalg.svdvals(_reduced_blocks(W, H, k, kt, lam_W, K, n, tol) / beta)
    return np.sort(np.concatenate([sv, np.zeros(d * (n - 1))]))[::-1]


def collapsed_full_spectrum(W, H, beta, lam_W, lam_H, K, n, tol=1e-12) -> np.ndarray:
    """All :math:`dnK` eigenvalues (descending) of the whole :math:`\\mathbf F_1` when every class is collapsed:
    the :math:`\\mathbf 1_n`-sector is the :math:`Kd\\times Kd` matrix :math:`[\\delta_{k\\tilde k}\\mathbf P+\\mathbf M_{k\\tilde k}/\\beta]`,
    the rest is :math:`\\mathrm{spec}(\\mathbf P)^{\\times K(n-1)}`."""
    W, H, d = check_problem(W, H, K, n, beta, lam_W, lam_H)
    verify_nonnegative(tol, "tol")
    P = (1 - lam_H / beta) * np.eye(d) - W.T @ W / beta
    big = np.zeros((K * d, K * d))
    for k in range(K):
        for kt in range(K):
            big[k * d:(k + 1) * d, kt * d:(kt + 1) * d] = (_reduced_blocks(W, H, k, kt, lam_W, K, n, tol) / beta
                                                          + (P if k == kt else 0.0))
    top = scipy.linalg.eigvalsh((big + big.T) / 2)
    return np.sort(np.concatenate([top, np.tile(scipy.linalg.eigvalsh(P), K * (n - 1))]))[::-1]


# --------------------------------------------------------------------------- proof of Thm C.2 (Lemma C.4, d/dt grad L)
def _A_B_P(H, lam_W, K, n):
    """:math:`\\mathbf A=\\tilde\\Sigma_T+\\frac{\\lambda_W}K\\mathbf I`, :math:`\\mathbf B=\\Sigma_W+\\frac{\\lambda_W}K\\mathbf I`, :math:`\\mathbf P(\\mathbf H)` (covariances from :mod:`.ufm`)."""
    cov = covariances(H, K)
    eye = np.eye(H.shape[0])
    return cov["Sigma_T_tilde"] + lam_W / K * eye, cov["Sigma_W"] + lam_W / K * eye, _proj(H, K, n)


def _proj(X, K, n):
    return X - np.repeat(class_means(X, K), n, axis=1)


def grad_L_derivative_paper(H, dH, lam_W, lam_H, K, n) -> np.ndarray:
    """The expression of :math:`\\frac{d}{dt}\\nabla\\mathcal L(\\mathbf H+t\\Delta\\mathbf H)|_{t=0}` written in the proof of
    Thm C.2 (ten terms in :math:`\\mathbf A=\\tilde\\Sigma_T+\\frac{\\lambda_W}K\\mathbf I`, :math:`\\mathbf B=\\Sigma_W+\\frac{\\lambda_W}K\\mathbf I`,
    :math:`\\mathbf P(\\mathbf X)=\\mathbf X-\\bar{\\mathbf X}\\otimes\\mathbf 1_n^\\top`, plus :math:`\\lambda_HK\\Delta\\mathbf H`), transcribed term by term."""
    _, H, d = check_problem(_ABSENT, H, K, n, lam_W=lam_W, lam_H=lam_H)
    dH = verify_array(dH, "dH", shape=H.shape)
    Kn = K * n
    A, B, PH = _A_B_P(H, lam_W, K, n)
    Ai = np.linalg.inv(A)
    Pd = _proj(dH, K, n)
    AiBAi = Ai @ B @ Ai
    terms = [
        Ai @ Pd,
        -Ai @ dH @ H.T @ Ai @ PH / Kn,
        -Ai @ H @ dH.T @ Ai @ PH / Kn,
        -AiBAi @ dH,
        Ai @ dH @ H.T @ AiBAi @ H / Kn,
        Ai @ H @ dH.T @ AiBAi @ H / Kn,
        -Ai @ Pd @ PH.T @ Ai @ H / Kn,
        -Ai @ PH @ Pd.T @ Ai @ H / Kn,
        AiBAi @ dH @ H.T @ Ai @ H / Kn,
        AiBAi @ H @ dH.T @ Ai @ H / Kn,
        lam_H * K * dH,
    ]
    return sum(terms) / (K * K * n)


def _inv_sqrt(A):
    w, V = np.linalg.eigh(A)
    return (V / np.sqrt(w)) @ V.T


def lemma_c4_norms(H, lam_W, K, n) -> dict:
    """The four operator norms of Lemma C.4, (13)-(16), and their claimed bounds (1, 1, sqrt(Kn), sqrt(Kn))."""
    _, H, d = check_problem(_ABSENT, H, K, n, lam_W=lam_W)
    A, B, PH = _A_B_P(H, lam_W, K, n)
    Ais = _inv_sqrt(A)
    ST = A - lam_W / K * np.eye(d)
    SW = B - lam_W / K * np.eye(d)
    op = lambda X: float(np.linalg.norm(X, 2))
    return {"13": (op(Ais @ ST @ Ais), 1.0), "14": (op(Ais @ SW @ Ais), 1.0),
            "15": (op(Ais @ H), float(np.sqrt(K * n))), "16": (op(Ais @ PH), float(np.sqrt(K * n)))}


# --------------------------------------------------------------------------- Thm C.2, sharp (best constants, attained)
def loss_hessian(H, lam_W, lam_H, K, n) -> np.ndarray:
    """:math:`\\mathbf M(\\mathbf H)=\\nabla^2(Kn\\mathcal L)(\\mathbf H)=\\lambda_H\\mathbf I+\\mathbf I_{Kn}\\otimes\\mathbf W^{*\\top}\\mathbf W^*-\\mathbf Z^*`
    at :math:`\\mathbf W^*=\\mathbf W^*(\\mathbf H)` (dense; symmetric up to round-off). :math:`\\mathbf F=(\\mathbf I+\\mathbf M/\\beta)^{-1}`
    (Thm C.1) and :math:`\\mathbf F_{(5)}=\\mathbf I-\\mathbf M/\\beta` at a minimiser of (2)."""
    from .ufm import optimal_W

    _, H, d = check_problem(_ABSENT, H, K, n, lam_W=lam_W)
    verify_positive(lam_H, "lam_H")
    W = optimal_W(H, lam_W, K)
    M = lam_H * np.eye(d * K * n) + np.kron(np.eye(K * n), W.T @ W) - Z_star(W, H, lam_W, K, n)
    return (M + M.T) / 2


def thmC2_sharp_constants(lam_W, lam_H, K, n) -> dict:
    """The sharp Thm C.2 constants (:func:`verify.symbolic.perturbation.thmC2_sharp`, evaluated): ``kappa_max`` =
    :math:`\\lambda_H+1/(4\\lambda_W)` and ``kappa_min`` = :math:`\\lambda_H-1/\\lambda_W` (extreme eigenvalues of
    :math:`\\nabla^2(Kn\\mathcal L)` over all H), ``lip`` = :math:`\\max\\{-\\kappa_{min},\\kappa_{max}\\}/(Kn)`, ``rho`` =
    :math:`-\\kappa_{min}` (the map is :math:`(1-\\rho/\\beta)^{-1}`-Lipschitz for :math:`\\beta>\\max\\{\\rho,0\\}`), the paper's
    ``paper_lip`` = :math:`11\\lambda_H/(Kn)` and the proof chain's ``loose_lip`` = :math:`(10/\\lambda_W+\\lambda_H)/(Kn)`.

    >>> c = thmC2_sharp_constants(0.1, 0.1, 2, 2)
    >>> round(c["lip"] * 4, 12), round(c["loose_lip"] / c["lip"], 6)
    (9.9, 10.111111)
    """
    lw, lh = verify_positive(lam_W, "lam_W"), verify_positive(lam_H, "lam_H")
    K, n = verify_int(K, "K", minimum=1), verify_int(n, "n", minimum=1)
    kmax, kmin = lh + 1 / (4 * lw), lh - 1 / lw
    return {"kappa_max": kmax, "kappa_min": kmin, "lip": max(-kmin, kmax) / (K * n), "rho": -kmin,
            "paper_lip": 11 * lh / (K * n), "loose_lip": (10 / lw + lh) / (K * n)}


def hessian_extremes_ratio(H, lam_W, lam_H, K, n) -> float:
    """Both sides of the sharp Hessian bounds at once: :math:`\\max\\{(\\lambda_{max}(\\mathbf M)-\\lambda_H)\\,4\\lambda_W,\\
    (\\lambda_H-\\lambda_{min}(\\mathbf M))\\,\\lambda_W\\}\\le1` (:func:`loss_hessian`); the :math:`\\lambda_H`-free parts are compared so
    that a large :math:`\\lambda_H` does not hide either side."""
    e = scipy.linalg.eigvalsh(loss_hessian(H, lam_W, lam_H, K, n))
    return float(max((e[-1] - lam_H) * 4 * lam_W, (lam_H - e[0]) * lam_W))
