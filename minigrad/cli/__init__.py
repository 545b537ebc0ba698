"""minigrad's command line: ``minigrad train``, ``minigrad generate``, ``minigrad lab``.

Each subcommand lives in its own module and registers its options on a subparser.
Errors the user can fix (a bad option, a missing file) end with a one-line message and
exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys


class CLIError(Exception):
    """An error worth a clear message and a non-zero exit, not a traceback."""


def build_parser() -> argparse.ArgumentParser:
    from minigrad.cli import generate, lab, train

    parser = argparse.ArgumentParser(
        prog="minigrad",
        description="minigrad: train and run tiny transformers on a CPU, and run the lab.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    train.add_parser(sub)
    generate.add_parser(sub)
    lab.add_parser(sub)
    return parser


def main(argv=None) -> int:
    from minigrad.train.config import ConfigError
    from minigrad.train.tasks import TaskError

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return args.run(args) or 0
    except (CLIError, ConfigError, TaskError) as e:
        print(f"minigrad {args.command}: error: {e}", file=sys.stderr)
        return 2
