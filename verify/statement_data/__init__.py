r"""The statement objects of the claims, keyed by claim ID, one data module per part of each paper, mirroring
``proofs_checks/`` (:mod:`.S.loss`, :mod:`.S.upper_bounds`, :mod:`.S.frames`, :mod:`.S.lower_bound`,
:mod:`.N.central_path`, :mod:`.N.perturbation`). Every constant and exponent of a covered claim is typed here once,
as a :class:`verify.statements.Field`.

>>> {'N-D-sigmas', 'N-lemC.3', 'S-eq10'} <= set(STATEMENTS)
True
"""

from __future__ import annotations

from .._validate import VerifyInputError
from .N import central_path as _n_central_path
from .N import perturbation as _n_perturbation
from .S import frames as _s_frames
from .S import loss as _s_loss
from .S import lower_bound as _s_lower_bound
from .S import upper_bounds as _s_upper_bounds

#: the data module of each part of the papers (the keys of :data:`verify.claims.PARTS`)
PART_MODULES = {"S/loss": _s_loss, "S/upper_bounds": _s_upper_bounds, "S/frames": _s_frames,
                "S/lower_bound": _s_lower_bound, "N/central_path": _n_central_path, "N/perturbation": _n_perturbation}

#: claim ID -> Statement
STATEMENTS = {s.claim: s for mod in PART_MODULES.values() for s in mod.STATEMENTS}


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
