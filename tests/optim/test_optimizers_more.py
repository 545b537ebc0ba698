"""RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, ASGD and Rprop against PyTorch's, from
one table: the same parameters fed the same gradients for several steps (float64 and
float32), then the parameters, the state's names, and a state_dict round trip. Without
PyTorch: each rule by hand for one step, and the usual option checks; every optimizer's
negative-hyperparameter errors against PyTorch's."""

import inspect

import numpy as np
import pytest

import minigrad as mg
import minigrad.optim as optim

CASES = [
    ("RMSprop", {}),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)),
    ("Adagrad", {}),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.05, initial_accumulator_value=0.3)),
    ("Adadelta", {}),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1)),
    ("Adamax", {}),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1)),
    ("NAdam", {}),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", {}),
    ("RAdam", dict(lr=0.01, betas=(0.5, 0.6), weight_decay=0.1)),
    ("RAdam", dict(weight_decay=0.1, decoupled_weight_decay=True)),
    ("ASGD", {}),
    ("ASGD", dict(lr=0.05, t0=2, lambd=0.01, weight_decay=0.1)),
    ("Adafactor", {}),
    ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=1.5, weight_decay=0.1)),
    ("Rprop", {}),
    ("Rprop", dict(lr=0.1, etas=(0.3, 1.5), step_sizes=(0.01, 0.2))),
]
STEPS = 8
#: PyTorch keeps NAdam's mu_product and ASGD's eta and mu as float32 0-d tensors even for
#: float64 parameters; minigrad keeps them as Python floats (the documented rule, exactly),
#: so in float64 these two agree to float32 rounding of a scalar coefficient, not to 1e-10.
SCALAR_STATE_IN_FLOAT32 = {"NAdam", "ASGD"}


def _tolerance(name, dtype):
    if dtype == np.float32:
        return dict(rtol=2e-5, atol=2e-6)
    if name in SCALAR_STATE_IN_FLOAT32:
        return dict(rtol=1e-7, atol=1e-9)
    return dict(rtol=1e-10, atol=1e-12)


def _gradients(rng, shapes):
    # Signs flip now and then, so Rprop's shrink branch and RAdam's rectified branch run.
    return [[rng.standard_normal(s) for s in shapes] for _ in range(STEPS)]


def _run(lib, name, kwargs, start, grads, dtype, maximize=False):
    params = [lib.tensor(a.astype(dtype), requires_grad=True) for a in start]
    opt = getattr(lib.optim, name)(params, maximize=maximize, **kwargs)
    for step in grads:
        for p, g in zip(params, step):
            p.grad = lib.tensor(g.astype(dtype))
        opt.step()
    return params, opt


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matches_pytorch(torch, rng, name, kwargs, dtype):
    shapes = [(3, 4), (4,)]
    start = [rng.standard_normal(s) for s in shapes]
    grads = _gradients(rng, shapes)
    tp, topt = _run(torch, name, kwargs, start, grads, dtype)
    mp, mopt = _run(mg, name, kwargs, start, grads, dtype)
    tol = _tolerance(name, dtype)
    for t, m in zip(tp, mp):
        np.testing.assert_allclose(m.numpy(), t.detach().numpy(), **tol)
    tstate, mstate = topt.state_dict(), mopt.state_dict()
    assert sorted(mstate["state"][0]) == sorted(tstate["state"][0])
    for key, value in tstate["state"][0].items():
        if key != "step" and value.ndim:
            np.testing.assert_allclose(mstate["state"][0][key], value.numpy(), **tol)


@pytest.mark.parametrize("name", sorted({n for n, _ in CASES}))
def test_maximize_matches_pytorch(torch, rng, name):
    start = [rng.standard_normal((2, 3))]
    grads = _gradients(rng, [(2, 3)])
    (t,), _ = _run(torch, name, {}, start, grads, np.float64, maximize=True)
    (m,), _ = _run(mg, name, {}, start, grads, np.float64, maximize=True)
    np.testing.assert_allclose(m.numpy(), t.detach().numpy(), **_tolerance(name, np.float64))


