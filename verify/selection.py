"""A selection of claim checks (``verify report --claim/--paper/-k``, ``pytest --verify-claim/--verify-paper``),
checked before anything is collected: a wrong claim ID or a malformed ``-k`` is refused in a fraction of a second,
with nothing created, instead of after a collection of the whole suite. Light imports only (no sympy, no pytest
plugin), so the command line stays quick to refuse."""

from __future__ import annotations

from _pytest.mark.expression import Expression

from .claims import claim_ids, get_claim
from ._validate import VerifyInputError

__all__ = ["verify_selection"]


def verify_selection(claims=(), paper: str | None = None, keyword: str | None = None,
                     options: tuple[str, str, str] = ("--verify-claim", "--verify-paper", "-k")) -> list[str]:
    """Check a selection of claim checks before anything is collected (a bad one is refused in a fraction of a
    second, not after a collection of the whole suite): every claim ID registered (and of ``paper`` when given),
    the ``-k`` expression well formed by pytest's own parser. ``options`` names the three options in the message.
    Returns the claim IDs. Raises :class:`verify._validate.VerifyInputError`."""
    claim_opt, paper_opt, k_opt = options
    out = []
    for cid in claims or ():
        if not isinstance(cid, str) or cid not in claim_ids(beyond=True):
            near = [c for c in claim_ids(beyond=True) if isinstance(cid, str) and c.lower().startswith(cid.lower()[:4])]
            raise VerifyInputError(f"Argument {claim_opt!r} must be a registered claim ID (`verify report` lists "
                                   f"them{', e.g. ' + ', '.join(near[:3]) if near else ''}), not {cid!r}.")
        if paper and get_claim(cid).paper != paper:
            raise VerifyInputError(f"Argument {claim_opt!r} must name a claim of paper {paper} "
                                   f"({paper_opt} {paper}), not {cid!r}.")
        out.append(cid)
    if keyword is not None:
        try:
            Expression.compile(keyword)
        except SyntaxError as exc:
            raise VerifyInputError(f"Argument {k_opt!r} must be a pytest -k expression (names joined by and, or, "
                                   f"not and parentheses), not {keyword!r}: {exc.msg}.") from None
    return out
