"""The example scripts run, and the by-hand pages show exactly what their scripts print.

Each by-hand page (docs/*-by-hand.md) has an example script that computes every number on
the page with NumPy and checks it against minigrad. For the BatchNorm and RMSNorm pages,
every line of the page's ```text blocks (except the block that shows the command) must
appear in the script's output, verbatim; for the LayerNorm page, every number of its
worked blocks. A page whose numbers drift from the code fails here.
"""

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
TEXT_BLOCK = re.compile(r"^```text\n(.*?)^```", re.S | re.M)

BY_HAND = {
    "batchnorm-by-hand.md": "batchnorm_by_hand.py",
    "rmsnorm-by-hand.md": "rmsnorm_by_hand.py",
}


def _run(script: str) -> str:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _page_lines(page: str) -> list[str]:
    """Every non-blank line of the page's text blocks, without the command block."""
    lines = []
    for block in TEXT_BLOCK.findall((ROOT / "docs" / page).read_text(encoding="utf-8")):
        if block.startswith("python "):
            continue
        lines += [line.rstrip() for line in block.splitlines() if line.strip()]
    return lines


@pytest.mark.parametrize("page, script", sorted(BY_HAND.items()))
def test_by_hand_page_shows_what_its_script_prints(page, script):
    printed = {line.rstrip() for line in _run(script).splitlines()}
    shown = _page_lines(page)
    assert len(shown) >= 15, f"{page}: expected the worked numbers in ```text blocks"
    missing = [line for line in shown if line not in printed]
    assert not missing, f"{page} shows lines {script} does not print:\n" + "\n".join(missing)


@pytest.mark.parametrize("page, script", sorted(BY_HAND.items()))
def test_by_hand_page_names_its_script(page, script):
    assert f"python examples/{script}" in (ROOT / "docs" / page).read_text(encoding="utf-8")


def test_layernorm_page_numbers_are_printed_by_its_script():
    # The LayerNorm page writes its arithmetic out ("0.5(-3) + ..."), so compare numbers:
    # every number with 3 or more decimals in its worked blocks, as printed by the script.
    number = re.compile(r"-?\d+\.\d{3,}")
    printed = set(number.findall(_run("norm_by_hand.py")))
    text = (ROOT / "docs" / "layernorm-by-hand.md").read_text(encoding="utf-8")
    worked = text[text.index("## Forward") : text.index("## The same numbers from minigrad")]
    shown = {n for block in TEXT_BLOCK.findall(worked) for n in number.findall(block)}
    assert len(shown) >= 20
    assert not shown - printed, f"not printed by norm_by_hand.py: {sorted(shown - printed)}"


@pytest.mark.parametrize("script", ["quickstart.py"])
def test_example_script_runs(script):
    assert "gradcheck      = passed" in _run(script)


PATH_PAGES = [
    "index.md",
    "autograd.md",
    "layernorm-by-hand.md",
    "batchnorm-by-hand.md",
    "rmsnorm-by-hand.md",
    "normalization.md",
    "transformer.md",
    "residual-stream.md",
    "training.md",
    "lab.md",
]


@pytest.mark.parametrize("page", PATH_PAGES)
def test_learning_path_page_ends_with_exercises_and_worked_solutions(page):
    # tests/test_docs.py runs the solutions; this checks that they are there.
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    assert "\n## Exercises\n" in text, f"{page} has no Exercises section"
    exercises = text[text.index("\n## Exercises\n") :]
    assert "\n## " not in exercises[len("\n## Exercises\n") :], f"{page}: Exercises is not last"
    count = len(re.findall(r"^\*\*\d\. ", exercises, re.M))
    solutions = exercises.count("<summary>Solution</summary>")
    assert 2 <= count <= 3 and solutions == count, (page, count, solutions)
    assert len(re.findall(r"^```python\n", exercises, re.M)) >= count, page
