"""minigrad.testing.assert_gradients: the one-line gradient test for users' suites."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import Function
from minigrad.gradcheck import GradcheckWarning
from minigrad.tensor import Tensor
from minigrad.testing import assert_gradients


class HalfWrongSquare(Function):
    """x ** 2 whose backward forgets the factor 2."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.numpy() ** 2

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x


class FirstOrderOnlyTanh(Function):
    """Right first derivative, but its graph treats tanh(x) as a constant."""

    @staticmethod
    def forward(ctx, x):
        ctx.y = np.tanh(x.numpy())
        return ctx.y

    @staticmethod
    def backward(ctx, g):
        return g * Tensor._make(1.0 - ctx.y**2, False, None)


def test_shapes_become_random_float64_inputs_and_a_correct_function_passes():
    seen = []

    def fn(x, y):
        seen.append((x.dtype, x.shape, y.shape, x.requires_grad))
        return (x * y).tanh()

    first, second = assert_gradients(fn, (3, 4), (4,))
    assert first.verdict == "passed" and second.verdict == "passed"
    assert seen[0] == (np.float64, (3, 4), (4,), True)


def test_a_wrong_gradient_fails_with_the_readable_report():
    with pytest.raises(AssertionError) as info:
        assert_gradients(lambda x, w: x * HalfWrongSquare.apply(w), (2, 3), (3,))
    message = str(info.value)
    assert "with respect to input 1," in message
    assert "output index  input index  numerical" in message


def test_second_order_is_checked_and_can_be_switched_off():
    with pytest.raises(AssertionError, match="gradgradcheck"):
        assert_gradients(FirstOrderOnlyTanh.apply, (5,))
    first, second = assert_gradients(FirstOrderOnlyTanh.apply, (5,), second_order=False)
    assert first.verdict == "passed" and second is None


def test_a_vacuous_test_fails_unless_allowed():
    def normalized_sum(x):
        xc = x - x.mean(-1, keepdim=True)
        return (xc / xc.std(-1, keepdim=True)).sum()

    with pytest.raises(AssertionError, match="vacuous"):
        assert_gradients(normalized_sum, (3, 6), second_order=False)
    with pytest.warns(GradcheckWarning, match="vacuous"):
        first, _ = assert_gradients(normalized_sum, (3, 6), second_order=False, allow_vacuous=True)
    assert first.verdict == "vacuous"


def test_tensors_and_other_arguments_are_passed_as_given():
    positive = mg.tensor(np.array([0.5, 1.0, 2.0]), requires_grad=True)
    frozen = mg.tensor(np.array([1.0, 2.0, 3.0]))  # not checked
    first, _ = assert_gradients(lambda x, c, k: (x.log() * c) ** k, positive, frozen, 2)
    assert [p.input for p in first.pairs] == [0]


def test_an_inconclusive_check_warns_but_does_not_fail():
    x = mg.tensor(np.linspace(-1, 1, 6).astype(np.float32), requires_grad=True)
    with pytest.warns(GradcheckWarning, match="float32"):
        first, _ = assert_gradients(lambda x: x.softmax(-1), x, second_order=False)
    assert first.verdict == "inconclusive"


def test_the_seed_makes_the_inputs_reproducible():
    def first_input(seed):
        drawn = []
        assert_gradients(
            lambda x: drawn.append(x.numpy().copy()) or x.exp(), (2,), second_order=False, seed=seed
        )
        return drawn[0]  # the first call sees the unperturbed input

    assert np.array_equal(first_input(0), first_input(0))
    assert not np.array_equal(first_input(0), first_input(1))
