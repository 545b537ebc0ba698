"""The normalization layers' math: one norm, one file.

- ``layer_norm.py``, ``rms_norm.py``, ``batch_norm.py``, ``group_norm.py``: each, top to
  bottom, the reference forward and its backward as named gradient steps, the autograd
  Function, and the public function (``F.layer_norm`` is ``layer_norm.layer_norm``);
- ``common.py``: the statistics every norm shares (for arrays and Tensors alike), the
  argument checks and the choice of implementation (``nn.norm_impl``);
- ``reference.py``: the reference functions gathered in one namespace, for reading;
- ``compare.py``: the three implementations against each other and finite differences.

The fused path calls the Numba kernels in ``minigrad/kernels/`` (imported on first use).
"""

from minigrad.nn.norms.common import norm_impl
from minigrad.nn.norms.compare import NormComparison, compare_implementations

__all__ = ["NormComparison", "compare_implementations", "norm_impl"]
