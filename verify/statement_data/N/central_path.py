r"""Statement objects of paper N's unconstrained features model and its central path (sec. 4, Apps. A-B).

The features :math:`H\in\mathbb Q^{d\times Kn}` (class by class) are a matrix parameter; the covariances, the
central-path loss and its gradient are the package's exact routes (:mod:`verify.numeric.ufm`, FLINT rationals), in
float64 for the search's score. A matrix identity :math:`X = Y` is stated with a probe matrix :math:`G` (a parameter
too): :math:`\operatorname{Tr}(GX) = \operatorname{Tr}(GY)` for every :math:`G` is :math:`X = Y`. A constant that sits
inside a matrix formula (the :math:`\lambda_W/K` of :math:`(\tilde\Sigma_T + \frac{\lambda_W}K I)^{-1}`) reaches the
quantity through :attr:`verify.statements.Computed.reads_fields`.

* ``N-decomp`` (App. A): :math:`\tilde\Sigma_T = c_W\Sigma_W + c_B\tilde\Sigma_B`, :math:`c_W = c_B = 1`.
* ``N-Wstar`` (sec. 4, App. A): both forms :math:`F_1 = YH^\top(HH^\top + a\lambda_WI)^{-1}`, :math:`a = n`, and
  :math:`F_2 = b\bar H^\top(\tilde\Sigma_T + e\lambda_WI)^{-1}`, :math:`b = e = 1/K`, minimise (1) over :math:`W`:
  :math:`\langle G, \nabla_Wf(F_1)\rangle + \langle G, \nabla_Wf(F_2)\rangle = 0` (f strictly convex in W).
* ``N-L-closed`` (App. A): :math:`\mathcal L(H) = C_1\operatorname{Tr}((\Sigma_W + e\lambda_WI)(\tilde\Sigma_T +
  e\lambda_WI)^{-1}) + C_2\lambda_H\operatorname{Tr}\tilde\Sigma_T - C_3(d - K)`, :math:`C_1 = C_3 = 1/(2K)`,
  :math:`C_2 = 1/2`, :math:`e = 1/K`; :math:`\mathcal L(H)` from its definition, (1) at :math:`W^*(H)`.
* ``N-eq7`` (App. A): the gradient (7), :math:`c_0(C(H - \bar H\otimes1_n^\top) - C(\Sigma_W + e\lambda_WI)CH +
  c_H\lambda_HH)`, :math:`c_0 = 1/(K^2n)`, :math:`c_H = K`, :math:`e = 1/K`, against the derivative of
  :math:`\mathcal L` from its definition (envelope theorem: :math:`\partial_Hf(W^*(H), H)`), along a probe :math:`V`.
* ``N-thm4.1-W`` (Thm 4.1): along the flow (4), :math:`\frac d{dt}\operatorname{Tr}\Sigma_W \le -C\lambda_H
  \operatorname{Tr}\Sigma_W` (:math:`e^{C\lambda_Ht}\operatorname{Tr}\Sigma_W` decreases), :math:`C = 2`.
* ``N-thm4.1-dT`` (App. A): :math:`e^{-C_1\lambda_Ht}\dot T_W = -C_2\operatorname{Tr}(\Sigma_WC\tilde\Sigma_BC)` and
  :math:`e^{-C_1\lambda_Ht}\dot T_B = C_2\operatorname{Tr}(\Sigma_BC(I - \tilde\Sigma_BC))`,
  :math:`C = (\tilde\Sigma_T + e\lambda_WI)^{-1}`, :math:`C_1 = 2`, :math:`C_2 = 2/K`, :math:`e = 1/K`; both at once
  with a rational probe :math:`g` (the second times :math:`g`).
* ``N-lemB.1`` (Lemma B.1): :math:`\|\nabla\mathcal L(H)\|_F \le c_0(C_W/\lambda_W + C_H\lambda_H)\|H\|_F`,
  :math:`c_0 = 1/(Kn)`, :math:`C_W = 3`, :math:`C_H = 1`, at :math:`H = sM` (the scale :math:`s \ge 0` a parameter).
* ``N-lemA.1`` (Lemma A.1): :math:`\dot\Sigma_B, \dot\Sigma_W, \dot{\tilde\Sigma}_T` along the flow (4), from the
  definitions (exact central differences of the quadratic :math:`\Sigma(H)` along :math:`\dot H`), against
  :math:`c_K(\dots) - C\lambda_H\Sigma`, :math:`c_K = 1/K`, :math:`C = 2`, :math:`e = 1/K` (in :math:`C_B,
  \tilde C_B, C_W`), all three at once with probes :math:`G_B, G_W, G_T`.
* ``N-etf`` (sec. 2): :math:`\bar H^\top\bar H = \rho I_K \Rightarrow (\bar H - \bar h_G1^\top)^\top(\bar H -
  \bar h_G1^\top) = C\rho(I_K - c_K11^\top)`, :math:`C = 1`, :math:`c_K = 1/K`, at :math:`\bar H = tQ_{:,1:K}`
  (:math:`Q` the Cayley transform of a skew matrix: rational and orthogonal; :math:`\rho = t^2`).
* ``N-metrics`` (App. E.2): :math:`NC_1 = c\sum_k NC_1^{(k)}`, :math:`c = 1/K`, with the exact pseudo-inverse.
* ``N-thm2.2`` (Thm 2.2): the paper's collapsed point, :math:`H^* = \sqrt\rho R\otimes1_n^\top`,
  :math:`W^* = \kappa\sqrt\rho R^\top` (:math:`R^\top R = I_K`), :math:`\rho = (C - (\lambda_W\lambda_H)^{e_c})
  (\lambda_W/\lambda_H)^{e_1}`, :math:`\kappa = (\lambda_H/\lambda_W)^{e_2}`, is a global minimiser of (1):
  :math:`f(W, H) \ge f(W^*, H^*) = \frac12(\kappa\rho - 1)^2 + \frac{\lambda_W\kappa^2 + \lambda_H}2\rho` (objective (1)
  at that point: :math:`W^*H^* = \kappa\rho Y`, :math:`\|W^*\|_F^2 = K\kappa^2\rho`, :math:`\|H^*\|_F^2 = Kn\rho`),
  :math:`C = 1`, :math:`e_c = e_1 = e_2 = 1/2`, for every :math:`W, H` (:math:`c \le 1`, :math:`d \ge K`), the
  point :math:`(sW, sH)` (a scale :math:`s \ge 0`, so that the search meets the origin).
* ``N-cor3.1`` (Cor. 3.1): with :math:`H_0 = H^*`, the collapsed point of ``N-thm2.2``'s fields (and :math:`e_h = 1/2`,
  :math:`H^* = \rho^{e_h}R\otimes1_n^\top`) minimises (2): :math:`f_2(W^* + sA, H^* + sB; H^*) \ge
  \frac12(\kappa a^2 - 1)^2 + \frac{\lambda_W\kappa^2 + \lambda_H}2a^2`, :math:`a = \rho^{e_h}` (objective (1) at the
  point, closed form), for every direction (A, B) and :math:`s \in [-1, 1]`. The point is irrational for most lambdas
  (:math:`\sqrt 6` at :math:`\lambda_W = 2, \lambda_H = 1/32`): sympy radicals, decided in Arb balls and by the exact
  zero test at s = 0.
* ``N-B-distance`` (App. B): :math:`\|H_{1/\beta} - H_0\|_F \le (\beta/(nKM) - C_1)^e\|H_0\|_F`,
  :math:`nKM = C_W/\lambda_W + C_H\lambda_H`, :math:`C_W = 3`, :math:`C_H = C_1 = 1`, :math:`e = -1`, for
  :math:`\beta > nKM`. Every minimiser of (2) satisfies (8), so the pair is given by its stationary point H (the
  parameter) and :math:`H_0 = H + \frac{Kn}\beta\nabla\mathcal L(H)`: the statement over every H covers every
  minimiser (and every other stationary point, which App. B's argument also bounds).
* ``N-B-limit`` (App. B): :math:`\lim_{\beta\to\infty}\beta(H_{1/\beta} - H_0) = -c\nabla\mathcal L(H_0)`,
  :math:`c = Kn`, along a probe V: the limit from the definition of (2) (implicit function theorem at
  :math:`t = 1/\beta = 0`), the gradient from (7).
* ``N-eq8`` (eq. (8)): the first-order condition of (2), :math:`H - H_0 = -\frac c\beta\nabla\mathcal L(H)`,
  :math:`c = Kn`: with :math:`H_0` given by it, :math:`H` is a stationary point of (2) in H, i.e.
  :math:`\langle V, \partial_Hf_2(W^*(H), H; H_0)\rangle = 0` (envelope theorem: :math:`\partial_Hf_2 =
  \frac1{Kn}(W^{*\top}(W^*H - Y) + \lambda_HH + \beta(H - H_0))`) for every probe V.
* ``N-minimisers-R`` (sec. 2): for every partial orthonormal :math:`R` (the first K columns of the Cayley transform
  of a skew :math:`S - S^\top`), :math:`H_R = \rho^{e_h}R\otimes1_n^\top`, :math:`W_R = \kappa\rho^{e_h}R^\top` is a
  global minimiser of (1): :math:`f(sW, sH) \ge f(W_R, H_R)` with :math:`\rho, \kappa` of ``N-thm2.2`` (same fields)
  and :math:`e_h = 1/2`; :math:`f(W_R, H_R)` is objective (1) at that point (from R, not assuming R^T R = I).
"""

