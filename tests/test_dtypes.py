"""dtypes (minigrad/dtypes.py) and the type-promotion rules of the operators.

The rules are PyTorch's: Python floats are float32; a float beats an integer whatever
its size; a 0-dim tensor or a Python number does not widen a tensor of its own
category; integer division gives float32.
"""

import itertools
import operator

import numpy as np
import pytest

import minigrad as mg
from minigrad import dtypes


def test_dtypes_are_numpy_dtypes():
    assert mg.float32 == np.dtype(np.float32) and isinstance(mg.float32, np.dtype)
    assert mg.float64 is dtypes.float64 and mg.double == mg.float64
    assert mg.int64 == np.dtype(np.int64) and mg.long == mg.int64
    assert mg.bool == np.dtype(bool) and mg.float == mg.float32
    assert mg.float16 == np.dtype(np.float16) and mg.half == mg.float16


@pytest.mark.parametrize(
    "spec, expected",
    [("float64", np.float64), (np.float32, np.float32), (float, np.float64), (mg.int64, np.int64)],
)
def test_as_dtype_accepts_numpy_spellings(spec, expected):
    assert dtypes.as_dtype(spec) == np.dtype(expected)
    assert mg.zeros(2, dtype=spec).dtype == np.dtype(expected)


def test_as_dtype_none_and_errors():
    assert dtypes.as_dtype(None) is None
    with pytest.raises(TypeError, match="dtype"):
        dtypes.as_dtype("not a dtype")


def test_is_floating():
    assert dtypes.is_floating(mg.float32) and dtypes.is_floating(mg.float16)
    assert not dtypes.is_floating(mg.int64) and not dtypes.is_floating(mg.bool)


# ---------------------------------------------------------------------- promotion rules
F32 = np.array([1.0, 2.0], dtype=np.float32)
F64 = np.array([1.0, 2.0])
I64 = np.array([1, 2])


@pytest.mark.parametrize(
    "fn, expected",
    [
        (lambda: mg.tensor(F32) * 2.5, mg.float32),
        (lambda: 2.5 * mg.tensor(F32), mg.float32),
        (lambda: mg.tensor(F32) * np.float64(2.5), mg.float32),  # NumPy scalars too
        (lambda: np.float64(2.5) * mg.tensor(F32), mg.float32),
        (lambda: mg.tensor(F32) / np.sqrt(4.0), mg.float32),
        (lambda: mg.tensor(I64) / 2, mg.float32),
        (lambda: 2 / mg.tensor(I64), mg.float32),
        (lambda: mg.tensor(I64) / mg.tensor(I64), mg.float32),
        (lambda: mg.tensor(I64) * 2.5, mg.float32),
        (lambda: mg.tensor(I64) + 1, mg.int64),
        (lambda: mg.tensor(I64) ** 2, mg.int64),
        (lambda: 2 ** mg.tensor(I64), mg.int64),
        (lambda: mg.tensor(I64) ** 0.5, mg.float32),
        (lambda: mg.tensor(F32) + mg.tensor(F64), mg.float64),
        (lambda: mg.tensor(I64) + mg.tensor(F32), mg.float32),
        (lambda: mg.tensor(F32) + mg.tensor(np.array(1.0)), mg.float32),  # 0-d: no widening
        (lambda: mg.tensor(I64) + mg.tensor(np.array(1.0)), mg.float64),
        (lambda: mg.tensor([True, False]) + mg.tensor(np.array(3)), mg.int64),
        (lambda: mg.tensor([True, False]) + 1, mg.int64),
        (lambda: mg.tensor(I64).float(), mg.float32),
        (lambda: mg.tensor(F32).double(), mg.float64),
        (lambda: mg.tensor(F32).long(), mg.int64),
        (lambda: mg.tensor(F32).bool(), mg.bool),
        (lambda: mg.tensor(F32).to(mg.float64), mg.float64),
        (lambda: mg.tensor(F32).to(dtype=mg.float64), mg.float64),
        (lambda: mg.tensor(F32) < 1.5, mg.bool),
    ],
)
def test_promotion_rules(fn, expected):
    assert fn().dtype == expected


def _operands(make):
    return {
        "int64": make(np.array([1, 2, 3])),
        "int32": make(np.array([1, 2, 3], dtype=np.int32)),
        "float32": make(np.array([1.0, 2.0, 3.0], dtype=np.float32)),
        "float64": make(np.array([1.0, 2.0, 3.0])),
        "bool": make(np.array([True, False, True])),
        "float64_0d": make(np.array(2.0)),
        "float32_0d": make(np.array(2.0, dtype=np.float32)),
        "int64_0d": make(np.array(2)),
        "int": 2,
        "float": 2.5,
        "np.float64": np.float64(2.5),
        "np.int64": np.int64(2),
    }


OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
NAMES = list(_operands(lambda a: a))
PAIRS = [
    (a, b)
    for a, b in itertools.product(NAMES, NAMES)
    if not (
        a in ("int", "float", "np.float64", "np.int64")
        and b in ("int", "float", "np.float64", "np.int64")
    )
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # x / False is inf or nan, as in torch
@pytest.mark.parametrize("op", OPS)
def test_result_dtypes_and_values_match_torch(op, torch):
    ours, theirs = _operands(mg.tensor), _operands(torch.tensor)
    fn = OPS[op]
    checked = 0
    for a, b in PAIRS:
        try:
            ref = fn(theirs[a], theirs[b])
        except RuntimeError:
            continue  # torch refuses (bool subtraction); minigrad is more lenient there
        y = fn(ours[a], ours[b])
        assert str(y.dtype) == str(ref.dtype).replace("torch.", ""), f"{a} {op} {b}"
        np.testing.assert_allclose(y.numpy(), ref.numpy(), rtol=1e-6, err_msg=f"{a} {op} {b}")
        checked += 1
    assert checked > 100


def test_gradient_dtype_follows_the_leaf_through_mixed_precision():
    x32 = mg.tensor(F32, requires_grad=True)
    x64 = mg.tensor(F64, requires_grad=True)
    (x32 * x64).sum().backward()  # computed in float64
    assert x32.grad.dtype == mg.float32 and x64.grad.dtype == mg.float64
    np.testing.assert_array_equal(x32.grad.numpy(), F64.astype(np.float32))


FLOAT32_OPS = {
    "arith": lambda x: (x * 2.5 + 1.5 - x / 3.0) ** 2 / (x.abs() + 1.0),
    "rdiv_rpow": lambda x: 2.0 / (x.abs() + 1.0) + 1.5**x + np.float64(2.0) * x,
    "unary": lambda x: x.exp() + x.tanh() + x.sigmoid() + x.relu() + x.sin() + x.cos(),
    "roots_log": lambda x: (x.abs() + 1.0).log() + (x.abs() + 1.0).sqrt() + (x.abs() + 1.0).rsqrt(),
    "clamp": lambda x: x.clamp(-0.5, 0.5) + x.clamp(min=np.float64(0.1)) + x.maximum(x * 0.5),
    "reductions": lambda x: x.sum(0) + x.mean(0) + x.var(0) + x.std(0) + x.amax(0) + x.max(0)[0],
    "softmax": lambda x: x.softmax(-1) + x.log_softmax(-1) + x.logsumexp(-1, keepdim=True),
    "shape": lambda x: mg.cat([x.T.reshape(2, 3), x[:, ::2].mT], 1).flatten(),
    "index": lambda x: x[np.array([0, 0, 1])].masked_fill(np.array([True, False, True]), 0.5),
    "where_matmul": lambda x: mg.where(x > 0, x, 0.25) @ x.T,
}


@pytest.mark.parametrize("name", FLOAT32_OPS)
def test_float32_stays_float32_forward_and_backward(name):
    x = mg.tensor(np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32))
    x.requires_grad_()
    y = FLOAT32_OPS[name](x)
    assert y.dtype == mg.float32, name
    (g,) = mg.autograd.grad(y.sum(), x, create_graph=True)
    assert g.dtype == mg.float32


def test_the_promotion_rules_live_in_dtypes():
    """PyTorch's documented rules, asked of ``dtypes`` directly (no tensor involved)."""
    f16, f32, f64, i32, i64, b = (
        dtypes.float16,
        dtypes.float32,
        dtypes.float64,
        dtypes.int32,
        dtypes.int64,
        dtypes.bool_,
    )
    assert dtypes.result_type(i64, 1, f32, 1) == f32  # a float wins whatever its size
    assert dtypes.result_type(f32, 2, f64, 0) == f32  # a 0-d tensor does not widen
    assert dtypes.result_type(f64, 0, f32, 2) == f32
    assert dtypes.result_type(b, 1, i64, 0) == i64  # but a higher category does
    assert dtypes.result_type(f32, 1, f64, 1) == f64
    assert dtypes.result_type(i32, 0, i64, 0) == i64
    assert dtypes.scalar_result_type(f16, 2.5) == f16  # a Python float never widens
    assert dtypes.scalar_result_type(i32, 2.5) == f32
    assert dtypes.scalar_result_type(i32, 2) == i32
    assert dtypes.scalar_result_type(i32, 2, true_divide=True) == f32
    assert dtypes.scalar_result_type(b, 2) == i64
    assert dtypes.scalar_result_type(b, True) == b
    assert dtypes.true_divide_type(i64) == f32 and dtypes.true_divide_type(f64) == f64
    assert dtypes.common_dtype([i64, f16, b]) == f16
    assert dtypes.common_dtype([i32, i64]) == i64
