"""Tensor hooks (minigrad/autograd/hooks.py): register_hook on leaves and non-leaves,
post-accumulate hooks, retains_grad; against PyTorch when installed."""

import numpy as np
import pytest

import minigrad as mg


def _program(lib, seen):
    """The same graph in both libraries, with hooks that record and change gradients."""
    x = lib.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    y = x * x
    y.register_hook(lambda g: seen.append(("y", g.tolist())))
    h = y.register_hook(lambda g: g * 10)
    z = (y + x).sum()
    x.register_hook(lambda g: seen.append(("x", g.tolist())))
    x.register_post_accumulate_grad_hook(lambda t: seen.append(("acc", t.grad.tolist())))
    return x, y, z, h


def test_hooks_see_and_replace_gradients_as_in_pytorch(torch):
    ours_seen, theirs_seen = [], []
    ox, _, oz, _ = _program(mg, ours_seen)
    tx, _, tz, _ = _program(torch, theirs_seen)
    oz.backward()
    tz.backward()
    assert ours_seen == theirs_seen
    assert ox.grad.tolist() == tx.grad.tolist()


def test_hooks_without_torch():
    seen = []
    x, y, z, handle = _program(mg, seen)
    z.backward(retain_graph=True)
    # y's gradient is 1, times 10 by the second hook; x gets 10 * 2x + 1
    assert seen == [("y", [1.0, 1.0, 1.0]), ("x", [21.0, 41.0, 61.0]), ("acc", [21.0, 41.0, 61.0])]
    handle.remove()
    x.grad = None
    seen.clear()
    z.backward()
    assert x.grad.tolist() == [3.0, 5.0, 7.0]


def test_hooks_apply_to_autograd_grad_and_second_order():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x**3
    y.register_hook(lambda g: g * 2)
    (g,) = mg.autograd.grad(y.sum(), x, create_graph=True)
    assert g.tolist() == [6.0, 24.0]
    g.sum().backward()
    assert x.grad.tolist() == [12.0, 24.0]


def test_hook_registration_rules():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        mg.zeros(2).register_hook(lambda g: g)
    y = mg.zeros(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="non-leaf"):
        y.register_post_accumulate_grad_hook(lambda t: None)
    bad = mg.zeros(2, requires_grad=True)
    bad.register_hook(lambda g: mg.zeros(3))
    with pytest.raises(RuntimeError, match="shape"):
        (bad * 2).sum().backward()


def test_retains_grad_without_torch():
    _check_retains_grad(mg)


def test_retains_grad_as_pytorch(torch):
    _check_retains_grad(torch)


def _check_retains_grad(lib):
    x = lib.ones(2, requires_grad=True)
    y = x * 2
    assert not y.retains_grad and not x.retains_grad
    y.retain_grad()
    assert y.retains_grad