from __future__ import annotations

import math

import numpy as np
import sympy
from flint import arb
from sympy import Rational as R

from ...numeric import ufm
from ...statements import Computed, Field, Hypothesis, Param, Statement, Witness

d, K, n, g, s = sympy.symbols("d K n g s")
lW, lH = sympy.symbols("lambda_W lambda_H")

PARAM_D = Param("d", "int", values=(2, 3))
PARAM_K = Param("K", "int", values=(2, 3))
PARAM_N = Param("n", "int", values=(1, 2))
PARAM_H = Param("H", "matrix", lo=-3, hi=3, shape=("d", "K*n"))
PARAM_LW = Param("lambda_W", "rat", lo=0, hi=None)
PARAM_LH = Param("lambda_H", "rat", lo=0, hi=None, lo_open=False)
#: lambda_H of every sign, for the statements with a hypothesis lambda_H >= 0 (the search box of its dropped variant)
PARAM_LH_ANY = Param("lambda_H", "rat", lo=-10, hi=100)


# --------------------------------------------------------------------------- the two arithmetics
def _arith(env: dict, exact: bool) -> tuple:
    """``(H, lam_W, lam_H, K, kind)``: H (scaled by ``s`` when the statement has that parameter) as FLINT rationals
    (``exact``) or float64, the lambdas in the same arithmetic."""
    M = env["H"]
    if exact:
        H = ufm.as_exact(np.array(M.tolist(), dtype=object))
        kind = "exact"
    else:
        H = np.array(M.tolist(), dtype=float) if isinstance(M, sympy.MatrixBase) else np.asarray(M, dtype=float)
        kind = "float"
    if "s" in env:
        H = H * ufm._scalar(sympy.sympify(env["s"]) if exact else float(env["s"]), kind)
    lw = ufm._scalar(sympy.sympify(env.get("lambda_W", 1)) if exact else float(env.get("lambda_W", 1)), kind)
    lh = ufm._scalar(sympy.sympify(env.get("lambda_H", 0)) if exact else float(env.get("lambda_H", 0)), kind)
    return H, lw, lh, int(env["K"]), kind


def _num(x, kind, exact):
    """A field's or probe's value in the arithmetic ``kind``."""
    if isinstance(x, (sympy.MatrixBase, np.ndarray)):
        if exact:
            return ufm.as_exact(np.array(x.tolist(), dtype=object))
        return np.array(x.tolist(), dtype=float) if isinstance(x, sympy.MatrixBase) else np.asarray(x, dtype=float)
    return ufm._scalar(sympy.sympify(x), kind) if exact else float(x)


def _out(x, exact):
    return sympy.Rational(int(x.p), int(x.q)) if exact else float(x)


def _exact_sqrt(v):
    r""":math:`\sqrt v` of a rational :math:`v \ge 0`: a rational when v is the square of one, else a certified Arb
    ball at the working precision. Not ``sympy.sqrt``: it factors numerator and denominator to pull out square
    factors, seconds per call for the hundreds of digits a searched point's norm has, and the radical it returns is
    compared through balls anyway."""
    p, q = int(v.p), int(v.q)
    rp, rq = math.isqrt(p), math.isqrt(q)
    if rp * rp == p and rq * rq == q:
        return sympy.Rational(rp, rq)
    return (arb(p) / q).sqrt()


def _computed(name: str, fn, latex: str, reads_fields: bool = False, sqrt: bool = False) -> Computed:
    """A :class:`Computed` from ``fn(env, exact) -> (value, kind)``; ``sqrt``: the quantity is the square root of
    ``fn``'s value (a Frobenius norm: exact as a radical of a rational)."""

    def exact(env):
        v = _out(fn(env, True), True)
        return _exact_sqrt(v) if sqrt else v

    def approx(env):
        v = _out(fn(env, False), False)
        return float(np.sqrt(v)) if sqrt else v

    return Computed(name, exact, approx, latex, reads_fields)


def _inner(A, B):
    """:math:`\\langle A, B\\rangle = \\operatorname{Tr}(A^\\top B)`, summed in a fixed order."""
    return ufm._trace(np.asarray(A).T @ np.asarray(B))


def _cov(env, exact):
    H, lw, lh, k, kind = _arith(env, exact)
    return H, lw, lh, k, kind, ufm.covariances(H, k)


def _probe_trace(key):
    def fn(env, exact):
        H, lw, lh, k, kind, c = _cov(env, exact)
        return ufm._trace(_num(env["G"], kind, exact) @ c[key])
    return fn


# --------------------------------------------------------------------------- N-decomp
_T_T = _computed("T_T", _probe_trace("Sigma_T_tilde"), r"\operatorname{Tr}(G\tilde\Sigma_T)")
_T_W = _computed("T_W", _probe_trace("Sigma_W"), r"\operatorname{Tr}(G\Sigma_W)")
_T_Bt = _computed("T_Bt", _probe_trace("Sigma_B_tilde"), r"\operatorname{Tr}(G\tilde\Sigma_B)")

_PROBE_DD = Param("G", "matrix", lo=-2, hi=2, shape=("d", "d"))
_H1 = sympy.Matrix([[R(7, 5), R(-1, 3), 2, R(1, 2)], [R(-3, 2), R(5, 4), R(2, 7), -1], [R(1, 3), 0, R(-9, 4), R(3, 5)]])
_G1 = sympy.Matrix([[R(3, 2), R(-1, 2), R(1, 3)], [R(2, 5), -1, R(7, 4)], [R(-5, 3), R(1, 4), R(1, 2)]])
_H2 = sympy.Matrix([[R(9, 4), R(-2, 3), R(1, 5), 3, R(-7, 6), R(1, 2)], [R(-1, 2), R(8, 5), R(-5, 2), R(1, 3), 2, R(-3, 4)]])
_G2 = sympy.Matrix([[R(-4, 3), R(5, 2)], [R(1, 7), R(3, 2)]])
_decomp_pts = ({"d": 3, "K": 2, "n": 2, "H": _H1, "G": _G1}, {"d": 2, "K": 3, "n": 2, "H": _H2, "G": _G2})

DECOMP = Statement(
    claim="N-decomp", where="App. A",
    params=(PARAM_D, PARAM_K, PARAM_N, PARAM_H, _PROBE_DD),
    lhs=_T_T.symbol, relation="=", rhs=sympy.Symbol("c_W") * _T_W.symbol + sympy.Symbol("c_B") * _T_Bt.symbol,
    fields=(Field("c_W", "constant", 1, "the coefficient of Sigma_W in SigmaT~ = Sigma_W + SigmaB~"),
            Field("c_B", "constant", 1, "the coefficient of SigmaB~")),
    computed=(_T_T, _T_W, _T_Bt),
    witnesses=(Witness("identity", _decomp_pts, "a matrix identity: any H, any probe G (non-unit entries)"),),
    budget=16, starts=0, seed=41,
)


# --------------------------------------------------------------------------- N-Wstar
def _grad_W(W, H, lw, k):
    r""":math:`\nabla_Wf = \frac1{Kn}(WH - Y)H^\top + \frac{\lambda_W}KW`, from objective (1) itself."""
    nn = H.shape[1] // k
    Y = np.kron(np.eye(k, dtype=int), np.ones((1, nn), dtype=int))
    return ((W @ H - Y) @ H.T) / (k * nn) + W * (lw / k)


def _wstar_first(env, exact):
    H, lw, lh, k, kind = _arith(env, exact)
    dd, nn = H.shape[0], H.shape[1] // k
    Y = np.kron(np.eye(k, dtype=int), np.ones((1, nn), dtype=int))
    F1 = (Y @ H.T) @ ufm._inv(H @ H.T + ufm._eye(dd, kind) * (_num(env["a"], kind, exact) * lw), kind)
    return _inner(_num(env["G"], kind, exact), _grad_W(F1, H, lw, k))


def _wstar_second(env, exact):
    H, lw, lh, k, kind, c = _cov(env, exact)
    dd = H.shape[0]
    F2 = c["Hbar"].T @ ufm._inv(c["Sigma_T_tilde"] + ufm._eye(dd, kind) * (_num(env["e"], kind, exact) * lw), kind)
    F2 = F2 * _num(env["b"], kind, exact)
    return _inner(_num(env["G"], kind, exact), _grad_W(F2, H, lw, k))


