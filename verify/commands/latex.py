"""``verify latex``: print or export the derived formulas as LaTeX."""

from __future__ import annotations

import contextlib
import sys
import threading
from typing import Iterator


def register(sub) -> None:
    p = sub.add_parser("latex", help="LaTeX of a derived formula")
    p.add_argument("name", nargs="?", help="formula name (see --list)")
    p.add_argument("--list", action="store_true", help="list the formula names")
    p.add_argument("-p", "--param", action="append", metavar="KEY=VALUE", help="set a parameter, e.g. -p m=5")
    p.add_argument("--out", metavar="FILE", help="write a standalone .tex document with every formula")
    p.add_argument("--no-progress", action="store_true", help="no progress indicator on stderr")
    p.set_defaults(func=run)


#: seconds a derivation runs before the elapsed-time indicator appears (quick formulas print nothing extra)
SPINNER_AFTER = 2.0


@contextlib.contextmanager
def elapsed(desc: str, enabled: bool = True) -> Iterator[None]:
    """A tqdm line on stderr with the elapsed time, shown once the block has run :data:`SPINNER_AFTER` seconds and
    refreshed every second: a derivation that takes minutes is visibly working."""
    if not enabled:
        yield
        return
    from tqdm import tqdm

    done = threading.Event()
    bar: list = []

    def tick():
        if done.wait(SPINNER_AFTER):
            return
        bar.append(tqdm(desc=desc, total=None, file=sys.stderr, bar_format="{desc}: {elapsed} elapsed", leave=False))
        while not done.wait(1.0):
            bar[0].refresh()

    th = threading.Thread(target=tick, daemon=True)
    th.start()
    try:
        yield
    finally:
        done.set()
        th.join()
        if bar:
            bar[0].close()


def run(args) -> int:
    from .._io import atomic_write_text, check_output_path

    check_output_path(args.out, "--out")  # before sympy is imported and anything derived: a bad path fails at once
    from ..latex import formulas, get_formula, parse_params, standalone_document

    if args.list:
        for f in formulas().values():
            params = ", ".join(f"{k}={v}" for k, v in f.params.items())
            print(f"{f.name:<28} {f.description}" + (f"  [{params}]" if params else ""))
        return 0
    if not args.name and not args.out:
        raise ValueError("Argument 'name' is required (or use --list / --out FILE).")
    params = parse_params(args.param)
    f = get_formula(args.name) if args.name else None
    if f is not None:
        unknown = set(params) - set(f.params)
        if unknown:
            raise ValueError(f"Argument 'params' of formula {f.name!r} must use the parameters "
                             f"{', '.join(sorted(f.params)) or 'none'}, not {sorted(unknown)}.")
    if args.out:
        atomic_write_text(args.out, standalone_document(progress=not args.no_progress))
        if f is None:
            return 0
    bigger = {k: v for k, v in params.items() if isinstance(f.params.get(k), int) and isinstance(v, int)
              and v > f.params[k]}
    if bigger:
        shown = ", ".join(f"{k} = {v} (default {f.params[k]})" for k, v in bigger.items())
        print(f"verify latex: {f.name} with {shown}: the derivation grows quickly with the parameter and can take "
              "minutes", file=sys.stderr)
    with elapsed(f"deriving {f.name}", enabled=not args.no_progress):
        text = f.latex(**params)
    print(text)
    return 0
