"""sort / topk / argsort / flip / roll / cumsum / repeat / unbind / index_select / einsum /
bmm / outer / linalg norms: gradcheck in float64 and PyTorch parity (values and grads)."""

import numpy as np
import pytest

import minigrad as mg


def _x(rng, *shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def _parity(torch, rng, fn_mg, fn_torch, *arrays, atol=1e-6):
    """Run both, compare the output and the gradient of sum(out * w) for each input."""
    xs = [mg.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out_m, out_t = fn_mg(*xs), fn_torch(*ts)
    np.testing.assert_allclose(out_m.numpy(), out_t.detach().numpy(), atol=atol)
    w = rng.standard_normal(out_m.shape)
    (out_m * mg.tensor(w)).sum().backward()
    (out_t * torch.tensor(w)).sum().backward()
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=atol)


CASES = [
    ("sort", lambda x: x.sort(dim=1).values, lambda x: x.sort(dim=1).values),
    (
        "sort_desc",
        lambda x: x.sort(dim=0, descending=True)[0],
        lambda x: x.sort(dim=0, descending=True)[0],
    ),
    ("topk", lambda x: x.topk(2, dim=-1).values, lambda x: x.topk(2, dim=-1).values),
    ("topk_small", lambda x: mg.topk(x, 2, 0, largest=False)[0], lambda x: x.topk(2, 0, False)[0]),
    ("flip", lambda x: x.flip(0, 1), lambda x: x.flip(0, 1)),
    ("roll", lambda x: x.roll(1, 1), lambda x: x.roll(1, 1)),
    ("roll_flat", lambda x: mg.roll(x, -2), lambda x: x.roll(-2)),
    ("roll_two", lambda x: x.roll((1, -1), (0, 1)), lambda x: x.roll((1, -1), (0, 1))),
    ("cumsum", lambda x: x.cumsum(1), lambda x: x.cumsum(1)),
    ("cumsum0", lambda x: mg.cumsum(x, dim=0), lambda x: x.cumsum(dim=0)),
    ("repeat", lambda x: x.repeat(2, 1, 3), lambda x: x.repeat(2, 1, 3)),
    ("unbind", lambda x: x.unbind(1)[2] * 2, lambda x: x.unbind(1)[2] * 2),
    (
        "index_select",
        lambda x: x.index_select(1, mg.tensor([3, 0, 3])),
        lambda x: x.index_select(1, __import__("torch").tensor([3, 0, 3])),
    ),
    ("norm", lambda x: mg.linalg.vector_norm(x, dim=1), lambda x: x.norm(dim=1)),
    ("norm_all", lambda x: mg.linalg.norm(x), lambda x: __import__("torch").linalg.norm(x)),
    ("norm_p1", lambda x: x.norm(1, dim=0), lambda x: x.norm(1, dim=0)),
    ("norm_p3", lambda x: mg.linalg.vector_norm(x, 3), lambda x: x.norm(3)),
    (
        "norm_inf",
        lambda x: mg.linalg.vector_norm(x, float("inf"), dim=1, keepdim=True),
        lambda x: __import__("torch").linalg.vector_norm(x, float("inf"), dim=1, keepdim=True),
    ),
    ("einsum_T", lambda x: mg.einsum("ij->ji", x), lambda x: x.t()),
    ("einsum_sum", lambda x: mg.einsum("ij->i", x), lambda x: x.sum(1)),
]


@pytest.mark.parametrize("name,fn_mg,fn_torch", CASES, ids=[c[0] for c in CASES])
def test_unary_gradcheck_and_parity(torch, rng, name, fn_mg, fn_torch):
    a = _x(rng, 3, 4)
    assert mg.gradcheck(fn_mg, (mg.tensor(a, requires_grad=True),))
    _parity(torch, rng, fn_mg, fn_torch, a)


@pytest.mark.parametrize("name,fn_mg,fn_torch", CASES[:4] + CASES[8:10], ids=lambda c: str(c))
def test_gradcheck_without_torch(rng, name, fn_mg, fn_torch):
    assert mg.gradcheck(fn_mg, (mg.tensor(_x(rng, 3, 4), requires_grad=True),))


BINARY = [
    ("bmm", (2, 3, 4), (2, 4, 5), lambda a, b: mg.bmm(a, b), lambda a, b: a.bmm(b)),
    ("outer", (3,), (4,), lambda a, b: mg.outer(a, b), lambda a, b: a.outer(b)),
    (
        "einsum_mm",
        (2, 3, 4),
        (2, 4, 5),
        lambda a, b: mg.einsum("bij,bjk->bik", a, b),
        lambda a, b: __import__("torch").einsum("bij,bjk->bik", a, b),
    ),
    (
        "einsum_attention",
        (2, 2, 3, 4),
        (2, 2, 5, 4),
        lambda a, b: mg.einsum("bhqd,bhkd->bhqk", a, b),
        lambda a, b: __import__("torch").einsum("bhqd,bhkd->bhqk", a, b),
    ),
    (
        "einsum_ellipsis_implicit",
        (2, 3, 4),
        (4,),
        lambda a, b: mg.einsum("...j,j", a, b),
        lambda a, b: __import__("torch").einsum("...j,j", a, b),
    ),
    (
        "einsum_only_in_one",
        (3, 4),
        (3,),
        lambda a, b: mg.einsum("ij,i->i", a, b),
        lambda a, b: __import__("torch").einsum("ij,i->i", a, b),
    ),
]


@pytest.mark.parametrize("name,sa,sb,fn_mg,fn_torch", BINARY, ids=[c[0] for c in BINARY])
def test_binary_gradcheck_and_parity(torch, rng, name, sa, sb, fn_mg, fn_torch):
    a, b = _x(rng, *sa), _x(rng, *sb)
    inputs = (mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True))
    assert mg.gradcheck(fn_mg, inputs)
    _parity(torch, rng, fn_mg, fn_torch, a, b)


