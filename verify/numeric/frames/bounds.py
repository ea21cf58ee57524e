r"""Layer 0 of :mod:`verify.numeric.frames`: lower bounds on the coherence of N unit vectors in
:math:`\mathbb R^d` (Welch, Levenstein, and the Delsarte linear-programming bound of :mod:`.delsarte_lp`), and the
Weil threshold of Lemma 4.1. Depends on nothing else in the package.

>>> round(welch_bound(2, 3), 12), levenstein_bound(2, 3) is None
(0.5, True)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from fractions import Fraction
from functools import lru_cache

from ..._validate import verify_int

__all__ = ["welch_bound", "levenstein_bound", "weil_threshold_d", "welch_bound_sq", "levenstein_bound_sq",
           "LowerBound", "best_lower_bound"]


def welch_bound(d: int, n: int) -> float:
    r"""Welch bound :math:`\sqrt{(N-d)/(d(N-1))}` on the coherence of N unit vectors in :math:`\mathbb R^d`."""
    d, n = verify_int(d, "d", minimum=1), verify_int(n, "n", minimum=1)
    return math.sqrt((n - d) / (d * (n - 1))) if n > d else 0.0


def levenstein_bound(d: int, n: int) -> float | None:
    r"""Levenstein bound :math:`\sqrt{(3N - d^2 - 2d)/((d+2)(N-d))}` for real frames, valid (and tighter
    than Welch) when :math:`N > d(d+1)/2`; ``None`` otherwise."""
    d, n = verify_int(d, "d", minimum=1), verify_int(n, "n", minimum=1)
    if n <= d * (d + 1) // 2:
        return None
    return math.sqrt((3 * n - d * d - 2 * d) / ((d + 2) * (n - d)))


def weil_threshold_d(m: int, general: bool = False) -> int:
    r"""Smallest :math:`d` from which the Weil bound gives coherence :math:`< 1`: for :math:`d = 2^r`,
    :math:`(2m-2)/\sqrt{2^r} < 1`; for general d (2m coefficients), :math:`(4m-2)/\sqrt{2^r} < 1`."""
    m = verify_int(m, "m", minimum=1)
    c = 4 * m - 2 if general else 2 * m - 2
    r = 1
    while (2 ** r) <= c * c:  # (c / sqrt(2^r) < 1) <=> 2^r > c^2, exact in integers
        r += 1
    return 2 ** r



def welch_bound_sq(d: int, n: int) -> Fraction:
    r"""Welch's bound squared, exact: :math:`\mu^2 \ge (N-d)/(d(N-1))` (0 for :math:`N \le d`)."""
    d, n = verify_int(d, "d", minimum=1), verify_int(n, "n", minimum=1)
    return Fraction(n - d, d * (n - 1)) if n > d else Fraction(0)


def levenstein_bound_sq(d: int, n: int) -> Fraction | None:
    r"""Levenstein's bound squared, exact: :math:`\mu^2 \ge (3N - d^2 - 2d)/((d+2)(N-d))` for
    :math:`N > d(d+1)/2`; ``None`` otherwise."""
    d, n = verify_int(d, "d", minimum=1), verify_int(n, "n", minimum=1)
    return Fraction(3 * n - d * d - 2 * d, (d + 2) * (n - d)) if n > d * (d + 1) // 2 else None


@dataclass
class LowerBound:
    r"""The best certified lower bound on the coherence of ``n`` unit vectors in :math:`\mathbb R^d`:
    ``best`` names it (welch, levenstein, lp), ``value_sq`` is its exact square (a rational: every ``n``-frame
    has :math:`\mu^2 \ge` it, strictly for lp), ``value`` a float rounded down."""

    d: int
    n: int
    best: str
    value_sq: str
    value: float
    welch_sq: str
    levenstein_sq: str | None
    lp_x0: str
    lp_degree: int

    def as_dict(self) -> dict:
        return asdict(self)


@lru_cache(maxsize=256)
def best_lower_bound(d: int, n: int, lp: bool = True) -> LowerBound:
    r"""max(Welch, Levenstein, Delsarte LP) for ``(d, n)``, each exact (``lp``: also solve and certify the LP
    of :mod:`.delsarte_lp`, about a second)."""
    from .delsarte_lp import _sqrt_down, lp_bound

    d, n = verify_int(d, "d", minimum=2), verify_int(n, "n", minimum=1)
    w, lev = welch_bound_sq(d, n), levenstein_bound_sq(d, n)
    cands = [("welch", w)] + ([("levenstein", lev)] if lev is not None else [])
    lpb = lp_bound(d, n) if lp else None
    if lpb is not None:
        cands.append(("lp", lpb.x0))
    name, best = max(cands, key=lambda kv: kv[1])
    return LowerBound(d, n, name, str(best), _sqrt_down(best), str(w), None if lev is None else str(lev),
                      "0" if lpb is None else lpb.x0_exact, 0 if lpb is None else lpb.degree)
