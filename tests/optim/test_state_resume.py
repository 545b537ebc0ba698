"""Every optimizer and every learning-rate scheduler resumes from its state_dict.

The classes are enumerated from ``minigrad.optim`` (an optimizer or scheduler added
without a case here fails ``test_every_class_has_a_case``). For each: run 4 steps, save the
state (``state_dict``, also through ``mg.save`` / ``mg.load``), build a fresh one over
copies of the parameters, load, run 4 more; the result must be the uninterrupted run's,
bit for bit. With PyTorch: the uninterrupted run is PyTorch's, and the state loaded may
be PyTorch's own. Two parameter groups, and a parameter left without a gradient now and
then, so that the state's parameter numbering is exercised.
"""

import copy
import inspect
import io
import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.optim as optim
from minigrad.optim.scheduler_base import LRScheduler

OPTIMIZERS = {
    "SGD": dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1),
    "Adam": dict(amsgrad=True, weight_decay=0.1),
    "AdamW": dict(lr=0.01),
    "ASGD": dict(t0=2, lambd=0.01),
    "LBFGS": dict(lr=0.5, max_iter=3, history_size=3),
    "Muon": dict(lr=0.02),
    "Adadelta": dict(weight_decay=0.1),
    "Adafactor": dict(lr=0.05),
    "Adagrad": dict(lr_decay=0.01, initial_accumulator_value=0.1),
    "Adamax": dict(weight_decay=0.1),
    "NAdam": dict(momentum_decay=0.01),
    "RAdam": dict(lr=0.01),
    "RMSprop": dict(momentum=0.9, centered=True),
    "Rprop": dict(lr=0.1),
}
#: PyTorch keeps NAdam's mu_product and ASGD's eta and mu as float32 0-d tensors even for
#: float64 parameters (tests/optim/test_optimizers_more.py); Muon orthogonalizes in bfloat16.
PYTORCH_TOLERANCE = {"NAdam": 1e-7, "ASGD": 1e-7}
STEPS, SAVED_AT = 8, 4


def _schedulers(lib):
    L = lib.optim.lr_scheduler
    return {
        "StepLR": lambda o: L.StepLR(o, 3, gamma=0.5),
        "LambdaLR": lambda o: L.LambdaLR(o, lambda e: 0.9**e),
        "MultiplicativeLR": lambda o: L.MultiplicativeLR(o, lambda e: 0.9),
        "CosineAnnealingLR": lambda o: L.CosineAnnealingLR(o, 7, eta_min=0.001),
        "LinearLR": lambda o: L.LinearLR(o, 0.2, 1.0, total_iters=5),
        "ExponentialLR": lambda o: L.ExponentialLR(o, 0.8),
        "MultiStepLR": lambda o: L.MultiStepLR(o, [2, 5, 9], 0.3),
        "ConstantLR": lambda o: L.ConstantLR(o, 0.3, total_iters=6),
        "PolynomialLR": lambda o: L.PolynomialLR(o, 8, 2.0),
        "CosineAnnealingWarmRestarts": lambda o: L.CosineAnnealingWarmRestarts(o, 3, 2, 0.01),
        "CyclicLR": lambda o: L.CyclicLR(o, 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.9),
        "OneCycleLR": lambda o: L.OneCycleLR(o, 1.0, total_steps=20, three_phase=True),
        "SequentialLR": lambda o: L.SequentialLR(
            o, [L.LinearLR(o, 0.1, total_iters=3), L.ExponentialLR(o, 0.9)], milestones=[3]
        ),
        "ChainedScheduler": lambda o: L.ChainedScheduler(
            [L.ConstantLR(o, 0.5, total_iters=4), L.ExponentialLR(o, 0.9)]
        ),
        "ReduceLROnPlateau": lambda o: L.ReduceLROnPlateau(o, patience=1, factor=0.5, cooldown=1),
        "SWALR": lambda o: lib.optim.swa_utils.SWALR(o, swa_lr=0.05, anneal_epochs=4),
    }


SCHEDULERS = list(_schedulers(mg))
METRICS = [5, 4, 4, 4, 3, 3, 3, 3, 2, 2, 2, 2]  # ReduceLROnPlateau's, with plateaus