_GW1 = _computed("g_1", _wstar_first, r"\langle G, \nabla_W f(F_1)\rangle", reads_fields=True)
_GW2 = _computed("g_2", _wstar_second, r"\langle G, \nabla_W f(F_2)\rangle", reads_fields=True)
_PROBE_KD = Param("G", "matrix", lo=-2, hi=2, shape=("K", "d"))
_wstar_pts = tuple({"d": dd, "K": kk, "n": 2, "H": HH, "G": GG, "lambda_W": lw}
                   for (dd, kk, HH), GG, lw in (((3, 2, _H1), sympy.Matrix([[R(3, 2), R(-1, 2), R(1, 3)],
                                                                            [R(2, 5), -1, R(7, 4)]]), R(3, 7)),
                                                ((2, 3, _H2), sympy.Matrix([[R(-4, 3), R(5, 2)], [R(1, 7), R(3, 2)],
                                                                            [2, R(-1, 5)]]), R(5, 2))))

WSTAR = Statement(
    claim="N-Wstar", where="sec. 4, App. A",
    params=(PARAM_D, PARAM_K, PARAM_N, PARAM_H, _PROBE_KD, PARAM_LW),
    lhs=_GW1.symbol + _GW2.symbol, relation="=", rhs=sympy.Integer(0),
    fields=(Field("a", "constant", n, "the n of (HH^T + n lam_W I)^{-1}"),
            Field("b", "constant", 1 / K, "the 1/K of (1/K) Hbar^T (...)^{-1}"),
            Field("e", "constant", 1 / K, "the lam_W/K of (SigmaT~ + lam_W/K I)^{-1}")),
    computed=(_GW1, _GW2),
    witnesses=(Witness("identity", _wstar_pts, "both forms are the minimiser over W of (1): any H, G, lam_W > 0"),),
    budget=16, starts=0, seed=42,
)


# --------------------------------------------------------------------------- N-L-closed
def _loss_definition(env, exact):
    H, lw, lh, k, kind = _arith(env, exact)
    return ufm.central_path_loss_direct(H, lw, lh, k)


def _trace_AC(env, exact):
    H, lw, lh, k, kind, c = _cov(env, exact)
    eye = ufm._eye(H.shape[0], kind) * (_num(env["e"], kind, exact) * lw)
    return ufm._trace((c["Sigma_W"] + eye) @ ufm._inv(c["Sigma_T_tilde"] + eye, kind))


def _trace_T(env, exact):
    return ufm._trace(_cov(env, exact)[-1]["Sigma_T_tilde"])


_LOSS = _computed("L", _loss_definition, r"\mathcal L(H)")
_TRAC = _computed("TrAC", _trace_AC, r"\operatorname{Tr}((\Sigma_W + e\lambda_WI)(\tilde\Sigma_T + e\lambda_WI)^{-1})",
                  reads_fields=True)
_TRT = _computed("TrT", _trace_T, r"\operatorname{Tr}\tilde\Sigma_T")
_lclosed_pts = tuple({"d": dd, "K": kk, "n": 2, "H": HH, "lambda_W": lw, "lambda_H": lh}
                     for dd, kk, HH, lw, lh in ((3, 2, _H1, R(1, 3), R(2, 7)), (2, 3, _H2, R(5, 2), R(3, 4))))

LCLOSED = Statement(
    claim="N-L-closed", where="App. A",
    params=(PARAM_D, PARAM_K, PARAM_N, PARAM_H, PARAM_LW, PARAM_LH),
    lhs=_LOSS.symbol, relation="=",
    rhs=sympy.Symbol("C_1") * _TRAC.symbol + sympy.Symbol("C_2") * lH * _TRT.symbol - sympy.Symbol("C_3") * (d - K),
    fields=(Field("C_1", "constant", 1 / (2 * K), "the 1/(2K) of the trace term"),
            Field("C_2", "constant", R(1, 2), "the 1/2 of (lam_H/2) Tr SigmaT~"),
            Field("C_3", "constant", 1 / (2 * K), "the 1/(2K) of (d - K)/(2K)"),
            Field("e", "constant", 1 / K, "the lam_W/K added to Sigma_W and SigmaT~")),
    computed=(_LOSS, _TRAC, _TRT),
    witnesses=(Witness("identity", _lclosed_pts, "an identity in H: d != K, lam_H > 0, non-unit entries"),),
    budget=16, starts=0, seed=43,
)


# --------------------------------------------------------------------------- N-eq7
def _grad_eq7(env, exact):
    r"""(7) as printed, with the fields: :math:`c_0(C(H - \bar H\otimes1_n^\top) - C(\Sigma_W + e\lambda_WI)CH +
    c_H\lambda_HH)` along the probe V."""
    H, lw, lh, k, kind, c = _cov(env, exact)
    nn = H.shape[1] // k
    eye = ufm._eye(H.shape[0], kind) * (_num(env["e"], kind, exact) * lw)
    C = ufm._inv(c["Sigma_T_tilde"] + eye, kind)
    P = H - np.repeat(c["Hbar"], nn, axis=1)
    grad = (C @ P - C @ (c["Sigma_W"] + eye) @ C @ H + H * (_num(env["c_H"], kind, exact) * lh)) \
        * _num(env["c_0"], kind, exact)
    return _inner(_num(env["V"], kind, exact), grad)


def _grad_definition(env, exact):
    r""":math:`\langle V, \partial_Hf(W^*(H), H)\rangle`, :math:`\partial_Hf = \frac1{Kn}(W^{*\top}(W^*H - Y) +
    \lambda_HH)`: the derivative of :math:`\mathcal L(H) = f(W^*(H), H)` (envelope theorem, :math:`\nabla_Wf = 0`)."""
    H, lw, lh, k, kind = _arith(env, exact)
    nn = H.shape[1] // k
    W = ufm.optimal_W(H, lw, k)
    Y = np.kron(np.eye(k, dtype=int), np.ones((1, nn), dtype=int))
    return _inner(_num(env["V"], kind, exact), (W.T @ (W @ H - Y) + H * lh) / (k * nn))


_G7 = _computed("grad7_V", _grad_eq7, r"\langle V, \nabla\mathcal L\rangle_{(7)}", reads_fields=True)
_GDEF = _computed("dL_V", _grad_definition, r"\frac{d}{dt}\mathcal L(H + tV)\big|_0")
_PROBE_V = Param("V", "matrix", lo=-2, hi=2, shape=("d", "K*n"))
_eq7_pts = tuple({**p, "V": VV} for p, VV in zip(_lclosed_pts, (
    sympy.Matrix([[R(1, 2), -1, R(3, 4), 2], [R(-2, 3), R(1, 5), 1, R(-3, 2)], [R(5, 4), R(-1, 3), 0, R(2, 7)]]),
    sympy.Matrix([[1, R(-1, 2), R(2, 3), R(-5, 4), R(1, 3), 2], [R(3, 2), 0, R(-1, 4), R(7, 5), -1, R(1, 6)]]))))

EQ7 = Statement(
    claim="N-eq7", where="eq. (7), App. A",
    params=(PARAM_D, PARAM_K, PARAM_N, PARAM_H, _PROBE_V, PARAM_LW, PARAM_LH),
    lhs=_G7.symbol, relation="=", rhs=_GDEF.symbol,
    fields=(Field("c_0", "constant", 1 / (K ** 2 * n), "the 1/(K^2 n) in front of (7)"),
            Field("c_H", "constant", K, "the K of lam_H K H"),
            Field("e", "constant", 1 / K, "the lam_W/K of C and of Sigma_W + lam_W/K I")),
    computed=(_G7, _GDEF),
    witnesses=(Witness("identity", _eq7_pts, "(7) is the gradient: any H, V, lam_W > 0, lam_H > 0"),),
    budget=16, starts=0, seed=47,
)


# --------------------------------------------------------------------------- the flow (4): traces and derivatives
def _grad(H, lw, lh, k):
    r""":math:`\nabla\mathcal L(H)`, the package's closed form at :math:`\lambda_H = 0` plus
    :math:`\frac{\lambda_H}{Kn}H` (its :math:`\lambda_H` term), so that it also serves at :math:`\lambda_H < 0` (a dropped
    hypothesis) where the package's route refuses the input."""
    kind = ufm._kind(H)
    return ufm.grad_central_path_loss(H, lw, ufm._scalar(0, kind), k) + H * (lh / (H.shape[1]))


def _flow(env, exact):
    r"""``(H, lw, lh, K, kind, covariances, V)``, :math:`V = \dot H = -Kn\nabla\mathcal L(H)` (flow (4), the package's
    gradient)."""
    H, lw, lh, k, kind, c = _cov(env, exact)
    nn = H.shape[1] // k
    V = _grad(H, lw, lh, k) * (-(k * nn))
    return H, lw, lh, k, kind, c, V


