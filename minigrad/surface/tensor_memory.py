"""How a tensor lies in memory: strides, storage offsets, data pointers, DLPack.

A minigrad tensor's memory is a NumPy array, so PyTorch's layout questions have NumPy
answers:

- ``t.stride()`` is the array's strides counted in elements (NumPy counts bytes);
- the **storage** is the array that owns the memory (the end of the ``.base`` chain:
  ``x[2:]``, ``x.t()`` and ``x.view(...)`` share their base's storage), and
  ``t.storage_offset()`` is where ``t``'s first element lies in it, in elements;
- ``t.data_ptr()`` is the address of the first element;
- ``t.is_contiguous()`` is NumPy's C-contiguity (like PyTorch, size-1 dims do not count).

``t.__dlpack__()`` and ``mg.from_dlpack`` go through NumPy's own DLPack support, so a
tensor can be handed to any library that speaks DLPack (and back) without a copy.
"""

from __future__ import annotations

import numpy as np

from minigrad.functions.strided import address as _address
from minigrad.functions.strided import offset_in_storage, storage_of
from minigrad.tensor import Tensor

METHODS = [
    "stride",
    "storage_offset",
    "is_contiguous",
    "data_ptr",
    "const_data_ptr",
    "get_device",
    "is_inference",
    "is_set_to",
    "nonzero_static",
    "module_load",
    "as_subclass",
    "is_cpu",
    "output_nr",
    "name",
    "grad_dtype",
    "__dlpack__",
    "__dlpack_device__",
    "__array_wrap__",
    "__setstate__",
    "__delitem__",
]
FUNCTIONS = ["from_dlpack", "to_dlpack", "get_device", "is_inference"]

_CHANNELS_LAST = {"channels_last": 4, "channels_last_3d": 5}


def stride(input: Tensor, dim: int | None = None):
    """The step, in elements, between neighbours along each dim (a tuple), or along
    ``dim``. An expanded dim has stride 0, as in PyTorch.

    Example::

        >>> mg.zeros(2, 3).stride()
        (3, 1)
        >>> mg.zeros(2, 3).t().stride(0)
        1
    """
    steps = tuple(s // input._data.itemsize for s in input._data.strides)
    if dim is None:
        return steps
    n = input._data.ndim
    if not -max(n, 1) <= dim < max(n, 1):
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(n, 1)}, "
            f"{max(n, 1) - 1}], but got {dim})"
        )
    return steps[dim] if n else 1


def storage_offset(input: Tensor) -> int:
    """Where ``input``'s first element lies in its storage, counted in elements."""
    return offset_in_storage(input._data)


def is_contiguous(input: Tensor, memory_format=None) -> bool:
    """Whether the elements lie in memory in row-major order with no gaps (dims of
    size 1 do not count). ``memory_format=mg.channels_last`` asks for the NHWC order
    of a 4-d tensor (``channels_last_3d``: NDHWC, 5-d)."""
    a = input._data
    fmt = None if memory_format is None else str(memory_format).split(".")[-1]
    if fmt in (None, "contiguous_format", "preserve_format"):
        return bool(a.flags.c_contiguous)
    if fmt not in _CHANNELS_LAST:
        raise RuntimeError(f"is_contiguous: unknown memory_format {memory_format!r}")
    if a.ndim != _CHANNELS_LAST[fmt]:
        return False
    order = (0, *range(2, a.ndim), 1)  # N, spatial dims, C
    return bool(a.transpose(order).flags.c_contiguous)


def data_ptr(input: Tensor) -> int:
    """The memory address of the first element (0 for an empty tensor, as PyTorch)."""
    return 0 if input._data.size == 0 else _address(input._data)


const_data_ptr = data_ptr


def get_device(input: Tensor) -> int:
    """The CUDA device index, or -1 for a CPU tensor (minigrad's only kind)."""
    return -1


def is_inference(input: Tensor) -> bool:
    """False: minigrad's ``inference_mode`` is ``no_grad`` and makes ordinary tensors
    (PyTorch's "inference tensors" are a memory optimisation minigrad does not have)."""
    return False


