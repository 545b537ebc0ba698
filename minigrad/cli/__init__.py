"""minigrad's command line: ``minigrad train``, ``minigrad generate``, ``minigrad lab``.

Each subcommand lives in its own module and registers its options on a subparser.
Errors the user can fix (a bad option, a missing or malformed file) end with a one-line
message and exit status 2, never a traceback; a run that fails (its loss becomes NaN)
exits 1, Ctrl-C 130, and a closed pipe (``| head``) ends quietly.
"""

from __future__ import annotations

import argparse
import os
import sys

from minigrad.cli.errors import CLIError


def build_parser() -> argparse.ArgumentParser:
    from minigrad.cli import generate, lab, train

    parser = argparse.ArgumentParser(
        prog="minigrad",
        description="minigrad: train and run tiny transformers on a CPU, and run the lab.",
    )
    parser.add_argument("--version", action="version", version=version_line())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    train.add_parser(sub)
    generate.add_parser(sub)
    lab.add_parser(sub)
    return parser


def version_line() -> str:
    """``minigrad 0.2.0 (Python 3.11.7; numpy 2.4.6, numba 0.68.1, ...)``: minigrad's
    version and those of what it runs on, read from the installed packages' metadata
    (nothing is imported)."""
    import importlib.metadata
    import platform

    from minigrad._version import __version__

    found = []
    for name in ("numpy", "numba", "safetensors"):
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} not installed")
    return f"minigrad {__version__} (Python {platform.python_version()}; {', '.join(found)})"


def main(argv=None) -> int:
    """Run one command; returns the exit status: 0 done, 1 a run that failed, 2 bad
    usage (a one-line message naming the option or file), 130 interrupted (Ctrl-C)."""
    command = "minigrad"
    try:
        from minigrad.serialization import CheckpointError
        from minigrad.train.config import ConfigError
        from minigrad.train.tasks import TaskError

        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        command = f"minigrad {args.command}"
        try:
            status = args.run(args) or 0
            sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
            return status
        except (CLIError, ConfigError, TaskError, CheckpointError) as e:
            print(f"{command}: error: {e}", file=sys.stderr)
            return 2
        except BrokenPipeError:
            raise
        except OSError as e:  # a file that cannot be read or written, a full disk
            print(f"{command}: error: {e}", file=sys.stderr)
            return 1
        except MemoryError:
            print(
                f"{command}: error: out of memory; try smaller sizes (--d-model, --batch-size, "
                "--length)",
                file=sys.stderr,
            )
            return 1
    except KeyboardInterrupt:
        print(f"\n{command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``minigrad lab --list | head -1``): stop quietly, and
        # point stdout at /dev/null so that the interpreter's final flush stays quiet too.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
