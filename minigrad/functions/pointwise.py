"""The ``Function`` classes of the elementwise table (``elementwise.py``), one per entry.

Two generic classes hold the forward and both backwards: ``UnaryFunction`` and
``BinaryFunction``. Each table entry becomes a subclass that only sets ``op`` (``Sin``,
``Atan2``, ...). ``backward`` calls the entry's derivative on Tensors, with the table's
own Functions as its math (``TENSOR_MATH``), so that it can be differentiated again, for
``create_graph``; ``backward_array`` calls the very same derivative on NumPy arrays, with
NumPy as its math (``ARRAY_MATH``). A binary operation's gradients are summed back to
each input's shape with ``unbroadcast``.

The forward saves only what the derivatives read (the input, the output or both: the
names of their parameters), so an in-place change to a tensor the backward does not need
raises nothing.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from minigrad.autograd.function import Function
from minigrad.functions import bessel, incomplete_gamma
from minigrad.functions import special_math as sm
from minigrad.functions.broadcast import broadcast_error, unbroadcast
from minigrad.functions.constant import constant
from minigrad.functions.elementwise import BINARY, UNARY, Op
from minigrad.functions.indexing import Where

#: The derivatives' math on arrays (``backward_array``).
ARRAY_MATH = SimpleNamespace(
    where=np.where,
    zeros_like=np.zeros_like,
    full_like=np.full_like,
    isnan=np.isnan,
    isfinite=np.isfinite,
    cos=np.cos,
    sin=np.sin,
    cosh=np.cosh,
    sinh=np.sinh,
    exp=np.exp,
    exp2=np.exp2,
    log=np.log,
    log1p=np.log1p,
    sqrt=np.sqrt,
    sign=np.sign,
    trunc=np.trunc,
    floor=np.floor,
    digamma=sm.digamma,
    trigamma=sm.trigamma,
    lgamma=sm.lgamma,
    erfcx=sm.erfcx,
    i0=bessel.i0,
    i1=bessel.i1,
    i0e=bessel.i0e,
    i1e=bessel.i1e,
    zeta=incomplete_gamma.zeta,
)


def _tensor_where(cond, a, b):
    """``where`` on Tensors: ``cond`` a bool Tensor, ``a``/``b`` Tensors or numbers (a
    number takes the Tensor's dtype)."""
    return Where.apply(cond._data, a, b)


#: The same names on Tensors (``backward``): each table function is its own Function
#: class (set below, once the classes exist), so a derivative that uses ``cos`` can
#: itself be differentiated.
TENSOR_MATH = SimpleNamespace(
    where=_tensor_where,
    zeros_like=lambda g: constant(np.zeros_like(g._data)),
    full_like=lambda t, value: constant(np.full_like(t._data, value)),
    isnan=lambda t: constant(np.isnan(t._data)),
    isfinite=lambda t: constant(np.isfinite(t._data)),
)


def evaluate(op: Op, arrays: tuple, params: tuple) -> np.ndarray:
    """``op``'s forward on arrays: the result in the inputs' dtype (a bool result stays
    bool). NumPy's warnings for 1/0 or log(-1) are silenced: inf and NaN are the answer,
    as in PyTorch. (A ``quiet`` entry has no warning to silence.)"""
    if op.quiet:
        out = np.asarray(op.forward(*arrays, *params))
    else:
        with np.errstate(all="ignore"):
            out = np.asarray(op.forward(*arrays, *params))
    if out.dtype.kind != "b" and out.dtype != arrays[0].dtype:
        out = out.astype(arrays[0].dtype)
    return out


class _Elementwise(Function):
    """What the generated classes share: the table entry and what its derivatives read."""

    op: Op
    arguments: tuple = ()  # per input, the names of its derivative's parameters
    reads: frozenset = frozenset()  # the names the derivatives read


def _gradient(ctx, k: int, values: dict):
    """The ``k``-th input's derivative, called on ``values``: ``m`` (``TENSOR_MATH`` or
    ``ARRAY_MATH``) and Tensors or arrays, by name; the entry's extra arguments are added.
    (No NumPy warning in a backward pass: the engine turns them off.)"""
    if ctx.params:
        values.update(zip((name for name, _ in ctx.op.params), ctx.params))
    return ctx.op.grads[k](*[values[name] for name in ctx.arguments[k]])


class UnaryFunction(_Elementwise):
    """y = f(x); dx = the entry's derivative ``d``."""

    @staticmethod
    def forward(ctx, x, *params):
        y = evaluate(ctx.op, (x._data,), params)
        ctx.params = params
        ctx.save_for_backward(
            x if "x" in ctx.reads else None,
            y if "y" in ctx.reads else None,
        )
        return y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        gx = _gradient(ctx, 0, {"m": TENSOR_MATH, "g": g, "x": x, "y": y})
        return (gx,) + (None,) * len(ctx.params)

    @staticmethod
    def backward_array(ctx, g):
        x, y = ctx.saved_arrays
        gx = _gradient(ctx, 0, {"m": ARRAY_MATH, "g": g, "x": x, "y": y})
        return (gx,) + (None,) * len(ctx.params)


class BinaryFunction(_Elementwise):
    """y = f(a, b), broadcasting; da and db are the entry's derivatives, summed back to
    the shapes of a and b."""

    @staticmethod
    def forward(ctx, a, b, *params):
        try:
            np.broadcast_shapes(a._data.shape, b._data.shape)
        except ValueError:
            raise broadcast_error(ctx.op.name, a, b) from None
        y = evaluate(ctx.op, (a._data, b._data), params)
        ctx.params = params
        ctx.shapes = (a._data.shape, b._data.shape)
        ctx.save_for_backward(
            a if "a" in ctx.reads else None,
            b if "b" in ctx.reads else None,
            y if "y" in ctx.reads else None,
        )
        return y

    @staticmethod
    def backward(ctx, g):
        a, b, y = ctx.saved_tensors
        return _binary_grads(ctx, {"m": TENSOR_MATH, "g": g, "a": a, "b": b, "y": y})

    @staticmethod
    def backward_array(ctx, g):
        a, b, y = ctx.saved_arrays
        return _binary_grads(ctx, {"m": ARRAY_MATH, "g": g, "a": a, "b": b, "y": y})


def _binary_grads(ctx, values: dict) -> tuple:
    grads = []
    for k, (needs, shape) in enumerate(zip(ctx.needs_input_grad, ctx.shapes)):
        if not needs:
            grads.append(None)
            continue
        grad = _gradient(ctx, k, values)
        grads.append(unbroadcast(_full(grad, values["g"]), shape))
    return tuple(grads) + (None,) * len(ctx.params)


def _full(grad, g):
    """A gradient with ``g``'s shape (a derivative like ``zeros_like(g)`` has it already;
    one that reads only a broadcast input may not)."""
    if grad.shape == g.shape:
        return grad
    return grad + g * 0


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def _make_class(op: Op, base: type) -> type:
    arguments = tuple(fn.__code__.co_varnames[: fn.__code__.co_argcount] for fn in op.grads)
    attrs = {
        "op": op,
        "arguments": arguments,
        "reads": frozenset(name for names in arguments for name in names),
        "__module__": __name__,
        "__qualname__": _class_name(op.name),
        "__doc__": f"``{op.name}``, an entry of the elementwise table (functions/elementwise.py).",
    }
    return type(_class_name(op.name), (base,), attrs)


#: The Function class of each differentiable entry, by name (``FUNCTIONS["sin"]``).
FUNCTIONS = {}
for _op in UNARY + BINARY:
    if _op.grads is not None:
        FUNCTIONS[_op.name] = _make_class(_op, BinaryFunction if _op in BINARY else UnaryFunction)


def _constant_op(op: Op):
    """A table function without derivative, on Tensors: a result that carries no gradient."""

    def fn(*tensors):
        return constant(evaluate(op, tuple(t._data for t in tensors), ()))

    return fn


for _op in UNARY + BINARY:
    setattr(TENSOR_MATH, _op.name, FUNCTIONS[_op.name].apply if _op.grads else _constant_op(_op))
