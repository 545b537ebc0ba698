"""Fixtures for the lab's tests: each experiment runs once, at its reduced (quick) size."""

import pytest

from minigrad.lab import run_experiment


@pytest.fixture(scope="module")
def result(request, tmp_path_factory):
    """The result of the test module's experiment (named by its ``EXPERIMENT``), run
    once per module at quick size."""
    name = request.module.EXPERIMENT
    return run_experiment(name, out=tmp_path_factory.mktemp(name), seed=0, quick=True)
