"""``nn.utils.prune``: zero out parts of a module's weights with a mask.

Pruning ``module.weight`` moves the parameter to ``weight_orig``, adds a buffer
``weight_mask`` (1 = kept, 0 = pruned) and makes ``weight`` read as
``weight_orig * weight_mask`` (PyTorch's ``state_dict`` keys; ``weight`` is computed on
read, see ``computed.py``). The gradient of a pruned entry is therefore 0.

How the mask is chosen (``amount``: an int, how many; a float in [0, 1], that fraction
rounded):

- ``l1_unstructured``: the entries of smallest ``|w|``;
- ``random_unstructured``: entries at random;
- ``ln_structured(n, dim)``: whole slices along ``dim`` with the smallest ``n``-norm;
- ``random_structured(dim)``: whole slices at random;
- ``custom_from_mask``, ``identity``; ``global_unstructured`` prunes the smallest
  entries across several tensors together.

Pruning again combines masks: the new method only chooses among the entries (or
slices) still kept. ``remove`` makes it permanent: ``weight`` becomes a parameter again,
holding the pruned values.
"""

from __future__ import annotations

import numpy as np

from minigrad import random as _random
from minigrad.autograd.grad_mode import no_grad
from minigrad.nn.parameter import Parameter
from minigrad.nn.utils.computed import remove_computed, set_computed
from minigrad.tensor import Tensor

__all__ = [
    "BasePruningMethod",
    "CustomFromMask",
    "Identity",
    "L1Unstructured",
    "LnStructured",
    "PruningContainer",
    "RandomStructured",
    "RandomUnstructured",
    "custom_from_mask",
    "global_unstructured",
    "identity",
    "is_pruned",
    "l1_unstructured",
    "ln_structured",
    "random_structured",
    "random_unstructured",
    "remove",
]


def _count(amount, size: int) -> int:
    """How many entries (or slices) ``amount`` prunes out of ``size``."""
    if isinstance(amount, bool) or not isinstance(amount, (int, float, np.integer, np.floating)):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if isinstance(amount, (float, np.floating)):
        if not 0.0 <= amount <= 1.0:
            raise ValueError(f"amount={amount} should either be a float in the range [0, 1]")
        return round(amount * size)
    if amount < 0:
        raise ValueError(f"amount={amount} should be a non-negative integer")
    if amount > size:
        raise ValueError(
            f"amount={amount} should be smaller than the number of parameters to prune={size}"
        )
    return int(amount)


def _smallest(scores: np.ndarray, k: int) -> np.ndarray:
    """Flat indices of the ``k`` smallest scores."""
    return np.argsort(scores.reshape(-1), kind="stable")[:k]


