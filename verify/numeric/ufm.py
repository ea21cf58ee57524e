r"""The unconstrained features model (1), its central path and the perturbed model (2) of paper N.

Conventions (used by every function here and by :mod:`verify.numeric.perturbation`):

* ``H`` is :math:`d\times Kn`, ordered class by class (columns :math:`h_{1,1},\dots,h_{1,n},h_{2,1},\dots`);
  ``n`` is inferred as ``H.shape[1] // K`` (and checked when given);
* :math:`Y = I_K\otimes 1_n^\top`; ``W`` is :math:`K\times d`;
* :math:`\tilde\Sigma_T = \frac1{Kn}HH^\top`, :math:`\tilde\Sigma_B = \frac1K\bar H\bar H^\top`,
  :math:`\Sigma_W = \frac1{Kn}(H-\bar H\otimes1_n^\top)(\cdot)^\top`,
  :math:`\Sigma_B = \frac1K(\bar H-\bar h_G1_K^\top)(\cdot)^\top`.

Problem (1): :math:`\min_{W,H}\frac1{2Kn}\|WH-Y\|_F^2+\frac{\lambda_W}{2K}\|W\|_F^2+\frac{\lambda_H}{2Kn}\|H\|_F^2`.
Problem (2) adds :math:`\frac{\beta}{2Kn}\|H-H_0\|_F^2`. Eliminating :math:`W` gives
:math:`W^*(H) = YH^\top(HH^\top+n\lambda_W I)^{-1}` and the central-path loss

.. math::

    \mathcal L(H) = \frac1{2K}\operatorname{Tr}\big((\Sigma_W+\tfrac{\lambda_W}K I)
        (\tilde\Sigma_T+\tfrac{\lambda_W}K I)^{-1}\big) + \frac{\lambda_H}2\operatorname{Tr}\tilde\Sigma_T
        - \frac{d-K}{2K},

    \nabla\mathcal L(H) = \frac1{K^2n}\Big(C(H-\bar H\otimes1_n^\top) - C(\Sigma_W+\tfrac{\lambda_W}K I)CH
        + \lambda_H K H\Big),\qquad C = (\tilde\Sigma_T+\tfrac{\lambda_W}K I)^{-1}  \quad (7).

The formulas are written once and evaluated in three arithmetics, chosen by the entries of ``H``:
float64 arrays; object arrays of ``mpmath.mpf`` (high precision); object arrays of exact rationals
(``flint.fmpq``, ``fractions.Fraction`` or sympy ``Rational``, converted to ``fmpq``).

>>> import numpy as np
>>> H = np.random.default_rng(0).standard_normal((4, 6))
>>> g = grad_central_path_loss(H, lam_W=0.5, lam_H=0.1, K=3)
>>> g.shape
(4, 6)
"""

from __future__ import annotations

import numbers
from fractions import Fraction
from typing import Any

import flint
import mpmath
import numpy as np
import sympy
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize, root

from .._validate import VerifyInputError, verify_array, verify_int, verify_nonnegative, verify_positive

__all__ = [
    "as_exact", "as_mp", "class_means", "covariances", "optimal_W", "central_path_loss",
    "central_path_loss_direct", "grad_central_path_loss", "ufm_objective", "collapse_rho",
    "collapsed_minimiser", "solve_ufm", "perturbed_objective", "solve_perturbed", "stationarity_residual",
    "nc1_tilde",
]


# --------------------------------------------------------------------------- arithmetic back-ends
def _kind(A: np.ndarray) -> str:
    if A.dtype != object:
        return "float"
    x = A.flat[0] if A.size else 0
    return "mp" if isinstance(x, (mpmath.mpf, mpmath.mpc)) else "exact"


