"""The questions PyTorch code asks a tensor about kinds of tensors minigrad does not have,
answered as PyTorch answers them for a dense real tensor on the CPU.

A minigrad tensor is always dense, strided, real, unquantized and in the CPU's memory,
so these answers are facts, not stubs:

- the flags ``is_sparse``, ``is_sparse_csr``, ``is_quantized``, ``is_meta``,
  ``is_mkldnn``, ``is_nested``, ``is_xpu``, ``is_mps``, ``is_ipu``, ``is_maia``,
  ``is_mtia``, ``is_vulkan``, ``is_xla`` are False (``is_cuda`` and ``is_cpu`` live
  with the devices), and ``t.layout`` is ``mg.strided``; custom optimizers copied from
  PyTorch start with ``if p.grad.is_sparse: raise ...``;
- ``is_conj()``, ``is_neg()``, ``is_shared()``, ``is_distributed()`` are False;
  ``is_coalesced()`` raises PyTorch's ``RuntimeError`` (it asks a sparse tensor);
- a real tensor is its own conjugate and its own real part: ``conj()``,
  ``resolve_conj()``, ``resolve_neg()``, ``conj_physical()`` and ``t.real`` return ``t``
  itself (as PyTorch's do for real dtypes); ``t.imag`` raises PyTorch's ``RuntimeError``;
- a dense tensor's ``to_dense()`` is itself, ``dense_dim()`` its number of dims and
  ``sparse_dim()`` 0; ``dim_order()`` lists the dims from the outermost in memory to
  the innermost (``(0, 2, 3, 1)`` for a channels-last 4-d tensor).

The names come from ``torch.Tensor`` (its ``is_*`` properties); ``tests/compat/
test_refusals.py`` compares every answer with PyTorch's when torch is installed.
"""

from __future__ import annotations

from minigrad.layouts import strided
from minigrad.tensor import Tensor

#: The ``is_*`` properties of ``torch.Tensor`` that are False for every minigrad tensor.
FALSE_FLAGS = (
    "is_sparse",
    "is_sparse_csr",
    "is_quantized",
    "is_meta",
    "is_mkldnn",
    "is_nested",
    "is_xpu",
    "is_mps",
    "is_ipu",
    "is_maia",
    "is_mtia",
    "is_vulkan",
    "is_xla",
)


def _false(self) -> bool:
    return False


def is_conj(input: Tensor) -> bool:
    """False: a real tensor has no lazily conjugated view."""
    return False


def is_neg(input: Tensor) -> bool:
    """False: a real tensor has no lazily negated view."""
    return False


def is_shared(input: Tensor) -> bool:
    """False: minigrad never moves a tensor into memory shared between processes."""
    return False


def is_distributed(input: Tensor) -> bool:
    """False: minigrad tensors live in one process."""
    return False


def is_coalesced(input: Tensor) -> bool:
    raise RuntimeError("is_coalesced expected sparse coordinate tensor layout but got Strided")


def conj(input: Tensor) -> Tensor:
    """``input`` itself: the conjugate of a real tensor is the tensor."""
    return input


resolve_conj = resolve_neg = conj_physical = real = conj


def imag(input: Tensor) -> Tensor:
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def to_dense(input: Tensor, dtype=None, *, masked_grad=None) -> Tensor:
    """``input`` itself (in ``dtype`` if given): it is dense already."""
    return input if dtype is None else input.to(dtype)


def dense_dim(input: Tensor) -> int:
    return input._data.ndim


def sparse_dim(input: Tensor) -> int:
    return 0


def dim_order(input: Tensor, *, ambiguity_check: bool = False) -> tuple[int, ...]:
    """The dims from the outermost in memory to the innermost: sorted by stride, largest
    first (ties keep the dims' own order)."""
    strides = input.stride()
    return tuple(sorted(range(len(strides)), key=lambda d: -strides[d]))


METHODS = [
    "is_conj",
    "is_neg",
    "is_shared",
    "is_distributed",
    "is_coalesced",
    "conj",
    "resolve_conj",
    "resolve_neg",
    "conj_physical",
    "to_dense",
    "dense_dim",
    "sparse_dim",
    "dim_order",
]
FUNCTIONS = [
    "is_conj",
    "is_neg",
    "is_distributed",
    "conj",
    "resolve_conj",
    "resolve_neg",
    "conj_physical",
    "real",
    "imag",
]
#: Properties, as on ``torch.Tensor``.
TENSOR_METHODS = {
    **{name: property(_false) for name in FALSE_FLAGS},
    "layout": property(lambda self: strided),
    "real": property(real),
    "imag": property(imag),
}
