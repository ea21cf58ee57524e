r"""Statement objects of paper N's perturbation matrix F (App. C, Lemmas C.3-C.4, the proof of Thm C.2, App. D).

* ``N-C-derivs`` (App. C): (11) and the Hessian blocks, contracted with fixed rational directions
  :math:`V_H, V_W`, equal ``sympy.diff`` of f written entrywise: :math:`\langle V_H,\nabla_Hf\rangle =
  (Kn)^{e_{Kn}}(\langle V_H, W^\top(WH-Y)\rangle + C_H\lambda_H\langle V_H,H\rangle + C_b\beta\langle V_H,H-H_0\rangle)`,
  ..., :math:`e_{Kn} = e_K = -1`, :math:`C_H = C_b = C_W = 1` (the lambda_W/K of :math:`\nabla_W f` is
  :math:`C_W\lambda_W K^{e_K}`).
* ``N-lemC.3`` (Lemma C.3): :math:`0 \preceq B \prec A \Rightarrow \|A^{-1/2}BA^{-1/2}\|_{op} \le C`, :math:`C = 1`,
  on 2 x 2 symmetric matrices; the norm is :math:`\max|\lambda|` over the roots of
  :math:`\det(B - \lambda A) = 0`, in closed form.
* ``N-lemC.4`` (Lemma C.4): the four bounds (13)-(16) at once, :math:`\max_b(N_b - \mathrm{bound}_b) \le 0`,
  bounds :math:`C_{13}, C_{14}, C_{15}(Kn)^{e_{15}}, C_{16}(Kn)^{e_{16}}` (1, 1, :math:`\sqrt{Kn}`, :math:`\sqrt{Kn}`),
  for H in :math:`\mathbb R^{2\times 4}` (K = n = 2) given by its class means and deviations; each norm a largest
  generalised eigenvalue in closed form (algebraic numbers, decided by Arb balls).
* ``N-C2-derivative`` (proof of Thm C.2): the ten-term expression of :math:`\frac{d}{dt}\nabla\mathcal L(H_t)`
  (prefactor :math:`K^{e_K}n^{e_n}`, inner :math:`(Kn)^{e_{Kn}}`, last term :math:`C_H\lambda_HK^{e_{KH}}\Delta H`)
  contracted with a fixed direction equals the mixed second derivative of :math:`\mathcal L` from its definition
  (exact: FLINT power series over Q).
* ``N-D-sigmas`` (App. D): :math:`\sigma_{\bar H}^2 \sigma_W^2 = (C - \sqrt{\lambda_W\lambda_H})^e`,
  :math:`C = 1`, :math:`e = 2`, with :math:`\sigma_{\bar H}^2 = \sqrt{\lambda_W/\lambda_H} - \lambda_W`,
  :math:`\sigma_W^2 = \sqrt{\lambda_H/\lambda_W} - \lambda_H`.
* ``N-D-residual`` (App. D): :math:`W^*H^* - Y = -C c\,Y`, :math:`c = (\lambda_H\lambda_W)^e`, :math:`C = 1`,
  :math:`e = 1/2`, as :math:`\|W^*H^* - Y + CcY\|_F^2 = 0` at the package's collapsed minimiser.
* ``N-D-commutation`` (App. D, (17)): :math:`E^{*\top} = K_{d,K}(-Cc\,I_K \otimes 1_n^\top \otimes I_d)`, as a
  Frobenius identity of the package's E and commutation matrix.
* ``N-D-Z-blocks`` (App. D, (18)): five forms of the blocks of :math:`Z^*` (from its definition) against (18),
  fields the 2 of :math:`2c(1-c)`, the squares of :math:`c^2, (1-c)^2` and the :math:`1/n` of
  :math:`\frac1n 1_n1_n^\top`.
* ``N-D-mu-lambda`` (App. D, (19)-(20)): :math:`\lambda_i, \mu_i` (quotients of the derived :math:`F_{kk}`) against
  (19), (20) and :math:`\mu_k, \mu_i, \mu_j`.
* ``N-D-eig`` (App. D, (21)): the share of the derived eigenvalues of :math:`F_{kk}` equal to 1 is
  :math:`(C - K/d)\,n^{e_n}`, :math:`C = 1`, :math:`e_n = -1`.
* ``N-D.1-full-F`` (App. D.1, "a stretched version of the spectrum of the diagonal blocks"): the derived spectrum
  of the whole F is K copies of that of :math:`F_{kk}` but for :math:`C K^{e_1}(K-1)^{e_2}` eigenvalues (one per
  rank-one inter-class block), :math:`C = e_1 = e_2 = 1`.

* ``N-fig1`` (Figure 1): at the figure's setting (:math:`\beta = 100`, K = 4, d = 10, n = 10,
  :math:`\lambda_W = \sqrt2`, exact) and :math:`\lambda_H \in (0, 7/10]`, the plotted curves (the derived spectrum of
  :math:`F_{kk}`) have top :math:`C_{top} = 1`, floor :math:`C_1 - C_r(\lambda_H/\lambda_W)^{e_r}/\beta` (1, 1, 1/2)
  and L = 5 steps; the spectrum is derived once per process (charpoly at d n = 100: about 45 s).

App. D's statements take :math:`p = \sqrt{\lambda_H}`, :math:`q = \sqrt{\lambda_W}` as parameters (below), so that
every point is exact rationals.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy
from flint import ctx, fmpq, fmpq_series
from sympy import Rational as R

from ...statements import Computed, Field, Hypothesis, Param, Statement, Witness

a11, a12, a22, b11, b12, b22 = sympy.symbols("a11 a12 a22 b11 b12 b22")
_alpha = a11 * a22 - a12 ** 2
_beta = a11 * b22 + a22 * b11 - 2 * a12 * b12
_gamma = b11 * b22 - b12 ** 2
_disc = sympy.sqrt(_beta ** 2 - 4 * _alpha * _gamma)
#: :math:`\|A^{-1/2} B A^{-1/2}\|_{op}`: the largest |root| of det(B - lam A) = alpha lam^2 - beta lam + gamma
_gen_norm = sympy.Max(sympy.Abs((_beta + _disc) / (2 * _alpha)), sympy.Abs((_beta - _disc) / (2 * _alpha)))


def _ab(A, B):
    return {"a11": A[0], "a12": A[1], "a22": A[2], "b11": B[0], "b12": B[1], "b22": B[2]}


_lemc3_approach = tuple(_ab((s, 0, 2 * s), tuple(x * (1 - e) for x in (s, 0, 2 * s)))
                        for e in (R(1, 4), R(1, 20), R(1, 1000)) for s in (R(1, 10), R(3))) + \
    tuple(_ab((2, 1, 3), tuple(x * (1 - e) for x in (2, 1, 3))) for e in (R(1, 20), R(1, 1000)))

LEMC3 = Statement(
    claim="N-lemC.3", where="Lemma C.3",
    params=tuple(Param(n, "rat", lo=-4, hi=4) for n in ("a11", "a12", "a22", "b11", "b12", "b22")),
    lhs=_gen_norm, relation="<=", rhs=sympy.Symbol("C"),
    fields=(Field("C", "constant", 1, "the bound 1 of Lemma C.3"),),
    hypotheses=(
        Hypothesis("B positive semidefinite", sympy.And(b11 >= 0, b22 >= 0, _gamma >= 0),
                   outside=(_ab((1, 0, 1), (-2, 0, -2)),)),  # B = -2A < A: the norm is 2
        Hypothesis("A - B positive definite", sympy.And(a11 - b11 > 0, (a11 - b11) * (a22 - b22) - (a12 - b12) ** 2 > 0),
                   outside=(_ab((1, 0, 1), (2, 0, 2)),)),  # B = 2A: the norm is 2
        Hypothesis("A positive definite", sympy.And(a11 > 0, _alpha > 0),
                   implied_by="B >= 0 and A - B > 0 give A = B + (A - B) > 0"),
    ),
    witnesses=(Witness("approached", _lemc3_approach, "B = (1 - eps) A: the norm is 1 - eps"),
               Witness("slack", (_ab((1, 0, 1), (0, 0, 0)),), "B = 0: the norm is 0")),
    strict_holds="A - B > 0 gives B <= (1 - delta) A for some delta > 0, so the norm is at most 1 - delta < 1",
    budget=80, starts=4, seed=3,
)

lW, lH = sympy.symbols("lambda_W lambda_H")
_c = sympy.sqrt(lW * lH)
_sig_H = sympy.sqrt(lW / lH) - lW
_sig_W = sympy.sqrt(lH / lW) - lH
_pts = tuple({"lambda_W": x, "lambda_H": y} for x, y in ((R(1, 2), R(1, 8)), (R(2), R(1, 3)), (R(1, 10), R(5))))

DSIGMAS = Statement(
    claim="N-D-sigmas", where="App. D",
    params=(Param("lambda_W", "rat", lo=0, hi=None), Param("lambda_H", "rat", lo=0, hi=None)),
    lhs=_sig_H * _sig_W, relation="=", rhs=(sympy.Symbol("C") - _c) ** sympy.Symbol("e"),
    fields=(Field("C", "constant", 1, "the 1 of (1 - c)^2"), Field("e", "exponent", 2, "the square of (1 - c)^2")),
    hypotheses=(Hypothesis("c = sqrt(lambda_W lambda_H) < 1", lW * lH < 1,
                           not_needed="the product expands to 1 - 2 sqrt(lW lH) + lW lH for all lW, lH > 0"),),
    witnesses=(Witness("identity", _pts, "an identity: it holds at every point of the domain"),),
    budget=40, starts=2, seed=5,
)



# --------------------------------------------------------------------------- App. D: the collapsed minimiser
# App. D's quantities are rational functions of p = sqrt(lambda_H), q = sqrt(lambda_W) and beta (the package derives
# them so, verify.symbolic.perturbation), so the statements below take p, q as their parameters: every point is
# exact rationals, lambda_H = p^2, lambda_W = q^2 off the unit scale.
pp, qq, bb = sympy.symbols("p q beta")
d_, K_, n_ = sympy.symbols("d K n")
_lH, _lW = pp ** 2, qq ** 2
PARAM_PQ = (Param("p", "rat", lo=0, hi=None), Param("q", "rat", lo=0, hi=None))
PARAM_BETA = Param("beta", "rat", lo=0, hi=None)
#: c = sqrt(lambda_H lambda_W) < 1, App. D's non-degenerate setting (Thm 2.2 gives the collapsed minimiser)
HYP_C = Hypothesis("c = sqrt(lambda_H lambda_W) < 1", pp * qq < 1)


def _sym():
    """The package's derivations (:mod:`verify.symbolic.perturbation`), imported on first use: the import costs
    about 0.25 s, which ``verify variants --list`` and the other parts' statements need not pay."""
    from ...symbolic import perturbation as S

    return S


