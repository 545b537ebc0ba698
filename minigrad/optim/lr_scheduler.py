"""Learning-rate schedulers, with PyTorch's names, arguments and step semantics.

A scheduler owns an optimizer's ``lr`` values. Creating one records each group's
starting rate as ``initial_lr`` (the ``base_lrs``) and performs an initial step, which
sets the rate for epoch 0. Call ``scheduler.step()`` once per epoch (or per batch)
*after* ``optimizer.step()``; ``get_last_lr()`` returns the rates it set last.

As in PyTorch, ``StepLR``, ``LinearLR`` and ``CosineAnnealingLR`` compute the new rate
from the current one (a "chainable" recurrence), so they compose with other
schedulers acting on the same optimizer; ``SequentialLR`` hands control from one
scheduler to the next at given milestones (warmup, then cosine decay).

``state_dict()`` holds plain numbers and lists (checkpoint-friendly); ``LambdaLR``
leaves its functions out, so they must be given again when the scheduler is rebuilt.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence

from minigrad.optim import schedulers as _schedulers
from minigrad.optim.optimizer import Optimizer
from minigrad.optim.scheduler_base import (
    LRScheduler,
    _LambdaScheduler,
    _MomentumCycling,
    _per_group,
    _SchedulerOfSchedulers,
)

# The other schedulers live in schedulers.py; this module is their PyTorch path too.
from minigrad.optim.schedulers import *  # noqa: F403
from minigrad.unsupported import module_getattr

__all__ = [
    "LRScheduler",
    "StepLR",
    "LambdaLR",
    "CosineAnnealingLR",
    "LinearLR",
    "SequentialLR",
    "OneCycleLR",
    *_schedulers.__all__,
]


class StepLR(LRScheduler):
    """Multiply the rate by ``gamma`` every ``step_size`` epochs:
    ``lr = base_lr * gamma ** (epoch // step_size)``.

    Example::

        >>> sched = optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    """

    def __init__(
        self, optimizer: Optimizer, step_size: float, gamma: float = 0.1, last_epoch: int = -1
    ):
        # PyTorch accepts any positive number (its tutorial passes 1.0): the rate changes
        # at the epochs where ``epoch % step_size == 0``.
        if (
            isinstance(step_size, bool)
            or not isinstance(step_size, (int, float))
            or not math.isfinite(step_size)
            or step_size <= 0
        ):
            raise ValueError(f"StepLR: step_size must be a positive number, got {step_size!r}")
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class LambdaLR(_LambdaScheduler):
    """``lr = base_lr * lr_lambda(epoch)``, one function for all groups or one per group.

    Example::

        >>> sched = optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.95 ** epoch)
    """

    def get_lr(self) -> list[float]:
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class CosineAnnealingLR(LRScheduler):
    """Cosine decay from the base rate to ``eta_min`` over ``T_max`` epochs:
    ``lr = eta_min + (base_lr - eta_min) (1 + cos(pi epoch / T_max)) / 2``.

    Computed as PyTorch does, by the recurrence
    ``lr_t = eta_min + (lr_{t-1} - eta_min) (1 + cos(pi t / T)) / (1 + cos(pi (t - 1) / T))``,
    so it composes with other schedulers; past ``T_max`` it rises again (a cosine wave).

    Example::

        >>> sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=1000, eta_min=1e-5)
    """

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ):
        if T_max <= 0:
            raise ValueError(f"CosineAnnealingLR: T_max must be positive, got {T_max}")
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        t, period, lo = self.last_epoch, self.T_max, self.eta_min
        if t == 0:
            return self._current_lrs()
        if self._step_count == 1 and t > 0:  # resumed mid-schedule: closed form
            return self._get_closed_form_lr()
        if (t - 1 - period) % (2 * period) == 0:  # at a trough: step up along the wave
            return [
                lr + (base - lo) * (1 - math.cos(math.pi / period)) / 2
                for lr, base in zip(self._current_lrs(), self.base_lrs)
            ]
        ratio = (1 + math.cos(math.pi * t / period)) / (1 + math.cos(math.pi * (t - 1) / period))
        return [ratio * (lr - lo) + lo for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        t, period, lo = self.last_epoch, self.T_max, self.eta_min
        return [
            lo + (base - lo) * (1 + math.cos(math.pi * t / period)) / 2 for base in self.base_lrs
        ]


class LinearLR(LRScheduler):
    """Scale the base rate by a factor that moves linearly from ``start_factor`` to
    ``end_factor`` over ``total_iters`` epochs, then stays (a linear warmup):
    ``lr = base_lr * (start + (end - start) * min(epoch, total_iters) / total_iters)``.

    Example::

        >>> sched = optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=100)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ):
        if not 0 < start_factor <= 1:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                f"equal to 1, got {start_factor}"
            )
        if not 0 <= end_factor <= 1:
            raise ValueError(
                f"Ending multiplicative factor expected to be between 0 and 1, got {end_factor}"
            )
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        t, n = self.last_epoch, self.total_iters
        s, e = self.start_factor, self.end_factor
        if t == 0:
            return [lr * s for lr in self._current_lrs()]
        if t > n:
            return self._current_lrs()
        # The ratio of the factor at t to the factor at t - 1.
        ratio = 1.0 + (e - s) / (n * s + (t - 1) * (e - s))
        return [lr * ratio for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        t, n = self.last_epoch, self.total_iters
        s, e = self.start_factor, self.end_factor
        return [base * (s + (e - s) * min(n, t) / n) for base in self.base_lrs]


class SequentialLR(_SchedulerOfSchedulers):
    """Run ``schedulers[0]`` until ``milestones[0]``, then ``schedulers[1]`` (restarted
    at its epoch 0) until ``milestones[1]``, and so on.

    Example (linear warmup for 100 steps, then cosine decay)::

        >>> warmup = optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=100)
        >>> cosine = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=900)
        >>> sched = optim.lr_scheduler.SequentialLR(opt, [warmup, cosine], milestones=[100])
    """

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: Sequence[LRScheduler],
        milestones: Sequence[int],
        last_epoch: int = -1,
    ):
        if len(schedulers) < 1:
            raise ValueError("SequentialLR expects at least one scheduler")
        for i, s in enumerate(schedulers):
            if not isinstance(s, LRScheduler) or isinstance(s, SequentialLR):
                raise TypeError(f"SequentialLR: schedulers[{i}] is not a plain LRScheduler")
            if s.optimizer is not optimizer:
                raise ValueError(
                    f"SequentialLR: schedulers[{i}] is bound to a different optimizer than the one "
                    "given to SequentialLR"
                )
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than "
                f"the number of milestone points, but got number of schedulers {len(schedulers)} "
                f"and the number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Undo what the schedulers' own initial steps did, and start the first one.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for s in self._schedulers:
            s.last_epoch -= 1
        self._schedulers[0]._initial_step()
        self._last_lr = self._schedulers[0].get_last_lr()

    def step(self) -> None:  # type: ignore[override]
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler.step(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class OneCycleLR(_MomentumCycling):
    """The 1cycle policy: the rate rises from ``max_lr / div_factor`` to ``max_lr`` over
    the first ``pct_start`` of ``total_steps``, then falls to ``initial_lr /
    final_div_factor``; the momentum (SGD's ``momentum``, Adam's ``beta1``) moves the
    other way, between ``max_momentum`` and ``base_momentum``. Step it once per batch.

    Each phase goes from ``start`` to ``end`` as ``pct`` (the fraction of the phase done)
    goes from 0 to 1: ``end + (start - end) / 2 * (1 + cos(pi * pct))`` for
    ``anneal_strategy="cos"``, ``start + (end - start) * pct`` for ``"linear"``. The phases
    end at steps ``pct_start * total_steps - 1`` and ``total_steps - 1``; with
    ``three_phase`` the rate first returns to ``initial_lr`` at ``2 * pct_start *
    total_steps - 2`` and then decays to the minimum.

    Example::

        >>> sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=0.01, total_steps=1000)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | Sequence[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | Sequence[float] = 0.85,
        max_momentum: float | Sequence[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError(
                    "OneCycleLR: you must define either total_steps OR (epochs AND steps_per_epoch)"
                )
            for name, v in (("epochs", epochs), ("steps_per_epoch", steps_per_epoch)):
                if not isinstance(v, int) or v <= 0:
                    raise ValueError(f"OneCycleLR: expected a positive int {name}, got {v!r}")
            total_steps = epochs * steps_per_epoch
        elif not isinstance(total_steps, int) or total_steps <= 0:
            raise ValueError(
                f"OneCycleLR: expected a positive int total_steps, got {total_steps!r}"
            )
        if not 0 <= pct_start <= 1 or isinstance(pct_start, bool):
            raise ValueError(f"OneCycleLR: expected pct_start in [0, 1], got {pct_start!r}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"OneCycleLR: anneal_strategy must be 'cos' or 'linear', got {anneal_strategy!r}"
            )
        self.total_steps = total_steps
        self.anneal_strategy = anneal_strategy
        self.cycle_momentum = cycle_momentum
        if three_phase:
            ends = [
                float(pct_start * total_steps) - 1,
                float(2 * pct_start * total_steps) - 2,
                total_steps - 1,
            ]
            self._phases = [
                (ends[0], "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (ends[1], "max_lr", "initial_lr", "base_momentum", "max_momentum"),
                (ends[2], "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        else:
            ends = [float(pct_start * total_steps) - 1, total_steps - 1]
            self._phases = [
                (ends[0], "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (ends[1], "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        groups = optimizer.param_groups
        max_lrs = _per_group("max_lr", max_lr, len(groups))
        if last_epoch == -1:
            for group, lr in zip(groups, max_lrs):
                group["initial_lr"] = lr / div_factor
                group["max_lr"] = lr
                group["min_lr"] = group["initial_lr"] / final_div_factor
        if cycle_momentum:
            self._start_momentum(optimizer, "OneCycleLR", base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(
                f"Tried to step {step} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        lrs = []
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, (end_step, lr_from, lr_to, mom_from, mom_to) in enumerate(self._phases):
                if step <= end_step or i == len(self._phases) - 1:
                    pct = (step - start_step) / (end_step - start_step)
                    lr = self._anneal(group[lr_from], group[lr_to], pct)
                    if self.cycle_momentum:
                        mom = self._anneal(group[mom_from], group[mom_to], pct)
                    break
                start_step = end_step
            lrs.append(lr)
            if self.cycle_momentum:
                self._set_momentum(group, mom)
        return lrs


__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)
