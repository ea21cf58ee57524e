r"""Would the theorem suite have caught a wrong statement? Each claim's own checks, run against its statement's variants.

:func:`verify.statements.run_claim` decides each variant of a statement by the statement's own search. This module
asks the question a reader of "verified" asks of the *suite*: the checks of a claim in ``proofs_checks/`` that read
their claim's statement object (:func:`verify.statements.constants`, ``holds``, ``sides``, ``current``) run once on
the paper's statement and once per variant, the variant injected through ``$VERIFY_STATEMENT_VARIANT`` exactly as a
wrong statement typed into :mod:`verify.statement_data` would reach them. A false variant is *caught by the checks*
when at least one of them fails (the failing check and the first line of its message are kept as the evidence: the
checks found it themselves, nothing is handed to them); a true control is a *false alarm* when one fails.

One child pytest process per claim (default tier, no xdist) runs every selected check under every variant in turn
(:func:`pytest_runtestloop` below, loaded with ``-p verify.variant_checks``), so the cost is one interpreter start
per claim, not per variant.

::

    verify variants --checks --claim S-lemA.4-weil
"""

from __future__ import annotations

import ast
import functools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ._parse import parse
from ._validate import VerifyInputError
from .statement_data.hand_edits import PREFIX
from .statements import OUTCOMES, VARIANT_ENV, check, classify, sample_variants, variants

#: the functions by which a check reads its claim's statement object
READERS = ("constants", "holds", "sides", "current")
SUITE = Path(__file__).resolve().parents[1] / "proofs_checks"
_PLAN_OPTION = "--verify-variant-plan"


def _marked_claims(fn: ast.FunctionDef) -> tuple[list, bool]:
    ids, corrected = [], False
    for dec in fn.decorator_list:
        for n in ast.walk(dec):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "claim":
                ids += [a.value for a in n.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                corrected |= any(k.arg == "corrected" and getattr(k.value, "value", False) for k in n.keywords)
    return ids, corrected


def _reads_statement(fn: ast.FunctionDef, helpers: dict, seen: frozenset = frozenset()) -> bool:
    """Whether ``fn`` or a module helper it calls (transitively) calls one of :data:`READERS`."""
    for n in ast.walk(fn):
        if isinstance(n, ast.Call):
            name = getattr(n.func, "id", getattr(n.func, "attr", ""))
            if name in READERS:
                return True
            if name in helpers and name not in seen and _reads_statement(helpers[name], helpers, seen | {name}):
                return True
    return False


def statement_checks(claim: str, suite: Path = SUITE) -> list[str]:
    """The node ids (``proofs_checks/<part>/test_<kind>.py::<check>``, relative to the repository) of the checks of
    ``claim`` that read its statement object, in file and line order; corrected-statement checks are left out
    (they test another statement)."""
    out = []
    for path in sorted(suite.rglob("test_*.py")):
        for name, ids, corrected, reads in _file_checks(path.read_text()):
            if claim in ids and not corrected and reads:
                out.append(f"{path.relative_to(suite.parent).as_posix()}::{name}")
    return out


@functools.lru_cache(maxsize=None)
def _file_checks(source: str) -> tuple:
    """``(name, claim ids, corrected, reads its statement)`` of each check of one file's ``source``, in line order.
    Parsed once per text (the key is the text itself, so an edited file is parsed again, whatever its time stamp):
    asking for every claim's checks parsed the whole suite once per claim (about 1.5 s each)."""
    tree = parse(source)
    helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("test")}
    out = []
    for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")):
        ids, corrected = _marked_claims(fn)
        out.append((fn.name, tuple(ids), corrected, _reads_statement(fn, helpers)))
    return tuple(out)


def run_checks(claim: str, names: list, timeout: float = 1800) -> dict:
    """Run ``claim``'s statement-reading checks (:func:`statement_checks`) on the paper's statement (key ``""``) and
    under each variant named in ``names``, in one child pytest process. Returns ``{name: {"checks": n, "failed":
    [{"check", "message"}]}}``; ``{}`` when no check reads the statement."""
    nodes = statement_checks(claim)
    if not nodes:
        return {}
    with tempfile.TemporaryDirectory() as tmp:
        plan = Path(tmp) / "plan.json"
        out = Path(tmp) / "out.json"
        plan.write_text(json.dumps({"claim": claim, "variants": [""] + list(names), "out": str(out)}))
        env = {k: v for k, v in os.environ.items() if k != VARIANT_ENV}
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
               "-p", "verify.variant_checks", f"{_PLAN_OPTION}={plan}", "-o", "addopts=--import-mode=importlib",
               "-m", "not slow", *nodes]
        proc = subprocess.run(cmd, check=False, cwd=SUITE.parent, env=env, capture_output=True, text=True, timeout=timeout)
        if not out.exists():
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
            raise RuntimeError(f"the checks of {claim} did not run: " + " | ".join(tail))
        return json.loads(out.read_text())


