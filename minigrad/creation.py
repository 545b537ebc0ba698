"""Functions that make tensors: ``tensor``, ``zeros``, ``ones``, ``full``, ``arange``,
``randn``, ``rand``, ``randint``, ``zeros_like``, ``ones_like``, ``from_numpy``.

Defaults follow PyTorch: floating-point results are float32 unless a dtype is given.
"""

from __future__ import annotations

import numpy as np

from minigrad import dtypes
from minigrad import random as _random
from minigrad.tensor import Tensor, _size_args


def _finish(data: np.ndarray, requires_grad: bool) -> Tensor:
    t = Tensor._make(data, False, None)
    if requires_grad:
        t.requires_grad = True
    return t


def tensor(data, dtype=None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (Python floats become float32)."""
    return Tensor(data, dtype=dtype, requires_grad=requires_grad)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``array`` (its dtype kept)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy.ndarray, got {type(array).__name__}")
    return Tensor._make(array, False, None)


def _float_dtype(dtype):
    return dtypes.as_dtype(dtype) or dtypes.default_float


def zeros(*size, dtype=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.zeros(_size_args(size), dtype=_float_dtype(dtype)), requires_grad)


def ones(*size, dtype=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.ones(_size_args(size), dtype=_float_dtype(dtype)), requires_grad)


def empty(*size, dtype=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.empty(_size_args(size), dtype=_float_dtype(dtype)), requires_grad)


def full(size, fill_value, dtype=None, requires_grad: bool = False) -> Tensor:
    """Filled with ``fill_value``; the dtype follows it (bool, int64 or float32) unless given."""
    if dtype is None:
        if isinstance(fill_value, (bool, np.bool_)):
            dtype = dtypes.bool_
        elif isinstance(fill_value, (int, np.integer)):
            dtype = dtypes.int64
        else:
            dtype = dtypes.default_float
    return _finish(
        np.full(_size_args((size,)), fill_value, dtype=dtypes.as_dtype(dtype)), requires_grad
    )


def zeros_like(t: Tensor, dtype=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.zeros(t.shape, dtype=dtypes.as_dtype(dtype) or t.dtype), requires_grad)


def ones_like(t: Tensor, dtype=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.ones(t.shape, dtype=dtypes.as_dtype(dtype) or t.dtype), requires_grad)


def full_like(t: Tensor, fill_value, dtype=None, requires_grad: bool = False) -> Tensor:
    dtype = dtypes.as_dtype(dtype) or t.dtype
    return _finish(np.full(t.shape, fill_value, dtype=dtype), requires_grad)


def arange(start, end=None, step=1, dtype=None, requires_grad: bool = False) -> Tensor:
    """``arange(5)``, ``arange(1, 5)``, ``arange(0, 1, 0.25)``: int64 for int arguments."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        all_int = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = dtypes.int64 if all_int else dtypes.default_float
    if step == 0:
        raise ValueError("arange: step must be non-zero")
    return _finish(np.arange(start, end, step).astype(dtypes.as_dtype(dtype)), requires_grad)


def linspace(start, end, steps: int, dtype=None, requires_grad: bool = False) -> Tensor:
    data = np.linspace(start, end, steps).astype(_float_dtype(dtype))
    return _finish(data, requires_grad)


def randn(*size, dtype=None, requires_grad: bool = False, generator=None) -> Tensor:
    """Standard normal samples from minigrad's generator (see ``mg.manual_seed``)."""
    gen = generator or _random.default_generator()
    data = gen.standard_normal(_size_args(size)).astype(_float_dtype(dtype))
    return _finish(data, requires_grad)


def rand(*size, dtype=None, requires_grad: bool = False, generator=None) -> Tensor:
    """Uniform samples in [0, 1)."""
    gen = generator or _random.default_generator()
    data = gen.random(_size_args(size)).astype(_float_dtype(dtype))
    return _finish(data, requires_grad)


def randint(low, high=None, size=(), dtype=None, generator=None) -> Tensor:
    """Integers in [low, high) (``randint(high, size=...)`` also works)."""
    if high is None:
        low, high = 0, low
    gen = generator or _random.default_generator()
    data = gen.integers(low, high, size=_size_args((size,)) if size != () else ())
    return Tensor._make(
        np.asarray(data).astype(dtypes.as_dtype(dtype) or dtypes.int64), False, None
    )


def randperm(n: int, generator=None) -> Tensor:
    gen = generator or _random.default_generator()
    return Tensor._make(gen.permutation(n).astype(np.int64), False, None)
