"""Losses: ``cross_entropy``, ``nll_loss``, ``mse_loss``.

Cross-entropy in one fused ``Function``
---------------------------------------
For logits ``x`` of shape ``(N, C, d1, ...)`` (class dim 1, as in PyTorch), each sample
``i`` (a position ``(n, d1, ...)``) gets a target distribution ``q_i`` over the classes
and the loss ``l_i = -sum_c q_ic log p_ic`` with ``log p = log_softmax(x)`` computed
stably as ``x - logsumexp(x)``. With class-index targets ``t_i``, class weights ``w``
and label smoothing ``eps``:

    q_ic = (1 - eps) w_{t_i} [c = t_i] + (eps / C) w_c        (0 where t_i == ignore_index)

(``w = 1`` when no weight is given). ``reduction='mean'`` divides the sum by
``D = sum_i w_{t_i}`` over the samples that are not ignored (their count without
weights), as PyTorch does; ``'sum'`` adds; ``'none'`` returns ``l``. With probability
targets (floats, shaped like ``x``) ``q_ic = w_c ((1 - eps) t_ic + eps / C)`` and the mean
divides by the number of samples.

Since ``sum_c p_ic = 1``, the gradient is ``dl_i/dx_ic = p_ic Q_i - q_ic`` with
``Q_i = sum_c q_ic``: one pass that recomputes ``p = exp(x - logsumexp)`` and
subtracts ``q`` (a single element per row without smoothing). Only ``x`` and the
small ``logsumexp`` are kept for the backward, not a second ``(N, C)`` array.

When the backward is itself recorded (``create_graph=True``) the same formula is
built from Tensor operations (``softmax(x)`` differentiable), so second derivatives
are exact.
"""

from __future__ import annotations

import warnings

import numpy as np

from minigrad.autograd.function import Function
from minigrad.functions.constant import constant
from minigrad.functions.errors import DtypeError, ShapeError, no_kernel
from minigrad.printing import shape_str, torch_dtype_name
from minigrad.tensor import Tensor, as_tensor

__all__ = ["cross_entropy", "nll_loss", "mse_loss"]

REDUCTIONS = ("mean", "sum", "none")


def check_reduction(
    name: str, reduction: str, size_average=None, reduce=None, allowed: tuple = REDUCTIONS
) -> None:
    """The checks every loss makes of its reduction arguments, before any work.

    ``reduction`` must be one of ``allowed`` (``ValueError`` otherwise). PyTorch's
    deprecated ``size_average`` and ``reduce`` are refused with a ``TypeError`` that
    points at ``reduction=`` (minigrad does not translate them).

    Args:
        name: the loss's name, which starts every message.
    """
    if size_average is not None or reduce is not None:
        raise TypeError(f"{name}: size_average and reduce are deprecated; use reduction=")
    if reduction not in allowed:
        raise ValueError(
            f"{name}: reduction must be one of {', '.join(map(repr, allowed))}, got {reduction!r}"
        )


def reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    """The losses as they are (``'none'``), averaged (``'mean'``) or added (``'sum'``);
    ``reduction`` checked by :func:`check_reduction`."""
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()


def _class_axis_shape(x_shape: tuple, values: np.ndarray) -> np.ndarray:
    """Per-sample values ``(N, d1, ...)`` reshaped to broadcast against ``(N, C, d1, ...)``."""
    return values.reshape(x_shape[:1] + (1,) + x_shape[2:])


def _weight_along_classes(weight: np.ndarray, ndim: int) -> np.ndarray:
    """Class weights ``(C,)`` reshaped to broadcast against ``(N, C, d1, ...)``."""
    return weight.reshape((1, -1) + (1,) * (ndim - 2))


