"""``linear_cross_entropy``: ``cross_entropy(linear(input, linear_weight, linear_bias),
target, ...)``, PyTorch's reference definition. PyTorch can compute it in chunks (with
``options``) to avoid holding the full logits; minigrad computes the reference path,
which gives the same values and gradients (and holds the logits)."""

from __future__ import annotations

from dataclasses import dataclass

from minigrad.functions.errors import ShapeError
from minigrad.nn.functional.linear import linear
from minigrad.nn.functional.loss import check_reduction, cross_entropy
from minigrad.tensor import Tensor, as_tensor

__all__ = ["LinearCrossEntropyOptions", "linear_cross_entropy"]

_NO_INDEX = -(2**62)  # ignore_index=None: no class index is ignored


@dataclass
class LinearCrossEntropyOptions:
    """PyTorch's configuration of the chunked implementation; accepted, and without
    effect here (see the module docstring)."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None


def linear_cross_entropy(
    input: Tensor,
    linear_weight: Tensor,
    target: Tensor,
    *,
    linear_bias: Tensor | None = None,
    weight: Tensor | None = None,
    reduction: str = "mean",
    ignore_index: int | None = None,
    label_smoothing: float = 0.0,
    options: LinearCrossEntropyOptions | None = None,
) -> Tensor:
    """Cross-entropy of the logits ``input @ linear_weight^T + linear_bias``.

    Shape: ``input`` ``(N, in)`` or ``(in,)``, ``linear_weight`` ``(C, in)``, ``target``
    ``(N,)`` class indices or ``(N, C)`` probabilities; or PyTorch's K-dimensional form,
    ``linear_weight`` ``(C, d_1, ..., d_K, in)`` (and ``linear_bias`` ``(C, d_1, ...,
    d_K)``): the logits ``(N, C, d_1, ..., d_K)`` contract ``input``'s last dim with the
    weight's, for a target ``(N, d_1, ..., d_K)``.
    """
    check_reduction("linear_cross_entropy", reduction)
    w = as_tensor(linear_weight)
    x = as_tensor(input)
    _check(x, w, as_tensor(target), linear_bias, ignore_index)
    if w.ndim == 2:
        logits = linear(x, w, linear_bias)
    else:  # (N, in) @ (in, C d_1 ... d_K) -> (N, C, d_1, ..., d_K)
        if x.ndim < 2:
            raise RuntimeError(
                f"K-dimensional loss defined by linear_weight shape {tuple(w.shape)} requires "
                f"batched input, got input of shape {tuple(x.shape)}"
            )
        bias = None if linear_bias is None else as_tensor(linear_bias).reshape(-1)
        logits = linear(x, w.reshape(-1, w.shape[-1]), bias).reshape(*x.shape[:-1], *w.shape[:-1])
    return cross_entropy(
        logits,
        target,
        weight=weight,
        ignore_index=_NO_INDEX if ignore_index is None else ignore_index,
        reduction=reduction,
        label_smoothing=label_smoothing,
    )


def _check(x: Tensor, w: Tensor, target: Tensor, bias, ignore_index) -> None:
    """PyTorch's checks of the arguments, with its messages (RuntimeError)."""
    if w.ndim == 2 and x.ndim not in (1, 2):
        raise ShapeError(f"expected input with dimensionality 1 or 2, got {x.ndim}")
    if x.shape[-1:] != w.shape[-1:]:
        raise ShapeError(
            "expected equal input and linear_weight last dimensions (in_features), got "
            f"{x.shape[-1] if x.ndim else None} and {w.shape[-1]}, respectively"
        )
    if bias is not None and tuple(as_tensor(bias).shape) != tuple(w.shape[:-1]):
        raise ShapeError(
            f"expected linear_bias shape {tuple(w.shape[:-1])}, got {tuple(as_tensor(bias).shape)}"
        )
    if ignore_index is not None and target.dtype.kind == "f":
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
