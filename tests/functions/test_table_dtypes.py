"""Every function of the elementwise table on every dtype, against PyTorch.

Each entry of ``functions/elementwise.py`` (``mg.X`` or ``mg.special.X``) is called on
bool, uint8, int8, int16, int32, int64, float16, float32 and float64 tensors and, for a
binary entry, on every pair of them and with Python numbers on either side (``True``,
``0``, ``2``, ``-1``, ``2.5``). minigrad must do what PyTorch does: refuse where PyTorch
refuses (the class is not compared here: ``test_dtype_refusals.py`` and the op_db sweep
check it), and otherwise give a tensor of PyTorch's dtype and values. The operands
include zeros and negative numbers, so integer division by zero, a negative number
meeting an unsigned tensor (PyTorch wraps it into the dtype) and the entries without a
float16 or integer kernel are all exercised.

Without PyTorch, ``test_wrapping_without_pytorch`` checks the wrap-around by hand.
"""

import numpy as np
import pytest

import minigrad as mg
from minigrad.functions.elementwise import TABLE

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
NUMBERS = [True, 0, 2, -1, 2.5]


def _values(dtype: str, second: bool) -> list:
    if dtype == "bool":
        return [True, False, True, False]
    if dtype.startswith("float"):
        return [2.0, 0.5, -1.5, 0.0] if second else [1.5, -2.0, 0.0, 0.25]
    if dtype == "uint8":
        return [2, 0, 1, 3] if second else [3, 1, 0, 2]
    return [2, 0, -3, 1] if second else [3, -1, 0, 2]


def _tensor(lib, dtype: str, second: bool = False):
    return lib.tensor(_values(dtype, second), dtype=getattr(lib, dtype))


def _outcome(call, lib, fn):
    """``("raised",)``, or the dtype name and values of ``call(lib, fn)``."""
    try:
        out = call(lib, fn)
    except Exception:
        return ("raised",)
    values = out.detach().numpy() if hasattr(out, "detach") else out.numpy()
    return (str(out.dtype).rpartition(".")[2], values.astype(np.float64))


def _same(theirs, ours) -> bool:
    if theirs[0] == "raised" or ours[0] == "raised":
        return theirs[0] == ours[0]
    # float16 results may differ in the last place (PyTorch computes some in float16)
    tolerance = 2e-3 if theirs[0] == "float16" else 1e-6
    return theirs[0] == ours[0] and np.allclose(
        theirs[1], ours[1], rtol=tolerance, atol=tolerance, equal_nan=True
    )


def _function(lib, op):
    for name in (op.name, *op.aliases, *op.special):
        for namespace in (lib, lib.special):
            fn = getattr(namespace, name, None)
            if fn is not None:
                return fn
    return None


def _cases(op) -> list:
    """(label, call(lib, fn)) for every dtype, pair and number."""
    if op.arity == 1:
        return [((d,), lambda lib, fn, d=d: fn(_tensor(lib, d))) for d in DTYPES]
    cases = [
        ((a, b), lambda lib, fn, a=a, b=b: fn(_tensor(lib, a), _tensor(lib, b, True)))
        for a in DTYPES
        for b in DTYPES
    ]
    for d in DTYPES:
        for n in NUMBERS:
            cases.append(((d, repr(n)), lambda lib, fn, d=d, n=n: fn(_tensor(lib, d), n)))
            cases.append(((repr(n), d), lambda lib, fn, d=d, n=n: fn(n, _tensor(lib, d, True))))
    return cases


@pytest.mark.parametrize("name", sorted(TABLE))
def test_entry_matches_pytorch_on_every_dtype(name, torch):
    op = TABLE[name]
    theirs_fn, ours_fn = _function(torch, op), _function(mg, op)
    if theirs_fn is None:
        pytest.skip(f"torch has no function {name} (a Tensor method only)")
    differ = []
    with np.errstate(all="ignore"):
        for label, call in _cases(op):
            theirs = _outcome(call, torch, theirs_fn)
            ours = _outcome(call, mg, ours_fn)
            if not _same(theirs, ours):
                differ.append(f"{label}: PyTorch {theirs}, minigrad {ours}")
    assert not differ, "\n".join(differ[:20])


def test_wrapping_without_pytorch():
    u = mg.tensor([3, 1, 0], dtype=mg.uint8)
    assert (u + -1).tolist() == [2, 0, 255]  # -1 is 255 in uint8
    assert (u - 2).tolist() == [1, 255, 254]
    assert (u * -1).tolist() == [253, 255, 0]
    assert (u < -1).tolist() == [True, True, True]  # compared with 255, as in PyTorch
    i8 = mg.tensor([3, -1], dtype=mg.int8)
    assert (i8 + 200).tolist() == [-53, -57]  # 200 is -56 in int8
    assert (i8 + -129).tolist() == [-126, 126]  # -129 is 127
    assert mg.full((2,), -1, dtype=mg.uint8).tolist() == [255, 255]
    assert (mg.tensor([3]) + 2**63).tolist() == [3 - 2**63]  # past int64: wraps too
    with pytest.raises(OverflowError):
        mg.tensor([3]) + 2**64  # past uint64 as well: PyTorch refuses it
    # an entry that computes in floats takes the number as it is
    out = mg.copysign(u, -1)
    assert out.dtype == mg.float32 and out.tolist() == [-3.0, -1.0, -0.0]
    assert (mg.tensor([2, 3], dtype=mg.uint8) ** 2).tolist() == [4, 9]
    with pytest.raises(RuntimeError, match="negative integer powers"):
        mg.tensor([2], dtype=mg.uint8) ** -1  # the exponent is not wrapped to 255


def test_heaviside_refuses_two_dtypes_as_pytorch_does():
    with pytest.raises(RuntimeError, match="different dtypes"):
        mg.heaviside(mg.tensor([1, 0]), mg.tensor([0.5]))
    assert mg.heaviside(mg.tensor([True, False]), mg.tensor([True])).dtype == mg.bool


def test_subtracting_numpy_scalars():
    x = mg.tensor([10.0])
    assert (x - np.uint8(3)).tolist() == [7.0]  # not 10 + (uint8 -3 = 253)
    assert (mg.tensor([10], dtype=mg.uint8) - np.uint8(3)).tolist() == [7]
    assert (mg.tensor([3], dtype=mg.uint8) - 5).tolist() == [254]  # wraps, as in PyTorch
