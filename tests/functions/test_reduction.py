"""Reductions, max/min with indices, logsumexp, softmax (minigrad/functions/reduction.py)."""

import numpy as np
import pytest

import minigrad as mg
from minigrad.functions.reduction import normalize_dims

SHAPE = (2, 3, 4)
DIMS = [None, 0, -1, 1, (0, 2), (-1, 0), (0, 1, 2)]


def _dim_kwargs(dim, keepdim):
    return {"dim": dim, "keepdim": keepdim} if dim is not None else {}


# ------------------------------------------------------------------------- sum / mean
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("name", ["sum", "mean"])
def test_sum_mean_gradcheck_and_torch(name, dim, keepdim, rng, leaf, check_grads, parity):
    kw = _dim_kwargs(dim, keepdim)

    def fn(t):
        return getattr(t, name)(**kw)

    check_grads(fn, leaf(SHAPE))
    parity(fn, fn, rng.standard_normal(SHAPE))
    parity(lambda t: getattr(mg, name)(t, **kw), fn, rng.standard_normal(SHAPE))


def test_sum_with_dtype_and_of_bools(torch):
    x = mg.tensor([[1, 2], [3, 4]])
    assert x.sum().dtype == mg.int64 and x.sum().item() == 10
    assert x.sum(dtype=mg.float64).dtype == mg.float64
    b = mg.tensor([True, True, False])
    assert b.sum().item() == 2 and str(b.sum().dtype) == str(torch.tensor([True]).sum().dtype)[6:]


def test_mean_of_int_tensor_raises_as_in_pytorch_unless_a_float_dtype_is_given():
    """PyTorch's mean has no integer result: an integer tensor needs ``dtype=``."""
    with pytest.raises(RuntimeError, match="Input dtype must be either a floating point"):
        mg.tensor([1, 2]).mean()
    with pytest.raises(RuntimeError, match="Optional dtype must be either a floating point"):
        mg.tensor([1.0, 2.0]).mean(dtype=mg.int64)
    y = mg.tensor([1, 2]).mean(dtype=mg.float32)
    assert y.dtype == mg.float32 and y.item() == 1.5


def test_float32_reduction_gradients_stay_float32():
    x = mg.ones(2, 3, requires_grad=True)
    (x.sum(0) * x.mean(1, keepdim=True)).sum().backward()
    assert x.grad.dtype == mg.float32 and x.grad.shape == (2, 3)


# ------------------------------------------------------------------------- var / std
VAR_CASES = [
    ({}, {}),
    ({"dim": 1}, {"dim": 1}),
    ({"dim": (0, 2), "keepdim": True}, {"dim": (0, 2), "keepdim": True}),
    ({"dim": -1, "correction": 0}, {"dim": -1, "correction": 0}),
    ({"dim": 2, "correction": 2}, {"dim": 2, "correction": 2}),
    ({"dim": 0, "unbiased": False}, {"dim": 0, "unbiased": False}),
    ({"dim": 1, "unbiased": True, "keepdim": True}, {"dim": 1, "unbiased": True, "keepdim": True}),
]


@pytest.mark.parametrize("case", VAR_CASES, ids=lambda c: str(c[0]))
@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_gradcheck_and_torch(name, case, rng, leaf, check_grads, parity):
    mg_kw, torch_kw = case
    check_grads(lambda t: getattr(t, name)(**mg_kw), leaf(SHAPE))
    parity(
        lambda t: getattr(t, name)(**mg_kw),
        lambda t: getattr(t, name)(**torch_kw),
        rng.standard_normal(SHAPE),
    )


def test_std_of_constant_rows_has_zero_gradient(parity):
    x = np.array([[1.5, 1.5, 1.5], [0.0, 1.0, 3.0]])
    parity(lambda t: t.std(1), lambda t: t.std(1), x)
    x_mg = mg.tensor(x, requires_grad=True)
    x_mg.std(1).sum().backward()
    np.testing.assert_array_equal(x_mg.grad.numpy()[0], [0.0, 0.0, 0.0])


def test_var_values_against_numpy(rng):
    x = rng.standard_normal(SHAPE)
    np.testing.assert_allclose(mg.tensor(x).var(1).numpy(), np.var(x, axis=1, ddof=1))
    np.testing.assert_allclose(mg.tensor(x).std(correction=0).numpy(), np.std(x))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_var_with_too_few_elements_is_nan():
    assert np.isnan(mg.tensor([1.0]).var().item())
    assert np.isnan(mg.tensor([1.0, 2.0]).var(correction=2).item())


