"""Embedding / F.embedding / F.one_hot: PyTorch parity, repeated indices, padding_idx, errors."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck, gradgradcheck
from minigrad.unsupported import UnsupportedError


@pytest.mark.parametrize("padding_idx", [None, 2, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_pytorch_with_repeats_and_padding(torch, rng, padding_idx, dtype):
    te = torch.nn.Embedding(7, 5, padding_idx=padding_idx).to(getattr(torch, np.dtype(dtype).name))
    me = nn.Embedding(7, 5, padding_idx=padding_idx).to(dtype)
    me.load_state_dict(te.state_dict())
    idx = np.array([[0, 2, 2, 6], [6, 6, 1, 2]])  # repeats and the padding rows
    g = rng.standard_normal(idx.shape + (5,)).astype(dtype)
    ty = te(torch.from_numpy(idx))
    ty.backward(torch.from_numpy(g))
    my = me(mg.tensor(idx))
    my.backward(mg.tensor(g))
    np.testing.assert_array_equal(my.numpy(), ty.detach().numpy())
    rtol = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(me.weight.grad.numpy(), te.weight.grad.numpy(), rtol=rtol, atol=rtol)
    if padding_idx is not None:
        assert np.all(me.weight.grad.numpy()[padding_idx] == 0)


def test_init_normal_with_zero_padding_row():
    mg.manual_seed(0)
    e = nn.Embedding(1000, 64, padding_idx=3)
    w = e.weight.numpy()
    assert w.dtype == np.float32
    assert np.all(w[3] == 0)
    assert abs(w.mean()) < 0.01 and abs(w.std() - 1.0) < 0.01


def test_gradcheck_and_second_order(rng):
    w = mg.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    idx = mg.tensor([[1, 1, 3], [0, 1, 2]])
    assert gradcheck(lambda w: F.embedding(idx, w), (w,))
    # (with padding_idx the gradient deliberately disagrees with finite differences:
    # that row is used in the forward but frozen; the parity test above covers it)
    # the output is linear in w, so its second derivative is zero; through a square it is not
    assert gradgradcheck(lambda w: F.embedding(idx, w, padding_idx=1) ** 2, (w,))


def test_errors():
    e = nn.Embedding(5, 2)
    with pytest.raises(IndexError, match="index 5 is out of range"):
        e(mg.tensor([0, 5]))
    with pytest.raises(IndexError, match="index -1"):
        e(mg.tensor([-1]))
    with pytest.raises(TypeError, match="integer"):
        e(mg.tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match="padding_idx"):
        nn.Embedding(5, 2, padding_idx=5)


@pytest.mark.parametrize("cls", [nn.Embedding, nn.EmbeddingBag])
def test_both_tables_check_their_options_alike(cls):
    with pytest.raises(ValueError, match=f"{cls.__name__}: padding_idx 5 must be within"):
        cls(5, 2, padding_idx=5)  # not wrapped around to row 0
    assert cls(5, 2, padding_idx=-1).padding_idx == 4
    with pytest.raises(ValueError, match=r"_weight has shape \[2, 2\], expected \[5, 2\]"):
        cls(5, 2, _weight=np.ones((2, 2), dtype=np.float32))
    with pytest.raises(UnsupportedError, match=rf"nn.{cls.__name__}\(sparse=True\)"):
        cls(5, 2, sparse=True)
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        cls(5, -1)
    table = cls(5, 2, padding_idx=1)
    assert (table.weight.numpy()[1] == 0).all() and (table.weight.numpy()[0] != 0).all()


def test_repr_matches_pytorch(torch):
    assert repr(nn.Embedding(10, 3, padding_idx=0)) == repr(
        torch.nn.Embedding(10, 3, padding_idx=0)
    )
    assert repr(nn.Embedding(10, 3)) == repr(torch.nn.Embedding(10, 3))


def test_one_hot_matches_pytorch(torch):
    idx = np.array([[0, 3], [2, 1]])
    expected = torch.nn.functional.one_hot(torch.from_numpy(idx)).numpy()
    out = F.one_hot(mg.tensor(idx))
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(
        F.one_hot(mg.tensor(idx), 6).numpy(),
        torch.nn.functional.one_hot(torch.from_numpy(idx), 6).numpy(),
    )
    with pytest.raises(ValueError, match="out of range"):
        F.one_hot(mg.tensor([4]), 3)


def test_from_pretrained_shares_and_freezes(torch):
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    t = mg.tensor(w)
    e = nn.Embedding.from_pretrained(t)
    assert not e.weight.requires_grad and e.num_embeddings == 4 and e.embedding_dim == 3
    assert np.shares_memory(e.weight.numpy(), t.numpy())  # shared, not copied
    np.testing.assert_array_equal(e(mg.tensor([3, 0])).numpy(), w[[3, 0]])
    trainable = nn.Embedding.from_pretrained(w, freeze=False, padding_idx=1)
    assert trainable.weight.requires_grad and trainable.padding_idx == 1
    assert repr(trainable) == repr(
        torch.nn.Embedding.from_pretrained(torch.from_numpy(w), freeze=False, padding_idx=1)
    )
    with pytest.raises(ValueError, match="2-dimensional"):
        nn.Embedding.from_pretrained(np.ones(3))


def test_sparse_gradients_are_refused_with_their_category():
    with pytest.raises(mg.UnsupportedError, match="sparse"):
        F.embedding(mg.tensor([0]), mg.randn(5, 2), sparse=True)
    with pytest.raises(NotImplementedError, match="sparse"):
        nn.Embedding(5, 2, sparse=True)


def test_max_norm_renormalizes_the_rows_read_in_place():
    w = mg.tensor([[3.0, 4.0], [0.5, 0.0], [6.0, 8.0]], dtype=mg.float64)
    out = F.embedding(mg.tensor([0, 1]), w, max_norm=1.0)
    scale = 1.0 / (5.0 + 1e-7)  # PyTorch's max_norm / (norm + 1e-7)
    np.testing.assert_allclose(out.numpy(), [[3 * scale, 4 * scale], [0.5, 0.0]])
    np.testing.assert_allclose(w.numpy()[0], [3 * scale, 4 * scale])  # the table itself
    assert w.numpy()[2].tolist() == [6.0, 8.0]  # a row not read is left alone
    assert w._version == 1


def test_scale_grad_by_freq_divides_by_the_count_in_the_batch():
    w = mg.tensor(np.ones((3, 2)), requires_grad=True)
    F.embedding(mg.tensor([0, 0, 0, 2]), w, scale_grad_by_freq=True).sum().backward()
    assert w.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]  # 3 * (1/3); 1 * 1


def test_max_norm_and_scale_grad_by_freq_match_pytorch(torch):
    rng = np.random.default_rng(0)
    table = rng.standard_normal((6, 3)) * 2
    idx = np.array([[0, 2, 2], [5, 0, 0]])
    results = []
    for lib, functional in ((mg, F), (torch, torch.nn.functional)):
        w = lib.tensor(table.copy(), requires_grad=True)
        with lib.no_grad():
            out = functional.embedding(lib.tensor(idx), w, max_norm=1.5, norm_type=3.0)
        out = functional.embedding(lib.tensor(idx), w, scale_grad_by_freq=True)
        (out * lib.tensor(np.arange(18.0).reshape(2, 3, 3))).sum().backward()
        results.append((w.detach().numpy().copy(), out.detach().numpy(), w.grad.numpy()))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize(
    "cls, kwargs",
    [
        (nn.Embedding, dict(padding_idx=0, max_norm=1.0)),
        (nn.Embedding, dict(norm_type=3.0, scale_grad_by_freq=True)),
        (nn.EmbeddingBag, dict(padding_idx=1, max_norm=2.0, norm_type=1.0)),
        (nn.EmbeddingBag, dict(scale_grad_by_freq=True, mode="sum")),
    ],
)
def test_repr_shows_the_table_options_as_pytorch(torch, cls, kwargs):
    ours, theirs = cls(5, 3, **kwargs), getattr(torch.nn, cls.__name__)(5, 3, **kwargs)
    assert repr(ours) == repr(theirs)


def test_embedding_bag_max_mode_refuses_frequency_scaling_as_pytorch():
    with pytest.raises(ValueError, match="max mode does not support scaling the gradient"):
        F.embedding_bag(mg.tensor([[0, 1]]), mg.randn(3, 2), mode="max", scale_grad_by_freq=True)


def test_embedding_bag_max_norm_renormalizes_the_rows_it_uses_as_pytorch(torch, rng):
    w = rng.standard_normal((6, 3)) * 3
    index = np.array([[0, 2, 2], [5, 1, 0]])
    ours, theirs = mg.tensor(w.copy()), torch.tensor(w.copy())
    out = F.embedding_bag(mg.tensor(index), ours, max_norm=1.5, mode="sum")
    ref = torch.nn.functional.embedding_bag(torch.tensor(index), theirs, max_norm=1.5, mode="sum")
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)  # renormalized in place


def test_embedding_bag_scale_grad_by_freq_divides_each_rows_gradient_by_its_count():
    """Computed by hand: with mode='sum' and a cotangent of ones, each use of a row sends
    ones back, and the row's gradient is (its uses) / (its count in the batch) = 1 for
    every row used. (PyTorch's CPU kernel differs when counts are mixed.)"""
    w = mg.randn(6, 2, dtype=mg.float64, requires_grad=True)
    index = mg.tensor([0, 2, 2, 5, 1, 2, 0, 0])
    offsets = mg.tensor([0, 3, 5])
    F.embedding_bag(index, w, offsets, mode="sum", scale_grad_by_freq=True).sum().backward()
    expected = np.array([[1, 1], [1, 1], [1, 1], [0, 0], [0, 0], [1, 1]], dtype=float)
    np.testing.assert_array_equal(w.grad.numpy(), expected)