class BasePruningMethod:
    """A way to choose a mask: ``compute_mask(t, default_mask)`` returns the new mask
    (an array of 0 and 1 shaped like ``t``) given the current one."""

    PRUNING_TYPE = "unstructured"  # or "structured" (whole slices along ``dim``)

    def compute_mask(self, t: np.ndarray, default_mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @classmethod
    def apply(cls, module, name: str, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with a new ``cls(*args, **kwargs)``."""
        method = cls(*args, **kwargs)
        return _prune(module, name, method, importance_scores)

    def remove(self, module, name: str) -> None:
        remove(module, name)


class PruningContainer(BasePruningMethod):
    """Successive pruning methods of one tensor; a new one chooses among the entries
    (unstructured) or slices (structured) the earlier ones kept."""

    def __init__(self, *methods) -> None:
        self._pruning_methods = tuple(methods)
        self.PRUNING_TYPE = methods[-1].PRUNING_TYPE if methods else "unstructured"

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        self._pruning_methods += (method,)

    def compute_mask(self, t, default_mask):
        method = self._pruning_methods[-1]
        mask = default_mask.copy()
        if method.PRUNING_TYPE == "global":
            return method.compute_mask(t, default_mask)
        if method.PRUNING_TYPE == "unstructured":
            kept = default_mask == 1
            mask[kept] = method.compute_mask(t[kept], default_mask[kept])
            return mask
        dim = method.dim % t.ndim
        others = tuple(k for k in range(t.ndim) if k != dim)
        alive = np.flatnonzero(default_mask.sum(axis=others) != 0)
        part = np.take(t, alive, axis=dim)
        new = method.compute_mask(part, np.take(default_mask, alive, axis=dim))
        index = [slice(None)] * t.ndim
        index[dim] = alive
        mask[tuple(index)] = new
        return mask


class Identity(BasePruningMethod):
    """Prunes nothing (a mask of ones)."""

    def compute_mask(self, t, default_mask):
        return default_mask.copy()


class RandomUnstructured(BasePruningMethod):
    def __init__(self, amount) -> None:
        self.amount = amount

    def compute_mask(self, t, default_mask):
        k = _count(self.amount, t.size)
        draws = _random.default_generator().uniform(0.0, 1.0, t.shape)
        return _entry_mask(default_mask, _smallest(draws, k))


class L1Unstructured(BasePruningMethod):
    def __init__(self, amount) -> None:
        self.amount = amount

    def compute_mask(self, t, default_mask):
        k = _count(self.amount, t.size)
        return _entry_mask(default_mask, _smallest(np.abs(t), k))


class LnStructured(BasePruningMethod):
    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim: int = -1) -> None:
        self.amount, self.n, self.dim = amount, n, dim

    def compute_mask(self, t, default_mask):
        dim = self.dim % t.ndim
        k = _count(self.amount, t.shape[dim])
        moved = np.moveaxis(t, dim, 0).reshape(t.shape[dim], -1)
        order = np.inf if self.n in ("inf", np.inf) else self.n
        if self.n == "fro":
            order = 2
        norms = np.linalg.norm(moved, ord=order, axis=1)
        return _channel_mask(default_mask, dim, _smallest(norms, k))


class RandomStructured(BasePruningMethod):
    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim: int = -1) -> None:
        self.amount, self.dim = amount, dim

    def compute_mask(self, t, default_mask):
        dim = self.dim % t.ndim
        k = _count(self.amount, t.shape[dim])
        draws = _random.default_generator().uniform(0.0, 1.0, (t.shape[dim],))
        return _channel_mask(default_mask, dim, _smallest(draws, k))


def _entry_mask(default_mask: np.ndarray, pruned: np.ndarray) -> np.ndarray:
    """``default_mask`` with the entries at the flat positions ``pruned`` set to 0."""
    mask = default_mask.copy()
    mask.reshape(-1)[pruned] = 0
    return mask


def _channel_mask(default_mask: np.ndarray, dim: int, pruned: np.ndarray) -> np.ndarray:
    """``default_mask`` with the slices ``pruned`` along ``dim`` set to 0."""
    mask = default_mask.copy()
    index = [slice(None)] * mask.ndim
    index[dim] = pruned
    mask[tuple(index)] = 0
    return mask


class CustomFromMask(BasePruningMethod):
    PRUNING_TYPE = "global"  # a mask for the whole tensor, whatever was pruned before

    def __init__(self, mask) -> None:
        self.mask = mask._data if isinstance(mask, Tensor) else np.asarray(mask)

    def compute_mask(self, t, default_mask):
        return default_mask * self.mask.astype(default_mask.dtype)


# ------------------------------------------------------------------ applying a method
def _prune(module, name: str, method: BasePruningMethod, importance_scores=None):
    methods = module.__dict__.setdefault("_pruning_methods", {})
    if name in methods:
        orig = getattr(module, name + "_orig")
        default = getattr(module, name + "_mask")._data
        old = methods[name]
        container = old if isinstance(old, PruningContainer) else PruningContainer(old)
        container.add_pruning_method(method)
        chooser = container
    else:
        orig = getattr(module, name)
        if not isinstance(orig, Tensor):
            raise AttributeError(f"Parameter '{name}' of module {module} has to be pruned")
        default = np.ones(orig.shape, orig.dtype)
        chooser = container = method
    scores = orig if importance_scores is None else importance_scores
    scores = scores._data if isinstance(scores, Tensor) else np.asarray(scores)
    if scores.shape != orig.shape:
        raise ValueError("importance_scores should have the same shape as parameter")
    mask = chooser.compute_mask(scores, default).astype(orig.dtype)
    if name not in methods:
        delattr(module, name)
        module.register_parameter(name + "_orig", orig if isinstance(orig, Parameter) else
                                  Parameter(orig.detach()))  # fmt: skip
        module.register_buffer(name + "_mask", Tensor._make(mask, False, None))
        set_computed(module, name, lambda m: _masked(m, name))
    else:
        with no_grad():
            getattr(module, name + "_mask").copy_(Tensor._make(mask, False, None))
    methods[name] = container
    return module


def _masked(module, name: str) -> Tensor:
    return getattr(module, name + "_orig") * getattr(module, name + "_mask")


def identity(module, name: str):
    """Prune nothing, but set up ``<name>_orig`` and ``<name>_mask`` (all ones)."""
    return Identity.apply(module, name)


def random_unstructured(module, name: str, amount):
    """Prune ``amount`` entries of ``module.<name>`` chosen at random."""
    return RandomUnstructured.apply(module, name, amount)


def l1_unstructured(module, name: str, amount, importance_scores=None):
    """Prune the ``amount`` entries of smallest absolute value (of
    ``importance_scores``, when given)."""
    return L1Unstructured.apply(module, name, amount, importance_scores=importance_scores)


def random_structured(module, name: str, amount, dim: int):
    """Prune ``amount`` whole slices along ``dim``, chosen at random."""
    return RandomStructured.apply(module, name, amount, dim)


def ln_structured(module, name: str, amount, n, dim: int, importance_scores=None):
    """Prune the ``amount`` slices along ``dim`` of smallest ``n``-norm."""
    return LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)


def custom_from_mask(module, name: str, mask):
    """Prune where ``mask`` is 0."""
    return CustomFromMask.apply(module, name, mask)


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune ``(module, name)`` pairs together: ``pruning_method`` (say
    ``L1Unstructured`` with ``amount=0.2``) chooses across all their entries at once
    (among those still kept), then each tensor gets its part of the mask."""
    parameters = list(parameters)
    importance_scores = importance_scores or {}
    scores, masks = [], []
    for module, name in parameters:
        s = importance_scores.get((module, name), getattr(module, name))
        scores.append((s._data if isinstance(s, Tensor) else np.asarray(s)).reshape(-1))
        mask = getattr(module, name + "_mask", None)
        masks.append(np.ones(scores[-1].shape) if mask is None else mask._data.reshape(-1))
    flat_scores, flat_mask = np.concatenate(scores), np.concatenate(masks)
    method = pruning_method(**kwargs)
    container = PruningContainer(method)
    new = container.compute_mask(flat_scores, flat_mask)
    start = 0
    for (module, name), s in zip(parameters, scores):
        part = new[start : start + s.size].reshape(getattr(module, name).shape)
        custom_from_mask(module, name, part)
        start += s.size


def remove(module, name: str):
    """Make the pruning permanent: ``module.<name>`` becomes a parameter holding the
    masked values; ``<name>_orig`` and ``<name>_mask`` go."""
    methods = module.__dict__.get("_pruning_methods", {})
    if name not in methods:
        raise ValueError(
            f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
        )
    with no_grad():
        value = _masked(module, name).detach().clone()
    del methods[name]
    remove_computed(module, name)
    orig = module._parameters.pop(name + "_orig")
    del module._buffers[name + "_mask"]
    orig.data = value  # the same Parameter object: an optimizer holding it keeps working
    module.register_parameter(name, orig)
    return module


def is_pruned(module) -> bool:
    """Whether ``module`` or one of its submodules has a pruned tensor."""
    return any(m.__dict__.get("_pruning_methods") for m in module.modules())
