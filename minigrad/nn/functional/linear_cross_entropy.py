"""``linear_cross_entropy``: ``cross_entropy(linear(input, linear_weight, linear_bias),
target, ...)``, PyTorch's reference definition. PyTorch can compute it in chunks (with
``options``) to avoid holding the full logits; minigrad computes the reference path,
which gives the same values and gradients (and holds the logits)."""

from __future__ import annotations

from dataclasses import dataclass

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
    ``(N,)`` class indices or ``(N, C)`` probabilities. (PyTorch's K-dimensional form,
    a weight ``(C, d_1, ..., d_K, in)``, is not supported: ``NotImplementedError``.)
    """
    check_reduction("linear_cross_entropy", reduction)
    w = as_tensor(linear_weight)
    if w.ndim != 2:
        raise NotImplementedError(
            "linear_cross_entropy: only a 2-D linear_weight (C, in_features) is supported by "
            "minigrad; compute cross_entropy(linear(...)) for the K-dimensional form"
        )
    logits = linear(as_tensor(input), w, linear_bias)
    return cross_entropy(
        logits,
        target,
        weight=weight,
        ignore_index=_NO_INDEX if ignore_index is None else ignore_index,
        reduction=reduction,
        label_smoothing=label_smoothing,
    )
