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
    shapes: tuple | None = None  # the samples' input shapes, if not the default ones
    table: bool = False  # an entry of the elementwise table (one Function, two backwards)

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
    "digamma": dict(domain=(0.2, 4.0)),
    "trigamma": dict(domain=(0.2, 4.0), torch_fn=lambda torch, x: torch.polygamma(1, x)),
    "logit": dict(domain=(0.05, 0.95), dtypes=FLOATS),
    "ndtr": dict(torch_fn=_special("ndtr")),
    "log_ndtr": dict(torch_fn=_special("log_ndtr"), domain=(-6.0, 6.0)),
    "ndtri": dict(torch_fn=_special("ndtri"), domain=(0.02, 0.98), points=(([0.0, 1.0, 0.5],),)),
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
    "erfcx": dict(torch_fn=_special("erfcx"), points=(([0.0, -1.0, 30.0, 1e3, -5.0],),)),
    "i0": dict(points=(([0.0, 30.0, -30.0],),)),
    "i0e": dict(torch_fn=_special("i0e"), points=(([0.0, 30.0, -30.0],),)),
    "i1": dict(torch_fn=_special("i1"), points=(([0.0, 30.0, -30.0],),)),
    "i1e": dict(torch_fn=_special("i1e"), points=(([0.0, 30.0, -30.0],),)),
    "igamma": dict(dtypes=FLOATS, domain=POSITIVE, scalar_other=False, differentiable=False),
    "igammac": dict(dtypes=FLOATS, domain=POSITIVE, scalar_other=False, differentiable=False),
    "zeta": dict(
        domain=(1.5, 4.0),
        domain_b=POSITIVE,
        torch_fn=_special("zeta"),
        differentiable=False,
        points=(([1.0, 2.0, 2.0, 3.0], [1.0, 0.0, -1.5, -2.5]),),
    ),
}
# torch.special functions without derivative: x > 0 where the function needs it; the
# Bessel functions J and Y over both of their methods (series below 2, integral above)
for _name, _domain in {
    "modified_bessel_i0": (-3.0, 3.0), "modified_bessel_i1": (-3.0, 3.0),
    "modified_bessel_k0": POSITIVE, "modified_bessel_k1": POSITIVE,
    "scaled_modified_bessel_k0": POSITIVE, "scaled_modified_bessel_k1": POSITIVE,
    "bessel_j0": (-8.0, 8.0), "bessel_j1": (-8.0, 8.0), "bessel_y0": (0.1, 8.0),
    "bessel_y1": (0.1, 8.0), "spherical_bessel_j0": (-8.0, 8.0), "airy_ai": (-6.0, 6.0),
}.items():  # fmt: skip
    OVERRIDES[_name] = dict(domain=_domain, torch_fn=_special(_name))
# PyTorch's own airy_ai is off by up to 2e-6 near x = -2.6 (test_special_functions.py
# checks minigrad's against exact series there)
OVERRIDES["airy_ai"]["rtol"] = 1e-5
# the orthogonal polynomials p_n(x): degrees n from 0 to 6, truncated (2.5 is 2)
for _name in (
    "chebyshev_polynomial_t chebyshev_polynomial_u chebyshev_polynomial_v chebyshev_polynomial_w "
    "shifted_chebyshev_polynomial_t shifted_chebyshev_polynomial_u shifted_chebyshev_polynomial_v "
    "shifted_chebyshev_polynomial_w hermite_polynomial_h hermite_polynomial_he "
    "laguerre_polynomial_l legendre_polynomial_p"
).split():
    OVERRIDES[_name] = dict(
        domain_b=(0.0, 6.0),
        torch_fn=_special(_name),
        points=(([0.5, 1.0, -1.0, 2.0, 0.3], [-1.0, 2.5, 3.0, 7.0, 30.0]),),
    )


def _table_infos() -> list:
    infos = []
    for op in UNARY + BINARY:
        info = OpInfo(
            op.name,
            arity=2 if op in BINARY else 1,
            differentiable=op.grads is not None,
            inplace=op.inplace and op.method,
            table=True,
        )
        if not op.method:
            info.mg_fn = getattr(mg.special, op.name, None) or _mg_special(op.name)
        if op.ints == "int":
            info.dtypes = ("int64", "bool")
        for key, value in OVERRIDES.get(op.name, {}).items():
            setattr(info, key, value)
        infos.append(info)
    return infos


def _mg_special(name):
    from minigrad.surface.elementwise import call

    return lambda *ts, **kw: call(name, *ts, **kw)


def expr(name: str, text: str, shapes=((3, 4),), **kwargs) -> OpInfo:
    """An op given as one expression in ``x`` (and ``y``, ``z``) and ``lib``, which is
    ``minigrad`` in one run and ``torch`` in the other: ``"x.cummax(1).values"``."""
    code = compile(text, name, "eval")

    def run(lib, tensors):
        return eval(code, {"lib": lib, "np": np}, dict(zip("xyz", tensors)))

    # each sample: a tuple of shapes, one per input; a bare shape is one input's
    shapes = tuple(s if s and isinstance(s[0], tuple) else (s,) for s in shapes)
    return OpInfo(
        name,
        arity=len(shapes[0]),
        mg_fn=lambda *ts: run(mg, ts),
        torch_fn=lambda torch, *ts: run(torch, ts),
        shapes=shapes,
        dtypes=kwargs.pop("dtypes", FLOATS),
        inplace=False,
        **kwargs,
    )


