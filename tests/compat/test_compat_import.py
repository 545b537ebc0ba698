"""A bare ``import minigrad`` reaches mg.nn, mg.optim, mg.nn.functional, mg.autograd,
mg.utils (and cuda, amp, backends, distributed, linalg) as ``import torch`` does, loading
them lazily: the import itself pulls in neither numba nor minigrad.nn (its time is
measured for the docs, not asserted: the machine is shared)."""

import subprocess
import sys

import pytest

SCRIPT = """
import sys
import minigrad as mg
eager = sorted(m for m in ("numba", "minigrad.nn", "minigrad.optim", "minigrad.utils",
                            "minigrad.linalg", "minigrad.cuda", "minigrad.distributed")
               if m in sys.modules)
print("eager", eager)
assert mg.nn.functional.relu is not None and mg.nn.Linear is not None
assert mg.optim.AdamW is not None and mg.autograd.Function is not None
assert mg.utils.data.DataLoader is not None
assert mg.cuda.is_available() is False and mg.backends.mps.is_available() is False
assert mg.distributed.is_available() and mg.linalg.vector_norm is not None
assert mg.amp.GradScaler is mg.GradScaler and mg.autocast is mg.amp.autocast
print("ok")
"""


def test_lazy_submodules_in_a_fresh_process():
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "eager []" in out.stdout and "ok" in out.stdout


def test_unknown_attribute_is_an_attribute_error():
    import minigrad as mg

    with pytest.raises(AttributeError, match="module 'minigrad' has no attribute 'cudnn'"):
        mg.cudnn  # noqa: B018
    assert "nn" in dir(mg) and "cuda" in dir(mg)
