"""``nn.utils.rnn``: padding and packing variable-length batches, compared with PyTorch
(values, lengths, the packed layout, gradients through every function) and pinned by hand
for what a reader can check without it."""

import numpy as np
import pytest

import minigrad as mg
from minigrad.nn.utils import rnn

LENGTHS = [3, 5, 1, 4]


def _sequences(lib, lengths=LENGTHS, tail=(2,), seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((n, *tail)) for n in lengths]
    return arrays, [lib.tensor(a, requires_grad=True) for a in arrays]


def test_pad_sequence_by_hand():
    a, b = mg.tensor([1.0, 2.0, 3.0]), mg.tensor([4.0, 5.0])
    assert rnn.pad_sequence([a, b], batch_first=True).tolist() == [[1, 2, 3], [4, 5, 0]]
    assert rnn.pad_sequence([a, b], padding_value=-1).tolist() == [[1, 4], [2, 5], [3, -1]]
    left = rnn.pad_sequence([a, b], batch_first=True, padding_side="left")
    assert left.tolist() == [[1, 2, 3], [0, 4, 5]]
    with pytest.raises(ValueError, match="padding_side"):
        rnn.pad_sequence([a, b], padding_side="middle")


def test_pack_sequence_by_hand():
    a, b, c = mg.tensor([1.0, 2.0, 3.0]), mg.tensor([4.0, 5.0]), mg.tensor([6.0])
    packed = rnn.pack_sequence([a, b, c])
    assert packed.data.tolist() == [1, 4, 6, 2, 5, 3]  # time step by time step
    assert packed.batch_sizes.tolist() == [3, 2, 1] and packed.sorted_indices is None
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        rnn.pack_sequence([b, a, c])
    unsorted = rnn.pack_sequence([b, a, c], enforce_sorted=False)
    assert unsorted.sorted_indices.tolist() == [1, 0, 2]
    assert [s.tolist() for s in rnn.unpack_sequence(unsorted)] == [[4, 5], [1, 2, 3], [6]]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_matches_pytorch(torch, batch_first, side):
    arrays, ours = _sequences(mg)
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y = rnn.pad_sequence(ours, batch_first=batch_first, padding_value=0.5, padding_side=side)
    ty = torch.nn.utils.rnn.pad_sequence(
        theirs, batch_first=batch_first, padding_value=0.5, padding_side=side
    )
    np.testing.assert_array_equal(y.numpy(), ty.detach().numpy())
    g = np.random.default_rng(1).standard_normal(y.shape)
    (y * mg.tensor(g)).sum().backward()
    (ty * torch.tensor(g)).sum().backward()
    for m, t in zip(ours, theirs):
        np.testing.assert_array_equal(m.grad.numpy(), t.grad.numpy())


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [False, True])
def test_pack_then_pad_matches_pytorch(torch, batch_first, enforce_sorted):
    lengths = sorted(LENGTHS, reverse=True) if enforce_sorted else LENGTHS
    arrays, _ = _sequences(mg, lengths)
    padded = torch.nn.utils.rnn.pad_sequence(
        [torch.tensor(a) for a in arrays], batch_first=batch_first
    ).numpy()
    x, tx = mg.tensor(padded, requires_grad=True), torch.tensor(padded, requires_grad=True)
    p = rnn.pack_padded_sequence(x, lengths, batch_first, enforce_sorted)
    tp = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, batch_first, enforce_sorted)
    np.testing.assert_array_equal(p.data.numpy(), tp.data.detach().numpy())
    assert p.batch_sizes.tolist() == tp.batch_sizes.tolist()
    for ours, theirs in (
        (p.sorted_indices, tp.sorted_indices),
        (p.unsorted_indices, tp.unsorted_indices),
    ):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            assert ours.tolist() == theirs.tolist()
    y, n = rnn.pad_packed_sequence(p, batch_first, padding_value=-2.0, total_length=6)
    ty, tn = torch.nn.utils.rnn.pad_packed_sequence(tp, batch_first, -2.0, total_length=6)
    np.testing.assert_array_equal(y.numpy(), ty.detach().numpy())
    assert n.tolist() == tn.tolist() and n.dtype == mg.int64
    g = np.random.default_rng(2).standard_normal(y.shape)
    (y * mg.tensor(g)).sum().backward()
    (ty * torch.tensor(g)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


def test_unpad_and_unpack_match_pytorch(torch):
    arrays, ours = _sequences(mg)
    padded = rnn.pad_sequence(ours, batch_first=True)
    for m, t in zip(
        rnn.unpad_sequence(padded, mg.tensor(LENGTHS), batch_first=True),
        torch.nn.utils.rnn.unpad_sequence(
            torch.tensor(padded.detach().numpy()), torch.tensor(LENGTHS), batch_first=True
        ),
    ):
        np.testing.assert_array_equal(m.detach().numpy(), t.numpy())
    packed = rnn.pack_sequence(ours, enforce_sorted=False)
    for m, a in zip(rnn.unpack_sequence(packed), arrays):
        np.testing.assert_array_equal(m.detach().numpy(), a)


def test_errors_are_pytorchs(torch):
    for lib in (mg, torch):
        with pytest.raises(RuntimeError, match="greater than 0"):
            lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(3, 2), [2, 0])
        packed = lib.nn.utils.rnn.pack_sequence([lib.ones(3), lib.ones(2)])
        with pytest.raises(ValueError, match="total_length"):
            lib.nn.utils.rnn.pad_packed_sequence(packed, total_length=2)


def test_packed_sequence_is_a_named_tuple_with_conversions():
    packed = rnn.pack_sequence([mg.ones(2, dtype=mg.float64), mg.ones(1, dtype=mg.float64)])
    data, batch_sizes, sorted_indices, unsorted_indices = packed
    assert packed.float().data.dtype == mg.float32 and packed.to(mg.float64) is packed
    assert not packed.is_cuda and rnn.invert_permutation(None) is None
    assert rnn.invert_permutation(mg.tensor([2, 0, 1])).tolist() == [1, 2, 0]


def test_the_import_paths_programs_use():
    from minigrad.nn.utils.rnn import pack_padded_sequence, pad_sequence  # noqa: F401

    assert mg.nn.utils.rnn.pad_sequence is rnn.pad_sequence
