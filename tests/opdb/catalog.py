"""Which entry of PyTorch's ``op_db`` is which minigrad call: the reviewed table.

Every OpInfo of ``torch.testing._internal.common_methods_invocations.op_db`` is in
exactly one place (``test_op_db.py::test_every_opinfo_is_catalogued`` checks it, so an
OpInfo a new PyTorch adds fails until it is placed):

- **claimed**: :data:`SAME_NAME` (minigrad's function of PyTorch's name, called as the
  OpInfo calls PyTorch's: ``linalg.svd`` is ``mg.linalg.svd``), :data:`METHODS` (the
  OpInfo calls a Tensor method through a lambda), or :data:`ADAPTERS` (the OpInfo's
  lambda, written again for minigrad);
- **refused**: the name is in ``minigrad/unsupported.json``, which gives the category
  (convolution, fft, complex, ...) and the reason; nothing here repeats it;
- **internal**: :data:`INTERNAL`, OpInfos of PyTorch's private operators
  (``_softmax_backward_data``, ``torch.ops.aten.*``, CUDA's jiterator), which are not
  public names of any namespace minigrad mirrors;
- **missing**: :data:`MISSING`, public names minigrad neither has nor refuses yet.

The keys are OpInfo names with the variant after a dot (``div.floor_rounding``), as
PyTorch's test names spell them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import minigrad as mg
from minigrad.unsupported import UnsupportedError, lookup
from tests.opdb.choices import CHOICES

# fmt: off
#: Claimed under PyTorch's name and call form (torch.<name>, torch.nn.functional.<name>,
#: torch.linalg.<name>, torch.special.<name>; ``bmm.triton_optimized`` runs ``bmm``).
SAME_NAME = frozenset("""
conj conj_physical imag real resolve_conj resolve_neg
abs acos acosh add addbmm addcdiv addcmul addmm addmm.decomposed addmv addr all allclose
amax amin aminmax any arange argmax argmin argsort argwhere as_strided
as_strided.partial_views as_strided_scatter asin asinh atan atan2 atanh atleast_1d
atleast_2d atleast_3d baddbmm bernoulli bincount bitwise_and bitwise_left_shift bitwise_not
bitwise_or bitwise_right_shift bitwise_xor block_diag bmm bmm.triton_optimized
broadcast_shapes broadcast_tensors broadcast_to bucketize cartesian_prod cat cdist ceil
cholesky cholesky_inverse cholesky_solve chunk clamp clamp_max clamp_min clone column_stack
combinations copysign corrcoef cos cosh count_nonzero cov cross cummax cummin cumprod cumsum
cumulative_trapezoid deg2rad diag diag_embed diagflat diagonal diagonal_scatter diff digamma
dist div.floor_rounding div.no_rounding_mode div.trunc_rounding dot dsplit dstack empty
empty_like empty_permuted empty_strided eq equal erf erfc erfinv exp exp2 expm1 eye fill
flatten flip fliplr flipud float_power floor floor_divide fmax fmin fmod frac frexp full
full_like gather gcd ge geqrf gradient gt heaviside histc histogram histogramdd hsplit
hstack hypot i0 igamma igammac index_add index_copy index_fill index_put index_reduce.amax
index_reduce.amin index_reduce.mean index_reduce.prod index_select inner isclose isfinite
isin isinf isnan isneginf isposinf isreal kron kthvalue lcm ldexp le lerp lgamma linspace
linspace.tensor_overload log log10 log1p log2 log_softmax log_softmax.with_dtype logaddexp
logaddexp2 logcumsumexp logdet logical_and logical_not logical_or logical_xor logit logspace
logspace.tensor_overload logsumexp lt lu lu_solve lu_unpack masked_fill masked_scatter
masked_select matmul matrix_exp max.binary max.reduction_no_dim max.reduction_with_dim
maximum mean median meshgrid.list_of_tensors meshgrid.variadic_tensors min.binary
min.reduction_no_dim min.reduction_with_dim minimum mm mode movedim msort mul multinomial mv
mvlgamma.mvlgamma_p_1 mvlgamma.mvlgamma_p_3 mvlgamma.mvlgamma_p_5 nan_to_num nanmean
nanmedian nanquantile nansum narrow ne neg nextafter nonzero norm norm.fro norm.inf norm.nuc
normal normal.number_mean ones ones_like ormqr outer permute pinverse positive pow prod put
qr quantile rad2deg rand_like randint randint_like randn randn_like ravel reciprocal
remainder renorm repeat_interleave reshape roll rot90 round round.decimals_0
round.decimals_3 round.decimals_neg_3 rsqrt rsub scalar_tensor scatter scatter_add
scatter_reduce.amax scatter_reduce.amin scatter_reduce.mean scatter_reduce.prod
scatter_reduce.sum searchsorted select select_scatter sgn sigmoid sign signbit sin sinc sinh
slice_scatter softmax softmax.with_dtype sort split split.list_args split_with_sizes sqrt
square squeeze squeeze.multiple stack std std.unbiased std_mean std_mean.unbiased sub sum
svd t take take_along_dim tan tanh tensor_split tensordot tile topk trace transpose
trapezoid trapz triangular_solve tril tril_indices triu triu_indices true_divide trunc
unbind unflatten unique unique_consecutive unravel_index unsqueeze var var.unbiased var_mean
var_mean.unbiased vdot vsplit vstack xlogy zeros zeros_like