def _dtr_W(env, exact):
    r""":math:`\frac d{dt}\operatorname{Tr}\Sigma_W = \frac2{Kn}\langle H - \bar H\otimes1_n^\top, \dot H\rangle`."""
    H, lw, lh, k, kind, c, V = _flow(env, exact)
    nn = H.shape[1] // k
    return _inner(H - np.repeat(c["Hbar"], nn, axis=1), V) * 2 / (k * nn)


def _dtr_B(env, exact):
    r""":math:`\frac d{dt}\operatorname{Tr}\Sigma_B = \frac2K\langle \bar H - \bar h_G1_K^\top, \dot{\bar H} -
    \dot{\bar h}_G1_K^\top\rangle`."""
    H, lw, lh, k, kind, c, V = _flow(env, exact)
    Mc = c["Hbar"] - (c["Hbar"].sum(axis=1) / k)[:, None]
    Vbar = ufm.class_means(V, k)
    return _inner(Mc, Vbar - (Vbar.sum(axis=1) / k)[:, None]) * 2 / k


def _tr(key):
    return lambda env, exact: ufm._trace(_cov(env, exact)[-1][key])


def _x_terms(which):
    def fn(env, exact):
        H, lw, lh, k, kind, c = _cov(env, exact)
        eye = ufm._eye(H.shape[0], kind)
        C = ufm._inv(c["Sigma_T_tilde"] + eye * (_num(env["e"], kind, exact) * lw), kind)
        if which == "W":
            return ufm._trace(c["Sigma_W"] @ C @ c["Sigma_B_tilde"] @ C)
        return ufm._trace(c["Sigma_B"] @ C @ (eye - c["Sigma_B_tilde"] @ C))
    return fn


_DW = _computed("D_W", _dtr_W, r"\frac{d}{dt}\operatorname{Tr}\Sigma_W")
_DB = _computed("D_B", _dtr_B, r"\frac{d}{dt}\operatorname{Tr}\Sigma_B")
_TW = _computed("T_W", _tr("Sigma_W"), r"\operatorname{Tr}\Sigma_W")
_TB = _computed("T_B", _tr("Sigma_B"), r"\operatorname{Tr}\Sigma_B")
_XW = _computed("X_W", _x_terms("W"), r"\operatorname{Tr}(\Sigma_WC\tilde\Sigma_BC)", reads_fields=True)
_XB = _computed("X_B", _x_terms("B"), r"\operatorname{Tr}(\Sigma_BC(I - \tilde\Sigma_BC))", reads_fields=True)

_sp = R(7, 10)
#: class means on e_1, within-class spread on e_2: C diagonal, Tr(Sigma_W C SigmaB~ C) = 0 (the supremum 0 attained)
_ORTH = sympy.Matrix([[1, 1, 3, 3], [_sp, -_sp, _sp, -_sp]])
#: everything on e_1: the spread aligned with the means, Tr(Sigma_W C SigmaB~ C) > 0
_ALIGNED = sympy.Matrix([[1 + _sp, 1 - _sp, 3 + _sp, 3 - _sp], [0, 0, 0, 0]])
_tw_att = tuple({"d": 2, "K": 2, "n": 2, "H": _ORTH, "lambda_W": lw, "lambda_H": lh}
                for lw, lh in ((R(5, 2), R(3, 10)), (R(1, 4), R(7, 2))))
_tw_slack = ({"d": 2, "K": 2, "n": 2, "H": _ALIGNED, "lambda_W": R(5, 2), "lambda_H": R(3, 10)},
             {"d": 3, "K": 2, "n": 2, "H": _H1, "lambda_W": R(1, 3), "lambda_H": 0})

THM41W = Statement(
    claim="N-thm4.1-W", where="Thm 4.1",
    params=(PARAM_D, PARAM_K, PARAM_N, PARAM_H, PARAM_LW, PARAM_LH_ANY),
    lhs=_DW.symbol, relation="<=", rhs=-sympy.Symbol("C") * lH * _TW.symbol,
    fields=(Field("C", "constant", 2, "the 2 of e^{2 lam_H t} Tr Sigma_W"),),
    hypotheses=(Hypothesis("lam_H >= 0", lH >= 0,
                           not_needed="the 2 lam_H Tr Sigma_W terms of the product rule and of the flow cancel: "
                                      "e^{-2 lH t} dT_W/dt = -(2/K) Tr(Sigma_W C SigmaB~ C) <= 0 for every real lam_H"),),
    computed=(_DW, _TW),
    witnesses=(Witness("attained", _tw_att, "means orthogonal to the spread: dT_W/dt = 0, equality"),
               Witness("slack", _tw_slack, "spread along the means: dT_W/dt < 0")),
    budget=24, starts=1, seed=44,
)

_dt_pts = tuple({**p, "g": gg} for p, gg in ((_tw_slack[0], R(-3, 2)), (_tw_slack[1], R(5, 3)),
                                             ({"d": 2, "K": 3, "n": 2, "H": _H2, "lambda_W": R(5, 2),
                                               "lambda_H": R(3, 4)}, R(2, 7))))
THM41DT = Statement(
    claim="N-thm4.1-dT", where="App. A (proof of Thm 4.1)",
    params=(PARAM_D, PARAM_K, PARAM_N, PARAM_H, PARAM_LW, PARAM_LH, Param("g", "rat", lo=-2, hi=2)),
    lhs=(_DW.symbol + sympy.Symbol("C_1") * lH * _TW.symbol) + g * (_DB.symbol + sympy.Symbol("C_1") * lH * _TB.symbol),
    relation="=", rhs=-sympy.Symbol("C_2") * _XW.symbol + g * sympy.Symbol("C_2") * _XB.symbol,
    fields=(Field("C_1", "constant", 2, "the 2 of e^{2 lam_H t}"), Field("C_2", "constant", 2 / K, "the 2/K"),
            Field("e", "constant", 1 / K, "the lam_W/K of C = (SigmaT~ + lam_W/K I)^{-1}")),
    computed=(_DW, _DB, _TW, _TB, _XW, _XB),
    witnesses=(Witness("identity", _dt_pts, "both closed forms, at any H and lambdas; the probe g != 0"),),
    budget=16, starts=0, seed=45,
)


# --------------------------------------------------------------------------- N-lemB.1
def _grad_norm2(env, exact):
    H, lw, lh, k, kind = _arith(env, exact)
    G = _grad(H, lw, lh, k)
    return _inner(G, G)


def _h_norm2(env, exact):
    H = _arith(env, exact)[0]
    return _inner(H, H)


_GN = _computed("gradL_F", _grad_norm2, r"\|\nabla\mathcal L(H)\|_F", sqrt=True)
_HN = _computed("H_F", _h_norm2, r"\|H\|_F", sqrt=True)
#: a collapsed one-axis M (means 17/10, -3/5 on e_1): the ratio is |lam_H - lam_W/(S + lam_W)^2| / (3/lam_W + lam_H)
_ONE_AXIS = sympy.Matrix([[R(17, 10), R(17, 10), R(-3, 5), R(-3, 5)], [0, 0, 0, 0]])
_lemb1_approach = tuple({"d": 2, "K": 2, "n": 2, "H": _ONE_AXIS, "s": ss, "lambda_W": x, "lambda_H": x}
                        for ss, x in ((1, 100), (R(3, 2), 1000), (R(1, 3), 10 ** 4)))

LEMB1 = Statement(
    claim="N-lemB.1", where="Lemma B.1",
    params=(PARAM_D, PARAM_K, PARAM_N, PARAM_H, Param("s", "rat", lo=0, hi=2, lo_open=False), PARAM_LW, PARAM_LH_ANY),
    lhs=_GN.symbol, relation="<=",
    rhs=sympy.Symbol("c_0") * (sympy.Symbol("C_W") / lW + sympy.Symbol("C_H") * lH) * _HN.symbol,
    fields=(Field("c_0", "constant", 1 / (K * n), "the 1/(Kn) of the bound"),
            Field("C_W", "constant", 3, "the 3 of 3/lam_W"), Field("C_H", "constant", 1, "the coefficient of lam_H")),
    hypotheses=(Hypothesis("lam_H >= 0", lH >= 0,
                           outside=({"d": 2, "K": 2, "n": 2, "H": _ONE_AXIS, "s": 1, "lambda_W": R(1, 2),
                                     "lambda_H": -5},)),),  # 3/lW + lH = 1 > 0, yet |grad| Kn / |H| > 5
    computed=(_GN, _HN),
    witnesses=(Witness("approached", _lemb1_approach, "collapsed one-axis H, lam_W lam_H -> oo: the ratio -> 1"),
               Witness("attained", ({"d": 2, "K": 2, "n": 2, "H": _ONE_AXIS, "s": 0, "lambda_W": R(1, 2),
                                     "lambda_H": R(1, 3)},), "H = 0: both sides 0"),
               Witness("slack", ({"d": 3, "K": 2, "n": 2, "H": _H1, "s": 1, "lambda_W": R(1, 3), "lambda_H": 0},),
                       "a generic H at lam_H = 0")),
    budget=40, starts=2, seed=46,
)



