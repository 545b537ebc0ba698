"""Random samples (minigrad/surface/sampling.py): shapes, dtypes and errors as PyTorch's, the
distributions checked by their moments on many draws (the streams differ from
PyTorch's, so values cannot be compared), reproducibility from the seed, the in-place
fills' in-place contract, and the default generator."""

import numpy as np
import pytest

import minigrad as mg

N = 20000


def _moments(t):
    a = t.numpy().astype(np.float64)
    return a.mean(), a.var()


def test_bernoulli():
    p = mg.full((N,), 0.3, dtype=mg.float64)
    s = mg.bernoulli(p)
    assert s.dtype == mg.float64 and s.shape == (N,)
    assert set(np.unique(s.numpy())) <= {0.0, 1.0}
    assert abs(s.numpy().mean() - 0.3) < 0.02
    assert abs(p.bernoulli(0.8).numpy().mean() - 0.8) < 0.02
    with pytest.raises(RuntimeError, match="p_in"):
        mg.bernoulli(mg.tensor([1.5]))


def test_binomial_and_poisson():
    n = mg.full((N,), 10.0)
    s = mg.binomial(n, mg.full((N,), 0.25))
    assert s.dtype == mg.float32
    mean, var = _moments(s)
    assert abs(mean - 2.5) < 0.05 and abs(var - 1.875) < 0.1
    s = mg.poisson(mg.full((N,), 4.0, dtype=mg.float64))
    assert s.dtype == mg.float64
    mean, var = _moments(s)
    assert abs(mean - 4.0) < 0.1 and abs(var - 4.0) < 0.2
    with pytest.raises(RuntimeError):
        mg.poisson(mg.tensor([-1.0]))
    with pytest.raises(RuntimeError):
        mg.binomial(mg.tensor([2]), mg.tensor([0.5]))


def test_normal_overloads(torch):
    # the four overloads and their shapes / dtypes, as in PyTorch
    cases = [
        ("tt", lambda lib: lib.normal(lib.zeros(2, 3), lib.ones(3))),
        ("tf", lambda lib: lib.normal(lib.zeros(2, 3, dtype=lib.float64), 2.0)),
        ("ft", lambda lib: lib.normal(1.0, lib.ones(4))),
        ("ff", lambda lib: lib.normal(0.0, 1.0, (2, 5))),
        ("ff-dtype", lambda lib: lib.normal(0.0, 1.0, size=(3,), dtype=lib.float64)),
    ]
    for name, make in cases:
        got, ref = make(mg), make(torch)
        assert got.shape == tuple(ref.shape), name
        assert str(got.dtype) == str(ref.dtype).replace("torch.", ""), name
    s = mg.normal(mg.full((N,), 3.0), mg.full((N,), 2.0))
    mean, var = _moments(s)
    assert abs(mean - 3.0) < 0.05 and abs(var - 4.0) < 0.15
    with pytest.raises(RuntimeError, match="std"):
        mg.normal(mg.zeros(2), -1.0)
    with pytest.raises(TypeError):
        mg.normal(0.0, 1.0)


def test_normal_is_differentiable_in_mean_and_std():
    mean = mg.zeros(5, dtype=mg.float64, requires_grad=True)
    std = mg.full((5,), 2.0, dtype=mg.float64, requires_grad=True)
    s = mg.normal(mean, std)
    s.sum().backward()
    np.testing.assert_allclose(mean.grad.numpy(), 1.0)
    # d sample / d std = (sample - mean) / std: PyTorch's reparametrized gradient
    np.testing.assert_allclose(std.grad.numpy(), s.detach().numpy() / 2.0)


@pytest.mark.parametrize(
    ("method", "args", "mean", "var"),
    [
        ("cauchy_", (), None, None),
        ("exponential_", (2.0,), 0.5, 0.25),
        ("geometric_", (0.25,), 4.0, 12.0),
        ("log_normal_", (0.0, 0.5), np.exp(0.125), (np.exp(0.25) - 1) * np.exp(0.25)),
        ("bernoulli_", (0.4,), 0.4, 0.24),
        ("random_", (3, 7), 4.5, 1.25),
    ],
)
def test_inplace_fills(method, args, mean, var):
    x = mg.zeros(N, dtype=mg.float64)
    version = x._version
    assert getattr(x, method)(*args) is x
    assert x._version == version + 1
    if method == "cauchy_":
        assert abs(np.median(x.numpy())) < 0.05  # no mean; the median is 0
        return
    m, v = _moments(x)
    assert abs(m - mean) < 0.05 * max(1, mean) and abs(v - var) < 0.1 * max(1, var)


