"""The op_db / module_db sweep, run once per test session in a subprocess.

The quick sweep (``QUICK`` samples of each op per dtype, every error input) feeds the
default tests; the full one (every sample) feeds the slow ones. Both skip cleanly when
PyTorch, or the ``expecttest`` package its test databases import, is missing.
"""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Samples per op and dtype (module inputs per module, dtype and mode) in the default run.
QUICK = 4


def _sweep(tmp_path_factory, quick: int | None) -> dict:
    pytest.importorskip("torch")
    if importlib.util.find_spec("expecttest") is None:
        pytest.skip("PyTorch's op database imports expecttest (pip install expecttest)")
    out = tmp_path_factory.mktemp("opdb") / "sweep.json"
    cmd = [sys.executable, "-m", "tests.opdb.sweep", str(out)]
    if quick is not None:
        cmd += ["--quick", str(quick)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"the op_db sweep failed:\n{done.stderr[-4000:]}")
    return json.loads(out.read_text())


@pytest.fixture(scope="session")
def quick_sweep(tmp_path_factory) -> dict:
    return _sweep(tmp_path_factory, QUICK)


@pytest.fixture(scope="session")
def full_sweep(tmp_path_factory) -> dict:
    return _sweep(tmp_path_factory, None)


@pytest.fixture(
    params=[
        pytest.param("quick_sweep", id="quick"),
        pytest.param("full_sweep", id="every-sample", marks=pytest.mark.slow),
    ]
)
def sweep(request) -> dict:
    """The quick sweep, and in the slow run the full one: a per-key test runs on each."""
    return request.getfixturevalue(request.param)
