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
    "verify_at_least",
    "verify_real_array",
    "verify_int_array",
    "verify_numeric_array",
    "verify_float_dtype",
    "verify_torch_device",
    "verify_json_object",
]


class VerifyInputError(ValueError):
    """A public function was called with an argument outside its allowed range. The message is one line (a value
    shown in it, such as a numpy matrix, may print over several: its line breaks become spaces)."""

    def __init__(self, message: Any = "", *args: Any):
        super().__init__(" ".join(str(message).split()) if "\n" in str(message) else message, *args)


def _fail(name: str, allowed: str, value: Any) -> VerifyInputError:
    shown = " ".join(repr(value).split())   # one line before the cut (numpy prints a matrix over several)
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
    """Convert to a numpy array and check its dimension, shape (``None`` entries are free) and finiteness.

    A real ``dtype`` refuses complex input (numpy would drop the imaginary part with only a ComplexWarning) and
    text (numpy would parse ``"1.5"``): the caller meant a real array.
    """
    real = dtype is not None and np.dtype(dtype).kind in "fiub"
    if real:
        try:
            raw = a if isinstance(a, np.ndarray) else np.asarray(a)
        except (TypeError, ValueError):   # ragged: the conversion below says so
            raw = None
        if raw is not None and raw.dtype.kind == "c":
            raise VerifyInputError(f"Argument {name!r} must be a real array, not a complex one (dtype {raw.dtype}); "
                                   "pass its real part explicitly if that is what is meant.")
        if raw is not None and raw.dtype.kind in "US":
            raise _fail(name, "a real array", a)
        if raw is not None and raw.dtype.kind == "O" and any(isinstance(x, (complex, str, bytes)) or x is None
                                                             for x in raw.reshape(-1)[:10_000]):
            raise _fail(name, "a real array", a)
    try:
        arr = np.asarray(a, dtype=dtype)
    except (TypeError, ValueError, OverflowError):
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
    if isinstance(value, (np.ndarray, list, dict, set)):   # `in` would compare element-wise or fail to hash
        raise _fail(name, "one of " + ", ".join(map(repr, choices)), value)
    if value not in choices:
        raise _fail(name, "one of " + ", ".join(map(repr, choices)), value)
    return value


def verify_real_array(a: Any, name: str, ndim: int | None = None, shape: tuple | None = None,
                      finite: bool = True) -> np.ndarray:
    """A finite real float64 array (:func:`verify_array`): complex, text or ``None`` entries are refused, never
    cast."""
    return verify_array(a, name, ndim=ndim, shape=shape, finite=finite, dtype=np.float64)


def _as_ndarray(a: Any, name: str, allowed: str) -> np.ndarray:
    """``a`` itself when it is an ndarray (no copy: in-place kernels keep working on it), else ``np.asarray(a)``;
    ``None``, text and ragged nestings are refused."""
    if a is None or isinstance(a, (str, bytes)):
        raise _fail(name, allowed, a)
    if isinstance(a, np.ndarray):
        return a
    try:
        return np.asarray(a)
    except (TypeError, ValueError, OverflowError):
        raise _fail(name, allowed, type(a).__name__) from None


def _check_ndim(arr: np.ndarray, name: str, ndim: int | None, min_ndim: int | None) -> None:
    if ndim is not None and arr.ndim != ndim:
        raise VerifyInputError(f"Argument {name!r} must be a {ndim}-D array, not an array of shape {arr.shape}.")
    if min_ndim is not None and arr.ndim < min_ndim:
        raise VerifyInputError(f"Argument {name!r} must be an array of at least {min_ndim} dimension(s), not an array "
                               f"of shape {arr.shape}.")


