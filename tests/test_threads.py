"""``minigrad.kernels.runtime``: the thread count, the explicit process-wide opt-ins, and
``share`` (work items for code that is not a kernel)."""

import os
import subprocess
import sys
import threading
import time

import pytest

import minigrad as mg
from minigrad.kernels import runtime


@pytest.fixture(autouse=True)
def no_recent_product(monkeypatch):
    """Every test starts as if no matrix product had run lately (an earlier test's would
    keep the kernels on the calling thread for ``BLAS_SPIN_SECONDS``)."""
    monkeypatch.setattr(runtime, "_blas_spinning_until", 0.0)


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


def test_small_inputs_run_on_one_thread_large_ones_on_the_count(restore_threads):
    import numba

    mg.set_num_threads(2)
    runtime.threads_for(runtime.PARALLEL_MIN_ELEMENTS - 1)
    assert numba.get_num_threads() == 1
    runtime.threads_for(runtime.PARALLEL_MIN_ELEMENTS)
    assert numba.get_num_threads() == min(2, numba.config.NUMBA_NUM_THREADS)


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


@pytest.mark.parametrize("count", [0, 1, 2, 7, 100])
def test_every_item_runs_exactly_once(count, restore_threads_two):
    seen = []
    lock = threading.Lock()

    def task(i):
        with lock:
            seen.append(i)

    runtime.share(task, count)
    assert sorted(seen) == list(range(count))


def test_items_run_on_a_helper_thread_too_when_they_take_time(restore_threads_two):
    # time.sleep releases the GIL, like a nogil kernel: the helper wakes and takes items.
    names = set()

    def task(i):
        names.add(threading.current_thread().name)
        time.sleep(0.01)

    runtime.share(task, 20)
    assert threading.current_thread().name in names
    assert any(name.startswith("minigrad") for name in names)


def test_one_thread_runs_everything_on_the_caller():
    previous = mg.get_num_threads()
    mg.set_num_threads(1)
    try:
        names = set()
        runtime.share(lambda i: names.add(threading.current_thread().name), 10)
    finally:
        mg.set_num_threads(previous)
    assert names == {threading.current_thread().name}


def test_an_error_in_any_item_is_raised_after_the_items_taken_have_finished(restore_threads_two):
    finished = []

    def task(i):
        time.sleep(0.002)
        if i == 3:
            raise ValueError("item 3 is bad")
        finished.append(i)

    with pytest.raises(ValueError, match="item 3 is bad"):
        runtime.share(task, 10)
    assert 3 not in finished and len(finished) >= 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_still_finishes_its_work(restore_threads_two):
    # A child forked after the helper pool exists inherits the pool but not its
    # threads; the calling thread must then run every item itself instead of waiting.
    runtime.share(lambda i: time.sleep(0.001), 4)  # the pool exists now
    pid = os.fork()
    if pid == 0:  # the child
        done = []
        runtime.share(lambda i: done.append(i), 8)
        os._exit(0 if sorted(done) == list(range(8)) else 1)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        finished, status = os.waitpid(pid, os.WNOHANG)
        if finished:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.01)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hung in share()")
