"""``t.data``, in-place methods and the version counter, with PyTorch's semantics."""

import numpy as np
import pytest

import minigrad as mg

MODIFIED = "modified by an inplace operation"


def test_data_is_a_tensor_sharing_memory_that_does_not_require_grad():
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    d = p.data
    assert type(d) is mg.Tensor and not d.requires_grad and d.grad_fn is None
    d.zero_()  # no no_grad needed: .data is outside the graph
    assert p.tolist() == [0.0, 0.0]
    p.data.uniform_(-0.1, 0.1)
    assert np.all(np.abs(p.numpy()) <= 0.1)


def test_data_setter_replaces_the_array():
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    p.data = mg.tensor([5.0, 6.0, 7.0])
    assert p.tolist() == [5.0, 6.0, 7.0] and p.requires_grad


def test_modifying_a_saved_input_raises_at_backward():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    w = mg.tensor([3.0, 4.0])
    y = (x * w).sum()
    w.mul_(10)  # without the counter, x.grad would silently be [30, 40]
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.backward()


def test_modifying_a_saved_output_raises_at_backward():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()  # exp saves its output
    with mg.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="version 1; expected version 0"):
        y.sum().backward()


def test_detach_shares_the_counter_but_data_does_not():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    x.detach().add_(1)
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.backward()
    x2 = mg.tensor([1.0, 2.0], requires_grad=True)
    y2 = (x2 * x2).sum()
    x2.data.add_(1)  # untracked, as in PyTorch: the gradient uses the new values
    y2.backward()
    assert x2.grad.tolist() == [4.0, 6.0]


def test_change_after_backward_is_fine():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    w = mg.tensor([3.0, 4.0])
    (x * w).sum().backward()
    w.mul_(10)
    assert x.grad.tolist() == [3.0, 4.0]


def test_inplace_on_a_leaf_that_requires_grad_needs_no_grad():
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="in-place"):
        p.add_(1)
    with mg.no_grad():
        p.add_(1)
    assert p.tolist() == [2.0, 3.0]


def test_inplace_methods_compute_what_pytorch_does():
    t = mg.tensor([1.0, -2.0, 3.0])
    assert t.sub_(1, alpha=2).tolist() == [-1.0, -4.0, 1.0]
    assert t.div_(2).tolist() == [-0.5, -2.0, 0.5]
    assert t.clamp_(min=-1).tolist() == [-0.5, -1.0, 0.5]
    assert t.masked_fill_(mg.tensor([True, False, False]), 9).tolist() == [9.0, -1.0, 0.5]
    assert t.fill_(mg.tensor(2.0)).tolist() == [2.0, 2.0, 2.0]
    assert t.copy_(np.array([1, 2, 3])).tolist() == [1.0, 2.0, 3.0]
    assert t._version_count == 6
    with pytest.raises(ValueError, match="does not broadcast"):
        t.copy_(mg.zeros(2))


def test_augmented_assignment_is_in_place_outside_the_graph():
    t = mg.tensor([1.0, 2.0])
    alias = t
    t += 1
    t *= 2
    assert t is alias and alias.tolist() == [4.0, 6.0]
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    h += 1  # recording: out of place, the graph stays right
    h.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_random_inplace_draws_are_seeded():
    mg.manual_seed(3)
    a = mg.empty(5).normal_(0, 1).numpy().copy()
    mg.manual_seed(3)
    b = mg.empty(5).normal_(0, 1).numpy()
    np.testing.assert_array_equal(a, b)
