"""``verify variants``: would the checks have caught a wrong statement near each claim?

::

    verify variants --claim S-lemA.2            # one claim: its statement, each variant, the check's outcome
    verify variants --paper N --json v.json     # paper N's covered claims; every variant's record in v.json
    verify variants --checks --claim S-eq9      # the claim's own checks in proofs_checks, under each variant
    verify variants --edits [--checks]          # the hand-written wrong statements, by the search [by the checks]

Each covered claim's statement object (:mod:`verify.statement_data`) yields variants (constants scaled, exponents
moved by one, relations reversed or made strict, terms and hypotheses dropped), classified by exact reasoning as
false, true (controls) or unknown; the statement's own search (:func:`verify.statements.check`) runs on each. Prints
per claim and overall the recall (false variants refuted, with a certified counterexample the search found) and the
false alarms (true controls refuted). Exit 1 when a false variant is missed or a control refuted.

With ``--checks`` the claim's own checks in ``proofs_checks/`` that read its statement object run under each variant
instead (:mod:`verify.variant_checks`): the question is whether the theorem suite, not the statement's search, would
have failed on the wrong statement.

With ``--edits`` the statements are the hand-written edits of :mod:`verify.statement_data.hand_edits` (wrong
statements written independently of the variant generator, and true rewrites as controls), each decided by its
statement's own search (the certified counterexample shown) or, with ``--checks``, by its claim's own checks (the
failing check shown).
"""

from __future__ import annotations

import json
import sys


def register(sub) -> None:
    p = sub.add_parser("variants", help="check the covered claims' statement variants (recall, false alarms)")
    p.add_argument("--claim", action="append", default=[], metavar="ID", help="only this claim (repeatable)")
    p.add_argument("--paper", choices=("S", "N"), help="only this paper's claims")
    p.add_argument("--json", metavar="FILE", help="write every variant's classification and check outcome")
    p.add_argument("--list", action="store_true", help="list the covered claims, their statements and fields")
    p.add_argument("--checks", action="store_true",
                   help="run each claim's own checks (proofs_checks) under each variant, not the statement's search")
    p.add_argument("--edits", action="store_true",
                   help="decide the hand-written wrong statements (verify/statement_data/hand_edits.py) instead of "
                        "the generated variants")
    p.set_defaults(func=run)


def _totals(results: list) -> tuple[int, int, int, int]:
    """Over the claims' rows: (false variants, false caught, true controls, controls flagged)."""
    return tuple(sum(r[k] for r in results) for k in ("false", "caught", "true", "false_alarms"))


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def run(args) -> int:
    from .._io import atomic_write_text, check_output_path
    from ..statement_data import statements
    from ..statements import run_claim, summarise

    check_output_path(args.json, "--json")  # before any work
    if args.edits:
        return _run_edits(args)
    sts = statements(paper=args.paper, claims=args.claim or None)
    if not sts:
        raise ValueError("Argument '--claim' must name a covered claim of the paper chosen; none selected.")
    if args.list:
        for st in sts:
            fields = ", ".join(f"{f.name} = {f.value}" for f in st.fields)
            print(f"{st.claim:<12} {st.where:<22} {fields}")
        return 0
    if args.checks:
        return _run_checks(args, sts)
    results = []
    print(f"{'claim':<15} {'false':>5} {'caught':>6} {'recall':>7} {'true':>5} {'alarms':>6} {'unknown':>7}  statement check")
    for st in sts:
        r = run_claim(st)
        results.append(r)
        print(f"{r['claim']:<15} {r['false']:>5} {r['caught']:>6} {_pct(r['recall']):>7} {r['true']:>5} "
              f"{r['false_alarms']:>6} {r['unknown']:>7}  {r['original']['check']}")
        for v in r["variants"]:
            if v["outcome"] in ("missed", "false alarm"):
                print(f"  {v['outcome']}: {v['variant']} ({v['reason']})")
    s = summarise(results)
    print(f"overall: {s['claims']} claims, {s['variants']} variants: recall {s['caught']}/{s['false']} "
          f"({_pct(s['recall'])}), false alarms {s['false_alarms']}/{s['true']} controls, {s['unknown']} unknown "
          f"(not counted); {s['originals_verified']}/{s['claims']} statements verified")
    if args.json:
        atomic_write_text(args.json, json.dumps({"summary": s, "claims": results}, indent=1, sort_keys=True) + "\n")
        print(f"verify: wrote {args.json}", file=sys.stderr)
    ok = s["caught"] == s["false"] and s["false_alarms"] == 0 and s["originals_verified"] == s["claims"]
    return 0 if ok else 1


