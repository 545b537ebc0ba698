"""Tensor factories (minigrad/creation.py) and the seeded generator (minigrad/random.py)."""

import numpy as np
import pytest

import minigrad as mg


@pytest.mark.parametrize(
    "data, dtype",
    [
        (1.5, mg.float32),
        ([1.0, 2.0], mg.float32),
        ([1, 2.5], mg.float32),
        (3, mg.int64),
        ([[1, 2]], mg.int64),
        (True, mg.bool),
        ([True, False], mg.bool),
        (np.array([1.0, 2.0]), mg.float64),  # arrays keep their dtype
        (np.array([1, 2], dtype=np.int32), mg.int32),
        (np.float64(2.0), mg.float64),
    ],
)
def test_tensor_dtype_defaults_follow_torch(data, dtype, torch):
    assert mg.tensor(data).dtype == dtype
    assert str(dtype) == str(torch.tensor(data).dtype).replace("torch.", "")


def test_tensor_copies_its_data_and_takes_a_dtype():
    a = np.array([1.0, 2.0])
    t = mg.tensor(a)
    a[0] = 99.0
    assert t.numpy()[0] == 1.0
    assert mg.tensor([1, 2], dtype=mg.float64).dtype == mg.float64
    assert mg.tensor(mg.tensor([1.0, 2.0])).tolist() == [1.0, 2.0]


def test_tensor_refuses_non_numeric_data():
    with pytest.raises(TypeError, match="cannot make a tensor"):
        mg.tensor("abc")
    with pytest.raises(TypeError, match="cannot make a tensor"):
        mg.tensor([object()])


def test_requires_grad_only_for_floating_point():
    assert mg.tensor([1.0], requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        mg.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        mg.zeros(2, dtype=mg.int64, requires_grad=True)


def test_from_numpy_shares_memory():
    a = np.zeros(3)
    t = mg.from_numpy(a)
    a[1] = 5.0
    assert t.numpy()[1] == 5.0 and t.dtype == mg.float64
    with pytest.raises(TypeError, match="numpy.ndarray"):
        mg.from_numpy([1.0])


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_filled_factories(name, torch):
    for size_args in [(2, 3), ((2, 3),), ([4],), ((),)]:
        t = getattr(mg, name)(*size_args)
        ref = getattr(torch, name)(*size_args)
        assert t.shape == tuple(ref.shape) and t.dtype == mg.float32
        if name != "empty":
            np.testing.assert_array_equal(t.numpy(), ref.numpy())
    t = getattr(mg, name)(2, dtype=mg.float64, requires_grad=True)
    assert t.dtype == mg.float64 and t.requires_grad and t.is_leaf


def test_full_infers_dtype_from_the_value(torch):
    for value in (1.5, 3, True):
        t = mg.full((2, 2), value)
        ref = torch.full((2, 2), value)
        assert str(t.dtype) == str(ref.dtype).replace("torch.", "")
        np.testing.assert_array_equal(t.numpy(), ref.numpy())
    assert mg.full(3, 2.0, dtype=mg.float64).dtype == mg.float64


def test_like_factories():
    x = mg.tensor(np.ones((2, 3)))
    assert mg.zeros_like(x).dtype == mg.float64 and not mg.zeros_like(x).numpy().any()
    assert mg.ones_like(x, dtype=mg.float32).dtype == mg.float32
    assert mg.full_like(x, 7.0).numpy().mean() == 7.0
    assert mg.ones_like(x, requires_grad=True).requires_grad
    i = mg.tensor([1, 2])
    assert mg.zeros_like(i).dtype == mg.int64


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((5,), {}),
        ((1, 5), {}),
        ((0, 1, 0.25), {}),
        ((1, 2.5, 0.5), {}),
        ((5.0,), {}),
        ((5, 0, -1), {}),
        ((5,), {"dtype": mg.float64}),
    ],
)
def test_arange_matches_torch(args, kwargs, torch):
    t = mg.arange(*args, **kwargs)
    torch_kwargs = {"dtype": torch.float64} if kwargs else {}
    ref = torch.arange(*args, **torch_kwargs)
    assert str(t.dtype) == str(ref.dtype).replace("torch.", "")
    np.testing.assert_allclose(t.numpy(), ref.numpy())


