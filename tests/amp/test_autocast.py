"""``mg.autocast`` on the CPU (minigrad/amp/autocast_mode.py, rounding.py): the operations
on PyTorch's CPU autocast list compute in bfloat16 (or float16) by rounding float32 values,
forward and backward, and give PyTorch's numbers; everything else is left in float32, as
PyTorch leaves it; the state answers PyTorch's queries, per thread."""

import threading

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.amp.rounding import round_array, round_bfloat16


def _bits(a):
    return np.asarray(a, dtype=np.float32).view(np.uint32)


# ------------------------------------------------------------------ the rounding
def _reference_bfloat16(x: np.ndarray) -> np.ndarray:
    """Round to nearest, ties to even, from the definition: of the two bfloat16 values
    around x (x with the low 16 bits cleared, and the next one up in magnitude), the one
    nearer in float64 arithmetic; at a tie, the one whose last kept bit is 0."""
    bits = _bits(x)
    low = (bits & np.uint32(0xFFFF0000)).view(np.float32)
    high = ((bits & np.uint32(0xFFFF0000)) + np.uint32(0x10000)).view(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        d_low = np.abs(x.astype(np.float64) - low.astype(np.float64))
        d_high = np.abs(high.astype(np.float64) - x.astype(np.float64))
    low_even = ((_bits(low) >> 16) & 1) == 0
    pick_low = (d_low < d_high) | ((d_low == d_high) & low_even)
    return np.where(np.isnan(x), x, np.where(pick_low, low, high))


def test_bfloat16_rounding_is_round_to_nearest_even():
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2**32, size=200_000, dtype=np.uint64).astype(np.uint32)
    ties = (bits & np.uint32(0xFFFF0000)) | np.uint32(0x8000)  # exactly half a unit
    x = np.concatenate([bits, ties]).view(np.float32)
    x = x[np.isfinite(x) & (np.abs(x) < 3e38)]  # the top binade is checked below
    np.testing.assert_array_equal(_bits(round_bfloat16(x)), _bits(_reference_bfloat16(x)))


def test_bfloat16_rounding_special_values():
    big = np.float32(3.4e38)  # past bfloat16's largest finite value (about 3.39e38)
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, big, -big, 1e-40], dtype=np.float32)
    r = round_bfloat16(x)
    assert np.isposinf(r[0]) and np.isneginf(r[1]) and np.isnan(r[2])
    assert _bits(r[3]) == 0 and _bits(r[4]) == 0x80000000
    assert np.isposinf(r[5]) and np.isneginf(r[6])  # overflow rounds to infinity
    assert (_bits(r[7]) & 0xFFFF) == 0
    payload_nan = np.array([0x7F800001], dtype=np.uint32).view(np.float32)
    assert np.isnan(round_bfloat16(payload_nan))[0]  # not turned into infinity


def test_rounding_matches_pytorchs_conversion(torch):
    rng = np.random.default_rng(1)
    x = np.concatenate(
        [rng.standard_normal(10_000), rng.standard_normal(1000) * 1e30, [65504.5, 1 / 3]]
    ).astype(np.float32)
    theirs = torch.from_numpy(x).to(torch.bfloat16).float().numpy()
    np.testing.assert_array_equal(round_array(x, "bfloat16"), theirs)
    theirs16 = torch.from_numpy(x).to(torch.float16).float().numpy()
    np.testing.assert_array_equal(round_array(x, "float16"), theirs16)


