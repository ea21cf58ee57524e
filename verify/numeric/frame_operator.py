"""Compatibility shim: the implicit operator is :mod:`verify.numeric.frames.operator` and its parameter-only
files :mod:`verify.numeric.frames.fileformat`; re-exported here so existing imports keep working.

>>> ImplicitFrame(3, 2).shape
(8, 64)
"""

from .frames.fileformat import is_implicit_file, load_implicit, save_implicit  # noqa: F401
from .frames.operator import ImplicitFrame, _hadamard, _torch_apply, _torch_fwht, frame_matvec_torch, fwht_kron  # noqa: F401

__all__ = ["ImplicitFrame", "fwht_kron", "frame_matvec_torch", "save_implicit", "load_implicit", "is_implicit_file"]
