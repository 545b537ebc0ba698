"""More learning-rate schedulers, reached as ``optim.lr_scheduler.X`` (the base class and
the first six live in ``lr_scheduler.py``; the rules are PyTorch's, in its chainable
form where it has one, with the closed form beside it for ``step(epoch)``):

- ``ExponentialLR``: ``lr = base_lr * gamma^t``.
- ``MultiStepLR``: ``lr = base_lr * gamma^(number of milestones <= t)``.
- ``ConstantLR``: ``lr = base_lr * factor`` until ``total_iters``, then ``base_lr``.
- ``MultiplicativeLR``: ``lr_t = lr_{t-1} * lr_lambda(t)``.
- ``PolynomialLR``: ``lr = base_lr * (1 - min(t, total_iters) / total_iters)^power``.
- ``CosineAnnealingWarmRestarts``: cosine decay over ``T_i`` epochs, restarting with
  ``T_{i+1} = T_mult * T_i``.
- ``CyclicLR``: the rate cycles between ``base_lr`` and ``max_lr`` (and the momentum
  the other way), triangular, halving or exponentially shrinking.
- ``ChainedScheduler``: steps several schedulers together (their factors multiply).
- ``ReduceLROnPlateau``: multiplies the rate by ``factor`` when a metric has stopped
  improving for ``patience`` epochs.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence

from minigrad.optim.optimizer import Optimizer
from minigrad.optim.scheduler_base import (
    LRScheduler,
    _LambdaScheduler,
    _MomentumCycling,
    _per_group,
    _SchedulerOfSchedulers,
)

__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` every epoch.

    Example::

        >>> sched = optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each milestone epoch (a milestone listed twice
    multiplies twice).

    Example::

        >>> sched = optim.lr_scheduler.MultiStepLR(opt, milestones=[30, 80], gamma=0.1)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Sequence[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch not in self.milestones:
            return self._current_lrs()
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [lr * factor for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma**passed for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """Scale the rate by ``factor`` for the first ``total_iters`` epochs.

    Example::

        >>> sched = optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=4)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if not 0 <= factor <= 1:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current_lrs()]
        if self.last_epoch != self.total_iters:
            return self._current_lrs()
        return [lr / self.factor for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        done = self.last_epoch >= self.total_iters
        return [base * (self.factor + done * (1 - self.factor)) for base in self.base_lrs]


class MultiplicativeLR(_LambdaScheduler):
    """Multiply the rate by ``lr_lambda(epoch)`` every epoch (one function for all
    groups, or one per group).

    Example::

        >>> sched = optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.95)
    """

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return self._current_lrs()
        return [lr * fn(self.last_epoch) for lr, fn in zip(self._current_lrs(), self.lr_lambdas)]


class PolynomialLR(LRScheduler):
    """Decay the rate polynomially to 0 over ``total_iters`` epochs.

    Example::

        >>> sched = optim.lr_scheduler.PolynomialLR(opt, total_iters=100, power=2.0)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        total_iters: int = 5,
        power: float = 1.0,
        last_epoch: int = -1,
    ) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        t, n = self.last_epoch, self.total_iters
        if t == 0 or t > n:
            return self._current_lrs()
        factor = ((1.0 - t / n) / (1.0 - (t - 1) / n)) ** self.power
        return [lr * factor for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        t, n = self.last_epoch, self.total_iters
        return [base * (1.0 - min(n, t) / n) ** self.power for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR: ``lr = eta_min + (base_lr - eta_min) (1 + cos(pi T_cur / T_i)) / 2``, where
    ``T_cur`` counts epochs since the last restart and the period ``T_i`` starts at
    ``T_0`` and is multiplied by ``T_mult`` at each restart. ``step(epoch)`` accepts a
    fractional epoch (a step per batch: ``epoch + i / iters``).

    Example::

        >>> sched = optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=10, T_mult=2)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        self.T_0, self.T_i, self.T_mult = T_0, T_0, T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        cosine = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (base - self.eta_min) * cosine for base in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult**n
        else:
            self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        self._step_count += 1
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
        self._last_lr = self._current_lrs()


class CyclicLR(_MomentumCycling):
    """Cycle the rate between ``base_lr`` and ``max_lr`` (Smith's cyclical learning
    rates), stepped once per batch. A cycle rises for ``step_size_up`` steps and falls
    for ``step_size_down`` (default: the same). ``mode``: ``'triangular'`` (constant
    amplitude), ``'triangular2'`` (halved every cycle), ``'exp_range'`` (times
    ``gamma^step``), or a custom ``scale_fn``. With ``cycle_momentum`` the momentum (or
    Adam's ``beta1``) cycles the opposite way, between ``max_momentum`` and
    ``base_momentum``.

    Example::

        >>> sched = optim.lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.8,
        max_momentum: float | list[float] = 0.9,
        last_epoch: int = -1,
    ) -> None:
        n = len(optimizer.param_groups)
        base_lrs = _per_group("base_lr", base_lr, n)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", max_lr, n)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode if scale_fn is not None else _SCALE_MODES[mode]
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.base_momentums, self.max_momentums = self._start_momentum(
                optimizer, "CyclicLR", base_momentum, max_momentum, last_epoch
            )
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x: float) -> float:
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma**x

    def get_lr(self) -> list[float]:
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [
            base + (top - base) * scale_factor * scale
            for base, top in zip(self.base_lrs, self.max_lrs)
        ]
        if self.cycle_momentum:
            for group, low, high in zip(
                self.optimizer.param_groups, self.base_momentums, self.max_momentums
            ):
                self._set_momentum(group, high - (high - low) * scale_factor * scale)
        return lrs

    def state_dict(self) -> dict:
        """Every attribute but the optimizer and a custom ``scale_fn``."""
        return {
            k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_scale_fn_custom")
        }


