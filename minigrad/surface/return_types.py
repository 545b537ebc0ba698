"""``torch.return_types``: the named tuples that functions with several results return
(``x.max(dim)`` gives ``values`` and ``indices``), gathered in one module. Each is a
``namedtuple``: ``out.values`` and ``values, indices = out`` both work."""

from __future__ import annotations

import importlib

from minigrad.surface.reductions import Aminmax as aminmax
from minigrad.surface.reductions import Cummax as cummax
from minigrad.surface.reductions import Cummin as cummin
from minigrad.surface.reductions import Kthvalue as kthvalue
from minigrad.surface.reductions import Median as median
from minigrad.tensor import MaxMin as max
from minigrad.tensor import MaxMin as min
from minigrad.tensor import SortResult as sort
from minigrad.tensor import TopK as topk

__all__ = ["aminmax", "cummax", "cummin", "kthvalue", "max", "median", "min", "sort", "topk"]


def __getattr__(name: str):
    """The linear-algebra results (``linalg_eigh``, ``qr``, ``svd``...), defined with
    ``mg.linalg`` (imported on first use)."""
    try:
        linalg_types = importlib.import_module("minigrad.linalg.return_types")
    except ImportError:
        linalg_types = None
    if linalg_types is not None and hasattr(linalg_types, name):
        return getattr(linalg_types, name)
    raise AttributeError(f"module 'minigrad.return_types' has no attribute '{name}'")
