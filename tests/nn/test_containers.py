"""Sequential, ModuleList, ModuleDict: names, indexing, mutation, parity of keys with PyTorch."""

from collections import OrderedDict

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn


def test_sequential_runs_in_order_and_names_like_pytorch():
    seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    x = mg.randn(5, 3)
    expected = seq[2](seq[1](seq[0](x)))
    np.testing.assert_array_equal(seq(x).numpy(), expected.numpy())
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert len(seq) == 3 and seq[-1] is seq[2]
    assert isinstance(seq[1:], nn.Sequential) and len(seq[1:]) == 2
    with pytest.raises(IndexError, match="out of range"):
        seq[3]


def test_sequential_from_ordered_dict_and_mutation():
    seq = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.Tanh())]))
    assert [n for n, _ in seq.named_children()] == ["fc", "act"]
    seq = nn.Sequential(nn.Identity(), nn.ReLU())
    seq.append(nn.Tanh())
    seq.insert(0, nn.Sigmoid())
    assert [type(m).__name__ for m in seq] == ["Sigmoid", "Identity", "ReLU", "Tanh"]
    del seq[1]
    assert [n for n, _ in seq.named_children()] == ["0", "1", "2"]
    seq[0] = nn.GELU()
    assert isinstance(seq[0], nn.GELU)


def test_module_list_registers_and_indexes():
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(list(layers.parameters())) == 6
    assert [n for n, _ in layers.named_parameters()][:2] == ["0.weight", "0.bias"]
    layers.append(nn.Linear(2, 1))
    layers.extend([nn.ReLU()])
    layers += [nn.Tanh()]
    assert len(layers) == 6 and isinstance(layers[-1], nn.Tanh)
    del layers[0]
    assert [n for n, _ in layers.named_children()] == ["0", "1", "2", "3", "4"]
    assert isinstance(layers[1:3], nn.ModuleList) and len(layers[1:3]) == 2
    layers.insert(1, nn.Sigmoid())
    assert isinstance(layers[1], nn.Sigmoid)
    with pytest.raises(NotImplementedError):
        layers(mg.ones(1))


def test_module_dict_behaves_like_a_dict():
    d = nn.ModuleDict({"a": nn.Linear(2, 3), "b": nn.ReLU()})
    d["c"] = nn.Tanh()
    assert list(d.keys()) == ["a", "b", "c"] and "b" in d and len(d) == 3
    assert list(d.state_dict()) == ["a.weight", "a.bias"]
    assert isinstance(d.pop("b"), nn.ReLU) and "b" not in d
    d.update([("z", nn.Identity())])
    assert list(d) == ["a", "c", "z"]
    with pytest.raises(KeyError, match="'nope'"):
        d["nope"]


def test_container_keys_match_pytorch(torch):
    tm = torch.nn.ModuleDict(
        {"enc": torch.nn.ModuleList([torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())])}
    )
    m = nn.ModuleDict({"enc": nn.ModuleList([nn.Sequential(nn.Linear(2, 3), nn.ReLU())])})
    assert list(tm.state_dict()) == list(m.state_dict())
    assert [n for n, _ in tm.named_modules()] == [n for n, _ in m.named_modules()]
    assert repr(tm) == repr(m)
