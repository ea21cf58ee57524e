r"""Paper N, §2-§4 and App. A: the central path of the UFM as sympy matrix expressions.

Every displayed equality of App. A is built here as a pair of sympy ``MatrixExpr`` / scalar
expressions in the matrix symbols

.. math::

    H\in\mathbb R^{d\times Kn},\ \bar H\in\mathbb R^{d\times K},\ Y = I_K\otimes1_n^\top,\
    \Sigma_W,\ \Sigma_B,\ \tilde\Sigma_T,\ \tilde\Sigma_B\in\mathbb R^{d\times d},\quad
    C = (\tilde\Sigma_T+\tfrac{\lambda_W}KI)^{-1},

and :func:`evaluate` substitutes an explicit exact instance (:func:`instance` builds
:math:`\bar H, Y` and the covariances *from their definitions* in §4 / App. A as sums of outer
products) so that each step can be checked in exact rational arithmetic. The same expressions are
exported as LaTeX through :mod:`verify.latex` (``verify latex N-L``, ``N-eq7``, ``N-lemA.1``,
``N-dT``, ``N-Wstar``).

>>> import sympy
>>> ns = build(2, 2, 1)
>>> inst = instance(sympy.Matrix([[1, 2], [3, 5]]), 2, lam_W=sympy.Rational(1, 2), lam_H=0)
>>> lhs, rhs = wstar_forms(ns)[0], wstar_forms(ns)[-1]
>>> evaluate(lhs - rhs, ns, inst) == sympy.zeros(2, 2)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy
from sympy import (Identity, Inverse, KroneckerProduct, MatrixSymbol, OneMatrix, Rational, Trace,
                   exp)

from .._validate import VerifyInputError, verify_int
from ..latex import formula

__all__ = ["Namespace", "build", "instance", "evaluate", "wstar_forms", "decomposition", "loss_chain",
           "gradient", "lemma_a1", "trace_derivative_chains", "reduced_ufm", "etf_identity"]


@dataclass
class Namespace:
    """The symbols of one (possibly symbolic) size ``(d, K, n)``."""

    d: Any
    K: Any
    n: Any
    H: MatrixSymbol
    Hbar: MatrixSymbol
    Y: MatrixSymbol
    SW: MatrixSymbol
    SB: MatrixSymbol
    ST: MatrixSymbol
    SBt: MatrixSymbol
    lam_W: sympy.Symbol
    lam_H: sympy.Symbol
    t: sympy.Symbol
    ones_n: MatrixSymbol  # the row 1_n^T (a symbol so that LaTeX shows it; evaluate() fills in ones)

    @property
    def I(self):  # noqa: E743 - the paper's name
        return Identity(self.d)

    @property
    def C(self):
        r""":math:`(\tilde\Sigma_T+\frac{\lambda_W}KI)^{-1}`."""
        return Inverse(self.ST + self.lam_W / self.K * self.I)

    @property
    def A(self):
        r""":math:`\Sigma_W+\frac{\lambda_W}KI`."""
        return self.SW + self.lam_W / self.K * self.I

    @property
    def Wstar(self):
        r""":math:`W^*(H) = \frac1K\bar H^\top C` (App. A)."""
        return self.Hbar.T * self.C / self.K


def build(d: Any = None, K: Any = None, n: Any = None) -> Namespace:
    """Matrix symbols for size ``(d, K, n)``; ``None`` keeps a dimension symbolic (for LaTeX)."""
    # concrete sizes are sympy Integers so that every quotient stays exact
    d = sympy.Symbol("d", integer=True, positive=True) if d is None else sympy.Integer(verify_int(d, "d", minimum=1))
    K = sympy.Symbol("K", integer=True, positive=True) if K is None else sympy.Integer(verify_int(K, "K", minimum=1))
    n = sympy.Symbol("n", integer=True, positive=True) if n is None else sympy.Integer(verify_int(n, "n", minimum=1))
    return Namespace(
        d, K, n,
        H=MatrixSymbol("H", d, K * n), Hbar=MatrixSymbol(r"\overline{H}", d, K), Y=MatrixSymbol("Y", K, K * n),
        SW=MatrixSymbol(r"\Sigma_{W}", d, d), SB=MatrixSymbol(r"\Sigma_{B}", d, d),
        ST=MatrixSymbol(r"\tilde{\Sigma}_{T}", d, d), SBt=MatrixSymbol(r"\tilde{\Sigma}_{B}", d, d),
        lam_W=sympy.Symbol("lambda_W", positive=True), lam_H=sympy.Symbol("lambda_H", nonnegative=True),
        t=sympy.Symbol("t", nonnegative=True), ones_n=MatrixSymbol(r"1_{n}^{T}", 1, n),
    )


def instance(Hv: Any, K: int, lam_W: Any, lam_H: Any) -> dict:
    """Explicit values, *from the definitions* (sums of outer products, §4 and App. A), for an exact ``H``.

    Returns ``{"H", "Hbar", "Y", "SW", "SB", "ST", "SBt", "lam_W", "lam_H", "K", "n", "d"}``.
    """
    Hv = sympy.Matrix(Hv)
    K = verify_int(K, "K", minimum=1)
    d, cols = Hv.shape
    if cols % K or cols == 0:
        raise VerifyInputError(f"Argument 'Hv' must have K*n columns (K={K}), not shape {Hv.shape}.")
    n = cols // K
    lam_W, lam_H = sympy.nsimplify(lam_W), sympy.nsimplify(lam_H)
    h = [[Hv[:, k * n + i] for i in range(n)] for k in range(K)]
    hbar = [sum(h[k], sympy.zeros(d, 1)) / n for k in range(K)]
    hG = sum((h[k][i] for k in range(K) for i in range(n)), sympy.zeros(d, 1)) / (K * n)
    outer = lambda u: u * u.T  # noqa: E731
    SW = sum((outer(h[k][i] - hbar[k]) for k in range(K) for i in range(n)), sympy.zeros(d, d)) / (K * n)
    SB = sum((outer(hbar[k] - hG) for k in range(K)), sympy.zeros(d, d)) / K
    ST = sum((outer(h[k][i]) for k in range(K) for i in range(n)), sympy.zeros(d, d)) / (K * n)
    SBt = sum((outer(hbar[k]) for k in range(K)), sympy.zeros(d, d)) / K
    Y = sympy.Matrix(K, K * n, lambda r, c: 1 if c // n == r else 0)
    Hbar = sympy.Matrix.hstack(*hbar)
    return {"H": Hv, "Hbar": Hbar, "Y": Y, "SW": SW, "SB": SB, "ST": ST, "SBt": SBt,
            "lam_W": lam_W, "lam_H": lam_H, "K": K, "n": n, "d": d}


def evaluate(expr: Any, ns: Namespace, inst: dict, extra: dict | None = None) -> Any:
    """Exact value of a matrix / scalar expression of ``ns`` at the explicit instance ``inst``
    (``extra`` maps further symbols, e.g. ``ns.t``, to values)."""
    sub = {ns.H: inst["H"], ns.Hbar: inst["Hbar"], ns.Y: inst["Y"], ns.SW: inst["SW"], ns.SB: inst["SB"],
           ns.ST: inst["ST"], ns.SBt: inst["SBt"], ns.lam_W: inst["lam_W"], ns.lam_H: inst["lam_H"],
           ns.ones_n: sympy.ones(1, inst["n"])}
    sub = {k: (sympy.ImmutableMatrix(v) if isinstance(v, sympy.MatrixBase) else v) for k, v in sub.items()}
    sub.update(extra or {})
    val = sympy.sympify(expr).xreplace(sub)
    val = val.replace(Identity, lambda m: sympy.eye(m)).replace(OneMatrix, lambda r, c: sympy.ones(r, c))
    val = val.doit()
    return sympy.Matrix(val) if isinstance(val, sympy.MatrixBase) else val


def _fro2(M):
    return Trace(M * M.T)


# --------------------------------------------------------------------------- App. A, step by step
def wstar_forms(ns: Namespace) -> list:
    r""":math:`W^*(H)`: :math:`YH^\top(HH^\top+n\lambda_WI)^{-1} = \frac1K\bar H^\top(\frac1{Kn}HH^\top+\frac{\lambda_W}KI)^{-1}
    = \frac1K\bar H^\top(\tilde\Sigma_T+\frac{\lambda_W}KI)^{-1}`."""
    K, n, I = ns.K, ns.n, ns.I
    return [ns.Y * ns.H.T * Inverse(ns.H * ns.H.T + n * ns.lam_W * I),
            ns.Hbar.T * Inverse(ns.H * ns.H.T / (K * n) + ns.lam_W / K * I) / K,
            ns.Wstar]


def decomposition(ns: Namespace) -> tuple:
    r""":math:`\tilde\Sigma_T = \Sigma_W+\tilde\Sigma_B` (App. A)."""
    return ns.ST, ns.SW + ns.SBt


def loss_chain(ns: Namespace) -> dict:
    r"""The equalities of App. A from the definition of :math:`\mathcal L(H)` to its closed form.

    Keys: ``term1`` (the fit term, four forms), ``term2`` (the weight term, two forms), ``sum12``
    (their sum, two forms), ``term3`` (the feature term, two forms), ``L`` (definition and closed form).
    """
    K, n, d, lw, lh = ns.K, ns.n, ns.d, ns.lam_W, ns.lam_H
    C, A, W, H, Y, SBt, ST = ns.C, ns.A, ns.Wstar, ns.H, ns.Y, ns.SBt, ns.ST
    half = Rational(1, 2)
    term1 = [
        _fro2(W * H - Y) / (2 * K * n),
        Trace(W * H * H.T * W.T) / (2 * K * n) - Trace(W * H * Y.T) / (K * n) + half,
        Trace(C * ST * C * SBt) / (2 * K) - Trace(C * SBt) / K + half,
        -lw / (2 * K**2) * Trace(C * C * SBt) - Trace(C * SBt) / (2 * K) + half,
    ]
    term2 = [lw / (2 * K) * _fro2(W), lw / (2 * K**2) * Trace(C * C * SBt)]
    sum12 = [term1[-1] + term2[-1], -Trace(C * SBt) / (2 * K) + half,
             Trace(C * A) / (2 * K) - (d - K) / (2 * K)]
    term3 = [lh / (2 * K * n) * _fro2(H), lh / 2 * Trace(ST)]
    L = [term1[0] + term2[0] + term3[0],
         Trace(A * C) / (2 * K) + lh / 2 * Trace(ST) - (d - K) / (2 * K)]
    return {"term1": term1, "term2": term2, "sum12": sum12, "term3": term3, "L": L}


def loss_definition(ns: Namespace, Wexpr: Any = None) -> Any:
    r""":math:`\mathcal L(H)` as defined in §4 with :math:`W^*(H) = YH^\top(HH^\top+n\lambda_WI)^{-1}`."""
    W = wstar_forms(ns)[0] if Wexpr is None else Wexpr
    K, n = ns.K, ns.n
    return (_fro2(W * ns.H - ns.Y) / (2 * K * n) + ns.lam_W / (2 * K) * _fro2(W)
            + ns.lam_H / (2 * K * n) * _fro2(ns.H))


def gradient(ns: Namespace) -> Any:
    r"""Eq. (7): :math:`\nabla\mathcal L(H) = \frac1{K^2n}(C(H-\bar H\otimes1_n^\top) - CACH + \lambda_HKH)`."""
    K, n, H, C = ns.K, ns.n, ns.H, ns.C
    return (C * (H - KroneckerProduct(ns.Hbar, ns.ones_n)) - C * ns.A * C * H + ns.lam_H * K * H) / (K**2 * n)


def lemma_a1(ns: Namespace) -> dict:
    r"""Lemma A.1: :math:`\dot\Sigma_B, \dot\Sigma_W, \dot{\tilde\Sigma}_T` along the flow (4),
    with :math:`C_B = \Sigma_BC`, :math:`\tilde C_B = \tilde\Sigma_BC`, :math:`C_W = \Sigma_WC`."""
    K, I, lh = ns.K, ns.I, ns.lam_H
    CB, CBt, CW = ns.SB * ns.C, ns.SBt * ns.C, ns.SW * ns.C
    return {
        "SB": (CB * (I - CBt) + (I - CBt.T) * CB.T) / K - 2 * lh * ns.SB,
        "SW": -(CW * CBt + CBt.T * CW.T) / K - 2 * lh * ns.SW,
        "ST": ((I - CBt - CW) * CBt + CBt.T * (I - CBt.T - CW.T)) / K - 2 * lh * ns.ST,
    }


def trace_derivative_chains(ns: Namespace) -> dict:
    r"""App. A: the successive forms of :math:`dT_W/dt` and :math:`dT_B/dt` (with the factor
    :math:`e^{2\lambda_Ht}`), and the lower bound :math:`\frac{2\lambda_W}{K^2}e^{2\lambda_Ht}\operatorname{Tr}(\Sigma_BC^2)`.

    ``dT_W[0]`` and ``dT_B[0]`` contain the placeholders ``dtrW`` / ``dtrB`` (symbols for
    :math:`\frac d{dt}\operatorname{Tr}\Sigma`), to be given the derivative computed independently.
    """
    K, lw, lh, C, I = ns.K, ns.lam_W, ns.lam_H, ns.C, ns.I
    E = exp(2 * lh * ns.t)
    CB, CBt, CW = ns.SB * C, ns.SBt * C, ns.SW * C
    dtrW, dtrB = sympy.Symbol(r"\frac{d\operatorname{Tr}\Sigma_W}{dt}"), sympy.Symbol(r"\frac{d\operatorname{Tr}\Sigma_B}{dt}")
    return {
        "dtrW": dtrW, "dtrB": dtrB,
        "dT_W": [E * (dtrW + 2 * lh * Trace(ns.SW)), -2 * E / K * Trace(CW * CBt),
                 -2 * E / K * Trace(ns.SW * C * ns.SBt * C)],
        "dT_B": [E * (dtrB + 2 * lh * Trace(ns.SB)), 2 * E / K * Trace(CB * (I - CBt)),
                 2 * E / K * Trace(ns.SB * C * (I - ns.SBt * C)),
                 2 * E / K * Trace(ns.SB * C * ns.A * C),
                 2 * E / K * (Trace(ns.SB * C * ns.SW * C) + lw / K * Trace(ns.SB * C * C))],
        "dT_B_lower": 2 * lw / K**2 * E * Trace(ns.SB * C * C),
    }


# --------------------------------------------------------------------------- §2: Theorem 2.2 reduced
def reduced_ufm() -> dict:
    r"""Objective (1) on the collapsed family :math:`H = sR\otimes1_n^\top`, :math:`W = wR^\top`:
    :math:`\frac12(ws-1)^2+\frac{\lambda_W}2w^2+\frac{\lambda_H}2s^2`, its stationary points (sympy ``solve``),
    the derived :math:`\rho = s^2`, :math:`w/s`, and the minimum value."""
    s, w = sympy.symbols("s w", real=True)
    lw, lh = sympy.symbols("lambda_W lambda_H", positive=True)
    f = (w * s - 1) ** 2 / 2 + lw * w**2 / 2 + lh * s**2 / 2
    sols = sympy.solve([sympy.diff(f, s), sympy.diff(f, w)], [s, w], dict=True)
    nonzero = [so for so in sols if so[s] != 0]
    rho = sympy.factor(sympy.expand(nonzero[0][s] ** 2)) if nonzero else None
    return {"f": f, "s": s, "w": w, "lam_W": lw, "lam_H": lh, "solutions": sols, "rho": rho,
            "ratio": sympy.simplify(nonzero[0][w] / nonzero[0][s]) if nonzero else None,
            "value": sympy.factor(f.subs(nonzero[0])) if nonzero else None}


def etf_identity(K: int, rho: Any) -> tuple:
    r"""§2: with :math:`P = I_K-\frac1K11^\top`, :math:`(\bar H-\bar h_G1^\top)^\top(\bar H-\bar h_G1^\top) = P\bar H^\top\bar HP`,
    which equals :math:`\rho P` when :math:`\bar H^\top\bar H = \rho I_K`. Returns ``(P G P, rho P)`` for ``G = rho I``."""
    K = verify_int(K, "K", minimum=2)
    P = sympy.eye(K) - sympy.ones(K, K) / K
    return P * (rho * sympy.eye(K)) * P, rho * P


# --------------------------------------------------------------------------- LaTeX registry
@formula("N-Wstar", "W*(H), both forms (Sec. 4, App. A)")
def _tex_wstar():
    ns = build()
    forms = wstar_forms(ns)
    return [sympy.Eq(MatrixSymbol("W^{*}(H)", ns.K, ns.d), forms[0], evaluate=False),
            sympy.Eq(forms[0], forms[-1], evaluate=False)]


@formula("N-L", "closed form of the central-path loss L(H) (App. A)")
def _tex_loss():
    ns = build()
    return sympy.Eq(sympy.Symbol(r"\mathcal{L}(H)"), loss_chain(ns)["L"][1], evaluate=False)


@formula("N-eq7", "gradient of L(H), eq. (7)")
def _tex_grad():
    ns = build()
    return sympy.Eq(MatrixSymbol(r"\nabla\mathcal{L}(H)", ns.d, ns.K * ns.n), gradient(ns), evaluate=False)


@formula("N-lemA.1", "Lemma A.1: covariance derivatives along the flow (4)")
def _tex_lemma():
    ns = build()
    der = lemma_a1(ns)
    return [sympy.Eq(MatrixSymbol(r"\frac{d\Sigma_{B}}{dt}", ns.d, ns.d), der["SB"], evaluate=False),
            sympy.Eq(MatrixSymbol(r"\frac{d\Sigma_{W}}{dt}", ns.d, ns.d), der["SW"], evaluate=False),
            sympy.Eq(MatrixSymbol(r"\frac{d\tilde{\Sigma}_{T}}{dt}", ns.d, ns.d), der["ST"], evaluate=False)]


@formula("N-dT", "dT_W/dt and dT_B/dt (proof of Thm 4.1)")
def _tex_dt():
    ns = build()
    ch = trace_derivative_chains(ns)
    return [sympy.Eq(sympy.Symbol(r"\frac{dT_W}{dt}"), ch["dT_W"][-1], evaluate=False),
            sympy.Eq(sympy.Symbol(r"\frac{dT_B}{dt}"), ch["dT_B"][3], evaluate=False)]
