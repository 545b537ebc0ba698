"""Fixtures for the lab's tests: each experiment runs once, at its reduced (quick) size."""

import pytest

from minigrad.lab import run_experiment


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """``quick_run(name)``: the experiment's result at quick size, run once per module."""
    cache = {}

    def get(name):
        if name not in cache:
            out = tmp_path_factory.mktemp(name)
            cache[name] = run_experiment(name, out=out, seed=0, quick=True)
        return cache[name]

    return get
