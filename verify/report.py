"""Run the theorem suite and aggregate the checks into one verdict per claim.

Per claim (registry order):

* ``not-checked`` - no check of the claim ran (none written, or all skipped/deselected);
* ``inconclusive`` - a check failed or errored (the suite is red), or a check recorded ``inconclusive``;
* otherwise the strongest verdict recorded by its non-corrected checks: refuted > inconclusive > verified.

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

from .claims import CLAIMS, PAPERS, VERDICTS
from ._validate import verify_choice

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
              workers: int | None = None, suite: Path | None = None, progress: bool = True) -> tuple[int, list]:
    """Run the suite with pytest; return ``(exit code, per-check results)``."""
    if paper is not None:
        verify_choice(paper, "paper", ("S", "N"))
    suite = Path(suite) if suite else suite_path()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "checks.json"
        args = [str(suite), "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
                "-m", "not slow" if fast else "", f"--verify-json={out}", "-o", "console_output_style=classic",
                "--tb=line", "-rN"]
        if paper:
            args.append(f"--verify-paper={paper}")
        if keyword:
            args += ["-k", keyword]
        if workers and workers > 1:
            args += ["-n", str(workers)]
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


def aggregate(checks: list, paper: str | None = None) -> dict:
    """Turn per-check results into the report document (see README for the schema)."""
    by_claim: dict[str, list] = {}
    for chk in checks:
        for cid in chk["ids"]:
            by_claim.setdefault(cid, []).append(chk)
    rows = []
    for claim in CLAIMS:
        if paper and claim.paper != paper:
            continue
        rows.append(_claim_row(claim, by_claim.get(claim.id, [])))
    summary = {}
    for p in [p for p in PAPERS if any(r["paper"] == p for r in rows)]:
        counts = {v: 0 for v in VERDICTS}
        for r in rows:
            if r["paper"] == p:
                counts[r["verdict"]] += 1
        summary[p] = counts
    summary["total"] = {v: sum(s[v] for s in summary.values()) for v in VERDICTS}
    return {"claims": rows, "summary": summary}


def _claim_row(claim, checks: list) -> dict:
    entries, main_verdicts, method, evidence, extra = [], [], None, {}, {}
    for chk in sorted(checks, key=lambda c: c["nodeid"]):
        mine = [r for r in chk.get("records", []) if claim.id in r["claims"]]
        entry = {"check": chk["nodeid"], "outcome": chk["outcome"], "corrected": chk["corrected"]}
        if chk.get("reason"):
            entry["reason"] = chk["reason"]
        if chk["outcome"] == "passed":
            recs = mine or [{"verdict": "verified", "evidence": {}}]
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
        verdict = max(main_verdicts, key=_RANK.__getitem__)
    # the evidence shown is that of the records which set the verdict
    for e in entries:
        for r in e.get("records", []):
            if r["verdict"] == verdict and not e["corrected"]:
                method = method or r.get("method")
                for key in ("counterexample", "corrected", "reason"):
                    if key in r and key not in extra:
                        extra[key] = r[key]
                for k, v in r.get("evidence", {}).items():
                    evidence.setdefault(k, v)
    return {"id": claim.id, "paper": claim.paper, "where": claim.where, "kind": claim.kind,
            "statement": claim.statement, "verdict": verdict, "method": method or claim.kind,
            "evidence": {**extra, **evidence} if (extra or evidence) else {}, "checks": entries}


def _short(evidence: dict, width: int) -> str:
    text = "; ".join(f"{k}={json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v}"
                     for k, v in evidence.items())
    return text if len(text) <= width else text[: width - 3] + "..."


def format_table(doc: dict, width: int = 110) -> str:
    """The plain-text table printed by ``verify report``."""
    lines = [f"{'ID':<22} {'verdict':<13} {'method':<28} evidence", "-" * (66 + 44)]
    for r in doc["claims"]:
        lines.append(f"{r['id']:<22} {r['verdict']:<13} {str(r['method'])[:28]:<28} {_short(r['evidence'], width - 66)}")
    lines.append("")
    for paper, counts in doc["summary"].items():
        lines.append(f"{'paper ' + paper if paper != 'total' else 'total':<8} " +
                     "  ".join(f"{v}: {n}" for v, n in counts.items()))
    return "\n".join(lines) + "\n"


def format_markdown(doc: dict) -> str:
    """The report as a Markdown document (full evidence)."""
    esc = lambda s: str(s).replace("|", "\\|").replace("\n", " ")
    out = ["# Verdicts", "", "| ID | paper | where | verdict | method | evidence |", "|---|---|---|---|---|---|"]
    for r in doc["claims"]:
        out.append(f"| `{r['id']}` | {r['paper']} | {esc(r['where'])} | **{r['verdict']}** | {esc(r['method'])} | "
                   f"{esc(_short(r['evidence'], 10_000))} |")
    refuted = [r for r in doc["claims"] if r["verdict"] == "refuted"]
    if refuted:
        out += ["", "## Refuted claims", ""]
        for r in refuted:
            ev = r["evidence"]
            out += [f"### `{r['id']}` ({r['where']})", "", f"*Statement:* {r['statement']}", "",
                    f"*Counterexample:* `{json.dumps(ev.get('counterexample'), sort_keys=True)}`", "",
                    f"*Corrected statement:* {ev.get('corrected', 'none found')}", ""]
            fixes = [c["check"] for c in r["checks"] if c["corrected"] and c["outcome"] == "passed"]
            out.append("*Corrected statement checked by:* " + (", ".join(f"`{c}`" for c in fixes) or "no check"))
            out.append("")
    out += ["", "## Summary", "", "| paper | " + " | ".join(VERDICTS) + " |", "|---" * (len(VERDICTS) + 1) + "|"]
    for paper, counts in doc["summary"].items():
        out.append(f"| {paper} | " + " | ".join(str(counts[v]) for v in VERDICTS) + " |")
    return "\n".join(out) + "\n"


def write_json(doc: dict, path: str | Path) -> None:
    Path(path).write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n", encoding="utf-8")
