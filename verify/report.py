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

from ._io import atomic_write_text
from ._validate import VerifyInputError
from .claims import ALL_VERDICTS, BEYOND, CLAIMS, PAPERS, SEVERITIES, VERDICTS
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


def verdict_label(row: dict) -> str:
    """The verdict as a reader should see it: with its severity, its scale, and any surviving mutant."""
    text = row["verdict"]
    if row.get("severity"):
        text += f" ({row['severity']})"
    if row.get("scale"):
        text += " (" + ("paper scale" if row["scale"] == "paper" else "reduced scale: " + row["scale"][9:]) + ")"
    power = row.get("power")
    if power:
        surv = power.get("survivors") or []
        text += f" [killed {power['killed']}/{power['total']}" + (f"; SURVIVING: {', '.join(surv)}" if surv else "") + "]"
    return text


def _short(evidence: dict, width: int) -> str:
    text = "; ".join(f"{k}={json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v}"
                     for k, v in evidence.items())
    return text if len(text) <= width else text[: width - 3] + "..."


def format_summary(doc: dict) -> str:
    """Counts by verdict per paper, the headline with severities, and the refuted / contradicted claims."""
    lines = []
    for paper, counts in doc["summary"].items():
        lines.append(f"{'paper ' + paper if paper != 'total' else 'total':<8} " +
                     "  ".join(f"{v}: {n}" for v, n in counts.items() if n or v in VERDICTS))
    lines.append(doc["headline"])
    for r in doc["claims"]:
        if r["verdict"] in ("refuted", "contradicted"):
            lines.append(f"  {r['id']:<22} {verdict_label(r)}")
    if doc.get("beyond"):
        lines.append("beyond the papers (not claims of the papers): " +
                     ", ".join(f"{r['id']} {verdict_label(r)}" for r in doc["beyond"]))
    return "\n".join(lines) + "\n"


def format_table(doc: dict, width: int = 110) -> str:
    """The plain-text table printed by ``verify report`` (the verdict column is as wide as its longest label)."""
    def block(rows):
        vw = max([13] + [len(verdict_label(r)) for r in rows])
        ew = max(30, width - 52 - vw)
        out = [f"{'ID':<22} {'verdict':<{vw}} {'method':<28} evidence", "-" * (52 + vw + ew)]
        out += [f"{r['id']:<22} {verdict_label(r):<{vw}} {str(r['method'])[:28]:<28} {_short(r['evidence'], ew)}"
                for r in rows]
        return out

    lines = block(doc["claims"])
    if doc.get("beyond"):
        lines += ["", "Beyond the papers (results of this package, not claims the papers make):"] + block(doc["beyond"])
    lines.append("")
    return "\n".join(lines) + "\n" + format_summary(doc)


def format_markdown(doc: dict) -> str:
    """The report as a Markdown document (full evidence)."""
    esc = lambda s: str(s).replace("|", "\\|").replace("\n", " ")
    out = ["# Verdicts", "", doc["headline"], "", "| ID | paper | where | verdict | method | evidence |",
           "|---|---|---|---|---|---|"]
    for r in doc["claims"]:
        out.append(f"| `{r['id']}` | {r['paper']} | {esc(r['where'])} | **{esc(verdict_label(r))}** | {esc(r['method'])} | "
                   f"{esc(_short(r['evidence'], 10_000))} |")
    refuted = [r for r in doc["claims"] if r["verdict"] in ("refuted", "contradicted")]
    if refuted:
        out += ["", "## Refuted and contradicted claims", ""]
        order = {s: i for i, s in enumerate(SEVERITIES)}
        for r in sorted(refuted, key=lambda r: (order.get(r.get("severity"), 9), r["id"])):
            ev = r["evidence"]
            out += [f"### `{r['id']}` ({r['where']}): {esc(verdict_label(r))}", "", f"*Statement:* {r['statement']}", ""]
            if r.get("justification"):
                out += [f"*Why {r['severity']}:* `{json.dumps(r['justification'], sort_keys=True)}`", ""]
            out += [f"*Counterexample:* `{json.dumps(ev.get('counterexample'), sort_keys=True)}`", "",
                    f"*Corrected statement:* {ev.get('corrected', 'none found')}", ""]
            fixes = [c["check"] for c in r["checks"] if c["corrected"] and c["outcome"] == "passed"]
            out.append("*Corrected statement checked by:* " + (", ".join(f"`{c}`" for c in fixes) or "no check"))
            out.append("")
    if doc.get("beyond"):
        out += ["", "## Beyond the papers", "", "Results of this package that the papers do not claim.", "",
                "| ID | where | verdict | method | evidence |", "|---|---|---|---|---|"]
        for r in doc["beyond"]:
            out.append(f"| `{r['id']}` | {esc(r['where'])} | **{esc(verdict_label(r))}** | {esc(r['method'])} | "
                       f"{esc(_short(r['evidence'], 10_000))} |")
    out += ["", "## Summary", "", "| paper | " + " | ".join(ALL_VERDICTS) + " |", "|---" * (len(ALL_VERDICTS) + 1) + "|"]
    for paper, counts in doc["summary"].items():
        out.append(f"| {paper} | " + " | ".join(str(counts[v]) for v in ALL_VERDICTS) + " |")
    out += ["", "Refutations by severity: " + ", ".join(f"{s}: {n}" for s, n in doc["severity"].items())]
    return "\n".join(out) + "\n"


COMPARED = ("verdict", "severity", "scale")


def compare(old: dict, new: dict, paper: str | None = None) -> list[dict]:
    """Claims whose verdict, severity or scale differ between two report documents (``--json`` output),
    plus claims present in only one of them: ``[{"id", "field", "old", "new"}, ...]`` in registry order.
    ``paper`` restricts both to one paper (a ``--paper`` run against a full earlier report)."""
    def rows(doc):
        if not isinstance(doc, dict) or not isinstance(doc.get("claims"), list):
            raise VerifyInputError("Argument 'old' must be a report written by 'verify report --json'.")
        return {r["id"]: r for r in doc["claims"] + doc.get("beyond", []) if not paper or r.get("paper") == paper}

    a, b = rows(old), rows(new)
    order = [c.id for c in CLAIMS + BEYOND] + sorted((set(a) | set(b)) - {c.id for c in CLAIMS + BEYOND})
    changes = []
    for cid in order:
        if cid not in a and cid not in b:
            continue
        if cid not in a or cid not in b:
            changes.append({"id": cid, "field": "claim", "old": "present" if cid in a else "absent",
                            "new": "present" if cid in b else "absent"})
            continue
        for key in COMPARED:
            if a[cid].get(key) != b[cid].get(key):
                changes.append({"id": cid, "field": key, "old": a[cid].get(key), "new": b[cid].get(key)})
    return changes


def format_changes(changes: list[dict]) -> str:
    if not changes:
        return "compare: no verdict, severity or scale changed\n"
    lines = [f"compare: {len(changes)} change(s)"]
    lines += [f"  {c['id']:<22} {c['field']:<9} {c['old']} -> {c['new']}" for c in changes]
    return "\n".join(lines) + "\n"


def write_json(doc: dict, path: str | Path) -> None:
    atomic_write_text(path, json.dumps(doc, indent=1, sort_keys=False) + "\n")
