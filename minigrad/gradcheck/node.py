"""Check one node of a recorded graph on its own inputs.

A node recorded inside ``graph_recording()`` keeps the arguments its ``forward`` was
called with (``node.recorded_args``). ``check_node`` calls the node's Function again on
float64 copies of them, and checks its backward against finite differences of its
forward with the ordinary rule (``run_check``): one node is one small ``gradcheck``.

The cost of a node is capped, so that a whole model checks in seconds:

- **Inputs**: an input with more than ``max_elements`` elements is checked on a random
  sample of that many elements (the others stay fixed): the sampled elements are the
  variables of the check, put into the input by ``Embed``, whose backward is exact
  (it picks the sampled elements of the gradient).
- **Outputs**: an output with more than ``max_outputs`` elements is projected on a
  random, non-uniform cotangent v: the check is of ``(v * output).sum()``, whose
  gradient ``J^T v`` mixes every row of the Jacobian, so a wrong row anywhere shows.

Randomness inside the node (dropout) is frozen: the random generator is reset to the
same state before every call, so each draws the same mask.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import enable_grad
from minigrad.functions.constant import constant
from minigrad.gradcheck.options import DEFAULT_EPS, Target, make_options
from minigrad.gradcheck.run import run_check
from minigrad.random import get_rng_state, set_rng_state
from minigrad.tensor import Tensor


class Embed(Function):
    """``base`` (a constant array) with the elements at flat positions ``index`` taken
    from ``values``: ``out.flat[index] = values``. Its backward picks those elements of
    the gradient, exactly."""

    @staticmethod
    def forward(ctx, values, base, index):
        ctx.index, ctx.shape = index, base.shape
        out = base.copy()
        out.reshape(-1)[index] = values._data
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(-1)[ctx.index], None, None


class NodeInputs:
    """The float64 arguments of one node's check, and the targets to perturb.

    ``build()`` returns the arguments for one call: each checked input is either its
    target itself or, when sampled, the target's values embedded into the input.
    """

    def __init__(self, node, max_elements: int, rng: np.random.Generator):
        self.targets, self.sampled, self.makers = [], {}, []
        made = {}  # one replacement per recorded tensor, so that x * x stays x * x
        needs = tuple(node.needs_input_grad) + (False,) * len(node.recorded_args)
        for i, (arg, need) in enumerate(zip(node.recorded_args, needs)):
            if isinstance(arg, Tensor) and id(arg) not in made:
                made[id(arg)] = self._input(i, arg, need, max_elements, rng)
            self.makers.append(made[id(arg)] if isinstance(arg, Tensor) else _same(arg))

    def _input(self, i: int, arg, need: bool, max_elements: int, rng):
        data = arg._data
        if data.dtype.kind != "f":
            return _same(constant(data))
        data = data.astype(np.float64)
        if not need:
            return _same(constant(data))
        name = f"input {i}"
        if data.size <= max_elements:
            x = Tensor(data, requires_grad=True)
            self.targets.append(Target(x, name, i))
            return _same(x)
        index = np.sort(rng.choice(data.size, size=max_elements, replace=False))
        x = Tensor(data.reshape(-1)[index].copy(), requires_grad=True)
        self.targets.append(Target(x, name, i))
        self.sampled[name] = (index, data.shape)
        return lambda: Embed.apply(x, data, index)

    def build(self) -> list:
        return [make() for make in self.makers]


def _same(value):
    return lambda: value


def check_node(node, atol: float, rtol: float, max_elements: int, max_outputs: int, seed: int):
    """Check ``node``'s backward on its recorded arguments, in float64.

    Returns ``(status, reason, result, checked)``: status is a gradcheck verdict or
    ``"skipped"``; result the ``GradcheckResult`` (None when skipped); checked maps the
    names of the checked inputs to (elements checked, elements): fewer where sampled.
    """
    rng = np.random.default_rng(seed)
    function = type(node)
    inputs = NodeInputs(node, max_elements, rng)
    if not inputs.targets:
        return "skipped", "no floating-point input needs a gradient", None, {}
    state = get_rng_state()

    def call():
        set_rng_state(state)  # the same dropout mask at every call
        return function.apply(*inputs.build())

    try:
        with enable_grad():
            out = call()
    except Exception as err:  # a forward that refuses float64 is said, not raised
        return "skipped", f"cannot run in float64: {type(err).__name__}: {err}", None, {}
    finally:
        set_rng_state(state)
    if not isinstance(out, Tensor) or out.dtype != np.float64:
        got = out.dtype if isinstance(out, Tensor) else type(out).__name__
        return "skipped", f"cannot run in float64: it returns {got} for float64 inputs", None, {}
    evaluate, names = call, {0: "output 0"}
    if out.numel() > max_outputs:
        v = constant(rng.standard_normal(out.shape))
        names = {0: f"output 0 {_shape(out.shape)} projected on a random v"}

        def evaluate():
            return (call() * v).sum()

    options = make_options(DEFAULT_EPS, atol, rtol, 0.0, False, 4, seed)
    try:
        result = run_check(evaluate, inputs.targets, options, "gradcheck_graph", names)
    finally:
        set_rng_state(state)
    checked = {t.name: (t.tensor.numel(), t.tensor.numel()) for t in inputs.targets}
    for pair in result.pairs:
        if pair.input_name in inputs.sampled:
            index, shape = inputs.sampled[pair.input_name]
            pair.input_shape = tuple(shape)
            for entry in pair.worst:
                flat = int(index[entry.input_index[0]])
                entry.input_index = tuple(int(k) for k in np.unravel_index(flat, shape))
            checked[pair.input_name] = (index.size, int(np.prod(shape)))
    return result.verdict, _reason(result), result, checked


def _reason(result) -> str:
    if result.problems:
        return " ".join(result.problems)
    interesting = [p for p in result.pairs if p.verdict == result.verdict]
    return "; ".join(f"{p.input_name}: {p.reason}" for p in interesting[:2])


def _shape(shape) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"
