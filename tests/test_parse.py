"""verify/_parse.py: every parse of the package's code is one at a time per process."""

import ast
import threading
from pathlib import Path

import pytest

from verify import _parse, coverage_map
from verify.coverage_map import SourceIndex
from verify.dep_hits import instrument_source
from verify.variant_checks import _file_checks

PACKAGE = Path(_parse.__file__).parent


@pytest.mark.parametrize("parser", [lambda t: _parse.parse(t), lambda t: instrument_source(t, "<test>"),
                                    lambda t: _file_checks(t + "\n# fresh text for the cache\n"),
                                    lambda t: SourceIndex(t).parsed or None],
                         ids=["parse", "dep_hits.instrument_source", "variant_checks._file_checks",
                              "coverage_map.SourceIndex"])
def test_each_parser_of_the_package_waits_for_the_one_lock(parser):
    """While the lock is held elsewhere, each of the package's parsers waits (CPython 3.11's AST constructor keeps its
    recursion depth in per-interpreter state: two parses at once failed in CI with 'AST constructor recursion depth
    mismatch'), then parses once it is free; the lock is released after a syntax error too."""
    text = f"def test_f(x):\n    return x + 1\n# {id(parser)}\n"
    done = []
    with _parse.PARSE_LOCK:
        t = threading.Thread(target=lambda: done.append(parser(text)))
        t.start()
        t.join(0.5)
        assert t.is_alive() and not done   # waiting for the lock, not parsing
    t.join(10)
    assert not t.is_alive() and done and done[0] is not None
    assert not _parse.PARSE_LOCK.locked()
    with pytest.raises(SyntaxError):
        _parse.parse("def f(:\n")
    assert not _parse.PARSE_LOCK.locked()


def test_the_source_index_shares_the_lock():
    assert coverage_map.PARSE_LOCK is _parse.PARSE_LOCK


def test_no_module_of_the_package_parses_outside_the_lock():
    """The class, not the instance: no module of the package but verify/_parse.py calls ast.parse itself."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "_parse.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "parse" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "ast":
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert offenders == []
