"""``verify search CLAIM``: hunt for a counterexample to a claim's inequality, on this machine or a Dask cluster.

::

    verify search --list                                   # the objectives (claim IDs and variants)
    verify search N-thmC.2 --budget 64                     # LocalCluster on this machine's cores
    verify search S-lemA.2 --budget 10000 --scheduler tcp://10.0.0.5:8786 --out a2.json
    verify search S-lemA.2 --budget 20000 --scheduler tcp://10.0.0.5:8786 --out a2.json --resume
    verify search --replay a2.json                         # exact / mpmath re-evaluation of the saved point

Exit code 0 when the search ran (whether or not it found a counterexample), 2 on bad input
(an unknown claim, an unreachable scheduler: one line on stderr).
"""

from __future__ import annotations

import json


def _raise(message):  # nested parser: one-line error, exit 2 through verify.cli
    raise ValueError(message)


def register(sub) -> None:
    p = sub.add_parser("search", help="adversarial counterexample search for a claim (Dask: local or a cluster)")
    p.error = _raise
    p.add_argument("claim", nargs="?", metavar="CLAIM", help="objective name: a claim ID or ID:variant (see --list)")
    p.add_argument("--budget", type=int, default=32, metavar="N", help="number of seeded starts (default 32)")
    p.add_argument("--seed", type=int, default=None, help="seed of the starts (default: the check's seed)")
    p.add_argument("--maxiter", type=int, default=None, help="Nelder-Mead iterations per start (default: the check's)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="tcp://HOST:PORT of a running Dask scheduler (default: a LocalCluster on this machine)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="LocalCluster worker processes (default: this machine's cores; ignored with --scheduler)")
    p.add_argument("--out", metavar="FILE", default=None, help="checkpoint of the best-so-far (JSON, written atomically)")
    p.add_argument("--resume", action="store_true", help="continue the search saved in --out FILE")
    p.add_argument("--no-stop", action="store_true",
                   help="keep searching after the first counterexample (it is still recorded)")
    p.add_argument("--replay", metavar="FILE", default=None,
                   help="re-evaluate the point saved in FILE exactly (rationals / mpmath) and exit")
    p.add_argument("--list", action="store_true", help="list the objectives and exit")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def _list() -> int:
    from ..objectives import OBJECTIVES

    for name in sorted(OBJECTIVES):
        o = OBJECTIVES[name]
        print(f"{name:28s} {o.claim:14s} <= {o.threshold:g}  {'(paper: false) ' if o.expect == 'fails' else ''}"
              f"{o.description}  [x: {o.params}]")
    return 0


def _replay(path: str, name: str | None, as_json: bool) -> int:
    from ..objectives import replay_point
    from ..search import load_state
    from .._validate import VerifyInputError

    data = load_state(path)
    if name is not None and name != data["objective"]:
        raise VerifyInputError(f"Argument 'claim' must match the file's objective {data['objective']!r}, not {name!r}.")
    point = (data.get("counterexample") or {}).get("x") or data.get("x")
    if point is None:
        raise VerifyInputError(f"Argument 'file' must hold a point ('x'), not {path!r} (no start finished yet).")
    rep = replay_point(data["objective"], point)
    if as_json:
        print(json.dumps(rep, sort_keys=True))
        return 0
    verdict = "VIOLATES" if rep["violates"] else "does not violate"
    print(f"{rep['objective']}: float64 {rep['float_value']!r}; {rep['method']}: {rep['value']}")
    print(f"the point {verdict} the claim (threshold {rep['threshold']:g})")
    return 0


def run(args) -> int:
    from .._validate import VerifyInputError, verify_int

    from .._io import check_input_file, check_output_path

    if args.list:
        return _list()
    if args.replay is not None:
        check_input_file(args.replay, "--replay")
        return _replay(args.replay, args.claim, args.json)
    # the checkpoint is written after every finished start: a path that cannot be written must fail before the first
    check_output_path(args.out, "--out")
    if args.resume and args.out is not None:
        check_input_file(args.out, "--out")
    if args.claim is None:
        raise VerifyInputError("Argument 'claim' is required (see 'verify search --list').")

    from ..distributed import get_client
    from ..objectives import get_objective, replay_point
    from ..search import run_search

    obj = get_objective(args.claim)
    verify_int(args.budget, "budget", minimum=1)
    if args.workers is not None:
        verify_int(args.workers, "workers", minimum=1)
    if args.resume and args.out is None:
        raise VerifyInputError("Argument 'resume' needs a checkpoint file: pass --out FILE as well.")
    with get_client(args.scheduler, args.workers) as client:
        res = run_search(obj.name, args.budget, args.seed, client=client, out=args.out, resume=args.resume,
                         progress=not args.quiet, stop_on_violation=not args.no_stop, maxiter=args.maxiter)
    summary = res.as_dict()
    summary.pop("done")
    if res.counterexample is not None:
        summary["replay"] = replay_point(obj.name, res.counterexample["x"])
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return 0
    print(f"{obj.name} ({obj.description}): {res.n_done} of {res.budget} starts, seed {res.seed}")
    if res.best_start is None:
        print("no start reached a point inside the hypotheses")
    else:
        print(f"best value {res.best!r} at start {res.best_start} (threshold {obj.threshold:g})")
    if res.counterexample is not None:
        c, rep = res.counterexample, summary["replay"]
        print(f"COUNTEREXAMPLE at start {c['start']}: value {c['value']!r} > {obj.threshold:g}")
        print(f"x = {json.dumps(c['x'])}   [{obj.params}]")
        print(f"replay ({rep['method']}): {rep['value']} -> {'confirmed' if rep['violates'] else 'NOT confirmed'}")
    if args.out:
        print(f"checkpoint: {args.out}")
    return 0
