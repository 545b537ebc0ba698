"""Shape operations on tensors with a size-0 dim, and the dims PyTorch's methods take one
by one. The expected shapes are PyTorch 2.13's (``torch.zeros(0, 3).chunk(2)`` is two
empty pieces, ``split`` of an empty dim is one), written out by hand; with PyTorch
installed the last test compares every case with it."""

import pytest

import minigrad as mg

# (what, call on a minigrad or torch module, the shapes PyTorch gives)
CASES = [
    ("chunk(2) of an empty dim", lambda m: m.zeros(0, 3).chunk(2), [(0, 3), (0, 3)]),
    ("chunk(1) of an empty dim", lambda m: m.zeros(0, 3).chunk(1), [(0, 3)]),
    ("split(1) of an empty dim", lambda m: m.zeros(0, 3).split(1), [(0, 3)]),
    ("split(0) of an empty dim", lambda m: m.zeros(0, 3).split(0), [(0, 3)]),
    ("split(2) of 5", lambda m: m.zeros(5, 3).split(2), [(2, 3), (2, 3), (1, 3)]),
    ("chunk(6) of 5", lambda m: m.zeros(5, 3).chunk(6), [(1, 3)] * 5),
    ("flatten(1) of (0, 3)", lambda m: m.zeros(0, 3).flatten(1), (0, 3)),
    ("flatten(1) of (3, 0, 2)", lambda m: m.zeros(3, 0, 2).flatten(1), (3, 0)),
    ("flatten() of (2, 0)", lambda m: m.zeros(2, 0).flatten(), (0,)),
    ("squeeze(0, 2)", lambda m: m.zeros(1, 3, 1).squeeze(0, 2), (3,)),
    ("count_nonzero(0, 1)", lambda m: m.ones(2, 3).count_nonzero(0, 1), ()),
    ("hsplit(1, 2)", lambda m: m.zeros(5, 3).hsplit(1, 2), [(5, 1), (5, 1), (5, 1)]),
    ("broadcast_to(3)", lambda m: m.zeros(1).broadcast_to(3), (3,)),
]


def _shapes(out):
    if isinstance(out, (tuple, list)):
        return [tuple(t.shape) for t in out]
    return tuple(out.shape)


@pytest.mark.parametrize("what, call, shapes", CASES, ids=[c[0] for c in CASES])
def test_shapes_are_pytorchs(what, call, shapes):
    assert _shapes(call(mg)) == shapes


def test_bad_split_and_chunk_sizes_are_refused():
    x = mg.zeros(5, 3)
    with pytest.raises(RuntimeError, match="split_size can only be 0"):
        x.split(0)
    with pytest.raises(RuntimeError, match="non-negative"):
        x.split(-1)
    with pytest.raises(RuntimeError, match="greater than 0"):
        x.chunk(0)


def test_the_pieces_carry_the_gradient_back():
    x = mg.arange(6.0).reshape(3, 2).requires_grad_()
    a, b = x.split(2)
    (a.sum() * 2 + b.sum()).backward()
    assert x.grad.tolist() == [[2.0, 2.0], [2.0, 2.0], [1.0, 1.0]]


@pytest.mark.parametrize("what, call, shapes", CASES, ids=[c[0] for c in CASES])
def test_shapes_match_torch(what, call, shapes, torch):
    assert _shapes(call(torch)) == shapes
