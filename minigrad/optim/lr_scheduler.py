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

The others, with PyTorch's rules (in its chainable form where it has one, with the
closed form beside it for ``step(epoch)``):

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
from minigrad.unsupported import module_getattr

__all__ = [
    "LRScheduler",
    "StepLR",
    "LambdaLR",
    "CosineAnnealingLR",
    "LinearLR",
    "SequentialLR",
    "OneCycleLR",
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


__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)
