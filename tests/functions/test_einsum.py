"""einsum (minigrad/functions/einsum.py): operands that broadcast (a size-1 subscript
against a larger one, ellipsis dims) get gradients of their own shape, checked by finite
differences; malformed equations are PyTorch's RuntimeError, never NumPy's ValueError."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.gradcheck import gradcheck

BROADCAST = [
    ("ij,ij->ij", [(3, 4), (1, 4)]),  # the case
    ("ij,ij->ij", [(3, 1), (1, 4)]),
    ("ij,ij->j", [(1, 4), (3, 4)]),
    ("ij,ij->", [(1, 1), (3, 4)]),
    ("i,j->ij", [(3,), (1,)]),
    ("bij,bjk->bik", [(1, 2, 3), (4, 3, 5)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (1, 3, 4)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (3, 4)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 4)]),
    ("ij...,jk...->ik...", [(2, 3, 5), (3, 4, 1)]),
    ("ij,jk,kl->il", [(2, 3), (1, 4), (4, 5)]),
]


@pytest.mark.parametrize("eq, shapes", BROADCAST, ids=[f"{e}{s}" for e, s in BROADCAST])
def test_broadcast_operands_get_gradients_of_their_shape(eq, shapes):
    rng = np.random.default_rng(0)
    ops = [mg.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
    out = mg.einsum(eq, *ops)
    out.sum().backward()
    for t, s in zip(ops, shapes):
        assert t.grad.shape == s
    assert gradcheck(lambda *a: mg.einsum(eq, *a), [t.detach().requires_grad_() for t in ops])


@pytest.mark.parametrize("eq, shapes", BROADCAST, ids=[f"{e}{s}" for e, s in BROADCAST])
def test_broadcast_gradients_match_torch(torch, eq, shapes):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s) for s in shapes]
    ours = [mg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    mg.einsum(eq, *ours).sum().backward()
    torch.einsum(eq, *theirs).sum().backward()
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-12)


MALFORMED = [
    ("ij,jk->ikk", [(2, 3), (3, 4)]),
    ("i->ii", [(3,)]),
    ("ij->k", [(2, 3)]),
    ("i.j", [(2, 3)]),
    ("ij..", [(2, 3)]),
    ("...i...", [(2, 3)]),
    ("ij-ik", [(2, 3)]),
    ("i1", [(2, 2)]),
    ("ij->ij->", [(2, 3)]),
    ("ĳ", [(2,)]),
    ("ij", [(2,)]),
    ("ijk->ik", [(2, 3)]),
    ("ij,jk->ik", [(2, 3), (4, 4)]),
    ("ij,ij->ij", [(3, 4), (2, 4)]),
    ("ii->i", [(3, 4)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (5, 3, 4)]),
    ("ij,jk->ik", [(2, 3)]),
    ("ij->ji", [(2, 3), (2, 3)]),
]


@pytest.mark.parametrize("eq, shapes", MALFORMED, ids=[f"{e}{s}" for e, s in MALFORMED])
def test_malformed_equations_are_runtime_errors(eq, shapes):
    ops = [mg.zeros(*s) for s in shapes]
    with pytest.raises(RuntimeError, match="einsum"):
        mg.einsum(eq, *ops)


@pytest.mark.parametrize("eq, shapes", MALFORMED, ids=[f"{e}{s}" for e, s in MALFORMED])
def test_malformed_equations_raise_in_torch_too(torch, eq, shapes):
    with pytest.raises(RuntimeError):
        torch.einsum(eq, *[torch.zeros(*s) for s in shapes])
