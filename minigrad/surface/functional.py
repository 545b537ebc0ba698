"""``torch.functional``: the module where PyTorch defines a few of its ``torch.*``
functions (``einsum``, ``meshgrid``, ``split``, ``broadcast_tensors`` ...). In minigrad
they live elsewhere; this module hands out the same ``mg.*`` function for each name
(on first access), so ``from torch.functional import einsum`` keeps working."""

from __future__ import annotations

import importlib

_NAMES = (
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
    "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm",
    "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot", "unique",
    "unique_consecutive", "unravel_index",
)  # fmt: skip


def __getattr__(name: str):
    if name in _NAMES:
        return getattr(importlib.import_module("minigrad"), name)
    raise AttributeError(f"module 'minigrad.functional' has no attribute '{name}'")


def __dir__():
    return sorted(_NAMES)