def _derived(name: str, build, latex: str, needs_c: bool = True, at_zero=None) -> Computed:
    r"""A quantity the package derives (``build(d, K, n)``: a sympy expression in the package's :math:`p, q, \beta`,
    cached per size) evaluated exactly at the point (rationals in, rationals out) and in float64. ``needs_c``: it is
    the collapsed minimiser's, defined for :math:`pq < 1` only (``at_zero``: its value at the minimiser 0 that
    problem (1) has for :math:`pq \ge 1` (Thm 2.2), else undefined there)."""

    def size(env):
        return tuple(int(env.get(k, v)) for k, v in (("d", 3), ("K", 2), ("n", 2)))

    def exact(env):
        S = _sym()
        vals = {S.p: sympy.sympify(env["p"]), S.q: sympy.sympify(env["q"]), S.beta: sympy.sympify(env.get("beta", 1))}
        if needs_c and not vals[S.p] * vals[S.q] < 1:
            if at_zero is None:  # no collapsed minimiser: the point is outside the quantity's domain
                raise ArithmeticError(f"{name} is the collapsed minimiser's, which exists for c < 1 only")
            return sympy.sympify(at_zero(*size(env)))
        return sympy.sympify(build(*size(env)).xreplace(vals))

    @lru_cache(maxsize=None)
    def _fn(d, K, n):
        S = _sym()
        return sympy.lambdify((S.p, S.q, S.beta), build(d, K, n), modules="math")

    def approx(env):
        pv, qv = float(env["p"]), float(env["q"])
        if needs_c and not pv * qv < 1:
            return float("nan") if at_zero is None else float(at_zero(*size(env)))
        return float(_fn(*size(env))(pv, qv, float(env.get("beta", 1))))

    return Computed(name, exact, approx, latex)


@lru_cache(maxsize=None)
def _collapsed(d, K, n):
    """(W*, H*) at the collapsed minimiser, R = [I; 0], with the package's derived sigmas (in p, q)."""
    S = _sym()
    s = S.collapsed_sigmas()
    R = sympy.eye(d)[:, :K]
    return s["sigma_W"] * R.T, s["sigma_H"] * S.kron(R, sympy.ones(1, n))


@lru_cache(maxsize=None)
def _residual(d, K, n):
    S = _sym()
    W, H = _collapsed(d, K, n)
    Y = S.kron(sympy.eye(K), sympy.ones(1, n))
    Rm = (W * H - Y).applyfunc(lambda x: sympy.cancel(sympy.expand(x)))
    return sympy.cancel(sum(x ** 2 for x in Rm)), sympy.cancel(sum(x * y for x, y in zip(Rm, Y)))


RES2 = _derived("R_F2", lambda d, K, n: _residual(d, K, n)[0], r"\|W^*H^* - Y\|_F^2", at_zero=lambda d, K, n: K * n)
RESY = _derived("R_Y", lambda d, K, n: _residual(d, K, n)[1], r"\langle W^*H^* - Y, Y\rangle", at_zero=lambda d, K, n: -K * n)
_C, _e = sympy.symbols("C e")
_cC = _C * (_lH * _lW) ** _e  # C c, c = sqrt(lambda_H lambda_W)
_res_pts = tuple({"p": a, "q": b, "d": dd, "K": 2, "n": nn} for a, b, dd, nn in
                 ((R(1, 2), R(1, 3), 3, 2), (R(3), R(1, 5), 4, 3), (R(1, 10), R(7), 3, 3)))
DRESIDUAL = Statement(
    claim="N-D-residual", where="App. D",
    params=(Param("d", "int", values=(3, 4)), Param("K", "int", values=(2,)), Param("n", "int", values=(2, 3)),
            *PARAM_PQ),
    # W*H* - Y = -C c Y as the Frobenius identity ||W*H* - Y + C c Y||_F^2 = 0, ||Y||_F^2 = K n
    lhs=RES2.symbol + 2 * _cC * RESY.symbol + _cC ** 2 * K_ * n_, relation="=", rhs=sympy.Integer(0),
    fields=(Field("C", "constant", 1, "the coefficient of -c Y"), Field("e", "exponent", R(1, 2), "c = sqrt(lambda_H lambda_W)")),
    hypotheses=(Hypothesis(HYP_C.name, HYP_C.predicate,
                           outside=({"p": 2, "q": 1, "d": 3, "K": 2, "n": 2},)),),  # c = 2: the minimiser is 0, W*H* - Y = -Y
    computed=(RES2, RESY),
    witnesses=(Witness("identity", _res_pts, "an identity on c < 1: it holds at every point of the domain"),),
    budget=24, starts=1, seed=7,
)


