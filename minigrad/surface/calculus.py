"""Numerical differentiation and integration of sampled functions, as PyTorch has them:
``gradient``, ``trapezoid`` (``trapz``) and ``cumulative_trapezoid``.

All are weighted sums of shifted slices of the input, so their gradients come from
the slices' and are exact.

``gradient`` estimates ``df/dx`` along each dim from samples ``f_i`` at coordinates
``x_i`` with second-order central differences inside (``h_s = x_i - x_{i-1}``,
``h_d = x_{i+1} - x_i``)::

    f'_i = (h_s^2 f_{i+1} + (h_d^2 - h_s^2) f_i - h_d^2 f_{i-1}) / (h_s h_d (h_s + h_d))

and one-sided differences of order ``edge_order`` (1 or 2) at the two ends. The
trapezoidal rule sums ``(x_{i+1} - x_i) (f_i + f_{i+1}) / 2``.
"""

from __future__ import annotations

import numpy as np

from minigrad import dtypes
from minigrad.functions import reduction as R
from minigrad.functions.errors import DtypeError
from minigrad.tensor import Tensor, _refuse_bool_subtraction, as_tensor

_Number = (int, float, np.integer, np.floating)


def _dim(dim, ndim: int) -> int:
    (d,) = R.normalize_dims(dim, ndim)
    return d


def _const(array, dtype) -> Tensor:
    return Tensor._make(np.asarray(array, dtype=dtype), False, None)


def _floating(x: Tensor) -> Tensor:
    return x if x.dtype.kind == "f" else x.to(dtypes.default_float)


