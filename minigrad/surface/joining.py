"""Joining, splitting and products, as compositions of ``cat``, indexing and ``matmul``.

- joining: ``hstack``, ``vstack`` (``row_stack``), ``dstack``, ``column_stack``,
  ``concat`` / ``concatenate``, ``block_diag``, ``cartesian_prod``, ``atleast_1d/2d/3d``,
  ``broadcast_to``, ``broadcast_tensors``, ``broadcast_shapes``;
- splitting and reordering: ``tensor_split``, ``split_with_sizes``, ``hsplit``,
  ``vsplit``, ``dsplit``, ``ravel``, ``fliplr``, ``flipud``, ``rot90``, ``msort``;
- differences and sums: ``diff``, ``trace``;
- products: ``mm``, ``mv``, ``dot``, ``vdot``, ``inner``, ``ger``, ``addmm``, ``addmv``,
  ``addr``, ``baddbmm``, ``addbmm``, ``kron``, ``tensordot``;
- searching: ``searchsorted``, ``bucketize``, ``bincount``, ``unique`` (no gradient);
- dtype questions: ``result_type``, ``promote_types``, ``can_cast``.

Gradients come from the operations they are made of.
"""

from __future__ import annotations

import numpy as np

from minigrad import dtypes
from minigrad.amp.autocast_mode import lower_precision
from minigrad.functions import signatures
from minigrad.functions.errors import ShapeError, no_kernel
from minigrad.functions.reduction import normalize_dims
from minigrad.functions.signatures import scaled_sum
from minigrad.ops import cat, stack
from minigrad.printing import shape_str
from minigrad.tensor import Tensor, as_tensor


def _const(array) -> Tensor:
    return Tensor._make(np.asarray(array), False, None)


def _tensors(tensors) -> list:
    return [as_tensor(t) for t in tensors]


