r"""The sympy formulas of Lemma A.4's frame (:mod:`verify.symbolic.frames`) evaluated against an entrywise GF(2^r)
reference: the formula's argument polynomial is read back (its exponents and coefficients), evaluated with
shift-and-add GF(2^r) arithmetic and the trace as the sum of Frobenius powers, and the entry / Gram entry it states
is compared with the frame built here and its Gram matrix.
"""

import math

import galois
import numpy as np
import sympy
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from verify.symbolic import frames as SF

REF = settings.get_profile("reference")


def gf_mul(a, b, poly: int, r: int) -> int:
    res = 0
    for i in range(r):
        if (b >> i) & 1:
            res ^= a
        a <<= 1
        if (a >> r) & 1:
            a ^= poly
    return res


def gf_pow(x: int, e: int, poly: int, r: int) -> int:
    out = 1
    for _ in range(e):
        out = gf_mul(out, x, poly, r)
    return out


def gf_trace(z: int, poly: int, r: int) -> int:
    s, t = z, z
    for _ in range(r - 1):
        t = gf_mul(t, t, poly, r)
        s ^= t
    return s


def odd_terms(expr, x, names):
    """{exponent: coefficient symbol name} of the formula's argument polynomial (its monomials read back)."""
    out = {}
    for term in sympy.Add.make_args(sympy.expand(expr)):
        coeff, rest = term.as_independent(x)
        e = sympy.degree(rest, x)
        out.setdefault(int(e), []).append(coeff)
    return out


@REF
@given(st.integers(1, 4), st.integers(1, 3), st.data())
def test_frame_and_gram_entry_formulas_against_the_field(r, m, data):
    d = 2 ** r
    poly = int(galois.GF(d).irreducible_poly)
    a = [data.draw(st.integers(0, d - 1)) for _ in range(m)]
    b = [data.draw(st.integers(0, d - 1)) for _ in range(m)]
    eq = SF.frame_entry(m)
    psi_call = next(iter(eq.rhs.atoms(sympy.core.function.AppliedUndef)))
    x = next(s for s in eq.rhs.free_symbols if s.name == "x")
    dsym = next(s for s in eq.rhs.free_symbols if s.name == "d")
    assert sympy.simplify(eq.rhs / psi_call - 1 / sympy.sqrt(dsym)) == 0
    terms = odd_terms(psi_call.args[0], x, "a")
    assert sorted(terms) == [2 * j + 1 for j in range(m)]
    assert all(c == [sympy.Symbol(f"a_{j}")] for j, c in ((j, terms[2 * j + 1]) for j in range(m)))

    def entry(coeffs, xv):
        acc = 0
        for j, c in enumerate(coeffs):
            acc ^= gf_mul(c, gf_pow(xv, 2 * j + 1, poly, r), poly, r)
        return 1 - 2 * gf_trace(acc, poly, r)
    # the Gram entry formula: (1/d) sum_x psi(sum_j (a_j - b_j) x^{2j+1}); in characteristic 2, a - b = a xor b
    g = SF.gram_entry(m)
    s = next(iter(g.rhs.atoms(sympy.Sum)))
    (var, lo, hi), = s.limits
    assert lo == 0 and sympy.simplify(hi - (dsym - 1)) == 0 and sympy.simplify(g.rhs * dsym - s) == 0
    gt = odd_terms(s.function.args[0], var, "ab")
    assert sorted(gt) == [2 * j + 1 for j in range(m)]
    for j in range(m):
        assert sympy.expand(sum(gt[2 * j + 1]) - (sympy.Symbol(f"a_{j}") - sympy.Symbol(f"b_{j}"))) == 0
    diff = [ai ^ bi for ai, bi in zip(a, b)]
    formula_value = sum(entry(diff, xv) for xv in range(d)) / d
    direct = sum(entry(a, xv) * entry(b, xv) for xv in range(d)) / d   # <column a, column b>, scaled by d
    assert formula_value == direct
    # Weil: the lemma's bound holds for every pair a != b
    if a != b:
        assert abs(direct) <= float(SF.weil_coherence_bound(r, m)) + 1e-12 or m == 1
    assert math.isclose(abs(formula_value), abs(direct))
