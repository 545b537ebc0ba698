"""Padding layers: ``F.pad`` with its mode and widths stored. ``ConstantPad{1,2,3}d``
(a value), ``ZeroPad{1,2,3}d``, ``ReflectionPad{1,2,3}d``, ``ReplicationPad{1,2,3}d``
and ``CircularPad{1,2,3}d`` pad the last 1, 2 or 3 dimensions; an int pads every side by
that much, a tuple gives ``(left, right, top, bottom, front, back)`` as in ``F.pad``.

Example::

    >>> nn.ZeroPad2d((1, 0, 0, 2))(mg.ones(1, 2, 2)).shape
    (1, 4, 3)
"""

from __future__ import annotations

from minigrad.nn.functional.pad import pad
from minigrad.nn.module import Module
from minigrad.tensor import Tensor

__all__ = [
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
]


class _Pad(Module):
    """``F.pad(input, padding, mode, value)`` over the last ``dims`` dimensions."""

    mode = "constant"
    dims = 1

    def __init__(self, padding, value: float = 0.0) -> None:
        super().__init__()
        if isinstance(padding, int):
            padding = (padding,) * (2 * self.dims)
        padding = tuple(padding)
        if len(padding) != 2 * self.dims:
            raise ValueError(
                f"{type(self).__name__}: padding must be an int or {2 * self.dims} ints, "
                f"got {padding}"
            )
        self.padding = padding
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        if self.mode == "circular" and input.ndim not in (self.dims + 1, self.dims + 2):
            # PyTorch's CircularPadNd checks the input's dims (the other modules leave it
            # to F.pad)
            raise ValueError(
                f"expected {self.dims + 1}D or {self.dims + 2}D input (got {input.ndim}D input)"
            )
        if self.mode == "constant":
            return pad(input, self.padding, "constant", self.value)
        return pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        value = f", value={self.value}" if self.mode == "constant" else ""
        return f"{self.padding}{value}"


class _ConstantPadNd(_Pad):
    """``ConstantPad{1,2,3}d``: the fill ``value`` is required, as in PyTorch."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding, value)


class _WidthsOnly(_Pad):
    """The other padding layers: ``padding`` is the one argument, the fill comes from
    ``mode`` (zeros for ``ZeroPad{1,2,3}d``)."""

    def __init__(self, padding) -> None:
        super().__init__(padding)


def _padding_layer(name: str, base: type, mode: str, dims: int, fill: str) -> type:
    """The public layer ``name``: ``base`` padding the last ``dims`` dimensions in
    ``mode``, its docstring naming the ``fill``."""
    doc = f"Pad the last {dims} dimension{'s' if dims > 1 else ''} with {fill}."
    attrs = {"__doc__": doc, "__module__": __name__, "__qualname__": name}
    return type(name, (base,), {**attrs, "mode": mode, "dims": dims})


_VALUE = "``value``"
_ZEROS = "zeros"
_REFLECTION = "the reflection of the input (edge not repeated)"
_EDGE = "copies of the edge values"
_WRAPPED = "the input wrapped around"

ConstantPad1d = _padding_layer("ConstantPad1d", _ConstantPadNd, "constant", 1, _VALUE)
ZeroPad1d = _padding_layer("ZeroPad1d", _WidthsOnly, "constant", 1, _ZEROS)
ReflectionPad1d = _padding_layer("ReflectionPad1d", _WidthsOnly, "reflect", 1, _REFLECTION)
ReplicationPad1d = _padding_layer("ReplicationPad1d", _WidthsOnly, "replicate", 1, _EDGE)
CircularPad1d = _padding_layer("CircularPad1d", _WidthsOnly, "circular", 1, _WRAPPED)
ConstantPad2d = _padding_layer("ConstantPad2d", _ConstantPadNd, "constant", 2, _VALUE)
ZeroPad2d = _padding_layer("ZeroPad2d", _WidthsOnly, "constant", 2, _ZEROS)
ReflectionPad2d = _padding_layer("ReflectionPad2d", _WidthsOnly, "reflect", 2, _REFLECTION)
ReplicationPad2d = _padding_layer("ReplicationPad2d", _WidthsOnly, "replicate", 2, _EDGE)
CircularPad2d = _padding_layer("CircularPad2d", _WidthsOnly, "circular", 2, _WRAPPED)
ConstantPad3d = _padding_layer("ConstantPad3d", _ConstantPadNd, "constant", 3, _VALUE)
ZeroPad3d = _padding_layer("ZeroPad3d", _WidthsOnly, "constant", 3, _ZEROS)
ReflectionPad3d = _padding_layer("ReflectionPad3d", _WidthsOnly, "reflect", 3, _REFLECTION)
ReplicationPad3d = _padding_layer("ReplicationPad3d", _WidthsOnly, "replicate", 3, _EDGE)
CircularPad3d = _padding_layer("CircularPad3d", _WidthsOnly, "circular", 3, _WRAPPED)