def _args(tensors: tuple) -> list:
    """``f(a, b)`` and ``f([a, b])`` alike."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    return _tensors(tensors)


# ------------------------------------------------------------------------------ joining
def atleast_1d(*tensors):
    ts = _args(tensors)
    out = [t.reshape(1) if t.ndim == 0 else t for t in ts]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_2d(*tensors):
    ts = _args(tensors)
    out = [t.reshape(1, -1) if t.ndim < 2 else t for t in ts]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_3d(*tensors):
    ts = _args(tensors)
    out = []
    for t in ts:
        if t.ndim == 0:
            t = t.reshape(1, 1, 1)
        elif t.ndim == 1:
            t = t.reshape(1, -1, 1)
        elif t.ndim == 2:
            t = t.unsqueeze(-1)
        out.append(t)
    return out[0] if len(out) == 1 else tuple(out)


def _non_empty(tensors, op: str) -> list:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    return tensors


def hstack(tensors) -> Tensor:
    ts = [atleast_1d(t) for t in _non_empty(tensors, "hstack")]
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors) -> Tensor:
    return cat([atleast_2d(t) for t in _non_empty(tensors, "vstack")], 0)


def dstack(tensors) -> Tensor:
    return cat([atleast_3d(t) for t in _non_empty(tensors, "dstack")], 2)


def column_stack(tensors) -> Tensor:
    ts = [as_tensor(t) for t in _non_empty(tensors, "column_stack")]
    return cat([t.reshape(-1, 1) if t.ndim <= 1 else t for t in ts], 1)


def concat(tensors, dim: int = 0) -> Tensor:
    return cat(tensors, dim)


def block_diag(*tensors) -> Tensor:
    """The tensors (each at most 2-D) along the diagonal of one matrix, zeros elsewhere."""
    ts = [t.reshape(1, -1) if t.ndim < 2 else t for t in _tensors(tensors)]
    cols = sum(t.shape[1] for t in ts)
    rows, start = [], 0
    for t in ts:
        left = _const(np.zeros((t.shape[0], start), t.dtype))
        right = _const(np.zeros((t.shape[0], cols - start - t.shape[1]), t.dtype))
        rows.append(cat([left, t, right], 1))
        start += t.shape[1]
    return cat(rows, 0)


def cartesian_prod(*tensors) -> Tensor:
    """Every combination of one element from each 1-D tensor, one per row."""
    from minigrad.surface.selection import meshgrid

    ts = _tensors(tensors)
    if len(ts) == 1:
        return ts[0]
    return stack([g.reshape(-1) for g in meshgrid(*ts, indexing="ij")], 1)


def broadcast_shapes(*shapes) -> tuple:
    try:
        return tuple(
            np.broadcast_shapes(*[(s,) if isinstance(s, int) else tuple(s) for s in shapes])
        )
    except ValueError:
        raise ShapeError(f"broadcast_shapes: shapes {list(shapes)} do not broadcast") from None


def broadcast_to(input, size) -> Tensor:
    x = as_tensor(input)
    return x.expand(*((size,) if isinstance(size, (int, np.integer)) else size))


def broadcast_tensors(*tensors) -> tuple:
    ts = _tensors(tensors)
    shape = broadcast_shapes(*[t.shape for t in ts])
    return tuple(t.expand(*shape) for t in ts)


# ------------------------------------------------------------------ splitting, reordering
def tensor_split(input, indices_or_sections, dim: int = 0) -> tuple:
    """Split into ``n`` nearly equal parts (an int, or a 0-d int64 tensor) or at the given
    indices (a list, or a 1-d int64 tensor), as views."""
    x = as_tensor(input)
    if x.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    (d,) = normalize_dims(dim, x.ndim)
    n = x.shape[d]
    where = _sections_or_indices(indices_or_sections)
    if isinstance(where, int):
        if where <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {where}")
        sizes = [n // where + (1 if i < n % where else 0) for i in range(where)]
        bounds = np.cumsum([0] + sizes)
    else:
        bounds = [0] + [min(max(i, 0), n) for i in where] + [n]
    return tuple(x.narrow(d, lo, max(hi - lo, 0)) for lo, hi in zip(bounds[:-1], bounds[1:]))


def _sections_or_indices(value):
    """tensor_split's second argument as an int (sections) or a list of ints (indices)."""
    if isinstance(value, Tensor):
        if value.dtype != dtypes.int64:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but "
                f"got {value.dtype}"
            )
        if value.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {value.ndim} dims"
            )
        return int(value.item()) if value.ndim == 0 else [int(v) for v in value.tolist()]
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (list, tuple)) and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value
    ):
        return [int(v) for v in value]
    raise TypeError(
        "tensor_split(): argument 'indices_or_sections' must be an int, a sequence of ints or "
        f"an int64 tensor, not {type(value).__name__}"
    )


def split_with_sizes(input, split_sizes, dim: int = 0) -> tuple:
    return as_tensor(input).split(list(split_sizes), dim)


def _split_along(x: Tensor, sections, dim: int, name: str, least: int) -> tuple:
    """hsplit / vsplit / dsplit: ``tensor_split`` along ``dim`` of a tensor of at least
    ``least`` dims, whose size an int ``sections`` must divide."""
    if x.ndim < least:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {least} dimension, but got a tensor "
            f"with {x.ndim} dimensions!"
        )
    where = _sections_or_indices(sections)
    if isinstance(where, int) and (where == 0 or x.shape[dim] % where):
        raise RuntimeError(
            f"torch.{name} attempted to split along dimension {dim}, but the size of the "
            f"dimension {x.shape[dim]} is not divisible by the split_size {where}!"
        )
    return tensor_split(x, where, dim)


def hsplit(input, sections, *indices) -> tuple:
    """Split along dim 1 (dim 0 of a 1-D input) into ``sections`` equal parts, or at
    the indices given as a sequence or, as PyTorch's method takes them, one by one."""
    x = as_tensor(input)
    return _split_along(x, _sections(sections, indices), 0 if x.ndim == 1 else 1, "hsplit", 1)


