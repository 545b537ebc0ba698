"""Edge cases of the norms (issue 14): eps=0 on a constant row, overflow, half precision,
empty batches. Each is checked against what PyTorch does (when installed) and across the
three implementations."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F

IMPLS = ("fused", "reference", "composite")


def _norms(eps):
    """(name, function of a [rows, n] float Tensor) for the norms over the last dim."""
    return {
        "layer_norm": lambda x, impl: F.layer_norm(x, x.shape[-1], eps=eps, impl=impl),
        "rms_norm": lambda x, impl: F.rms_norm(x, x.shape[-1], eps=eps, impl=impl),
        "group_norm": lambda x, impl: F.group_norm(
            x.reshape(x.shape[0], 2, -1), 2, eps=eps, impl=impl
        ).reshape(x.shape),
    }


@pytest.mark.parametrize("name", ["layer_norm", "rms_norm", "group_norm"])
@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_eps_zero_on_a_constant_row_gives_nan_not_an_error(name, impl, dtype):
    rows = np.array([[3.0] * 8, np.arange(8.0)])
    if name == "rms_norm":
        rows[0] = 0.0  # RMSNorm's degenerate row: all zeros
    x = mg.tensor(rows, dtype=dtype, requires_grad=True)
    y = _norms(0.0)[name](x, impl)
    y.backward(mg.ones_like(y))
    assert np.isnan(y.numpy()[0]).all() and np.isfinite(y.numpy()[1]).all()
    assert np.isnan(x.grad.numpy()[0]).all()


def test_eps_zero_matches_pytorch(torch):
    x = np.array([[3.0] * 8, np.arange(8.0)])
    ours = F.layer_norm(mg.tensor(x), 8, eps=0.0).numpy()
    theirs = torch.nn.functional.layer_norm(torch.tensor(x), (8,), eps=0.0).numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("name", ["layer_norm", "group_norm"])
def test_float64_overflow_gives_nan_in_every_implementation(impl, name):
    x = mg.tensor(np.random.default_rng(0).standard_normal((3, 8)) * 1e300)
    y = _norms(1e-5)[name](x, impl).numpy()
    assert np.isnan(y).all()


def test_float64_overflow_matches_pytorch(torch):
    x = np.random.default_rng(0).standard_normal((3, 8)) * 1e300
    theirs = torch.nn.functional.layer_norm(torch.tensor(x), (8,)).numpy()
    assert np.isnan(theirs).all()
    assert np.isnan(F.layer_norm(mg.tensor(x), 8).numpy()).all()


def _huge_rows():
    """float32 rows (issue 25, item 11): three whose sum of squares is beyond float32
    (two near 1e30, one constant; +-1.5e19), then one around 1e12 whose sum fits."""
    rng = np.random.default_rng(1)
    return np.stack(
        [
            rng.standard_normal(8) * 1e30,
            np.full(8, 1e30),
            np.tile([1.5e19, -1.5e19], 4),
            rng.standard_normal(8) * 1e12,
        ]
    ).astype(np.float32)


def _layer_norm_and_grad(rows, impl, lib=None):
    """``(y, x.grad)`` of a float32 LayerNorm with a weight, for the cotangent 1..8."""
    dy = np.arange(1.0, 9.0, dtype=np.float32) * np.ones_like(rows)
    w = np.linspace(0.5, 2.0, 8, dtype=np.float32)
    if lib is not None:  # PyTorch
        x = lib.tensor(rows, requires_grad=True)
        y = lib.nn.functional.layer_norm(x, (8,), lib.tensor(w))
        y.backward(lib.tensor(dy))
        return y.detach().numpy(), x.grad.numpy()
    x = mg.tensor(rows, requires_grad=True)
    y = F.layer_norm(x, 8, mg.tensor(w), impl=impl)
    y.backward(mg.tensor(dy))
    return y.detach().numpy(), x.grad.numpy()


def _exact(rows: np.ndarray, name: str) -> np.ndarray:
    """The float64 answer (weight 1) of each norm over rows of 8 (groups of 4)."""
    x = rows.astype(np.float64)
    if name == "rms_norm":
        return x / np.sqrt((x * x).mean(1, keepdims=True) + 1e-5)
    if name == "group_norm":
        x = x.reshape(len(x), 2, 4)
    mean = x.mean(-1, keepdims=True)
    y = (x - mean) / np.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-5)
    return y.reshape(len(rows), 8)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("name", ["layer_norm", "rms_norm", "group_norm"])
def test_float32_norms_near_1e30_are_finite_and_right_in_every_implementation(impl, name):
    """The statistics of float32 rows are formed in float64, so squares of values near
    1e20 and above do not overflow: each row is normalized, and the gradient (whose chain
    holds rstd^3, 1e-90 for such a row) is finite too."""
    rows = _huge_rows()
    x = mg.tensor(rows, requires_grad=True)
    eps = 1e-5
    y = _norms(eps)[name](x, impl)
    y.backward(mg.tensor(np.arange(1.0, 9.0, dtype=np.float32) * np.ones_like(rows)))
    assert np.isfinite(y.numpy()).all() and np.isfinite(x.grad.numpy()).all()
    np.testing.assert_allclose(y.numpy(), _exact(rows, name), rtol=1e-5, atol=1e-5)


def test_float32_layer_norm_near_1e30_gradients_agree_in_every_implementation():
    rows = _huge_rows()
    grads = {impl: _layer_norm_and_grad(rows, impl)[1] for impl in IMPLS}
    for impl, grad in grads.items():
        for i in range(len(rows)):  # each row at its own scale (1e-30 near 1e30)
            scale = np.abs(grads["fused"][i]).max() or 1.0
            np.testing.assert_allclose(grad[i] / scale, grads["fused"][i] / scale, atol=1e-5,
                                       err_msg=f"{impl} row {i}")  # fmt: skip


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_float32_layer_norm_near_1e30_matches_pytorch_where_pytorch_is_finite(torch):
    """PyTorch sums float32 squares in float32: near 1e30 it gives NaN, at +-1.5e19 it
    gives zeros (its sum overflowed to inf, and 1/sqrt(inf) = 0); minigrad normalizes
    those rows (checked against float64 above). The row near 1e12 is compared."""
    rows = _huge_rows()
    y_torch, grad_torch = _layer_norm_and_grad(rows, None, torch)
    y, grad = _layer_norm_and_grad(rows, "fused")
    assert np.isnan(y_torch[:2]).all() and (y_torch[2] == 0).all()  # PyTorch's overflow
    np.testing.assert_allclose(y[3], y_torch[3], rtol=1e-5, atol=1e-5)
    scale = np.abs(grad_torch[3]).max()
    np.testing.assert_allclose(grad[3] / scale, grad_torch[3] / scale, atol=1e-5)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("name", ["layer_norm", "rms_norm"])
def test_float16_statistics_are_accumulated_in_float32(impl, name):
    """Inputs around 100-300: float16 sums of them lose whole units; the result must be
    within float16 rounding of the float64 answer (PyTorch: within 2e-3)."""
    x = (200 + 50 * np.random.default_rng(2).standard_normal((8, 64))).astype(np.float16)
    norm = _norms(1e-5)[name]
    y = norm(mg.tensor(x, requires_grad=True), impl)
    assert y.dtype == mg.float16
    want = norm(mg.tensor(x.astype(np.float64)), "reference").numpy()
    np.testing.assert_allclose(y.numpy().astype(np.float64), want, atol=4e-3, rtol=2e-3)


def test_float16_matches_pytorch(torch):
    x = (200 + 50 * np.random.default_rng(2).standard_normal((8, 64))).astype(np.float16)
    ours = F.layer_norm(mg.tensor(x), 64).numpy().astype(np.float64)
    theirs = torch.nn.functional.layer_norm(torch.tensor(x), (64,)).numpy().astype(np.float64)
    np.testing.assert_allclose(ours, theirs, atol=2e-3)


def test_rms_norm_eps_none_in_float16_follows_pytorch():
    """PyTorch computes a float16 RMSNorm in float32 and takes float32's machine epsilon
    for eps=None (not float16's, which would swamp small inputs)."""
    x = np.full((1, 4), 1e-4, dtype=np.float16)
    y = F.rms_norm(mg.tensor(x), 4).numpy()
    v = np.float64(x[0, 0])
    want = v / np.sqrt(v * v + np.finfo(np.float32).eps)
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=2e-3)


