"""Python sequences as index elements (functions/indexing.normalize_index): ``range``,
lists, nested lists and tuples of them, as PyTorch reads them, values and gradients
(repeated indices accumulate), for reading and for assignment. Random index tuples are
compared with PyTorch; a few fixed ones pin the rules without it."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as mg

SHAPE = (4, 5, 3)


def test_karpathy_logprobs_idiom_gathers_and_accumulates():
    """``logprobs[range(n), Yb]`` (the makemore lectures): one entry per row, and the
    gradient of ``-mean`` lands on those entries only, repeated rows and all."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 4))
    yb = np.array([0, 3, 3, 1, 0, 2])
    x = mg.tensor(a, requires_grad=True)
    picked = x[range(6), yb]
    np.testing.assert_array_equal(picked.numpy(), a[np.arange(6), yb])
    (-picked.mean()).backward()
    expected = np.zeros_like(a)
    expected[np.arange(6), yb] = -1 / 6
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_repeated_indices_accumulate_their_gradients():
    x = mg.tensor(np.arange(5.0), requires_grad=True)
    x[[0, 0, 3, 0]].sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 0.0, 1.0, 0.0]


def test_sequence_element_forms():
    x = mg.tensor(np.arange(60.0).reshape(SHAPE))
    a = x.numpy()
    assert x[(0, 2),].shape == (2, 5, 3)  # a tuple inside the index is an index array
    assert x[:, [[0, 1], [1, 4]]].shape == (4, 2, 2, 3)  # a nested list: a 2-d index
    # range(1, 3) and [0, 2] broadcast together: elements (1, :, 0) and (2, :, 2)
    np.testing.assert_array_equal(x[range(1, 3), :, [0, 2]].numpy(), a[[1, 2], :, [0, 2]])
    assert x[[]].shape == (0, 5, 3)  # empty: an empty integer index
    assert x[[True, False, True, True]].shape == (3, 5, 3)  # bools: a mask
    with pytest.raises(IndexError, match="integers or bools"):
        x[[0.5]]
    with pytest.raises(IndexError, match="unequal lengths"):
        x[:, [[0, 1], [2]]]


def test_a_list_holding_slices_or_sequences_is_a_tuple_with_pytorchs_warning():
    x = mg.tensor(np.arange(60.0).reshape(SHAPE))
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        y = x[[0, slice(None), 1]]
    np.testing.assert_array_equal(y.numpy(), x.numpy()[0, :, 1])
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        assert x[[[0, 1], [1, 2]]].shape == (2, 3)  # x[[0, 1], [1, 2]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x[[0, 1, 1]].shape == (3, 5, 3)  # plain ints: one index array, no warning
        assert x[list(range(3))].shape == (3, 5, 3)


def test_assignment_through_sequences():
    x = mg.zeros(4, 3)
    x[range(4), [0, 1, 2, 0]] = 1.0
    assert x.sum().item() == 4.0 and x[3, 0].item() == 1.0
    w = mg.zeros(4, 3, requires_grad=True)
    y = w * 1.0
    y[[0, 2]] = mg.ones(2, 3) * 5
    y.sum().backward()
    assert w.grad.numpy()[[0, 2]].sum() == 0 and w.grad.numpy()[[1, 3]].sum() == 6


# ------------------------------------------------------------------ against PyTorch
def _element():
    n = st.integers(0, 3)
    ints = st.lists(st.integers(-3, 3), min_size=0, max_size=4)
    return st.one_of(
        st.integers(-3, 3),
        st.just(slice(None)),
        st.builds(slice, st.integers(0, 2), st.integers(2, 4)),
        st.builds(range, n, st.integers(3, 4)),
        ints,
        ints.map(tuple),
        st.lists(st.lists(st.integers(0, 2), min_size=2, max_size=2), min_size=1, max_size=3),
        st.lists(st.booleans(), min_size=3, max_size=3),
    )


def _run(lib, key, a, g):
    x = lib.tensor(a, requires_grad=True)
    try:
        y = x[key]
    except IndexError:
        return "IndexError"
    if tuple(y.shape) != g.shape:
        g = np.resize(g, tuple(y.shape))
    (y * lib.tensor(g)).sum().backward()
    return y.detach().numpy(), x.grad.numpy()


@settings(max_examples=300, deadline=None)
@given(key=st.lists(_element(), min_size=1, max_size=3).map(tuple))
def test_random_index_tuples_match_pytorch(key):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(repr(key)))
    a = rng.standard_normal(SHAPE)
    g = rng.standard_normal(60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            theirs = _run(torch, key, a, g)
        except (RuntimeError, ValueError, TypeError):  # PyTorch refuses it some other way
            return
        ours = _run(mg, key, a, g)
    if theirs == "IndexError":
        assert ours == "IndexError", key
        return
    assert ours != "IndexError", key
    np.testing.assert_array_equal(ours[0], theirs[0], err_msg=repr(key))
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-12, err_msg=repr(key))


def test_assignment_drops_the_values_leading_ones_as_pytorch(torch):
    """``logits[i] = model(x[[i]])`` (makemore part 5): a (1, n) value fills a (n,) slot;
    any other shape that does not broadcast is PyTorch's RuntimeError."""
    for lib in (mg, torch):
        t = lib.zeros(3, 4)
        t[1] = lib.ones(1, 4)
        t[[0, 2]] = lib.ones(1, 2, 4) * 2
        t[:, 0] = lib.ones(1, 1, 3) * 3
        assert t.sum().item() == 24.0  # 4 + 16, then column 0 (2, 1, 2) -> (3, 3, 3)
        with pytest.raises(RuntimeError):
            t[0] = lib.ones(2, 4)
    w = mg.ones(1, 4, requires_grad=True)
    t = mg.zeros(3, 4)
    t[1] = w * 2
    t.sum().backward()
    assert w.grad.tolist() == [[2.0, 2.0, 2.0, 2.0]]


def test_an_empty_selection_does_not_check_its_indices_as_pytorch(torch):
    """Found by the random test: ``x[0, 2:2, range(4)]`` on a dim of 3 selects nothing, and
    PyTorch returns the empty (0, 4) result where NumPy raises."""
    for lib in (mg, torch):
        x = lib.zeros(4, 5, 3, requires_grad=True)
        y = x[0, 2:2, range(4)]
        assert tuple(y.shape) == (0, 4)
        y.sum().backward()
        assert x.grad.abs().sum().item() == 0
        with pytest.raises(IndexError):
            x[0, :, range(4)]
