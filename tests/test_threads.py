"""``minigrad.threads``: the thread count and ``share``, which hands out work items."""

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
