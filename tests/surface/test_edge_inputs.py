"""Inputs at the edges of what an op takes (0-d, empty, bool, the legacy and rarely
used argument forms), which op_db's samples use: each gives PyTorch's result instead of
an exception from inside NumPy or Python, or raises PyTorch's error class."""

import numpy as np
import pytest

import minigrad as mg

CASES = {
    # integer powers with negative exponents: 1, +-1 for -1, else 0 (NumPy refuses)
    "pow int negative": lambda lib: lib.pow(
        lib.tensor([0, 1, -1, 2, -2]), lib.tensor([-1, -2, -3, -1, -2])
    ),
    "heaviside bool": lambda lib: lib.heaviside(
        lib.tensor([True, False]), lib.tensor([False, True])
    ),
    "signbit bool": lambda lib: lib.signbit(lib.tensor([True, False])),
    "square bool": lambda lib: lib.square(lib.tensor([True, False])),
    "sum_to_size 0-d bool": lambda lib: lib.tensor(True).sum_to_size(()),
    "argmax 0-d keepdim": lambda lib: lib.argmax(lib.tensor(3.0), 0, True),
    "prelu 0-d": lambda lib: lib.nn.functional.prelu(lib.tensor(-2.0), lib.tensor([0.25])),
    "flip dims=": lambda lib: lib.flip(lib.arange(6).reshape(2, 3), dims=(0, 1)),
    "repeat ()": lambda lib: lib.tensor(3.0).repeat(()),
    "tile ()": lambda lib: lib.tile(lib.tensor(3.0), ()),
    "tensor_split 0-d sections": lambda lib: lib.tensor_split(lib.arange(5), lib.tensor(2))[1],
    "tensor_split 1-d indices": lambda lib: lib.tensor_split(lib.arange(5), lib.tensor([1, 3]))[1],
    "aminmax other dim empty": lambda lib: lib.aminmax(lib.zeros(5, 0, 5), dim=0)[0],
    "searchsorted sorter": lambda lib: lib.searchsorted(
        lib.tensor([3.0, 1.0, 2.0]), lib.tensor([2.5, 0.0]), sorter=lib.tensor([1, 2, 0])
    ),
    "searchsorted batched": lambda lib: lib.searchsorted(
        lib.tensor([[1.0, 3, 5], [2, 4, 6]]), lib.tensor([[3.0], [4.0]]), side="right"
    ),
    "searchsorted empty": lambda lib: lib.searchsorted(lib.zeros(0, 0), lib.zeros(0, 0)),
    "unique_consecutive empty dim": lambda lib: lib.unique_consecutive(lib.zeros(5, 0, 5), dim=1),
    "masked_scatter broadcast": lambda lib: lib.masked_scatter(
        lib.zeros(3), lib.tensor([[True, False, True], [False, True, False]]), lib.arange(1.0, 7.0)
    ),
    "diff n=0 ignores prepend": lambda lib: lib.diff(lib.ones(2, 3), 0, 0, lib.zeros(1, 3)),
    "diff n past the length": lambda lib: lib.diff(lib.ones(3, 3), 6, 1),
    "gradient spacing None": lambda lib: lib.gradient(lib.tensor([1.0, 4.0, 9.0]), spacing=None)[0],
    "cat skips 1-D empty": lambda lib: lib.cat([lib.zeros(0), lib.ones(2, 2)], 1),
    "einsum repeated subscript": lambda lib: lib.einsum(
        "iji->j", lib.arange(18.0).reshape(3, 2, 3)
    ),
    "tensordot size-1 broadcast": lambda lib: lib.tensordot(
        lib.arange(2.0).reshape(1, 1, 2), lib.arange(6.0).reshape(3, 1, 2), dims=([0, 2], [0, 2])
    ),
    "tensorsolve dims": lambda lib: lib.linalg.tensorsolve(
        lib.eye(6).reshape(2, 3, 6) + 0.5, lib.arange(6.0).reshape(2, 3), dims=(0, 2)
    ),
    "vander 0-d": lambda lib: lib.linalg.vander(lib.tensor(2.0), N=3),
    "pad circular negative": lambda lib: lib.nn.functional.pad(
        lib.arange(4.0).reshape(1, 1, 4), (1, -1), mode="circular"
    ),
    "pad replicate cropped away": lambda lib: lib.nn.functional.pad(
        lib.arange(4.0).reshape(1, 1, 4), (-4, 5), mode="replicate"
    ),
    "pad reflect negative": lambda lib: lib.nn.functional.pad(
        lib.arange(5.0).reshape(1, 1, 5), (2, -1), mode="reflect"
    ),
    "gaussian_nll one variance": lambda lib: lib.nn.functional.gaussian_nll_loss(
        lib.arange(6.0).reshape(2, 3), lib.ones(2, 3), lib.full((1, 3), 2.0)
    ),
    "batch_norm empty vector": lambda lib: lib.nn.functional.batch_norm(
        lib.zeros(0), lib.zeros(0), lib.zeros(0), training=True
    ),
    "histogram decreasing edges": lambda lib: lib.histogram(
        lib.tensor([1.0, 1.5]), lib.tensor([2.0, 1.0])
    )[0],
}


