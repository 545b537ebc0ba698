"""Views and joins: reshape, permute, expand, cat, stack, split (minigrad/functions/shape.py)."""

import numpy as np
import pytest

import minigrad as mg

SHAPE = (2, 3, 4)

# name -> function applied to a (2, 3, 4) tensor; the same code runs in torch
VIEWS = {
    "reshape": lambda t: t.reshape(4, 6),
    "reshape_tuple": lambda t: t.reshape((6, -1)),
    "reshape_-1": lambda t: t.reshape(-1),
    "view": lambda t: t.view(3, 8),
    "view_-1": lambda t: t.view(2, -1, 2),
    "flatten": lambda t: t.flatten(),
    "flatten_1": lambda t: t.flatten(1),
    "flatten_0_1": lambda t: t.flatten(0, 1),
    "flatten_-2": lambda t: t.flatten(-2, -1),
    "unflatten": lambda t: t.unflatten(2, (2, 2)),
    "transpose": lambda t: t.transpose(0, 2),
    "transpose_neg": lambda t: t.transpose(-1, -2),
    "transpose_same": lambda t: t.transpose(1, 1),
    "permute": lambda t: t.permute(2, 0, 1),
    "permute_tuple": lambda t: t.permute((1, 2, 0)),
    "permute_neg": lambda t: t.permute(-1, -3, -2),
    "mT": lambda t: t.mT,
    "unsqueeze_0": lambda t: t.unsqueeze(0),
    "unsqueeze_-1": lambda t: t.unsqueeze(-1),
    "unsqueeze_2": lambda t: t.unsqueeze(2),
    "squeeze_noop": lambda t: t.squeeze(1),
    "unsqueeze_squeeze": lambda t: t.unsqueeze(1).squeeze(1),
    "squeeze_all": lambda t: t.unsqueeze(0).unsqueeze(-1).squeeze(),
    "squeeze_tuple": lambda t: t.unsqueeze(0).unsqueeze(-1).squeeze((0, -1)),
    "expand": lambda t: t.unsqueeze(1).expand(2, 5, 3, 4),
    "expand_-1": lambda t: t[:, :1].expand(-1, 3, -1),
    "expand_new_dims": lambda t: t.expand(3, 2, 3, 4),
    "expand_tuple": lambda t: t[:1].expand((4, 3, 4)),
    "expand_as": lambda t: t[:1].expand_as(t),
    "contiguous": lambda t: t.contiguous(),
}


@pytest.mark.parametrize("name", VIEWS)
def test_view_gradcheck(name, leaf, check_grads):
    check_grads(VIEWS[name], leaf(SHAPE))


@pytest.mark.parametrize("name", VIEWS)
def test_view_matches_torch(name, rng, parity):
    parity(VIEWS[name], VIEWS[name], rng.standard_normal(SHAPE))


@pytest.mark.parametrize(
    "fn", [lambda t: t.T, lambda t: t.t(), lambda t: t.mT], ids=["T", "t", "mT"]
)
def test_matrix_transposes(fn, rng, parity, check_grads):
    x = rng.standard_normal((3, 5))
    parity(fn, fn, x)
    check_grads(fn, mg.tensor(x, requires_grad=True))


def test_T_reverses_all_dims_and_t_of_1d_is_identity(leaf):
    x = leaf(SHAPE)
    assert x.T.shape == (4, 3, 2)
    np.testing.assert_array_equal(x.T.numpy(), x.numpy().transpose(2, 1, 0))
    v = leaf((3,))
    assert v.t().shape == (3,)


def test_functional_forms(leaf):
    x = leaf(SHAPE)
    assert mg.reshape(x, (4, 6)).shape == (4, 6)
    assert mg.flatten(x, 1).shape == (2, 12)
    assert mg.transpose(x, 0, 1).shape == (3, 2, 4)
    assert mg.permute(x, (2, 1, 0)).shape == (4, 3, 2)
    assert mg.unsqueeze(x, 0).shape == (1, 2, 3, 4)
    assert mg.squeeze(x.unsqueeze(0), 0).shape == SHAPE


def test_flatten_of_0d_gives_1_element():
    assert mg.tensor(2.0).flatten().shape == (1,)


# --------------------------------------------------------------------------- cat, stack
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_gradcheck_and_torch(dim, rng, parity, check_grads):
    shapes = [list(SHAPE) for _ in range(3)]
    for s, n in zip(shapes, (1, 2, 3), strict=True):
        s[dim] = n
    arrays = [rng.standard_normal(s) for s in shapes]

    def mg_fn(*ts):
        return mg.cat(ts, dim)

    def torch_fn(*ts):
        import torch

        return torch.cat(ts, dim)

    parity(mg_fn, torch_fn, *arrays)
    parity(mg_fn, torch_fn, *arrays, grad=[True, False, True])
    tensors = [mg.tensor(a, requires_grad=i != 1) for i, a in enumerate(arrays)]
    check_grads(mg_fn, *tensors)