@pytest.mark.parametrize("name,kwargs", CASES[::2], ids=[n for n, _ in CASES[::2]])
def test_state_dict_round_trip_resumes_exactly(rng, name, kwargs):
    shapes = [(3, 2)]
    start = [rng.standard_normal(s) for s in shapes]
    grads = _gradients(rng, shapes)
    (whole,), _ = _run(mg, name, kwargs, start, grads, np.float64)
    (half,), opt = _run(mg, name, kwargs, start, grads[:4], np.float64)
    resumed = mg.tensor(half.numpy().copy(), requires_grad=True)
    opt2 = getattr(optim, name)([resumed], **kwargs)
    opt2.load_state_dict(opt.state_dict())
    for (g,) in grads[4:]:
        resumed.grad = mg.tensor(g)
        opt2.step()
    np.testing.assert_array_equal(resumed.numpy(), whole.numpy())


def test_one_step_by_hand():
    p0, g = np.array([1.0, -2.0]), np.array([0.5, 0.25])

    def step(name, **kw):
        p = mg.tensor(p0.copy(), requires_grad=True)
        p.grad = mg.tensor(g)
        getattr(optim, name)([p], **kw).step()
        return p.numpy()

    v = 0.01 * g**2  # RMSprop, alpha 0.99
    np.testing.assert_allclose(step("RMSprop", lr=0.1), p0 - 0.1 * g / (np.sqrt(v) + 1e-8))
    np.testing.assert_allclose(step("Adagrad", lr=0.1), p0 - 0.1 * g / (np.abs(g) + 1e-10))
    np.testing.assert_allclose(step("Adamax", lr=0.1), p0 - 0.1 * np.sign(g), rtol=1e-6)
    np.testing.assert_allclose(step("Rprop", lr=0.1), p0 - 0.1 * np.sign(g))
    np.testing.assert_allclose(step("RAdam", lr=0.1), p0 - 0.1 * g)  # not yet rectified


@pytest.mark.parametrize(
    "make",
    [
        lambda p: optim.RMSprop(p, lr=-1),
        lambda p: optim.Adagrad(p, eps=-1),
        lambda p: optim.Adadelta(p, rho=1.5),
        lambda p: optim.Adamax(p, betas=(1.0, 0.9)),
        lambda p: optim.NAdam(p, momentum_decay=-1),
        lambda p: optim.RAdam(p, weight_decay=-0.1),
        lambda p: optim.Rprop(p, etas=(1.5, 1.2)),
        lambda p: optim.ASGD(p, lr=-0.1),
    ],
)
def test_bad_options_are_value_errors(make):
    with pytest.raises(ValueError):
        make([mg.zeros(2, requires_grad=True)])


def _numeric_hyperparameters():
    """(optimizer name, hyperparameter) for every numeric argument of every optimizer."""
    cases = []
    for name in optim.__all__:
        cls = getattr(optim, name)
        if (
            isinstance(cls, type)
            and issubclass(cls, optim.Optimizer)
            and cls is not optim.Optimizer
        ):
            for arg, p in inspect.signature(cls).parameters.items():
                if isinstance(p.default, (int, float)) and not isinstance(p.default, bool):
                    cases.append((name, arg))
    return cases


@pytest.mark.parametrize("name, arg", _numeric_hyperparameters())
def test_a_negative_hyperparameter_is_refused_as_pytorch_refuses_it(torch, name, arg):
    def outcome(lib):
        params = [lib.zeros(2, 2, requires_grad=True)]
        try:
            getattr(lib.optim, name)(params, **{arg: -1})
        except Exception as e:
            return type(e).__name__, str(e)
        return "accepted"

    assert outcome(mg) == outcome(torch)
