"""Benchmarks as users see them: each library in its own process.

In one process, minigrad's and PyTorch's thread pools (Numba's, OpenBLAS's, PyTorch's
OpenMP workers) take the 2 cores from each other, and PyTorch measured there ran 2-3.5x
slower than alone. A user runs one library per process, so that is what this harness
measures:

- for every case and every round, one fresh process per library, alternating which one
  goes first; each worker imports only its own library (checked), sets the same thread
  count through the library's own call (``set_num_threads``, as a program would) and
  builds the same seeded inputs (the case function draws them with NumPy);
- nothing else: no environment variable, no allocator state, nothing a plain
  ``python my_script.py`` would not have (each library's own defaults, minigrad's
  allocator policy included, are what a user gets);
- each worker warms up (first calls compile kernels, fill caches, wake threads), then
  takes samples, each repeating the callable enough times to last ``min_time``;
- the ratio reported is median(minigrad) / median(PyTorch) over all samples; the
  per-round ratios show the spread. Absolute times drift on these shared machines;
  ratios hold.

A benchmark file defines case functions and calls ``main``::

    def layer_norm(lib, shape):           # runs in a worker that imported only `lib`
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        if lib == "minigrad":
            import minigrad as mg
            ...
            return lambda: ...            # one timed unit of work
        import torch
        ...
        return lambda: ...

    CASES = [Case("LayerNorm [2048, 64]", layer_norm, shape=(2048, 64))]
    if __name__ == "__main__":
        main(CASES)

The benchmark file must not import minigrad or torch at module level (the worker
imports it by path and checks that the other library stayed out). Keyword arguments
travel as JSON: tuples arrive as lists.

``--same-process`` adds the one figure a same-process run is good for, labelled as
such: how much each library slows down when the other one is imported and working in
the same process. Each round then also runs, beside each library's own worker, one that
also runs the other library's callable between its own samples; the slowdown is the
median of those samples over the median of the worker's alone, over all rounds.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import inspect
import json
import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

LIBS = ("minigrad", "torch")


@dataclasses.dataclass
class Case:
    """One benchmark: ``fn(lib, **kwargs)`` returns the callable to time."""

    name: str
    fn: Callable
    kwargs: dict

    def __init__(self, name: str, fn: Callable, **kwargs):
        self.name, self.fn, self.kwargs = name, fn, kwargs


@dataclasses.dataclass
class Result:
    name: str
    minigrad: float  # median seconds per call
    torch: float | None
    ratio: float | None  # minigrad / torch
    round_ratios: list
    slowdown: dict | None = None  # same-process slowdown per library, with --same-process


def torch_available() -> bool:
    """Whether PyTorch is installed (found without importing it)."""
    return importlib.util.find_spec("torch") is not None


def geomean(values) -> float:
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


# --------------------------------------------------------------------------- worker side
def _set_threads(lib: str, threads: int) -> None:
    if lib == "torch":
        import torch

        torch.set_num_threads(threads)
    else:
        import minigrad as mg

        if hasattr(mg, "set_num_threads"):
            mg.set_num_threads(threads)


def _time_samples(run: Callable, min_time: float, samples: int, budget: float, other=None):
    """Warm up ``run``, then ``samples`` timings (seconds per call) of about ``min_time``."""
    t_end = time.perf_counter() + 0.25
    calls = 0
    while calls < 3 or time.perf_counter() < t_end:
        run()
        calls += 1
    t0 = time.perf_counter()
    run()
    one = max(time.perf_counter() - t0, 1e-7)
    number = max(1, int(min_time / one))
    out = []
    deadline = time.perf_counter() + budget
    while len(out) < samples and (len(out) < 5 or time.perf_counter() < deadline):
        if other is not None:
            other()
        t0 = time.perf_counter()
        for _ in range(number):
            run()
        out.append((time.perf_counter() - t0) / number)
    return out


def _worker(args) -> None:
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.module)))
    spec = importlib.util.spec_from_file_location("_bench_module", args.module)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    other_lib = LIBS[1 - LIBS.index(args.lib)]
    fn = getattr(module, args.func)
    kwargs = json.loads(args.kwargs)
    _set_threads(args.lib, args.threads)
    run = fn(args.lib, **kwargs)
    other = None
    if args.with_other:
        _set_threads(other_lib, args.threads)
        other_run = fn(other_lib, **kwargs)
        other_run()
        other = other_run
    elif other_lib in sys.modules:
        sys.exit(
            f"harness: the {args.lib} worker imported {other_lib}: {args.module} "
            "must import each library only inside its case functions"
        )
    times = _time_samples(run, args.min_time, args.samples, args.budget, other)
    print(json.dumps({"samples": times}))


# --------------------------------------------------------------------------- parent side
def _spawn(case: Case, lib: str, opts, with_other: bool = False) -> list:
    module = inspect.getsourcefile(case.fn)
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--worker",
        "--lib",
        lib,
        "--module",
        module,
        "--func",
        case.fn.__name__,
        "--kwargs",
        json.dumps(case.kwargs),
        "--threads",
        str(opts.threads),
        "--min-time",
        str(opts.min_time),
        "--samples",
        str(opts.samples),
        "--budget",
        str(opts.budget),
    ]
    if with_other:
        cmd.append("--with-other")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{case.name} ({lib}) failed:\n{proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])["samples"]


def compare(
    cases,
    threads: int = 2,
    rounds: int = 3,
    min_time: float = 2e-3,
    samples: int = 25,
    budget: float = 2.0,
    same_process: bool = False,
    libs=None,
) -> list:
    """Time every case, each library in its own process per round (see the module doc)."""
    opts = argparse.Namespace(threads=threads, min_time=min_time, samples=samples, budget=budget)
    libs = list(libs or (LIBS if torch_available() else ("minigrad",)))
    results = []
    same_process = same_process and "torch" in libs
    for case in cases:
        per_lib = {lib: [] for lib in libs}
        beside = {lib: [] for lib in libs}  # with the other library in the process
        round_ratios = []
        for r in range(rounds):
            order = libs if r % 2 == 0 else libs[::-1]
            medians = {}
            for lib in order:
                s = _spawn(case, lib, opts)
                per_lib[lib].extend(s)
                medians[lib] = statistics.median(s)
                if same_process:
                    beside[lib].extend(_spawn(case, lib, opts, with_other=True))
            if "torch" in medians:
                round_ratios.append(medians["minigrad"] / medians["torch"])
        mg_t = statistics.median(per_lib["minigrad"])
        th_t = statistics.median(per_lib["torch"]) if "torch" in per_lib else None
        slowdown = None
        if same_process:
            slowdown = {
                lib: statistics.median(beside[lib]) / statistics.median(per_lib[lib])
                for lib in libs
            }
        results.append(
            Result(
                case.name, mg_t, th_t, None if th_t is None else mg_t / th_t, round_ratios, slowdown
            )
        )
    return results


def fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    return f"{seconds * 1e3:.2f} ms"


def report(results, extra_columns: dict | None = None, title: str | None = None) -> None:
    """Print a table: per-library medians, the ratio and the per-round spread."""
    extra_columns = extra_columns or {}
    head = ["case", "minigrad", "PyTorch", "ratio", "rounds"] + list(extra_columns)
    rows = []
    for r in results:
        spread = f"{min(r.round_ratios):.2f}-{max(r.round_ratios):.2f}" if r.round_ratios else "-"
        row = [
            r.name,
            fmt_time(r.minigrad),
            fmt_time(r.torch),
            "-" if r.ratio is None else f"{r.ratio:.2f}",
            spread,
        ]
        row += [col(r) for col in extra_columns.values()]
        rows.append(row)
    ratios = [r.ratio for r in results if r.ratio]
    if len(ratios) > 1:
        rows.append(
            ["geometric mean", "", "", f"{geomean(ratios):.2f}", ""] + [""] * len(extra_columns)
        )
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    if title:
        print(title)
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))
    if not ratios:
        print("(PyTorch is not installed: minigrad's times alone; the ratios need torch)")
    slow = [r for r in results if r.slowdown]
    if slow:
        print(
            "\nsame process (labelled: not the speed): each library's slowdown when the "
            "other is imported and working in the same process"
        )
        for r in slow:
            parts = ", ".join(f"{lib} {v:.2f}x" for lib, v in r.slowdown.items())
            print(f"  {r.name}: {parts}")


def machine_line(threads: int) -> str:
    """Date, CPU, core count, load average and threads: printed with every table."""
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if "model name" in line)
    except (OSError, StopIteration):
        pass
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    when = time.strftime("%Y-%m-%d %H:%M")
    return f"{when}, {cpu}, {os.cpu_count()} cores, load average {load}, {threads} threads"


def asks_help(argv) -> bool:
    """Whether the command line only asks for ``--help`` (then a benchmark measures nothing)."""
    return "-h" in argv or "--help" in argv


def main(
    cases,
    extra_columns: dict | None = None,
    argv=None,
    title: str | None = None,
    epilog: str | None = None,
):
    """The command line every benchmark shares; returns the results. ``epilog`` ends
    ``--help`` (a benchmark's own flags)."""
    p = argparse.ArgumentParser(
        description=title or "minigrad vs PyTorch, separate processes", epilog=epilog
    )
    p.add_argument("--rounds", type=int, default=3, help="processes per library per case")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--samples", type=int, default=25, help="samples per process")
    p.add_argument("--min-time", type=float, default=2e-3, help="seconds per sample")
    p.add_argument("--only", default=None, help="run the cases whose name contains this")
    p.add_argument("--json", default=None, help="also write the results to this file")
    p.add_argument(
        "--same-process",
        action="store_true",
        help="add each library's slowdown beside the other in one process",
    )
    args = p.parse_args(argv)
    chosen = [c for c in cases if args.only is None or args.only in c.name]
    results = compare(
        chosen,
        threads=args.threads,
        rounds=args.rounds,
        min_time=args.min_time,
        samples=args.samples,
        same_process=args.same_process,
    )
    print(machine_line(args.threads))
    report(results, extra_columns, title)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump([dataclasses.asdict(r) for r in results], f, indent=1)
    return results


if __name__ == "__main__" and "--worker" in sys.argv:
    wp = argparse.ArgumentParser()
    wp.add_argument("--worker", action="store_true")
    wp.add_argument("--lib", choices=LIBS, required=True)
    wp.add_argument("--module", required=True)
    wp.add_argument("--func", required=True)
    wp.add_argument("--kwargs", default="{}")
    wp.add_argument("--threads", type=int, default=2)
    wp.add_argument("--min-time", type=float, default=2e-3)
    wp.add_argument("--samples", type=int, default=25)
    wp.add_argument("--budget", type=float, default=2.0)
    wp.add_argument("--with-other", action="store_true")
    _worker(wp.parse_args())
