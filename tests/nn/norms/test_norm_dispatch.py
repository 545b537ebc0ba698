"""Choosing the implementation: ``nn.norm_impl`` blocks and the ``impl=`` argument."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.nn.norms.common import current_impl
from minigrad.nn.norms.layer_norm import LayerNormFunction


def _path(y) -> str:
    """Which implementation produced ``y``, read from its graph node."""
    node = y.grad_fn
    if isinstance(node, LayerNormFunction):
        return "fused" if node.fused else "reference"
    return "composite"  # a primitive (Add / Mul) closes the composite chain


def _layer_norm(**kwargs):
    x = mg.randn(2, 4, requires_grad=True)
    return F.layer_norm(x, 4, mg.ones(4), mg.zeros(4), **kwargs)


def test_fused_is_the_default():
    assert current_impl() == "fused"
    assert _path(_layer_norm()) == "fused"


def test_context_manager_nests_and_restores():
    with nn.norm_impl("reference"):
        assert _path(_layer_norm()) == "reference"
        with nn.norm_impl("composite"):
            assert _path(_layer_norm()) == "composite"
        assert current_impl() == "reference"
    assert current_impl() == "fused"


def test_context_manager_restores_after_an_exception():
    with pytest.raises(RuntimeError), nn.norm_impl("composite"):
        raise RuntimeError("boom")
    assert current_impl() == "fused"


def test_as_a_decorator():
    @nn.norm_impl("reference")
    def run():
        return _path(_layer_norm())

    assert run() == "reference" and current_impl() == "fused"


def test_impl_argument_beats_the_context():
    with nn.norm_impl("reference"):
        assert _path(_layer_norm(impl="composite")) == "composite"
        assert _path(_layer_norm(impl="fused")) == "fused"


def test_modules_follow_the_context():
    ln = nn.LayerNorm(4)
    x = mg.randn(3, 4, requires_grad=True)
    with nn.norm_impl("reference"):
        assert _path(ln(x)) == "reference"
    assert _path(ln(x)) == "fused"


def test_unknown_implementation_is_an_error():
    with pytest.raises(ValueError, match="'fused', 'reference', 'composite'.*'numba'"):
        nn.norm_impl("numba")
    with pytest.raises(ValueError, match="got 'fast'"):
        F.rms_norm(mg.randn(2, 3), 3, impl="fast")


def test_float16_input_runs_the_float32_kernels_and_rounds_once():
    x = mg.tensor(np.random.default_rng(0).standard_normal((3, 8)), dtype=mg.float16)
    y = F.layer_norm(x, 8)
    assert y.dtype == mg.float16
    want = F.layer_norm(x.float(), 8).numpy().astype(np.float16)
    np.testing.assert_array_equal(y.numpy(), want)


def test_importing_minigrad_does_not_import_numba():
    import subprocess
    import sys

    code = (
        "import sys, minigrad, minigrad.nn, minigrad.nn.functional; "
        "assert 'numba' not in sys.modules, 'numba imported'; "
        "minigrad.nn.functional.layer_norm(minigrad.randn(2, 3), 3); "
        "assert 'numba' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_fused_kernels_follow_mg_set_num_threads():
    import subprocess
    import sys

    code = (
        "import minigrad as mg, minigrad.nn.functional as F, numba; "
        "from minigrad.kernels import runtime; "
        "mg.set_num_threads(1); F.layer_norm(mg.randn(300, 200), 200); "
        "assert not runtime.parallel(runtime.PARALLEL_MIN_ELEMENTS); "
        "mg.set_num_threads(2); F.layer_norm(mg.randn(300, 200), 200); "
        "assert runtime.parallel(runtime.PARALLEL_MIN_ELEMENTS) and numba.get_num_threads() == 2, "
        "numba.get_num_threads()"
    )
    env = dict(__import__("os").environ, NUMBA_NUM_THREADS="2")
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_importing_the_kernels_changes_no_numba_setting():
    import subprocess
    import sys

    code = (
        "import numba; before = (numba.config.THREADING_LAYER, numba.get_num_threads()); "
        "import minigrad as mg, minigrad.nn.functional as F; "
        "import minigrad.kernels.layer_norm, minigrad.kernels.activation; "
        "after = (numba.config.THREADING_LAYER, numba.get_num_threads()); "
        "assert before == after, (before, after)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