# --------------------------------------------------------------------------- N-lemA.1
def _sigma_derivatives(env, exact):
    r"""``(H, lw, lh, k, kind, covariances, derivatives)``: :math:`\dot\Sigma = (\Sigma(H + V) - \Sigma(H - V))/2`
    along :math:`V = \dot H = -Kn\nabla\mathcal L(H)`, exact for the quadratic :math:`\Sigma` (the definitions)."""
    H, lw, lh, k, kind, c, V = _flow(env, exact)
    plus, minus = ufm.covariances(H + V, k), ufm.covariances(H - V, k)
    return H, lw, lh, k, kind, c, {key: (plus[key] - minus[key]) / 2 for key in ("Sigma_B", "Sigma_W", "Sigma_T_tilde")}


_PROBES_A1 = (("G_B", "Sigma_B"), ("G_W", "Sigma_W"), ("G_T", "Sigma_T_tilde"))


def _lema1_derivatives(env, exact):
    H, lw, lh, k, kind, c, der = _sigma_derivatives(env, exact)
    return sum((ufm._trace(_num(env[g], kind, exact) @ der[key]) for g, key in _PROBES_A1[1:]),
               ufm._trace(_num(env["G_B"], kind, exact) @ der["Sigma_B"]))


def _lema1_sigmas(env, exact):
    H, lw, lh, k, kind, c = _cov(env, exact)
    return sum((ufm._trace(_num(env[g], kind, exact) @ c[key]) for g, key in _PROBES_A1[1:]),
               ufm._trace(_num(env["G_B"], kind, exact) @ c["Sigma_B"]))


def _lema1_forms(env, exact):
    r""":math:`\langle G_B, C_B(I - \tilde C_B) + (\cdot)^\top\rangle - \langle G_W, C_W\tilde C_B + (\cdot)^\top\rangle +
    \langle G_T, (I - \tilde C_B - C_W)\tilde C_B + (\cdot)^\top\rangle`, :math:`C = (\tilde\Sigma_T + e\lambda_WI)^{-1}`."""
    H, lw, lh, k, kind, c = _cov(env, exact)
    eye = ufm._eye(H.shape[0], kind)
    C = ufm._inv(c["Sigma_T_tilde"] + eye * (_num(env["e"], kind, exact) * lw), kind)
    CB, CBt, CW = c["Sigma_B"] @ C, c["Sigma_B_tilde"] @ C, c["Sigma_W"] @ C
    forms = {"G_B": CB @ (eye - CBt), "G_W": -(CW @ CBt), "G_T": (eye - CBt - CW) @ CBt}
    return sum((ufm._trace(_num(env[g], kind, exact) @ (forms[g] + forms[g].T)) for g, _ in _PROBES_A1[1:]),
               ufm._trace(_num(env["G_B"], kind, exact) @ (forms["G_B"] + forms["G_B"].T)))


_DS = _computed("dSigma_G", _lema1_derivatives, r"\sum_X \langle G_X, \dot\Sigma_X\rangle")
_SS = _computed("Sigma_G", _lema1_sigmas, r"\sum_X \langle G_X, \Sigma_X\rangle")
_YS = _computed("Y_G", _lema1_forms, r"\sum_X \langle G_X, Y_X\rangle", reads_fields=True)
_lema1_pts = tuple({**p, "G_B": _G1[:p["d"], :p["d"]], "G_W": _G1[:p["d"], :p["d"]].T,
                    "G_T": sympy.eye(p["d"]) + _G1[:p["d"], :p["d"]] / 3}
                   for p in (_tw_slack[0], _tw_slack[1], _dt_pts[2]))

LEMA1 = Statement(
    claim="N-lemA.1", where="Lemma A.1",
    params=(PARAM_D, PARAM_K, PARAM_N, PARAM_H, PARAM_LW, PARAM_LH,
            *(Param(g, "matrix", lo=-2, hi=2, shape=("d", "d")) for g, _ in _PROBES_A1)),
    lhs=_DS.symbol, relation="=", rhs=sympy.Symbol("c_K") * _YS.symbol - sympy.Symbol("C") * lH * _SS.symbol,
    fields=(Field("c_K", "constant", 1 / K, "the 1/K in front of each bracket"),
            Field("C", "constant", 2, "the 2 of -2 lam_H Sigma"),
            Field("e", "constant", 1 / K, "the lam_W/K of C = (SigmaT~ + lam_W/K I)^{-1}")),
    computed=(_DS, _YS, _SS),
    witnesses=(Witness("identity", _lema1_pts, "the three derivatives, at any H, lambdas, probes"),),
    budget=12, starts=0, seed=48,
)


# --------------------------------------------------------------------------- N-etf
def _cayley_means(env):
    r""":math:`\bar H = tQ_{:,1:K}`, :math:`Q = (I - A)(I + A)^{-1}`, :math:`A = S - S^\top` (skew, so Q is orthogonal
    and rational): :math:`\bar H^\top\bar H = t^2 I_K`, exactly."""
    S = sympy.Matrix(env["S"])
    A = S - S.T
    I = sympy.eye(A.rows)
    Q = (I - A) * (I + A).inv()
    return sympy.sympify(env["t"]) * Q[:, :int(env["K"])]


def _etf_gram(env, exact):
    Hb = _cayley_means(env)
    k = Hb.cols
    M = Hb - Hb * sympy.ones(k, 1) * sympy.ones(1, k) / k
    v = (sympy.Matrix(env["G"]) * M.T * M).trace()
    return ufm._to_fmpq(v) if exact else float(v)


def _g_trace(env, exact):
    v = sympy.Matrix(env["G"]).trace()
    return ufm._to_fmpq(v) if exact else float(v)


def _g_sum(env, exact):
    v = sum(sympy.Matrix(env["G"]))
    return ufm._to_fmpq(sympy.sympify(v)) if exact else float(v)


_GRAM = _computed("TrGM", _etf_gram, r"\operatorname{Tr}(G(\bar H - \bar h_G1^\top)^\top(\bar H - \bar h_G1^\top))")
_TRG = _computed("TrG", _g_trace, r"\operatorname{Tr}G")
_SUMG = _computed("sumG", _g_sum, r"1^\top G1")
t = sympy.Symbol("t")
_etf_pts = ({"d": 3, "K": 2, "S": _G1, "t": R(3, 2), "G": sympy.Matrix([[R(2, 3), R(-1, 4)], [R(5, 2), 1]])},
            {"d": 4, "K": 3, "S": sympy.Matrix(4, 4, lambda i, j: R(i - 2 * j, 3 + i + j)), "t": R(2, 5),
             "G": sympy.Matrix([[1, R(1, 2), 0], [R(-3, 2), 2, R(1, 3)], [R(2, 7), R(5, 4), R(-1, 2)]])})

ETF = Statement(
    claim="N-etf", where="sec. 2",
    params=(Param("d", "int", values=(3, 4)), PARAM_K, Param("S", "matrix", lo=-2, hi=2, shape=("d", "d")),
            Param("t", "rat", lo=0, hi=3), Param("G", "matrix", lo=-2, hi=2, shape=("K", "K"))),
    lhs=_GRAM.symbol, relation="=",
    rhs=sympy.Symbol("C") * t ** 2 * (_TRG.symbol - sympy.Symbol("c_K") * _SUMG.symbol),
    fields=(Field("C", "constant", 1, "rho times the centring projector"),
            Field("c_K", "constant", 1 / K, "the 1/K of I_K - (1/K) 1 1^T")),
    computed=(_GRAM, _TRG, _SUMG),
    witnesses=(Witness("identity", _etf_pts, "any orthogonal means (rho = t^2 != 1), any probe with 1^T G 1 != 0"),),
    budget=12, starts=0, seed=49,
)


# --------------------------------------------------------------------------- N-metrics
def _pinv_parts(env):
    Hm = sympy.Matrix(env["H"])
    k = int(env["K"])
    nn = Hm.cols // k
    H = ufm.as_exact(np.array(Hm.tolist(), dtype=object))
    c = ufm.covariances(H, k)
    to_sym = lambda A: sympy.Matrix(A.shape[0], A.shape[1], [sympy.Rational(int(x.p), int(x.q)) for x in A.flat])  # noqa: E731
    return Hm, k, nn, to_sym(c["Sigma_W"]), to_sym(c["Sigma_B"]).pinv(), to_sym(c["Hbar"])


