"""Every operation of the OpInfo table (``opinfo.py``) through the same checks.

- ``test_matches_pytorch``: values, dtype and shape on every sample input in every
  dtype the op accepts, and (float64) the gradient of every input, against PyTorch.
- ``test_special_points``: the same at the points where a derivative is special
  (abs at 0, sqrt at 0, a tie of maximum, ...): PyTorch's convention is the answer.
- ``test_gradcheck`` / ``test_gradgradcheck``: finite differences in float64, always
  (with or without PyTorch).
- ``test_backward_array_matches_backward``: the two backwards of the table's Function
  (arrays, and Tensors for create_graph) give the same gradients.
- ``test_inplace_variant``: ``x.op_(...)`` writes ``x.op(...)`` into ``x``.
"""

import math

import numpy as np
import pytest

import minigrad as mg
from tests.functions.opinfo import OPS, sample_inputs

DIFFERENTIABLE = [info for info in OPS if info.differentiable]
BY_DTYPE = [(info, dtype) for info in OPS for dtype in info.dtypes]


def _ids(params):
    return [f"{info.name}-{dtype}" for info, dtype in params]


def _mg_inputs(sample, requires_grad):
    return [
        mg.tensor(a, requires_grad=requires_grad) if isinstance(a, np.ndarray) else a
        for a in sample
    ]


def _torch_inputs(torch, sample, requires_grad):
    return [
        torch.tensor(a.copy(order="C"), requires_grad=requires_grad)
        if isinstance(a, np.ndarray)
        else a
        for a in sample
    ]


def _compare(y, yt, rtol, atol):
    assert y.shape == tuple(yt.shape)
    assert str(y.dtype) == str(yt.dtype).replace("torch.", "")
    np.testing.assert_allclose(
        y.numpy().astype(np.float64),
        yt.detach().numpy().astype(np.float64),
        rtol=rtol,
        atol=atol,
        equal_nan=True,
    )


def _run_both(info, torch, sample, dtype, rng):
    """Run ``info`` on ``sample`` in both libraries; compare values and (float64,
    differentiable) gradients."""
    grad = dtype == "float64" and info.differentiable
    xs = _mg_inputs(sample, grad)
    ts = _torch_inputs(torch, sample, grad)
    with np.errstate(all="ignore"):
        y = info.call(*xs)
    yt = info.call_torch(torch, *ts)
    rtol = info.rtol if dtype == "float64" else 1e-5
    _compare(y, yt, rtol=rtol, atol=rtol)
    if not grad or not yt.requires_grad:
        return
    assert y.requires_grad
    cot = rng.standard_normal(y.shape)
    y.backward(mg.tensor(cot))
    yt.backward(torch.tensor(cot))
    for i, (x, t) in enumerate(zip(xs, ts)):
        if not isinstance(x, mg.Tensor):
            continue
        if t.grad is None:  # the output does not depend on this input
            assert x.grad is None or not x.grad.numpy().any(), f"input {i}"
            continue
        assert x.grad is not None and x.grad.shape == x.shape, f"input {i}"
        expected = t.grad.numpy()
        np.testing.assert_allclose(
            x.grad.numpy(), expected, rtol=1e-6, atol=1e-9, equal_nan=True, err_msg=f"input {i}"
        )


@pytest.mark.parametrize(("info", "dtype"), BY_DTYPE, ids=_ids(BY_DTYPE))
def test_matches_pytorch(info, dtype, torch, rng):
    for sample in sample_inputs(info, dtype, rng):
        _run_both(info, torch, sample, dtype, rng)


@pytest.mark.parametrize("info", [i for i in OPS if i.points], ids=str)
def test_special_points(info, torch, rng):
    sample = tuple(np.array(p, dtype=np.float64) for p in info.points[0])
    _run_both(info, torch, sample, "float64", rng)


def _float64_samples(info, rng):
    """Samples for the finite-difference checks: the non-empty ones (tensors only)."""
    samples = sample_inputs(info, "float64", rng)
    return [s for s in samples if all(np.size(a) for a in s)][:3]