M = ((3, 4),)  # one input, a 3 x 4 matrix
ZEROS = (([[0.0, 2.0, 3.0, 1.5], [0.0, 0.0, 1.0, 2.0], [1.0, -2.0, 0.5, 3.0]],),)
#: Operations outside the elementwise table: reductions, scans, indexing, arithmetic
#: with extra arguments. Integer results (indices) carry no gradient.
EXTRA = [
    expr("prod", "x.prod()", M + ((5,),), points=ZEROS),
    expr("prod-dim", "lib.prod(x, 1, keepdim=True)", M, points=ZEROS),
    expr("prod-int", "x.prod(0)", M, dtypes=("int64", "bool"), differentiable=False),
    expr("cumprod", "x.cumprod(1)", M + ((5, 2),), points=ZEROS),
    expr("cummax", "x.cummax(1).values", M, points=(([[1.0, 3.0, 3.0, 2.0]],),)),
    expr("cummax-indices", "x.cummax(1).indices", M, dtypes=ALL, differentiable=False),
    expr("cummin", "x.cummin(0).values", M),
    expr("cummin-indices", "x.cummin(-1).indices", M, dtypes=ALL, differentiable=False),
    expr("logcumsumexp", "x.logcumsumexp(0)", M),
    expr("all", "x.all(1)", M, dtypes=ALL, differentiable=False),
    expr("any", "lib.any(x, 0, keepdim=True)", M, dtypes=ALL, differentiable=False),
    expr("count_nonzero", "lib.count_nonzero(x, 1)", M, dtypes=ALL, differentiable=False),
    expr("median", "x.median()", M + ((5,),)),
    expr("median-dim", "x.median(1).values", M),
    expr(
        "median-indices",
        "x.median(0).indices",
        M,
        dtypes=("float64", "int64"),
        differentiable=False,
    ),
    expr("kthvalue", "x.kthvalue(2, 1).values", M),
    expr("nansum", "x.nansum(1)", M, points=(([[1.0, NAN], [NAN, NAN]],),)),
    expr("nanmean", "x.nanmean()", M, points=(([[1.0, NAN], [3.0, 4.0]],),)),
    expr("std_mean", "lib.std_mean(x, 1)[0] + lib.std_mean(x, 1)[1]", M),
    expr("var_mean", "lib.var_mean(x, 0, correction=0)[0]", M),
    expr("aminmax", "lib.aminmax(x, dim=1).max - lib.aminmax(x, dim=1).min", M),
    expr("take", "lib.take(x, lib.tensor([0, 5, 5, 11]))", M),
    expr("take_along_dim", "lib.take_along_dim(x, lib.tensor([[0], [2], [1]]), 1)", M),
    expr("select", "x.select(1, -1)", M),
    expr("narrow", "x.narrow(1, 1, 2)", M),
    expr("masked_select", "x.masked_select(x > 0)", M),
    expr("diagonal", "x.diagonal(1)", M),
    expr("diagonal-3d", "x.diagonal(-1, 2, 0)", ((3, 2, 4),)),
    expr("diag", "lib.diag(x, -1)", M + ((4,),)),
    expr("diag_embed", "lib.diag_embed(x, 1)", M),
    expr("diag_embed-dims", "lib.diag_embed(x, 0, 0, 2)", M),
    expr("diagflat", "lib.diagflat(x)", ((2, 2),)),
    expr("unfold", "x.unfold(1, 2, 1)", M),
    expr("unfold-step", "x.unfold(0, 2, 2)", M),
    expr("repeat_interleave", "x.repeat_interleave(2, dim=0)", M),
    expr("repeat_interleave-counts", "x.repeat_interleave(lib.tensor([1, 0, 2, 1]), dim=1)", M),
    expr("repeat_interleave-flat", "x.repeat_interleave(2)", M),
    expr("scatter", "x.scatter(1, lib.tensor([[0], [2], [1]]), y)", (((3, 4), (3, 1)),)),
    expr("scatter-value", "x.scatter(1, lib.tensor([[0], [2], [1]]), 0.5)", M),
    expr(
        "scatter_add",
        "x.scatter_add(0, lib.tensor([[0, 1, 2, 0], [2, 2, 1, 0]]), y)",
        (((3, 4), (2, 4)),),
    ),
    expr(
        "scatter_reduce-mean",
        "x.scatter_reduce(0, lib.tensor([[0, 1, 2, 0], [2, 2, 1, 0]]), y, 'mean')",
        (((3, 4), (2, 4)),),
    ),
    expr(
        "scatter_reduce-sum-noself",
        "x.scatter_reduce(0, lib.tensor([[0, 1, 2, 0]]), y, 'sum', include_self=False)",
        (((3, 4), (1, 4)),),
    ),
    expr(
        "scatter_reduce-amax",
        "x.scatter_reduce(0, lib.tensor([[0, 1, 2, 0]]), y, 'amax')",
        (((3, 4), (1, 4)),),
        differentiable=False,
    ),
    expr("index_add", "x.index_add(1, lib.tensor([0, 2, 0]), y, alpha=2)", (((3, 4), (3, 3)),)),
    expr("index_copy", "x.index_copy(1, lib.tensor([3, 0]), y)", (((3, 4), (3, 2)),)),
    expr("index_fill", "x.index_fill(1, lib.tensor([1, 3]), -1.0)", M),
    expr(
        "index_put-accumulate",
        "x.index_put((lib.tensor([0, 2, 0]), lib.tensor([1, 1, 1])), y, accumulate=True)",
        (((3, 4), (3,)),),
    ),
    expr(
        "index_put", "x.index_put((lib.tensor([0, 2]), lib.tensor([1, 3])), y)", (((3, 4), (2,)),)
    ),
    expr("masked_scatter", "x.masked_scatter(x > 0, y)", (((3, 4), (12,)),)),
    expr("movedim", "lib.movedim(x, (0, 1), (2, 0))", ((2, 3, 4),)),
    expr("moveaxis", "lib.moveaxis(x, 0, -1)", ((2, 3, 4),)),
    expr("swapaxes", "x.swapaxes(0, 2)", ((2, 3, 4),)),
    expr("swapdims", "lib.swapdims(x, 0, 1)", M),
    expr("tile", "lib.tile(x, (2, 1, 2))", M),
    expr(
        "meshgrid",
        "lib.meshgrid(x, y, indexing='xy')[0] * lib.meshgrid(x, y)[1].T",
        (((3,), (2,)),),
    ),
    expr("nonzero", "(x > 0).nonzero()", M, dtypes=ALL, differentiable=False),
    expr("nonzero-tuple", "lib.nonzero(x, as_tuple=True)[1]", M, dtypes=ALL, differentiable=False),
    expr("argwhere", "lib.argwhere(x)", M, dtypes=ALL, differentiable=False),
    expr("tril_indices", "lib.tril_indices(3, 4, 1) + 0 * x.sum().long()", M, differentiable=False),
    expr(
        "triu_indices", "lib.triu_indices(4, 3, -1) + 0 * x.sum().long()", M, differentiable=False
    ),
    expr("add-alpha", "x.add(y, alpha=2)", (((3, 4), (4,)),)),
    expr("sub-alpha", "lib.sub(x, y, alpha=0.5)", (((3, 4), (4,)),)),
    expr("rsub", "lib.rsub(x, y)", (((3, 4), (4,)),)),
    expr("div-floor", "lib.div(x, y, rounding_mode='floor')", (((3, 4), (4,)),), domain=(0.5, 3)),
    expr("div-trunc", "x.div(y, rounding_mode='trunc')", (((3, 4), (4,)),), domain=(0.5, 3)),
    expr(
        "div-int",
        "lib.div(x - 3, y, rounding_mode='trunc') + (x - 3) // y",
        (((3, 4), (4,)),),
        domain=(1, 5),
        dtypes=("int64",),
        differentiable=False,
    ),
    expr("true_divide", "lib.true_divide(x, y)", (((3, 4), (4,)),), domain=(0.5, 3), dtypes=ALL),
    expr("addcmul", "lib.addcmul(x, y, z, value=0.5)", (((3, 4), (4,), (3, 1)),)),
    expr("addcdiv", "x.addcdiv(y, z, value=2)", (((3, 4), (4,), (3, 1)),), domain=(0.5, 2)),
    expr("lerp", "lib.lerp(x, y, z)", (((3, 4), (4,), (3, 1)),)),
    expr("lerp-scalar", "x.lerp(y, 0.25)", (((3, 4), (4,)),)),
    expr("float_power", "lib.float_power(x, y)", (((3, 4), (4,)),), domain=(0.5, 2)),
    expr("ldexp", "lib.ldexp(x, lib.tensor([1, 2, 3, 0]))", M),
    expr("clamp_min", "x.clamp_min(0.1)", M),
    expr("clamp_max", "lib.clamp_max(x, 0.1)", M),
    expr(
        "isclose",
        "lib.isclose(x, x + 1e-7 * y)",
        (((3, 4), (4,)),),
        dtypes=("float64",),
        differentiable=False,
    ),
    expr("isin", "lib.isin(x, lib.tensor([0, 2]))", M, dtypes=("int64",), differentiable=False),
    expr("isneginf", "lib.isneginf(x / y)", (((3, 4), (4,)),), differentiable=False),
    expr("isposinf", "lib.isposinf(x / y)", (((3, 4), (4,)),), differentiable=False),
]