_SCALE_MODES = {"triangular": "cycle", "triangular2": "cycle", "exp_range": "iterations"}


class ChainedScheduler(_SchedulerOfSchedulers):
    """Step several schedulers of one optimizer together, in order, so that their
    effects compose (a constant warmup factor times an exponential decay, say).

    Example::

        >>> s1 = optim.lr_scheduler.ConstantLR(opt, factor=0.1, total_iters=2)
        >>> s2 = optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
        >>> sched = optim.lr_scheduler.ChainedScheduler([s1, s2])
    """

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None):
        if len(schedulers) < 1:
            raise ValueError("ChainedScheduler expects at least one scheduler to be chained")
        optimizer = optimizer or schedulers[0].optimizer
        for i, s in enumerate(schedulers):
            if s.optimizer is not optimizer:
                raise ValueError(
                    "ChainedScheduler expects all schedulers to belong to the same optimizer, "
                    f"but got scheduler {type(s).__name__} at index {i} with a different one"
                )
        self._schedulers = list(schedulers)
        self.optimizer = optimizer
        self._last_lr = self._current_lrs()

    def step(self) -> None:  # type: ignore[override]
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._current_lrs()


class ReduceLROnPlateau(LRScheduler):
    """Multiply each group's rate by ``factor`` (not below ``min_lr``) once a metric
    passed to ``step(metric)`` has not improved for more than ``patience`` epochs, then
    wait ``cooldown`` epochs before counting again. Improvement means beating the best
    value by ``threshold``: relatively (``threshold_mode='rel'``) or absolutely
    (``'abs'``), downwards (``mode='min'``) or upwards (``'max'``). Changes smaller than
    ``eps`` are skipped.

    Example::

        >>> sched = optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)
        >>> for epoch in range(20):
        ...     sched.step(validate(model))
    """

    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: float | list[float] = 0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown!")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        self.min_lrs = _per_group("min_lr", min_lr, len(optimizer.param_groups))
        self.factor, self.patience, self.cooldown, self.eps = factor, patience, cooldown, eps
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.best = math.inf if mode == "min" else -math.inf
        self.num_bad_epochs = 0
        self.cooldown_counter = 0
        self.last_epoch = 0
        self._last_lr = self._current_lrs()

    def is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def step(self, metrics, epoch: int | None = None) -> None:  # type: ignore[override]
        current = float(metrics)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            for group, floor in zip(self.optimizer.param_groups, self.min_lrs):
                new_lr = max(group["lr"] * self.factor, floor)
                if group["lr"] - new_lr > self.eps:
                    group["lr"] = new_lr
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._current_lrs()
