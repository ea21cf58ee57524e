"""The examples in the docstrings of every module of the package run as written (a module is listed when its source
has an example, so a new module's examples join without an edit here)."""

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import verify

ROOT = Path(verify.__file__).parent


def _with_examples() -> list[str]:
    """The package's modules whose source holds a ``>>>`` example (read, not imported: collection stays cheap)."""
    out = []
    for info in pkgutil.walk_packages(verify.__path__, "verify."):
        rel = Path(*info.name.split(".")[1:])
        path = ROOT / rel / "__init__.py" if info.ispkg else (ROOT / rel).with_suffix(".py")
        if path.is_file() and ">>> " in path.read_text(encoding="utf-8"):
            out.append(info.name)
    return ["verify"] + sorted(out)


MODULES = _with_examples()


def test_the_list_finds_the_modules_with_examples():
    assert {"verify.claims", "verify.reporters.mathtex", "verify.statement_texts", "verify.statements"} <= set(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