def test_rms_norm_eps_none_in_float16_matches_pytorch(torch):
    x = np.full((2, 4), 1e-4, dtype=np.float16)
    theirs = torch.nn.functional.rms_norm(torch.tensor(x), (4,)).numpy()
    np.testing.assert_allclose(F.rms_norm(mg.tensor(x), 4).numpy(), theirs, rtol=2e-3)


@pytest.mark.parametrize("module", ["LayerNorm", "RMSNorm"])
def test_float16_input_into_a_float32_layer(module):
    layer = getattr(nn, module)(16)  # float32 parameters
    x = mg.tensor(np.random.default_rng(3).standard_normal((4, 16)), dtype=mg.float16,
                  requires_grad=True)  # fmt: skip
    y = layer(x)
    assert y.dtype == mg.float16
    y.sum().backward()
    assert x.grad.dtype == mg.float16 and layer.weight.grad.dtype == mg.float32
    want = layer(x.float()).numpy()
    np.testing.assert_allclose(y.numpy().astype(np.float32), want, atol=2e-3)


def test_float16_input_into_a_float32_layer_matches_pytorch(torch):
    x = np.random.default_rng(3).standard_normal((4, 16)).astype(np.float16)
    w = np.linspace(0.5, 1.5, 16).astype(np.float32)
    ours = F.layer_norm(mg.tensor(x), 16, mg.tensor(w), mg.zeros(16)).numpy()
    theirs = torch.nn.functional.layer_norm(
        torch.tensor(x), (16,), torch.tensor(w), torch.zeros(16)
    ).numpy()
    assert ours.dtype == theirs.dtype == np.float16
    np.testing.assert_allclose(ours.astype(np.float32), theirs.astype(np.float32), atol=2e-3)


