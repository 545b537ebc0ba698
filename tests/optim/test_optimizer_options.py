"""PyTorch's implementation options (``foreach``, ``fused``, ``capturable``,
``differentiable``), taken in one place by the Optimizer base class: each optimizer takes
exactly the ones its PyTorch namesake takes, records them in its parameter groups as
PyTorch does, gives the same numbers whatever their value, and refuses what a CPU cannot
do with PyTorch's exception classes."""

import inspect

import numpy as np
import pytest
from optim_parity import assert_params_close, run_both

import minigrad as mg
import minigrad.nn as nn
from minigrad.optim.optimizer import IMPLEMENTATION_OPTIONS, TAKES_OPTIONS

OPTIONS = tuple(IMPLEMENTATION_OPTIONS)


def _torch_optimizers(torch):
    return {
        name: cls
        for name, cls in vars(torch.optim).items()
        if isinstance(cls, type)
        and issubclass(cls, torch.optim.Optimizer)
        and cls is not torch.optim.Optimizer
        and name != "SparseAdam"  # sparse gradients: unsupported.json
    }


def test_each_optimizer_takes_the_options_its_pytorch_namesake_takes(torch):
    for name, theirs in _torch_optimizers(torch).items():
        ours = getattr(mg.optim, name)
        t_sig, m_sig = inspect.signature(theirs).parameters, inspect.signature(ours).parameters
        for n in OPTIONS:
            if n in t_sig:
                assert m_sig[n].default == t_sig[n].default, (name, n)
        assert set(m_sig) == set(t_sig), (name, set(m_sig) ^ set(t_sig))
        assert set(TAKES_OPTIONS.get(name, ())) == {n for n in OPTIONS if n in t_sig}, name


def test_parameter_groups_have_pytorchs_keys(torch):
    for name, theirs in _torch_optimizers(torch).items():
        if name in ("LBFGS", "Muon"):
            continue  # their groups hold what their own signatures set
        lr = {"lr": 0.01}
        tp = torch.nn.Parameter(torch.ones(2, 2))
        mp = nn.Parameter(mg.ones(2, 2))
        t_keys = set(theirs([tp], **lr).param_groups[0])
        m_keys = set(getattr(mg.optim, name)([mp], **lr).param_groups[0])
        assert m_keys == t_keys, (name, m_keys ^ t_keys)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
@pytest.mark.parametrize("option", [{"fused": True}, {"foreach": True}, {"fused": False}])
def test_fused_and_foreach_give_the_same_numbers(torch, name, option):
    """Against PyTorch run with the same option (its fused CPU kernels included)."""
    kwargs = {"lr": 0.05, **option}
    if name == "SGD":
        kwargs["momentum"] = 0.9
    mp, tp, mopt, topt = run_both(
        torch, getattr(mg.optim, name), getattr(torch.optim, name), kwargs, dtype=np.float32
    )
    assert_params_close(mp, tp, rtol=2e-6, atol=2e-6)
    assert mopt.param_groups[0]["fused"] == topt.param_groups[0]["fused"]
    assert mopt.param_groups[0]["foreach"] == topt.param_groups[0]["foreach"]


def test_adam_decoupled_weight_decay_is_adamw(torch):
    kwargs = {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}
    mp, tp, _, _ = run_both(torch, mg.optim.Adam, torch.optim.Adam, kwargs)
    assert_params_close(mp, tp, rtol=1e-12, atol=1e-12)
    mw, _, _, _ = run_both(
        torch, mg.optim.AdamW, torch.optim.AdamW, {"lr": 0.05, "weight_decay": 0.1}
    )
    assert_params_close(mp, [m.detach() for m in mw], rtol=0, atol=0)


def test_what_a_cpu_cannot_do_is_refused_with_pytorchs_classes(torch):
    p = nn.Parameter(mg.ones(3))
    with pytest.raises(RuntimeError, match="cannot be `True` together"):
        mg.optim.AdamW([p], fused=True, foreach=True)
    with pytest.raises(RuntimeError, match="does not support `differentiable`"):
        mg.optim.SGD([p], lr=0.1, fused=True, differentiable=True)
    with pytest.raises(AssertionError, match="capturable=True"):
        mg.optim.Adam([p], capturable=True)
    with pytest.raises(RuntimeError, match="differentiable=True"):
        mg.optim.RMSprop([p], differentiable=True)
    with pytest.raises(RuntimeError, match="floating point"):
        mg.optim.SGD([mg.ones(2, dtype=mg.int64)], lr=0.1, fused=True)
    with pytest.raises(TypeError, match="fused"):
        mg.optim.RMSprop([p], fused=False)  # PyTorch's RMSprop has no fused either
    # PyTorch accepts capturable with fused on the CPU
    assert mg.optim.Adam([p], capturable=True, fused=True).param_groups[0]["capturable"]


def test_build_nanogpts_fused_probe_finds_the_option():
    """``'fused' in inspect.signature(torch.optim.AdamW).parameters`` (build-nanogpt)."""
    assert "fused" in inspect.signature(mg.optim.AdamW).parameters
    model = nn.Linear(3, 2)
    opt = mg.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95), eps=1e-8, fused=True)
    model(mg.ones(1, 3)).sum().backward()
    opt.step()
    assert opt.param_groups[0]["fused"] is True


def test_options_survive_a_state_dict_round_trip_with_pytorch(torch):
    tp = torch.nn.Parameter(torch.ones(2))
    topt = torch.optim.AdamW([tp], lr=0.1, fused=True)
    tp.grad = torch.ones(2)
    topt.step()
    mp = nn.Parameter(mg.ones(2))
    mopt = mg.optim.AdamW([mp], lr=0.1)
    sd = topt.state_dict()
    mopt.load_state_dict(
        {
            "state": {k: {n: np.asarray(v) for n, v in s.items()} for k, s in sd["state"].items()},
            "param_groups": sd["param_groups"],
        }
    )
    assert mopt.param_groups[0]["fused"] is True and mopt.state[mp]["step"] == 1
    back = mopt.state_dict()["param_groups"][0]
    assert {k for k in back if k != "params"} == {k for k in sd["param_groups"][0] if k != "params"}