def vsplit(input, sections, *indices) -> tuple:
    return _split_along(as_tensor(input), _sections(sections, indices), 0, "vsplit", 2)


def dsplit(input, sections, *indices) -> tuple:
    return _split_along(as_tensor(input), _sections(sections, indices), 2, "dsplit", 3)


def _sections(sections, indices: tuple):
    """``x.hsplit(1, 2)`` is ``x.hsplit([1, 2])``."""
    return (sections, *indices) if indices else sections


def ravel(input) -> Tensor:
    return as_tensor(input).reshape(-1)


def fliplr(input) -> Tensor:
    x = as_tensor(input)
    if x.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return x.flip(1)


def flipud(input) -> Tensor:
    x = as_tensor(input)
    if x.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return x.flip(0)


def rot90(input, k: int = 1, dims=(0, 1)) -> Tensor:
    """Rotate by 90 degrees ``k`` times in the plane ``dims`` (from the first towards the
    second)."""
    x = as_tensor(input)
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if x.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {x.ndim}")
    d0, d1 = normalize_dims(dims[0], x.ndim)[0], normalize_dims(dims[1], x.ndim)[0]
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}"
        )
    k %= 4
    if k == 1:
        return x.flip(d1).transpose(d0, d1)
    if k == 2:
        return x.flip(d0, d1)
    if k == 3:
        return x.transpose(d0, d1).flip(d1)
    return x


def msort(input) -> Tensor:
    return as_tensor(input).sort(0).values


