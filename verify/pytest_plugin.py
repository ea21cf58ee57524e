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
import textwrap
from typing import Any

import pytest

from . import xdist_schedule
from .claims import SEVERITIES, SEVERITY_FIELDS, get_claim
from ._io import atomic_write_text
from ._validate import VerifyInputError
from .selection import verify_selection
from .session_store import SessionStore, session_folder
from .empirical import numerics
from .engine import jsonable

# the experiments' one numerical path, set before any check module imports torch (issue 39; inherited by xdist workers)
numerics.pin_environment()

_PROP = "verify-record"


class Verdict:
    """What a check records about its claims (see ``docs/architecture.md``).

    Proof claims (``sym``/``hp``/``num``) are :meth:`verified`, :meth:`refuted` (with a severity and its
    justification) or :meth:`inconclusive`. Experimental claims (``emp``) are :meth:`supported`,
    :meth:`contradicted` or :meth:`inconclusive`, always at a stated ``scale``. Using the other family's
    words is a usage error, so a report can never call an experiment "verified".
    """

    def __init__(self, node, claim_ids: list[str]):
        self._node = node
        self._ids = claim_ids

    def _targets(self, claim: str | None, experimental: bool, word: str) -> list[str]:
        if not self._ids:
            raise pytest.UsageError(f"{self._node.nodeid}: the verdict fixture needs @pytest.mark.claim(...)")
        targets = [claim] if claim else self._ids
        for cid in targets:
            if cid not in self._ids:
                raise pytest.UsageError(f"{self._node.nodeid}: claim {cid!r} is not in this check's marker")
            if experimental is not None and get_claim(cid).experimental != experimental:
                family = "supported/contradicted/inconclusive (with a scale)" if get_claim(cid).experimental \
                    else "verified/refuted/inconclusive"
                raise pytest.UsageError(f"{self._node.nodeid}: {cid} cannot be {word!r}; its verdicts are {family}")
        return targets

    def _record(self, verdict: str, claim: str | None, experimental: bool | None, **fields: Any) -> None:
        targets = self._targets(claim, experimental, verdict)
        payload = {"verdict": verdict, "claims": targets,
                   **{k: jsonable(v) for k, v in fields.items() if v is not None}}
        self._node.user_properties.append((_PROP, json.dumps(payload, sort_keys=True)))

    def verified(self, method: str | None = None, evidence: dict | None = None, claim: str | None = None) -> None:
        """The check confirmed the (proof) claim as stated."""
        self._record("verified", claim, False, method=method, evidence=evidence or {})

    def refuted(self, counterexample: Any, severity: str | None = None, justification: dict | None = None,
                evidence: dict | None = None, corrected: str | None = None, method: str | None = None,
                claim: str | None = None) -> None:
        """The check established a counterexample to the claim as stated (the test itself passes).

        ``severity`` is one of :data:`verify.claims.SEVERITIES`; ``justification`` holds the fields that
        severity needs (:data:`verify.claims.SEVERITY_FIELDS`): for ``error`` the ``instance`` well inside
        the hypotheses and the failure's size as a ``ratio``; for ``missing-hypothesis`` the unstated
        ``hypothesis`` and the ``repair`` (the check that verifies the statement with it added); for
        ``degenerate`` the undefined or trivial ``quantity``.
        """
        if counterexample is None:
            raise pytest.UsageError("verdict.refuted needs the counterexample")
        if severity not in SEVERITIES:
            raise pytest.UsageError(f"{self._node.nodeid}: verdict.refuted needs severity= one of "
                                    f"{', '.join(SEVERITIES)}, not {severity!r}")
        need = SEVERITY_FIELDS[severity]
        missing = [k for k in need if not (justification or {}).get(k)]
        if missing:
            raise pytest.UsageError(f"{self._node.nodeid}: a {severity!r} refutation needs justification="
                                    f"{{{', '.join(repr(k) + ': ...' for k in need)}}}; missing {missing}")
        if severity == "error":
            ratio = justification["ratio"]
            if not isinstance(ratio, (int, float)) or not ratio > 1:
                raise pytest.UsageError(f"{self._node.nodeid}: an 'error' refutation's justification['ratio'] "
                                        f"(failure size, measured/claimed) must be a number > 1, not {ratio!r}")
        self._record("refuted", claim, False, method=method, evidence=evidence or {}, severity=severity,
                     justification=justification, counterexample=counterexample, corrected=corrected)

    def supported(self, scale: str, evidence: dict | None = None, method: str | None = None,
                  claim: str | None = None) -> None:
        """The experiment's primary comparisons are significant in the claimed direction (emp claims)."""
        self._record("supported", claim, True, method=method, evidence=evidence or {}, scale=_scale(scale))

    def contradicted(self, scale: str, evidence: dict | None = None, method: str | None = None,
                     corrected: str | None = None, claim: str | None = None) -> None:
        """A comparison is significant against the claimed direction (emp claims)."""
        self._record("contradicted", claim, True, method=method, evidence=evidence or {}, scale=_scale(scale),
                     corrected=corrected)

    def certified(self, kind: str, evidence: dict, method: str | None = None, claim: str | None = None) -> None:
        """A certified number beside the verdict (issue 25, :mod:`verify.certified`): ``kind`` ``"margin"`` (a
        verified inequality/identity recomputed exactly or in Arb balls at the check's points: ``evidence`` has
        ``statement``, ``points``, ``margin_lower``, ``route``, ``certified``) or ``"ratio"`` (a refutation's
        counterexample: ``statement``, ``interval``, ``route``, ``certified``). It never sets a verdict; the
        report lists it in the claim's row under ``certified`` whatever the verdict."""
        need = {"margin": ("statement", "points", "margin_lower", "route", "certified"),
                "ratio": ("statement", "interval", "route", "certified")}
        if kind not in need:
            raise pytest.UsageError(f"{self._node.nodeid}: verdict.certified needs kind= 'margin' or 'ratio', not {kind!r}")
        missing = [k for k in need[kind] if k not in (evidence or {})]
        if missing:
            raise pytest.UsageError(f"{self._node.nodeid}: a certified {kind!r} record needs evidence keys {missing}")
        self._record("certified", claim, False, kind=kind, method=method, evidence=evidence)

    def necessity(self, hypothesis: str, outcome: str, evidence: dict, claim: str | None = None) -> None:
        """One row of the hypothesis-necessity table (:mod:`verify.necessity`): ``outcome`` is ``"needed"``
        (``evidence`` has the ``counterexample`` the search found for the statement without ``hypothesis``) or
        ``"not needed at the budget tried"`` (``evidence`` has the ``search`` size). Never sets a verdict."""
        if outcome not in ("needed", "not needed at the budget tried"):
            raise pytest.UsageError(f"{self._node.nodeid}: verdict.necessity outcome must be 'needed' or "
                                    f"'not needed at the budget tried', not {outcome!r}")
        if "search" not in (evidence or {}) or (outcome == "needed" and "counterexample" not in evidence):
            raise pytest.UsageError(f"{self._node.nodeid}: a necessity record needs evidence 'search' "
                                    f"(and 'counterexample' when needed)")
        self._record("necessity", claim, False, hypothesis=hypothesis, outcome=outcome, evidence=evidence)

    def variant(self, row: dict, claim: str | None = None) -> None:
        """One variant of the claim's statement object (:func:`verify.statements.run_variant`): ``row`` has the
        ``variant`` (its name), ``kind``, ``class`` (``false``, ``true`` or ``unknown``), ``check`` (the statement's
        own search: ``refuted`` or ``verified``) and ``outcome`` (:data:`verify.statements.OUTCOMES`); a caught
        false variant also its ``counterexample``. Never sets a verdict: the report lists it in the claim's row
        under ``variants`` and counts the recall and false alarms."""
        need = ("variant", "kind", "class", "check", "outcome")
        missing = [k for k in need if k not in (row or {})]
        if missing:
            raise pytest.UsageError(f"{self._node.nodeid}: a variant record needs keys {missing}")
        if row["class"] not in ("false", "true", "unknown"):
            raise pytest.UsageError(f"{self._node.nodeid}: a variant's class must be 'false', 'true' or 'unknown', "
                                    f"not {row['class']!r}")
        if row["outcome"] == "caught" and "counterexample" not in row:
            raise pytest.UsageError(f"{self._node.nodeid}: a caught variant needs its counterexample")
        # the search's verdict is kept as "search": "check" names the check's node id in the report's rows
        self._record("variant", claim, False, **{("search" if k == "check" else k): v for k, v in row.items()})

    def inconclusive(self, reason: str, evidence: dict | None = None, method: str | None = None,
                     claim: str | None = None, scale: str | None = None) -> None:
        """The check could neither confirm nor refute; ``reason`` says why (emp claims also give ``scale``)."""
        targets = self._targets(claim, None, "inconclusive")
        if any(get_claim(c).experimental for c in targets) and scale is None:
            raise pytest.UsageError(f"{self._node.nodeid}: an experimental verdict needs scale=")
        self._record("inconclusive", claim, None, method=method, evidence=evidence or {}, reason=reason,
                     scale=None if scale is None else _scale(scale))


