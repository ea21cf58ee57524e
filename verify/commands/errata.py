"""``verify errata``: a letter to the authors of each paper (its refuted claims, most serious first, and its typos),
as LaTeX or Markdown.

It renders a saved report (``--from-json``, seconds); it runs the theorem suite only when asked (``--run``), which
without ``--fast`` includes the training runs (over 30 minutes on a laptop), with a notice and a progress bar.
"""

from __future__ import annotations

import sys


def register(sub) -> None:
    p = sub.add_parser("errata", help="write the errata of the papers (refuted claims, corrections, typos) as LaTeX "
                       "or Markdown")
    out = p.add_mutually_exclusive_group(required=True)
    out.add_argument("--latex", metavar="FILE", help="write a LaTeX document (pdflatex compiles it)")
    out.add_argument("--markdown", metavar="FILE", help="write Markdown")
    p.add_argument("--paper", choices=("S", "N"), help="only one paper, written to FILE (default: one document per "
                   "paper beside FILE, named FILE-S and FILE-N before its suffix)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--from-json", metavar="REPORT.json", help="read the verdicts from 'verify report --json'")
    src.add_argument("--run", action="store_true", help="run the theorem suite first (without --fast: every check, "
                     "training included, over 30 minutes)")
    p.add_argument("--fast", action="store_true", help="with --run: default tier only")
    p.add_argument("-n", "--workers", type=int, default=None, help="with --run: parallel workers")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args) -> int:
    from .._io import atomic_write_text, check_input_file, check_output_path
    from ..claims import PAPERS

    target = args.latex or args.markdown
    check_output_path(target, "--latex" if args.latex else "--markdown")  # before sympy, pytest, any run
    check_input_file(args.from_json, "--from-json")
    from ..reporters.errata import errata_documents

    if args.workers is not None and args.workers < 1:
        raise ValueError(f"Argument '--workers' must be an integer >= 1, not {args.workers}.")
    if args.from_json and (args.fast or args.workers):
        raise ValueError("Arguments '--fast' and '--workers' only apply with --run, not with --from-json.")
    if args.from_json:
        from ..reporters.json import read_json

        doc = read_json(args.from_json, "--from-json")
    else:
        from ..report import aggregate, run_suite

        print("errata: running the theorem suite" + (" (default tier)" if args.fast else
              " (every check, training included: over 30 minutes; --fast for the default tier)") +
              "; 'verify report --json FILE' then 'verify errata --from-json FILE' renders without a run",
              file=sys.stderr)
        code, checks = run_suite(fast=args.fast, paper=args.paper, workers=args.workers, progress=not args.no_progress)
        if code not in (0, 1, 5):
            raise ValueError(f"the test suite could not run (pytest exit code {code})")
        doc = aggregate(checks, paper=args.paper)
    docs = errata_documents(doc, target, "latex" if args.latex else "markdown", paper=args.paper)
    for (path, text), paper in zip(docs.items(), [args.paper] if args.paper else list(PAPERS)):
        atomic_write_text(path, text)
        n = sum(r["verdict"] == "refuted" and r["paper"] == paper for r in doc["claims"])
        print(f"errata: {n} refuted claim(s) of paper {paper} written to {path}")
    return 0
