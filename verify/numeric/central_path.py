r"""Gradient flow (4) on the central path of paper N and the traces of Theorem 4.1.

.. math::

    \frac{dH_t}{dt} = -Kn\,\nabla\mathcal L(H_t),\qquad
    T_W(t) = e^{2\lambda_Ht}\operatorname{Tr}\Sigma_W(H_t),\quad
    T_B(t) = e^{2\lambda_Ht}\operatorname{Tr}\Sigma_B(H_t),\quad
    \widetilde{NC}_1(H_t) = T_W/T_B .

Two integrators: :func:`solve_flow` (scipy ``solve_ivp``, DOP853, dense output, closed-form
gradient (7): one step costs :math:`O(d^2Kn+d^3)`), and :func:`solve_flow_mp` (mpmath ``odefun``,
Taylor method at any precision) for small instances where float64 cannot settle a monotonicity
question.

>>> import numpy as np
>>> H0 = np.random.default_rng(0).standard_normal((3, 4))
>>> sol = solve_flow(H0, lam_W=0.5, lam_H=0.1, K=2, t_end=1.0)
>>> tr = flow_traces(sol, [0.0, 1.0], lam_H=0.1, K=2)
>>> bool(tr["nc1_tilde"][1] < tr["nc1_tilde"][0])
True
"""

from __future__ import annotations

from typing import Any, Sequence

import mpmath
import numpy as np
from scipy.integrate import solve_ivp

from .._validate import verify_array, verify_choice, verify_int, verify_nonnegative, verify_positive
from .ufm import _prepare, as_mp, covariances, grad_central_path_loss

__all__ = ["flow_rhs", "solve_flow", "flow_traces", "trace_derivatives", "solve_flow_mp"]


def flow_rhs(H: Any, lam_W: Any, lam_H: Any, K: int) -> np.ndarray:
    r"""The vector field of (4), :math:`-Kn\nabla\mathcal L(H)` (any arithmetic of :mod:`verify.numeric.ufm`)."""
    H, K, n, _ = _prepare(H, K)
    return grad_central_path_loss(H, lam_W, lam_H, K) * (-K * n)


def solve_flow(H0: Any, lam_W: float, lam_H: float, K: int, t_end: float, rtol: float = 1e-10,
               atol: float = 1e-13, t_eval: Sequence[float] | None = None, method: str = "DOP853"):
    r"""Integrate (4) from :math:`H_0` to ``t_end`` with ``solve_ivp`` (dense output).

    The returned ``OdeResult`` has ``sol(t)`` (flattened :math:`H_t`) and the attribute ``shape``.
    ``rtol <= 1e-10`` by default, as the monotonicity checks compare values that differ in the
    7th-10th digit late in the flow.
    """
    H0, K, n, _ = _prepare(H0, K, name="H0")
    H0 = np.asarray(H0, dtype=float)
    lw, lh = float(verify_positive(lam_W, "lam_W")), float(verify_nonnegative(lam_H, "lam_H"))
    t_end = float(verify_positive(t_end, "t_end"))
    verify_positive(rtol, "rtol")
    verify_nonnegative(atol, "atol")
    t_eval = None if t_eval is None else verify_array(t_eval, "t_eval", ndim=1)
    method = verify_choice(method, "method", ("RK23", "RK45", "DOP853", "Radau", "BDF", "LSODA"))
    shape = H0.shape

    def rhs(_t, y):
        return flow_rhs(y.reshape(shape), lw, lh, K).ravel()

    sol = solve_ivp(rhs, (0.0, t_end), H0.ravel(), method=method, rtol=rtol, atol=atol,
                    dense_output=True, t_eval=t_eval)
    sol.shape = shape
    return sol


def flow_traces(sol, ts: Sequence[float], lam_H: float, K: int) -> dict:
    r"""``{"t", "T_W", "T_B", "tr_W", "tr_B", "nc1_tilde"}`` along a :func:`solve_flow` result."""
    verify_nonnegative(lam_H, "lam_H")
    K = verify_int(K, "K", minimum=1)
    ts = verify_array(ts, "ts", ndim=1)
    out = {k: np.empty(ts.size) for k in ("T_W", "T_B", "tr_W", "tr_B", "nc1_tilde")}
    for i, t in enumerate(ts):
        c = covariances(sol.sol(t).reshape(sol.shape), K)
        tw, tb = np.trace(c["Sigma_W"]), np.trace(c["Sigma_B"])
        out["tr_W"][i], out["tr_B"][i] = tw, tb
        out["T_W"][i], out["T_B"][i] = np.exp(2 * lam_H * t) * tw, np.exp(2 * lam_H * t) * tb
        out["nc1_tilde"][i] = tw / tb if tb > 0 else np.inf
    out["t"] = ts
    return out


def trace_derivatives(H: Any, lam_W: Any, lam_H: Any, K: int) -> dict:
    r"""The proof's closed forms at :math:`t` with :math:`e^{2\lambda_Ht}` divided out (App. A):

    .. math::

        e^{-2\lambda_Ht}\dot T_W = -\tfrac2K\operatorname{Tr}(\Sigma_WC\tilde\Sigma_BC),\qquad
        e^{-2\lambda_Ht}\dot T_B = \tfrac2K\operatorname{Tr}(\Sigma_BC(\Sigma_W+\tfrac{\lambda_W}KI)C),

    and the lower bound :math:`\frac{2\lambda_W}{K^2}\operatorname{Tr}(\Sigma_BC^2)` of the latter.
    """
    from .ufm import _pieces, _trace

    H, K, n, kind, lw, lh, c, A, C = _pieces(H, lam_W, lam_H, K)
    return {"dT_W": -2 * _trace(c["Sigma_W"] @ C @ c["Sigma_B_tilde"] @ C) / K,
            "dT_B": 2 * _trace(c["Sigma_B"] @ C @ A @ C) / K,
            "dT_B_lower": 2 * lw * _trace(c["Sigma_B"] @ C @ C) / (K * K)}


def solve_flow_mp(H0: Any, lam_W: Any, lam_H: Any, K: int, ts: Sequence[Any], dps: int = 30) -> list:
    r"""Integrate (4) with mpmath's Taylor-series ``odefun`` at ``dps`` digits; returns :math:`H_t` (object
    arrays of ``mpf``) at each ``t`` of ``ts``. Small instances only (the Taylor coefficients cost many
    evaluations of the vector field)."""
    H0, K, n, _ = _prepare(H0, K, name="H0")
    verify_positive(lam_W, "lam_W")
    verify_nonnegative(lam_H, "lam_H")
    dps = verify_int(dps, "dps", minimum=15)
    verify_array(ts, "ts", ndim=1)   # finite real times (kept as given: exact ones are taken exactly below)
    shape = H0.shape
    out = []
    with mpmath.workdps(dps):
        H0m = as_mp(H0)
        lw, lh = as_mp([lam_W])[0], as_mp([lam_H])[0]

        def F(_t, y):
            return list(flow_rhs(np.array(y, dtype=object).reshape(shape), lw, lh, K).ravel())

        f = mpmath.odefun(F, 0, list(H0m.ravel()))
        for t in ts:
            out.append(np.array(f(mpmath.mpf(t)), dtype=object).reshape(shape))
    return out
