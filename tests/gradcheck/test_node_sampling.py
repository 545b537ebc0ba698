"""How ``gradcheck_graph`` chooses the elements of a large node input, and what it says.

A node input with more than ``max_elements`` elements is checked one by one on a
selection chosen by the node's own gradient (every element it touches if they fit,
else one in each row it touches), and on all the other elements together along two
random directions. A wrong gradient of a sparse lookup (an embedding whose backward
overwrites repeated rows instead of adding them) used to be sampled away at 2 seeds in
10; here it is named at every seed, and the report says how the elements were chosen.
After a whole check that failed, ``result.graph_check()`` checks again on every element
the nodes it checked on a selection, and where still no node is wrong, says what that
means.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
from minigrad.autograd import Function, graph_recording
from minigrad.functions.constant import constant
from minigrad.gradcheck import gradcheck_graph, gradcheck_module
from minigrad.gradcheck.node import REST_DIRECTIONS, select

pytestmark = pytest.mark.filterwarnings("ignore::minigrad.gradcheck.report.GradcheckWarning")


# ---------------------------------------------------------------------------- select
def test_every_touched_element_is_chosen_when_they_fit():
    rng = np.random.default_rng(0)
    gradient = np.zeros((50, 4))
    gradient[[3, 17, 17, 40]] = 1.0  # rows looked up
    chosen = select(np.ones((50, 4)), gradient, 32, rng)
    assert set(np.flatnonzero(gradient.reshape(-1))) <= set(chosen.index)  # all 12 ...
    assert chosen.index.size == 32  # ... and 20 the gradient misses, at random
    assert chosen.rest.size == 200 - 32 and chosen.directions.shape == (REST_DIRECTIONS, 168)
    assert chosen.how.startswith("every element with a nonzero gradient (12)")
    assert "the other 168 together along 2 random directions" in chosen.how


def test_each_touched_row_is_covered_when_the_touched_elements_do_not_fit():
    rng = np.random.default_rng(1)
    rows = [0, 4, 9, 13, 21, 30, 31, 44, 52, 63]
    gradient = np.zeros((64, 8))
    gradient[rows] = rng.standard_normal((len(rows), 8))
    chosen = select(np.ones((64, 8)), gradient, 32, rng)
    picked_rows = set(np.unravel_index(chosen.index, (64, 8))[0])
    assert picked_rows == set(rows)  # every row the lookup touched, repeated or not
    assert "one in each of 10 of the 10 slices along axis 0" in chosen.how
    assert np.all(gradient.reshape(-1)[chosen.index] != 0)


def test_more_touched_rows_than_the_budget_are_a_random_subset_plus_directions():
    rng = np.random.default_rng(2)
    gradient = np.zeros((100, 3))
    gradient[::2] = 1.0  # 50 rows
    chosen = select(np.ones((100, 3)), gradient, 16, rng)
    assert chosen.index.size == 16
    assert len(set(np.unravel_index(chosen.index, (100, 3))[0])) == 16
    assert "one in each of 16 of the 50 slices along axis 0" in chosen.how
    assert chosen.rest.size == 300 - 16


def test_elements_that_are_not_finite_are_left_out():
    rng = np.random.default_rng(3)
    data = np.ones((10, 10))
    data[np.triu_indices(10, 1)] = -np.inf  # a causal mask
    chosen = select(data, np.ones((10, 10)), 8, rng)
    movable = np.isfinite(data.reshape(-1))
    assert movable[chosen.index].all() and movable[chosen.rest].all()
    assert chosen.rest.size + chosen.index.size == int(movable.sum())
    assert "45 not finite (a mask's -inf) left out" in chosen.how


# ---------------------------------------------------------------------------- lookups
class LookupFn(Function):
    """out[..., :] = weight[idx[...], :]; backward scatter-adds the rows of g."""

    bug = None

    @staticmethod
    def forward(ctx, weight, idx):
        ctx.idx, ctx.rows = idx, weight.shape[0]
        return weight.numpy()[idx]

    @classmethod
    def backward(cls, ctx, g):
        rows = g.numpy().reshape(-1, g.shape[-1])
        idx = ctx.idx.reshape(-1)
        out = np.zeros((ctx.rows, rows.shape[1]))
        if cls.bug == "overwrite":  # repeated indices keep only the last row
            out[idx] = rows
        elif cls.bug == "shifted":  # each gradient row lands one row further down
            np.add.at(out, (idx + 1) % ctx.rows, rows)
        elif cls.bug == "last row lost":  # the largest index gets no gradient
            keep = idx != idx.max()
            np.add.at(out, idx[keep], rows[keep])
        else:
            np.add.at(out, idx, rows)
        return constant(out), None


class Lookup(nn.Module):
    def __init__(self, rows, dim, bug=None):
        super().__init__()
        self.fn = type("LookupFn", (LookupFn,), {"bug": bug})
        self.weight = nn.Parameter(mg.randn(rows, dim))

    def forward(self, idx):
        return self.fn.apply(self.weight, idx)


class TinyModel(nn.Module):
    def __init__(self, bug=None):
        super().__init__()
        self.emb = Lookup(64, 8, bug)
        self.head = nn.Linear(8, 3)

    def forward(self, idx):
        return self.head(self.emb(idx).tanh())


@pytest.mark.parametrize("bug", ["overwrite", "shifted", "last row lost"])
def test_a_wrong_lookup_backward_is_named_at_every_seed(bug):
    # 12 lookups among 10 indices: some rows repeat. The table has 512 elements, 16
    # times max_elements.
    for seed in range(10):
        mg.manual_seed(seed)
        model = TinyModel(bug)
        idx = np.random.default_rng(seed).integers(0, 10, size=(2, 6))
        if bug == "overwrite" and len(np.unique(idx)) == idx.size:
            continue  # no repeat, nothing wrong to find
        whole = gradcheck_module(model, idx, return_result=True)
        assert whole.verdict == "failed" and whole.by_input()["emb.weight"] == "failed"
        found = whole.graph_check(seed=seed)
        wrong = found.first_wrong
        assert wrong is not None, f"seed {seed}: {found}"
        assert (wrong.name, wrong.module_path, wrong.wrong_inputs) == (
            "LookupFn",
            "emb",
            ["input 0"],
        ), f"seed {seed}"
        assert [n.module_path for n in found.wrong] == ["emb"]
        assert "slices along axis 0 that the gradient touches" in str(found)  # failed: said
        assert "(rows of axis 0, +2 directions)" in str(found)


def test_the_correct_lookup_passes_and_the_report_says_how_elements_were_chosen():
    mg.manual_seed(0)
    model = TinyModel()
    idx = np.random.default_rng(0).integers(0, 10, size=(2, 6))
    result = gradcheck_graph(model, idx)
    assert result.verdict == "passed", str(result)
    lookup = [n for n in result.nodes if n.name == "LookupFn"][0]
    assert lookup.checked == {"input 0": (32, 512)}
    how, tag = lookup.sampling["input 0"]
    assert how.startswith("32 of 512: one in each of")
    assert "the other 480 together along 2 random directions" in how
    assert "input 0: 32/512 (rows of axis 0, +2 directions)" in str(result)


# ---------------------------------------------------------------------------- rechecks
class OneWrongElement(Function):
    """y = 2 x, whose backward is 0.5% off at a single element of a large input: too
    small a share of a random projection over 1600 elements to show there (about 1e-4
    of it, under rtol), and off a selection of 4."""

    @staticmethod
    def forward(ctx, x):
        return x.numpy() * 2.0

    @staticmethod
    def backward(ctx, g):
        scale = np.full(g.shape, 2.0)
        scale.reshape(-1)[1037] = 2.01
        return g * constant(scale)


def test_a_failed_whole_check_rechecks_the_sampled_nodes_on_every_element():
    x = mg.randn(40, 40, dtype=mg.float64, requires_grad=True)
    w = mg.randn(40, 40, dtype=mg.float64)

    def f(x):
        return (OneWrongElement.apply(x) * w).sum(-1)

    sampled = gradcheck_graph(f, x, max_elements=4)
    assert sampled.first_wrong is None  # the selection and the directions miss it
    assert "input 0: 4/1600 (random, +2 directions)" in str(sampled)
    whole = mg.gradcheck(f, (x,), return_result=True)
    assert whole.verdict == "failed"
    found = whole.graph_check(max_elements=4)
    assert found.first_wrong.name == "OneWrongElement"
    assert found.first_wrong.rechecked
    assert found.first_wrong.checked == {"input 0": (1600, 1600)}
    worst = found.first_wrong.result.failures()[0].worst[0]
    assert worst.input_index == np.unravel_index(1037, (40, 40))
    assert "checked again on every element" in str(found)


def test_no_wrong_node_after_a_failed_whole_check_is_explained():
    # The forward reads x's data outside the graph: the whole function's Jacobian is
    # wrong, every node is right.
    x = mg.randn(5, dtype=mg.float64, requires_grad=True)

    def f(x):
        return x.tanh() * constant(x.numpy().copy())

    whole = mg.gradcheck(f, (x,), return_result=True)
    assert whole.verdict == "failed"
    found = whole.graph_check()
    assert found.first_wrong is None and found.after == "failed"
    assert "the whole check failed, but every node's backward agrees" in str(found)
    assert "NumPy on .numpy() data" in str(found)


def test_a_direct_call_does_not_recheck():
    x = mg.randn(20, 20, dtype=mg.float64, requires_grad=True)
    with graph_recording():
        y = (x * 2.0).tanh()
    result = gradcheck_graph(y, max_elements=4)
    assert not any(n.rechecked for n in result.nodes)
    assert all(n.checked["input 0"] == (4, 400) for n in result.nodes)
