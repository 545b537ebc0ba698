"""The normalization layers' math: one norm, one file (the map of this package and its
three implementations: ``docs/normalization.md``); ``compare.py`` checks the three
against each other and finite differences. The fused path calls the Numba kernels in
``minigrad/kernels/`` (imported on first use).
"""

from minigrad.nn.norms.common import norm_impl
from minigrad.nn.norms.compare import NormComparison, compare_implementations

__all__ = ["NormComparison", "compare_implementations", "norm_impl"]
