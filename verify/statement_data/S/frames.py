r"""Statement objects of paper S's frames over GF(2^r) (Lemmas 4.1, A.4).

The input law and the derived loss are :mod:`verify.statement_data.S._law`'s.

* ``S-lemA.4-weil`` (Lemma A.4): :math:`P = \sum_{i \le n} k_i x^i` over GF(2^r) of odd degree n:
  :math:`|\sum_x \psi(P(x))| \le (C n - D)\, 2^{r e}`, :math:`C = D = 1, e = 1/2`; the sum is computed over the
  whole field with galois.
* ``S-lemA.4-pow2`` (Lemma A.4, d = 2^r): the character-sum frame's coherence
  :math:`\max_{a \ne b}|(V^TV)_{ab}| \le (C m - D)\, 2^{-r e}`, :math:`C = D = 2, e = 1/2`; the coherence is the
  package's exact certificate (:func:`verify.numeric.frames.certify`, Walsh-Hadamard, integers).
* ``S-lemA.4-trace`` (Lemma A.4): :math:`\psi = (-1)^{\mathrm{tr}}` is an additive character of GF(2^r):
  :math:`\psi(a + b) = C\,\psi(a)^{e_a}\psi(b)^{e_b}`, :math:`C = e_a = e_b = 1` (tr GF(2)-linear into GF(2); in
  characteristic 2, :math:`-z = z`, so :math:`\psi(-z) = \psi(z)`); :math:`\psi` by galois' field trace.
* ``S-lemA.4-general`` (Lemma A.4, any d): the :math:`2^r`-row construction with :math:`A m` coefficients,
  :math:`2^r \le d < 2^{r+1}` (a hypothesis on the parameters d, r), its first :math:`d^m` columns and zero
  rows: coherence :math:`\le (C A m - D)\, 2^{-r e}`, :math:`A = 2` ("2m instead of m"), :math:`C = D = 2`,
  :math:`e = 1/2` (the Weil bound at degree 2Am - 1); the coherence is the package's exact certificate.
* ``S-lem4.1`` (Lemma 4.1) by that construction: :math:`|M_{ij}| \le C_m d^{-e}`,
  :math:`C_m = (4m - 2)\sqrt 2` (from :math:`2^r > d/2`), :math:`e = 1/2`, for d large enough that
  :math:`C_m d^{-e} < U`, :math:`U = 1` (the lemma's "< 1"); :math:`M_{ii} = 1` is the construction's
  normalisation, checked by the claim's checks.
* ``S-random-frames`` (after Lemma 4.1): seeded random sign frames (:math:`\pm 1/\sqrt d` entries,
  :func:`verify.numeric.frames.random_frame`) with :math:`N = d^m` columns reach only
  :math:`\max_{i \ne j}|\langle v_i, v_j\rangle| \ge C (\log^{e_l} N / d)^{e}`, :math:`C = 1`,
  :math:`e = 1/2`, :math:`e_l = 1` (the paper's :math:`\sqrt{\log d / d}` with :math:`\log N = m\log d`; the
  constant of its "~" is the C = 1 of this lower bound); the coherence is an exact integer over d.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy
from sympy import Rational as R

from ...statements import Computed, Field, Hypothesis, Param, Statement, Witness
from ._law import C, e, m

_K = tuple(f"k_{i}" for i in range(6))


def _char_sum(env):
    r""":math:`\sum_{x \in GF(2^r)} (-1)^{\mathrm{tr}\,P(x)}`, exactly (galois), for :math:`P = \sum_{i \le n} k_i x^i`
    with the coefficients reduced mod 2^r and a leading coefficient 1 where k_n = 0 (degree exactly n)."""
    from ...numeric.frames import field_of

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
    from ...numeric.frames import certify

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


# --------------------------------------------------------------------------- Lemma A.4: trace and character
def _psi(env, which):
    r""":math:`\psi(z) = (-1)^{\mathrm{tr}\,z}` at z = a, b or a + b (galois' field trace; a, b reduced mod 2^r)."""
    from ...numeric.frames import field_of

    r = int(env["r"])
    GF, q = field_of(r), 2 ** r
    x, y = GF(int(env["a"]) % q), GF(int(env["b"]) % q)
    z = {"a": x, "b": y, "ab": x + y}[which]
    return sympy.Integer(1 - 2 * int(z.field_trace()))


PSI = tuple(Computed(f"psi_{w}", lambda e, w=w: _psi(e, w), lambda e, w=w: float(_psi(e, w)), rf"\psi({t})")
            for w, t in (("a", "a"), ("b", "b"), ("ab", "a + b")))
ea_, eb_ = sympy.symbols("e_a e_b")
_trace_pts = tuple({"r": rr, "a": x, "b": y} for rr, x, y in ((2, 2, 3), (3, 1, 3), (5, 8, 1), (3, 1, 2), (4, 0, 5)))
TRACE = Statement(
    claim="S-lemA.4-trace", where="Lemma A.4",
    params=(Param("r", "int", values=(1, 2, 3, 4, 5, 6)), Param("a", "int", values=tuple(range(64))),
            Param("b", "int", values=tuple(range(64)))),
    lhs=PSI[2].symbol, relation="=", rhs=C * PSI[0].symbol ** ea_ * PSI[1].symbol ** eb_,
    fields=(Field("C", "constant", 1, "psi(a + b) = psi(a) psi(b): no factor"),
            Field("e_a", "exponent", 1, "psi(a) once"), Field("e_b", "exponent", 1, "psi(b) once")),
    computed=PSI,
    witnesses=(Witness("identity", _trace_pts, "an identity: every a, b of every GF(2^r); the data has "
                       "psi(a) = psi(b) = -1 (GF(4), GF(8), GF(32)) and psi(a) = -1, psi(b) = 1"),),
    budget=24, starts=0, seed=43,
)


# --------------------------------------------------------------------------- Lemma A.4, any d; Lemma 4.1
@lru_cache(maxsize=None)
def _coherence_general(dd: int, mm: int):
    from ...numeric.frames import certify_general

    cert = certify_general(dd, mm)
    return sympy.Rational(cert.max_abs_sum, 2 ** (dd.bit_length() - 1))


COHERENCE_GENERAL = Computed("mu_V", lambda e: _coherence_general(int(e["d"]), int(e["m"])),
                             lambda e: float(_coherence_general(int(e["d"]), int(e["m"]))),
                             r"\max_{a \ne b} |(V^T V)_{ab}|")
A_ = sympy.Symbol("A")
d_ = sympy.Symbol("d")
GENERAL = Statement(
    claim="S-lemA.4-general", where="Lemma A.4",
    params=(Param("d", "int", values=tuple(range(2, 41))), Param("r", "int", values=(1, 2, 3, 4, 5)),
            Param("m", "int", values=(1, 2, 3))),
    lhs=COHERENCE_GENERAL.symbol, relation="<=", rhs=(C * A_ * m - sympy.Symbol("D")) * 2 ** (-r_ * e),
    fields=(Field("A", "constant", 2, "2m instead of m coefficients"), Field("C", "constant", 2, "the 2 of 2m - 2"),
            Field("D", "constant", 2, "the 2 of 2m - 2"), Field("e", "exponent", R(1, 2), "1 / sqrt(2^r)")),
    hypotheses=(Hypothesis("2^r <= d < 2^(r+1)", sympy.And(2 ** r_ <= d_, d_ < 2 ** (r_ + 1)),
                           outside=({"d": 5, "r": 4, "m": 1},)),),  # a field too large for d: 1 > 2/4
    computed=(COHERENCE_GENERAL,),
    witnesses=(Witness("attained", ({"d": 5, "r": 2, "m": 1}, {"d": 7, "r": 2, "m": 1}, {"d": 17, "r": 4, "m": 1},
                                    {"d": 31, "r": 4, "m": 1}),
                       "m = 1, 2^r = 4 and 16: the certificates reach (4m - 2) / sqrt(2^r) exactly"),
               Witness("slack", ({"d": 20, "r": 4, "m": 2}, {"d": 9, "r": 3, "m": 1}),
                       "d = 20, m = 2: coherence 1 < 6/4; d = 9, m = 1: 1/2 < 2/sqrt(8)")),
    budget=24, starts=0, seed=44,
)

Cm_, U_ = sympy.symbols("C_m U")
LEM41 = Statement(
    claim="S-lem4.1", where="Lemma 4.1",
    params=(Param("d", "int", values=tuple(range(2, 81))), Param("m", "int", values=(1, 2))),
    lhs=COHERENCE_GENERAL.symbol, relation="<=", rhs=Cm_ * d_ ** (-e),
    fields=(Field("C_m", "constant", (4 * m - 2) * sympy.sqrt(2), "(4m - 2) / sqrt(2^r) with 2^r > d / 2"),
            Field("e", "exponent", R(1, 2), "d^(-1/2)"), Field("U", "constant", 1, "the 1 of C_m d^(-1/2) < 1")),
    hypotheses=(Hypothesis("d large: C_m d^(-1/2) < 1", Cm_ * d_ ** (-e) < U_,
                           not_needed="the Weil bound gives |M_ij| <= C_m d^(-1/2) for every d; d large is what "
                                      "makes the bound < 1"),),
    computed=(COHERENCE_GENERAL,),
    witnesses=(Witness("approached", ({"d": 31, "m": 1}, {"d": 7, "m": 1}, {"d": 3, "m": 1}),
                       "m = 1, d = 2^(r+1) - 1: |M_ij| = 2 / sqrt(2^r) = C_m d^(-1/2) sqrt(d / 2^(r+1))"),
               Witness("slack", ({"d": 80, "m": 2},), "d = 80, m = 2: coherence 1/2 < 6 sqrt(2) / sqrt(80)")),
    strict_holds="2^r > d / 2 strictly (d < 2^(r+1)), so (4m - 2) / sqrt(2^r) < (4m - 2) sqrt(2) / sqrt(d)",
    budget=60, starts=0, seed=45,
)


# --------------------------------------------------------------------------- random frames
@lru_cache(maxsize=None)
def _random_sign_coherence(dd: int, mm: int, seed: int):
    r"""Coherence of the seeded random sign frame (:math:`d \times d^m`), exactly: max |integer Gram| / d; the
    Gram of the +-1 matrix in float32 is exact (|entries| <= d < 2^24)."""
    from ...numeric.frames import random_frame

    S = np.rint(random_frame(dd, dd ** mm, "sign", seed=seed) * np.sqrt(dd)).astype(np.float32)
    G = S.T @ S
    np.fill_diagonal(G, 0)
    return sympy.Rational(int(np.abs(G).max()), dd)


RANDOM_COHERENCE = Computed("mu_rand", lambda e: _random_sign_coherence(int(e["d"]), int(e["m"]), int(e["seed"])),
                            lambda e: float(_random_sign_coherence(int(e["d"]), int(e["m"]), int(e["seed"]))),
                            r"\max_{i \ne j}|\langle v_i, v_j\rangle|")
el_ = sympy.Symbol("e_l")
RANDOM = Statement(
    claim="S-random-frames", where="after Lemma 4.1",
    params=(Param("d", "int", values=(8, 16, 32)), Param("m", "int", values=(2,)),
            Param("seed", "int", values=(0, 1, 2))),
    lhs=RANDOM_COHERENCE.symbol, relation=">=", rhs=C * (sympy.log(d_ ** m) ** el_ / d_) ** e,
    fields=(Field("C", "constant", 1, "the constant of sqrt(log d / d), up to which random frames reach"),
            Field("e", "exponent", R(1, 2), "the square root"), Field("e_l", "exponent", 1, "log to the power 1")),
    computed=(RANDOM_COHERENCE,),
    witnesses=(Witness("slack", tuple({"d": dd, "m": 2, "seed": sd} for dd in (8, 16, 32) for sd in (0, 2)),
                       "the seeded frames: coherence / sqrt(log N / d) between 1.38 and 1.75"),),
    budget=9, starts=0, seed=46,
)

STATEMENTS = (LEM41, TRACE, WEIL, POW2, GENERAL, RANDOM)
