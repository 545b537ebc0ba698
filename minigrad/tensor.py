"""``Tensor``: a NumPy array that remembers how it was computed.

A tensor holds ``data`` (a ``numpy.ndarray``), ``requires_grad``, ``grad`` and, if an
operation on tensors that require grad produced it, ``grad_fn``: the node of the
graph (a ``Function`` instance) that can send a gradient back to the inputs.
``backward()`` walks that graph (``minigrad/autograd/engine.py``).

This file holds the tensor's state and its user-facing methods; every differentiable
method is a thin call into ``minigrad/functions/``, where the forward and the backward
of each operation sit side by side.
"""

from __future__ import annotations

import builtins
import math
from collections import namedtuple
from typing import TYPE_CHECKING

import numpy as np

from minigrad import dtypes, layouts, printing
from minigrad import random as _random
from minigrad.amp.autocast_mode import lower_precision  # products under mg.autocast
from minigrad.autograd import api, engine, hooks, inplace, views
from minigrad.autograd.function import _bind_tensor
from minigrad.autograd.grad_mode import _state
from minigrad.functions import arithmetic as A
from minigrad.functions import indexing as I
from minigrad.functions import reduction as R
from minigrad.functions import shape as S
from minigrad.functions import signatures
from minigrad.functions import unary as U
from minigrad.functions.elementwise import TABLE  # PyTorch's messages for bool operands
from minigrad.functions.errors import (
    DtypeError,
    DtypeMismatchError,
    IndexRangeError,
    ShapeError,
    floating_only,
    no_kernel,
)
from minigrad.kernels import runtime

if TYPE_CHECKING:  # typing.Self is Python 3.11's; annotations here are never evaluated
    from typing import Self
from minigrad.printing import shape_str

_Number = (int, float, np.integer, np.floating, bool, np.bool_)

#: ``max(dim)`` / ``min(dim)`` return ``(values, indices)``, as in PyTorch.
MaxMin = namedtuple("MaxMin", ["values", "indices"])
#: ``sort`` and ``topk`` too.
SortResult = namedtuple("SortResult", ["values", "indices"])
TopK = namedtuple("TopK", ["values", "indices"])


def _array_from(data, dtype=None) -> np.ndarray:
    """Python data -> array, with PyTorch's defaults (Python floats become float32)."""
    dtype = dtypes.as_dtype(dtype)
    if isinstance(data, Tensor):
        data = data._data
    if isinstance(data, (np.ndarray, np.generic)):
        arr = np.array(data, dtype=dtype, copy=True)
    else:
        found: list = []
        if isinstance(data, (list, tuple)):
            data = _scalars_from_tensors(data, found)
        try:
            arr = np.array(data, dtype=dtype)
        except (ValueError, OverflowError) as e:
            raise ValueError(_sequence_problem(data) or f"tensor: {e}") from None
        # (float16 cannot hold 2^63: its max is 65504, and the comparison would warn)
        big = arr.dtype.kind == "f" and arr.itemsize > 2 and bool(np.any(np.abs(arr) >= 2.0**63))
        if arr.dtype.kind == "O" or (dtype is None and arr.dtype == np.uint64) or big:
            # an int beyond int64 may have made NumPy pick object, uint64 or float64
            problem = _sequence_problem(data)
            if problem:
                raise ValueError(problem)
        if dtype is None and found and arr.dtype.kind == "f":
            arr = arr.astype(np.result_type(*found))  # [0-d float64 tensors] stays float64
        elif dtype is None and arr.dtype == np.float64:
            arr = arr.astype(dtypes.default_float)
        elif dtype is None and arr.dtype.kind == "i":
            arr = arr.astype(np.int64)
        elif arr.dtype.kind not in "fiub":
            raise TypeError(f"tensor: cannot make a tensor from {type(data).__name__} data")
    return arr


def _scalars_from_tensors(seq, found: list):
    """A nested list with every one-element Tensor replaced by its NumPy scalar (so that
    ``mg.tensor([loss1, loss2])`` works, as in PyTorch); their dtypes go into ``found``."""
    out = []
    for x in seq:
        if isinstance(x, Tensor):
            if x._data.size != 1:
                raise ValueError(
                    "tensor: only one-element tensors can be converted to Python scalars; got "
                    f"a tensor of shape {shape_str(x._data.shape)} in the list (use "
                    "mg.stack to join tensors)"
                )
            found.append(x._data.dtype)
            x = x._data.reshape(())[()]
        elif isinstance(x, (list, tuple)):
            x = _scalars_from_tensors(x, found)
        out.append(x)
    return out


_INT64 = (-(2**63), 2**63 - 1)


def _sequence_problem(data) -> str | None:
    """What makes nested lists unfit for a tensor, in PyTorch's words: a ragged level
    (naming the dim and the lengths), a mix of numbers and lists, or an int that does
    not fit in int64. ``None`` when nothing is found."""
    level, dim = [data], 0
    while level:
        seqs = [x for x in level if isinstance(x, (list, tuple))]
        if seqs and len(seqs) != len(level):
            other = next(x for x in level if not isinstance(x, (list, tuple)))
            return (
                f"tensor: expected a sequence at dim {dim} but got {type(other).__name__} "
                f"{other!r} (every element at one depth must be a list of the same length)"
            )
        if not seqs:
            for x in level:
                if isinstance(x, int) and not _INT64[0] <= x <= _INT64[1]:
                    return (
                        f"tensor: the value {x} overflows int64 (the range is [-2**63, "
                        "2**63 - 1]); pass it as a float, or dtype=mg.float64"
                    )
            return None
        n = len(seqs[0])
        for sq in seqs:
            if len(sq) != n:
                return f"tensor: expected sequence of length {n} at dim {dim} (got {len(sq)})"
        level, dim = [x for sq in seqs for x in sq], dim + 1
    return None


def _size_args(size) -> tuple:
    """Accept both ``zeros(2, 3)`` and ``zeros((2, 3))``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:  # the common case: a tuple of Python ints, returned as it is
        if type(s) is not int or s < -1:
            break
    else:
        return size
    for s in size:
        if not isinstance(s, (int, np.integer)) or s < -1:
            raise ShapeError(f"size: expected non-negative ints, got {tuple(size)}")
    return tuple(int(s) for s in size)


def _ints(value, op: str, arg: str) -> tuple:
    """``value`` (an int or a tuple / list of ints) as a tuple of ints; anything else
    (a bool, a float, None, a string) is PyTorch's ``TypeError``."""
    items = value if isinstance(value, (tuple, list)) else (value,)
    for v in items:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise TypeError(
                f"{op}(): argument '{arg}' must be tuple of ints, not {type(value).__name__}"
            )
    return tuple(int(v) for v in items)


class FloatCasts:
    """``float()``, ``double()``, ``half()``: ``self.to(float32 / float64 / float16)``, for
    every class with a PyTorch-style ``to`` (``Tensor``, ``nn.Module``, ``PackedSequence``)."""

    __slots__ = ()

    def float(self) -> Self:
        return self.to(dtypes.float32)

    def double(self) -> Self:
        return self.to(dtypes.float64)

    def half(self) -> Self:
        return self.to(dtypes.float16)


