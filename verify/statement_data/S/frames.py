r"""Statement objects of paper S's frames over GF(2^r) (Lemma A.4).

The input law and the derived loss are :mod:`verify.statement_data.S._law`'s.

* ``S-lemA.4-weil`` (Lemma A.4): :math:`P = \sum_{i \le n} k_i x^i` over GF(2^r) of odd degree n:
  :math:`|\sum_x \psi(P(x))| \le (C n - D)\, 2^{r e}`, :math:`C = D = 1, e = 1/2`; the sum is computed over the
  whole field with galois.
* ``S-lemA.4-pow2`` (Lemma A.4, d = 2^r): the character-sum frame's coherence
  :math:`\max_{a \ne b}|(V^TV)_{ab}| \le (C m - D)\, 2^{-r e}`, :math:`C = D = 2, e = 1/2`; the coherence is the
  package's exact certificate (:func:`verify.numeric.frames.certify`, Walsh-Hadamard, integers).
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

STATEMENTS = (WEIL, POW2,)
