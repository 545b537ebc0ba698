"""Utilities for training modules (``nn.utils.clip_grad_norm_``, ...)."""

from minigrad.nn.utils.clip_grad import *  # noqa: F403
from minigrad.nn.utils.clip_grad import __all__  # noqa: F401