# ------------------------------------------------------------------------- gradient
def _coordinates(spacing, dims: list, shape: tuple) -> list:
    """The coordinates of the samples along each of ``dims`` (1-D float64 arrays);
    ``spacing=None`` is PyTorch's default, 1."""
    if spacing is None:
        spacing = 1
    if isinstance(spacing, (_Number, Tensor)) and not (
        isinstance(spacing, Tensor) and spacing.ndim == 1
    ):
        spacing = [spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        raise RuntimeError(
            f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
            f"dim arguments to have the same length, but got a spacing argument of length "
            f"{len(spacing)} and a dim argument of length {len(dims)}."
        )
    coords = []
    for s, d in zip(spacing, dims):
        if isinstance(s, Tensor) and s.ndim == 1:
            if s.shape[0] != shape[d]:
                raise RuntimeError(
                    f"torch.gradient expected each tensor to be on the same device and of "
                    f"size {shape[d]} along dim {d}, got a spacing tensor of size {s.shape[0]}"
                )
            coords.append(s._data.astype(np.float64))
        else:
            h = s.item() if isinstance(s, Tensor) else s
            coords.append(np.arange(shape[d], dtype=np.float64) * h)
    return coords


def _along(x: Tensor, d: int, start: int, stop) -> Tensor:
    """``x`` sliced to ``start:stop`` along dim ``d``."""
    return x[(slice(None),) * d + (slice(start, stop),)]


def _derivative(f: Tensor, d: int, x: np.ndarray, edge_order: int) -> Tensor:
    """df/dx along dim ``d`` of ``f``, sampled at the coordinates ``x``."""
    shape = [1] * f.ndim
    shape[d] = -1

    def w(values) -> Tensor:  # weights broadcast along dim d, in f's dtype
        return _const(np.asarray(values).reshape(shape), f.dtype)

    dx = np.diff(x)
    hs, hd = dx[:-1], dx[1:]
    inner = (
        _along(f, d, 2, None) * w(hs / (hd * (hd + hs)))
        + _along(f, d, 1, -1) * w((hd - hs) / (hd * hs))
        - _along(f, d, 0, -2) * w(hd / (hs * (hd + hs)))
    )
    f0, f1, f2 = (_along(f, d, i, i + 1) for i in range(3))
    g1, g2, g3 = (_along(f, d, -i, f.shape[d] - i + 1 or None) for i in (1, 2, 3))
    if edge_order == 1:
        first = (f1 - f0) * w(1 / dx[:1])
        last = (g1 - g2) * w(1 / dx[-1:])
    else:
        a, b = dx[0], dx[1]
        first = (
            f0 * w([-(2 * a + b) / (a * (a + b))])
            + f1 * w([(a + b) / (a * b)])
            - f2 * w([a / (b * (a + b))])
        )
        a, b = dx[-2], dx[-1]
        last = (
            g3 * w([b / (a * (a + b))])
            - g2 * w([(a + b) / (a * b)])
            + g1 * w([(2 * b + a) / (b * (a + b))])
        )
    from minigrad.ops import cat

    return cat([first, inner, last], d)


def gradient(input, *, spacing=1, dim=None, edge_order: int = 1) -> tuple:
    """Estimate the gradient of a function sampled in ``input``: one tensor per dim.

    Args:
        spacing: a number (the distance between samples along every dim), a list of
            numbers (one per dim), or a list of 1-D tensors (the sample coordinates
            along each dim).
        dim: an int or a list of ints (all dims by default).
        edge_order: 1 or 2, the order of the one-sided differences at the ends.

    Example::

        >>> mg.gradient(mg.tensor([1.0, 4.0, 9.0, 16.0]))
        (tensor([3., 4., 6., 7.]),)
    """
    f = as_tensor(input)
    _refuse_bool_subtraction(f, f)  # its differences subtract bools before any cast
    if edge_order not in (1, 2):
        raise RuntimeError(
            f"torch.gradient only supports edge_order=1 and edge_order=2, got {edge_order}"
        )
    if dim is None:
        dims = list(range(f.ndim))
    else:
        dims = [_dim(d, f.ndim) for d in ([dim] if isinstance(dim, int) else dim)]
        if len(set(dims)) != len(dims):
            raise RuntimeError(
                f"dim {dims} has a dim that appears multiple times in the list of dims"
            )
    coords = _coordinates(spacing, dims, f.shape)
    for d in dims:
        if f.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
    f = _floating(f)
    return tuple(_derivative(f, d, x, edge_order) for d, x in zip(dims, coords))


# ---------------------------------------------------------------------- integration
def _widths(y: Tensor, x, dx, d: int):
    """The interval widths along ``d``: a number, or a tensor broadcastable to the
    ``n - 1`` intervals."""
    if x is None:
        return 1 if dx is None else dx
    x = as_tensor(x)
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(
                f"trapezoid: There must be one `x` value for each sample point, got "
                f"{x.shape[0]} and {y.shape[d]}"
            )
        shape = [1] * y.ndim
        shape[d] = -1
        return (x[1:] - x[:-1]).reshape(*shape)
    xd = _dim(d - y.ndim, x.ndim)
    return _along(x, xd, 1, None) - _along(x, xd, 0, -1)


def trapezoid(y, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The integral of the samples ``y`` along ``dim`` by the trapezoidal rule, at
    coordinates ``x`` (a 1-D tensor along ``dim``, or one broadcastable to ``y``) or
    with spacing ``dx`` (1 by default)."""
    if x is not None and dx is not None:
        raise TypeError("trapezoid: pass either x or dx, not both")
    y = _integrand(as_tensor(y), "trapezoid")
    d = _dim(dim, y.ndim)
    if y.shape[d] == 0:
        return _floating(y).sum(d) if x is None else (y * 0).sum(d)
    mid = _along(y, d, 1, None) + _along(y, d, 0, -1)
    return (mid * _widths(y, x, dx, d)).sum(d) / 2


def _integrand(y: Tensor, name: str) -> Tensor:
    if y.dtype == np.bool_:
        raise DtypeError(f"{name}: received a bool input for `y`, but bool is not supported")
    return y


def trapz(y, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """``trapezoid`` under NumPy's old name."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The running integral of ``y`` along ``dim`` (``trapezoid`` up to each sample
    after the first): the result has one sample fewer along ``dim``."""
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid: pass either x or dx, not both")
    y = _integrand(as_tensor(y), "cumulative_trapezoid")
    d = _dim(dim, y.ndim)
    if y.shape[d] == 0:
        return _floating(y)
    mid = _along(y, d, 1, None) + _along(y, d, 0, -1)
    return ((mid * _widths(y, x, dx, d)) / 2).cumsum(d)


METHODS: list = []
FUNCTIONS = ["gradient", "trapezoid", "trapz", "cumulative_trapezoid"]
