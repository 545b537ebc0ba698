"""Writing into the part of a tensor that a view would select, out of place:
``diagonal_scatter``, ``select_scatter``, ``slice_scatter``, ``as_strided_scatter``;
and ``put`` / ``put_``, ``index_reduce`` / ``index_reduce_``, ``fill_diagonal_``.

Each ``*_scatter(input, src, ...)`` is ``input`` with ``src`` written where
``input.view_op(...)`` would look (``src`` must have that view's shape). The places are
found once, by applying the same view to the array of flat positions
``arange(numel).reshape(shape)``; the write is then ``Put`` on the flattened input
(``functions/indexing.py``): the overwritten elements of ``input`` get no gradient,
``src`` gets the gradient of its places.
"""

from __future__ import annotations

import numpy as np

from minigrad.functions import indexing as I
from minigrad.functions import reduction as R
from minigrad.functions.errors import no_kernel
from minigrad.printing import shape_str
from minigrad.surface.selection import scatter_reduce
from minigrad.tensor import Tensor, as_tensor


def _const(array) -> Tensor:
    return Tensor._make(np.asarray(array), False, None)


def _positions(x: Tensor) -> np.ndarray:
    """The flat position of every element of ``x``, shaped like ``x``."""
    return np.arange(x.numel(), dtype=np.int64).reshape(x.shape)


def _write(x: Tensor, src, places: np.ndarray, what: str) -> Tensor:
    """``x`` with ``src`` written at the flat ``places`` (``src`` has their shape)."""
    src = as_tensor(src)
    if src.shape != places.shape:
        raise RuntimeError(
            f"{what}: expected src to have a size equal to the slice of self. src size = "
            f"{shape_str(src.shape)}, slice size = {shape_str(places.shape)}"
        )
    flat = I.Put.apply(x.reshape(-1), src.to(x.dtype).reshape(-1), places.reshape(-1))
    return flat.reshape(x.shape)


def diagonal_scatter(input, src, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """``input`` with ``input.diagonal(offset, dim1, dim2)`` replaced by ``src``."""
    x = as_tensor(input)
    d1, d2 = R.normalize_dims(dim1, x.ndim)[0], R.normalize_dims(dim2, x.ndim)[0]
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    places = np.diagonal(_positions(x), offset, d1, d2)
    return _write(x, src, places, "diagonal_scatter")


def select_scatter(input, src, dim: int, index: int) -> Tensor:
    """``input`` with ``input.select(dim, index)`` replaced by ``src``."""
    x = as_tensor(input)
    (d,) = R.normalize_dims(dim, x.ndim)
    n = x.shape[d]
    if not -n <= index < n:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size "
            f"{list(x.shape)} at dimension {d}"
        )
    places = np.take(_positions(x), index, axis=d)
    return _write(x, src, places, "select_scatter")


def slice_scatter(input, src, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    """``input`` with the slice ``start:end:step`` along ``dim`` replaced by ``src``."""
    x = as_tensor(input)
    (d,) = R.normalize_dims(dim, x.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    key = (slice(None),) * d + (slice(start, end, step),)
    return _write(x, src, _positions(x)[key], "slice_scatter")


def as_strided_scatter(input, src, size, stride, storage_offset=None) -> Tensor:
    """``input`` with the elements that ``input.as_strided(size, stride,
    storage_offset)`` would view (of its contiguous storage) replaced by ``src``."""
    x = as_tensor(input)
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {size} and {stride}")
    offset = int(storage_offset or 0)
    reach = offset + sum((n - 1) * s for n, s in zip(size, stride) if n > 0)
    if any(n == 0 for n in size):
        reach = offset - 1
    if min(stride, default=0) < 0 or reach >= x.numel():
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset} "
            f"reach beyond the input's {x.numel()} elements"
        )
    places = np.zeros(size, np.int64) + offset
    for axis, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[axis] = n
        places = places + (np.arange(n) * s).reshape(shape)
    return _write(x, src, places, "as_strided_scatter")


# ---------------------------------------------------------------------------- put
def put(input, index, source, accumulate: bool = False) -> Tensor:
    """``input`` (seen as 1-D) with ``source`` written at the flat ``index`` (negative
    positions count from the end); ``accumulate`` adds instead (repeats add up)."""
    x = as_tensor(input)
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {idx.dtype}")
    source = as_tensor(source)
    if source.numel() != idx.size:
        raise IndexError(
            f"put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {idx.size}"
        )
    n = x.numel()
    idx = idx.reshape(-1)
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx.max() if idx.max() >= n else idx.min()
        raise IndexError(f"put_(): index {bad} out of range for tensor of size {n}")
    idx = np.where(idx < 0, idx + n, idx)
    src = source.to(x.dtype).reshape(-1)
    flat = x.reshape(-1)
    if accumulate:
        flat = flat + I.IndexAdd.apply(src, flat.shape, idx, True)
    else:
        flat = I.Put.apply(flat, src, idx)
    return flat.reshape(x.shape)


def index_reduce(input, dim: int, index, source, reduce: str, *, include_self: bool = True):
    """Combine the slices of ``source`` into ``input`` at ``index`` along ``dim`` with
    ``reduce`` (``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``): ``scatter_reduce``
    with ``index`` spread over ``source``'s other dims."""
    x = as_tensor(input)
    if x.dtype == np.bool_:
        raise no_kernel("index_reduce", x.dtype)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    src = as_tensor(source)
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    (d,) = R.normalize_dims(dim, max(x.ndim, 1))
    if idx.ndim > 1 or idx.size != (src.shape[d] if src.ndim else 1):
        raise IndexError(
            f"index_reduce_(): Index should have dimension 1 or 0 and as many entries as "
            f"source has along dim {d} (got index of shape {shape_str(idx.shape)} and source "
            f"of shape {shape_str(src.shape)})"
        )
    shape = [1] * src.ndim
    if src.ndim:
        shape[d] = -1
    spread = np.broadcast_to(idx.astype(np.int64).reshape(shape), src.shape)
    return scatter_reduce(x, d, spread, src, reduce, include_self=include_self)


def _put_(self: Tensor, index, source, accumulate: bool = False) -> Tensor:
    return self._inplace("put_", put(self, index, source, accumulate))


def _index_reduce_(self, dim, index, source, reduce, *, include_self=True) -> Tensor:
    out = index_reduce(self, dim, index, source, reduce, include_self=include_self)
    return self._inplace("index_reduce_", out)


def _fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """Fill the main diagonal (``i, i, ..., i``) with ``fill_value``, in place. For a
    tall matrix, ``wrap`` restarts the diagonal every ``cols + 1`` rows (NumPy's rule)."""
    shape = self.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    numel = self.numel()
    if len(shape) == 2:
        step = shape[1] + 1
        end = numel if wrap else min(shape[0], shape[1]) * shape[1]
    else:
        step = sum(int(np.prod(shape[k + 1 :])) for k in range(len(shape)))
        end = numel
    mask = np.zeros(numel, bool)
    mask[np.arange(0, end, step)] = True
    filled = self.masked_fill(_const(mask.reshape(shape)), fill_value)
    return self._inplace("fill_diagonal_", filled, cast=True)


#: Tensor methods with no function of that name (attached by ``surface.py``).
TENSOR_METHODS = {
    "put_": _put_,
    "index_reduce_": _index_reduce_,
    "fill_diagonal_": _fill_diagonal_,
}
METHODS = [
    "diagonal_scatter",
    "select_scatter",
    "slice_scatter",
    "as_strided_scatter",
    "put",
    "index_reduce",
]
FUNCTIONS = METHODS
