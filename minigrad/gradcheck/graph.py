"""``gradcheck_graph``: find which node of a model's graph has the wrong backward.

``gradcheck`` says whether the Jacobian of a whole function is right. When it is not,
the question is which backward is wrong. Every node of the graph is a ``Function``
applied to some inputs; recorded inside ``mg.autograd.graph_recording()``, a node also
keeps those inputs and the module that made it. ``gradcheck_graph`` then checks each
node on its own, in backward order (the order in which ``backward()`` runs them), with
``check_node`` (a small float64 ``gradcheck`` of that node alone), and reports the
first wrong node: its class, its module path, the input whose gradient is wrong and
the worst entries.

    with mg.autograd.graph_recording(model):
        loss = loss_fn(model(x), y)
    result = mg.autograd.gradcheck_graph(loss)

or, letting the checker run the model itself: ``gradcheck_graph(model, x)``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import enable_grad
from minigrad.autograd.recording import graph_recording, paused
from minigrad.gradcheck.node import check_node
from minigrad.gradcheck.options import as_tuple
from minigrad.gradcheck.report import LABELS, GradcheckError, _table
from minigrad.tensor import Tensor

#: Elements of a node's input checked one by one (chosen by the node's gradient, see
#: ``node``); the others are checked together along random directions.
MAX_ELEMENTS = 32
#: Output elements of a node checked row by row (a random projection beyond that).
MAX_OUTPUTS = 64

#: After a failed whole check with no wrong node, the sampled nodes are checked again
#: on up to this many elements per input, one by one (every element of the inputs of a
#: small model; a selection, with the rest along directions, of an embedding table).
RECHECK_ELEMENTS = 4096

STATUS_LABELS = dict(LABELS, skipped="skipped")


@dataclass
class NodeResult:
    """The check of one node.

    Attributes:
        position: the node's place in backward order (0 runs first).
        name: the node's Function class; ``module_path`` the module that made it
            (``"layers.1.norm1"``, ``""`` at the top level).
        status: a gradcheck verdict (``"passed"``, ``"failed"``, ``"inconclusive"``,
            ``"vacuous"``, ``"non-differentiable"``) or ``"skipped"``; ``reason`` why.
        result: the node's ``GradcheckResult`` (None when skipped).
        checked: for each checked input, (elements checked one by one, elements):
            fewer where the input has more than ``max_elements`` (the others are then
            checked together along random directions).
        sampling: for each checked input, how its elements were chosen: a sentence
            (``"all 24"``, ``"32 of 512: one in each of 10 of the 10 slices along axis 0
            that the gradient touches, ...; the other 480 together along 2 random
            directions"``) and the rule in a few words (``"rows of axis 0, +2
            directions"``).
        rechecked: True where the node was checked again on every element, one by
            one, after a check on a selection found nothing wrong.
    """

    position: int
    name: str
    module_path: str
    status: str
    reason: str
    result: object = None
    checked: dict = field(default_factory=dict)
    sampling: dict = field(default_factory=dict)
    rechecked: bool = False

    @property
    def where(self) -> str:
        return self.module_path or "(top level)"

    @property
    def wrong_inputs(self) -> list:
        """The names of the inputs whose gradient this node gets wrong."""
        if self.result is None:
            return []
        # "input 1 (the other 480 elements, 2 directions)" is input 1 too.
        names = [p.input_name.split(" (")[0] for p in self.result.pairs if p.verdict == "failed"]
        return list(dict.fromkeys(names))

    @property
    def sampled(self) -> bool:
        """True where some input was checked one by one on a selection only."""
        return any(done < total for done, total in self.checked.values())


class GraphCheckResult:
    """Every node's check. ``bool(result)`` is False when some node failed;
    ``result.first_wrong`` is the first failed node in backward order (or None);
    ``str(result)`` is the report."""

    def __init__(self, nodes: list, atol: float, rtol: float, order: int = 1):
        self.nodes, self.atol, self.rtol, self.order = nodes, atol, rtol, order
        #: The verdict of the whole check this one follows (``result.graph_check()``),
        #: or None.
        self.after = None

    @property
    def wrong(self) -> list:
        return [n for n in self.nodes if n.status == "failed"]

    @property
    def first_wrong(self) -> NodeResult | None:
        return self.wrong[0] if self.wrong else None

    @property
    def verdict(self) -> str:
        statuses = {n.status for n in self.nodes}
        for v in ("failed", "inconclusive", "non-differentiable"):
            if v in statuses:
                return v
        return "passed"

    def __bool__(self) -> bool:
        return self.verdict != "failed"

    def counts(self) -> dict:
        out = {s: 0 for s in STATUS_LABELS}
        for n in self.nodes:
            out[n.status] += 1
        return out

    def elements(self) -> tuple:
        """(elements checked, elements) over every checked input of every node."""
        pairs = [s for n in self.nodes for s in n.checked.values()]
        return sum(a for a, _ in pairs), sum(b for _, b in pairs)

    def __str__(self) -> str:
        counts = self.counts()
        checked = len(self.nodes) - counts["skipped"]
        what = ", second derivatives" if self.order == 2 else ""
        lines = [
            f"gradcheck_graph {STATUS_LABELS[self.verdict]} (atol={self.atol:g}, "
            f"rtol={self.rtol:g}, float64{what})"
        ]
        first = self.first_wrong
        if first is not None:
            inputs = ", ".join(first.wrong_inputs) or "its inputs"
            lines.append(
                f"first wrong node in backward order: #{first.position} {first.name} in "
                f"{first.where}, gradient with respect to {inputs}"
            )
        tally = ", ".join(f"{counts[s]} {s}" for s in STATUS_LABELS if counts[s] and s != "skipped")
        lines.append(
            f"{len(self.nodes)} nodes: {checked} checked ({tally}), {counts['skipped']} skipped"
        )
        done, total = self.elements()
        if done < total:
            lines.append(
                f"{done} of {total} input elements checked one by one (of an input larger "
                "than max_elements: a selection by the node's gradient, and the other "
                "elements together along random directions)"
            )
        rechecked = [n for n in self.nodes if n.rechecked]
        if rechecked:
            lines.append(
                f"{len(rechecked)} node(s) checked again on every element (up to "
                f"{RECHECK_ELEMENTS} per input), one by one, after the check on selected "
                "elements found no wrong node"
            )
        lines.extend(self._after_a_failure())
        rows = [["#", "node", "module", "verdict", "elements checked one by one"]]
        for n in self.nodes:
            checked = ", ".join(_checked(k, a, b, n.sampling) for k, (a, b) in n.checked.items())
            rows.append([str(n.position), n.name, n.where, STATUS_LABELS[n.status], checked])
        lines.append(_table(rows, indent="  "))
        if any(n.sampled for n in self.nodes):
            lines.append(
                "  (chosen by the node's gradient J^T v: nonzero = every element where it is "
                "nonzero; rows of axis a = one in each slice along a that it touches, then "
                "more of those; random = at random among those where it is nonzero; "
                "+2 directions = all the other elements together along 2 random directions)"
            )
        for n in self.nodes:
            if n.status in ("passed", "vacuous"):
                continue
            lines.append("")
            lines.append(
                f"#{n.position} {n.name} ({n.where}): {STATUS_LABELS[n.status]}: {n.reason}"
            )
            for name, (how, _) in n.sampling.items():
                if not how.startswith("all "):
                    lines.append(f"  {name}: {how}")
        if first is not None:
            lines.append("")
            lines.append(f"#{first.position} {first.name} in {first.where}:")
            lines.append(str(first.result))
        return "\n".join(lines)

    def _after_a_failure(self) -> list:
        """What it means that no node is wrong when the whole check failed."""
        if self.after != "failed" or self.first_wrong is not None:
            return []
        skipped = [n for n in self.nodes if n.status == "skipped"]
        text = (
            "the whole check failed, but every node's backward agrees with its forward on "
            "the node's own recorded inputs"
        )
        if any(n.sampled for n in self.nodes):
            text += " (inputs larger than max_elements: a selection one by one, the rest "
            text += "along random directions; max_elements=None checks every element)"
        text += (
            ": the error lies outside the recorded nodes: in computation the graph does "
            "not see (NumPy on .numpy() data, a detach(), a value saved as a constant "
            "where its derivative matters), in how nodes are wired together, or in a node "
            "that was skipped"
        )
        if skipped:
            text += f" ({', '.join(f'#{n.position} {n.name}' for n in skipped)})"
        return [text]

    def __repr__(self) -> str:
        return f"<GraphCheckResult {self.verdict}: {len(self.nodes)} node(s)>"


def gradcheck_graph(
    outputs,
    *args,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    max_elements: int | None = MAX_ELEMENTS,
    max_outputs: int = MAX_OUTPUTS,
    seed: int = 0,
    raise_exception: bool = False,
    module=None,
    order: int = 1,
    recheck: bool = False,
) -> GraphCheckResult:
    """Check the backward of every node of a graph on the node's own inputs.

    Each node (a ``Function`` applied to recorded inputs) is called again on float64
    copies of its inputs, and its backward is compared with central finite
    differences of its forward, with ``gradcheck``'s rule (an entry fails only when
    ``|numerical - analytical| > atol + rtol * |numerical|`` plus the estimated
    finite-difference error). An input with more than ``max_elements`` elements is
    checked one by one on that many, chosen by the node's own gradient (every element
    it touches if they fit, else one in each row it touches, such as each row an
    embedding looked up), and on all the others together along random directions; an
    output with more than ``max_outputs`` elements through a random projection, so
    each node costs at most a few hundred calls of its forward. The report says how
    each input's elements were chosen.

    Args:
        outputs: a Tensor (or tuple of Tensors) whose graph was built inside
            ``mg.autograd.graph_recording()``; or a function or module, which is then
            called on ``args`` inside ``graph_recording`` to build the graph.
        args: the arguments when ``outputs`` is a function or module.
        atol, rtol: as for ``gradcheck``.
        max_elements: per node input, the most elements checked one by one; None
            checks every element one by one.
        max_outputs: per node, the most output elements checked row by row.
        seed: seed of the selections, projections and cotangents.
        raise_exception: raise ``GradcheckError`` when a node is wrong.
        module: names the module paths when ``outputs`` is a function (a module
            passed as ``outputs`` names them itself).
        order: 1 checks each node's backward; 2 checks each backward's own
            derivatives (``gradgradcheck`` of the node: a double backward).
        recheck: where no node is wrong, check the nodes whose inputs were checked on
            a selection again on every element (up to ``RECHECK_ELEMENTS`` per input),
            one by one (``result.graph_check()`` after a failed whole check does; a
            direct call does not unless asked).

    Returns:
        A ``GraphCheckResult``: ``result.first_wrong`` (the first failed node in
        backward order: class, module path, wrong inputs, its ``GradcheckResult``),
        and every node's status.

    Example::

        >>> model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
        >>> result = mg.autograd.gradcheck_graph(model, mg.randn(3, 4))
        >>> result.first_wrong is None
        True
    """
    if order not in (1, 2):
        raise ValueError(f"gradcheck_graph: order must be 1 or 2, got {order!r}")
    if max_elements is not None and int(max_elements) < 1:
        raise ValueError(
            f"gradcheck_graph: max_elements must be >= 1 or None, got {max_elements!r}"
        )
    if callable(outputs) and not isinstance(outputs, Tensor):
        root = module if module is not None else outputs
        root = root if hasattr(root, "named_modules") else None
        with enable_grad(), graph_recording(root):
            outputs = outputs(*args)
    roots = [o.grad_fn for o in as_tuple(outputs) if isinstance(o, Tensor) and o.grad_fn]
    if not roots:
        raise ValueError(
            "gradcheck_graph: the outputs have no graph (grad_fn is None): nothing that "
            "requires grad went into them"
        )
    order_ = backward_order(roots)
    if not any(hasattr(node, "recorded_args") for node in order_):
        raise RuntimeError(
            "gradcheck_graph: the graph was not recorded; build it inside "
            "`with mg.autograd.graph_recording(model):`, or pass the model and its "
            "inputs: gradcheck_graph(model, x)"
        )
    nodes = []
    with paused():
        for position, node in enumerate(order_):
            nodes.append(_check(position, node, atol, rtol, max_elements, max_outputs, seed, order))
        if recheck and not any(n.status == "failed" for n in nodes):
            # Nothing wrong on the selections: every element of those inputs, one by one.
            for k, done in enumerate(nodes):
                if done.sampled:
                    again = _check(
                        done.position,
                        order_[k],
                        atol,
                        rtol,
                        RECHECK_ELEMENTS,
                        max_outputs,
                        seed,
                        order,
                    )
                    again.rechecked = True
                    nodes[k] = again
    result = GraphCheckResult(nodes, atol, rtol, order)
    if raise_exception and not result:
        raise GradcheckError(str(result), result)
    return result


def _checked(name: str, done: int, total: int, sampling: dict) -> str:
    """``input 0: 32/512 (rows of axis 0, +2 directions)`` for the node table."""
    if done == total:
        return f"{name}: {done}/{total}"
    return f"{name}: {done}/{total} ({sampling[name][1]})"


def _check(position, node, atol, rtol, max_elements, max_outputs, seed, order) -> NodeResult:
    name = type(node).__name__
    if not hasattr(node, "recorded_args"):
        reason = "not recorded (made outside graph_recording)"
        return NodeResult(position, name, "", "skipped", reason)
    status, reason, result, checked, sampling = check_node(
        node, atol, rtol, max_elements, max_outputs, seed + position, order
    )
    return NodeResult(position, name, node.module_path, status, reason, result, checked, sampling)


def backward_order(roots: list) -> list:
    """The nodes reachable from ``roots``, in the order ``backward()`` runs them: a node
    comes after every node that sends it a gradient (Kahn's algorithm, no recursion)."""
    pending = {}  # id(node) -> how many edges into it are not yet processed
    stack, seen = list(roots), {id(r) for r in roots}
    while stack:
        node = stack.pop()
        for nxt in node.next_functions:
            if isinstance(nxt, Function):
                pending[id(nxt)] = pending.get(id(nxt), 0) + 1
                if id(nxt) not in seen:
                    seen.add(id(nxt))
                    stack.append(nxt)
    ready = deque(r for r in dict.fromkeys(roots) if pending.get(id(r), 0) == 0)
    order = []
    while ready:
        node = ready.popleft()
        order.append(node)
        for nxt in node.next_functions:
            if isinstance(nxt, Function):
                pending[id(nxt)] -= 1
                if pending[id(nxt)] == 0:
                    ready.append(nxt)
    return order
