"""``mg.amp``: mixed precision, as PyTorch spells it, honest about doing nothing.

minigrad has no mixed-precision path: every operation computes in the dtype of its
inputs (float32 unless you ask for float64 or float16), and there is no bfloat16 type
(see ``minigrad.dtypes``). So:

- ``autocast(device_type, dtype=None, enabled=True)`` is a context manager and a
  decorator that changes nothing; when enabled it warns once, at construction, that
  the code inside runs in the tensors' own dtypes. With ``device_type="cuda"`` the
  warning is PyTorch's own case: CUDA is not available, autocast is disabled.
- ``GradScaler`` behaves as PyTorch's on a machine without CUDA: when enabled it warns
  and disables itself; ``scale(loss)`` returns ``loss``, ``step(optimizer)`` calls
  ``optimizer.step()``, ``update()`` and ``unscale_()`` do nothing, ``get_scale()`` is
  1.0. A training loop written for AMP therefore runs unchanged, in full precision.
"""

from minigrad.amp.autocast_mode import autocast, is_autocast_available
from minigrad.amp.grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "is_autocast_available"]