# ------------------------------------------------------------------------- amax / amin
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [None, 0, -1, (0, 2)], ids=str)
@pytest.mark.parametrize("name", ["amax", "amin"])
def test_amax_amin_gradcheck_and_ties(name, dim, keepdim, rng, check_grads, parity):
    kw = _dim_kwargs(dim, keepdim)

    def fn(t):
        return getattr(t, name)(**kw)

    distinct = rng.permutation(24).reshape(SHAPE) * 0.1  # no ties: a smooth point
    check_grads(fn, mg.tensor(distinct, requires_grad=True))
    ties = rng.integers(0, 3, SHAPE).astype(np.float64)  # many ties: gradient split evenly
    parity(fn, fn, ties)


def test_amax_splits_ties_evenly():
    x = mg.tensor(np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]), requires_grad=True)
    x.amax(1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])


def test_amax_of_empty_raises():
    with pytest.raises(ValueError, match="empty"):
        mg.zeros(0).amax()


# ------------------------------------------------------------------ max(dim) / min(dim)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_dim_returns_values_and_indices(name, dim, keepdim, rng, torch):
    x = rng.integers(0, 3, SHAPE).astype(np.float64)  # ties: torch (CPU) picks the first
    out = getattr(mg.tensor(x), name)(dim, keepdim=keepdim)
    ref = getattr(torch.tensor(x), name)(dim, keepdim=keepdim)
    values, indices = out
    assert out.values is values and out.indices is indices
    np.testing.assert_array_equal(values.numpy(), ref.values.numpy())
    np.testing.assert_array_equal(indices.numpy(), ref.indices.numpy())
    assert indices.dtype == mg.int64 and not indices.requires_grad


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_dim_gradient_goes_to_one_index(name, rng, parity, check_grads):
    x = rng.integers(0, 3, SHAPE).astype(np.float64)
    parity(lambda t: getattr(t, name)(1).values, lambda t: getattr(t, name)(1).values, x)
    parity(lambda t: getattr(t, name)(-1, True)[0], lambda t: getattr(t, name)(-1, True)[0], x)
    x_mg = mg.tensor(x, requires_grad=True)
    getattr(x_mg, name)(1).values.sum().backward()
    assert np.all(x_mg.grad.numpy().sum(1) == 1.0)  # each output's gradient lands once
    assert set(np.unique(x_mg.grad.numpy())) <= {0.0, 1.0}
    distinct = mg.tensor(rng.permutation(24).reshape(SHAPE) * 0.1, requires_grad=True)
    check_grads(lambda t: getattr(t, name)(2).values, distinct)


@pytest.mark.parametrize("name", ["max", "min"])
def test_full_max_min_splits_ties_like_torch(name, parity):
    x = np.array([[1.0, 3.0], [3.0, -1.0]])
    if name == "min":
        x = -x
    parity(lambda t: getattr(t, name)(), lambda t: getattr(t, name)(), x)


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [None, 0, -1])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin_match_torch(name, dim, keepdim, rng, torch):
    x = rng.integers(0, 4, SHAPE).astype(np.float64)
    y = getattr(mg.tensor(x), name)(dim, keepdim=keepdim)
    ref = getattr(torch.tensor(x), name)(dim, keepdim=keepdim)
    assert y.shape == tuple(ref.shape) and y.dtype == mg.int64
    np.testing.assert_array_equal(y.numpy(), ref.numpy())
    np.testing.assert_array_equal(getattr(mg, name)(mg.tensor(x), dim, keepdim).numpy(), y.numpy())


