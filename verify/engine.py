"""Generic machinery shared by the checks: exact sampling, precision ladders, adversarial search.

The checks in ``proofs_checks/`` are short because the repeated parts live here:

* :func:`random_rational` / :func:`random_rational_matrix` - exact random points for identities;
* :func:`precision_ladder` - the same mpmath computation at dps 15, 30, 50 (mpmath's torture-test habit);
* :func:`adversarial_max` - maximise a violation ratio with scipy from seeded starts;
* :func:`jsonable` - turn numbers of any library into deterministic JSON evidence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Sequence

import mpmath
import numpy as np
import sympy

from ._validate import verify_int

DEFAULT_LADDER = (15, 30, 50)


# --------------------------------------------------------------------------- exact sampling
def random_rational(rng: np.random.Generator, max_num: int = 9, max_den: int = 7, nonzero: bool = False) -> sympy.Rational:
    """A random rational ``a/b`` with ``|a| <= max_num``, ``1 <= b <= max_den`` (exact sympy number)."""
    while True:
        num = int(rng.integers(-max_num, max_num + 1))
        den = int(rng.integers(1, max_den + 1))
        if num or not nonzero:
            return sympy.Rational(num, den)


def random_rational_matrix(rng: np.random.Generator, rows: int, cols: int, **kw) -> sympy.Matrix:
    """A ``rows x cols`` sympy matrix of independent :func:`random_rational` entries."""
    return sympy.Matrix(rows, cols, lambda i, j: random_rational(rng, **kw))


def exact_zero(expr: Any) -> bool:
    """True when a sympy expression / matrix is identically zero after ``expand`` + ``cancel`` (no ``simplify``)."""
    if isinstance(expr, sympy.MatrixBase):
        return all(exact_zero(e) for e in expr)
    return sympy.cancel(sympy.expand(expr)) == 0


# --------------------------------------------------------------------------- precision ladder
@dataclass
class LadderResult:
    """Values of one computation at several precisions and how far they agree."""

    dps: tuple
    values: list
    discrepancy: float  # max relative difference of each level to the most precise one

    def agrees(self, digits: int | None = None) -> bool:
        """Agreement to ``digits`` significant digits (default: 5 fewer than the lowest rung, for round-off)."""
        digits = self.dps[0] - 5 if digits is None else digits
        return self.discrepancy <= 10.0 ** (-digits)

    def evidence(self) -> dict:
        return {"dps": list(self.dps), "value": mpmath.nstr(_flat(self.values[-1])[0], 20),
                "ladder_rel_discrepancy": float(self.discrepancy)}


def _flat(v: Any) -> list:
    if isinstance(v, (mpmath.matrix,)):
        return [v[i, j] for i in range(v.rows) for j in range(v.cols)]
    if isinstance(v, (list, tuple, np.ndarray)):
        out = []
        for x in v:
            out.extend(_flat(x))
        return out
    return [v]


def precision_ladder(fn: Callable[[], Any], dps: Sequence[int] = DEFAULT_LADDER) -> LadderResult:
    """Evaluate ``fn()`` under ``mpmath.workdps`` for each precision in ``dps``.

    ``fn`` returns an mpf, a list of them or an mpmath matrix. The discrepancy is
    :math:`\\max_k |v_k - v_{\\max}| / \\max(1, |v_{\\max}|)` entrywise.

    >>> r = precision_ladder(lambda: mpmath.quad(mpmath.exp, [0, 1]))
    >>> r.agrees()
    True
    """
    dps = tuple(verify_int(d, "dps", minimum=5) for d in dps)
    values = []
    for d in dps:
        with mpmath.workdps(d):
            values.append(fn())
    top = _flat(values[-1])
    with mpmath.workdps(dps[-1]):
        disc = mpmath.mpf(0)
        for v in values[:-1]:
            for a, b in zip(_flat(v), top):
                disc = max(disc, abs(mpmath.mpf(a) - b) / max(1, abs(b)))
    return LadderResult(dps=dps, values=values, discrepancy=float(disc))


# --------------------------------------------------------------------------- adversarial search
@dataclass
class SearchResult:
    """Outcome of :func:`adversarial_max`: the worst ratio found and where."""

    best: float
    x: np.ndarray
    values: list = field(default_factory=list)
    seed: int = 0

    def evidence(self, name: str = "worst_ratio") -> dict:
        return {name: float(self.best), "starts": len(self.values), "seed": self.seed}


def optimise_start(
    objective: Callable[[np.ndarray], float],
    x0: np.ndarray,
    method: str = "Nelder-Mead",
    maxiter: int = 400,
) -> tuple[float, np.ndarray | None, float]:
    """One start of :func:`adversarial_max`: maximise ``objective`` with scipy from ``x0``.

    Returns ``(best, x, value)``: the larger finite one of :math:`f(x_0)` and :math:`f(x_{\\rm opt})`
    (``x0`` wins a tie; ``-inf`` and ``None`` when neither is finite), and the start's value as
    :func:`adversarial_max` records it. A pure function of its arguments, so it can run anywhere (a
    Dask worker, :mod:`verify.search`) and give the same bytes.

    >>> best, x, _ = optimise_start(lambda x: -(x[0] - 2.0) ** 2, np.array([0.0]))
    >>> round(best, 6), round(float(x[0]), 3)
    (-0.0, 2.0)
    """
    from scipy.optimize import minimize

    def neg(x):
        v = objective(np.asarray(x, dtype=float))
        return -v if np.isfinite(v) else np.inf

    x0 = np.asarray(x0, dtype=float)
    res = minimize(neg, x0, method=method, options={"maxiter": maxiter})
    cand = [(-neg(x0), x0), (-res.fun, np.asarray(res.x))]
    best_val, best_x = -math.inf, None
    for v, x in cand:
        if np.isfinite(v) and v > best_val:
            best_val, best_x = float(v), x
    return best_val, best_x, float(max(v for v, _ in cand))


def adversarial_max(
    objective: Callable[[np.ndarray], float],
    sampler: Callable[[np.random.Generator], np.ndarray],
    n_starts: int = 8,
    seed: int = 0,
    method: str = "Nelder-Mead",
    maxiter: int = 400,
) -> SearchResult:
    """Maximise ``objective`` (typically measured / claimed bound) from ``n_starts`` seeded starts.

    Non-finite objective values count as :math:`-\\infty` so that the optimiser leaves regions outside
    a claim's hypotheses (the objective returns ``nan`` there). Start ``i`` begins at the ``i``-th draw
    of ``sampler`` from ``numpy.random.default_rng(seed)``; :func:`verify.search.run_search` runs the
    same starts as Dask tasks and finds the same best value.
    """
    n_starts = verify_int(n_starts, "n_starts", minimum=1)
    rng = np.random.default_rng(seed)
    best_val, best_x, values = -math.inf, None, []
    for _ in range(n_starts):
        x0 = np.asarray(sampler(rng), dtype=float)
        v, x, start_value = optimise_start(objective, x0, method=method, maxiter=maxiter)
        if np.isfinite(v) and v > best_val:
            best_val, best_x = v, x
        values.append(start_value)
    return SearchResult(best=best_val, x=best_x, values=values, seed=seed)


# --------------------------------------------------------------------------- evidence
def jsonable(x: Any) -> Any:
    """Deterministic JSON-friendly form of numbers from numpy, mpmath, sympy, fractions."""
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        return f if math.isfinite(f) else str(f)
    if isinstance(x, (str, type(None))):
        return x
    if isinstance(x, (mpmath.mpf,)):
        return mpmath.nstr(x, 20)
    if isinstance(x, mpmath.mpc):
        return mpmath.nstr(x, 20)
    if isinstance(x, Fraction):
        return str(x)
    if isinstance(x, sympy.Basic):
        if x.is_Integer:
            return int(x)
        return str(x)
    return str(x)
