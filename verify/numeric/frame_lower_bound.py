"""Compatibility shim: Theorem 4.2 with Kerdock / DG sub-frames is :mod:`verify.numeric.frames.theorem42`;
re-exported here so existing imports keep working.

>>> code_block_stats("kerdock", 4, 3, s=3, l=0).k
128
"""

from .frames.theorem42 import MAX_FORMS, _ratio, best_point, code_block_stats, code_subframe_sizes, compare_frames  # noqa: F401

__all__ = ["code_block_stats", "code_subframe_sizes", "best_point", "compare_frames"]
