"""The pool of reusable output buffers (minigrad/nn/norms/buffers.py)."""

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.nn.norms.buffers import BufferPool


def _address(a) -> int:
    return a.__array_interface__["data"][0]


def test_an_array_in_use_is_never_handed_out_again():
    pool = BufferPool()
    a = pool.empty((4, 3), np.float32)
    b = pool.empty((4, 3), np.float32)
    assert _address(a) != _address(b)
    view = a.reshape(12)  # a view keeps its base in use
    address = _address(a)
    del a
    c = pool.empty((4, 3), np.float32)
    assert _address(c) not in (address, _address(b))
    del view
    d = pool.empty((4, 3), np.float32)
    assert _address(d) == address  # released now: reused


def test_a_tensor_keeps_its_array_in_use():
    pool = BufferPool()
    t = mg.Tensor._make(pool.empty((5,), np.float64), False, None)
    assert _address(pool.empty((5,), np.float64)) != _address(t.numpy())


def test_shapes_and_dtypes_do_not_mix():
    pool = BufferPool()
    a = pool.empty((6,), np.float32)
    address = _address(a)
    del a
    assert pool.empty((6,), np.float64).dtype == np.float64
    assert pool.empty((3, 2), np.float32).shape == (3, 2)
    assert _address(pool.empty((6,), np.float32)) == address


def test_memory_cap_drops_least_recently_used_free_arrays():
    pool = BufferPool(max_bytes=1000)
    big = pool.empty((2000,), np.uint8)  # larger than the cap: allocated, not kept
    assert big.shape == (2000,) and pool.nbytes == 0
    pool.empty((100,), np.float64)  # 800 bytes, released at once
    kept = pool.empty((50,), np.float32)  # 200 bytes: fits beside it
    assert pool.nbytes == 1000
    pool.empty((60,), np.float32)  # needs room: the free 800-byte array goes
    assert pool.nbytes == 440
    assert kept.shape == (50,)
    pool.clear()
    assert pool.nbytes == 0


def test_outputs_kept_by_the_caller_are_not_overwritten():
    rng = np.random.default_rng(0)
    xs = [mg.tensor(rng.standard_normal((300, 200)).astype(np.float32), requires_grad=True)
          for _ in range(3)]  # fmt: skip
    w = mg.ones(200, requires_grad=True)
    outputs, grads = [], []
    for x in xs:
        y = F.layer_norm(x, 200, w)
        outputs.append((y, y.numpy().copy()))
        g = mg.autograd.grad(y, [x, w], mg.ones(300, 200))
        grads.append([(t, t.numpy().copy()) for t in g])
    for y, saved in outputs:
        np.testing.assert_array_equal(y.numpy(), saved)
    for pairs in grads:
        for t, saved in pairs:
            np.testing.assert_array_equal(t.numpy(), saved)
