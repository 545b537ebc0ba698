"""See the computation graph behind a tensor.

    >>> x = mg.randn(4, 3, requires_grad=True)
    >>> y = (x * 2).tanh().sum()
    >>> print(viz.to_text(y))
    Sum -> []
    └─ Tanh -> [4, 3]
       └─ MulScalar -> [4, 3]
          └─ leaf [4, 3]

- ``to_text(t)``: a plain-text tree, from the output down to the leaves.
- ``to_dot(t)``: the same graph as Graphviz DOT text, drawn in the direction data flows
  (leaves at the top, the output at the bottom), each operation labelled with its name
  and output shape; with ``grad_norms=True`` every edge also shows the norm of the
  gradient that flows back along it.
- ``render(t, "graph.png")``: runs Graphviz's ``dot`` when it is installed and, when it
  is not, writes the text tree next to it instead (``graph.txt``).

``params`` names the leaves: pass ``dict(model.named_parameters())`` to see
``layers.0.norm1.weight`` instead of ``leaf``.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess

import numpy as np

from minigrad.autograd.engine import run_backward
from minigrad.printing import shape_str
from minigrad.tensor import Tensor


def _label(obj, names: dict) -> str:
    if isinstance(obj, Tensor):
        return f"{names.get(id(obj), 'leaf')} {shape_str(obj._data.shape)}"
    return f"{obj.name()} -> {shape_str(obj._shape)}"


def _names(params) -> dict:
    return {id(t): name for name, t in (params or {}).items()}


def _root(tensor: Tensor):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"viz: expected a Tensor, got {type(tensor).__name__}")
    return tensor.grad_fn if tensor.grad_fn is not None else tensor


def _walk(root):
    """Every node and leaf reachable from ``root``, and the edges (producer, consumer, k)."""
    order, edges, seen = [], [], {id(root)}
    stack = [root]
    while stack:
        obj = stack.pop()
        order.append(obj)
        if isinstance(obj, Tensor):
            continue
        for k, nxt in enumerate(obj.next_functions):
            if nxt is None:
                continue
            edges.append((nxt, obj, k))
            if id(nxt) not in seen:
                seen.add(id(nxt))
                stack.append(nxt)
    return order, edges


def to_text(tensor: Tensor, params: dict | None = None) -> str:
    """The graph as an indented tree; a node reached twice is shown once, then referenced."""
    names = _names(params)
    lines = []
    shown = set()
    stack = [(_root(tensor), "", "", True)]  # (object, indent, branch, is_root)
    while stack:
        obj, indent, branch, is_root = stack.pop()
        label = _label(obj, names)
        if id(obj) in shown and not isinstance(obj, Tensor):
            lines.append(f"{indent}{branch}{label} (shown above)")
            continue
        shown.add(id(obj))
        lines.append(f"{indent}{branch}{label}")
        if isinstance(obj, Tensor):
            continue
        children = [n for n in obj.next_functions if n is not None]
        child_indent = indent if is_root else indent + ("   " if branch.startswith("└") else "│  ")
        for k in range(len(children) - 1, -1, -1):
            last = k == len(children) - 1
            stack.append((children[k], child_indent, "└─ " if last else "├─ ", False))
    return "\n".join(lines)


def gradient_norms(tensor: Tensor, gradient=None) -> dict:
    """The norm of the gradient that flows back along every edge of the graph.

    Runs a backward pass that keeps the graph and touches no ``.grad``. Returns
    ``{(id(producer), id(consumer), k): norm}`` where the edge is the consumer's k-th input.
    """
    if gradient is None:
        if tensor._data.size != 1:
            raise ValueError(
                f"gradient_norms: pass gradient= for a non-scalar tensor of shape "
                f"{shape_str(tensor._data.shape)}"
            )
        gradient = Tensor._make(np.ones_like(tensor._data), False, None)
    norms = {}

    def observe(node, grads):
        for k, (nxt, g) in enumerate(zip(node.next_functions, grads)):
            if nxt is not None and g is not None:
                # a backward may return arrays as well as tensors
                array = g._data if isinstance(g, Tensor) else np.asarray(g)
                norms[(id(nxt), id(node), k)] = float(np.linalg.norm(array.astype(np.float64)))

    run_backward([tensor], [gradient], True, False, inputs=[], observe=observe)
    return norms


def to_dot(
    tensor: Tensor, params: dict | None = None, grad_norms: bool = False, gradient=None
) -> str:
    """The graph as Graphviz DOT text (data flows top to bottom)."""
    names = _names(params)
    order, edges = _walk(_root(tensor))
    norms = gradient_norms(tensor, gradient) if grad_norms else {}
    ids = {id(obj): f"n{i}" for i, obj in enumerate(order)}
    out = ["digraph minigrad {", "  rankdir=TB;", '  node [fontname="Helvetica", fontsize=10];']
    for obj in order:
        if isinstance(obj, Tensor):
            name = names.get(id(obj), "leaf")
            style = 'shape=box, style="rounded,filled", fillcolor="#dbeafe"'
            text = f"{name}\\n{shape_str(obj._data.shape)}"
        else:
            style = 'shape=box, style=filled, fillcolor="#f3f4f6"'
            text = f"{obj.name()}\\n{shape_str(obj._shape)}"
        out.append(f'  {ids[id(obj)]} [label="{text}", {style}];')
    for producer, consumer, k in edges:
        label = ""
        key = (id(producer), id(consumer), k)
        if key in norms:
            label = f' [label="|grad| {norms[key]:.3g}", fontsize=9]'
        out.append(f"  {ids[id(producer)]} -> {ids[id(consumer)]}{label};")
    out.append("}")
    return "\n".join(out)


def render(
    tensor: Tensor,
    path,
    params: dict | None = None,
    grad_norms: bool = False,
    gradient=None,
) -> pathlib.Path:
    """Draw the graph to ``path`` (``.png`` or ``.svg``) with Graphviz's ``dot``.

    Without Graphviz installed, writes the plain-text tree to ``path`` with the suffix
    ``.txt`` instead. Returns the path actually written.
    """
    path = pathlib.Path(path)
    fmt = path.suffix.lstrip(".").lower()
    if fmt not in ("png", "svg"):
        raise ValueError(f"render: path must end in .png or .svg, got {path.name!r}")
    dot = shutil.which("dot")
    if dot is None:
        text_path = path.with_suffix(".txt")
        text_path.write_text(to_text(tensor, params) + "\n", encoding="utf-8")
        return text_path
    source = to_dot(tensor, params, grad_norms, gradient)
    subprocess.run([dot, f"-T{fmt}", "-o", str(path)], input=source.encode(), check=True)
    return path