# ------------------------------------------------------------------ the operations
def _pair(torch, *shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    ours = [mg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    return ours, theirs


PRODUCTS = {
    "linear": lambda lib, x, w, b: lib.nn.functional.linear(x, w, b),
    "matmul": lambda lib, x, w, b: lib.matmul(x, w.T) + 0,
    "operator": lambda lib, x, w, b: (x @ w.T) @ w,  # the weight used twice
    "bmm": lambda lib, x, w, b: lib.bmm(x.reshape(2, 3, 8), w.reshape(2, 8, 8)),
    "addmm": lambda lib, x, w, b: lib.addmm(b[:6], x.reshape(6, 8)[:, :6], w[:6, :6]),
    "baddbmm": lambda lib, x, w, b: lib.baddbmm(b[:8], x.reshape(2, 3, 8), w.reshape(2, 8, 8)),
    "einsum": lambda lib, x, w, b: lib.einsum("ij,kj->ik", x, w),
}


@pytest.mark.parametrize("name", sorted(PRODUCTS))
@pytest.mark.parametrize("kind", ["bfloat16", "float16"])
def test_products_give_pytorchs_numbers_forward_and_backward(torch, name, kind):
    """Bit for bit: the inputs rounded, float32 accumulation, the result rounded, and
    every gradient reaching a rounded value rounded again, as in PyTorch."""
    (x, w, b), (tx, tw, tb) = _pair(torch, (6, 8), (16, 8), (16,))
    op = PRODUCTS[name]
    with mg.autocast("cpu", dtype=getattr(mg, kind)):
        y = op(mg, x, w, b)
    with torch.autocast("cpu", dtype=getattr(torch, kind)):
        ty = op(torch, tx, tw, tb)
    assert ty.dtype == getattr(torch, kind) and y.dtype == mg.float32
    np.testing.assert_array_equal(y.numpy(), ty.float().detach().numpy())
    g = np.random.default_rng(2).standard_normal(y.shape).astype(np.float32)
    (y * mg.tensor(g)).sum().backward()
    (ty.float() * torch.from_numpy(g)).sum().backward()
    for ours, theirs in ((x, tx), (w, tw), (b, tb)):
        if theirs.grad is None:
            assert ours.grad is None
        else:
            np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())


def test_vecdot_is_a_product_too_within_one_bfloat16_rounding(torch):
    """``linalg.vecdot`` is on PyTorch's list of products autocast lowers; PyTorch's
    kernel adds in another order, so the rounded sums may differ by one unit of
    bfloat16 (at most 2^-7 relative)."""
    (x, w), (tx, tw) = _pair(torch, (6, 8), (6, 8))
    with mg.autocast("cpu", dtype=mg.bfloat16):
        y = mg.linalg.vecdot(x, w)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        ty = torch.linalg.vecdot(tx, tw)
    assert ty.dtype == torch.bfloat16
    np.testing.assert_array_equal(round_bfloat16(y.numpy()), y.numpy())  # bfloat16 values
    np.testing.assert_allclose(y.numpy(), ty.float().detach().numpy(), rtol=2**-7)


def test_attention_within_bfloat16_rounding(torch):
    """PyTorch's CPU attention kernel keeps the scores in float32 and rounds the softmax
    weights P before the product with V; minigrad rounds q, k, v and the output only. So
    the two differ by PyTorch's rounding of P (at most 2^-9 of each p, so 2^-9 P|V| in
    the output) and each side's rounding of the output (half a unit, 2^-9 |o| each): the
    bound below allows twice that."""
    (q, k, v), (tq, tk, tv) = _pair(torch, (2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 8), seed=3)
    with mg.autocast("cpu"):
        o = F.scaled_dot_product_attention(q, k, v)
    with torch.autocast("cpu"):
        to = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv)
    theirs = to.float().detach().numpy()
    qr, kr, vr = (round_bfloat16(t.numpy()).astype(np.float64) for t in (q, k, v))
    scores = qr @ kr.swapaxes(-1, -2) / np.sqrt(8)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    bound = 2.0**-8 * (p @ np.abs(vr)) + 2.0**-8 * np.abs(theirs)
    assert np.all(np.abs(o.numpy() - theirs) <= bound)
    assert (_bits(o.numpy()) & 0xFFFF == 0).all()  # bfloat16 values, not float32 ones
    assert (o.numpy() == theirs).mean() > 0.5  # most are PyTorch's to the last bit


