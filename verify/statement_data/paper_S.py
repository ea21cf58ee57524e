r"""Statement objects of paper S (tied autoencoder :math:`x' = \phi(W^T W x)`, :math:`\phi(t) = t^m`).

The input law is :math:`x_i = \xi_i b_i`, :math:`b_i \sim` Bernoulli(p), :math:`\xi_i \sim N(0, s)` (a variance
``s`` of its own, so the statements are checked off the unit scale): :math:`\mu_k = s^{k/2}(k-1)!!` for even k.
:math:`\tilde L` is the package's derived exact loss (:func:`verify.symbolic.superposition_loss.row_polynomial`,
evaluated in exact rationals), never a restatement of the claim under test.

* ``S-eq9`` (eq. 9): :math:`A` diagonal: :math:`\tilde L = p\sum_i (C\mu_{m+1}A_{ii}^{e_1} - \mu_{2m}A_{ii}^{e_2})`,
  :math:`C = 2, e_1 = m, e_2 = 2m` (n = 2).
* ``S-eq6`` (eqs. 6-7): :math:`\mathcal L(W) = C p^{e_p} n^{e_n} \mu_2^{e_\mu} - \tilde L(W)`, all 1;
  :math:`\mathcal L` by the package's brute-force route (sparsity patterns enumerated, moments replaced).
* ``S-eq10`` (eq. 10): :math:`d\,\sup_{a > 0}` of eq. (9)'s row term :math:`= C p^{e_p} d^{e_d}
  \mu_{m+1}^{e_1}\mu_{2m}^{e_2}`, :math:`C = 1, e_p = e_d = 1, e_1 = 2, e_2 = -1`.
* ``S-eq19`` (eqs. 19-20): :math:`\sup_{t > 0}(C_a t^{e_1} a - t^{e_2} b) = C a^{e_a} b^{e_b}`,
  :math:`C_a = 2, e_1 = m, e_2 = 2m, C = 1, e_a = 2, e_b = -1`.
* ``S-linear`` (sec. 2): :math:`m = 1`: :math:`\tilde L(W) \le C p^{e_p}\mu_2^{e_\mu} d^{e_d}`, all 1.
* ``S-eq12`` (eqs. 12-13): odd :math:`\psi` of degree <= 5, :math:`\mathbb E\psi(x)^2 = 1`:
  :math:`|\mathbb E[x\psi(x)]|^{e} \le C p^{e_p}\mu_2^{e_\mu}`, :math:`e = 2`, the rest 1.
* ``S-thm3.1`` (Thm 3.1): :math:`\tilde L(W) \le C_2 p^{e_p} d^{e_d}`, :math:`C_2 = \mu_2, e_p = 1, e_d = m`.
* ``S-lemA.4-weil`` (Lemma A.4): :math:`P = \sum_{i \le n} k_i x^i` over GF(2^r) of odd degree n:
  :math:`|\sum_x \psi(P(x))| \le (C n - D)\, 2^{r e}`, :math:`C = D = 1, e = 1/2`; the sum is computed over the
  whole field with galois.
* ``S-lemA.4-pow2`` (Lemma A.4, d = 2^r): the character-sum frame's coherence
  :math:`\max_{a \ne b}|(V^TV)_{ab}| \le (C m - D)\, 2^{-r e}`, :math:`C = D = 2, e = 1/2`; the coherence is the
  package's exact certificate (:func:`verify.numeric.frames.certify`, Walsh-Hadamard, integers).
* ``S-lemA.2`` (Lemma A.2), 2 x 2: :math:`A = [[a, b], [b, c]] \succ 0`:
  :math:`b^2/c \le C \|A\|_{op}^{e}`, :math:`C = e = 1`.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np

import sympy
from sympy import Rational as R

from ..statements import Computed, Field, Hypothesis, Param, Statement, Sup, Witness

m, p, s, d, n = sympy.symbols("m p s d n")
a1, a2, a, b, c, t = sympy.symbols("a_1 a_2 a b c t")


def mu(k):
    r""":math:`\mu_k` of :math:`N(0, s)` for even k (k may be an expression in m)."""
    k = sympy.sympify(k)
    return s ** (k / 2) * sympy.factorial2(k - 1)


@lru_cache(maxsize=None)
def _row_function(mm: int):
    from ..symbolic.superposition_loss import row_polynomial, row_symbols

    return sympy.lambdify(row_symbols(mm), row_polynomial(mm), modules="math")  # integer coefficients: exact on Fractions


def _ltilde(A, pp, ss, mm: int, exact: bool):
    """The derived exact loss at the symmetric matrix A (rows through the row polynomial), in Fractions or floats."""
    A = [[Fraction(int(x.p), int(x.q)) if exact else float(x) for x in row] for row in A.tolist()]
    pp = Fraction(int(pp.p), int(pp.q)) if exact else float(pp)
    ss_ = Fraction(int(ss.p), int(ss.q)) if exact else float(ss)
    mus = [ss_ ** (k // 2) * int(sympy.factorial2(k - 1)) for k in range(2, 2 * mm + 1, 2)]
    f = _row_function(mm)
    total = 0
    for i, row in enumerate(A):
        Ts = [sum(row[j] ** k for j in range(len(row)) if j != i) for k in range(2, 2 * mm + 1, 2)]
        total += f(pp, *mus, row[i], *Ts)
    return sympy.Rational(total.numerator, total.denominator) if exact else float(total)


def _ltilde_W(env, exact):
    W = env["W"]
    A = W.T @ W if isinstance(W, np.ndarray) else W.T * W  # float64 array in the search, sympy matrix when exact
    return _ltilde(A, env["p"], env["s"], int(env["m"]), exact)


def _ltilde_diag(env, exact):
    return _ltilde(sympy.diag(env["a_1"], env["a_2"]), env["p"], env["s"], int(env["m"]), exact)


LTILDE_W = Computed("Ltilde", lambda e: _ltilde_W(e, True), lambda e: _ltilde_W(e, False), r"\tilde L(W)")
LTILDE_DIAG = Computed("Ltilde", lambda e: _ltilde_diag(e, True), lambda e: _ltilde_diag(e, False),
                       r"\tilde L(\mathrm{diag}(a_1, a_2))")
def _loss_L(env):
    from ..symbolic.superposition_loss import brute_force_loss
    from ..symbolic.superposition_loss import p as p_sym

    W, mm, ss = env["W"], int(env["m"]), env["s"]
    expr = brute_force_loss(W.T * W, mm, moments=lambda k: ss ** sympy.Rational(k, 2) * sympy.factorial2(k - 1),
                            objective="L")
    return sympy.expand(expr.xreplace({p_sym: env["p"]}))


LOSS_L = Computed("L", _loss_L, lambda e: float(_loss_L(e)), r"\mathcal L(W)")
_P = Param("p", "rat", lo=0, hi=1, hi_open=False)
_S = Param("s", "rat", lo=0, hi=None)
C, Ca, e1, e2, ep, ed, emu, ea, eb, e = sympy.symbols("C C_a e_1 e_2 e_p e_d e_mu e_a e_b e")

_diag_pts = tuple({"m": mm, "p": pp, "s": ss, "a_1": x, "a_2": y}
                  for mm, pp, ss, x, y in ((1, R(1, 3), R(2), R(1, 2), R(3, 2)), (3, R(1, 2), R(1, 3), R(2), R(1, 3)),
                                            (3, R(1), R(3), R(1), R(0))))
EQ9 = Statement(
    claim="S-eq9", where="eq. (9)",
    params=(Param("m", "int", values=(1, 3)), _P, _S, Param("a_1", "rat", lo=0, hi=3, lo_open=False),
            Param("a_2", "rat", lo=0, hi=3, lo_open=False)),
    lhs=LTILDE_DIAG.symbol, relation="=",
    rhs=p * (Ca * mu(m + 1) * (a1 ** e1 + a2 ** e1) - mu(2 * m) * (a1 ** e2 + a2 ** e2)),
    fields=(Field("C_a", "constant", 2, "the 2 of 2E<x, phi(Ax)>"), Field("e_1", "exponent", m),
            Field("e_2", "exponent", 2 * m)),
    computed=(LTILDE_DIAG,),
    witnesses=(Witness("identity", _diag_pts, "an identity in A_ii: any point"),),
    budget=24, starts=1, seed=9,
)

_row = p * (2 * mu(m + 1) * t ** m - mu(2 * m) * t ** (2 * m))
_eq10_pts = tuple({"m": mm, "p": pp, "s": ss, "d": dd}
                  for mm, pp, ss, dd in ((1, R(1, 3), R(2), 2), (3, R(1, 2), R(1, 3), 3), (3, R(1), R(3), 1)))
EQ10 = Statement(
    claim="S-eq10", where="eq. (10)",
    params=(Param("m", "int", values=(1, 3)), _P, _S, Param("d", "int", values=(1, 2, 3))),
    lhs=d * sympy.Symbol("rowsup"), relation="=",
    rhs=C * p ** ep * d ** ed * mu(m + 1) ** e1 * mu(2 * m) ** e2,
    fields=(Field("C", "constant", 1), Field("e_p", "exponent", 1), Field("e_d", "exponent", 1),
            Field("e_1", "exponent", 2, "mu_{m+1}^2"), Field("e_2", "exponent", -1, "1 / mu_{2m}")),
    sups=(Sup("rowsup", t, _row, r"\text{row term of (9)}"),),
    witnesses=(Witness("identity", _eq10_pts, "eq. (10) is an equality for every m, p, s, d"),),
    budget=24, starts=1, seed=10,
)

_eq19_pts = tuple({"m": mm, "a": x, "b": y} for mm, x, y in ((1, R(1, 2), R(3)), (3, R(2), R(1, 5)), (5, R(7), R(7))))
EQ19 = Statement(
    claim="S-eq19", where="eq. (19)-(20)",
    params=(Param("m", "int", values=(1, 3, 5)), Param("a", "rat", lo=0, hi=None), Param("b", "rat", lo=0, hi=None)),
    lhs=sympy.Symbol("sup_t"), relation="=", rhs=C * a ** ea * b ** eb,
    fields=(Field("C_a", "constant", 2), Field("e_1", "exponent", m), Field("e_2", "exponent", 2 * m),
            Field("C", "constant", 1), Field("e_a", "exponent", 2), Field("e_b", "exponent", -1)),
    sups=(Sup("sup_t", t, Ca * t ** e1 * a - t ** e2 * b, ""),),
    witnesses=(Witness("identity", _eq19_pts, "an identity in a, b > 0"),),
    budget=24, starts=1, seed=19,
)


def _proj(dd, nn):
    return sympy.Matrix(dd, nn, lambda i, j: 1 if i == j else 0)


_lin_att = tuple({"m": 1, "d": dd, "n": nn, "p": pp, "s": ss, "W": _proj(dd, nn)}
                 for dd, nn in ((1, 2), (2, 2), (2, 3)) for pp, ss in ((R(1, 3), R(1, 2)), (R(1), R(3)), (R(1, 2), R(5))))
_lin_slack = tuple({"m": 1, "d": 2, "n": 3, "p": R(1, 2), "s": R(2), "W": sympy.zeros(2, 3)} for _ in (0,))
_dn = (Param("d", "int", values=(1, 2)), Param("n", "int", values=(2, 3)))
_W = Param("W", "matrix", lo=-2, hi=2, shape=("d", "n"))
LINEAR = Statement(
    claim="S-linear", where="sec. 2",
    params=(Param("m", "int", values=(1,)), *_dn, _P, _S, _W),
    lhs=LTILDE_W.symbol, relation="<=", rhs=C * p ** ep * mu(2) ** emu * d ** ed,
    fields=(Field("C", "constant", 1), Field("e_p", "exponent", 1), Field("e_mu", "exponent", 1),
            Field("e_d", "exponent", 1)),
    computed=(LTILDE_W,),
    witnesses=(Witness("attained", _lin_att, "rank-d orthogonal projections A = W^T W attain p mu_2 d"),
               Witness("slack", _lin_slack, "W = 0: Ltilde = 0")),
    budget=40, starts=3, seed=11,
)

THM31 = Statement(
    claim="S-thm3.1", where="Thm 3.1, Thm 2.2(1)",
    params=(Param("m", "int", values=(1, 3)), *_dn, _P, _S, _W),
    lhs=LTILDE_W.symbol, relation="<=", rhs=sympy.Symbol("C_2") * p ** ep * d ** ed,
    fields=(Field("C_2", "constant", mu(2), "C_2 = mu_2, the proof's constant"), Field("e_p", "exponent", 1),
            Field("e_d", "exponent", m)),
    computed=(LTILDE_W,),
    witnesses=(Witness("attained", _lin_att, "m = 1: rank-d projections attain mu_2 p d^m"),
               Witness("slack", _lin_slack, "W = 0: Ltilde = 0")),
    budget=40, starts=3, seed=31,
)

c1, c3, c5 = sympy.symbols("c_1 c_3 c_5")
_cs = (c1, c3, c5)
_exps = sympy.Integer(0) + sum(cj * mu(2 * j + 2) for j, cj in enumerate(_cs))  # E[xi psi(xi)]
_epsi2 = sum(ci * cj * mu(2 * i + 2 * j + 2) for i, ci in enumerate(_cs) for j, cj in enumerate(_cs))
_eq6_pts = tuple({"m": mm, "d": 2, "n": 2, "p": pp, "s": ss, "W": sympy.Matrix([[1, R(1, 2)], [R(-1, 3), 2]])}
                 for mm, pp, ss in ((1, R(1, 3), R(2)), (3, R(1, 2), R(1, 3))))
EQ6 = Statement(
    claim="S-eq6", where="eq. (6)-(7)",
    params=(Param("m", "int", values=(1, 3)), Param("d", "int", values=(1, 2)), Param("n", "int", values=(2, 3)),
            _P, _S, Param("W", "matrix", lo=-2, hi=2, shape=("d", "n"))),
    lhs=LOSS_L.symbol, relation="=", rhs=C * p ** ep * n ** sympy.Symbol("e_n") * mu(2) ** emu - LTILDE_W.symbol,
    fields=(Field("C", "constant", 1), Field("e_p", "exponent", 1), Field("e_n", "exponent", 1),
            Field("e_mu", "exponent", 1)),
    computed=(LOSS_L, LTILDE_W),
    witnesses=(Witness("identity", _eq6_pts, "an identity in W: any point"),),
    budget=12, starts=0, seed=6,
)

_eq12_att = tuple({"p": pp, "s": ss, "c_1": k, "c_3": 0, "c_5": 0}
                  for pp, ss, k in ((R(1, 2), R(3), 1), (R(1), R(1, 5), R(2)), (R(1, 10), R(1, 10), R(-1)),
                                    (R(1), R(4), 1)))
EQ12 = Statement(
    claim="S-eq12", where="eq. (12)-(13)",
    params=(_P, _S, *(Param(str(x), "rat", lo=-2, hi=2) for x in _cs)),
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

_K = tuple(f"k_{i}" for i in range(6))


def _char_sum(env):
    r""":math:`\sum_{x \in GF(2^r)} (-1)^{\mathrm{tr}\,P(x)}`, exactly (galois), for :math:`P = \sum_{i \le n} k_i x^i`
    with the coefficients reduced mod 2^r and a leading coefficient 1 where k_n = 0 (degree exactly n)."""
    from ..numeric.frames import field_of

    r, nn = int(env["r"]), int(env["n"])
    GF, q = field_of(r), 2 ** r
    X = GF(np.arange(q))
    ks = [int(env[k]) % q for k in _K[:nn + 1]]
    ks[nn] = ks[nn] or 1
    v = GF(np.zeros(q, dtype=np.int64))
    for i, k in enumerate(ks):
        v = v + GF(k) * X ** i
    return sympy.Integer(int((1 - 2 * np.asarray(v.field_trace(), dtype=np.int64)).sum()))


CHARSUM = Computed("S_P", _char_sum, lambda e: float(_char_sum(e)), r"\sum_x \psi(P(x))")
r_, n_ = sympy.symbols("r n")
_weil_pts = ({"r": 2, "n": 3, "k_0": 0, "k_1": 0, "k_2": 0, "k_3": 1, "k_4": 0, "k_5": 0},
             {"r": 4, "n": 3, "k_0": 0, "k_1": 0, "k_2": 0, "k_3": 1, "k_4": 0, "k_5": 0})
WEIL = Statement(
    claim="S-lemA.4-weil", where="Lemma A.4",
    params=(Param("r", "int", values=(1, 2, 3, 4, 5)), Param("n", "int", values=(1, 2, 3, 4, 5)),
            *(Param(k, "int", values=tuple(range(32))) for k in _K)),
    lhs=sympy.Abs(CHARSUM.symbol), relation="<=", rhs=(C * n_ - sympy.Symbol("D")) * 2 ** (r_ * e),
    fields=(Field("C", "constant", 1, "the slope of deg P - 1"), Field("D", "constant", 1, "the 1 of deg P - 1"),
            Field("e", "exponent", R(1, 2), "sqrt(2^r)")),
    hypotheses=(Hypothesis("deg P odd", sympy.Eq(sympy.Mod(n_, 2), 1),
                           outside=({"r": 2, "n": 2, "k_0": 0, "k_1": 1, "k_2": 1, "k_3": 0, "k_4": 0, "k_5": 0},)),),
    witnesses=(Witness("attained", _weil_pts, "P = x^3 over GF(4) and GF(16): |sum| = 2 sqrt(2^r), computed once "
                       "by brute force"),
               Witness("slack", ({"r": 3, "n": 3, "k_0": 0, "k_1": 0, "k_2": 0, "k_3": 1, "k_4": 0, "k_5": 0},),
                       "P = x^3 over GF(8): the sum is 0")),
    computed=(CHARSUM,),
    budget=120, starts=0, seed=41,
)

@lru_cache(maxsize=None)
def _coherence(r: int, mm: int):
    from ..numeric.frames import certify

    return sympy.Rational(certify(r, mm).coherence_exact)


COHERENCE = Computed("mu_V", lambda e: _coherence(int(e["r"]), int(e["m"])),
                     lambda e: float(_coherence(int(e["r"]), int(e["m"]))), r"\max_{a \ne b} |(V^T V)_{ab}|")
POW2 = Statement(
    claim="S-lemA.4-pow2", where="Lemma A.4",
    params=(Param("r", "int", values=(2, 3, 4, 5)), Param("m", "int", values=(2, 3))),
    lhs=COHERENCE.symbol, relation="<=", rhs=(C * m - sympy.Symbol("D")) * 2 ** (-r_ * e),
    fields=(Field("C", "constant", 2, "the 2 of 2m - 2"), Field("D", "constant", 2, "the 2 of 2m - 2"),
            Field("e", "exponent", R(1, 2), "1 / sqrt(d), d = 2^r")),
    computed=(COHERENCE,),
    witnesses=(Witness("attained", ({"r": 2, "m": 2}, {"r": 4, "m": 2}, {"r": 4, "m": 3}),
                       "the certificates at d = 4 and 16 reach (2m - 2)/sqrt(d) exactly"),
               Witness("slack", ({"r": 3, "m": 2},), "d = 8, m = 2: coherence 1/2 < 2/sqrt(8)")),
    budget=16, starts=0, seed=42,
)

STATEMENTS = (EQ6, EQ9, EQ10, LINEAR, EQ12, THM31, LEMA2, WEIL, POW2, EQ19)
