"""Check one node of a recorded graph on its own inputs.

A node recorded inside ``graph_recording()`` keeps the arguments its ``forward`` was
called with (``node.recorded_args``). ``check_node`` calls the node's Function again on
float64 copies of them, and checks its backward against finite differences of its
forward with the ordinary rule (``run_check``): one node is one small ``gradcheck``
(``gradgradcheck`` with ``order=2``).

The cost of a node is capped, so that a whole model checks in seconds, and the cap is
spent where a wrong backward shows:

- **Inputs.** An input with more than ``max_elements`` elements is checked element by
  element on a selection of that many, and on **all** the others together, along two
  random directions (two more variables of the check: ``x + t_1 u_1 + t_2 u_2`` on the
  elements left out). The selection starts from the node's own gradient, ``J^T v`` for
  a random v, over the whole input: every element it is nonzero at, if they fit;
  otherwise one element in each slice the gradient touches along the axis it touches
  least (each row of an embedding table or a gathered matrix that an index picked,
  repeated rows included), then more of those elements at random; a selection with
  room left takes elements the gradient misses too (a backward that forgets a row).
  ``NodeResult.sampling`` says how each input's elements were chosen. The variables are
  put into the input by ``Assemble``, whose backward is exact.
- **Outputs.** An output with more than ``max_outputs`` elements is projected on a
  random, non-uniform cotangent v: the check is of ``v . output``, whose gradient
  ``J^T v`` mixes every row of the Jacobian, so a wrong row anywhere shows. Output
  elements that are not finite (a mask's -inf) are left out of the sum, but not out of
  the cotangent that backward receives: a gradient that leaks through a mask shows.

Randomness inside the node (dropout) is frozen: the random generator is reset to the
same state before every call, so each draws the same mask.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from minigrad.autograd.api import grad as autograd_grad
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import enable_grad
from minigrad.functions.constant import constant
from minigrad.gradcheck.options import DEFAULT_EPS, Target, make_options
from minigrad.gradcheck.run import run_check
from minigrad.gradcheck.second import second_order_check
from minigrad.random import get_rng_state, set_rng_state
from minigrad.tensor import Tensor

#: Random directions along which the elements left out of a selection are checked.
REST_DIRECTIONS = 2


class Assemble(Function):
    """``base`` (a constant array) with the elements at flat positions ``index`` taken
    from ``values`` and the elements at ``rest`` moved along ``directions`` by ``coords``:
    ``out.flat[index] = values``, ``out.flat[rest] += coords @ directions``. Its
    backward picks the gradient at ``index`` and projects it on the directions at
    ``rest``, exactly (with Tensor operations, so it is differentiable again)."""

    @staticmethod
    def forward(ctx, values, coords, base, index, rest, directions):
        ctx.index, ctx.rest, ctx.directions = index, rest, directions
        out = base.copy()
        flat = out.reshape(-1)
        flat[index] = values._data
        if rest.size:
            flat[rest] += coords._data @ directions
        return out

    @staticmethod
    def backward(ctx, grad):
        flat = grad.reshape(-1)
        picked = flat[ctx.index]
        if ctx.rest.size == 0:
            return picked, None, None, None, None, None
        projected = constant(ctx.directions) @ flat[ctx.rest]
        return picked, projected, None, None, None, None


class Projected(Function):
    """``sum(v * out)`` over the output elements that were finite on the first call
    (``keep``); backward hands ``g * v`` to every element, masked or not."""

    @staticmethod
    def forward(ctx, out, v, keep):
        ctx.v = v
        return np.asarray(np.sum(np.where(keep, v * out._data, 0.0)))

    @staticmethod
    def backward(ctx, g):
        return g * constant(ctx.v), None, None


@dataclass
class Selection:
    """Which elements of one input are checked one by one (``index``), which together
    along random directions (``rest``, ``directions``), and a sentence saying how."""

    index: np.ndarray
    rest: np.ndarray
    directions: np.ndarray
    how: str
    tag: str  # the rule in a word, for the report's table (``TAGS``)


def select(data, gradient, max_elements: int, rng) -> Selection:
    """Choose the elements of an input with more than ``max_elements`` elements
    (the module docstring). ``gradient`` is ``J^T v`` over the input, or None when the
    backward could not give it (then the selection is random)."""
    size = data.size
    finite = np.isfinite(data.reshape(-1))
    movable = np.flatnonzero(finite)
    left_out = size - movable.size
    if gradient is None:
        touched = np.zeros(0, dtype=int)
    else:
        nonzero = gradient.reshape(-1) != 0
        touched = np.flatnonzero(nonzero & finite)
    chosen, how, tag = [], "", "random"
    if touched.size == 0:
        chosen = list(rng.choice(movable, size=min(max_elements, movable.size), replace=False))
        how = f"{len(chosen)} at random" + (
            " (backward gave no gradient to choose by)" if gradient is None else ""
        )
    elif touched.size <= max_elements:
        chosen = list(touched)
        how = f"every element with a nonzero gradient ({touched.size})"
        tag = "nonzero"
    else:
        axis, rows = sparse_axis(data.shape, touched)
        if axis is not None:
            at_axis = np.unravel_index(touched, data.shape)[axis]
            order = rng.permutation(rows)[:max_elements]
            for row in order:
                chosen.append(int(rng.choice(touched[at_axis == row])))
            how = (
                f"one in each of {min(rows.size, max_elements)} of the {rows.size} slices "
                f"along axis {axis} that the gradient touches"
            )
            tag = f"rows of axis {axis}"
        room = max_elements - len(chosen)
        if room > 0:
            pool = np.setdiff1d(touched, chosen)
            more = rng.choice(pool, size=min(room, pool.size), replace=False)
            chosen.extend(int(k) for k in more)
            head = f"{how}, then " if how else ""
            how = f"{head}{more.size} at random among the {touched.size} with a nonzero gradient"
    room = max_elements - len(chosen)
    if room > 0 and touched.size:
        pool = np.setdiff1d(movable, chosen)
        more = rng.choice(pool, size=min(room, pool.size), replace=False)
        chosen.extend(int(k) for k in more)
        if more.size:
            how += f", and {more.size} of those with a zero gradient at random"
    index = np.sort(np.array(chosen, dtype=int))
    rest = np.setdiff1d(movable, index)
    directions = rng.standard_normal((REST_DIRECTIONS, rest.size)) / np.sqrt(max(rest.size, 1))
    if rest.size:
        how += f"; the other {rest.size} together along {REST_DIRECTIONS} random directions"
    if left_out:
        how += f"; {left_out} not finite (a mask's -inf) left out"
    if rest.size:
        tag += f", +{REST_DIRECTIONS} directions"
    return Selection(index, rest, directions, how, tag)


def sparse_axis(shape, touched) -> tuple:
    """(axis, indices along it) of the axis along which the gradient touches the fewest
    indices, if some index is untouched (the rows an embedding or a gather picked), else
    (None, None)."""
    at = np.unravel_index(touched, shape)
    best = (None, None)
    fraction = 1.0
    for axis, n in enumerate(shape):
        rows = np.unique(at[axis])
        if n > 1 and rows.size / n < fraction:
            fraction, best = rows.size / n, (axis, rows)
    return best


class NodeInputs:
    """The float64 arguments of one node's check, and the targets to perturb.

    ``build()`` returns the arguments for one call: each checked input is either its
    target itself or, when it has more than ``max_elements`` elements, the values of
    its selected elements and the coordinates along the directions for the others,
    assembled into the input.
    """

    def __init__(self, node, max_elements, rng, gradients=None):
        self.targets, self.sampled, self.makers, self.sampling, self.tags = [], {}, [], {}, {}
        made = {}  # one replacement per recorded tensor, so that x * x stays x * x
        needs = tuple(node.needs_input_grad) + (False,) * len(node.recorded_args)
        gradients = gradients or {}
        for i, (arg, need) in enumerate(zip(node.recorded_args, needs)):
            if isinstance(arg, Tensor) and id(arg) not in made:
                made[id(arg)] = self._input(i, arg, need, max_elements, rng, gradients.get(i))
            self.makers.append(made[id(arg)] if isinstance(arg, Tensor) else _same(arg))

    def _input(self, i: int, arg, need: bool, max_elements, rng, gradient):
        data = arg._data
        if data.dtype.kind != "f":
            return _same(constant(data))
        data = data.astype(np.float64)
        if not need:
            return _same(constant(data))
        name = f"input {i}"
        if max_elements is None or data.size <= max_elements:
            x = Tensor(data, requires_grad=True)
            self.targets.append(Target(x, name, i))
            self.sampling[name] = f"all {data.size}"
            return _same(x)
        chosen = select(data, gradient, max_elements, rng)
        values = Tensor(data.reshape(-1)[chosen.index].copy(), requires_grad=True)
        self.targets.append(Target(values, name, i))
        coords = Tensor(np.zeros(REST_DIRECTIONS if chosen.rest.size else 0), requires_grad=True)
        if chosen.rest.size:
            rest_name = (
                f"{name} (the other {chosen.rest.size} elements, {REST_DIRECTIONS} directions)"
            )
            self.targets.append(Target(coords, rest_name, i))
        self.sampled[name] = (chosen.index, data.shape)
        self.sampling[name] = f"{chosen.index.size} of {data.size}: {chosen.how}"
        self.tags[name] = chosen.tag
        return lambda: Assemble.apply(
            values, coords, data, chosen.index, chosen.rest, chosen.directions
        )

    def build(self) -> list:
        return [make() for make in self.makers]


def _same(value):
    return lambda: value


def full_gradients(node, function, state, v_seed) -> tuple:
    """The node's output on float64 copies of all its inputs, a random cotangent v of
    its shape, and ``J^T v`` for each input that needs a gradient ({position: array}),
    or None where backward fails (the check itself then reports it)."""
    args, tensors = [], {}
    needs = tuple(node.needs_input_grad) + (False,) * len(node.recorded_args)
    made = {}
    for i, (arg, need) in enumerate(zip(node.recorded_args, needs)):
        if isinstance(arg, Tensor) and arg._data.dtype.kind == "f":
            if id(arg) not in made:
                made[id(arg)] = Tensor(arg._data.astype(np.float64), requires_grad=bool(need))
            if need:
                tensors[i] = made[id(arg)]
            args.append(made[id(arg)])
        else:
            args.append(arg)
    set_rng_state(state)
    with enable_grad():
        out = function.apply(*args)
    set_rng_state(state)
    if not isinstance(out, Tensor) or out.dtype != np.float64:
        return out, None, None
    v = np.random.default_rng(v_seed).standard_normal(out.shape)
    if not tensors or not out.requires_grad:
        return out, v, None
    try:
        grads = autograd_grad(
            out, list(tensors.values()), constant(v), allow_unused=True, retain_graph=False
        )
    except Exception:  # a broken backward is the check's finding, not this one's
        return out, v, None
    return out, v, {i: (None if g is None else g._data) for i, g in zip(tensors, grads)}


def check_node(
    node,
    atol: float,
    rtol: float,
    max_elements,
    max_outputs: int,
    seed: int,
    order: int = 1,
):
    """Check ``node``'s backward on its recorded arguments, in float64.

    ``max_elements=None`` checks every element of every input one by one. ``order=2``
    checks the backward's own derivatives (``gradgradcheck``) instead.

    Returns ``(status, reason, result, checked, sampling)``: status is a gradcheck
    verdict or ``"skipped"``; result the ``GradcheckResult`` (None when skipped);
    checked maps the names of the checked inputs to (elements checked one by one,
    elements); sampling maps them to (a sentence saying how the elements were chosen,
    the rule in a few words).
    """
    rng = np.random.default_rng(seed)
    function = type(node)
    state = get_rng_state()
    try:
        first, v, gradients = full_gradients(node, function, state, seed + 1)
    except Exception as err:  # a forward that refuses float64 is said, not raised
        set_rng_state(state)
        return "skipped", f"cannot run in float64: {type(err).__name__}: {err}", None, {}, {}
    if not isinstance(first, Tensor) or first.dtype != np.float64:
        got = first.dtype if isinstance(first, Tensor) else type(first).__name__
        reason = f"cannot run in float64: it returns {got} for float64 inputs"
        return "skipped", reason, None, {}, {}
    inputs = NodeInputs(node, max_elements, rng, gradients)
    if not inputs.targets:
        return "skipped", "no floating-point input needs a gradient", None, {}, {}

    def call():
        set_rng_state(state)  # the same dropout mask at every call
        return function.apply(*inputs.build())

    evaluate, names = call, {0: "output 0"}
    if first.numel() > max_outputs:
        keep = np.isfinite(first._data)
        names = {0: f"output 0 {_shape(first.shape)} projected on a random v"}

        def evaluate():
            return Projected.apply(call(), v, keep)

    options = make_options(DEFAULT_EPS, atol, rtol, 0.0, False, 4, seed)
    try:
        if order == 2:
            result = second_order_check(evaluate, inputs.targets, options, "gradcheck_graph", rng)
        else:
            result = run_check(evaluate, inputs.targets, options, "gradcheck_graph", names)
    finally:
        set_rng_state(state)
    checked = {}
    for t in inputs.targets:
        base = t.name.split(" (")[0]
        if base in inputs.sampled:
            index, shape = inputs.sampled[base]
            checked[base] = (index.size, int(np.prod(shape)))
        else:
            checked[base] = (t.tensor.numel(), t.tensor.numel())
    for pair in result.pairs:
        if pair.input_name in inputs.sampled:
            index, shape = inputs.sampled[pair.input_name]
            pair.input_shape = tuple(shape)
            for entry in pair.worst:
                flat = int(index[entry.input_index[0]])
                entry.input_index = tuple(int(k) for k in np.unravel_index(flat, shape))
    sampling = {name: (how, inputs.tags.get(name, "all")) for name, how in inputs.sampling.items()}
    return result.verdict, _reason(result), result, checked, sampling


def _reason(result) -> str:
    if result.problems:
        return " ".join(result.problems)
    interesting = [p for p in result.pairs if p.verdict == result.verdict]
    return "; ".join(f"{p.input_name}: {p.reason}" for p in interesting[:2])


def _shape(shape) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"