V = ((4,),)  # one input, a vector
#: Joining, splitting and products (minigrad/surface/joining.py).
JOINING = [
    expr("hstack", "lib.hstack([x, y])", (((3, 4), (3, 2)),)),
    expr("vstack", "lib.vstack([x, y])", (((3, 4), (4,)),)),
    expr("row_stack", "lib.row_stack((x, y))", (((3, 4), (1, 4)),)),
    expr("dstack", "lib.dstack([x, y])", (((3, 4), (3, 4)),)),
    expr("column_stack", "lib.column_stack([x, y])", (((3,), (3, 2)),)),
    expr("concatenate", "lib.concatenate([x, y], 1)", (((3, 4), (3, 1)),)),
    expr("atleast_3d", "lib.atleast_3d(x)", M + V + ((),)),
    expr("block_diag", "lib.block_diag(x, y)", (((2, 3), (2,)),)),
    expr("cartesian_prod", "lib.cartesian_prod(x, y)", (((3,), (2,)),)),
    expr("broadcast_to", "x.broadcast_to((2, 3, 4))", ((4,), (3, 1))),
    expr("broadcast_tensors", "lib.broadcast_tensors(x, y)[1]", (((3, 1), (4,)),)),
    expr("tensor_split", "x.tensor_split(3, 1)[2]", M),
    expr("tensor_split-indices", "lib.tensor_split(x, [1, 3], dim=1)[1]", M),
    expr("hsplit", "x.hsplit(2)[1]", M),
    expr("vsplit", "lib.vsplit(x, [1])[1]", M),
    expr("split_with_sizes", "x.split_with_sizes([1, 3], 1)[1]", M),
    expr("ravel", "x.ravel()", ((2, 3, 4),)),
    expr("fliplr", "x.fliplr()", M),
    expr("flipud", "lib.flipud(x)", M),
    expr("rot90", "x.rot90()", M),
    expr("rot90-k", "lib.rot90(x, 3, [1, 0])", M),
    expr("msort", "lib.msort(x)", M),
    expr("diff", "x.diff()", M),
    expr("diff-n", "lib.diff(x, n=2, dim=0, prepend=y)", (((3, 4), (1, 4)),)),
    expr("trace", "x.trace()", M),
    expr("mm", "x.mm(y)", (((3, 4), (4, 2)),)),
    expr("mv", "lib.mv(x, y)", (((3, 4), (4,)),)),
    expr("dot", "lib.dot(x, y)", (((4,), (4,)),)),
    expr("vdot", "x.vdot(y)", (((4,), (4,)),)),
    expr("inner", "lib.inner(x, y)", (((3, 4), (2, 4)),)),
    expr("ger", "x.ger(y)", (((3,), (4,)),)),
    expr("addmm", "lib.addmm(x, y, z, beta=0.5, alpha=2)", (((3, 2), (3, 4), (4, 2)),)),
    expr("addmv", "x.addmv(y, z)", (((3,), (3, 4), (4,)),)),
    expr("addr", "lib.addr(x, y, z, alpha=3)", (((3, 4), (3,), (4,)),)),
    expr("baddbmm", "lib.baddbmm(x, y, z)", (((2, 3, 2), (2, 3, 4), (2, 4, 2)),)),
    expr("addbmm", "x.addbmm(y, z, beta=2)", (((3, 2), (2, 3, 4), (2, 4, 2)),)),
    expr("kron", "lib.kron(x, y)", (((2, 3), (2, 2)),)),
    expr("tensordot", "lib.tensordot(x, y, dims=([1, 0], [0, 1]))", (((3, 4), (4, 3)),)),
    expr("tensordot-int", "lib.tensordot(x, y, 1)", (((3, 4), (4, 2)),)),
    expr(
        "searchsorted",
        "lib.searchsorted(x.sort().values, y)",
        (((5,), (3,)),),
        differentiable=False,
    ),
    expr(
        "bucketize",
        "lib.bucketize(y, x.sort().values, right=True)",
        (((5,), (3,)),),
        differentiable=False,
    ),
    expr("bincount", "lib.bincount(x)", V, dtypes=("int64",), domain=(0, 5), differentiable=False),
    expr(
        "unique", "lib.unique(x, return_counts=True)[1]", M, dtypes=("int64",), differentiable=False
    ),
]

