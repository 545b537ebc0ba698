"""The reference implementation of every norm, gathered in one namespace for reading
beside the docs (``reference.layer_norm_forward(x, ...)`` on NumPy arrays).

Each function lives in its norm's own file (``layer_norm.py``, ``rms_norm.py``,
``batch_norm.py``, ``group_norm.py``), with the Function and the public function that
use it; the shared statistics are in ``common.py``.
"""

from minigrad.nn.norms.batch_norm import (
    batch_norm_backward,
    batch_norm_forward,
    update_running_stats,
)
from minigrad.nn.norms.common import standardize, standardize_backward
from minigrad.nn.norms.group_norm import group_norm_backward, group_norm_forward
from minigrad.nn.norms.layer_norm import layer_norm_backward, layer_norm_forward
from minigrad.nn.norms.rms_norm import rms_norm_backward, rms_norm_forward

__all__ = [
    "batch_norm_backward",
    "batch_norm_forward",
    "group_norm_backward",
    "group_norm_forward",
    "layer_norm_backward",
    "layer_norm_forward",
    "rms_norm_backward",
    "rms_norm_forward",
    "standardize",
    "standardize_backward",
    "update_running_stats",
]
