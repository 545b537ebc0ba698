"""The public faces of the elementwise table (``functions/elementwise.py``), generated.

From each entry of the table this module makes, in one place:

- the Tensor method (``x.atan2(y)``, ``x.round(decimals=2)``) and its in-place variant
  (``x.atan2_(y)``, through ``Tensor._inplace``, the one entry point of in-place ops);
- the function ``mg.atan2(x, y)``;
- PyTorch's other names for it (``arctan2``, ``greater``, ...);
- the operators that are elementwise ops: ``abs(x)``, ``x & y``, ``x | y``, ``x ^ y``,
  ``~x``, ``x << n``, ``x >> n``, ``x % y``, ``x // y`` and their reflected forms.

Dtypes follow PyTorch: a Python number never widens a tensor (``float32 + 2.5`` stays
float32, ``int64 % 3`` stays int64, ``int64.atan2(2.5)`` is float32), two tensors
promote by ``dtypes.result_type``, and an op on floats (``"float"`` entries) turns
integer and bool inputs into float32.
"""

from __future__ import annotations

import numpy as np

from minigrad import dtypes
from minigrad.functions.arithmetic import promote
from minigrad.functions.elementwise import BINARY, UNARY, Op, derivative_texts
from minigrad.functions.errors import DtypeError, DtypeMismatchError, no_kernel
from minigrad.functions.pointwise import FUNCTIONS, evaluate
from minigrad.tensor import Tensor, as_tensor  # imported at the end of minigrad.tensor

#: Every name an entry answers to: its own, its aliases and its torch.special names.
NAMES = {name: op for op in UNARY + BINARY for name in (op.name, *op.aliases, *op.special)}

_Number = (int, float, bool, np.number, np.bool_)


def _refused(op: Op, dtype: np.dtype) -> bool:
    """Whether PyTorch has no kernel of ``op`` for ``dtype`` (the entry's ``refuses``)."""
    kind = "bool" if dtype.kind == "b" else "int" if dtype.kind in "iu" else dtype.name
    return kind in op.refuses


def _input(t, op: Op):
    """``t`` in the dtype ``op`` computes in (see the module docstring)."""
    kind = t._data.dtype.kind
    if kind == "b" and op.bool_error:
        raise DtypeError(op.bool_error)  # `-b`, `+b`, relu(b): PyTorch's own message
    if op.refuses and _refused(op, t._data.dtype):
        raise no_kernel(op.name, t._data.dtype)
    if kind == "b" and op.bool_as:
        # entries NumPy has no bool loop for that PyTorch computes on bool: it reads False /
        # True as 0 / 1 (square gives int64, as sum does; signbit a bool result anyway)
        return t.to(dtypes.int64)
    if op.ints == "float" and kind != "f":
        return t.to(dtypes.default_float)
    if op.ints == "floating" and kind != "f":
        raise DtypeError(
            f"{op.name}: not implemented for {t._data.dtype} (PyTorch's '{op.name}' takes "
            "floating point tensors only)"
        )
    if op.ints == "int" and kind not in "iub":
        raise DtypeError(
            f"{op.name}: expects integer or bool tensors, got {t._data.dtype} (PyTorch's "
            f"'{op.name}' is not implemented for floating point)"
        )
    return t


def _params(op: Op, args: tuple, kwargs: dict) -> tuple:
    """The entry's extra arguments (``decimals``, ``eps``, ...) from a call, by position
    or keyword, with their defaults."""
    if not (args or kwargs or op.params):
        return ()  # the usual case: an entry without extra arguments
    names = [name for name, _ in op.params]
    if len(args) > len(names):
        raise TypeError(f"{op.name}() takes {len(names)} extra arguments, got {len(args)}")
    values = dict(op.params)
    values.update(zip(names, args))
    for key, value in kwargs.items():
        if key not in values:
            raise TypeError(f"{op.name}() got an unexpected keyword argument {key!r}")
        values[key] = value
    return tuple(values[name] for name in names)


