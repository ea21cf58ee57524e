r"""Statement objects of paper N's unconstrained features model and its central path."""

from __future__ import annotations

STATEMENTS: tuple = ()
