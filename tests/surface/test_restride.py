"""In-place shape changes, raw strided views and the legacy constructors
(minigrad/surface/restride.py), and ``view`` as a real view (minigrad/functions/shape.py)."""

import numpy as np
import pytest

import minigrad as mg
from minigrad.gradcheck import gradcheck

# (method, args): in-place shape changes, each applied to a (2, 3, 1) tensor
INPLACE_VIEWS = [
    ("squeeze_", ()),
    ("squeeze_", (2,)),
    ("unsqueeze_", (0,)),
    ("transpose_", (0, 1)),
    ("swapaxes_", (0, 2)),
    ("swapdims_", (1, 2)),
    ("as_strided_", ((3, 2), (1, 3))),
]


def _data():
    return np.arange(6.0).reshape(2, 3, 1)


@pytest.mark.parametrize("name,args", INPLACE_VIEWS)
def test_inplace_views_change_the_tensor_itself(name, args):
    x = mg.tensor(_data())
    before = x.numpy()
    out = getattr(x, name)(*args)
    assert out is x
    assert np.shares_memory(x.numpy(), before)
    expected = {
        "squeeze_": lambda a, *r: a.squeeze(*r),
        "unsqueeze_": lambda a, d: np.expand_dims(a, d),
        "transpose_": lambda a, i, j: np.swapaxes(a, i, j),
        "swapaxes_": lambda a, i, j: np.swapaxes(a, i, j),
        "swapdims_": lambda a, i, j: np.swapaxes(a, i, j),
        "as_strided_": lambda a, s, st: np.lib.stride_tricks.as_strided(
            a, s, tuple(k * a.itemsize for k in st)
        ),
    }[name](_data(), *args)
    np.testing.assert_array_equal(x.numpy(), expected)


@pytest.mark.parametrize("name,args", INPLACE_VIEWS)
def test_inplace_views_match_pytorch_with_gradients(torch, name, args):
    data = _data()
    ours_leaf = mg.tensor(data, requires_grad=True)
    theirs_leaf = torch.tensor(data, requires_grad=True)
    ours, theirs = ours_leaf * 2.0, theirs_leaf * 2.0
    getattr(ours, name)(*args)
    getattr(theirs, name)(*args)
    assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
    weights = np.arange(1.0, 1.0 + ours.numel()).reshape(ours.shape)
    (ours * mg.tensor(weights)).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(ours_leaf.grad.numpy(), theirs_leaf.grad.numpy())


