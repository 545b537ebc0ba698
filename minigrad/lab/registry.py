"""The lab's experiments by name, and one way to run any of them."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from minigrad.lab.result import LabResult
from minigrad.lab.threads import one_thread

__all__ = ["EXPERIMENTS", "Experiment", "UnknownExperiment", "get_experiment", "run_experiment"]

# name -> module in minigrad/lab/, in the order of the learning path.
_MODULES = {
    "skip-connection": "skip_connection",
    "residual-growth": "residual_growth",
    "gradient-flow": "gradient_flow",
    "warmup": "warmup",
    "training-stats": "training_stats",
    "norm-lr-sweep": "norm_lr_sweep",
    "invariance": "invariance",
    "batchnorm-pitfalls": "batchnorm_pitfalls",
    "norm-pitfalls": "norm_pitfalls",
    "saturation": "saturation",
    "norm-cost": "norm_cost",
}


class UnknownExperiment(ValueError):
    """A name that is not one of the lab's experiments."""


@dataclass(frozen=True)
class Experiment:
    """One experiment: its name, a one-line title, the claim it tests, its ``run``, and
    ``finding``: what its recorded run measured and the verdict (as in docs/lab.md).

    ``run(out=None, seed=0, quick=False, progress=None) -> LabResult`` writes its CSV
    and PNG into ``out`` (default ``runs/lab/NAME``); ``quick`` runs reduced sizes;
    ``progress``, if given, is called with a short string before each slow step.
    """

    name: str
    title: str
    claim: str
    run: Callable[..., LabResult]
    finding: str = ""


def _load(name: str) -> Experiment:
    module = importlib.import_module(f"minigrad.lab.{_MODULES[name]}")
    return Experiment(module.NAME, module.TITLE, module.CLAIM, module.run, module.FINDING)


EXPERIMENTS: dict[str, Experiment] = {name: _load(name) for name in _MODULES}


def get_experiment(name: str) -> Experiment:
    """The experiment called ``name``; ``UnknownExperiment`` lists the valid names."""
    if name not in EXPERIMENTS:
        raise UnknownExperiment(
            f"unknown experiment {name!r}; choose one of: {', '.join(EXPERIMENTS)}"
        )
    return EXPERIMENTS[name]


def run_experiment(
    name: str,
    out=None,
    seed: int = 0,
    quick: bool = False,
    progress: Callable[[str], None] | None = None,
) -> LabResult:
    """Run one experiment on one thread (``threads.one_thread``: a seeded run repeats to
    the last digit whatever the load) and time it.

    Example::

        >>> result = run_experiment("invariance", out="runs/lab/invariance")
        >>> result.verdict
        'supported'
    """
    experiment = get_experiment(name)
    started = time.perf_counter()
    with one_thread():
        result = experiment.run(out=out, seed=seed, quick=quick, progress=progress)
    result.seconds = time.perf_counter() - started
    return result