def test_every_class_has_a_case():
    optimizers = {
        n for n, c in vars(optim).items() if inspect.isclass(c) and issubclass(c, optim.Optimizer)
    }
    assert optimizers - {"Optimizer"} == set(OPTIMIZERS)
    schedulers = {
        n
        for module in (optim.lr_scheduler, optim.swa_utils)
        for n, c in vars(module).items()
        if inspect.isclass(c) and issubclass(c, LRScheduler) and not n.startswith("_")
    }
    assert schedulers - {"LRScheduler"} == set(SCHEDULERS)


# ------------------------------------------------------------------------ optimizers
def _problem(seed=0):
    rng = np.random.default_rng(seed)
    start = [rng.standard_normal((3, 4)), rng.standard_normal((4, 3))]
    grads = [[rng.standard_normal(a.shape) for a in start] for _ in range(STEPS)]
    return start, grads


def _optimizer(lib, name, values):
    params = [lib.nn.Parameter(lib.tensor(np.array(a))) for a in values]
    kwargs = OPTIMIZERS[name]
    if name == "LBFGS":  # one group only
        return params, lib.optim.LBFGS(params, **kwargs)
    groups = [{"params": params[:1]}, {"params": params[1:], "lr": kwargs.get("lr", 0.01) / 2}]
    return params, getattr(lib.optim, name)(groups, **kwargs)


def _steps(lib, name, params, opt, grads, first):
    """Steps ``first``, ``first + 1``, ... fed ``grads``; the second parameter gets no
    gradient on every third step. LBFGS minimizes a fixed quartic through its closure."""
    for i, step in enumerate(grads, start=first):
        if name == "LBFGS":

            def closure(step=step):
                opt.zero_grad()
                loss = sum(
                    ((p - lib.tensor(g)) ** 2).sum() * (1 + j) + (p**4).sum() / 100
                    for j, (p, g) in enumerate(zip(params, step))
                )
                loss.backward()
                return loss

            opt.step(closure)
            continue
        for j, (p, g) in enumerate(zip(params, step)):
            p.grad = None if (j == 1 and i % 3 == 0) else lib.tensor(g)
        opt.step()


def _through_save(state):
    buffer = io.BytesIO()
    mg.save(state, buffer)
    buffer.seek(0)
    return mg.load(buffer)


def _resumed(name, state, values_at_save, grads):
    params, opt = _optimizer(mg, name, values_at_save)
    opt.load_state_dict(state)
    _steps(mg, name, params, opt, grads[SAVED_AT:], SAVED_AT)
    return [p.numpy() for p in params]


def _saved(lib, name, start, grads):
    """A run stopped after ``SAVED_AT`` steps: its parameters' values (copies) and its
    optimizer's state_dict, and the run itself."""
    params, opt = _optimizer(lib, name, start)
    _steps(lib, name, params, opt, grads[:SAVED_AT], 0)
    state = opt.state_dict()
    if lib is not mg:  # PyTorch's state_dict holds the live tensors
        state = copy.deepcopy(state)
    return [p.detach().numpy().copy() for p in params], state, (params, opt)


@pytest.mark.parametrize("via", ["state_dict", "mg.save"])
@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_resumes_exactly(name, via):
    start, grads = _problem()
    whole_params, whole = _optimizer(mg, name, start)
    _steps(mg, name, whole_params, whole, grads, 0)
    values, state, (params, opt) = _saved(mg, name, start, grads)
    if via == "mg.save":
        state = _through_save(state)
    _steps(mg, name, params, opt, grads[SAVED_AT:], SAVED_AT)  # the state saved is a copy
    resumed = _resumed(name, state, values, grads)
    for r, w, p in zip(resumed, whole_params, params):
        np.testing.assert_array_equal(r, w.numpy())
        np.testing.assert_array_equal(p.numpy(), w.numpy())


@pytest.mark.parametrize("source", ["minigrad", "pytorch"])
@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_resumes_on_pytorchs_trajectory(torch, name, source):
    start, grads = _problem()
    t_values, t_state, (tparams, topt) = _saved(torch, name, start, grads)
    _steps(torch, name, tparams, topt, grads[SAVED_AT:], SAVED_AT)
    if source == "pytorch":
        resumed = _resumed(name, t_state, t_values, grads)
    else:
        values, state, _ = _saved(mg, name, start, grads)
        resumed = _resumed(name, _through_save(state), values, grads)
    for r, t, a in zip(resumed, tparams, start):
        t = t.detach().numpy()
        if name == "Muon":  # bfloat16 orthogonalization: agreement in direction and size
            move, t_move = (r - a).ravel(), (t - a).ravel()
            assert np.linalg.norm(move - t_move) < 0.05 * np.linalg.norm(t_move)
            continue
        rtol = PYTORCH_TOLERANCE.get(name, 1e-10)
        np.testing.assert_allclose(r, t, rtol=rtol, atol=rtol / 100)


