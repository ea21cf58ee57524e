"""Curated mutants for paper S's lower-bound claims (Thm 4.2, eqs. 19-22, Remark 4.3 attained; see
:mod:`verify.mutants`). Each is a plausible one-line wrong edit of the package code that the claim's own checks
in ``proofs_checks/S/lower_bound/`` exercise; every one must be killed by those checks."""

from verify.mutants import Mutant

LB = "verify/numeric/lower_bound.py"
LBS = "verify/symbolic/lower_bound.py"
DIST = "verify/numeric/distributions.py"

_T_SUMS = "        T = {e: sum((Fraction(int(n) * v ** e, d ** e) for n, v in zip(c, values)), Fraction(0))"

MUTANTS = [
    # ---------------------------------------------------------------- S-eq19
    Mutant("S-eq19", LBS,
           "    g = 2 * u * a_sym - u ** 2 * b_sym              # g(t) with u = t^m",
           "    g = u * a_sym - u ** 2 * b_sym              # g(t) with u = t^m",
           "factor 2 of the cross term dropped: t*^m = a/(2b), sup = a^2/(4b)"),
    Mutant("S-eq19", LB,
           "        a += mult * c",
           "        a += c",
           "numerator: a row pattern counted once instead of with its multiplicity"),
    Mutant("S-eq19", LBS,
           "    sub = {sym.a: t_sym * sym.a, **{sym.T(e): t_sym ** e * sym.T(e) for e in range(2, 2 * m + 1, 2)}}",
           "    sub = {sym.a: t_sym * sym.a, **{sym.T(e): t_sym ** (e // 2) * sym.T(e) for e in range(2, 2 * m + 1, 2)}}",
           "homogeneity: T_e scaled by t^(e/2) instead of t^e"),
    # ---------------------------------------------------------------- S-eq21
    Mutant("S-eq21", LB,
           "    mus = [as_fraction(dist.moment(e)) for e in range(2, 2 * m + 1, 2)]",
           "    mus = [as_fraction(dist.moment(e + 2)) for e in range(2, 2 * m + 1, 2)]",
           "row terms evaluated with the moments shifted by one even order"),
    Mutant("S-eq21", LB, _T_SUMS, _T_SUMS.replace("d ** e)", "d ** (e - 1))"),
           "frame statistics: off-diagonal sums with M_ij = S/d^(1-1/e), a wrong normalisation"),
    Mutant("S-eq21", LB,
           "    box[:k] = 1",
           "    box[:k - 1] = 1",
           "XOR convolution over the first k - 1 columns (off by one)"),
    Mutant("S-eq21", DIST,
           "        return sympy.factorial(k) * self.param ** k",
           "        return sympy.factorial(k - 1) * self.param ** k",
           "wrong Laplace moment table: (k-1)! b^k instead of k! b^k"),
    # ---------------------------------------------------------------- S-eq22
    Mutant("S-eq22", LB,
           "    return max(pf * k, pf ** m * k * (1 + Fraction(k, d)) ** m)",
           "    return max(pf * k, pf ** m * k * (1 + Fraction(k, d)) ** (m - 1))",
           "bound too small: (1 + k/d)^(m-1)"),
    Mutant("S-eq22", LB,
           "    return max(pf * k, pf ** m * k * (1 + Fraction(k, d)) ** m)",
           "    return max(pf * k * d, pf ** m * k * (1 + Fraction(k, d)) ** m)",
           "bound too large: pkd instead of pk"),
    Mutant("S-eq22", DIST,
           "        return sympy.factorial2(k - 1) * self.param ** (k // 2)",
           "        return sympy.factorial2(k - 3) * self.param ** (k // 2)",
           "wrong Gaussian moment table: (k-3)!! instead of (k-1)!!"),
    # ---------------------------------------------------------------- S-thm4.2
    Mutant("S-thm4.2", LB,
           "        k = int(mpmath.nint(d * _root(pf, m) / _mpq(pf)))",
           "        k = int(mpmath.nint(_root(pf, m) / _mpq(pf)))",
           "the paper's k without its factor d"),
    Mutant("S-thm4.2", LB,
           "    if pf * d ** m <= 1:",
           "    if pf * d ** (m - 1) <= 1:",
           "wrong crossover of the paper's k: p <= d^-(m-1)"),
    Mutant("S-thm4.2", LB,
           "        target = min(_mpq(pf) * d ** m, d * _root(pf, m))",
           "        target = min(_mpq(pf) * d ** (m - 1), d * _root(pf, m))",
           "target too small on the small-p branch: p d^(m-1)"),
    Mutant("S-thm4.2", LB,
           "    sup = a * a / b",
           "    sup = a / b",
           "supremum over t taken as t*^m = a/b instead of a^2/b"),
    # ---------------------------------------------------------------- S-rem4.3-attained
    Mutant("S-rem4.3-attained", LB,
           "    Sigma = N * (1 + T[2 * m])",
           "    Sigma = N * (1 + T[2 * m - 2])",
           "F of the frame with the (2m-2)-th power sums"),
    Mutant("S-rem4.3-attained", LB,
           "    F = Fraction(N * N) / Sigma",
           "    F = Fraction(N) / Sigma",
           "F* = N/Sigma instead of N^2/Sigma: F/d^m of order d^-m"),
    Mutant("S-rem4.3-attained", LB, _T_SUMS, _T_SUMS.replace("d ** e)", "d ** (e - 1))"),
           "frame statistics: off-diagonal sums with a wrong normalisation"),
]
