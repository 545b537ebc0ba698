"""Generate the Jupyter notebooks in this folder from their one source of truth, run
them, and store their outputs, so that a learner can read them unrun (on a hosted
viewer too), with every figure and every printed number in place.

The learning path's pages (``docs/*.md``) become two notebooks each:

- ``NAME.ipynb``: every ```python block a code cell, the prose Markdown cells, and the
  page's figures drawn by code cells (matplotlib, inline) where the page embeds a PNG:
  the page's own figure scripts (``docs/images/make_*.py``), the lab's experiments at
  their reduced size, a short training run. The worked solutions are left out: "Run
  All" never fills in an answer;
- ``NAME-solutions.ipynb``: the page's solutions (each ``<details>`` fold whose summary
  starts with "Solution", and the Exercises section), with their code, run.

Each notebook starts with a cell that moves into a run folder,
``runs/notebooks/NAME`` beside ``notebooks/`` (or under ``$MINIGRAD_RUNS``): every file
a cell writes goes there, never into ``notebooks/``.

    python notebooks/generate.py            # regenerate, run and store every notebook
    python notebooks/generate.py backprop-ninja lab   # only these pages' notebooks
    python notebooks/generate.py --check    # exit 1 if a notebook's cells are not the
                                            # current ones or its outputs are missing

Running needs the ``notebooks`` extra (``pip install -e ".[notebooks]"``: Jupyter's
kernel, nbclient, nbformat, matplotlib). Edit the pages (or the lab), never the
notebooks: ``tests/test_notebooks.py`` fails when a notebook's cells differ from what
this script generates or when its stored outputs are missing.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
DOCS = ROOT / "docs"

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

#: seconds a cell may take when the notebooks are run (the lab's quick runs are the longest)
CELL_TIMEOUT = 900

_BLOCK = re.compile(r"^```python\n(.*?)^```\n?", re.S | re.M)
_SOLUTION = re.compile(r"<details>\s*<summary>\s*(Solution[^<]*)</summary>(.*?)</details>\n?", re.S)
_SUMMARY = re.compile(r"<details>\s*<summary>(.*?)</summary>", re.S)
_IMAGE = re.compile(r"!\[([^\]]*)\]\(images/([^)\s]+)\)\n?")
_LINK = re.compile(r"\]\((?!https?://|#)([^)\s]+)\)")
_HEADING = re.compile(r"^(#{2,3}) (.+)$", re.M)

#: the training page's runs: the default and --norm none, with their plots
TRAIN_FIGURES = """import csv
import subprocess

from IPython.display import Image, display

