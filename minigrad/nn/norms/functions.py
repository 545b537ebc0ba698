"""Autograd Functions that run a norm on a NumPy backend (``reference`` or ``fused``).

Both backends expose the same ``*_forward`` / ``*_backward`` functions on arrays, so one
Function per norm serves both: ``forward`` calls the backend and saves ``x``, the
parameters and the statistics (mean, rstd); ``backward`` has two cases.

- The usual first-order backward (grad mode off inside ``backward``): the backend's
  closed-form backward on arrays (for ``fused``, one kernel call).
- ``create_graph=True`` (grad mode on inside ``backward``): the statistics are
  recomputed from ``x`` with Tensor operations (``composite.*_stats``) and the
  reference backward formula runs on Tensors, so autograd records it and the gradients
  can be differentiated again (``gradgradcheck`` passes for every norm).
"""

from __future__ import annotations

from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import is_grad_enabled
from minigrad.nn.norms import composite, reference
from minigrad.tensor import Tensor

__all__ = ["BatchNormFunction", "GroupNormFunction", "LayerNormFunction", "RMSNormFunction"]


def _data(t):
    return None if t is None else t._data


def _const(array):
    return None if array is None else Tensor._make(array, False, None)


def _keep_needed(ctx, dx, dweight, dbias) -> tuple:
    """The gradients in forward's argument order, None where no gradient was asked for."""
    needs = ctx.needs_input_grad
    return (
        dx if needs[0] else None,
        dweight if needs[1] else None,
        dbias if needs[2] else None,
    )


class LayerNormFunction(Function):
    """``layer_norm(x, weight, bias)`` over the last ``normalized_ndim`` axes."""

    @staticmethod
    def forward(ctx, x, weight, bias, normalized_ndim, eps, backend):
        y, mean, rstd = backend.layer_norm_forward(
            x._data, _data(weight), _data(bias), normalized_ndim, eps
        )
        ctx.save_for_backward(x, weight, _const(mean), _const(rstd))
        ctx.normalized_ndim, ctx.eps, ctx.backend = normalized_ndim, eps, backend
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, mean, rstd = ctx.saved_tensors
        nd = ctx.normalized_ndim
        need_dx = ctx.needs_input_grad[0]
        if is_grad_enabled():
            mean, rstd = composite.layer_norm_stats(x, nd, ctx.eps)
            grads = reference.layer_norm_backward(dy, x, weight, mean, rstd, nd, need_dx)
        else:
            grads = ctx.backend.layer_norm_backward(
                dy._data, x._data, _data(weight), mean._data, rstd._data, nd, need_dx
            )
        return _keep_needed(ctx, *grads) + (None, None, None)


class RMSNormFunction(Function):
    """``rms_norm(x, weight)`` over the last ``normalized_ndim`` axes."""

    @staticmethod
    def forward(ctx, x, weight, normalized_ndim, eps, backend):
        y, _, rstd = backend.rms_norm_forward(x._data, _data(weight), normalized_ndim, eps)
        ctx.save_for_backward(x, weight, _const(rstd))
        ctx.normalized_ndim, ctx.eps, ctx.backend = normalized_ndim, eps, backend
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, rstd = ctx.saved_tensors
        nd = ctx.normalized_ndim
        need_dx = ctx.needs_input_grad[0]
        if is_grad_enabled():
            _, rstd = composite.rms_norm_stats(x, nd, ctx.eps)
            dx, dweight, _ = reference.rms_norm_backward(dy, x, weight, None, rstd, nd, need_dx)
        else:
            dx, dweight, _ = ctx.backend.rms_norm_backward(
                dy._data, x._data, _data(weight), None, rstd._data, nd, need_dx
            )
        needs = ctx.needs_input_grad
        return (dx if needs[0] else None, dweight if needs[1] else None, None, None, None)


class BatchNormFunction(Function):
    """``batch_norm(x, weight, bias)`` per channel. With ``training`` it normalizes with
    the batch statistics and updates the running statistics (if given) in ``forward``
    (see ``reference.update_running_stats``); without, it uses the running statistics."""

    @staticmethod
    def forward(ctx, x, weight, bias, running_mean, running_var, training, momentum, eps, backend):
        y, mean, rstd, var = backend.batch_norm_forward(
            x._data,
            _data(weight),
            _data(bias),
            _data(running_mean),
            _data(running_var),
            training,
            eps,
        )
        if training and running_mean is not None:
            n = x._data.size // x._data.shape[1]
            reference.update_running_stats(
                _data(running_mean), _data(running_var), mean, var, n, momentum
            )
        ctx.save_for_backward(x, weight, _const(mean), _const(rstd))
        ctx.training, ctx.eps, ctx.backend = training, eps, backend
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, mean, rstd = ctx.saved_tensors
        need_dx = ctx.needs_input_grad[0]
        if is_grad_enabled():
            if ctx.training:  # eval statistics are constants: the saved ones will do
                mean, rstd = composite.batch_norm_stats(x, ctx.eps)
            grads = reference.batch_norm_backward(dy, x, weight, mean, rstd, ctx.training, need_dx)
        else:
            grads = ctx.backend.batch_norm_backward(
                dy._data, x._data, _data(weight), mean._data, rstd._data, ctx.training, need_dx
            )
        return _keep_needed(ctx, *grads) + (None,) * 6


class GroupNormFunction(Function):
    """``group_norm(x, weight, bias)`` over each example's groups of channels."""

    @staticmethod
    def forward(ctx, x, weight, bias, num_groups, eps, backend):
        y, mean, rstd = backend.group_norm_forward(
            x._data, _data(weight), _data(bias), num_groups, eps
        )
        ctx.save_for_backward(x, weight, _const(mean), _const(rstd))
        ctx.num_groups, ctx.eps, ctx.backend = num_groups, eps, backend
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, mean, rstd = ctx.saved_tensors
        g = ctx.num_groups
        need_dx = ctx.needs_input_grad[0]
        if is_grad_enabled():
            mean, rstd = composite.group_norm_stats(x, g, ctx.eps)
            grads = reference.group_norm_backward(dy, x, weight, mean, rstd, g, need_dx)
        else:
            grads = ctx.backend.group_norm_backward(
                dy._data, x._data, _data(weight), mean._data, rstd._data, g, need_dx
            )
        return _keep_needed(ctx, *grads) + (None, None, None)
