"""autograd.functional (jacobian, hessian, vjp, jvp, vhp, hvp) against
torch.autograd.functional on the same functions (one or two inputs and outputs), and
without PyTorch against closed forms; Variable and the other autograd names."""

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import Variable
from minigrad.autograd import functional as AF

FUNCS = {
    # name: (function of (lib, *inputs), input shapes, scalar output?)
    "square_sum": (lambda lib, x: (x**3).sum() + (x[0] * x[1]), [(3,)], True),
    "matrix": (lambda lib, x: x.tanh() @ x.T, [(2, 3)], False),
    "two_inputs": (
        lambda lib, x, y: (x.exp() * y).sum() + (x * y * y).sum(),
        [(2, 2), (2, 2)],
        True,
    ),
    "two_outputs": (lambda lib, x, y: (x * y, x.sigmoid() + y), [(3,), (3,)], False),
    "unused_input": (lambda lib, x, y: (x**2).sum(), [(2,), (2,)], True),
}


def _inputs(lib, rng, shapes):
    return tuple(lib.tensor(rng.standard_normal(s)) for s in shapes)


def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
        return
    np.testing.assert_allclose(np.asarray(a.numpy()), b.detach().numpy(), rtol=1e-10, atol=1e-12)


def _call(lib, name, what, rng_seed, **kw):
    fn, shapes, _ = FUNCS[name]
    rng = np.random.default_rng(rng_seed)
    xs = _inputs(lib, rng, shapes)
    single = len(xs) == 1
    inputs = xs[0] if single else xs
    functional = mg.autograd.functional if lib is mg else lib.autograd.functional

    def f(*ys):
        return fn(lib, *ys)

    if what in ("vjp", "jvp", "vhp", "hvp"):
        out = f(*xs)
        like = (out if isinstance(out, tuple) else (out,)) if what == "vjp" else xs
        if what == "vjp" and FUNCS[name][2]:
            v = None
        else:
            vs = tuple(lib.tensor(rng.standard_normal(tuple(t.shape))) for t in like)
            v = vs[0] if len(vs) == 1 else vs
        return getattr(functional, what)(f, inputs, v, **kw)
    return getattr(functional, what)(f, inputs, **kw)


#: (function, operation) pairs: the second-order operations only for scalar functions.
CASES = [
    (name, what)
    for name in sorted(FUNCS)
    for what in ("jacobian", "hessian", "vjp", "jvp", "vhp", "hvp")
    if FUNCS[name][2] or what not in ("hessian", "vhp", "hvp")
]


@pytest.mark.parametrize("name, what", CASES)
def test_matches_pytorch(torch, name, what):
    _same(_call(mg, name, what, 5), _call(torch, name, what, 5))


def test_closed_forms():
    x = mg.tensor([1.0, 2.0, -1.0], dtype=mg.float64)
    np.testing.assert_allclose(AF.jacobian(lambda t: t**2, x).numpy(), np.diag(2 * x.numpy()))
    np.testing.assert_allclose(
        AF.hessian(lambda t: (t**3).sum(), x).numpy(), np.diag(6 * x.numpy())
    )
    v = mg.tensor([1.0, 0.0, 2.0], dtype=mg.float64)
    out, jv = AF.jvp(lambda t: t.exp(), x, v)
    np.testing.assert_allclose(jv.numpy(), np.exp(x.numpy()) * v.numpy())
    _, hv = AF.hvp(lambda t: (t**3).sum(), x, v)
    np.testing.assert_allclose(hv.numpy(), 6 * x.numpy() * v.numpy())
    assert not out.requires_grad and not jv.requires_grad


def test_create_graph_keeps_results_differentiable():
    x = mg.tensor([0.5, 1.5], dtype=mg.float64, requires_grad=True)
    j = AF.jacobian(lambda t: t**3, x, create_graph=True)
    assert j.requires_grad
    j.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * x.numpy())


def test_strict_and_bad_v_raise_runtime_errors():
    x, y = mg.ones(2, dtype=mg.float64), mg.ones(2, dtype=mg.float64)
    with pytest.raises(RuntimeError, match="independent of input 1"):
        AF.jacobian(lambda a, b: a * 2, (x, y), strict=True)
    with pytest.raises(RuntimeError, match="single element"):
        AF.vjp(lambda a: a * 2, x)
    with pytest.raises(RuntimeError, match="single element"):
        AF.hessian(lambda a: a * 2, x)


def test_variable_is_every_tensor():
    t = mg.ones(2)
    v = Variable(t, requires_grad=True)
    assert isinstance(t, Variable) and v.requires_grad and v.is_leaf and v is not t
    assert np.shares_memory(v.numpy(), t.numpy())
    assert mg.autograd.inference_mode is mg.inference_mode


def test_multithreading_switch_is_restored():
    assert mg.autograd.is_multithreading_enabled()
    with mg.autograd.set_multithreading_enabled(False):
        assert not mg.autograd.is_multithreading_enabled()
    assert mg.autograd.is_multithreading_enabled()
