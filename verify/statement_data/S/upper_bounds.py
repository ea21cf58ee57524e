r"""Statement objects of paper S's upper bounds (eqs. 11-13, 16, Thms 2.2(2), 3.1, footnotes 3-4, Lemmas A.1-A.3).

The input law and the derived loss are :mod:`verify.statement_data.S._law`'s.

* ``S-eq12`` (eqs. 12-13): odd :math:`\psi` of degree <= 5, :math:`\mathbb E\psi(x)^2 = 1`:
  :math:`|\mathbb E[x\psi(x)]|^{e} \le C p^{e_p}\mu_2^{e_\mu}`, :math:`e = 2`, the rest 1.
* ``S-thm3.1`` (Thm 3.1): :math:`\tilde L(W) \le C_2 p^{e_p} d^{e_d}`, :math:`C_2 = \mu_2, e_p = 1, e_d = m`.
* ``S-lemA.2`` (Lemma A.2), 2 x 2: :math:`A = [[a, b], [b, c]] \succ 0`:
  :math:`b^2/c \le C \|A\|_{op}^{e}`, :math:`C = e = 1`.
* ``S-lemA.3`` (Lemma A.3), x in R, y in R^2 uniform on two points (so :math:`\Sigma` may be singular):
  :math:`C_a\,\mathbb E\langle x, Cy\rangle - \mathbb E\|Cy\|_2^{e} \le K \operatorname{tr}(M\Sigma^+M^T)` for
  every :math:`C \in \mathbb R^{1\times 2}`, :math:`C_a = e = 2, K = 1`; equality at :math:`C = M\Sigma^+` (the
  supremum is attained: the data's "attained" witnesses), so this is the lemma's sup as a for-all bound.
* ``S-eq11`` (eq. 11), :math:`\Sigma = [[a, b], [b, c]] \succ 0`, :math:`M = (m_1, m_2)`:
  :math:`\sum_{i} \|Mu_i\|_2^{e_n}\lambda_i^{e_\lambda} = K\operatorname{tr}(M\Sigma^+M^T)`,
  :math:`e_n = 2, e_\lambda = -1, K = 1`; the eigenpairs in closed form (radicals, decided exactly).
* ``S-fn3`` (footnote 3 (ii)), d = 2, n = 3, x supported on S = {1, 2}, :math:`\phi(u) = u^m`:
  :math:`\langle x, \phi(W^TWx)\rangle - K_L\|\phi(W^TWx)\|^{e_L} \le \langle x_S, \phi(W_S^TW_Sx_S)\rangle
  - K_R\|\phi(W_S^TW_Sx_S)\|^{e_R}`, :math:`K_L = K_R = 1, e_L = e_R = 2` (each side's norm typed as the paper
  prints it).
* ``S-fn4`` (footnote 4), W of rank d: :math:`\Pi = P^TP = W^T(WW^T)^{-1}W` (P's rows span W's), and
  :math:`\|W\Pi - KW\|_F^2 + \|\Pi^2 - \Pi\|_F^2 + (\operatorname{tr}\Pi - K_r d)^2 = 0`, :math:`K = K_r = 1`:
  W = W'P with W' = WP^T, and :math:`\Pi` an orthogonal projection of rank d; the first norm expanded as
  :math:`\|W\Pi\|^2 - 2K\langle W\Pi, W\rangle + K^2\|W\|^2`, every quantity exact (rationals).
* ``S-eq16`` (eq. 15-16), no sparsity (p = 1), :math:`\xi \sim N(0, s)`, n = 3 > d: :math:`\tilde L(W) \le
  C\,\mathbb E\|\mathbb E[x|Px]\|_2^{e}`, :math:`C = 1, e = 2`, where :math:`\mathbb E[x|Px] = P^TPx` and
  :math:`\|Px\|` is :math:`\sqrt s` times a chi variable with d degrees of freedom:
  :math:`\mathbb E\|Px\|^{e} = (2s)^{e/2}\Gamma((d+e)/2)/\Gamma(d/2)`.
* ``S-thm2.2-2`` (Thm 2.2(2)), i.i.d. :math:`\xi_i \sim N(0, s)` (density :math:`\propto e^{-v}`,
  :math:`v'' = 1/s`), Bernoulli(p) masks: for every :math:`K > 1` with :math:`v'' \in [K^{-1}, K]`,
  :math:`\tilde L(W) \le (K^{e_P} + K^{e_L})\, d^{e_d}`, :math:`e_P = 1` (Poincare, :math:`\mathbb E y_i^2 \le K`),
  :math:`e_L = 3` (the K-Lipschitz step), :math:`e_d = 1`: :math:`C_3 = K + K^3` from the proof. n = 4: the
  supremum over W only grows with n (a zero column adds nothing), so a point at n = 4 is a point at every n > d^m;
  K in [1, 2]: the bound is continuous in K, so the theorem for every K > 1 gives its limit 2d at K = 1 (N(0, 1)).
* ``S-lemA.1`` (Lemma A.1), Gibbs families with closed forms: ``fam`` 0, :math:`V = x^2/(2v) - sx`
  (:math:`\mu_s = N(sv, v)`); ``fam`` 1, :math:`V = s x^2/(2v)` (:math:`\mu_s = N(0, v/s)`); :math:`f = x^k`:
  :math:`\frac{d}{ds}\mathbb E_{\mu_s} f = C\,\mathrm{Cov}_{\mu_s}(f, \partial_s V)`, :math:`C = -1`; the
  derivative by sympy from the Gaussian moments, the covariance from the moments at s.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy
from sympy import Rational as R

from ...statements import Computed, Field, Hypothesis, Param, Statement, Witness
from ._law import (
                  LTILDE_W,
                  PARAM_P,
                  PARAM_S,
                  PARAM_W,
                  PARAMS_DN,
                  PROJECTIONS,
                  ZERO_W,
                  C,
                  a,
                  b,
                  c,
                  d,
                  e,
                  ed,
                  emu,
                  ep,
                  m,
                  mu,
                  p,
)

c1, c3, c5 = sympy.symbols("c_1 c_3 c_5")
_cs = (c1, c3, c5)
_exps = sympy.Integer(0) + sum(cj * mu(2 * j + 2) for j, cj in enumerate(_cs))  # E[xi psi(xi)]
_epsi2 = sum(ci * cj * mu(2 * i + 2 * j + 2) for i, ci in enumerate(_cs) for j, cj in enumerate(_cs))
_eq12_att = tuple({"p": pp, "s": ss, "c_1": k, "c_3": 0, "c_5": 0}
                  for pp, ss, k in ((R(1, 2), R(3), 1), (R(1), R(1, 5), R(2)), (R(1, 10), R(1, 10), R(-1)),
                                    (R(1), R(4), 1)))
EQ12 = Statement(
    claim="S-eq12", where="eq. (12)-(13)",
    params=(PARAM_P, PARAM_S, *(Param(str(x), "rat", lo=-2, hi=2) for x in _cs)),
    # |E x psi|^e with psi normalised: (p E[xi psi])^e / (p E[psi^2])^(e/2)
    lhs=sympy.Abs(p * _exps) ** e / (p * _epsi2) ** (e / 2), relation="<=", rhs=C * p ** ep * mu(2) ** emu,
    fields=(Field("e", "exponent", 2, "the square of |E[x psi(x)]|^2"), Field("C", "constant", 1),
            Field("e_p", "exponent", 1), Field("e_mu", "exponent", 1)),
    hypotheses=(Hypothesis("psi != 0", _epsi2 > 0, implied_by="psi = 0 has E psi^2 = 0, outside the normalisation"),),
    witnesses=(Witness("attained", _eq12_att, "psi linear: Cauchy-Schwarz is an equality"),
               Witness("slack", ({"p": R(1, 2), "s": R(1), "c_1": 0, "c_3": 1, "c_5": 0},),
                       "psi = x^3 / sqrt(E x^6): |E x psi|^2 = (3/5) p mu_2")),
    budget=40, starts=3, seed=12,
)

THM31 = Statement(
    claim="S-thm3.1", where="Thm 3.1, Thm 2.2(1)",
    params=(Param("m", "int", values=(1, 3)), *PARAMS_DN, PARAM_P, PARAM_S, PARAM_W),
    lhs=LTILDE_W.symbol, relation="<=", rhs=sympy.Symbol("C_2") * p ** ep * d ** ed,
    fields=(Field("C_2", "constant", mu(2), "C_2 = mu_2, the proof's constant"), Field("e_p", "exponent", 1),
            Field("e_d", "exponent", m)),
    computed=(LTILDE_W,),
    witnesses=(Witness("attained", PROJECTIONS, "m = 1: rank-d projections attain mu_2 p d^m"),
               Witness("slack", ZERO_W, "W = 0: Ltilde = 0")),
    budget=40, starts=3, seed=31,
)

_lema2_att = tuple({"a": sc, "c": sc * eps ** 2, "b": sc * eps * (1 - eps)}
                   for eps in (R(1, 10), R(1, 100), R(1, 10000)) for sc in (R(1, 100), R(1), R(100)))
_lam = (a + c) / 2 + sympy.sqrt(((a - c) / 2) ** 2 + b ** 2)
LEMA2 = Statement(
    claim="S-lemA.2", where="Lemma A.2",
    params=(Param("a", "rat", lo=-4, hi=4), Param("b", "rat", lo=-4, hi=4), Param("c", "rat", lo=-4, hi=4)),
    lhs=b ** 2 / c, relation="<=", rhs=C * _lam ** e,
    fields=(Field("C", "constant", 1), Field("e", "exponent", 1, "||A||_op to the power 1")),
    hypotheses=(Hypothesis("A22 > 0", c > 0, implied_by="a > 0 and ac - b^2 > 0 force c > 0"),
                Hypothesis("A11 > 0", a > 0, implied_by="c > 0 and ac - b^2 > 0 force a > 0"),
                Hypothesis("det A > 0", a * c - b ** 2 > 0,
                           outside=({"a": 1, "b": 10, "c": 1},)),),  # indefinite: 100 > 11
    witnesses=(Witness("approached", _lema2_att, "a = sc, c = sc eps^2, b = sc eps (1 - eps): the ratio tends to 1"),
               Witness("slack", ({"a": 1, "b": 0, "c": 1},), "b = 0: the left side is 0")),
    strict_holds="A11 - A12 A22^-1 A21 > 0 (Schur complement) gives ||A12 A22^-1 A21|| < ||A11|| <= ||A||",
    budget=60, starts=4, seed=2,
)

# --------------------------------------------------------------------------- Lemma A.3
# x in R and y in R^2 uniform on two sample points (x_k, y_k), k = 1, 2; C = (c_1, c_2)
_x = sympy.symbols("x_1 x_2")
_y = ((sympy.Symbol("y_11"), sympy.Symbol("y_21")), (sympy.Symbol("y_12"), sympy.Symbol("y_22")))  # _y[k] = y_k
_c = sympy.symbols("c_1 c_2")
Ca_, K_ = sympy.symbols("C_a K")


def _moments(env):
    """(M, Sigma) = (E[x y^T], E[y y^T]) of the two-point law at ``env``, exact sympy matrices."""
    ys = [sympy.Matrix([env[str(v)] for v in yk]) for yk in _y]
    Sigma = sum((yk * yk.T for yk in ys), sympy.zeros(2, 2)) / 2
    M = sum((env[str(xk)] * yk.T for xk, yk in zip(_x, ys)), sympy.zeros(1, 2)) / 2
    return M, Sigma


def _trace_pinv(env):
    r""":math:`\operatorname{tr}(M\Sigma^+M^T)`, exactly: :math:`\Sigma^{-1}` by sympy's rational inverse where
    :math:`\Sigma` is invertible (the search's points, fast), sympy's Moore-Penrose pseudoinverse where it is not."""
    M, Sigma = _moments(env)
    inv = Sigma.inv() if Sigma.det() != 0 else Sigma.pinv()
    return sympy.nsimplify((M * inv * M.T)[0, 0])


def _trace_pinv_float(env):
    """The same in float64 (numpy's pinv): the search's score, called thousands of times."""
    ys = np.array([[float(env[str(v)]) for v in yk] for yk in _y])      # rows y_k
    xs = np.array([float(env[str(v)]) for v in _x])
    Sigma, M = ys.T @ ys / 2, (xs @ ys)[None, :] / 2
    return float((M @ np.linalg.pinv(Sigma) @ M.T)[0, 0])


TRACE_PINV = Computed("T", _trace_pinv, _trace_pinv_float, r"\operatorname{tr}(M\Sigma^+M^T)")
_u = [sum(ci * yi for ci, yi in zip(_c, yk)) for yk in _y]  # C y_k
_lema3_lin = sum(xk * uk for xk, uk in zip(_x, _u)) / 2     # E <x, C y>
_lema3_sq = sum((uk ** 2) ** (e / 2) for uk in _u) / 2      # E ||C y||_2^e


def _lema3_at(xs, ys, scale=1):
    """The data's point (x_k, y_k) with C = scale * M Sigma^+ (scale 1: the maximiser, where the bound is attained)."""
    env = {str(v): sympy.nsimplify(val) for v, val in zip(_x, xs)}
    env.update({str(v): sympy.nsimplify(val) for yk, vals in zip(_y, ys) for v, val in zip(yk, vals)})
    M, Sigma = _moments(env)
    Cs = M * Sigma.pinv() * scale
    env.update({"c_1": Cs[0, 0], "c_2": Cs[0, 1]})
    return env


# T > 1 (|C*y| < sqrt(T) < T: refutes e - 1), T < 1 with |C*y| < 1 (refutes e + 1), a singular Sigma (y_2 = -y_1 / 2)
_lema3_data = (((3, -2), ((1, R(1, 2)), (R(-1, 2), 2))), ((R(1, 5), R(-1, 10)), ((R(1, 2), 1), (1, R(-1, 3)))),
               ((2, 1), ((1, 2), (R(-1, 2), -1))))
LEMA3 = Statement(
    claim="S-lemA.3", where="Lemma A.3",
    params=tuple(Param(str(v), "rat", lo=-2, hi=2) for v in (*_x, *_y[0], *_y[1], *_c)),
    lhs=Ca_ * _lema3_lin - _lema3_sq, relation="<=", rhs=K_ * TRACE_PINV.symbol,
    fields=(Field("C_a", "constant", 2, "the 2 of 2 E<x, Cy>"), Field("e", "exponent", 2, "the square of E||Cy||_2^2"),
            Field("K", "constant", 1, "the trace's coefficient 1")),
    computed=(TRACE_PINV,),
    witnesses=(Witness("attained", tuple(_lema3_at(xs, ys) for xs, ys in _lema3_data),
                       "C = M Sigma^+: the supremum is attained (completed square)"),
               Witness("slack", tuple(_lema3_at(xs, ys, 0) for xs, ys in _lema3_data[:1]),
                       "C = 0: the left side is 0")),
    budget=60, starts=4, seed=3,
)


# --------------------------------------------------------------------------- eq. (11)
m1_, m2_ = sympy.symbols("m_1 m_2")
en_, el_ = sympy.symbols("e_n e_lambda")
_D = sympy.sqrt(((a - c) / 2) ** 2 + b ** 2)
_lams = ((a + c) / 2 + _D, (a + c) / 2 - _D)
_Sig = sympy.Matrix([[a, b], [b, c]])
_Mv = sympy.Matrix([[m1_, m2_]])
_MSM, _MM = (_Mv * _Sig * _Mv.T)[0, 0], (_Mv * _Mv.T)[0, 0]
# ||M u_i||^2 = M P_i M^T with the spectral projector P_i = (Sigma - lambda_j I) / (lambda_i - lambda_j)
_Mu2 = tuple((_MSM - lj * _MM) / (li - lj) for li, lj in (_lams, _lams[::-1]))
_eq11_trace = sympy.factor((_Mv * _Sig.inv() * _Mv.T)[0, 0])  # Sigma^+ = Sigma^-1 for Sigma > 0
_eq11_pts = tuple({"a": x, "b": y, "c": z, "m_1": u, "m_2": v} for x, y, z, u, v in
                  ((2, R(1, 2), R(1, 3), 1, R(-3, 2)), (5, -1, 1, R(1, 2), 2), (R(1, 10), R(1, 20), R(1, 5), 3, 1)))
EQ11 = Statement(
    claim="S-eq11", where="eq. (11)",
    params=(Param("a", "rat", lo=0, hi=4), Param("b", "rat", lo=-4, hi=4), Param("c", "rat", lo=0, hi=4),
            Param("m_1", "rat", lo=-3, hi=3), Param("m_2", "rat", lo=-3, hi=3)),
    lhs=sum((g ** (en_ / 2)) * lam ** el_ for g, lam in zip(_Mu2, _lams)), relation="=", rhs=K_ * _eq11_trace,
    fields=(Field("e_n", "exponent", 2, "the square of ||M u_i||_2^2"),
            Field("e_lambda", "exponent", -1, "the 1 / lambda_i"), Field("K", "constant", 1, "the trace's 1")),
    hypotheses=(Hypothesis("Sigma > 0", sympy.And(a > 0, a * c - b ** 2 > 0),
                           not_needed="Sigma^-1 = sum_i u_i u_i^T / lambda_i for every invertible symmetric Sigma"),),
    witnesses=(Witness("identity", _eq11_pts, "an identity for every Sigma > 0 and M"),),
    budget=16, starts=0, seed=11,
)


# --------------------------------------------------------------------------- footnote 3 (ii)
_W = sympy.Matrix(2, 3, lambda i, j: sympy.Symbol(f"w_{i + 1}{j + 1}"))
_xs = sympy.Matrix([sympy.Symbol("x_1"), sympy.Symbol("x_2"), 0])  # x supported on S = {1, 2}
_phi = (_W.T * _W * _xs).applyfunc(lambda u: u ** m)               # phi(W^T W x), phi(u) = u^m
_phiS = (_W[:, :2].T * _W[:, :2] * _xs[:2, :]).applyfunc(lambda u: u ** m)
KL, KR, eL, eR = sympy.symbols("K_L K_R e_L e_R")


def _fn3_pt(mm, sig, x1, x2, off=(0, 0), w12=0):
    """W = [sig e_1, sig e_2 + w12 e_1, off]: off = 0 makes the third column orthogonal to W_S x_S (equality)."""
    w = [[sig, w12, off[0]], [0, sig, off[1]]]
    env = {f"w_{i + 1}{j + 1}": sympy.nsimplify(w[i][j]) for i in range(2) for j in range(3)}
    return {"m": mm, **env, "x_1": sympy.nsimplify(x1), "x_2": sympy.nsimplify(x2)}


FN3 = Statement(
    claim="S-fn3", where="footnote 3 (ii)",
    params=(Param("m", "int", values=(1, 3)), *(Param(str(w), "rat", lo=-2, hi=2) for w in _W),
            Param("x_1", "rat", lo=-2, hi=2), Param("x_2", "rat", lo=-2, hi=2)),
    lhs=(_xs.T * _phi)[0, 0] - KL * ((_phi.T * _phi)[0, 0]) ** (eL / 2), relation="<=",
    rhs=(_xs[:2, :].T * _phiS)[0, 0] - KR * ((_phiS.T * _phiS)[0, 0]) ** (eR / 2),
    fields=(Field("K_L", "constant", 1, "the 1 of -||phi(W^T W x)||^2"),
            Field("e_L", "exponent", 2, "the square of ||phi(W^T W x)||^2"),
            Field("K_R", "constant", 1, "the 1 of -||phi(W_S^T W_S x_S)||^2"),
            Field("e_R", "exponent", 2, "the square of ||phi(W_S^T W_S x_S)||^2")),
    witnesses=(Witness("attained", (_fn3_pt(1, 1, 2, R(-3, 2)), _fn3_pt(3, 1, 2, R(-3, 2)),
                                    _fn3_pt(1, R(1, 2), R(1, 2), R(1, 3)), _fn3_pt(3, 1, R(1, 2), R(-1, 3)),
                                    _fn3_pt(3, 1, 1, -2, w12=1), _fn3_pt(1, 1, -3, 1, w12=1)),
                       "the column off S orthogonal to W_S x_S: both sides equal (|phi_S| > 1 and < 1; "
                       "x_1 phi_1 < 0 and x_2 phi_2 < 0 where the columns on S interact)"),
               Witness("slack", (_fn3_pt(1, 1, 1, 1, (1, 0)), _fn3_pt(3, 1, 1, 1, (1, 0))),
                       "W = [e_1, e_2, e_1], x = (1, 1, 0): the off-support term is 1")),
    budget=40, starts=3, seed=13,
)


# --------------------------------------------------------------------------- footnote 4
def _fn4_parts(env, exact=True):
    r"""(||W Pi||^2, <W Pi, W>, ||W||^2, ||Pi^2 - Pi||^2, tr Pi) for :math:`\Pi = W^T(WW^T)^{-1}W`; a W of rank < d
    is outside the statement (ZeroDivisionError)."""
    W = env["W"]
    if exact:
        G = W * W.T
        if G.det() == 0:
            raise ZeroDivisionError("W has rank < d")
        Pi = W.T * G.inv() * W
        WP = W * Pi
        def dot(X, Y):  # Frobenius inner product
            return sum(X.multiply_elementwise(Y))

        return dot(WP, WP), dot(WP, W), dot(W, W), dot(Pi * Pi - Pi, Pi * Pi - Pi), Pi.trace()
    W = np.array(W, dtype=float)
    Pi = W.T @ np.linalg.solve(W @ W.T, W)
    WP = W @ Pi
    return (float((WP * WP).sum()), float((WP * W).sum()), float((W * W).sum()), float(((Pi @ Pi - Pi) ** 2).sum()),
            float(np.trace(Pi)))


FN4_PARTS = tuple(Computed(name, lambda e, k=k: sympy.nsimplify(_fn4_parts(e)[k]),
                           lambda e, k=k: _fn4_parts(e, exact=False)[k], tex)
                  for k, (name, tex) in enumerate((("a", r"\|W\Pi\|_F^2"), ("b", r"\langle W\Pi, W\rangle"),
                                                   ("c", r"\|W\|_F^2"), ("h", r"\|\Pi^2 - \Pi\|_F^2"),
                                                   ("t", r"\operatorname{tr}\Pi"))))
_a, _b, _cc, _h, _t = (x.symbol for x in FN4_PARTS)
Kr_ = sympy.Symbol("K_r")
_fn4_pts = tuple({"d": len(rows), "n": len(rows[0]), "W": sympy.Matrix(rows)} for rows in
                 ([[1, 2, 0], [0, 1, -1]], [[2, -1, 1, R(1, 2)]], [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, R(1, 3)]],
                  [[R(1, 2), R(-3, 2), 2], [R(5, 3), 0, R(1, 7)]]))
FN4 = Statement(
    claim="S-fn4", where="footnote 4",
    params=(Param("d", "int", values=(1, 2, 3)), Param("n", "int", values=(3, 4)), PARAM_W),
    lhs=_a - 2 * K_ * _b + K_ ** 2 * _cc + _h + (_t - Kr_ * d) ** 2, relation="=", rhs=sympy.Integer(0),
    fields=(Field("K", "constant", 1, "W = W'P: W restricted to P's row space is W itself"),
            Field("K_r", "constant", 1, "P of rank d: P P^T = I_d, tr P^T P = d")),
    computed=FN4_PARTS,
    witnesses=(Witness("identity", _fn4_pts, "an identity for every W of rank d"),),
    budget=16, starts=0, seed=4,
)


# --------------------------------------------------------------------------- eq. (15)-(16)
def _proj_pt(dd, ss, sc=1):
    return {"m": 1, "d": dd, "n": 3, "p": sympy.Integer(1), "s": ss,
            "W": sympy.Matrix(dd, 3, lambda i, j: sc if i == j else 0)}


Ce_ = sympy.Symbol("C")
EQ16 = Statement(
    claim="S-eq16", where="eq. (15)-(16)",
    params=(Param("m", "int", values=(1, 3)), Param("d", "int", values=(1, 2)), Param("n", "int", values=(3,)),
            Param("p", "int", values=(1,)), PARAM_S, PARAM_W),
    lhs=LTILDE_W.symbol, relation="<=",
    rhs=Ce_ * (2 * sympy.Symbol("s")) ** (e / 2) * sympy.gamma((d + e) / 2) / sympy.gamma(d / 2),
    fields=(Field("C", "constant", 1, "the bound's coefficient 1"),
            Field("e", "exponent", 2, "the square of E||E[x|Px]||_2^2")),
    computed=(LTILDE_W,),
    witnesses=(Witness("attained", tuple(_proj_pt(dd, ss) for dd in (1, 2) for ss in (R(3), R(1, 10), R(1, 2))),
                       "m = 1, W a rank-d coordinate projection: Ltilde = s d = E||P x||^2"),
               Witness("slack", (_proj_pt(2, R(2), 0),), "W = 0: Ltilde = 0")),
    budget=30, starts=2, seed=16,
)


# --------------------------------------------------------------------------- Thm 2.2(2)
K3, eP, eL = sympy.symbols("K e_P e_L")
_s = sympy.Symbol("s")


def _thm22_pt(dd, ss, kk, pp=1, sc=1, mm=1):
    return {"m": mm, "d": dd, "n": 4, "p": sympy.nsimplify(pp), "s": sympy.nsimplify(ss), "K": sympy.nsimplify(kk),
            "W": sympy.Matrix(dd, 4, lambda i, j: sc if i == j else 0)}


THM22_2 = Statement(
    claim="S-thm2.2-2", where="Thm 2.2(2)",
    params=(Param("m", "int", values=(1, 3)), Param("d", "int", values=(1, 2, 3)), Param("n", "int", values=(4,)),
            PARAM_P, PARAM_S, Param("K", "rat", lo=1, hi=2, lo_open=False, hi_open=False), PARAM_W),
    lhs=LTILDE_W.symbol, relation="<=", rhs=(K3 ** eP + K3 ** eL) * d ** ed,
    fields=(Field("e_P", "exponent", 1, "K of the Poincare step E y_i^2 <= K"),
            Field("e_L", "exponent", 3, "K^3 = K^2 (Lipschitz) times K (Poincare)"),
            Field("e_d", "exponent", 1, "C_3 d")),
    hypotheses=(Hypothesis("v'' in [1/K, K]", sympy.And(_s <= K3, _s * K3 >= 1),
                           outside=(_thm22_pt(1, 20, 2),)),),  # s = 20 > K: Ltilde = 20 > K + K^3 = 10
    computed=(LTILDE_W,),
    witnesses=(Witness("slack", (_thm22_pt(3, 1, R(11, 10)), _thm22_pt(2, R(5, 4), R(5, 4))),
                       "m = 1, p = 1, a coordinate projection: Ltilde = s d, below (K + K^3) d"),
               Witness("slack", (_thm22_pt(2, R(1, 2), 2, R(1, 3), 0),), "W = 0: Ltilde = 0")),
    strict_holds="Ltilde <= E|E[x|Px]|^2 <= s d <= K d < (K + K^3) d (eq. 16 and the Gaussian energy)",
    budget=80, starts=6, seed=22,
)


# --------------------------------------------------------------------------- Lemma A.1
_xg, _sg = sympy.symbols("x s_", real=True)


def _gibbs(fam, vv):
    """(V(x, s), mean(s), variance(s)) of the closed-form Gibbs family ``fam`` with scale ``vv``."""
    if fam == 0:
        return _xg ** 2 / (2 * vv) - _sg * _xg, _sg * vv, vv
    return _sg * _xg ** 2 / (2 * vv), sympy.Integer(0), vv / _sg


def _gauss_mean(poly, mean, var):
    r""":math:`\mathbb E\,\mathrm{poly}(X)`, :math:`X \sim N(\mathrm{mean}, \mathrm{var})`: X = mean + sqrt(var) Z
    and :math:`\mathbb E Z^j = (j-1)!!` for even j, 0 for odd j."""
    z = sympy.Symbol("z_")
    pz = sympy.Poly(sympy.expand(poly.subs(_xg, mean + sympy.sqrt(var) * z)), z)
    return sympy.expand(sum(cf * (sympy.factorial2(j - 1) if j % 2 == 0 else 0) for (j,), cf in pz.terms()))


@lru_cache(maxsize=None)
def _lema1_parts(fam, k, vv):
    V, mean, var = _gibbs(fam, vv)
    f = _xg ** k
    dEf = sympy.diff(_gauss_mean(f, mean, var), _sg)
    g = sympy.diff(V, _sg)
    cov = _gauss_mean(sympy.expand(f * g), mean, var) - _gauss_mean(f, mean, var) * _gauss_mean(g, mean, var)
    return dEf, cov


def _lema1(env, which):
    parts = _lema1_parts(int(env["fam"]), int(env["k"]), sympy.nsimplify(env["v"]))
    return sympy.nsimplify(sympy.simplify(parts[which].subs(_sg, sympy.nsimplify(env["s"]))))


DEF = Computed("dEf", lambda e: _lema1(e, 0), lambda e: float(_lema1(e, 0)), r"\frac{d}{ds}\mathbb E_{\mu_s} f")
COV = Computed("Cov", lambda e: _lema1(e, 1), lambda e: float(_lema1(e, 1)),
               r"\mathrm{Cov}_{\mu_s}(f, \partial_s V)")
_lema1_pts = tuple({"fam": fa, "k": kk, "s": ss, "v": vv} for fa, kk, ss, vv in
                   ((0, 1, R(1, 2), R(2)), (0, 3, R(3, 2), R(1, 3)), (1, 2, R(1, 3), R(5)), (1, 4, R(2), R(1, 2))))
LEMA1 = Statement(
    claim="S-lemA.1", where="Lemma A.1",
    params=(Param("fam", "int", values=(0, 1)), Param("k", "int", values=(1, 2, 3, 4)),
            Param("s", "rat", lo=0, hi=3, hi_open=False), Param("v", "rat", lo=0, hi=3, hi_open=False)),
    lhs=DEF.symbol, relation="=", rhs=Ce_ * COV.symbol,
    fields=(Field("C", "constant", -1, "the minus sign of -Cov"),),
    computed=(DEF, COV),
    witnesses=(Witness("identity", _lema1_pts, "an identity for every member of the families"),),
    budget=16, starts=0, seed=1,
)

STATEMENTS = (LEMA3, EQ11, EQ12, THM31, FN3, FN4, EQ16, LEMA1, LEMA2, THM22_2)
