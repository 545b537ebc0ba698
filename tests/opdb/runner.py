"""One OpInfo sample through PyTorch and through minigrad, sorted into an outcome.

A sample (``SampleInput``: ``input``, ``args``, ``kwargs``) is converted to minigrad's
arguments before PyTorch runs it (some ops change their input in place): each torch
tensor becomes a minigrad tensor with the same values, dtype, strides order and
``requires_grad``, each ``torch.dtype`` minigrad's dtype, ``torch.Size`` a tuple. Then:

- **values**: every output (tuples and named tuples flattened) has PyTorch's type,
  shape and dtype, and its values are within the OpInfo's tolerance for the dtype
  (PyTorch's defaults for the dtype, widened by any ``toleranceOverride`` the OpInfo
  carries); NaN matches NaN, an infinity the same infinity.
- **gradients** (float64 samples of ops PyTorch differentiates): the same random
  cotangent (seeded by the sample) is sent back through both graphs, and the gradient
  of every input that requires grad is compared.

The outcome of a sample is one of :data:`OUTCOMES`. An exception from minigrad is a
*crash* when it was not raised by minigrad's own code (it came from inside NumPy, or it
is Python's complaint about a call, such as an unexpected keyword); an error minigrad
raises on purpose is an *error* (a sample PyTorch accepts and minigrad does not); an
``UnsupportedError`` is *refused* (minigrad declines the feature, with its category).
A sample that cannot be written in minigrad at all (a complex or bfloat16 tensor, a
PyTorch module passed as an argument) is *skipped*, with the category that says why.
"""

from __future__ import annotations

import dataclasses
import math
import traceback
import warnings
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import minigrad as mg
from minigrad.unsupported import UnsupportedError, lookup

PASS = "pass"
VALUE = "wrong value"
META = "wrong dtype or shape"
GRAD = "wrong gradient"
CRASH = "crash"
ERROR = "error"
REFUSED = "refused"
SKIPPED = "skipped"
#: Every sample outcome; the first four count against correctness, ``crash`` against
#: robustness; ``refused`` and ``skipped`` samples are outside what minigrad claims.
OUTCOMES = (PASS, VALUE, META, GRAD, CRASH, ERROR, REFUSED, SKIPPED)

#: error_inputs outcomes: raised PyTorch's class (or a subclass), raised another class,
#: raised nothing, crashed inside NumPy / Python.
RAISED, OTHER_CLASS, ACCEPTED = "raised", "other class", "accepted"
ERROR_OUTCOMES = (RAISED, OTHER_CLASS, ACCEPTED, CRASH, REFUSED, SKIPPED)

MINIGRAD_DIR = str(Path(mg.__file__).resolve().parent)

#: ``torch.testing.assert_close``'s default (rtol, atol) for each dtype.
DEFAULT_TOLERANCE = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}

#: PyTorch dtypes minigrad stores, by name; any other (complex, bfloat16, float8 ...) is
#: a category of minigrad/unsupported.json.
STORED_DTYPES = (
    "bool float16 float32 float64 int8 int16 int32 int64 uint8 uint16 uint32 uint64".split()
)


@dataclass
class Result:
    """The outcome of one sample, and what went wrong (empty when it passed)."""

    outcome: str
    detail: str = ""
    category: str = ""  # for refused / skipped: the unsupported.json category


class NotExpressible(Exception):
    """A sample that uses something minigrad has no counterpart for; ``category`` is the
    unsupported.json category that says why (or a short reason of its own)."""

    def __init__(self, category: str, what: str):
        super().__init__(what)
        self.category = category


# ------------------------------------------------------------------ torch -> minigrad
def dtype_name(torch_dtype) -> str:
    return str(torch_dtype).removeprefix("torch.")


def _refusal_category(name: str) -> str:
    entry = lookup(name)
    return entry.category if entry is not None else name


