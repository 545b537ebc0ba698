"""LBFGS against PyTorch's on the same problems (Rosenbrock, least squares with two
parameters): parameters and losses after several ``step(closure)`` calls, in float64;
and without PyTorch: convergence on a quadratic, the stop rules, the errors."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.optim as optim


def _rosenbrock(lib, xy):
    return (1 - xy[0]) ** 2 + 100 * (xy[1] - xy[0] ** 2) ** 2


def _least_squares(lib, w, b, data):
    a, y = data
    return ((lib.tensor(a) @ w + b - lib.tensor(y)) ** 2).mean()


def _run(lib, problem, kwargs, steps, rng_seed=0):
    rng = np.random.default_rng(rng_seed)
    if problem == "rosenbrock":
        params = [lib.tensor(np.array([-1.2, 1.0]), requires_grad=True)]

        def f():
            return _rosenbrock(lib, params[0])
    else:
        a, y = rng.standard_normal((20, 3)), rng.standard_normal(20)
        params = [
            lib.tensor(np.zeros(3), requires_grad=True),
            lib.tensor(np.zeros(()), requires_grad=True),
        ]

        def f():
            return _least_squares(lib, params[0], params[1], (a, y))

    opt = lib.optim.LBFGS(params, **kwargs)

    def closure():
        opt.zero_grad()
        loss = f()
        loss.backward()
        return loss

    losses = [float(opt.step(closure)) for _ in range(steps)]
    return [p.detach().numpy().copy() for p in params], losses


@pytest.mark.parametrize(
    "problem,kwargs",
    [
        ("rosenbrock", dict(lr=0.1, max_iter=5)),
        ("rosenbrock", dict(lr=0.5, history_size=3, max_iter=7)),
        ("least_squares", dict(lr=1.0)),
        ("least_squares", dict(lr=0.3, max_iter=4, max_eval=3, tolerance_change=1e-4)),
    ],
)
def test_matches_pytorch(torch, problem, kwargs):
    tp, tl = _run(torch, problem, kwargs, steps=4)
    mp, ml = _run(mg, problem, kwargs, steps=4)
    np.testing.assert_allclose(ml, tl, rtol=1e-9)
    for m, t in zip(mp, tp):
        np.testing.assert_allclose(m, t, rtol=1e-9, atol=1e-12)


def test_converges_on_least_squares():
    (w, b), losses = _run(mg, "least_squares", dict(lr=1.0, max_iter=50), steps=3)
    rng = np.random.default_rng(0)
    a, y = rng.standard_normal((20, 3)), rng.standard_normal(20)
    design = np.hstack([a, np.ones((20, 1))])
    best = np.linalg.lstsq(design, y, rcond=None)[0]
    np.testing.assert_allclose(np.append(w, b), best, atol=1e-6)


def test_errors():
    p = mg.zeros(2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="strong_wolfe"):
        optim.LBFGS([p], line_search_fn="strong_wolfe")
    with pytest.raises(ValueError):
        optim.LBFGS([p], line_search_fn="armijo")
    with pytest.raises(ValueError, match="parameter groups"):
        optim.LBFGS([{"params": [p]}, {"params": [mg.zeros(1, requires_grad=True)]}])
    with pytest.raises(RuntimeError, match="closure"):
        optim.LBFGS([p]).step(None)
