"""StepLR with what PyTorch accepts for step_size (the tutorial's 1.0) and OneCycleLR,
against PyTorch's rates and momenta step by step."""

import numpy as np
import pytest

import minigrad as mg


def _pair(torch, opt_name, **kw):
    ours = getattr(mg.optim, opt_name)([mg.nn.Parameter(mg.zeros(2))], lr=0.1, **kw)
    theirs = getattr(torch.optim, opt_name)([torch.nn.Parameter(torch.zeros(2))], lr=0.1, **kw)
    return ours, theirs


@pytest.mark.parametrize("step_size", [1.0, 2, 2.5])
def test_step_lr_float_step_size(torch, step_size):
    ours, theirs = _pair(torch, "SGD")
    s_m = mg.optim.lr_scheduler.StepLR(ours, step_size, gamma=0.95)
    s_t = torch.optim.lr_scheduler.StepLR(theirs, step_size, gamma=0.95)
    for _ in range(8):
        ours.step()
        theirs.step()
        s_m.step()
        s_t.step()
        np.testing.assert_allclose(s_m.get_last_lr(), s_t.get_last_lr(), rtol=1e-12)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), True, "1"])
def test_step_lr_rejects_what_cannot_work(bad):
    opt = mg.optim.SGD([mg.nn.Parameter(mg.zeros(2))], lr=0.1)
    with pytest.raises(ValueError, match="StepLR: step_size must be a positive number"):
        mg.optim.lr_scheduler.StepLR(opt, bad)


CYCLES = [
    dict(max_lr=1.0, total_steps=20),
    dict(max_lr=0.5, epochs=3, steps_per_epoch=4, pct_start=0.25, anneal_strategy="linear"),
    dict(max_lr=0.5, total_steps=15, three_phase=True, div_factor=10, final_div_factor=100),
    dict(max_lr=0.2, total_steps=10, cycle_momentum=False),
]


@pytest.mark.parametrize("opt_name,kw", [("SGD", {"momentum": 0.9}), ("AdamW", {})])
@pytest.mark.parametrize("cycle", CYCLES)
def test_one_cycle_matches_torch(torch, opt_name, kw, cycle):
    ours, theirs = _pair(torch, opt_name, **kw)
    s_m = mg.optim.lr_scheduler.OneCycleLR(ours, **cycle)
    s_t = torch.optim.lr_scheduler.OneCycleLR(theirs, **cycle)
    key = "momentum" if opt_name == "SGD" else "betas"
    total = cycle.get("total_steps") or cycle["epochs"] * cycle["steps_per_epoch"]
    for _ in range(total - 1):
        np.testing.assert_allclose(s_m.get_last_lr(), s_t.get_last_lr(), rtol=1e-10)
        np.testing.assert_allclose(
            np.ravel(ours.param_groups[0][key]), np.ravel(theirs.param_groups[0][key]), rtol=1e-10
        )
        ours.step()
        theirs.step()
        s_m.step()
        s_t.step()
    with pytest.raises(ValueError, match=f"Tried to step {total + 1} times"):
        s_m.step()
        s_m.step()


def test_one_cycle_errors():
    opt = mg.optim.SGD([mg.nn.Parameter(mg.zeros(2))], lr=0.1)
    with pytest.raises(ValueError, match="must define either total_steps OR"):
        mg.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0)
    with pytest.raises(ValueError, match="expected a positive int total_steps"):
        mg.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=0)
    with pytest.raises(ValueError, match="anneal_strategy must be 'cos' or 'linear'"):
        mg.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=5, anneal_strategy="x")
