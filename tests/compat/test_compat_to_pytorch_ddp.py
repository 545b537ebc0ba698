"""examples/to_pytorch_ddp.py: minigrad weights -> PyTorch DistributedDataParallel on two
processes -> back to minigrad (the path docs/pytorch-compat.md describes)."""

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "to_pytorch_ddp.py"


def test_round_trip_through_ddp(torch):
    # PYTHONFAULTHANDLER: if a process dies of a signal, its Python stack is in stderr.
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--nproc", "2", "--steps", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )
    assert out.returncode == 0, f"stdout:\n{out.stdout[-1000:]}\nstderr:\n{out.stderr[-4000:]}"
    assert "parity: minigrad loss" in out.stdout
    assert "trained 1 DDP steps on 2 processes" in out.stdout
    assert "back in minigrad: greedy continuation of [1, 2, 3]" in out.stdout


def test_without_pytorch_the_example_says_what_it_needs():
    hide_torch = (
        "import runpy, sys; sys.modules['torch'] = None; "  # import torch: ImportError
        f"sys.argv = [{str(SCRIPT)!r}]; runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    out = subprocess.run([sys.executable, "-c", hide_torch], capture_output=True, text=True)
    assert out.returncode == 1
    assert "Traceback" not in out.stderr and "ModuleNotFoundError" not in out.stderr, out.stderr
    assert "needs PyTorch, which is not installed: pip install torch" in out.stderr