@lru_cache(maxsize=None)
def _mu_lambda(d, K, n):
    r""":math:`\lambda_i` (Rayleigh quotient of the derived :math:`F_{kk}` on :math:`s_2 \otimes r_i`) and
    :math:`\mu_i = \beta(q(s_1 \otimes r_i) - \lambda_i)` for i = k (= 1), a second i <= K, and i > K."""
    S = _sym()
    F = S.collapsed_F(d, K, n)
    Fkk = F[:d * n, :d * n]
    s1 = sympy.ones(n, 1) / sympy.sqrt(n)
    s2 = sympy.Matrix([1, -1] + [0] * (n - 2)) / sympy.sqrt(2)
    out = {}
    for tag, i in (("k", 0), ("i", 1), ("j", K)):
        ri = sympy.eye(d)[:, i]
        v1, v2 = S.kron(s1, ri), S.kron(s2, ri)
        lam = sympy.cancel((v2.T * Fkk * v2)[0])
        out["lam_" + tag] = lam
        out["mu_" + tag] = sympy.cancel(S.beta * ((v1.T * Fkk * v1)[0] - lam))
    return out


_ML = {k: _derived(k, (lambda key: lambda d, K, n: _mu_lambda(d, K, n)[key])(k), tex, needs_c=False) for k, tex in (
    ("lam_k", r"\lambda_k"), ("lam_j", r"\lambda_j"), ("mu_k", r"\mu_k"), ("mu_i", r"\mu_i"), ("mu_j", r"\mu_j"))}
_C1, _er, _C2, _e2 = sympy.symbols("C_1 e_r C_2 e_2")
_c = (_lH * _lW) ** R(1, 2)
_r = (_lH / _lW) ** _er  # sqrt(lambda_H / lambda_W)
_ml_paper = {"lam_k": _C1 - _r / bb,                             # (19), 1 <= i <= K
             "lam_j": _C1 - _lH / bb,                            # (20), K < i <= d
             "mu_k": (_C2 * _c - 1) ** _e2 * _r,                 # mu_k
             "mu_i": (_c ** _e2 + (1 - _c) ** _e2) * _r,         # mu_i, i <= K, i != k
             "mu_j": _lH}                                        # mu_j = c^2 / lambda_W, j > K
_ml_pts = tuple({"p": a, "q": b, "beta": be, "d": dd, "K": 2, "n": nn} for a, b, be, dd, nn in
                ((R(1, 2), R(1, 3), R(40), 3, 2), (R(3), R(1, 5), R(7, 2), 4, 3), (R(1, 10), R(7), R(1, 3), 3, 3)))
DMULAMBDA = Statement(
    claim="N-D-mu-lambda", where="App. D, eqs. (19)-(20)",
    params=(Param("d", "int", values=(3, 4)), Param("K", "int", values=(2,)), Param("n", "int", values=(2, 3)),
            *PARAM_PQ, PARAM_BETA),
    lhs=sympy.Max(*(sympy.Abs(_ML[k].symbol - v) for k, v in _ml_paper.items())), relation="=", rhs=sympy.Integer(0),
    fields=(Field("C_1", "constant", 1, "the 1 of (19) and (20)"),
            Field("e_r", "exponent", R(1, 2), "sqrt(lambda_H / lambda_W) of (19) and mu_i"),
            Field("C_2", "constant", 2, "the 2c of mu_k = (2c - 1)^2 sqrt(lambda_H/lambda_W)"),
            Field("e_2", "exponent", 2, "the squares of (2c - 1)^2 and c^2 + (1 - c)^2")),
    hypotheses=(Hypothesis(HYP_C.name, HYP_C.predicate, not_needed="the quotients are rational identities in p, q, "
                           "beta; c < 1 only makes the sigmas real"),),
    computed=tuple(_ML.values()),
    witnesses=(Witness("identity", _ml_pts, "identities in beta: they hold at every point of the domain"),),
    budget=20, starts=1, seed=19,
)


def _ones_share_exact(env):
    r"""The share of the eigenvalues of the derived :math:`F_{kk}` (charpoly factorisation, with multiplicities) that
    equal 1 at the point, exactly (each derived eigenvalue is rational in p, q, beta)."""
    S = _sym()
    d, K, n = int(env["d"]), int(env["K"]), int(env["n"])
    vals = {S.p: sympy.sympify(env["p"]), S.q: sympy.sympify(env["q"]), S.beta: sympy.sympify(env["beta"])}
    if not vals[S.p] * vals[S.q] < 1:  # no collapsed minimiser (Thm 2.2): outside the quantity's domain
        raise ArithmeticError("the spectrum of F_kk is the collapsed minimiser's, which exists for c < 1 only")
    spec = _pq_spectrum(d, K, n)
    ones = sum(m for e, m in spec if sympy.sympify(e.xreplace(vals)) == 1)
    return sympy.Rational(ones, d * n)


@lru_cache(maxsize=None)
def _pq_spectrum(d, K, n):
    S = _sym()
    return tuple((sympy.cancel(S.to_pq(e)), m) for e, m in S.Fkk_spectrum(d, K, n).items())


def _ones_share_float(env):
    S = _sym()
    d, K, n = int(env["d"]), int(env["K"]), int(env["n"])
    pv, qv, bv = float(env["p"]), float(env["q"]), float(env["beta"])
    if not pv * qv < 1:
        return float("nan")
    ones = sum(m for e, m in _pq_spectrum(d, K, n)
               if abs(float(e.xreplace({S.p: pv, S.q: qv, S.beta: bv})) - 1) < 1e-12)  # float pre-score only
    return ones / (d * n)


ONES = Computed("s_1", _ones_share_exact, _ones_share_float, r"\#\{\mathrm{eig}(F_{kk}) = 1\}/(dn)")
_eig_pts = tuple({"p": a, "q": b, "beta": be, "d": dd, "K": kk, "n": nn} for a, b, be, dd, kk, nn in
                 ((R(1, 2), R(1, 3), R(40), 4, 2, 2), (R(3), R(1, 5), R(7, 2), 4, 2, 3),
                  (R(1, 10), R(7), R(1, 3), 4, 3, 2), (R(2), R(1, 4), R(100), 5, 3, 2)))
DEIG = Statement(
    claim="N-D-eig", where="App. D, eq. (21)",
    params=(Param("d", "int", values=(4, 5)), Param("K", "int", values=(2, 3)), Param("n", "int", values=(2, 3)),
            *PARAM_PQ, PARAM_BETA),
    lhs=ONES.symbol, relation="=", rhs=(sympy.Symbol("C") - K_ / d_) * n_ ** sympy.Symbol("e_n"),
    fields=(Field("C", "constant", 1, "the 1 of (1 - K/d)/n"), Field("e_n", "exponent", -1, "the 1/n of (1 - K/d)/n")),
    hypotheses=(HYP_C,),  # d > K (Thm 5.2's setting) holds on the whole domain of d, K
    computed=(ONES,),
    witnesses=(Witness("identity", _eig_pts, "the share holds at every beta > 0 and c in (0, 1)"),),
    budget=16, starts=0, seed=21,
)


