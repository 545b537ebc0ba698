"""``nn.utils.prune`` (minigrad/nn/utils/prune.py): masks, keys and gradients against
PyTorch when installed, counts and invariants always."""

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn
from minigrad.nn.utils import prune


def _pair(torch):
    import torch.nn.utils.prune

    ours, theirs = nn.Linear(6, 4), torch.nn.Linear(6, 4)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    return ours, theirs


# (function name, args after (module, "weight")): deterministic methods
DETERMINISTIC = [
    ("l1_unstructured", (0.3,)),
    ("l1_unstructured", (5,)),
    ("ln_structured", (0.5, 2, 0)),
    ("ln_structured", (2, 1, 1)),
    ("identity", ()),
]


@pytest.mark.parametrize("fn,args", DETERMINISTIC)
def test_masks_keys_and_gradients_match_pytorch(torch, fn, args):
    ours, theirs = _pair(torch)
    getattr(prune, fn)(ours, "weight", *args)
    getattr(torch.nn.utils.prune, fn)(theirs, "weight", *args)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    np.testing.assert_array_equal(ours.weight_mask.numpy(), theirs.weight_mask.numpy())
    np.testing.assert_array_equal(ours.weight.numpy(), theirs.weight.detach().numpy())
    x = np.random.default_rng(0).normal(size=(3, 6)).astype(np.float32)
    ours(mg.tensor(x)).sum().backward()
    theirs(torch.tensor(x)).sum().backward()
    np.testing.assert_allclose(ours.weight_orig.grad.numpy(), theirs.weight_orig.grad.numpy())


def test_iterative_and_global_pruning_match_pytorch(torch):
    ours, theirs = _pair(torch)
    for lib_prune, m in ((prune, ours), (torch.nn.utils.prune, theirs)):
        lib_prune.l1_unstructured(m, "weight", 0.25)
        lib_prune.l1_unstructured(m, "weight", 0.25)  # a quarter of what is left
        lib_prune.ln_structured(m, "weight", 1, 2, 0)
    np.testing.assert_array_equal(ours.weight_mask.numpy(), theirs.weight_mask.numpy())
    o2, t2 = _pair(torch)
    prune.global_unstructured([(ours, "bias"), (o2, "weight")], prune.L1Unstructured, amount=10)
    torch.nn.utils.prune.global_unstructured(
        [(theirs, "bias"), (t2, "weight")], torch.nn.utils.prune.L1Unstructured, amount=10
    )
    np.testing.assert_array_equal(ours.bias_mask.numpy(), theirs.bias_mask.numpy())
    np.testing.assert_array_equal(o2.weight_mask.numpy(), t2.weight_mask.numpy())


def test_random_methods_prune_the_right_amount():
    layer = nn.Linear(10, 8)
    prune.random_unstructured(layer, "weight", 0.25)
    assert int((layer.weight_mask.numpy() == 0).sum()) == 20
    prune.random_structured(layer, "bias", 3, 0)
    assert int((layer.bias_mask.numpy() == 0).sum()) == 3
    assert prune.is_pruned(nn.Sequential(layer)) and not prune.is_pruned(nn.Linear(2, 2))


def test_custom_mask_and_remove():
    layer = nn.Linear(3, 2)
    mask = mg.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    prune.custom_from_mask(layer, "weight", mask)
    np.testing.assert_array_equal(layer.weight.numpy() == 0, mask.numpy() == 0)
    orig = layer.weight_orig
    prune.remove(layer, "weight")
    assert type(layer) is nn.Linear and list(layer.state_dict()) == ["bias", "weight"]
    assert layer.weight is orig  # as PyTorch: the parameter an optimizer holds stays
    assert isinstance(layer.weight, nn.Parameter)
    np.testing.assert_array_equal(layer.weight.numpy() == 0, mask.numpy() == 0)
    with pytest.raises(ValueError):
        prune.remove(layer, "weight")


def test_bad_amounts_raise():
    with pytest.raises(ValueError):
        prune.l1_unstructured(nn.Linear(2, 2), "weight", 1.5)
    with pytest.raises(ValueError):
        prune.l1_unstructured(nn.Linear(2, 2), "weight", 5)
    with pytest.raises(TypeError):
        prune.l1_unstructured(nn.Linear(2, 2), "weight", "half")
