"""PyTorch's legacy positional call forms, read in one place.

PyTorch still accepts call forms from its early releases in which an argument that is
now a keyword comes by position, and code written against those releases uses them:

- ``x.var(False)``, ``x.std(0, False)``, ``torch.var_mean(x, 0, False, True)``: the
  second positional argument of ``var`` / ``std`` / ``var_mean`` / ``std_mean`` is
  ``unbiased`` (a bool), and ``keepdim`` comes third; a lone bool is ``unbiased``.
  (Today's form takes ``correction`` and ``keepdim`` by keyword only, so a positional
  bool after ``dim`` can only be ``unbiased``.)
- ``x.add(2, y)``, ``torch.sub(x, 2, y)``: ``input + 2 * y`` (the number is ``alpha``).
- ``torch.addcmul(x, 0.5, t1, t2)``: ``x + 0.5 * t1 * t2`` (the number is ``value``);
  ``addcdiv`` alike.
- ``torch.addmm(beta, x, alpha, m1, m2)``, ``torch.addmm(beta, x, m1, m2)``,
  ``x.addmm(beta, alpha, m1, m2)``, ``x.addmm(beta, m1, m2)``: leading numbers are
  ``beta`` and ``alpha``; likewise ``addmv``, ``addr``, ``addbmm``, ``baddbmm``.

Each helper takes the arguments as the caller wrote them and returns them in today's
form, warning (as PyTorch does) where PyTorch deprecates the old one. A form PyTorch
does not accept raises its ``TypeError``: also a Python number where PyTorch's signature
takes a tensor (``torch.max(2, t)``, ``torch.pow(2, 3)``: ``tensor_argument``).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np


def _is_number(x) -> bool:
    return isinstance(x, (numbers.Number, np.number)) and not isinstance(x, (bool, np.bool_))


def _is_bool(x) -> bool:
    return isinstance(x, (bool, np.bool_))


def tensor_argument(op: str, value, name: str = "input", position: int = 1) -> None:
    """TypeError, with the message of PyTorch's argument parser, if ``value`` is a Python
    (or NumPy) number where ``op``'s signature takes a tensor. Arrays and lists pass:
    minigrad reads them as tensors everywhere."""
    if isinstance(value, (numbers.Number, np.number, np.bool_)):
        raise TypeError(
            f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
            f"{type(value).__name__}"
        )


def one_tensor(op: str, a, b) -> None:
    """TypeError if neither of ``a``, ``b`` is more than a number (``torch.pow(2, 3)``:
    each of PyTorch's forms takes a tensor on one side at least)."""
    if all(isinstance(v, (numbers.Number, np.number, np.bool_)) for v in (a, b)):
        raise TypeError(
            f"{op}() received an invalid combination of arguments - got "
            f"({type(a).__name__}, {type(b).__name__}): one of them must be a Tensor"
        )


def variance(op: str, dim, unbiased, keepdim, correction) -> tuple:
    """``(dim, keepdim, correction)`` from ``op(dim, unbiased, keepdim, *, correction)``,
    any of whose positional arguments may have been left out; ``correction`` None is
    1 (Bessel's correction), ``unbiased=False`` is 0."""
    if _is_bool(dim):  # x.var(False): the one-argument legacy form
        if unbiased is not None:
            raise TypeError(f"{op}(): a bool first argument is 'unbiased'; dim cannot follow it")
        dim, unbiased = None, dim
    if unbiased is not None:
        if not _is_bool(unbiased):
            raise TypeError(
                f"{op}(): argument 'unbiased' (position 2) must be bool, not "
                f"{type(unbiased).__name__} (keepdim and correction are keyword arguments)"
            )
        if correction is not None:
            raise TypeError(f"{op}(): cannot take both 'unbiased' and 'correction'")
        correction = int(unbiased)
    if not _is_bool(keepdim):
        raise TypeError(f"{op}(): argument 'keepdim' must be bool, not {type(keepdim).__name__}")
    return dim, bool(keepdim), 1 if correction is None else correction


def _deprecated(op: str, old: str, new: str) -> None:
    warnings.warn(
        f"This overload of {op} is deprecated: {op}({old}). Consider using {op}({new}) instead.",
        UserWarning,
        stacklevel=4,
    )


def scaled_operand(op: str, other, more: tuple, alpha):
    """``(other, alpha)`` from ``op(input, other, *more, alpha=...)``: ``more`` holds the
    tensor of the legacy ``op(input, alpha, other)``."""
    if not more:
        return other, alpha
    if len(more) != 1 or not _is_number(other) or alpha != 1:
        raise TypeError(f"{op}() takes 2 positional arguments ({op}(input, other, *, alpha=1))")
    _deprecated(op, "Tensor input, Number alpha, Tensor other", "Tensor input, Tensor other, *, "
                "Number alpha=1")  # fmt: skip
    return more[0], other


def scaled_pair(op: str, tensor1, tensor2, more: tuple, value):
    """``(tensor1, tensor2, value)`` from ``op(input, tensor1, tensor2, *more, value=...)``:
    the legacy ``op(input, value, tensor1, tensor2)`` puts the number first."""
    if not more:
        return tensor1, tensor2, value
    if len(more) != 1 or not _is_number(tensor1) or value != 1:
        raise TypeError(f"{op}() takes 3 positional arguments ({op}(input, tensor1, tensor2, "
                        "*, value=1))")  # fmt: skip
    _deprecated(op, "Tensor input, Number value, Tensor tensor1, Tensor tensor2",
                "Tensor input, Tensor tensor1, Tensor tensor2, *, Number value=1")  # fmt: skip
    return tensor2, more[0], tensor1


def scaled_sum(op: str, args: tuple, beta, alpha) -> tuple:
    """``(input, a, b, beta, alpha)`` from the positional ``args`` of
    ``op(input, a, b, *, beta=1, alpha=1)`` (``addmm``: ``beta * input + alpha * a @ b``),
    written in today's form or with ``beta`` (and ``alpha``) leading: as a function,
    ``op(beta, input, [alpha,] a, b)``; as a method, ``input.op(beta, [alpha,] a, b)``."""
    if len(args) == 3:
        return (*args, beta, alpha)
    usage = f"{op}(input, a, b, *, beta=1, alpha=1)"
    if beta != 1 or alpha != 1 or not 4 <= len(args) <= 5:
        raise TypeError(f"{op}() takes 3 positional arguments ({usage})")
    if _is_number(args[0]):  # op(beta, input, [alpha,] a, b)
        beta, input, rest = args[0], args[1], list(args[2:])
    else:  # input.op(beta, [alpha,] a, b)
        input, rest = args[0], list(args[1:])
        if not _is_number(rest[0]):
            raise TypeError(f"{op}() takes 3 positional arguments ({usage})")
        beta = rest.pop(0)
    if len(rest) == 3:
        if not _is_number(rest[0]):
            raise TypeError(f"{op}() takes 3 positional arguments ({usage})")
        alpha = rest.pop(0)
    if len(rest) != 2 or any(_is_number(r) for r in rest):
        raise TypeError(f"{op}() takes 3 positional arguments ({usage})")
    _deprecated(op, "Number beta, Tensor input, Number alpha, Tensor a, Tensor b",
                "Tensor input, Tensor a, Tensor b, *, Number beta=1, Number alpha=1")  # fmt: skip
    return (input, *rest, beta, alpha)