def _map(A: Any, f) -> np.ndarray:
    arr = np.array(A, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    for idx, x in np.ndenumerate(arr):
        out[idx] = f(x)
    return out


def as_exact(A: Any) -> np.ndarray:
    """An object array of ``flint.fmpq`` (exact rationals) from rationals, ints or sympy numbers."""
    return _map(A, _to_fmpq)


def _to_fmpq(x: Any, name: str = "H") -> flint.fmpq:
    if isinstance(x, flint.fmpq):
        return x
    if isinstance(x, (bool, np.bool_)) or isinstance(x, float):
        raise VerifyInputError(f"Argument {name!r} must have exact rational entries here, not {x!r}.")
    if isinstance(x, (numbers.Integral, np.integer)):
        return flint.fmpq(int(x))
    if isinstance(x, Fraction):   # its parts may be numpy integers (Fraction(np.int64(3))), which flint refuses
        return flint.fmpq(int(x.numerator), int(x.denominator))
    if isinstance(x, sympy.Rational):
        return flint.fmpq(int(x.p), int(x.q))
    raise VerifyInputError(f"Argument {name!r} must have exact rational entries, not {x!r}.")


def _to_mpf(x: Any) -> mpmath.mpf:
    if isinstance(x, (flint.fmpq, sympy.Rational)):
        return mpmath.mpf(int(x.p)) / int(x.q)
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def as_mp(A: Any) -> np.ndarray:
    """An object array of ``mpmath.mpf`` at the current ``mpmath.mp.dps`` (rationals converted exactly)."""
    return _map(A, _to_mpf)


def _scalar(x: Any, kind: str) -> Any:
    if kind == "float":
        return float(x)
    if kind == "mp":
        return _to_mpf(x)
    return _to_fmpq(x)


def _eye(d: int, kind: str) -> np.ndarray:
    return np.eye(d) if kind == "float" else np.eye(d, dtype=int).astype(object)


def _inv(M: np.ndarray, kind: str) -> np.ndarray:
    if kind == "float":
        return np.linalg.inv(M)
    d = M.shape[0]
    if kind == "mp":
        return np.array(mpmath.inverse(mpmath.matrix(M.tolist())).tolist(), dtype=object)
    inv = flint.fmpq_mat(d, d, [_to_fmpq(x) for x in M.flat]).inv()
    return np.array(inv.entries(), dtype=object).reshape(d, d)


def _trace(M: np.ndarray) -> Any:
    return sum((M[i, i] for i in range(1, M.shape[0])), M[0, 0])


def _prepare(H: Any, K: Any, n: Any = None, name: str = "H") -> tuple[np.ndarray, int, int, str]:
    K = verify_int(K, "K", minimum=1)
    if isinstance(H, np.ndarray) and H.dtype == object:
        arr = H
        if arr.ndim != 2:
            raise VerifyInputError(f"Argument {name!r} must be a 2-D array, not an array of shape {arr.shape}.")
        kind = _kind(arr)
        if kind == "exact":
            arr = _map(arr, lambda x: _to_fmpq(x, name))
        elif kind == "mp" and not all(mpmath.isfinite(x) for x in arr.flat):
            raise VerifyInputError(f"Argument {name!r} must be finite (no NaN or inf entries).")
    else:
        arr, kind = verify_array(H, name, ndim=2), "float"
    d, cols = arr.shape
    if d < 1 or cols < K or cols % K:
        raise VerifyInputError(f"Argument {name!r} must have shape (d, K*n) with K={K}, n >= 1, d >= 1, not {arr.shape}.")
    n_h = cols // K
    if n is not None and verify_int(n, "n", minimum=1) != n_h:
        raise VerifyInputError(f"Argument 'n' must equal H.shape[1] / K = {n_h}, not {n}.")
    return arr, K, n_h, kind


# --------------------------------------------------------------------------- covariances and W*(H)
def class_means(H: Any, K: int) -> np.ndarray:
    r"""The class means :math:`\bar H = \frac1n H(I_K\otimes 1_n)\in\mathbb R^{d\times K}`."""
    H, K, n, _ = _prepare(H, K)
    return H.reshape(H.shape[0], K, n).sum(axis=2) / n


def covariances(H: Any, K: int) -> dict:
    r"""``{"Sigma_W", "Sigma_B", "Sigma_T_tilde", "Sigma_B_tilde", "Hbar"}`` from their definitions (§4, App. A).

    >>> import numpy as np
    >>> c = covariances(np.arange(8.0).reshape(2, 4), K=2)
    >>> bool(np.allclose(c["Sigma_T_tilde"], c["Sigma_W"] + c["Sigma_B_tilde"]))
    True
    """
    H, K, n, kind = _prepare(H, K)
    Hbar = H.reshape(H.shape[0], K, n).sum(axis=2) / n
    Hc = H - np.repeat(Hbar, n, axis=1)
    Mc = Hbar - (Hbar.sum(axis=1) / K)[:, None]
    return {"Sigma_W": Hc @ Hc.T / (K * n), "Sigma_B": Mc @ Mc.T / K,
            "Sigma_T_tilde": H @ H.T / (K * n), "Sigma_B_tilde": Hbar @ Hbar.T / K, "Hbar": Hbar}


def nc1_tilde(H: Any, K: int) -> Any:
    r""":math:`\widetilde{NC}_1(H) = \operatorname{Tr}\Sigma_W/\operatorname{Tr}\Sigma_B` (eq. 3); ``inf`` when :math:`\Sigma_B=0`."""
    c = covariances(H, K)
    tb = _trace(c["Sigma_B"])
    return _trace(c["Sigma_W"]) / tb if tb != 0 else float("inf")


def _same_shape_H0(H0: Any, H: np.ndarray, kind: str = "float") -> np.ndarray:
    """``H0`` as an array of ``H``'s dtype and shape (the reference features of (2)); exact rationals as
    ``fmpq`` like ``H`` (:func:`_prepare`), since ``fmpq`` and ``Fraction`` do not mix in arithmetic."""
    H0 = verify_array(H0, "H0", dtype=H.dtype)
    if kind == "exact":
        try:
            H0 = as_exact(H0)
        except VerifyInputError:
            raise VerifyInputError("Argument 'H0' must have exact rational entries when H has them (no floats)."
                                   ) from None
    if H0.shape != H.shape:
        raise VerifyInputError(f"Argument 'H0' must have the shape of H, {H.shape}, not {H0.shape}.")
    return H0


def _check_lams(lam_W: Any, lam_H: Any) -> None:
    verify_positive(lam_W, "lam_W")
    verify_nonnegative(lam_H, "lam_H")


def optimal_W(H: Any, lam_W: Any, K: int) -> np.ndarray:
    r""":math:`W^*(H) = YH^\top(HH^\top+n\lambda_WI_d)^{-1}`, the minimiser over :math:`W` in (1) and (2)."""
    verify_positive(lam_W, "lam_W")
    H, K, n, kind = _prepare(H, K)
    d = H.shape[0]
    YHt = H.reshape(d, K, n).sum(axis=2).T                 # Y H^T = n Hbar^T
    M = H @ H.T + _eye(d, kind) * (_scalar(lam_W, kind) * n)
    if kind == "float":
        return np.linalg.solve(M, YHt.T).T                  # M symmetric
    return YHt @ _inv(M, kind)


def _pieces(H, lam_W, lam_H, K):
    H, K, n, kind = _prepare(H, K)
    _check_lams(lam_W, lam_H)
    lw, lh = _scalar(lam_W, kind), _scalar(lam_H, kind)
    c = covariances(H, K)
    d = H.shape[0]
    eye = _eye(d, kind)
    A = c["Sigma_W"] + eye * (lw / K)
    C = _inv(c["Sigma_T_tilde"] + eye * (lw / K), kind)
    return H, K, n, kind, lw, lh, c, A, C


def central_path_loss(H: Any, lam_W: Any, lam_H: Any, K: int) -> Any:
    r"""Closed form of :math:`\mathcal L(H)` (App. A):
    :math:`\frac1{2K}\operatorname{Tr}((\Sigma_W+\frac{\lambda_W}KI)(\tilde\Sigma_T+\frac{\lambda_W}KI)^{-1})
    +\frac{\lambda_H}2\operatorname{Tr}\tilde\Sigma_T-\frac{d-K}{2K}`."""
    H, K, n, kind, lw, lh, c, A, C = _pieces(H, lam_W, lam_H, K)
    d = H.shape[0]
    return _trace(A @ C) / (2 * K) + lh * _trace(c["Sigma_T_tilde"]) / 2 - _scalar(Fraction(d - K, 2 * K), kind)


def ufm_objective(W: Any, H: Any, lam_W: Any, lam_H: Any, K: int) -> Any:
    r"""Objective (1): :math:`\frac1{2Kn}\|WH-Y\|_F^2+\frac{\lambda_W}{2K}\|W\|_F^2+\frac{\lambda_H}{2Kn}\|H\|_F^2`."""
    H, K, n, kind = _prepare(H, K)
    _check_lams(lam_W, lam_H)
    W = verify_array(W, "W", dtype=H.dtype)
    if kind == "exact":   # Fraction or sympy entries as fmpq, like H
        W = as_exact(W)
    if W.shape != (K, H.shape[0]):
        raise VerifyInputError(f"Argument 'W' must have shape ({K}, {H.shape[0]}), not {W.shape}.")
    Y = np.kron(_eye(K, kind), np.ones((1, n), dtype=int if kind != "float" else float))
    R = W @ H - Y
    lw, lh = _scalar(lam_W, kind), _scalar(lam_H, kind)
    return (R * R).sum() / (2 * K * n) + lw * (W * W).sum() / (2 * K) + lh * (H * H).sum() / (2 * K * n)


def central_path_loss_direct(H: Any, lam_W: Any, lam_H: Any, K: int) -> Any:
    r""":math:`\mathcal L(H)` from its definition: objective (1) at :math:`(W^*(H), H)`."""
    return ufm_objective(optimal_W(H, lam_W, K), H, lam_W, lam_H, K)


def grad_central_path_loss(H: Any, lam_W: Any, lam_H: Any, K: int) -> np.ndarray:
    r"""The gradient (7) of :math:`\mathcal L`, closed form (no autodiff), :math:`O(d^2Kn + d^3)`.

    Evaluated in the equivalent form (by :math:`\Sigma_W+\frac{\lambda_W}KI = C^{-1}-\tilde\Sigma_B`,
    App. A's decomposition; the literal (7) is checked against it in the tests)

    .. math::

        \nabla\mathcal L(H) = \frac1{K^2n}\Big(-(C\bar H)\otimes1_n^\top
            + \tfrac1K (C\bar H)(C\bar H)^\top H + \lambda_HKH\Big),

    which needs one :math:`d\times d` solve against the :math:`d\times K` class means.
    """
    H, K, n, kind = _prepare(H, K)
    _check_lams(lam_W, lam_H)
    lw, lh = _scalar(lam_W, kind), _scalar(lam_H, kind)
    d = H.shape[0]
    Hbar = H.reshape(d, K, n).sum(axis=2) / n
    M = H @ H.T / (K * n) + _eye(d, kind) * (lw / K)
    if kind == "float":
        CHbar = cho_solve(cho_factor(M), Hbar)       # M is symmetric positive definite (lW > 0)
    else:
        CHbar = _inv(M, kind) @ Hbar
    return (CHbar @ (CHbar.T @ H) / K - np.repeat(CHbar, n, axis=1) + H * (lh * K)) / (K * K * n)


# --------------------------------------------------------------------------- problem (1)
def collapse_rho(lam_W: Any, lam_H: Any) -> Any:
    r""":math:`\rho = (1-c)\sqrt{\lambda_W/\lambda_H}` with :math:`c=\sqrt{\lambda_H\lambda_W}` (Thm 2.2); 0 for :math:`c\ge1`.

    Exact (sympy) for sympy/rational input, else float.
    """
    verify_positive(lam_W, "lam_W")
    verify_positive(lam_H, "lam_H")
    if isinstance(lam_W, (sympy.Basic, Fraction)) or isinstance(lam_H, (sympy.Basic, Fraction)):
        lw, lh = sympy.nsimplify(lam_W), sympy.nsimplify(lam_H)
        c = sympy.sqrt(lw * lh)
        return sympy.Max(0, (1 - c) * sympy.sqrt(lw / lh))
    c = np.sqrt(float(lam_W) * float(lam_H))
    return max(0.0, (1 - c) * np.sqrt(float(lam_W) / float(lam_H)))


def collapsed_minimiser(R: Any, lam_W: Any, lam_H: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    r"""The minimiser of (1) built from a partial orthonormal :math:`R\in\mathbb R^{d\times K}` (§2):
    :math:`H^* = \sqrt\rho\,R\otimes1_n^\top`, :math:`W^* = \sqrt{\lambda_H/\lambda_W}\sqrt\rho\,R^\top`.

    >>> import numpy as np
    >>> W, H = collapsed_minimiser(np.eye(3)[:, :2], 0.5, 0.5, n=2)
    >>> H.shape, W.shape
    ((3, 4), (2, 3))
    """
    R = verify_array(R, "R", ndim=2)
    d, K = R.shape
    if d < K:
        raise VerifyInputError(f"Argument 'R' must have d >= K rows (Thm 2.2 needs d >= K), not shape {R.shape}.")
    if not np.allclose(R.T @ R, np.eye(K), atol=1e-10):  # float round-off of an orthonormalisation
        raise VerifyInputError("Argument 'R' must have orthonormal columns (R^T R = I_K).")
    n = verify_int(n, "n", minimum=1)
    rho = float(collapse_rho(lam_W, lam_H))
    H = np.sqrt(rho) * np.kron(R, np.ones((1, n)))
    W = np.sqrt(float(lam_H) / float(lam_W)) * np.sqrt(rho) * R.T
    return W, H


def _ufm_value_grad(x, d, K, n, lw, lh):
    W = x[: K * d].reshape(K, d)
    H = x[K * d:].reshape(d, K * n)
    Y = np.kron(np.eye(K), np.ones((1, n)))
    R = W @ H - Y
    f = (R * R).sum() / (2 * K * n) + lw * (W * W).sum() / (2 * K) + lh * (H * H).sum() / (2 * K * n)
    gW = R @ H.T / (K * n) + lw * W / K
    gH = W.T @ R / (K * n) + lh * H / (K * n)
    return f, np.concatenate([gW.ravel(), gH.ravel()])


def solve_ufm(d: int, K: int, n: int, lam_W: float, lam_H: float, starts: int = 8, seed: int = 0,
              scale: float = 1.0) -> dict:
    r"""Minimise (1) jointly over :math:`(W, H)` with L-BFGS (exact gradient) from ``starts`` seeded
    Gaussian starts of standard deviation ``scale``; returns the best ``{"W", "H", "value", "values"}``."""
    d, K, n = verify_int(d, "d", minimum=1), verify_int(K, "K", minimum=1), verify_int(n, "n", minimum=1)
    lw, lh = float(verify_positive(lam_W, "lam_W")), float(verify_nonnegative(lam_H, "lam_H"))
    starts = verify_int(starts, "starts", minimum=1)
    seed = verify_int(seed, "seed", minimum=0)
    verify_positive(scale, "scale")
    rng = np.random.default_rng(seed)
    best, values = None, []
    for _ in range(starts):
        x0 = scale * rng.standard_normal(K * d + d * K * n)
        res = minimize(_ufm_value_grad, x0, args=(d, K, n, lw, lh), jac=True, method="L-BFGS-B",
                       options={"maxiter": 20000, "gtol": 1e-13, "ftol": 0.0, "maxcor": 30})
        values.append(float(res.fun))
        if best is None or res.fun < best.fun:
            best = res
    x = best.x
    return {"W": x[: K * d].reshape(K, d), "H": x[K * d:].reshape(d, K * n), "value": float(best.fun),
            "values": values}


# --------------------------------------------------------------------------- problem (2)
def perturbed_objective(H: Any, H0: Any, beta: Any, lam_W: Any, lam_H: Any, K: int) -> Any:
    r"""The reduced objective of (2): :math:`\mathcal L(H)+\frac{\beta}{2Kn}\|H-H_0\|_F^2`."""
    H, K, n, kind = _prepare(H, K)
    verify_positive(beta, "beta")
    D = H - _same_shape_H0(H0, H, kind)
    return central_path_loss(H, lam_W, lam_H, K) + _scalar(beta, kind) * (D * D).sum() / (2 * K * n)


def stationarity_residual(H: Any, H0: Any, beta: Any, lam_W: Any, lam_H: Any, K: int) -> np.ndarray:
    r"""Residual of the first-order condition (8): :math:`H-H_0+\frac{Kn}{\beta}\nabla\mathcal L(H)`."""
    H, K, n, kind = _prepare(H, K)
    verify_positive(beta, "beta")
    g = grad_central_path_loss(H, lam_W, lam_H, K)
    return H - _same_shape_H0(H0, H, kind) + g * (K * n / _scalar(beta, kind))


#: above this many unknowns the root polish of :func:`solve_perturbed` is Newton-Krylov (matrix-free) instead of
#: hybr (a dense Jacobian); a module constant so that a check can cross it at small size
_HYBR_MAX_UNKNOWNS = 400


def solve_perturbed(H0: Any, beta: Any, lam_W: Any, lam_H: Any, K: int, n: int | None = None,
                    starts: int = 1, seed: int = 0, dps: int | None = None, polish: bool = True) -> np.ndarray:
    r"""The minimiser :math:`H_{1/\beta}` of (2) (equivalently of :math:`\mathcal L(H)+\frac\beta{2Kn}\|H-H_0\|_F^2`).

    Arguments: ``H0`` is :math:`d\times Kn` class by class; ``beta > 0``; ``lam_W > 0``;
    ``lam_H >= 0``; ``K`` classes; ``n`` (optional) is checked against ``H0.shape[1] / K``.
    The minimiser's weights are :func:`optimal_W` of the result.

    Float path: L-BFGS on the reduced objective with the closed-form gradient (7), from ``H0`` and
    ``starts - 1`` seeded random perturbations of it (the best value wins), then a Newton-type root
    polish (scipy ``root``, ``hybr`` up to 400 unknowns, else ``krylov``) of the stationarity
    equation (8). ``dps`` set: the float solution is refined by mpmath's multidimensional Newton
    (``findroot``) at that precision, for the inputs as given (an exact or mpmath ``H0``, ``beta`` or lambda is not
    rounded to float64 there), and an object array of ``mpf`` is returned (small sizes only:
    the Jacobian is formed by finite differences, :math:`(dKn)^2` evaluations).

    >>> import numpy as np
    >>> H0 = np.random.default_rng(0).standard_normal((3, 4))
    >>> H = solve_perturbed(H0, beta=20.0, lam_W=0.5, lam_H=0.1, K=2)
    >>> bool(np.abs(stationarity_residual(H, H0, 20.0, 0.5, 0.1, 2)).max() < 1e-12)
    True
    """
    H0, K, n, _ = _prepare(H0, K, n, name="H0")
    H0_given = H0   # exact (fmpq) or mpmath entries, kept for the refinement at ``dps`` (not rounded to float64)
    H0 = np.asarray(H0, dtype=float)
    verify_positive(beta, "beta")
    _check_lams(lam_W, lam_H)
    starts = verify_int(starts, "starts", minimum=1)
    seed = verify_int(seed, "seed", minimum=0)
    b, lw, lh = float(beta), float(lam_W), float(lam_H)
    shape = H0.shape

    def fg(x):
        H = x.reshape(shape)
        D = H - H0
        # scaled by Kn so that gradients are O(1) for L-BFGS's tolerances
        f = K * n * (central_path_loss(H, lw, lh, K) + b * (D * D).sum() / (2 * K * n))
        g = K * n * grad_central_path_loss(H, lw, lh, K) + b * D
        return f, g.ravel()

    rng = np.random.default_rng(seed)
    scale = np.linalg.norm(H0) / np.sqrt(H0.size) or 1.0
    best = None
    for s in range(starts):
        x0 = H0.ravel() if s == 0 else H0.ravel() + scale * rng.standard_normal(H0.size)
        res = minimize(fg, x0, jac=True, method="L-BFGS-B",
                       options={"maxiter": 50000, "gtol": 1e-14, "ftol": 0.0, "maxcor": 30})
        if best is None or res.fun < best.fun:
            best = res
    x = best.x
    if polish:
        def resid(v):
            return stationarity_residual(v.reshape(shape), H0, b, lw, lh, K).ravel()
        sol = root(resid, x, method="hybr" if x.size <= _HYBR_MAX_UNKNOWNS else "krylov", tol=1e-15)
        # keep the polish only if it did not walk to another stationary point
        if np.linalg.norm(resid(sol.x)) <= np.linalg.norm(resid(x)) and fg(sol.x)[0] <= fg(x)[0] + 1e-12 * abs(fg(x)[0]):
            x = sol.x
    H = x.reshape(shape)
    if dps is None:
        return H
    dps = verify_int(dps, "dps", minimum=15)
    with mpmath.workdps(dps):
        # the inputs as given, at this precision: an exact H0, beta or lambda is not rounded to float64 first
        H0m, bm = as_mp(H0_given), _to_mpf(beta)
        lwm, lhm = _to_mpf(lam_W), _to_mpf(lam_H)

        def F(*v):
            Hm = np.array(v, dtype=object).reshape(shape)
            return list(stationarity_residual(Hm, H0m, bm, lwm, lhm, K).ravel())

        sol = mpmath.findroot(F, [mpmath.mpf(v) for v in H.ravel()])
        return np.array([sol[i] for i in range(H.size)], dtype=object).reshape(shape)
