"""``mg.autocast``: PyTorch's CPU autocast, its lower precision emulated in float32.

Inside ``with mg.autocast("cpu", dtype=mg.bfloat16):`` (bfloat16 is the CPU default;
``mg.float16`` works too) the operations PyTorch's CPU autocast runs in lower precision
(its list, as far as minigrad has them: ``matmul`` / ``@``, ``mm``, ``bmm``, ``addmm``,
``baddbmm``, ``addbmm``, ``F.linear`` (so ``nn.Linear``), and
``F.scaled_dot_product_attention``) compute as PyTorch's do:

- each float32 input is rounded to the lower precision (``mg.amp.rounding``);
- the product is accumulated in float32, as PyTorch's CPU kernels accumulate;
- the result is rounded to the lower precision;
- in the backward pass each gradient reaching one of those values is rounded too (in
  PyTorch the gradient of a bfloat16 tensor is a bfloat16 tensor).

NumPy has no bfloat16 type, so these results are float32 tensors holding bfloat16 values
(``t.dtype`` is float32 where PyTorch says bfloat16), and the operations that follow
them (activations, softmax, residual additions ...) compute in float32, where PyTorch
would round each of their results to bfloat16 again. Everything else (losses, norms) is
what PyTorch's autocast does too: float32. Float64 inputs are left alone, as PyTorch
leaves them; float16 inputs are too (PyTorch would round them to bfloat16).

``autocast("cuda")`` (or any other device) warns that the device is not available and
does nothing, as PyTorch does on a machine without it. The state is per thread and
answers PyTorch's queries (``mg.is_autocast_enabled("cpu")``, ``mg.get_autocast_dtype``
...).
"""

from __future__ import annotations

import functools
import threading
import warnings

import numpy as np

from minigrad import dtypes
from minigrad.amp.rounding import RoundTo
from minigrad.autograd import function as _function

__all__ = [
    "autocast",
    "autocast_decrement_nesting",
    "autocast_increment_nesting",
    "clear_autocast_cache",
    "custom_bwd",
    "custom_fwd",
    "get_autocast_cpu_dtype",
    "get_autocast_dtype",
    "get_autocast_gpu_dtype",
    "is_autocast_available",
    "is_autocast_cache_enabled",
    "is_autocast_cpu_enabled",
    "is_autocast_enabled",
    "lower_precision",
    "set_autocast_cache_enabled",
    "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled",
    "set_autocast_dtype",
    "set_autocast_enabled",
    "set_autocast_gpu_dtype",
]

#: The devices whose autocast state PyTorch keeps, with their default lower precision.
_DEFAULT_DTYPE = {"cpu": dtypes.bfloat16, "cuda": dtypes.float16}
_LOWER = ("bfloat16", "float16")  # the precisions CPU autocast runs in


class _State(threading.local):
    """One thread's autocast state (PyTorch keeps it per thread too)."""

    def __init__(self) -> None:
        self.enabled = dict.fromkeys(_DEFAULT_DTYPE, False)
        self.dtype = dict(_DEFAULT_DTYPE)
        self.cache_enabled = True
        self.nesting = 0
        self.cache: dict[int, tuple] = {}  # id(weight) -> (weight, version, kind, rounded)


_state = _State()
#: How many threads have CPU autocast on: the ops check this one number first.
_cpu_regions = [0]
_count_lock = threading.Lock()


def _device(device_type) -> str:
    if not isinstance(device_type, str):
        raise ValueError(
            f"autocast: expected device_type of type str, got {type(device_type).__name__}"
        )
    return device_type.partition(":")[0]


def _name(dtype) -> str:
    return getattr(dtype, "name", str(dtype))