def _scale(scale: Any) -> str:
    """``"paper"`` (the paper's model, data and size) or ``"reduced: <what was reduced>"``."""
    if scale == "paper" or (isinstance(scale, str) and scale.startswith("reduced: ") and len(scale) > 9):
        return scale
    raise pytest.UsageError(f"scale must be 'paper' or 'reduced: <what was reduced>', not {scale!r}")


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
    group.addoption("--verify-claim", action="append", default=[], metavar="ID",
                    help="only run the checks of this claim (by its marker; repeatable)")
    group.addoption("--verify-summary", action="store_true", default=None,
                    help="end with the verdict summary even when no claim check ran")
    group.addoption("--verify-coverage", default=None, metavar="FILE",
                    help="record branch coverage of the verify package per check (coverage.py contexts) to FILE.*; "
                         "see verify.coverage_map.collect")
    group.addoption("--verify-deps", action="store_true", default=False,
                    help="attach the package functions and data files each check executed to its report "
                         "(the dependencies behind verify report's cache)")
    group.addoption("--verify-nodeids", default=None, metavar="FILE",
                    help="only run the checks whose node ids are listed in FILE (one per line)")
    group.addoption("--verify-collect", default=None, metavar="FILE",
                    help="write the selected claim checks (node id, claims, slow) to FILE at collection")
    group.addoption("--verify-durations", default=None, metavar="FILE",
                    help="record each check's seconds in FILE (over its earlier entries; verify report keeps it in its "
                         "cache folder) and share the checks out by them under -n N (see verify.xdist_schedule)")