# -------------------------------------------------------- logsumexp / softmax / log_softmax
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, -1, (0, 2)], ids=str)
def test_logsumexp_gradcheck_and_torch(dim, keepdim, rng, leaf, check_grads, parity):
    def fn(t):
        return t.logsumexp(dim, keepdim=keepdim)

    check_grads(fn, leaf(SHAPE))
    parity(fn, fn, rng.standard_normal(SHAPE))
    parity(lambda t: mg.logsumexp(t, dim, keepdim), fn, rng.standard_normal(SHAPE))


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_gradcheck_and_torch(name, dim, rng, leaf, check_grads, parity):
    def fn(t):
        return getattr(t, name)(dim)

    check_grads(fn, leaf(SHAPE))
    parity(fn, fn, rng.standard_normal(SHAPE))
    parity(lambda t: getattr(mg, name)(t, dim), fn, rng.standard_normal(SHAPE))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_huge_logits_do_not_overflow(dtype, parity):
    x = np.array([[1e4, 0.0, -1e4], [1e4, 1e4, 1e4 - 1.0], [-1e4, -1e4, -1e4]], dtype=dtype)
    with np.errstate(over="raise", invalid="raise"):
        lse = mg.tensor(x).logsumexp(1)
        sm = mg.tensor(x).softmax(1)
        lsm = mg.tensor(x).log_softmax(1)
    for y in (lse, sm, lsm):
        assert y.dtype == np.dtype(dtype) and np.all(np.isfinite(y.numpy()))
    np.testing.assert_allclose(lse.numpy()[0], 1e4, rtol=1e-6)
    np.testing.assert_allclose(sm.numpy()[0], [1.0, 0.0, 0.0])
    if dtype == "float64":
        for name in ("logsumexp", "softmax", "log_softmax"):
            parity(lambda t, n=name: getattr(t, n)(1), lambda t, n=name: getattr(t, n)(1), x)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_logsumexp_with_minus_infinity():
    x = mg.tensor(np.array([[-np.inf, -np.inf], [0.0, -np.inf]]))
    np.testing.assert_array_equal(x.logsumexp(1).numpy(), [-np.inf, 0.0])
    np.testing.assert_array_equal(x.softmax(1).numpy()[1], [1.0, 0.0])


def test_softmax_rows_sum_to_one(rng):
    y = mg.tensor(rng.standard_normal((4, 5)) * 30).softmax(-1)
    np.testing.assert_allclose(y.numpy().sum(-1), np.ones(4))


# ------------------------------------------------------------------------- 0-d inputs
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize(
    "name", ["sum", "mean", "amax", "amin", "logsumexp", "softmax", "log_softmax"]
)
def test_reductions_of_0d_tensor_match_torch(name, dim, parity):
    parity(lambda t: getattr(t, name)(dim), lambda t: getattr(t, name)(dim), np.array(1.5))


def test_max_dim_of_0d_tensor():
    x = mg.tensor(np.array(2.0), requires_grad=True)
    values, indices = x.max(0)
    assert values.item() == 2.0 and indices.item() == 0 and indices.dtype == mg.int64
    values.backward()
    assert x.grad.item() == 1.0


# ------------------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.sum(3),
        lambda t: t.mean(-4),
        lambda t: t.var((0, 5)),
        lambda t: t.amax(3),
        lambda t: t.max(3),
        lambda t: t.argmax(3),
        lambda t: t.logsumexp(3),
        lambda t: t.softmax(3),
        lambda t: t.log_softmax(-4),
        lambda t: mg.tensor(1.0).sum(1),
    ],
)
def test_out_of_range_dim_raises_index_error(call):
    with pytest.raises(IndexError, match=r"out of range.*\[-\d, \d\]"):
        call(mg.ones(*SHAPE))


def test_repeated_dim_raises():
    with pytest.raises(ValueError, match="twice"):
        mg.ones(2, 3).sum((1, -1))


def test_non_integer_dim_raises():
    with pytest.raises(TypeError, match="dim"):
        mg.ones(2, 3).sum(1.0)


@pytest.mark.parametrize("ndim", [0, 1, 2, 3])
@pytest.mark.parametrize("kind", [int, np.int64])
def test_every_dim_in_and_out_of_range(ndim, kind):
    """Every dim from -ndim-2 to ndim+1, as a Python int and a NumPy integer: the in-range
    ones reduce that axis (a 0-d tensor takes 0 and -1, as PyTorch), the others raise
    IndexError (PyTorch's class)."""
    shape = (2, 3, 4)[:ndim]
    x = mg.tensor(np.arange(float(np.prod(shape))).reshape(shape))
    valid = max(ndim, 1)
    for d in range(-valid - 2, valid + 2):
        if -valid <= d < valid:
            assert normalize_dims(kind(d), ndim) == (d % valid,)  # non-negative, sorted
            expected = x.numpy().sum(axis=d % ndim if ndim else None)
            np.testing.assert_array_equal(x.sum(dim=kind(d)).numpy(), expected)
        else:
            with pytest.raises(IndexError):
                x.sum(dim=kind(d))
