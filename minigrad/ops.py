"""Operations as functions (``mg.cat``, ``mg.where``, ``mg.exp(x)``, ...).

Most are the tensor methods under another name; the ones that take several tensors
(``cat``, ``stack``, ``where``) live here.
"""

from __future__ import annotations

import numpy as np

from minigrad import dtypes
from minigrad.amp.autocast_mode import lower_precision
from minigrad.functions import arithmetic as A
from minigrad.functions import indexing as I
from minigrad.functions import shape as S
from minigrad.functions import signatures
from minigrad.functions.einsum import Einsum, check_sizes, parse
from minigrad.functions.errors import ShapeError, no_kernel
from minigrad.functions.windows import Diagonal
from minigrad.printing import shape_str
from minigrad.tensor import Tensor, _with_scalar, as_tensor


def cat(tensors, dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension. As in PyTorch, 1-D empty tensors (shape
    (0,)) are left out whatever the others' shapes (they still count for the dtype)."""
    tensors = [as_tensor(t) for t in tensors]
    if not tensors:
        raise ShapeError("cat: expected a non-empty sequence of tensors")
    dtype = dtypes.common_dtype([t._data.dtype for t in tensors])
    kept = [t for t in tensors if t._data.shape != (0,)]
    if kept and len(kept) < len(tensors):
        tensors = [t.to(dtype) for t in kept]
    ndim = tensors[0]._data.ndim
    if ndim == 0:
        raise ShapeError("cat: zero-dimensional tensors cannot be concatenated (use stack)")
    for i, t in enumerate(tensors):
        if t._data.ndim != ndim:
            raise ShapeError(
                f"cat: tensor 0 has {ndim} dims but tensor {i} has {t._data.ndim} "
                f"(shapes {shape_str(tensors[0]._data.shape)} and {shape_str(t._data.shape)})"
            )
    if not -ndim <= dim < ndim:
        raise IndexError(f"cat: dim {dim} out of range for tensors with {ndim} dims")
    dtype = dtypes.common_dtype([t._data.dtype for t in tensors])
    tensors = [t.to(dtype) for t in tensors]
    return S.Cat.apply(dim % ndim, *tensors)


def stack(tensors, dim: int = 0) -> Tensor:
    """Join tensors of equal shape along a new dimension."""
    tensors = [as_tensor(t) for t in tensors]
    if not tensors:
        raise ShapeError("stack: expected a non-empty sequence of tensors")
    shape = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != shape:
            raise ShapeError(
                f"stack: expects each tensor to be equal size, but got {shape_str(shape)} "
                f"at entry 0 and {shape_str(t._data.shape)} at entry {i}"
            )
    n = len(shape) + 1
    if not -n <= dim < n:
        raise IndexError(f"stack: dim {dim} out of range for result with {n} dims")
    return cat([t.unsqueeze(dim % n) for t in tensors], dim % n)


def where(condition, input, other) -> Tensor:
    """``input`` where ``condition`` is True, else ``other`` (tensors or numbers)."""
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if cond.dtype != np.bool_:
        raise TypeError(f"where: condition must be a bool tensor, got dtype {cond.dtype}")
    a_is_t, b_is_t = isinstance(input, Tensor), isinstance(other, Tensor)
    if a_is_t and b_is_t:
        input, other = A.promote(input, other)
    elif a_is_t and not isinstance(other, np.ndarray):
        input, other = _with_scalar(input, other)  # where(c, int_tensor, 0.5) is float32
    elif b_is_t and not isinstance(input, np.ndarray):
        other, input = _with_scalar(other, input)
    else:
        input, other = as_tensor(input), as_tensor(other)
        input, other = A.promote(input, other)
    return I.Where.apply(cond, input, other)


@lower_precision  # bfloat16 under mg.autocast (minigrad/amp/autocast_mode.py)
def matmul(a, b) -> Tensor:
    return A.matmul(a, b)


@lower_precision  # bfloat16 under mg.autocast, as PyTorch's einsum (its products are bmm)
def einsum(equation: str, *operands) -> Tensor:
    """``mg.einsum("bij,bjk->bik", a, b)``: sums of products named by subscripts
    (``...`` and the implicit output included); differentiable in every operand."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    operands = [as_tensor(t) for t in operands]
    subs, out = parse(equation, [t.ndim for t in operands])
    check_sizes(equation, subs, [t.shape for t in operands])
    dtype = np.result_type(*[t.dtype for t in operands])
    if dtype == np.bool_:  # PyTorch's products (bmm) have no bool kernel
        raise no_kernel("bmm", dtype)
    operands = [t.to(dtype) for t in operands]
    for k, sub in enumerate(subs):  # "ii->i": take the diagonal first (differentiable)
        operands[k], subs[k] = _without_repeats(operands[k], sub)
    return Einsum.apply(subs, out, *operands)


def _without_repeats(t: Tensor, sub: str) -> tuple:
    """An operand whose subscript repeats a letter (``"iji"``) as the diagonal over those
    dims (a view, moved to the end) under the letter once (``"ji"``)."""
    for c in sub:
        while sub.count(c) > 1:
            i = sub.index(c)
            j = sub.index(c, i + 1)
            t = Diagonal.apply(t, 0, i, j)
            sub = sub[:i] + sub[i + 1 : j] + sub[j + 1 :] + c
    return t, sub


def method_as_function(name: str):
    """``mg.name(x, ...)``: the Tensor method ``x.name(...)`` as a function."""

    def fn(input, *args, **kwargs):
        signatures.tensor_argument(name, input)
        return getattr(as_tensor(input), name)(*args, **kwargs)

    fn.__name__ = name
    fn.__doc__ = f"``mg.{name}(x, ...)`` is ``x.{name}(...)``."
    fn.method = name
    return fn


_METHODS = (
    "clamp sum mean var std amax amin max min argmax argmin logsumexp softmax log_softmax "
    "reshape flatten transpose permute unsqueeze squeeze gather masked_fill tril triu split "
    "chunk"
).split()

__all__ = ["cat", "stack", "where", "matmul", "einsum", "clip", *_METHODS]

for _name in _METHODS:
    globals()[_name] = method_as_function(_name)
clip = globals()["clamp"]