# ------------------------------------------------------------------ PyTorch's queries
def is_autocast_available(device_type: str) -> bool:
    """True for ``"cpu"``, the device minigrad computes on."""
    return _device(device_type) == "cpu"


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for ``device_type`` in this thread (``None``: CUDA, as
    PyTorch's no-argument form)."""
    return _state.enabled.get(_device(device_type or "cuda"), False)


def set_autocast_enabled(device_type, enabled: bool | None = None) -> None:
    """``set_autocast_enabled("cpu", True)``, or the older one-argument form for CUDA."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    device = _device(device_type)
    if device not in _state.enabled:
        raise RuntimeError(f"set_autocast_enabled: unsupported device type {device_type!r}")
    was = _state.enabled[device]
    _state.enabled[device] = bool(enabled)
    if device == "cpu" and was != bool(enabled):
        with _count_lock:
            _cpu_regions[0] += 1 if enabled else -1


def get_autocast_dtype(device_type: str):
    device = _device(device_type)
    if device not in _state.dtype:
        raise RuntimeError(f"get_autocast_dtype: unsupported device type {device_type!r}")
    return _state.dtype[device]


def set_autocast_dtype(device_type: str, dtype) -> None:
    device = _device(device_type)
    if device not in _state.dtype:
        raise RuntimeError(f"set_autocast_dtype: unsupported device type {device_type!r}")
    _state.dtype[device] = dtype


def is_autocast_cpu_enabled() -> bool:
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype) -> None:
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    return get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype) -> None:
    set_autocast_dtype("cuda", dtype)


def is_autocast_cache_enabled() -> bool:
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Whether a region rounds each weight once (see :func:`lower_precision`)."""
    _state.cache_enabled = bool(enabled)


def clear_autocast_cache() -> None:
    """Forget the rounded weights (done on leaving the outermost autocast region)."""
    _state.cache.clear()


def autocast_increment_nesting() -> int:
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting() -> int:
    _state.nesting -= 1
    return _state.nesting


# ------------------------------------------------------------------ the context manager
class autocast:  # torch.autocast
    """Run the enclosed code with autocast on (see the module docstring); also a decorator.

    Args:
        device_type: ``"cpu"``; any other device warns and leaves autocast off.
        dtype: the lower precision, ``mg.bfloat16`` (CPU default) or ``mg.float16``.
        enabled: ``False`` turns autocast off inside (nested regions restore the outer
            state on exit).
        cache_enabled: accepted (see :func:`set_autocast_cache_enabled`).

    Example::

        >>> with mg.autocast("cpu", dtype=mg.bfloat16):
        ...     y = layer(x)          # rounded to bfloat16 values, as in PyTorch
        >>> loss = F.cross_entropy(y, target)   # float32, as in PyTorch
    """

    def __init__(
        self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None
    ) -> None:
        self.device = _device(device_type)
        self.device_type = device_type
        self.fast_dtype = (
            get_autocast_dtype(self.device)
            if dtype is None and (self.device in _DEFAULT_DTYPE)
            else dtype
        )
        self._cache_enabled = cache_enabled
        self._enabled = bool(enabled)
        if not enabled:
            return
        if self.device != "cpu":
            warnings.warn(
                f"User provided device_type of '{device_type}', but {device_type} is not "
                "available (minigrad runs on the CPU only). Disabling autocast.",
                UserWarning,
                stacklevel=2,
            )
            self._enabled = False
        elif _name(self.fast_dtype) not in _LOWER:
            warnings.warn(
                "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                "CPU Autocast only supports dtype of torch.bfloat16, torch.float16 currently.",
                UserWarning,
                stacklevel=2,
            )
            self._enabled = False

    def __enter__(self):
        device = self.device if self.device in _DEFAULT_DTYPE else None
        self._before = None
        if device is None:
            return self
        self._before = (
            is_autocast_enabled(device),
            get_autocast_dtype(device),
            _state.cache_enabled,
        )
        autocast_increment_nesting()
        set_autocast_enabled(device, self._enabled)
        if self._enabled:
            set_autocast_dtype(device, self.fast_dtype)
        if self._cache_enabled is not None:
            set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, *exc) -> bool:
        if self._before is not None:
            enabled, dtype, cache = self._before
            set_autocast_enabled(self.device, enabled)
            set_autocast_dtype(self.device, dtype)
            set_autocast_cache_enabled(cache)
            if autocast_decrement_nesting() == 0:
                clear_autocast_cache()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def run_in_autocast(*args, **kwargs):
            with autocast(self.device_type, self.fast_dtype, self._enabled, self._cache_enabled):
                return func(*args, **kwargs)

        return run_in_autocast


