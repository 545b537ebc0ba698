"""Layer normalization, top to bottom: the reference forward and its backward as named
gradient steps (the symbols of the "LayerNorm by hand" page of the docs), the autograd Function,
and the public ``layer_norm``.

    mean = mean(x)        xmu = x - mean        var = mean(xmu^2)      (over the last dims)
    rstd = (var + eps)^-1/2        xhat = xmu * rstd        y = xhat * weight + bias

The three implementations (``impl=``, ``docs/normalization.md``) run the same lines:
``"reference"`` and ``"composite"`` run them on arrays and on Tensors; ``"fused"`` runs
the Numba kernels of ``minigrad/kernels/layer_norm.py`` (same signatures).
"""

from __future__ import annotations

from minigrad.nn.norms.common import (
    NormFunction,
    affine,
    check_input,
    check_param,
    check_trailing,
    normalize,
    standardize,
    standardize_backward,
    sum_out,
)
from minigrad.tensor import Tensor

__all__ = ["LayerNormFunction", "layer_norm", "layer_norm_backward", "layer_norm_forward"]


def layer_norm_forward(x, weight, bias, normalized_ndim: int, eps: float):
    """``(y, mean, rstd)``, over the last ``normalized_ndim`` axes (arrays or Tensors)."""
    axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
    mean, xmu, _, rstd = standardize(x, axes, eps)
    xhat = xmu * rstd
    return affine(xhat, weight, bias), mean, rstd


def layer_norm_backward(dy, x, weight, mean, rstd, normalized_ndim: int, need_dx: bool = True):
    """``(g_x, g_weight, g_bias)`` for ``layer_norm_forward`` (g_weight is None without a
    weight; g_x is None unless ``need_dx``)."""
    axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
    batch_axes = tuple(range(x.ndim - normalized_ndim))
    xmu = x - mean
    xhat = xmu * rstd
    g_weight = None if weight is None else sum_out(dy * xhat, batch_axes)  # y = xhat * weight
    g_bias = sum_out(dy, batch_axes)  #                                   + bias
    g_xhat = dy if weight is None else dy * weight
    g_x = standardize_backward(g_xhat, xmu, rstd, axes) if need_dx else None
    return g_x, g_weight, g_bias


class LayerNormFunction(NormFunction):
    """``layer_norm`` on arrays: the reference lines above, or the fused kernels."""

    reference_forward = staticmethod(layer_norm_forward)
    reference_backward = staticmethod(layer_norm_backward)

    @staticmethod
    def kernels():  # imports Numba: on first use
        from minigrad.kernels import layer_norm as kernels

        return kernels.forward, kernels.backward


def layer_norm(
    input: Tensor,
    normalized_shape,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    *,
    impl: str | None = None,
) -> Tensor:
    """Layer normalization over the trailing ``normalized_shape`` dims of each example.

        y = (x - mean) / sqrt(var + eps) * weight + bias

    with the mean and the biased variance (divide by n) over the trailing dims. A
    float16 input is computed in float32 and rounded once (as PyTorch's CPU kernels do);
    its weight and bias may be float16 or float32.

    Args:
        input: ``[*, *normalized_shape]``.
        normalized_shape: an int or a tuple: the trailing dims to normalize over.
        weight, bias: optional, of shape ``normalized_shape`` and the input's dtype.
        eps: added to the variance.
        impl: ``"fused"``, ``"reference"`` or ``"composite"`` (a minigrad extension);
            default: the current ``nn.norm_impl`` (``"fused"``).

    Shape: output = input's shape and dtype.

    Example::

        >>> x = mg.randn(2, 3, 8)
        >>> F.layer_norm(x, (8,)).shape
        (2, 3, 8)
    """
    x = check_input("layer_norm", input)
    shape = check_trailing("layer_norm", x, normalized_shape)
    weight = check_param("layer_norm", "weight", weight, x, shape)
    bias = check_param("layer_norm", "bias", bias, x, shape)
    return normalize(LayerNormFunction, x, weight, bias, len(shape), eps, impl)
