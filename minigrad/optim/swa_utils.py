"""Weight averaging, as ``torch.optim.swa_utils``: ``AveragedModel`` keeps a running
average of a model's parameters (stochastic weight averaging, or an exponential moving
average with ``get_ema_multi_avg_fn``), ``SWALR`` anneals each group's rate to a constant
``swa_lr``, and ``update_bn`` recomputes batch-norm statistics for the averaged weights.

The averages, with ``n`` the number of models averaged so far:

    SWA:  p_avg = p_avg + (p - p_avg) / (n + 1)
    EMA:  p_avg = decay p_avg + (1 - decay) p

Example::

    >>> ema_fn = optim.swa_utils.get_ema_multi_avg_fn(0.999)
    >>> ema = optim.swa_utils.AveragedModel(model, multi_avg_fn=ema_fn)
    >>> for x, y in loader:
    ...     train_step(model, x, y)
    ...     ema.update_parameters(model)
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable

import numpy as np

from minigrad.autograd.grad_mode import no_grad
from minigrad.nn.module import Module
from minigrad.optim.lr_scheduler import LRScheduler, _per_group
from minigrad.optim.optimizer import Optimizer
from minigrad.tensor import Tensor

__all__ = [
    "AveragedModel",
    "SWALR",
    "get_ema_avg_fn",
    "get_ema_multi_avg_fn",
    "get_swa_avg_fn",
    "get_swa_multi_avg_fn",
    "update_bn",
]


def _copied_if_integer(p_avg: Tensor, p: Tensor) -> bool:
    """An integer buffer (batch norm's ``num_batches_tracked``) is copied, not averaged.
    (PyTorch raises on it with ``use_buffers=True``.)"""
    if p_avg._data.dtype.kind in "biu":
        p_avg._data[...] = p._data
        return True
    return False


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """In place, for lists of tensors: ``p_avg = decay p_avg + (1 - decay) p``."""

    def ema_update(averaged: list, current: list, num_averaged) -> None:
        for p_avg, p in zip(averaged, current):
            if _copied_if_integer(p_avg, p):
                continue
            p_avg._data += (1 - decay) * (p._data - p_avg._data)

    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """In place, for lists of tensors: ``p_avg = p_avg + (p - p_avg) / (n + 1)``."""

    def swa_update(averaged: list, current: list, num_averaged) -> None:
        n = float(np.asarray(getattr(num_averaged, "_data", num_averaged)))
        for p_avg, p in zip(averaged, current):
            if _copied_if_integer(p_avg, p):
                continue
            p_avg._data += (p._data - p_avg._data) / (n + 1)

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """Per tensor: returns ``decay p_avg + (1 - decay) p``."""

    def ema_update(averaged: Tensor, current: Tensor, num_averaged) -> Tensor:
        return decay * averaged + (1 - decay) * current

    return ema_update


def get_swa_avg_fn() -> Callable:
    """Per tensor: returns ``p_avg + (p - p_avg) / (n + 1)``."""

    def swa_update(averaged: Tensor, current: Tensor, num_averaged) -> Tensor:
        n = float(np.asarray(getattr(num_averaged, "_data", num_averaged)))
        return averaged + (current - averaged) / (n + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and, with ``use_buffers``, buffers) are the
    average of those of every model passed to ``update_parameters``. The first update
    copies them; later ones apply ``avg_fn`` (per tensor), ``multi_avg_fn`` (per list)
    or, by default, the SWA running mean. Without ``use_buffers`` the buffers are copied
    from the latest model. ``state_dict`` keys: ``n_averaged`` and ``module.*``, as in
    PyTorch.
    """

    def __init__(
        self,
        model: Module,
        device=None,
        avg_fn: Callable | None = None,
        multi_avg_fn: Callable | None = None,
        use_buffers: bool = False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise ValueError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        self.register_buffer("n_averaged", Tensor(np.array(0, dtype=np.int64)))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _tensors(self, model: Module) -> list[Tensor]:
        params = list(model.parameters())
        return params + list(model.buffers()) if self.use_buffers else params

    def update_parameters(self, model: Module) -> None:
        averaged, current = self._tensors(self.module), self._tensors(model)
        n = int(self.n_averaged._data)
        with no_grad():
            if n == 0:
                for p_avg, p in zip(averaged, current):
                    p_avg._data[...] = p._data
            elif self.multi_avg_fn is not None:
                self.multi_avg_fn(averaged, current, self.n_averaged)
            elif self.avg_fn is not None:
                for p_avg, p in zip(averaged, current):
                    p_avg._data[...] = self.avg_fn(
                        p_avg.detach(), p.detach(), self.n_averaged
                    )._data
            else:
                get_swa_multi_avg_fn()(averaged, current, n)
            if not self.use_buffers:  # the buffers follow the latest model
                for b_avg, b in zip(self.module.buffers(), model.buffers()):
                    b_avg._data[...] = b._data
        self.n_averaged._data[...] = n + 1


class SWALR(LRScheduler):
    """Anneal each group's rate from its current value to ``swa_lr`` over
    ``anneal_epochs`` steps (``'cos'``: ``alpha = (1 - cos(pi t)) / 2``, ``'linear'``:
    ``alpha = t``, with ``lr = alpha swa_lr + (1 - alpha) lr_start``), then hold it."""

    def __init__(
        self,
        optimizer: Optimizer,
        swa_lr: float | list[float],
        anneal_epochs: int = 10,
        anneal_strategy: str = "cos",
        last_epoch: int = -1,
    ) -> None:
        for lr, group in zip(
            _per_group("swa_lr", swa_lr, len(optimizer.param_groups)), optimizer.param_groups
        ):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must by one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_strategy, self.anneal_epochs = anneal_strategy, anneal_epochs
        super().__init__(optimizer, last_epoch)

    def _alpha(self, t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2 if self.anneal_strategy == "cos" else t

    def get_lr(self) -> list[float]:
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self._alpha(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        alpha = self._alpha(max(0, min(1, step / max(1, self.anneal_epochs))))
        lrs = []
        for group in self.optimizer.param_groups:
            swa = group["swa_lr"]
            start = swa if prev_alpha == 1 else (group["lr"] - prev_alpha * swa) / (1 - prev_alpha)
            lrs.append(swa * alpha + start * (1 - alpha))
        return lrs


def update_bn(loader: Iterable, model: Module, device=None) -> None:
    """Recompute the running statistics of every batch-norm layer of ``model`` over one
    pass of ``loader`` (each batch, or its first element, is fed to the model), as a
    cumulative average; the layers' momentum and the model's mode are restored."""
    from minigrad.nn.normalization import _BatchNorm

    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)
