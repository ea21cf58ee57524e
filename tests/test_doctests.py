"""The examples in the docstrings of the package's front modules run as written."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("module", ["verify", "verify.claims", "verify.engine", "verify._io", "verify.mutants",
                                    "verify.statements", "verify.statement_data"])
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
