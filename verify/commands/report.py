"""``verify report``: run the theorem suite and print the verdict table."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("report", help="run the proofs_checks suite and print one verdict per claim")
    p.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    p.add_argument("--markdown", metavar="FILE", help="also write the report as Markdown")
    p.add_argument("--html", metavar="FILE", help="also write the report as one self-contained HTML page (figures, "
                   "formulas and filters inline; opens offline)")
    p.add_argument("--errata-latex", metavar="FILE", help="also write the errata as LaTeX (as 'verify errata --latex')")
    p.add_argument("--errata-markdown", metavar="FILE", help="also write the errata as Markdown")
    p.add_argument("--from-json", metavar="REPORT.json", help="render from a saved 'verify report --json' file instead "
                   "of running the suite (seconds: nothing is run; the HTML draws only the figures the evidence holds)")
    p.add_argument("--paper", choices=("S", "N"), help="only the claims of one paper")
    p.add_argument("--claim", dest="claims", action="append", default=[], metavar="ID",
                   help="only this claim (its ID, as in the table; repeatable)")
    p.add_argument("--fast", action="store_true", help="default tier only (skip checks marked slow)")
    p.add_argument("--sensitivity", action="store_true", help="also run Table 1's and App. E.2's pre-registered "
                   "sensitivity runs (a second budget; the paper's per-step weight decay), reported beside the main "
                   "decision (about 3x their training time; slow tier only)")
    p.add_argument("-k", dest="keyword", metavar="EXPR", help="only checks matching a pytest -k expression")
    p.add_argument("-n", "--workers", type=int, default=None,
                   help="parallel worker processes (pytest-xdist; default: 1)")
    p.add_argument("--mutants", metavar="FILE", help="show each claim's power from a 'verify mutants --json' file")
    p.add_argument("--coverage", metavar="FILE", help="show each claim's branch coverage from a "
                   "'python -m verify.route_map --out FILE' file")
    p.add_argument("--power", action="store_true", help="also run the curated mutants (as 'verify mutants', "
                   "-n of them at once) and show each claim's power; the mutant outcomes go to the --json report")
    p.add_argument("--compare", metavar="OLD.json", help="list the claims whose verdict, severity or scale changed "
                   "since an earlier 'verify report --json'; exit code 1 on any change")
    p.add_argument("--allow-changes", action="store_true", help="with --compare: exit 0 even if verdicts moved")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--no-cache", action="store_true", help="run every claim (and mutant), neither reading nor "
                   "writing the result cache")
    p.add_argument("--cache-dir", metavar="DIR", help="the result cache (default: $VERIFY_CACHE_DIR or "
                   "./.verify-cache): a claim whose fingerprint did not move is reused from it")
    p.add_argument("--scheduler", metavar="ADDR", help="run the claims and mutants as Dask tasks: 'local' (a "
                   "LocalCluster of -n workers) or a scheduler address tcp://HOST:PORT")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..reporters.json import read_json

    if args.workers is not None and args.workers < 1:
        raise ValueError(f"Argument '--workers' must be an integer >= 1, not {args.workers}.")
    from ..selection import verify_selection

    # the selection first: a wrong claim ID or -k expression is refused before anything is collected or created
    verify_selection(args.claims, args.paper, args.keyword, options=("--claim", "--paper", "-k"))
    if getattr(args, "sensitivity", False) and (args.fast or args.from_json):
        raise ValueError("Argument '--sensitivity' needs the slow tier's runs: not with "
                         f"'{'--fast' if args.fast else '--from-json'}'.")
    _check_paths(args)  # every output path and input file, before pytest is imported and anything runs
    old = read_json(args.compare, "--compare") if args.compare else None
    mutants = None
    if args.mutants:  # read inputs before the long run, so a bad path fails at once
        try:
            mutants = _load_json(args.mutants, "--mutants", "verify mutants --json")["power"]
        except (KeyError, TypeError):
            raise ValueError(f"Argument '--mutants' must be a file written by 'verify mutants --json', not {args.mutants!r}.") from None
    coverage = _load_coverage(args.coverage) if getattr(args, "coverage", None) else None
    from ..report import aggregate, format_table, run_suite

    if args.from_json:
        doc = read_json(args.from_json, "--from-json")
        if mutants:
            for row in doc["claims"] + doc.get("beyond", []):
                if row.get("id") in mutants:
                    row["power"] = mutants[row["id"]]
        for row in (doc["claims"] + doc.get("beyond", [])) if coverage else []:
            if row.get("id") in coverage:
                row["coverage"] = coverage[row["id"]]
        if args.paper or args.claims:
            doc = _select(doc, args.paper, args.claims)
        sys.stdout.write(format_table(doc, width=_width()))
        failed = _write_outputs(args, doc, compute=False)
        return _finish(args, old, doc, 0) or (2 if failed else 0)
    import time

    from ..report import run_options

    t0 = time.perf_counter()
    cache_dir, scheduler = run_options(args)  # validated before anything runs
    if args.sensitivity:  # the checks (pytest workers, Dask workers, mutant children) read it from the environment
        os.environ["VERIFY_WD_SENSITIVITY"] = "1"
    stats, mstats = {}, {}
    code, checks = run_suite(fast=args.fast, paper=args.paper, keyword=args.keyword, workers=args.workers,
                             progress=not args.no_progress, cache_dir=cache_dir, scheduler=scheduler, stats=stats,
                             extra_args=[f"--verify-claim={c}" for c in args.claims])
    if code not in (0, 1, 5):  # 2: interrupted, 3: internal error, 4: usage error
        raise ValueError(f"the test suite could not run (pytest exit code {code})")
    if args.power:
        from ..mutants import collect, power_by_claim, run_all

        chosen = [m for m in collect() if (not args.paper or m.claim.startswith(args.paper + "-"))
                  and (not args.claims or m.claim in args.claims)]
        mutants = power_by_claim(run_all(chosen, jobs=args.workers or 1, progress=not args.no_progress,
                                         cache_dir=cache_dir, scheduler=scheduler, stats=mstats))
    doc = aggregate(checks, paper=args.paper, mutants=mutants, coverage=coverage)
    if any(getattr(args, attr, None) for _option, attr in OUTPUTS if attr != "markdown"):
        from ..reporters import mathtex  # the derived LaTeX travels in the report: a later --from-json derives nothing

        doc["formulas"] = mathtex.formula_tex()
    if args.claims or args.paper:
        doc = _select(doc, args.paper, args.claims)
    if args.json or args.html:  # the pictures' data travel in the report too: a later --from-json draws every one
        from ..figure_data import figure_data

        doc["figure_data"] = figure_data(doc, progress=not args.no_progress)
    sys.stdout.write(format_table(doc, width=_width()))
    failed = _write_outputs(args, doc, compute=True)
    changed = _finish(args, old, doc, 0)
    from ..report import final_line

    print(final_line(time.perf_counter() - t0, stats, mstats if args.power else None), file=sys.stderr)
    return 2 if failed else (changed or (1 if code == 1 else 0))


#: the output options, in the order they are written: (option, attribute)
OUTPUTS = (("--json", "json"), ("--markdown", "markdown"), ("--html", "html"), ("--errata-latex", "errata_latex"),
           ("--errata-markdown", "errata_markdown"))


def _check_paths(args) -> None:
    from .._io import check_input_file, check_output_path

    seen: dict = {}
    for option, attr in OUTPUTS:
        path = getattr(args, attr, None)
        if path is None:
            continue
        target = check_output_path(path, option)
        key = str(target.resolve())
        if key in seen:
            raise ValueError(f"Argument {option!r} must name another file than {seen[key]!r}, not {path!r}.")
        seen[key] = option
    for option, attr in (("--from-json", "from_json"), ("--compare", "compare"), ("--mutants", "mutants"),
                         ("--coverage", "coverage")):
        check_input_file(getattr(args, attr, None), option)
    if args.from_json and args.power:
        raise ValueError("Argument '--power' runs the mutants and needs a run: not allowed with --from-json "
                         "(pass a 'verify mutants --json' file as --mutants instead).")
    if args.from_json and (args.fast or args.keyword or args.workers):
        raise ValueError("Arguments '--fast', '-k' and '--workers' select checks to run: not allowed with --from-json.")


def _load_coverage(path) -> dict:
    """The per-claim figures of a 'python -m verify.route_map' file (claim -> {covered, total, percent, ...})."""
    try:
        figures = _load_json(path, "--coverage", "python -m verify.route_map")["coverage"]
        if not all(isinstance(f, dict) and "percent" in f for f in figures.values()):
            raise TypeError
    except (KeyError, TypeError, AttributeError):
        raise ValueError(f"Argument '--coverage' must be a file written by 'python -m verify.route_map', "
                         f"not {path!r}.") from None
    return figures


def _width() -> int:
    """The table's width: the terminal's when known (``$COLUMNS``, else the terminal on stdout), else 100."""
    from ..reporters.terminal import DEFAULT_WIDTH

    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns or DEFAULT_WIDTH


def _select(doc: dict, paper: str | None, claims: list | None = None) -> dict:
    """The document restricted to one paper and/or to the claims named (``--paper``, ``--claim``): rows, counts,
    severities, headline and the statement variants' summary recomputed from the rows kept; the hypothesis-necessity
    table cut to their lines (a trimmed report keeps the table, not its rows' records); the derived formulas cut to
    those named after a claim kept or after no claim (a derivation several claims share) of a paper kept. A
    whole-report part the rows cannot rebuild is left out rather than shown for claims the document no longer holds."""
    from ..claims import ALL_VERDICTS, BEYOND, CLAIMS, PAPERS
    from ..report import headline, variants_summary

    keep = lambda r: (not paper or r.get("paper") == paper) and (not claims or r.get("id") in claims)
    rows = [r for r in doc["claims"] if keep(r)]
    out = {**doc, "claims": rows, "beyond": [r for r in doc.get("beyond", []) if keep(r)]}
    out["summary"] = {p: {v: sum(r.get("verdict") == v for r in rows if r.get("paper") == p) for v in ALL_VERDICTS}
                      for p in PAPERS if any(r.get("paper") == p for r in rows)}
    out["summary"]["total"] = {v: sum(r.get("verdict") == v for r in rows) for v in ALL_VERDICTS}
    out["severity"] = {s: sum(r.get("severity") == s for r in rows) for s in doc.get("severity", {})}
    out["headline"] = headline(rows)
    kept = {r.get("id") for r in rows + out["beyond"]}
    out.pop("necessity", None)
    table = [n for n in doc.get("necessity", []) if n.get("claim") in kept]
    if table:
        out["necessity"] = table
    out.pop("variants", None)
    vs = variants_summary(rows)
    if vs["variants"]:
        out["variants"] = vs
    if "formulas" in doc:
        registered = {c.id for c in CLAIMS + BEYOND}
        papers = {r.get("paper") for r in rows + out["beyond"]}
        out["formulas"] = [f for f in doc["formulas"] if f.get("name") in kept
                           or (f.get("name") not in registered and str(f.get("name")).split("-")[0] in papers)]
    return out


def _write_outputs(args, doc: dict, compute: bool) -> list:
    """Write every requested output, each on its own: one that fails (a full disk, a folder removed during the run)
    is reported on stderr and the others are still written. Returns the failed options."""
    from .._io import atomic_write_text
    from ..report import format_markdown, write_json

    def html(path):
        from ..reporters.figures import build_figures
        from ..reporters.html import write_html

        write_html(doc, path, figures=build_figures(doc, progress=not args.no_progress))

    def errata(fmt):
        def write(path):   # one document per paper (FILE-S, FILE-N) unless --paper names one
            from ..reporters.errata import errata_documents

            for target, text in errata_documents(doc, path, fmt, paper=args.paper).items():
                atomic_write_text(target, text)
        return write

    writers = {"json": lambda path: write_json(doc, Path(path)),
               "markdown": lambda path: atomic_write_text(path, format_markdown(doc)),
               "html": html, "errata_latex": errata("latex"), "errata_markdown": errata("markdown")}
    failed = []
    for option, attr in OUTPUTS:
        path = getattr(args, attr, None)
        if path is None:
            continue
        try:
            writers[attr](path)
        except (OSError, ValueError) as exc:
            failed.append(option)
            print(f"verify: error: {option} {path} not written: {str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}",
                  file=sys.stderr)
    return failed


def _finish(args, old, doc: dict, code: int) -> int:
    """The --compare part: print the changes; 1 when a verdict moved (unless --allow-changes)."""
    if old is None:
        return code
    from ..report import compare, format_changes

    changes = compare(old, doc, paper=args.paper)
    sys.stdout.write(format_changes(changes))
    return 1 if changes and not args.allow_changes else code


def _load_json(path: str, option: str, writer: str):
    import json

    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise ValueError(f"Argument '{option}' must be a readable JSON file written by '{writer}', not {path!r}.") from None
