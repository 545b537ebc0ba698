"""Gradient mode: no_grad / enable_grad as context managers and decorators, detach
(minigrad/autograd/grad_mode.py)."""

import numpy as np
import pytest

import minigrad as mg


def _leaf():
    return mg.tensor(np.array([1.0, 2.0]), requires_grad=True)


def test_no_grad_context_records_nothing_and_restores():
    x = _leaf()
    assert mg.is_grad_enabled()
    with mg.no_grad():
        assert not mg.is_grad_enabled()
        y = x * 2.0
    assert mg.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert (x * 2.0).requires_grad


def test_enable_grad_inside_no_grad_and_nesting():
    x = _leaf()
    with mg.no_grad():
        with mg.enable_grad():
            assert mg.is_grad_enabled()
            y = x * 2.0
            with mg.no_grad():
                z = x * 3.0
            assert mg.is_grad_enabled()
        assert not mg.is_grad_enabled()
    assert y.requires_grad and not z.requires_grad
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_decorators_and_exception_safety():
    x = _leaf()

    @mg.no_grad()
    def frozen(t):
        """doc kept"""
        return t * 2.0

    @mg.enable_grad()
    def recorded(t):
        return t * 2.0

    assert not frozen(x).requires_grad
    assert frozen.__name__ == "frozen" and frozen.__doc__ == "doc kept"
    with mg.no_grad():
        assert recorded(x).requires_grad
    assert mg.is_grad_enabled()

    @mg.no_grad()
    def fails():
        raise ValueError("boom")

    with pytest.raises(ValueError):
        fails()
    assert mg.is_grad_enabled()
    with pytest.raises(KeyError):
        with mg.no_grad():
            raise KeyError("boom")
    assert mg.is_grad_enabled()


def test_set_grad_enabled_function():
    mg.set_grad_enabled(False)
    try:
        assert not mg.is_grad_enabled()
        assert not (_leaf() * 2.0).requires_grad
    finally:
        mg.set_grad_enabled(True)
    assert mg.is_grad_enabled()


def test_backward_works_inside_no_grad():
    x = _leaf()
    y = (x * x).sum()
    with mg.no_grad():
        y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])
    assert mg.is_grad_enabled()


def test_detach_cuts_gradient_flow():
    x = _leaf()
    y = x * x
    z = (y.detach() * x).sum()  # d/dx = y (treated as constant)
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 4.0])


def test_bare_decorator_form():
    @mg.no_grad
    def frozen(t):
        return t * 2.0

    assert not frozen(_leaf()).requires_grad


def test_set_grad_enabled_as_context_manager():
    try:
        with mg.set_grad_enabled(False):
            assert not mg.is_grad_enabled()
        assert mg.is_grad_enabled()
    finally:
        mg.set_grad_enabled(True)


def test_set_grad_enabled_as_decorator_sets_the_mode_only_inside_the_function():
    try:

        @mg.set_grad_enabled(False)
        def f():
            return mg.is_grad_enabled(), (_leaf() * 2.0).requires_grad

        assert mg.is_grad_enabled()  # decorating changed nothing outside
        assert f() == (False, False)
        assert mg.is_grad_enabled()
    finally:
        mg.set_grad_enabled(True)
