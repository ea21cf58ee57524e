r"""The statement objects of the claims, keyed by claim ID, one data module per paper (:mod:`.paper_S`,
:mod:`.paper_N`). Every constant and exponent of a covered claim is typed here once, as a
:class:`verify.statements.Field`.

>>> sorted(STATEMENTS)[:3]
['N-D-sigmas', 'N-lemC.3', 'S-eq10']
"""

from __future__ import annotations

from .._validate import VerifyInputError
from . import paper_N, paper_S

#: claim ID -> Statement
STATEMENTS = {s.claim: s for s in paper_S.STATEMENTS + paper_N.STATEMENTS}


def get_statement(claim: str):
    """The statement object of ``claim`` (a covered claim ID)."""
    if claim not in STATEMENTS:
        raise VerifyInputError(f"Argument 'claim' must be a claim with a statement object "
                               f"({', '.join(sorted(STATEMENTS))}), not {claim!r}.")
    return STATEMENTS[claim]


def statements(paper: str | None = None, claims=None) -> list:
    """The statement objects, in catalogue order, of ``paper`` ("S", "N" or None: both) and ``claims``."""
    from ..claims import CLAIMS

    if paper not in (None, "S", "N"):
        raise VerifyInputError(f"Argument '--paper' must be S or N, not {paper!r}.")
    for c in claims or ():
        if c not in STATEMENTS:
            raise VerifyInputError(f"Argument '--claim' must be a claim with a statement object "
                                   f"({', '.join(sorted(STATEMENTS))}), not {c!r}.")
    order = [c.id for c in CLAIMS if c.id in STATEMENTS]
    return [STATEMENTS[c] for c in order if (paper is None or c[0] == paper) and (not claims or c in claims)]
