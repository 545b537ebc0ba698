"""``minigrad.threads``: the thread count and ``share``, which hands out work items."""

import os
import threading
import time

import pytest

import minigrad as mg
from minigrad import threads


@pytest.fixture
def two_threads():
    previous = mg.get_num_threads()
    mg.set_num_threads(2)
    yield
    mg.set_num_threads(previous)


@pytest.mark.parametrize("count", [0, 1, 2, 7, 100])
def test_every_item_runs_exactly_once(count, two_threads):
    seen = []
    lock = threading.Lock()

    def task(i):
        with lock:
            seen.append(i)

    threads.share(task, count)
    assert sorted(seen) == list(range(count))


def test_items_run_on_a_helper_thread_too_when_they_take_time(two_threads):
    # time.sleep releases the GIL, like a nogil kernel: the helper wakes and takes items.
    names = set()

    def task(i):
        names.add(threading.current_thread().name)
        time.sleep(0.01)

    threads.share(task, 20)
    assert threading.current_thread().name in names
    assert any(name.startswith("minigrad") for name in names)


def test_one_thread_runs_everything_on_the_caller():
    previous = mg.get_num_threads()
    mg.set_num_threads(1)
    try:
        names = set()
        threads.share(lambda i: names.add(threading.current_thread().name), 10)
    finally:
        mg.set_num_threads(previous)
    assert names == {threading.current_thread().name}


def test_an_error_in_any_item_is_raised_after_the_items_taken_have_finished(two_threads):
    finished = []

    def task(i):
        time.sleep(0.002)
        if i == 3:
            raise ValueError("item 3 is bad")
        finished.append(i)

    with pytest.raises(ValueError, match="item 3 is bad"):
        threads.share(task, 10)
    assert 3 not in finished and len(finished) >= 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_still_finishes_its_work(two_threads):
    # A child forked after the helper pool exists inherits the pool but not its
    # threads; the calling thread must then run every item itself instead of waiting.
    threads.share(lambda i: time.sleep(0.001), 4)  # the pool exists now
    pid = os.fork()
    if pid == 0:  # the child
        done = []
        threads.share(lambda i: done.append(i), 8)
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
