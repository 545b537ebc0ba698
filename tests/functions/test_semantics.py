"""Where NumPy's habits and PyTorch's differ, minigrad follows PyTorch: the shapes of
mixed advanced indexing, dtype promotion with Python numbers, and exception classes.

Each case is one expression, run with ``lib`` = minigrad and ``lib`` = torch (and
compared with a value written here when PyTorch is not installed).
"""

import numpy as np
import pytest

import minigrad as mg

# index, result shape (PyTorch's) for x of shape (2, 3, 4)
INDEX_CASES = [
    ((0, slice(None), [0, 1]), (3, 2)),  # NumPy: (2, 3)
    ((slice(None), 1, [0, 2]), (2, 2)),
    (([0, 1], slice(None), 2), (2, 3)),
    ((0, [0, 1], [1, 2]), (2,)),
    ((None, 0, slice(None), [1, 2]), (1, 3, 2)),  # NumPy: (2, 1, 3)
    ((Ellipsis, 0, [1, 2]), (2, 2)),
    ((0, Ellipsis, [1, 2]), (3, 2)),  # NumPy: (2, 3)
    ((1, slice(None), [[0, 1], [2, 3]]), (3, 2, 2)),
]


@pytest.mark.parametrize(("key", "shape"), INDEX_CASES, ids=str)
def test_mixed_advanced_indexing_has_pytorchs_shape(key, shape):
    x = mg.arange(24.0, dtype=mg.float64).reshape(2, 3, 4).requires_grad_()
    y = x[key]
    assert y.shape == shape
    y.sum().backward()  # every picked element gets its gradient back
    assert x.grad.sum().item() == y.numel()


@pytest.mark.parametrize(("key", "shape"), INDEX_CASES, ids=str)
def test_mixed_advanced_indexing_matches_torch(key, shape, torch):
    """Same values as PyTorch (not only the same shape)."""
    data = np.random.default_rng(0).standard_normal((2, 3, 4))
    np.testing.assert_array_equal(mg.tensor(data)[key].numpy(), torch.tensor(data)[key].numpy())


# expression on a = int64 [1, 2, 3], b = bool [True, False, True], f = float32 [0.5, 1.5, 2.5]:
# the dtype PyTorch gives
PROMOTION_CASES = [
    ("a + 2.5", "float32"),
    ("a * 2", "int64"),
    ("a / 2", "float32"),
    ("a // 2", "int64"),
    ("a // 2.5", "float32"),
    ("a % 2", "int64"),
    ("a % 2.5", "float32"),
    ("a ** 2", "int64"),
    ("a ** 0.5", "float32"),
    ("b + b", "bool"),
    ("b + 1", "int64"),
    ("b * 1.5", "float32"),
    ("b & b", "bool"),
    ("a & 3", "int64"),
    ("f + a", "float32"),
    ("f * 2", "float32"),
    ("lib.atan2(a, a)", "float32"),
    ("lib.maximum(a, f)", "float32"),
    ("lib.fmod(a, 2)", "int64"),
    ("lib.remainder(a, -2)", "int64"),
    ("lib.div(a, 2, rounding_mode='floor')", "int64"),
    ("lib.div(a, 2, rounding_mode='trunc')", "int64"),
    ("a.sqrt()", "float32"),
    ("a.abs()", "int64"),
    ("a.floor()", "int64"),
    ("-a", "int64"),
    ("~b", "bool"),
    ("~a", "int64"),
    ("a.prod()", "int64"),
    ("b.prod()", "int64"),
    ("b.cumprod(0)", "int64"),
    ("a.sin()", "float32"),
    ("lib.where(b, a, 0.5)", "float32"),
]


def _env(lib):
    return {
        "lib": lib,
        "a": lib.tensor([1, 2, 3]),
        "b": lib.tensor([True, False, True]),
        "f": lib.tensor([0.5, 1.5, 2.5]),
    }


@pytest.mark.parametrize(("expr", "dtype"), PROMOTION_CASES)
def test_dtype_promotion(expr, dtype):
    assert str(eval(expr, _env(mg)).dtype) == dtype


@pytest.mark.parametrize(("expr", "dtype"), PROMOTION_CASES)
def test_dtype_promotion_matches_torch(expr, dtype, torch):
    y, yt = eval(expr, _env(mg)), eval(expr, _env(torch))
    assert str(yt.dtype) == "torch." + dtype
    np.testing.assert_allclose(y.numpy(), yt.numpy(), rtol=1e-6)


# expression, the exception class PyTorch raises
ERROR_CASES = [
    ("lib.ones(2, 3) + lib.ones(4)", RuntimeError),
    ("lib.atan2(lib.ones(2), lib.ones(3))", RuntimeError),
    ("lib.ones(2, 3) @ lib.ones(2, 3)", RuntimeError),
    ("lib.cat([lib.ones(2, 3), lib.ones(2)])", RuntimeError),
    ("lib.ones(2, 3).permute(0)", RuntimeError),
    ("lib.ones(2, 3).expand(4, 3)", RuntimeError),
    ("lib.ones(2).sum(3)", IndexError),
    ("lib.ones(2, 3).gather(1, lib.tensor([0]))", RuntimeError),
    ("lib.ones(2, 3).kthvalue(4, 1)", RuntimeError),
    ("lib.bitwise_and(lib.ones(2), lib.ones(2))", NotImplementedError),
    ("lib.ones(2, 3).narrow(1, 2, 3)", (IndexError, RuntimeError)),
    ("lib.ones(4).unfold(0, 5, 1)", RuntimeError),
    ("lib.div(lib.ones(2), 2, rounding_mode='round')", RuntimeError),
]


@pytest.mark.parametrize(("expr", "error"), ERROR_CASES)
def test_errors_have_pytorchs_class(expr, error):
    with pytest.raises(error):
        eval(expr, {"lib": mg})


@pytest.mark.parametrize(("expr", "error"), ERROR_CASES)
def test_torch_raises_the_same_class(expr, error, torch):
    with pytest.raises(error):
        eval(expr, {"lib": torch})
