"""PyTorch's ``module_db`` against minigrad's ``nn`` modules.

Each ModuleInfo names a ``torch.nn`` class; minigrad's class of the same name is
*claimed* when it exists, and *refused* when ``minigrad/unsupported.json`` lists it (with
its category), as for op_db. A module input (``ModuleInput``) gives the constructor's
arguments and the forward's. For each one, in float32 and float64, in training mode
(and in eval mode too when the ModuleInfo says the two differ):

1. both modules are built from the same arguments, and PyTorch's ``state_dict()`` is
   loaded into minigrad's (so the names and shapes of every parameter and buffer must
   be PyTorch's);
2. the forward outputs are compared (type, shape, dtype, values within the
   ModuleInfo's tolerance for the dtype), and so is the ``state_dict()`` after the
   forward (BatchNorm's running statistics);
3. in float64, the same random cotangent is sent back through both, and the gradient of
   every input that requires grad and of every parameter is compared, by name.
"""

from __future__ import annotations

import warnings

import numpy as np

import minigrad as mg
from minigrad.unsupported import UnsupportedError, lookup
from tests.opdb import runner
from tests.opdb.catalog import MODULE_GRADIENTS_BY_DIFFERENCES
from tests.opdb.runner import (
    ACCEPTED,
    CRASH,
    GRAD,
    META,
    OTHER_CLASS,
    PASS,
    RAISED,
    SKIPPED,
    Converter,
    NotExpressible,
    Result,
    classify_exception,
    compare_outputs,
    dtype_name,
)

#: The dtypes checked (module_db lists float32 and float64 for nearly every module).
DTYPES = ("float32", "float64")

# fmt: off
#: The ModuleInfos minigrad claims (``torch.nn.X`` is ``mg.nn.X``); every other one is
#: refused by minigrad/unsupported.json (``test_module_db.py`` checks both).
CLAIMED = tuple(f"nn.{name}" for name in """
BatchNorm1d BatchNorm2d BatchNorm3d CELU CosineEmbeddingLoss ELU L1Loss SmoothL1Loss
Linear Bilinear KLDivLoss MSELoss MarginRankingLoss MultiLabelMarginLoss MultiMarginLoss
SoftMarginLoss MultiLabelSoftMarginLoss NLLLoss GaussianNLLLoss PoissonNLLLoss
HingeEmbeddingLoss HuberLoss BCELoss BCEWithLogitsLoss CrossEntropyLoss
LinearCrossEntropyLoss CTCLoss GELU GLU GroupNorm Hardshrink Hardswish Hardtanh
InstanceNorm1d InstanceNorm2d InstanceNorm3d LayerNorm RMSNorm TransformerEncoder
TransformerEncoderLayer TransformerDecoderLayer Transformer MultiheadAttention Embedding
ReLU LeakyReLU ReLU6 PReLU Sigmoid LogSigmoid SiLU Softmax Softmax2d LogSoftmax Softmin
Softplus Softshrink Softsign Tanh Tanhshrink Threshold Mish ReflectionPad1d
ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d ReplicationPad3d SELU
ZeroPad1d ZeroPad2d ZeroPad3d CircularPad1d CircularPad2d CircularPad3d ConstantPad1d
ConstantPad2d ConstantPad3d
""".split())
# fmt: on


def status(info) -> tuple[str, str]:
    """("claimed", "") or ("refused", category) or ("missing", "")."""
    name = info.module_cls.__name__
    entry = lookup(f"nn.{name}")
    if entry is not None:
        return "refused", entry.category
    try:
        getattr(mg.nn, name)
    except UnsupportedError as e:
        return "refused", runner._unsupported_category(e)
    except AttributeError:
        return "missing", ""
    return "claimed", ""


def inputs_of(torch, info, torch_dtype, training: bool) -> list:
    requires_grad = dtype_name(torch_dtype) == "float64"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(
            info.module_inputs_func(
                info,
                device="cpu",
                dtype=torch_dtype,
                requires_grad=requires_grad,
                training=training,
            )
        )


def modes(info) -> tuple[bool, ...]:
    return (True, False) if info.train_and_eval_differ else (True,)