def test_arange_zero_step_raises():
    with pytest.raises(ValueError, match="step"):
        mg.arange(0, 5, 0)


def test_linspace_matches_torch(torch):
    np.testing.assert_allclose(mg.linspace(0, 1, 5).numpy(), torch.linspace(0, 1, 5).numpy())
    assert mg.linspace(-1, 1, 3).dtype == mg.float32


def test_bad_sizes_raise():
    with pytest.raises(ValueError, match="size"):
        mg.zeros(2, -3)
    with pytest.raises(ValueError, match="size"):
        mg.ones(2.5)


# ------------------------------------------------------------------------------ random
@pytest.mark.parametrize("name", ["randn", "rand"])
def test_random_factories_are_seeded(name):
    mg.manual_seed(3)
    a = getattr(mg, name)(4, 5)
    mg.manual_seed(3)
    b = getattr(mg, name)(4, 5)
    c = getattr(mg, name)(4, 5)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(b.numpy(), c.numpy())
    assert a.dtype == mg.float32 and a.shape == (4, 5)
    assert getattr(mg, name)(3, dtype=mg.float64, requires_grad=True).requires_grad


def test_random_distributions_are_plausible():
    x = mg.randn(20000, dtype=mg.float64).numpy()
    assert abs(x.mean()) < 0.05 and abs(x.std() - 1.0) < 0.05
    u = mg.rand(20000).numpy()
    assert u.min() >= 0.0 and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.02


def test_randint_and_randperm():
    r = mg.randint(3, 7, (100,))
    assert r.dtype == mg.int64 and r.shape == (100,)
    assert r.numpy().min() >= 3 and r.numpy().max() < 7
    assert mg.randint(5, size=(2, 2)).numpy().max() < 5
    p = mg.randperm(10)
    assert p.dtype == mg.int64 and sorted(p.tolist()) == list(range(10))


def test_rng_state_round_trip():
    mg.manual_seed(11)
    mg.randn(3)
    state = mg.get_rng_state()
    a = mg.randn(5)
    mg.randn(7)
    mg.set_rng_state(state)
    np.testing.assert_array_equal(mg.randn(5).numpy(), a.numpy())


def test_explicit_generator_is_used():
    gen = np.random.default_rng(5)
    a = mg.randn(3, generator=gen)
    b = mg.randn(3, generator=np.random.default_rng(5))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_manual_seed_rejects_bad_seeds():
    with pytest.raises(ValueError, match="seed"):
        mg.manual_seed(-1)
    with pytest.raises(ValueError, match="seed"):
        mg.manual_seed(1.5)
    with pytest.raises(ValueError, match="PCG64"):
        mg.set_rng_state({"bit_generator": "MT19937"})


# ---------------------------------------------------------------- PyTorch's calling forms
def test_randint_high_size_form_samples_from_zero_to_high(torch):
    # nanoGPT's get_batch: torch.randint(len(data) - block_size, (batch_size,))
    r = mg.randint(10, (1000,))
    assert r.shape == (1000,) and r.dtype == mg.int64
    assert r.numpy().min() == 0 and r.numpy().max() == 9
    assert tuple(torch.randint(10, (3,)).shape) == mg.randint(10, (3,)).shape
    assert mg.randint(2, 5, (2, 3)).shape == (2, 3) and mg.randint(4, size=(5,)).shape == (5,)
    assert mg.randint(3, ()).shape == ()
    with pytest.raises(ValueError, match=r"expects low < high.*got low=5, high=5"):
        mg.randint(5, 5, (2,))
    with pytest.raises(ValueError, match=r"expects low < high.*got low=0, high=0"):
        mg.randint(0, (2,))
    with pytest.raises(TypeError, match="randint: missing the size argument"):
        mg.randint(3, 5)