def _run(op: Op, tensors: tuple, params: tuple):
    """The table's Function on ``tensors``; a result without gradient for entries
    that have no derivative."""
    function = FUNCTIONS.get(op.name)
    if function is None:
        return Tensor._make(evaluate(op, tuple(t._data for t in tensors), params), False, None)
    return function.apply(*tensors, *params)


def _scalar_tensor(number, like, op: Op):
    """A Python number as a 0-d tensor of the dtype ``like (op) number`` has. An int
    meeting an integer tensor is wrapped into its dtype (``dtypes.wrapped_int``), as
    PyTorch does, unless the entry computes in floats: there it is that float."""
    if isinstance(number, np.generic):
        number = number.item()
    dtype = dtypes.scalar_result_type(like._data.dtype, number)
    if type(number) is int and dtype.kind in "iu":
        if op.ints in ("float", "floating"):
            dtype = dtypes.default_float
        else:
            number = dtypes.wrapped_int(number, dtype)
    return Tensor._make(np.asarray(number, dtype=dtype), False, None)


def _check_numbers(op: Op, name: str, a, b) -> None:
    """TypeError, as PyTorch's argument parser raises, for a Python number where the
    entry's PyTorch signature takes a tensor. The entry's ``numbers`` says where PyTorch
    2.13's functions and methods take one: ``"nowhere"`` (``mg.maximum(x, 0)`` is a
    TypeError, as ``torch.maximum(x, 0)`` is), ``"second"`` (comparisons, ``fmod``,
    ``copysign``), ``"either"`` position but not both (``xlogy(2, x)``,
    ``remainder(2, x)``) or ``"both"`` (``floor_divide(7, 2)``). The operators
    (``x % 2``, ``2 % x``, ``x > 0``) take numbers on either side, as in PyTorch. (Arrays
    and lists are read as tensors, as everywhere in minigrad.)"""
    if op.numbers == "both":
        return
    numbers = [isinstance(v, _Number) for v in (a, b)]
    if op.numbers == "nowhere":
        refused = numbers
    elif op.numbers == "second":
        refused = [numbers[0], False]
    else:
        refused = [all(numbers), False]
    for position, (argument, value, bad) in enumerate(zip(("input", op.second), (a, b), refused)):
        if bad:
            raise TypeError(
                f"{name}(): argument '{argument}' (position {position + 1}) must be Tensor, "
                f"not {type(value).__name__}"
            )


def binary_operands(op: Op, a, b) -> tuple:
    """Two tensors of one dtype for ``op(a, b)`` (numbers take the other's dtype)."""
    if isinstance(b, _Number) and isinstance(a, Tensor):
        b = _scalar_tensor(b, a, op)
    elif isinstance(a, _Number) and isinstance(b, Tensor):
        a = _scalar_tensor(a, b, op)
    a, b = promote(as_tensor(a), as_tensor(b))
    return _input(a, op), _input(b, op)


def call(name: str, input, *args, **kwargs):
    """The table's ``name`` (or an alias) on ``input`` (and ``other``, for a binary op)
    with the entry's extra arguments: what every generated method and function runs."""
    op = NAMES[name]
    if op.arity == 2:
        if args:
            other, args = args[0], args[1:]
        elif op.second in kwargs:
            other = kwargs.pop(op.second)
        else:
            raise TypeError(f"{name}() missing its second argument '{op.second}'")
        _check_numbers(op, name, input, other)
        if op.mixed_dtypes and _different_dtypes(input, other):
            raise DtypeMismatchError(op.mixed_dtypes)
        if op.bool_as == "int64 to bool":
            input, other = as_tensor(input), as_tensor(other)  # lists and arrays too
            if _both_bool(input, other):
                return call(name, input.long(), other.long(), *args, **kwargs).bool()
        tensors = binary_operands(op, input, other)
    else:
        tensors = (_input(as_tensor(input), op),)
    return _run(op, tensors, _params(op, args, kwargs))