def test_a_float64_weight_for_a_float32_input_is_still_refused():
    with pytest.raises(TypeError, match="weight has dtype float64 but the input has dtype float32"):
        F.layer_norm(mg.randn(2, 4), 4, mg.ones(4, dtype=mg.float64))


@pytest.mark.parametrize("impl", IMPLS)
def test_group_norm_on_zero_examples_gives_an_empty_result(impl):
    gn = nn.GroupNorm(2, 4)
    x = mg.zeros(0, 4, 3, requires_grad=True)
    with nn.norm_impl(impl):
        y = gn(x)
    assert y.shape == (0, 4, 3)
    y.sum().backward()
    assert x.grad.shape == (0, 4, 3)
    np.testing.assert_array_equal(gn.weight.grad.numpy(), np.zeros(4))


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("shape", [(0, 3), (0, 3, 5)])
def test_batch_norm_training_on_an_empty_batch(impl, shape):
    """As PyTorch: an empty output, the running statistics untouched, the batch counted."""
    bn = nn.BatchNorm1d(3)
    bn.running_mean.numpy()[:] = 0.5
    x = mg.zeros(*shape, requires_grad=True)
    with nn.norm_impl(impl):
        y = bn(x)
    assert y.shape == shape
    y.sum().backward()
    np.testing.assert_array_equal(bn.running_mean.numpy(), [0.5] * 3)
    np.testing.assert_array_equal(bn.running_var.numpy(), [1.0] * 3)
    assert int(bn.num_batches_tracked.item()) == 1
    np.testing.assert_array_equal(bn.weight.grad.numpy(), np.zeros(3))


def test_empty_batches_match_pytorch(torch):
    ours, theirs = nn.BatchNorm1d(3), torch.nn.BatchNorm1d(3)
    assert ours(mg.zeros(0, 3)).shape == tuple(theirs(torch.zeros(0, 3)).shape)
    assert int(ours.num_batches_tracked.item()) == int(theirs.num_batches_tracked.item())
    g = torch.nn.functional.group_norm(torch.zeros(0, 4, 3), 2)
    assert F.group_norm(mg.zeros(0, 4, 3), 2).shape == tuple(g.shape)


def test_one_value_per_channel_is_still_an_error():
    with pytest.raises(ValueError, match="expected more than 1 value per channel"):
        nn.BatchNorm1d(3)(mg.randn(1, 3))


def _rms_norm_grad(rows, impl, lib=None):
    """``x.grad`` of an RMSNorm over the last dim (no weight) for the cotangent 1..8."""
    dy = np.arange(1.0, 9.0) * np.ones(rows.shape)
    if lib is not None:  # PyTorch
        x = lib.tensor(rows, requires_grad=True)
        lib.nn.functional.rms_norm(x, (8,)).backward(lib.tensor(dy.astype(rows.dtype)))
        return x.grad.numpy()
    x = mg.tensor(rows, requires_grad=True)
    F.rms_norm(x, 8, impl=impl).backward(mg.tensor(dy.astype(rows.dtype)))
    return x.grad.numpy()


def _large_float32_rows():
    """float32 rows around 1e15..1e18: rstd^3 (1e-45..1e-54) is below float32's range,
    though every factor of the gradient, and the gradient itself, is in it."""
    base = np.random.default_rng(3).standard_normal((4, 8))
    return (base * np.array([[1e15], [1e16], [1e17], [1e18]])).astype(np.float32)


@pytest.mark.parametrize("impl", IMPLS)
def test_float32_rms_norm_gradient_of_large_inputs_does_not_underflow(impl):
    rows = _large_float32_rows()
    want = _rms_norm_grad(rows.astype(np.float64), "reference")
    got = _rms_norm_grad(rows, impl)
    scale = np.abs(want).max(axis=1, keepdims=True)
    np.testing.assert_allclose(got / scale, want / scale, atol=1e-5, err_msg=impl)


def test_float32_rms_norm_gradient_of_large_inputs_matches_pytorch_in_float64(torch):
    # Against PyTorch's float64 answer: its own float32 backward forms rstd^3 and loses
    # the second term here (its gradient is exactly dy * rstd).
    rows = _large_float32_rows()
    theirs = _rms_norm_grad(rows.astype(np.float64), None, torch)
    scale = np.abs(theirs).max(axis=1, keepdims=True)
    for impl in IMPLS:
        ours = _rms_norm_grad(rows, impl)
        np.testing.assert_allclose(ours / scale, theirs / scale, atol=1e-5, err_msg=impl)
