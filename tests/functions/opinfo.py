"""The operation table the tests run (``test_opinfo.py``), in the spirit of PyTorch's OpInfo.

Each ``OpInfo`` names an operation, how to call it in minigrad and in PyTorch, the
inputs it accepts (a domain for random values, the dtypes) and its properties
(differentiable, has an in-place variant). Every elementwise table entry
(``minigrad/functions/elementwise.py``) is an OpInfo automatically, so an op added to
that table is an op tested; ``OVERRIDES`` gives the entries that need another domain or
PyTorch name. Other operations (reductions, indexing, ...) are listed in ``EXTRA``.

Sample inputs for an op of arity 1: a matrix, a 0-d tensor, an empty tensor and a
non-contiguous (transposed) view; of arity 2: broadcasting pairs, a 0-d operand, an
empty operand, a transposed operand and a Python number as the second operand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import minigrad as mg
from minigrad.elementwise import NO_INPLACE, SPECIAL_ONLY
from minigrad.functions.elementwise import BINARY, UNARY

FLOATS = ("float32", "float64")
ALL = ("float32", "float64", "int64", "bool")


@dataclass
class OpInfo:
    name: str
    arity: int = 1
    mg_fn: object = None  # f(*tensors, **kwargs); default mg.<name>
    torch_fn: object = None  # f(torch, *tensors, **kwargs); default torch.<name>
    domain: tuple = (-2.0, 2.0)  # where random float inputs are drawn (each input)
    domain_b: tuple | None = None  # the second input's, if different
    dtypes: tuple = ALL
    differentiable: bool = True
    inplace: bool = True
    kwargs: dict = field(default_factory=dict)
    points: tuple = ()  # special points: tuples of input lists, compared with PyTorch
    gradgrad: bool = True  # second derivatives (through the Tensor backward) checked
    scalar_other: bool = True  # a Python number as the second operand is a sample
    rtol: float = 1e-6  # value tolerance in float64 (float32: looser, see the test)

    def call(self, *tensors):
        fn = self.mg_fn or getattr(mg, self.name)
        return fn(*tensors, **self.kwargs)

    def call_torch(self, torch, *tensors):
        if self.torch_fn is not None:
            return self.torch_fn(torch, *tensors, **self.kwargs)
        return getattr(torch, self.name)(*tensors, **self.kwargs)

    def __repr__(self) -> str:
        return self.name


def _special(name):
    return lambda torch, *ts, **kw: getattr(torch.special, name)(*ts, **kw)


NAN = float("nan")
POSITIVE = (0.1, 3.0)
UNIT = (-0.9, 0.9)
OVERRIDES = {
    "reciprocal": dict(domain=POSITIVE),
    "sqrt": dict(domain=POSITIVE, points=(([0.0, 4.0, -1.0],),)),
    "rsqrt": dict(domain=POSITIVE),
    "log": dict(domain=POSITIVE, points=(([0.0, 1.0],),)),
    "log2": dict(domain=POSITIVE),
    "log10": dict(domain=POSITIVE),
    "log1p": dict(domain=(-0.5, 3.0)),
    "asin": dict(domain=UNIT, points=(([1.0, -1.0, 0.0],),)),
    "acos": dict(domain=UNIT),
    "atanh": dict(domain=UNIT),
    "acosh": dict(domain=(1.1, 3.0)),
    "erfinv": dict(domain=UNIT, points=(([1.0, -1.0, 0.0, 2.0],),)),
    "lgamma": dict(domain=(0.2, 4.0), points=(([0.0, -1.0, -2.5, 1.0],),)),
    "digamma": dict(domain=(0.2, 4.0), gradgrad=False),  # trigamma has no derivative
    "trigamma": dict(domain=(0.2, 4.0), torch_fn=lambda torch, x: torch.polygamma(1, x)),
    "logit": dict(domain=(0.05, 0.95), dtypes=FLOATS),
    "ndtr": dict(torch_fn=_special("ndtr")),
    "entr": dict(domain=POSITIVE, torch_fn=_special("entr"), points=(([0.0, -1.0, 1.0],),)),
    "xlog1py": dict(domain_b=(-0.5, 3.0), torch_fn=_special("xlog1py"), dtypes=FLOATS),
    "xlogy": dict(domain_b=POSITIVE, points=(([0.0, 0.0, 1.0], [0.0, 2.0, 0.0]),)),
    "abs": dict(dtypes=FLOATS + ("int64",), points=(([0.0, -1.0, 2.0],),)),
    "sign": dict(points=(([0.0, -1.0, 2.0],),)),
    "relu": dict(dtypes=FLOATS + ("int64",), points=(([0.0, -1.0, 2.0],),)),
    "neg": dict(dtypes=FLOATS + ("int64",)),
    "positive": dict(dtypes=FLOATS + ("int64",)),
    "square": dict(dtypes=FLOATS + ("int64",)),
    "sinc": dict(points=(([0.0, 1.0, -0.5],),)),
    "floor": dict(dtypes=FLOATS + ("int64",)),
    "ceil": dict(dtypes=FLOATS + ("int64",)),
    "trunc": dict(dtypes=FLOATS + ("int64",)),
    "round": dict(dtypes=FLOATS + ("int64",), points=(([0.5, 1.5, 2.5, -0.5],),)),
    "frac": dict(dtypes=FLOATS),
    "nan_to_num": dict(points=(([float("nan"), float("inf"), -float("inf"), 1.0],),)),
    "signbit": dict(dtypes=FLOATS + ("int64",)),
    "bitwise_not": dict(dtypes=("int64", "bool")),
    "atan2": dict(
        points=(([0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),), dtypes=FLOATS + ("int64",), scalar_other=False
    ),
    "hypot": dict(dtypes=FLOATS, scalar_other=False),
    "logical_and": dict(scalar_other=False),
    "logical_or": dict(scalar_other=False),
    "logical_xor": dict(scalar_other=False),
    "copysign": dict(points=(([0.0, 1.0, -2.0], [-1.0, -0.0, 3.0]),)),
    "fmod": dict(domain_b=(0.5, 2.0), dtypes=FLOATS + ("int64",), scalar_other=True),
    "remainder": dict(domain_b=(0.5, 2.0), dtypes=FLOATS + ("int64",)),
    "floor_divide": dict(domain_b=(0.5, 2.0), dtypes=FLOATS + ("int64",)),
    "maximum": dict(points=(([1.0, 2.0, 3.0], [1.0, 0.0, 4.0]),), scalar_other=False),
    "minimum": dict(points=(([1.0, 2.0, 3.0], [1.0, 0.0, 4.0]),), scalar_other=False),
    "fmax": dict(
        points=(([1.0, float("nan"), 3.0], [1.0, 0.0, float("nan")]),), scalar_other=False
    ),
    "fmin": dict(
        points=(([1.0, float("nan"), 3.0], [1.0, 0.0, float("nan")]),), scalar_other=False
    ),
    "heaviside": dict(dtypes=FLOATS, scalar_other=False),
    "nextafter": dict(dtypes=FLOATS, scalar_other=False),
    "logaddexp": dict(dtypes=FLOATS, scalar_other=False),
    "logaddexp2": dict(dtypes=FLOATS, scalar_other=False),
    "gcd": dict(dtypes=("int64",), scalar_other=False),
    "lcm": dict(dtypes=("int64",), scalar_other=False),
    "bitwise_left_shift": dict(dtypes=("int64",), domain=(0, 4)),
    "bitwise_right_shift": dict(dtypes=("int64",), domain=(0, 4)),
}


def _table_infos() -> list:
    infos = []
    for op in UNARY + BINARY:
        info = OpInfo(
            op.name,
            arity=2 if op in BINARY else 1,
            differentiable=op.grads is not None,
            inplace=op.name not in NO_INPLACE and op.name not in SPECIAL_ONLY,
        )
        if op.name in SPECIAL_ONLY:
            info.mg_fn = getattr(mg.special, op.name, None) or _mg_special(op.name)
        if op.ints == "int":
            info.dtypes = ("int64", "bool")
        for key, value in OVERRIDES.get(op.name, {}).items():
            setattr(info, key, value)
        infos.append(info)
    return infos


def _mg_special(name):
    from minigrad.elementwise import call

    return lambda *ts, **kw: call(name, *ts, **kw)


#: Every op the parametrized tests run.
OPS = _table_infos()


def sample_inputs(info: OpInfo, dtype: str, rng) -> list:
    """The sample inputs of ``info`` in ``dtype``: a list of tuples of arrays (or a
    Python number as a binary op's second operand)."""

    def draw(shape, domain):
        lo, hi = domain
        if dtype == "bool":
            return np.asarray(rng.random(shape) > 0.5)
        if dtype == "int64":
            low = int(np.ceil(lo))
            return np.asarray(rng.integers(low, max(low, int(np.floor(hi))) + 1, shape))
        return np.asarray(rng.uniform(lo, hi, shape), dtype=dtype)

    da = info.domain
    db = info.domain_b or info.domain
    if info.arity == 1:
        return [
            (draw((3, 4), da),),
            (draw((), da),),
            (draw((0, 3), da),),
            (draw((4, 3), da).T,),  # a non-contiguous view
        ]
    samples = [
        (draw((3, 4), da), draw((4,), db)),
        (draw((2, 1, 3), da), draw((3, 1), db)),
        (draw((), da), draw((2, 3), db)),
        (draw((0, 3), da), draw((3,), db)),
        (draw((4, 3), da).T, draw((3, 4), db)),
    ]
    if info.scalar_other and dtype != "bool":
        samples.append((draw((2, 3), da), draw((), db).item()))
    return samples
