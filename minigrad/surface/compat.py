"""PyTorch names that have nothing to compute in minigrad, said plainly.

- ``mg.compile(model)`` returns ``model`` unchanged: minigrad has no compiler (its speed
  comes from NumPy and the fused Numba kernels, always on). As a decorator,
  ``@mg.compile`` or ``@mg.compile(mode=...)``, it returns the function unchanged.
- ``mg.set_float32_matmul_precision("high")`` is validated and remembered
  (``get_float32_matmul_precision``), but float32 matmuls are always computed in full
  float32 by NumPy's BLAS; there is no TF32 or bf16 path to switch to.
- The functional forms ``mg.topk``, ``mg.sort``, ``mg.bmm`` ... of the
  tensor methods added for PyTorch programs.
"""

from __future__ import annotations

from minigrad.functions import signatures
from minigrad.tensor import Tensor, as_tensor

_MATMUL_PRECISION = ["highest"]


def compile(
    model=None,
    *,
    fullgraph=False,
    dynamic=None,
    backend="inductor",
    mode=None,
    options=None,
    disable=False,
):
    """``torch.compile``: returns ``model`` (a module or a function) unchanged."""
    if model is None:
        return lambda m: m
    return model


def set_float32_matmul_precision(precision: str) -> None:
    """Accept ``"highest"``, ``"high"`` or ``"medium"`` (see the module docstring)."""
    if precision not in ("highest", "high", "medium"):
        raise ValueError(
            f"set_float32_matmul_precision: expected 'highest', 'high' or 'medium', got "
            f"{precision!r}"
        )
    _MATMUL_PRECISION[0] = precision


def get_float32_matmul_precision() -> str:
    return _MATMUL_PRECISION[0]


# ------------------------------------------------------------------ functional forms
def pow(input, exponent) -> Tensor:
    """``input ** exponent``; either may be a number, not both (as in PyTorch)."""
    signatures.one_tensor("pow", input, exponent)
    if isinstance(input, Tensor):
        return input**exponent
    return as_tensor(exponent).__rpow__(input)


def allclose(input, other, rtol: float = 1e-5, atol: float = 1e-8, equal_nan=False) -> bool:
    return as_tensor(input).allclose(other, rtol, atol, equal_nan)


def _method(name: str):
    def fn(input, *args, **kwargs):
        signatures.tensor_argument(name, input)
        return getattr(as_tensor(input), name)(*args, **kwargs)

    fn.__name__ = name
    fn.__doc__ = f"``mg.{name}(x, ...)`` is ``x.{name}(...)``."
    return fn


topk = _method("topk")
sort = _method("sort")
argsort = _method("argsort")
flip = _method("flip")
roll = _method("roll")
cumsum = _method("cumsum")
unbind = _method("unbind")
index_select = _method("index_select")
bmm = _method("bmm")
outer = _method("outer")
isnan = _method("isnan")
isinf = _method("isinf")
isfinite = _method("isfinite")
square = _method("square")
numel = _method("numel")