JOINING += [
    expr("where-method", "x.where(x > 0, y)", (((3, 4), (4,)),)),
    expr(
        "polygamma",
        "lib.polygamma(0, x) * x.polygamma(0) + lib.polygamma(3, x)",
        M,
        domain=(0.2, 4.0),
    ),
    expr("mvlgamma", "lib.mvlgamma(x, 3)", M, domain=(1.5, 4.0)),
    expr(
        "frexp",
        "lib.frexp(x).mantissa * lib.frexp(x)[1]",
        M + ((),),
        domain=(-50, 50),
        gradgrad=False,
    ),  # linear in x: a vacuous second derivative
    expr("frexp-exponent", "x.frexp().exponent", M, domain=(-50, 50), differentiable=False),
    # igamma and zeta have a derivative in their second argument only (as in PyTorch)
    expr(
        "igamma-x",
        "lib.igamma(lib.tensor([[0.5], [1.5], [4.0]]).to(x.dtype), x)",
        M,
        domain=POSITIVE,
    ),
    expr(
        "igammac-x",
        "lib.special.gammaincc(lib.tensor([0.5, 2.0, 1.0, 6.0]).to(x.dtype), x)",
        M,
        domain=POSITIVE,
    ),
    expr(
        "zeta-q",
        "lib.special.zeta(lib.tensor([[2.0], [3.5], [1.5]]).to(x.dtype), x)",
        M,
        domain=POSITIVE,
    ),
]