@pytest.mark.parametrize("make", CASES.values(), ids=CASES.keys())
def test_matches_pytorch(torch, make):
    got, want = make(mg), make(torch)
    assert got.shape == tuple(want.shape)
    assert str(got.dtype) == str(want.dtype).removeprefix("torch.")
    g = got.numpy()
    # exact for the ops that only move or count values; a solve's rounding may differ
    rtol = 8 * np.finfo(g.dtype).eps if g.dtype.kind == "f" else 0
    np.testing.assert_allclose(g, want.numpy(), rtol=rtol, atol=0)


def test_einsum_differentiates_through_a_repeated_subscript():
    x = mg.tensor(np.arange(18.0).reshape(3, 2, 3), requires_grad=True)
    mg.einsum("iji->j", x).sum().backward()  # the sum of x[i, j, i]: 1 at those places
    want = np.zeros((3, 2, 3))
    for i in range(3):
        want[i, :, i] = 1
    np.testing.assert_array_equal(x.grad.numpy(), want)


def test_instance_norm_takes_bias_false_as_pytorch():
    m = mg.nn.InstanceNorm1d(3, affine=True, bias=False)
    assert list(m.state_dict()) == ["weight"] and m.bias is None
    assert m(mg.randn(2, 3, 5)).shape == (2, 3, 5)


def test_values_worked_out_by_hand():
    assert mg.pow(mg.tensor([0, 1, -1, 2]), mg.tensor([-1, -2, -3, -1])).tolist() == [0, 1, -1, 0]
    assert mg.square(mg.tensor([True, False])).tolist() == [1, 0]
    assert mg.argmax(mg.tensor(3.0), 0, True).shape == ()
    assert mg.tensor(3.0).repeat(()).item() == 3.0
    assert mg.diff(mg.ones(3, 3), 6, 1).shape == (3, 0)
    assert mg.cat([mg.zeros(0), mg.ones(2, 2)], 1).shape == (2, 2)
    assert mg.searchsorted(mg.tensor([3.0, 1.0, 2.0]), mg.tensor([2.5]),
                           sorter=mg.tensor([1, 2, 0])).tolist() == [2]  # fmt: skip


@pytest.mark.parametrize(
    "make, error",
    [
        (lambda: mg.tensor([2]) ** -1, RuntimeError),
        (lambda: mg.amax(mg.zeros(5, 0), 1), IndexError),
        (lambda: mg.tensor_split(mg.tensor(1.0), 2), RuntimeError),
        (lambda: mg.tensor_split(mg.arange(4), 0), RuntimeError),
        (lambda: mg.tensor_split(mg.arange(4), "a"), TypeError),
        (lambda: mg.hsplit(mg.tensor(1.0), 2), RuntimeError),
        (lambda: mg.vsplit(mg.zeros(4, 4), 0), RuntimeError),
        (lambda: mg.dsplit(mg.zeros(4, 4), 2), RuntimeError),
        (lambda: mg.searchsorted(mg.zeros(3), mg.zeros(2), right=True, side="left"), RuntimeError),
        (lambda: mg.diff(mg.tensor(1.0)), RuntimeError),
        (lambda: mg.gradient(mg.zeros(3, 3), dim=(1, 1)), RuntimeError),
        (lambda: mg.nn.functional.prelu(mg.zeros(2, 4), mg.ones(2, 4)), RuntimeError),
    ],
)
def test_refused_as_pytorch_refuses(make, error):
    with pytest.raises(error):
        make()