class _IndexTargets:
    """What class-index targets imply for each sample (shared by cross_entropy and nll_loss).

    Attributes:
        valid: bool ``(N, d...)``, False where the target is ``ignore_index``.
        where: index tuple picking ``x[n, t_n, d...]`` for every sample.
        w_t: weight of each sample's target class, 0 where ignored, ``(N, d...)``.
        denom: ``sum(w_t)``, the divisor of ``reduction='mean'``.
    """

    def __init__(self, name: str, x_shape: tuple, target: np.ndarray, weight, ignore_index, dtype):
        num_classes = x_shape[1]
        self.valid = target != ignore_index
        all_valid = bool(self.valid.all())
        safe = target if all_valid else np.where(self.valid, target, 0)
        if safe.size and (safe.min() < 0 or safe.max() >= num_classes):
            bad = safe[(safe < 0) | (safe >= num_classes)][0]
            raise IndexError(
                f"{name}: Target {int(bad)} is out of bounds (input has {num_classes} "
                f"classes; ignore_index is {ignore_index})"
            )
        grids = np.indices(target.shape, sparse=True)
        self.where = (grids[0], safe, *grids[1:])
        if weight is None:
            w_t = self.valid.astype(dtype)
        else:
            w_t = weight[safe] if all_valid else np.where(self.valid, weight[safe], 0)
        self.w_t = w_t.astype(dtype, copy=False)
        self.denom = self.w_t.sum()


def _reduce(loss: np.ndarray, reduction: str, denom) -> np.ndarray:
    if reduction == "none":
        return loss
    total = loss.sum()
    if reduction == "sum":
        return total
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(total / denom, dtype=loss.dtype)  # nan when every target is ignored


def _per_sample_coef(g: Tensor, reduction: str, denom, x_shape: tuple):
    """The upstream gradient of each sample's loss, shaped to broadcast along classes."""
    if reduction == "none":
        return g.reshape(x_shape[:1] + (1,) + x_shape[2:])
    if reduction == "mean":
        # Every target ignored: the loss is 0/0 = nan, but no sample contributed, so
        # the gradient is zero (as in PyTorch).
        coef = g / float(denom) if denom != 0 else g * 0.0
    else:
        coef = g
    return coef.reshape((1,) * len(x_shape))


class CrossEntropy(Function):
    """Fused log_softmax + target weighting + reduction (see the module docstring)."""

    @staticmethod
    def forward(ctx, x, target, weight, ignore_index, reduction, eps):
        xd = x._data
        num_classes = xd.shape[1]
        m = np.max(xd, axis=1, keepdims=True)
        m = np.where(np.isfinite(m), m, 0).astype(xd.dtype, copy=False)
        lse = np.log(np.sum(np.exp(xd - m), axis=1, keepdims=True)) + m  # (N, 1, d...)
        w = None if weight is None else weight.astype(xd.dtype, copy=False)
        ctx.reduction, ctx.eps, ctx.weight = reduction, eps, w
        if target._data.dtype.kind in "iu":
            tg = _IndexTargets("cross_entropy", xd.shape, target._data, w, ignore_index, xd.dtype)
            logp_t = xd[tg.where] - lse[:, 0]  # log p of each target, (N, d...)
            loss = -tg.w_t * logp_t
            if eps > 0:
                logp = xd - lse
                if w is not None:
                    logp = logp * _weight_along_classes(w, xd.ndim)
                smooth = np.where(tg.valid, -logp.sum(axis=1), 0)
                loss = (1 - eps) * loss + (eps / num_classes) * smooth
            ctx.targets = tg
            denom = tg.denom
        else:
            q = _prob_target_q(target._data, w, eps, xd.ndim)
            loss = -(q * (xd - lse)).sum(axis=1)
            ctx.targets = None
            denom = loss.size
        ctx.denom = denom
        ctx.save_for_backward(x, constant(lse), target)
        return _reduce(loss.astype(xd.dtype, copy=False), reduction, denom)

    @staticmethod
    def backward(ctx, g):
        """On Tensors, differentiable in x, g and the target (used under create_graph)."""
        x, _, target = ctx.saved_tensors
        shape = x._data.shape
        coef = _per_sample_coef(g, ctx.reduction, ctx.denom, shape)
        x_needs, t_needs = ctx.needs_input_grad[:2]
        gx = gt = None
        if x_needs:
            q = _dense_q(ctx, target, shape, x._data.dtype)
            gx = coef * (x.softmax(1) * q.sum(1, keepdim=True) - q)
        if t_needs:  # probability targets: dl/dt_ic = -(1 - eps) w_c log p_ic
            logp = x.log_softmax(1)
            if ctx.weight is not None:
                logp = logp * constant(_weight_along_classes(ctx.weight, len(shape)))
            gt = coef * logp * -(1.0 - ctx.eps)
        return gx, gt, None, None, None, None

    @staticmethod
    def backward_array(ctx, g):
        """The same gradients on arrays (the engine's path without create_graph): dx in
        one fresh array, with no dense target distribution for index targets."""
        x, lse, target = ctx.saved_arrays
        coef = _per_sample_coef(g, ctx.reduction, ctx.denom, x.shape)
        x_needs, t_needs = ctx.needs_input_grad[:2]
        gx = _fast_grad_x(ctx, x, lse, coef, target) if x_needs else None
        gt = None
        if t_needs:
            logp = x - lse
            if ctx.weight is not None:
                logp = logp * _weight_along_classes(ctx.weight, x.ndim)
            gt = coef * logp * -(1.0 - ctx.eps)
        return gx, gt, None, None, None, None


