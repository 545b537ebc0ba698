"""Higher-level derivatives of a function, as ``torch.autograd.functional``: ``vjp``,
``jvp``, ``jacobian``, ``hessian``, ``vhp``, ``hvp``. All are built on reverse mode
(:func:`minigrad.autograd.grad`):

- ``vjp(f, x, v)``: ``v^T J`` in one backward pass.
- ``jvp(f, x, v)``: ``J v`` by the double-vjp trick: ``g(u) = u^T J`` is linear in ``u``,
  so the gradient of ``g(u) . v`` with respect to ``u`` is ``J v``.
- ``jacobian(f, x)``: one backward pass per output element, stacked to
  ``output.shape + input.shape``.
- ``hessian(f, x)``: the Jacobian of the gradient (built with ``create_graph``).
- ``vhp(f, x, v)`` = ``v^T H`` and ``hvp(f, x, v)`` = ``H v``, equal for a twice
  continuously differentiable ``f`` (its Hessian is symmetric); both use two backward
  passes.

Inputs are detached from any graph they belong to (unless ``create_graph=True`` and they
require grad), so ``f`` is differentiated at their values; results are detached unless
``create_graph=True``. An input that an output does not depend on gets zeros (with
``strict=True``, a ``RuntimeError``).

Example::

    >>> def f(x):
    ...     return (x ** 3).sum()
    >>> hessian(f, mg.tensor([1.0, 2.0]))          # diag(6 x)
    tensor([[ 6.,  0.],
            [ 0., 12.]])
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from minigrad.autograd.api import grad
from minigrad.tensor import Tensor, as_tensor

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _as_tuple(x) -> tuple[tuple, bool]:
    """``(tuple of tensors, whether x was a single tensor)``."""
    if isinstance(x, Tensor):
        return (x,), True
    return tuple(x), False


def _prepare(inputs: tuple, create_graph: bool) -> tuple:
    out = []
    for x in inputs:
        x = as_tensor(x)
        if create_graph and x.requires_grad:
            out.append(x)
        else:
            out.append(x.detach().requires_grad_(True))
    return tuple(out)


def _grads(outputs: tuple, inputs: tuple, seeds: tuple, create_graph: bool, strict: bool):
    """``sum_j seeds_j^T d outputs_j / d inputs`` for each input (zeros where unused)."""
    pairs = [(o, s) for o, s in zip(outputs, seeds) if o.requires_grad]
    if pairs:
        found = grad(
            [o for o, _ in pairs],
            inputs,
            [s for _, s in pairs],
            retain_graph=True,
            create_graph=create_graph,
            allow_unused=True,
        )
    else:
        found = (None,) * len(inputs)
    result = []
    for i, (x, g) in enumerate(zip(inputs, found)):
        if g is None:
            if strict:
                raise RuntimeError(
                    f"The output of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."
                )
            g = Tensor(np.zeros(x.shape, dtype=x.dtype))
        result.append(g)
    return tuple(result)


def _scalar_gradient(name: str, out, xs: tuple, strict: bool) -> tuple:
    """The gradient of a one-element ``out`` with respect to ``xs``, itself recorded."""
    if not isinstance(out, Tensor) or out.numel() != 1:
        raise RuntimeError(
            f"The function given to {name} should return a single Tensor with a single element"
        )
    return _grads((out,), xs, (Tensor(np.ones(out.shape, dtype=out.dtype)),), True, strict)


def _finish(tensors, create_graph: bool):
    if isinstance(tensors, Tensor):
        return tensors if create_graph else tensors.detach()
    return tuple(_finish(t, create_graph) for t in tensors)


def _seeds(outputs: tuple, v, what: str) -> tuple:
    if v is None:
        if len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError(
                f"The vector v can only be None if the user-provided function returns a single "
                f"Tensor with a single element ({what})."
            )
        return (Tensor(np.ones(outputs[0].shape, dtype=outputs[0].dtype)),)
    seeds, _ = _as_tuple(v)
    if len(seeds) != len(outputs):
        raise RuntimeError(f"{what}: v has {len(seeds)} tensors, the outputs {len(outputs)}")
    for s, o in zip(seeds, outputs):
        if tuple(as_tensor(s).shape) != tuple(o.shape):
            raise RuntimeError(
                f"{what}: v has shape {tuple(as_tensor(s).shape)}, expected {tuple(o.shape)}"
            )
    return tuple(as_tensor(s) for s in seeds)


def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product (``v`` may be omitted for a
    scalar output)."""
    xs, single = _as_tuple(inputs)
    xs = _prepare(xs, create_graph)
    out = func(*xs)
    outs, _ = _as_tuple(out)
    result = _grads(outs, xs, _seeds(outs, v, "vjp"), create_graph, strict)
    return _finish(out, create_graph), _finish(result[0] if single else result, create_graph)