class Converter:
    """Turns the torch objects of a sample into minigrad's, remembering which minigrad
    tensor each torch tensor became (a tensor passed twice stays one tensor)."""

    def __init__(self, torch):
        self.torch = torch
        self.tensors: dict[int, tuple] = {}  # id(torch tensor) -> (torch tensor, mg tensor)

    def __call__(self, obj):
        torch = self.torch
        if isinstance(obj, torch.Tensor):
            return self.tensor(obj)
        if isinstance(obj, torch.dtype):
            return self.dtype(obj)
        if isinstance(obj, torch.Size):
            return tuple(obj)
        if isinstance(obj, torch.device):
            return obj.type
        if isinstance(obj, torch.memory_format):
            raise NotExpressible("layouts", f"memory_format={obj}")
        if isinstance(obj, torch.layout):
            raise NotExpressible("layouts", f"layout={obj}")
        if isinstance(obj, torch.Generator):
            raise NotExpressible("generator", "a torch.Generator argument")
        if isinstance(obj, dict):
            return {k: self(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            items = [self(v) for v in obj]
            return type(obj)(items) if type(obj) in (list, tuple) else tuple(items)
        if isinstance(obj, torch.nn.Module):
            return self.module(obj)
        if callable(obj) and "torch" in (getattr(obj, "__module__", None) or ""):
            return self.function(obj)
        return obj

    def function(self, fn):
        """A PyTorch function passed as an argument (``activation=F.gelu``): minigrad's
        function of the same name in the same namespace."""
        name = getattr(fn, "__name__", "")
        for namespace in (mg.nn.functional, mg):
            found = getattr(namespace, name, None) if name else None
            if callable(found):
                return found
        raise NotExpressible("torch callable", f"a PyTorch callable argument ({fn!r})")

    def module(self, m):
        """A PyTorch module passed as an argument: minigrad's module of the same class,
        built from the PyTorch one's hyperparameters, with its state_dict."""
        build = MODULE_ARGUMENTS.get(type(m).__name__)
        if build is None:
            raise NotExpressible(
                "torch callable", f"a PyTorch module argument ({type(m).__name__})"
            )
        out = build(self, m)
        state = {k: v.detach().numpy(force=True).copy() for k, v in m.state_dict().items()}
        if state:
            out.load_state_dict(state)
        return out

    def dtype(self, torch_dtype):
        name = dtype_name(torch_dtype)
        if name not in STORED_DTYPES:
            category = "complex" if "complex" in name else _refusal_category(name)
            raise NotExpressible(category, f"dtype {name}")
        return getattr(mg, name)

    def tensor(self, t):
        key = id(t)
        if key in self.tensors:
            return self.tensors[key][1]
        if t.layout != self.torch.strided:
            raise NotExpressible("sparse", f"a tensor of layout {t.layout}")
        self.dtype(t.dtype)
        if t.device.type != "cpu":
            raise NotExpressible("devices", f"a tensor on {t.device}")
        if t.ndim > 64:
            raise NotExpressible("numpy", f"a tensor of {t.ndim} dims (NumPy holds up to 64)")
        out = self._same_geometry(t)
        if t.requires_grad:
            out.requires_grad_(True)
        self.tensors[key] = (t, out)
        return out

    def _same_geometry(self, t):
        """A copy of ``t``: a tensor of its own when ``t`` is one, else a view with
        ``t``'s sizes, strides and storage offset into a copy of its whole storage (so a
        transposed, expanded or offset sample stays one, and ``as_strided`` on it sees
        the storage PyTorch's sees)."""
        torch = self.torch
        n = t.untyped_storage().nbytes() // t.element_size()
        end = t.storage_offset() + sum((k - 1) * st for k, st in zip(t.shape, t.stride())) + 1
        if t.numel() and end > n:  # error inputs of set_ / resize_ make such tensors
            raise NotExpressible("internals", "a tensor reaching beyond its storage")
        if t.is_contiguous() and t.storage_offset() == 0 and n == t.numel():
            return mg.from_numpy(t.detach().numpy(force=True).copy())
        whole = torch.empty(0, dtype=t.dtype).set_(t.untyped_storage(), 0, (n,), (1,))
        base = mg.from_numpy(whole.numpy().copy())
        with mg.no_grad():
            return base.as_strided(tuple(t.shape), t.stride(), t.storage_offset())

    def grad_pairs(self):
        """(torch tensor, minigrad tensor) for every input that requires grad."""
        return [(t, m) for t, m in self.tensors.values() if t.requires_grad]


def _encoder_layer(convert, layer):
    return mg.nn.TransformerEncoderLayer(
        layer.self_attn.embed_dim,
        layer.self_attn.num_heads,
        dim_feedforward=layer.linear1.out_features,
        dropout=layer.dropout.p,
        activation=convert(layer.activation),
        layer_norm_eps=layer.norm1.eps,
        batch_first=layer.self_attn.batch_first,
        norm_first=layer.norm_first,
        bias=layer.linear1.bias is not None,
    ).to(getattr(mg, dtype_name(layer.linear1.weight.dtype)))


#: PyTorch modules that samples pass as arguments, and how to make minigrad's.
MODULE_ARGUMENTS = {
    "PairwiseDistance": lambda convert, m: mg.nn.PairwiseDistance(m.norm, m.eps, m.keepdim),
    "TransformerEncoderLayer": _encoder_layer,
}


# ------------------------------------------------------------------ classification
def classify_exception(exc: BaseException) -> Result:
    """refused (UnsupportedError), error (a ``raise`` in minigrad's own code), or crash
    (anything raised elsewhere: inside NumPy, or by Python at minigrad's call)."""
    if isinstance(exc, UnsupportedError):
        return Result(REFUSED, _message(exc), category=_unsupported_category(exc))
    frames = traceback.extract_tb(exc.__traceback__)
    last = frames[-1] if frames else None
    ours = last is not None and str(Path(last.filename).resolve()).startswith(MINIGRAD_DIR)
    if ours and (last.line or "").lstrip().startswith("raise"):
        return Result(ERROR, _message(exc))
    where = f" at {Path(last.filename).name}:{last.lineno}" if last is not None else ""
    return Result(CRASH, _message(exc) + where)


def _message(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text[:200]}"


def _unsupported_category(exc: BaseException) -> str:
    if getattr(exc, "category", None):
        return exc.category
    text = str(exc)
    if text.startswith("torch.") and " is not supported" in text:
        entry = lookup(text.split(" ", 1)[0].removeprefix("torch."))
        if entry is not None:
            return entry.category
    return "unsupported"


# ------------------------------------------------------------------ comparing outputs
def flatten(out) -> list:
    """The leaves of an output: tensors and plain values, tuples (named or not) and lists
    flattened in order."""
    if isinstance(out, (tuple, list)):
        return [leaf for item in out for leaf in flatten(item)]
    return [out]


def close(actual: np.ndarray, expected: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """Elementwise ``|actual - expected| <= atol + rtol * |expected|``, NaN equal to NaN
    and an infinity equal to itself (``torch.testing.assert_close``'s rule)."""
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        ok = np.abs(a - e) <= atol + rtol * np.abs(e)
    ok |= np.isnan(a) & np.isnan(e)
    ok |= np.isinf(a) & (a == e)
    return ok


def compare_outputs(torch, got, want, op, meta_only=False):
    """None when ``got`` (minigrad's output) matches ``want`` (PyTorch's), else a Result.
    Each output is held to the tolerance of its own dtype (int inputs can give floats)."""
    got_leaves, want_leaves = flatten(got), flatten(want)
    if len(got_leaves) != len(want_leaves):
        return Result(META, f"{len(got_leaves)} outputs, PyTorch gives {len(want_leaves)}")
    for i, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        problem = _compare_leaf(torch, g, w, op, meta_only)
        if problem is not None:
            where = f"output {i}: " if len(want_leaves) > 1 else ""
            problem.detail = where + problem.detail
            return problem
    return None


def _compare_leaf(torch, g, w, op, meta_only):
    if isinstance(w, torch.Tensor):
        if not isinstance(g, mg.Tensor):
            return Result(META, f"a {type(g).__name__}, PyTorch gives a tensor")
        if tuple(g.shape) != tuple(w.shape):
            return Result(META, f"shape {tuple(g.shape)}, PyTorch {tuple(w.shape)}")
        if str(g.dtype) != dtype_name(w.dtype):
            return Result(META, f"dtype {g.dtype}, PyTorch {dtype_name(w.dtype)}")
        if meta_only:
            return None
        want = w.detach().numpy(force=True)
        got = g.detach().numpy()
        return _compare_arrays(got, want, w.dtype, tolerance_for(op, w.dtype), "value", VALUE)
    if isinstance(w, (bool, int, float)) and not isinstance(w, torch.Size):
        if isinstance(g, mg.Tensor) or type(g) is not type(w):
            return Result(META, f"a {type(g).__name__}, PyTorch gives a {type(w).__name__}")
        if meta_only:
            return None
        rtol, atol = tolerance_for(op, torch.float64 if type(w) is float else torch.int64)
        if isinstance(w, float) and not close(np.array(g), np.array(w), rtol, atol).all():
            return Result(VALUE, f"{g!r}, PyTorch {w!r}")
        if not isinstance(w, float) and g != w:
            return Result(VALUE, f"{g!r}, PyTorch {w!r}")
        return None
    if isinstance(w, torch.Size):
        if tuple(g) != tuple(w):
            return Result(VALUE, f"{tuple(g)}, PyTorch {tuple(w)}")
        return None
    if w is None:
        return None if g is None else Result(META, f"{type(g).__name__}, PyTorch gives None")
    return None  # other Python objects (strings ...): not compared


def _compare_arrays(got, want, torch_dtype, tolerance, what, outcome):
    name = dtype_name(torch_dtype)
    if name in ("bool",) or name.startswith(("int", "uint")):
        bad = got != want
    else:
        bad = ~close(got, want, *tolerance)
    if not bad.any():
        return None
    idx = np.unravel_index(int(np.argmax(bad)), bad.shape) if bad.ndim else ()
    return Result(
        outcome,
        f"{int(bad.sum())} of {bad.size} {what}s differ; at {tuple(int(i) for i in idx)}: "
        f"{got[idx]!r}, PyTorch {want[idx]!r}",
    )


def tolerance_for(op, torch_dtype) -> tuple[float, float]:
    """(rtol, atol): PyTorch's default for the dtype, widened by the OpInfo's
    ``toleranceOverride`` decorators for that dtype (any test they apply to)."""
    from torch.testing._internal.common_device_type import toleranceOverride

    rtol, atol = DEFAULT_TOLERANCE.get(dtype_name(torch_dtype), (0.0, 0.0))
    for decorate in getattr(op, "decorators", None) or ():
        for dec in getattr(decorate, "decorators", [decorate]):
            if isinstance(dec, toleranceOverride) and torch_dtype in dec.d:
                rtol = max(rtol, dec.d[torch_dtype].rtol)
                atol = max(atol, dec.d[torch_dtype].atol)
    return rtol, atol


# ------------------------------------------------------------------ one sample
@dataclass
class Call:
    """How to call one op in each library: ``torch_fn`` is the OpInfo (callable),
    ``mg_fn`` minigrad's counterpart, ``meta_only`` for ops whose values are random or
    undefined (only type, shape and dtype compared)."""

    torch_fn: object
    mg_fn: object
    meta_only: bool = False
    op: object = None  # the OpInfo, for its tolerances and output_process_fn_grad
    grads: bool = True
    compare: object = None  # for outputs unique only up to a choice (choices.py)
    upcast: bool = True  # float32 values may match PyTorch's float64 ones instead
    arbiter: object = None  # a high-precision reference where the two libraries differ
    gradient_by_differences: bool = False  # PyTorch's gradient is wrong: gradcheck decides
    random_sample: object = None  # a predicate: this sample's values are random
    deterministic_copy: object = None  # the random sample without its randomness
    ill_conditioned: bool = False  # float32 values may be as far off as PyTorch's own


def run_sample(torch, call: Call, sample, torch_dtype, seed: int) -> Result:
    """Run one sample in both libraries and compare (values; gradients in float64)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _run_sample(torch, call, sample, torch_dtype, seed)


def _run_sample(torch, call, sample, torch_dtype, seed):
    if call.random_sample is not None and call.random_sample(sample):
        meta = dataclasses.replace(call, meta_only=True, random_sample=None)
        result = _run_sample(torch, meta, sample, torch_dtype, seed)
        if result.outcome != PASS or call.deterministic_copy is None:
            return result
        # the sample's type, shape and dtype were right: now its values without the
        # randomness (catalog.DETERMINISTIC_COPIES), and their gradients
        plain = call.deterministic_copy(sample)
        call = dataclasses.replace(call, random_sample=None)
        return _run_sample(torch, call, plain, torch_dtype, seed)
    convert = Converter(torch)
    try:
        m_input = convert(sample.input)
        m_args = convert(tuple(sample.args))
        m_kwargs = convert(dict(sample.kwargs))
    except NotExpressible as e:
        return Result(SKIPPED, str(e), category=e.category)
    except UnsupportedError as e:
        return Result(SKIPPED, _message(e), category=_unsupported_category(e))
    if call.meta_only:  # random values: seeded alike, though only shapes are compared
        torch.manual_seed(seed)
    try:
        want = call.torch_fn(sample.input, *sample.args, **sample.kwargs)
    except Exception as e:  # a sample PyTorch itself rejects on this build
        return Result(SKIPPED, f"PyTorch raises {_message(e)}", category="torch raises")
    mg.manual_seed(seed)
    try:
        got = call.mg_fn(m_input, *m_args, **m_kwargs)
    except Exception as e:
        return classify_exception(e)

    def plain(g, w, meta_only=call.meta_only):
        return compare_outputs(torch, g, w, call.op, meta_only)

    if call.compare is not None and not call.meta_only:
        problem = call.compare(torch, got, want, sample, plain)
    else:
        problem = plain(got, want)
    if problem is not None and problem.outcome == VALUE and call.upcast:
        if _as_accurate_as_float64(torch, call, sample, got, want, plain):
            problem = None
    if problem is not None and problem.outcome == VALUE and call.arbiter is not None:
        if _closer_to_the_arbiter(torch, call, sample, got, want):
            problem = None
    if problem is not None:
        return problem
    if call.grads and not call.meta_only and dtype_name(torch_dtype) == "float64":
        try:
            problem = compare_gradients(torch, convert, sample, got, want, seed)
        except Exception as e:
            result = classify_exception(e)
            result.detail = "backward: " + result.detail
            return result
        if problem is not None and call.gradient_by_differences:
            if _gradients_match_differences(call, m_input, m_args, m_kwargs, convert):
                problem = None
        if problem is not None:
            return problem
    return Result(PASS)


def _gradients_match_differences(call, m_input, m_args, m_kwargs, convert) -> bool:
    """True when minigrad's gradients pass ``mg.gradcheck`` (central differences, float64)
    on the sample: the arbiter for the ops whose PyTorch gradient is the wrong one
    (``catalog.GRADIENTS_BY_DIFFERENCES`` says which, and why)."""
    return gradients_match_differences(call.mg_fn, m_input, m_args, m_kwargs, convert)


def gradients_match_differences(mg_fn, m_input, m_args, m_kwargs, convert) -> bool:
    """``mg.gradcheck`` of ``mg_fn(m_input, *m_args, **m_kwargs)`` with respect to every
    tensor of the sample that requires grad (its fast mode: random directions, so a
    16,000-element input costs a few forwards, not one per element)."""
    leaves = [m for _, m in convert.grad_pairs()]

    def fn(*values):
        swap = dict(zip(map(id, leaves), values))

        def put(obj):
            if isinstance(obj, mg.Tensor) and id(obj) in swap:
                return swap[id(obj)]
            if isinstance(obj, (list, tuple)):
                return type(obj)(put(v) for v in obj)
            if isinstance(obj, dict):
                return {k: put(v) for k, v in obj.items()}
            return obj

        out = mg_fn(put(m_input), *put(m_args), **put(m_kwargs))
        return tuple(o for o in flatten(out) if isinstance(o, mg.Tensor) and o.dtype.kind == "f")

    inputs = [mg.tensor(m.detach().numpy().copy(), requires_grad=True) for m in leaves]
    return bool(mg.gradcheck(fn, inputs, raise_exception=False, fast_mode=True))


def _as_accurate_as_float64(torch, call, sample, got, want, plain) -> bool:
    """True when minigrad's float32 (float16) outputs, which differ from PyTorch's, match
    what PyTorch computes for the same sample in float64, rounded to the output's dtype.

    PyTorch's float32 result carries its own rounding error (an ill-conditioned value:
    a polynomial near a root, a sum that cancels); an answer within the OpInfo's float32
    tolerance of the float64 one is at least as right as PyTorch's, so it passes. Ops
    whose float32 result is not the rounded float64 one (``nextafter``) do not get this
    (``catalog.PRECISION_SPECIFIC``)."""
    low = {torch.float32, torch.float16}

    def up(obj):
        if isinstance(obj, torch.Tensor):
            return obj.detach().to(torch.float64) if obj.dtype in low else obj.detach()
        if isinstance(obj, torch.dtype):
            return torch.float64 if obj in low else obj
        if isinstance(obj, (list, tuple)):
            return type(obj)(up(v) for v in obj) if type(obj) in (list, tuple) else obj
        if isinstance(obj, dict):
            return {k: up(v) for k, v in obj.items()}
        return obj

    try:
        reference = call.torch_fn(up(sample.input), *up(tuple(sample.args)), **up(sample.kwargs))
    except Exception:
        return False
    refs, wants = flatten(reference), flatten(want)
    if len(refs) != len(wants):
        return False
    rounded = [
        r.to(w.dtype) if isinstance(r, torch.Tensor) and isinstance(w, torch.Tensor) else r
        for r, w in zip(refs, wants)
    ]
    if plain(got, type(want)(rounded) if isinstance(want, (list, tuple)) else rounded[0]) is None:
        return True
    return call.ill_conditioned and _no_further_than_pytorch(torch, got, wants, refs)


def _no_further_than_pytorch(torch, got, wants, refs) -> bool:
    """True when each of minigrad's outputs is no further from PyTorch's float64 result
    than PyTorch's own float32 output is (the largest error over the output), with NaN
    where that result has NaN: for ops whose float32 error on some samples exceeds any
    fixed tolerance (``catalog.ILL_CONDITIONED`` says which, and why)."""
    gots = flatten(got)
    if len(gots) != len(wants):
        return False
    for g, w, r in zip(gots, wants, refs):
        if not isinstance(w, torch.Tensor):
            continue
        mine, theirs = np.asarray(g.numpy(), np.float64), w.detach().numpy(force=True)
        exact = r.detach().numpy(force=True)
        if mine.shape != exact.shape or not np.array_equal(np.isnan(mine), np.isnan(exact)):
            return False
        finite = ~np.isnan(exact)
        if finite.any():
            if np.abs(mine - exact)[finite].max() > np.abs(theirs - exact)[finite].max():
                return False
    return True


def _closer_to_the_arbiter(torch, call, sample, got, want) -> bool:
    """True when each value where minigrad and PyTorch disagree is within tolerance of
    the arbiter: the function evaluated at 30 significant digits by mpmath (which PyTorch
    brings, through sympy). For the special functions where PyTorch's own approximation
    is the less accurate one (``bessel_j0`` near its zeros: 3e-7 off in float64)."""
    if sample.args or sample.kwargs or not isinstance(got, mg.Tensor):
        return False
    import mpmath

    x = sample.input.detach().numpy(force=True).astype(np.float64)
    with mpmath.workdps(30):
        exact = np.vectorize(lambda v: float(call.arbiter(mpmath, mpmath.mpf(v))))(x)
    mine, theirs = got.numpy(), want.detach().numpy(force=True)
    tolerance = tolerance_for(call.op, want.dtype)
    ok = close(mine, theirs, *tolerance) | close(mine, exact.astype(mine.dtype), *tolerance)
    return bool(ok.all())


#: Gradients are compared with this (rtol, atol) for the input's dtype, atol relative
#: to the largest gradient entry: two exact formulas agree to some hundreds of rounding
#: units of the largest term they add (float64: 1.1e-16 each), not of each small entry.
GRAD_TOLERANCE = {"float64": (1e-6, 1e-9), "float32": (1e-4, 1e-5)}


def compare_gradients(torch, convert: Converter, sample, got, want, seed):
    pairs = convert.grad_pairs()
    if not pairs:
        return None
    process = sample.output_process_fn_grad
    want_leaves = flatten(process(want))
    try:
        got_leaves = flatten(process(got))
    except Exception:
        got_leaves = flatten(got)
    if len(got_leaves) != len(want_leaves):
        return None  # the output processing does not apply to minigrad's outputs
    rng = np.random.default_rng(seed)
    outs_t, outs_m, cots_t, cots_m = [], [], [], []
    for g, w in zip(got_leaves, want_leaves):
        if (
            isinstance(w, torch.Tensor)
            and w.requires_grad
            and w.dtype.is_floating_point
            and w.numel() > 0
        ):
            cot = rng.standard_normal(tuple(w.shape))
            outs_t.append(w)
            cots_t.append(torch.from_numpy(np.array(cot, dtype=np.float64)).to(w.dtype))
            outs_m.append(g)
            cots_m.append(mg.tensor(np.array(cot, dtype=g.numpy().dtype)))
    if not outs_t:
        return None
    inputs_t = [t for t, _ in pairs]
    grads_t = torch.autograd.grad(outs_t, inputs_t, cots_t, allow_unused=True)
    connected = [o for o in outs_m if isinstance(o, mg.Tensor) and o.requires_grad]
    if len(connected) != len(outs_m):
        return Result(
            GRAD,
            "an output PyTorch differentiates does not require grad "
            "(backward() would raise where PyTorch gives a gradient)",
        )
    inputs_m = [m for _, m in pairs]
    grads_m = mg.autograd.grad(outs_m, inputs_m, cots_m, allow_unused=True)
    for i, (gt, gm, (t, _)) in enumerate(zip(grads_t, grads_m, pairs)):
        want_g = np.zeros(tuple(t.shape)) if gt is None else gt.detach().numpy(force=True)
        got_g = np.zeros(tuple(t.shape)) if gm is None else gm.detach().numpy()
        if got_g.shape != want_g.shape:
            return Result(GRAD, f"input {i}: gradient shape {got_g.shape}, PyTorch {want_g.shape}")
        finite = want_g[np.isfinite(want_g)]
        scale = float(np.abs(finite).max()) if finite.size else 0.0
        rtol, atol = GRAD_TOLERANCE.get(dtype_name(t.dtype), GRAD_TOLERANCE["float32"])
        problem = _compare_arrays(
            got_g, want_g, t.dtype, (rtol, atol * max(1.0, scale)), "gradient entr", GRAD
        )
        if problem is not None:
            problem.detail = f"input {i}: " + problem.detail.replace("entrs", "entries")
            return problem
    return None


# ------------------------------------------------------------------ error inputs
def pytorch_error(torch_fn, sample) -> type | None:
    """The class of the exception PyTorch's ``torch_fn`` raises on ``sample`` (None: it
    accepts it; op_db lists a few such inputs, e.g. ``clamp_max(t, 2)``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch_fn(sample.input, *sample.args, **sample.kwargs)
        except Exception as e:
            return type(e)
    return None


def run_error_input(torch, mg_fn, error_input, torch_fn=None, method=False) -> Result:
    """minigrad must raise on a sample PyTorch rejects; PyTorch's class (or a subclass)
    is ``raised``, another class of minigrad's own is ``other class``.

    With ``torch_fn`` (op_db's callable), the input is first given to PyTorch: one it
    accepts is skipped, and where op_db names only ``Exception`` the class PyTorch raises
    is the one expected. A ``method`` (a Tensor-namespace entry) called on something
    that is not a tensor (``Tensor.__radd__(2, t)``) is skipped: Python does not check
    the type of ``self``, so the call is not one a program makes."""
    sample = error_input.sample_input
    expected = error_input.error_type
    if method and not isinstance(sample.input, torch.Tensor):
        return Result(SKIPPED, f"a Tensor method called on {type(sample.input).__name__}")
    convert = Converter(torch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:  # before PyTorch runs: an in-place op may change the input as it fails
            m_input = convert(sample.input)
            m_args = convert(tuple(sample.args))
            m_kwargs = convert(dict(sample.kwargs))
        except (NotExpressible, UnsupportedError) as e:
            return Result(SKIPPED, str(e), category=getattr(e, "category", "unsupported"))
    if torch_fn is not None:
        actual = pytorch_error(torch_fn, sample)
        if actual is None:
            return Result(SKIPPED, f"PyTorch accepts it (op_db expects {expected.__name__})")
        if expected is Exception:
            expected = actual
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            mg_fn(m_input, *m_args, **m_kwargs)
        except Exception as e:
            result = classify_exception(e)
            if "out" in sample.kwargs and "unexpected keyword argument 'out'" in str(e):
                return Result(REFUSED, "out= (minigrad has no out= arguments)")
            if result.outcome == CRASH and not _call_rejected(e):
                return result
            if result.outcome == REFUSED:  # minigrad declines the feature the input uses
                return result
            if isinstance(e, expected):
                return Result(RAISED)
            return Result(OTHER_CLASS, f"{type(e).__name__}, PyTorch {expected.__name__}")
    return Result(ACCEPTED, f"PyTorch raises {expected.__name__}")


def _call_rejected(exc: BaseException) -> bool:
    """Python's TypeError for a call that does not fit the signature (an unexpected
    keyword such as ``out=``, too many arguments): the call is rejected before the
    operation runs, with the class PyTorch uses for a call it cannot bind."""
    if not isinstance(exc, TypeError):
        return False
    if "got an unexpected keyword argument" in str(exc):
        return True
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and not any(
        str(Path(f.filename).resolve()).startswith(MINIGRAD_DIR) for f in frames
    )


# ------------------------------------------------------------------ choosing samples
def pick(count: int, keep: int, key: str) -> list[int]:
    """Which of ``count`` samples a quick run checks: all when ``count <= keep``, else
    the first (PyTorch's plainest) and ``keep - 1`` more drawn with a seed made from
    ``key``, so every run checks the same ones."""
    if count <= keep:
        return list(range(count))
    rng = np.random.default_rng(zlib.crc32(key.encode()))
    rest = rng.choice(np.arange(1, count), size=keep - 1, replace=False)
    return [0, *sorted(int(i) for i in rest)]


def sample_seed(key: str, index: int) -> int:
    return zlib.crc32(f"{key}/{index}".encode()) % (2**31)


def rate(counts: dict) -> float:
    """Passed over the samples minigrad claims (refused and skipped ones left out)."""
    claimed = sum(n for k, n in counts.items() if k not in (REFUSED, SKIPPED))
    return counts.get(PASS, 0) / claimed if claimed else math.nan


# ------------------------------------------------------------------ one op, every dtype
#: The dtypes checked: the contract's (docs: API.md), where the OpInfo supports them.
DTYPES = ("float32", "float64", "int64", "bool")


def samples_of(torch, op, torch_dtype, seed: int) -> list:
    """The OpInfo's sample inputs in ``torch_dtype`` (float64 ones require grad when
    the op supports autograd, so the same samples check values and gradients).

    ``op.sample_inputs`` wraps the generator in an iterator that inspects the call stack
    and reseeds PyTorch for every sample (about 40 ms a sample, most of the run's time);
    the generator itself is called here, once, after seeding PyTorch with ``seed``."""
    requires_grad = dtype_name(torch_dtype) == "float64" and op.supports_autograd
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(op.sample_inputs_func(op, "cpu", torch_dtype, requires_grad))


def call_for(entry) -> Call:
    from tests.opdb.catalog import (
        DETERMINISTIC_COPIES,
        GRADIENTS_BY_DIFFERENCES,
        ILL_CONDITIONED,
        RANDOM_SAMPLES,
    )

    """How to run a catalogue entry (``catalog.Entry``) in both libraries."""
    return Call(
        torch_fn=entry.op,
        mg_fn=entry.mg_fn,
        meta_only=entry.meta_only,
        op=entry.op,
        grads=entry.op.supports_autograd,
        compare=entry.compare,
        upcast=entry.upcast,
        arbiter=entry.arbiter,
        gradient_by_differences=entry.key in GRADIENTS_BY_DIFFERENCES,
        random_sample=RANDOM_SAMPLES.get(entry.key),
        deterministic_copy=DETERMINISTIC_COPIES.get(entry.key),
        ill_conditioned=entry.key in ILL_CONDITIONED,
    )


def run_entry(torch, entry, keep: int | None = None) -> list[tuple[str, int, Result]]:
    """Every sample (or ``keep`` of each dtype, see :func:`pick`) of a claimed entry:
    ``(dtype, sample index, Result)``."""
    call = call_for(entry)
    supported = {dtype_name(d) for d in entry.op.supported_dtypes("cpu")}
    results = []
    for name in DTYPES:
        if name not in supported:
            continue
        torch_dtype = getattr(torch, name)
        samples = samples_of(torch, entry.op, torch_dtype, sample_seed(entry.key, 0))
        chosen = range(len(samples)) if keep is None else pick(len(samples), keep, entry.key)
        for i in chosen:
            seed = sample_seed(f"{entry.key}/{name}", i)
            results.append((name, i, run_sample(torch, call, samples[i], torch_dtype, seed)))
    return results


def error_inputs_of(torch, op) -> list:
    if op.error_inputs_func is None:
        return []
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(op.error_inputs_func(op, "cpu"))


def run_entry_errors(torch, entry) -> list[Result]:
    return [
        run_error_input(torch, entry.mg_fn, e, entry.op.op, entry.namespace == "Tensor")
        for e in error_inputs_of(torch, entry.op)
    ]


# ------------------------------------------------------------------ dtypes PyTorch refuses
def run_entry_dtype_errors(torch, entry, keep: int | None = None) -> list[tuple[str, int, Result]]:
    """The OpInfo's samples in each of :data:`DTYPES` that it does not support on the
    CPU, treated as error inputs (``run_error_input``): PyTorch must raise on the sample
    (one it accepts is skipped: the OpInfo's dtypes are not exact for every sample), and
    then minigrad must raise too, with PyTorch's class or a subclass. A dtype the
    OpInfo cannot even build samples in has nothing to check."""
    supported = {dtype_name(d) for d in entry.op.supported_dtypes("cpu")}
    results = []
    for name in DTYPES:
        if name in supported:
            continue
        try:
            samples = samples_of(torch, entry.op, getattr(torch, name), sample_seed(entry.key, 0))
        except Exception:
            continue
        chosen = range(len(samples)) if keep is None else pick(len(samples), keep, entry.key)
        for i in chosen:
            error_input = _AsErrorInput(samples[i])
            method = entry.namespace == "Tensor"
            results.append(
                (name, i, run_error_input(torch, entry.mg_fn, error_input, entry.op.op, method))
            )
    return results


@dataclass
class _AsErrorInput:
    """A sample given as an error input: the class expected is the one PyTorch raises."""

    sample_input: object
    error_type: type = Exception