@pytest.mark.parametrize("name", OPTIMIZERS)
@pytest.mark.parametrize("lr", [math.nan, -0.1])
def test_every_optimizer_refuses_a_bad_learning_rate(name, lr):
    kwargs = {**OPTIMIZERS[name], "lr": lr}
    p = mg.nn.Parameter(mg.zeros(2, 2))
    with pytest.raises(ValueError):
        getattr(optim, name)([p], **kwargs)


def test_lbfgs_state_is_checked_against_the_parameters():
    start, grads = _problem()
    params, opt = _optimizer(mg, "LBFGS", start)
    _steps(mg, "LBFGS", params, opt, grads[:2], 0)
    state = opt.state_dict()
    assert sorted(state["state"][0]) == sorted(
        ["func_evals", "n_iter", "al", "d", "t", "old_dirs", "old_stps", "ro", "H_diag",
         "prev_flat_grad", "prev_loss"]
    )  # fmt: skip
    smaller = mg.optim.LBFGS([mg.nn.Parameter(mg.zeros(3, 4)), mg.nn.Parameter(mg.zeros(4, 2))])
    with pytest.raises(ValueError, match="elements"):
        smaller.load_state_dict(state)


# ------------------------------------------------------------------------ schedulers
def _scheduled(lib, name):
    p = [lib.nn.Parameter(lib.zeros(2)), lib.nn.Parameter(lib.zeros(2))]
    opt = lib.optim.SGD([{"params": p[:1]}, {"params": p[1:], "lr": 0.05}], lr=0.1, momentum=0.9)
    return opt, _schedulers(lib)[name](opt)


def _rates(lib, opt, sched, epochs):
    out = []
    for i in epochs:
        opt.step()
        if isinstance(sched, lib.optim.lr_scheduler.ReduceLROnPlateau):
            sched.step(METRICS[i])
        else:
            sched.step()
        out.append([g[k] for k in ("lr", "momentum") for g in opt.param_groups])
    return out


def _resumed_rates(name, opt_state, sched_state):
    opt, sched = _scheduled(mg, name)
    opt.load_state_dict(opt_state)
    sched.load_state_dict(sched_state)
    return _rates(mg, opt, sched, range(SAVED_AT, len(METRICS)))


@pytest.mark.parametrize("via", ["state_dict", "mg.save"])
@pytest.mark.parametrize("name", SCHEDULERS)
def test_scheduler_resumes_exactly(name, via):
    whole = _rates(mg, *_scheduled(mg, name), range(len(METRICS)))
    opt, sched = _scheduled(mg, name)
    _rates(mg, opt, sched, range(SAVED_AT))
    states = (opt.state_dict(), sched.state_dict())
    if via == "mg.save":
        states = _through_save(states)
    assert _resumed_rates(name, *states) == whole[SAVED_AT:]


@pytest.mark.parametrize("source", ["minigrad", "pytorch"])
@pytest.mark.parametrize("name", SCHEDULERS)
def test_scheduler_resumes_on_pytorchs_rates(torch, name, source):
    t_opt, t_sched = _scheduled(torch, name)
    first = _rates(torch, t_opt, t_sched, range(SAVED_AT))
    opt, sched = _scheduled(torch if source == "pytorch" else mg, name)
    mine = _rates(mg, opt, sched, range(SAVED_AT)) if source == "minigrad" else None
    if source == "pytorch":
        _rates(torch, opt, sched, range(SAVED_AT))
    rest = _rates(torch, t_opt, t_sched, range(SAVED_AT, len(METRICS)))
    resumed = _resumed_rates(name, opt.state_dict(), sched.state_dict())
    if mine is not None:
        np.testing.assert_allclose(mine, first, rtol=1e-12)
    np.testing.assert_allclose(resumed, rest, rtol=1e-12)