def test_generator_streams_are_independent_and_reproducible():
    g = mg.Generator()
    assert g.manual_seed(3) is g and g.initial_seed() == 3
    a = mg.randn(4, generator=g)
    b = mg.rand(2, generator=mg.Generator().manual_seed(3))
    mg.manual_seed(0)
    d0 = mg.randn(3)
    mg.manual_seed(0)
    g2 = mg.Generator().manual_seed(3)
    np.testing.assert_array_equal(mg.randn(4, generator=g2).numpy(), a.numpy())
    np.testing.assert_array_equal(mg.randn(3).numpy(), d0.numpy())  # default stream untouched
    assert b.shape == (2,)
    for make in (
        lambda gen: mg.randint(0, 100, (5,), generator=gen),
        lambda gen: mg.randperm(8, generator=gen),
        lambda gen: mg.zeros(5).uniform_(generator=gen),
        lambda gen: mg.zeros(5).normal_(generator=gen),
        lambda gen: mg.randn_like(mg.zeros(5), generator=gen),
    ):
        x = make(mg.Generator().manual_seed(11)).numpy()
        y = make(mg.Generator().manual_seed(11)).numpy()
        np.testing.assert_array_equal(x, y)
    state = g.get_state()
    first = mg.randn(3, generator=g)
    g.set_state(state)
    np.testing.assert_array_equal(mg.randn(3, generator=g).numpy(), first.numpy())
    with pytest.raises(TypeError, match="generator: expected a minigrad.Generator"):
        mg.randn(2, generator=42)
    with pytest.raises(ValueError, match="Generator.manual_seed: seed must be a non-negative int"):
        g.manual_seed(-1)


def test_nn_init_takes_a_generator():
    a = mg.nn.init.normal_(mg.zeros(4), generator=mg.Generator().manual_seed(2))
    b = mg.nn.init.normal_(mg.zeros(4), generator=mg.Generator().manual_seed(2))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_new_like_and_eye_factories(torch):
    x = mg.ones(2, 3, dtype=mg.float64)
    for name in ("empty_like", "rand_like", "randn_like"):
        y = getattr(mg, name)(x)
        assert y.shape == (2, 3) and y.dtype == mg.float64
    assert mg.randint_like(x, 4).shape == (2, 3) and mg.randint_like(x, 4).numpy().max() < 4
    np.testing.assert_array_equal(mg.eye(3, 2).numpy(), torch.eye(3, 2).numpy())
    assert mg.as_tensor(np.zeros(2), device="cpu").dtype == mg.float64


# ---------------------------------------------------------------- mg.tensor's messages
@pytest.mark.parametrize(
    "data,message",
    [
        ([[1, 2], [3]], r"expected sequence of length 2 at dim 1 \(got 1\)"),
        ([[[1], [2]], [[3], []]], r"expected sequence of length 1 at dim 2 \(got 0\)"),
        ([1, [3]], "expected a sequence at dim 1 but got int 1"),
        (2**70, r"the value 1180591620717411303424 overflows int64"),
        ([1, 2**63], "the value 9223372036854775808 overflows int64"),
        ([[1, -(2**64)]], "overflows int64"),
    ],
)
def test_tensor_from_bad_lists_says_what_is_wrong(data, message):
    with pytest.raises(ValueError, match=message):
        mg.tensor(data)


@pytest.mark.parametrize("data", [[[1, 2], [3]], [1, [3]], 2**70, [1, 2**63], [[1, -(2**64)]]])
def test_torch_refuses_the_same_lists(data, torch):
    with pytest.raises((ValueError, TypeError, RuntimeError)):
        torch.tensor(data)


