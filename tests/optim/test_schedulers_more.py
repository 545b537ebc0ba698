"""The schedulers of optim/lr_scheduler.py against PyTorch's: the learning rates (and the
momentum, for CyclicLR) of two parameter groups over many steps; step(epoch) jumps; a
state_dict resume; ReduceLROnPlateau fed the same metrics. Without PyTorch: hand-worked
sequences and the option checks."""

import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.optim as optim

L = optim.lr_scheduler

SCHEDULES = {
    "exponential": lambda L, o: L.ExponentialLR(o, gamma=0.8),
    "multistep": lambda L, o: L.MultiStepLR(o, milestones=[3, 7, 7, 12], gamma=0.5),
    "constant": lambda L, o: L.ConstantLR(o, factor=0.25, total_iters=4),
    "multiplicative": lambda L, o: L.MultiplicativeLR(o, lambda e: 0.9 if e % 2 else 1.01),
    "polynomial": lambda L, o: L.PolynomialLR(o, total_iters=9, power=2.0),
    "warm_restarts": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01),
    "warm_restarts_t1": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=4),
    "cyclic": lambda L, o: L.CyclicLR(o, 0.01, [0.1, 0.2], step_size_up=3, step_size_down=5),
    "cyclic2": lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=2, mode="triangular2"),
    "cyclic_exp": lambda L, o: L.CyclicLR(o, 0.01, 0.1, 3, mode="exp_range", gamma=0.9),
    "chained": lambda L, o: L.ChainedScheduler(
        [L.ConstantLR(o, factor=0.1, total_iters=2), L.ExponentialLR(o, gamma=0.9)]
    ),
}
STEPS = 25


def _optimizer(lib, name="SGD", **kw):
    ps = [lib.zeros(1, requires_grad=True) for _ in range(2)]
    groups = [{"params": ps[:1]}, {"params": ps[1:], "lr": 0.3}]
    return getattr(lib.optim, name)(groups, lr=0.1, **kw)


def _history(lib, make, opt_name="SGD", **kw):
    opt = _optimizer(lib, opt_name, **kw)
    sched = make(lib.optim.lr_scheduler, opt)
    out = []
    for _ in range(STEPS):
        opt.step()
        sched.step()
        out.append(
            [g["lr"] for g in opt.param_groups]
            + [g.get("momentum", g.get("betas", (0,))[0]) for g in opt.param_groups]
        )
    return out, sched.get_last_lr()


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_matches_pytorch(torch, name):
    kw = {"momentum": 0.9}
    t, t_last = _history(torch, SCHEDULES[name], **kw)
    m, m_last = _history(mg, SCHEDULES[name], **kw)
    np.testing.assert_allclose(m, t, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(m_last, t_last, rtol=1e-12)


def test_cyclic_cycles_adams_beta1_like_pytorch(torch):
    make = SCHEDULES["cyclic"]
    t, _ = _history(torch, make, "Adam")
    m, _ = _history(mg, make, "Adam")
    np.testing.assert_allclose(m, t, rtol=1e-12)


@pytest.mark.parametrize("epochs", [[0.5, 1.25, 2.0, 3.5, 7.0, 9.99, 21.0], [5, 1, 13]])
def test_warm_restarts_step_to_fractional_epochs_like_pytorch(torch, epochs):
    got = []
    for lib in (torch, mg):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=3)
        seq = []
        for e in epochs:
            sched.step(e)
            seq.append([g["lr"] for g in opt.param_groups])
        got.append(seq)
    np.testing.assert_allclose(got[1], got[0], rtol=1e-12)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        dict(mode="max", threshold_mode="abs", threshold=0.1, cooldown=2, patience=1),
        dict(factor=0.5, patience=0, min_lr=[0.02, 0.05]),
    ],
)
def test_reduce_on_plateau_matches_pytorch(torch, kw):
    metrics = [
        1.0,
        0.9,
        0.95,
        0.95,
        0.95,
        0.89,
        0.9,
        0.9,
        0.9,
        0.9,
        0.9,
        0.9,
        0.9,
        0.9,
        0.9,
        1.2,
        1.25,
        1.3,
        1.3,
        1.3,
        1.3,
    ] * 2
    seqs = []
    for lib in (torch, mg):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
        seq = []
        for value in metrics:
            sched.step(value)
            seq.append(sched.get_last_lr())
        seqs.append(seq)
    np.testing.assert_allclose(seqs[1], seqs[0], rtol=1e-12)


@pytest.mark.parametrize("name", ["exponential", "multistep", "cyclic", "warm_restarts"])
def test_resume_from_state_dict(name):
    full, _ = _history(mg, SCHEDULES[name])
    opt = _optimizer(mg)
    sched = SCHEDULES[name](L, opt)
    for _ in range(10):
        sched.step()
    state, opt_state = sched.state_dict(), opt.state_dict()
    opt2 = _optimizer(mg)
    opt2.load_state_dict(opt_state)
    sched2 = SCHEDULES[name](L, opt2)
    sched2.load_state_dict(state)
    rest = []
    for _ in range(STEPS - 10):
        sched2.step()
        rest.append([g["lr"] for g in opt2.param_groups])
    np.testing.assert_allclose(rest, [row[:2] for row in full[10:]], rtol=1e-12)


def test_sequences_by_hand():
    opt = _optimizer(mg)
    sched = L.PolynomialLR(opt, total_iters=4, power=1.0)
    lrs = []
    for _ in range(5):
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    np.testing.assert_allclose(lrs, [0.075, 0.05, 0.025, 0.0, 0.0], atol=1e-15)
    opt = _optimizer(mg)
    sched = L.CosineAnnealingWarmRestarts(opt, T_0=2)
    lrs = [opt.param_groups[0]["lr"]]
    for _ in range(3):
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    np.testing.assert_allclose(lrs, [0.1, 0.05 * (1 + math.cos(math.pi / 2)), 0.1, 0.05])
    opt = _optimizer(mg)
    plateau = L.ReduceLROnPlateau(opt, patience=1)
    for value in [1.0, 1.0, 1.0]:
        plateau.step(value)
    assert plateau.get_last_lr() == pytest.approx([0.01, 0.03])


@pytest.mark.parametrize(
    "make",
    [
        lambda o: L.ConstantLR(o, factor=2.0),
        lambda o: L.CosineAnnealingWarmRestarts(o, T_0=0),
        lambda o: L.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
        lambda o: L.CyclicLR(o, 0.1, 1.0, mode="sawtooth"),
        lambda o: L.CyclicLR(optim.Adagrad([mg.zeros(1, requires_grad=True)]), 0.1, 1.0),
        lambda o: L.ReduceLROnPlateau(o, factor=1.0),
        lambda o: L.ReduceLROnPlateau(o, mode="middle"),
        lambda o: L.MultiplicativeLR(o, [lambda e: 1.0]),
        lambda o: L.ChainedScheduler([]),
    ],
)
def test_bad_options_are_value_errors(make):
    with pytest.raises(ValueError):
        make(_optimizer(mg, momentum=0.9))
