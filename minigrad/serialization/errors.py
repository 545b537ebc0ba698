"""The errors ``mg.load`` raises for files it cannot or will not read."""

from __future__ import annotations

import pickle


class CheckpointError(RuntimeError, ValueError):
    """A file that ``mg.load`` cannot or will not read (corrupt, truncated, pickled,
    crafted). A ``RuntimeError``, as PyTorch's ``torch.load`` raises for a corrupt file
    (and a ``ValueError``, as minigrad 0.1 raised)."""


class WeightsOnlyUnpicklingError(CheckpointError, pickle.UnpicklingError):
    """``mg.load(..., weights_only=True)`` (the default) met a pickled object whose class
    is not allowed (``mg.serialization.add_safe_globals``). Also a
    ``pickle.UnpicklingError``, the class ``torch.load`` raises in this case."""
