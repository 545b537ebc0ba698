"""``minigrad.kernels.runtime``: the one threading policy (the input's size and
``mg.set_num_threads``, nothing else), the thread counts it sets, and the explicit
process-wide opt-ins."""

import ctypes
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
# system at every free (the next one faults its pages in again), unless the allocator
# policy keeps freed memory: then the block comes from the heap and, freed, stays there
# for reuse. glibc's own count of the free bytes it keeps (mallinfo2's fordblks) tells.
_KEPT_AFTER_A_BLOCK = """
import ctypes, sys
import numpy as np
import minigrad as mg
{setup}
class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split())]
libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = Info
block = np.ones(40 << 20, dtype=np.uint8)
del block
print(libc.mallinfo2().fordblks >= 40 << 20)
"""
_BACKWARD = "x = mg.randn(3, requires_grad=True); (x * x).sum().backward()"


def _keeps_freed_blocks(setup: str, **env) -> bool:
    code = _KEPT_AFTER_A_BLOCK.format(setup=setup)
    env = {**os.environ, **env}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip() == "True"


def _glibc_with_mallinfo2() -> bool:
    try:
        return hasattr(ctypes.CDLL("libc.so.6"), "mallinfo2")
    except OSError:
        return False


glibc = pytest.mark.skipif(not _glibc_with_mallinfo2(), reason="glibc's allocator (2.33+)")


@glibc
def test_importing_minigrad_leaves_the_allocator_alone():
    assert not _keeps_freed_blocks("", MINIGRAD_KEEP_FREED_MEMORY="1")


@glibc
def test_the_first_backward_keeps_freed_memory():
    assert _keeps_freed_blocks(_BACKWARD, MINIGRAD_KEEP_FREED_MEMORY="1")


@glibc
def test_the_allocator_policy_can_be_turned_off():
    assert not _keeps_freed_blocks(_BACKWARD, MINIGRAD_KEEP_FREED_MEMORY="0")
    off = "mg.keep_freed_memory(False); " + _BACKWARD
    assert not _keeps_freed_blocks(off, MINIGRAD_KEEP_FREED_MEMORY="1")
