r"""One definition of every violation ratio: the registry of adversarial objectives.

An *objective* turns a point :math:`x \in \mathbb R^k` (matrices and log-scaled parameters, flattened)
into a number that a claim says cannot exceed a threshold: usually a violation ratio
:math:`\text{measured} / \text{claimed bound}` (threshold 1), sometimes a normalised gap or a
derivative that must stay :math:`\le 0` (threshold 0). Outside the claim's hypotheses it returns
``nan``, which the optimiser treats as :math:`-\infty`.

The registry maps a name (the claim ID, or ``ID:variant`` when a claim has several searches) to an
:class:`Objective`: the ratio, the seeded start sampler, a description of :math:`x`, the default seed
and optimiser budget of the check in ``proofs_checks/``, and an exact or high-precision ``replay``
that re-evaluates a saved point in rationals (:class:`fractions.Fraction`) or with mpmath at
dps 30 and 50, as the claim's check does. Both ``proofs_checks`` (through
:func:`verify.engine.adversarial_max`) and ``verify search`` (:mod:`verify.search`) use these
functions, so a search and a check measure the same thing.

>>> obj = get_objective("S-lemA.2")
>>> obj.claim, obj.threshold, obj.dim
('S-lemA.2', 1.0, 16)
>>> x = obj.sampler(np.random.default_rng(0))
>>> 0 < obj.ratio(x) <= 1
True
>>> abs(float(obj.replay(x)["value"]) - obj.ratio(x)) < 1e-12
True
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import mpmath
import numpy as np

from ._validate import VerifyInputError

__all__ = ["Objective", "OBJECTIVES", "get_objective", "objective_names", "replay_point",
           "unpack_central", "tw_violation", "nc1_violation", "lemb1_ratio", "bdist_ratio",
           "lemc3_ratio", "lemc3_start", "lemc4_ratio", "thmc2_paper_ratio", "thmc2_lip_ratio",
           "thmc2_map_ratio", "thmc2_sharp_hessian_ratio", "thmc2_sharp_lip_ratio", "thmc2_sharp_map_ratio",
           "fn3_gap", "lema2_ratio", "thm31_ratio", "normal_then_uniform"]

#: the ladder of :func:`verify.engine.precision_ladder` used by the mpmath replays
REPLAY_DPS = (30, 50)


@dataclass(frozen=True)
class Objective:
    """A claim's adversarial objective (see the module docstring).

    :param name: registry key, the claim ID or ``ID:variant``.
    :param claim: the claim ID of :mod:`verify.claims`.
    :param ratio: ``x -> float`` (``nan`` outside the hypotheses); a module-level function or a
        :func:`functools.partial` of one, so Dask can ship it by reference.
    :param sampler: ``rng -> x0``, a start inside the hypotheses.
    :param params: what the coordinates of ``x`` mean.
    :param threshold: the claim says ``ratio(x) <= threshold``.
    :param tol: float64 slack above ``threshold`` before a point counts as a counterexample (the
        reason is in the registry entry); :attr:`replay` settles such a point exactly.
    :param seed, maxiter: the check's defaults.
    :param replay: ``x -> dict`` with ``value`` (a :class:`~fractions.Fraction`, an mpmath number or a
        float), ``method`` and extra fields, or ``None`` for float64 only (the check itself is float64).
    :param expect: ``"holds"`` or ``"fails"`` (the paper's statement is known to be false).
    """

    name: str
    claim: str
    ratio: Callable[[np.ndarray], float]
    sampler: Callable[[np.random.Generator], np.ndarray]
    params: str
    dim: int
    threshold: float = 1.0
    tol: float = 1e-9
    seed: int = 0
    maxiter: int = 400
    method: str = "Nelder-Mead"
    replay: Callable[[np.ndarray], dict] | None = None
    expect: str = "holds"
    description: str = ""

    def violates(self, value: float) -> bool:
        """Whether a float64 value counts as a counterexample (beyond :attr:`threshold` + :attr:`tol`)."""
        return bool(np.isfinite(value) and value > self.threshold + self.tol)


# --------------------------------------------------------------------------- samplers
def normal_then_uniform(rng: np.random.Generator, k: int, lo: float, hi: float, m: int, more: tuple = ()) -> np.ndarray:
    """``k`` standard normals, then ``m`` uniforms on ``[lo, hi)`` (then further ``(lo, hi, m)`` blocks of ``more``),
    drawn in that order from ``rng`` (so it reproduces ``np.concatenate([r.standard_normal(k), r.uniform(lo, hi, m)])``)."""
    parts = [rng.standard_normal(k), rng.uniform(lo, hi, m)]
    for lo2, hi2, m2 in more:
        parts.append(rng.uniform(lo2, hi2, m2))
    return np.concatenate(parts)


def _normal(rng: np.random.Generator, k: int) -> np.ndarray:
    return rng.standard_normal(k)


# --------------------------------------------------------------------------- N §4, App. A-B
def unpack_central(x: np.ndarray, d: int = 2, K: int = 2, n: int = 2) -> tuple[np.ndarray, float, float]:
    r"""``x = (vec H, a, b)`` -> :math:`(H, \lambda_W, \lambda_H)` with :math:`\lambda_W = e^a` and
    :math:`\lambda_H = \max(e^b - 1/2, 0)`, :math:`a, b` clipped to :math:`[-12, 5]` (so that searches
    also visit :math:`\lambda_H = 0`)."""
    H = x[: d * K * n].reshape(d, K * n)
    x = np.clip(x, -12.0, 5.0)
    return H, float(np.exp(x[-2])), max(float(np.exp(x[-1])) - 0.5, 0.0)


def tw_violation(x: np.ndarray) -> float:
    r"""Thm 4.1 (N-thm4.1-W): :math:`\frac{d}{dt}(e^{2\lambda_Ht}\operatorname{Tr}\Sigma_W)` normalised by
    :math:`\|\Sigma_W\|_F\|C\tilde\Sigma_B C\|_F`, :math:`C = (\tilde\Sigma_T + \lambda_W I/2)^{-1}`;
    the theorem says :math:`\le 0` (d = 2, K = 2, n = 2)."""
    from .numeric import central_path as flow
    from .numeric import ufm

    H, lw, lh = unpack_central(x)
    c = ufm.covariances(H, 2)
    C = np.linalg.inv(c["Sigma_T_tilde"] + lw / 2 * np.eye(2))
    dtw = flow.trace_derivatives(H, lw, lh, 2)["dT_W"]
    scale = np.linalg.norm(c["Sigma_W"]) * np.linalg.norm(C @ c["Sigma_B_tilde"] @ C)
    return dtw / scale if scale > 0 else np.nan


def nc1_violation(x: np.ndarray) -> float:
    r"""Thm 4.1 with :math:`\Sigma_B \ne 0`: :math:`\frac{d}{dt}\log\widetilde{NC1}
    = \dot T_W/T_W - \dot T_B/T_B` (the :math:`e^{2\lambda_Ht}` factors cancel); must be :math:`< 0`."""
    from .numeric import central_path as flow
    from .numeric import ufm

    H, lw, lh = unpack_central(x)
    tw, tb = np.trace(ufm.covariances(H, 2)["Sigma_W"]), np.trace(ufm.covariances(H, 2)["Sigma_B"])
    if tw <= 0 or tb <= 0:
        return np.nan
    der = flow.trace_derivatives(H, lw, lh, 2)
    return der["dT_W"] / tw - der["dT_B"] / tb


def lemb1_ratio(x: np.ndarray, d: int = 2, K: int = 2, n: int = 2) -> float:
    r"""Lemma B.1: :math:`\|\nabla\mathcal L(H)\|_F \,/\, \bigl(\tfrac{1}{Kn}(3/\lambda_W + \lambda_H)\|H\|_F\bigr)`."""
    from .numeric import ufm

    H, lw, lh = unpack_central(x, d, K, n)
    g = ufm.grad_central_path_loss(H, lw, lh, K)
    nh = np.linalg.norm(H)
    return np.linalg.norm(g) / ((3 / lw + lh) / (K * n) * nh) if nh > 0 else np.nan


def _lemb1_replay(x: np.ndarray, d: int = 2, K: int = 2, n: int = 2) -> dict:
    """mpmath: the float point's binary values, :math:`e^a` and the gradient (7) at dps 30 and 50."""
    from .engine import precision_ladder
    from .numeric import ufm

    def at_dps():
        xs = [mpmath.mpf(float(v)) for v in np.asarray(x, dtype=float)]
        H = np.array(xs[: d * K * n], dtype=object).reshape(d, K * n)
        a, b = (min(max(v, mpmath.mpf(-12)), mpmath.mpf(5)) for v in xs[-2:])
        lw, lh = mpmath.exp(a), max(mpmath.exp(b) - mpmath.mpf(1) / 2, mpmath.mpf(0))
        g = ufm.grad_central_path_loss(H, lw, lh, K)
        ng = mpmath.sqrt(mpmath.fsum(v * v for v in g.flat))
        nh = mpmath.sqrt(mpmath.fsum(v * v for v in H.flat))
        return ng / ((3 / lw + lh) / (K * n) * nh)

    lad = precision_ladder(at_dps, REPLAY_DPS)
    return {"value": lad.values[-1], "method": f"mpmath dps {REPLAY_DPS}", "ladder_discrepancy": lad.discrepancy}


def bdist_ratio(x: np.ndarray, q: float = 1.05) -> float:
    r"""App. B: :math:`\|H_{1/\beta} - H_0\|_F \,/\, \bigl((\beta/(nKM) - 1)^{-1}\|H_0\|_F\bigr)` at
    :math:`\beta = q\, nKM`, :math:`nKM = 3/\lambda_W + \lambda_H` (minimiser of (2), reduced solver)."""
    from .numeric import ufm

    H0, lw, lh = unpack_central(x)
    nKM = 3 / lw + lh
    beta = nKM * q
    H = ufm.solve_perturbed(H0, beta, lw, lh, 2, polish=False)
    nh = np.linalg.norm(H0)
    return np.linalg.norm(H - H0) / (nh / (beta / nKM - 1)) if nh > 0 else np.nan


# --------------------------------------------------------------------------- N App. C
def _psd(x: np.ndarray, m: int) -> np.ndarray:
    L = np.zeros((m, m))
    L[np.tril_indices(m)] = x
    return L @ L.T


def lemc3_ratio(x: np.ndarray, m: int = 3) -> float:
    r"""Lemma C.3: :math:`\|A^{-1/2}BA^{-1/2}\|_{op}` for :math:`A = L_AL_A^T \succ 0`,
    :math:`B = L_BL_B^T`, :math:`B \prec A` (``x`` = the two lower triangles); ``nan`` outside."""
    k = m * (m + 1) // 2
    A, B = _psd(x[:k], m), _psd(x[k:], m)
    if np.linalg.eigvalsh(A).min() <= 1e-12 or np.linalg.eigvalsh(A - B).min() <= 0:
        return np.nan  # outside the hypotheses
    w, V = np.linalg.eigh(A)
    Ais = (V / np.sqrt(w)) @ V.T
    return float(np.linalg.norm(Ais @ B @ Ais, 2))


def lemc3_start(rng: np.random.Generator, m: int = 3) -> np.ndarray:
    """A feasible start for :func:`lemc3_ratio` (rejection sampling), so the search begins inside the hypotheses."""
    k = m * (m + 1) // 2
    while True:
        x = np.concatenate([2 * rng.standard_normal(k), 0.5 * rng.standard_normal(k)])
        if np.isfinite(lemc3_ratio(x, m)):
            return x


def _frac_psd(x: np.ndarray, m: int):
    import sympy

    L = sympy.zeros(m, m)
    for (i, j), v in zip(zip(*np.tril_indices(m)), x):
        L[int(i), int(j)] = sympy.Rational(Fraction(float(v)))
    return L * L.T


def _lemc3_replay(x: np.ndarray, m: int = 3) -> dict:
    r"""Exact rationals for the hypotheses (:math:`A \succ 0`, :math:`A - B \succ 0`, sympy on the float
    point's binary values), mpmath for :math:`\lambda_{\max}(L^{-1}BL^{-T})`, :math:`A = LL^T`."""
    from .engine import precision_ladder

    k = m * (m + 1) // 2
    A, B = _frac_psd(x[:k], m), _frac_psd(x[k:], m)
    inside = bool(A.is_positive_definite and (A - B).is_positive_definite)

    def at_dps():
        Am = mpmath.matrix([[mpmath.mpf(int(v.p)) / int(v.q) for v in A.row(i)] for i in range(m)])
        Bm = mpmath.matrix([[mpmath.mpf(int(v.p)) / int(v.q) for v in B.row(i)] for i in range(m)])
        Li = mpmath.inverse(mpmath.cholesky(Am))
        M = Li * Bm * Li.T
        return max(mpmath.eigsy((M + M.T) / 2, eigvals_only=True))

    lad = precision_ladder(at_dps, REPLAY_DPS)
    return {"value": lad.values[-1] if inside else float("nan"), "inside_hypotheses_exact": inside,
            "method": f"sympy exact hypotheses + mpmath eigsy dps {REPLAY_DPS}", "ladder_discrepancy": lad.discrepancy}


def lemc4_ratio(x: np.ndarray, d: int = 3, K: int = 2, n: int = 2) -> float:
    r"""Lemma C.4: the largest of the four ratios (13)-(16) norm / claimed bound, at :math:`H` and
    :math:`\lambda_W = 10^{x_{-1}}`."""
    from .numeric import perturbation as P

    vals = P.lemma_c4_norms(x[:-1].reshape(d, K * n), 10.0 ** x[-1], K, n)
    return max(v / b for v, b in vals.values())


def thmc2_paper_ratio(x: np.ndarray, d: int = 3, K: int = 2, n: int = 2) -> float:
    r"""Thm C.2 as stated: :math:`\|\tfrac{d}{dt}\nabla\mathcal L(H + t\Delta H)\| \,/\,
    (\tfrac{11\lambda_H}{Kn}\|\Delta H\|)`, i.e. measured over the paper's Lipschitz constant, inside
    its hypothesis :math:`\lambda_W\lambda_H < 1`; ``x = (vec H, vec ΔH, log10 λ_W, log10 λ_H)`` in the
    box :math:`[-3, 2]^2`. The statement is false: the ratio exceeds 1 at random points."""
    from .numeric import perturbation as P

    k = d * K * n
    if not (-3 <= x[2 * k] <= 2 and -3 <= x[2 * k + 1] <= 2):
        return np.nan
    lw, lh = 10.0 ** x[2 * k], 10.0 ** x[2 * k + 1]
    if lw * lh >= 1:
        return np.nan  # outside the hypothesis lam_W lam_H < 1
    H, dH = x[:k].reshape(d, K * n), x[k: 2 * k].reshape(d, K * n)
    der = np.linalg.norm(P.grad_L_derivative_paper(H, dH, lw, lh, K, n))
    return float(der / (11 * lh / (K * n) * np.linalg.norm(dH)))


def _mp_grad_derivative_norm(H, dH, lw, lh, K):
    r""":math:`\|\tfrac{d}{dt}\nabla\mathcal L(H + t\Delta H)|_{t=0}\|_F` by an mpmath central difference
    of (7) at the working precision: :math:`h = 10^{-\mathrm{dps}/3}` balances truncation
    :math:`O(h^2)` and cancellation :math:`O(10^{-\mathrm{dps}}/h)`."""
    from .numeric import ufm

    h = mpmath.mpf(10) ** (-(mpmath.mp.dps // 3))
    gp = ufm.grad_central_path_loss(H + dH * h, lw, lh, K)
    gm = ufm.grad_central_path_loss(H - dH * h, lw, lh, K)
    return mpmath.sqrt(mpmath.fsum(((a - b) / (2 * h)) ** 2 for a, b in zip(gp.flat, gm.flat)))


def _thmc2_paper_replay(x: np.ndarray, d: int = 3, K: int = 2, n: int = 2) -> dict:
    """mpmath (dps 30, 50) central difference of the gradient (7) itself, not the paper's expression."""
    from .engine import precision_ladder

    k = d * K * n
    x = np.asarray(x, dtype=float)

    def at_dps():
        xs = [mpmath.mpf(float(v)) for v in x]
        H = np.array(xs[:k], dtype=object).reshape(d, K * n)
        dH = np.array(xs[k: 2 * k], dtype=object).reshape(d, K * n)
        lw, lh = mpmath.mpf(10) ** xs[2 * k], mpmath.mpf(10) ** xs[2 * k + 1]
        ndh = mpmath.sqrt(mpmath.fsum(v * v for v in dH.flat))
        return _mp_grad_derivative_norm(H, dH, lw, lh, K) / (11 * lh / (K * n) * ndh)

    lad = precision_ladder(at_dps, REPLAY_DPS)
    lw_lh = 10.0 ** (x[2 * k] + x[2 * k + 1])
    return {"value": lad.values[-1] if lw_lh < 1 else float("nan"), "lam_W_lam_H": lw_lh,
            "method": f"mpmath central difference of grad L (7), dps {REPLAY_DPS}",
            "ladder_discrepancy": lad.discrepancy}


def thmc2_lip_ratio(x: np.ndarray, d: int = 3, K: int = 2, n: int = 2) -> float:
    r"""Thm C.2, corrected: :math:`\|\tfrac{d}{dt}\nabla\mathcal L\| \,/\, (\tfrac{10/\lambda_W+\lambda_H}{Kn}\|\Delta H\|)`
    (paper's ten-term expression, checked against (7) in ``proofs_checks``), box :math:`[-3, 2]^2` for the log10 lambdas."""
    from .numeric import perturbation as P

    k = d * K * n
    H, dH = x[:k].reshape(d, K * n), x[k: 2 * k].reshape(d, K * n)
    if not (-3 <= x[2 * k] <= 2 and -3 <= x[2 * k + 1] <= 2):
        return np.nan  # search box for log10(lam_W), log10(lam_H)
    lw, lh = 10.0 ** x[2 * k], 10.0 ** x[2 * k + 1]
    der = np.linalg.norm(P.grad_L_derivative_paper(H, dH, lw, lh, K, n))
    return float(der / ((10 / lw + lh) / (K * n) * np.linalg.norm(dH)))


def thmc2_map_ratio(x: np.ndarray, d: int = 3, K: int = 2, n: int = 2) -> float:
    r"""Thm C.2, corrected map constant: :math:`\|\mathbf F\|_{op}(1 - L_c/\beta)`, :math:`L_c = 10/\lambda_W + \lambda_H`,
    :math:`\beta = L_c(1 + 10^{x_{-1}})`; ``x = (vec H, log10 λ_W, log10 λ_H, log10(β/L_c - 1))`` in :math:`[-3, 3]^3`."""
    from .numeric import perturbation as P
    from .numeric.ufm import optimal_W

    k = d * K * n
    H = x[:k].reshape(d, K * n)
    if not (np.all(np.abs(x[k:]) <= 3)):
        return np.nan  # search box for log10(lam_W), log10(lam_H), log10(beta / (10/lam_W + lam_H) - 1)
    lw, lh = 10.0 ** x[k], 10.0 ** x[k + 1]
    Lc = 10 / lw + lh
    b = Lc * (1 + 10.0 ** x[k + 2])  # beta > 10/lam_W + lam_H: H is the minimiser for H0 = H + Kn/beta grad L(H)
    F = P.F_exact(optimal_W(H, lw, K), H, b, lw, lh, K, n)
    return float(np.linalg.norm(F, 2) * (1 - Lc / b))


def thmc2_sharp_hessian_ratio(x: np.ndarray, d: int = 3, K: int = 2, n: int = 2) -> float:
    r"""Thm C.2, sharp Hessian bounds (attained): :func:`verify.numeric.perturbation.hessian_extremes_ratio`, both
    sides :math:`\lambda_H-1/\lambda_W\le\mathrm{eig}\,
abla^2(Kn\mathcal L)\le\lambda_H+1/(4\lambda_W)` in one ratio;
    ``x = (vec H, log10 λ_W, log10 λ_H)``, box :math:`[-3, 2]^2` (any product, no :math:`\lambda_W\lambda_H<1` needed)."""
    from .numeric import perturbation as P

    k = d * K * n
    if not np.all(np.abs(x[k:] + 0.5) <= 2.5):
        return np.nan  # search box for log10(lam_W), log10(lam_H)
    return P.hessian_extremes_ratio(x[:k].reshape(d, K * n), 10.0 ** x[k], 10.0 ** x[k + 1], K, n)


def thmc2_sharp_lip_ratio(x: np.ndarray, d: int = 3, K: int = 2, n: int = 2) -> float:
    r"""Thm C.2, sharp gradient constant: :math:`\|	frac{d}{dt}
abla\mathcal L\| / (\mathrm{Lip}\,\|\Delta H\|)`,
    :math:`Kn\,\mathrm{Lip}=\max\{1/\lambda_W-\lambda_H,\lambda_H+1/(4\lambda_W)\}`; ``x`` as :func:`thmc2_lip_ratio`."""
    from .numeric import perturbation as P

    k = d * K * n
    if not (-3 <= x[2 * k] <= 2 and -3 <= x[2 * k + 1] <= 2):
        return np.nan  # search box for log10(lam_W), log10(lam_H)
    lw, lh = 10.0 ** x[2 * k], 10.0 ** x[2 * k + 1]
    H, dH = x[:k].reshape(d, K * n), x[k: 2 * k].reshape(d, K * n)
    der = np.linalg.norm(P.grad_L_derivative_paper(H, dH, lw, lh, K, n))
    return float(der / (P.thmC2_sharp_constants(lw, lh, K, n)["lip"] * np.linalg.norm(dH)))


def thmc2_sharp_map_ratio(x: np.ndarray, d: int = 3, K: int = 2, n: int = 2) -> float:
    r"""Thm C.2, sharp map constant: :math:`\|\mathbf F\|_{op}(1-
ho/eta)`, :math:`
ho=1/\lambda_W-\lambda_H`,
    :math:`eta=|
ho|(1+10^{x_{-1}})>\max\{
ho,0\}`; ``x = (vec H, log10 λ_W, log10 λ_H, log10(β/|ρ| - 1))``, box
    :math:`[-3, 3]^3`. H is the minimiser of (2) for :math:`H_0=H+rac{Kn}eta
abla\mathcal L(H)` (strongly convex there)."""
    from .numeric import perturbation as P
    from .numeric.ufm import optimal_W

    k = d * K * n
    if not np.all(np.abs(x[k:]) <= 3):
        return np.nan  # search box
    lw, lh = 10.0 ** x[k], 10.0 ** x[k + 1]
    rho = 1 / lw - lh
    if rho == 0:
        return np.nan  # beta = |rho| (1 + ...) needs rho != 0
    b = abs(rho) * (1 + 10.0 ** x[k + 2])
    H = x[:k].reshape(d, K * n)
    F = P.F_exact(optimal_W(H, lw, K), H, b, lw, lh, K, n)
    return float(np.linalg.norm(F, 2) * (1 - rho / b))


# --------------------------------------------------------------------------- S §3, App. A
def fn3_gap(z: np.ndarray, d: int = 2, n: int = 4, m: int = 3) -> float:
    r"""Footnote 3 (ii): :math:`(\text{LHS} - \text{RHS}) / (1 + |\text{RHS}|)` for ``x`` supported on
    :math:`S = \{0, 1\}`; exactly :math:`-\|\phi(W_{S^c}^TW_Sx_S)\|^2 / (1 + |\text{RHS}|) \le 0`."""
    from .numeric import upper_bounds as ub

    W, x = z[: d * n].reshape(d, n), z[d * n:].copy()
    x[2:] = 0  # support S = {0, 1}
    lhs, rhs, _ = ub.footnote3_sides(W, x, m)
    return (lhs - rhs) / (1 + abs(rhs))


def _fn3_replay(z: np.ndarray, d: int = 2, n: int = 4, m: int = 3) -> dict:
    """Exact rationals: the float point's binary values as :class:`~fractions.Fraction`."""
    q = np.array([Fraction(float(v)) for v in z], dtype=object)
    W, x = q[: d * n].reshape(d, n), q[d * n:].copy()
    x[2:] = Fraction(0)
    S = [0, 1]
    out = (W.T @ (W @ x)) ** m
    outS = (W[:, S].T @ (W[:, S] @ x[S])) ** m
    lhs, rhs = x @ out - out @ out, x[S] @ outS - outS @ outS
    return {"value": (lhs - rhs) / (1 + abs(rhs)), "method": "exact rationals (fractions.Fraction)"}


def lema2_ratio(z: np.ndarray, N: int = 4, k: int = 2) -> float:
    r"""Lemma A.2: :math:`\|A_{12}A_{22}^{-1}A_{21}\|_{op} / \|A\|_{op}`, :math:`A = BB^T + 10^{-9}I`."""
    from .numeric import upper_bounds as ub

    B = z.reshape(N, N)
    # + 1e-9 I keeps every visited A positive definite (the lemma's hypothesis) without moving the ratio
    return ub.schur_ratio(B @ B.T + 1e-9 * np.eye(N), k)


def _lema2_replay(z: np.ndarray, N: int = 4, k: int = 2) -> dict:
    """mpmath (dps 30, 50) on the exact matrix :math:`BB^T + 10^{-9}I` (the float 1e-9's binary value)."""
    from .engine import precision_ladder

    def at_dps():
        B = mpmath.matrix([[mpmath.mpf(float(z[i * N + j])) for j in range(N)] for i in range(N)])
        A = B * B.T + mpmath.mpf(1e-9) * mpmath.eye(N)
        A11 = A[:k, k:]  # A12
        X = A11 * mpmath.inverse(A[k:, k:]) * A11.T
        lx = max(mpmath.eigsy((X + X.T) / 2, eigvals_only=True))
        la = max(mpmath.eigsy(A, eigvals_only=True))
        return lx / la

    lad = precision_ladder(at_dps, REPLAY_DPS)
    return {"value": lad.values[-1], "method": f"mpmath eigsy dps {REPLAY_DPS}", "ladder_discrepancy": lad.discrepancy}


#: the Theorem 3.1 case searched by ``verify search S-thm3.1``: (d, n, m, mu, p)
THM31_CASE = (2, 6, 3, "gaussian", Fraction(1, 10))


def thm31_ratio(w: np.ndarray, d: int = THM31_CASE[0], n: int = THM31_CASE[1], m: int = THM31_CASE[2],
                mu: str = THM31_CASE[3], p: Fraction = THM31_CASE[4]) -> float:
    r"""Thm 3.1: :math:`\tilde L(W) / (C_2 p d^m)`, :math:`C_2 = \mu_2` (exact population loss, float64)."""
    from .numeric import upper_bounds as ub
    from .numeric.superposition_loss import exact_loss

    return float(exact_loss(w.reshape(d, n), float(p), m=m, mu=mu) / float(ub.thm31_bound(d, p, m, mu)))


def _thm31_replay(w: np.ndarray, d: int = THM31_CASE[0], n: int = THM31_CASE[1], m: int = THM31_CASE[2],
                  mu: str = THM31_CASE[3], p: Fraction = THM31_CASE[4]) -> dict:
    """Exact rationals: :func:`verify.numeric.upper_bounds.general_loss` with exact cumulants at the float
    point's binary values, over the exact bound (as ``test_thm31_chain_exact`` does)."""
    from .numeric import upper_bounds as ub

    W = np.array([Fraction(float(v)) for v in w], dtype=object).reshape(d, n)
    Lt = ub.general_loss(W, ub.coordinate_cumulants(mu, p, 2 * m), m)
    bound = ub.to_fraction(ub.thm31_constant(mu)) * p * d ** m
    return {"value": Fraction(Lt) / bound, "method": "exact rationals (general_loss, exact cumulants)"}


# --------------------------------------------------------------------------- registry
_P = functools.partial
_CP_SEED = 20240601  # proofs_checks/N/central_path/test_statements.py: SEED

OBJECTIVES: dict[str, Objective] = {o.name: o for o in (
    Objective("N-thm4.1-W", "N-thm4.1-W", tw_violation, _P(_normal, k=10),
              "vec H (d=2, K=2, n=2; 8), log lam_W, log lam_H + 1/2", 10, threshold=0.0, tol=1e-12, seed=_CP_SEED,
              # tol: a float trace of a product of O(1) matrices, normalised: round-off ~1e-15
              description="normalised d/dt (e^{2 lH t} Tr Sigma_W) <= 0"),
    Objective("N-thm4.1-nc1:nondegenerate", "N-thm4.1-nc1", nc1_violation, _P(_normal, k=10),
              "vec H (d=2, K=2, n=2; 8), log lam_W, log lam_H + 1/2", 10, threshold=0.0, tol=0.0, seed=_CP_SEED,
              # tol 0: the check asserts a strictly negative sup
              description="d/dt log NC1~ < 0 when Sigma_B != 0 (corrected statement)"),
    Objective("N-lemB.1", "N-lemB.1", lemb1_ratio, _P(normal_then_uniform, k=8, lo=-4, hi=1, m=2),
              "vec H (d=2, K=2, n=2; 8), log lam_W, log lam_H + 1/2", 10, seed=_CP_SEED, tol=1e-12,
              # tol: the bound is tight (sup = 1 as lam_W -> inf): norms of O(1) float sums, round-off ~1e-15
              replay=_lemb1_replay, description="||grad L(H)||_F / ((3/lW + lH)/(Kn) ||H||_F) <= 1"),
    Objective("N-lemB.1:d3K2n1", "N-lemB.1", _P(lemb1_ratio, d=3, K=2, n=1),
              _P(normal_then_uniform, k=6, lo=-4, hi=1, m=2),
              "vec H (d=3, K=2, n=1; 6), log lam_W, log lam_H + 1/2", 8, seed=_CP_SEED, tol=1e-12,
              replay=_P(_lemb1_replay, d=3, K=2, n=1), description="Lemma B.1 at d=3, K=2, n=1"),
    Objective("N-B-distance", "N-B-distance", bdist_ratio, _P(normal_then_uniform, k=8, lo=-3, hi=1, m=2),
              "vec H0 (d=2, K=2, n=2; 8), log lam_W, log lam_H + 1/2; beta = 1.05 nKM", 10, seed=_CP_SEED,
              maxiter=150, tol=1e-6,  # tol: an L-BFGS minimiser (gtol-limited), not a closed form
              description="||H_{1/beta} - H0|| / ((beta/(nKM) - 1)^{-1} ||H0||) <= 1"),
    Objective("N-lemC.3", "N-lemC.3", lemc3_ratio, lemc3_start,
              "lower triangles of L_A, L_B (3x3; 6 + 6)", 12, seed=5, maxiter=300, tol=1e-9,
              # tol: float64 eigen-decompositions of matrices with condition up to ~1e9 (as the check)
              replay=_lemc3_replay, description="||A^{-1/2} B A^{-1/2}||_op <= 1 for 0 <= B < A"),
    Objective("N-lemC.4", "N-lemC.4", lemc4_ratio, _P(normal_then_uniform, k=12, lo=-3, hi=1, m=1),
              "vec H (d=3, K=2, n=2; 12), log10 lam_W", 13, seed=8, maxiter=400, tol=1e-9,
              # tol: round-off of inverse square roots (as the check)
              description="max of the four ratios (13)-(16) <= 1"),
    Objective("N-thmC.2", "N-thmC.2", thmc2_paper_ratio, _P(normal_then_uniform, k=24, lo=-2, hi=1, m=2),
              "vec H, vec dH (d=3, K=2, n=2; 12 + 12), log10 lam_W, log10 lam_H", 26, seed=21, maxiter=500,
              tol=1e-9, replay=_thmc2_paper_replay, expect="fails",
              description="|d/dt grad L| / (11 lam_H/(Kn) |dH|) <= 1 (the paper's constant; false)"),
    Objective("N-thmC.2:corrected-grad", "N-thmC.2", thmc2_lip_ratio, _P(normal_then_uniform, k=24, lo=-2, hi=1, m=2),
              "vec H, vec dH (d=3, K=2, n=2; 12 + 12), log10 lam_W, log10 lam_H", 26, seed=21, maxiter=500,
              tol=1e-9,  # float64 round-off of a ten-term product chain
              description="|d/dt grad L| / ((10/lam_W + lam_H)/(Kn) |dH|) <= 1 (the proof's looser constant; "
                          "sharp: N-thmC.2:sharp-grad)"),
    Objective("N-thmC.2:corrected-map", "N-thmC.2", thmc2_map_ratio,
              _P(normal_then_uniform, k=12, lo=-2, hi=1, m=2, more=((-2, 1, 1),)),
              "vec H (d=3, K=2, n=2; 12), log10 lam_W, log10 lam_H, log10(beta/L_c - 1)", 15, seed=22,
              maxiter=500, tol=1e-9,  # float64 round-off of a dense inverse and an op norm
              description="|F|_op (1 - (10/lam_W + lam_H)/beta) <= 1 (looser map constant; sharp: N-thmC.2:sharp-map)"),
    Objective("N-thmC.2:sharp-hessian", "N-thmC.2", thmc2_sharp_hessian_ratio,
              _P(normal_then_uniform, k=12, lo=-3, hi=2, m=2), "vec H (d=3, K=2, n=2; 12), log10 lam_W, log10 lam_H",
              14, seed=23, maxiter=500, tol=1e-9,  # float64 eigenvalues of the Schur complement (inverse of HH^T + n lam_W I)
              description="max{(eig_max - lam_H) 4 lam_W, (lam_H - eig_min) lam_W} <= 1 (sharp Hessian bounds of Kn L)"),
    Objective("N-thmC.2:sharp-grad", "N-thmC.2", thmc2_sharp_lip_ratio, _P(normal_then_uniform, k=24, lo=-2, hi=1, m=2),
              "vec H, vec dH (d=3, K=2, n=2; 12 + 12), log10 lam_W, log10 lam_H", 26, seed=21, maxiter=500,
              tol=1e-9,  # float64 round-off of a ten-term product chain
              description="|d/dt grad L| / (max{1/lam_W - lam_H, lam_H + 1/(4 lam_W)}/(Kn) |dH|) <= 1 (sharp constant)"),
    Objective("N-thmC.2:sharp-map", "N-thmC.2", thmc2_sharp_map_ratio,
              _P(normal_then_uniform, k=12, lo=-2, hi=1, m=2, more=((-2, 1, 1),)),
              "vec H (d=3, K=2, n=2; 12), log10 lam_W, log10 lam_H, log10(beta/|rho| - 1)", 15, seed=22,
              maxiter=500, tol=1e-9,  # float64 round-off of a dense inverse and an op norm
              description="|F|_op (1 - (1/lam_W - lam_H)/beta) <= 1 (sharp map constant)"),
    Objective("S-fn3", "S-fn3", fn3_gap, _P(_normal, k=12), "vec W (d=2, n=4; 8), x (4; x_2 = x_3 = 0)", 12,
              threshold=0.0, tol=1e-13, seed=4,
              # tol: LHS - RHS of O(1) sums in float64 once |phi(W_{S^c}^T W_S x_S)|^2 -> 0
              replay=_fn3_replay, description="(LHS - RHS)/(1 + |RHS|) <= 0"),
    Objective("S-lemA.2", "S-lemA.2", lema2_ratio, _P(_normal, k=16), "B (4x4; 16), A = B B^T + 1e-9 I, k = 2", 16,
              seed=2, tol=1e-12,  # op norms in float64: 1e-12 relative (as the check)
              replay=_lema2_replay, description="||A12 A22^{-1} A21||_op / ||A||_op <= 1"),
    Objective("S-thm3.1", "S-thm3.1", thm31_ratio, _P(_normal, k=THM31_CASE[0] * THM31_CASE[1]),
              "vec W (d=2, n=6; 12), m=3, gaussian, p=1/10", THM31_CASE[0] * THM31_CASE[1], seed=0, tol=1e-9,
              # tol: REL of proofs_checks/S/upper_bounds/test_statements.py (float64 sums of ~1e3 terms)
              replay=_thm31_replay, description="Ltilde(W) / (mu_2 p d^m) <= 1"),
)}


# --------------------------------------------------------------------------- weakened statements (necessity table)
# Each ratio below is a verified theorem's with ONE stated hypothesis dropped (the others kept): the rows of the
# hypothesis-necessity table of :mod:`verify.necessity`. ``verify search NAME`` searches them with the same seed,
# maxiter and budget rules as the theorem's own objective; a counterexample shows the hypothesis is needed.
def _sym(x: np.ndarray, m: int) -> np.ndarray:
    S = np.zeros((m, m))
    S[np.tril_indices(m)] = x
    return S + np.tril(S, -1).T


def lemc3_weakened_ratio(x: np.ndarray, m: int = 3, drop: str = "B-psd") -> float:
    r"""Lemma C.3 without one hypothesis: :math:`\|A^{-1/2}BA^{-1/2}\|_{op}` with ``drop`` = ``"B-psd"`` (:math:`B`
    any symmetric matrix, :math:`B \prec A`, :math:`A \succ 0`), ``"B-below-A"`` (:math:`B \succeq 0` any,
    :math:`A \succ 0`) or ``"A-pd"`` (:math:`A` any symmetric with :math:`A^{-1/2}` defined, :math:`B \succeq 0`,
    :math:`B \prec A`); ``nan`` outside the hypotheses kept."""
    k = m * (m + 1) // 2
    A = _sym(x[:k], m) if drop == "A-pd" else _psd(x[:k], m)
    B = _sym(x[k:], m) if drop == "B-psd" else _psd(x[k:], m)
    w, V = np.linalg.eigh(A)
    if w.min() <= 1e-12:
        return np.nan  # A^{-1/2} undefined (kept hypothesis, or implied by the others when "A-pd" is dropped)
    if drop != "B-below-A" and np.linalg.eigvalsh(A - B).min() <= 0:
        return np.nan
    Ais = (V / np.sqrt(w)) @ V.T
    return float(np.linalg.norm(Ais @ B @ Ais, 2))


def finite_start(rng: np.random.Generator, ratio: Callable, k: int, scales: tuple = (2.0, 0.5)) -> np.ndarray:
    """A start where ``ratio`` is finite (rejection sampling): ``k`` normals times ``scales[0]`` then ``k`` times
    ``scales[1]``, as :func:`lemc3_start` draws them."""
    while True:
        x = np.concatenate([scales[0] * rng.standard_normal(k), scales[1] * rng.standard_normal(k)])
        if np.isfinite(ratio(x)):
            return x


def lema2_weakened_ratio(z: np.ndarray, N: int = 4, k: int = 2, drop: str = "indefinite") -> float:
    r"""Lemma A.2 with :math:`A \succ 0` weakened: ``"indefinite"`` (:math:`A` symmetric from its lower triangle) or
    ``"semidefinite"`` (:math:`A = BB^\top`, :math:`B \in \mathbb R^{N\times(N-1)}`, singular); :math:`A_{22}`
    invertible (else ``nan``). Ratio :math:`\|A_{12}A_{22}^{-1}A_{21}\|_{op} / \|A\|_{op}`."""
    if drop == "indefinite":
        A = _sym(z[: N * (N + 1) // 2], N)
    else:
        B = z[: N * (N - 1)].reshape(N, N - 1)
        A = B @ B.T
    A22 = A[k:, k:]
    if abs(np.linalg.det(A22)) <= 1e-12 * max(1.0, np.linalg.norm(A22) ** (N - k)):
        return np.nan  # A22^{-1} undefined
    X = A[:k, k:] @ np.linalg.solve(A22, A[k:, :k])
    return float(np.linalg.norm(X, 2) / np.linalg.norm(A, 2))


def _lam_H_negative(x: np.ndarray, lw: float, cap: float) -> float:
    """lam_H in (-cap, 0): -cap / (1 + e^{-b}), b = x[-1] clipped to [-12, 12]."""
    return -cap / (1.0 + float(np.exp(-np.clip(x[-1], -12.0, 12.0))))


def lemb1_negative_lamH_ratio(x: np.ndarray, d: int = 2, K: int = 2, n: int = 2) -> float:
    r"""Lemma B.1 with :math:`\lambda_H \ge 0` dropped: :math:`\lambda_H \in (-3/\lambda_W, 0)` (so the claimed
    constant :math:`(3/\lambda_W + \lambda_H)/(Kn)` stays positive); :math:`\nabla\mathcal L` is (7) at
    :math:`\lambda_H = 0` plus :math:`\lambda_H H/(Kn)` (the :math:`\lambda_H` term of (7))."""
    from .numeric import ufm

    H, lw, _ = unpack_central(x, d, K, n)
    lh = _lam_H_negative(x, lw, 3 / lw)
    g = ufm.grad_central_path_loss(H, lw, 0.0, K) + lh * H / (K * n)
    nh = np.linalg.norm(H)
    return float(np.linalg.norm(g) / ((3 / lw + lh) / (K * n) * nh)) if nh > 0 else np.nan


def tw_negative_lamH_violation(x: np.ndarray) -> float:
    r"""Thm 4.1 (second bullet) with :math:`\lambda_H \ge 0` dropped (:math:`\lambda_H = -e^{b} \in [-e^5, 0)`):
    :math:`\frac{d}{dt}(e^{2\lambda_Ht}\operatorname{Tr}\Sigma_W)|_{t=0} = 2\lambda_H\operatorname{Tr}\Sigma_W +
    \tfrac{2}{Kn}\langle HP, V\rangle`, :math:`V = -Kn\nabla\mathcal L(H)` the flow (4), :math:`HP` the
    within-class centred :math:`H` (straight from the definitions, not the closed form), over the sum of the two terms'
    magnitudes; the theorem says :math:`\le 0`."""
    from .numeric import ufm

    H, lw, _ = unpack_central(x)
    lh = -float(np.exp(np.clip(x[-1], -12.0, 5.0)))
    K, n = 2, 2
    g = ufm.grad_central_path_loss(H, lw, 0.0, K) + lh * H / (K * n)
    V = -K * n * g
    HP = H - np.repeat(H.reshape(2, K, n).mean(axis=2), n, axis=1)
    c = ufm.covariances(H, K)
    parts = (2 * lh * np.trace(c["Sigma_W"]), 2 / (K * n) * float(np.sum(HP * V)))
    # relative to the size of its two parts: for large |lam_H| they nearly cancel (exactly, by the closed form),
    # so a normalisation by the result alone would amplify their float round-off
    scale = abs(parts[0]) + abs(parts[1])
    return (parts[0] + parts[1]) / scale if scale > 0 else np.nan


OBJECTIVES.update({o.name: o for o in (
    Objective("N-lemC.3:drop-B-psd", "N-lemC.3", _P(lemc3_weakened_ratio, drop="B-psd"),
              _P(finite_start, ratio=_P(lemc3_weakened_ratio, drop="B-psd"), k=6),
              "lower triangles of L_A (A = L L^T) and of a symmetric B (3x3; 6 + 6)", 12, seed=5, maxiter=300,
              tol=1e-9, expect="fails",  # tol: as N-lemC.3 (float64 eigen-decompositions)
              description="Lemma C.3 without B >= 0 (B symmetric, B < A)"),
    Objective("N-lemC.3:drop-B-below-A", "N-lemC.3", _P(lemc3_weakened_ratio, drop="B-below-A"),
              _P(finite_start, ratio=_P(lemc3_weakened_ratio, drop="B-below-A"), k=6),
              "lower triangles of L_A, L_B (3x3; 6 + 6)", 12, seed=5, maxiter=300, tol=1e-9, expect="fails",
              description="Lemma C.3 without B < A (B >= 0 any)"),
    Objective("N-lemC.3:drop-A-pd", "N-lemC.3", _P(lemc3_weakened_ratio, drop="A-pd"),
              _P(finite_start, ratio=_P(lemc3_weakened_ratio, drop="A-pd"), k=6),
              "lower triangle of a symmetric A, of L_B (3x3; 6 + 6)", 12, seed=5, maxiter=300, tol=1e-9,
              description="Lemma C.3 without A > 0 stated (implied by B >= 0 and A - B > 0)"),
    Objective("S-lemA.2:drop-pd-indefinite", "S-lemA.2", _P(lema2_weakened_ratio, drop="indefinite"),
              _P(_normal, k=10), "lower triangle of a symmetric A (4x4; 10), k = 2", 10, seed=2, tol=1e-12,
              expect="fails", description="Lemma A.2 with A symmetric indefinite (A22 invertible)"),
    Objective("S-lemA.2:drop-pd-semidefinite", "S-lemA.2", _P(lema2_weakened_ratio, drop="semidefinite"),
              _P(_normal, k=12), "B (4x3; 12), A = B B^T singular, k = 2", 12, seed=2, tol=1e-9,
              # tol: A is singular, so |A12 A22^{-1} A21| = |A11| can be attained: round-off of a 2x2 solve
              description="Lemma A.2 with A only positive semidefinite (A22 invertible)"),
    Objective("N-lemB.1:drop-lam_H-nonneg", "N-lemB.1", lemb1_negative_lamH_ratio,
              _P(normal_then_uniform, k=8, lo=-4, hi=1, m=2),
              "vec H (d=2, K=2, n=2; 8), log lam_W, logit of -lam_H lam_W/3", 10, seed=_CP_SEED, tol=1e-12,
              expect="fails", description="Lemma B.1 with lam_H in (-3/lam_W, 0)"),
    Objective("N-thm4.1-W:drop-lam_H-nonneg", "N-thm4.1-W", tw_negative_lamH_violation, _P(_normal, k=10),
              "vec H (d=2, K=2, n=2; 8), log lam_W, log(-lam_H)", 10, threshold=0.0, tol=1e-12, seed=_CP_SEED,
              # tol: as N-thm4.1-W (normalised float trace, round-off ~1e-15)
              description="d/dt (e^{2 lH t} Tr Sigma_W) <= 0 with lam_H < 0"),
)})


# --------------------------------------------------------------------------- weakened statements, continued
# Discrete hypotheses (odd degrees, field sizes, "d large enough") are searched on the same continuous x: each
# coordinate is read as a digit (``_digit``), so Nelder-Mead's moves visit new discrete points and a start's value is
# that of a seeded random discrete point. Sums over GF(2^r) are galois arithmetic straight from the definitions.
def _digit(v: float, q: int) -> int:
    """A real coordinate read as a digit in ``0..q-1`` (``floor(|v| q) mod q``)."""
    return int(math.floor(abs(float(v)) * q)) % q


@functools.lru_cache(maxsize=8192)
def char_sum(r: int, coeffs: tuple) -> int:
    r""":math:`\sum_{x \in GF(2^r)} \psi(\sum_k c_k x^k)`, :math:`\psi = (-1)^{\operatorname{tr}}`, in galois arithmetic
    (``coeffs[k]`` = :math:`c_k` as the field element's integer); an exact integer."""
    from .numeric.frames import field_of

    GF = field_of(r)
    X = GF(np.arange(2 ** r))
    P = GF(np.zeros(2 ** r, dtype=np.int64))
    for k, c in enumerate(coeffs):
        if c:
            P = P + GF(int(c)) * X ** k
    return int((1 - 2 * np.asarray(P.field_trace(), dtype=np.int64)).sum())


def _weil_even_point(x: np.ndarray) -> tuple:
    r = 2 + _digit(x[0], 2)  # r in {2, 3} (fields the frames checks build anyway)
    q = 2 ** r
    return r, (_digit(x[1], q), _digit(x[2], q), 1 + _digit(x[3], q - 1))  # c0 + c1 x + c2 x^2, c2 != 0


def weil_even_degree_ratio(x: np.ndarray) -> float:
    r"""Lemma A.4's Weil step without "P of odd degree": :math:`|\sum_x\psi(P(x))| / ((\deg P - 1)\sqrt{2^r})` for
    :math:`P = c_0 + c_1x + c_2x^2` of degree 2 over :math:`GF(2^r)`, :math:`r \in \{2, 3\}` (digits of ``x``)."""
    r, c = _weil_even_point(x)
    return abs(char_sum(r, c)) / math.sqrt(2 ** r)


def _sum_over_sqrt(s: int, scale: int, q: int) -> Any:
    """|s| / (scale sqrt(q)) at the replay ladder's top precision (the sum is an exact integer; only the square
    root is rounded, at 50 digits)."""
    with mpmath.workdps(REPLAY_DPS[-1]):
        return mpmath.mpf(abs(s)) / (scale * mpmath.sqrt(q))


def _weil_even_replay(x: np.ndarray) -> dict:
    r, c = _weil_even_point(x)
    s = char_sum(r, c)
    return {"value": _sum_over_sqrt(s, 1, 2 ** r), "method": "exact integer sum (galois), sqrt at 50 digits",
            "r": r, "coefficients": list(c), "sum": s, "squared_ratio": str(Fraction(s * s, 2 ** r))}


def _odd_free_point(x: np.ndarray) -> tuple:
    r = 3  # d = 8: (2m - 2)/sqrt(d) < 1 there (m = 2), so the bound is not trivially >= 1
    q = 2 ** r
    return r, (0, _digit(x[1], q), _digit(x[2], q))


def pow2_all_exponents_ratio(x: np.ndarray, m: int = 2) -> float:
    r"""Lemma A.4 (d = 2^r) with the columns built from :math:`x^{j+1}` instead of the odd powers :math:`x^{2j+1}`
    (m = 2): :math:`(V^\top V)_{ab} = S(P)/d` with the difference :math:`P = c_1x + c_2x^2 \ne 0`; ratio
    :math:`|S(P)|/d` over :math:`(2m-2)/\sqrt d`; ``nan`` for :math:`P = 0` (the diagonal)."""
    r, c = _odd_free_point(x)
    if not any(c):
        return np.nan
    return abs(char_sum(r, c)) / ((2 * m - 2) * math.sqrt(2 ** r))


def _pow2_all_exponents_replay(x: np.ndarray, m: int = 2) -> dict:
    r, c = _odd_free_point(x)
    if not any(c):
        return {"value": float("nan"), "method": "P = 0 (diagonal)"}
    s = char_sum(r, c)
    return {"value": _sum_over_sqrt(s, 2 * m - 2, 2 ** r), "method": "exact integer sum (galois), sqrt at 50 digits",
            "r": r, "coefficients": list(c), "sum": s, "squared_ratio": str(Fraction(s * s, (2 * m - 2) ** 2 * 2 ** r))}


#: "< 1" is strict; coherences are exact dyadics |S| / 2^r with r <= 3, so a coherence < 1 is <= 1 - 2^-3 and this
#: threshold (with tol 0) separates < 1 from = 1 exactly
STRICT_BELOW_ONE = 1.0 - 2.0 ** -20


@functools.lru_cache(maxsize=256)
def _construction_coherence(d: int, m: int, general: bool) -> Fraction:
    from .numeric import frames as F

    cert = F.certify_general(d, m) if general else F.certify(d.bit_length() - 1, m)
    return Fraction(cert.max_abs_sum, 2 ** (d.bit_length() - 1))


def _small_d(x: np.ndarray, general: bool) -> int:
    return 2 + _digit(x[0], 14) if general else 2 ** (1 + _digit(x[0], 3))  # d in 2..15, or 2^r with r in 1..3


def small_d_coherence(x: np.ndarray, m: int = 2, general: bool = False) -> float:
    r"""Lemma 4.1 / A.4 without "d sufficiently large": the coherence :math:`\max_{i \ne j}|M_{ij}|` of the proof's
    construction (d = 2^r, or the general-d 2m construction) at a small d (digit of ``x``), m = 2; the lemma says
    :math:`< 1`."""
    return float(_construction_coherence(_small_d(x, general), m, general))


def _small_d_replay(x: np.ndarray, m: int = 2, general: bool = False) -> dict:
    d = _small_d(x, general)
    return {"value": _construction_coherence(d, m, general), "method": "exact certificate (integer max |S| / 2^r)",
            "d": d, "m": m}


def _normal_moments(s: Any, kmax: int) -> list:
    r"""Raw moments :math:`E\xi^k` of :math:`N(s, 1)`, :math:`k = 0..k_{max}` (binomial sum over the standard normal's
    :math:`(j-1)!!`); exact for a Fraction ``s``."""
    return [sum(math.comb(k, j) * (math.prod(range(1, j, 2)) if j % 2 == 0 else 0) * s ** (k - j)
                for j in range(k + 1)) for k in range(kmax + 1)]


#: the cases of the weakened Thm 3.1 / Thm 2.2(2) searches: (d, n, m, p); m = 1 keeps every evaluation ~1 ms
NONCENTRED_CASE = {"S-thm3.1": (2, 8, 1, Fraction(1, 10)), "S-thm2.2-2": (2, 8, 1, Fraction(7, 10))}


def _sup_t_loss(W: np.ndarray, cumulants: list, m: int) -> Any:
    r""":math:`\sup_t \tilde L(tW) = a^2/b` if :math:`a > 0`, else 0 (eq. 19 at any i.i.d. law)."""
    from .numeric import upper_bounds as ub

    a, b = ub.loss_parts(W, cumulants, m)
    return a * a / b if a > 0 and b > 0 else 0 * a


def _upper_bound_of(claim: str, d: int, m: int, p: Any, mu2: Any) -> Any:
    """Thm 3.1's C_2 p d^m (C_2 = mu_2, the raw second moment, as the proof) or Thm 2.2(2)'s C_3 d (C_3 = K + K^3,
    K = 1 for a unit-variance Gaussian, as the check)."""
    from .numeric import upper_bounds as ub

    return mu2 * p * d ** m if claim == "S-thm3.1" else ub.thm32_constant(1) * d


def noncentred_ratio(x: np.ndarray, claim: str = "S-thm3.1") -> float:
    r"""Thm 3.1 / Thm 2.2(2) without "mu symmetric (mean zero)": :math:`\mu = N(s, 1)`, ``x = (vec W, s)``; ratio
    :math:`\sup_t\tilde L(tW)` over the theorem's explicit bound (i.i.d. Bernoulli(p) supports kept)."""
    from .numeric import upper_bounds as ub

    d, n, m, p = NONCENTRED_CASE[claim]
    s = float(np.clip(x[-1], -3.0, 3.0))
    mom = _normal_moments(s, 2 * m)
    kap = ub.coordinate_cumulants(None, float(p), 2 * m, exact=False, moments=mom)
    return float(_sup_t_loss(x[:-1].reshape(d, n), kap, m) / _upper_bound_of(claim, d, m, float(p), mom[2]))


def _noncentred_replay(x: np.ndarray, claim: str = "S-thm3.1") -> dict:
    from .numeric import upper_bounds as ub

    d, n, m, p = NONCENTRED_CASE[claim]
    s = Fraction(float(np.clip(x[-1], -3.0, 3.0)))
    mom = _normal_moments(s, 2 * m)
    W = np.array([Fraction(float(v)) for v in x[:-1]], dtype=object).reshape(d, n)
    kap = ub.coordinate_cumulants(None, p, 2 * m, moments=mom)
    return {"value": Fraction(_sup_t_loss(W, kap, m)) / Fraction(_upper_bound_of(claim, d, m, p, mom[2])),
            "method": "exact rationals (loss_parts with the exact cumulants of N(s, 1) at s's binary value)",
            "mean": float(s)}


def _mixture_weights(x: np.ndarray, p: float) -> tuple | None:
    w = 1.0 / (1.0 + math.exp(-float(np.clip(x[-2], -30, 30))))
    p1 = 1.0 / (1.0 + math.exp(-float(np.clip(x[-1], -30, 30))))
    p2 = (p - w * p1) / (1.0 - w)
    return (w, p1, p2) if 0.0 <= p2 <= 1.0 else None


def mixture_masks_ratio(x: np.ndarray, claim: str = "S-thm3.1") -> float:
    r"""Thm 3.1 / Thm 2.2(2) without independent masks: :math:`b` from a mixture (weight :math:`w`) of i.i.d.
    Bernoulli(:math:`p_1`) and Bernoulli(:math:`p_2`) with the same mean :math:`p` (exchangeable, dependent), Gaussian
    :math:`\xi`; :math:`\tilde L` is linear in the law of :math:`x`, so it is the mixture of the two losses;
    ``x = (vec W, logit w, logit p_1)``, ``nan`` where :math:`p_2 \notin [0, 1]`."""
    from .numeric import upper_bounds as ub

    d, n, m, p = NONCENTRED_CASE[claim]
    mix = _mixture_weights(x, float(p))
    if mix is None:
        return np.nan
    w, p1, p2 = mix
    W = x[:-2].reshape(d, n)
    loss = sum(wt * ub.general_loss(W, ub.coordinate_cumulants("gaussian", pi, 2 * m, exact=False), m)
               for wt, pi in ((w, p1), (1 - w, p2)))
    return float(loss / _upper_bound_of(claim, d, m, float(p), 1.0))


def finite_normal(rng: np.random.Generator, ratio: Callable, k: int) -> np.ndarray:
    """``k`` standard normals, redrawn until ``ratio`` is finite there (a start inside the hypotheses kept)."""
    while True:
        x = rng.standard_normal(k)
        if np.isfinite(ratio(x)):
            return x


#: the small-n cases (n <= d^m, d = 2 not > d_0) of the weakened Thm 3.1 / Thm 2.2(2) searches: (d, n, m, mu, p)
SMALL_N_CASE = {"S-thm3.1": (2, 4, 3, "gaussian", Fraction(1, 10)), "S-thm2.2-2": (2, 4, 3, "gaussian", Fraction(7, 10))}


def small_n_ratio(w: np.ndarray, claim: str = "S-thm3.1") -> float:
    r"""Thm 3.1 / Thm 2.2(2) without "d > d_0 and n > d^m": d = 2, n = 4 < d^m = 8, m = 3, Gaussian;
    :math:`\sup_t\tilde L(tW)` over the explicit bound."""
    from .numeric import upper_bounds as ub

    d, n, m, mu, p = SMALL_N_CASE[claim]
    kap = ub.coordinate_cumulants(mu, float(p), 2 * m, exact=False)
    return float(_sup_t_loss(w.reshape(d, n), kap, m) / _upper_bound_of(claim, d, m, float(p), 1.0))


def _grad_from_definition(H: np.ndarray, lw: float, lh: float, K: int) -> np.ndarray | None:
    r""":math:`\nabla\mathcal L(H) = \partial_H f(W^*(H), H) = \frac1{Kn}(W^{*\top}(W^*H - Y) + \lambda_HH)` (envelope
    theorem at the critical point :math:`W^*(H) = YH^\top(HH^\top + n\lambda_WI)^{-1}`), for any real
    :math:`\lambda_W` with :math:`HH^\top + n\lambda_WI` invertible (``None`` when its condition number > 1e8)."""
    d, N = H.shape
    n = N // K
    G = H @ H.T + n * lw * np.eye(d)
    if np.linalg.cond(G) > 1e8:
        return None
    Y = np.kron(np.eye(K), np.ones((1, n)))
    W = np.linalg.solve(G, H @ Y.T).T  # G symmetric: W = Y H^T G^{-1}
    return (W.T @ (W @ H - Y) + lh * H) / (K * n)


def lemb1_negative_lamW_ratio(x: np.ndarray, d: int = 2, K: int = 2, n: int = 2) -> float:
    r"""Lemma B.1 without :math:`\lambda_W > 0`, inside the objective's domain: :math:`\mathcal L(H) = \min_W f(W, H)`
    is finite (and :math:`W^*(H)` its minimiser) only where :math:`HH^\top + n\lambda_WI \succ 0`, so
    :math:`\lambda_W = -\lambda_{\min}(HH^\top)/(n(1 + e^{-b})) \in (-\lambda_{\min}(HH^\top)/n, 0)`, :math:`\lambda_H \ge 0`
    as in :func:`unpack_central`; the gradient from the definition (:func:`_grad_from_definition`) over the proof's
    constant read with :math:`|\lambda_W|`, :math:`(3/|\lambda_W| + \lambda_H)/(Kn)\,\|H\|_F` (``nan`` where
    :math:`HH^\top` is singular: no such :math:`\lambda_W`)."""
    H, _, lh = unpack_central(x, d, K, n)
    lmin = float(np.linalg.eigvalsh(H @ H.T).min())
    if lmin <= 1e-9:
        return np.nan
    lw = lmin / (n * (1 + np.exp(-np.clip(x[-2], -30.0, 30.0))))
    g = _grad_from_definition(H, -lw, lh, K)
    nh = np.linalg.norm(H)
    return float(np.linalg.norm(g) / ((3 / lw + lh) / (K * n) * nh)) if g is not None and nh > 0 else np.nan


def tw_negative_lamW_violation(x: np.ndarray) -> float:
    r"""Thm 4.1 (second bullet) without :math:`\lambda_W > 0`: :math:`\lambda_W = -e^a`, wherever
    :math:`HH^\top + n\lambda_WI` is invertible; the derivative as in :func:`tw_negative_lamH_violation` (from the
    definitions: :math:`2\lambda_H\operatorname{Tr}\Sigma_W + \tfrac2{Kn}\langle HP, V\rangle`, :math:`V = -Kn\nabla\mathcal L`),
    over the sum of the two terms' magnitudes; the theorem says :math:`\le 0`."""
    from .numeric import ufm

    H, lw, lh = unpack_central(x)
    K, n = 2, 2
    g = _grad_from_definition(H, -lw, lh, K)
    if g is None:
        return np.nan
    HP = H - np.repeat(H.reshape(2, K, n).mean(axis=2), n, axis=1)
    parts = (2 * lh * np.trace(ufm.covariances(H, K)["Sigma_W"]), 2 / (K * n) * float(np.sum(HP * (-K * n * g))))
    scale = abs(parts[0]) + abs(parts[1])
    return (parts[0] + parts[1]) / scale if scale > 0 else np.nan


def lemc4_negative_lamW_ratio(x: np.ndarray, d: int = 3, K: int = 2, n: int = 2) -> float:
    r"""Lemma C.4 without :math:`\lambda_W > 0`: :math:`\lambda_W = -K\lambda_{\min}(\tilde\Sigma_T)/(1 + e^{-b})`, so
    :math:`\mathbf A = \tilde\Sigma_T + \tfrac{\lambda_W}K I \succ 0` and :math:`\mathbf A^{-1/2}` exists; the largest of
    the four ratios (13)-(16) as generalised eigenvalues (``nan`` when :math:`\tilde\Sigma_T` is singular)."""
    import scipy.linalg

    from .numeric import ufm

    H = x[:-1].reshape(d, K * n)
    c = ufm.covariances(H, K)
    ST = c["Sigma_T_tilde"]
    lmin = float(np.linalg.eigvalsh(ST).min())
    if lmin <= 1e-9:
        return np.nan
    lw = -K * lmin / (1.0 + math.exp(-float(np.clip(x[-1], -30, 30))))
    A = ST + lw / K * np.eye(d)
    Hc = H - np.repeat(c["Hbar"], n, axis=1)
    top = [scipy.linalg.eigh(B, A, eigvals_only=True)[-1] for B in (ST, c["Sigma_W"], H @ H.T, Hc @ Hc.T)]
    return float(max(top[0], top[1], math.sqrt(max(top[2], 0) / (K * n)), math.sqrt(max(top[3], 0) / (K * n))))


def cor31_gap(x: np.ndarray, case: str = "c-above-1") -> float:
    r"""Cor. 3.1 without one hypothesis: :math:`(f^* - f(W^*(H), H; H^*)) / (1 + |f^*|)` with :math:`f^* =
    f(W^*, H^*; H^*)`; the corollary (minimality of :math:`(W^*, H^*)`) says :math:`\le 0`.

    * ``"c-above-1"`` (drop :math:`\lambda_H\lambda_W < 1`): d = K = n = 2, :math:`\lambda_W = e^a`,
      :math:`\lambda_H = (1 + e^b)/\lambda_W` (c > 1), so :math:`(W^*, H^*) = (0, 0)` (Thm 2.2), :math:`\beta = e^g`;
    * ``"d-below-K"`` (drop :math:`d \ge K`): d = 1, K = 2, n = 1, :math:`\lambda_W = \lambda_H = 1/2`, :math:`H^*` the
      UFM solver's best minimiser of (1) (:func:`verify.numeric.ufm.solve_ufm`, 8 starts), :math:`\beta = e^g`."""
    from .numeric import ufm

    if case == "c-above-1":
        d, K, n = 2, 2, 2
        lw = float(np.exp(np.clip(x[-3], -5, 5)))
        lh = (1.0 + float(np.exp(np.clip(x[-2], -12, 5)))) / lw
        Hs = np.zeros((d, K * n))
    else:
        d, K, n, lw, lh = 1, 2, 1, 0.5, 0.5
        Hs = _ufm_minimiser(d, K, n, lw, lh)
    beta = float(np.exp(np.clip(x[-1], -5, 5)))
    H = x[: d * K * n].reshape(d, K * n)
    fs = float(ufm.perturbed_objective(Hs, Hs, beta, lw, lh, K))
    return (fs - float(ufm.perturbed_objective(H, Hs, beta, lw, lh, K))) / (1 + abs(fs))


@functools.lru_cache(maxsize=16)
def _ufm_minimiser(d: int, K: int, n: int, lw: float, lh: float) -> np.ndarray:
    from .numeric import ufm

    H = ufm.solve_ufm(d, K, n, lw, lh, starts=8, seed=0)["H"]
    H.setflags(write=False)
    return H


def thm22_small_d_distance(x: np.ndarray, d: int = 1, K: int = 2, n: int = 1) -> float:
    r"""Thm 2.2 without :math:`d \ge K`: d = 1, K = 2, n = 1 (the defaults; d >= K gives the theorem's own case), :math:`\lambda_W = e^a`, :math:`\lambda_H = c^2/\lambda_W`
    with :math:`c^2 = 1/(1 + e^{-b}) < 1`; at the UFM solver's minimiser (2 seeded starts) the theorem's
    :math:`\bar H^\top\bar H = \rho I_K`, measured as :math:`\|\bar H^\top\bar H - \rho I_K\|_F / \rho` (it says 0)."""
    from .numeric import ufm

    lw = float(np.exp(np.clip(x[0], -3, 3)))
    lh = 1.0 / (1.0 + float(np.exp(-np.clip(x[1], -12, 12)))) / lw
    H = ufm.solve_ufm(d, K, n, lw, lh, starts=2, seed=0)["H"]
    Hbar = H.reshape(d, K, n).mean(axis=2)
    rho = ufm.collapse_rho(lw, lh)
    return float(np.linalg.norm(Hbar.T @ Hbar - rho * np.eye(K)) / rho)


OBJECTIVES.update({o.name: o for o in (
    Objective("S-lemA.4-weil:drop-odd-degree", "S-lemA.4-weil", weil_even_degree_ratio, _P(_normal, k=4),
              "digits: r in {2,3}, c0, c1, c2 != 0 (P = c0 + c1 x + c2 x^2)", 4, seed=11, maxiter=40, tol=1e-12,
              # tol: an exact integer sum over a float sqrt (round-off ~1e-16); the replay (50-digit sqrt) decides
              replay=_weil_even_replay, expect="fails",
              description="|sum_x psi(P(x))| / ((deg P - 1) sqrt(2^r)) <= 1 for even-degree P"),
    Objective("S-lemA.4-pow2:drop-odd-exponents", "S-lemA.4-pow2", pow2_all_exponents_ratio, _P(_normal, k=3),
              "r = 3; digits: the difference P = c1 x + c2 x^2 (x[0] unused)", 3, seed=11, maxiter=40, tol=1e-12,
              replay=_pow2_all_exponents_replay, expect="fails",
              description="|(V^T V)_ab| / ((2m-2)/sqrt(d)) <= 1 with columns from x, x^2 (m = 2)"),
    Objective("S-lem4.1:drop-d-large", "S-lem4.1", small_d_coherence, _P(_normal, k=1),
              "digit: d = 2^r, r in 1..3 (m = 2)", 1, threshold=STRICT_BELOW_ONE, tol=0.0, seed=11, maxiter=20,
              replay=_small_d_replay, expect="fails", description="coherence of the d = 2^r construction < 1, any d"),
    Objective("S-lemA.4-general:drop-d-large", "S-lemA.4-general", _P(small_d_coherence, general=True),
              _P(_normal, k=1), "digit: d in 2..15 (m = 2, the 2m construction)", 1, threshold=STRICT_BELOW_ONE,
              tol=0.0, seed=11, maxiter=20, replay=_P(_small_d_replay, general=True), expect="fails",
              description="coherence of the general-d construction < 1, any d"),
    Objective("S-thm3.1:drop-mu-symmetric", "S-thm3.1", noncentred_ratio, _P(_normal, k=17),
              "vec W (d=2, n=8; 16), mean s of mu = N(s, 1); m = 1, p = 1/10", 17, seed=0, maxiter=150, tol=1e-9,
              # tol: as S-thm3.1 (float64 sums); the replay is exact
              replay=_noncentred_replay, expect="fails", description="sup_t Ltilde(tW) / (mu_2 p d^m) <= 1, mu = N(s, 1)"),
    Objective("S-thm2.2-2:drop-mu-symmetric", "S-thm2.2-2", _P(noncentred_ratio, claim="S-thm2.2-2"),
              _P(_normal, k=17), "vec W (d=2, n=8; 16), mean s of mu = N(s, 1); m = 1, p = 7/10", 17, seed=0,
              maxiter=150, tol=1e-9, replay=_P(_noncentred_replay, claim="S-thm2.2-2"), expect="fails",
              description="sup_t Ltilde(tW) / (C_3 d) <= 1, mu = N(s, 1), K = 1"),
    Objective("S-thm3.1:drop-iid-masks", "S-thm3.1", mixture_masks_ratio,
              _P(finite_normal, ratio=mixture_masks_ratio, k=18),
              "vec W (d=2, n=8; 16), logit w, logit p1 (p2 from the mean p = 1/10); m = 1, Gaussian", 18, seed=0,
              maxiter=100, tol=1e-9, description="Ltilde / (mu_2 p d^m) <= 1, masks a mixture of i.i.d. laws"),
    Objective("S-thm2.2-2:drop-iid-masks", "S-thm2.2-2", _P(mixture_masks_ratio, claim="S-thm2.2-2"),
              _P(finite_normal, ratio=_P(mixture_masks_ratio, claim="S-thm2.2-2"), k=18),
              "vec W (d=2, n=8; 16), logit w, logit p1 (p2 from the mean p = 7/10); m = 1, Gaussian", 18, seed=0,
              maxiter=100, tol=1e-9, description="Ltilde / (C_3 d) <= 1, masks a mixture of i.i.d. laws"),
    Objective("S-thm3.1:drop-n-gt-d^m", "S-thm3.1", small_n_ratio, _P(_normal, k=8),
              "vec W (d=2, n=4 < d^m = 8; 8), m = 3, Gaussian, p = 1/10", 8, seed=0, maxiter=60, tol=1e-9,
              description="sup_t Ltilde(tW) / (mu_2 p d^m) <= 1 at n < d^m"),
    Objective("S-thm2.2-2:drop-n-gt-d^m", "S-thm2.2-2", _P(small_n_ratio, claim="S-thm2.2-2"), _P(_normal, k=8),
              "vec W (d=2, n=4 < d^m = 8; 8), m = 3, Gaussian, p = 7/10", 8, seed=0, maxiter=60, tol=1e-9,
              description="sup_t Ltilde(tW) / (C_3 d) <= 1 at n < d^m"),
    Objective("N-lemB.1:drop-lam_W-pos", "N-lemB.1", lemb1_negative_lamW_ratio,
              _P(finite_normal, ratio=lemb1_negative_lamW_ratio, k=10),
              "vec H (d=2, K=2, n=2; 8), logit of -n lam_W / lambda_min(HH^T), log lam_H + 1/2", 10, seed=_CP_SEED,
              tol=1e-12, expect="fails",
              description="Lemma B.1 with lam_W < 0, HH^T + n lam_W I > 0 (constant read with |lam_W|)"),
    Objective("N-thm4.1-W:drop-lam_W-pos", "N-thm4.1-W", tw_negative_lamW_violation,
              _P(finite_normal, ratio=tw_negative_lamW_violation, k=10),
              "vec H (d=2, K=2, n=2; 8), log(-lam_W), log lam_H + 1/2", 10, threshold=0.0, tol=1e-9, seed=_CP_SEED,
              # tol: a solve with HH^T + n lam_W I of condition up to 1e8 (the objective's cut-off): round-off ~1e-8 x eps
              description="d/dt (e^{2 lH t} Tr Sigma_W) <= 0 with lam_W < 0"),
    Objective("N-lemC.4:drop-lam_W-pos", "N-lemC.4", lemc4_negative_lamW_ratio,
              _P(finite_normal, ratio=lemc4_negative_lamW_ratio, k=13),
              "vec H (d=3, K=2, n=2; 12), logit of -lam_W/(K lambda_min(SigmaT~))", 13, seed=8, tol=1e-9,
              expect="fails", description="Lemma C.4 with lam_W < 0 (A = SigmaT~ + lam_W/K I still > 0)"),
    Objective("N-cor3.1:drop-c-below-1", "N-cor3.1", cor31_gap, _P(_normal, k=11),
              "vec H (d=2, K=2, n=2; 8), log lam_W, log(lam_H lam_W - 1), log beta; H* = 0", 11, threshold=0.0,
              tol=1e-12, seed=3, maxiter=150,  # tol: O(1) float sums, round-off ~1e-16
              description="(f* - f(W*(H), H; H*)) / (1 + |f*|) <= 0 with lam_H lam_W > 1"),
    Objective("N-cor3.1:drop-d-ge-K", "N-cor3.1", _P(cor31_gap, case="d-below-K"), _P(_normal, k=3),
              "vec H (d=1, K=2, n=1; 2), log beta; lam_W = lam_H = 1/2, H* the solver's", 3, threshold=0.0, tol=1e-9,
              seed=3, maxiter=150,  # tol: H* is an L-BFGS minimiser (gtol 1e-13), f* known to ~1e-12
              description="(f* - f(W*(H), H; H*)) / (1 + |f*|) <= 0 at d = 1 < K = 2"),
    Objective("N-thm2.2:drop-d-ge-K", "N-thm2.2", thm22_small_d_distance, _P(_normal, k=2),
              "log lam_W, logit c^2 (d=1, K=2, n=1)", 2, threshold=0.0, tol=1e-3, seed=3, maxiter=1,
              # tol: L-BFGS minimisers meet the collapse identity to ~1e-6; a rank-1 Hbar is >= 1 away (rank), so
              # the decision does not depend on it; maxiter 1: each value is two L-BFGS solves of (1)
              expect="fails", description="|Hbar^T Hbar - rho I_K|_F / rho = 0 at the minimiser, d = 1 < K = 2"),
)})


def objective_names() -> list[str]:
    """The registry's names, sorted."""
    return sorted(OBJECTIVES)


def get_objective(name: Any) -> Objective:
    """The registered :class:`Objective` called ``name``; :class:`~verify.VerifyInputError` otherwise.

    >>> get_objective("N-thmC.2").expect
    'fails'
    """
    if not isinstance(name, str) or name not in OBJECTIVES:
        raise VerifyInputError(f"Argument 'claim' must be one of {', '.join(objective_names())}, not {name!r}.")
    return OBJECTIVES[name]


def replay_point(name: str, x: Any) -> dict:
    """Re-evaluate ``x`` for objective ``name``: float64 and, where the check has one, exact/mpmath.

    Returns ``{"objective", "float_value", "value", "method", "violates", ...}``; ``value`` is a string
    (a rational ``p/q`` or 30 digits of an mpmath number) so the result is JSON data.

    >>> r = replay_point("S-fn3", [1, 0, 0, 1, 0.5, 0.5, 0.5, 0.5, 1, 1, 0, 0])
    >>> r["value"], r["violates"]
    ('-73/57', False)
    """
    obj = get_objective(name)
    x = np.asarray(x, dtype=float)
    if x.shape != (obj.dim,) or not np.all(np.isfinite(x)):
        raise VerifyInputError(f"Argument 'x' must be {obj.dim} finite numbers for {name}, not shape {x.shape}.")
    fv = float(obj.ratio(x.copy()))
    out = {"objective": name, "claim": obj.claim, "threshold": obj.threshold, "float_value": fv}
    if obj.replay is None:
        out.update(value=repr(fv), method="float64 (the claim's check is float64)", violates=obj.violates(fv))
        return out
    rep = dict(obj.replay(x.copy()))
    v = rep.pop("value")
    if isinstance(v, Fraction):
        exact_violates = v > Fraction(obj.threshold)
        text = str(v)
    elif isinstance(v, float) and not math.isfinite(v):
        exact_violates, text = False, "nan (outside the hypotheses)"
    else:
        with mpmath.workdps(REPLAY_DPS[-1]):
            exact_violates = bool(v > obj.threshold)
            text = mpmath.nstr(v, 30)
    out.update(value=text, violates=exact_violates, **{k: (float(w) if isinstance(w, (float, np.floating)) else w)
                                                        for k, w in rep.items()})
    return out
