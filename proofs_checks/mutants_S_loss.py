"""Curated mutants for paper S's exact-loss claims (see :mod:`verify.mutants`)."""

from verify.mutants import Mutant

MUTANTS = [
    Mutant("S-eq10", "verify/numeric/distributions.py",
           "        return sympy.factorial2(k - 1) * self.param ** (k // 2)",
           "        return sympy.factorial2(k - 1) * self.param ** (k // 2) / (1 + (k == 4))",
           "wrong Gaussian fourth moment (3/2 instead of 3)"),
]