def _nc1(env, exact):
    Hm, k, nn, SW, SBp, Hbar = _pinv_parts(env)
    v = (SW * SBp).trace() / k
    return ufm._to_fmpq(sympy.Rational(v)) if exact else float(v)


def _nc1_classes(env, exact):
    r""":math:`\sum_k NC_1^{(k)}`, :math:`NC_1^{(k)} = \frac1K\operatorname{Tr}(\frac1n\sum_i(h_{k,i} - \bar h_k)
    (\cdot)^\top\Sigma_B^\dagger)` (App. E.2)."""
    Hm, k, nn, SW, SBp, Hbar = _pinv_parts(env)
    v = 0
    for j in range(k):
        D = Hm[:, j * nn:(j + 1) * nn] - Hbar[:, j] * sympy.ones(1, nn)
        v += (D * D.T / nn * SBp).trace() / k
    return ufm._to_fmpq(sympy.Rational(v)) if exact else float(v)


_NC1 = _computed("NC_1", _nc1, r"NC_1")
_NC1K = _computed("sum_NC_1k", _nc1_classes, r"\sum_k NC_1^{(k)}")

METRICS = Statement(
    claim="N-metrics", where="sec. 6, App. E.2",
    params=(PARAM_D, Param("K", "int", values=(2, 3)), PARAM_N, PARAM_H),
    lhs=_NC1.symbol, relation="=", rhs=sympy.Symbol("c") * _NC1K.symbol,
    fields=(Field("c", "constant", 1 / K, "the 1/K of NC_1 = (1/K) sum_k NC_1^(k)"),),
    computed=(_NC1, _NC1K),
    witnesses=(Witness("identity", tuple({k: p[k] for k in ("d", "K", "n", "H")} for p in _lclosed_pts),
                       "an identity of the definitions: any H with Sigma_W != 0"),),
    budget=12, starts=0, seed=50,
)



# --------------------------------------------------------------------------- N-thm2.2
def _ufm_value(env, exact):
    """Objective (1) at :math:`(sW, sH)` (the scale ``s`` a parameter: 0 is the origin, the minimiser at c = 1)."""
    H, lw, lh, k, kind = _arith(env, exact)
    return ufm.ufm_objective(_num(env["W"], kind, exact) * _num(env["s"], kind, exact), H, lw, lh, k)


_F = _computed("f", _ufm_value, r"f(W, H)")
_rho = (sympy.Symbol("C") - (lW * lH) ** sympy.Symbol("e_c")) * (lW / lH) ** sympy.Symbol("e_1")
_kappa = (lH / lW) ** sympy.Symbol("e_2")
_R2 = sympy.Matrix([[R(3, 5), R(-4, 5)], [R(4, 5), R(3, 5)]])   # rational orthonormal columns (3-4-5)
_R3 = sympy.Matrix.vstack(_R2, sympy.zeros(1, 2))
_R_FLOAT = {2: np.array(_R2.tolist(), dtype=float), 3: np.array(_R3.tolist(), dtype=float)}  # the float searches' R


def _collapsed(Rm, sqrt_rho, kappa, n_):
    return {"d": Rm.rows, "K": Rm.cols, "n": n_, "H": sqrt_rho * sympy.kronecker_product(Rm, sympy.ones(1, n_)),
            "W": kappa * sqrt_rho * Rm.T, "s": 1}


# c = 1/2, lW/lH = 64: rho = 4, kappa = 1/8; c = 1/5, lW/lH = 400: rho = 16, kappa = 1/20 (rational collapsed points)
_thm22_att = (
    {**_collapsed(_R2, 2, R(1, 8), 2), "lambda_W": 4, "lambda_H": R(1, 16)},
    {**_collapsed(_R3, 4, R(1, 20), 1), "lambda_W": 4, "lambda_H": R(1, 100)},
    {**_collapsed(_R3, 2, R(1, 8), 2), "lambda_W": 4, "lambda_H": R(1, 16)},
)
_thm22_slack = tuple({**p, "s": 0} for p in _thm22_att[:2])

THM22 = Statement(
    claim="N-thm2.2", where="Thm 2.2",
    params=(PARAM_D, PARAM_K, PARAM_N, Param("H", "matrix", lo=-2, hi=2, shape=("d", "K*n")),
            Param("W", "matrix", lo=-2, hi=2, shape=("K", "d")), Param("s", "rat", lo=0, hi=2, lo_open=False), PARAM_LW,
            Param("lambda_H", "rat", lo=0, hi=None)),
    lhs=_F.symbol, relation=">=",
    rhs=(_kappa * _rho - 1) ** 2 / 2 + (lW * _kappa ** 2 + lH) * _rho / 2,
    fields=(Field("C", "constant", 1, "the 1 of rho = (1 - c) sqrt(lam_W/lam_H)"),
            Field("e_c", "exponent", R(1, 2), "c = sqrt(lam_W lam_H)"),
            Field("e_1", "exponent", R(1, 2), "the sqrt of sqrt(lam_W/lam_H) in rho"),
            Field("e_2", "exponent", R(1, 2), "the sqrt of w_k = sqrt(lam_H/lam_W) h_k")),
    hypotheses=(Hypothesis("c <= 1", lW * lH <= 1,
                           not_needed="for c > 1 the bound is c - c^2/2 < 1/2 = f(0, 0) = min (1) (the theorem's "
                                      "second case), so f >= it still"),
                Hypothesis("d >= K", d >= K,
                           not_needed="a lower bound: (W, H) with d < K padded by zero rows/columns to d = K keeps f, "
                                      "so min (1) only rises when d < K")),
    computed=(_F,),
    witnesses=(Witness("attained", _thm22_att, "the collapsed point itself (rational: rho and kappa squares)"),
               Witness("slack", _thm22_slack, "W = 0, H = 0: f = 1/2 > c - c^2/2")),
    budget=30, starts=2, seed=22,
)



# --------------------------------------------------------------------------- N-eq8
def _foc(env, exact):
    r""":math:`\langle V, \partial_Hf_2(W^*(H), H; H_0)\rangle` with :math:`H_0 = H + \frac c\beta\nabla\mathcal L(H)`."""
    H, lw, lh, k, kind = _arith(env, exact)
    nn = H.shape[1] // k
    beta = _num(env["beta"], kind, exact)
    H0 = H + _grad(H, lw, lh, k) * (_num(env["c"], kind, exact) / beta)
    W = ufm.optimal_W(H, lw, k)
    Y = np.kron(np.eye(k, dtype=int), np.ones((1, nn), dtype=int))
    return _inner(_num(env["V"], kind, exact), (W.T @ (W @ H - Y) + H * lh + (H - H0) * beta) / (k * nn))


_FOC = _computed("foc_V", _foc, r"\langle V, \partial_H f_2(W^*(H), H; H_0)\rangle", reads_fields=True)

EQ8 = Statement(
    claim="N-eq8", where="eq. (8)",
    params=(PARAM_D, PARAM_K, PARAM_N, PARAM_H, _PROBE_V, PARAM_LW, PARAM_LH, Param("beta", "rat", lo=0, hi=None)),
    lhs=_FOC.symbol, relation="=", rhs=sympy.Integer(0),
    fields=(Field("c", "constant", K * n, "the Kn of -(Kn/beta) grad L"),),
    computed=(_FOC,),
    witnesses=(Witness("identity", tuple({**p, "beta": b} for p, b in zip(_eq7_pts, (R(20), R(7, 2)))),
                       "(8) is the stationarity of (2) in H: any H, V, lambdas, beta"),),
    budget=12, starts=0, seed=8,
)



# --------------------------------------------------------------------------- N-minimisers-R
def _cayley(S):
    A = sympy.Matrix(S) - sympy.Matrix(S).T
    I = sympy.eye(A.rows)
    return (I - A) * (I + A).inv()


