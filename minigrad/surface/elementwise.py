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
from minigrad.functions.elementwise import ALIASES, BINARY, TABLE, UNARY, Op
from minigrad.functions.errors import DtypeError
from minigrad.functions.pointwise import FUNCTIONS, check_differentiable, evaluate
from minigrad.tensor import Tensor, as_tensor  # imported at the end of minigrad.tensor

#: Entries that are ``torch.special`` functions only (no Tensor method, no ``torch.X``).
SPECIAL_ONLY = frozenset(
    """ndtr entr xlog1py trigamma erfcx i0e i1 i1e zeta modified_bessel_i0 modified_bessel_i1
    modified_bessel_k0 modified_bessel_k1 scaled_modified_bessel_k0 scaled_modified_bessel_k1
    bessel_j0 bessel_j1 bessel_y0 bessel_y1 spherical_bessel_j0 chebyshev_polynomial_t
    chebyshev_polynomial_u chebyshev_polynomial_v chebyshev_polynomial_w
    shifted_chebyshev_polynomial_t shifted_chebyshev_polynomial_u shifted_chebyshev_polynomial_v
    shifted_chebyshev_polynomial_w hermite_polynomial_h hermite_polynomial_he
    laguerre_polynomial_l legendre_polynomial_p airy_ai""".split()
)

#: Entries PyTorch gives no in-place variant (``x.maximum_`` does not exist).
NO_INPLACE = frozenset(
    {"positive", "signbit", "logaddexp", "logaddexp2", "maximum", "minimum", "fmax", "fmin"}
)

#: ``torch.special`` names of entries that are no Tensor method or ``torch.X``.
SPECIAL_ALIASES = frozenset({"expit", "gammaln", "psi", "gammainc", "gammaincc"})

#: Entries whose in-place variant PyTorch also offers as a function (``torch.i0_(x)``).
INPLACE_FUNCTIONS = frozenset({"i0"})

_Number = (int, float, bool, np.number, np.bool_)


#: PyTorch's messages for the unary operators on a bool tensor.
_BOOL_OPERATORS = {
    "neg": "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
    "to invert a mask, use the `~` or `logical_not()` operator instead.",
    "positive": "The `+` operator, on a bool tensor is not supported.",
}


def _has_bool_loop(forward) -> bool:
    """Whether a NumPy ufunc computes on bool inputs (``np.negative`` does not)."""
    return not isinstance(forward, np.ufunc) or any(t.startswith("?") for t in forward.types)


def _input(t, op: Op):
    """``t`` in the dtype ``op`` computes in (see the module docstring)."""
    kind = t._data.dtype.kind
    if kind == "b" and op.ints == "keep" and not _has_bool_loop(op.forward):
        # NumPy has no bool loop here (its own TypeError must not escape); PyTorch refuses
        # these too: `-b` and `+b` with RuntimeError, the rest as not implemented for Bool
        if op.name in _BOOL_OPERATORS:
            raise RuntimeError(_BOOL_OPERATORS[op.name])
        raise DtypeError(f"\"{op.name}\" not implemented for 'Bool' (convert with .int() first)")
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
    if op.grads is None:
        check_differentiable(op, tensors)
        return Tensor._make(evaluate(op, tuple(t._data for t in tensors), params), False, None)
    return FUNCTIONS[op.name].apply(*tensors, *params)


def _scalar_tensor(number, like):
    """A Python number as a 0-d tensor of the dtype ``like (op) number`` has."""
    if isinstance(number, np.generic):
        number = number.item()
    dtype = dtypes.scalar_result_type(like._data.dtype, number)
    return Tensor._make(np.asarray(number, dtype=dtype), False, None)


def binary_operands(op: Op, a, b) -> tuple:
    """Two tensors of one dtype for ``op(a, b)`` (numbers take the other's dtype)."""
    if isinstance(b, _Number) and isinstance(a, Tensor):
        b = _scalar_tensor(b, a)
    elif isinstance(a, _Number) and isinstance(b, Tensor):
        a = _scalar_tensor(a, b)
    a, b = promote(as_tensor(a), as_tensor(b))
    return _input(a, op), _input(b, op)