def verify_int_array(a: Any, name: str, ndim: int | None = None, minimum: int | None = None,
                     maximum: int | None = None, allow_bool: bool = False, min_ndim: int | None = None) -> np.ndarray:
    """An array of a numpy integer dtype (bool too with ``allow_bool``; a list of Python ints becomes int64) whose
    entries lie in ``[minimum, maximum]``; returned as it is (no copy, no cast). Floats (an integral float
    included), complex, text, objects and ``None`` are refused, never cast; an empty array of any real dtype is no
    entry at all (int64). Checked once at a public entry: the kernels behind it take the array unchecked."""
    arr = _as_ndarray(a, name, "an integer array")
    kinds = "iub" if allow_bool else "iu"
    if arr.dtype.kind not in kinds:
        if arr.size == 0 and arr.dtype.kind in "fiub":
            arr = arr.astype(np.int64)
        else:
            raise VerifyInputError(f"Argument {name!r} must be an integer array, not an array of dtype {arr.dtype}.")
    _check_ndim(arr, name, ndim, min_ndim)
    if arr.size and (minimum is not None or maximum is not None):
        lo, hi = int(arr.min()), int(arr.max())
        bad = lo if minimum is not None and lo < minimum else (hi if maximum is not None and hi > maximum else None)
        if bad is not None:
            top = None if maximum == np.iinfo(np.int64).max else maximum   # int64's own limit: said as "int64"
            rng = (f"in [{minimum}, {top}]" if minimum is not None and top is not None
                   else f">= {minimum}" if minimum is not None else f"<= {top}")
            kind = "int64 integers" if top is None and maximum is not None else "integers"
            raise VerifyInputError(f"Argument {name!r} must hold {kind} {rng}, not {bad}.")
    return arr


def verify_numeric_array(a: Any, name: str, ndim: int | None = None, min_ndim: int | None = None) -> np.ndarray:
    """A finite real array of a numpy integer or float dtype, returned as it is (no copy, no cast: an in-place
    transform keeps working on the caller's array); complex, bool, text, objects, ``None``, NaN and inf are
    refused."""
    arr = _as_ndarray(a, name, "a real array")
    if arr.dtype.kind not in "iuf":
        raise VerifyInputError(f"Argument {name!r} must be a real (integer or float) array, not an array of dtype "
                               f"{arr.dtype}.")
    _check_ndim(arr, name, ndim, min_ndim)
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise VerifyInputError(f"Argument {name!r} must be finite (no NaN or inf entries).")
    return arr


def verify_at_least(value: Any, bound: Any, name: str) -> Any:
    """A finite real ``>= bound`` (e.g. the constant :math:`K \\ge 1` of a log-concave isotropic law); the value is
    returned unchanged."""
    allowed = f"a finite real number >= {bound}"
    if not _as_real(value, name, allowed) >= float(bound):
        raise _fail(name, allowed, value)
    return value


def verify_float_dtype(dtype: Any, name: str = "dtype", allowed: tuple = (np.float32, np.float64)) -> np.dtype:
    """A numpy floating dtype among ``allowed`` (``str``, ``int`` or ``complex`` are refused, not returned as
    strings or truncated numbers)."""
    names = ", ".join(np.dtype(t).name for t in allowed)
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise _fail(name, f"a numpy float dtype ({names})", dtype) from None
    if dt not in [np.dtype(t) for t in allowed]:
        raise _fail(name, f"a numpy float dtype ({names})", dtype)
    return dt


def verify_torch_device(device: Any, name: str = "device"):
    """``None`` or a torch device this machine has (``"cpu"``; ``"cuda"``/``"cuda:i"`` only with a CUDA device
    there, ``"mps"`` only with Apple's): returns the :class:`torch.device` (``None`` stays ``None``)."""
    if device is None:
        return None
    import torch

    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        raise _fail(name, "a torch device such as 'cpu' or 'cuda'", device) from None
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise _fail(name, "'cpu' on this machine (it has no CUDA device)", device)
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise _fail(name, f"a CUDA device index < {torch.cuda.device_count()}", device)
    elif dev.type == "mps" and not (hasattr(torch.backends, "mps") and torch.backends.mps.is_available()):
        raise _fail(name, "'cpu' on this machine (it has no MPS device)", device)
    elif dev.type not in ("cpu", "cuda", "mps"):
        raise _fail(name, "'cpu' or 'cuda'", device)
    return dev


def verify_json_object(value: Any, name: str) -> dict:
    """A dict of JSON values (the caller's own metadata stored in a file), as :func:`verify._io.canonical_json`
    writes it."""
    from ._io import canonical_json   # here: verify._io imports this module

    if not isinstance(value, dict):
        raise _fail(name, "a dict (JSON object)", value)
    try:
        canonical_json(value)
    except VerifyInputError:
        raise
    except (TypeError, ValueError, RecursionError):
        raise _fail(name, "a dict of JSON values (str, finite numbers, bools, None, lists, dicts)", value) from None
    return value