def is_set_to(input: Tensor, tensor: Tensor) -> bool:
    """True when both tensors view the same memory in the same way (the same storage,
    offset, shape and strides)."""
    a, b = input._data, tensor._data
    return (
        storage_of(a) is storage_of(b)
        and _address(a) == _address(b)
        and a.shape == b.shape
        and a.strides == b.strides
        and a.dtype == b.dtype
    )


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``nonzero()`` with a fixed number of rows, ``size``: the first ``size`` indices,
    padded with rows of ``fill_value`` when there are fewer. Shape ``(size, ndim)``."""
    if not isinstance(size, (int, np.integer)) or isinstance(size, bool) or size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be a non-negative int, got {size!r}")
    found = np.argwhere(input._data)[:size]
    out = np.full((size, input._data.ndim), fill_value, dtype=np.int64)
    out[: len(found)] = found
    return Tensor._make(out, False, None)


def module_load(input: Tensor, other, assign: bool = False) -> Tensor:
    """What ``Module.load_state_dict`` puts in place of ``input`` for the value
    ``other``: ``other`` itself with ``assign=True``, else ``other`` detached (the
    caller copies it into ``input``). Tensor subclasses override it, as in PyTorch."""
    if not isinstance(other, Tensor):
        raise TypeError(f"module_load: expected a Tensor, got {type(other).__name__}")
    return other if assign else other.detach()


def as_subclass(input: Tensor, cls: type) -> Tensor:
    """The same tensor (same memory, same history) as an instance of ``cls``, a
    subclass of ``Tensor``."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"as_subclass: expected a subclass of Tensor, got {cls!r}")
    from minigrad.autograd.function import register_tensor_type

    register_tensor_type(cls)
    out = object.__new__(cls)
    out._data = input._data
    out._counter = input._counter = input._counter or [0]
    out._view = input._view
    out._grad = None
    out._requires_grad = input._requires_grad
    out._grad_fn = input.grad_fn
    return out


@property
def is_cpu(self) -> bool:
    """True: every minigrad tensor lives in the CPU's memory."""
    return True


@property
def output_nr(self) -> int:
    """Which output of its ``grad_fn`` the tensor is: 0 (every minigrad Function has
    one output), as for a leaf in PyTorch."""
    return 0


@property
def name(self):
    """None: minigrad has no named tensors (PyTorch's prototype feature)."""
    return None


@property
def grad_dtype(self):
    """The dtype ``.grad`` must have: the tensor's own dtype (None for a tensor that
    cannot require grad)."""
    return self._data.dtype if self._data.dtype.kind == "f" else None


# ------------------------------------------------------------------ NumPy and DLPack
def __dlpack__(self, *args, **kwargs):
    """A DLPack capsule of the tensor's memory (no copy), through NumPy's support."""
    if self._requires_grad:
        raise RuntimeError(
            "Can't export tensors that require gradient, use tensor.detach() instead"
        )
    return self._data.__dlpack__(*args, **kwargs)


def __dlpack_device__(self) -> tuple:
    """``(1, 0)``: DLPack's code for the CPU, device 0."""
    return self._data.__dlpack_device__()


def from_dlpack(ext_tensor) -> Tensor:
    """A tensor sharing memory with ``ext_tensor``: any object with ``__dlpack__``
    (a NumPy array, a tensor of another library) or a DLPack capsule. CPU memory only.

    Example::

        >>> t = mg.from_dlpack(np.arange(3.0))   # shares the array's memory
    """
    if isinstance(ext_tensor, Tensor):
        return ext_tensor.detach()
    if not hasattr(ext_tensor, "__dlpack__"):
        ext_tensor = _Capsule(ext_tensor)
    try:
        array = np.from_dlpack(ext_tensor)
    except (BufferError, RuntimeError, TypeError) as e:
        raise RuntimeError(f"from_dlpack: {e} (minigrad reads CPU memory only)") from None
    return Tensor._make(array, False, None)


class _Capsule:
    """A bare DLPack capsule dressed as the object ``np.from_dlpack`` expects."""

    def __init__(self, capsule) -> None:
        self._capsule = capsule

    def __dlpack__(self, *args, **kwargs):
        return self._capsule

    def __dlpack_device__(self) -> tuple:
        return (1, 0)


def to_dlpack(tensor: Tensor):
    """``torch.utils.dlpack.to_dlpack``: a DLPack capsule of ``tensor``'s memory."""
    return __dlpack__(tensor)


def __array_wrap__(self, array, context=None, return_scalar=False):
    """NumPy hands back the result of a function applied to a tensor: a tensor again
    (without history, as in PyTorch)."""
    if return_scalar:
        return array[()]
    return Tensor._make(np.asarray(array), False, None)


def __setstate__(self, state) -> None:
    """Restore a tensor from its pickled state: ``(array, requires_grad)``, or the
    attributes ``pickle`` and ``copy`` collect (a dict, or a pair of dicts: the
    program's own attributes and the tensor's slots). The history is not restored."""
    if isinstance(state, tuple) and len(state) == 2 and isinstance(state[0], np.ndarray):
        attrs = {"_data": state[0], "_requires_grad": state[1]}
    elif isinstance(state, tuple):
        attrs = {**(state[0] or {}), **(state[1] or {})}
    else:
        attrs = dict(state)
    self._data = attrs.pop("_data")
    self._requires_grad = bool(attrs.pop("_requires_grad", False))
    self._grad = attrs.pop("_grad", None)
    self._counter = None
    self._view = None
    self._grad_fn = None
    for key, value in attrs.items():
        if key not in Tensor.__slots__:  # a program's own attributes
            setattr(self, key, value)


def __delitem__(self, key):
    """``del t[i]``: refused, as in PyTorch (a tensor's size cannot shrink in place)."""
    raise TypeError("Tensor does not support deleting items")