@lru_cache(maxsize=None)
def _z_forms(d, K, n):
    r"""Bilinear forms of the blocks of :math:`Z^*` computed from its definition (the package's ``exact_F1`` at the
    collapsed minimiser, R = [I; 0]): on :math:`s_1 \otimes r_i` of the block (k, k) for i = k, i != k (<= K), i > K; of
    the block (k, k~) between :math:`s_1 \otimes r_{\tilde k}` and :math:`s_1 \otimes r_k`; and on
    :math:`s_2 \otimes r_k` of the block (k, k) (k = 1, k~ = 2)."""
    S = _sym()
    W, H = _collapsed(d, K, n)
    _, Z = S.exact_F1(W, H, S.beta, S.q ** 2, S.p ** 2, K, n, return_Z=True)
    dn = d * n
    s1 = sympy.ones(n, 1) / sympy.sqrt(n)
    s2 = sympy.Matrix([1, -1] + [0] * (n - 2)) / sympy.sqrt(2)
    r = lambda i: sympy.eye(d)[:, i]
    blk = lambda k, kt: Z[k * dn:(k + 1) * dn, kt * dn:(kt + 1) * dn]
    form = lambda u, B, v: sympy.cancel(sympy.expand((u.T * B * v)[0]))
    return {"z_kk": form(S.kron(s1, r(0)), blk(0, 0), S.kron(s1, r(0))),
            "z_ki": form(S.kron(s1, r(1)), blk(0, 0), S.kron(s1, r(1))),
            "z_kj": form(S.kron(s1, r(K)), blk(0, 0), S.kron(s1, r(K))),
            "z_kkt": form(S.kron(s1, r(1)), blk(0, 1), S.kron(s1, r(0))),
            "z_s2": form(S.kron(s2, r(0)), blk(0, 0), S.kron(s2, r(0)))}


_Z = {k: _derived(k, (lambda key: lambda d, K, n: _z_forms(d, K, n)[key])(k), tex) for k, tex in (
    ("z_kk", r"(s_1 r_k)^T Z_{kk} (s_1 r_k)"), ("z_ki", r"(s_1 r_i)^T Z_{kk} (s_1 r_i)"),
    ("z_kj", r"(s_1 r_j)^T Z_{kk} (s_1 r_j)"), ("z_kkt", r"(s_1 r_{\tilde k})^T Z_{k\tilde k} (s_1 r_k)"),
    ("z_s2", r"(s_2 r_k)^T Z_{kk} (s_2 r_k)"))}
_Cz, _ez, _en = sympy.symbols("C e_2 e_n")
_sig2 = (_lW / _lH) ** R(1, 2) - _lW  # sigma_Hbar^2 (N-D-sigmas)
_den = _sig2 + _lW
_J = n_ ** _en * n_  # s_1^T (n^{e_n} 1 1^T) s_1 with the paper's 1/n: 1
_z_paper = {"z_kk": _J * (_c ** _ez / _den + (1 - _c) ** _ez / _den - _Cz * _c * (1 - _c) / _den),  # r_k^T A r_k = 1/den
            "z_ki": _J * (_c ** _ez / _den + (1 - _c) ** _ez / _den),
            "z_kj": _J * _c ** _ez / _lW,                                 # r_j^T A r_j = 1/lambda_W, j > K
            "z_kkt": -_J * _Cz * _c * (1 - _c) / _den,
            "z_s2": sympy.Integer(0)}                                     # 1_n^T s_2 = 0
_z_pts = tuple({"p": a, "q": b, "d": dd, "K": 2, "n": nn} for a, b, dd, nn in
               ((R(1, 2), R(1, 3), 3, 2), (R(3), R(1, 5), 4, 3), (R(1, 10), R(7), 3, 3)))
DZBLOCKS = Statement(
    claim="N-D-Z-blocks", where="App. D, eq. (18)",
    params=(Param("d", "int", values=(3, 4)), Param("K", "int", values=(2,)), Param("n", "int", values=(2, 3)),
            *PARAM_PQ),
    lhs=sympy.Max(*(sympy.Abs(_Z[k].symbol - v) for k, v in _z_paper.items())), relation="=", rhs=sympy.Integer(0),
    fields=(Field("C", "constant", 2, "the 2 of 2c(1 - c)"), Field("e_2", "exponent", 2, "c^2 and (1 - c)^2"),
            Field("e_n", "exponent", -1, "the 1/n of (1/n) 1_n 1_n^T")),
    hypotheses=(HYP_C,),
    computed=tuple(_Z.values()),
    witnesses=(Witness("identity", _z_pts, "an identity on c < 1: it holds at every point of the domain"),),
    budget=20, starts=1, seed=18,
)


# --------------------------------------------------------------------------- Lemma C.4
# H in R^{2 x Kn}, K = n = 2, by its class means m_k and deviations t_k: class k's columns are m_k + t_k, m_k - t_k
_C4_PARAMS = ("m_11", "m_21", "m_12", "m_22", "t_11", "t_21", "t_12", "t_22")


def _c4_norms(env, exact: bool) -> dict:
    r"""The four norms of Lemma C.4 at the point, each :math:`\|A^{-1/2} B A^{-1/2}\|_{op}` (a largest generalised
    eigenvalue, closed form) with :math:`A = \tilde\Sigma_T + \lambda_W/K\, I`: (13) B = :math:`\tilde\Sigma_T`,
    (14) B = :math:`\Sigma_W`, (15) the square root of B = :math:`HH^\top`, (16) of B = :math:`P(H)P(H)^\top`;
    exact (sympy algebraic numbers) or float64."""
    num = (lambda v: sympy.Rational(v)) if exact else float
    m = [[num(env[f"m_{i}{k}"]) for i in (1, 2)] for k in (1, 2)]
    t = [[num(env[f"t_{i}{k}"]) for i in (1, 2)] for k in (1, 2)]
    K, n, lw = int(env["K"]), int(env["n"]), num(env["lambda_W"])
    cols = [[m[k][i] + sgn * t[k][i] for i in (0, 1)] for k in (0, 1) for sgn in (1, -1)]   # the columns of H
    pcols = [[sgn * t[k][i] for i in (0, 1)] for k in (0, 1) for sgn in (1, -1)]            # of H - Hbar kron 1^T
    gram = lambda cs: [[sum(c[i] * c[j] for c in cs) for j in (0, 1)] for i in (0, 1)]
    HH, PP = gram(cols), gram(pcols)
    A = [[HH[i][j] / (K * n) + (lw / K if i == j else 0) for j in (0, 1)] for i in (0, 1)]
    root = sympy.sqrt if exact else (lambda x: max(x, 0.0) ** 0.5)

    def top(B):  # the largest root of det(B - x A) = alpha x^2 - beta x + gamma
        alpha = A[0][0] * A[1][1] - A[0][1] ** 2
        beta_ = A[0][0] * B[1][1] + A[1][1] * B[0][0] - 2 * A[0][1] * B[0][1]
        gamma = B[0][0] * B[1][1] - B[0][1] ** 2
        return (beta_ + root(beta_ ** 2 - 4 * alpha * gamma)) / (2 * alpha)

    scale = lambda M: [[x / (K * n) for x in row] for row in M]
    return {"13": top(scale(HH)), "14": top(scale(PP)), "15": root(top(HH)), "16": root(top(PP))}


_NC = {k: Computed(f"N_{k}", (lambda key: lambda env: _c4_norms(env, True)[key])(k),
                   (lambda key: lambda env: _c4_norms(env, False)[key])(k), tex) for k, tex in (
    ("13", r"\|A^{-1/2}\tilde\Sigma_T A^{-1/2}\|"), ("14", r"\|A^{-1/2}\Sigma_W A^{-1/2}\|"),
    ("15", r"\|A^{-1/2}H\|"), ("16", r"\|A^{-1/2}(H - \bar H \otimes 1_n^T)\|"))}
_N = {k: c.symbol for k, c in _NC.items()}
_Kn = K_ * n_
_c4 = {k: sympy.Symbol(f"C_{k}") for k in _N}
_e15, _e16 = sympy.symbols("e_15 e_16")
_c4_bound = {"13": _c4["13"], "14": _c4["14"], "15": _c4["15"] * _Kn ** _e15, "16": _c4["16"] * _Kn ** _e16}


