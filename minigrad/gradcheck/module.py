"""``gradcheck_module``: check a layer's gradients for its inputs and every parameter.

The module is put in a state where a gradient check means something, and put back
exactly as it was afterwards:

- **Training mode, so normalization uses batch statistics.** BatchNorm in training
  mode couples the examples of a batch through the batch mean and variance; that
  coupling is what hand-written backwards get wrong, so it is what gets checked. (In
  eval mode BatchNorm is an affine map with fixed running statistics; pass
  ``train=False`` to check that instead.)
- **Buffers frozen.** In training mode every forward updates BatchNorm's running
  statistics. They are snapshot before the check, restored before *every* evaluation
  (so each one sees the same state) and restored at the end: the module's running
  statistics and ``num_batches_tracked`` are left exactly as they were.
- **Dropout off unless asked.** Every dropout sub-module (``nn.Dropout``, its
  subclasses and other classes named ``*Dropout*``) is switched to eval mode, the identity. With
  ``dropout=True`` they stay in training mode. Any randomness left (dropout inside a
  layer such as attention, or ``dropout=True``) is frozen: the random generator is
  reset to the same state before every evaluation, so each draws the same mask and the
  check verifies the gradient for that mask. The generator's state is restored at the
  end.
- **float64.** With ``dtype=mg.float64`` (the default) floating-point parameters,
  buffers and inputs are converted for the check (``module.to``) and the original
  arrays put back afterwards, bit for bit. ``dtype=None`` checks the module as it is.
"""

from __future__ import annotations

import contextlib

import numpy as np

from minigrad.functions.constant import constant
from minigrad.gradcheck.api import finish, follow_up, warn_low_precision
from minigrad.gradcheck.graph import gradcheck_graph
from minigrad.gradcheck.options import DEFAULT_EPS, Target, make_options
from minigrad.gradcheck.run import run_check
from minigrad.random import get_rng_state, set_rng_state
from minigrad.tensor import Tensor


def gradcheck_module(
    module,
    *inputs,
    eps: float = DEFAULT_EPS,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    fast_mode: bool = False,
    train: bool = True,
    dropout: bool = False,
    dtype=np.float64,
    check_inputs: bool = True,
    return_result: bool = False,
    num_directions: int = 4,
    seed: int = 0,
):
    """Check the gradients of ``module(*inputs)`` for the inputs and every parameter.

    Parameters are named as in ``named_parameters()`` (``layers.0.norm1.weight``);
    ``result.summary()`` gives one ``name: ok`` line per input and parameter.

    Args:
        module: an ``nn.Module`` (anything with ``named_parameters``,
            ``named_buffers``, ``modules``, ``train`` and ``training``).
        *inputs: the forward's arguments. Floating-point tensors are checked (as
            float64 copies, unless ``check_inputs=False``); other arguments (integer
            indices, masks, flags) are passed through.
        train: run in training mode (batch statistics), see the module docstring.
        dropout: keep dropout layers active (with a frozen mask) instead of off.
        dtype: the dtype for the check (default float64); None keeps the module's.
        check_inputs: also check the gradients of the floating-point inputs.
        eps, atol, rtol, raise_exception, nondet_tol, fast_mode, return_result,
        num_directions, seed: as for ``gradcheck``.

    Returns:
        As ``gradcheck``: True, False, or the ``GradcheckResult``.

    Example::

        >>> layer = nn.Linear(3, 2)
        >>> gradcheck_module(layer, mg.randn(4, 3), return_result=True).summary()
        'input 0: ok\\nweight: ok\\nbias: ok'
    """
    options = make_options(eps, atol, rtol, nondet_tol, fast_mode, num_directions, seed)
    with prepared(module, train, dropout, dtype) as reset:
        args = []
        targets = []
        for i, x in enumerate(inputs):
            if isinstance(x, Tensor) and x.dtype.kind == "f" and check_inputs:
                data = x._data if dtype is None else x._data.astype(dtype)
                x = Tensor(data, requires_grad=True)
                targets.append(Target(x, f"input {i}", i))
            elif isinstance(x, Tensor) and x.dtype.kind == "f" and dtype is not None:
                x = constant(x._data.astype(dtype))
            args.append(x)
        for k, (name, p) in enumerate(module.named_parameters()):
            if p.requires_grad:
                targets.append(Target(p, name, len(inputs) + k))
        if not targets:
            raise ValueError(
                "gradcheck_module: nothing to check (no floating-point input and no "
                "parameter that requires grad)"
            )

        def evaluate():
            reset()
            return module(*args)

        warn_low_precision(targets, eps, stacklevel=2)
        result = run_check(evaluate, targets, options, "gradcheck_module")

    def check_graph(**kwargs):
        with prepared(module, train, dropout, dtype) as reset:
            reset()
            return gradcheck_graph(module, *args, **kwargs)

    result.graph_check = follow_up(result, check_graph)
    return finish(result, raise_exception, return_result, stacklevel=2)


@contextlib.contextmanager
def prepared(module, train: bool, dropout: bool, dtype):
    """The module in the state a check needs (the module docstring), and exactly as it
    was afterwards. Yields ``reset()``, which restores the buffers and the random
    generator before an evaluation, so that every evaluation sees the same state."""
    modules = list(module.modules())
    modes = [m.training for m in modules]
    params = list(module.named_parameters())
    buffers = list(module.named_buffers())
    param_state = [(p, p._data, p._grad) for _, p in params]
    buffer_state = [(b, b._data) for _, b in buffers]
    rng_state = get_rng_state()
    try:
        if dtype is not None:
            module.to(dtype)
        snapshot = [(b, b._data.copy()) for _, b in buffers]
        module.train(train)
        if not dropout:
            for m in modules:
                if _is_dropout(m):
                    m.train(False)

        def reset():
            for b, saved in snapshot:
                b._data = saved.copy()
            set_rng_state(rng_state)

        yield reset
    finally:
        for m, mode in zip(modules, modes):
            object.__setattr__(m, "training", mode)
        for p, data, grad in param_state:
            p._data, p._grad = data, grad
        for b, data in buffer_state:
            b._data = data
        set_rng_state(rng_state)


def _is_dropout(module) -> bool:
    """``nn.Dropout`` and any other class named ``*Dropout*`` (by its class hierarchy, so
    the checker needs nothing from ``nn``, which sits beside it, not below)."""
    return any("Dropout" in cls.__name__ for cls in type(module).__mro__)