class Tensor(FloatCasts):
    """An n-dimensional array with reverse-mode automatic differentiation.

    Args:
        data: an array, a nested list or a number. Python floats become float32,
            Python ints int64; a NumPy array keeps its dtype.
        dtype: optional dtype to convert to.
        requires_grad: record operations on this tensor so that ``backward`` can
            compute ``grad`` (floating-point tensors only).

    Example::

        >>> x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> (x * x).sum().backward()
        >>> x.grad
        tensor([2., 4., 6.])
    """

    # _counter: the version counter (shared with views, see autograd/views.py), _view:
    # where a view comes from (None for a tensor that owns its memory).
    __slots__ = (
        "_data",
        "_counter",
        "_view",
        "_grad",
        "_requires_grad",
        "_grad_fn",
        "__weakref__",
        "__dict__",  # as in PyTorch, a program may hang its own attributes on a tensor
    )
    _data: np.ndarray
    _requires_grad: bool
    _grad_hooks = None  # {id: hook}, set by register_hook on a leaf (autograd/hooks.py)
    _post_accumulate_hooks = None
    __array_priority__ = 1000  # PyTorch's value: NumPy defers to a tensor's operators
    __array_ufunc__ = None  # make NumPy defer to Tensor's operators: array * tensor -> Tensor
    __hash__ = object.__hash__  # tensors are hashed by identity (== is elementwise)

    def __init__(self, data, dtype=None, requires_grad: bool = False):
        self._init_leaf(_array_from(data, dtype), requires_grad)

    def _init_leaf(self, data: np.ndarray, requires_grad: bool) -> None:
        """Make this tensor a leaf over ``data`` (no copy): no history, no gradient yet
        (``Tensor.__init__`` and ``nn.Parameter.__init__``)."""
        self._data = data
        self._counter = None
        self._view = None
        self._grad = None
        self._grad_fn = None
        self._requires_grad = False
        if requires_grad:
            self.requires_grad = True

    @classmethod
    def _make(cls, data: np.ndarray, requires_grad: bool, grad_fn) -> Tensor:
        """Wrap an array without copying or checking (used by every operation)."""
        t = object.__new__(Tensor)
        t._data = data
        t._counter = None
        t._view = None
        t._grad = None
        t._requires_grad = requires_grad
        t._grad_fn = grad_fn
        return t

    # ------------------------------------------------------------------ autograd state
    @property
    def requires_grad(self) -> bool:
        if self._view is not None:
            views.refresh(self)  # an in-place change of its base may have given it a history
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        value = bool(value)
        if value and self._data.dtype.kind != "f":
            raise RuntimeError(
                "only tensors of floating point dtype can require gradients, got "
                f"{self._data.dtype}"
            )
        if not value and self.grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad of leaf tensors; use detach() to get "
                "a tensor that does not require grad"
            )
        self._requires_grad = value

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self) -> Tensor | None:
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"grad: expected a Tensor or None, got {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"grad: assigned a gradient of shape {shape_str(value._data.shape)} to a "
                    f"tensor of shape {shape_str(self._data.shape)}"
                )
        self._grad = value

    @property
    def grad_fn(self):
        """The node that made this tensor (``None`` for a leaf)."""
        if self._view is not None:
            views.refresh(self)
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    def retain_grad(self) -> None:
        """Keep the gradient of this non-leaf tensor in ``.grad`` after backward."""
        if not self._requires_grad:
            raise RuntimeError("retain_grad: the tensor does not require grad")
        if self.grad_fn is not None:
            engine.mark_retained(self)

    @property
    def retains_grad(self) -> bool:
        """True for a non-leaf tensor that called ``retain_grad()``."""
        node = self.grad_fn
        return node is not None and node._retained is not None and node._retained() is self

    def register_hook(self, hook):
        """Call ``hook(grad)`` with this tensor's gradient during backward; a returned
        tensor replaces the gradient. Returns a handle with ``remove()``."""
        return hooks.register_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(self)`` after backward accumulated into ``self.grad`` (leaves)."""
        return hooks.register_post_accumulate_grad_hook(self, hook)

    def backward(self, gradient=None, retain_graph: bool | None = None, create_graph: bool = False):
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad``.

        Args:
            gradient: d(loss)/d(self), required unless ``self`` is a scalar.
            retain_graph: keep the graph's saved tensors for another backward
                (defaults to ``create_graph``).
            create_graph: record the backward pass so the gradients can be
                differentiated again.
        """
        runtime.training_started()  # the allocator policy (minigrad/kernels/runtime.py)
        api.backward([self], None if gradient is None else [gradient], retain_graph, create_graph)

    def __deepcopy__(self, memo):
        if self.grad_fn is not None:
            raise RuntimeError(
                "only leaf tensors (created directly, not by an operation) support deepcopy; "
                "use t.detach().clone() for a copy without history"
            )
        if id(self) not in memo:
            t = Tensor._make(self._data.copy(), self._requires_grad, None)
            memo[id(self)] = t
        return memo[id(self)]

    def detach(self) -> Tensor:
        """The same data, cut off from the graph (sharing the version counter: an
        in-place change through the detached tensor is seen by a pending backward)."""
        t = Tensor._make(self._data, False, None)
        t._counter = views.counter_of(self)
        return t

    @property
    def data(self) -> Tensor:
        """A tensor sharing this tensor's memory that does not require grad.

        As in PyTorch, in-place changes through ``t.data`` are not tracked by autograd
        (it has a version counter of its own): ``p.data.zero_()`` is how weights are
        changed behind the graph's back. Use ``t.numpy()`` for the array itself.
        """
        return Tensor._make(self._data, False, None)

    @data.setter
    def data(self, value) -> None:
        if isinstance(value, Tensor):
            value = value._data
        elif not isinstance(value, np.ndarray):
            raise TypeError(f"data: expected a Tensor, got {type(value).__name__}")
        if value.dtype != self._data.dtype and self._requires_grad and value.dtype.kind != "f":
            raise RuntimeError(f"data: a tensor that requires grad cannot hold {value.dtype} data")
        self._data = value

    @property
    def _version(self) -> int:
        """How many in-place changes this tensor, its base or a view of them had
        (PyTorch's name)."""
        return 0 if self._counter is None else self._counter[0]

    _version_count = _version  # the name this counter had before

    @property
    def _base(self) -> Tensor | None:
        """The tensor this one is a view of (the one that owns the memory), or None when
        it is not a view (PyTorch's name: ``y._base is x`` after ``y = x.diagonal()``)."""
        return None if self._view is None else self._view.base

    def _bump_version(self) -> None:
        views.counter_of(self)[0] += 1

    # ------------------------------------------------------------------ array properties
    @property
    def shape(self) -> tuple:
        return self._data.shape

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def dtype(self) -> np.dtype:
        return self._data.dtype

    @property
    def device(self) -> str:
        return "cpu"

    def dim(self) -> int:
        return self._data.ndim

    def size(self, dim: int | None = None):
        if dim is None:
            return self._data.shape
        (d,) = R.normalize_dims(dim, self._data.ndim)
        return self._data.shape[d]

    def numel(self) -> int:
        return self._data.size

    def numpy(self) -> np.ndarray:
        """The underlying array (shared, not copied: treat it as read-only)."""
        return self._data

    def __array__(self, dtype=None, copy=None):
        """``np.asarray(t)``: the underlying array (converted when ``dtype`` is given)."""
        if dtype is not None and np.dtype(dtype) != self._data.dtype:
            return self._data.astype(dtype)
        return self._data.copy() if copy else self._data

    def item(self):
        if self._data.size != 1:
            raise ShapeError(
                f"item: only a tensor with one element can be converted to a Python "
                f"number, this one has shape {shape_str(self._data.shape)}"
            )
        return self._data.item()

    def tolist(self):
        return self._data.tolist()

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __bool__(self) -> bool:
        return bool(self._data)

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "biu" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be used as an index")
        return int(self._data.item())

    def __repr__(self) -> str:
        body = printing.body(self._data)
        extra = ""
        if self._data.dtype not in (dtypes.float32, dtypes.int64, dtypes.bool_):
            extra += f", dtype={self._data.dtype}"
        if self.grad_fn is not None:
            extra += f", grad_fn=<{self.grad_fn.name()}>"
        elif self._requires_grad:
            extra += ", requires_grad=True"
        return f"tensor({body}{extra})"

    # ------------------------------------------------------------------ dtype conversion
    def to(self, *args, **kwargs) -> Tensor:
        """``t.to(dtype)``, ``t.to(device)``, ``t.to(device, dtype)``, ``t.to(other)``
        (other's dtype), with PyTorch's ``non_blocking`` and ``copy`` keywords. The only
        device is the CPU: ``"cpu"`` is accepted, ``"cuda"`` or ``"mps"`` raise."""
        if not kwargs and len(args) == 1 and type(args[0]) is np.dtype:  # t.to(dtype), fast
            dtype = args[0]
            return self if dtype == self._data.dtype else A.Cast.apply(self, dtype)
        from minigrad.devices import check_device, is_device

        fmt = kwargs.pop("memory_format", None)
        if fmt is not None and fmt is not layouts.preserve_format:  # see minigrad/layouts.py
            return layouts.contiguous(self.to(*args, **kwargs), fmt, "to")
        dtype = kwargs.pop("dtype", None)
        check_device(kwargs.pop("device", None), "to")
        kwargs.pop("non_blocking", None)
        copy = kwargs.pop("copy", False)
        if kwargs:
            raise TypeError(f"to: unexpected arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a._data.dtype
            elif is_device(a):
                check_device(a, "to")
            elif isinstance(a, builtins.bool):
                continue  # the positional non_blocking / copy flags
            else:
                dtype = a
        dtype = self._data.dtype if dtype is None else dtypes.as_dtype(dtype)
        if dtype == self._data.dtype:
            return self.clone() if copy else self
        return A.Cast.apply(self, dtype)

    def long(self) -> Tensor:
        return self.to(dtypes.int64)

    def bool(self) -> Tensor:
        return self.to(dtypes.bool_)

    def clone(self, *, memory_format=None) -> Tensor:
        """A recorded row-major copy (``memory_format=mg.channels_last``: minigrad/layouts.py)."""
        if memory_format is not None:
            return layouts.clone(self, memory_format)
        return A.Clone.apply(self)

    def contiguous(self, memory_format=None) -> Tensor:
        """The tensor itself when its elements lie in row-major order without gaps,
        else a row-major copy (recorded, like ``clone``). ``memory_format=`` asks for
        another order (``mg.channels_last``: see minigrad/layouts.py)."""
        if memory_format is not None and memory_format is not layouts.contiguous_format:
            return layouts.contiguous(self, memory_format)
        if self._data.flags.c_contiguous:
            return self
        return A.Clone.apply(self)

    def cpu(self, memory_format=None) -> Tensor:
        """The tensor itself (it is already on the CPU, the only device)."""
        return self

    # ------------------------------------------------------------------ arithmetic
    # Each operator first tries the common cases, which need no promotion: a float tensor
    # with a Python float or int, or two tensors of one dtype. (This runs once per
    # operation: the shortcut halves the Python work before the Function.)
    def __add__(self, other):
        if _plain_scalar(self, other):
            return _add_scalar(self, other)
        if isinstance(other, Tensor) and other._data.dtype is self._data.dtype:
            return _add(self, other)
        if isinstance(other, _Number):
            return _add_scalar(*_with_scalar(self, other))
        return _add(*A.promote(self, as_tensor(other)))

    __radd__ = __add__

    def __sub__(self, other):
        if _plain_scalar(self, other):
            return _add_scalar(self, -other)
        _refuse_bool_subtraction(self, other)
        if isinstance(other, Tensor) and other._data.dtype is self._data.dtype:
            return _sub(self, other)
        if isinstance(other, _Number):
            if isinstance(other, np.generic):  # negated as a Python number (np.uint8 wraps)
                other = other.item()
            return _add_scalar(*_with_scalar(self, -other))
        return _sub(*A.promote(self, as_tensor(other)))

    def __rsub__(self, other):
        _refuse_bool_subtraction(other, self)
        if isinstance(other, _Number):
            return A.RSubScalar.apply(*_with_scalar(self, other))
        return _sub(*A.promote(as_tensor(other), self))

    def __mul__(self, other):
        if _plain_scalar(self, other):
            return _mul_scalar(self, other)
        if isinstance(other, Tensor) and other._data.dtype is self._data.dtype:
            return _mul(self, other)
        if isinstance(other, _Number):
            return _mul_scalar(*_with_scalar(self, other))
        return _mul(*A.promote(self, as_tensor(other)))

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, _Number):
            return A.DivScalar.apply(*_with_scalar(self, other, to_float=True))
        a, b = A.promote(self, as_tensor(other))
        dtype = dtypes.true_divide_type(a._data.dtype)
        if dtype is not a._data.dtype:
            a, b = a.to(dtype), b.to(dtype)
        return A.Div.apply(a, b)

    def __rtruediv__(self, other):
        if isinstance(other, _Number):
            return A.RDivScalar.apply(*_with_scalar(self, other, to_float=True))
        return as_tensor(other).__truediv__(self)

    def __pow__(self, other):
        if isinstance(other, _Number):
            return A.PowScalar.apply(*_with_scalar(self, other, wrap=False))
        return A.Pow.apply(*A.promote(self, as_tensor(other)))

    def __rpow__(self, other):
        if isinstance(other, _Number):
            return A.RPowScalar.apply(*_with_scalar(self, other, wrap=False))
        return as_tensor(other).__pow__(self)

    def __neg__(self):
        if self._data.dtype == np.bool_:
            raise DtypeError(TABLE["neg"].bool_error)
        return A.Neg.apply(self)

    def __pos__(self):
        if self._data.dtype == np.bool_:
            raise DtypeError(TABLE["positive"].bool_error)
        return self

    @lower_precision
    def __matmul__(self, other):
        if (
            isinstance(other, Tensor)
            and other._data.dtype is self._data.dtype
            and self._data.ndim >= 2
            and other._data.ndim >= 2
        ):
            return _matmul(self, other)  # the common case, without matmul's 1-d rules
        return A.matmul(self, other)

    @lower_precision
    def __rmatmul__(self, other):
        return A.matmul(as_tensor(other), self)

    # comparisons: no gradient, bool results
    def __eq__(self, other):  # type: ignore[override]
        return _compare(np.equal, self, other)

    def __ne__(self, other):  # type: ignore[override]
        return _compare(np.not_equal, self, other)

    def __lt__(self, other):
        return _compare(np.less, self, other)

    def __le__(self, other):
        return _compare(np.less_equal, self, other)

    def __gt__(self, other):
        return _compare(np.greater, self, other)

    def __ge__(self, other):
        return _compare(np.greater_equal, self, other)

    def pow(self, exponent):
        return self**exponent

    @lower_precision
    def matmul(self, other):
        return A.matmul(self, other)

    def clamp(self, min=None, max=None):
        if min is None and max is None:
            raise ShapeError("clamp: at least one of min and max must be given")
        if isinstance(min, Tensor) or isinstance(max, Tensor):
            if self._data.dtype == np.bool_ and min is not None and max is not None:
                raise no_kernel("clamp", np.bool_)
            # As in torch: x keeps its gradient where min <= x <= max (the ends included);
            # a bound gets it where the bound is the output.
            out = self
            if min is not None:
                lo, out = A.promote(as_tensor(min), out)
                out = I.Where.apply(out._data < lo._data, lo, out)
            if max is not None:
                hi, out = A.promote(as_tensor(max), out)
                out = I.Where.apply(out._data > hi._data, hi, out)
            return out
        x = self
        if min is not None:
            x, min = _with_scalar(x, min)
        if max is not None:
            x, max = _with_scalar(x, max)
        if x._data.dtype == np.bool_:  # bool bounds (an int bound makes the result int64)
            raise no_kernel("clamp", np.bool_)
        return U.Clamp.apply(x, min, max)

    clip = clamp

    # the elementwise table (sin, exp, atan2, maximum, ...) and the rest of PyTorch's
    # Tensor methods are attached by minigrad/__init__.py: see minigrad/surface/
    # ------------------------------------------------------------------ reductions
    def sum(self, dim=None, keepdim: bool = False, dtype=None):
        x = self if dtype is None else self.to(dtype)
        if x._data.dtype.kind == "u" and dtype is None:  # PyTorch: int64 (NumPy: uint64)
            x = x.to(dtypes.int64)
        n = self._data.ndim
        dims = (dim % n,) if type(dim) is int and -n <= dim < n else R.reduce_dims(dim, n)
        return R.Sum.apply(x, dims, keepdim)

    def mean(self, dim=None, keepdim: bool = False, dtype=None):
        """The mean over ``dim``; as in PyTorch, of a floating tensor (or one cast by
        ``dtype=`` to a floating dtype) only: an integer mean has no dtype to be in."""
        wanted = self._data.dtype if dtype is None else dtypes.as_dtype(dtype)
        if wanted.kind != "f":
            which = "Input" if dtype is None else "Optional"
            name = printing.torch_dtype_name(wanted)
            raise DtypeError(  # PyTorch's RuntimeError (DtypeError is one)
                f"mean(): could not infer output dtype. {which} dtype must be either a floating "
                f"point or complex dtype. Got: {name}"
            )
        x = self if dtype is None else self.to(dtype)
        return R.Mean.apply(x, R.reduce_dims(dim, self._data.ndim), keepdim)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        """Variance over ``dim``: sum (x - mean)^2 / (n - correction), ``correction`` 1 by
        default. ``unbiased=False`` is ``correction=0``; as in PyTorch, a positional bool
        is ``unbiased`` (``x.var(False)``, ``x.var(0, False, True)``: functions/signatures.py).
        """
        dim, keepdim, correction = signatures.variance("var", dim, unbiased, keepdim, correction)
        dims = R.reduce_dims(dim, self._data.ndim)
        return R.Var.apply(_variance_input(self), dims, keepdim, correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        """Standard deviation over ``dim``: ``sqrt(var(...))`` (same arguments as ``var``)."""
        dim, keepdim, correction = signatures.variance("std", dim, unbiased, keepdim, correction)
        dims = R.reduce_dims(dim, self._data.ndim)
        return R.Std.apply(_variance_input(self), dims, keepdim, correction)

    def amax(self, dim=None, keepdim: bool = False):
        return R.Amax.apply(self, R.reduce_dims(dim, self._data.ndim), keepdim)

    def amin(self, dim=None, keepdim: bool = False):
        return R.Amin.apply(self, R.reduce_dims(dim, self._data.ndim), keepdim)

    def max(self, dim=None, keepdim: bool = False):
        """``max()`` -> the largest value; ``max(dim)`` -> ``(values, indices)``;
        ``max(other_tensor)`` -> elementwise maximum."""
        if isinstance(dim, Tensor):
            return self.maximum(dim)
        if dim is None:
            return self.amax()
        return self._extreme_along(dim, keepdim, np.argmax)

    def min(self, dim=None, keepdim: bool = False):
        if isinstance(dim, Tensor):
            return self.minimum(dim)
        if dim is None:
            return self.amin()
        return self._extreme_along(dim, keepdim, np.argmin)

    def _extreme_along(self, dim, keepdim, arg_fn):
        (d,) = R.normalize_dims(dim, self._data.ndim)
        if self._data.ndim == 0:
            return MaxMin(self, Tensor._make(np.zeros((), np.int64), False, None))
        idx = np.expand_dims(arg_fn(self._data, axis=d), d)
        values = I.Gather.apply(self, d, idx)
        if not keepdim:
            values = values.squeeze(d)
            idx = np.squeeze(idx, d)
        return MaxMin(values, Tensor._make(idx.astype(np.int64, copy=False), False, None))

    def argmax(self, dim=None, keepdim: bool = False):
        return _arg_extreme(np.argmax, self, dim, keepdim)

    def argmin(self, dim=None, keepdim: bool = False):
        return _arg_extreme(np.argmin, self, dim, keepdim)

    def logsumexp(self, dim, keepdim: bool = False):
        return R.LogSumExp.apply(_floating(self), R.reduce_dims(dim, self._data.ndim), keepdim)

    def softmax(self, dim: int, dtype=None):
        """exp(x) / sum(exp(x)) along ``dim`` (computed in ``dtype`` if given)."""
        x = self if dtype is None else self.to(dtype)
        floating_only("softmax", x._data.dtype)
        (d,) = R.normalize_dims(dim, x._data.ndim)
        if x._data.ndim == 0:
            return x.reshape(1).softmax(0).reshape(())
        return R.Softmax.apply(x, d)

    def log_softmax(self, dim: int, dtype=None):
        """x - logsumexp(x) along ``dim`` (computed in ``dtype`` if given)."""
        x = self if dtype is None else self.to(dtype)
        floating_only("log_softmax", x._data.dtype)
        (d,) = R.normalize_dims(dim, x._data.ndim)
        if x._data.ndim == 0:
            return x.reshape(1).log_softmax(0).reshape(())
        return R.LogSoftmax.apply(x, d)

    # ------------------------------------------------------------------ shape
    def reshape(self, *shape):
        shape = _size_args(shape)
        if shape == self._data.shape:
            return self
        return S.Reshape.apply(self, shape)

    def view(self, *shape):
        """The same memory seen with another shape (``-1``: the size that fits), or,
        given a dtype, reinterpreted as that dtype. Unlike ``reshape`` it never copies:
        when the strides do not allow a view (a transposed tensor flattened), it raises
        PyTorch's RuntimeError; ``reshape`` (or ``contiguous().view``) copies there."""
        if len(shape) == 1 and not isinstance(shape[0], (tuple, list, builtins.int, np.integer)):
            return self._view_as_dtype(dtypes.as_dtype(shape[0]))
        return S.View.apply(self, _size_args(shape))

    def _view_as_dtype(self, dtype: np.dtype) -> Tensor:
        """``t.view(dtype)``: the same bytes read as ``dtype`` (no gradient)."""
        if dtype == self._data.dtype:
            return self
        try:
            data = self._data.view(dtype)
        except ValueError:
            raise RuntimeError(
                f"view: cannot view a tensor of dtype {self._data.dtype} and shape "
                f"{shape_str(self._data.shape)} as {dtype}: the last dim must be contiguous "
                "and its size in bytes divisible by the new element size"
            ) from None
        out = Tensor._make(data, False, None)
        out._counter = views.counter_of(self)
        return out

    def flatten(self, start_dim: int = 0, end_dim: int = -1):
        if self._data.ndim == 0:
            return self.reshape(1)
        s, e = (
            R.normalize_dims(start_dim, self._data.ndim)[0],
            R.normalize_dims(end_dim, self._data.ndim)[0],
        )
        if s > e:
            raise ShapeError("flatten: start_dim cannot come after end_dim")
        shape = self._data.shape
        merged = math.prod(shape[s : e + 1])  # (not -1: a size-0 dim elsewhere leaves -1 open)
        return self.reshape(shape[:s] + (merged,) + shape[e + 1 :]) if shape[s : e + 1] else self

    def unflatten(self, dim: int, sizes):
        (d,) = R.normalize_dims(dim, self._data.ndim)
        shape = self._data.shape
        return self.reshape(shape[:d] + tuple(sizes) + shape[d + 1 :])

    def permute(self, *dims):
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])  # permute((2, 0, 1)) as well as permute(2, 0, 1)
        if len(dims) != self._data.ndim:
            raise ShapeError(
                f"permute: got {len(dims)} dims {dims} for a tensor with {self._data.ndim} dims"
            )
        dims = tuple(R.normalize_dims(d, self._data.ndim)[0] for d in dims)  # -1 -> ndim - 1
        if sorted(dims) != list(range(self._data.ndim)):
            raise ShapeError(f"permute: dims {dims} is not a permutation")
        return S.Permute.apply(self, dims)

    def transpose(self, dim0: int, dim1: int):
        n = self._data.ndim
        d0, d1 = R.normalize_dims(dim0, n)[0], R.normalize_dims(dim1, n)[0]
        if d0 == d1:
            return self
        dims = list(range(n))
        dims[d0], dims[d1] = dims[d1], dims[d0]
        return S.Permute.apply(self, tuple(dims))

    def t(self):
        if self._data.ndim > 2:
            raise ShapeError(f"t: expects a tensor with <= 2 dims, got {self._data.ndim}")
        return self.transpose(0, 1) if self._data.ndim == 2 else self

    @property
    def T(self):
        return S.Permute.apply(self, tuple(range(self._data.ndim - 1, -1, -1)))

    @property
    def mT(self):
        n = self._data.ndim
        if n < 2:
            raise ShapeError(f"mT: needs at least 2 dims, got shape {shape_str(self._data.shape)}")
        return S.Permute.apply(self, tuple(range(n - 2)) + (n - 1, n - 2))

    def unsqueeze(self, dim: int):
        n = self._data.ndim + 1
        if not -n <= dim < n:
            raise IndexError(
                f"unsqueeze: dim out of range (expected to be in range of [{-n}, {n - 1}], "
                f"but got {dim})"
            )
        d = dim % n
        shape = self._data.shape
        return S.Reshape.apply(self, shape[:d] + (1,) + shape[d:])

    def squeeze(self, dim=None, *dims):
        """The tensor without its size-1 dims (of ``dim``: one, a sequence, or several
        given one by one, as PyTorch takes them)."""
        if dims:
            dim = (dim, *dims)
        shape = self._data.shape
        if dim is None:
            new = tuple(s for s in shape if s != 1)
        else:
            dims = R.normalize_dims(dim, self._data.ndim)
            new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
        return self if new == shape else S.Reshape.apply(self, new)

    def expand(self, *sizes):
        sizes = _size_args(sizes)
        lead = len(sizes) - self._data.ndim
        if lead < 0:
            raise ShapeError(
                f"expand: the number of sizes ({len(sizes)}) must be at least the number of "
                f"dims ({self._data.ndim})"
            )
        shape = tuple(
            self._data.shape[i - lead] if (s == -1 and i >= lead) else s
            for i, s in enumerate(sizes)
        )
        if shape == self._data.shape:
            return self
        return S.Expand.apply(self, shape)

    def expand_as(self, other):
        return self.expand(other.shape)

    def split(self, split_size, dim: int = 0):
        (d,) = R.normalize_dims(dim, self._data.ndim)
        n = self._data.shape[d]
        if isinstance(split_size, int):
            if split_size < 0:
                raise ShapeError(
                    f"split expects split_size be non-negative, but got split_size={split_size}"
                )
            if split_size == 0 and n:
                raise ShapeError(
                    "split_size can only be 0 if dimension size is 0, but got dimension size "
                    f"of {n}"
                )
            full, rest = divmod(n, split_size) if n else (0, 0)
            sizes = [split_size] * full + ([rest] if rest else []) or [0]  # empty: one piece
        else:
            sizes = list(split_size)
        if builtins.sum(sizes) != n:
            raise ShapeError(f"split: sizes {sizes} do not add up to {n} along dim {dim}")
        out, start = [], 0
        lead = (slice(None),) * d
        for s in sizes:
            out.append(self[lead + (slice(start, start + s),)])
            start += s
        views.mark_multi_output(out)
        return tuple(out)

    def chunk(self, chunks: int, dim: int = 0):
        (d,) = R.normalize_dims(dim, self._data.ndim)
        n = self._data.shape[d]
        if chunks <= 0:
            raise ShapeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
        if n == 0:  # PyTorch: `chunks` empty pieces
            return self.split([0] * chunks, d)
        return self.split(-(-n // chunks), d)

    # ------------------------------------------------------------------ indexing
    def __getitem__(self, key):
        key, advanced = I.normalize_index(key)
        split = I.split_integers(key) if advanced else None
        if split is not None:  # x[0, :, idx]: integers first, as PyTorch
            return self[split[0]][split[1]]
        return I.Index.apply(self, key, advanced)

    def __setitem__(self, key, value):
        """``t[key] = value``, in place (recorded, as any in-place op): a basic index
        writes through the view ``t[key]``; index arrays go through ``IndexPut``."""
        key, advanced = I.normalize_index(key)
        value = I.drop_leading_ones(value)  # as PyTorch: a (1, n) value fills a (n,) slot
        if not advanced:
            I.Index.apply(self, key, advanced)._inplace("__setitem__", value, cast=True)
            return
        value = as_tensor(value)
        if value._data.dtype != self._data.dtype:
            value = value.to(self._data.dtype)
        self._inplace("__setitem__", I.IndexPut.apply(self, key, value), cast=True)

    def gather(self, dim: int, index):
        """out[i][j] = self[i][index[i][j]] (dim 1). As in PyTorch, a 0-d tensor gathers
        as a vector of one element, and an empty index gives an empty result."""
        (d,) = R.normalize_dims(dim, self._data.ndim)
        index = index._data if isinstance(index, Tensor) else np.asarray(index)
        if index.size == 0:
            return self.reshape(-1)[np.zeros(index.shape, dtype=np.int64)]
        if self._data.ndim == 0:
            return self.reshape(1).gather(0, index.reshape(-1)).reshape(index.shape)
        if index.ndim != self._data.ndim:
            raise ShapeError(
                f"gather: index must have as many dims as the input ({self._data.ndim}), "
                f"got shape {shape_str(index.shape)}"
            )
        for i, (n, m) in enumerate(zip(index.shape, self._data.shape)):
            if i != d and n > m:
                raise ShapeError(
                    f"gather: Size does not match at dimension {i}: index is {n} there, "
                    f"the input only {m} (index {shape_str(index.shape)}, input "
                    f"{shape_str(self._data.shape)})"
                )
        size = self._data.shape[d]
        low, high = index.min(), index.max()
        if low < 0 or high >= size:  # PyTorch's gather takes no negative index
            raise IndexRangeError(
                f"gather: index {high if high >= size else low} is out of bounds for "
                f"dimension {d} with size {size}"
            )
        return I.Gather.apply(self, d, index)

    def masked_fill(self, mask, value):
        """Where ``mask`` is True, ``value``; elsewhere ``self``."""
        mask = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
        if mask.dtype != np.bool_:
            raise TypeError(f"masked_fill: mask must be a bool tensor, got dtype {mask.dtype}")
        try:
            np.broadcast_shapes(mask.shape, self._data.shape)
        except ValueError:
            raise ShapeError(
                f"masked_fill: mask of shape {shape_str(mask.shape)} does not broadcast to "
                f"the input's shape {shape_str(self._data.shape)}"
            ) from None
        if isinstance(value, complex) or (
            isinstance(value, Tensor) and value._data.dtype.kind == "c"
        ):
            raise RuntimeError(
                f"value cannot be converted to type {self._data.dtype} without overflow"
            )
        if isinstance(value, Tensor):
            if value._data.ndim != 0:
                raise ShapeError("masked_fill: value must be a number or a 0-dim tensor")
            return I.Where.apply(mask, value.to(self._data.dtype), self)
        return I.Where.apply(mask, _cast_scalar(value, self._data.dtype), self)

    def tril(self, diagonal: int = 0):
        _at_least_2d(self, "tril")
        keep = np.tril(np.ones(self._data.shape[-2:], dtype=bool), diagonal)
        return I.Where.apply(keep, self, _cast_scalar(0, self._data.dtype))

    def triu(self, diagonal: int = 0):
        _at_least_2d(self, "triu")
        keep = np.triu(np.ones(self._data.shape[-2:], dtype=bool), diagonal)
        return I.Where.apply(keep, self, _cast_scalar(0, self._data.dtype))

    # ------------------------------------------------------------------ in-place
    # Each in-place method computes its new values out of place (an ordinary operation,
    # recorded when a gradient is needed) and hands them to ``_inplace``, the one entry
    # point that writes into a tensor (``minigrad/autograd/inplace.py``): it refuses what
    # PyTorch refuses (a leaf that requires grad, while recording), writes, bumps the
    # version counter shared with the tensor's views, and records the change in the
    # graph, so a pending backward that saved the old values raises instead of using
    # the new ones.
    def _inplace(self, what: str, values, cast: bool = False) -> Tensor:
        """Write ``values`` (a Tensor, an array or a number; broadcast to this tensor's
        shape) into this tensor, in place. ``cast``: convert any dtype (``copy_``,
        ``fill_``); otherwise a float result cannot go into an integer tensor."""
        return inplace.write(self, what, values, cast)

    def zero_(self) -> Tensor:
        return self._inplace("zero_", np.zeros((), self._data.dtype), cast=True)

    def fill_(self, value) -> Tensor:
        return self._inplace("fill_", value, cast=True)

    def copy_(self, src, non_blocking: bool = False) -> Tensor:
        src = as_tensor(src)
        if _state.enabled and src.requires_grad:
            src = src.clone()  # the copy's own node, so that self does not share src's
        return self._inplace("copy_", src, cast=True)

    def add_(self, other, *legacy, alpha=1) -> Tensor:
        other, alpha = signatures.scaled_operand("add_", other, legacy, alpha)
        return self._inplace("add_", self + (other * alpha if alpha != 1 else other))

    def sub_(self, other, *legacy, alpha=1) -> Tensor:
        other, alpha = signatures.scaled_operand("sub_", other, legacy, alpha)
        return self._inplace("sub_", self - (other * alpha if alpha != 1 else other))

    def mul_(self, other) -> Tensor:
        return self._inplace("mul_", self * other)

    def div_(self, other) -> Tensor:
        return self._inplace("div_", self / other)

    def clamp_(self, min=None, max=None) -> Tensor:
        if min is None and max is None:
            raise ValueError("clamp_: at least one of min and max must be given")
        return self._inplace("clamp_", self.clamp(min, max))

    clip_ = clamp_

    def tril_(self, diagonal: int = 0) -> Tensor:
        return self._inplace("tril_", self.tril(diagonal))

    def triu_(self, diagonal: int = 0) -> Tensor:
        return self._inplace("triu_", self.triu(diagonal))

    def cumsum_(self, dim: int, dtype=None) -> Tensor:
        return self._inplace("cumsum_", self.cumsum(dim, dtype))

    def masked_fill_(self, mask, value) -> Tensor:
        mask = _operand(mask)
        if np.asarray(mask).dtype != np.bool_:
            raise TypeError(
                f"masked_fill_: mask must be a bool tensor, got {np.asarray(mask).dtype}"
            )
        return self._inplace("masked_fill_", self.masked_fill(mask, value), cast=True)

    def _float_only(self, what: str) -> None:
        """Random fills draw floats: on an integer or bool tensor PyTorch has no kernel."""
        if self._data.dtype.kind != "f":
            raise NotImplementedError(f"{what}: not implemented for dtype {self._data.dtype}")

    def uniform_(self, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
        self._float_only("uniform_")
        if not a <= b:
            raise RuntimeError(
                f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}"
            )
        gen = generator or _random.default_generator()
        return self._inplace("uniform_", gen.uniform(a, b, self._data.shape), cast=True)

    # ``t += x`` is ``t.add_(x)``, as in PyTorch: in place (the same object, the same
    # memory), recorded on a tensor in the graph, refused on a leaf that requires grad
    # while recording (so ``p -= lr * p.grad`` never silently rebinds ``p``).
    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    def normal_(self, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
        self._float_only("normal_")
        if not std >= 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        gen = generator or _random.default_generator()
        return self._inplace("normal_", gen.normal(mean, std, self._data.shape), cast=True)

    # ---- PyTorch-compatibility methods
    # Names that PyTorch programs call on tensors; the differentiable ones are thin calls
    # into ``minigrad/functions/ordering.py``, ``einsum.py`` and ``vector_norm.py``.
    def __format__(self, spec: str) -> str:
        """``f"{loss:.4f}"`` formats a one-element tensor as its number, as in PyTorch."""
        if self._data.size == 1 and self._data.ndim == 0:
            return format(self._data.item(), spec)
        if not spec:
            return str(self)
        raise TypeError("unsupported format string passed to Tensor.__format__")

    def __round__(self, ndigits: int | None = None):
        """``round(t)`` / ``round(t, 4)``: a one-element tensor gives the rounded Python
        number (as ``round(t.item(), 4)``); a larger tensor gives a tensor rounded to
        ``ndigits`` decimals (half to even, as ``torch.round``), without gradient."""
        if self._data.size == 1:
            return round(self._data.item(), ndigits)
        rounded = np.round(self._data, 0 if ndigits is None else ndigits)
        return Tensor._make(rounded, False, None)

    def cuda(self, device=None, non_blocking: bool = False):
        from minigrad.devices import check_device

        check_device("cuda" if device is None else device, "cuda")

    @property
    def is_cuda(self) -> bool:
        return False

    def pin_memory(self) -> Tensor:
        """The tensor itself: pinned (page-locked) memory only speeds up copies to a GPU."""
        return self

    def is_pinned(self) -> bool:
        return False

    def element_size(self) -> int:
        return self._data.itemsize

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def int(self) -> Tensor:
        return self.to(dtypes.int32)

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other._data.dtype)

    def view_as(self, other: Tensor) -> Tensor:
        return self.view(other.shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        return self.reshape(other.shape)

    def nelement(self) -> int:
        return self._data.size

    def square(self) -> Tensor:
        return self * self

    # new tensors with this one's dtype (unless given), as ``torch.Tensor.new_*``
    def _new(self, data: np.ndarray, requires_grad: bool, device, where: str) -> Tensor:
        from minigrad.devices import check_device

        check_device(device, where)
        t = Tensor._make(data, False, None)
        if requires_grad:
            t.requires_grad = True
        return t

    def new_zeros(self, *size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
        dtype = dtypes.as_dtype(dtype) or self._data.dtype
        return self._new(np.zeros(_size_args(size), dtype), requires_grad, device, "new_zeros")

    def new_ones(self, *size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
        dtype = dtypes.as_dtype(dtype) or self._data.dtype
        return self._new(np.ones(_size_args(size), dtype), requires_grad, device, "new_ones")

    def new_empty(self, *size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
        dtype = dtypes.as_dtype(dtype) or self._data.dtype
        return self._new(np.empty(_size_args(size), dtype), requires_grad, device, "new_empty")

    def new_full(
        self, size, fill_value, dtype=None, device=None, requires_grad: bool = False
    ) -> Tensor:
        dtype = dtypes.as_dtype(dtype) or self._data.dtype
        data = np.full(_size_args((size,)), fill_value, dtype)
        return self._new(data, requires_grad, device, "new_full")

    def new_tensor(self, data, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
        """A copy of ``data`` with this tensor's dtype (unless ``dtype`` is given)."""
        dtype = dtypes.as_dtype(dtype) or self._data.dtype
        return self._new(_array_from(data, dtype), requires_grad, device, "new_tensor")

    # checks (no gradient)
    def isnan(self) -> Tensor:
        return Tensor._make(np.isnan(self._data), False, None)

    def isinf(self) -> Tensor:
        return Tensor._make(np.isinf(self._data), False, None)

    def isfinite(self) -> Tensor:
        return Tensor._make(np.isfinite(self._data), False, None)

    def allclose(self, other, rtol: float = 1e-5, atol: float = 1e-8, equal_nan=False) -> bool:
        """``|self - other| <= atol + rtol * |other|`` everywhere (broadcasting); two
        tensors must have one dtype, as in PyTorch."""
        signatures.tensor_argument("allclose", other, "other", 2)
        if isinstance(other, Tensor) and other._data.dtype != self._data.dtype:
            raise DtypeMismatchError(
                f"{printing.torch_dtype_name(other._data.dtype)} did not match "
                f"{printing.torch_dtype_name(self._data.dtype)}"
            )
        other = other._data if isinstance(other, Tensor) else np.asarray(other)
        try:
            np.broadcast_shapes(self._data.shape, other.shape)
        except ValueError:
            raise ShapeError(
                f"allclose: shapes {shape_str(self._data.shape)} and "
                f"{shape_str(other.shape)} cannot be broadcast together"
            ) from None
        return builtins.bool(np.allclose(self._data, other, rtol, atol, equal_nan))

    # ordering (see functions/ordering.py)
    def sort(self, dim: int = -1, descending: bool = False, stable: bool = False):
        """``(values, indices)`` sorted along ``dim``; values carry the gradient."""
        from minigrad.functions.ordering import sort_indices

        if self._data.ndim == 0:
            return SortResult(self, Tensor._make(np.zeros((), np.int64), False, None))
        (d,) = R.normalize_dims(dim, self._data.ndim)
        idx = sort_indices(self._data, d, descending, stable).astype(np.int64)
        return SortResult(I.Gather.apply(self, d, idx), Tensor._make(idx, False, None))

    def argsort(self, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
        return self.sort(dim, descending, stable).indices

    def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
        """The ``k`` largest (or smallest) elements along ``dim``: ``(values, indices)``."""
        from minigrad.functions.ordering import sort_indices

        nd = builtins.max(self._data.ndim, 1)
        (d,) = R.normalize_dims(dim, nd)
        n = self._data.shape[d] if self._data.ndim else 1
        if isinstance(k, builtins.bool) or not isinstance(k, (builtins.int, np.integer)):
            raise TypeError(f"topk: k must be an int, got {k!r}")
        if not 0 <= k <= n:
            raise RuntimeError(f"topk: k ({k}) must be in [0, {n}], the size of dim {dim}")
        if self._data.dtype == np.bool_:
            raise DtypeError("topk does not support bool dtypes on CPU")
        x = self if self._data.ndim else self.reshape(1)
        order = sort_indices(x._data, d, descending=largest, stable=True)
        idx = np.take(order, np.arange(k), axis=d).astype(np.int64)
        values = I.Gather.apply(x, d, idx)
        if self._data.ndim == 0:
            return TopK(values.reshape(()), Tensor._make(idx.reshape(()), False, None))
        return TopK(values, Tensor._make(idx, False, None))

    def flip(self, *dims, **kwargs) -> Tensor:
        """Reverse the order of the entries along ``dims`` (``x.flip(0)``,
        ``x.flip(0, 1)``, ``x.flip((0, 1))`` or ``x.flip(dims=(0, 1))``). A 0-d tensor
        accepts dim 0 or -1 and comes back unchanged, as in PyTorch; ``x.flip()``
        without dims is a TypeError."""
        from minigrad.functions.ordering import Flip

        if "dims" in kwargs and not dims:
            dims = (kwargs.pop("dims"),)
        if kwargs:
            raise TypeError(f"flip() got an unexpected keyword argument {next(iter(kwargs))!r}")
        if not dims:
            raise TypeError('flip() missing 1 required positional arguments: "dims"')
        dims = _ints(dims[0] if len(dims) == 1 else dims, "flip", "dims")
        axes = [R.normalize_dims(d, self._data.ndim)[0] for d in dims]
        for k, axis in enumerate(axes):
            if axis in axes[:k]:
                raise RuntimeError(f"flip: dim {axis} appears multiple times in the list of dims")
        return Flip.apply(self, tuple(axes) if self._data.ndim else ())

    def roll(self, shifts, dims=None) -> Tensor:
        """Shift elements by ``shifts`` along ``dims``, wrapping around; without dims
        (``None`` or ``()``), one shift of the flattened tensor."""
        from minigrad.functions.ordering import Roll

        shifts = _ints(shifts, "roll", "shifts")
        dims = () if dims is None else _ints(dims, "roll", "dims")
        if len(shifts) != builtins.max(len(dims), 1):
            raise RuntimeError(
                f"roll: shifts and dimensions must align: {len(shifts)} shifts and {len(dims)} dims"
            )
        if not dims:
            return Roll.apply(self, shifts[0], None)
        if self._data.ndim == 0:
            raise IndexError(
                f"roll: dimension specified as {dims[0]} but the tensor has no dimensions"
            )
        axes = tuple(R.normalize_dims(d, self._data.ndim)[0] for d in dims)
        return Roll.apply(self, shifts, axes)

    def cumsum(self, dim: int, dtype=None) -> Tensor:
        from minigrad.functions.ordering import Cumsum

        x = self if dtype is None else self.to(dtype)
        if dtype is not None and x._data.dtype == np.bool_:
            raise no_kernel("cumsum", np.bool_)
        if x._data.dtype.kind in "bu" or x._data.dtype == dtypes.int32:
            x = x.to(dtypes.int64)  # torch promotes integer cumsums to int64
        if x._data.ndim == 0:
            return x.clone()
        (d,) = R.normalize_dims(dim, x._data.ndim)
        return Cumsum.apply(x, d)

    def repeat(self, *sizes) -> Tensor:
        """Tile the tensor ``sizes[k]`` times along dim ``k`` (extra sizes add dims in front).

        ``sizes`` are non-negative ints, at least as many as the tensor has dims:
        otherwise PyTorch's TypeError (not ints, or none given) or RuntimeError."""
        from minigrad.functions.ordering import Repeat

        if not sizes:
            raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
        sizes = _ints(sizes[0] if len(sizes) == 1 else sizes, "repeat", "repeats")
        if len(sizes) < self._data.ndim:
            raise ShapeError(
                f"repeat: the number of repeat dims ({len(sizes)}) can not be smaller than "
                f"the number of dims of the tensor ({self._data.ndim})"
            )
        if builtins.min(sizes, default=0) < 0:
            raise RuntimeError(f"repeat: repeats must be non-negative, got {list(sizes)}")
        if not sizes:  # x.repeat(()) of a 0-d tensor: a copy of it
            return Repeat.apply(self.reshape(1), (1,)).reshape(())
        return Repeat.apply(self, sizes)

    def unbind(self, dim: int = 0) -> tuple:
        """The slices along ``dim``, as a tuple of tensors (each one dim fewer)."""
        if self._data.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        (d,) = R.normalize_dims(dim, self._data.ndim)
        lead = (slice(None),) * d
        out = tuple(self[lead + (i,)] for i in range(self._data.shape[d]))
        views.mark_multi_output(out)
        return out

    def index_select(self, dim: int, index) -> Tensor:
        """The entries at ``index`` (a 0-D or 1-D int32 / int64 tensor of indices in
        ``[0, size)``) along ``dim``; repeated indices add their gradients. On a 0-d
        tensor (dim 0 or -1) the index must be the single value 0, as in PyTorch."""
        if isinstance(dim, builtins.bool) or not isinstance(dim, (builtins.int, np.integer)):
            raise TypeError(f"index_select(): argument 'dim' must be int, not {type(dim).__name__}")
        (d,) = R.normalize_dims(dim, self._data.ndim)
        idx = index._data if isinstance(index, Tensor) else np.asarray(index)
        if idx.dtype not in (np.int32, np.int64):
            raise RuntimeError(
                f"index_select(): Expected dtype int32 or int64 for index, got {idx.dtype}"
            )
        if idx.ndim > 1:
            raise IndexError(
                "index_select(): Index is supposed to be a vector, got shape "
                f"{shape_str(idx.shape)}"
            )
        idx = idx.reshape(-1)
        if self._data.ndim == 0:
            if idx.size != 1:
                raise RuntimeError(
                    f"index_select(): Index to scalar can have only 1 value, got {idx.size} "
                    "value(s)"
                )
            n = 1
        else:
            n = self._data.shape[d]
        outside = idx[(idx < 0) | (idx >= n)]
        if outside.size:
            raise IndexError(
                f"index_select: index {outside[0]} out of range for dim {d} of size {n}"
            )
        if self._data.ndim == 0:
            return self.clone()
        return self[(slice(None),) * d + (idx,)]

    # products and norms
    @lower_precision
    def bmm(self, other: Tensor) -> Tensor:
        """Batched matrix product: (b, n, m) @ (b, m, p) -> (b, n, p)."""
        other = as_tensor(other)
        if self._data.ndim != 3 or other._data.ndim != 3:
            raise ShapeError(
                f"bmm: expects two 3-D tensors, got shapes {shape_str(self._data.shape)} "
                f"and {shape_str(other._data.shape)}"
            )
        if self._data.shape[0] != other._data.shape[0] or self.shape[2] != other.shape[1]:
            raise ShapeError(
                f"bmm: shapes {shape_str(self._data.shape)} and {shape_str(other.shape)} "
                "do not match as (b, n, m) and (b, m, p)"
            )
        return self @ other

    def outer(self, other: Tensor) -> Tensor:
        """``out[i, j] = self[i] * other[j]`` for two 1-D tensors."""
        other = as_tensor(other)
        if self._data.ndim != 1 or other._data.ndim != 1:
            raise ShapeError(
                f"outer: expects two 1-D tensors, got shapes {shape_str(self._data.shape)} "
                f"and {shape_str(other._data.shape)}"
            )
        return self.reshape(-1, 1) * other.reshape(1, -1)


# ---------------------------------------------------------------------- helpers
def _operand(x):
    """The array (or number) behind an in-place method's argument."""
    return x._data if isinstance(x, Tensor) else x


def _compare(ufunc, a, b) -> Tensor:
    b = b._data if isinstance(b, Tensor) else b
    if type(b) is int and a._data.dtype.kind in "iu":
        b = dtypes.wrapped_int(b, a._data.dtype)
    try:
        return Tensor._make(ufunc(a._data, b), False, None)
    except ValueError:
        raise ShapeError(
            f"{ufunc.__name__}: shapes {shape_str(a._data.shape)} and "
            f"{shape_str(np.shape(b))} cannot be broadcast together"
        ) from None


def _arg_extreme(fn, x: Tensor, dim, keepdim: bool) -> Tensor:
    if x._data.dtype == np.bool_:
        raise DtypeError(f"{fn.__name__}(): does not support bool input")
    if x._data.ndim == 0:  # the one element, index 0, still 0-d (as PyTorch, keepdim or not)
        if dim is not None:
            R.normalize_dims(dim, 0)
        return Tensor._make(np.zeros((), dtype=np.int64), False, None)
    if dim is None:
        idx = np.asarray(fn(x._data))
        if keepdim:
            idx = idx.reshape((1,) * x._data.ndim)
    else:
        (d,) = R.normalize_dims(dim, x._data.ndim)
        idx = fn(x._data, axis=d)
        if keepdim:
            idx = np.expand_dims(idx, d)
    return Tensor._make(np.asarray(idx, dtype=np.int64), False, None)


def _with_scalar(t: Tensor, scalar, to_float: bool = False, wrap: bool = True) -> tuple:
    """``(tensor, Python number)`` for ``t (op) scalar``, the tensor cast by PyTorch's
    rule (``dtypes.scalar_result_type``; ``to_float`` for a division).

    A NumPy scalar becomes the Python number it holds: NumPy would let ``np.float64(2)``
    widen a float32 array to float64, while torch (like a Python float) keeps the
    tensor's dtype. An int meeting an integer tensor is wrapped into its dtype
    (``dtypes.wrapped_int``), except a power's (``wrap=False``: PyTorch keeps the exponent
    and the base as numbers).
    """
    if isinstance(scalar, np.generic):
        scalar = scalar.item()
    dtype = dtypes.scalar_result_type(t._data.dtype, scalar, to_float)
    if dtype is not t._data.dtype:
        t = t.to(dtype)
    if wrap and type(scalar) is int and dtype.kind in "iu":
        scalar = dtypes.wrapped_int(scalar, dtype)
    return t, scalar


def _is_bool(x) -> bool:
    """A Python or NumPy bool, or a bool tensor or array."""
    if isinstance(x, (bool, np.bool_)):
        return True
    data = x._data if isinstance(x, Tensor) else x
    return isinstance(data, np.ndarray) and data.dtype == np.bool_


def _refuse_bool_subtraction(a, b) -> None:
    """``a - b`` with a bool operand raises, as in PyTorch (bool has no subtraction)."""
    if _is_bool(a) and _is_bool(b):
        raise DtypeError(  # PyTorch's RuntimeError; its kernels' NotImplementedError too
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead."
        )
    if _is_bool(a) or _is_bool(b):
        raise DtypeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def _plain_scalar(t: Tensor, other) -> bool:
    """A float tensor with a Python float or int: no dtype changes (the common case)."""
    return (type(other) is float or type(other) is int) and t._data.dtype.kind == "f"


_add, _sub, _mul, _matmul = A.Add.apply, A.Sub.apply, A.Mul.apply, A.MatMul.apply
_add_scalar, _mul_scalar = A.AddScalar.apply, A.MulScalar.apply


def _at_least_2d(t: Tensor, op: str) -> None:
    if t._data.ndim < 2:
        raise RuntimeError(f"{op}: input tensor must have at least 2 dimensions")


def _floating(t: Tensor) -> Tensor:
    return t if t._data.dtype.kind == "f" else t.to(dtypes.default_float)


def _variance_input(t: Tensor) -> Tensor:
    if t._data.dtype.kind != "f":
        raise DtypeError("std and var only support floating point and complex dtypes")
    return t


def _cast_scalar(value, dtype: np.dtype):
    return np.asarray(value).astype(dtype)[()]


def as_tensor(x, dtype=None) -> Tensor:
    """A tensor for ``x``, sharing memory when ``x`` is already a tensor or an array."""
    if isinstance(x, Tensor):
        return x if dtype is None else x.to(dtype)
    if isinstance(x, np.ndarray):
        return Tensor._make(x if dtype is None else x.astype(dtypes.as_dtype(dtype)), False, None)
    return Tensor(x, dtype=dtype)


_bind_tensor(Tensor)