def _prob_target_q(t, w, eps: float, ndim: int):
    """q = w_c ((1 - eps) t + eps / C) for probability targets (an array or a Tensor)."""
    num_classes = t.shape[1]
    q = t * (1 - eps) + eps / num_classes if eps > 0 else t
    if w is not None:
        q = q * (
            constant(_weight_along_classes(w, ndim))
            if isinstance(t, Tensor)
            else _weight_along_classes(w, ndim)
        )
    return q


def _dense_q(ctx, target: Tensor, shape: tuple, dtype) -> Tensor:
    """The full target distribution q as a Tensor shaped like x (differentiable backward)."""
    if ctx.targets is None:
        return _prob_target_q(target, ctx.weight, ctx.eps, len(shape))
    tg = ctx.targets
    q = np.zeros(shape, dtype=dtype)
    q[tg.where] = (1 - ctx.eps) * tg.w_t
    if ctx.eps > 0:
        w = ctx.weight if ctx.weight is not None else np.ones(shape[1], dtype=dtype)
        q += (
            (ctx.eps / shape[1])
            * _weight_along_classes(w, len(shape))
            * _class_axis_shape(shape, tg.valid.astype(dtype))
        )
    return constant(q)


def _fast_grad_x(ctx, x, lse, coef, target) -> np.ndarray:
    """coef * (p Q - q) in place in one fresh array (no dense q for index targets)."""
    num_classes = x.shape[1]
    grad = np.exp(x - lse)  # p
    tg = ctx.targets
    eps = ctx.eps
    if tg is None:
        q = _prob_target_q(target, ctx.weight, eps, x.ndim)
        grad *= q.sum(axis=1, keepdims=True)
        grad -= q
        grad *= coef
        return grad
    w_sum = ctx.weight.sum() if ctx.weight is not None else num_classes
    big_q = (1 - eps) * tg.w_t + (eps / num_classes) * w_sum * tg.valid  # (N, d...)
    grad *= _class_axis_shape(x.shape, big_q.astype(x.dtype))
    if eps > 0:
        w = ctx.weight if ctx.weight is not None else np.ones(num_classes, dtype=x.dtype)
        grad -= (
            (eps / num_classes)
            * _weight_along_classes(w, x.ndim)
            * _class_axis_shape(x.shape, tg.valid.astype(x.dtype))
        )
    grad[tg.where] -= (1 - eps) * tg.w_t
    grad *= coef
    return grad


def _unbatched(x: Tensor, target: Tensor, name: str):
    """(C,) input with a 0-d class index or (C,) probabilities -> a batch of one."""
    if target._data.dtype.kind == "f":
        return x.reshape(1, -1), target.reshape(1, -1)
    if target._data.ndim != 0:
        raise ValueError(
            f"{name}: for an input of shape {shape_str(x._data.shape)} (one sample), "
            f"the target must be a single class index, got shape {shape_str(target._data.shape)}"
        )
    return x.reshape(1, -1), target.reshape(1)


