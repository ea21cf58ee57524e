"""verify/coverage_map.py: the source index's parse is one at a time per process."""

import threading

from verify import coverage_map
from verify.coverage_map import SourceIndex


def test_the_source_index_parses_under_the_process_wide_lock():
    """Two threads never parse at once (CPython 3.11's AST constructor keeps its recursion depth in per-interpreter
    state: two parses at once failed in CI with 'AST constructor recursion depth mismatch'): while the lock is held
    elsewhere an index waits, and it is built once the lock is free."""
    text = "def f(x):\n    return x + 1\n\n\nclass C:\n    def g(self):\n        return 2\n"
    done = []
    with coverage_map.PARSE_LOCK:
        t = threading.Thread(target=lambda: done.append(SourceIndex(text)))
        t.start()
        t.join(0.5)
        assert t.is_alive() and not done   # waiting for the lock, not parsing
    t.join(10)
    assert not t.is_alive() and done[0].parsed
    assert done[0].function_of(2) == "f" and done[0].function_of(7) == "C.g"
    assert not coverage_map.PARSE_LOCK.locked()   # released after a parse
    bad = SourceIndex("def f(:\n")
    assert not bad.parsed and not coverage_map.PARSE_LOCK.locked()   # and after a syntax error
