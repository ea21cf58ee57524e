"""Shared by the checks that assert a refusal a user reads: the package's ``ValueError`` with its exact message."""

from __future__ import annotations

import pytest

from verify._validate import VerifyInputError


def raises_exactly(fn, message: str) -> None:
    """``fn()`` raises the package's ValueError with exactly ``message`` (the parameter and its allowed range)."""
    with pytest.raises(VerifyInputError) as info:
        fn()
    assert isinstance(info.value, ValueError) and str(info.value) == message, str(info.value)
