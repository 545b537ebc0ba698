"""LR schedulers: each learning-rate sequence against PyTorch (several groups), resume
from state_dict, LambdaLR without its function in the state, errors."""

import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

SCHEDULES = {
    "step": lambda L, o: L.StepLR(o, step_size=7, gamma=0.5),
    "lambda": lambda L, o: L.LambdaLR(o, lambda e: 0.9**e),
    "lambda_per_group": lambda L, o: L.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: 0.5]),
    "cosine": lambda L, o: L.CosineAnnealingLR(o, T_max=10, eta_min=0.001),
    "linear": lambda L, o: L.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=8),
    "linear_default": lambda L, o: L.LinearLR(o),
    "warmup_cosine": lambda L, o: L.SequentialLR(
        o,
        [
            L.LinearLR(o, start_factor=0.01, total_iters=5),
            L.CosineAnnealingLR(o, T_max=20, eta_min=1e-3),
        ],
        milestones=[5],
    ),
    "three_phases": lambda L, o: L.SequentialLR(
        o,
        [L.LinearLR(o, 0.5, total_iters=3), L.StepLR(o, 2, 0.5), L.CosineAnnealingLR(o, 6)],
        milestones=[4, 9],
    ),
}


def _lrs(lib, make, steps, torch=None):
    if lib == "torch":
        ps = [torch.nn.Parameter(torch.zeros(1)) for _ in range(2)]
        opt = torch.optim.SGD([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.3}], lr=0.1)
        sched = make(torch.optim.lr_scheduler, opt)
    else:
        ps = [nn.Parameter(mg.zeros(1)) for _ in range(2)]
        opt = optim.SGD([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.3}], lr=0.1)
        sched = make(optim.lr_scheduler, opt)
    seq = [[g["lr"] for g in opt.param_groups]]
    last = [list(sched.get_last_lr())]
    for _ in range(steps):
        opt.step()
        sched.step()
        seq.append([g["lr"] for g in opt.param_groups])
        last.append(list(sched.get_last_lr()))
    return np.array(seq), np.array(last)


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_lr_sequence_matches_pytorch(torch, name):
    mine, mine_last = _lrs("mg", SCHEDULES[name], 45)
    theirs, theirs_last = _lrs("torch", SCHEDULES[name], 45, torch)
    np.testing.assert_allclose(mine, theirs, rtol=1e-14, atol=0)
    np.testing.assert_allclose(mine_last, theirs_last, rtol=1e-14, atol=0)
    np.testing.assert_array_equal(mine, mine_last)


def test_cosine_endpoints_and_warmup_shape():
    p = nn.Parameter(mg.zeros(1))
    opt = optim.SGD([p], lr=1.0)
    sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.0)
    lrs = [opt.param_groups[0]["lr"]]
    for _ in range(4):
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    np.testing.assert_allclose(
        lrs, [(1 + math.cos(math.pi * t / 4)) / 2 for t in range(5)], atol=1e-15
    )


@pytest.mark.parametrize("name", ["step", "cosine", "linear", "warmup_cosine", "lambda"])
def test_resume_from_state_dict(name):
    make = SCHEDULES[name]

    def fresh():
        ps = [nn.Parameter(mg.zeros(1)) for _ in range(2)]
        opt = optim.SGD([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.3}], lr=0.1)
        return opt, make(optim.lr_scheduler, opt)

    opt, sched = fresh()
    for _ in range(12):
        opt.step()
        sched.step()
    saved_opt, saved_sched = opt.state_dict(), sched.state_dict()
    expected = []
    for _ in range(15):
        sched.step()
        expected.append(sched.get_last_lr())

    opt2, sched2 = fresh()
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(saved_sched)
    got = []
    for _ in range(15):
        sched2.step()
        got.append(sched2.get_last_lr())
    assert got == expected


def test_lambda_state_dict_leaves_out_functions_and_keeps_callable_objects():
    class Factor:
        def __init__(self):
            self.base = 0.5

        def __call__(self, epoch):
            return self.base**epoch

    p = nn.Parameter(mg.zeros(1))
    opt = optim.SGD([{"params": [p]}, {"params": [nn.Parameter(mg.zeros(1))]}], lr=1.0)
    obj = Factor()
    sched = optim.lr_scheduler.LambdaLR(opt, [lambda e: 1.0, obj])
    sd = sched.state_dict()
    assert sd["lr_lambdas"] == [None, {"base": 0.5}]
    obj.base = 0.1
    sched.load_state_dict(sd)
    assert obj.base == 0.5


def test_state_dict_holds_plain_values_only():
    p = nn.Parameter(mg.zeros(1))
    opt = optim.SGD([p], lr=1.0)
    sd = SCHEDULES["warmup_cosine"](optim.lr_scheduler, opt).state_dict()

    def plain(v):
        if isinstance(v, dict):
            return all(isinstance(k, str) and plain(x) for k, x in v.items())
        if isinstance(v, (list, tuple)):
            return all(plain(x) for x in v)
        return v is None or isinstance(v, (int, float, str, bool))

    assert plain(sd)


def test_errors():
    p = nn.Parameter(mg.zeros(1))
    opt = optim.SGD([p], lr=1.0)
    with pytest.raises(ValueError, match="start_factor|Starting"):
        optim.lr_scheduler.LinearLR(opt, start_factor=0.0)
    with pytest.raises(ValueError, match="milestone"):
        a = optim.lr_scheduler.StepLR(opt, 2)
        optim.lr_scheduler.SequentialLR(opt, [a], milestones=[3])
    with pytest.raises(KeyError, match="initial_lr"):
        optim.lr_scheduler.StepLR(optim.SGD([p], lr=1.0), 2, last_epoch=3)
    with pytest.raises(TypeError, match="not an Optimizer"):
        optim.lr_scheduler.StepLR(object(), 2)
