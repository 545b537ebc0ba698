"""Draw docs/images/autograd-worked-example.png: the graph of L = tanh(a * b + a).

From minigrad.viz.to_dot at a = 0.5, b = 2 (the worked example of docs/autograd.md), with
the gradient that flows back along every edge (its absolute value, for scalars). Needs
Graphviz's `dot` (`apt-get install graphviz`); the PNG is committed so that reading the
docs does not.

    python docs/images/make_autograd_graph.py
"""

import pathlib
import shutil
import subprocess

import minigrad as mg
from minigrad import viz

OUT = pathlib.Path(__file__).resolve().parent / "autograd-worked-example.png"


def main() -> None:
    a = mg.tensor(0.5, dtype=mg.float64, requires_grad=True)
    b = mg.tensor(2.0, dtype=mg.float64, requires_grad=True)
    loss = (a * b + a).tanh()
    source = viz.to_dot(loss, {"a": a, "b": b}, grad_norms=True)
    dot = shutil.which("dot")
    if dot is None:
        raise SystemExit("Graphviz's dot is not installed: apt-get install graphviz")
    subprocess.run([dot, "-Tpng", "-Gdpi=110", "-o", str(OUT)], input=source.encode(), check=True)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
