"""PyTorch's process-wide settings and dtype facts: ``mg.set_default_dtype``,
``mg.use_deterministic_algorithms``, ``mg.set_printoptions``, ``mg.finfo``, ...

Only the default dtype and the print options change what minigrad computes or shows.
The rest are answered honestly: minigrad's algorithms are deterministic whatever the
flag says (the same inputs always give the same bits), it has one intra-op thread pool
and no inter-op one (the inter-op count is remembered, not used), NumPy offers no way to
flush denormals (``set_flush_denormal`` returns False, PyTorch's answer on a CPU that
cannot), and anomaly mode is not there (switching it on raises).
"""

from __future__ import annotations

import builtins

import numpy as np

from minigrad import dtypes, printing

__all__ = [
    "FatalError",
    "are_deterministic_algorithms_enabled",
    "finfo",
    "get_default_dtype",
    "get_deterministic_debug_mode",
    "get_num_interop_threads",
    "iinfo",
    "init_num_threads",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_deterministic_algorithms_warn_only_enabled",
    "is_signed",
    "is_warn_always_enabled",
    "set_anomaly_enabled",
    "set_default_dtype",
    "set_default_tensor_type",
    "set_deterministic_debug_mode",
    "set_flush_denormal",
    "set_num_interop_threads",
    "set_printoptions",
    "set_warn_always",
    "typename",
    "use_deterministic_algorithms",
]

_FLAGS = {"deterministic": False, "warn_only": False, "warn_always": False, "interop": 1}


class FatalError(Exception):
    """PyTorch's error for an unrecoverable internal failure (kept for ``except``)."""


# ------------------------------------------------------------------ default dtype
def set_default_dtype(d) -> None:
    """The dtype of Python floats: tensors made from them (``mg.tensor(1.5)``,
    ``mg.zeros(3)``, new modules' parameters) and the float that integer tensors
    become (``int_tensor * 2.5``, ``int_tensor / 2``). float32 (the default) or
    float64 (float16 too, as PyTorch allows).

    Example::

        >>> mg.set_default_dtype(mg.float64)
        >>> mg.tensor([1.2, 3]).dtype
        dtype('float64')
    """
    dtype = dtypes.as_dtype(d)
    if dtype is None or dtype.kind != "f":
        raise TypeError(f"only floating-point types are supported as the default type, got {d!r}")
    dtypes.default_float = dtype


def get_default_dtype() -> np.dtype:
    """The current default floating-point dtype (float32 unless changed)."""
    return dtypes.default_float


_TENSOR_TYPES = {"FloatTensor": dtypes.float32, "DoubleTensor": dtypes.float64,
                 "HalfTensor": dtypes.float16}  # fmt: skip


def set_default_tensor_type(t) -> None:
    """Deprecated in PyTorch: ``set_default_dtype`` by a tensor type's name
    (``"torch.DoubleTensor"``, ``mg.DoubleTensor``)."""
    name = t if isinstance(t, str) else getattr(t, "__name__", repr(t))
    name = name.rsplit(".", 1)[-1]
    if name not in _TENSOR_TYPES:
        raise TypeError(f"set_default_tensor_type: only floating-point CPU types, got {t!r}")
    set_default_dtype(_TENSOR_TYPES[name])


# ------------------------------------------------------------------ printing
def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """How ``repr(tensor)`` shows numbers: ``precision`` digits after the point (4),
    summarize with ``edgeitems`` (3) items per edge beyond ``threshold`` (1000)
    elements, ``linewidth`` (80) characters a line, ``sci_mode`` True / False / None
    (automatic). ``profile``: ``"default"``, ``"short"`` or ``"full"``."""
    printing.set_options(precision, threshold, edgeitems, linewidth, profile, sci_mode)


# ------------------------------------------------------------------ determinism
def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Remembered (every minigrad algorithm is deterministic already)."""
    if not isinstance(mode, builtins.bool):
        raise TypeError(f"use_deterministic_algorithms: expected a bool, got {mode!r}")
    _FLAGS["deterministic"], _FLAGS["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _FLAGS["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _FLAGS["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode) -> None:
    """0 / ``"default"``, 1 / ``"warn"``, 2 / ``"error"``: ``use_deterministic_algorithms``
    off, on with warnings only, on."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                f"but got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    if not _FLAGS["deterministic"]:
        return 0
    return 1 if _FLAGS["warn_only"] else 2