nn.functional.alpha_dropout nn.functional.batch_norm nn.functional.batch_norm.without_cudnn
nn.functional.bilinear nn.functional.binary_cross_entropy
nn.functional.binary_cross_entropy_with_logits nn.functional.celu
nn.functional.cosine_embedding_loss nn.functional.cosine_similarity
nn.functional.cross_entropy nn.functional.ctc_loss nn.functional.dropout
nn.functional.dropout2d nn.functional.dropout3d nn.functional.elu
nn.functional.feature_alpha_dropout.with_train
nn.functional.feature_alpha_dropout.without_train nn.functional.gaussian_nll_loss
nn.functional.gelu nn.functional.glu nn.functional.group_norm nn.functional.hardshrink
nn.functional.hardsigmoid nn.functional.hardswish nn.functional.hardtanh
nn.functional.hinge_embedding_loss nn.functional.huber_loss nn.functional.instance_norm
nn.functional.kl_div nn.functional.l1_loss nn.functional.layer_norm nn.functional.leaky_relu
nn.functional.linear nn.functional.linear_cross_entropy
nn.functional.linear_cross_entropy.chunked nn.functional.linear_cross_entropy.chunked_none
nn.functional.logsigmoid nn.functional.margin_ranking_loss nn.functional.mish
nn.functional.mse_loss nn.functional.multi_head_attention_forward
nn.functional.multi_margin_loss nn.functional.multilabel_margin_loss
nn.functional.multilabel_soft_margin_loss nn.functional.nll_loss nn.functional.normalize
nn.functional.one_hot nn.functional.pad.circular nn.functional.pad.constant
nn.functional.pad.reflect nn.functional.pad.replicate nn.functional.pad.replicate_negative
nn.functional.pairwise_distance nn.functional.pdist nn.functional.poisson_nll_loss
nn.functional.prelu nn.functional.relu nn.functional.relu6 nn.functional.rms_norm
nn.functional.rrelu nn.functional.scaled_dot_product_attention nn.functional.selu
nn.functional.silu nn.functional.silu.complex nn.functional.smooth_l1_loss
nn.functional.soft_margin_loss nn.functional.softmin nn.functional.softmin.with_dtype
nn.functional.softplus nn.functional.softshrink nn.functional.softsign
nn.functional.tanhshrink nn.functional.threshold nn.functional.triplet_margin_loss
nn.functional.triplet_margin_with_distance_loss

