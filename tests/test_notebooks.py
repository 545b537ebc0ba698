"""The notebooks in notebooks/ are generated from the docs (and the lab's registry) by
notebooks/generate.py, committed without outputs, and run here, cell after cell in one
namespace as Jupyter runs them, so they cannot rot.

Every code cell of a page's notebook is also a docs block, which tests/test_docs.py runs
on its own; here they run in sequence, as a learner runs the notebook. The lab-figures
notebook runs every experiment at its reduced size, which tests/lab already does
experiment by experiment, so running it whole is marked slow.
"""

import importlib.util
import json
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
FOLDER = ROOT / "notebooks"
NEEDS_TORCH = re.compile(r"^\s*(import torch\b|from torch\b)", re.M)
HAS_TORCH = importlib.util.find_spec("torch") is not None

sys.path.insert(0, str(FOLDER))
import generate  # noqa: E402

sys.path.remove(str(FOLDER))

PAGE_NOTEBOOKS = [f"{name}.ipynb" for name in generate.PAGES]


def _load(name: str) -> dict:
    return json.loads((FOLDER / name).read_text(encoding="utf-8"))


def test_every_notebook_is_what_the_generator_writes():
    expected = generate.notebooks()
    committed = {p.name for p in FOLDER.glob("*.ipynb")}
    assert committed == set(expected), "run python notebooks/generate.py"
    for name, notebook in expected.items():
        text = (FOLDER / name).read_text(encoding="utf-8")
        assert text == generate.dumps(notebook), f"{name} is stale: python notebooks/generate.py"


@pytest.mark.parametrize("name", PAGE_NOTEBOOKS + ["lab-figures.ipynb"])
def test_notebook_is_valid_and_has_no_outputs(name):
    notebook = _load(name)
    assert notebook["nbformat"] == 4 and notebook["metadata"]["kernelspec"]["name"] == "python3"
    kinds = {cell["cell_type"] for cell in notebook["cells"]}
    assert kinds == {"markdown", "code"}
    for cell in notebook["cells"]:
        assert all(isinstance(line, str) for line in cell["source"])
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


def test_a_page_notebook_holds_the_pages_code_blocks_in_order():
    page = (ROOT / "docs" / "backprop-ninja.md").read_text(encoding="utf-8")
    blocks = [b.strip("\n") for b in re.findall(r"^```python\n(.*?)^```", page, re.S | re.M)]
    cells = ["".join(c["source"]) for c in _load("backprop-ninja.ipynb")["cells"]]
    code = [c for c, cell in zip(cells, _load("backprop-ninja.ipynb")["cells"])
            if cell["cell_type"] == "code"]  # fmt: skip
    assert code[1:] == blocks  # after the imports cell
    assert any("../docs/images/" in c or "../docs/" in c for c in cells)  # links still work


def _run(name: str, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # cells that write files write them here
    namespace = {"__name__": "__notebook__"}
    for i, cell in enumerate(_load(name)["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        if NEEDS_TORCH.search(source) and not HAS_TORCH:
            continue  # a comparison with PyTorch: tests/test_docs.py reports it as skipped
        exec(compile(source, f"<{name} cell {i}>", "exec"), namespace)


@pytest.mark.parametrize("name", PAGE_NOTEBOOKS)
def test_page_notebook_runs_cell_after_cell(name, tmp_path, monkeypatch):
    _run(name, tmp_path, monkeypatch)


@pytest.mark.slow
def test_lab_figures_notebook_runs(tmp_path, monkeypatch):
    pytest.importorskip("IPython")
    _run("lab-figures.ipynb", tmp_path, monkeypatch)