def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), J v)``: the Jacobian-vector product (``v`` may be omitted for a
    single-element input)."""
    xs, single = _as_tuple(inputs)
    xs = _prepare(xs, create_graph)
    tangents = _seeds(xs, v, "jvp")
    out = func(*xs)
    outs, single_out = _as_tuple(out)
    dummies = tuple(Tensor(np.zeros(o.shape, dtype=o.dtype), requires_grad=True) for o in outs)
    # u^T J, kept as a graph in u (and in xs when create_graph) ...
    vjps = _grads(outs, xs, dummies, create_graph=True, strict=strict)
    # ... whose gradient along the tangents, with respect to u, is J v.
    result = _grads(vjps, dummies, tangents, create_graph, strict=False)
    return _finish(out, create_graph), _finish(result[0] if single_out else result, create_graph)


def jacobian(
    func: Callable,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
):
    """The Jacobian of ``func`` at ``inputs``: ``output.shape + input.shape`` for one
    output and one input; a tuple over inputs, over outputs, or a tuple (over outputs) of
    tuples (over inputs) otherwise, as in PyTorch. ``vectorize`` and ``strategy`` are
    accepted; the rows are always computed by reverse mode, one backward pass each."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError(
            f'Expected strategy to be either "forward-mode" or "reverse-mode", got {strategy!r}'
        )
    xs, single_in = _as_tuple(inputs)
    xs = _prepare(xs, create_graph)
    out = func(*xs)
    outs, single_out = _as_tuple(out)
    per_output = []
    for j, o in enumerate(outs):
        rows = [[] for _ in xs]
        for k in range(o.numel()):
            seed = np.zeros(o.numel(), dtype=o.dtype)
            seed[k] = 1
            seeds = tuple(
                Tensor(seed.reshape(o.shape) if i == j else np.zeros(p.shape, dtype=p.dtype))
                for i, p in enumerate(outs)
            )
            for i, g in enumerate(_grads(outs, xs, seeds, create_graph, strict)):
                rows[i].append(g)
        blocks = []
        for i, x in enumerate(xs):
            if rows[i]:
                from minigrad.ops import stack

                block = stack(rows[i]).reshape(tuple(o.shape) + tuple(x.shape))
            else:  # an output with no elements
                block = Tensor(np.zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype))
            blocks.append(_finish(block, create_graph))
        per_output.append(blocks[0] if single_in else tuple(blocks))
    return per_output[0] if single_out else tuple(per_output)


def hessian(
    func: Callable,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
):
    """The Hessian of a scalar ``func`` at ``inputs``: ``input.shape + input.shape`` for
    one input, a tuple of tuples ``H[i][j]`` for several."""
    xs, single_in = _as_tuple(inputs)

    def gradient(*ys):
        g = _scalar_gradient("hessian", func(*ys), ys, strict)
        return g[0] if single_in else g

    return jacobian(gradient, xs[0] if single_in else xs, create_graph, strict)


def vhp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T H)`` for a scalar ``func``."""
    xs, single = _as_tuple(inputs)
    xs = _prepare(xs, create_graph)
    out = func(*xs)
    grads = _scalar_gradient("vhp or hvp", out, xs, strict)
    result = _grads(grads, xs, _seeds(xs, v, "vhp"), create_graph, strict)
    return _finish(out, create_graph), _finish(result[0] if single else result, create_graph)


def hvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), H v)`` for a scalar ``func`` (equal to :func:`vhp`: the Hessian of a
    twice continuously differentiable function is symmetric)."""
    return vhp(func, inputs, v, create_graph, strict)
