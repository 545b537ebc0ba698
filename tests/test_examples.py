"""The example scripts run, and the by-hand pages show exactly what their scripts print.

Each by-hand page (docs/*-by-hand.md) has an example script that computes every number on
the page with NumPy and checks it against minigrad. Every line of the page's ```text
blocks (except the block that shows the command) must appear in the script's output,
verbatim: a page whose numbers drift from the code fails here.
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


@pytest.mark.parametrize("script", ["norm_by_hand.py", "quickstart.py"])
def test_example_script_runs(script):
    out = _run(script)
    assert out.strip()
    if script == "quickstart.py":
        assert "gradcheck      = passed" in out
    else:
        assert "every value above matches minigrad.nn.norms.reference" in out
