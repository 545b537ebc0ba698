"""The notebooks in notebooks/ are generated from the docs by notebooks/generate.py, run,
and committed with their outputs, so that they teach unrun (on a hosted viewer too).

Here: every notebook is the generator's current one and was run (its cells are the
pages' current cells, every code cell has run, no cell stored an error), its cells have
ids, figures are drawn in cells, no page notebook holds a worked solution, and the
notebooks' code runs cell after cell in one namespace, as Jupyter runs it, writing
nothing into notebooks/. That last test runs every cell but the ones that run a lab
experiment or a training run (tests/lab and tests/cli run those); executing every
notebook in a real Jupyter kernel and comparing its outputs' structure with the stored
ones is marked slow (a few minutes).
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
HAS_IPYTHON = importlib.util.find_spec("IPython") is not None
#: cells that run a lab experiment or a training run, or show its plot: covered by
#: tests/lab and tests/cli
HEAVY = re.compile(r"^(lab_figure\(|for out, options in |display\(Image\(filename=)", re.M)

sys.path.insert(0, str(FOLDER))
import generate  # noqa: E402

sys.path.remove(str(FOLDER))

EXPECTED = generate.notebooks()
NAMES = sorted(EXPECTED)


def _load(name: str) -> dict:
    return json.loads((FOLDER / name).read_text(encoding="utf-8"))


def _code(notebook: dict) -> list[str]:
    return ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]


def test_every_notebook_is_the_generators_current_one_and_was_run():
    committed = {p.name for p in FOLDER.glob("*.ipynb")}
    assert committed == set(EXPECTED), "run python notebooks/generate.py"
    stale = {name: generate.stale(name, nb) for name, nb in EXPECTED.items()}
    assert not {n: why for n, why in stale.items() if why}, "run python notebooks/generate.py"


@pytest.mark.parametrize("name", NAMES)
def test_notebook_is_valid_with_cell_ids_and_stored_outputs(name):
    notebook = _load(name)
    assert notebook["nbformat"] == 4 and notebook["nbformat_minor"] >= 5
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    ids = [cell.get("id") for cell in notebook["cells"]]
    assert all(isinstance(i, str) and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", i) for i in ids)
    assert len(set(ids)) == len(ids)
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1))
    for cell in code:
        assert not [o for o in cell["outputs"] if o["output_type"] == "error"], cell["id"]
    if not name.endswith("-solutions.ipynb"):  # a solution may only assert
        assert any(cell["outputs"] for cell in code), f"{name} shows nothing unrun"
    if importlib.util.find_spec("nbformat"):
        import nbformat

        nbformat.validate(nbformat.reads(json.dumps(notebook), as_version=4))


def _images(notebook: dict) -> int:
    return sum("image/png" in o.get("data", {}) for c in notebook["cells"]
               if c["cell_type"] == "code" for o in c["outputs"])  # fmt: skip


@pytest.mark.parametrize("page", generate.PAGES)
def test_a_page_that_shows_a_plot_draws_it_in_a_cell(page):
    text = (ROOT / "docs" / f"{page}.md").read_text(encoding="utf-8")
    drawn = {m.group(2) for m in generate._IMAGE.finditer(text)
             if generate._figure_code(page, m.group(2)) is not None}  # fmt: skip
    notebook = _load(f"{page}.ipynb")
    assert _images(notebook) >= len(drawn)
    links = "".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
    for image in drawn:
        assert f"images/{image}" not in links  # drawn, not linked


@pytest.mark.parametrize("page", generate.PAGES)
def test_worked_solutions_are_in_the_solutions_notebook_only(page):
    text = (ROOT / "docs" / f"{page}.md").read_text(encoding="utf-8")
    _, solutions = generate._split(text)
    solution_code = [b.strip("\n") for _, s in solutions for b in generate._BLOCK.findall(s)]
    main = [c.strip("\n") for c in _code(_load(f"{page}.ipynb"))]
    for block in solution_code:
        assert block not in main  # "Run All" never fills in an answer
    if solutions:
        answers = [c.strip("\n") for c in _code(_load(f"{page}-solutions.ipynb"))]
        assert solution_code and all(block in answers for block in solution_code)


def test_the_ninja_notebook_keeps_the_exercise_and_moves_the_answer():
    main = "\n".join(_code(_load("backprop-ninja.ipynb")))
    answers = "\n".join(_code(_load("backprop-ninja-solutions.ipynb")))
    assert "# your turn:" in main and "def train_model" in main  # the exercise, the payoff
    assert 'g["hact"] = g["h"] * (1 - v["h"] ** 2)' in answers
    assert 'g["hact"] = g["h"] * (1 - v["h"] ** 2)' not in main


def _run(name: str, tmp_path, monkeypatch) -> None:
    runs = tmp_path / "runs"
    monkeypatch.setenv("MINIGRAD_RUNS", str(runs))
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__notebook__"}
    for cell in _load(name)["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        if NEEDS_TORCH.search(source) and not HAS_TORCH:
            continue  # a comparison with PyTorch: tests/test_docs.py reports it as skipped
        if HEAVY.search(source):
            continue
        # IPython's magics (%matplotlib inline) are Jupyter's, not Python's
        source = "\n".join(line for line in source.splitlines() if not line.startswith("%"))
        exec(compile(source, f"<{name} {cell['id']}>", "exec"), namespace)
    assert (runs / "notebooks" / name.removesuffix(".ipynb")).is_dir()


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_cell_after_cell_and_writes_only_into_its_run_folder(
    name, tmp_path, monkeypatch
):
    setup = _code(_load(name))[0]
    if "IPython" in setup and not HAS_IPYTHON:
        pytest.skip("needs IPython (pip install -e '.[notebooks]')")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    before = sorted(p.name for p in FOLDER.iterdir())
    try:
        _run(name, tmp_path, monkeypatch)
    finally:
        plt.close("all")
    assert sorted(p.name for p in FOLDER.iterdir()) == before


def _structure(notebook: dict) -> list:
    """Per code cell: the kinds of its outputs (stream name or MIME types), not values;
    consecutive writes to one stream count once (how Jupyter splits them is timing)."""
    out = []
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            kinds = []
            for o in cell["outputs"]:
                kind = o.get("name") or sorted(o.get("data", {}))
                if not (kinds and isinstance(kind, str) and kinds[-1] == kind):
                    kinds.append(kind)
            out.append((cell["id"], kinds))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_notebook_executes_in_a_kernel_and_its_outputs_match_the_stored_ones(
    name, tmp_path, monkeypatch
):
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    monkeypatch.setenv("MINIGRAD_RUNS", str(tmp_path))  # the kernel inherits it
    fresh = generate.execute(EXPECTED[name])
    assert _structure(fresh) == _structure(_load(name))
