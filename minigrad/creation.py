"""Functions that make tensors: ``tensor``, ``zeros``, ``ones``, ``full``, ``empty``,
``arange``, ``linspace``, ``eye``, the ``*_like`` forms and the random ones (``randn``,
``rand``, ``randint``, ``randperm``, ``multinomial``).

Defaults follow PyTorch: floating-point results are float32 unless a dtype is given.
Every factory accepts PyTorch's keyword arguments: ``device`` (``"cpu"``; any other
device raises, see ``minigrad.devices``), ``requires_grad``, ``pin_memory`` (nothing to
pin on a CPU-only library: accepted and ignored) and, for the random ones,
``generator`` (an ``mg.Generator``).
"""

from __future__ import annotations

import numpy as np

from minigrad import dtypes
from minigrad import random as _random
from minigrad.devices import check_device
from minigrad.functions.errors import ShapeError, floating_only, no_kernel
from minigrad.printing import shape_str, torch_dtype_name
from minigrad.tensor import Tensor, _size_args
from minigrad.tensor import as_tensor as _as_tensor


def _finish(data: np.ndarray, requires_grad: bool, device=None, where: str = "") -> Tensor:
    check_device(device, where)
    t = Tensor._make(data, False, None)
    if requires_grad:
        t.requires_grad = True
    return t


