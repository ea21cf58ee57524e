"""Python source parsed one text at a time per process.

CPython 3.11 keeps the AST constructor's recursion depth in per-interpreter state, so two threads of one process
parsing at once can fail with "SystemError: AST constructor recursion depth mismatch" (CPython gh-106905; seen in
CI with two mutant jobs, whose threads both index the file they mutate). Every parse of the package goes through
:func:`parse`, under :data:`PARSE_LOCK`.
"""

from __future__ import annotations

import ast
import threading

__all__ = ["PARSE_LOCK", "parse"]

#: one parse at a time in a process (see the module docstring)
PARSE_LOCK = threading.Lock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """:func:`ast.parse` of ``source`` under :data:`PARSE_LOCK`; a :class:`SyntaxError` propagates, the lock
    released."""
    with PARSE_LOCK:
        return ast.parse(source, filename)
