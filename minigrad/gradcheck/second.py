"""Second derivatives: the check ``gradgradcheck`` makes, shared with the node checks of
``gradcheck_graph(order=2)``.

A backward is itself a function of the inputs and of the incoming gradient v:
``(x, v) -> J(x)^T v``. Built with ``create_graph=True`` it is a graph like any other,
and checking it with ``run_check`` against finite differences verifies that each
backward is correctly differentiable (Hessian-vector products, gradient penalties).
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.api import grad as autograd_grad
from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled
from minigrad.functions.constant import constant
from minigrad.gradcheck.options import Target, as_tuple
from minigrad.gradcheck.run import run_check
from minigrad.tensor import Tensor


def differentiable_outputs(outputs: tuple) -> list:
    """The positions of the floating-point outputs that require grad (there must be
    one: a first derivative to differentiate)."""
    positions = [
        j
        for j, o in enumerate(outputs)
        if isinstance(o, Tensor) and o.dtype.kind == "f" and o.requires_grad
    ]
    if not positions:
        raise ValueError(
            "gradgradcheck: no output of the function requires grad, so there is no first "
            "derivative to differentiate"
        )
    return positions


def second_order_check(evaluate, targets, options, kind, rng, cotangents=None):
    """The check ``gradgradcheck`` makes, of ``evaluate()`` (a function of no arguments
    that reads the targets): a first-order check of ``(targets, v) -> J^T v``, built with
    ``create_graph``, against finite differences. ``cotangents`` are the v's (default:
    random, standard normal from ``rng``); they are checked too, as targets named
    ``grad_outputs[k]``."""
    tensors = [t.tensor for t in targets]
    with enable_grad():
        outputs = as_tuple(evaluate())
    positions = differentiable_outputs(outputs)
    if cotangents is None:
        cotangents = [
            Tensor(
                rng.standard_normal(outputs[j].shape).astype(outputs[j].dtype), requires_grad=True
            )
            for j in positions
        ]

    def first_derivatives():
        # During finite differences grad mode is off: only values are needed there.
        build = is_grad_enabled()
        with enable_grad():
            outs = as_tuple(evaluate())
            grads = autograd_grad(
                [outs[j] for j in positions],
                tensors,
                cotangents,
                create_graph=build,
                retain_graph=build,
                allow_unused=True,
            )
        return tuple(
            g if g is not None else constant(np.zeros(t.shape, t.dtype))
            for g, t in zip(grads, tensors)
        )

    after = max(t.position for t in targets) + 1
    second = [Target(v, f"grad_outputs[{k}]", after + k) for k, v in enumerate(cotangents)]
    output_names = {k: f"grad[{t.name}]" for k, t in enumerate(targets)}
    result = run_check(first_derivatives, targets + second, options, kind, output_names)
    # The pairs with respect to grad_outputs only re-check J itself; the second
    # derivatives are the pairs with respect to the inputs.
    second_order = [p for p in result.pairs if not p.input_name.startswith("grad_outputs")]
    if second_order and all(p.verdict == "vacuous" for p in second_order):
        if result.verdict != "failed":
            result.verdict = "vacuous"
        result.notes.append(
            "every second derivative is zero: fn is linear in its inputs, so there is "
            "nothing to check at second order"
        )
    return result
