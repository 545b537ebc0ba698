"""What every learning-rate scheduler shares: the ``LRScheduler`` base class (its step
and state semantics are described in ``lr_scheduler.py``), the bases of the schedulers
that share more than it (those driven by ``lr_lambda`` functions, those that cycle the
momentum, those that drive other schedulers), and the helper that reads per-group
arguments.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence

from minigrad.optim.optimizer import Optimizer


class LRScheduler:
    """Base class: subclasses implement ``get_lr()`` (the rates for ``self.last_epoch``).

    Args:
        optimizer: the optimizer whose ``lr`` values are scheduled.
        last_epoch: the index of the last epoch, for resuming; -1 starts fresh and
            sets each group's ``initial_lr``.
    """

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming an optimizer"
                    )
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        self.step()

    def get_lr(self) -> list[float]:
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The learning rates set by the last ``step()`` (one per param group)."""
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch and set every group's ``lr``. (Passing ``epoch`` jumps to it,
        using the closed form where there is one; PyTorch deprecates that use.)"""
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            values = closed() if closed is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict:
        """Every attribute but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)

    def _current_lrs(self) -> list[float]:
        return [group["lr"] for group in self.optimizer.param_groups]


def _is_plain_function(fn) -> bool:
    return isinstance(fn, types.FunctionType) or not hasattr(fn, "__dict__")


class _LambdaScheduler(LRScheduler):
    """The base of ``LambdaLR`` and ``MultiplicativeLR``, whose factors come from
    ``lr_lambda``: one function of the epoch for all param groups, or a list or tuple of
    one per group (``self.lr_lambdas`` holds one per group either way). Their
    ``state_dict`` saves ``None`` for each plain function (and the ``__dict__`` of a
    callable object), as PyTorch saves it; ``load_state_dict`` keeps the functions given
    to the constructor and gives a callable object its saved ``__dict__``."""

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if _is_plain_function(fn) else dict(fn.__dict__) for fn in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        state = dict(state_dict)
        lambdas = state.pop("lr_lambdas", [None] * len(self.lr_lambdas))
        self.__dict__.update(state)
        for fn, saved in zip(self.lr_lambdas, lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class _SchedulerOfSchedulers(LRScheduler):
    """The base of ``SequentialLR`` and ``ChainedScheduler``, which step the schedulers in
    ``self._schedulers``: their state holds each one's ``state_dict``."""

    _schedulers: list[LRScheduler]

    def state_dict(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        state = dict(state_dict)
        saved = state.pop("_schedulers")
        self.__dict__.update(state)
        for scheduler, s in zip(self._schedulers, saved):
            scheduler.load_state_dict(s)


class _MomentumCycling(LRScheduler):
    """The base of ``OneCycleLR`` and ``CyclicLR``, which with ``cycle_momentum`` move
    each group's momentum (SGD's and RMSprop's ``momentum``, the Adam family's
    ``betas[0]``) between ``base_momentum`` and ``max_momentum``, opposite to the rate."""

    use_beta1: bool

    def _start_momentum(
        self, optimizer: Optimizer, name: str, base_momentum, max_momentum, last_epoch: int
    ) -> tuple[list[float], list[float]]:
        """Check that the optimizer has a momentum (``ValueError`` naming the scheduler
        ``name`` otherwise) and return the per-group ``(base, max)`` momenta; starting
        fresh (``last_epoch == -1``), each group's momentum is set to its maximum and both
        bounds are recorded in the group, as PyTorch does."""
        if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
            raise ValueError(
                f"{name}: optimizer must support momentum or beta1 with `cycle_momentum` "
                "option enabled"
            )
        self.use_beta1 = "betas" in optimizer.defaults
        groups = optimizer.param_groups
        bases = _per_group("base_momentum", base_momentum, len(groups))
        maxes = _per_group("max_momentum", max_momentum, len(groups))
        if last_epoch == -1:
            for group, low, high in zip(groups, bases, maxes):
                self._set_momentum(group, high)
                group["max_momentum"] = high
                group["base_momentum"] = low
        return bases, maxes

    def _set_momentum(self, group: dict, momentum: float) -> None:
        """Set a param group's momentum: ``betas[0]`` or ``momentum``."""
        if self.use_beta1:
            group["betas"] = (momentum, *group["betas"][1:])
        else:
            group["momentum"] = momentum


def _per_group(name: str, value, n: int) -> list:
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"expected {n} values for {name} (one per group), got {len(value)}")
        return list(value)
    return [value] * n
