"""Every operation PyTorch documents as a view returns one: it shares the input's memory
and version counter, writing into it writes the input, and ``_base`` names the tensor
that owns the memory (PyTorch's "Tensor Views" page lists them)."""

import numpy as np
import pytest

import minigrad as mg

VIEWS = {
    "diagonal": lambda lib, x: x.diagonal(),
    "diagonal offset": lambda lib, x: x.diagonal(1),
    "torch.diagonal": lambda lib, x: lib.diagonal(x, -1, 1, 0),
    "linalg.diagonal": lambda lib, x: lib.linalg.diagonal(x),
    "unfold": lambda lib, x: x.unfold(1, 2, 1),
    "unfold step": lambda lib, x: x.unfold(0, 1, 2),
    "narrow": lambda lib, x: x.narrow(1, 1, 2),
    "as_strided": lambda lib, x: x.as_strided((2, 2), (1, 3)),
    "select": lambda lib, x: x.select(1, 0),
    "x[1]": lambda lib, x: x[1],
    "x[1:, ::2]": lambda lib, x: x[1:, ::2],
    "unbind": lambda lib, x: x.unbind(0)[1],
    "split": lambda lib, x: x.split(2, 1)[0],
    "split_with_sizes": lambda lib, x: x.split_with_sizes([1, 2], 0)[1],
    "chunk": lambda lib, x: x.chunk(2, 0)[0],
    "tensor_split": lambda lib, x: x.tensor_split(2, 1)[1],
    "hsplit": lambda lib, x: x.hsplit(3)[0],
    "vsplit": lambda lib, x: x.vsplit(3)[2],
    "movedim": lambda lib, x: x.movedim(0, 1),
    "moveaxis": lambda lib, x: x.moveaxis(0, 1),
    "t": lambda lib, x: x.t(),
    "T": lambda lib, x: x.T,
    "mT": lambda lib, x: x.mT,
    "H": lambda lib, x: x.H,
    "mH": lambda lib, x: x.mH,
    "adjoint": lambda lib, x: x.adjoint(),
    "transpose": lambda lib, x: x.transpose(0, 1),
    "swapaxes": lambda lib, x: x.swapaxes(0, 1),
    "swapdims": lambda lib, x: x.swapdims(0, 1),
    "permute": lambda lib, x: x.permute(1, 0),
    "view": lambda lib, x: x.view(9),
    "view_as": lambda lib, x: x.view_as(lib.zeros(9)),
    "reshape": lambda lib, x: x.reshape(9),
    "flatten": lambda lib, x: x.flatten(),
    "ravel": lambda lib, x: x.ravel(),
    "squeeze": lambda lib, x: x[None].squeeze(0),
    "unsqueeze": lambda lib, x: x.unsqueeze(0),
    "unflatten": lambda lib, x: x.view(9).unflatten(0, (3, 3)),
}


def _fresh():
    return mg.arange(9.0, dtype=mg.float64).reshape(3, 3).clone()


@pytest.mark.parametrize("make", VIEWS.values(), ids=VIEWS.keys())
def test_a_view_shares_memory_version_and_base(make):
    x = _fresh()
    y = make(mg, x)
    assert np.shares_memory(y.numpy(), x.numpy())
    assert y._base is x and x._base is None
    y.add_(100)
    assert x._version == 1 and y._version == 1
    assert (x.numpy() >= 100).sum() == len(set(_positions(make)))


def _positions(make):
    """The input's elements a view reaches: found by viewing a tensor of their indices."""
    return make(mg, mg.arange(9.0).reshape(3, 3)).numpy().astype(int).ravel().tolist()


@pytest.mark.parametrize("name", ["diagonal", "unfold", "select"])
def test_a_view_of_a_view_has_the_first_base(name):
    x = _fresh()
    assert VIEWS[name](mg, x.t())._base is x


def test_writing_a_diagonal_through_the_view_writes_the_matrix():
    a = mg.zeros(3, 3)
    a.diagonal().add_(1.0)
    assert a.tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    a.diagonal(1).fill_(5.0)
    assert a[0, 1].item() == 5.0 and a[1, 2].item() == 5.0


def test_in_place_through_a_view_is_differentiated_through_the_base():
    a = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x = a * 1
    x.diagonal().mul_(3)
    x.sum().backward()
    assert a.grad.tolist() == [[3.0, 1.0], [1.0, 3.0]]

    a = mg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    x = a * 1
    x.unfold(0, 2, 1)[:, 0].mul_(2)  # overlapping windows: elements 0, 1, 2 once each
    x.sum().backward()
    assert a.grad.tolist() == [2.0, 2.0, 2.0, 1.0]


def test_a_saved_tensor_changed_through_a_diagonal_view_is_caught():
    a = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = a.exp()  # exp saves its output
    y.diagonal().zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("name", ["diagonal", "unfold"])
def test_the_view_gradients_pass_gradcheck(name):
    x = mg.tensor(np.random.default_rng(0).standard_normal((4, 5)), requires_grad=True)
    fn = {"diagonal": lambda v: v.diagonal(1, 1, 0) * 2, "unfold": lambda v: v.unfold(1, 3, 1)}[
        name
    ]
    assert mg.gradcheck(fn, (x,))
    assert mg.gradgradcheck(lambda v: fn(v) ** 2, (x,))


@pytest.mark.parametrize("name", list(VIEWS))
def test_pytorch_agrees_these_are_views(torch, name):
    x = torch.arange(9.0, dtype=torch.float64).reshape(3, 3).clone()
    assert VIEWS[name](torch, x)._base is x
