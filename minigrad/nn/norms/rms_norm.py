"""Root-mean-square normalization, top to bottom: the reference forward and its backward
as named gradient steps (the symbols of the "RMSNorm by hand" page of the docs), the autograd
Function, and the public ``rms_norm``.

    ms = mean(x^2)        rstd = (ms + eps)^-1/2        xhat = x * rstd        y = xhat * weight

No mean is subtracted, so there is nothing to cancel: one pass gives the statistic. The
implementations are those of LayerNorm (see ``layer_norm.py``); the kernels are in
``minigrad/kernels/rms_norm.py``.
"""

from __future__ import annotations

import numpy as np

from minigrad.nn.norms.common import (
    NormFunction,
    affine,
    check_input,
    check_param,
    check_trailing,
    count,
    mean_over,
    narrow,
    normalize,
    rsqrt,
    sum_out,
    sum_over,
    wide,
)
from minigrad.tensor import Tensor

__all__ = ["RMSNormFunction", "rms_norm", "rms_norm_backward", "rms_norm_forward"]


def rms_norm_forward(x, weight, normalized_ndim: int, eps: float):
    """``(y, None, rstd)`` over the last ``normalized_ndim`` axes (there is no mean)."""
    axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
    xw = wide(x)  # float32: the mean of squares in float64 (no overflow near 1e30)
    rstd = narrow(rsqrt(mean_over(xw * xw, axes) + eps), x.dtype)
    return affine(x * rstd, weight, None), None, rstd


def rms_norm_backward(dy, x, weight, mean, rstd, normalized_ndim: int, need_dx: bool = True):
    """``(g_x, g_weight, None)`` for ``rms_norm_forward`` (``mean`` is unused: None).

    The chain::

        xhat = x * rstd           g_rstd = sum(g_xhat * x)
        rstd = (ms + eps)^-1/2    g_ms   = g_rstd * (-1/2) * rstd^3
        ms   = mean(x^2)          g_x    = g_xhat * rstd + g_ms * 2 x / n
    """
    axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
    batch_axes = tuple(range(x.ndim - normalized_ndim))
    g_weight = None if weight is None else sum_out(dy * (x * rstd), batch_axes)
    if not need_dx:
        return None, g_weight, None
    dtype = x.dtype
    g_xhat = dy if weight is None else dy * weight
    g_xhat, x, rstd = wide(g_xhat), wide(x), wide(rstd)  # float32: the chain in float64
    g_rstd = sum_over(g_xhat * x, axes)
    g_ms = g_rstd * (-0.5) * rstd * rstd * rstd  # rstd^3 alone underflows for large x
    g_x = g_xhat * rstd + g_ms * (2.0 / count(x.shape, axes)) * x
    return narrow(g_x, dtype), g_weight, None


class RMSNormFunction(NormFunction):
    """``rms_norm`` on arrays: the reference lines above, or the fused kernels."""

    reference_forward = staticmethod(rms_norm_forward)
    reference_backward = staticmethod(rms_norm_backward)

    @staticmethod
    def kernels():  # imports Numba: on first use
        from minigrad.kernels import rms_norm as kernels

        return kernels.forward, kernels.backward

    has_bias = False


def rms_norm(
    input: Tensor,
    normalized_shape,
    weight: Tensor | None = None,
    eps: float | None = None,
    *,
    impl: str | None = None,
) -> Tensor:
    """Root-mean-square normalization over the trailing ``normalized_shape`` dims.

        y = x / sqrt(mean(x^2) + eps) * weight

    A float16 input is computed in float32 and rounded once, as in PyTorch.

    Args:
        input: ``[*, *normalized_shape]``.
        normalized_shape: an int or a tuple: the trailing dims to normalize over.
        weight: optional, of shape ``normalized_shape`` and the input's dtype.
        eps: added to the mean square; ``None`` means the machine epsilon of the dtype
            the norm computes in (``np.finfo(dtype).eps``; float32's for a float16
            input), as in PyTorch.
        impl: ``"fused"``, ``"reference"`` or ``"composite"`` (a minigrad extension).

    Shape: output = input's shape and dtype.

    Example::

        >>> F.rms_norm(mg.randn(4, 16), 16).shape
        (4, 16)
    """
    x = check_input("rms_norm", input)
    shape = check_trailing("rms_norm", x, normalized_shape)
    weight = check_param("rms_norm", "weight", weight, x, shape)
    if eps is None:  # float32's for a float16 input, which is computed in float32
        eps = np.finfo(np.float32 if x._data.dtype == np.float16 else x._data.dtype).eps
    return normalize(RMSNormFunction, x, weight, None, len(shape), eps, impl)
