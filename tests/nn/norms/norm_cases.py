"""The table of norm cases shared by the norm tests: every norm x option x input rank.

A ``Case`` knows the shapes of its differentiable inputs (x first, then weight and bias
when the case has them) and how to run itself in minigrad (with a given
implementation) and in PyTorch. Constant inputs (BatchNorm's running statistics in
eval) are built inside the functions, in the input's dtype.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F

IMPLS = ("fused", "reference", "composite")

#: Running statistics for the eval-mode BatchNorm cases (3 channels).
RUNNING_MEAN = np.array([0.3, -0.2, 0.5])
RUNNING_VAR = np.array([0.8, 1.5, 0.6])


@dataclass(frozen=True)
class Case:
    id: str
    shapes: tuple  # shapes of x, then weight / bias if the case has them
    mg_fn: Callable  # impl -> (tensors -> Tensor)
    torch_fn: Callable  # torch -> (torch tensors -> torch tensor)

    def __repr__(self) -> str:
        return self.id


def _layer_norm(id, x_shape, norm_shape, weight=True, bias=True):
    shapes = (x_shape,) + ((norm_shape,) if weight else ()) + ((norm_shape,) if bias else ())

    def split(args):
        x, rest = args[0], list(args[1:])
        w = rest.pop(0) if weight else None
        b = rest.pop(0) if bias else None
        return x, w, b

    def mg_fn(impl):
        def f(*a):
            x, w, b = split(a)
            return F.layer_norm(x, norm_shape, w, b, impl=impl)

        return f

    def torch_fn(torch):
        def f(*a):
            x, w, b = split(a)
            return torch.nn.functional.layer_norm(x, norm_shape, w, b)

        return f

    return Case(id, shapes, mg_fn, torch_fn)


def _rms_norm(id, x_shape, norm_shape, weight=True, eps=None):
    shapes = (x_shape,) + ((norm_shape,) if weight else ())

    def mg_fn(impl):
        def f(x, w=None):
            return F.rms_norm(x, norm_shape, w, eps, impl=impl)

        return f

    def torch_fn(torch):
        def f(x, w=None):
            return torch.nn.functional.rms_norm(x, norm_shape, w, eps)

        return f

    return Case(id, shapes, mg_fn, torch_fn)


def _batch_norm(id, x_shape, training=True, affine=True):
    c = x_shape[1]
    shapes = (x_shape,) + (((c,), (c,)) if affine else ())

    def stats(lib, x, to):
        if training:
            return None, None
        return to(RUNNING_MEAN[:c], x), to(RUNNING_VAR[:c], x)

    def mg_fn(impl):
        def f(x, w=None, b=None):
            rm, rv = stats(mg, x, lambda a, x: mg.tensor(a.astype(x.dtype)))
            return F.batch_norm(x, rm, rv, w, b, training=training, impl=impl)

        return f

    def torch_fn(torch):
        def f(x, w=None, b=None):
            rm, rv = stats(torch, x, lambda a, x: torch.tensor(a, dtype=x.dtype))
            return torch.nn.functional.batch_norm(x, rm, rv, w, b, training=training)

        return f

    return Case(id, shapes, mg_fn, torch_fn)


def _group_norm(id, x_shape, groups, affine=True):
    c = x_shape[1]
    shapes = (x_shape,) + (((c,), (c,)) if affine else ())

    def mg_fn(impl):
        def f(x, w=None, b=None):
            return F.group_norm(x, groups, w, b, impl=impl)

        return f

    def torch_fn(torch):
        def f(x, w=None, b=None):
            return torch.nn.functional.group_norm(x, groups, w, b)

        return f

    return Case(id, shapes, mg_fn, torch_fn)


CASES = [
    _layer_norm("layer_norm-2d", (3, 5), (5,)),
    _layer_norm("layer_norm-3d-two-dims", (2, 3, 4), (3, 4)),
    _layer_norm("layer_norm-4d", (2, 2, 2, 4), (4,)),
    _layer_norm("layer_norm-no-bias", (3, 5), (5,), bias=False),
    _layer_norm("layer_norm-no-affine", (2, 3, 4), (4,), weight=False, bias=False),
    _layer_norm("layer_norm-1d-input", (6,), (6,)),
    _rms_norm("rms_norm-2d", (3, 5), (5,)),
    _rms_norm("rms_norm-3d-two-dims", (2, 3, 4), (3, 4)),
    _rms_norm("rms_norm-no-weight", (2, 3, 4), (4,), weight=False),
    _rms_norm("rms_norm-eps", (3, 5), (5,), eps=0.1),
    _batch_norm("batch_norm-2d", (6, 3)),
    _batch_norm("batch_norm-3d", (4, 3, 5)),
    _batch_norm("batch_norm-4d", (3, 3, 2, 2)),
    _batch_norm("batch_norm-no-affine", (4, 3, 2)),
    _batch_norm("batch_norm-eval-2d", (5, 3), training=False),
    _batch_norm("batch_norm-eval-4d", (2, 3, 2, 2), training=False),
    _group_norm("group_norm-G=1", (2, 6, 3), 1),
    _group_norm("group_norm-G=3", (2, 6, 3), 3),
    _group_norm("group_norm-G=C", (2, 6, 3), 6),
    _group_norm("group_norm-2d", (3, 4), 2),
    _group_norm("group_norm-4d", (2, 4, 2, 3), 2),
    _group_norm("group_norm-no-affine", (2, 4, 5), 2, affine=False),
]

#: One case per norm (and BatchNorm's eval mode), for the slower second-order checks.
SECOND_ORDER = [
    c
    for c in CASES
    if c.id
    in (
        "layer_norm-3d-two-dims",
        "rms_norm-2d",
        "batch_norm-3d",
        "batch_norm-eval-2d",
        "group_norm-G=3",
        "layer_norm-no-affine",
    )
]


def inputs(case: Case, dtype, seed: int = 0, requires_grad: bool = True) -> list:
    """Random inputs for ``case``: x standard normal, weight around 1, bias around 0."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(case.shapes[0])]
    for shape in case.shapes[1:2]:
        arrays.append(1.0 + 0.3 * rng.standard_normal(shape))
    for shape in case.shapes[2:]:
        arrays.append(0.3 * rng.standard_normal(shape))
    return [mg.tensor(a.astype(dtype), requires_grad=requires_grad) for a in arrays]
