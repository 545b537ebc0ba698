"""``minigrad lab``: run an experiment that measures a claim from the docs.

The experiments live in ``minigrad/lab/`` and never print; this module runs one (or
all), shows its claim, its headline numbers, every check with its measurement and the
verdict, and says where the CSV and the plot went.
"""

from __future__ import annotations

import argparse
import textwrap

from minigrad.cli.errors import CLIError

EPILOG = """\
examples:
  minigrad lab --list                         # the experiments, claims and verdicts
  minigrad lab residual-growth                # writes runs/lab/residual-growth/
  minigrad lab warmup --seed 1 --out /tmp/w   # another initialization and data order
  minigrad lab all --quick                    # every experiment at reduced size

Each experiment writes NAME.csv and NAME.png (with matplotlib) into its folder and
ends with a verdict: supported, partly supported or not supported, computed from the
measurement; incomplete when a part of the claim was not measured (--quick leaves
some out) and every part that was passed.
"""

WIDTH = 92


def add_parser(sub) -> None:
    p = sub.add_parser(
        "lab",
        help="run an experiment that measures a claim about normalization",
        description="Run one of the lab's experiments: it states a claim, measures it, "
        "writes a CSV and a plot, and says whether the measurement supports the claim.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", nargs="?", metavar="NAME", help="the experiment (see --list), or 'all'")
    p.add_argument("--list", action="store_true", help="list the experiments and their claims")
    p.add_argument(
        "--out", metavar="FOLDER",
        help="output folder (default runs/lab/NAME; with 'all', one subfolder per experiment)",
    )  # fmt: skip
    p.add_argument("--seed", type=int, default=0, metavar="N", help="seed (default: 0)")
    p.add_argument(
        "--quick", action="store_true",
        help="reduced sizes (the ones the tests use): seconds instead of minutes",
    )  # fmt: skip
    p.set_defaults(run=run)


def _wrap(text: str, indent: str, first: str | None = None) -> str:
    return textwrap.fill(
        text, WIDTH, initial_indent=indent if first is None else first,
        subsequent_indent=indent, break_on_hyphens=False,
    )  # fmt: skip


def _print_list() -> None:
    from minigrad.lab import EXPERIMENTS

    print("experiments (python -m minigrad lab NAME): the claim each one tests, and what")
    print("its recorded run measured (docs/lab.md has the full output)\n")
    for exp in EXPERIMENTS.values():
        print(f"  {exp.name}")
        print(_wrap(exp.title, "      "))
        print(_wrap(exp.claim, "      ", first="      claim: "))
        print(_wrap(exp.finding, "      ", first="      measured: "))
        print()


def _run_one(name: str, out, seed: int, quick: bool) -> str:
    from minigrad.lab import run_experiment
    from minigrad.lab.registry import get_experiment

    exp = get_experiment(name)
    print(f"lab {exp.name}: {exp.title}{' (quick)' if quick else ''}")
    print(_wrap(exp.claim, "  ", first="claim: "), flush=True)
    result = run_experiment(
        name, out=out, seed=seed, quick=quick,
        progress=lambda text: print(f"  ... {text}", flush=True),
    )  # fmt: skip
    print("measured:")
    for line in result.headline:
        print(_wrap(line, "    ", first="  - "))
    print("checks:")
    for check in result.checks:
        mark = "skip" if not check.checked else "pass" if check.passed else "FAIL"
        print(_wrap(check.statement, "         ", first=f"  [{mark}] "))
        print(_wrap(check.measured, "         "))
    for note in result.notes:
        print(_wrap(note, "    ", first="note: "))
    print(f"verdict: {result.summary()}")
    names = ", ".join(str(f) for f in result.files)
    print(_wrap(f"{names} ({result.seconds:.1f} s)", "  ", first="wrote: "), flush=True)
    return result.verdict


def run(args) -> int:
    import pathlib

    from minigrad.lab import EXPERIMENTS, UnknownExperiment

    if args.list:
        _print_list()
        return 0
    if args.name is None:
        raise CLIError("name an experiment, or 'all' (python -m minigrad lab --list shows them)")
    from minigrad.cli.train import training_threading_layer

    training_threading_layer()  # the experiments train models too
    if args.seed < 0:
        raise CLIError(f"--seed must be a non-negative integer, got {args.seed}")
    if args.name == "all":
        verdicts = {}
        for name in EXPERIMENTS:
            out = pathlib.Path(args.out) / name if args.out else None
            verdicts[name] = _run_one(name, out, args.seed, args.quick)
            print()
        print("summary:")
        for name, verdict in verdicts.items():
            print(f"  {name:<20} {verdict}")
        return 0
    try:
        _run_one(args.name, args.out, args.seed, args.quick)
    except UnknownExperiment as e:
        raise CLIError(str(e)) from None
    return 0
