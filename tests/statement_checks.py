"""Shared by the statement-object tests (tests/statement_data/): a claim's own check run with a variant of its
statement injected through the environment, and the statement's own search over every variant."""

from __future__ import annotations

import pytest

from verify import statements as engine
from verify.statement_data import get_statement


class NullVerdict:
    """Stands in for the plugin's ``verdict`` fixture: every recording call does nothing."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def check_under_variant(monkeypatch, check, spec: str, fails: bool) -> None:
    """Run ``check`` with ``$VERIFY_STATEMENT_VARIANT = spec``: a false variant (``fails``) must make it fail, a
    true control must leave it passing."""
    monkeypatch.setenv(engine.VARIANT_ENV, spec)
    if fails:
        with pytest.raises(AssertionError):
            check(NullVerdict())
    else:
        check(NullVerdict())


def classified_variants(claim: str, monkeypatch=None) -> dict:
    """``{variant name: classification}`` of every variant of ``claim``'s statement, by exact reasoning; with
    ``monkeypatch`` the statement's check is replaced by one that fails, so a classification that ran it fails."""
    if monkeypatch is not None:
        def no_check(*a, **k):
            raise AssertionError("classification ran the check")

        monkeypatch.setattr(engine, "check", no_check)
    st = get_statement(claim)
    return {v.name: engine.classify(st, v) for v in engine.variants(st)}


def assert_search_catches_every_false_variant(claim: str) -> None:
    """The statement's own search: the paper's statement verified, at least 3 false variants, each refuted, no
    control refuted."""
    r = engine.run_claim(get_statement(claim))
    assert r["original"]["check"] == "verified", r["original"]
    assert r["false"] >= 3 and r["caught"] == r["false"] and r["false_alarms"] == 0, r
