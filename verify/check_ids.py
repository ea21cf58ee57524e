"""Node ids of the theorem suite's checks, derived from where the checks are defined.

A check of ``proofs_checks/`` is known by its name (``test_...``, unique in the suite); its node id,
``proofs_checks/<part>/test_<kind>.py::<name>[<parameters>]``, is found by reading which module defines it. So a
module path is never the key of stored data: the route map names its checks by name (:mod:`verify.route_map`),
and the hints shipped with the package (check durations, :mod:`verify.xdist_schedule`; the mutants' kill order,
:mod:`verify.mutants`) are read through :func:`rehome`, so a check moved to another module keeps its entry.

>>> check_nodeid("test_matrix_free_exact_F_equals_dense_at_a_minimiser")
'proofs_checks/N/perturbation/test_routes.py::test_matrix_free_exact_F_equals_dense_at_a_minimiser'
>>> rehome("proofs_checks/test_routes_N.py::test_matrix_free_exact_F_equals_dense_at_a_minimiser")
'proofs_checks/N/perturbation/test_routes.py::test_matrix_free_exact_F_equals_dense_at_a_minimiser'
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["SUITE", "check_nodeid", "check_modules", "rehome"]

#: the theorem suite shipped beside the package (``proofs_checks/``, installed with it)
SUITE = Path(__file__).resolve().parent.parent / "proofs_checks"

_DEF = re.compile(r"^def (test_\w+)\(", re.M)
_MODULES: dict = {}


def check_modules(suite: Path = SUITE) -> dict:
    """``{check name: module path relative to the suite's parent}`` of every ``test_*.py`` under ``suite`` (read
    once per process; modules in sorted path order, so a name defined twice - never in the suite - keeps its first)."""
    suite = Path(suite)
    if suite not in _MODULES:
        found: dict = {}
        if suite.is_dir():
            for path in sorted(suite.rglob("test_*.py"), key=lambda p: p.relative_to(suite).parts):
                if "__pycache__" in path.parts:
                    continue
                for m in _DEF.finditer(path.read_text(encoding="utf-8")):
                    found.setdefault(m.group(1), path.relative_to(suite.parent).as_posix())
        _MODULES[suite] = found
    return _MODULES[suite]


def check_nodeid(name: str, suite: Path = SUITE) -> str:
    """The node id of the check function ``name`` (optionally with ``[parameters]``) of ``suite``, from the module
    that defines it; a name no module defines raises :class:`KeyError`."""
    func = name.split("[", 1)[0]
    return f"{check_modules(suite)[func]}::{name}"


def rehome(nodeid: str, suite: Path = SUITE) -> str:
    """``nodeid`` with the module that defines its check now: a node id of the suite whose check lives in another
    module than the one it names (a check moved by a reorganisation) is rewritten; any other node id (a unit test
    of ``tests/``, a check the suite no longer defines) is returned as it is."""
    head, sep, name = nodeid.partition("::")
    if not sep or not head.startswith(Path(suite).name + "/"):
        return nodeid
    module = check_modules(suite).get(name.split("[", 1)[0])
    return f"{module}::{name}" if module else nodeid
