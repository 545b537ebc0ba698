"""The ``Function`` classes of the elementwise table (``elementwise.py``), one per entry.

Two generic classes hold the forward and both backwards: ``UnaryFunction`` and
``BinaryFunction``. Each table entry becomes a subclass that only sets ``op`` (``Sin``,
``Atan2``, ...). ``backward`` evaluates the entry's derivative with Tensor operations
(so that it can be differentiated again, for ``create_graph``); ``backward_array``
evaluates the very same formula on NumPy arrays. A binary operation's gradients are
summed back to each input's shape with ``unbroadcast``.

The forward saves only what the formula reads (the input, the output or both), so an
in-place change to a tensor the backward does not need raises nothing.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import _state
from minigrad.functions import bessel, incomplete_gamma
from minigrad.functions import elementwise as E
from minigrad.functions import special_math as sm
from minigrad.functions.broadcast import broadcast_error, unbroadcast
from minigrad.functions.elementwise import BINARY, UNARY, Op
from minigrad.functions.indexing import Where

#: Names the formulas may use besides g, x, a, b, y and the entry's parameters.
_CONSTANTS = {
    "LN2": E.LN2,
    "LN10": E.LN10,
    "SQRT_PI": E.SQRT_PI,
    "pi": E.pi,
    "inf": math.inf,
    "nan": math.nan,
}


def not_implemented(name: str):
    """A derivative PyTorch does not have: asking for it raises, as there."""
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


#: The formulas' functions on arrays (``backward_array``).
ARRAY_MATH = {
    **_CONSTANTS,
    "not_implemented": not_implemented,
    "where": np.where,
    "zeros_like": np.zeros_like,
    "isnan": np.isnan,
    "isfinite": np.isfinite,
    "cos": np.cos,
    "sin": np.sin,
    "cosh": np.cosh,
    "sinh": np.sinh,
    "exp": np.exp,
    "exp2": np.exp2,
    "log": np.log,
    "log1p": np.log1p,
    "sqrt": np.sqrt,
    "sign": np.sign,
    "trunc": np.trunc,
    "floor": np.floor,
    "digamma": sm.digamma,
    "trigamma": sm.trigamma,
    "lgamma": sm.lgamma,
    "i0": bessel.i0,
    "i1": bessel.i1,
    "i0e": bessel.i0e,
    "i1e": bessel.i1e,
    "zeta": incomplete_gamma.zeta,
}


def _tensor_where(cond, a, b):
    """``where`` for the Tensor formulas: ``cond`` a bool Tensor, ``a``/``b`` Tensors or
    numbers (a number takes the Tensor's dtype)."""
    return Where.apply(cond._data, a, b)


def _tensor_zeros_like(g):
    from minigrad.functions.constant import constant

    return constant(np.zeros_like(g._data))


#: The same names on Tensors (``backward``): each table function is its own Function
#: class, so a derivative that uses ``cos`` can itself be differentiated.
TENSOR_MATH = {
    **_CONSTANTS,
    "not_implemented": not_implemented,
    "where": _tensor_where,
    "zeros_like": _tensor_zeros_like,
    "isnan": lambda t: t.isnan(),
    "isfinite": lambda t: t.isfinite(),
}


def evaluate(op: Op, arrays: tuple, params: tuple) -> np.ndarray:
    """``op``'s forward on arrays: the result in the inputs' dtype (a bool result stays
    bool). NumPy's warnings for 1/0 or log(-1) are silenced: inf and NaN are the answer,
    as in PyTorch."""
    with np.errstate(all="ignore"):
        out = np.asarray(op.forward(*arrays, *params))
    if out.dtype.kind != "b" and out.dtype != arrays[0].dtype:
        out = out.astype(arrays[0].dtype)
    return out


class _Elementwise(Function):
    """What the generated classes share: the table entry and its compiled formulas."""

    op: Op
    formulas: tuple = ()  # one code object per input
    reads: frozenset = frozenset()  # the names the formulas read


def _gradient(ctx, k: int, math_names: dict, values: dict):
    """The ``k``-th input's derivative formula, evaluated on ``values`` (Tensors or
    arrays) with ``math_names`` (``TENSOR_MATH`` or ``ARRAY_MATH``)."""
    env = dict(values)
    env.update(zip((name for name, _ in ctx.op.params), ctx.params))
    with np.errstate(all="ignore"):
        return eval(ctx.formulas[k], math_names, env)  # noqa: S307  (the table's own text)


class UnaryFunction(_Elementwise):
    """y = f(x); dx = the entry's formula."""

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
        gx = _gradient(ctx, 0, TENSOR_MATH, {"g": g, "x": x, "y": y})
        return (gx,) + (None,) * len(ctx.params)

    @staticmethod
    def backward_array(ctx, g):
        x, y = ctx.saved_arrays
        gx = _gradient(ctx, 0, ARRAY_MATH, {"g": g, "x": x, "y": y})
        return (gx,) + (None,) * len(ctx.params)


class BinaryFunction(_Elementwise):
    """y = f(a, b), broadcasting; da and db are the entry's formulas, summed back to the
    shapes of a and b."""

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
        return _binary_grads(ctx, TENSOR_MATH, {"g": g, "a": a, "b": b, "y": y})

    @staticmethod
    def backward_array(ctx, g):
        a, b, y = ctx.saved_arrays
        return _binary_grads(ctx, ARRAY_MATH, {"g": g, "a": a, "b": b, "y": y})


def _binary_grads(ctx, math_names: dict, values: dict) -> tuple:
    grads = []
    for k, (needs, shape) in enumerate(zip(ctx.needs_input_grad, ctx.shapes)):
        if not needs:
            grads.append(None)
            continue
        grad = _gradient(ctx, k, math_names, values)
        grads.append(unbroadcast(_full(grad, values["g"]), shape))
    return tuple(grads) + (None,) * len(ctx.params)


def _full(grad, g):
    """A gradient with ``g``'s shape (a formula like ``zeros_like(g)`` has it already;
    one that reads only a broadcast input may not)."""
    if grad.shape == g.shape:
        return grad
    return grad + g * 0


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def _make_class(op: Op, base: type) -> type:
    formulas = tuple(compile(text, f"<{op.name} derivative>", "eval") for text in op.grads)
    reads = frozenset(n for code in formulas for n in code.co_names)
    attrs = {
        "op": op,
        "formulas": formulas,
        "reads": reads,
        "__module__": __name__,
        "__qualname__": _class_name(op.name),
        "__doc__": f"``{op.name}``: d/dinput = " + "; ".join(op.grads),
    }
    return type(_class_name(op.name), (base,), attrs)


#: The Function class of each differentiable entry, by name (``FUNCTIONS["sin"]``).
FUNCTIONS = {}
for _op in UNARY + BINARY:
    if _op.grads is not None:
        FUNCTIONS[_op.name] = _make_class(_op, BinaryFunction if _op in BINARY else UnaryFunction)


def check_differentiable(op: Op, tensors) -> None:
    """Raise if a gradient would be needed through an op whose derivative is missing."""
    if op.name in E.NO_DERIVATIVE_YET and _state.enabled and any(t._requires_grad for t in tensors):
        raise NotImplementedError(
            f"{op.name}: minigrad does not provide this function's derivative (so neither "
            "a gradient through it nor a second derivative of the function before it); "
            "detach the input, or compute it under mg.no_grad()"
        )


def _constant_op(op: Op):
    """A table function without derivative, on Tensors: a result that carries no gradient."""

    def fn(*tensors):
        from minigrad.functions.constant import constant

        check_differentiable(op, tensors)
        return constant(evaluate(op, tuple(t._data for t in tensors), ()))

    return fn


for _op in UNARY + BINARY:
    TENSOR_MATH[_op.name] = FUNCTIONS[_op.name].apply if _op.grads else _constant_op(_op)
