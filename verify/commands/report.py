"""``verify report``: run the theorem suite and print the verdict table."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("report", help="run the proofs_checks suite and print one verdict per claim")
    p.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    p.add_argument("--markdown", metavar="FILE", help="also write the report as Markdown")
    p.add_argument("--html", metavar="FILE", help="also write the report as one self-contained HTML page (figures, "
                   "formulas and filters inline; opens offline)")
    p.add_argument("--paper", choices=("S", "N"), help="only the claims of one paper")
    p.add_argument("--fast", action="store_true", help="default tier only (skip checks marked slow)")
    p.add_argument("-k", dest="keyword", metavar="EXPR", help="only checks matching a pytest -k expression")
    p.add_argument("-n", "--workers", type=int, default=None,
                   help="parallel worker processes (pytest-xdist; default: 1)")
    p.add_argument("--mutants", metavar="FILE", help="show each claim's power from a 'verify mutants --json' file")
    p.add_argument("--power", action="store_true", help="also run the curated mutants (as 'verify mutants', "
                   "-n of them at once) and show each claim's power; the mutant outcomes go to the --json report")
    p.add_argument("--compare", metavar="OLD.json", help="list the claims whose verdict, severity or scale changed "
                   "since an earlier 'verify report --json'; exit code 1 on any change")
    p.add_argument("--allow-changes", action="store_true", help="with --compare: exit 0 even if verdicts moved")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args) -> int:
    from .._io import atomic_write_text
    from ..report import aggregate, format_markdown, format_table, run_suite, write_json

    if args.workers is not None and args.workers < 1:
        raise ValueError(f"Argument '--workers' must be an integer >= 1, not {args.workers}.")
    if args.html and not Path(args.html).resolve().parent.is_dir():
        raise ValueError(f"Argument '--html' must be a file in an existing folder, not {args.html!r}.")
    old = _load_json(args.compare, "--compare", "verify report --json") if args.compare else None
    mutants = None
    if args.mutants:  # read inputs before the long run, so a bad path fails at once
        try:
            mutants = _load_json(args.mutants, "--mutants", "verify mutants --json")["power"]
        except (KeyError, TypeError):
            raise ValueError(f"Argument '--mutants' must be a file written by 'verify mutants --json', not {args.mutants!r}.") from None
    code, checks = run_suite(fast=args.fast, paper=args.paper, keyword=args.keyword, workers=args.workers,
                             progress=not args.no_progress)
    if code not in (0, 1, 5):  # 2: interrupted, 3: internal error, 4: usage error
        raise ValueError(f"the test suite could not run (pytest exit code {code})")
    if args.power:
        from ..mutants import collect, power_by_claim, run_all

        chosen = [m for m in collect() if not args.paper or m.claim.startswith(args.paper + "-")]
        mutants = power_by_claim(run_all(chosen, jobs=args.workers or 1, progress=not args.no_progress))
    doc = aggregate(checks, paper=args.paper, mutants=mutants)
    sys.stdout.write(format_table(doc, width=max(110, os.get_terminal_size(2).columns if sys.stderr.isatty() else 110)))
    if args.json:
        write_json(doc, Path(args.json))
    if args.markdown:
        atomic_write_text(args.markdown, format_markdown(doc))
    if args.html:
        from ..reporters.figures import build_figures
        from ..reporters.html import write_html

        write_html(doc, args.html, figures=build_figures(doc, progress=not args.no_progress))
    if old is not None:
        from ..report import compare, format_changes

        changes = compare(old, doc, paper=args.paper)
        sys.stdout.write(format_changes(changes))
        if changes and not args.allow_changes:
            return 1
    return 1 if code == 1 else 0


def _load_json(path: str, option: str, writer: str):
    import json

    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise ValueError(f"Argument '{option}' must be a readable JSON file written by '{writer}', not {path!r}.") from None