SQ = (((3, 3),), ((2, 3, 3),))  # square matrices, one and a batch
#: Linear algebra (minigrad/linalg.py).
LINALG = [
    expr("linalg.inv", "lib.linalg.inv(x)", SQ),
    expr("linalg.det", "lib.linalg.det(x)", SQ),
    expr("linalg.slogdet", "lib.linalg.slogdet(x)[1]", SQ),
    expr("linalg.solve", "lib.linalg.solve(x, y)", (((3, 3), (3, 2)), ((2, 3, 3), (3,)))),
    expr("linalg.solve-right", "lib.linalg.solve(x, y, left=False)", (((3, 3), (2, 3)),)),
    expr("linalg.matrix_power", "lib.linalg.matrix_power(x, 3)", SQ),
    expr("linalg.matrix_power-neg", "lib.linalg.matrix_power(x, -2)", SQ),
    expr("linalg.multi_dot", "lib.linalg.multi_dot([x, y, x.mT])", (((3, 4), (4, 4)),)),
    expr("linalg.vecdot", "lib.linalg.vecdot(x, y)", (((3, 4), (4,)),)),
    expr("linalg.cross", "lib.linalg.cross(x, y)", (((4, 3), (1, 3)),)),
    expr("linalg.matrix_norm", "lib.linalg.matrix_norm(x)", SQ),
    expr("linalg.matrix_norm-1", "lib.linalg.matrix_norm(x, 1)", SQ),
    expr("linalg.matrix_norm-inf", "lib.linalg.matrix_norm(x, float('inf'), keepdim=True)", SQ),
    expr("det-method", "x.det() + lib.logdet(x @ x.mT)", SQ),
    expr("inverse", "lib.inverse(x)", SQ),
]

