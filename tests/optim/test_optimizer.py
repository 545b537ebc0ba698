"""The Optimizer base: param groups, zero_grad, closures, state_dict in PyTorch's layout,
exact resume, loading PyTorch's optimizer state, and errors."""

import copy

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim


def _model():
    mg.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))


def _train(model, opt, steps, seed=1):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        x = mg.tensor(rng.standard_normal((8, 3)).astype(np.float32))
        y = mg.tensor(rng.integers(0, 2, 8))
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


def test_empty_and_bad_parameter_lists():
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([], lr=0.1)
    p = nn.Parameter(mg.ones(2))
    with pytest.raises(TypeError, match="iterable"):
        optim.SGD(p, lr=0.1)
    with pytest.raises(TypeError, match="sets"):
        optim.SGD([{"params": {p}}], lr=0.1)
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([p * 2], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)


def test_add_param_group_fills_defaults():
    a, b = nn.Parameter(mg.ones(1)), nn.Parameter(mg.ones(1))
    opt = optim.Adam([a], lr=0.1)
    opt.add_param_group({"params": b, "lr": 0.5})
    g = opt.param_groups[1]
    assert g["lr"] == 0.5 and g["betas"] == (0.9, 0.999) and g["params"] == [b]


def test_zero_grad_none_or_zeros():
    p = nn.Parameter(mg.ones(2))
    opt = optim.SGD([p], lr=0.1)
    p.grad = mg.tensor([1.0, 2.0])
    g = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is g and np.all(g.numpy() == 0)
    opt.zero_grad()
    assert p.grad is None


def test_step_with_closure_returns_loss():
    p = nn.Parameter(mg.tensor([2.0]))
    opt = optim.SGD([p], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with mg.no_grad():  # the closure still records a graph
        loss = opt.step(closure)
    assert loss.item() == 4.0
    np.testing.assert_allclose(p.numpy(), [1.0])  # 2 - 0.25 * 4


def test_state_dict_layout_matches_pytorch(torch):
    model = _model()
    opt = optim.AdamW(
        [{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.1}]
    )
    _train(model, opt, 2)
    sd = opt.state_dict()
    tmodel = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    topt = torch.optim.AdamW(
        [{"params": tmodel[0].parameters()}, {"params": tmodel[2].parameters(), "lr": 0.1}]
    )
    for p in tmodel.parameters():
        p.grad = torch.zeros_like(p)
    topt.step()
    tsd = topt.state_dict()
    assert sorted(sd) == sorted(tsd) == ["param_groups", "state"]
    assert (
        [g["params"] for g in sd["param_groups"]]
        == [g["params"] for g in tsd["param_groups"]]
        == [[0, 1], [2, 3]]
    )
    assert sorted(sd["state"]) == sorted(tsd["state"]) == [0, 1, 2, 3]
    assert set(sd["state"][0]) == set(tsd["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}
    for key in ("lr", "betas", "eps", "weight_decay", "amsgrad", "maximize"):
        assert sd["param_groups"][1][key] == tsd["param_groups"][1][key], key
    assert isinstance(sd["state"][0]["exp_avg"], np.ndarray)


def test_state_dict_is_a_copy():
    model = _model()
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    _train(model, opt, 1)
    sd = opt.state_dict()
    before = sd["state"][0]["momentum_buffer"].copy()
    _train(model, opt, 1)
    np.testing.assert_array_equal(sd["state"][0]["momentum_buffer"], before)
    sd["param_groups"][0]["lr"] = 99.0
    assert opt.param_groups[0]["lr"] == 0.1


@pytest.mark.parametrize(
    "make",
    [
        lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
        lambda ps: optim.Adam(ps, lr=0.01, amsgrad=True),
        lambda ps: optim.AdamW(ps, lr=0.01, weight_decay=0.1),
    ],
    ids=["sgd", "adam", "adamw"],
)
def test_resume_from_state_dict_is_exact(make):
    model_a = _model()
    opt_a = make(model_a.parameters())
    _train(model_a, opt_a, 3)
    snapshot_model = copy.deepcopy(model_a.state_dict())  # state_dict shares memory
    snapshot_opt = copy.deepcopy(opt_a.state_dict())
    _train(model_a, opt_a, 3, seed=2)  # the uninterrupted run

    model_b = _model()
    opt_b = make(model_b.parameters())
    model_b.load_state_dict(snapshot_model)
    opt_b.load_state_dict(snapshot_opt)
    _train(model_b, opt_b, 3, seed=2)  # the resumed run
    for k, v in model_a.state_dict().items():
        np.testing.assert_array_equal(model_b.state_dict()[k], v, err_msg=k)


def test_load_pytorch_optimizer_state(torch):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((2, 3))
    tp = torch.nn.Parameter(torch.tensor(w))
    topt = torch.optim.Adam([tp], lr=0.01)
    for _ in range(3):
        tp.grad = torch.tensor(rng.standard_normal((2, 3)))
        topt.step()
    mp = nn.Parameter(mg.tensor(tp.detach().numpy().copy()))
    mopt = optim.Adam([mp], lr=0.5)
    mopt.load_state_dict(topt.state_dict())  # torch tensors, a float 'step', extra group keys
    assert mopt.param_groups[0]["lr"] == 0.01 and mopt.state[mp]["step"] == 3
    g = rng.standard_normal((2, 3))
    tp.grad, mp.grad = torch.tensor(g), mg.tensor(g)
    topt.step()
    mopt.step()
    np.testing.assert_allclose(mp.numpy(), tp.detach().numpy(), rtol=1e-12)


def test_failed_load_changes_nothing():
    model = _model()
    opt = optim.Adam(model.parameters(), lr=0.01)
    _train(model, opt, 1)
    sd = opt.state_dict()
    bad = opt.state_dict()
    bad["state"][3]["exp_avg"] = np.zeros(5)
    bad["param_groups"][0]["lr"] = 1.0
    with pytest.raises(ValueError, match="'exp_avg' of parameter 3 has shape"):
        opt.load_state_dict(bad)
    assert opt.param_groups[0]["lr"] == 0.01
    np.testing.assert_array_equal(
        opt.state_dict()["state"][3]["exp_avg"], sd["state"][3]["exp_avg"]
    )
    with pytest.raises(ValueError, match="parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    short = opt.state_dict()
    short["param_groups"][0]["params"] = [0, 1]
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict(short)


def test_model_to_double_after_optimizer_keeps_parameters():
    model = _model()
    opt = optim.SGD(model.parameters(), lr=0.1)
    model.double()
    assert all(p is q for p, q in zip(opt.param_groups[0]["params"], model.parameters()))
    x = mg.tensor(np.ones((2, 3)))
    F.cross_entropy(model(x), mg.tensor([0, 1])).backward()
    opt.step()
    assert all(p.dtype == np.float64 for p in model.parameters())
