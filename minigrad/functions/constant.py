"""``constant(array)``: a NumPy array as a Tensor that does not require grad.

Backwards and forwards use it for values they read but never differentiate (a saved
mean, a mask, a cotangent). The array is wrapped, not copied.
"""

from __future__ import annotations

import numpy as np


def constant(array: np.ndarray | None):
    """``array`` wrapped as a Tensor with ``requires_grad=False`` and no ``grad_fn``
    (None stays None). No copy is made."""
    if array is None:
        return None
    # Imported here, not at the top: minigrad.tensor imports the function modules that
    # use this helper, so it is not loaded yet when they are.
    from minigrad.tensor import Tensor

    if type(array) is not np.ndarray:
        array = np.asarray(array)  # a NumPy scalar or a number: a 0-d array
    return Tensor._make(array, False, None)
