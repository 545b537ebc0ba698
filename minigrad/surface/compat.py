"""PyTorch names that have nothing to compute in minigrad, said plainly.

- ``mg.compile(model)`` returns ``model`` unchanged: minigrad has no compiler (its speed
  comes from NumPy and the fused Numba kernels, always on). As a decorator,
  ``@mg.compile`` or ``@mg.compile(mode=...)``, it returns the function unchanged.
- ``mg.set_float32_matmul_precision("high")`` is validated and remembered
  (``get_float32_matmul_precision``), but float32 matmuls are always computed in full
  float32 by NumPy's BLAS; there is no TF32 or bf16 path to switch to.
- ``mg.inference_mode()`` is ``no_grad`` under PyTorch's name (context manager and
  decorator); ``inference_mode(False)`` leaves recording as it is.
- The functional forms ``mg.topk``, ``mg.sort``, ``mg.bmm`` ... of the
  tensor methods added for PyTorch programs.
"""

from __future__ import annotations

from minigrad.autograd.grad_mode import _GradMode, _state
from minigrad.functions import signatures
from minigrad.ops import method_as_function
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


class inference_mode(_GradMode):
    """Disable graph recording, as ``torch.inference_mode``: ``with mg.inference_mode():``,
    ``@mg.inference_mode()`` or ``@mg.inference_mode``. ``mode=False`` changes nothing.

    (PyTorch's inference tensors also refuse to enter autograd later; minigrad's
    results are ordinary tensors that do not require grad, as under ``no_grad``.)
    """

    def __new__(cls, mode=True):
        self = super().__new__(cls)
        if callable(mode) and not isinstance(mode, bool):  # bare @mg.inference_mode
            self._on = True
            return self(mode)
        self._on = bool(mode)
        return self

    @property
    def _mode(self) -> bool:
        """The grad mode to set (``_GradMode`` does the rest): off in inference mode;
        ``inference_mode(False)`` keeps the current one."""
        return False if self._on else _state.enabled


def is_inference_mode_enabled() -> bool:
    return not _state.enabled


# ------------------------------------------------------------------ functional forms
def pow(input, exponent) -> Tensor:
    """``input ** exponent``; either may be a number, not both (as in PyTorch)."""
    signatures.one_tensor("pow", input, exponent)
    if isinstance(input, Tensor):
        return input**exponent
    return as_tensor(exponent).__rpow__(input)


def allclose(input, other, rtol: float = 1e-5, atol: float = 1e-8, equal_nan=False) -> bool:
    return as_tensor(input).allclose(other, rtol, atol, equal_nan)


topk = method_as_function("topk")
sort = method_as_function("sort")
argsort = method_as_function("argsort")
flip = method_as_function("flip")
roll = method_as_function("roll")
cumsum = method_as_function("cumsum")
unbind = method_as_function("unbind")
index_select = method_as_function("index_select")
bmm = method_as_function("bmm")
outer = method_as_function("outer")
isnan = method_as_function("isnan")
isinf = method_as_function("isinf")
isfinite = method_as_function("isfinite")
numel = method_as_function("numel")
