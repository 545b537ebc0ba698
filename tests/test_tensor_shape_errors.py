"""roll, flip, repeat and index_select (minigrad/tensor.py) over their argument space:
PyTorch's result where PyTorch returns, PyTorch's exception class where it raises, and
never one of NumPy's own errors (AxisError, "repeated axis", "negative dimensions").
A differential test re-runs the whole grid in torch when it is installed."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigrad as mg

X = {nd: np.arange(float(max(1, 2**nd))).reshape((2,) * nd) for nd in range(4)}
X[0] = np.array(5.0)
DIMS = [0, -1, 1, 2, -2, -3, 3, (0, 0), (0, -1), (1, -1), [0, 1], [], 1.5, "a", None, True]
SHIFTS = [1, -1, 0, 7, (1, 2), (1,), 1.5, "a", True, None]
ROLL_DIMS = [None, 0, 1, -1, 2, -3, (0, 1), (0, 0), (), [0], (1,)]
SIZES = [(), (2,), (-1, 1), (1, -1), (0,), (2, 3), (1, 2, 3), (2.5,), ("a",), ([2, 3],)]
SIZES += [((2, 3),), (True,), (2, 0), (0, 2, 1), (None,), (-1,)]
INDEX = [[0], [1], [-1], [5], [0, 0], [1, 0], 0, [[0]], [0.0], [True]]


def _grid():
    """(name, call) over every op's arguments; call(lib, x) runs it in either library."""
    for nd in X:
        yield f"flip() nd={nd}", nd, lambda lib, x: x.flip()
        for d in DIMS:
            yield f"flip({d!r}) nd={nd}", nd, lambda lib, x, d=d: x.flip(d)
        yield f"flip(0, 1) nd={nd}", nd, lambda lib, x: x.flip(0, 1)
        yield f"lib.flip(x, (0,)) nd={nd}", nd, lambda lib, x: lib.flip(x, (0,))
        for s, d in itertools.product(SHIFTS, ROLL_DIMS):
            yield f"roll({s!r}, {d!r}) nd={nd}", nd, lambda lib, x, s=s, d=d: x.roll(s, d)
        for s in SIZES:
            yield f"repeat{s!r} nd={nd}", nd, lambda lib, x, s=s: x.repeat(*s)
        for d, ix in itertools.product([0, 1, -1, 2, -2], INDEX):
            yield (
                f"index_select({d}, {ix!r}) nd={nd}",
                nd,
                lambda lib, x, d=d, ix=ix: x.index_select(d, lib.tensor(np.array(ix))),
            )


GRID = list(_grid())

# Where torch 2.13 and minigrad differ on purpose (everything else in GRID agrees):
# torch.index_select out of range in a middle dim raises RuntimeError (IndexError in the
# first and last dims); minigrad raises IndexError for every dim.
INDEX_MIDDLE_DIM = {"RuntimeError": "IndexError"}


def _outcome(lib, nd, call):
    x = lib.tensor(X[nd])
    try:
        out = call(lib, x)
    except Exception as e:
        # a minigrad error class (ShapeError) counts as the built-in class it extends first
        return next(c for c in type(e).__mro__ if c.__module__ == "builtins").__name__
    return (tuple(out.shape), np.asarray(out.tolist()).tolist())


@pytest.mark.parametrize("name, nd, call", GRID, ids=[g[0] for g in GRID])
def test_no_numpy_error_reaches_the_user(name, nd, call):
    outcome = _outcome(mg, nd, call)
    assert outcome in ("TypeError", "RuntimeError", "IndexError") or isinstance(outcome, tuple)


@pytest.mark.parametrize("name, nd, call", GRID, ids=[g[0] for g in GRID])
def test_same_outcome_as_torch(torch, name, nd, call):
    theirs = _outcome(torch, nd, call)
    mine = _outcome(mg, nd, call)
    if name.startswith("index_select") and theirs == "RuntimeError" and mine == "IndexError":
        assert "[5]" in name or "[-1]" in name  # out of range in a middle dim (see above)
        return
    assert mine == theirs


def test_the_issues_samples():
    x0 = mg.tensor(5.0, requires_grad=True)
    assert x0.flip(0).item() == 5.0 and x0.flip(-1).shape == ()
    with pytest.raises(IndexError, match="no dimensions"):
        x0.roll(1, 0)
    assert x0.roll(1).item() == 5.0
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        mg.arange(3).flip((0, 0))
    with pytest.raises(TypeError, match="missing 1 required positional arguments"):
        mg.arange(3).flip()
    with pytest.raises(RuntimeError, match="non-negative"):
        mg.arange(3).repeat(-1, 1)
    out = x0.index_select(0, mg.tensor([0]))
    assert out.shape == () and out.item() == 5.0
    out.backward()
    assert x0.grad.item() == 1.0
    with pytest.raises(RuntimeError, match="only 1 value"):
        x0.index_select(0, mg.tensor([0, 0]))
    with pytest.raises(IndexError, match="index -1 out of range"):
        mg.arange(3).index_select(0, mg.tensor([-1]))
    with pytest.raises(RuntimeError, match="Expected dtype int32 or int64"):
        mg.arange(3).index_select(0, mg.tensor([0.0]))
