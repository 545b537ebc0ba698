"""Shared test fixtures.

PyTorch is the independent oracle for parity tests. It is never a dependency of
minigrad: tests that need it use the ``torch`` fixture (or ``pytest.importorskip``) and
skip cleanly when it is not installed.
"""

import numpy as np
import pytest

import minigrad as mg


@pytest.fixture
def torch():
    """The torch module, or a clean skip when it is not installed. Seeded, so that a
    parity test that lets PyTorch initialize weights sees the same ones on every run."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(2)
    torch.manual_seed(0)
    return torch


@pytest.fixture
def rng():
    """A seeded NumPy generator for test data (independent of minigrad's generator)."""
    return np.random.default_rng(1234)


@pytest.fixture(autouse=True)
def _seed_minigrad():
    """Every test starts from the same minigrad random state."""
    mg.manual_seed(0)
    yield
