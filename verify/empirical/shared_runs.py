"""Training runs shared by the checks of one pytest session, across pytest-xdist workers.

Why: a claim decided on several data sets and losses (paper N's Table 1: 2 data sets x 2 losses, each a few minutes
of training) is one long computation; as one check (or as checks sharing a module-scoped fixture, which
:mod:`verify.xdist_schedule` keeps on one worker) it leaves the second worker idle. Instead each unit of training is
its own check, and every check that needs a unit gets it from a :class:`RunStore`: a folder shared by the session's
workers, one JSON file per unit, computed under a per-unit file lock by the first check that asks and read back by
the others. Whatever the order the workers reach the units in, each unit is trained once and every check reads the
same values (the unit is returned from its file, also by the check that trained it).

The store itself is :class:`verify.session_store.SessionStore` (the statement variants' searches share one too).
"""

from __future__ import annotations

from ..session_store import SessionStore, session_folder

__all__ = ["RunStore", "session_folder"]


class RunStore(SessionStore):
    """Units of training, each computed once per folder: :meth:`get` ``(name, key, compute)``, with ``key`` the
    data set, loss, preset and seeds of the unit (see :class:`verify.session_store.SessionStore`)."""