def tensor(data, dtype=None, device=None, requires_grad: bool = False, pin_memory=False) -> Tensor:
    """A new tensor holding a copy of ``data`` (Python floats become float32)."""
    check_device(device, "tensor")
    return Tensor(data, dtype=dtype, requires_grad=requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """A tensor for ``data``, sharing memory when it is already a tensor or an array."""
    check_device(device, "as_tensor")
    return _as_tensor(data, dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``array`` (its dtype kept)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy.ndarray, got {type(array).__name__}")
    return Tensor._make(array, False, None)


def zeros(
    *size, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    data = np.zeros(_size_args(size), dtype=dtypes.or_default_float(dtype))
    return _finish(data, requires_grad, device, "zeros")


def ones(
    *size, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    data = np.ones(_size_args(size), dtype=dtypes.or_default_float(dtype))
    return _finish(data, requires_grad, device, "ones")


def empty(
    *size, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    data = np.empty(_size_args(size), dtype=dtypes.or_default_float(dtype))
    return _finish(data, requires_grad, device, "empty")


def _fill_dtype(fill_value):
    if isinstance(fill_value, (bool, np.bool_)):
        return dtypes.bool_
    if isinstance(fill_value, (int, np.integer)):
        return dtypes.int64
    return dtypes.default_float


def full(
    size, fill_value, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    """Filled with ``fill_value``; the dtype follows it (bool, int64 or float32) unless given."""
    dtype = dtypes.as_dtype(dtype) or _fill_dtype(fill_value)
    if type(fill_value) is int and dtype.kind in "iu":
        fill_value = dtypes.wrapped_int(fill_value, dtype)
    data = np.full(_size_args((size,)), fill_value, dtype=dtype)
    return _finish(data, requires_grad, device, "full")


def _like_dtype(t: Tensor, dtype):
    return dtypes.as_dtype(dtype) or _as_tensor(t).dtype


def zeros_like(
    t: Tensor, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    data = np.zeros(np.shape(t), dtype=_like_dtype(t, dtype))
    return _finish(data, requires_grad, device, "zeros_like")


def ones_like(
    t: Tensor, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    data = np.ones(np.shape(t), dtype=_like_dtype(t, dtype))
    return _finish(data, requires_grad, device, "ones_like")


def empty_like(
    t: Tensor, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    data = np.empty(np.shape(t), dtype=_like_dtype(t, dtype))
    return _finish(data, requires_grad, device, "empty_like")


def full_like(
    t: Tensor, fill_value, dtype=None, device=None, requires_grad: bool = False, pin_memory=False
) -> Tensor:
    data = np.full(np.shape(t), fill_value, dtype=_like_dtype(t, dtype))
    return _finish(data, requires_grad, device, "full_like")


def _number(v, where: str):
    """A start / end / step argument as a Python number (a 0-d tensor's value)."""
    if isinstance(v, Tensor):
        if v.ndim != 0:
            raise ShapeError(
                f"{where}: only supports 0-dimensional start and end tensors, got shape "
                f"{shape_str(v.shape)}"
            )
        return v.item()
    return v


def arange(
    start, end=None, step=1, dtype=None, device=None, requires_grad: bool = False, pin_memory=False
) -> Tensor:
    """``arange(5)``, ``arange(1, 5)``, ``arange(0, 1, 0.25)``: int64 for int arguments.

    ``ceil((end - start) / step)`` values ``start + i * step``. With an integer ``dtype``
    the arguments are first truncated to integers, as PyTorch does
    (``arange(0.5, 3.7, 1.3, dtype=mg.int64)`` is ``arange(0, 3, 1)``)."""
    if end is None:
        start, end = 0, start
    start, end, step = (_number(v, "arange") for v in (start, end, step))
    if dtype is None:
        all_int = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = dtypes.int64 if all_int else dtypes.default_float
    dtype = dtypes.as_dtype(dtype)
    if dtype == np.bool_:
        raise no_kernel("arange", dtype)
    if not all(np.isfinite(float(v)) for v in (start, end, step)):
        raise ShapeError(f"arange: unsupported range: {start} -> {end} (step {step})")
    if dtype.kind in "iub":
        start, end, step = int(start), int(end), int(step)
    if step == 0:
        raise ShapeError("arange: step must be nonzero")
    if (end - start) * step < 0:
        raise ShapeError(
            f"arange: upper bound and lower bound inconsistent with step sign "
            f"({start} -> {end}, step {step})"
        )
    count = int(np.ceil((end - start) / step)) if dtype.kind == "f" else -((start - end) // step)
    data = start + step * np.arange(count, dtype=np.int64 if dtype.kind != "f" else np.float64)
    return _finish(data.astype(dtype), requires_grad, device, "arange")


def _steps(steps, where: str) -> int:
    if isinstance(steps, (bool, np.bool_)) or not isinstance(steps, (int, np.integer)):
        raise TypeError(f"{where}(): argument 'steps' must be int, not {type(steps).__name__}")
    if steps < 0:
        raise ShapeError(f"{where}: number of steps must be non-negative, got {steps}")
    return int(steps)


def evenly_spaced(start, end, steps, dtype: np.dtype, where: str) -> np.ndarray:
    """``steps`` float64 values from ``start`` to ``end`` by PyTorch's formula: the first
    half ``start + i * step``, the second half ``end - (steps - 1 - i) * step`` (so both
    ends are exact), after truncating ``start`` and ``end`` to integers when ``dtype``
    is an integer type. (``linspace`` and ``logspace``'s exponents.) Computed in float64
    and rounded once: float64 results are PyTorch's; in float32, where PyTorch computes
    in float32, a value may differ from PyTorch's by one unit in the last place."""
    if dtype == np.bool_:
        raise no_kernel(where, dtype)
    start, end = _number(start, where), _number(end, where)
    steps = _steps(steps, where)
    if dtype.kind in "iub":
        start, end = int(start), int(end)
    if steps == 1:
        return np.array([start], dtype=np.float64)
    step = (end - start) / (steps - 1) if steps else 0.0
    i = np.arange(steps, dtype=np.float64)
    return np.where(i < steps // 2, start + step * i, end - step * (steps - 1 - i))


def linspace(
    start, end, steps: int, dtype=None, device=None, requires_grad: bool = False, pin_memory=False
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` (both included); 0-d
    tensors are accepted as ``start`` and ``end``."""
    dtype = dtypes.or_default_float(dtype)
    data = evenly_spaced(start, end, steps, dtype, "linspace").astype(dtype)
    return _finish(data, requires_grad, device, "linspace")


def eye(
    n: int,
    m: int | None = None,
    dtype=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
):
    """The ``n x m`` identity matrix (``m`` defaults to ``n``)."""
    for name, v in (("n", n), ("m", n if m is None else m)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"eye(): argument '{name}' must be int, not {type(v).__name__}")
        if v < 0:
            raise ShapeError(f"{name} must be greater or equal to 0, got {v}")
    data = np.eye(n, n if m is None else m, dtype=dtypes.or_default_float(dtype))
    return _finish(data, requires_grad, device, "eye")


# ------------------------------------------------------------------------------ random
def randn(
    *size, dtype=None, device=None, requires_grad: bool = False, generator=None, pin_memory=False
) -> Tensor:
    """Standard normal samples from minigrad's generator (see ``mg.manual_seed``)."""
    gen = _random.resolve(generator)
    data = gen.standard_normal(_size_args(size)).astype(_random_float("normal", dtype))
    return _finish(data, requires_grad, device, "randn")


def rand(
    *size, dtype=None, device=None, requires_grad: bool = False, generator=None, pin_memory=False
) -> Tensor:
    """Uniform samples in [0, 1)."""
    gen = _random.resolve(generator)
    data = gen.random(_size_args(size)).astype(_random_float("check_uniform_bounds", dtype))
    return _finish(data, requires_grad, device, "rand")


def _random_float(kernel: str, dtype) -> np.dtype:
    """The dtype of normal and uniform samples: a floating one (PyTorch has no integer
    ``kernel`` for them)."""
    dtype = dtypes.or_default_float(dtype)
    floating_only(kernel, dtype)
    return dtype


def randn_like(t: Tensor, dtype=None, device=None, requires_grad: bool = False, generator=None):
    dtype = _like_dtype(t, dtype)
    return randn(
        np.shape(t), dtype=dtype, device=device, requires_grad=requires_grad, generator=generator
    )


def rand_like(t: Tensor, dtype=None, device=None, requires_grad: bool = False, generator=None):
    dtype = _like_dtype(t, dtype)
    return rand(
        np.shape(t), dtype=dtype, device=device, requires_grad=requires_grad, generator=generator
    )


def randint(
    low,
    high=None,
    size=None,
    *,
    dtype=None,
    device=None,
    generator=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Integers drawn uniformly from [low, high), as ``torch.randint``.

    Both of PyTorch's forms: ``randint(high, size)`` (from [0, high)) and
    ``randint(low, high, size)``; ``size`` is a tuple (``(4,)``, ``(2, 3)``).
    """
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high  # randint(high, size)
    elif high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint: missing the size argument, e.g. randint(10, (4,))")
    low, high = (v.item() if isinstance(v, Tensor) else v for v in (low, high))
    for name, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"randint: {name} must be an int, got {v!r}")
    if low >= high:
        raise ValueError(
            f"randint: expects low < high (to sample from [low, high)), got low={low}, high={high}"
        )
    shape = _size_args(tuple(size) if isinstance(size, (tuple, list)) else (size,))
    dtype = dtypes.as_dtype(dtype) or dtypes.int64
    if dtype.kind in "biu":  # both ends must be values of the dtype
        info = np.iinfo(np.uint8 if dtype.kind == "b" else dtype)
        lowest, highest = (0, 1) if dtype.kind == "b" else (info.min, info.max)
        name = _C_TYPE_NAMES.get(dtype.name, dtype.name)
        if not lowest <= low <= highest:
            raise ShapeError(f"from is out of bounds for {name}")
        if not lowest <= high - 1 <= highest:
            raise ShapeError(f"to - 1 is out of bounds for {name}")
    data = _random.resolve(generator).integers(low, high, size=shape)
    data = np.asarray(data).astype(dtype)
    return _finish(data, requires_grad, device, "randint")


#: The C types PyTorch names in randint's range errors.
_C_TYPE_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
                 "int16": "short", "int32": "int", "int64": "long int"}  # fmt: skip


def randint_like(t: Tensor, low, high=None, *, dtype=None, device=None, generator=None):
    return randint(
        low, high, np.shape(t), dtype=_like_dtype(t, dtype), device=device, generator=generator
    )


def randperm(
    n: int,
    *,
    generator=None,
    dtype=None,
    device=None,
    requires_grad: bool = False,
    pin_memory=False,
) -> Tensor:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"randperm: n must be a non-negative int, got {n!r}")
    data = _random.resolve(generator).permutation(n).astype(dtypes.as_dtype(dtype) or np.int64)
    return _finish(data, requires_grad, device, "randperm")


def multinomial(input, num_samples: int, replacement: bool = False, *, generator=None):
    """Draw ``num_samples`` category indices per row from the weights in ``input``.

    ``input`` is 1-D (one distribution) or 2-D (one per row) of non-negative weights,
    not necessarily normalized. With ``replacement`` each draw is independent
    (inverse-CDF sampling); without it a category is drawn at most once, in the order
    of sequential draws from the renormalized remaining weights (drawn here as an
    "exponential race": the ``num_samples`` smallest ``E_i / w_i`` with ``E_i ~ Exp(1)``,
    which has exactly that distribution). Categories of weight 0 come last, as in
    PyTorch. Returns int64 indices of shape ``(num_samples,)`` or ``(rows, num_samples)``.
    """
    w = np.asarray(input._data if isinstance(input, Tensor) else input)
    if w.ndim not in (1, 2):
        raise ShapeError(
            f"multinomial: prob_dist must be 1 or 2 dim, got shape {shape_str(w.shape)}"
        )
    if w.dtype.kind != "f":
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{torch_dtype_name(w.dtype)}"
        )
    w = w.astype(np.float64)
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)):
        raise TypeError(f"multinomial: num_samples must be an int, got {num_samples!r}")
    if num_samples <= 0:
        raise RuntimeError(f"multinomial: num_samples must be positive, got {num_samples}")
    rows = w.reshape(-1, w.shape[-1]) if w.size or w.ndim == 2 else w.reshape(1, 0)
    if not np.all(np.isfinite(rows)) or np.any(rows < 0):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    totals = rows.sum(axis=1)
    if rows.shape[1] == 0 or np.any(totals <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError(
            f"multinomial: cannot sample n_sample ({num_samples}) > prob_dist.size(-1) "
            f"({rows.shape[1]}) samples without replacement"
        )
    gen = _random.resolve(generator)
    if replacement:
        cdf = np.cumsum(rows, axis=1) / totals[:, None]
        u = gen.random((rows.shape[0], num_samples))
        out = np.stack([np.searchsorted(c, ui, side="right") for c, ui in zip(cdf, u)])
        out = np.minimum(out, rows.shape[1] - 1)  # guard against u ~ 1 after rounding
    else:
        with np.errstate(divide="ignore"):
            keys = gen.standard_exponential(rows.shape) / rows  # weight 0 -> inf: drawn last
        out = np.argsort(keys, axis=1, kind="stable")[:, :num_samples]
    out = out.astype(np.int64)
    return Tensor._make(out if w.ndim == 2 else out[0], False, None)