@pytest.mark.parametrize("dim", [0, 1, 3, -1])
def test_stack_gradcheck_and_torch(dim, rng, parity, check_grads):
    arrays = [rng.standard_normal(SHAPE) for _ in range(3)]

    def mg_fn(*ts):
        return mg.stack(ts, dim)

    def torch_fn(*ts):
        import torch

        return torch.stack(ts, dim)

    parity(mg_fn, torch_fn, *arrays)
    check_grads(mg_fn, *[mg.tensor(a, requires_grad=True) for a in arrays])


def test_cat_promotes_like_torch(torch):
    pairs = [
        (np.array([1, 2]), np.array([0.5], dtype=np.float32)),
        (np.array([1, 2]), np.array([True])),
        (np.array([1.0], dtype=np.float32), np.array([2.0])),
    ]
    for a, b in pairs:
        y = mg.cat([mg.tensor(a), mg.tensor(b)])
        ref = torch.cat([torch.tensor(a), torch.tensor(b)])
        assert str(y.dtype) == str(ref.dtype).replace("torch.", "")
        np.testing.assert_array_equal(y.numpy(), ref.numpy())


def test_cat_accepts_a_single_tensor_and_keeps_grad(leaf):
    x = leaf((2, 3))
    y = mg.cat([x], 1)
    assert y.requires_grad
    np.testing.assert_array_equal(y.numpy(), x.numpy())


# --------------------------------------------------------------------------- split, chunk
@pytest.mark.parametrize(
    "fn",
    [
        lambda t: t.split(2, 2),
        lambda t: t.split([1, 3], -1),
        lambda t: t.split(2, 1),  # last piece smaller
        lambda t: t.chunk(2, 1),
        lambda t: t.chunk(3, 0),
    ],
    ids=["split_even", "split_sizes", "split_rest", "chunk", "chunk_more_than_size"],
)
def test_split_chunk_match_torch(fn, rng, torch, check_grads):
    x = rng.standard_normal(SHAPE)
    pieces = fn(mg.tensor(x))
    ref = fn(torch.tensor(x))
    assert len(pieces) == len(ref)
    for p, r in zip(pieces, ref, strict=True):
        np.testing.assert_array_equal(p.numpy(), r.numpy())

    def weighted_sum(t):
        return sum(((i + 1) * p).sum() for i, p in enumerate(fn(t)))

    check_grads(weighted_sum, mg.tensor(x, requires_grad=True))


def test_split_with_wrong_sizes_raises():
    with pytest.raises(ValueError, match="add up"):
        mg.ones(2, 5).split([2, 2], 1)


# ------------------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    "call, error, pattern",
    [
        (lambda t: t.reshape(5, 5), ValueError, r"\[5, 5\].*\[2, 3, 4\]"),
        (lambda t: t.view(7), ValueError, r"\[7\].*\[2, 3, 4\]"),
        (lambda t: t.reshape(-1, -1), ValueError, r"\[-1, -1\]"),
        (lambda t: t.reshape(2, -3), ValueError, "size"),
        (lambda t: t.expand(5, 3, 4), ValueError, r"\[2, 3, 4\].*\[5, 3, 4\]"),
        (lambda t: t.expand(3, 4), ValueError, "number of sizes"),
        (lambda t: t.permute(0, 1), ValueError, "permute"),
        (lambda t: t.permute(0, 0, 1), ValueError, "permutation"),
        (lambda t: t.transpose(0, 3), IndexError, "out of range"),
        (lambda t: t.unsqueeze(4), IndexError, "out of range"),
        (lambda t: t.unsqueeze(-5), IndexError, "out of range"),
        (lambda t: t.squeeze(3), IndexError, "out of range"),
        (lambda t: t.flatten(3), IndexError, "out of range"),
        (lambda t: t.flatten(2, 1), ValueError, "start_dim"),
        (lambda t: t.t(), ValueError, "2 dims"),
        (lambda t: t.reshape(24).mT, ValueError, "2 dims"),
        (lambda t: mg.cat([t, t], 3), IndexError, "out of range"),
        (lambda t: mg.cat([t, t[0]], 0), ValueError, r"\[2, 3, 4\].*\[3, 4\]"),
        (lambda t: mg.cat([t, t[:, :2]], 0), ValueError, r"\[2, 3, 4\].*\[2, 2, 4\]"),
        (lambda t: mg.cat([], 0), ValueError, "non-empty"),
        (lambda t: mg.cat([t.sum(), t.sum()]), ValueError, "zero-dim"),
        (lambda t: mg.stack([t, t[:1]]), ValueError, r"\[2, 3, 4\].*\[1, 3, 4\]"),
        (lambda t: mg.stack([t, t], 4), IndexError, "out of range"),
    ],
)
def test_shape_errors(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call(mg.ones(*SHAPE))
