r"""Symmetric feature distributions :math:`\mu` of paper S with exact moments and a sampler.

Every distribution gives exact moments :math:`\mu_k = \int \xi^k \mu(d\xi)` as sympy numbers
(``.moment(k)``, ``.moments(K)`` = ``[mu_0, ..., mu_K]``) and draws samples for Monte Carlo
(``.sample(rng, shape)``). :func:`get_distribution` resolves names:

========================  =======================================================  ==========================
name                      distribution                                             :math:`\mu_{2k}`
========================  =======================================================  ==========================
``"gaussian"``            :math:`N(0, 1)`; ``"gaussian(s2)"`` :math:`N(0, s^2)`      :math:`(2k-1)!!\,s^{2k}`
``"uniform"``             uniform on :math:`[-1, 1]`; ``"uniform(h)"`` on [-h, h]   :math:`h^{2k}/(2k+1)`
``"laplace"``             density :math:`e^{-|x|/b}/(2b)`, b = 1; ``"laplace(b)"``  :math:`(2k)!\,b^{2k}`
``"rademacher"``          :math:`\pm 1` with probability 1/2 each                  :math:`1`
========================  =======================================================  ==========================

and :class:`MomentSequence` takes any user-given moments (validated).

>>> get_distribution("gaussian").moments(6)
[1, 0, 1, 0, 3, 0, 15]
>>> get_distribution("gaussian(1/2)").moment(4)
3/4
"""

from __future__ import annotations


import re
from typing import Any, Sequence

import mpmath
import numpy as np
import sympy

from .._validate import VerifyInputError, verify_int
from ..certified import is_psd

__all__ = ["Distribution", "Gaussian", "Uniform", "Laplace", "Rademacher", "MomentSequence",
           "get_distribution", "DISTRIBUTION_NAMES", "moment_by_quadrature"]

DISTRIBUTION_NAMES = ("gaussian", "uniform", "laplace", "rademacher")


def _exact_positive(value: Any, name: str) -> sympy.Rational:
    try:
        r = sympy.Rational(str(value)) if isinstance(value, (str, float)) else sympy.nsimplify(value, rational=True)
    except (TypeError, ValueError, sympy.SympifyError):
        raise VerifyInputError(f"Argument {name!r} must be a positive rational number, not {value!r}.") from None
    if not (r.is_Rational and r > 0):
        raise VerifyInputError(f"Argument {name!r} must be a positive rational number, not {value!r}.")
    return r


class Distribution:
    r"""A symmetric distribution with all moments; subclasses give :meth:`even_moment` and :meth:`sample`."""

    name = "distribution"

    def even_moment(self, k: int) -> sympy.Rational:  # pragma: no cover - abstract
        raise NotImplementedError

    def moment(self, k: int) -> sympy.Rational:
        r"""Exact :math:`\mu_k` (0 for odd k by symmetry)."""
        k = verify_int(k, "k", minimum=0)
        return sympy.Integer(0) if k % 2 else sympy.Integer(1) if k == 0 else self.even_moment(k)

    def moments(self, K: int) -> list:
        r"""Exact ``[mu_0, mu_1, ..., mu_K]``."""
        K = verify_int(K, "K", minimum=0)
        return [self.moment(k) for k in range(K + 1)]

    def sample(self, rng: np.random.Generator, shape) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def strong_log_concavity(self):
        r"""The constant :math:`K` with :math:`v'' \in [K^{-1}, K]` if :math:`\mu \propto e^{-v}` is strongly
        log-concave (Thm 2.2(2)), else ``None``."""
        return None

    def density(self, x):
        r"""The density at ``x`` as an mpmath number at the working precision; ``None`` for a law without one
        (discrete: see :meth:`atoms`). A second description of :math:`\mu`, independent of the moment formula."""
        return None

    def support(self) -> list:
        """Integration breakpoints of the density for ``mpmath.quad`` (the kink at 0 is one of them)."""
        return [-mpmath.inf, 0, mpmath.inf]

    def atoms(self):
        """``[(x, P(x)), ...]`` for a discrete law, else ``None``."""
        return None

    def __repr__(self) -> str:
        return self.name


class _OneParameter(Distribution):
    """A family with one positive rational parameter (named ``_param``); the name shows it when not 1."""

    _kind = ""
    _param = ""

    def __init__(self, value: Any = 1, **named):
        if set(named) - {self._param}:
            raise VerifyInputError(f"Argument {sorted(named)[0]!r} is unknown; {self._kind} takes {self._param!r}.")
        value = named.get(self._param, value)
        self.param = _exact_positive(value, self._param)
        setattr(self, self._param, self.param)
        self.name = self._kind if self.param == 1 else f"{self._kind}({self.param})"


