"""pytest plugin (entry point ``pytest11``): the ``claim`` marker and the ``verdict`` fixture.

A theorem check names the claims it tests and records what it established::

    @pytest.mark.claim("S-eq9")
    def test_eq9(verdict):
        ...
        verdict.verified(method="exact rationals", evidence={"points": 40})

Records travel in ``item.user_properties`` so they survive pytest-xdist. With
``--verify-json FILE`` the plugin writes every check's outcome and records to ``FILE``; the report
(:mod:`verify.report`) aggregates them per claim. ``--verify-paper S|N`` keeps only the checks of
one paper.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from .claims import get_claim
from .engine import jsonable

_PROP = "verify-record"


class Verdict:
    """What a check records about its claims (see ``docs/architecture.md``)."""

    def __init__(self, node, claim_ids: list[str]):
        self._node = node
        self._ids = claim_ids

    def _record(self, verdict: str, claim: str | None, **fields: Any) -> None:
        if not self._ids:
            raise pytest.UsageError(f"{self._node.nodeid}: the verdict fixture needs @pytest.mark.claim(...)")
        targets = [claim] if claim else self._ids
        for cid in targets:
            if cid not in self._ids:
                raise pytest.UsageError(f"{self._node.nodeid}: claim {cid!r} is not in this check's marker")
        payload = {"verdict": verdict, "claims": targets,
                   **{k: jsonable(v) for k, v in fields.items() if v is not None}}
        self._node.user_properties.append((_PROP, json.dumps(payload, sort_keys=True)))

    def verified(self, method: str | None = None, evidence: dict | None = None, claim: str | None = None) -> None:
        """The check confirmed the claim as stated."""
        self._record("verified", claim, method=method, evidence=evidence or {})

    def refuted(self, counterexample: Any, evidence: dict | None = None, corrected: str | None = None,
                method: str | None = None, claim: str | None = None) -> None:
        """The check established a counterexample to the claim as stated (the test itself passes)."""
        if counterexample is None:
            raise pytest.UsageError("verdict.refuted needs the counterexample")
        self._record("refuted", claim, method=method, evidence=evidence or {},
                     counterexample=counterexample, corrected=corrected)

    def inconclusive(self, reason: str, evidence: dict | None = None, method: str | None = None,
                     claim: str | None = None) -> None:
        """The check could neither confirm nor refute; ``reason`` says why."""
        self._record("inconclusive", claim, method=method, evidence=evidence or {}, reason=reason)


def _marker_claims(item) -> tuple[list[str], bool]:
    ids, corrected = [], False
    for mark in item.iter_markers(name="claim"):
        ids.extend(mark.args)
        corrected = corrected or bool(mark.kwargs.get("corrected", False))
    return ids, corrected


def pytest_addoption(parser):
    group = parser.getgroup("verify", "claim verdicts (verify package)")
    group.addoption("--verify-json", default=None, metavar="FILE",
                    help="write every claim check's outcome and recorded verdict to FILE")
    group.addoption("--verify-paper", default=None, choices=("S", "N"),
                    help="only run the checks of paper S or N")


def pytest_configure(config):
    config.addinivalue_line("markers", "claim(*ids, corrected=False): the claim IDs a check tests "
                            "(corrected=True: the check tests the corrected statement of a refuted claim)")
    config.addinivalue_line("markers", "slow: long check, outside the default tier (run with -m slow)")
    config._verify_results = {}
    # The checks multiply small matrices, where BLAS threads only add overhead; under pytest-xdist
    # (one worker per core) or on a loaded machine they oversubscribe the cores and OpenBLAS's
    # busy-waiting makes small products ~30-100x slower. VERIFY_BLAS_THREADS overrides.
    from threadpoolctl import threadpool_limits

    config._verify_threads = threadpool_limits(int(os.environ.get("VERIFY_BLAS_THREADS", "1")))


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        ids, _ = _marker_claims(item)
        for cid in ids:
            try:
                get_claim(cid)
            except ValueError as exc:
                raise pytest.UsageError(f"{item.nodeid}: {exc}") from None
    paper = config.getoption("--verify-paper")
    if paper:
        keep = [i for i in items if any(c.startswith(paper + "-") for c in _marker_claims(i)[0])]
        drop = [i for i in items if i not in keep]
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep


@pytest.fixture
def verdict(request) -> Verdict:
    """Record verified / refuted / inconclusive for the claims of this check's ``claim`` marker."""
    ids, _ = _marker_claims(request.node)
    return Verdict(request.node, ids)


def pytest_itemcollected(item):
    ids, corrected = _marker_claims(item)
    if ids:
        item.user_properties.append(("verify-claims", json.dumps({"ids": ids, "corrected": corrected})))


def pytest_runtest_logreport(report):
    props = dict((k, v) for k, v in report.user_properties if k == "verify-claims")
    if not props:
        return
    config = _CONFIG.get("config")
    if config is None:
        return
    res = config._verify_results.setdefault(report.nodeid, {
        "nodeid": report.nodeid, **json.loads(props["verify-claims"]), "outcome": "passed", "records": [],
    })
    if report.when == "call" or report.outcome != "passed":
        if report.outcome == "skipped":
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            res.update(outcome="skipped", reason=reason)
        elif report.outcome == "failed":
            res.update(outcome="failed" if report.when == "call" else "error",
                       reason=(report.longreprtext or "").strip().splitlines()[-1:] or [""])
            res["reason"] = res["reason"][0][:300]
    if report.when == "call":
        res["records"] = [json.loads(v) for k, v in report.user_properties if k == _PROP]


_CONFIG: dict = {}


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    _CONFIG["config"] = session.config


def pytest_sessionfinish(session, exitstatus):
    path = session.config.getoption("--verify-json")
    if path and not hasattr(session.config, "workerinput"):
        results = sorted(session.config._verify_results.values(), key=lambda r: r["nodeid"])
        with open(path, "w", encoding="utf-8") as fh:
            json.dump({"checks": results}, fh, indent=1, sort_keys=True)
