"""Grad mode is per thread, as PyTorch's: a mode set in one thread (``no_grad``,
``enable_grad``, ``set_grad_enabled``, ``inference_mode``, their decorator forms) never
changes what another thread records, and every new thread starts with recording on
(minigrad/autograd/grad_mode.py)."""

from __future__ import annotations

import contextlib
import threading

import numpy as np

import minigrad as mg


def _leaf():
    return mg.tensor(np.array([1.0, 2.0]), requires_grad=True)


def _run_in_thread(func):
    """Run ``func`` in a new thread and return what it returned (or re-raise)."""
    out = {}

    def target():
        try:
            out["value"] = func()
        except BaseException as exc:  # re-raised in the calling thread
            out["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive()
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_a_new_thread_records_while_the_main_thread_is_under_no_grad():
    def train_step():
        x = _leaf()
        y = (x * x).sum()
        y.backward()
        return mg.is_grad_enabled(), y.requires_grad, x.grad.numpy().tolist()

    with mg.no_grad():
        assert _run_in_thread(train_step) == (True, True, [2.0, 4.0])
        assert not mg.is_grad_enabled()
    assert mg.is_grad_enabled()


def test_set_grad_enabled_false_in_a_thread_leaves_the_main_thread_recording():
    def switch_off():
        mg.set_grad_enabled(False)  # never switched back: the thread just ends
        return mg.is_grad_enabled()

    assert _run_in_thread(switch_off) is False
    assert mg.is_grad_enabled()
    assert (_leaf() * 2.0).requires_grad


def test_every_mode_is_local_to_its_thread():
    modes = {
        "no_grad": lambda: mg.no_grad(),
        "set_grad_enabled(False)": lambda: mg.set_grad_enabled(False),
        "inference_mode": lambda: mg.inference_mode(),
    }
    for name, make in modes.items():
        try:
            with make():
                seen = _run_in_thread(lambda: (mg.is_grad_enabled(), (_leaf() * 2).requires_grad))
                assert seen == (True, True), name
        finally:
            mg.set_grad_enabled(True)


def test_enable_grad_in_a_thread_does_not_reach_a_main_thread_under_no_grad():
    def enabled():
        with mg.enable_grad():
            return mg.is_grad_enabled()

    with mg.no_grad():
        assert _run_in_thread(enabled) is True
        assert not mg.is_grad_enabled()
        assert not (_leaf() * 2).requires_grad


def test_decorators_and_nested_modes_hold_per_thread_while_threads_interleave():
    """Two threads step through nested modes in lock step (a barrier between steps):
    each sees only its own mode at every step."""
    barrier = threading.Barrier(2, timeout=30)

    @mg.no_grad
    def frozen():
        return (_leaf() * 2).requires_grad

    @mg.enable_grad()
    def recorded():
        return (_leaf() * 2).requires_grad

    def walk(outer, decorated, inner):
        """Four steps, each after the other thread reached it: the mode under ``outer``,
        what the ``decorated`` function sees, the mode under ``inner`` nested in
        ``outer``, and the mode back under ``outer``."""
        seen = []
        with outer():
            barrier.wait()
            seen.append(mg.is_grad_enabled())
            barrier.wait()
            seen.append(decorated())
            with inner():
                barrier.wait()
                seen.append(mg.is_grad_enabled())
            barrier.wait()
            seen.append(mg.is_grad_enabled())
        return seen

    def serving():
        return walk(mg.no_grad, recorded, mg.enable_grad)

    def training():
        return walk(contextlib.nullcontext, frozen, mg.no_grad)

    results = {}
    threads = [
        threading.Thread(target=lambda: results.__setitem__("serving", serving())),
        threading.Thread(target=lambda: results.__setitem__("training", training())),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert results["serving"] == [False, True, True, False]
    assert results["training"] == [True, False, False, True]
    assert mg.is_grad_enabled()


def test_a_serving_thread_under_no_grad_beside_a_training_thread():
    """The issue's case: one thread's no_grad loop never strips requires_grad from the
    other thread's forward results."""
    stop = threading.Event()
    started = threading.Event()

    def serve():
        with mg.no_grad():
            started.set()
            while not stop.is_set():
                _leaf() * 2

    server = threading.Thread(target=serve)
    server.start()
    try:
        started.wait(timeout=30)
        lost = 0
        for _ in range(300):
            x = _leaf()
            y = (x * 3).sum()
            if not y.requires_grad:
                lost += 1
                continue
            y.backward()
            np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    finally:
        stop.set()
        server.join(timeout=30)
    assert lost == 0