for out, options in (("reverse", []), ("no-norm", ["--norm", "none", "--stats-interval", "10"])):
    if not (pathlib.Path(out) / "loss.png").is_file():  # the run folder keeps earlier runs
        done = subprocess.run([sys.executable, "-m", "minigrad", "train", "--out", out,
                               "--threads", "1", *options], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    with open(pathlib.Path(out) / "log.csv", newline="") as f:
        last = list(csv.DictReader(f))[-1]
    print(f"{out}: step {last['step']}, held-out loss {float(last['val_loss']):.2g}, "
          f"held-out exact match {float(last['accuracy']):.1%}")
display(Image(filename="reverse/loss.png"))"""

#: the lab pages' helper: run an experiment at its reduced size and show its plots
LAB_FIGURES = '''
from IPython.display import Image, display

from minigrad.lab import run_experiment

_lab_runs = {}


def lab_figure(name, png=None):
    """Run a lab experiment at its reduced size (quick=True, the size the tests use;
    the page's figure is the full-size run) and show its plot."""
    if name not in _lab_runs:
        _lab_runs[name] = run_experiment(name, out=RUN / "lab" / name, quick=True)
        print(f"{name}, quick size: {_lab_runs[name].summary()}")
    for f in _lab_runs[name].files:
        if f.suffix == ".png" and (png is None or f.name == png):
            display(Image(filename=str(f)))'''


def _setup(name: str, solutions: bool = False) -> str:
    """The first code cell: imports, the run folder, and the page's figure helpers."""
    folder = name + ("-solutions" if solutions else "")
    scripts = not solutions and _needs(name, "make_")
    lines = [
        "%matplotlib inline",
        "import os",
        "import pathlib",
        *(["import sys"] if scripts or (not solutions and name == "training") else []),
        "",
        "import numpy as np",
        "",
        "import minigrad as mg",
        "import minigrad.nn as nn",
        "import minigrad.nn.functional as F",
        "",
        "ROOT = pathlib.Path(mg.__file__).resolve().parents[1]  # the minigrad checkout",
        'RUNS = pathlib.Path(os.environ.get("MINIGRAD_RUNS", ROOT / "runs"))',
        f'RUN = RUNS / "notebooks" / "{folder}"',
        "RUN.mkdir(parents=True, exist_ok=True)",
        "os.chdir(RUN)  # every file a cell writes goes here, not into notebooks/",
    ]
    if scripts:
        lines += ['sys.path.insert(0, str(ROOT / "docs" / "images"))  # the page\'s figure scripts']
    if not solutions and _needs(name, "lab-"):
        lines += LAB_FIGURES.splitlines()
    return "\n".join(lines)


def _figure_code(name: str, image: str) -> str | None:
    """The code cell that draws ``image`` in the notebook of page ``name``; ``""`` when
    the cell before it already draws it; ``None`` to keep the PNG (a graph drawn by
    Graphviz, which a learner may not have)."""
    if image.startswith("lab-training-stats-"):
        quantity = image.removeprefix("lab-training-stats-")
        return f'lab_figure("training-stats", "training-stats-{quantity}")'
    if image.startswith("lab-"):
        return f'lab_figure("{image.removeprefix("lab-").removesuffix(".png")}")'
    drawn_by = {
        "normalization-axes.png": "from make_norm_figures import axes_figure\n\n"
        "axes_figure(save=False);",
        "batchnorm-by-hand-batch.png": "from make_norm_figures import batch_figure\n\n"
        "batch_figure(save=False);",
        "rmsnorm-by-hand-row.png": "from make_norm_figures import rms_figure\n\n"
        "rms_figure(save=False);",
        "transformer-pre-post-norm.png": "from make_transformer_blocks import draw\n\ndraw();",
        "gradcheck-step-size.png": "from make_gradcheck_figure import draw\n\ndraw();",
        "backprop-ninja-names.png": "",  # the payoff block ends with `fig`
        "train-reverse-loss.png": TRAIN_FIGURES,
        "train-reverse-attention.png": 'display(Image(filename="reverse/attention.png"))',
        "train-layers.png": 'display(Image(filename="no-norm/layers.png"))',
        "train-no-norm-loss.png": 'display(Image(filename="no-norm/loss.png"))',
    }
    if image in drawn_by:
        return drawn_by[image]
    if image in ("autograd-worked-example.png", "layernorm-by-hand-graph.png"):
        return None
    raise KeyError(f"notebooks/generate.py: no drawing cell for docs/images/{image}")


def _needs(name: str, what: str) -> bool:
    """Whether the notebook of page ``name`` draws a figure with ``what``: ``"make_"``
    (a figure script of docs/images) or ``"lab-"`` (a lab experiment)."""
    text = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    images = [m.group(2) for m in _IMAGE.finditer(text)]
    if what == "lab-":
        return any(image.startswith("lab-") for image in images)
    return any("from make_" in (_figure_code(name, image) or "") for image in images)


def _markdown(text: str) -> str:
    """A page's prose as a notebook shows it: folds become bold headings (a code cell
    cannot sit inside a fold), and relative links point back into docs/."""
    text = _SUMMARY.sub(lambda m: f"**{m.group(1).strip()}**", text)
    text = text.replace("</details>", "")
    return _LINK.sub(lambda m: f"](../docs/{m.group(1)})", text)


def _cell(kind: str, source: str) -> dict:
    lines = source.strip("\n").splitlines(keepends=True)
    cell = {"cell_type": kind, "id": "", "metadata": {}, "source": lines}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _cells_of(text: str, name: str | None) -> list[dict]:
    """Markdown and code cells for a stretch of a page; with ``name``, the embedded
    figures become the cells that draw them."""
    cells = []

    def prose(chunk: str) -> None:
        at = 0
        for m in _IMAGE.finditer(chunk) if name else ():
            code = _figure_code(name, m.group(2))
            if code is None:
                continue  # kept as an image link
            before = _markdown(chunk[at : m.start()])
            if before.strip():
                cells.append(_cell("markdown", before))
            if code:
                title = m.group(1).split(":")[0].strip()
                title = title if len(title) <= 90 else title[:87] + "..."
                cells.append(_cell("code", f"# {title}\n" + code))
            at = m.end()
        rest = _markdown(chunk[at:])
        if rest.strip():
            cells.append(_cell("markdown", rest))

    at = 0
    for match in _BLOCK.finditer(text):
        prose(text[at : match.start()])
        cells.append(_cell("code", match.group(1)))
        at = match.end()
    prose(text[at:])
    return cells


def _split(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``(page without its solutions, [(where, solution text), ...])``. A solution is a
    fold whose summary starts with "Solution", or, in an Exercises section written
    without folds, everything from the first "**Solution" paragraph on."""
    solutions = []

    def section_of(pos: int) -> str:
        heads = [m.group(2) for m in _HEADING.finditer(text, 0, pos)]
        return heads[-1] if heads else "the page"

    def keep(m: re.Match) -> str:
        solutions.append((section_of(m.start()), f"**{m.group(1).strip()}**\n\n{m.group(2)}"))
        return "*The solution is in this page's solutions notebook.*\n\n"

    page = _SOLUTION.sub(keep, text)
    exercises = page.find("## Exercises")
    first = page.find("\n**Solution", exercises) if exercises >= 0 else -1
    if first >= 0:
        end = page.find("\n## ", first)
        end = len(page) if end < 0 else end
        solutions.append(("Exercises", page[first:end]))
        pointer = "\n*The solutions are in this page's solutions notebook.*\n"
        page = page[:first] + pointer + page[end:]
    return page, solutions


def cells_digest(cells: list[dict]) -> str:
    """A digest of the cells' kinds and sources: what the stored outputs were made from."""
    text = json.dumps([[c["cell_type"], "".join(c["source"])] for c in cells])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _notebook(cells: list[dict], source: str) -> dict:
    for i, cell in enumerate(cells):
        cell["id"] = f"cell-{i:03d}"
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            "minigrad": {"generated_from": source, "cells_sha256": cells_digest(cells)},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def page_notebooks(name: str) -> dict[str, dict]:
    """``{file name: notebook}``: the notebook of ``docs/NAME.md`` and its solutions."""
    text = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    page, solutions = _split(text)
    note = (
        f"*Generated from [`docs/{name}.md`](../docs/{name}.md) by `notebooks/generate.py`"
        ", which also ran it and stored what you see: edit the page, not this notebook."
    )
    if solutions:
        note += f" The worked solutions are in [`{name}-solutions.ipynb`]({name}-solutions.ipynb)."
    cells = [_cell("markdown", note + "*"), _cell("code", _setup(name))]
    cells += _cells_of(page, name)
    out = {f"{name}.ipynb": _notebook(cells, f"docs/{name}.md")}
    if solutions:
        title = next((m.group(1) for m in re.finditer(r"^# (.+)$", text, re.M)), name)
        intro = (
            f"*Generated from [`docs/{name}.md`](../docs/{name}.md) by "
            f"`notebooks/generate.py`.*\n\n# Solutions: {title}\n\nTry each exercise in "
            f"[`{name}.ipynb`]({name}.ipynb) first."
        )
        cells = [_cell("markdown", intro), _cell("code", _setup(name, solutions=True))]
        for where, solution in solutions:
            cells.append(_cell("markdown", f"## {where}"))
            cells += _cells_of(solution, None)
        out[f"{name}-solutions.ipynb"] = _notebook(cells, f"docs/{name}.md")
    return out


def notebooks(pages=PAGES) -> dict[str, dict]:
    """``{file name: notebook}`` for every notebook this script writes (without outputs)."""
    out = {}
    for name in pages:
        out.update(page_notebooks(name))
    return out


def dumps(notebook: dict) -> str:
    return json.dumps(notebook, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def execute(notebook: dict) -> dict:
    """Run ``notebook`` in a Jupyter kernel started in this folder; returns it with its
    outputs (an error in any cell raises)."""
    import nbclient
    import nbformat

    nb = nbformat.reads(json.dumps(notebook), as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}
    )
    client.execute()
    out = json.loads(nbformat.writes(nb))
    out["metadata"] = notebook["metadata"]  # keep ours (the kernel adds its version)
    return out


def stale(name: str, expected: dict) -> str | None:
    """Why the committed notebook ``name`` is not current, or None."""
    path = HERE / name
    if not path.is_file():
        return "missing"
    committed = json.loads(path.read_text(encoding="utf-8"))
    mine = [(c["cell_type"], c["id"], "".join(c["source"])) for c in expected["cells"]]
    theirs = [(c["cell_type"], c.get("id"), "".join(c["source"])) for c in committed["cells"]]
    if mine != theirs or committed["metadata"] != expected["metadata"]:
        return "its cells are not the page's current ones"
    code = [c for c in committed["cells"] if c["cell_type"] == "code"]
    if any(c["execution_count"] is None for c in code):
        return "it has not been run"
    return None


def main(argv: list[str]) -> int:
    check = "--check" in argv
    pages = [a for a in argv if not a.startswith("--")] or PAGES
    unknown = set(pages) - set(PAGES)
    if unknown:
        print("not a page of the learning path: " + ", ".join(sorted(unknown)))
        return 2
    expected = notebooks(pages)
    if check:
        problems = {}
        for name, notebook in expected.items():
            why = stale(name, notebook)
            if why:
                problems[name] = why
        extra = {p.name for p in HERE.glob("*.ipynb")} - set(notebooks())
        problems.update({name: "no page generates it" for name in extra})
        for name, why in problems.items():
            print(f"{name}: {why} (run python notebooks/generate.py)")
        return 1 if problems else 0
    for name, notebook in expected.items():
        print(f"running {name} ...", flush=True)
        (HERE / name).write_text(dumps(execute(notebook)), encoding="utf-8")
    for path in HERE.glob("*.ipynb"):
        if path.name not in notebooks():
            path.unlink()
            print(f"removed {path.name} (no page generates it)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