def run_claim_checks(st, only: list | None = None) -> dict:
    """``claim``'s checks against the paper's statement and each variant (``only``: these; default: every one),
    each variant classified by :func:`verify.statements.classify`. Outcomes: a false variant ``caught by the
    checks`` / ``missed by the checks``; a true control ``control held`` / ``false alarm``; unknown ones reported."""
    vs = variants(st) if only is None else only
    res = run_checks(st.claim, [v.name for v in vs])
    nodes = statement_checks(st.claim)
    rows = []
    for v in vs:
        cls = classify(st, v)["class"]
        failed = res.get(v.name, {}).get("failed", []) if res else []
        if not nodes:
            outcome = "no check reads the statement" if cls == "false" else "not run"
        elif cls == "false":
            outcome = "caught by the checks" if failed else "missed by the checks"
        elif cls == "true":
            outcome = "false alarm" if failed else "control held"
        else:
            outcome = "unknown: " + ("failed" if failed else "passed")
        rows.append({"variant": v.name, "class": cls, "outcome": outcome, "failed": failed[:3]})
    n_false = sum(r["class"] == "false" for r in rows)
    caught = sum(r["outcome"] == "caught by the checks" for r in rows)
    original = res.get("", {}).get("failed", []) if res else []
    return {"claim": st.claim, "checks": nodes, "original_failed": original, "variants": rows, "false": n_false,
            "caught": caught, "recall": None if not n_false else round(caught / n_false, 4),
            "true": sum(r["class"] == "true" for r in rows),
            "false_alarms": sum(r["outcome"] == "false alarm" for r in rows)}


# --------------------------------------------------------------------------- hand-written edits (issue 43)
def run_edit_search(e) -> dict:
    """The hand edit ``e`` (:class:`verify.statement_data.hand_edits.HandEdit`) decided by its statement's own search
    (:func:`verify.statements.check`), as ``verify variants`` decides a variant: ``{"edit", "claim", "truth",
    "check", "outcome"}`` (:data:`verify.statements.OUTCOMES`), with the certified ``counterexample`` the search
    found itself (never the edit's ``instance``)."""
    res = check(e.statement)
    row = {"edit": e.name, "claim": e.claim, "truth": e.truth, "description": e.description,
           "check": res.verdict, "evidence": res.evidence, "outcome": OUTCOMES[(e.truth, res.verdict)]}
    if res.counterexample is not None:
        row["counterexample"] = res.counterexample
    return row


def run_edit_checks(claim: str, edits: list) -> dict:
    """``claim``'s own statement-reading checks on the paper's statement and under each hand edit of ``edits``
    (injected as ``$VERIFY_STATEMENT_VARIANT=CLAIM::edit:<name>``). Outcomes as :func:`run_claim_checks`'s: a false
    edit ``caught by the checks`` (the first failing check and its message kept) or ``missed by the checks``, a true
    one ``control held`` or ``false alarm``; ``no check reads the statement`` when none does."""
    nodes = statement_checks(claim)
    res = run_checks(claim, [PREFIX + e.name for e in edits])
    rows = []
    for e in edits:
        failed = res.get(PREFIX + e.name, {}).get("failed", []) if res else []
        if not nodes:
            outcome = "no check reads the statement"
        elif e.truth == "false":
            outcome = "caught by the checks" if failed else "missed by the checks"
        else:
            outcome = "false alarm" if failed else "control held"
        rows.append({"edit": e.name, "truth": e.truth, "description": e.description, "outcome": outcome,
                     "edits": "fields" if e.edits_fields else "sides", "failed": failed[:3]})
    return {"claim": claim, "checks": nodes, "original_failed": res.get("", {}).get("failed", []) if res else [],
            "edits": rows, "false": sum(r["truth"] == "false" for r in rows),
            "caught": sum(r["outcome"] == "caught by the checks" for r in rows),
            "true": sum(r["truth"] == "true" for r in rows),
            "false_alarms": sum(r["outcome"] == "false alarm" for r in rows)}


def sample(st, n_false: int = 2, n_true: int = 1) -> list:
    """The default tier's fixed sample of variants (:func:`verify.statements.sample_variants`)."""
    return sample_variants(st, n_false=n_false, n_true=n_true)


# --------------------------------------------------------------------------- the child process: a pytest plugin
def pytest_addoption(parser):
    parser.addoption(_PLAN_OPTION, default=None, help="(internal) run the selected checks under each variant")


def pytest_runtestloop(session):
    """Run every collected check once per variant of the plan, the variant set in the environment before each round;
    write ``{variant: {"checks", "failed"}}`` to the plan's output file."""
    plan_path = session.config.getoption(_PLAN_OPTION)
    if not plan_path:
        return None  # not a variant run: pytest's own loop
    from _pytest.runner import runtestprotocol

    plan = json.loads(Path(plan_path).read_text())
    if session.testsfailed and not session.config.option.continue_on_collection_errors:
        raise VerifyInputError(f"Argument '{_PLAN_OPTION}': the checks of {plan['claim']} did not collect.")
    results = {}
    for name in plan["variants"]:
        if name:
            os.environ[VARIANT_ENV] = f"{plan['claim']}::{name}"
        else:
            os.environ.pop(VARIANT_ENV, None)
        failed = []
        for item in session.items:
            for rep in runtestprotocol(item, nextitem=None, log=False):
                if rep.failed:
                    msg = str(rep.longrepr.reprcrash.message) if getattr(rep.longrepr, "reprcrash", None) else \
                        str(rep.longrepr).strip().splitlines()[-1]
                    failed.append({"check": item.nodeid, "message": msg.splitlines()[0][:300] if msg else ""})
                    break
        results[name] = {"checks": len(session.items), "failed": failed}
    os.environ.pop(VARIANT_ENV, None)
    Path(plan["out"]).write_text(json.dumps(results, indent=1, sort_keys=True))
    return True