def test_a_training_step_is_bfloat16_not_float32(torch):
    """An MLP's loss and gradients under autocast: nearer PyTorch's bfloat16 run than
    PyTorch's bfloat16 run is to float32 (the test that would catch a silent float32)."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((32, 16)).astype(np.float32)
    y = rng.integers(0, 10, 32)
    layers = [rng.standard_normal(s).astype(np.float32) * 0.3 for s in ((64, 16), (64,), (10, 64))]

    def run(lib, autocast):
        w1, b1, w2 = (lib.tensor(a, requires_grad=True) for a in layers)
        ctx = lib.autocast("cpu") if autocast else lib.autocast("cpu", enabled=False)
        with ctx:
            h = lib.nn.functional.gelu(lib.nn.functional.linear(lib.tensor(x), w1, b1))
            logits = lib.nn.functional.linear(h, w2)
        loss = lib.nn.functional.cross_entropy(logits.float(), lib.tensor(y))
        loss.backward()
        return np.concatenate([[loss.item()], w1.grad.numpy().ravel(), w2.grad.numpy().ravel()])

    ours, bf16, fp32 = run(mg, True), run(torch, True), run(torch, False)
    assert np.abs(ours - bf16).max() < 0.1 * np.abs(fp32 - bf16).max()


def test_other_operations_and_other_dtypes_are_left_alone():
    x = mg.tensor(np.full((2, 2), 1 / 3, dtype=np.float32))
    d = mg.tensor(np.full((2, 2), 1 / 3))
    with mg.autocast("cpu"):
        assert (x * 3).numpy().tolist() == (x.numpy() * 3).tolist()  # elementwise: float32
        assert (d @ d).numpy().tolist() == (d.numpy() @ d.numpy()).tolist()  # float64 kept
        r = x @ x
    assert (_bits(r.numpy()) & 0xFFFF == 0).all() and r.dtype == mg.float32
    assert ((x @ x).numpy() == x.numpy() @ x.numpy()).all()  # off again after the region


# ------------------------------------------------------------------ the state
def test_state_answers_pytorchs_queries_and_nests(torch):
    for lib in (mg, torch):
        assert not lib.is_autocast_enabled("cpu")
        assert lib.get_autocast_dtype("cpu") == lib.bfloat16
        with lib.autocast("cpu", dtype=lib.float16):
            assert lib.is_autocast_enabled("cpu") and lib.get_autocast_dtype("cpu") == lib.float16
            with lib.autocast("cpu", enabled=False):
                assert not lib.is_autocast_enabled("cpu")
            assert lib.is_autocast_enabled("cpu")
        assert not lib.is_autocast_enabled("cpu")
        assert lib.get_autocast_dtype("cpu") == lib.bfloat16
        assert not lib.is_autocast_enabled()  # no argument: CUDA's


def test_decorator_form_and_threads():
    @mg.autocast("cpu")
    def inside():
        return mg.is_autocast_enabled("cpu")

    seen = []
    with mg.autocast("cpu"):
        t = threading.Thread(target=lambda: seen.append(mg.is_autocast_enabled("cpu")))
        t.start()
        t.join()
    assert inside() and not mg.is_autocast_enabled("cpu") and seen == [False]


def test_unsupported_dtype_warns_and_disables(torch):
    for lib in (mg, torch):
        with pytest.warns(UserWarning, match="CPU Autocast only supports"):
            ctx = lib.autocast("cpu", dtype=lib.float64)
        with ctx:
            assert not lib.is_autocast_enabled("cpu")


def test_custom_fwd_casts_inputs_and_custom_bwd_restores_the_state():
    states = []

    class Square(mg.autograd.Function):
        @staticmethod
        @mg.amp.custom_fwd(device_type="cpu", cast_inputs=mg.float64)
        def forward(ctx, x):
            states.append((mg.is_autocast_enabled("cpu"), x.dtype))
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @mg.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            states.append(mg.is_autocast_enabled("cpu"))
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = mg.tensor([1.5, 2.0], requires_grad=True)
    with mg.autocast("cpu"):
        y = Square.apply(x)
    y.sum().backward()
    assert states == [(False, mg.float64), True]
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 4.0])


def test_float16_overflow_is_inf_without_a_warning():
    """A product beyond float16's range is inf, as in PyTorch, and library code warns
    nothing (NumPy would warn "overflow encountered in cast")."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isinf(round_array(np.array([1e6, -1e6], np.float32), "float16")).all()
