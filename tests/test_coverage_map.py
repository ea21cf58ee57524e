"""verify/coverage_map.py: the source index (its parse waits for the package's one parse lock:
tests/test_parse.py)."""

from verify import coverage_map
from verify.coverage_map import SourceIndex


def test_the_source_index_maps_lines_to_functions_and_survives_a_syntax_error():
    """Each line's function (a method by its qualified name); a text that does not parse gives an index marked
    unparsed, and the parse lock is free again after either."""
    index = SourceIndex("def f(x):\n    return x + 1\n\n\nclass C:\n    def g(self):\n        return 2\n")
    assert index.parsed and index.function_of(2) == "f" and index.function_of(7) == "C.g"
    assert not coverage_map.PARSE_LOCK.locked()   # released after a parse
    bad = SourceIndex("def f(:\n")
    assert not bad.parsed and not coverage_map.PARSE_LOCK.locked()   # and after a syntax error