SPD = "(x @ x.mT + lib.eye(x.shape[-1], dtype=x.dtype))"  # symmetric positive-definite
SYM = "(x + x.mT)"  # symmetric, distinct eigenvalues (almost surely)
TALL = (((4, 3),), ((2, 4, 3),))
WIDE = (((3, 5),),)
TRI = (((3, 3), (3, 2)), ((2, 3, 3), (3, 1)))  # A and B of a triangular solve
#: Factorizations and solvers (minigrad/linalg/). Eigenvectors and singular vectors are
#: compared through losses that do not depend on their signs (|V|, U diag(S) Vh). Second
#: derivatives are checked once per Function (``gradgrad=False`` on the other spellings).
LINALG += [
    expr("linalg.cholesky", f"lib.linalg.cholesky({SPD})", SQ),
    expr("linalg.cholesky-upper", f"lib.linalg.cholesky({SPD}, upper=True)", SQ, gradgrad=False),
    expr("linalg.cholesky_ex", f"lib.linalg.cholesky_ex({SPD}).L", SQ, gradgrad=False),
    expr("cholesky", f"lib.cholesky({SPD}) + {SPD}.cholesky(upper=True)", SQ, gradgrad=False),
    expr("cholesky_solve", f"lib.cholesky_solve(y, lib.linalg.cholesky({SPD}))", TRI),
    expr(
        "cholesky_solve-upper", f"y.cholesky_solve({SPD}.cholesky(True), True)", TRI, gradgrad=False
    ),
    expr("cholesky_inverse", f"lib.cholesky_inverse(lib.linalg.cholesky({SPD}))", SQ),
    expr("linalg.qr", "lib.linalg.qr(x).Q + 0 * lib.linalg.qr(x)[1].sum()", SQ + TALL),
    expr("linalg.qr-R", "lib.linalg.qr(x).R", SQ + TALL + WIDE),
    expr("linalg.qr-wide", "lib.linalg.qr(x).Q * lib.linalg.qr(x).R.sum()", WIDE),
    expr("linalg.qr-complete", "lib.linalg.qr(x, mode='complete')[0]", SQ + WIDE, gradgrad=False),
    expr("qr", "lib.qr(x)[0] @ x.qr(some=False).R", SQ, gradgrad=False),
    expr("linalg.eigh", f"lib.linalg.eigh({SYM}).eigenvalues", SQ),
    expr("linalg.eigh-vectors", f"lib.linalg.eigh({SYM}, UPLO='U')[1].abs()", SQ),
    expr("linalg.eigvalsh", f"lib.linalg.eigvalsh({SPD})", SQ),
    expr("linalg.svd-S", "lib.linalg.svd(x).S", SQ + TALL + WIDE),
    expr("linalg.svd-U", "lib.linalg.svd(x, full_matrices=False).U.abs()", SQ + TALL + WIDE),
    expr("linalg.svd-Vh", "lib.linalg.svd(x, False).Vh.abs()", SQ + TALL + WIDE, gradgrad=False),
    expr("linalg.svd-full", "lib.linalg.svd(x)[0][..., :3].abs()", TALL, gradgrad=False),
    expr("linalg.svdvals", "lib.linalg.svdvals(x)", SQ + TALL + WIDE),
    expr("svd", "lib.svd(x)[0].abs() + x.svd(some=True).V.abs().sum()", SQ + TALL, gradgrad=False),
    expr("linalg.pinv", "lib.linalg.pinv(x)", SQ + TALL + WIDE),
    expr("linalg.pinv-hermitian", f"lib.linalg.pinv({SPD}, hermitian=True)", SQ),
    expr("pinverse", "lib.pinverse(x) + x.pinverse()", TALL, gradgrad=False),
    expr("linalg.lstsq", "lib.linalg.lstsq(x, y).solution", (((4, 3), (4, 2)),)),
    expr(
        "linalg.lstsq-batched",
        "lib.linalg.lstsq(x, y)[0]",
        (((2, 3, 3), (2, 3, 2)),),
        gradgrad=False,
    ),
    expr("linalg.solve_triangular", "lib.linalg.solve_triangular(x, y, upper=True)", TRI),
    expr(
        "linalg.solve_triangular-lower",
        "lib.linalg.solve_triangular(x, y, upper=False)",
        TRI,
        gradgrad=False,
    ),
    expr(
        "linalg.solve_triangular-right-unit",
        "lib.linalg.solve_triangular(x, y.mT, upper=False, left=False, unitriangular=True)",
        TRI,
        gradgrad=False,
    ),
    expr(
        "triangular_solve",
        "lib.triangular_solve(y, x, transpose=True).solution + y.triangular_solve(x, False)[0]",
        TRI,
        gradgrad=False,
    ),
    expr("linalg.lu_factor", "lib.linalg.lu_factor(x).LU", SQ + TALL + WIDE),
    expr("linalg.lu", "lib.linalg.lu(x).L + lib.linalg.lu(x).U", SQ, gradgrad=False),
    expr("linalg.lu-rect", "lib.linalg.lu(x).L.sum() + lib.linalg.lu(x).U", TALL + WIDE),
    expr("linalg.lu-P", "lib.linalg.lu(x)[0] @ x", SQ, gradgrad=False),
    expr("linalg.lu_solve", "lib.linalg.lu_solve(*lib.linalg.lu_factor(x), y)", TRI),
    expr(
        "linalg.lu_solve-adjoint",
        "lib.linalg.lu_solve(*lib.linalg.lu_factor(x), y.mT, left=False, adjoint=True)",
        TRI,
        gradgrad=False,
    ),
    expr("lu_solve", "lib.lu_solve(y, *x.lu())", TRI, gradgrad=False),
    expr("lu_unpack", "lib.lu_unpack(*lib.linalg.lu_factor(x))[1]", SQ, gradgrad=False),
    expr("linalg.matrix_exp", "lib.linalg.matrix_exp(x)", SQ),
    # a norm that needs squarings; float64 only: exp(8 x) ~ 1e7 loses float32's digits
    expr(
        "matrix_exp-large",
        "lib.matrix_exp(8 * x) + x.matrix_exp()",
        SQ,
        dtypes=("float64",),
        gradgrad=False,
    ),
    expr("linalg.cond", "lib.linalg.cond(x)", SQ + TALL),
    expr("linalg.cond--2", "lib.linalg.cond(x, -2)", SQ, gradgrad=False),
    expr("linalg.matrix_norm-nuc", "lib.linalg.matrix_norm(x, 'nuc')", SQ + TALL),
    expr("linalg.matrix_norm-2", "lib.linalg.matrix_norm(x, 2, dim=(0, -1))", SQ + TALL),
    expr(
        "linalg.norm-matrix",
        "lib.linalg.norm(x, -2, (-2, -1)) + lib.linalg.norm(x, 1, (-1, -2))",
        SQ,
        gradgrad=False,
    ),
    expr("linalg.inv_ex", "lib.linalg.inv_ex(x).inverse", SQ, gradgrad=False),
    expr("linalg.solve_ex", "lib.linalg.solve_ex(x, y).result", TRI, gradgrad=False),
    expr("linalg.tensorinv", "lib.linalg.tensorinv(x.reshape(2, 3, 6), ind=2)", ((6, 6),)),
    expr(
        "linalg.tensorsolve", "lib.linalg.tensorsolve(x.reshape(2, 3, 6), y)", (((6, 6), (2, 3)),)
    ),
    expr("linalg.vander", "lib.linalg.vander(x, N=4)", ((3,), (2, 3))),
    expr("linalg.householder_product", "lib.linalg.householder_product(x, y)", (((4, 3), (2,)),)),
    expr("orgqr", "x.orgqr(y)", (((2, 4, 3), (2, 3)),), gradgrad=False),
    expr("ormqr", "lib.ormqr(x, y, z) + x.ormqr(y, z, transpose=True)", (((4, 3), (3,), (4, 2)),)),
    expr(
        "ormqr-right",
        "lib.ormqr(x, y, z.mT, left=False)",
        (((4, 3), (3,), (4, 2)),),
        gradgrad=False,
    ),
    expr(
        "norm",
        "lib.norm(x) + lib.norm(x, 'nuc') + lib.norm(x, 3, dim=1).sum()",
        TALL[:1],
        gradgrad=False,
    ),
    expr("norm-method", "x.norm('nuc') + x.norm(p=1, dim=0).sum() + x.norm(None)", TALL[:1]),
    expr(
        "frobenius_norm",
        "lib.frobenius_norm(x, (0, 1)) + lib.nuclear_norm(x)",
        TALL[:1],
        gradgrad=False,
    ),
    expr("dist", "lib.dist(x, y) + x.dist(y, 3)", (((3, 4), (4,)),)),
    expr("cdist", "lib.cdist(x, y)", (((2, 3, 4), (5, 4)), ((3, 4), (2, 4)))),
    expr(
        "cdist-p",
        "lib.cdist(x, y, p=1.5) + lib.cdist(x, y, 0.0)",
        (((3, 4), (2, 4)),),
        gradgrad=False,
    ),
    expr("cross", "lib.cross(x, y) + x.cross(y, dim=1)", (((3, 3), (3, 3)),)),
    expr("renorm", "lib.renorm(x, 2, 0, 1.0) + x.renorm(1, 1, 2.0)", M),
]


