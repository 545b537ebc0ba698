"""The indexing family, as PyTorch has it: picking (``take``, ``take_along_dim``,
``select``, ``narrow``, ``diagonal``, ``masked_select``, ``unfold``,
``repeat_interleave``), placing (``scatter``, ``scatter_add``, ``scatter_reduce``,
``index_add``, ``index_copy``, ``index_fill``, ``index_put``, ``masked_scatter``,
``diag_embed``), arranging (``movedim``, ``swapaxes``, ``tile``, ``meshgrid``) and
finding (``nonzero``, ``argwhere``, ``tril_indices``, ``triu_indices``).

Every one is an index into the input (``Index``: its gradient is added back where the
elements came from), a write of values at an index (``Put``: the overwritten places
get no gradient, the values get the gradient of their places), an addition at an
index (``IndexAdd``), or a reshuffle of dims. The index itself is built with NumPy;
"along ``dim``" means the index ``grids`` of ``functions/indexing._along_index``.
Each function is also a Tensor method where PyTorch has one (``METHODS``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from minigrad import dtypes
from minigrad.functions import indexing as I
from minigrad.functions import reduction as R
from minigrad.functions import signatures
from minigrad.functions.errors import IndexRangeError, ShapeError, no_kernel
from minigrad.functions.scatter import ScatterReduce
from minigrad.functions.windows import Diagonal, Unfold
from minigrad.printing import shape_str
from minigrad.tensor import Tensor, as_tensor


def _dim(dim, ndim: int) -> int:
    (d,) = R.normalize_dims(dim, ndim)
    return d


def _array(index, what: str) -> np.ndarray:
    """An integer index (Tensor, array or list) as an int64 array."""
    arr = index._data if isinstance(index, Tensor) else np.asarray(index)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{what}: expected an integer (int64) index, got {arr.dtype}")
    return arr.astype(np.int64, copy=False)


def _const(array) -> Tensor:
    return Tensor._make(np.asarray(array), False, None)


def _check_range(idx: np.ndarray, size: int, what: str) -> np.ndarray:
    if idx.size and (idx.min() < -size or idx.max() >= size):
        bad = idx.max() if idx.max() >= size else idx.min()
        raise IndexRangeError(f"{what}: index {bad} is out of bounds for size {size}")
    return idx


def _along(x: Tensor, dim: int, index: np.ndarray, what: str) -> tuple:
    """The full advanced index that reaches ``x[..., index[...], ...]`` along ``dim``."""
    if index.ndim != x.ndim:
        raise ShapeError(
            f"{what}: index must have as many dims as the input ({x.ndim}), got shape "
            f"{shape_str(index.shape)}"
        )
    _check_range(index, x.shape[dim], what)
    return I._along_index(index, dim)


def _dim_key(ndim: int, dim: int, index) -> tuple:
    return (slice(None),) * dim + (index,) + (slice(None),) * (ndim - dim - 1)


# ------------------------------------------------------------------------------ picking
def select(input, dim: int, index: int) -> Tensor:
    """The slice at ``index`` along ``dim`` (one dim fewer)."""
    x = as_tensor(input)
    d = _dim(dim, x.ndim)
    return x[(slice(None),) * d + (int(index),)]


def narrow(input, dim: int, start, length: int) -> Tensor:
    """Elements ``start`` to ``start + length - 1`` along ``dim`` (a view). ``start``
    may be a 0-d integer tensor, or negative (counted from the end)."""
    x = as_tensor(input)
    if x.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(start, Tensor):
        if start.ndim != 0 or start.dtype.kind not in "iu":
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = start.item()
    d = _dim(dim, x.ndim)
    size = x.shape[d]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    start = int(start) % size if size and start < 0 else int(start)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return x[(slice(None),) * d + (slice(start, start + length),)]


def take(input, index) -> Tensor:
    """The elements of the flattened input at ``index`` (the result has index's shape)."""
    signatures.tensor_argument("take", index, "index", 2)
    x = as_tensor(input)
    idx = _check_range(_array(index, "take"), x.numel(), "take")
    return x.reshape(-1)[idx]


def take_along_dim(input, indices, dim=None) -> Tensor:
    """``gather`` along ``dim`` with the index broadcast against the input."""
    signatures.tensor_argument("take_along_dim", indices, "indices", 2)
    x = as_tensor(input)
    idx = _array(indices, "take_along_dim")
    if dim is None:
        return take(x, idx.reshape(-1))
    d = _dim(dim, x.ndim)
    idx = np.where(idx < 0, idx + x.shape[d], idx)  # take_along_dim counts from the end
    shape = list(np.broadcast_shapes(_without(x.shape, d), _without(idx.shape, d)))
    x_shape, idx_shape = list(shape), list(shape)
    x_shape[d], idx_shape[d] = x.shape[d], idx.shape[d]
    return x.expand(*x_shape).gather(d, _const(np.broadcast_to(idx, idx_shape)))


def _without(shape: tuple, d: int) -> tuple:
    return tuple(1 if i == d else s for i, s in enumerate(shape))


def masked_select(input, mask) -> Tensor:
    """The elements where ``mask`` (broadcast with the input) is True, as a 1-D tensor."""
    x = as_tensor(input)
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise TypeError(f"masked_select: mask must be a bool tensor, got {m.dtype}")
    shape = np.broadcast_shapes(x.shape, m.shape)
    return x.expand(*shape)[np.broadcast_to(m, shape)]


def diagonal(input, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of the planes (dim1, dim2), as the last dim of the result: a view of
    the input (writing into it writes the input's diagonal), as in PyTorch."""
    x = as_tensor(input)
    d1, d2 = _dim(dim1, x.ndim), _dim(dim2, x.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal: dim1 and dim2 cannot be the same dim ({dim1})")
    return Diagonal.apply(x, int(offset), d1, d2)


def diag_embed(input, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices whose diagonal (at ``offset``) holds the last dim of the input."""
    x = as_tensor(input)
    nd = x.ndim + 1
    d1, d2 = _dim(dim1, nd), _dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = x.shape[-1]
    m = n + abs(offset)
    i = np.arange(n) + max(-offset, 0)
    j = np.arange(n) + max(offset, 0)
    out = I.IndexAdd.apply(x, x.shape[:-1] + (m, m), (Ellipsis, i, j), True)
    order = [None] * nd
    order[d1], order[d2] = nd - 2, nd - 1
    rest = iter(range(nd - 2))
    return out.permute(*[o if o is not None else next(rest) for o in order])


def diag(input, diagonal: int = 0) -> Tensor:
    """A 1-D input: the square matrix with it on the ``diagonal``; a 2-D input: that
    diagonal of it."""
    x = as_tensor(input)
    if x.ndim == 1:
        return diag_embed(x, diagonal, 0, 1)
    if x.ndim == 2:
        return globals()["diagonal"](x, diagonal)
    raise RuntimeError(f"diag: expected a 1-D or 2-D tensor, got {x.ndim} dims")


def diagflat(input, offset: int = 0) -> Tensor:
    return diag(as_tensor(input).reshape(-1), offset)


def unfold(input, dimension: int, size: int, step: int) -> Tensor:
    """Windows of ``size`` elements, every ``step`` along ``dimension``: that dim becomes
    the window count and a new last dim of ``size`` holds each window. A view of the
    input (windows that overlap share its elements), as in PyTorch; a 0-d input gives
    the one window of ``size`` (0 or 1) elements."""
    x = as_tensor(input)
    d = _dim(dimension, max(x.ndim, 1))
    n = x.shape[d] if x.ndim else 1
    if size < 0 or size > n or step <= 0:
        raise RuntimeError(
            f"unfold: size ({size}) must be in [0, {n}] (the size of dim {dimension}) and step "
            f"({step}) > 0"
        )
    if x.ndim == 0:
        return Unfold.apply(x.reshape(1), 0, int(size), int(step)).reshape(size)
    return Unfold.apply(x, d, int(size), int(step))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Each element repeated ``repeats`` times (an int, or one count per element) along
    ``dim`` (over the flattened input by default)."""
    x = as_tensor(input)
    if repeats is None:  # torch.repeat_interleave(counts): the indices, each repeated
        counts = _array(x, "repeat_interleave")
        return _const(np.repeat(np.arange(counts.size), counts))
    if dim is None:
        x, d = x.reshape(-1), 0
    else:
        d = _dim(dim, x.ndim)
    counts = repeats._data if isinstance(repeats, Tensor) else np.asarray(repeats)
    idx = np.repeat(np.arange(x.shape[d]), counts)
    return x[_dim_key(x.ndim, d, idx)]


# ------------------------------------------------------------------------------ placing
def _scalar_as_vector(op):
    """PyTorch lets the ops that place values along a dim (scatter, index_add, ...) take
    a 0-d tensor as a vector of one element (dim 0 or -1), with a 0-d (or one-element)
    index and source: run ``op`` on one-element vectors, and return a 0-d result. (A
    source is the argument after the index; ``index_fill``'s value stays as it is.)"""

    @functools.wraps(op)
    def run(input, dim, index, *args, **kwargs):
        x = as_tensor(input)
        if x.ndim != 0:
            return op(x, dim, index, *args, **kwargs)
        _dim(dim, 1)  # 0 or -1, else PyTorch's IndexError
        if args and op.__name__ != "index_fill":
            args = (_one_element(args[0]), *args[1:])
        if "src" in kwargs:
            kwargs["src"] = _one_element(kwargs["src"])
        return op(x.reshape(1), 0, _one_element(index), *args, **kwargs).reshape(())

    return run


def _one_element(a):
    """A 0-d tensor (or array) as a vector of one element; anything else as it is."""
    if isinstance(a, (Tensor, np.ndarray)) and a.ndim == 0:
        return a.reshape(1)
    return a


def _src_for(src, index: np.ndarray, like: Tensor, what: str) -> Tensor:
    """``src`` cut to ``index``'s shape (PyTorch uses only that corner of it); a tensor
    ``src`` must have the input's dtype and index's number of dims, and be at least as
    large as index in every dim, as PyTorch requires."""
    if not isinstance(src, Tensor):
        return _const(np.asarray(src, dtype=like.dtype))
    if src.dtype != like.dtype:
        raise ShapeError(
            f"{what}: Expected self.dtype to be equal to src.dtype ({like.dtype} and {src.dtype})"
        )
    if src.ndim != index.ndim or any(i > s for i, s in zip(index.shape, src.shape)):
        raise ShapeError(
            f"{what}: index of shape {shape_str(index.shape)} does not fit src of shape "
            f"{shape_str(src.shape)} (same number of dims, no dim larger)"
        )
    return src[tuple(slice(0, s) for s in index.shape)]


@_scalar_as_vector
def scatter(input, dim: int, index, src=None, *, value=None, reduce=None) -> Tensor:
    """``out[index[i][j]][j] = src[i][j]`` (for dim 0): the input with values written at
    ``index`` along ``dim``. ``src`` may be a number (PyTorch's ``value``)."""
    x = as_tensor(input)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError(f"scatter: reduce must be 'add' or 'multiply', got {reduce!r}")
        return scatter_reduce(x, dim, index, src, "sum" if reduce == "add" else "prod")
    src = value if src is None else src
    d = _dim(dim, x.ndim)
    idx = _array(index, "scatter")
    key = _along(x, d, idx, "scatter")
    return I.Put.apply(x, _src_for(src, idx, x, "scatter"), key)


@_scalar_as_vector
def scatter_add(input, dim: int, index, src) -> Tensor:
    """The input with ``src`` added at ``index`` along ``dim`` (repeats add up)."""
    x = as_tensor(input)
    d = _dim(dim, x.ndim)
    idx = _array(index, "scatter_add")
    key = _along(x, d, idx, "scatter_add")
    return x + I.IndexAdd.apply(_src_for(src, idx, x, "scatter_add"), x.shape, key, True)


@_scalar_as_vector
def scatter_reduce(
    input,
    dim: int,
    index,
    src,
    reduce: str,
    *,
    include_self: bool = True,
) -> Tensor:
    """Combine ``src`` into the input at ``index`` along ``dim`` with ``reduce``:
    ``"sum"``, ``"mean"`` (differentiable), ``"prod"``, ``"amax"``, ``"amin"``."""
    x = as_tensor(input)
    d = _dim(dim, x.ndim)
    idx = _array(index, "scatter_reduce")
    key = _along(x, d, idx, "scatter_reduce")
    s = _src_for(src, idx, x, "scatter_reduce")
    hit = np.zeros(x.shape, bool)
    hit[key] = True
    base = x if include_self else x.masked_fill(_const(hit), 0)
    if reduce == "mean" and x.dtype == np.bool_:
        raise no_kernel("scatter_reduce mean", x.dtype)
    if reduce in ("sum", "mean"):
        total = base + I.IndexAdd.apply(s, x.shape, key, True)
        if reduce == "sum":
            return total
        count = np.zeros(x.shape, x.dtype)
        np.add.at(count, key, 1)
        count = count + (1 if include_self else 0)
        count = np.where(count == 0, 1, count)
        out = total / _const(count.astype(x.dtype))
        return out if x.dtype.kind == "f" else out.floor().to(x.dtype)
    if reduce not in ScatterReduce.REDUCTIONS:
        raise RuntimeError(f"scatter_reduce: unknown reduce {reduce!r}")
    return ScatterReduce.apply(x, s, key, reduce, include_self)


def _dim_index(x: Tensor, dim: int, index, what: str) -> tuple:
    d = _dim(dim, max(x.ndim, 1))
    idx = _array(index, what).reshape(-1)
    _check_range(idx, x.shape[d] if x.ndim else 1, what)
    return d, idx


def _slices_source(x: Tensor, d: int, idx: np.ndarray, source, what: str) -> Tensor:
    """``source`` of index_add / index_copy: shaped like ``x`` with ``len(idx)`` along
    ``d`` (PyTorch's RuntimeError otherwise)."""
    source = as_tensor(source)
    want = x.shape[:d] + (idx.size,) + x.shape[d + 1 :]
    if source.shape != want and not (source.numel() == idx.size and source.ndim <= 1 == x.ndim):
        raise ShapeError(
            f"{what}: source tensor shape must match self tensor shape, excluding the "
            f"specified dimension: expected {shape_str(want)}, got {shape_str(source.shape)}"
        )
    return source


@_scalar_as_vector
def index_add(input, dim: int, index, source, *, alpha=1) -> Tensor:
    """The input with ``alpha * source`` added at ``index`` along ``dim``."""
    x = as_tensor(input)
    d, idx = _dim_index(x, dim, index, "index_add")
    source = _slices_source(x, d, idx, source, "index_add").to(x.dtype)
    if alpha != 1:
        source = source * alpha
    return x + I.IndexAdd.apply(source, x.shape, _dim_key(x.ndim, d, idx), True)


@_scalar_as_vector
def index_copy(input, dim: int, index, source) -> Tensor:
    """The input with the slices at ``index`` along ``dim`` replaced by ``source``'s."""
    x = as_tensor(input)
    d, idx = _dim_index(x, dim, index, "index_copy")
    source = _slices_source(x, d, idx, source, "index_copy").to(x.dtype)
    return I.Put.apply(x, source, _dim_key(x.ndim, d, idx))


@_scalar_as_vector
def index_fill(input, dim: int, index, value) -> Tensor:
    """The input with the slices at ``index`` along ``dim`` set to ``value``."""
    x = as_tensor(input)
    d, idx = _dim_index(x, dim, index, "index_fill")
    hit = np.zeros(x.shape, bool)
    hit[_dim_key(x.ndim, d, idx)] = True
    return x.masked_fill(_const(hit), value)


def index_put(input, indices, values, accumulate: bool = False) -> Tensor:
    """``x[indices] = values`` (or ``+=`` with ``accumulate``), out of place."""
    x = as_tensor(input)
    key, _ = I.normalize_index(tuple(indices))
    values = as_tensor(values).to(x.dtype)
    if accumulate:
        shape = np.shape(x._data[key])
        return x + I.IndexAdd.apply(values.expand(*shape), x.shape, key, True)
    return I.Put.apply(x, values, key)


def masked_scatter(input, mask, source) -> Tensor:
    """The input with the places where ``mask`` is True filled, in order, from ``source``
    (the input and the mask broadcast together, as in PyTorch)."""
    x = as_tensor(input)
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_: expected BoolTensor for mask, got {m.dtype}")
    source = as_tensor(source)
    if source.dtype != x.dtype:
        raise RuntimeError(
            f"masked_scatter: expected self and source to have same dtypes but got {x.dtype} "
            f"and {source.dtype}"
        )
    shape = np.broadcast_shapes(x.shape, m.shape)
    x = x.expand(*shape) if x.shape != shape else x
    m = np.broadcast_to(m, shape)
    n = int(m.sum())
    src = as_tensor(source).reshape(-1)
    if src.shape[0] < n:
        raise RuntimeError(
            f"masked_scatter: source has {src.shape[0]} elements, the mask selects {n}"
        )
    return I.Put.apply(x, src[:n].to(x.dtype), m)


# ---------------------------------------------------------------------------- arranging
def movedim(input, source, destination) -> Tensor:
    """Move the dims ``source`` to the positions ``destination`` (the rest keep order)."""
    x = as_tensor(input)
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    written = (list(src), list(dst))
    src = [_dim(s, x.ndim) for s in src]
    dst = [_dim(s, x.ndim) for s in dst]
    for what, dims, given in (("source", src, written[0]), ("destination", dst, written[1])):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{what}` ({given})")
    order = [i for i in range(x.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return x.permute(*order)


def swapaxes(input, axis0: int, axis1: int) -> Tensor:
    return as_tensor(input).transpose(axis0, axis1)


def tile(input, dims, *more) -> Tensor:
    """Repeat the input ``dims[k]`` times along dim ``k`` (missing leading counts are 1);
    the counts as a sequence or, as PyTorch's method takes them, one by one."""
    x = as_tensor(input)
    dims = (dims, *more) if isinstance(dims, (int, np.integer)) else tuple(dims)
    dims = (1,) * (x.ndim - len(dims)) + dims
    return x.repeat(dims)


def meshgrid(*tensors, indexing: str = "ij") -> tuple:
    """Coordinate grids from 1-D tensors: with ``"ij"`` the k-th varies along dim k;
    ``"xy"`` swaps the first two (NumPy's default)."""
    if len(tensors) == 1 and isinstance(tensors[0], Sequence):
        tensors = tuple(tensors[0])
    ts = [as_tensor(t).reshape(-1) for t in tensors]
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    if indexing == "xy" and len(ts) >= 2:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.shape[0] for t in ts)
    grids = []
    for k, t in enumerate(ts):
        view = [1] * len(ts)
        view[k] = shape[k]
        grids.append(t.reshape(*view).expand(*shape))
    if indexing == "xy" and len(ts) >= 2:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


# ------------------------------------------------------------------------------ finding
def nonzero(input, *, as_tuple: bool = False):
    """The indices of the non-zero elements: an (n, ndim) int64 tensor, or one 1-D
    tensor per dim with ``as_tuple=True``."""
    x = as_tensor(input)
    if as_tuple:
        data = x._data if x.ndim else x._data.reshape(1)
        return tuple(_const(i.astype(np.int64)) for i in np.nonzero(data))
    return _const(np.argwhere(x._data).astype(np.int64))


def argwhere(input) -> Tensor:
    return nonzero(input)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None) -> Tensor:
    """The (2, n) coordinates of the lower triangle of a row x col matrix."""
    return _const(np.stack(np.tril_indices(row, offset, col)).astype(_index_dtype("tril", dtype)))


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None) -> Tensor:
    """The (2, n) coordinates of the upper triangle of a row x col matrix."""
    return _const(np.stack(np.triu_indices(row, offset, col)).astype(_index_dtype("triu", dtype)))


def _index_dtype(name: str, dtype) -> np.dtype:
    """Coordinates are integers: int64 by default, another integer dtype if asked."""
    dtype = np.dtype(np.int64) if dtype is None else dtypes.as_dtype(dtype)
    if dtype.kind not in "iu":
        raise no_kernel(f"{name}_indices", dtype)
    return dtype


#: The functions that are also Tensor methods.
METHODS = (
    "select narrow take take_along_dim masked_select diagonal diag_embed diag diagflat "
    "unfold repeat_interleave scatter scatter_add scatter_reduce index_add index_copy "
    "index_fill index_put masked_scatter movedim swapaxes tile nonzero argwhere"
).split()
#: The functions ``mg.X`` (``unfold`` is a Tensor method only, as in PyTorch).
FUNCTIONS = [name for name in METHODS if name != "unfold"] + [
    "meshgrid",
    "tril_indices",
    "triu_indices",
]
ALIASES = {"moveaxis": "movedim", "swapdims": "swapaxes"}
#: In-place variants (``x.index_add_(...)`` writes ``x.index_add(...)`` into ``x``).
INPLACE = (
    "index_add index_copy index_fill index_put masked_scatter scatter scatter_add scatter_reduce"
).split()