def _different_dtypes(a, b) -> bool:
    return isinstance(a, Tensor) and isinstance(b, Tensor) and a.dtype != b.dtype


def _both_bool(a, b) -> bool:
    return all(isinstance(t, Tensor) and t._data.dtype.kind == "b" for t in (a, b))


def _method(name: str):
    op = NAMES[name]
    function = FUNCTIONS.get(op.name)
    if op.arity == 1 and not op.params and function is not None and op.ints != "int":

        def method(self):  # x.tanh(): a float tensor goes straight to the table's Function
            if self._data.dtype.kind == "f":
                return function.apply(self)
            return _run(op, (_input(self, op),), ())

        return method

    def method(self, *args, **kwargs):
        return call(name, self, *args, **kwargs)

    return method


def _reflected(op: Op):
    def method(self, other):
        return _run(op, binary_operands(op, other, self), ())

    return method


def _inplace_method(name: str):
    def method(self, *args, **kwargs):
        return self._inplace(name + "_", getattr(self, name)(*args, **kwargs))

    return method


def _function(name: str):
    def fn(input, *args, **kwargs):
        return call(name, input, *args, **kwargs)

    return fn


def _named(fn, name: str, op: Op, what: str):
    fn.op = op  # the table row that defines it (docs/tensor-methods.md points there)
    fn.__name__ = fn.__qualname__ = name
    texts = derivative_texts().get(op.name)
    derivative = "; ".join(texts) if texts else "not differentiable"
    note = f" ({op.note})" if op.note else ""
    fn.__doc__ = f"{what} ``{op.name}``, elementwise. Derivative: {derivative}{note}."
    return fn


def _by_method_name(make, make_inplace, has_inplace, what: str) -> dict:
    """``make(name)`` under each name (its own and its aliases) of every table entry that
    is a Tensor method, and ``make_inplace(name)`` under ``name + "_"`` where
    ``has_inplace(op)``: the Tensor methods and the ``mg.*`` functions alike."""
    out = {}
    for op in UNARY + BINARY:
        if not op.method:
            continue
        for name in (op.name, *op.aliases):
            out[name] = _named(make(name), name, op, what)
            if has_inplace(op):
                out[name + "_"] = _named(make_inplace(name), name + "_", op, "In place,")
    return out


def tensor_methods() -> dict:
    """Every Tensor method the table defines, by name (aliases and in-place included)."""
    return _by_method_name(_method, _inplace_method, lambda op: op.inplace, "Tensor method")


def operator_methods() -> dict:
    """The operators that are table entries (``x & y``, ``x % y``, ``~x`` ...), with their
    reflected and in-place forms."""
    methods = {}
    for op in UNARY + BINARY:
        dunder = op.dunder
        if not dunder:
            continue
        methods[dunder] = _named(_method(op.name), dunder, op, "Operator")
        if op.arity == 2:
            reflected, inplace = "__r" + dunder[2:], "__i" + dunder[2:]
            methods[reflected] = _named(_reflected(op), reflected, op, "Reflected operator")
            methods[inplace] = _named(_inplace_method(op.name), inplace, op, "In place,")
    return methods


def functions() -> dict:
    """``mg.X`` for every table entry (aliases included), as ``x.X(...)``."""
    return _by_method_name(_function, inplace_function, lambda op: op.inplace_function, "")


def special_functions() -> dict:
    """``mg.special.X`` for every table entry with torch.special names."""
    return {
        name: _named(_function(name), name, op, "torch.special's")
        for op in UNARY + BINARY
        for name in op.special
    }


def inplace_function(name: str):
    """``mg.name_(x, ...)``: ``x.name_(...)``, in place; ``x`` must be a Tensor."""

    def fn(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}_(): argument 'input' must be Tensor, not {type(input).__name__}"
            )
        return getattr(input, name + "_")(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name + "_"
    fn.__doc__ = f"``mg.{name}_(x, ...)`` is ``x.{name}_(...)``: in place, returns ``x``."
    fn.method = name + "_"
    return fn
