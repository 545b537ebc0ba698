"""Generate the Jupyter notebooks in this folder from their one source of truth.

The learning path's pages (``docs/*.md``) become one notebook each: every ```python
block becomes a code cell, everything else a Markdown cell, with a first cell of the
imports every docs block assumes. The lab's figures come from the lab's registry: one
notebook that runs every experiment at its reduced size and shows its plot. Outputs are
never stored; run a notebook to see them.

    python notebooks/generate.py          # rewrite every notebook
    python notebooks/generate.py --check  # exit 1 if a notebook is not up to date

Edit the pages (or the lab), never the notebooks: ``tests/test_notebooks.py`` fails
when a notebook differs from what this script generates.
"""

from __future__ import annotations

import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
DOCS = HERE.parent / "docs"

#: the learning path, in order (docs/index.md)
PAGES = (
    "autograd",
    "gradcheck",
    "layernorm-by-hand",
    "batchnorm-by-hand",
    "rmsnorm-by-hand",
    "backprop-ninja",
    "normalization",
    "transformer",
    "residual-stream",
    "training",
    "lab",
)

IMPORTS = """import numpy as np
import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F"""

_BLOCK = re.compile(r"^```python\n(.*?)^```\n?", re.S | re.M)
_SUMMARY = re.compile(r"<details>\s*<summary>(.*?)</summary>", re.S)
_LINK = re.compile(r"\]\((?!https?://|#)([^)\s]+)\)")


def _markdown(text: str) -> str:
    """A page's prose as a notebook shows it: folds become bold headings (a code cell
    cannot sit inside a fold), and relative links point back into docs/."""
    text = _SUMMARY.sub(lambda m: f"**{m.group(1).strip()}**", text)
    text = text.replace("</details>", "")
    return _LINK.sub(lambda m: f"](../docs/{m.group(1)})", text)


def _cell(kind: str, source: str) -> dict:
    lines = source.strip("\n").splitlines(keepends=True)
    cell = {"cell_type": kind, "metadata": {}, "source": lines}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _notebook(cells: list[dict]) -> dict:
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def page_notebook(name: str) -> dict:
    """The notebook of ``docs/NAME.md``."""
    text = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    cells = [
        _cell("markdown", f"*Generated from `docs/{name}.md` by `notebooks/generate.py`: edit "
                          "the page, not this notebook.*"),
        _cell("code", IMPORTS),
    ]  # fmt: skip
    at = 0
    for match in _BLOCK.finditer(text):
        prose = _markdown(text[at : match.start()])
        if prose.strip():
            cells.append(_cell("markdown", prose))
        cells.append(_cell("code", match.group(1)))
        at = match.end()
    if text[at:].strip():
        cells.append(_cell("markdown", _markdown(text[at:])))
    return _notebook(cells)


def lab_notebook() -> dict:
    """Every lab experiment at its reduced size, its claim, its recorded verdict and its
    plot (from ``minigrad.lab.EXPERIMENTS``)."""
    from minigrad.lab import EXPERIMENTS

    cells = [
        _cell("markdown", "*Generated from the lab's registry (`minigrad/lab/`) by "
                          "`notebooks/generate.py`.*\n\n# The lab's figures\n\nEach experiment "
                          "at its reduced size (`quick=True`, the size the tests use), with "
                          "its plot. The full-size runs and their numbers are in "
                          "[docs/lab.md](../docs/lab.md); `python -m minigrad lab NAME` runs "
                          "one at full size."),
        _cell("code", IMPORTS + "\nfrom IPython.display import Image, display\n\n"
                      "from minigrad.lab import run_experiment"),
    ]  # fmt: skip
    for exp in EXPERIMENTS.values():
        cells.append(_cell("markdown", f"## {exp.name}\n\n{exp.title}\n\n**Claim.** "
                                       f"{exp.claim}\n\n**Measured (full size).** "
                                       f"{exp.finding}"))  # fmt: skip
        cells.append(_cell("code", f'result = run_experiment("{exp.name}", '
                                   f'out="lab-out/{exp.name}", quick=True)\n'
                                   "print(result.verdict)\n"
                                   "for check in result.checks:\n"
                                   '    print("pass" if check.passed else "FAIL", '
                                   "check.statement)\n"
                                   "for f in result.files:\n"
                                   '    if f.suffix == ".png":\n'
                                   "        display(Image(filename=str(f)))"))  # fmt: skip
    return _notebook(cells)


def notebooks() -> dict[str, dict]:
    """``{file name: notebook}`` for every notebook this script writes."""
    out = {f"{name}.ipynb": page_notebook(name) for name in PAGES}
    out["lab-figures.ipynb"] = lab_notebook()
    return out


def dumps(notebook: dict) -> str:
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name, notebook in notebooks().items():
        path = HERE / name
        text = dumps(notebook)
        if check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print("out of date (run python notebooks/generate.py): " + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