def pytest_configure(config):
    try:  # a bad selection is refused here, before the suite is collected
        verify_selection(config.getoption("--verify-claim"), config.getoption("--verify-paper"))
    except VerifyInputError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.addinivalue_line("markers", "claim(*ids, corrected=False): the claim IDs a check tests "
                            "(corrected=True: the check tests the corrected statement of a refuted claim)")
    config.addinivalue_line("markers", "slow: long check, outside the default tier (run with -m slow)")
    config._verify_results = {}
    # The checks multiply small matrices, where BLAS threads only add overhead; under pytest-xdist
    # (one worker per core) or on a loaded machine they oversubscribe the cores and OpenBLAS's
    # busy-waiting makes small products ~30-100x slower. VERIFY_BLAS_THREADS overrides.
    from threadpoolctl import threadpool_limits

    n = int(os.environ.get("VERIFY_BLAS_THREADS", "1"))
    config._verify_threads = threadpool_limits(n)
    # threadpool_limits reaches only the BLAS libraries loaded by now: scipy's own OpenBLAS is loaded later, when
    # a check module imports scipy.linalg, and kept its default of one thread per core (measured: 2 inside
    # pytest -n 2, so 4 busy threads on 2 cores). OpenBLAS reads this variable when it is loaded, and so do the
    # checks' subprocesses; a value the user set is kept. pytest_collection_finish applies the limit once more.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(n))
    if config.getoption("--verify-coverage") or config.getoption("--verify-deps"):
        from . import coverage_map

        coverage_map.start(config, data_file=config.getoption("--verify-coverage"),
                           branch=bool(config.getoption("--verify-coverage")), deps=config.getoption("--verify-deps"))


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        ids, _ = _marker_claims(item)
        for cid in ids:
            try:
                get_claim(cid)
            except ValueError as exc:
                raise pytest.UsageError(f"{item.nodeid}: {exc}") from None
    wanted = config.getoption("--verify-claim") or []   # checked in pytest_configure
    listed = config.getoption("--verify-nodeids")
    if listed:
        with open(listed, encoding="utf-8") as fh:
            keep_ids = {line.rstrip("\n") for line in fh if line.strip()}
        drop = [i for i in items if i.nodeid not in keep_ids]
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = [i for i in items if i.nodeid in keep_ids]
    paper = config.getoption("--verify-paper")
    if paper or wanted:
        keep = [i for i in items if any((not paper or get_claim(c).paper == paper) and (not wanted or c in wanted)
                                        for c in _marker_claims(i)[0])]
        drop = [i for i in items if i not in keep]
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    xdist_schedule.write_groups(config, items)   # a pytest-xdist worker: its checks' shared-fixture groups


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under ``-n N`` (``--dist load``, the default): :class:`verify.xdist_schedule.FixtureGroupScheduling`."""
    return xdist_schedule.make_scheduler(config, log) if xdist_schedule.uses_our_scheduler(config) else None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    xdist_schedule.configure_node(node.config, node)


def pytest_collection_finish(session):
    from threadpoolctl import threadpool_limits

    # the BLAS libraries the check modules loaded at collection (scipy's) get the same limit as the rest
    session.config._verify_threads_collected = threadpool_limits(int(os.environ.get("VERIFY_BLAS_THREADS", "1")))
    path = session.config.getoption("--verify-collect")
    if not path or hasattr(session.config, "workerinput"):
        return
    rows = []
    for item in session.items:
        ids, corrected = _marker_claims(item)
        if ids:
            rows.append({"nodeid": item.nodeid, "ids": ids, "corrected": corrected,
                         "slow": item.get_closest_marker("slow") is not None,
                         "file": str(item.path)})
    atomic_write_text(path, json.dumps({"checks": rows}, indent=1, sort_keys=True))


@pytest.fixture
def verdict(request) -> Verdict:
    """Record verified / refuted / inconclusive for the claims of this check's ``claim`` marker."""
    ids, _ = _marker_claims(request.node)
    return Verdict(request.node, ids)


