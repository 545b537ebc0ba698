"""``torch.X`` forms of Tensor methods: the in-place variants as functions
(``torch.sin_(x)``, ``torch.clamp_(x, 0, 1)``, ``torch.index_put_(x, idx, v)``), the
in-place dropouts (``torch.dropout_(x, p, train)``), and ``clone``, ``detach``,
``detach_``, ``t``, ``unflatten`` and ``fill``.

Each in-place function is ``input.X_(...)``: the Tensor method does the work through
``Tensor._inplace`` (``autograd/inplace.py``), so it modifies ``input``, returns it, bumps
its version counter and is recorded in the graph like every other in-place op. The list
of names is data: the ``torch.*_`` functions of PyTorch 2.13 whose Tensor method minigrad
has.
"""

from __future__ import annotations

import numpy as np

from minigrad.surface.elementwise import inplace_function
from minigrad.tensor import Tensor, as_tensor

#: The ``torch.X_`` functions that are ``input.X_(...)``, beside those of the elementwise
#: table (its ``inplace_function`` field).
INPLACE_FUNCTIONS = "clamp clamp_max clamp_min clip ldexp zero fill index_put".split()


# ------------------------------------------------------------------- in-place dropouts
# ``torch.dropout_(input, p, train)``: ``input`` overwritten by its dropout.
def dropout_(input, p: float, train: bool) -> Tensor:
    from minigrad.nn.functional import dropout

    return input._inplace("dropout_", dropout(input, p, train))


def alpha_dropout_(input, p: float, train: bool) -> Tensor:
    from minigrad.nn.functional import alpha_dropout

    return input._inplace("alpha_dropout_", alpha_dropout(input, p, train))


def feature_alpha_dropout_(input, p: float, train: bool) -> Tensor:
    from minigrad.nn.functional import feature_alpha_dropout

    return input._inplace("feature_alpha_dropout_", feature_alpha_dropout(input, p, train))


def feature_dropout_(input, p: float, train: bool) -> Tensor:
    from minigrad.nn.functional.torch_forms import feature_dropout

    return input._inplace("feature_dropout_", feature_dropout(input, p, train))


# --------------------------------------------------------- functions of Tensor methods
def clone(input, *, memory_format=None) -> Tensor:
    """A copy of ``input`` that stays in the graph (its gradient flows back to ``input``)."""
    return as_tensor(input).clone()


def detach(input) -> Tensor:
    """``input.detach()``: the same data, cut off from the graph."""
    return as_tensor(input).detach()


def detach_(input) -> Tensor:
    """``input.detach_()``: makes ``input`` itself a leaf that does not require grad."""
    return input.detach_()


def t(input) -> Tensor:
    """``input.t()``: a 2-D tensor transposed (0-D and 1-D come back as they are)."""
    return as_tensor(input).t()


def unflatten(input, dim: int, sizes) -> Tensor:
    """``input.unflatten(dim, sizes)``: dim ``dim`` split into ``sizes`` (one may be -1)."""
    return as_tensor(input).unflatten(dim, sizes)


def fill(input, value) -> Tensor:
    """A tensor shaped and typed like ``input``, every element ``value`` (a number or a
    0-d tensor, which keeps its gradient). As in PyTorch the result stays in ``input``'s
    graph with gradient 0 there (``backward()`` works, and gives zeros)."""
    from minigrad.ops import where

    x = as_tensor(input)
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                f"fill only supports 0-dimension value tensor but got tensor with {value.ndim} "
                "dimensions."
            )
        value = value.to(x.dtype)
    else:
        value = Tensor._make(np.asarray(value).astype(x.dtype), False, None)
    # every element picks value: input's gradient is where(True, 0, g) = 0, no NaN from it
    return where(Tensor._make(np.ones(x.shape, bool), False, None), value, x)


# ---------------------------------------------------------------- the method detach_
def _detach_(self: Tensor) -> Tensor:
    """Cut this tensor off from the graph, in place: it becomes a leaf that does not
    require grad. A view cannot be detached in place (its base keeps its history)."""
    if self._view is not None:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. (this tensor is a view of "
            "another tensor)"
        )
    self._grad_fn = None
    self._requires_grad = False
    return self


def _hardshrink(self: Tensor, lambd: float = 0.5) -> Tensor:
    from minigrad.nn.functional import hardshrink

    return hardshrink(self, lambd)


def _prelu(self: Tensor, weight) -> Tensor:
    from minigrad.nn.functional import prelu

    return prelu(self, weight)


#: Tensor methods defined here (attached by ``surface.py``).
TENSOR_METHODS = {"detach_": _detach_, "hardshrink": _hardshrink, "prelu": _prelu}

METHODS: list = []
FUNCTIONS = [
    "dropout_",
    "alpha_dropout_",
    "feature_alpha_dropout_",
    "feature_dropout_",
    "clone",
    "detach",
    "detach_",
    "t",
    "unflatten",
    "fill",
]
for _name in INPLACE_FUNCTIONS:
    globals()[_name + "_"] = inplace_function(_name)
    FUNCTIONS.append(_name + "_")
