"""Draw backprop-ninja-names.png: the payoff of docs/backprop-ninja.md, the names model
trained with a backward written by hand and with autograd's.

The figure is the one the page's own code block draws (the block that defines
``train_model``): this script runs that block as it stands and saves its ``fig``, so
the picture cannot drift from the code the page shows.

    python docs/images/make_ninja_figure.py
"""

import pathlib
import re

import numpy as np

import minigrad as mg
from minigrad.lab.threads import one_thread

HERE = pathlib.Path(__file__).resolve().parent
PAGE = HERE.parent / "backprop-ninja.md"


def main() -> None:
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
    (block,) = [b for b in blocks if "def train_model" in b]
    namespace = {"np": np, "mg": mg, "__name__": "__figure__"}
    with one_thread():  # as the lab runs: the same numbers on every run
        exec(compile(block, str(PAGE), "exec"), namespace)
    namespace["fig"].savefig(HERE / "backprop-ninja-names.png", dpi=100)


if __name__ == "__main__":
    main()