def run_module(torch, info, keep: int | None = None) -> list[tuple[str, int, Result]]:
    """Every module input (or ``keep`` of them per dtype and mode) of a claimed module:
    ``(dtype and mode, index, Result)``."""
    key = info.name
    mg_cls = getattr(mg.nn, info.module_cls.__name__)
    supported = {dtype_name(d) for d in info.dtypes}
    out = []
    for name in DTYPES:
        if name not in supported:
            continue
        torch_dtype = getattr(torch, name)
        for training in modes(info):
            inputs = inputs_of(torch, info, torch_dtype, training)
            label = f"{name}-{'train' if training else 'eval'}"
            chosen = (
                range(len(inputs))
                if keep is None
                else runner.pick(len(inputs), keep, f"{key}/{label}")
            )
            for i in chosen:
                seed = runner.sample_seed(f"{key}/{label}", i)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = _run_input(torch, info, mg_cls, inputs[i], torch_dtype, training, seed)
                out.append((label, i, result))
    return out


def _run_input(torch, info, mg_cls, module_input, torch_dtype, training, seed):
    convert = Converter(torch)
    ctor, fwd = module_input.constructor_input, module_input.forward_input
    try:
        ctor_args = convert(tuple(ctor.args))
        ctor_kwargs = convert(dict(ctor.kwargs))
        fwd_args = convert(tuple(fwd.args)) if fwd is not None else ()
        fwd_kwargs = convert(dict(fwd.kwargs)) if fwd is not None else {}
    except NotExpressible as e:
        return Result(SKIPPED, str(e), category=e.category)
    torch.manual_seed(seed)
    try:
        m_t = info.module_cls(*ctor.args, **ctor.kwargs).to(torch_dtype)
        m_t.train(training)
        want = m_t(*fwd.args, **fwd.kwargs) if fwd is not None else None
    except Exception as e:
        return Result(SKIPPED, f"PyTorch raises {runner._message(e)}", category="torch raises")
    # build minigrad's, and give it PyTorch's parameters and buffers as they were before
    # the forward (re-made from the same seed: the forward may have changed buffers)
    torch.manual_seed(seed)
    before = info.module_cls(*ctor.args, **ctor.kwargs).to(torch_dtype).state_dict()
    try:
        m_m = mg_cls(*ctor_args, **ctor_kwargs).to(getattr(mg, dtype_name(torch_dtype)))
        m_m.train(training)
        m_m.load_state_dict({k: v.detach().numpy(force=True).copy() for k, v in before.items()})
    except Exception as e:
        result = classify_exception(e)
        result.detail = "construction: " + result.detail
        return result
    if fwd is None:
        return Result(PASS)
    mg.manual_seed(seed)
    try:
        got = m_m(*fwd_args, **fwd_kwargs)
    except Exception as e:
        return classify_exception(e)
    problem = compare_outputs(torch, got, want, info)
    if problem is not None:
        return problem
    problem = _compare_state(torch, m_m, m_t, info)
    if problem is not None:
        return problem
    if dtype_name(torch_dtype) == "float64":
        try:
            problem = _compare_gradients(torch, convert, m_m, m_t, got, want, seed)
        except Exception as e:
            result = classify_exception(e)
            result.detail = "backward: " + result.detail
            return result
        if problem is not None and info.name in MODULE_GRADIENTS_BY_DIFFERENCES:
            if not list(m_m.parameters()) and runner.gradients_match_differences(
                lambda *a, **k: m_m(*a, **k), fwd_args[0], fwd_args[1:], fwd_kwargs, convert
            ):
                problem = None
        if problem is not None:
            return problem
    return Result(PASS)


def _compare_state(torch, m_m, m_t, info):
    want = m_t.state_dict()
    got = m_m.state_dict()
    if list(got) != list(want):
        return Result(META, f"state_dict keys {list(got)}, PyTorch {list(want)}")
    for k in want:
        problem = compare_outputs(torch, got[k], want[k], info)
        if problem is not None:
            problem.detail = f"state_dict[{k!r}] after the forward: " + problem.detail
            return problem
    return None


