"""Normalization functions: ``layer_norm``, ``rms_norm``, ``batch_norm``, ``group_norm``.

Each is defined in its own file under ``minigrad/nn/norms/`` (the reference math, the
autograd Function and this public function, top to bottom): see ``nn/norms/__init__.py``.
"""

from minigrad.nn.norms.batch_norm import batch_norm
from minigrad.nn.norms.group_norm import group_norm
from minigrad.nn.norms.layer_norm import layer_norm
from minigrad.nn.norms.rms_norm import rms_norm

__all__ = ["batch_norm", "group_norm", "layer_norm", "rms_norm"]