def _c4_point(lw, t11, t21, t12, t22, m=(0, 0, 0, 0)):
    return {"lambda_W": lw, "K": 2, "n": 2, "t_11": t11, "t_21": t21, "t_12": t12, "t_22": t22,
            "m_11": m[0], "m_21": m[1], "m_12": m[2], "m_22": m[3]}


# zero class means (Sigma_W = Sigma_T~) and lambda_W -> 0: every norm tends to its bound
_c4_approach = tuple(_c4_point(lw, sc, 0, 0, 2 * sc) for lw in (R(1, 100), R(1, 10 ** 4)) for sc in (R(1, 10), R(3)))
LEMC4 = Statement(
    claim="N-lemC.4", where="Lemma C.4, (13)-(16)",
    params=(Param("lambda_W", "rat", lo=0, hi=None), Param("K", "int", values=(2,)), Param("n", "int", values=(2,)),
            *(Param(x, "rat", lo=-4, hi=4) for x in _C4_PARAMS)),
    # the four bounds at once: max_b (||.||_b - bound_b) <= 0
    lhs=sympy.Max(*(_N[k] - _c4_bound[k] for k in _N)), relation="<=", rhs=sympy.Integer(0),
    fields=(Field("C_13", "constant", 1, "the bound 1 of (13)"), Field("C_14", "constant", 1, "the bound 1 of (14)"),
            Field("C_15", "constant", 1, "the coefficient of sqrt(Kn) in (15)"),
            Field("C_16", "constant", 1, "the coefficient of sqrt(Kn) in (16)"),
            Field("e_15", "exponent", R(1, 2), "sqrt(Kn) of (15)"), Field("e_16", "exponent", R(1, 2), "sqrt(Kn) of (16)")),
    computed=tuple(_NC.values()),
    witnesses=(Witness("approached", _c4_approach, "zero class means, lambda_W -> 0: each norm tends to its bound"),
               Witness("slack", (_c4_point(1, 0, 0, 0, 0),), "H = 0: every norm is 0")),
    strict_holds="Sigma_W <= Sigma_T~ < Sigma_T~ + lambda_W/K I gives (13), (14) < 1, and (15)^2 = Kn (13), "
                 "(16)^2 = Kn (14)",
    budget=40, starts=3, seed=13,
)


# --------------------------------------------------------------------------- App. D: E* through the commutation matrix
@lru_cache(maxsize=None)
def _e_forms(d, K, n, collapsed=True):
    r""":math:`\|E^*\|_F^2`, :math:`\langle E^{*\top}, K_{d,K} M\rangle` and :math:`\|K_{d,K} M\|_F^2`,
    :math:`M = I_K \otimes 1_n^\top \otimes I_d`, with :math:`E^*` the package's App. C matrix :math:`E(W, H)` at the
    collapsed minimiser (``collapsed``; else at the minimiser 0 of the degenerate case) and
    :math:`K_{d,K}` the package's commutation matrix."""
    S = _sym()
    W, H = _collapsed(d, K, n) if collapsed else (sympy.zeros(K, d), sympy.zeros(d, K * n))
    Et = S._E(W, H, K, n).T.applyfunc(lambda x: sympy.cancel(sympy.expand(x)))
    KM = S.commutation_matrix(d, K) * S.kron(S.kron(sympy.eye(K), sympy.ones(1, n)), sympy.eye(d))
    return (sympy.cancel(sum(x ** 2 for x in Et)), sympy.cancel(sum(x * y for x, y in zip(Et, KM))),
            sum(x ** 2 for x in KM))


_EF = {k: _derived(k, (lambda i: lambda d, K, n: _e_forms(d, K, n)[i])(i), tex,
                   at_zero=(lambda i: lambda d, K, n: _e_forms(d, K, n, collapsed=False)[i])(i))
       for i, (k, tex) in enumerate((("E_F2", r"\|E^*\|_F^2"), ("E_KM", r"\langle E^{*\top}, K_{d,K} M\rangle"),
                                     ("KM_F2", r"\|K_{d,K} M\|_F^2")))}
DCOMMUTATION = Statement(
    claim="N-D-commutation", where="App. D, eq. (17)",
    params=(Param("d", "int", values=(3, 4)), Param("K", "int", values=(2, 3)), Param("n", "int", values=(1, 2)),
            *PARAM_PQ),
    # E*^T = K_{d,K}(-C c I_K kron 1_n^T kron I_d) as ||E*^T + C c K_{d,K} M||_F^2 = 0
    lhs=_EF["E_F2"].symbol + 2 * _cC * _EF["E_KM"].symbol + _cC ** 2 * _EF["KM_F2"].symbol, relation="=",
    rhs=sympy.Integer(0),
    fields=(Field("C", "constant", 1, "the coefficient of -c"), Field("e", "exponent", R(1, 2), "c = sqrt(lambda_H lambda_W)")),
    hypotheses=(Hypothesis(HYP_C.name, HYP_C.predicate,
                           outside=({"p": 2, "q": 1, "d": 3, "K": 2, "n": 2},)),),  # minimiser 0: E*^T = -K_{d,K} M
    computed=tuple(_EF.values()),
    witnesses=(Witness("identity", tuple({**pt, "K": kk, "n": nn} for pt in _res_pts for kk, nn in ((2, 2), (3, 1))),
                       "an identity on c < 1: it holds at every point of the domain"),),
    budget=20, starts=1, seed=17,
)


# --------------------------------------------------------------------------- App. C: the derivatives of f
# f(W, H; H0) = |WH - Y|^2/(2Kn) + lambda_W |W|^2/(2K) + lambda_H |H|^2/(2Kn) + beta |H - H0|^2/(2Kn), problem (2),
# written entrywise and differentiated by sympy.diff along fixed rational directions V_H (d x Kn) and V_W (K x d)
_DK = (3, 2, 2)  # d, K, n: d > K, n > 1


def directions(d, K, n):
    """Fixed rational directions (a seeded draw of small fractions, non-unit, no zero entry)."""
    rng = np.random.default_rng(11)
    draw = lambda r, c: sympy.Matrix(r, c, [sympy.Rational(int(a), int(b)) for a, b in
                                            zip(rng.choice([-3, -2, -1, 1, 2, 3], r * c), rng.integers(1, 4, r * c))])
    return draw(d, K * n), draw(K, d)


