"""The rest of PyTorch's activations, each written as a composition of Tensor operations
(``where``, ``exp``, ``log``, ``tanh`` ...), so that autograd differentiates them and the
formula reads as it does in PyTorch's documentation.

Two habits keep the gradients right:

- a branch that ``where`` discards still gets differentiated, so an ``exp`` that would
  overflow there is fed a masked input (``_nonpositive(x)``: ``x`` where ``x <= 0``, else
  0), never the raw one (``0 * inf`` would be ``nan``);
- a value held at a bound (hardtanh outside ``[min_val, max_val]``) is taken from the
  detached input, so its gradient is 0 there, as in PyTorch, and 1 strictly inside.

``inplace=True`` writes the result into ``input`` and returns it when no gradient is
being recorded for it; when one is, the result is returned as a new tensor (the graph
stays correct; ``input`` keeps its values).
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.grad_mode import is_grad_enabled
from minigrad.functions import signatures
from minigrad.functions.errors import DtypeError, no_kernel
from minigrad.tensor import Tensor, as_tensor

__all__ = [
    "celu",
    "celu_",
    "elu",
    "elu_",
    "glu",
    "gumbel_softmax",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "leaky_relu_",
    "logsigmoid",
    "mish",
    "prelu",
    "relu6",
    "relu_",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanhshrink",
    "threshold",
    "threshold_",
]

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _float(name: str, x) -> Tensor:
    """``x`` as a tensor; an integer or bool one is refused as PyTorch refuses it (its
    kernels exist for floating dtypes only)."""
    x = as_tensor(x)
    if x.dtype.kind != "f":
        raise DtypeError(f"{name}: not implemented for dtype {x.dtype} (a floating-point "
                         "input is expected; convert with .float())")  # fmt: skip
    return x


def _nonpositive(x: Tensor) -> Tensor:
    """``x`` where ``x <= 0``, 0 elsewhere (gradient: the mask)."""
    return x * (x <= 0).to(x.dtype)


def _result(input: Tensor, out: Tensor, inplace: bool) -> Tensor:
    if inplace and not (is_grad_enabled() and (input.requires_grad or out.requires_grad)):
        input._data[...] = out._data
        return input
    return out


def _where(cond: Tensor, a: Tensor, b) -> Tensor:
    from minigrad.ops import where

    return where(cond, a, b)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` for x > 0, ``alpha (exp(x) - 1)`` otherwise."""
    x = _float("elu", input)
    return _result(x, _where(x > 0, x, alpha * (_nonpositive(x).exp() - 1)), inplace)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with PyTorch's constants (alpha 1.6733, scale 1.0507)."""
    x = _float("selu", input)
    return _result(x, SELU_SCALE * elu(x, SELU_ALPHA), inplace)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))``."""
    if alpha == 0:
        raise ValueError("ZeroDivisionError in celu: alpha cannot be 0")
    x = _float("celu", input)
    return _result(x, _where(x > 0, x, alpha * ((_nonpositive(x) / alpha).exp() - 1)), inplace)


def hardtanh(
    input: Tensor,
    min_val: float = -1.0,
    max_val: float = 1.0,
    inplace: bool = False,
) -> Tensor:
    """``x`` clamped to ``[min_val, max_val]``; gradient 1 strictly inside, 0 elsewhere.
    An integer input stays integer, as in PyTorch."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    x = as_tensor(input)
    if x.dtype == np.bool_:
        raise DtypeError("Bool inputs not supported for hardtanh")
    if x.dtype.kind != "f":
        return _result(x, x.clamp(min_val, max_val).to(x.dtype), inplace)
    inside = (x > min_val) & (x < max_val)
    return _result(x, _where(inside, x, x.detach().clamp(min_val, max_val)), inplace)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(0, x), 6)``."""
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6``: 0 below -3, 1 above 3, linear between."""
    x = _float("hardsigmoid", input)
    return _result(x, hardtanh(x + 3, 0.0, 6.0) / 6, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * relu6(x + 3) / 6``. Gradient ``(2x + 3) / 6`` on ``[-3, 3]`` (both ends
    included, as PyTorch), 0 below, 1 above."""
    x = _float("hardswish", input)
    middle = x * (x + 3) / 6
    out = _where(x < -3, x * 0, _where(x <= 3, middle, x))
    return _result(x, out, inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta x)) / beta``, and ``x`` itself where ``beta x > threshold``."""
    x = _float("softplus", input)
    bx = x * beta
    linear = bx > threshold
    safe = bx * (~linear).to(x.dtype)  # exp never sees the large values
    return _where(linear, x, (safe.exp() + 1).log() / beta)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``."""
    x = _float("mish", input)
    return _result(x, x * softplus(x).tanh(), inplace)


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)`` (an integer input gives floats)."""
    x = as_tensor(input)
    return x / (x.abs() + 1)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above lambd, ``x + lambd`` below -lambd, 0 between."""
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    x = _float("softshrink", input)
    return _where(x > lambd, x - lambd, _where(x < -lambd, x + lambd, x * 0))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > lambd``, 0 elsewhere."""
    x = _float("hardshrink", input)
    return _where((x > lambd) | (x < -lambd), x, x * 0)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)`` (an integer input gives floats)."""
    x = as_tensor(input)
    return x - x.tanh()


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x)) = -softplus(-x)``, without overflow for large ``|x|``."""
    x = _float("logsigmoid", input)
    return -softplus(-x)