def _f_at_R(env, exact):
    r"""Objective (1) at :math:`(W_R, H_R) = (bR^\top, aR\otimes1_n^\top)`, :math:`a = \rho^{e_h}`, :math:`b = \kappa a`:
    :math:`\frac1{2Kn}((ab)^2n\|R^\top R\|_F^2 - 2abn\operatorname{Tr}R^\top R + Kn) + \frac{\lambda_W}{2K}b^2\|R\|_F^2
    + \frac{\lambda_H}{2K}a^2\|R\|_F^2` (sympy radicals, exact; float64 for the search)."""
    k, nn = int(env["K"]), int(env["n"])
    fields = {sympy.Symbol(f): sympy.sympify(env[f]) for f in ("C", "e_c", "e_1", "e_2", "e_h")}
    if exact:
        Rm = _cayley(env["S"])[:, :k]
        M = Rm.T * Rm
        # sympify, not nsimplify: nsimplify replaces a rational such as 20396/323639 by a nearby power product
        lw, lh = sympy.sympify(env["lambda_W"]), sympy.sympify(env["lambda_H"])
        sub = {lW: lw, lH: lh, **fields}
        a = (_rho ** sympy.Symbol("e_h")).xreplace(sub)
        b = _kappa.xreplace(sub) * a
        nR, nM, tM = sum(x ** 2 for x in Rm), sum(x ** 2 for x in M), M.trace()
    else:  # float64 throughout (the search's score): the same formula
        S = np.array(sympy.Matrix(env["S"]).tolist(), dtype=float) if isinstance(env["S"], sympy.MatrixBase) \
            else np.asarray(env["S"], dtype=float)
        A = S - S.T
        Rm = ((np.eye(len(A)) - A) @ np.linalg.inv(np.eye(len(A)) + A))[:, :k]
        M = Rm.T @ Rm
        lw, lh = float(env["lambda_W"]), float(env["lambda_H"])
        f = {str(x): float(v) for x, v in fields.items()}
        a = ((f["C"] - (lw * lh) ** f["e_c"]) * (lw / lh) ** f["e_1"]) ** f["e_h"]
        b = (lh / lw) ** f["e_2"] * a
        nR, nM, tM = float((Rm * Rm).sum()), float((M * M).sum()), float(np.trace(M))
    v = ((a * b) ** 2 * nn * nM - 2 * a * b * nn * tM + k * nn) / (2 * k * nn) + lw * b ** 2 * nR / (2 * k) \
        + lh * a ** 2 * nR / (2 * k)
    return v if exact else float(v)


def _f_at_R_exact(env):
    return _f_at_R(env, True)


_FR = Computed("f_R", _f_at_R_exact, lambda env: _f_at_R(env, False), r"f(W_R, H_R)", reads_fields=True)
_S_HALF = sympy.Matrix([[0, R(1, 2)], [0, 0]])          # Cayley: the rotation with cos 3/5, sin -4/5
_S3 = sympy.Matrix([[0, R(1, 2), R(1, 3)], [0, 0, R(-1, 4)], [R(1, 5), 0, 0]])
_minr_att = tuple({**_collapsed(_cayley(S_)[:, :2], root, kap, nn), "S": S_, "lambda_W": 4, "lambda_H": lh}
                  for S_, root, kap, nn, lh in ((_S_HALF, 2, R(1, 8), 2, R(1, 16)), (_S3, 4, R(1, 20), 1, R(1, 100))))

MINR = Statement(
    claim="N-minimisers-R", where="sec. 2",
    params=(Param("d", "int", values=(2, 3)), Param("K", "int", values=(2,)), PARAM_N,
            Param("H", "matrix", lo=-2, hi=2, shape=("d", "K*n")), Param("W", "matrix", lo=-2, hi=2, shape=("K", "d")),
            Param("s", "rat", lo=0, hi=2, lo_open=False), Param("S", "matrix", lo=-2, hi=2, shape=("d", "d")),
            PARAM_LW, Param("lambda_H", "rat", lo=0, hi=None)),
    lhs=_F.symbol, relation=">=", rhs=_FR.symbol,
    fields=(Field("C", "constant", 1, "the 1 of rho = (1 - c) sqrt(lam_W/lam_H)"),
            Field("e_c", "exponent", R(1, 2), "c = sqrt(lam_W lam_H)"),
            Field("e_1", "exponent", R(1, 2), "the sqrt of sqrt(lam_W/lam_H) in rho"),
            Field("e_2", "exponent", R(1, 2), "the sqrt of sqrt(lam_H/lam_W) in W*"),
            Field("e_h", "exponent", R(1, 2), "the sqrt of H* = sqrt(rho) R (x) 1^T")),
    hypotheses=(Hypothesis("c <= 1", lW * lH <= 1),
                Hypothesis("d >= K", d >= K, implied_by="a partial orthonormal R in R^{d x K} exists only for d >= K: "
                                                        "the domain's sizes (d in {2, 3}, K = 2) are those")),
    computed=(_F, _FR),
    witnesses=(Witness("attained", _minr_att, "(W, H) = (W_R, H_R) itself, rational (rho, kappa squares)"),
               Witness("slack", tuple({**p, "s": 0} for p in _minr_att), "the origin: f = 1/2 > c - c^2/2")),
    budget=24, starts=0, seed=23,
)

# --------------------------------------------------------------------------- N-B-distance
#: the last float point's ``(env, parts)``: both sides' quantities read the same gradient at the same point, so the
#: search's float score (hundreds of thousands of points) computes it once per point
_BDIST_LAST: list = [None, None, None]


def _bdist_parts(env, exact):
    r"""``(H, H_0, kind)``: the stationary point H of (2) (the parameter) and its :math:`H_0 = H + \frac{Kn}\beta
    \nabla\mathcal L(H)`, (8) solved for :math:`H_0` (the package's gradient)."""
    vals = tuple(env.get(x) for x in ("H", "s", "lambda_W", "lambda_H", "beta", "K"))
    if not exact and _BDIST_LAST[0] is env and all(a is b for a, b in zip(_BDIST_LAST[2], vals)):
        return _BDIST_LAST[1]  # the same dict holding the same objects: not a point edited in place
    H, lw, lh, k, kind = _arith(env, exact)
    nn = H.shape[1] // k
    out = H, H + _grad(H, lw, lh, k) * ((k * nn) / _num(env["beta"], kind, exact)), kind
    if not exact:
        _BDIST_LAST[:] = [env, out, vals]
    return out


def _bdist_dist2(env, exact):
    H, H0, kind = _bdist_parts(env, exact)
    return _inner(H - H0, H - H0)


def _bdist_h02(env, exact):
    H, H0, kind = _bdist_parts(env, exact)
    return _inner(H0, H0)


_BD = _computed("dist", _bdist_dist2, r"\|H_{1/\beta} - H_0\|_F", sqrt=True)
_BH0 = _computed("H0_F", _bdist_h02, r"\|H_0\|_F", sqrt=True)
beta = sympy.Symbol("beta")
_nKM = sympy.Symbol("C_W") / lW + sympy.Symbol("C_H") * lH  # n K M, M = (3/lam_W + lam_H)/(Kn) of Lemma B.1
_bdist_edge = {"d": 3, "K": 2, "n": 2, "H": _H1, "lambda_W": R(1, 3), "lambda_H": 0, "beta": R(189, 20)}  # q = 1.05

BDIST = Statement(
    claim="N-B-distance", where="App. B",
    params=(PARAM_D, PARAM_K, PARAM_N, PARAM_H, PARAM_LW, PARAM_LH, Param("beta", "rat", lo=0, hi=None)),
    lhs=_BD.symbol, relation="<=",
    rhs=(beta / _nKM - sympy.Symbol("C_1")) ** sympy.Symbol("e") * _BH0.symbol,
    fields=(Field("C_W", "constant", 3, "the 3 of M = (3/lam_W + lam_H)/(Kn)"),
            Field("C_H", "constant", 1, "the coefficient of lam_H in M"),
            Field("C_1", "constant", 1, "the 1 of beta/(nKM) - 1"),
            Field("e", "exponent", -1, "the inverse (beta/(nKM) - 1)^{-1}")),
    hypotheses=(Hypothesis("beta > nKM", beta > _nKM,
                           outside=({**_bdist_edge, "beta": R(9, 2)},)),  # beta = nKM/2: the bound is negative
                Hypothesis("beta > 0", beta > 0, implied_by="beta > nKM = 3/lambda_W + lambda_H > 0 (the penalty "
                                                            "weight of problem (2) is positive)")),
    computed=(_BD, _BH0),
    witnesses=(Witness("approached", ({"d": 2, "K": 2, "n": 2, "H": _ONE_AXIS, "lambda_W": 100, "lambda_H": 100,
                                       "beta": 10 ** 6},),
                       "collapsed one-axis H, lam_W = lam_H = 100, beta = 10^6: grad L ~ lam_H H/(Kn), ratio ~ 1"),
               Witness("slack", (_bdist_edge,), "a generic H at beta = 1.05 nKM (near the edge beta > nKM)"),
               Witness("attained", ({**_bdist_edge, "H": sympy.zeros(3, 4)},), "H = 0: H_0 = 0, both sides 0")),
    budget=60, starts=4, seed=52,
)


