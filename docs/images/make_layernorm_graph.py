"""Draw docs/images/layernorm-by-hand-graph.png: LayerNorm's composite graph beside the fused node.

Both graphs come from minigrad.viz.to_dot on the LayerNorm page's row (x = [1, 2, 4, 9],
dy = [0.5, -1, 0.25, 2]), with the norm of the gradient on every edge; they are put side
by side in one Graphviz drawing. Needs Graphviz's `dot` (`apt-get install graphviz`);
the PNG is committed so that reading the docs does not.

    python docs/images/make_layernorm_graph.py
"""

import pathlib
import re
import shutil
import subprocess

import numpy as np

import minigrad as mg
import minigrad.nn as nn
from minigrad import viz

OUT = pathlib.Path(__file__).resolve().parent / "layernorm-by-hand-graph.png"


def cluster(dot: str, prefix: str, title: str) -> str:
    """The body of one to_dot graph as a labelled cluster, its node ids prefixed."""
    body = dot.splitlines()[3:-1]  # drop "digraph {", rankdir, node defaults and "}"
    body = [re.sub(r"\bn(\d+)\b", rf"{prefix}\1", line) for line in body]
    header = [f"  subgraph cluster_{prefix} {{", f'    label="{title}";', "    fontsize=12;"]
    return "\n".join(header + ["  " + line for line in body] + ["  }"])


def main() -> None:
    ln = nn.LayerNorm(4).double()
    with mg.no_grad():
        ln.weight.copy_(np.array([1.0, 0.5, 2.0, -1.0]))
        ln.bias.copy_(np.array([0.0, 0.1, 0.2, 0.3]))
    x = mg.tensor([[1.0, 2.0, 4.0, 9.0]], dtype=mg.float64, requires_grad=True)
    dy = mg.tensor([[0.5, -1.0, 0.25, 2.0]], dtype=mg.float64)
    names = {"x": x, "weight": ln.weight, "bias": ln.bias}

    with nn.norm_impl("composite"):
        composite = ln(x)
    fused = ln(x)
    parts = [
        cluster(viz.to_dot(composite, names, grad_norms=True, gradient=dy), "c",
                "composite: one node per primitive (autograd derives the backward)"),
        cluster(viz.to_dot(fused, names, grad_norms=True, gradient=dy), "f",
                "fused: one node, its own backward"),
    ]  # fmt: skip
    source = "\n".join(
        ["digraph layernorm {", "  rankdir=TB;", '  node [fontname="Helvetica", fontsize=10];']
        + parts
        + ["}"]
    )
    dot = shutil.which("dot")
    if dot is None:
        raise SystemExit("Graphviz's dot is not installed: apt-get install graphviz")
    subprocess.run([dot, "-Tpng", "-Gdpi=110", "-o", str(OUT)], input=source.encode(), check=True)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