def test_tensor_from_a_list_of_0d_tensors():
    parts = [mg.tensor(1.5), mg.tensor(2.0)]
    t = mg.tensor(parts)
    assert t.tolist() == [1.5, 2.0] and t.dtype == mg.float32
    assert mg.tensor([mg.tensor(1.0, dtype=mg.float64)]).dtype == mg.float64
    assert mg.tensor([[mg.tensor(1), 2], [3, mg.tensor(4)]]).tolist() == [[1, 2], [3, 4]]
    with pytest.raises(ValueError, match=r"only one-element tensors.*shape \[2\].*mg.stack"):
        mg.tensor([mg.ones(2), mg.ones(2)])


def test_torch_takes_lists_of_0d_tensors_the_same_way(torch):
    assert torch.tensor([torch.tensor(1.5), torch.tensor(2.0)]).dtype == torch.float32
    assert torch.tensor([torch.tensor(1.0, dtype=torch.float64)]).dtype == torch.float64
    with pytest.raises(ValueError, match="only one element tensors"):
        torch.tensor([torch.ones(2), torch.ones(2)])


@pytest.mark.parametrize(
    "make, want",
    [
        # 0-d tensors as endpoints (they raised inside NumPy)
        (lambda: mg.linspace(mg.tensor(-2.0), mg.tensor(2), 5), [-2.0, -1.0, 0.0, 1.0, 2.0]),
        (lambda: mg.logspace(mg.tensor(0), 2, 3), [1.0, 10.0, 100.0]),
        # an integer dtype truncates the endpoints first, then each value
        (lambda: mg.linspace(4.3, -3, 8, dtype=mg.int64), [4, 3, 2, 1, 0, -1, -2, -3]),
        (lambda: mg.linspace(0, 1, 3, dtype=mg.int64), [0, 0, 1]),
        (lambda: mg.logspace(0, 1.2, 2, dtype=mg.int64), [1, 10]),
        (lambda: mg.arange(0.1, -7.9, -4.0, dtype=mg.int64), [0, -4]),
        (lambda: mg.arange(3.1, dtype=mg.int64), [0, 1, 2]),
        (lambda: mg.arange(mg.tensor(3)), [0, 1, 2]),
    ],
)
def test_spaced_values_with_tensor_endpoints_and_integer_dtypes(make, want):
    assert make().tolist() == want


@pytest.mark.parametrize(
    "make, error",
    [
        (lambda: mg.linspace(mg.tensor([1.0, 2.0]), 3, 4), RuntimeError),
        (lambda: mg.linspace(0, 3, -1), RuntimeError),
        (lambda: mg.logspace(0, 3, 1.0), TypeError),
        (lambda: mg.arange(0, 5, -1), RuntimeError),
        (lambda: mg.arange(0, float("inf")), RuntimeError),
        (lambda: mg.arange(0, 3, 0.5, dtype=mg.int64), RuntimeError),  # step truncates to 0
    ],
)
def test_spaced_values_refuse_what_pytorch_refuses(make, error):
    with pytest.raises(error):
        make()


@pytest.mark.parametrize(
    "args",
    [(4.3, -3, 50), (0, 1, 7), (-0.5, 3.5, 5), (1, 1, 1), (2, 5, 0)],
)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_linspace_and_logspace_match_pytorch(torch, args, dtype):
    """PyTorch computes float32 spacing in float32: values agree to a few rounding units
    of the largest endpoint (linspace), of the exponent (logspace, relative); integer
    values exactly."""
    big = max(abs(args[0]), abs(args[1]), 1.0)
    eps = 0.0 if dtype == "int64" else float(np.finfo(dtype).eps)
    for name, rtol, atol in (
        ("linspace", 0.0, 4 * eps * big),
        ("logspace", 4 * eps * big * np.log(10), 0.0),
    ):
        got = getattr(mg, name)(*args, dtype=getattr(mg, dtype))
        want = getattr(torch, name)(*args, dtype=getattr(torch, dtype))
        assert str(got.dtype) == dtype
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=atol)