# --------------------------------------------------------------------------- N-B-limit
def _limit_V(env, exact):
    r""":math:`\langle V, \lim_{\beta\to\infty}\beta(H_{1/\beta} - H_0)\rangle` from the definition of (2): with
    :math:`t = 1/\beta`, (2)'s first-order system in H, :math:`t\,\partial_Hf(W, H) + \frac1{Kn}(H - H_0) = 0`, and
    :math:`\partial_Wf = 0` give at t = 0, by the implicit function theorem, :math:`\frac{dH}{dt} = -Kn\,\partial_Hf
    (W^*(H_0), H_0) = -(W^{*\top}(W^*H_0 - Y) + \lambda_HH_0)` (objective (1) differentiated; the penalty's
    :math:`\frac1{Kn}` cancels f's)."""
    H, lw, lh, k, kind = _arith(env, exact)
    nn = H.shape[1] // k
    W = ufm.optimal_W(H, lw, k)
    Y = np.kron(np.eye(k, dtype=int), np.ones((1, nn), dtype=int))
    return _inner(_num(env["V"], kind, exact), -(W.T @ (W @ H - Y) + H * lh))


def _grad7_V(env, exact):
    H, lw, lh, k, kind = _arith(env, exact)
    return _inner(_num(env["V"], kind, exact), _grad(H, lw, lh, k))


_LIM = _computed("lim_V", _limit_V, r"\langle V, \lim_{\beta\to\infty}\beta(H_{1/\beta} - H_0)\rangle")
_G7V = _computed("gradL_V", _grad7_V, r"\langle V, \nabla\mathcal L(H_0)\rangle")

BLIMIT = Statement(
    claim="N-B-limit", where="App. B",
    params=(PARAM_D, PARAM_K, PARAM_N, PARAM_H, _PROBE_V, PARAM_LW, PARAM_LH),
    lhs=_LIM.symbol, relation="=", rhs=-sympy.Symbol("c") * _G7V.symbol,
    fields=(Field("c", "constant", K * n, "the Kn of -Kn grad L(H0)"),),
    computed=(_LIM, _G7V),
    witnesses=(Witness("identity", _eq7_pts, "the limit is -Kn grad L(H0) at every H0, V, lam_W > 0, lam_H >= 0"),),
    budget=16, starts=0, seed=53,
)

# --------------------------------------------------------------------------- N-cor3.1
_COR31_FIELDS = ("C", "e_c", "e_1", "e_2", "e_h")


def _cor31_f2(env, exact):
    r""":math:`f_2(W^* + sA, H^* + sB; H^*)`: objective (2) with :math:`H_0 = H^*` at the collapsed point
    :math:`H^* = \rho^{e_h}R\otimes1_n^\top`, :math:`W^* = \kappa\rho^{e_h}R^\top` of the statement's fields (R the
    3-4-5 frame; :math:`\rho, \kappa` as in ``N-thm2.2``) moved by :math:`s(A, B)`. Exact: sympy radicals (the point is
    irrational for most lambdas), expanded; ``nan`` where the fields give :math:`\rho \le 0` (no real point)."""
    k, nn, dd = int(env["K"]), int(env["n"]), int(env["d"])
    Rm = _R2 if dd == 2 else _R3
    fv = {sympy.Symbol(f): sympy.sympify(env[f]) for f in _COR31_FIELDS} if exact else None
    # sympify, not nsimplify: nsimplify replaces a rational such as 20396/323639 by a nearby power product
    lw, lh, be, sc = (sympy.sympify(env[x]) if exact else float(env[x]) for x in ("lambda_W", "lambda_H", "beta", "s"))
    if exact:
        sub = {lW: lw, lH: lh, **fv}
        rho = _rho.xreplace(sub)
        if not (rho.is_real and rho > 0):
            return sympy.nan
        a = sympy.Pow(rho, fv[sympy.Symbol("e_h")])
        Hs, Ws = a * sympy.kronecker_product(Rm, sympy.ones(1, nn)), _kappa.xreplace(sub) * a * Rm.T
        A, B, Y = sympy.Matrix(env["A"]), sympy.Matrix(env["B"]), sympy.kronecker_product(sympy.eye(k), sympy.ones(1, nn))
        sq = lambda M: sum(x ** 2 for x in M)
    else:  # float64 for the search's score
        f = {x: float(env[x]) for x in _COR31_FIELDS}
        rho = (f["C"] - (lw * lh) ** f["e_c"]) * (lw / lh) ** f["e_1"]
        if not rho > 0:
            return float("nan")
        a = rho ** f["e_h"]
        R_ = _R_FLOAT[dd]
        Hs, Ws = a * np.repeat(R_, nn, axis=1), (lh / lw) ** f["e_2"] * a * R_.T  # repeat: R (x) 1_n^T
        A, B = (np.array(env[x].tolist(), dtype=float) if isinstance(env[x], sympy.MatrixBase)
                else np.asarray(env[x], dtype=float) for x in ("A", "B"))
        Y = np.repeat(np.eye(k), nn, axis=1)
        sq = lambda M: float((np.asarray(M) ** 2).sum())

    def f2(W, H):
        return sq(W * H - Y if exact else W @ H - Y) / (2 * k * nn) + lw * sq(W) / (2 * k) + lh * sq(H) / (2 * k * nn) \
            + be * sq(H - Hs) / (2 * k * nn)

    out = f2(Ws + sc * A, Hs + sc * B)
    return sympy.expand(out) if exact else out


_F2 = Computed("f_2", lambda env: _cor31_f2(env, True), lambda env: _cor31_f2(env, False),
               r"f_2(W^* + sA, H^* + sB; H^*)", reads_fields=True)
_a = _rho ** sympy.Symbol("e_h")  # the scale of H*: sqrt(rho)


def _axis_points(dd, nn, lw, lh):
    r"""The collapsed point moved along its own axes (:math:`A = R^\top`, B = 0 and A = 0, :math:`B = R\otimes1^\top`)
    by :math:`s = \pm1/100`, beta = 1: a wrong scale of :math:`W^*` or :math:`H^*` descends along one of them."""
    Rm = _R2 if dd == 2 else _R3
    zA, zB = sympy.zeros(2, dd), sympy.zeros(dd, 2 * nn)
    return tuple({"d": dd, "K": 2, "n": nn, "A": A, "B": B, "s": sg * R(1, 100), "lambda_W": lw, "lambda_H": lh,
                  "beta": 1} for A, B in ((Rm.T, zB), (zA, sympy.kronecker_product(Rm, sympy.ones(1, nn))))
                 for sg in (1, -1))


_cor31_att = tuple({"d": dd, "K": 2, "n": nn, "A": sympy.zeros(2, dd), "B": sympy.zeros(dd, 2 * nn), "s": 0,
                    "lambda_W": lw, "lambda_H": lh, "beta": R(7, 2)}
                   for dd, nn, lw, lh in ((2, 2, 2, R(1, 32)), (3, 1, R(1, 2), R(1, 8))))

COR31 = Statement(
    claim="N-cor3.1", where="Cor. 3.1",
    params=(Param("d", "int", values=(2, 3)), Param("K", "int", values=(2,)), PARAM_N,
            Param("A", "matrix", lo=-2, hi=2, shape=("K", "d")), Param("B", "matrix", lo=-2, hi=2, shape=("d", "K*n")),
            Param("s", "rat", lo=-1, hi=1, lo_open=False, hi_open=False), PARAM_LW, Param("lambda_H", "rat", lo=0, hi=None),
            Param("beta", "rat", lo=0, hi=None)),
    # f_2(W*, H*; H*) = f(W*, H*) in closed form (W*H* = kappa a^2 Y, |W*|^2 = K kappa^2 a^2, |H*|^2 = K n a^2)
    lhs=_F2.symbol, relation=">=", rhs=(_kappa * _a ** 2 - 1) ** 2 / 2 + (lW * _kappa ** 2 + lH) * _a ** 2 / 2,
    fields=(Field("C", "constant", 1, "the 1 of rho = (1 - c) sqrt(lam_W/lam_H)"),
            Field("e_c", "exponent", R(1, 2), "c = sqrt(lam_W lam_H)"),
            Field("e_1", "exponent", R(1, 2), "the sqrt of sqrt(lam_W/lam_H) in rho"),
            Field("e_2", "exponent", R(1, 2), "the sqrt of W* = sqrt(lam_H/lam_W) ..."),
            Field("e_h", "exponent", R(1, 2), "the sqrt of H* = sqrt(rho) R (x) 1^T")),
    hypotheses=(Hypothesis("c < 1", lW * lH < 1),),
    computed=(_F2,),
    witnesses=(Witness("attained", _cor31_att, "s = 0: (W*, H*) itself, irrational (sqrt 6, sqrt(3/2)), equality"),
               Witness("slack", _axis_points(2, 2, 2, R(1, 32)) + _axis_points(3, 1, R(1, 2), R(1, 8)),
                       "the collapsed point moved along its own axes: f_2 rises")),
    budget=40, starts=8, seed=31,
)

STATEMENTS = (THM22, COR31, DECOMP, WSTAR, LCLOSED, EQ7, LEMA1, THM41W, THM41DT, EQ8, LEMB1, BDIST, BLIMIT, ETF, METRICS,
              MINR)