def threshold(
    input: Tensor,
    threshold: float,
    value: float,
    inplace: bool = False,
) -> Tensor:
    """``x`` where ``x > threshold``, ``value`` elsewhere (an integer input stays integer)."""
    x = as_tensor(input)
    if x.dtype == np.bool_:
        raise no_kernel("threshold", x.dtype)
    if x.dtype.kind != "f":
        return _result(x, _where(x > threshold, x, x * 0 + value).to(x.dtype), inplace)
    return _result(x, _where(x > threshold, x, x * 0 + value), inplace)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: ``a * sigmoid(b)`` with ``a, b`` the halves of ``input`` along
    ``dim``. Shape: ``(*, 2n, *) -> (*, n, *)``."""
    x = _float("glu", input)
    if x.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if x.shape[dim] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {dim % x.ndim} is size {x.shape[dim]}"
        )
    a, b = x.chunk(2, dim)
    return a * b.sigmoid()


def softmin(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:
    """``softmax(-x, dim)`` (computed in ``dtype`` if given), in PyTorch's order: the
    negation first (so a bool input is refused), then the softmax in ``dtype``."""
    x = as_tensor(input)
    if dim is None:
        dim = 0 if x.ndim in (0, 1, 3) else 1  # PyTorch's legacy implicit choice
    return (-x).softmax(dim, dtype=dtype)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` for x > 0, ``a x`` otherwise, with learnable slopes ``weight``: one, or one
    per channel (dim 1 of the input)."""
    signatures.tensor_argument("prelu", weight, "weight", 2)
    x = _float("prelu", input)
    w = as_tensor(weight)
    if w.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {w.ndim}"
        )
    if w.numel() == 1:
        w = w.reshape(())  # one slope: the result has the input's shape (a 0-d input too)
    else:
        if x.ndim < 2 and not (x.ndim == 1 and x.shape[0] == w.numel()):
            raise RuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {w.numel()} and channel size = {x.shape[-1] if x.ndim else 1}."
            )
        channels = x.shape[1] if x.ndim >= 2 else x.shape[0]
        if w.numel() != channels:
            raise RuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {w.numel()} and channel size = {channels}."
            )
        if x.ndim >= 2:
            w = w.reshape((1, channels) + (1,) * (x.ndim - 2))
    return _where(x > 0, x, w * x)


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """Randomized leaky ReLU: negative inputs are scaled by a slope drawn uniformly from
    ``[lower, upper]`` per element when training, by ``(lower + upper) / 2`` otherwise."""
    x = _float("rrelu", input)
    if not lower <= upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if training:
        from minigrad.creation import rand_like

        slope = rand_like(x.detach()) * (upper - lower) + lower
    else:
        slope = (lower + upper) / 2
    return _result(x, _where(x >= 0, x, x * slope), inplace)


def _inplace(fn):
    """``F.elu_(x)`` is ``F.elu(x, inplace=True)``."""

    def inplace_fn(input: Tensor, *args, **kwargs) -> Tensor:
        return fn(input, *args, inplace=True, **kwargs)

    inplace_fn.__name__ = fn.__name__ + "_"
    inplace_fn.__doc__ = f"In-place {fn.__name__}: ``{fn.__name__}(input, ..., inplace=True)``."
    return inplace_fn


def relu_(input: Tensor) -> Tensor:
    """In-place ``relu``."""
    x = _float("relu_", input)
    return _result(x, x.relu(), True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place ``leaky_relu``."""
    x = _float("leaky_relu_", input)
    return _result(x, _where(x > 0, x, x * negative_slope), True)


def gumbel_softmax(
    logits: Tensor,
    tau: float = 1.0,
    hard: bool = False,
    eps: float = 1e-10,
    dim: int = -1,
) -> Tensor:
    """A sample from the Gumbel-softmax distribution: ``softmax((logits + g) / tau)`` with
    ``g = -log(-log(U))``, ``U ~ U(0, 1)`` (drawn from minigrad's generator). With
    ``hard=True`` the result is the one-hot vector of its largest entry in value, with
    the soft sample's gradient (the straight-through estimator)."""
    from minigrad.creation import rand_like

    x = _float("gumbel_softmax", logits)
    u = rand_like(x.detach())
    gumbels = -((-(u.clamp(min=1e-30).log())).log())
    soft = ((x + gumbels) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.detach().numpy().argmax(dim)
    one_hot = np.zeros(soft.shape, dtype=soft.dtype)
    np.put_along_axis(one_hot, np.expand_dims(index, dim), 1, dim)
    return soft - soft.detach() + Tensor(one_hot)


elu_ = _inplace(elu)
selu_ = _inplace(selu)
celu_ = _inplace(celu)
hardtanh_ = _inplace(hardtanh)
threshold_ = _inplace(threshold)
rrelu_ = _inplace(rrelu)
