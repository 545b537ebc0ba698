"""minigrad: a small NumPy autodiff framework that speaks PyTorch's dialect.

import minigrad as mg
x = mg.randn(3, 4, requires_grad=True)
y = (x.tanh() * 2).sum()
y.backward()
x.grad  # d y / d x

As with ``import torch``, ``mg.nn``, ``mg.nn.functional``, ``mg.optim``, ``mg.autograd``,
``mg.utils`` (and ``mg.cuda``, ``mg.amp``, ``mg.backends``, ``mg.distributed``,
``mg.linalg``) are reachable after a bare ``import minigrad``; all but ``autograd`` are
imported on first use, so ``import minigrad`` stays fast and does not import Numba.
"""

import importlib as _importlib
import math as _math

import numpy as _np

from minigrad import layouts as _layouts
from minigrad import surface as _surface
from minigrad._version import __version__ as __version__
from minigrad.autograd import (
    Function,
    enable_grad,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from minigrad.creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    multinomial,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from minigrad.devices import (
    AcceleratorError,
    OutOfMemoryError,
    device,
    get_default_device,
    set_default_device,
)
from minigrad.dtypes import (
    bfloat16,
    bool_,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    long,
    short,
    uint8,
    uint16,
    uint32,
    uint64,
)
from minigrad.gradcheck import (
    GradcheckError,
    gradcheck,
    gradcheck_graph,
    gradcheck_module,
    gradgradcheck,
)
from minigrad.kernels.runtime import (
    get_num_threads,
    keep_freed_memory,
    set_num_threads,
    use_threading_layer,
)
from minigrad.layouts import *  # noqa: F403  (strided, channels_last, ...: its __all__)
from minigrad.ops import (  # functional forms of the tensor methods: mg.exp(x), mg.sum(x, 1)
    amax,
    amin,
    argmax,
    argmin,
    cat,
    chunk,
    clamp,
    clip,
    einsum,
    flatten,
    gather,
    log_softmax,
    logsumexp,
    masked_fill,
    matmul,
    max,
    mean,
    min,
    permute,
    reshape,
    softmax,
    split,
    squeeze,
    stack,
    std,
    sum,
    transpose,
    tril,
    triu,
    unsqueeze,
    var,
    where,
)
from minigrad.random import Generator, get_rng_state, manual_seed, set_rng_state
from minigrad.serialization import load, save
from minigrad.surface import settings as _settings  # torch.set_default_dtype, torch.finfo, ...
from minigrad.surface.compat import (  # PyTorch names: torch.compile, torch.einsum, ...
    allclose,
    argsort,
    bmm,
    compile,
    cumsum,
    flip,
    get_float32_matmul_precision,
    index_select,
    inference_mode,
    is_inference_mode_enabled,
    isfinite,
    isinf,
    isnan,
    numel,
    outer,
    pow,
    roll,
    set_float32_matmul_precision,
    sort,
    topk,
    unbind,
)
from minigrad.tensor import Tensor
from minigrad.unsupported import UnsupportedError, install_finder, install_tensor_names
from minigrad.unsupported import attribute as _unsupported_attribute

# PyTorch's surface, attached here and nowhere else: every Tensor method written outside
# tensor.py (x.sin, x.scatter_add, x.add(y, alpha=2), ...), the mg.* functions of the same
# modules, and PyTorch's module paths whose code is in minigrad/surface/ (minigrad.special,
# minigrad.autograd.functional, ...). docs/tensor-methods.md says where each is defined.
_surface.attach(Tensor)
globals().update(_surface.functions())
globals().update({name: getattr(_settings, name) for name in _settings.__all__})

install_finder()  # ``import minigrad.onnx`` works, and its names say why they are missing
install_tensor_names(Tensor)  # ``t.to_sparse()`` says why, not a bare AttributeError

bool = bool_  # mg.bool, as torch.bool
dtype = _np.dtype  # torch.dtype: the class of mg.float32, mg.int64, ... (NumPy's)
float = float32  # torch.float is float32
int = int32  # torch.int is int32
Size = tuple  # shapes are plain tuples; torch.Size is a tuple subclass
pi, e, inf, nan, newaxis = _math.pi, _math.e, _math.inf, _math.nan, None  # torch.pi, ...

# Submodules loaded on first access (``mg.nn.Linear`` after ``import minigrad``), and
# the names that live in one of them.
_LAZY_MODULES = (
    "nn", "optim", "utils", "cuda", "cpu", "accelerator", "amp", "backends", "distributed",
    "linalg", "version", "testing", "contrib",
)  # fmt: skip
_LAZY_NAMES = {"autocast": "amp", "GradScaler": "amp"}
# torch.is_autocast_enabled, torch.get_autocast_dtype ...: the autocast state
_LAZY_NAMES.update(
    dict.fromkeys(
        "is_autocast_enabled set_autocast_enabled get_autocast_dtype set_autocast_dtype "
        "is_autocast_cpu_enabled set_autocast_cpu_enabled get_autocast_cpu_dtype "
        "set_autocast_cpu_dtype get_autocast_gpu_dtype set_autocast_gpu_dtype "
        "is_autocast_cache_enabled set_autocast_cache_enabled clear_autocast_cache "
        "autocast_increment_nesting autocast_decrement_nesting".split(),
        "amp.autocast_mode",
    )
)
# torch.celu, torch.pdist, torch.layer_norm ...: the nn.functional function of that name,
# where torch's signature is the same (not the losses: torch's take reduction as an int).
_LAZY_NAMES.update(
    dict.fromkeys(
        "celu celu_ selu selu_ prelu rrelu rrelu_ threshold threshold_ hardshrink relu_ pdist "
        "cosine_similarity pairwise_distance bilinear dropout alpha_dropout "
        "feature_alpha_dropout layer_norm group_norm rms_norm".split(),
        "nn.functional",
    )
)
# ... and where torch.X differs from F.X (an int reduction, the weight first): torch_forms.py
_LAZY_NAMES.update(
    dict.fromkeys(
        "binary_cross_entropy_with_logits kl_div cosine_embedding_loss margin_ranking_loss "
        "hinge_embedding_loss poisson_nll_loss triplet_margin_loss ctc_loss embedding "
        "batch_norm instance_norm feature_dropout".split(),
        "nn.functional.torch_forms",
    )
)


def __getattr__(name: str):
    if name in _LAZY_MODULES:
        return _importlib.import_module(f"minigrad.{name}")
    if name in _LAZY_NAMES:
        return getattr(_importlib.import_module(f"minigrad.{_LAZY_NAMES[name]}"), name)
    return _unsupported_attribute("", name)  # mg.onnx: a module; mg.view_as_complex raises


def __dir__():
    return sorted(set(globals()) | set(_LAZY_MODULES) | set(_LAZY_NAMES))


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(t: Tensor) -> bool:
    return t.dtype.kind == "f"


__all__ = [
    # tensors and their creation
    "Tensor",
    "arange",
    "as_tensor",
    "empty",
    "empty_like",
    "eye",
    "from_numpy",
    "full",
    "full_like",
    "is_floating_point",
    "is_tensor",
    "linspace",
    "multinomial",
    "ones",
    "ones_like",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "randperm",
    "tensor",
    "zeros",
    "zeros_like",
    "Generator",
    "Size",
    "device",
    "get_default_device",
    "set_default_device",
    "AcceleratorError",
    "OutOfMemoryError",
    # layouts and memory formats
    *_layouts.__all__,
    # dtypes
    "bfloat16",
    "bool",
    "bool_",
    "double",
    "float",
    "float16",
    "float32",
    "float64",
    "half",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "long",
    "short",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    # settings and dtype facts (minigrad/surface/settings.py)
    *_settings.__all__,
    # operations as functions
    "amax",
    "amin",
    "argmax",
    "argmin",
    "cat",
    "chunk",
    "clamp",
    "clip",
    "einsum",
    "flatten",
    "gather",
    "log_softmax",
    "logsumexp",
    "masked_fill",
    "matmul",
    "max",
    "mean",
    "min",
    "permute",
    "reshape",
    "softmax",
    "split",
    "squeeze",
    "stack",
    "std",
    "sum",
    "transpose",
    "tril",
    "triu",
    "unsqueeze",
    "var",
    "where",
    # autograd
    "Function",
    "UnsupportedError",
    "GradcheckError",
    "enable_grad",
    "gradcheck",
    "gradcheck_graph",
    "gradcheck_module",
    "gradgradcheck",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_grad_enabled",
    # random state, checkpoints, threads and memory
    "get_rng_state",
    "manual_seed",
    "set_rng_state",
    "load",
    "save",
    "get_num_threads",
    "keep_freed_memory",
    "set_num_threads",
    "use_threading_layer",
    # PyTorch-compatibility (minigrad/surface/compat.py)
    "allclose",
    "argsort",
    "bmm",
    "compile",
    "cumsum",
    "flip",
    "get_float32_matmul_precision",
    "index_select",
    "isfinite",
    "isinf",
    "isnan",
    "numel",
    "outer",
    "pow",
    "roll",
    "set_float32_matmul_precision",
    "sort",
    "topk",
    "unbind",
    # constants
    "e",
    "inf",
    "nan",
    "newaxis",
    "pi",
    # the elementwise table, reductions and scans, the indexing family (minigrad/surface/)
    *_surface.functions(),
]
