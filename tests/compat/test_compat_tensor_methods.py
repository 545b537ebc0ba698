"""Tensor methods and functions PyTorch programs use: formatting, round/float/int, new_*,
type_as, isnan/isinf/isfinite, allclose, pow, eye, unbind, repeat, index_select."""

import math

import numpy as np
import pytest

import minigrad as mg


def test_fstring_and_round_of_0d_tensors(torch):
    loss = mg.tensor(1.234567)
    tloss = torch.tensor(1.234567)
    for spec in (".4f", ".2e", "8.3f", ""):
        assert format(loss, spec) == format(tloss, spec)
    assert f"{loss:.4f}" == "1.2346" and f"{mg.tensor(7):03d}" == "007"
    assert f"{mg.ones(2)}" == str(mg.ones(2))
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        f"{mg.ones(2):.3f}"
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{torch.ones(2):.3f}"
    assert round(loss, 4) == 1.2346 and isinstance(round(loss, 4), float)
    assert round(mg.tensor(2.5)) == 2  # half to even, as Python's round
    np.testing.assert_array_equal(
        round(mg.tensor([1.25, 2.35], dtype=mg.float64), 1).numpy(), [1.2, 2.4]
    )
    assert float(loss) == pytest.approx(1.234567) and int(mg.tensor(3.9)) == int(tloss * 3)
    assert float(tloss) == pytest.approx(float(loss))


def test_fstring_round_float_int_without_torch():
    loss = mg.tensor(1.234567)
    assert (
        f"{loss:.4f}" == "1.2346" and f"{loss:.2e}" == "1.23e+00" and f"{mg.tensor(7):03d}" == "007"
    )
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        f"{mg.ones(2):.3f}"
    assert round(loss, 4) == 1.2346 and round(loss) == 1 and isinstance(round(loss), int)
    assert float(loss) == pytest.approx(1.234567) and int(mg.tensor(3.9)) == 3
    x = mg.tensor([1.0, math.nan, math.inf])
    assert mg.isnan(x).tolist() == [False, True, False] and x.isfinite().tolist() == [
        True,
        False,
        False,
    ]


def test_new_factories_keep_dtype(torch):
    x = mg.ones(2, dtype=mg.float64)
    t = torch.ones(2, dtype=torch.float64)
    pairs = [
        (x.new_zeros(2, 3), t.new_zeros(2, 3)),
        (x.new_ones((3,)), t.new_ones((3,))),
        (x.new_full((2,), 7), t.new_full((2,), 7)),
        (x.new_tensor([1, 2]), t.new_tensor([1, 2])),
        (x.new_zeros(2, dtype=mg.int64), t.new_zeros(2, dtype=torch.int64)),
    ]
    for ours, theirs in pairs:
        assert ours.shape == tuple(theirs.shape)
        assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "")
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert x.new_empty(4).shape == (4,)
    assert x.new_zeros(2, requires_grad=True).requires_grad


def test_type_as_view_as_and_checks(torch):
    a = mg.tensor([1, 2, 3])
    assert a.type_as(mg.zeros(1)).dtype == mg.float32
    assert a.view_as(mg.zeros(3, 1)).shape == (3, 1)
    data = [1.0, math.inf, -math.inf, math.nan, 0.0]
    for name in ("isnan", "isinf", "isfinite"):
        ours = getattr(mg, name)(mg.tensor(data))
        theirs = getattr(torch, name)(torch.tensor(data))
        assert ours.dtype == mg.bool and ours.tolist() == theirs.tolist()
    x = mg.tensor([1.0, 2.0])
    assert mg.allclose(x, x + 1e-9) and not mg.allclose(x, x + 1e-3)
    assert x.allclose(mg.tensor([1.0, math.nan]), equal_nan=False) is False
    with pytest.raises(ValueError, match=r"allclose: shapes \[2\] and \[3\]"):
        mg.allclose(x, mg.zeros(3))


def test_pow_and_eye(torch, rng):
    a = rng.uniform(0.5, 2.0, (2, 3))
    x = mg.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    for ours, theirs in [
        (mg.pow(x, 3), torch.pow(t, 3)),
        (mg.pow(2, x), torch.pow(2, t)),
        (mg.pow(x, x), torch.pow(t, t)),
    ]:
        np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-12)
    (mg.pow(x, 3) + mg.pow(2, x)).sum().backward()
    (torch.pow(t, 3) + torch.pow(2, t)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)
    np.testing.assert_array_equal(mg.eye(3).numpy(), torch.eye(3).numpy())
    np.testing.assert_array_equal(mg.eye(2, 4).numpy(), torch.eye(2, 4).numpy())
    assert mg.eye(2, dtype=mg.float64).dtype == mg.float64
    with pytest.raises(ValueError, match="n must be greater or equal to 0, got -1"):
        mg.eye(-1)


def test_unbind_repeat_index_select_match_torch(torch, rng):
    a = rng.standard_normal((3, 4))
    x, t = mg.tensor(a), torch.tensor(a)
    for ours, theirs in zip(mg.unbind(x, 1), torch.unbind(t, 1)):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    np.testing.assert_array_equal(x.repeat(2, 1, 2).numpy(), t.repeat(2, 1, 2).numpy())
    idx = [2, 0, 2]
    np.testing.assert_array_equal(
        mg.index_select(x, 0, mg.tensor(idx)).numpy(),
        torch.index_select(t, 0, torch.tensor(idx)).numpy(),
    )


def test_small_aliases():
    x = mg.tensor([1.0, -2.0])
    assert x.is_floating_point() and not mg.tensor([1]).is_floating_point()
    assert x.element_size() == 4 and x.nelement() == 2 and mg.numel(x) == 2
    assert x.half().dtype == mg.float16 and x.int().dtype == mg.int32 and mg.int == mg.int32
    np.testing.assert_array_equal(mg.square(x).numpy(), [1.0, 4.0])
    assert isinstance(x.shape, mg.Size) and mg.get_default_dtype() == mg.float32


def test_remainder_and_floor_divide_match_torch(torch, rng):
    for a, b in [([5, -3, 7], 3), ([5.5, -3.2, 0.5], 2.0), ([5.5, -3.2, 0.5], -1.5)]:
        assert (mg.tensor(a) % b).tolist() == pytest.approx((torch.tensor(a) % b).tolist())
        assert (mg.tensor(a) // b).tolist() == (torch.tensor(a) // b).tolist()
    assert (7 % mg.tensor([2, 3])).tolist() == [1, 1]
    x = rng.uniform(-5, 5, 4)
    c = rng.uniform(0.5, 2, 4)
    xm, cm = mg.tensor(x, requires_grad=True), mg.tensor(c, requires_grad=True)
    xt, ct = torch.tensor(x, requires_grad=True), torch.tensor(c, requires_grad=True)
    assert mg.gradcheck(lambda a, b: a.remainder(b), (xm, cm))
    (xm % cm).sum().backward()
    (xt % ct).sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy())
    np.testing.assert_allclose(cm.grad.numpy(), ct.grad.numpy())
