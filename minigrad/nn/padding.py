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


class ConstantPad1d(_Pad):
    """Pad the last 1 dimension with ``value``."""

    dims = 1

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding, value)


class ZeroPad1d(_Pad):
    """Pad the last 1 dimension with zeros."""

    dims = 1

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)


class ReflectionPad1d(_Pad):
    """Pad the last 1 dimension with the reflection of the input (edge not repeated)."""

    mode, dims = "reflect", 1

    def __init__(self, padding) -> None:
        super().__init__(padding)


class ReplicationPad1d(_Pad):
    """Pad the last 1 dimension with copies of the edge values."""

    mode, dims = "replicate", 1

    def __init__(self, padding) -> None:
        super().__init__(padding)


class CircularPad1d(_Pad):
    """Pad the last 1 dimension with the input wrapped around."""

    mode, dims = "circular", 1

    def __init__(self, padding) -> None:
        super().__init__(padding)


class ConstantPad2d(_Pad):
    """Pad the last 2 dimensions with ``value``."""

    dims = 2

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding, value)


class ZeroPad2d(_Pad):
    """Pad the last 2 dimensions with zeros."""

    dims = 2

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)


class ReflectionPad2d(_Pad):
    """Pad the last 2 dimensions with the reflection of the input (edge not repeated)."""

    mode, dims = "reflect", 2

    def __init__(self, padding) -> None:
        super().__init__(padding)


class ReplicationPad2d(_Pad):
    """Pad the last 2 dimensions with copies of the edge values."""

    mode, dims = "replicate", 2

    def __init__(self, padding) -> None:
        super().__init__(padding)


class CircularPad2d(_Pad):
    """Pad the last 2 dimensions with the input wrapped around."""

    mode, dims = "circular", 2

    def __init__(self, padding) -> None:
        super().__init__(padding)


class ConstantPad3d(_Pad):
    """Pad the last 3 dimensions with ``value``."""

    dims = 3

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding, value)


class ZeroPad3d(_Pad):
    """Pad the last 3 dimensions with zeros."""

    dims = 3

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)


class ReflectionPad3d(_Pad):
    """Pad the last 3 dimensions with the reflection of the input (edge not repeated)."""

    mode, dims = "reflect", 3

    def __init__(self, padding) -> None:
        super().__init__(padding)


class ReplicationPad3d(_Pad):
    """Pad the last 3 dimensions with copies of the edge values."""

    mode, dims = "replicate", 3

    def __init__(self, padding) -> None:
        super().__init__(padding)


class CircularPad3d(_Pad):
    """Pad the last 3 dimensions with the input wrapped around."""

    mode, dims = "circular", 3

    def __init__(self, padding) -> None:
        super().__init__(padding)