def test_t_inplace_on_a_matrix_and_refusals():
    x = mg.arange(6.0).reshape(2, 3)
    x.t_()
    assert x.shape == (3, 2) and x.stride() == (1, 3)
    leaf = mg.zeros(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        leaf.t_()
    with mg.no_grad():
        leaf.t_()  # allowed without recording, as in PyTorch
    assert leaf.shape == (3, 2)


def test_a_view_of_a_base_reshaped_in_place_refuses_a_stale_history():
    leaf = mg.ones(2, 3, requires_grad=True)
    y = leaf * 2.0
    row = y[0]
    y.t_()
    y.mul_(3.0)  # y's history changes: row would have to re-make its own from it
    with pytest.raises(RuntimeError, match="reshaped in place"):
        _ = row.grad_fn


def test_as_strided_is_a_view_with_pytorch_gradients(torch):
    cases = [((3, 4), (2, 1), 1), ((2, 2), (0, 1), None), ((4,), (5,), 0)]
    for size, stride, offset in cases:
        ours_leaf = mg.tensor(np.arange(1.0, 25.0), requires_grad=True)
        theirs_leaf = torch.tensor(np.arange(1.0, 25.0), requires_grad=True)
        ours = mg.as_strided(ours_leaf * 1.0, size, stride, offset)
        theirs = torch.as_strided(theirs_leaf * 1.0, size, stride, offset)
        np.testing.assert_array_equal(ours.numpy(), theirs.detach().numpy())
        (ours**2).sum().backward()
        (theirs**2).sum().backward()
        np.testing.assert_allclose(ours_leaf.grad.numpy(), theirs_leaf.grad.numpy())


def test_as_strided_of_an_offset_view_and_an_expanded_input(torch):
    for lib in (mg, torch):
        base = lib.tensor(np.arange(12.0).reshape(3, 4))
        lib_out = base[1:].as_strided((2, 3), (4, 1))
        assert lib_out.tolist() == [[4.0, 5.0, 6.0], [8.0, 9.0, 10.0]]
    a = np.arange(1.0, 4.0).reshape(3, 1)
    ours_leaf, theirs_leaf = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ours_leaf.expand(3, 4).as_strided((2, 2), (1, 1)).sum().backward()
    theirs_leaf.expand(3, 4).as_strided((2, 2), (1, 1)).sum().backward()
    np.testing.assert_allclose(ours_leaf.grad.numpy(), theirs_leaf.grad.numpy())


def test_as_strided_writes_reach_the_base_and_gradcheck_passes():
    x = mg.zeros(6)
    v = x.as_strided((2, 2), (3, 1))
    v.fill_(1.0)
    assert x.tolist() == [1.0, 1.0, 0.0, 1.0, 1.0, 0.0]
    assert v._version == x._version == 1
    leaf = mg.tensor(np.random.default_rng(0).normal(size=8), requires_grad=True)
    assert gradcheck(lambda t: (t * 1.0).as_strided((3, 3), (2, 1), 1) ** 2, (leaf,))


def test_as_strided_out_of_bounds_raises_as_pytorch():
    with pytest.raises(RuntimeError, match="out of bounds for storage"):
        mg.zeros(4).as_strided((3,), (2,))
    with pytest.raises(RuntimeError, match="Negative strides"):
        mg.zeros(4).as_strided((2,), (-1,))


def test_view_is_a_real_view_or_raises():
    x = mg.arange(6.0).reshape(2, 3)
    v = x.view(3, 2)
    v[0, 0] = 100.0
    assert x[0, 0].item() == 100.0
    assert x.view(-1).shape == (6,)
    with pytest.raises(RuntimeError, match="Use .reshape"):
        x.t().view(6)
    assert x.t().reshape(6).tolist() == [100.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    assert x.t().contiguous().view(6).tolist() == x.t().reshape(6).tolist()
    assert x[:, :2].view(2, 2, 1).shape == (2, 2, 1)  # splitting a dim keeps its stride
    assert x.view(mg.int16).shape == (2, 6)  # a dtype: the bytes reinterpreted


def test_view_matches_pytorch_on_which_layouts_allow_it(torch):
    shapes = [(6,), (3, 2), (2, 1, 3), (1, 6)]
    makers = [
        lambda lib: lib.arange(24.0).reshape(4, 6)[1:3],
        lambda lib: lib.arange(24.0).reshape(4, 6).t()[:, :2],
        lambda lib: lib.arange(24.0).reshape(2, 3, 4).permute(0, 2, 1)[:, :3, :2],
    ]
    for make in makers:
        ours, theirs = make(mg), make(torch)
        for shape in shapes + [(ours.numel(),)]:
            try:
                expected = theirs.view(shape).tolist()
            except RuntimeError:
                with pytest.raises(RuntimeError):
                    ours.view(shape)
            else:
                assert ours.view(shape).tolist() == expected


def test_resize_keeps_or_grows_memory():
    x = mg.arange(6.0)
    before = x.numpy()
    x.resize_(2, 2)
    assert x.tolist() == [[0.0, 1.0], [2.0, 3.0]] and np.shares_memory(x.numpy(), before)
    x.resize_(3, 3)
    assert x.shape == (3, 3) and x.reshape(-1)[:4].tolist() == [0.0, 1.0, 2.0, 3.0]
    y = mg.zeros(5).resize_as_(mg.zeros(1, 5))
    assert y.shape == (1, 5) and mg.resize_as_(y, mg.zeros(5)).shape == (5,)
    z = mg.arange(4.0)
    assert z.resize(2, 2).shape == (2, 2) and z.shape == (4,)
    assert z.resize_as(mg.zeros(2, 2)).shape == (2, 2)
    with pytest.raises(RuntimeError, match="require grad"):
        mg.zeros(2, requires_grad=True).resize_(4)


@pytest.mark.parametrize("sizes", [(-1,), (2, -1), (-3, 2)])
def test_resize_refuses_negative_sizes(sizes):
    # -1 infers a size in view() and reshape(); resize_ has nothing to infer it from
    # (PyTorch raises RuntimeError too)
    x = mg.arange(6.0)
    with pytest.raises(RuntimeError, match="non-negative"):
        x.resize_(*sizes)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_set_shares_the_source():
    src = mg.arange(6.0)
    x = mg.zeros(1)
    x.set_(src)
    assert x.is_set_to(src)
    x.set_(src, 1, (2, 2), (2, 1))
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    src[1] = 50.0
    assert x[0, 0].item() == 50.0
    assert x.set_().shape == (0,)


def test_sum_to_size_is_the_reverse_of_expand(torch):
    data = np.arange(24.0).reshape(2, 3, 4)
    for size in [(3, 1), (1, 3, 4), (4,), (2, 1, 1), (2, 3, 4)]:
        np.testing.assert_array_equal(
            mg.tensor(data).sum_to_size(size).numpy(), torch.tensor(data).sum_to_size(size)
        )


def test_sum_to_size_without_torch():
    x = mg.ones(2, 3, requires_grad=True)
    out = x.sum_to_size(1, 3)
    assert out.tolist() == [[2.0, 2.0, 2.0]]
    out.sum().backward()
    assert x.grad.tolist() == [[1.0] * 3] * 2
    with pytest.raises(RuntimeError, match="not expandable"):
        x.sum_to_size(2, 2)


def test_legacy_constructors():
    x = mg.zeros(2, dtype=mg.float64)
    assert x.new().shape == (0,) and x.new().dtype == mg.float64
    assert x.new(2, 3).shape == (2, 3)
    assert x.new([1, 2]).tolist() == [1.0, 2.0] and x.new([1, 2]).dtype == mg.float64
    e = x.new_empty_strided((2, 3), (1, 2))
    assert e.shape == (2, 3) and e.stride() == (1, 2) and e.dtype == mg.float64


def test_python_callables_map_elementwise():
    x = mg.tensor([1.0, 2.0, 3.0])
    assert x.apply_(lambda v: v * 10).tolist() == [10.0, 20.0, 30.0]
    assert x.map_(mg.tensor([1.0, 2.0, 3.0]), lambda a, b: a - b).tolist() == [9.0, 18.0, 27.0]
    assert x.map2_(mg.ones(3), mg.tensor(2.0), lambda a, b, c: a + b * c).tolist() == [
        11.0,
        20.0,
        29.0,
    ]
    with pytest.raises(RuntimeError, match="leaf Variable"):
        mg.ones(2, requires_grad=True).apply_(lambda v: v)
