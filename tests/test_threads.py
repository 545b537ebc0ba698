"""``minigrad.kernels.runtime``: the one threading policy (the input's size and
``mg.set_num_threads``, nothing else), the thread counts it sets, and the explicit
process-wide opt-ins."""

import os
import subprocess
import sys

import pytest

import minigrad as mg
from minigrad.kernels import runtime


@pytest.fixture
def restore_threads():
    previous = mg.get_num_threads()
    yield
    mg.set_num_threads(previous)


@pytest.fixture
def restore_threads_two():
    previous = mg.get_num_threads()
    mg.set_num_threads(2)
    yield
    mg.set_num_threads(previous)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_set_num_threads_wants_a_positive_int(bad):
    with pytest.raises(ValueError, match="n must be a positive int"):
        mg.set_num_threads(bad)


def test_the_count_is_what_was_set(restore_threads):
    mg.set_num_threads(3)
    assert mg.get_num_threads() == 3 and runtime.get_num_threads() == 3


def test_the_policy_is_the_size_and_the_thread_count(restore_threads):
    import numba

    mg.set_num_threads(2)
    assert not runtime.parallel(runtime.PARALLEL_MIN_ELEMENTS - 1)
    assert runtime.parallel(runtime.PARALLEL_MIN_ELEMENTS)
    assert numba.get_num_threads() == min(2, numba.config.NUMBA_NUM_THREADS)
    mg.set_num_threads(1)
    assert not runtime.parallel(1 << 40)


def test_a_matrix_product_changes_no_choice(restore_threads):
    # The same input gets the same code before and after a product, at once or later:
    # nothing about what ran before, or when, enters the choice.
    mg.set_num_threads(2)
    size = runtime.PARALLEL_MIN_ELEMENTS
    before = [runtime.parallel(size), runtime.parallel(size - 1)]
    a = mg.randn(256, 256)
    (a @ a).sum()
    assert [runtime.parallel(size), runtime.parallel(size - 1)] == before == [True, False]


def test_set_num_threads_sets_blas_threads_through_threadpoolctl(restore_threads):
    from threadpoolctl import threadpool_info

    found = mg.set_num_threads(1)
    blas = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    assert found == bool(blas)
    assert all(n == 1 for n in blas)


def test_for_size_picks_the_parallel_kernel_or_its_serial_twin(restore_threads):
    from minigrad.kernels.layer_norm import layer_norm_forward as kernel

    mg.set_num_threads(2)
    assert kernel.for_size(runtime.PARALLEL_MIN_ELEMENTS) is kernel
    assert kernel.for_size(runtime.PARALLEL_MIN_ELEMENTS - 1) is kernel.serial
    mg.set_num_threads(1)
    assert kernel.for_size(1 << 40) is kernel.serial


def test_the_threading_layer_is_numbas_unless_the_program_opts_in():
    code = (
        "import numba, minigrad as mg, minigrad.nn.functional as F; "
        "F.layer_norm(mg.randn(300, 200), 200); "
        "assert numba.config.THREADING_LAYER == 'default', numba.config.THREADING_LAYER; "
        "from minigrad.kernels.runtime import use_threading_layer; "
        "use_threading_layer('workqueue'); assert numba.config.THREADING_LAYER == 'workqueue'"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_THREADING_LAYER"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_keep_freed_memory_is_an_explicit_call_that_reports_whether_it_applied():
    code = "import minigrad as mg; r = mg.keep_freed_memory(); assert isinstance(r, bool)"
    subprocess.run([sys.executable, "-c", code], check=True)


# A 40 MiB block is above every threshold glibc sets by itself (its dynamic mmap
# threshold stops at 32 MiB), so a process allocates it with mmap and returns it to the
# system at every free: each new one faults its pages in again (10,240 of 4 KiB; fewer
# where the kernel maps larger pages), unless the allocator policy keeps freed memory.
_FAULTS_PER_BLOCK = """
import resource, sys
import numpy as np
import minigrad as mg
{setup}
def faults():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(4):
        block = np.ones(40 << 20, dtype=np.uint8)
        del block
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 4
faults()
print(faults())
"""
_BACKWARD = "x = mg.randn(3, requires_grad=True); (x * x).sum().backward()"


def _faults_per_block(setup: str, **env) -> float:
    code = _FAULTS_PER_BLOCK.format(setup=setup)
    env = {**os.environ, **env}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return float(out.stdout)


@pytest.fixture(scope="module")
def faults_untouched():
    """Faults per 40 MiB block in a process that imported minigrad and did nothing else:
    glibc's own thresholds, as in any process."""
    if not sys.platform.startswith("linux"):
        pytest.skip("glibc's allocator")
    faults = _faults_per_block("", MINIGRAD_KEEP_FREED_MEMORY="1")
    assert faults >= 16  # each block is returned to the system and faulted in again
    return faults


def test_the_first_backward_keeps_freed_memory(faults_untouched):
    assert _faults_per_block(_BACKWARD, MINIGRAD_KEEP_FREED_MEMORY="1") < faults_untouched / 10


def test_the_allocator_policy_can_be_turned_off(faults_untouched):
    assert _faults_per_block(_BACKWARD, MINIGRAD_KEEP_FREED_MEMORY="0") > faults_untouched / 2
    off = "mg.keep_freed_memory(False); " + _BACKWARD
    assert _faults_per_block(off, MINIGRAD_KEEP_FREED_MEMORY="1") > faults_untouched / 2