def _compare_gradients(torch, convert, m_m, m_t, got, want, seed):
    rng = np.random.default_rng(seed)
    outs_t, outs_m, cots_t, cots_m = [], [], [], []
    for g, w in zip(runner.flatten(got), runner.flatten(want)):
        if isinstance(w, torch.Tensor) and w.requires_grad and w.numel() > 0:
            cot = rng.standard_normal(tuple(w.shape))
            outs_t.append(w)
            cots_t.append(torch.from_numpy(cot).to(w.dtype))
            outs_m.append(g)
            cots_m.append(mg.tensor(cot.astype(g.numpy().dtype)))
    if not outs_t:
        return None
    if not all(isinstance(o, mg.Tensor) and o.requires_grad for o in outs_m):
        return Result(GRAD, "an output PyTorch differentiates does not require grad")
    pairs = [(f"input {i}", t, m) for i, (t, m) in enumerate(convert.grad_pairs())]
    params_m = dict(m_m.named_parameters())
    pairs += [
        (name, p, params_m.get(name)) for name, p in m_t.named_parameters() if p.requires_grad
    ]
    if any(m is None for _, _, m in pairs):
        missing = [name for name, _, m in pairs if m is None]
        return Result(META, f"parameters {missing} missing")
    grads_t = torch.autograd.grad(outs_t, [t for _, t, _ in pairs], cots_t, allow_unused=True)
    grads_m = mg.autograd.grad(outs_m, [m for _, _, m in pairs], cots_m, allow_unused=True)
    for (name, t, _), gt, gm in zip(pairs, grads_t, grads_m):
        want_g = np.zeros(tuple(t.shape)) if gt is None else gt.detach().numpy(force=True)
        got_g = np.zeros(tuple(t.shape)) if gm is None else gm.detach().numpy()
        finite = want_g[np.isfinite(want_g)]
        scale = float(np.abs(finite).max()) if finite.size else 0.0
        rtol, atol = runner.GRAD_TOLERANCE["float64"]
        problem = runner._compare_arrays(
            got_g, want_g, t.dtype, (rtol, atol * max(1.0, scale)), "gradient entr", GRAD
        )
        if problem is not None:
            problem.detail = f"{name}: " + problem.detail.replace("entrs", "entries")
            return problem
    return None


def _pytorch_raises(info, err, errors) -> bool:
    """Whether PyTorch's module raises on the error input (op_db's and module_db's lists
    hold a few it accepts)."""
    module_input = err.module_error_input
    ctor, fwd = module_input.constructor_input, module_input.forward_input
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            m = info.module_cls(*ctor.args, **ctor.kwargs)
            if err.error_on == errors.FORWARD_ERROR:
                m(*fwd.args, **fwd.kwargs)
        except Exception:
            return True
    return False


def run_module_errors(torch, info) -> list[Result]:
    """minigrad raises where PyTorch does, at construction or in the forward."""
    if info.module_error_inputs_func is None:
        return []
    from torch.testing._internal.common_modules import ModuleErrorEnum

    mg_cls = getattr(mg.nn, info.module_cls.__name__)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        errors = list(
            info.module_error_inputs_func(
                info, device="cpu", dtype=torch.float32, requires_grad=False, training=True
            )
        )
    out = []
    for err in errors:
        module_input = err.module_error_input
        ctor, fwd = module_input.constructor_input, module_input.forward_input
        convert = Converter(torch)
        try:
            ctor_args, ctor_kwargs = convert(tuple(ctor.args)), convert(dict(ctor.kwargs))
            fwd_args = convert(tuple(fwd.args)) if fwd is not None else ()
            fwd_kwargs = convert(dict(fwd.kwargs)) if fwd is not None else {}
        except NotExpressible as e:
            out.append(Result(SKIPPED, str(e), category=e.category))
            continue
        if not _pytorch_raises(info, err, ModuleErrorEnum):
            out.append(Result(SKIPPED, "PyTorch accepts it"))
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                m = mg_cls(*ctor_args, **ctor_kwargs)
                if err.error_on == ModuleErrorEnum.FORWARD_ERROR:
                    m(*fwd_args, **fwd_kwargs)
            except Exception as e:
                result = classify_exception(e)
                if result.outcome == CRASH:
                    out.append(result)
                elif isinstance(e, err.error_type) or result.outcome == runner.REFUSED:
                    out.append(Result(RAISED))
                else:
                    out.append(
                        Result(
                            OTHER_CLASS, f"{type(e).__name__}, PyTorch {err.error_type.__name__}"
                        )
                    )
                continue
        out.append(Result(ACCEPTED, f"PyTorch raises {err.error_type.__name__}"))
    return out