@lru_cache(maxsize=None)
def _f_derivatives(d, K, n):
    r"""The directional derivatives of f, by ``sympy.diff`` of f written entrywise: :math:`\langle V_H,\nabla_Hf\rangle`,
    :math:`\langle V_W,\nabla_Wf\rangle`, :math:`V_H^\top(\nabla^2_{HH}f)V_H`, :math:`V_W^\top(\nabla^2_{WW}f)V_W`,
    :math:`V_H^\top(\nabla_W^\top\nabla_Hf)V_W`, as expressions in the entries and lambda_W, lambda_H, beta."""
    Kn = K * n
    W = sympy.Matrix(K, d, lambda a, b: sympy.Symbol(f"w_{a}_{b}"))
    H = sympy.Matrix(d, Kn, lambda a, b: sympy.Symbol(f"h_{a}_{b}"))
    H0 = sympy.Matrix(d, Kn, lambda a, b: sympy.Symbol(f"g_{a}_{b}"))
    lw, lh, b_ = sympy.symbols("lambda_W lambda_H beta")
    Y = sympy.Matrix(K, Kn, lambda a, b: 1 if b // n == a else 0)
    sq = lambda M: sum(x ** 2 for x in M)
    f = sq(W * H - Y) / (2 * Kn) + lw * sq(W) / (2 * K) + lh * sq(H) / (2 * Kn) + b_ * sq(H - H0) / (2 * Kn)
    VH, VW = directions(d, K, n)
    dH = lambda e: sum(v * sympy.diff(e, x) for v, x in zip(VH, H))  # directional derivative along V_H
    dW = lambda e: sum(v * sympy.diff(e, x) for v, x in zip(VW, W))
    gH, gW = sympy.expand(dH(f)), sympy.expand(dW(f))
    out = {"gH": gH, "gW": gW, "hHH": sympy.expand(dH(gH)), "hWW": sympy.expand(dW(gW)), "hWH": sympy.expand(dW(gH))}
    return out, (list(W), list(H), list(H0), lw, lh, b_)


def _f_env(env, exact):
    conv = (lambda x: sympy.Rational(x)) if exact else float
    flat = lambda M: [conv(x) for x in (M if not hasattr(M, "tolist") else sum(M.tolist(), []))]
    return flat(env["W"]) + flat(env["H"]) + flat(env["H0"]) + [conv(env[k]) for k in ("lambda_W", "lambda_H", "beta")]


@lru_cache(maxsize=None)
def _f_fns(d, K, n):
    exprs, (W, H, H0, lw, lh, b_) = _f_derivatives(d, K, n)
    syms = W + H + H0 + [lw, lh, b_]
    return syms, {k: sympy.lambdify(syms, e, modules="math") for k, e in exprs.items()}


def _f_derived(key):
    def exact(env):
        d, K, n = (int(env[k]) for k in ("d", "K", "n"))
        syms, _ = _f_fns(d, K, n)
        return _f_derivatives(d, K, n)[0][key].xreplace(dict(zip(syms, _f_env(env, True))))

    def approx(env):
        d, K, n = (int(env[k]) for k in ("d", "K", "n"))
        return float(_f_fns(d, K, n)[1][key](*_f_env(env, False)))

    return exact, approx


def _blocks(env, exact):
    r"""The structural products App. C's formulas are built from (no constant in them), exactly (sympy) or in float64:
    :math:`\langle V_H, W^\top(WH - Y)\rangle, \langle V_H, H\rangle, \langle V_H, H - H_0\rangle,
    \langle V_W, (WH - Y)H^\top\rangle, \langle V_W, W\rangle, \langle V_H, W^\top W V_H\rangle, |V_H|^2,
    \langle V_W, V_W HH^\top\rangle, |V_W|^2, \langle V_H, V_W^\top(WH - Y)\rangle, \langle V_H, W^\top V_W H\rangle`."""
    d, K, n = (int(env[k]) for k in ("d", "K", "n"))
    VH, VW = directions(d, K, n)
    Y = sympy.Matrix(K, K * n, lambda a, b: 1 if b // n == a else 0)
    if exact:
        W, H, H0 = (sympy.Matrix(env[k]) for k in ("W", "H", "H0"))
        dot = lambda A, B: sum(x * y for x, y in zip(A, B))
    else:  # the search's float64 arrays
        W, H, H0 = (np.asarray(env[k], dtype=float) for k in ("W", "H", "H0"))
        VH, VW, Y = (np.array(M.tolist(), dtype=float) for M in (VH, VW, Y))
        dot = lambda A, B: float((A * B).sum())
    R = W @ H - Y
    return {"a_H": dot(VH, W.T @ R), "h_V": dot(VH, H), "d_V": dot(VH, H - H0), "a_W": dot(VW, R @ H.T),
            "w_V": dot(VW, W), "b_HH": dot(VH, W.T @ W @ VH), "v_H": dot(VH, VH), "b_WW": dot(VW, VW @ H @ H.T),
            "v_W": dot(VW, VW), "m_E": dot(VH, VW.T @ R), "m_HW": dot(VH, W.T @ VW @ H)}


_FD = {k: Computed(k, *_f_derived(k), tex) for k, tex in (
    ("gH", r"\langle V_H, \nabla_H f\rangle"), ("gW", r"\langle V_W, \nabla_W f\rangle"),
    ("hHH", r"V_H^T \nabla^2_{HH} f V_H"), ("hWW", r"V_W^T \nabla^2_{WW} f V_W"),
    ("hWH", r"V_H^T \nabla_W^T\nabla_H f V_W"))}
_FB = {k: Computed(k, (lambda key: lambda env: _blocks(env, True)[key])(k),
                   (lambda key: lambda env: _blocks(env, False)[key])(k), k) for k in (
    "a_H", "h_V", "d_V", "a_W", "w_V", "b_HH", "v_H", "b_WW", "v_W", "m_E", "m_HW")}
_b = {k: c.symbol for k, c in _FB.items()}
_eKn, _eK, _CH, _Cb, _CW = sympy.symbols("e_Kn e_K C_H C_b C_W")
_lHs, _lWs = sympy.symbols("lambda_H lambda_W")
_KnE, _KE = (K_ * n_) ** _eKn, K_ ** _eK
_f_paper = {  # (11) and the Hessian blocks of App. C, contracted with the same directions
    "gH": _KnE * (_b["a_H"] + _CH * _lHs * _b["h_V"] + _Cb * bb * _b["d_V"]),
    "gW": _KnE * _b["a_W"] + _CW * _lWs * _KE * _b["w_V"],
    "hHH": _KnE * (_b["b_HH"] + (_CH * _lHs + _Cb * bb) * _b["v_H"]),
    "hWW": _KnE * _b["b_WW"] + _CW * _lWs * _KE * _b["v_W"],
    "hWH": _KnE * (_b["m_E"] + _b["m_HW"])}


def _f_point(sc, lw, lh, be, seed):
    rng = np.random.default_rng(seed)
    d, K, n = _DK
    mat = lambda r, c: sympy.Matrix(r, c, [sympy.Rational(int(x), 4) * sc for x in rng.integers(-8, 9, r * c)])
    return {"d": d, "K": K, "n": n, "W": mat(K, d), "H": mat(d, K * n), "H0": mat(d, K * n), "lambda_W": lw,
            "lambda_H": lh, "beta": be}


_f_pts = tuple(_f_point(sc, lw, lh, be, sd) for sc, lw, lh, be, sd in
               ((R(1), R(2, 5), R(3, 10), R(7), 1), (R(3), R(5), R(1, 9), R(1, 2), 2), (R(1, 10), R(1, 20), R(4), R(30), 3)))
CDERIVS = Statement(
    claim="N-C-derivs", where="App. C, (11) and the Hessian blocks",
    params=(Param("d", "int", values=(_DK[0],)), Param("K", "int", values=(_DK[1],)), Param("n", "int", values=(_DK[2],)),
            Param("W", "matrix", lo=-3, hi=3, shape=("K", "d")), Param("H", "matrix", lo=-3, hi=3, shape=("d", "n_cols")),
            Param("H0", "matrix", lo=-3, hi=3, shape=("d", "n_cols")),
            Param("n_cols", "int", values=(_DK[1] * _DK[2],)),  # K n, the columns of H (a matrix's shape is named)
            Param("lambda_W", "rat", lo=0, hi=None), Param("lambda_H", "rat", lo=0, hi=None), PARAM_BETA),
    lhs=sympy.Max(*(sympy.Abs(_FD[k].symbol - v) for k, v in _f_paper.items())), relation="=", rhs=sympy.Integer(0),
    fields=(Field("e_Kn", "exponent", -1, "the 1/(Kn) of (11) and of every Hessian block"),
            Field("C_H", "constant", 1, "lambda_H/(Kn) in (11)"), Field("C_b", "constant", 1, "beta/(Kn) in (11)"),
            Field("C_W", "constant", 1, "lambda_W/K in grad_W f"), Field("e_K", "exponent", -1, "the 1/K of lambda_W/K")),
    computed=(*_FD.values(), *_FB.values()),
    witnesses=(Witness("identity", tuple({**pt, "n_cols": _DK[1] * _DK[2]} for pt in _f_pts),
                       "identities: they hold at every W, H, H0, lambda_W, lambda_H, beta"),),
    budget=12, starts=0, seed=11,
)


# --------------------------------------------------------------------------- proof of Thm C.2: d/dt grad L(H_t)
_C2K = (2, 2, 2)  # d, K, n


def _c2_mats(env):
    d, K, n = _C2K
    H, D = sympy.Matrix(env["H"]), sympy.Matrix(env["dH"])
    V = directions(d, K, n)[0]
    return d, K, n, H, D, V, sympy.Rational(env["lambda_W"]), sympy.Rational(env["lambda_H"])


def _loss_u2(H, U, lw, lh, K, n):
    r"""The coefficient of :math:`u^2` of :math:`\mathcal L(H + uU)` (sec. 4's definition, :math:`W^*(H) =
    YH^\top(HH^\top + n\lambda_WI)^{-1}`, d = 2), exactly: the entries are FLINT power series in u over Q, cut at
    :math:`u^3`."""
    old = ctx.cap
    ctx.cap = 3
    try:
        q = lambda x: fmpq(int(x.p), int(x.q))

        def grid(rows, cols, entry):  # an object array filled entry by entry (numpy would unpack a series)
            out = np.empty((rows, cols), dtype=object)
            for i in range(rows):
                for j in range(cols):
                    out[i, j] = entry(i, j)
            return out

        Ht = grid(H.rows, H.cols, lambda i, j: fmpq_series([q(H[i, j]), q(U[i, j])]))
        Y = grid(K, K * n, lambda a, j: fmpq_series([1 if j // n == a else 0]))
        M = Ht @ Ht.T
        M[0, 0] += q(n * lw)
        M[1, 1] += q(n * lw)
        det = M[0, 0] * M[1, 1] - M[0, 1] * M[1, 0]
        Minv = grid(2, 2, lambda i, j: (M[1 - i, 1 - j] if i == j else -M[i, j]) / det)
        Ws = Y @ Ht.T @ Minv
        sq = lambda X: sum((x * x for x in X.flat), fmpq_series([0]))
        L = sq(Ws @ Ht - Y) / (2 * K * n) + sq(Ws) * q(lw) / (2 * K) + sq(Ht) * q(lh) / (2 * K * n)
        c = L.coeffs()
        return sympy.Rational(int(c[2].p), int(c[2].q)) if len(c) > 2 else sympy.Integer(0)
    finally:
        ctx.cap = old


def _c2_derived(env):
    r""":math:`\langle V, \frac{d}{dt}\nabla\mathcal L(H + t\Delta)|_0\rangle = \partial_t\partial_s
    \mathcal L(H + t\Delta + sV)|_0`, exactly, by polarisation of second derivatives along lines
    (:math:`\partial_t\partial_s = c_2(\Delta + V) - c_2(\Delta) - c_2(V)`, :math:`c_2` the :math:`u^2` coefficient,
    :func:`_loss_u2`), from the definition of :math:`\mathcal L`: no formula of the proof."""
    d, K, n, H, D, V, lw, lh = _c2_mats(env)
    c2 = lambda U: _loss_u2(H, U, lw, lh, K, n)
    return c2(D + V) - c2(D) - c2(V)


def _c2_terms(env):
    r"""The eleven products of the proof's expression contracted with V (no constant in them):
    :math:`A^{-1}P(\Delta)`, :math:`A^{-1}\Delta H^\top A^{-1}P(H)`, ..., :math:`\Delta`, with
    :math:`A = \tilde\Sigma_T + \frac{\lambda_W}K I`, :math:`B = \Sigma_W + \frac{\lambda_W}K I`."""
    d, K, n, H, D, V, lw, lh = _c2_mats(env)
    Kn = K * n
    P = lambda X: X - sympy.Matrix(d, Kn, lambda i, j: sum(X[i, (j // n) * n + m] for m in range(n)) / n)
    PH, PD = P(H), P(D)
    A = H * H.T / Kn + lw / K * sympy.eye(d)
    B = PH * PH.T / Kn + lw / K * sympy.eye(d)
    Ai = A.inv()
    ABA = Ai * B * Ai
    terms = [Ai * PD, Ai * D * H.T * Ai * PH, Ai * H * D.T * Ai * PH, ABA * D, Ai * D * H.T * ABA * H,
             Ai * H * D.T * ABA * H, Ai * PD * PH.T * Ai * H, Ai * PH * PD.T * Ai * H, ABA * D * H.T * Ai * H,
             ABA * H * D.T * Ai * H, D]
    return [sum(x * y for x, y in zip(V, T)) for T in terms]


_C2D = Computed("D_L", _c2_derived, lambda env: float(_c2_derived(env)), r"\langle V, \tfrac{d}{dt}\nabla\mathcal L(H_t)\rangle")
_C2T = tuple(Computed(f"T_{i + 1}", (lambda i: lambda env: _c2_terms(env)[i])(i),
                      (lambda i: lambda env: float(_c2_terms(env)[i]))(i), f"T_{{{i + 1}}}") for i in range(11))
_T = [c.symbol for c in _C2T]
_eK2, _en2, _eKn2, _CH2, _eKH = sympy.symbols("e_K e_n e_Kn C_H e_KH")
_in = (K_ * n_) ** _eKn2
_c2_paper = K_ ** _eK2 * n_ ** _en2 * (_T[0] - _in * (_T[1] + _T[2]) - _T[3]
                                       + _in * (_T[4] + _T[5] - _T[6] - _T[7] + _T[8] + _T[9])
                                       + _CH2 * _lHs * K_ ** _eKH * _T[10])


def _c2_point(sc, lw, lh, seed):
    rng = np.random.default_rng(seed)
    d, K, n = _C2K
    mat = lambda: sympy.Matrix(d, K * n, [sympy.Rational(int(x), 4) * sc for x in rng.integers(-8, 9, d * K * n)])
    return {"d": d, "K": K, "n": n, "n_cols": K * n, "H": mat(), "dH": mat(), "lambda_W": lw, "lambda_H": lh}


C2DERIVATIVE = Statement(
    claim="N-C2-derivative", where="proof of Thm C.2",
    params=(Param("d", "int", values=(_C2K[0],)), Param("K", "int", values=(_C2K[1],)), Param("n", "int", values=(_C2K[2],)),
            Param("n_cols", "int", values=(_C2K[1] * _C2K[2],)),  # K n, the columns of H
            Param("H", "matrix", lo=-3, hi=3, shape=("d", "n_cols")), Param("dH", "matrix", lo=-3, hi=3, shape=("d", "n_cols")),
            Param("lambda_W", "rat", lo=0, hi=None), Param("lambda_H", "rat", lo=0, hi=None)),
    lhs=sympy.Abs(_C2D.symbol - _c2_paper), relation="=", rhs=sympy.Integer(0),
    fields=(Field("e_K", "exponent", -2, "the 1/K^2 of the prefactor 1/(K^2 n)"),
            Field("e_n", "exponent", -1, "the 1/n of the prefactor 1/(K^2 n)"),
            Field("e_Kn", "exponent", -1, "the 1/(Kn) of the eight quadratic terms"),
            Field("C_H", "constant", 1, "the coefficient of lambda_H K Delta H"),
            Field("e_KH", "exponent", 1, "the K of lambda_H K Delta H")),
    computed=(_C2D, *_C2T),
    witnesses=(Witness("identity", tuple(_c2_point(sc, lw, lh, sd) for sc, lw, lh, sd in
                                          ((R(1), R(2, 5), R(3, 10), 1), (R(3), R(5), R(1, 9), 2),
                                           (R(1, 2), R(1, 20), R(4), 3))),
                       "an identity: it holds at every H, Delta H and lambda_W, lambda_H > 0"),),
    budget=10, starts=0, seed=23,
)


# --------------------------------------------------------------------------- App. D.1: the whole F
@lru_cache(maxsize=None)
def _pq_full_spectrum(d, K, n):
    S = _sym()
    return tuple((sympy.cancel(S.to_pq(e)), m) for e, m in S.full_F_spectrum(d, K, n).items())


def _unstretched_exact(env):
    r"""The number of eigenvalues of the whole derived F (with multiplicity) beyond K copies of the spectrum of the
    derived :math:`F_{kk}`: :math:`\sum_v \max(0, m_F(v) - K m_{F_{kk}}(v))`, the values compared exactly at the point."""
    S = _sym()
    d, K, n = int(env["d"]), int(env["K"]), int(env["n"])
    vals = {S.p: sympy.sympify(env["p"]), S.q: sympy.sympify(env["q"]), S.beta: sympy.sympify(env["beta"])}
    if not vals[S.p] * vals[S.q] < 1:  # no collapsed minimiser (Thm 2.2): outside the quantity's domain
        raise ArithmeticError("the spectrum of F is the collapsed minimiser's, which exists for c < 1 only")
    count = lambda spec: {v: sum(m for e, m in spec if e.xreplace(vals) == v) for v in {e.xreplace(vals) for e, _ in spec}}
    full, block = count(_pq_full_spectrum(d, K, n)), count(_pq_spectrum(d, K, n))
    return sympy.Integer(sum(max(0, m - K * block.get(v, 0)) for v, m in full.items()))


UNSTRETCHED = Computed("u_F", _unstretched_exact, lambda env: float(_unstretched_exact(env)),
                       r"\#\{\mathrm{eig}(F) \notin K \times \mathrm{eig}(F_{kk})\}")
_Cu, _eu1, _eu2 = sympy.symbols("C e_1 e_2")
_full_pts = tuple({"p": a, "q": b, "beta": be, "d": 4, "K": kk, "n": 2} for a, b, be, kk in
                  ((R(1, 2), R(1, 3), R(40), 2), (R(3), R(1, 5), R(7, 2), 3), (R(1, 10), R(7), R(1, 3), 3),
                   (R(2), R(1, 4), R(100), 2)))
DFULLF = Statement(
    claim="N-D.1-full-F", where="App. D.1",
    params=(Param("d", "int", values=(4,)), Param("K", "int", values=(2, 3)), Param("n", "int", values=(2,)),
            *PARAM_PQ, PARAM_BETA),
    # the spectrum of F is K copies of that of F_kk (the stretch) but for one eigenvalue per rank-one
    # inter-class block F_{k k~}, k != k~: K (K - 1) of them
    lhs=UNSTRETCHED.symbol, relation="=", rhs=_Cu * K_ ** _eu1 * (K_ - 1) ** _eu2,
    fields=(Field("C", "constant", 1, "one eigenvalue per inter-class block"),
            Field("e_1", "exponent", 1, "the K classes"), Field("e_2", "exponent", 1, "the K - 1 other classes")),
    hypotheses=(HYP_C,),
    computed=(UNSTRETCHED,),
    witnesses=(Witness("identity", _full_pts, "the count is K (K - 1) at every beta > 0 and c in (0, 1)"),),
    budget=12, starts=0, seed=29,
)

# --------------------------------------------------------------------------- Figure 1: the spectrum of F_kk as plotted
#: Figure 1's setting (the caption's): beta = 100, K = 4, d = 10, n = 10, lambda_W = sqrt 2 (exact)
FIG1_SETTING = {"beta": sympy.Integer(100), "K": 4, "d": 10, "n": 10, "lambda_W": sympy.sqrt(2)}


@lru_cache(maxsize=None)
def _fig1_spectrum():
    """The derived eigenvalues of F_kk at Figure 1's sizes, with multiplicities, as expressions in lambda_H (beta and
    lambda_W put in): the package's charpoly factorisation (about 45 s on a loaded machine, once per process)."""
    S = _sym()
    sub = {S.beta: FIG1_SETTING["beta"], S.lam_W: FIG1_SETTING["lambda_W"]}
    return tuple((sympy.sympify(e).xreplace(sub), m)
                 for e, m in S.Fkk_spectrum(FIG1_SETTING["d"], FIG1_SETTING["K"], FIG1_SETTING["n"]).items())


def _fig1_values(env):
    """The plotted values (|eigenvalues|, exact algebraic numbers) at lambda_H, the distinct ones decided exactly."""
    return list(_fig1_values_at(sympy.sympify(env["lambda_H"])))  # not nsimplify: it moves a large-denominator rational


@lru_cache(maxsize=256)
def _fig1_values_at(lh):
    """:func:`_fig1_values` at the exact ``lh`` (cached: the three plotted quantities read the same values)."""
    vals = []
    for e, _ in _fig1_spectrum():
        v = sympy.Abs(sympy.radsimp(e.xreplace({_sym().lam_H: lh})))
        if not any(sympy.simplify(v - w) == 0 for w in vals):
            vals.append(v)
    return tuple(vals)


def _fig1_max(env):
    vals = _fig1_values(env)
    return next(v for v in vals if all(sympy.N(v - w, 40) >= 0 for w in vals))


def _fig1_min(env):
    vals = _fig1_values(env)
    return next(v for v in vals if all(sympy.N(v - w, 40) <= 0 for w in vals))


FIG1_MAX = Computed("s_max", _fig1_max, lambda env: float(_fig1_max(env)), r"\max \sigma(F_{kk})")
FIG1_MIN = Computed("s_min", _fig1_min, lambda env: float(_fig1_min(env)), r"\min \sigma(F_{kk})")
FIG1_LEVELS = Computed("levels", lambda env: sympy.Integer(len(_fig1_values(env))),
                       lambda env: float(len(_fig1_values(env))), r"\#\{\text{levels}\}")
_Ct, _Cf, _Cr, _efr, _L = sympy.symbols("C_top C_1 C_r e_r L")
_fig1_floor = _Cf - _Cr * (lH / FIG1_SETTING["lambda_W"]) ** _efr / FIG1_SETTING["beta"]
DFIG1 = Statement(
    claim="N-fig1", where="Figure 1",
    params=(Param("lambda_H", "rat", lo=0, hi=R(7, 10), hi_open=False),),
    # the plotted curves: top level C_top, floor C_1 - C_r sqrt(lambda_H/lambda_W)/beta ((19)), L levels (steps)
    lhs=sympy.Max(sympy.Abs(FIG1_MAX.symbol - _Ct), sympy.Abs(FIG1_MIN.symbol - _fig1_floor),
                  sympy.Abs(FIG1_LEVELS.symbol - _L)), relation="=", rhs=sympy.Integer(0),
    fields=(Field("C_top", "constant", 1, "the top of the curves: sigma_max(F_kk) = 1"),
            Field("C_1", "constant", 1, "the 1 of the floor 1 - sqrt(lambda_H/lambda_W)/beta"),
            Field("C_r", "constant", 1, "the coefficient of sqrt(lambda_H/lambda_W)/beta"),
            Field("e_r", "exponent", R(1, 2), "the square root of lambda_H/lambda_W"),
            Field("L", "constant", 5, "the five steps of each curve (generic lambda_H)")),
    computed=(FIG1_MAX, FIG1_MIN, FIG1_LEVELS),
    witnesses=(Witness("identity", ({"lambda_H": R(1, 100)}, {"lambda_H": R(3, 10)}, {"lambda_H": R(7, 10)}),
                       "the plotted lambda_H (non-unit): the curves' top, floor and steps"),),
    budget=10, starts=0, seed=1,
)

STATEMENTS = (CDERIVS, LEMC3, LEMC4, C2DERIVATIVE, DSIGMAS, DRESIDUAL, DCOMMUTATION, DZBLOCKS, DMULAMBDA, DEIG, DFULLF,
              DFIG1)
