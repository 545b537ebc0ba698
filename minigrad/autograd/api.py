"""``backward`` and ``grad``: the two ways to start the engine (``engine.run_backward``)."""

from __future__ import annotations

import numpy as np

from minigrad.autograd import function
from minigrad.autograd.engine import run_backward
from minigrad.printing import shape_str


def _as_list(x) -> list:
    if x is None:
        return []
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _seed_grads(outputs: list, grad_outputs, what: str) -> list:
    """One starting gradient per output: ones for scalars, the given tensor otherwise."""
    Tensor = function.Tensor  # the class minigrad.tensor binds (it imports this module)
    grad_outputs = _as_list(grad_outputs) or [None] * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise ValueError(f"{what}: got {len(grad_outputs)} gradients for {len(outputs)} outputs")
    seeds = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(out, Tensor):
            raise TypeError(f"{what}: output {i} is a {type(out).__name__}, not a Tensor")
        if not out.requires_grad:
            raise RuntimeError(
                f"{what}: output {i} does not require grad and has no grad_fn, so there is "
                "no graph to differentiate. Make sure an input has requires_grad=True and "
                "that the computation did not run under mg.no_grad() or detach()."
            )
        if g is None:
            if out._data.size != 1:
                raise RuntimeError(
                    f"{what}: grad can be implicitly created only for scalar outputs, but "
                    f"output {i} has shape {shape_str(out._data.shape)}. Pass the gradient "
                    "of the loss with respect to it (gradient=... / grad_outputs=...), or "
                    "reduce it to a scalar first (e.g. .sum())."
                )
            g = Tensor._make(np.ones(out._data.shape, dtype=out._data.dtype), False, None)
        else:
            g = g if isinstance(g, Tensor) else Tensor(g)
            if g._data.shape != out._data.shape:
                raise RuntimeError(
                    f"{what}: gradient for output {i} has shape {shape_str(g._data.shape)}, "
                    f"but the output has shape {shape_str(out._data.shape)}"
                )
            if g._data.dtype != out._data.dtype:
                g = g.to(out._data.dtype)
        seeds.append(g)
    return seeds


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of every leaf."""
    tensors = _as_list(tensors)
    seeds = _seed_grads(tensors, grad_tensors, "backward")
    if retain_graph is None:
        retain_graph = create_graph
    run_backward(tensors, seeds, retain_graph, create_graph)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
):
    """The gradients of ``outputs`` with respect to ``inputs``, returned, not accumulated.

    Args:
        outputs: a tensor or a sequence of tensors.
        inputs: the tensors to differentiate with respect to (leaf or not).
        grad_outputs: d(loss)/d(output) for each output (``None`` for scalar outputs).
        retain_graph: keep the graph for another pass (defaults to ``create_graph``).
        create_graph: build a graph of the gradients, so they can be differentiated
            again (Hessian-vector products, gradient penalties).
        allow_unused: return ``None`` for an input the outputs do not depend on
            instead of raising.

    Returns:
        A tuple with one gradient per input.

    Example::

        >>> x = mg.tensor([1.0, 2.0], requires_grad=True)
        >>> (g,) = grad((x ** 3).sum(), x, create_graph=True)   # 3 x^2
        >>> (h,) = grad(g.sum(), x)                               # 6 x
    """
    Tensor = function.Tensor
    outputs = _as_list(outputs)
    single = isinstance(inputs, Tensor)
    inputs = [inputs] if single else list(inputs)
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor) or not t.requires_grad:
            raise RuntimeError(f"grad: input {i} does not require grad")
    seeds = _seed_grads(outputs, grad_outputs, "grad")
    if retain_graph is None:
        retain_graph = create_graph
    grads = run_backward(outputs, seeds, retain_graph, create_graph, inputs=inputs)
    for i, g in enumerate(grads):
        if g is None and not allow_unused:
            raise RuntimeError(
                f"grad: input {i} was not used in computing the outputs; pass "
                "allow_unused=True to get None for it"
            )
    return tuple(grads)


_MULTITHREADING = [True]


def is_multithreading_enabled() -> bool:
    """Whether a backward pass may use one thread per device, as PyTorch (on by default).
    minigrad has one device, the CPU, so the setting changes nothing."""
    return _MULTITHREADING[0]


class set_multithreading_enabled:
    """Context manager setting :func:`is_multithreading_enabled` (restored on exit)."""

    def __init__(self, mode: bool) -> None:
        self.prev = _MULTITHREADING[0]
        self.mode = bool(mode)
        _MULTITHREADING[0] = self.mode

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> None:
        _MULTITHREADING[0] = self.prev