linalg.cholesky linalg.cholesky_ex linalg.cond linalg.cross linalg.det linalg.diagonal
linalg.eigh linalg.eigvalsh linalg.householder_product linalg.inv linalg.inv_ex
linalg.ldl_factor linalg.ldl_factor_ex linalg.ldl_solve linalg.lstsq linalg.lu
linalg.lu_factor linalg.lu_factor_ex linalg.lu_solve linalg.matrix_norm linalg.matrix_power
linalg.matrix_rank linalg.matrix_rank.hermitian linalg.multi_dot linalg.norm
linalg.norm.subgradients_at_zero linalg.pinv linalg.pinv.hermitian linalg.qr linalg.slogdet
linalg.solve linalg.solve_ex linalg.solve_triangular linalg.svd linalg.svdvals
linalg.tensorinv linalg.tensorsolve linalg.vander linalg.vecdot linalg.vector_norm

special.airy_ai special.bessel_j0 special.bessel_j1 special.bessel_y0 special.bessel_y1
special.chebyshev_polynomial_t special.chebyshev_polynomial_u special.chebyshev_polynomial_v
special.chebyshev_polynomial_w special.entr special.erfcx special.hermite_polynomial_h
special.hermite_polynomial_he special.i0e special.i1 special.i1e
special.laguerre_polynomial_l special.legendre_polynomial_p special.log_ndtr
special.modified_bessel_i0 special.modified_bessel_i1 special.modified_bessel_k0
special.modified_bessel_k1 special.ndtr special.ndtri special.scaled_modified_bessel_k0
special.scaled_modified_bessel_k1 special.shifted_chebyshev_polynomial_t
special.shifted_chebyshev_polynomial_u special.shifted_chebyshev_polynomial_v
special.shifted_chebyshev_polynomial_w special.spherical_bessel_j0 special.xlog1py
special.zeta
""".split())
# fmt: on

#: Claimed as a Tensor method: OpInfo key -> the method its lambda calls.
METHODS = {
    "item": "item",
    "contiguous": "contiguous",
    "sum_to_size": "sum_to_size",
    "expand": "expand",
    "expand_as": "expand_as",
    "to": "to",
    "reshape_as": "reshape_as",
    "view": "view",
    "view_as": "view_as",
    "unfold": "unfold",
    "repeat": "repeat",
    "__getitem__": "__getitem__",
    **{f"__r{op}__": f"__r{op}__" for op in "add div mul and or xor matmul mod pow sub".split()},
    **{dt: dt for dt in "bool byte char double float half int long short bfloat16".split()},
    **{f"new_{k}": f"new_{k}" for k in "zeros ones empty empty_strided full".split()},
    # the random in-place fills
    **{k: k + "_" for k in "cauchy exponential geometric log_normal uniform".split()},
    "normal.in_place": "normal_",
}


def _clone_then(method):
    return lambda x, *args, **kwargs: getattr(x.clone(), method)(*args, **kwargs)


#: Claimed with a call form of the OpInfo's own (its lambda, written for minigrad).
ADAPTERS = {
    "T": lambda x: x.T,
    "H": lambda x: x.H,
    "mT": lambda x: x.mT,
    "mH": lambda x: x.mH,
    "where": lambda x, condition, other, **kwargs: mg.where(condition, x, other, **kwargs),
    "einsum": lambda tensors, equation: mg.einsum(equation, tensors),
    **{
        f"polygamma.polygamma_n_{n}": lambda x, n, **kwargs: mg.polygamma(n, x, **kwargs)
        for n in range(5)
    },
    "special.polygamma.special_polygamma_n_0": (
        lambda x, n, **kwargs: mg.special.polygamma(n, x, **kwargs)
    ),
    "nn.functional.embedding": (
        lambda weight, idx, **kwargs: mg.nn.functional.embedding(idx, weight, **kwargs)
    ),
    "nn.functional.embedding_bag": (
        lambda weight, idx, **kwargs: mg.nn.functional.embedding_bag(idx, weight, **kwargs)
    ),
    "linalg.lstsq.grad_oriented": lambda a, b, driver: mg.linalg.lstsq(a, b, driver=driver)[:2],
    "linalg.pinv.singular": lambda a, b: mg.linalg.pinv(a @ b.mT),
    "svd_lowrank": lambda a, b, **kwargs: mg.svd_lowrank(a @ b.mT, **kwargs),
    "pca_lowrank": lambda a, b, **kwargs: mg.pca_lowrank(a @ b.mT, **kwargs),
    "resize_": lambda x, shape: x.clone().resize_(shape),
    "resize_as_": lambda x, other: mg.resize_as_(x.clone(), other),
    "zero_": lambda x: mg.zero_(x.clone()),
}

#: Ops whose values are random or left undefined: only the type, shape and dtype of
#: each output are compared (and no gradient).
RANDOM_OR_UNDEFINED = frozenset(
    """