class Gaussian(_OneParameter):
    r""":math:`N(0, s^2)`: :math:`\mu_{2k} = (2k-1)!!\, s^{2k}`; strongly log-concave with :math:`v'' = 1/s^2`.

    >>> Gaussian(variance=2).moment(4)
    12
    """

    _kind, _param = "gaussian", "variance"

    def even_moment(self, k):
        return sympy.factorial2(k - 1) * self.param ** (k // 2)

    def sample(self, rng, shape):
        return rng.normal(0.0, float(sympy.sqrt(self.param)), size=shape)

    def strong_log_concavity(self):
        return max(self.param, 1 / self.param)

    def density(self, x):
        s2 = mpmath.mpf(int(self.param.p)) / int(self.param.q)
        return mpmath.exp(-x * x / (2 * s2)) / mpmath.sqrt(2 * mpmath.pi * s2)


class Uniform(_OneParameter):
    r"""Uniform on :math:`[-h, h]`: :math:`\mu_{2k} = h^{2k}/(2k+1)`."""

    _kind, _param = "uniform", "half_width"

    def even_moment(self, k):
        return self.param ** k / (k + 1)

    def sample(self, rng, shape):
        return rng.uniform(-float(self.param), float(self.param), size=shape)

    def density(self, x):
        h = mpmath.mpf(int(self.param.p)) / int(self.param.q)
        return 1 / (2 * h) if abs(x) <= h else mpmath.mpf(0)

    def support(self):
        h = mpmath.mpf(int(self.param.p)) / int(self.param.q)
        return [-h, 0, h]


class Laplace(_OneParameter):
    r"""Laplace with scale b, density :math:`e^{-|x|/b}/(2b)`: :math:`\mu_{2k} = (2k)!\, b^{2k}`."""

    _kind, _param = "laplace", "scale"

    def even_moment(self, k):
        return sympy.factorial(k) * self.param ** k

    def sample(self, rng, shape):
        return rng.laplace(0.0, float(self.param), size=shape)

    def density(self, x):
        b = mpmath.mpf(int(self.param.p)) / int(self.param.q)
        return mpmath.exp(-abs(x) / b) / (2 * b)


class Rademacher(Distribution):
    r""":math:`\pm 1` with probability 1/2: :math:`\mu_{2k} = 1`."""

    name = "rademacher"

    def even_moment(self, k):
        return sympy.Integer(1)

    def sample(self, rng, shape):
        return 2.0 * rng.integers(0, 2, size=shape) - 1.0

    def atoms(self):
        return [(mpmath.mpf(-1), mpmath.mpf(1) / 2), (mpmath.mpf(1), mpmath.mpf(1) / 2)]


class MomentSequence(Distribution):
    r"""A user-given moment sequence ``moments = [mu_1, mu_2, ..., mu_K]`` (exact rationals, or floats read exactly
    as decimals).

    Validated: finite, symmetric (odd moments 0) and a valid moment sequence, i.e. the Hankel matrix
    :math:`H = (\mu_{i+j})_{0 \le i,j \le \lfloor K/2 \rfloor}` is positive semidefinite (exact test).
    Moments beyond ``K`` are unknown: asking for them raises.

    Sampling uses the Gauss quadrature rule of the sequence (Golub-Welsch from the exact Hankel
    determinants :math:`D_k`: recurrence coefficients :math:`\beta_k = D_{k+1}D_{k-1}/D_k^2`), a discrete
    symmetric law that matches :math:`\mu_0, \dots, \mu_{2N+1}` with :math:`N+1` nodes, :math:`2N \le K`.

    >>> MomentSequence([0, 1, 0, 3]).moment(4)
    3
    """

    def __init__(self, moments: Sequence[Any], name: str | None = None):
        if isinstance(moments, (str, bytes)) or not hasattr(moments, "__len__") or len(moments) < 2:
            raise VerifyInputError(f"Argument 'moments' must be a sequence [mu_1, mu_2, ...] of length >= 2, "
                                   f"not {moments!r}.")
        vals = []
        for k, v in enumerate(moments, start=1):
            if isinstance(v, complex):   # numpy's complex would convert to its real part
                raise VerifyInputError(f"Argument 'moments' must hold real numbers, not {v!r} (mu_{k}).")
            try:
                fv = float(v)
            except (TypeError, ValueError):
                raise VerifyInputError(f"Argument 'moments' must hold real numbers, not {v!r} (mu_{k}).") from None
            if not np.isfinite(fv):
                raise VerifyInputError(f"Argument 'moments' must be finite, not {v!r} (mu_{k}).")
            vals.append(sympy.Rational(str(v)) if isinstance(v, float) else sympy.nsimplify(v, rational=True))
        odd = [k for k, v in enumerate(vals, start=1) if k % 2 and v != 0]
        if odd:
            raise VerifyInputError(f"Argument 'moments' must be symmetric (odd moments 0), not mu_{odd[0]} = "
                                   f"{vals[odd[0] - 1]}.")
        self._mom = [sympy.Integer(1)] + vals
        half = len(vals) // 2
        # exact, without square roots (sympy's is_positive_semidefinite, a Cholesky, factored the pivots' large
        # integers and crashed inside sympy's factor cache on some valid sequences)
        if not is_psd([[self._mom[i + j] for j in range(half + 1)] for i in range(half + 1)]):
            raise VerifyInputError("Argument 'moments' must be a valid moment sequence (Hankel matrix "
                                   f"(mu_(i+j)) positive semidefinite), not {[str(v) for v in vals]}.")
        self.name = name or f"moments{[str(v) for v in vals]}"
        self._rule = None

    @property
    def K(self) -> int:
        """Largest known moment order."""
        return len(self._mom) - 1

    def even_moment(self, k):
        if k > self.K:
            raise VerifyInputError(f"Argument 'k' must be <= {self.K} (moments given up to mu_{self.K}), not {k}.")
        return self._mom[k]

    def quadrature(self) -> tuple:
        """Nodes and weights of the Gauss rule matching the given moments (see class docstring)."""
        if self._rule is None:
            half = self.K // 2
            D = [sympy.Integer(1)] + [sympy.Matrix(k, k, lambda i, j: self._mom[i + j]).det() for k in range(1, half + 2)]
            betas = []
            for k in range(1, half + 1):
                if D[k + 1] == 0:  # finite support with k points: the rule is exact for every moment
                    break
                betas.append(D[k + 1] * D[k - 1] / D[k] ** 2)
            off = np.sqrt(np.array([float(b) for b in betas], dtype=float))
            J = np.diag(off, 1) + np.diag(off, -1) if len(off) else np.zeros((1, 1))
            nodes, vecs = np.linalg.eigh(J)
            self._rule = (nodes, vecs[0] ** 2 / np.sum(vecs[0] ** 2))
        return self._rule

    def sample(self, rng, shape):
        nodes, weights = self.quadrature()
        return rng.choice(nodes, size=shape, p=weights)


_FACTORY = {"gaussian": Gaussian, "uniform": Uniform, "laplace": Laplace}


def moment_by_quadrature(mu: Any, k: int, dps: int | None = None):
    r""":math:`\mu_k = \int \xi^k \mu(d\xi)` from the *density* (mpmath tanh-sinh quadrature) or the atoms of
    :math:`\mu`, at ``dps`` digits (default: the working precision) - a route to the moments that shares nothing
    with :meth:`Distribution.moment`, so checks can take their constants from it. A :class:`MomentSequence` has
    only its moments and is refused.

    >>> float(moment_by_quadrature("gaussian", 4)), float(moment_by_quadrature("laplace(1/2)", 2))
    (3.0, 0.5)
    """
    dist = get_distribution(mu)
    k = verify_int(k, "k", minimum=0)
    dps = mpmath.mp.dps if dps is None else verify_int(dps, "dps", minimum=5)
    with mpmath.workdps(dps):
        atoms = dist.atoms()
        if atoms is not None:
            return mpmath.fsum(w * x ** k for x, w in atoms)
        if dist.density(mpmath.mpf(0)) is None:
            raise VerifyInputError(f"Argument 'mu' must have a density or atoms for quadrature, not {dist.name}.")
        return mpmath.quad(lambda x: x ** k * dist.density(x), dist.support())


def get_distribution(mu: Any) -> Distribution:
    r"""Resolve ``mu``: a :class:`Distribution`, a name (``"gaussian"``, ``"gaussian(1/2)"``, ``"uniform"``,
    ``"laplace(2)"``, ``"rademacher"``) or a list of moments ``[mu_1, ..., mu_K]`` (-> :class:`MomentSequence`).

    >>> get_distribution("laplace").moment(4)
    24
    """
    if isinstance(mu, Distribution):
        return mu
    if isinstance(mu, (list, tuple)):
        return MomentSequence(mu)
    allowed = ("one of " + ", ".join(repr(n) for n in DISTRIBUTION_NAMES)
               + " (optionally with a rational parameter, e.g. 'gaussian(1/2)'), a Distribution or a moment list")
    if isinstance(mu, str):
        match = re.fullmatch(r"\s*([a-z]+)\s*(?:\(\s*([^()]*?)\s*\))?\s*", mu.lower())
        if match and match.group(1) in DISTRIBUTION_NAMES:
            name, arg = match.groups()
            if name == "rademacher":
                if arg is None:
                    return Rademacher()
            else:
                return _FACTORY[name]() if arg is None else _FACTORY[name](arg)
    raise VerifyInputError(f"Argument 'mu' must be {allowed}, not {mu!r}.")