def call(name: str, input, *args, **kwargs):  # noqa: A002  (PyTorch's argument name)
    """The table's ``name`` (or an alias) on ``input`` (and ``other``, for a binary op)
    with the entry's extra arguments: what every generated method and function runs."""
    op = TABLE[ALIASES.get(name, name)]
    if op.arity == 2:
        if args:
            other, args = args[0], args[1:]
        elif "other" in kwargs:
            other = kwargs.pop("other")
        else:
            raise TypeError(f"{name}() missing its second argument 'other'")
        tensors = binary_operands(op, input, other)
    else:
        tensors = (_input(as_tensor(input), op),)
    return _run(op, tensors, _params(op, args, kwargs))


def _method(name: str):
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
    def fn(input, *args, **kwargs):  # noqa: A002  (PyTorch's argument name)
        return call(name, input, *args, **kwargs)

    return fn


def _named(fn, name: str, op: Op, what: str):
    fn.__name__ = fn.__qualname__ = name
    derivative = "not differentiable" if op.grads is None else "; ".join(op.grads)
    note = f" ({op.note})" if op.note else ""
    fn.__doc__ = f"{what} ``{op.name}``, elementwise. Derivative: {derivative}{note}."
    return fn


def _names_of(op: Op) -> list:
    return [op.name] + [alias for alias, target in ALIASES.items() if target == op.name]


def tensor_methods() -> dict:
    """Every Tensor method the table defines, by name (aliases and in-place included)."""
    methods = {}
    for op in UNARY + BINARY:
        if op.name in SPECIAL_ONLY:
            continue
        for name in _names_of(op):
            if name in SPECIAL_ALIASES:
                continue
            methods[name] = _named(_method(name), name, op, "Tensor method")
            if op.name not in NO_INPLACE:
                methods[name + "_"] = _named(_inplace_method(name), name + "_", op, "In place,")
    return methods


#: Operators that are table entries: dunder name -> entry.
OPERATORS = {
    "__abs__": "abs",
    "__and__": "bitwise_and",
    "__or__": "bitwise_or",
    "__xor__": "bitwise_xor",
    "__invert__": "bitwise_not",
    "__lshift__": "bitwise_left_shift",
    "__rshift__": "bitwise_right_shift",
    "__mod__": "remainder",
    "__floordiv__": "floor_divide",
}


def operator_methods() -> dict:
    methods = {}
    for dunder, name in OPERATORS.items():
        op = TABLE[name]
        if op.arity == 2:
            methods[dunder] = _named(_method(name), dunder, op, "Operator")
            reflected = "__r" + dunder[2:]
            methods[reflected] = _named(_reflected(op), reflected, op, "Reflected operator")
            methods["__i" + dunder[2:]] = _named(
                _inplace_method(name), "__i" + dunder[2:], op, "In place,"
            )
        else:
            methods[dunder] = _named(_method(name), dunder, op, "Operator")
    return methods


def functions() -> dict:
    """``mg.X`` for every table entry (aliases included), as ``x.X(...)``."""
    out = {}
    for op in UNARY + BINARY:
        if op.name in SPECIAL_ONLY:
            continue
        for name in _names_of(op):
            if name not in SPECIAL_ALIASES:
                out[name] = _named(_function(name), name, op, "")
        if op.name in INPLACE_FUNCTIONS:
            out[op.name + "_"] = _named(_inplace_function(op.name), op.name + "_", op, "In place,")
    return out


def _inplace_function(name: str):
    def fn(input, *args, **kwargs):  # noqa: A002  (PyTorch's argument name)
        return getattr(input, name + "_")(*args, **kwargs)

    return fn


def attach(tensor_cls) -> None:
    """Give the Tensor class the table's methods and operators."""
    for name, method in {**tensor_methods(), **operator_methods()}.items():
        setattr(tensor_cls, name, method)