@pytest.fixture(scope="session")  # session: the scheduler must not bind the checks that share it into one unit
def statement_store(tmp_path_factory) -> SessionStore:
    """The session's store of statement searches (:func:`verify.statements.run_claim`): the paper's statement and
    each of its variants searched once per session, however many checks ask (the default tier's sample is part of
    the slow tier's every variant) and on whichever worker."""
    return SessionStore(session_folder(tmp_path_factory, "statement-searches"))


def pytest_itemcollected(item):
    ids, corrected = _marker_claims(item)
    if ids:
        item.user_properties.append(("verify-claims", json.dumps({"ids": ids, "corrected": corrected})))


def pytest_runtest_logreport(report):
    config = _CONFIG.get("config")
    if config is not None:
        xdist_schedule.record_duration(config, report)   # the order of the next run (verify.xdist_schedule)
    props = dict((k, v) for k, v in report.user_properties if k == "verify-claims")
    if not props or config is None:
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
    deps = [v for k, v in report.user_properties if k == "verify-deps"]
    if deps:
        res["deps"] = json.loads(deps[-1])


_CONFIG: dict = {}


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    _CONFIG["config"] = session.config


def _results(config) -> list:
    return sorted(config._verify_results.values(), key=lambda r: r["nodeid"])


def pytest_sessionfinish(session, exitstatus):
    xdist_schedule.save_durations(session.config)
    path = session.config.getoption("--verify-json")
    if path and not hasattr(session.config, "workerinput"):
        atomic_write_text(path, json.dumps({"checks": _results(session.config)}, indent=1, sort_keys=True))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """``pytest proofs_checks`` ends with the verdicts: counts by verdict and severity, and what failed."""
    if hasattr(config, "workerinput") or not (config._verify_results or config.getoption("--verify-summary")):
        return
    from .report import aggregate, format_summary

    doc = aggregate(_results(config), only_checked=True)
    width = getattr(getattr(terminalreporter, "_tw", None), "fullwidth", 0) or 100   # the terminal's, else 100
    terminalreporter.write_sep("=", "verify: claim verdicts")
    terminalreporter.write_line(format_summary(doc, width).rstrip("\n"))
    for line in claims_by_verdict(doc):
        for part in textwrap.wrap(line, width, subsequent_indent="    ", break_on_hyphens=False) or [""]:
            terminalreporter.write_line(part)


def claims_by_verdict(doc: dict) -> list[str]:
    """One line per verdict (refutations by severity, experiments by scale) naming its claims, registry order:
    ``refuted (error): N-thmC.2``; an experiment with a second decision on the paper's explanation names its verdict
    beside the claim's: ``supported (reduced scale): N-fig6-interference (mechanism: inconclusive)``."""
    from .claims import ALL_VERDICTS

    groups: dict[str, list[str]] = {}
    for row in doc["claims"] + doc.get("beyond", []):
        label = row["verdict"]
        if row.get("severity"):
            label += f" ({row['severity']})"
        elif row.get("scale"):
            label += " (paper scale)" if row["scale"] == "paper" else " (reduced scale)"
        mech = (row.get("evidence") or {}).get("mechanism")   # the paper's explanation, decided beside the verdict
        groups.setdefault(label, []).append(row["id"] + (f" (mechanism: {mech['verdict']})" if isinstance(mech, dict)
                                                         and mech.get("verdict") else ""))
    order = {v: i for i, v in enumerate(ALL_VERDICTS)}
    return [f"{label}: {', '.join(ids)}" for label, ids in
            sorted(groups.items(), key=lambda kv: (order.get(kv[0].split(" ")[0], 99), kv[0]))]