def test_einsum_second_order(rng):
    a = mg.tensor(_x(rng, 2, 3), requires_grad=True)
    b = mg.tensor(_x(rng, 3, 2), requires_grad=True)
    assert mg.gradgradcheck(lambda a, b: mg.einsum("ij,jk->ik", a, b).sum() ** 2, (a, b))


def test_norm_gradient_at_zero_is_zero_like_torch(torch):
    x = mg.zeros(3, dtype=mg.float64, requires_grad=True)
    mg.linalg.vector_norm(x).backward()
    t = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    torch.linalg.vector_norm(t).backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(3))


def test_norm2_second_order(rng):
    x = mg.tensor(_x(rng, 3, 4), requires_grad=True)
    assert mg.gradgradcheck(lambda x: mg.linalg.vector_norm(x, dim=1), (x,))


def test_sort_indices_and_ties_match_torch(torch):
    data = np.array([[3.0, 1.0, 3.0, np.nan, 2.0], [0.0, 0.0, -1.0, 5.0, 5.0]])
    for descending in (False, True):
        v, i = mg.tensor(data).sort(dim=1, descending=descending, stable=True)
        tv, ti = torch.tensor(data).sort(dim=1, descending=descending, stable=True)
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
        np.testing.assert_array_equal(v.numpy(), tv.numpy())
    np.testing.assert_array_equal(
        mg.argsort(mg.tensor(data), dim=0).numpy(), torch.tensor(data).argsort(dim=0).numpy()
    )


def test_topk_indices_match_torch(torch, rng):
    data = rng.permutation(20).reshape(4, 5).astype(np.float32)  # no ties
    v, i = mg.tensor(data).topk(3)
    tv, ti = torch.tensor(data).topk(3)
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    np.testing.assert_array_equal(v.numpy(), tv.numpy())
    assert i.dtype == mg.int64


def test_cumsum_int_promotes_like_torch(torch):
    assert mg.tensor([True, True, False]).cumsum(0).tolist() == [1, 2, 2]
    assert mg.tensor([1, 2, 3], dtype=mg.int32).cumsum(0).dtype == mg.int64
    assert torch.tensor([1, 2, 3], dtype=torch.int32).cumsum(0).dtype == torch.int64


def test_errors_name_the_problem():
    x = mg.zeros(3, 4)
    with pytest.raises(RuntimeError, match=r"topk: k \(5\) must be in \[0, 4\]"):
        x.topk(5)
    with pytest.raises(ValueError, match="bmm: expects two 3-D tensors"):
        mg.bmm(x, x)
    with pytest.raises(ValueError, match=r"bmm: shapes \[2, 3, 4\] and \[2, 3, 4\]"):
        mg.bmm(mg.zeros(2, 3, 4), mg.zeros(2, 3, 4))
    with pytest.raises(ValueError, match="outer: expects two 1-D"):
        mg.outer(x, x)
    with pytest.raises(RuntimeError, match="repeat: the number of repeat dims"):
        x.repeat(2)
    with pytest.raises(RuntimeError, match="roll: shifts and dimensions must align"):
        x.roll((1, 2), 0)
    with pytest.raises(IndexError, match="index_select: index 4 out of range for dim 1"):
        x.index_select(1, mg.tensor([4]))
    with pytest.raises(RuntimeError, match=r"einsum\(\): the number of subscripts .* \(3\)"):
        mg.einsum("ijk->i", x)
    with pytest.raises(RuntimeError, match="einsum.*subscript j has size 3 for operand 1"):
        mg.einsum("ij,jk->ik", x, x)
    with pytest.raises(RuntimeError, match="fewer operands were provided"):
        mg.einsum("ij,jk->ik", x)
    with pytest.raises(RuntimeError, match="linalg.matrix_norm: Order 3 not supported"):
        mg.linalg.norm(x, 3)  # a matrix norm of no order PyTorch knows ('nuc' is one now)