def _run_checks(args, sts) -> int:
    from .._io import atomic_write_text
    from ..variant_checks import run_claim_checks

    results = []
    print(f"{'claim':<15} {'checks':>6} {'false':>5} {'caught':>6} {'recall':>7} {'true':>5} {'alarms':>6}")
    for st in sts:
        r = run_claim_checks(st)
        results.append(r)
        print(f"{r['claim']:<15} {len(r['checks']):>6} {r['false']:>5} {r['caught']:>6} {_pct(r['recall']):>7} "
              f"{r['true']:>5} {r['false_alarms']:>6}")
        if r["original_failed"]:
            print(f"  the paper's statement fails: {r['original_failed'][0]['check']}")
        for v in r["variants"]:
            if v["outcome"] in ("missed by the checks", "false alarm", "no check reads the statement"):
                print(f"  {v['outcome']}: {v['variant']}")
    n_false, caught, n_true, alarms = _totals(results)
    print(f"overall, by the claims' own checks: {len(results)} claims: recall {caught}/{n_false} "
          f"({_pct(caught / n_false if n_false else None)}), false alarms {alarms}/{n_true} controls")
    if args.json:
        atomic_write_text(args.json, json.dumps({"by": "checks", "claims": results}, indent=1, sort_keys=True) + "\n")
        print(f"verify: wrote {args.json}", file=sys.stderr)
    ok = caught == n_false and alarms == 0 and not any(r["original_failed"] for r in results)
    return 0 if ok else 1


def _run_edits(args) -> int:
    """``--edits``: the hand-written edits of the selected claims, by the search or (``--checks``) by the checks."""
    from .._io import atomic_write_text
    from ..statement_data.hand_edits import edits
    from ..variant_checks import run_edit_checks, run_edit_search

    if args.list:
        raise ValueError("Argument '--list' lists the covered claims; it does not go with '--edits'.")
    chosen = edits(claims=args.claim or None, paper=args.paper)
    if not chosen:
        raise ValueError("Argument '--paper' must select a paper with hand edits; none selected.")
    by_claim: dict = {}
    for e in chosen:
        by_claim.setdefault(e.claim, []).append(e)
    route = "checks" if args.checks else "search"
    print("hand-written edits, decided by the " + ("claims' own checks" if args.checks else "statements' own search"))
    print(f"{'claim':<22} {'false':>5} {'caught':>6} {'true':>5} {'alarms':>6}")
    results = []
    for claim, es in by_claim.items():
        if args.checks:
            r = run_edit_checks(claim, es)
            rows = r["edits"]
        else:
            rows = [run_edit_search(e) for e in es]
            r = {"claim": claim, "edits": rows, "false": sum(x["truth"] == "false" for x in rows),
                 "caught": sum(x["outcome"] == "caught" for x in rows), "true": sum(x["truth"] == "true" for x in rows),
                 "false_alarms": sum(x["outcome"] == "false alarm" for x in rows)}
        results.append(r)
        print(f"{claim:<22} {r['false']:>5} {r['caught']:>6} {r['true']:>5} {r['false_alarms']:>6}")
        if args.checks and r["original_failed"]:
            print(f"  the paper's statement fails: {r['original_failed'][0]['check']}")
        for x in rows:
            where = f"; edits the {x['edits']}" if "edits" in x else ""
            print(f"  {x['outcome']}: {x['edit']} ({x['description']}{where})")
            if "counterexample" in x:
                ce = x["counterexample"]
                print(f"    at {ce['point']}: {ce['lhs']} {ce['relation']} {ce['rhs']} fails ({ce['certified']})")
            for f in x.get("failed", [])[:1]:
                print(f"    {f['check']}: {f['message']}")
    n_false, caught, n_true, alarms = _totals(results)
    print(f"overall, hand edits by the {route}: {len(results)} claims: false edits caught {caught}/{n_false} "
          f"({_pct(caught / n_false if n_false else None)}), true edits flagged (false alarms) {alarms}/{n_true}")
    if args.json:
        atomic_write_text(args.json, json.dumps({"by": route, "edits": "hand", "claims": results}, indent=1,
                                                sort_keys=True, default=str) + "\n")
        print(f"verify: wrote {args.json}", file=sys.stderr)
    ok = caught == n_false and alarms == 0 and not any(r.get("original_failed") for r in results)
    return 0 if ok else 1
