"""Run the theorem suite and aggregate the checks into one verdict per claim.

Per claim (registry order):

* ``not-checked`` - no check of the claim ran (none written, or all skipped/deselected);
* ``inconclusive`` - a check failed or errored (the suite is red), or a check recorded ``inconclusive``;
* otherwise the strongest verdict recorded by its non-corrected checks: refuted > inconclusive > verified
  (experiments: contradicted > inconclusive > supported). A refuted claim carries the severity of its most
  serious refutation (error > missing-hypothesis > degenerate) and that refutation's justification; an
  experiment carries its scale.

Checks marked ``corrected=True`` test the corrected statement of a refuted claim; they are listed with
the claim but do not set its verdict.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import pytest

from .claims import ALL_VERDICTS, BEYOND, CLAIMS, PAPERS, SEVERITIES
from ._validate import verify_choice

# The reporters live in verify.reporters (one module per format, all reading the document above); these names
# stay importable from here for the plugin, the commands and the tests.
from .reporters._common import short as _short, verdict_label  # noqa: F401
from .reporters.compare import COMPARED, compare, format_changes  # noqa: F401
from .reporters.json import read_json, write_json  # noqa: F401
from .reporters.markdown import format_markdown  # noqa: F401
from .reporters.terminal import format_summary, format_table  # noqa: F401

_RANK = {"verified": 0, "inconclusive": 1, "refuted": 2}


def suite_path() -> Path:
    """The ``proofs_checks`` folder: the one in the working directory, else the installed package."""
    local = Path.cwd() / "proofs_checks"
    if local.is_dir():
        return local
    import proofs_checks

    return Path(proofs_checks.__file__).parent


class _Progress:
    """A tqdm bar over the checks while pytest runs quietly."""

    def __init__(self):
        from tqdm import tqdm

        self.bar = tqdm(desc="checks", unit="check", file=sys.stderr, mininterval=0.5, dynamic_ncols=True)

    def pytest_collection_finish(self, session):
        self.bar.total = len(session.items)
        self.bar.refresh()

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids):  # under xdist only workers collect
        self.bar.total = len(ids)
        self.bar.refresh()

    def pytest_runtest_logreport(self, report):
        if report.when == "teardown":
            self.bar.update(1)
            self.bar.set_postfix_str(report.nodeid.rsplit("::", 1)[-1][:40], refresh=False)

    def pytest_sessionfinish(self):
        self.bar.close()


def run_suite(fast: bool = False, paper: str | None = None, keyword: str | None = None,
              workers: int | None = None, suite: Path | None = None, progress: bool = True,
              extra_args: list | None = None) -> tuple[int, list]:
    """Run the suite with pytest; return ``(exit code, per-check results)``."""
    if paper is not None:
        verify_choice(paper, "paper", ("S", "N"))
    suite = Path(suite) if suite else suite_path()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "checks.json"
        args = [str(suite), "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
                "-m", "not slow" if fast else "", f"--verify-json={out}", "-o", "console_output_style=classic",
                "--tb=line", "-rN"]
        # node ids relative to the project (or to a bare suite folder), whatever the working directory:
        # pytest would otherwise take the common ancestor of cwd and the suite, and the ids would move
        root = suite.parent if (suite.parent / "pyproject.toml").exists() else suite
        args.append(f"--rootdir={root}")
        if paper:
            args.append(f"--verify-paper={paper}")
        if keyword:
            args += ["-k", keyword]
        if workers and workers > 1:
            args += ["-n", str(workers)]
        args += list(extra_args or [])
        plugins = [_Progress()] if progress else []
        with open(os.devnull, "w") as devnull:
            saved = sys.stdout
            sys.stdout = devnull  # the table is the output; pytest's own chatter is not
            try:
                code = int(pytest.main(args, plugins=plugins))
            finally:
                sys.stdout = saved
        checks = json.loads(out.read_text())["checks"] if out.exists() else []
    return code, checks


_RANK_EMP = {"supported": 0, "inconclusive": 1, "contradicted": 2}
_SEVERITY_RANK = {sev: i for i, sev in enumerate(reversed(SEVERITIES))}  # error outranks the others


def aggregate(checks: list, paper: str | None = None, mutants: dict | None = None,
              only_checked: bool = False) -> dict:
    """Turn per-check results into the report document, the one data model every reporter reads.

    ``{"claims": [row...], "beyond": [row...], "summary": {paper: {verdict: n, ...}, "total": ...},
    "severity": {severity: n}, "headline": str}``; a row has ``id, paper, where, kind, statement, verdict,
    method, evidence, checks`` and, where they apply, ``severity`` and ``justification`` (refuted),
    ``scale`` (experiments) and ``power`` (``{"killed", "total", "survivors"}`` from ``verify mutants``).
    ``only_checked`` drops the claims no check ran for (the pytest summary of a partial run).
    """
    by_claim: dict[str, list] = {}
    for chk in checks:
        for cid in chk["ids"]:
            by_claim.setdefault(cid, []).append(chk)
    rows, beyond = [], []
    for claim in CLAIMS + BEYOND:
        if (paper and claim.paper != paper) or (only_checked and claim.id not in by_claim):
            continue
        row = _claim_row(claim, by_claim.get(claim.id, []))
        if mutants and claim.id in mutants:
            row["power"] = mutants[claim.id]
        (beyond if claim.beyond else rows).append(row)
    summary = {}
    for p in [p for p in PAPERS if any(r["paper"] == p for r in rows)]:
        counts = {v: 0 for v in ALL_VERDICTS}
        for r in rows:
            if r["paper"] == p:
                counts[r["verdict"]] += 1
        summary[p] = counts
    summary["total"] = {v: sum(s[v] for s in summary.values()) for v in ALL_VERDICTS}
    severity = {sev: sum(r.get("severity") == sev for r in rows) for sev in SEVERITIES}
    return {"claims": rows, "beyond": beyond, "summary": summary, "severity": severity,
            "headline": headline(rows)}


def headline(rows: list) -> str:
    """One line: counts by verdict, refutations by severity, e.g. ``60 verified, 7 refuted (1 error, 2 missing
    hypotheses, 4 degenerate cases), 3 supported, ...``."""
    counts = {v: sum(r["verdict"] == v for r in rows) for v in ALL_VERDICTS}
    parts = []
    for v in ALL_VERDICTS:
        if not counts[v]:
            continue
        text = f"{counts[v]} {v}"
        if v == "refuted":
            sev = {s: sum(r.get("severity") == s for r in rows) for s in SEVERITIES}
            names = {"error": ("error", "errors"), "missing-hypothesis": ("missing hypothesis", "missing hypotheses"),
                     "degenerate": ("degenerate case", "degenerate cases")}
            text += " (" + ", ".join(f"{n} {names[s][n != 1]}" for s, n in sev.items() if n) + ")"
        parts.append(text)
    return ", ".join(parts) + f" ({len(rows)} claims)"


def _claim_row(claim, checks: list) -> dict:
    entries, main_verdicts, method, evidence, extra = [], [], None, {}, {}
    rank = _RANK_EMP if claim.experimental else _RANK
    for chk in sorted(checks, key=lambda c: c["nodeid"]):
        mine = [r for r in chk.get("records", []) if claim.id in r["claims"]]
        entry = {"check": chk["nodeid"], "outcome": chk["outcome"], "corrected": chk["corrected"]}
        if chk.get("reason"):
            entry["reason"] = chk["reason"]
        if chk["outcome"] == "passed":
            default = {"verdict": "inconclusive", "reason": "the check recorded no verdict", "evidence": {}} \
                if claim.experimental else {"verdict": "verified", "evidence": {}}
            recs = mine or [default]
            entry["records"] = [{k: v for k, v in r.items() if k != "claims"} for r in recs]
            if not chk["corrected"]:
                main_verdicts.extend(r["verdict"] for r in recs)
        elif chk["outcome"] in ("failed", "error"):
            main_verdicts.append("failed")
        entries.append(entry)
    ran = [e for e in entries if e["outcome"] != "skipped"]
    if not ran:
        verdict = "not-checked"
        reasons = sorted({e.get("reason", "") for e in entries if e.get("reason")})
        if reasons:
            extra["reason"] = "; ".join(reasons)[:300]
    elif "failed" in main_verdicts:
        verdict = "inconclusive"
        extra["reason"] = "a check failed: " + "; ".join(e["check"] for e in entries if e["outcome"] in ("failed", "error"))
    elif not main_verdicts:  # only corrected-statement checks ran
        verdict = "inconclusive"
        extra["reason"] = "only the corrected statement was checked"
    else:
        verdict = max(main_verdicts, key=rank.__getitem__)
    # the evidence shown is that of the records which set the verdict
    row_extra: dict = {}
    setting = [r for e in entries if not e["corrected"] for r in e.get("records", []) if r["verdict"] == verdict]
    if verdict == "refuted":  # the most serious refutation sets the severity
        setting.sort(key=lambda r: -_SEVERITY_RANK.get(r.get("severity"), -1))
        row_extra["severity"] = setting[0].get("severity")
        row_extra["justification"] = setting[0].get("justification")
    for r in setting:
        method = method or r.get("method")
        if claim.experimental and "scale" in r:
            row_extra.setdefault("scale", r["scale"])
        for key in ("counterexample", "corrected", "reason"):
            if key in r and key not in extra:
                extra[key] = r[key]
        for k, v in r.get("evidence", {}).items():
            evidence.setdefault(k, v)
    return {"id": claim.id, "paper": claim.paper, "where": claim.where, "kind": claim.kind,
            "statement": claim.statement, "verdict": verdict, **row_extra, "method": method or claim.kind,
            "evidence": {**extra, **evidence} if (extra or evidence) else {}, "checks": entries}
