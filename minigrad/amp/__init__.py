"""``mg.amp``: mixed precision, as PyTorch spells it.

- ``autocast(device_type, dtype=None, enabled=True)``: on the CPU (bfloat16 by default,
  or float16) the matmul-like operations of PyTorch's CPU autocast list compute in that
  precision, emulated by rounding float32 values (see ``minigrad.amp.autocast_mode``
  for exactly what is rounded and where minigrad's numbers can differ from PyTorch's).
  Another device type warns and does nothing, as PyTorch does without that device.
- ``GradScaler`` behaves as PyTorch's on a machine without CUDA: when enabled it warns
  and disables itself; ``scale(loss)`` returns ``loss``, ``step(optimizer)`` calls
  ``optimizer.step()``, ``update()`` and ``unscale_()`` do nothing, ``get_scale()`` is
  1.0. A training loop written for AMP therefore runs unchanged.
- ``custom_fwd`` / ``custom_bwd``: the decorators for custom ``Function``\\ s.
"""

from minigrad.amp.autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from minigrad.amp.grad_scaler import GradScaler
from minigrad.unsupported import module_getattr

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]

__getattr__ = module_getattr(__name__)  # submodule paths, and unsupported names say why