bernoulli multinomial normal normal.number_mean normal.in_place cauchy exponential geometric
log_normal uniform rand_like randint randint_like randn randn_like svd_lowrank pca_lowrank
empty empty_like empty_permuted empty_strided new_empty new_empty_strided resize_
nn.functional.dropout nn.functional.dropout2d nn.functional.dropout3d
nn.functional.alpha_dropout nn.functional.feature_alpha_dropout.with_train
nn.functional.rrelu
""".split()
)

#: Ops whose float32 result is not their float64 result rounded to float32 (the step to
#: the next float32, the largest float32 ...): their float32 values must match PyTorch's
#: float32 ones (runner._as_accurate_as_float64 does not apply).
PRECISION_SPECIFIC = frozenset(
    """
nextafter frexp nan_to_num ldexp float_power to bfloat16 bool byte char double float half
int long short
""".split()
)

#: Ops whose float32 values on some samples are off from the float64 ones by more than
#: the OpInfo's tolerance in PyTorch too: there minigrad's float32 values pass when they
#: are no further from PyTorch's float64 values than PyTorch's float32 ones are.
ILL_CONDITIONED = {
    "nn.functional.multi_head_attention_forward": (
        "op_db's inputs and weights reach 9 and are not scaled, so the attention scores "
        "of its float32 samples reach 4e2 to 1.6e4 (median 4.6e3): the softmax amplifies "
        "each score's rounding error that much, and on one sample PyTorch's own float32 "
        "output misses its float64 one by 1.9e-2 (at -992), where minigrad's misses by "
        "1.0e-2, beyond the OpInfo's float32 tolerance (atol 5e-3)"
    ),
}

#: Where minigrad and PyTorch disagree, these functions at 30 digits (mpmath's, given the
#: mpmath module and one argument) decide: minigrad passes if it is within tolerance of
#: them. PyTorch's Bessel functions are off by up to 3e-7 in float64 near their zeros.
ARBITERS = {
    "special.bessel_j0": lambda mp, x: mp.besselj(0, x),
    "special.bessel_j1": lambda mp, x: mp.besselj(1, x),
    "special.bessel_y0": lambda mp, x: mp.bessely(0, x) if x > 0 else mp.nan,
    "special.bessel_y1": lambda mp, x: mp.bessely(1, x) if x > 0 else mp.nan,
}

#: Ops whose PyTorch gradient is not the derivative of its forward: where minigrad's
#: gradient differs from PyTorch's, finite differences decide (mg.gradcheck, float64).
GRADIENTS_BY_DIFFERENCES = {
    "as_strided_scatter": (
        "PyTorch 2.13 sends the input the gradient of the positions src overwrites, and "
        "none to the others (its backward copies grad's scattered slice into zeros): "
        "as_strided_scatter(x, src, (1,), (1,), 0).backward([10, 20, 30]) gives x the "
        "gradient [10, 0, 0], where the derivative (and slice_scatter's) is [0, 20, 30] "
        "(its OpInfo marks PyTorch's own gradcheck an expected failure)"
    ),
    "nn.functional.ctc_loss": (
        "PyTorch's gradient with respect to log_probs is the one with respect to the "
        "logits under a log_softmax (it adds exp(log_probs)), so it fails gradcheck; its "
        "OpInfo checks it through a log_softmax wrapper (pytorch#52241). Through "
        "log_softmax, as CTC is used, the two gradients are the same"
    ),
}
#: The same for module_db's ModuleInfos.
MODULE_GRADIENTS_BY_DIFFERENCES = {"nn.CTCLoss": GRADIENTS_BY_DIFFERENCES["nn.functional.ctc_loss"]}

#: Ops whose values are random only in some samples: the predicate says which (those
#: compare type, shape and dtype only, like RANDOM_OR_UNDEFINED).
RANDOM_SAMPLES = {
    "nn.functional.scaled_dot_product_attention": lambda s: s.kwargs.get("dropout_p", 0) > 0,
    # dropout_p is the 11th argument (the 10th after the query)
    "nn.functional.multi_head_attention_forward": (
        lambda s: s.kwargs.get("training", True) and s.args[9] > 0
    ),
}

#: For the random samples of these ops, the same sample without its randomness (a
#: function of the sample giving that copy): after the random sample's type, shape and
#: dtype, the copy's values and float64 gradients are compared too. (Every float64
#: sample of multi_head_attention_forward trains with attention dropout 0.5.)
DETERMINISTIC_COPIES = {
    "nn.functional.multi_head_attention_forward": (lambda s: _with_kwargs(s, training=False)),
}


#: (key, dtype) of the samples in a dtype the OpInfo does not support, which PyTorch
#: refuses and minigrad still computes or refuses with another class; each says why.
#: (``test_op_db.py`` fails on a case that starts to agree too, so the list stays true.)
DTYPE_DIFFERENCES = {
    ("round.decimals_0", "int64"): "torch.round(x, decimals=0) refuses an integer tensor "
    "that torch.round(x) takes; minigrad cannot tell an explicit decimals=0 from none",
    ("round.decimals_3", "int64"): "minigrad rounds an integer tensor to any decimals (a "
    "copy), where PyTorch has no integer kernel with decimals",
    ("round.decimals_neg_3", "int64"): "minigrad rounds an integer tensor to any decimals, "
    "where PyTorch has no integer kernel with decimals",
    ("nn.functional.multi_head_attention_forward", "int64"): "PyTorch fails one of its own "
    "asserts (AssertionError); minigrad raises its dtype error (TypeError, RuntimeError)",
}


def _with_kwargs(sample, **kwargs):
    """A shallow copy of a SampleInput with some keyword arguments changed."""
    out = copy.copy(sample)
    out.kwargs = {**sample.kwargs, **kwargs}
    return out


#: OpInfos of PyTorch's private operators: not names of a namespace minigrad mirrors.
INTERNAL = {
    **dict.fromkeys(
        """_softmax_backward_data _native_batch_norm_legit _batch_norm_with_update
        _upsample_bilinear2d_aa max_pool2d_with_indices_backward slice _unsafe_masked_index
        _unsafe_masked_index_put_accumulate _chunk_cat native_dropout_backward
        _segment_reduce.lengths _segment_reduce.offsets torch._scaled_mm torch._scaled_mm_v2
        torch.ops.aten._safe_softmax.default torch.ops.aten._flash_attention_forward
        torch.ops.aten._efficient_attention_forward""".split(),
        "internals",
    ),
    # CUDA's runtime-compiled kernels
    **dict.fromkeys(
        """jiterator_unary jiterator_binary jiterator_4inputs_with_extra_args
        jiterator_binary_return_by_ref jiterator_2inputs_2outputs""".split(),
        "devices",
    ),
}

#: Public names minigrad neither has nor refuses yet, and why.
MISSING: dict[str, str] = {}

#: Every claimed key (the tests are parametrized by it without importing PyTorch).
CLAIMED = tuple(sorted(SAME_NAME | set(METHODS) | set(ADAPTERS)))

NAMESPACES = ("torch", "Tensor", "nn.functional", "linalg", "special")
REFUSED_NAMESPACES = ("fft", "signal", "masked", "sparse")


@dataclass
class Entry:
    """One OpInfo: its key, where it is counted, and what minigrad does with it."""

    key: str
    op: object  # the OpInfo
    namespace: str
    status: str  # "claimed", "refused", "internal" or "missing"
    category: str = ""  # for refused / internal: the unsupported.json category
    mg_fn: object = None
    meta_only: bool = False
    compare: object = None  # outputs unique only up to a choice: choices.CHOICES
    upcast: bool = True  # see PRECISION_SPECIFIC
    arbiter: object = None  # see ARBITERS


def key_of(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def namespace_of(key: str) -> str:
    if key.startswith("nn.functional."):
        return "nn.functional"
    head = key.split(".", 1)[0]
    if head in ("linalg", "special", *REFUSED_NAMESPACES):
        return head
    if key in METHODS or key in ("T", "H", "mT", "mH", "resize_"):
        return "Tensor"
    return "torch"


def resolve(path: str):
    """``mg.<path>``, one attribute at a time (``nn.functional.relu``)."""
    obj = mg
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _method(name):
    def call(x, *args, **kwargs):
        return getattr(x, name)(*args, **kwargs)

    call.__name__ = f"Tensor.{name}"
    return call


def minigrad_function(key: str, op):
    """The minigrad callable that runs OpInfo ``op`` (key ``key``)."""
    if key in ADAPTERS:
        return ADAPTERS[key]
    if key in METHODS:
        return _method(METHODS[key])
    return resolve(op.name)


def refusal(op) -> str | None:
    """The unsupported.json category of the OpInfo's name (or of the Tensor method of
    that name), or None when minigrad does not refuse it."""
    for name in (op.name, f"Tensor.{op.name}"):
        entry = lookup(name)
        if entry is not None:
            return entry.category
    return None


def catalog(op_db) -> list[Entry]:
    """Every OpInfo of ``op_db`` placed; raises if one is in no list (or two)."""
    out = []
    for op in op_db:
        key = key_of(op)
        ns = namespace_of(key)
        claimed = key in SAME_NAME or key in METHODS or key in ADAPTERS
        places = [claimed, key in INTERNAL, key in MISSING]
        category = refusal(op)
        if sum(places) + (category is not None and not claimed) != 1:
            raise LookupError(f"OpInfo {key!r} is not placed in exactly one list of catalog.py")
        if claimed:
            out.append(
                Entry(
                    key,
                    op,
                    ns,
                    "claimed",
                    mg_fn=minigrad_function(key, op),
                    meta_only=key in RANDOM_OR_UNDEFINED,
                    compare=CHOICES.get(key),
                    upcast=key not in PRECISION_SPECIFIC,
                    arbiter=ARBITERS.get(key),
                )
            )
        elif key in INTERNAL:
            out.append(Entry(key, op, "internals", "internal", category=INTERNAL[key]))
        elif key in MISSING:
            out.append(Entry(key, op, ns, "missing", category=MISSING[key]))
        else:
            out.append(Entry(key, op, ns, "refused", category=category))
    return out


def is_refused_by_minigrad(name: str) -> bool:
    """True when reading the name from minigrad raises ``UnsupportedError`` (the table's
    word is what minigrad does, not only what the JSON says)."""
    for path in (name, f"Tensor.{name}"):
        try:
            resolve(path)
        except UnsupportedError:
            return True
        except AttributeError:
            continue
    return False
