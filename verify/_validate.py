"""Uniform input validation (in the style of galois' ``_verify`` helpers).

Every public function checks its arguments with these helpers, so a bad argument always produces a
:class:`VerifyInputError` (a :class:`ValueError`) whose message names the parameter, the allowed
range and the value that was given, e.g.::

    Argument 'm' must be an odd integer >= 1, not 4.
"""

from __future__ import annotations

import numbers
from typing import Any, Iterable

import numpy as np

__all__ = [
    "VerifyInputError",
    "verify_odd_m",
    "verify_int",
    "verify_probability",
    "verify_positive",
    "verify_nonnegative",
    "verify_array",
    "verify_square_symmetric",
    "verify_choice",
    "verify_less",
]


class VerifyInputError(ValueError):
    """A public function was called with an argument outside its allowed range."""


def _fail(name: str, allowed: str, value: Any) -> VerifyInputError:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return VerifyInputError(f"Argument {name!r} must be {allowed}, not {shown}.")


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def verify_int(value: Any, name: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an ``int`` if it is an integer in ``[minimum, maximum]``."""
    lo = "" if minimum is None else f" >= {minimum}"
    hi = "" if maximum is None else f" <= {maximum}"
    allowed = "an integer" + (lo + (" and" if lo and hi else "") + hi)
    if not _is_int(value):
        raise _fail(name, allowed, value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise _fail(name, allowed, value)
    return int(value)


def verify_odd_m(m: Any, name: str = "m") -> int:
    """The power activation :math:`\\phi(t) = t^m` of paper S needs an odd integer :math:`m \\ge 1`."""
    if not _is_int(m) or m < 1 or m % 2 == 0:
        raise _fail(name, "an odd integer >= 1", m)
    return int(m)


def _as_real(value: Any, name: str, allowed: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        try:  # sympy / mpmath numbers are not numbers.Real but convert exactly enough here
            value_f = float(value)
        except (TypeError, ValueError):
            raise _fail(name, allowed, value) from None
    else:
        value_f = float(value)
    if not np.isfinite(value_f):
        raise _fail(name, allowed, value)
    return value_f


def verify_probability(p: Any, name: str = "p") -> Any:
    """A Bernoulli rate must lie in :math:`(0, 1]`; the value is returned unchanged (exact types kept)."""
    allowed = "a real number in (0, 1]"
    value = _as_real(p, name, allowed)
    if not 0.0 < value <= 1.0:
        raise _fail(name, allowed, p)
    return p


def verify_positive(value: Any, name: str) -> Any:
    """A strictly positive finite real (e.g. :math:`\\lambda_W > 0`, :math:`\\beta > 0`)."""
    allowed = "a finite real number > 0"
    if not _as_real(value, name, allowed) > 0:
        raise _fail(name, allowed, value)
    return value


def verify_nonnegative(value: Any, name: str) -> Any:
    """A non-negative finite real (e.g. :math:`\\lambda_H \\ge 0`)."""
    allowed = "a finite real number >= 0"
    if not _as_real(value, name, allowed) >= 0:
        raise _fail(name, allowed, value)
    return value


def verify_less(value: Any, bound: Any, name: str, allowed: str) -> Any:
    """``value < bound``; ``allowed`` describes the condition for the message (e.g. ``'< 1'``)."""
    if not float(value) < float(bound):
        raise _fail(name, allowed, value)
    return value


def verify_array(
    a: Any,
    name: str,
    ndim: int | None = None,
    shape: tuple | None = None,
    finite: bool = True,
    dtype: Any = np.float64,
) -> np.ndarray:
    """Convert to a numpy array and check its dimension, shape (``None`` entries are free) and finiteness."""
    try:
        arr = np.asarray(a, dtype=dtype)
    except (TypeError, ValueError):
        raise _fail(name, "a real array", type(a).__name__) from None
    if ndim is not None and arr.ndim != ndim:
        raise VerifyInputError(f"Argument {name!r} must be a {ndim}-D array, not an array of shape {arr.shape}.")
    if shape is not None:
        if arr.ndim != len(shape) or any(s is not None and s != t for s, t in zip(shape, arr.shape)):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            raise VerifyInputError(f"Argument {name!r} must have shape {want}, not {arr.shape}.")
    if finite and arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
        raise VerifyInputError(f"Argument {name!r} must be finite (no NaN or inf entries).")
    return arr


def verify_square_symmetric(a: Any, name: str, rtol: float = 1e-12) -> np.ndarray:
    """A finite square symmetric matrix (symmetry to ``rtol`` relative to the largest entry, for float round-off)."""
    arr = verify_array(a, name, ndim=2)
    if arr.shape[0] != arr.shape[1]:
        raise VerifyInputError(f"Argument {name!r} must be a square matrix, not shape {arr.shape}.")
    scale = max(1.0, float(np.max(np.abs(arr))) if arr.size else 1.0)
    if not np.allclose(arr, arr.T, rtol=0.0, atol=rtol * scale):
        raise VerifyInputError(f"Argument {name!r} must be symmetric.")
    return arr


def verify_choice(value: Any, name: str, choices: Iterable[Any]) -> Any:
    """``value`` must be one of ``choices``; the message lists them."""
    choices = list(choices)
    if value not in choices:
        raise _fail(name, "one of " + ", ".join(map(repr, choices)), value)
    return value
