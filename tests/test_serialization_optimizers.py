"""Every optimizer in minigrad.optim: its state_dict goes through mg.save / mg.load
unchanged (types, shapes, dtypes, bits), and training resumed from the file continues
exactly as training resumed from the state_dict in memory, and as training that never
stopped."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim
from tests.serialization_checks import assert_same

OPTIMIZERS = sorted(
    (
        cls
        for cls in vars(optim).values()
        if isinstance(cls, type) and issubclass(cls, optim.Optimizer) and cls is not optim.Optimizer
    ),
    key=lambda cls: cls.__name__,
)

#: Options that give each optimizer's state all its parts (momentum buffers, amsgrad's
#: maximum, centered averages, ...), so that all of it goes through the file.
OPTIONS = {
    "SGD": {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01},
    "Adam": {"lr": 0.01, "amsgrad": True},
    "AdamW": {"lr": 0.01, "amsgrad": True},
    "RMSprop": {"lr": 0.01, "momentum": 0.5, "centered": True},
    "Adagrad": {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1},
    "ASGD": {"lr": 0.01, "t0": 1},  # averaging from the second step: "ax" is used
    "LBFGS": {"lr": 0.5, "max_iter": 3, "history_size": 4},
    "NAdam": {"lr": 0.01, "decoupled_weight_decay": True, "weight_decay": 0.01},
    "RAdam": {"lr": 0.01, "decoupled_weight_decay": True, "weight_decay": 0.01},
}


def _build(cls):
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    kwargs = OPTIONS.get(cls.__name__, {"lr": 0.01})
    if cls.__name__ == "Muon":  # matrices only
        groups = [p for p in model.parameters() if p.ndim == 2]
    elif cls.__name__ == "LBFGS":  # one parameter group only, as in PyTorch
        groups = list(model.parameters())
    else:  # two groups with different learning rates
        params = list(model.parameters())
        groups = [{"params": params[:2]}, {"params": params[2:], "lr": kwargs["lr"] / 2}]
    return model, cls(groups, **kwargs)


def _train(model, opt, seeds):
    for seed in seeds:
        rng = np.random.default_rng(seed)
        x = mg.tensor(rng.standard_normal((5, 3)).astype(np.float32))
        y = mg.tensor(rng.standard_normal((5, 2)).astype(np.float32))

        def closure(x=x, y=y):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            return loss

        opt.step(closure)


def _weights(model):
    return {k: v.numpy().copy() for k, v in model.state_dict().items()}


@pytest.mark.parametrize("cls", OPTIMIZERS, ids=lambda cls: cls.__name__)
def test_optimizer_state_round_trips_through_a_file(cls, tmp_path):
    model, opt = _build(cls)
    _train(model, opt, [1, 2, 3])
    state = opt.state_dict()
    mg.save(state, tmp_path / "optimizer.safetensors")
    assert_same(mg.load(tmp_path / "optimizer.safetensors"), state)


@pytest.mark.parametrize(
    "cls",
    OPTIMIZERS,
    ids=lambda cls: cls.__name__,
)
def test_training_resumed_from_a_file_continues_exactly(cls, tmp_path):
    model, opt = _build(cls)
    _train(model, opt, [1, 2, 3])
    path = tmp_path / "checkpoint.safetensors"
    mg.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, path)
    saved = mg.load(path)
    from_file = _build(cls)
    from_file[0].load_state_dict(saved["model"])
    from_file[1].load_state_dict(saved["optimizer"])
    in_memory = _build(cls)
    in_memory[0].load_state_dict(model.state_dict())
    in_memory[1].load_state_dict(opt.state_dict())
    _train(model, opt, [4, 5])  # never stopped
    for resumed in (from_file, in_memory):
        _train(*resumed, [4, 5])
    for k, v in _weights(model).items():
        np.testing.assert_array_equal(_weights(from_file[0])[k], _weights(in_memory[0])[k], k)
        np.testing.assert_array_equal(_weights(from_file[0])[k], v, err_msg=k)
