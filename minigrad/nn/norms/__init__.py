"""Three implementations of every normalization layer, which must agree.

- ``reference.py``: NumPy forward and closed-form backward, written to be read beside
  ``docs/normalization.md`` (same symbols, one named gradient per step).
- ``composite.py``: the forward from minigrad primitives; autograd derives the backward.
- ``fused.py``: wrappers around the Numba kernels in ``minigrad/kernels/`` (the default).

``functions.py`` holds the autograd Functions that run the reference or the fused
backend; ``dispatch.py`` chooses between the three (``nn.norm_impl``); ``compare.py``
checks the three against each other and against finite differences, for learners.
The public entry points are ``nn.functional`` (``F.layer_norm``, ...) and the modules in
``nn`` (``nn.LayerNorm``, ...).
"""

from minigrad.nn.norms.compare import NormComparison, compare_implementations
from minigrad.nn.norms.dispatch import norm_impl

__all__ = ["NormComparison", "compare_implementations", "norm_impl"]
