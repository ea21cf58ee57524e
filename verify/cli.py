"""Command line: ``verify report | latex | frame | reproduce | mutants | search | errata | variants``.

Bad input prints one line on stderr and exits with code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: modules defining a subcommand through ``register(subparsers)``
COMMANDS = ("verify.commands.report", "verify.commands.latex", "verify.commands.frame", "verify.commands.reproduce",
            "verify.commands.mutants",
            "verify.commands.search",
            "verify.commands.errata",
            "verify.commands.variants")


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(prog="verify", description="Claim-by-claim checks of papers S and N.")
    parser.add_argument("--version", action="version", version=f"verify {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for mod in COMMANDS:
        importlib.import_module(mod).register(sub)
    return parser


class _ArgError(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()

    def error(message):  # argparse's own errors follow the same one-line rule
        raise _ArgError(message)

    parser.error = error
    for action in parser._subparsers._group_actions:
        for p in action.choices.values():
            p.error = error
    try:
        args = parser.parse_args(argv)
        return int(args.func(args) or 0)
    except (_ArgError, ValueError, OSError, KeyError) as exc:
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"verify: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("verify: interrupted (the claims and mutants that finished are in the cache: the same command "
              "resumes from there)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