def against(name: str, text: str, torch_text: str, shapes, **kwargs) -> OpInfo:
    """An op whose PyTorch function has a bug in its backward: compared with its
    definition written with other PyTorch functions (``torch_text``)."""
    info = expr(name, text, shapes, **kwargs)
    info.torch_fn = expr(name, torch_text, shapes).torch_fn
    return info


LINALG += [
    # torch.linalg.cond(x, 'fro')'s backward writes into a tensor it saved (torch 2.13)
    against(
        "linalg.cond-fro",
        "lib.linalg.cond(x, 'fro')",
        "lib.linalg.matrix_norm(x) * lib.linalg.matrix_norm(lib.linalg.inv(x))",
        SQ,
    ),
    # torch.vander(x): the same error in its backward
    against(
        "vander",
        "lib.vander(x) + lib.vander(x, 3, increasing=True)",
        "lib.linalg.vander(x).flip(-1) + lib.linalg.vander(x, N=3)",
        ((3,),),
    ),
]

#: The torch namespace's numeric functions (statistics.py, histograms.py, calculus.py,
#: enumeration.py, scatters.py, function_forms.py).
NUMERIC = [
    # ties of a median over all elements share the gradient evenly, as in PyTorch
    expr("median-ties", "x.median()", M, points=(([[2.0, 1.0, 1.0, 2.0, 1.0]],),)),
    expr("nanmedian-ties", "x.nanmedian()", M, points=(([[2.0, 1.0, NAN, 1.0, 2.0]],),)),
    expr("mode", "x.mode(1).values", M),
    expr(
        "mode-ties",
        "lib.mode(x, 0, keepdim=True).values",
        M,
        dtypes=("int64",),
        domain=(0, 2),
        differentiable=False,
    ),
    expr(
        "mode-indices",
        "x.mode(-1).indices",
        ((3, 6),),
        dtypes=("int64", "bool"),
        domain=(0, 2),
        differentiable=False,
    ),
    expr("nanmedian", "x.nanmedian()", M + ((5,),)),
    expr(
        "nanmedian-dim",
        "lib.nanmedian(x, 1).values",
        M,
        points=(([[1.0, NAN, 3.0, 0.5], [NAN, NAN, 2.0, NAN], [2.0, NAN, NAN, 1.0]],),),
    ),
    expr(
        "nanmedian-indices",
        "x.nanmedian(0, keepdim=True).indices",
        M,
        differentiable=False,
        points=(([[1.0, NAN, 3.0], [NAN, NAN, 2.0]],),),
    ),
    expr("quantile", "x.quantile(0.3)", M + ((5,), ())),
    expr(
        "quantile-dim",
        "lib.quantile(x, lib.tensor([0.0, 0.25, 0.5, 1.0], dtype=x.dtype), dim=1, keepdim=True)",
        M,
    ),
    expr("quantile-lower", "x.quantile(0.4, 0, interpolation='lower')", M),
    expr("quantile-higher", "x.quantile(0.4, -1, interpolation='higher')", M),
    expr("quantile-midpoint", "x.quantile(0.4, 1, interpolation='midpoint')", M),
    expr(
        "quantile-nearest",
        "lib.quantile(x, lib.tensor([0.2, 0.5, 0.7], dtype=x.dtype), interpolation='nearest')",
        M + ((4,), (3, 3)),
    ),
    expr("quantile-nan", "x.quantile(0.5, 1)", M, points=(([[1.0, NAN], [2.0, 3.0]],),)),
    expr(
        "nanquantile",
        "x.nanquantile(0.75, 1)",
        M,
        points=(([[1.0, NAN, 3.0, 0.5], [NAN, NAN, NAN, NAN], [2.0, NAN, NAN, 1.0]],),),
    ),
    expr(
        "nanquantile-all",
        "lib.nanquantile(x, lib.tensor([0.1, 0.9], dtype=x.dtype), keepdim=True)",
        M,
    ),
    expr("cov", "lib.cov(x)", M + ((5,),)),
    expr("cov-correction", "x.cov(correction=0)", M),
    expr(
        "cov-weights",
        "lib.cov(x, fweights=lib.tensor([1, 2, 1, 3]), aweights=y.abs() + 0.5)",
        (((3, 4), (4,)),),
    ),
    expr("corrcoef", "x.corrcoef()", M + ((2, 5),)),
    expr("gradient", "lib.gradient(x)[0] + lib.gradient(x)[1]", M + ((4, 3),)),
    expr("gradient-spacing", "lib.gradient(x, spacing=[0.5, 2.0], edge_order=2)[1]", M),
    expr(
        "gradient-coords",
        "lib.gradient(x, spacing=(lib.tensor([0.0, 1.0, 3.0], "
        "dtype=x.dtype),), dim=0, edge_order=2)[0]",
        M,
    ),
    expr(
        "gradient-coords-1",
        "lib.gradient(x, spacing=(lib.tensor([0.0, 1.0, 1.5, 4.0], dtype=x.dtype),), dim=-1)[0]",
        M,
    ),
    expr("trapezoid", "lib.trapezoid(x)", M + ((5,),)),
    expr("trapezoid-x", "lib.trapezoid(x, y, dim=0)", (((3, 4), (3,)), ((3, 4), (3, 4)))),
    expr("trapezoid-dx", "lib.trapezoid(x, dx=0.5, dim=0)", M),
    expr("trapz", "lib.trapz(x, y)", (((3, 4), (4,)),)),
    expr("cumulative_trapezoid", "lib.cumulative_trapezoid(x, y)", (((3, 4), (4,)),)),
    expr("cumulative_trapezoid-dx", "lib.cumulative_trapezoid(x, dx=2.0, dim=0)", M),
    expr("combinations", "lib.combinations(x)", ((4,),)),
    expr("combinations-r3", "lib.combinations(x, 3, with_replacement=True)", ((3,),)),
    expr(
        "unique_consecutive",
        "lib.unique_consecutive(x, return_inverse=True, return_counts=True)[2]",
        M,
        dtypes=("int64",),
        domain=(0, 1),
        differentiable=False,
    ),
    expr(
        "unique_consecutive-dim",
        "x.unique_consecutive(dim=1)",
        ((3, 6),),
        dtypes=("int64",),
        domain=(0, 1),
        differentiable=False,
    ),
    expr(
        "unravel_index",
        "lib.unravel_index(x, (3, 2, 2))[1]",
        M,
        dtypes=("int64",),
        domain=(-12, 11),
        differentiable=False,
    ),
    expr("histc", "lib.histc(x, 5)", M + ((0,),), differentiable=False),
    expr("histc-range", "x.histc(4, min=-1, max=1)", M, differentiable=False),
    expr(
        "histogram",
        "lib.histogram(x, 3).hist + lib.histogram(x, 3).bin_edges.sum()",
        M,
        differentiable=False,
    ),
    expr(
        "histogram-edges",
        "x.histogram(lib.tensor([-1.0, 0.0, 0.5, 2.0], dtype=x.dtype), "
        "weight=x.abs(), density=True).hist",
        M,
        differentiable=False,
    ),
    expr(
        "histogramdd",
        "lib.histogramdd(x, [2, 3], range=[-2.0, 2.0, -1.0, 1.0]).hist",
        ((6, 2),),
        differentiable=False,
    ),
    expr("diagonal_scatter", "lib.diagonal_scatter(x, y, 1)", (((3, 4), (3,)),)),
    expr("diagonal_scatter-3d", "x.diagonal_scatter(y, -1, 0, 2)", (((3, 2, 4), (2, 2)),)),
    expr("select_scatter", "lib.select_scatter(x, y, 1, -1)", (((3, 4), (3,)),)),
    expr("slice_scatter", "x.slice_scatter(y, 1, 1, None, 2)", (((3, 4), (3, 2)),)),
    expr(
        "as_strided_scatter",
        "lib.as_strided_scatter(x, y, (2, 2), (1, 2), 1)",
        (((3, 4), (2, 2)),),
        differentiable=False,  # torch 2.13 fails its own gradcheck: see test_scatters.py
    ),
    expr("put", "x.put(lib.tensor([0, -1, 5]), y)", (((3, 4), (3,)),)),
    expr(
        "put-accumulate",
        "lib.put(x, lib.tensor([[0, 5], [5, 11]]), y, accumulate=True)",
        (((3, 4), (2, 2)),),
    ),
    expr(
        "index_reduce-mean",
        "x.index_reduce(1, lib.tensor([0, 2, 0]), y, 'mean')",
        (((3, 4), (3, 3)),),
    ),
    expr(
        "index_reduce-amax",
        "x.index_reduce(0, lib.tensor([2, 0]), y, 'amax', include_self=False)",
        (((3, 4), (2, 4)),),
        differentiable=False,
    ),
    expr(
        "index_reduce-prod",
        "x.index_reduce(0, lib.tensor([2, 2]), y, 'prod')",
        (((3, 4), (2, 4)),),
        differentiable=False,
    ),
    expr("fill", "lib.fill(x, 2.5)", M, differentiable=False),
    expr("clone", "lib.clone(x)", M),
    expr("t", "lib.t(x)", M + ((3,),)),
    expr("unflatten", "lib.unflatten(x, 1, (2, -1))", M),
    expr("hardshrink-method", "x.hardshrink(0.3)", M),
    expr("prelu-method", "x.prelu(y)", (((3, 4), (4,)),)),
]

#: Every op the parametrized tests run.
OPS = _table_infos() + EXTRA + JOINING + LINALG + NUMERIC


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
    if info.shapes is not None:
        return [tuple(draw(shape, da) for shape in sample) for sample in info.shapes]
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