def _check_index_target(name: str, x: Tensor, target: Tensor) -> None:
    expected = x._data.shape[:1] + x._data.shape[2:]
    if target._data.shape != expected:
        raise ShapeError(
            f"{name}: expected target of shape {shape_str(expected)} (the input's shape "
            f"{shape_str(x._data.shape)} without the class dim 1), got "
            f"{shape_str(target._data.shape)}"
        )


def _weight_array(name: str, weight, x: Tensor):
    """The class weights' array: one per class, in the input's dtype (a weight tensor of
    another float dtype is PyTorch's RuntimeError, as a weight of the wrong size is)."""
    if weight is None:
        return None
    num_classes = x._data.shape[1]
    w = weight._data if isinstance(weight, Tensor) else np.asarray(weight)
    if w.shape != (num_classes,):
        raise ShapeError(
            f"{name}: weight tensor should be defined either for all {num_classes} classes or "
            f"no classes but got weight tensor of shape: {shape_str(w.shape)}"
        )
    if isinstance(weight, Tensor) and w.dtype != x._data.dtype:
        raise RuntimeError(
            f"expected scalar type {torch_dtype_name(x._data.dtype)} but found "
            f"{torch_dtype_name(w.dtype)}"
        )
    return w


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross-entropy between logits and targets: ``-sum_c q_c log_softmax(x)_c``.

    Args:
        input: logits ``(N, C)``, ``(N, C, d1, ...)`` or ``(C,)``.
        target: class indices ``(N)`` / ``(N, d1, ...)`` / ``()`` (int), or class
            probabilities shaped like ``input`` (float).
        weight: optional per-class weights ``(C,)`` (a constant, not differentiated).
        ignore_index: class-index targets equal to this contribute nothing (and are
            left out of the mean's divisor).
        reduction: ``'mean'`` (weighted mean over non-ignored samples), ``'sum'`` or
            ``'none'`` (per-sample losses, shaped like the class-index target).
        label_smoothing: ``eps`` in [0, 1]: the target becomes
            ``(1 - eps) onehot + eps / C``.

    ``size_average`` and ``reduce`` are PyTorch's deprecated arguments; they are
    refused with an error pointing at ``reduction``.

    Example::

        >>> logits = mg.tensor([[2.0, 0.5, -1.0]])
        >>> F.cross_entropy(logits, mg.tensor([0])).item()   # -log softmax(logits)[0, 0]
        0.2413...
    """
    check_reduction("cross_entropy", reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ShapeError(  # RuntimeError, as PyTorch's (and a ValueError)
            f"cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
        )
    x, target = as_tensor(input), as_tensor(target)
    if x._data.dtype.kind != "f":
        raise DtypeError(f"cross_entropy: expected floating-point logits, got {x._data.dtype}")
    if x._data.ndim == 0:
        raise ValueError("cross_entropy: the input needs a class dimension, got a 0-d tensor")
    unbatched = x._data.ndim == 1
    if unbatched:
        x, target = _unbatched(x, target, "cross_entropy")
    w = _weight_array("cross_entropy", weight, x)
    if target._data.dtype.kind == "f":
        if target._data.shape != x._data.shape:
            raise ShapeError(
                f"cross_entropy: expected target dtype to be Long or Byte, but got "
                f"{torch_dtype_name(target._data.dtype)} (probability targets must have the "
                f"input's shape {shape_str(x._data.shape)}, got {shape_str(target._data.shape)})"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        target = target.to(x._data.dtype)
    elif target._data.dtype.kind in "iu":
        if target._data.shape == x._data.shape:
            raise ShapeError(
                "cross_entropy: Expected floating point type for target with class "
                f"probabilities, got {torch_dtype_name(target._data.dtype)}"
            )
        _check_index_target("cross_entropy", x, target)
    else:
        raise TypeError(
            f"cross_entropy: target must hold class indices (int) or probabilities (float), "
            f"got dtype {target._data.dtype}"
        )
    out = CrossEntropy.apply(x, target, w, ignore_index, reduction, float(label_smoothing))
    if unbatched and reduction == "none":
        out = out.reshape(())
    return out


class NllLoss(Function):
    """l_i = -w_{t_i} x[i, t_i] (x holds log-probabilities); dl_i/dx_ic = -w_{t_i} [c = t_i]."""

    @staticmethod
    def forward(ctx, x, target, weight, ignore_index, reduction):
        xd = x._data
        w = None if weight is None else weight.astype(xd.dtype, copy=False)
        tg = _IndexTargets("nll_loss", xd.shape, target, w, ignore_index, xd.dtype)
        ctx.targets, ctx.reduction, ctx.shape = tg, reduction, xd.shape
        loss = (-tg.w_t * xd[tg.where]).astype(xd.dtype, copy=False)
        return _reduce(loss, reduction, tg.denom)

    @staticmethod
    def backward(ctx, g):
        tg, shape = ctx.targets, ctx.shape
        coef = _per_sample_coef(g, ctx.reduction, tg.denom, shape)
        picked = np.zeros(shape, dtype=g._data.dtype)
        picked[tg.where] = -tg.w_t
        return coef * constant(picked), None, None, None, None


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood of class-index targets given log-probabilities.

    ``l_i = -w_{t_i} input[i, t_i]``; ``'mean'`` divides by the summed weights of the
    non-ignored targets. ``cross_entropy(x, t)`` equals ``nll_loss(log_softmax(x, 1), t)``.

    Shape: input ``(N, C)`` / ``(N, C, d1, ...)`` / ``(C,)``; target ``(N)`` /
    ``(N, d1, ...)`` / ``()``.
    """
    check_reduction("nll_loss", reduction, size_average, reduce)
    x, target = as_tensor(input), as_tensor(target)
    if x._data.dtype.kind != "f":
        raise DtypeError(f"nll_loss: expected floating-point log-probabilities, got {x.dtype}")
    if x._data.ndim == 0:
        raise ValueError("nll_loss: the input needs a class dimension, got a 0-d tensor")
    if target._data.dtype.kind not in "iu":
        raise TypeError(f"nll_loss: target must hold class indices (int), got {target._data.dtype}")
    unbatched = x._data.ndim == 1
    if unbatched:
        x, target = _unbatched(x, target, "nll_loss")
    _check_index_target("nll_loss", x, target)
    w = _weight_array("nll_loss", weight, x)
    out = NllLoss.apply(x, target._data, w, ignore_index, reduction)
    if unbatched and reduction == "none":
        out = out.reshape(())
    return out


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """Mean squared error ``(input - target)^2``, averaged (``'mean'``), summed or per element.

    Both arguments get gradients. Shapes should match; if they only broadcast, the
    result is computed on the broadcast shape with a warning (as PyTorch does), since a
    ``(N, 1)`` prediction against a ``(N,)`` target is usually a bug.
    """
    check_reduction("mse_loss", reduction, size_average, reduce)
    x, t = as_tensor(input), as_tensor(target)
    if x._data.dtype.kind != "f" and t._data.dtype.kind != "f":  # (one float: promoted)
        raise no_kernel("mse", x._data.dtype)
    if x._data.shape != t._data.shape:
        try:
            shape = np.broadcast_shapes(x._data.shape, t._data.shape)
        except ValueError:
            raise ValueError(
                f"mse_loss: input {shape_str(x._data.shape)} and target "
                f"{shape_str(t._data.shape)} have incompatible shapes"
            ) from None
        warnings.warn(
            f"mse_loss: target size {shape_str(t._data.shape)} differs from input size "
            f"{shape_str(x._data.shape)}; both are broadcast to {shape_str(shape)}, which is "
            "likely not what you want",
            UserWarning,
            stacklevel=2,
        )
    diff = x - t
    return reduce_loss(diff * diff, reduction)
