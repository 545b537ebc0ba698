"""``linear``: y = x W^T + b, the affine map of ``nn.Linear``.

One ``Function`` with one matrix product each way. The input's leading dimensions are
folded into one (a view when the input is contiguous), so the product is a single
BLAS call; ``W^T`` is a transposed view (no copy), and the bias is added in place
into the fresh output.

Backward, with ``x2`` the input as ``(N, in)`` and ``g2`` the output gradient as
``(N, out)``:
    dx = g2 @ W            (N, in)
    dW = g2^T @ x2         (out, in)
    db = sum_n g2[n]       (out,)
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.amp.autocast_mode import lower_precision
from minigrad.autograd.function import Function
from minigrad.functions.errors import DtypeError, DtypeMismatchError, ShapeError, no_kernel
from minigrad.kernels.reduction import sum_leading
from minigrad.ops import einsum
from minigrad.printing import shape_str, torch_dtype_name
from minigrad.tensor import Tensor, as_tensor
from minigrad.unsupported import refused

__all__ = ["linear", "bilinear", "embedding", "one_hot"]


def _rows(shape: tuple) -> int:
    """N: the product of the leading dims (spelled out: ``reshape(-1, 0)`` is ambiguous)."""
    return math.prod(shape[:-1])


class Linear(Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        in_features = weight._data.shape[1]
        x2 = x._data.reshape(_rows(x._data.shape), in_features)  # (N, in)
        y = x2 @ weight._data.T  # (N, out)
        if bias is not None:
            y += bias._data
        ctx.save_for_backward(x, weight)
        return y.reshape(x._data.shape[:-1] + (weight._data.shape[0],))

    @staticmethod
    def backward(ctx, g):
        x, weight = ctx.saved_tensors
        x_needs, w_needs, b_needs = ctx.needs_input_grad
        out_features, in_features = weight._data.shape
        rows = _rows(x._data.shape)
        g2 = g.reshape(rows, out_features)  # (N, out)
        gx = gw = gb = None
        if x_needs:
            gx = (g2 @ weight).reshape(x._data.shape)  # (N, in) -> x's shape
        if w_needs:
            gw = g2.mT @ x.reshape(rows, in_features)  # (out, in)
        if b_needs:
            gb = g2.sum(0)  # (out,)
        return gx, gw, gb

    @staticmethod
    def backward_array(ctx, g):
        """The same three lines on arrays (the engine's path without ``create_graph``)."""
        x, weight = ctx.saved_arrays
        x_needs, w_needs, b_needs = ctx.needs_input_grad
        out_features, in_features = weight.shape
        rows = _rows(x.shape)
        g2 = g.reshape(rows, out_features)  # (N, out)
        gx = (g2 @ weight).reshape(x.shape) if x_needs else None  # (N, in)
        gw = g2.T @ x.reshape(rows, in_features) if w_needs else None  # (out, in)
        gb = sum_leading(g2, 1) if b_needs else None  # (out,), a BLAS product too
        return gx, gw, gb


@lower_precision  # bfloat16 under mg.autocast (minigrad/amp/autocast_mode.py)
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Affine map ``y = x W^T + b``.

    Args:
        input: ``(*, in_features)``.
        weight: ``(out_features, in_features)``.
        bias: ``(out_features,)`` or ``None``.

    Shape:
        output: ``(*, out_features)``.

    Example::

        >>> F.linear(mg.ones(2, 3), mg.ones(4, 3), mg.zeros(4)).shape
        (2, 4)
    """
    x = as_tensor(input)
    if weight._data.ndim != 2:
        raise ValueError(
            f"linear: weight must be 2-D (out_features, in_features), got shape "
            f"{shape_str(weight._data.shape)}"
        )
    out_features, in_features = weight._data.shape
    if x._data.ndim == 0 or x._data.shape[-1] != in_features:
        raise ValueError(
            f"linear: expected input with last dimension {in_features} (weight shape "
            f"{shape_str(weight._data.shape)}), got input of shape {shape_str(x._data.shape)}"
        )
    if bias is not None and bias._data.shape != (out_features,):
        raise ValueError(
            f"linear: bias must have shape [{out_features}], got {shape_str(bias._data.shape)}"
        )
    if x._data.dtype != weight._data.dtype or (
        bias is not None and bias._data.dtype != x._data.dtype
    ):
        bias_dtype = "" if bias is None else f", bias {bias._data.dtype}"
        raise DtypeMismatchError(  # PyTorch's RuntimeError (and minigrad's old TypeError)
            f"linear: input and weights must have the same dtype, got input {x._data.dtype}, "
            f"weight {weight._data.dtype}{bias_dtype} (convert the model with .double() / "
            ".float(), or the input with .to(dtype))"
        )
    if x._data.dtype == np.bool_:
        raise no_kernel("addmm_impl_cpu_", x._data.dtype)
    return Linear.apply(x, weight, bias)


# ------------------------------------------------------------------ lookups
# An embedding is a linear map applied to one-hot vectors: embedding(i, W) equals
# one_hot(i) @ W, computed as a row lookup instead of a product.
class Embedding(Function):
    """out[..., :] = weight[idx[...], :]; the backward scatter-adds the gradient rows
    (each scaled by ``scale[...]``, when given: ``scale_grad_by_freq``)."""

    @staticmethod
    def forward(ctx, weight, idx, padding_idx, scale=None):
        ctx.idx, ctx.num_rows, ctx.padding_idx = idx, weight._data.shape[0], padding_idx
        ctx.scale = scale
        return np.take(weight._data, idx, axis=0)  # idx's shape + (dim,)

    @staticmethod
    def backward(ctx, g):
        grad = EmbeddingBackward.apply(g, ctx.idx, ctx.num_rows, ctx.padding_idx, ctx.scale)
        return grad, None, None, None


class EmbeddingBackward(Function):
    """dW = zeros(V, D) with each gradient row (times ``scale`` at its place, if given)
    added at its index (repeats accumulate); the ``padding_idx`` row stays zero. Linear
    in ``g``: its own backward is a lookup."""

    @staticmethod
    def forward(ctx, g, idx, num_rows, padding_idx, scale=None):
        from minigrad.kernels.embedding import scatter_add_rows  # lazy: numba

        ctx.idx, ctx.padding_idx, ctx.scale = idx, padding_idx, scale
        dim = g._data.shape[-1]
        dtype = g._data.dtype
        work = dtype if dtype in (np.float32, np.float64) else np.dtype(np.float32)
        out = np.zeros((num_rows, dim), dtype=work)
        flat_idx = np.ascontiguousarray(idx, dtype=np.int64).reshape(-1)
        rows = np.ascontiguousarray(g._data, dtype=work).reshape(-1, dim)
        if scale is not None:
            rows = rows * scale.reshape(-1, 1).astype(work)
        scatter_add_rows(flat_idx, rows, out)
        if padding_idx is not None:
            out[padding_idx] = 0
        return out.astype(dtype, copy=False)

    @staticmethod
    def backward(ctx, gg):
        picked = Embedding.apply(gg, ctx.idx, None)
        keep = np.ones(ctx.idx.shape + (1,), dtype=gg._data.dtype)
        if ctx.padding_idx is not None:
            keep = keep * (ctx.idx != ctx.padding_idx)[..., None]
        if ctx.scale is not None:
            keep = keep * ctx.scale[..., None]
        if ctx.padding_idx is not None or ctx.scale is not None:
            picked = picked * Tensor._make(keep.astype(gg._data.dtype), False, None)
        return picked, None, None, None, None


def renorm_rows_(weight: Tensor, idx: np.ndarray, max_norm: float, norm_type: float) -> None:
    """PyTorch's ``embedding_renorm_``: every row the lookup reads whose ``norm_type``
    norm exceeds ``max_norm`` is scaled, in place and outside the graph, by
    ``max_norm / (norm + 1e-7)``."""
    if weight._data.dtype.kind != "f":
        raise DtypeError(
            "norm(): input dtype should be either floating point or complex. Got "
            f"{torch_dtype_name(weight._data.dtype)} instead."
        )
    rows = np.unique(np.asarray(idx).reshape(-1))
    w = weight._data
    norms = np.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1)
    big = norms > max_norm
    if big.any():
        w[rows[big]] *= (max_norm / (norms[big] + 1e-7))[:, None].astype(w.dtype)
        weight._bump_version()


def grad_scale_by_freq(idx: np.ndarray, num_rows: int) -> np.ndarray:
    """``scale_grad_by_freq``: 1 / (how often each index occurs in the batch), at each
    place of ``idx``."""
    flat = np.asarray(idx, dtype=np.int64).reshape(-1)
    counts = np.bincount(flat, minlength=num_rows)
    return (1.0 / counts[flat]).reshape(np.shape(idx))


def _index_array(name: str, input) -> np.ndarray:
    idx = input._data if isinstance(input, Tensor) else np.asarray(input)
    if idx.dtype.kind not in "iu":  # DtypeError: PyTorch's RuntimeError, and a TypeError
        raise DtypeError(
            f"{name}: Expected tensor for argument #1 'indices' to have one of the following "
            f"scalar types: Long, Int; but got {idx.dtype} instead (indices must be an "
            "integer tensor)"
        )
    return idx


def embedding(
    input,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Look up rows of ``weight``: ``out[...] = weight[input[...]]``.

    Args:
        input: integer indices, any shape, each in ``[0, num_embeddings)``.
        weight: ``(num_embeddings, embedding_dim)``.
        padding_idx: a row whose gradient is always zero (negative counts from the end).
        max_norm: rows the lookup reads whose ``norm_type``-norm is above it are first
            scaled down to it, in ``weight`` itself (as PyTorch does).
        scale_grad_by_freq: divide each row's gradient by how often its index occurs.

    Shape:
        output: ``input.shape + (embedding_dim,)``.

    Example::

        >>> F.embedding(mg.tensor([[0, 2]]), mg.randn(5, 3)).shape
        (1, 2, 3)
    """
    if sparse:
        raise refused("embedding(sparse=True), a sparse gradient,", "sparse")
    idx = _index_array("embedding", input)
    if weight._data.ndim != 2:
        raise ShapeError(
            f"embedding: weight must be 2-D (num_embeddings, embedding_dim), got shape "
            f"{shape_str(weight._data.shape)}"
        )
    num_rows = weight._data.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= num_rows):
        bad = idx.min() if idx.min() < 0 else idx.max()
        raise IndexError(
            f"embedding: index {int(bad)} is out of range for a weight with {num_rows} rows "
            f"(valid indices are 0 to {num_rows - 1})"
        )
    if padding_idx is not None:
        if not -num_rows <= padding_idx < num_rows:
            raise ValueError(
                f"embedding: padding_idx {padding_idx} must be within num_embeddings ({num_rows})"
            )
        padding_idx = padding_idx % num_rows
    if max_norm is not None:
        renorm_rows_(weight, idx, max_norm, norm_type)
    scale = grad_scale_by_freq(idx, num_rows) if scale_grad_by_freq else None
    return Embedding.apply(weight, idx, padding_idx, scale)


