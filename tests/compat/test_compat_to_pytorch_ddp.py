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
