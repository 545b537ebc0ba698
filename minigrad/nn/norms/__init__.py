"""The normalization layers' math: one norm, one file (the map of this package and its
three implementations: ``docs/normalization.md``). ``minigrad.gradcheck``'s
``compare_implementations`` checks the three against each other and finite
differences. The fused path calls the Numba kernels in ``minigrad/kernels/``
(imported on first use).
"""

from minigrad.nn.norms.common import norm_impl

__all__ = ["norm_impl"]