# ------------------------------------------------------------------ warnings, anomaly
def set_warn_always(b: bool) -> None:
    """Remembered; minigrad's warnings are Python's, shown as Python's filters say."""
    _FLAGS["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    return _FLAGS["warn_always"]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Anomaly mode is not in minigrad: ``False`` is accepted, ``True`` raises."""
    if enabled:
        from minigrad.unsupported import error

        raise error("autograd", "set_detect_anomaly")


def is_anomaly_enabled() -> bool:
    return False


def is_anomaly_check_nan_enabled() -> bool:
    return False


# ------------------------------------------------------------------ threads, denormals
def get_num_interop_threads() -> int:
    return _FLAGS["interop"]


def set_num_interop_threads(num: int) -> None:
    """Remembered: minigrad runs one operation at a time (no inter-op pool)."""
    if isinstance(num, builtins.bool) or not isinstance(num, int) or num <= 0:
        raise RuntimeError(f"Expected positive number of threads, got {num!r}")
    _FLAGS["interop"] = num


def init_num_threads() -> None:
    """Nothing to do: minigrad's thread pool is set up on first use."""


def set_flush_denormal(mode: bool) -> bool:
    """False: NumPy gives no way to flush denormal numbers to zero, so the mode is
    not set (PyTorch returns False too where the CPU cannot)."""
    return False


# ------------------------------------------------------------------ dtype facts
class finfo:
    """Facts about a floating-point dtype (default: the default dtype): ``bits``,
    ``eps`` (the gap above 1), ``max``, ``min``, ``tiny`` = ``smallest_normal``,
    ``resolution`` (10 ** -digits) and ``dtype`` (its name)."""

    def __init__(self, type=None):
        if type is dtypes.bfloat16:
            self.bits, self.eps, self.max = 16, 2.0**-7, float.fromhex("0x1.fep127")
            self.tiny, self.resolution, self.dtype = 2.0**-126, 0.01, "bfloat16"
        else:
            dtype = dtypes.as_dtype(type) or dtypes.default_float
            if dtype.kind != "f":
                raise TypeError(f"torch.finfo() requires a floating point input type, got {dtype}")
            info = np.finfo(dtype)
            self.bits, self.eps, self.max = info.bits, float(info.eps), float(info.max)
            self.tiny, self.resolution = float(info.tiny), 10.0**-info.precision
            self.dtype = dtype.name
        self.min = -self.max
        self.smallest_normal = self.tiny

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
            f"tiny={self.tiny:g}, dtype={self.dtype})"
        )


class iinfo:
    """Facts about an integer dtype: ``bits``, ``min``, ``max`` and ``dtype`` (its name)."""

    def __init__(self, type):
        dtype = dtypes.as_dtype(type)
        if dtype is None or dtype.kind not in "iub":
            raise TypeError(f"torch.iinfo() requires an integer input type, got {type!r}")
        if dtype.kind == "b":
            self.bits, self.min, self.max = 8, 0, 1
        else:
            info = np.iinfo(dtype)
            self.bits, self.min, self.max = info.bits, int(info.min), int(info.max)
        self.dtype = dtype.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


def is_signed(input) -> bool:
    """Whether the tensor's dtype holds negative numbers (floats and signed ints)."""
    return input.dtype.kind in "if"


_LEGACY_NAMES = {
    "bool": "BoolTensor",
    "uint8": "ByteTensor",
    "int8": "CharTensor",
    "int16": "ShortTensor",
    "int32": "IntTensor",
    "int64": "LongTensor",
    "float16": "HalfTensor",
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
}


def typename(obj) -> str:
    """A readable type name: ``"torch.FloatTensor"`` for a float32 tensor (PyTorch's
    legacy names, kept by PyTorch programs); ``module.qualified_name`` of a class,
    function or instance of a class defined in a module; the bare class name of a
    built-in value (``typename(3) == "int"``)."""
    from minigrad.tensor import Tensor

    if isinstance(obj, Tensor):
        return "torch." + _LEGACY_NAMES.get(obj.dtype.name, obj.dtype.name)
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        name = obj.__qualname__
    elif hasattr(obj, "__name__"):
        name = obj.__name__
    else:
        name = type(obj).__qualname__
    return f"{module}.{name}" if module else name