# ----------------------------------------------------------------- differences and sums
def diff(input, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor:
    """out[i] = x[i + 1] - x[i] along ``dim``, ``n`` times, after ``prepend`` and
    ``append`` are joined to the input along ``dim``. As in PyTorch, ``n = 0`` gives a
    copy of the input (without them), and an ``n`` beyond the length leaves 0 elements."""
    x = as_tensor(input)
    if x.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    (d,) = normalize_dims(dim, x.ndim)
    extra = [as_tensor(t) for t in (prepend, append) if t is not None]
    if any(t.ndim != x.ndim for t in extra):
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if n == 0:
        return x.clone()
    parts = [as_tensor(t) for t in (prepend, x, append) if t is not None]
    x = cat(parts, d) if len(parts) > 1 else x
    for _ in range(n):
        m = x.shape[d]
        if m == 0:
            break
        later, earlier = x.narrow(d, 1, m - 1), x.narrow(d, 0, m - 1)
        x = later ^ earlier if x.dtype == np.bool_ else later - earlier  # bools: "differs"
    return x


def trace(input) -> Tensor:
    """The sum of the diagonal of a matrix."""
    x = as_tensor(input)
    if x.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, got {x.ndim} dims")
    if x.dtype == np.bool_:
        raise no_kernel("trace", x.dtype)
    return x.diagonal().sum()


# ------------------------------------------------------------------------------ products
def _need(x: Tensor, ndim: int, name: str) -> Tensor:
    if x.ndim != ndim:
        raise ShapeError(f"{name}: expected a {ndim}-D tensor, got shape {shape_str(x.shape)}")
    return x


def mm(input, mat2) -> Tensor:
    return _need(as_tensor(input), 2, "mm") @ _need(as_tensor(mat2), 2, "mm")


def mv(input, vec) -> Tensor:
    return _need(as_tensor(input), 2, "mv") @ _need(as_tensor(vec), 1, "mv")


def dot(input, tensor) -> Tensor:
    return _need(as_tensor(input), 1, "dot") @ _need(as_tensor(tensor), 1, "dot")


def inner(input, other) -> Tensor:
    """Sum over the last dims of both (a product with a number when one is 0-d)."""
    signatures.tensor_argument("inner", other, "other", 2)
    a, b = as_tensor(input), as_tensor(other)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return tensordot(a, b, ([-1], [-1]))


def ger(input, vec2) -> Tensor:
    return as_tensor(input).outer(vec2)


# The legacy forms with leading numbers (``addmm(beta, input, alpha, mat1, mat2)``,
# ``input.addmm(beta, mat1, mat2)``) are read by functions/signatures.scaled_sum.
@lower_precision  # bfloat16 under mg.autocast (minigrad/amp/autocast_mode.py)
def addmm(input, mat1, mat2, *legacy, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2)."""
    input, mat1, mat2, beta, alpha = scaled_sum("addmm", (input, mat1, mat2, *legacy), beta, alpha)
    return _scaled_sum(input, mm(mat1, mat2), beta, alpha)


def addmv(input, mat, vec, *legacy, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (mat @ vec)."""
    input, mat, vec, beta, alpha = scaled_sum("addmv", (input, mat, vec, *legacy), beta, alpha)
    return _scaled_sum(input, mv(mat, vec), beta, alpha)


def addr(input, vec1, vec2, *legacy, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2)."""
    input, vec1, vec2, beta, alpha = scaled_sum("addr", (input, vec1, vec2, *legacy), beta, alpha)
    return _scaled_sum(input, ger(vec1, vec2), beta, alpha)


@lower_precision  # bfloat16 under mg.autocast (minigrad/amp/autocast_mode.py)
def baddbmm(input, batch1, batch2, *legacy, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (batch1 @ batch2), batch by batch."""
    args = (input, batch1, batch2, *legacy)
    input, batch1, batch2, beta, alpha = scaled_sum("baddbmm", args, beta, alpha)
    return _scaled_sum(input, as_tensor(batch1).bmm(batch2), beta, alpha)


@lower_precision  # bfloat16 under mg.autocast (minigrad/amp/autocast_mode.py)
def addbmm(input, batch1, batch2, *legacy, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * sum over the batch of batch1 @ batch2."""
    args = (input, batch1, batch2, *legacy)
    input, batch1, batch2, beta, alpha = scaled_sum("addbmm", args, beta, alpha)
    return _scaled_sum(input, as_tensor(batch1).bmm(batch2).sum(0), beta, alpha)


def _scaled_sum(input, product: Tensor, beta, alpha) -> Tensor:
    """``beta * input + alpha * product`` as PyTorch computes it: for an integer (bool)
    product, ``beta`` and ``alpha`` are taken as integers (bools), as its documentation
    says they must be; ``beta = 0`` ignores ``input``, so NaN and inf in it do not
    propagate (and its gradient is 0)."""
    input = as_tensor(input)
    if product.dtype.kind == "b":
        beta, alpha = bool(beta), bool(alpha)
    elif product.dtype.kind in "iu":
        beta, alpha = int(beta), int(alpha)
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:
        shape = np.broadcast_shapes(input.shape, scaled.shape)
        return scaled if scaled.shape == shape else scaled.expand(shape).clone()
    return (input if beta == 1 else input * beta) + scaled


def kron(input, other) -> Tensor:
    """The Kronecker product: every element of ``input`` times the whole of ``other``."""
    signatures.tensor_argument("kron", other, "other", 2)
    a, b = as_tensor(input), as_tensor(other)
    n = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (n - a.ndim) + a.shape)
    b = b.reshape((1,) * (n - b.ndim) + b.shape)
    # (a0, 1, a1, 1, ...) * (1, b0, 1, b1, ...) -> (a0 b0, a1 b1, ...)
    a_shape = tuple(s for pair in zip(a.shape, (1,) * n) for s in pair)
    b_shape = tuple(s for pair in zip((1,) * n, b.shape) for s in pair)
    out = a.reshape(a_shape) * b.reshape(b_shape)
    return out.reshape(tuple(x * y for x, y in zip(a.shape, b.shape)))


def tensordot(a, b, dims=2) -> Tensor:
    """Sum of products over ``dims`` (an int: the last dims of a with the first of b;
    or two lists of dims)."""
    a, b = as_tensor(a), as_tensor(b)
    if isinstance(dims, (int, np.integer)):
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = [list(d) if isinstance(d, (list, tuple)) else [d] for d in dims]
    da = [d % a.ndim for d in da]
    db = [d % b.ndim for d in db]
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    size_a, size_b = list(a.shape), list(b.shape)
    for i, j in zip(da, db):  # a contracted dim of size 1 broadcasts, as in PyTorch
        if size_a[i] != size_b[j]:
            if size_a[i] == 1:
                size_a[i] = size_b[j]
            elif size_b[j] == 1:
                size_b[j] = size_a[i]
            else:
                raise RuntimeError(
                    f"contracted dimensions need to match, but first has size {size_a[i]} in "
                    f"dim {i} and second has size {size_b[j]} in dim {j}"
                )
    a = a.expand(*size_a) if tuple(size_a) != a.shape else a
    b = b.expand(*size_b) if tuple(size_b) != b.shape else b
    keep_a = [i for i in range(a.ndim) if i not in da]
    keep_b = [i for i in range(b.ndim) if i not in db]
    k = int(np.prod([a.shape[d] for d in da]))
    left = a.permute(*keep_a, *da).reshape(-1, k)
    right = b.permute(*db, *keep_b).reshape(k, -1)
    shape = tuple(a.shape[i] for i in keep_a) + tuple(b.shape[i] for i in keep_b)
    return (left @ right).reshape(shape)


def vdot(input, other) -> Tensor:
    return dot(input, other)


# ----------------------------------------------------------------------------- searching
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """Where each value of ``input`` would go in the sorted last dim of
    ``sorted_sequence`` (``side="left"``: before equal values, ``"right"``: after them).

    ``sorter`` (int64, the shape of ``sorted_sequence``) is the permutation that sorts an
    unsorted sequence: the result then indexes the sorted order. A 1-D sequence is
    searched by every value; an N-D one row by row, its leading dims matching the
    values'. A Python number gives a 0-d result."""
    seq = as_tensor(sorted_sequence)._data
    values = input._data if isinstance(input, Tensor) else np.asarray(input)
    if np.bool_ in (seq.dtype, values.dtype):
        raise no_kernel("searchsorted", np.bool_)
    if side not in (None, "left", "right"):
        raise RuntimeError(
            f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
        )
    if side == "left" and right:
        raise RuntimeError(
            "torch.searchsorted(): side and right can't be set to opposites, got side of left "
            "while right was True"
        )
    side = side or ("right" if right else "left")
    if seq.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension")
    if sorter is not None:
        order = sorter._data if isinstance(sorter, Tensor) else np.asarray(sorter)
        if order.dtype != np.int64 or order.shape != seq.shape:
            raise RuntimeError(
                "torch.searchsorted(): sorter must be an int64 tensor of the sorted sequence's "
                f"shape {list(seq.shape)}, got {order.dtype} of shape {list(order.shape)}"
            )
        if order.size and (order.min() < 0 or order.max() >= seq.shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
        seq = np.take_along_axis(seq, order, -1)
    if seq.ndim == 1:
        out = np.searchsorted(seq, values, side=side)
    else:
        if values.ndim == 0 or seq.shape[:-1] != values.shape[:-1]:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                "dimensions of boundaries tensor and input value tensor must match, but we got "
                f"boundaries tensor {list(seq.shape)} and input value tensor {list(values.shape)}"
            )
        count = int(np.prod(seq.shape[:-1]))  # reshape(-1, 0) cannot infer the -1
        rows = seq.reshape(count, seq.shape[-1])
        vals = values.reshape(count, values.shape[-1])
        out = np.empty(vals.shape, dtype=np.int64)
        for i in range(rows.shape[0]):
            out[i] = np.searchsorted(rows[i], vals[i], side=side)
        out = out.reshape(values.shape)
    return _const(np.asarray(out).astype(np.int32 if out_int32 else np.int64))


def bucketize(input, boundaries, *, out_int32=False, right=False) -> Tensor:
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def bincount(input, weights=None, minlength: int = 0) -> Tensor:
    """How often each value 0, 1, ... occurs in a 1-d tensor of non-negative integers
    (with ``weights``: their sums, in float64 unless the weights are float32)."""
    x = as_tensor(input)._data
    if x.dtype.kind not in "iu":
        raise no_kernel("bincount", x.dtype)
    if x.ndim != 1 or (x.size and x.min() < 0):
        raise ShapeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise ShapeError("minlength should be >= 0")
    if weights is None:
        return _const(np.bincount(x, None, minlength).astype(np.int64))
    w = as_tensor(weights)._data
    if w.shape != x.shape:
        raise ShapeError("weights should be 1-d and have the same length as input")
    out = np.bincount(x, w, minlength)  # float64
    return _const(out.astype(np.float32) if w.dtype == np.float32 else out)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (sorted), with the inverse index and counts if asked."""
    x = as_tensor(input)._data
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, axis=dim)
    out = [_const(values)]
    if return_inverse:
        out.append(_const(inverse.reshape(x.shape if dim is None else -1).astype(np.int64)))
    if return_counts:
        out.append(_const(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


# -------------------------------------------------------------------------- dtype rules
def result_type(tensor1, tensor2):
    a, b = tensor1, tensor2
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return dtypes.result_type(a.dtype, a.ndim, b.dtype, b.ndim)
    if isinstance(a, Tensor):
        return dtypes.scalar_result_type(a.dtype, b)
    if isinstance(b, Tensor):
        return dtypes.scalar_result_type(b.dtype, a)
    return as_tensor(a + b).dtype


def promote_types(type1, type2):
    return dtypes.result_type(dtypes.as_dtype(type1), 1, dtypes.as_dtype(type2), 1)


def can_cast(from_, to) -> bool:
    """PyTorch's rule: no cast to a lower category (float -> int, int -> bool)."""
    order = {"b": 0, "u": 1, "i": 1, "f": 2}
    return order[dtypes.as_dtype(from_).kind] <= order[dtypes.as_dtype(to).kind]


# ------------------------------------- torch-level names of minigrad.linalg's functions
# (minigrad.linalg itself is imported on first use, as ``torch.linalg``)
def det(input) -> Tensor:
    from minigrad import linalg

    return linalg.det(input)


def inverse(input) -> Tensor:
    from minigrad import linalg

    return linalg.inv(input)


def logdet(input) -> Tensor:
    """log det A (NaN where the determinant is negative, as PyTorch)."""
    return det(input).log()


def slogdet(input):
    from minigrad import linalg

    return linalg.slogdet(input)


def matrix_power(input, n: int) -> Tensor:
    from minigrad import linalg

    return linalg.matrix_power(input, n)


def chain_matmul(*matrices) -> Tensor:
    from minigrad import linalg

    return linalg.multi_dot(matrices)


#: Tensor methods.
METHODS = (
    "tensor_split split_with_sizes hsplit vsplit dsplit ravel fliplr flipud rot90 msort diff "
    "trace mm mv dot vdot inner ger addmm addmv addr baddbmm addbmm kron broadcast_to "
    "bincount unique det inverse logdet slogdet matrix_power"
).split()
#: ``mg.X`` functions.
FUNCTIONS = (
    METHODS
    + (
        "atleast_1d atleast_2d atleast_3d hstack vstack dstack column_stack concat block_diag "
        "cartesian_prod broadcast_shapes broadcast_tensors tensordot searchsorted bucketize "
        "result_type promote_types can_cast"
    ).split()
)
ALIASES = {"row_stack": "vstack", "concatenate": "concat"}