def test_random_forms():
    x = mg.zeros(1000, dtype=mg.int64)
    assert set(np.unique(x.random_(5).numpy())) == {0, 1, 2, 3, 4}
    assert set(np.unique(x.random_(-2, 1).numpy())) == {-2, -1, 0}
    f = mg.zeros(1000).random_()
    assert f.numpy().min() >= 0 and f.numpy().max() <= 2**24
    assert np.all(f.numpy() == np.round(f.numpy()))
    b = mg.zeros(100, dtype=mg.bool).random_()
    assert b.dtype == mg.bool
    with pytest.raises(RuntimeError, match="from"):
        x.random_(3, 3)


def test_float_only_draws_refuse_integer_tensors():
    # PyTorch's classes: a continuous distribution's RuntimeError, a missing kernel
    x = mg.zeros(3, dtype=mg.int64)
    for method in ("cauchy_", "exponential_"):
        with pytest.raises(RuntimeError, match="continuous"):
            getattr(x, method)()
    with pytest.raises(NotImplementedError):
        x.log_normal_()
    for fn in (mg.bernoulli, mg.poisson):
        with pytest.raises(NotImplementedError):
            fn(mg.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="dtype"):
        mg.binomial(mg.tensor([3.0]), mg.tensor([0.5], dtype=mg.float64))
    with pytest.raises(RuntimeError, match="broadcast"):
        mg.normal(mg.zeros(2), mg.ones(3))
    assert x.geometric_(0.5).dtype == mg.int64


def test_fills_on_a_leaf_that_requires_grad_raise():
    x = mg.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        x.exponential_()


def test_generator_argument_and_seed_reproduce():
    a = mg.zeros(5).exponential_(generator=mg.Generator().manual_seed(3))
    b = mg.zeros(5).exponential_(generator=mg.Generator().manual_seed(3))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    mg.manual_seed(7)
    c = mg.poisson(mg.full((5,), 3.0))
    mg.manual_seed(7)
    np.testing.assert_array_equal(c.numpy(), mg.poisson(mg.full((5,), 3.0)).numpy())


def test_default_generator_seed_and_initial_seed():
    assert isinstance(mg.default_generator, mg.Generator)
    mg.manual_seed(11)
    assert mg.initial_seed() == 11 and mg.default_generator.initial_seed() == 11
    first = mg.randn(3)
    mg.default_generator.manual_seed(11)  # seeding it seeds the default stream
    np.testing.assert_array_equal(first.numpy(), mg.randn(3).numpy())
    state = mg.default_generator.get_state()
    after = mg.rand(2)
    mg.default_generator.set_state(state)
    np.testing.assert_array_equal(after.numpy(), mg.rand(2).numpy())
    s = mg.seed()
    assert isinstance(s, int) and mg.initial_seed() == s


def test_samples_in_the_graph_as_pytorch():
    # bernoulli(p) and poisson: derivative 0; bernoulli(x, p) and binomial: none (raises)
    p = mg.full((3,), 0.5, requires_grad=True)
    for sample in (mg.bernoulli(p), mg.poisson(p)):
        assert sample.requires_grad
        sample.sum().backward()
        assert p.grad.tolist() == [0.0, 0.0, 0.0]
    for sample in (
        mg.bernoulli(p, 0.3),
        mg.binomial(mg.full((3,), 4.0), p),
        mg.binomial(mg.full((3,), 4.0, requires_grad=True), mg.full((3,), 0.5)),
    ):
        assert sample.requires_grad
        with pytest.raises(RuntimeError, match="not implemented"):
            sample.sum().backward()
    assert not mg.bernoulli(mg.full((3,), 0.5)).requires_grad


def test_manual_seed_returns_the_default_generator():
    g = mg.manual_seed(5)
    assert g is mg.default_generator and g.initial_seed() == 5
    first = g.normal(0.0, 1.0, 3)  # NumPy's methods, as before
    mg.manual_seed(5)
    np.testing.assert_array_equal(first, mg.default_generator.normal(0.0, 1.0, 3))