# ------------------------------------------------------------------ the operations
def _rounded_weight(w, kind: str):
    """The rounded copy of a leaf that requires grad (a weight), made once per autocast
    region, as PyTorch's cast cache: its uses share one node, so their gradients are
    summed before that node rounds them once more, as PyTorch sums them in bfloat16. A
    weight changed in place gets a new copy."""
    entry = _state.cache.get(id(w))
    if entry is None or entry[0] is not w or entry[1] != w._version or entry[2] != kind:
        entry = (w, w._version, kind, RoundTo.apply(w, kind))
        _state.cache[id(w)] = entry
    return entry[3]


def lower_precision(op):
    """Make ``op`` (a matmul-like operation on PyTorch's CPU autocast list) compute in the
    autocast precision when CPU autocast is on: float32 tensor arguments rounded to it,
    the float32 result rounded to it (see the module docstring). Inside ``op`` autocast
    is off, so the operations it is built from are not rounded again."""

    @functools.wraps(op)
    def autocast_op(*args, **kwargs):
        if not _cpu_regions[0] or not _state.enabled["cpu"]:
            return op(*args, **kwargs)
        kind = _name(_state.dtype["cpu"])
        if kind not in _LOWER:
            return op(*args, **kwargs)
        rounded = []

        def cast(a):
            if not (isinstance(a, _function.Tensor) and a._data.dtype == np.float32):
                return a
            rounded.append(True)
            if _state.cache_enabled and a.requires_grad and a.grad_fn is None:
                a = _rounded_weight(a, kind)
            return RoundTo.apply(a, kind)

        args = tuple(cast(a) for a in args)
        kwargs = {k: cast(v) for k, v in kwargs.items()}
        _state.enabled["cpu"] = False  # the thread's count stays: it is back on below
        try:
            out = op(*args, **kwargs)
        finally:
            _state.enabled["cpu"] = True
        if rounded and isinstance(out, _function.Tensor) and out._data.dtype == np.float32:
            out = RoundTo.apply(out, kind)
        return out

    return autocast_op


# ------------------------------------------------------------------ custom Functions
def custom_fwd(fwd=None, *, device_type: str = "cpu", cast_inputs=None):
    """Decorator for a custom ``Function.forward`` (``torch.amp.custom_fwd``): with
    ``cast_inputs`` given and autocast on, the forward runs with autocast off and its
    floating-point tensor arguments cast to ``cast_inputs`` (float32 or float64: minigrad's
    storable precisions); without ``cast_inputs`` it runs in the surrounding state."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    device = _device(device_type)

    @functools.wraps(fwd)
    def forward(ctx, *args, **kwargs):
        ctx._fwd_autocast = is_autocast_enabled(device) if device in _DEFAULT_DTYPE else False
        if cast_inputs is None or not ctx._fwd_autocast:
            return fwd(ctx, *args, **kwargs)
        target = dtypes.as_dtype(cast_inputs)

        def cast(a):
            if isinstance(a, _function.Tensor) and a._data.dtype.kind == "f":
                return a.to(target)
            return a

        with autocast(device, enabled=False):
            return fwd(ctx, *(cast(a) for a in args), **{k: cast(v) for k, v in kwargs.items()})

    return forward


def custom_bwd(bwd=None, *, device_type: str = "cpu"):
    """Decorator for a custom ``Function.backward`` (``torch.amp.custom_bwd``): the
    backward runs with the autocast state its forward ran with."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    device = _device(device_type)

    @functools.wraps(bwd)
    def backward(ctx, *grads):
        with autocast(device, enabled=getattr(ctx, "_fwd_autocast", False)):
            return bwd(ctx, *grads)

    return backward
