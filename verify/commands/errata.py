"""``verify errata``: per paper, the refuted claims (most serious first) and the typos, as LaTeX or Markdown."""

from __future__ import annotations

from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("errata", help="write the errata of the papers (refuted claims, corrections, typos) as LaTeX "
                       "or Markdown")
    out = p.add_mutually_exclusive_group(required=True)
    out.add_argument("--latex", metavar="FILE", help="write a LaTeX document (pdflatex compiles it)")
    out.add_argument("--markdown", metavar="FILE", help="write Markdown")
    p.add_argument("--paper", choices=("S", "N"), help="only one paper")
    p.add_argument("--from-json", metavar="REPORT.json", help="read the verdicts from 'verify report --json' "
                   "instead of running the suite")
    p.add_argument("--fast", action="store_true", help="when running the suite: default tier only")
    p.add_argument("-n", "--workers", type=int, default=None, help="when running the suite: parallel workers")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args) -> int:
    from .._io import atomic_write_text
    from ..reporters.errata import errata_latex, errata_markdown

    target = args.latex or args.markdown
    if not Path(target).resolve().parent.is_dir():
        raise ValueError(f"Argument '{'--latex' if args.latex else '--markdown'}' must be a file in an existing "
                         f"folder, not {target!r}.")
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"Argument '--workers' must be an integer >= 1, not {args.workers}.")
    if args.from_json:
        from ..reporters.json import read_json

        doc = read_json(args.from_json, "--from-json")
    else:
        from ..report import aggregate, run_suite

        code, checks = run_suite(fast=args.fast, paper=args.paper, workers=args.workers, progress=not args.no_progress)
        if code not in (0, 1, 5):
            raise ValueError(f"the test suite could not run (pytest exit code {code})")
        doc = aggregate(checks, paper=args.paper)
    text = (errata_latex if args.latex else errata_markdown)(doc, paper=args.paper)
    atomic_write_text(target, text)
    n = sum(r["verdict"] == "refuted" and (not args.paper or r["paper"] == args.paper) for r in doc["claims"])
    print(f"errata: {n} refuted claim(s) written to {target}")
    return 0