def one_hot(tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding: ``out[..., c] = 1 if tensor[...] == c``.

    Args:
        tensor: integer class indices, any shape, non-negative.
        num_classes: number of classes; -1 means ``max(tensor) + 1``.

    Shape:
        output: ``tensor.shape + (num_classes,)``.
    """
    idx = _index_array("one_hot", tensor)
    if idx.size and idx.min() < 0:
        raise ValueError(f"one_hot: class values must be non-negative, got {int(idx.min())}")
    if num_classes == -1:
        num_classes = int(idx.max()) + 1 if idx.size else 0
    elif idx.size and idx.max() >= num_classes:
        raise ValueError(
            f"one_hot: class value {int(idx.max())} is out of range for num_classes={num_classes}"
        )
    out = np.zeros(idx.shape + (num_classes,), dtype=np.int64)
    np.put_along_axis(out, idx[..., None].astype(np.int64), 1, axis=-1)
    return Tensor._make(out, False, None)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y_o = sum_ij x1_i W_oij x2_j + b_o`` over the last dimensions.

    Shape: ``(*, in1)`` and ``(*, in2)`` with weight ``(out, in1, in2)`` -> ``(*, out)``.
    """
    x1, x2, w = as_tensor(input1), as_tensor(input2), as_tensor(weight)
    if w.ndim != 3 or x1.shape[-1:] != w.shape[1:2] or x2.shape[-1:] != w.shape[2:]:
        raise RuntimeError(
            f"bilinear: input1 {shape_str(x1.shape)}, input2 {shape_str(x2.shape)} and weight "
            f"{shape_str(w.shape)} do not fit (weight must be (out, in1, in2))"
        )
    y = einsum("...i,oij,...j->...o", x1, w, x2)
    return y if bias is None else y + bias