def _tensor_fn(info, sample):
    """``info`` as a function of the sample's tensors (a Python number stays fixed)."""
    tensors = [mg.tensor(a, requires_grad=True) for a in sample if isinstance(a, np.ndarray)]
    numbers = [a for a in sample if not isinstance(a, np.ndarray)]
    return (lambda *ts: info.call(*ts, *numbers)), tensors


# A step function's derivative is 0 on both sides: gradcheck says the comparison is
# vacuous (it still fails a backward that returns anything but 0).
@pytest.mark.filterwarnings("ignore:gradcheck. vacuous")
@pytest.mark.parametrize("info", DIFFERENTIABLE, ids=str)
def test_gradcheck(info, rng):
    for sample in _float64_samples(info, rng):
        fn, tensors = _tensor_fn(info, sample)
        assert mg.gradcheck(fn, tensors)


# Linear ops have second derivatives of 0: vacuous there, and still checked.
@pytest.mark.filterwarnings("ignore:gradgradcheck. vacuous")
@pytest.mark.parametrize("info", [i for i in DIFFERENTIABLE if i.gradgrad], ids=str)
def test_gradgradcheck(info, rng):
    fn, tensors = _tensor_fn(info, _float64_samples(info, rng)[0])
    assert mg.gradgradcheck(fn, tensors)


@pytest.mark.parametrize("info", [i for i in DIFFERENTIABLE if i.table], ids=str)
def test_backward_array_matches_backward(info, rng):
    for sample in _float64_samples(info, rng):
        fn, tensors = _tensor_fn(info, sample)
        y = fn(*tensors)
        node = y.grad_fn
        g = rng.standard_normal(y.shape)
        with mg.no_grad():
            by_tensor = node.backward(node, mg.tensor(g))
            by_array = node.backward_array(node, g)
        for t, a in zip(by_tensor, by_array):
            assert (t is None) == (a is None)
            if t is not None:
                assert a.dtype == t.dtype and a.shape == t.shape
                np.testing.assert_allclose(a, t.numpy(), rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("info", [i for i in OPS if i.inplace], ids=str)
def test_inplace_variant(info, rng):
    dtype = info.dtypes[0] if "float64" not in info.dtypes else "float64"
    sample = sample_inputs(info, dtype, rng)[0]
    x = mg.tensor(sample[0])
    expected = info.call(x, *sample[1:]).numpy().astype(x.dtype)
    version = x._version_count
    out = getattr(x, info.name + "_")(*sample[1:], **info.kwargs)
    assert out is x
    assert x._version_count == version + 1
    np.testing.assert_array_equal(x.numpy(), expected)


def test_every_table_entry_is_an_opinfo():
    from minigrad.functions.elementwise import TABLE

    assert {info.name for info in OPS} >= set(TABLE)


def test_a_missing_derivative_raises_instead_of_giving_zero():
    a = mg.tensor([0.5, 2.0], dtype=mg.float64, requires_grad=True)
    y = mg.special.gammainc(a, mg.tensor([1.0, 3.0], dtype=mg.float64)).sum()
    with pytest.raises(NotImplementedError, match="derivative for 'igamma: input'"):
        y.backward()


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
def test_polygamma_of_any_order_and_its_derivatives(n):
    """psi^(n)(x) = (-1)^(n+1) n! sum_k 1 / (x + k)^(n+1) for n >= 1: the series to 10^5
    terms and the Euler-Maclaurin tail, and gradcheck through two orders."""
    x = np.array([0.5, 2.0, 7.5])
    got = mg.special.polygamma(n, mg.tensor(x, dtype=mg.float64)).numpy()
    if n == 0:
        np.testing.assert_allclose(got, mg.special.digamma(mg.tensor(x)).numpy())
    else:
        k = np.arange(100_000)[:, None]
        end = x + 100_000
        tail = 1 / (n * end**n) + 1 / (2 * end ** (n + 1))
        series = (1 / (x + k) ** (n + 1)).sum(0) + tail
        expected = (-1) ** (n + 1) * math.factorial(n) * series
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    t = mg.tensor(x, dtype=mg.float64, requires_grad=True)
    assert mg.gradcheck(lambda v: mg.special.polygamma(n, v), (t,))
    assert mg.gradgradcheck(lambda v: mg.special.polygamma(n, v), (t,))
