r"""Paper S, the upper bounds (sec. 3, Thms 3.1-3.2, Lemmas A.1-A.3): the outputs a user reads.

The formula S-thm3.1-C2 that users export with ``verify latex`` is evaluated, not only printed: :math:`C_2 = \mu_2`
against the moments integrated from the uniform, Laplace and Gaussian densities, and the chain's binomial against
the enumerated monomials. (The loss formulas and S-frame are evaluated the same way in the outputs checks of their
own parts.) What ``centred_slc_1d`` reports for the corrected Thm 3.2 - the mean it removed, the central moments and
the curvature range - is recomputed from a law whose values are known in closed form.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from verify.latex import get_formula
from verify.numeric.power_sums import monomial_exponents
from verify.numeric.upper_bounds import thm31_bound
from verify.symbolic.superposition_loss import mu, p


@pytest.mark.claim("S-thm3.1")
def test_exported_thm31_chain_against_moments_and_monomials(verdict):
    r"""S-thm3.1-C2: :math:`C_2 = \mu_2` with :math:`\mu_2` integrated from the uniform / Laplace / Gaussian
    densities (non-unit: 1/3, 2, 1), the chain's :math:`r \le \binom{d+m-1}{m} \le d^m` with the binomial equal
    to the enumerated monomials, both steps true on a grid and equal only where they should be (d = 1 or m = 1);
    the assembled bound equals ``thm31_bound`` (sharp and not) at p = 2/7."""
    chain = get_formula("S-thm3.1-C2").expr()
    Lt_MW, MW_r, r_binom, binom_dm, C2 = chain
    x = sympy.Symbol("x", real=True)
    dens = {"uniform": (sympy.Rational(1, 2), -1, 1), "laplace": (sympy.exp(-abs(x)) / 2, -sympy.oo, sympy.oo),
            "gaussian": (sympy.exp(-x ** 2 / 2) / sympy.sqrt(2 * sympy.pi), -sympy.oo, sympy.oo)}
    sym_d, sym_m, sym_r = (sympy.Symbol(s, positive=True) for s in ("d", "m", "r"))
    pr = sympy.Rational(2, 7)
    rows = []
    for name, (f, lo, hi) in dens.items():
        mu2 = sympy.integrate(x ** 2 * f, (x, lo, hi))
        assert C2.rhs.xreplace({mu(2): mu2}) == mu2
        for d_, m_ in ((1, 3), (2, 1), (3, 3), (4, 5)):
            count = len(monomial_exponents(d_, m_))                       # degree-m monomials, enumerated
            assert r_binom.rhs.xreplace({sym_d: d_, sym_m: m_}) == count
            # M(W) <= r p C_2 with r at its largest, then r <= d^m: the two forms of thm31_bound
            bound_r = MW_r.rhs.xreplace({sym_r: count, p: pr, mu(2): mu2})
            assert Fraction(str(bound_r)) == Fraction(thm31_bound(d_, Fraction(2, 7), m_, name, sharp=True))
            assert Fraction(str(bound_r * d_ ** m_ / count)) == Fraction(thm31_bound(d_, Fraction(2, 7), m_, name))
        rows.append({"mu": name, "mu2": str(mu2)})
    for d_ in range(1, 6):
        for m_ in range(1, 6):
            lhs, rhs = (e.xreplace({sym_d: d_, sym_m: m_}) for e in (binom_dm.lhs, binom_dm.rhs))
            assert binom_dm.xreplace({sym_d: d_, sym_m: m_}) == sympy.true
            assert (lhs == rhs) == (d_ == 1 or m_ == 1)                   # strict otherwise: the step is not trivial
    assert isinstance(Lt_MW, sympy.Le) and Lt_MW.lhs != Lt_MW.rhs
    verdict.verified(method="sym: exported chain evaluated; C_2 == mu_2 from the densities; binomial == enumerated "
                            "monomials; bound == thm31_bound", evidence={"moments": rows, "p": str(pr)})


@pytest.mark.claim("S-thm3.2", corrected=True)
def test_centred_slc_law_reports_the_mean_it_removed(verdict):
    r"""``centred_slc_1d(v, x)`` moves the law :math:`\propto e^{-v}` to mean 0 and reports the mean it removed, the
    central moments and the curvature range of :math:`v''`. For :math:`v = (x - 3/2)^2/(2 \cdot 5/4)` (the normal
    law with mean 3/2 and variance 5/4, off-centre and non-unit) these are sympy.stats' mean 3/2, central moments
    1, 0, 5/4, 0, 75/16 and :math:`v'' = 4/5` on both ends."""
    import sympy.stats as st

    from verify.numeric import upper_bounds as ub

    x = sympy.Symbol("x", real=True)
    mean, var = sympy.Rational(3, 2), sympy.Rational(5, 4)
    got = ub.centred_slc_1d((x - mean) ** 2 / (2 * var), x, 4)
    z = st.Normal("z", mean, sympy.sqrt(var))
    want_central = [1, 0] + [st.E((z - mean) ** k) for k in (2, 3, 4)]
    # 30-digit quadrature returned as float64: rounding only (1e-12 relative, 1e-12 absolute for the zero moments)
    assert got["mean"] == pytest.approx(float(st.E(z)), rel=1e-12)
    assert got["central"] == pytest.approx([float(c) for c in want_central], rel=1e-12, abs=1e-12)
    assert got["alpha"] == pytest.approx(float(1 / var), rel=1e-12) and got["beta"] == pytest.approx(0.8, rel=1e-12)
    verdict.verified(method="centred_slc_1d of a shifted normal law == sympy.stats mean and central moments",
                     evidence={"mean": got["mean"], "central": got["central"]})
