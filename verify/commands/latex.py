"""``verify latex``: print or export the derived formulas as LaTeX."""

from __future__ import annotations

from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("latex", help="LaTeX of a derived formula")
    p.add_argument("name", nargs="?", help="formula name (see --list)")
    p.add_argument("--list", action="store_true", help="list the formula names")
    p.add_argument("-p", "--param", action="append", metavar="KEY=VALUE", help="set a parameter, e.g. -p m=5")
    p.add_argument("--out", metavar="FILE", help="write a standalone .tex document with every formula")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..latex import formulas, get_formula, parse_params, standalone_document

    if args.list:
        for f in formulas().values():
            params = ", ".join(f"{k}={v}" for k, v in f.params.items())
            print(f"{f.name:<28} {f.description}" + (f"  [{params}]" if params else ""))
        return 0
    if args.out:
        Path(args.out).write_text(standalone_document(), encoding="utf-8")
        if not args.name:
            return 0
    if not args.name:
        raise ValueError("Argument 'name' is required (or use --list / --out FILE).")
    print(get_formula(args.name).latex(**parse_params(args.param)))
    return 0
