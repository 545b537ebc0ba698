"""Normalization modules (minigrad/nn/normalization.py): PyTorch semantics, state, errors."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn

IMPLS = ("fused", "reference", "composite")


def _pair(torch, name, *args, **kwargs):
    """The same module in minigrad and PyTorch."""
    return getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)


# ------------------------------------------------------------------- state_dict and repr
MODULES = [
    ("LayerNorm", (8,), {}),
    ("LayerNorm", ((6, 4),), {"bias": False}),
    ("LayerNorm", (8,), {"elementwise_affine": False}),
    ("RMSNorm", (8,), {}),
    ("RMSNorm", (8,), {"elementwise_affine": False, "eps": 1e-6}),
    ("BatchNorm1d", (3,), {}),
    ("BatchNorm1d", (3,), {"affine": False}),
    ("BatchNorm1d", (3,), {"track_running_stats": False}),
    ("BatchNorm2d", (3,), {"momentum": None, "bias": False}),
    ("GroupNorm", (2, 6), {}),
    ("GroupNorm", (3, 6), {"affine": False}),
]


@pytest.mark.parametrize("name, args, kwargs", MODULES, ids=lambda v: str(v))
def test_state_dict_and_repr_match_torch(name, args, kwargs, torch):
    m, t = _pair(torch, name, *args, **kwargs)
    sd, tsd = m.state_dict(), t.state_dict()
    assert list(sd) == list(tsd)
    for key in sd:
        assert sd[key].dtype == tsd[key].numpy().dtype, key
        np.testing.assert_array_equal(sd[key], tsd[key].numpy(), err_msg=key)
    assert repr(m) == repr(t)


def test_state_dict_round_trip_with_torch(torch):
    m, t = _pair(torch, "BatchNorm1d", 4)
    for _ in range(3):
        t(torch.randn(8, 4) * 2 + 1)
    m.load_state_dict({k: v.numpy() for k, v in t.state_dict().items()})
    assert int(m.num_batches_tracked.item()) == 3
    t2 = torch.nn.BatchNorm1d(4)
    t2.load_state_dict({k: torch.tensor(v.numpy()) for k, v in m.state_dict().items()})
    for k, v in t2.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), t.state_dict()[k].numpy())


def test_num_batches_tracked_is_a_0d_int64_buffer():
    bn = nn.BatchNorm1d(3)
    assert bn.num_batches_tracked.shape == () and bn.num_batches_tracked.dtype == mg.int64
    bn(mg.randn(4, 3))
    bn(mg.randn(4, 3))
    assert bn.num_batches_tracked.item() == 2
    bn.eval()(mg.randn(4, 3))
    assert bn.num_batches_tracked.item() == 2


# ------------------------------------------------------------------ BatchNorm vs PyTorch
@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "name, shape, kwargs",
    [
        ("BatchNorm1d", (8, 3), {}),
        ("BatchNorm1d", (4, 3, 5), {"momentum": None}),
        ("BatchNorm2d", (2, 3, 4, 4), {"momentum": 0.3}),
        ("BatchNorm2d", (3, 3, 2, 3), {"affine": False}),
    ],
)
def test_batch_norm_training_steps_and_eval_match_torch(name, shape, kwargs, dtype, impl, torch):
    rtol, atol = (1e-10, 1e-12) if dtype == "float64" else (2e-5, 2e-5)
    m, t = _pair(torch, name, shape[1], **kwargs)
    m.to(dtype)
    t.to(getattr(torch, dtype))
    rng = np.random.default_rng(0)
    with nn.norm_impl(impl):
        for step in range(4):
            x = (rng.standard_normal(shape) * (step + 1) + step).astype(dtype)
            dy = rng.standard_normal(shape).astype(dtype)
            xm = mg.tensor(x, requires_grad=True)
            xt = torch.tensor(x, requires_grad=True)
            y, yt = m(xm), t(xt)
            np.testing.assert_allclose(y.numpy(), yt.detach().numpy(), rtol=rtol, atol=atol)
            y.backward(mg.tensor(dy))
            yt.backward(torch.tensor(dy))
            np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=rtol, atol=10 * atol)
        for key, value in t.state_dict().items():
            np.testing.assert_allclose(
                m.state_dict()[key], value.numpy(), rtol=rtol, atol=atol, err_msg=key
            )
        for p, pt in zip(m.parameters(), t.parameters()):
            np.testing.assert_allclose(p.grad.numpy(), pt.grad.numpy(), rtol=rtol, atol=10 * atol)
        m.eval()
        t.eval()
        x = rng.standard_normal(shape).astype(dtype)
        y, yt = m(mg.tensor(x)), t(torch.tensor(x))
        np.testing.assert_allclose(y.numpy(), yt.detach().numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("impl", IMPLS)
def test_batch_norm_eval_output_of_one_example_ignores_the_batch(impl):
    bn = nn.BatchNorm1d(3)
    with nn.norm_impl(impl):
        bn(mg.randn(16, 3) * 3 + 1)
        bn.eval()
        x = mg.randn(5, 3)
        alone = bn(x[1:2])
        together = bn(x)
        np.testing.assert_allclose(alone.numpy()[0], together.numpy()[1], rtol=1e-6, atol=1e-6)
        # ... while in training the batch changes it
        bn.train()
        assert not np.allclose(bn(x).numpy()[1], bn(x[:3]).numpy()[1], atol=1e-3)


@pytest.mark.parametrize("impl", IMPLS)
def test_batch_norm_without_running_stats_uses_batch_statistics_in_eval(impl, torch):
    m, t = _pair(torch, "BatchNorm1d", 3, track_running_stats=False)
    assert m.running_mean is None and m.num_batches_tracked is None
    m.eval()
    t.eval()
    x = np.random.default_rng(1).standard_normal((6, 3)).astype(np.float32) * 2 + 3
    with nn.norm_impl(impl):
        y = m(mg.tensor(x))
    np.testing.assert_allclose(y.numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y.numpy().mean(0), 0, atol=1e-5)


def test_batch_norm_momentum_none_is_the_cumulative_average():
    bn = nn.BatchNorm1d(2, momentum=None)
    batches = [np.random.default_rng(k).standard_normal((5, 2)) * (k + 1) for k in range(3)]
    for b in batches:
        bn(mg.tensor(b.astype(np.float32)))
    np.testing.assert_allclose(
        bn.running_mean.numpy(), np.mean([b.mean(0) for b in batches], axis=0), rtol=1e-5
    )
    np.testing.assert_allclose(
        bn.running_var.numpy(), np.mean([b.var(0, ddof=1) for b in batches], axis=0), rtol=1e-5
    )


# ----------------------------------------------------------------------------- errors
def test_batch_norm_one_value_per_channel_in_training_is_an_error():
    bn = nn.BatchNorm1d(3)
    with pytest.raises(ValueError, match=r"more than 1 value per channel when training.*\[1, 3\]"):
        bn(mg.randn(1, 3))
    assert bn.num_batches_tracked.item() == 0  # the failed call did not count
    bn.eval()
    assert bn(mg.randn(1, 3)).shape == (1, 3)  # eval uses the running statistics: fine
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        mg.nn.functional.batch_norm(mg.randn(1, 3), None, None, training=True)


@pytest.mark.parametrize(
    "name, shape, accepted",
    [
        ("BatchNorm1d", (2, 3, 4, 5), r"2-D input \[N, C\] or a 3-D input \[N, C, L\]"),
        ("BatchNorm1d", (3,), r"2-D input \[N, C\]"),
        ("BatchNorm2d", (2, 3, 4), r"4-D input \[N, C, H, W\]"),
    ],
)
def test_batch_norm_wrong_rank_says_which_shapes_it_accepts(name, shape, accepted):
    with pytest.raises(ValueError, match=accepted) as info:
        getattr(nn, name)(3)(mg.randn(*shape))
    assert str(list(shape)).replace(" ", "") in str(info.value).replace(" ", "")


def test_batch_norm_channel_mismatch_names_both():
    with pytest.raises(ValueError, match=r"4 channels.*num_features is 3"):
        nn.BatchNorm1d(3)(mg.randn(2, 4))
    with pytest.raises(ValueError, match=r"running_mean has shape \[3\] but expected \[4\]"):
        mg.nn.functional.batch_norm(mg.randn(2, 4), mg.zeros(3), mg.ones(3))


def test_layer_norm_shape_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"normalized_shape=\[6, 4\].*\[\*, 6, 4\].*\[2, 4, 6\]"):
        nn.LayerNorm((6, 4))(mg.randn(2, 4, 6))
    with pytest.raises(ValueError, match=r"\[\*, 8\].*\[3\]"):
        nn.RMSNorm(8)(mg.randn(3))
    with pytest.raises(ValueError, match=r"weight has shape \[5\] but expected \[4\]"):
        mg.nn.functional.layer_norm(mg.randn(2, 4), 4, weight=mg.ones(5))


def test_group_norm_errors():
    with pytest.raises(
        ValueError, match=r"num_channels \(8\) must be divisible by num_groups \(3\)"
    ):
        nn.GroupNorm(3, 8)
    with pytest.raises(ValueError, match=r"shape \[N, 6, \*\], got \[2, 4, 5\]"):
        nn.GroupNorm(2, 6)(mg.randn(2, 4, 5))
    with pytest.raises(ValueError, match=r"divisible by num_groups.*\[2, 6, 5\].*num_groups=4"):
        mg.nn.functional.group_norm(mg.randn(2, 6, 5), 4)


def test_mixed_dtypes_are_an_error_naming_both():
    with pytest.raises(TypeError, match="weight has dtype float32 but the input has dtype float64"):
        nn.LayerNorm(4)(mg.randn(2, 4, dtype=mg.float64))
    assert nn.LayerNorm(4).double()(mg.randn(2, 4, dtype=mg.float64)).dtype == mg.float64


# ------------------------------------------------------------------------- behaviour
@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize(
    "module, shape",
    [
        (lambda: nn.LayerNorm(4), (3, 4)),
        (lambda: nn.RMSNorm(4), (3, 4)),
        (lambda: nn.BatchNorm2d(2), (2, 2, 3, 3)),
        (lambda: nn.GroupNorm(2, 4), (2, 4, 3)),
    ],
)
def test_output_dtype_is_the_input_dtype(module, shape, dtype, impl):
    m = module().to(dtype)
    x = mg.randn(*shape, dtype=dtype, requires_grad=True)
    with nn.norm_impl(impl):
        y = m(x)
        y.sum().backward()
    assert y.dtype == dtype and x.grad.dtype == dtype
    assert all(p.grad.dtype == dtype for p in m.parameters())


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_constant_row_gives_the_bias_and_finite_gradients(impl, dtype):
    ln = nn.LayerNorm(5).to(dtype)
    ln.bias.numpy()[...] = np.arange(5)
    x = mg.tensor(np.full((2, 5), 3.25), dtype=dtype, requires_grad=True)
    dy = np.arange(10.0).reshape(2, 5)
    with nn.norm_impl(impl):
        y = ln(x)
        y.backward(mg.tensor(dy, dtype=dtype))
    np.testing.assert_allclose(y.numpy(), np.tile(np.arange(5), (2, 1)), atol=1e-6)
    for g in (x.grad, ln.weight.grad, ln.bias.grad):
        assert np.all(np.isfinite(g.numpy()))
    # xhat = 0 and rstd = 1 / sqrt(eps): dx = (dy - mean(dy)) / sqrt(eps), dweight = 0
    expected = (dy - dy.mean(1, keepdims=True)) / np.sqrt(1e-5)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(ln.weight.grad.numpy(), 0, atol=1e-6)


@pytest.mark.parametrize("impl", IMPLS)
def test_constant_channel_and_group_stay_finite(impl):
    x = mg.tensor(np.ones((4, 2, 3)), dtype=mg.float32, requires_grad=True)
    with nn.norm_impl(impl):
        for m in (nn.BatchNorm1d(2), nn.GroupNorm(2, 2), nn.RMSNorm(3)):
            x.grad = None
            m(x).sum().backward()
            assert np.all(np.isfinite(x.grad.numpy())), type(m).__name__
    rms = nn.RMSNorm(3)(mg.zeros(2, 3))  # all-zero rows: 0 / sqrt(eps) = 0
    np.testing.assert_array_equal(rms.numpy(), 0)


@pytest.mark.parametrize("impl", IMPLS)
def test_layer_norm_is_invariant_to_scaling_and_shifting_its_input(impl):
    x = np.random.default_rng(2).standard_normal((3, 16))
    ln = nn.LayerNorm(16, eps=1e-12).double()
    with nn.norm_impl(impl):
        y = ln(mg.tensor(x)).numpy()
        for scale, shift in [(3.0, 0.0), (1.0, -7.5), (0.01, 100.0)]:
            y2 = ln(mg.tensor(scale * x + shift)).numpy()
            np.testing.assert_allclose(y2, y, rtol=1e-8, atol=1e-8)
        # ... but not to scaling each feature differently
        y3 = ln(mg.tensor(x * np.linspace(1, 2, 16))).numpy()
        assert not np.allclose(y3, y, atol=1e-3)


def test_rms_norm_eps_none_is_the_machine_epsilon_of_the_dtype():
    x = mg.tensor(np.full((1, 4), 1e-4), dtype=mg.float32)
    m = nn.RMSNorm(4)
    expected = 1e-4 / np.sqrt(1e-8 + np.finfo(np.float32).eps)
    np.testing.assert_allclose(m(x).numpy(), expected, rtol=1e-5)
    np.testing.assert_allclose(nn.RMSNorm(4, eps=np.finfo(np.float32).eps)(x).numpy(), m(x).numpy())
    m64 = nn.RMSNorm(4).double()
    expected64 = 1e-4 / np.sqrt(1e-8 + np.finfo(np.float64).eps)
    np.testing.assert_allclose(m64(x.double()).numpy(), expected64, rtol=1e-12)


def test_group_norm_one_group_is_layer_norm_and_c_groups_is_instance_norm():
    x = mg.randn(2, 4, 3, dtype=mg.float64)
    gn1 = nn.GroupNorm(1, 4).double()(x).numpy()
    ln = mg.nn.functional.layer_norm(x, (4, 3)).numpy()
    np.testing.assert_allclose(gn1, ln, rtol=1e-12, atol=1e-12)
    gnc = nn.GroupNorm(4, 4).double()(x).numpy()
    xd = x.numpy()
    inst = (xd - xd.mean(-1, keepdims=True)) / np.sqrt(xd.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(gnc, inst, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "module, shape",
    [
        (lambda: nn.LayerNorm((3, 4)), (2, 3, 4)),
        (lambda: nn.RMSNorm(4), (5, 4)),
        (lambda: nn.GroupNorm(2, 4), (3, 4, 2, 2)),
        (lambda: nn.GroupNorm(2, 4), (3, 4)),
    ],
)
def test_modules_match_torch(module, shape, torch):
    m = module()
    t = getattr(torch.nn, type(m).__name__)(*_ctor_args(m))
    rng = np.random.default_rng(5)
    for (_, p), (_, pt) in zip(m.named_parameters(), t.named_parameters()):
        values = rng.standard_normal(p.shape).astype(np.float32)
        p.numpy()[...] = values
        with torch.no_grad():
            pt.copy_(torch.tensor(values))
    x = rng.standard_normal(shape).astype(np.float32)
    xm, xt = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, yt = m(xm), t(xt)
    np.testing.assert_allclose(y.numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-5)
    (y * y).sum().backward()
    (yt * yt).sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-4)
    for p, pt in zip(m.parameters(), t.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), pt.grad.numpy(), rtol=1e-4, atol=1e-4)


def _ctor_args(m):
    if isinstance(m, nn.GroupNorm):
        return (m.num_groups, m.num_channels)
    return (m.normalized_shape,)


def test_norm_impl_is_exported_from_nn():
    assert "norm_impl" in nn.normalization.__all__
    assert nn.norm_impl is mg.nn.norms.common.norm_impl
