"""F.multi_head_attention_forward, the functional form of nn.MultiheadAttention.

References: PyTorch (signature, outputs, weights and the gradients of every input,
weight and float mask, in float64; its exception classes), finite differences
(gradcheck), and nn.MultiheadAttention, which must give the same as the function.
"""

import inspect

import numpy as np
import pytest
from module_parity import backward_attention_both

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F

TOL = dict(rtol=1e-10, atol=1e-12)  # float64 parity: the same formulas, a few roundings apart
E, H, N, L, S = 4, 2, 3, 5, 6
HD = E // H


def test_signature_is_pytorchs(torch):
    ours = inspect.signature(F.multi_head_attention_forward).parameters
    theirs = inspect.signature(torch.nn.functional.multi_head_attention_forward).parameters
    assert [(p.name, p.kind, p.default) for p in ours.values()] == [
        (p.name, p.kind, p.default) for p in theirs.values()
    ]


# ------------------------------------------------------------------ parity with torch
def _arrays(rng, cfg):
    """The float64 arrays of one call: inputs, weights and any float masks."""
    batched = cfg.get("batched", True)
    kdim, vdim = cfg.get("kdim", E), cfg.get("vdim", E)

    def seq(length, width):
        return (length, N, width) if batched else (length, width)

    a = {
        "query": rng.standard_normal(seq(L, E)),
        "key": rng.standard_normal(seq(S, kdim)),
        "value": rng.standard_normal(seq(S, vdim)),
        "out_proj_weight": rng.standard_normal((E, E)) / 2,
        "out_proj_bias": rng.standard_normal(E),
    }
    if cfg.get("separate"):
        a["q_proj_weight"] = rng.standard_normal((E, E)) / 2
        a["k_proj_weight"] = rng.standard_normal((E, kdim)) / 2
        a["v_proj_weight"] = rng.standard_normal((E, vdim)) / 2
    else:
        a["in_proj_weight"] = rng.standard_normal((3 * E, E)) / 2
    if cfg.get("in_bias", True):
        a["in_proj_bias"] = rng.standard_normal(3 * E)
    if "bias_kv" in cfg:
        a["bias_k"] = rng.standard_normal(cfg["bias_kv"])
        a["bias_v"] = rng.standard_normal(cfg["bias_kv"])
    if cfg.get("static"):
        a["static_k"] = rng.standard_normal((N * H, S, HD))
        a["static_v"] = rng.standard_normal((N * H, S, HD))
    n = N if batched else 1
    kind = cfg.get("attn_mask")
    if kind == "float2d":
        a["attn_mask"] = rng.standard_normal((L, S))
    elif kind == "float3d":
        a["attn_mask"] = rng.standard_normal((n * H, L, S))
    elif kind in ("bool2d", "causal"):
        blocked = rng.random((L, S)) > 0.6 if kind == "bool2d" else np.triu(np.ones((L, S)), 1)
        blocked[:, 0] = False
        a["attn_mask"] = blocked.astype(bool)
    elif kind == "bool3d":
        blocked = rng.random((n * H, L, S)) > 0.6
        blocked[..., 0] = False
        a["attn_mask"] = blocked
    kpm = cfg.get("key_padding_mask")
    if kpm is not None:
        padded = rng.random((N, S) if batched else (S,)) > 0.6
        padded[..., 0] = False
        a["key_padding_mask"] = padded if kpm == "bool" else np.where(padded, -1e9, 0.25)
    return a


CASES = {
    "packed": dict(),
    "unbatched": dict(batched=False, attn_mask="float3d"),
    "separate_kdim_vdim": dict(separate=True, kdim=3, vdim=5, in_bias=False),
    "bias_kv_1d_zero_attn": dict(bias_kv=(E,), add_zero_attn=True, key_padding_mask="bool"),
    "bias_kv_3d_float_masks": dict(
        bias_kv=(1, 1, E), attn_mask="float2d", key_padding_mask="float"
    ),
    "bool_masks_per_head": dict(attn_mask="bool3d", key_padding_mask="bool", average=False),
    "static_kv": dict(static=True, attn_mask="float2d"),
    "static_kv_zero_attn": dict(static=True, add_zero_attn=True, key_padding_mask="bool"),
    "no_weights": dict(need_weights=False, attn_mask="bool2d", key_padding_mask="bool"),
    "no_weights_float_mask": dict(need_weights=False, attn_mask="float3d"),
    "causal_hint_fused": dict(attn_mask="causal", is_causal=True, need_weights=False),
    "causal_hint_with_weights": dict(attn_mask="causal", is_causal=True),
    "unbatched_separate": dict(batched=False, separate=True, key_padding_mask="bool"),
}


def _call(lib, tensors, cfg):
    """lib's multi_head_attention_forward on ``tensors`` (a dict of lib's tensors)."""
    t = dict(tensors)
    return lib.nn.functional.multi_head_attention_forward(
        t.pop("query"),
        t.pop("key"),
        t.pop("value"),
        E,
        H,
        t.pop("in_proj_weight", None),
        t.pop("in_proj_bias", None),
        t.pop("bias_k", None),
        t.pop("bias_v", None),
        cfg.get("add_zero_attn", False),
        0.0,
        t.pop("out_proj_weight"),
        t.pop("out_proj_bias"),
        training=False,
        need_weights=cfg.get("need_weights", True),
        use_separate_proj_weight=cfg.get("separate", False),
        average_attn_weights=cfg.get("average", True),
        is_causal=cfg.get("is_causal", False),
        **t,  # masks, separate weights, static keys and values
    )


@pytest.mark.parametrize("case", CASES)
def test_parity_with_torch(torch, rng, case):
    cfg = CASES[case]
    arrays = _arrays(rng, cfg)
    floats = [k for k, v in arrays.items() if v.dtype.kind == "f"]
    mine = {k: mg.tensor(v, requires_grad=k in floats) for k, v in arrays.items()}
    theirs = {k: torch.tensor(v, requires_grad=k in floats) for k, v in arrays.items()}
    out, w = _call(mg, mine, cfg)
    ref_out, ref_w = _call(torch, theirs, cfg)

    assert (ref_w is None) == (not cfg.get("need_weights", True))
    backward_attention_both(torch, rng, out, w, ref_out, ref_w, TOL)
    for name in floats:
        if theirs[name].grad is None:  # not used (key and value beside static_k / static_v)
            assert mine[name].grad is None, name
            continue
        ref_grad = theirs[name].grad.numpy()
        np.testing.assert_allclose(mine[name].grad.numpy(), ref_grad, **TOL, err_msg=name)


def test_float32_close_to_torch(torch, rng):
    arrays = _arrays(rng, dict(attn_mask="float2d", key_padding_mask="float"))
    mine = {
        k: mg.tensor(v.astype(np.float32) if v.dtype.kind == "f" else v) for k, v in arrays.items()
    }
    theirs = {k: torch.tensor(v.numpy()) for k, v in mine.items()}
    out, w = _call(mg, mine, {})
    ref_out, ref_w = _call(torch, theirs, {})
    assert out.dtype == mg.float32 and w.dtype == mg.float32
    # inputs of size 1 and weights of size 1/2: values of size ~10, float32 eps 1.2e-7,
    # a few hundred roundings on the way
    np.testing.assert_allclose(out.numpy(), ref_out.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(w.numpy(), ref_w.numpy(), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ finite differences
@pytest.mark.parametrize("need_weights", [True, False])
def test_gradcheck_inputs_weights_and_float_mask(rng, need_weights):
    cfg = dict(bias_kv=(E,), add_zero_attn=True, attn_mask="float2d")
    arrays = _arrays(rng, cfg)
    names = list(arrays)
    leaves = [mg.tensor(arrays[k], requires_grad=True) for k in names]
    kpm = mg.tensor(np.array([[False] * S, [False, True] * (S // 2), [True] * S]))

    cfg["need_weights"] = need_weights

    def fn(*values):
        out, w = _call(mg, dict(zip(names, values), key_padding_mask=kpm), cfg)
        return out if w is None else (out, w)

    assert mg.gradcheck(fn, leaves)


def test_gradcheck_static_keys_and_separate_weights(rng):
    cfg = dict(static=True, separate=True, attn_mask="float3d")
    arrays = _arrays(rng, cfg)
    # key, value, W_k and W_v only give shapes beside static_k / static_v: constants
    fixed = {
        k: mg.tensor(arrays.pop(k)) for k in ("key", "value", "k_proj_weight", "v_proj_weight")
    }
    names = list(arrays)

    def fn(*values):
        return _call(mg, dict(zip(names, values), **fixed), cfg)

    assert mg.gradcheck(fn, [mg.tensor(arrays[k], requires_grad=True) for k in names])


# ------------------------------------------------------------------ dropout
def _self_attention(rng, **kw):
    x = mg.tensor(rng.standard_normal((L, N, E)))
    w_in, w_out = mg.tensor(rng.standard_normal((3 * E, E))), mg.tensor(rng.standard_normal((E, E)))
    b_out = mg.tensor(rng.standard_normal(E))
    return lambda **more: F.multi_head_attention_forward(
        x,
        x,
        x,
        E,
        H,
        w_in,
        None,
        None,
        None,
        False,
        **kw,
        **more,
        out_proj_weight=w_out,
        out_proj_bias=b_out,
    ), b_out


def test_dropout_only_in_training_and_reproducible(rng):
    call, _ = _self_attention(rng, dropout_p=0.5)
    plain, _ = call(training=False)
    mg.manual_seed(3)
    a, wa = call(training=True)
    mg.manual_seed(3)
    b, wb = call(training=True)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.allclose(a.numpy(), plain.numpy())
    # the returned weights are the dropped ones (as PyTorch's): each 0 or 2x a kept weight
    mg.manual_seed(3)
    _, w_heads = call(training=True, average_attn_weights=False)
    _, w_eval = call(training=False, average_attn_weights=False)
    dropped = w_heads.numpy()
    assert (np.isclose(dropped, 0.0) | np.isclose(dropped, 2 * w_eval.numpy())).all()
    assert (dropped == 0).any()


def test_dropout_of_every_weight_leaves_the_output_bias(rng):
    call, b_out = _self_attention(rng, dropout_p=1.0)
    for need_weights in (True, False):
        out, _ = call(training=True, need_weights=need_weights)
        np.testing.assert_allclose(out.numpy(), np.broadcast_to(b_out.numpy(), (L, N, E)))


# ------------------------------------------------------------------ the module
@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention_is_the_function_with_its_parameters(rng, batch_first):
    mha = nn.MultiheadAttention(E, H, add_bias_kv=True, batch_first=batch_first, dtype=mg.float64)
    mha.eval()
    q, k = rng.standard_normal((L, N, E)), rng.standard_normal((S, N, E))
    mask = mg.tensor(rng.standard_normal((L, S)))
    out, w = F.multi_head_attention_forward(
        mg.tensor(q), mg.tensor(k), mg.tensor(k), E, H, mha.in_proj_weight, mha.in_proj_bias,
        mha.bias_k, mha.bias_v, False, 0.0, mha.out_proj.weight, mha.out_proj.bias,
        training=False, attn_mask=mask,
    )  # fmt: skip
    if batch_first:
        q, k = q.transpose(1, 0, 2), k.transpose(1, 0, 2)
    out_m, w_m = mha(mg.tensor(q), mg.tensor(k), mg.tensor(k), attn_mask=mask)
    if batch_first:
        out_m = out_m.transpose(0, 1)
    np.testing.assert_allclose(out_m.numpy(), out.numpy(), **TOL)
    np.testing.assert_allclose(w_m.numpy(), w.numpy(), **TOL)


# ------------------------------------------------------------------ bad input
def _good():
    z = np.zeros
    return dict(
        query=z((L, N, E)), key=z((S, N, E)), value=z((S, N, E)), embed_dim_to_check=E,
        num_heads=H, in_proj_weight=z((3 * E, E)), in_proj_bias=z(3 * E), bias_k=None,
        bias_v=None, add_zero_attn=False, dropout_p=0.0, out_proj_weight=z((E, E)),
        out_proj_bias=z(E), training=False,
    )  # fmt: skip


def _separate(k_width=E):
    return dict(
        use_separate_proj_weight=True, in_proj_weight=None, q_proj_weight=np.zeros((E, E)),
        k_proj_weight=np.zeros((E, k_width)), v_proj_weight=np.zeros((E, E)),
    )  # fmt: skip


#: bad input -> (PyTorch's exception class, a piece of minigrad's message)
BAD = {
    "query_4d": (dict(query=np.zeros((1, L, N, E))), AssertionError, "query must be 3-D"),
    "key_2d": (dict(key=np.zeros((S, E))), AssertionError, "key must have as many dims"),
    "embed_dim_to_check": (dict(embed_dim_to_check=E + 1), AssertionError, "embed_dim=5"),
    "heads_do_not_divide": (dict(num_heads=3), AssertionError, "divisible by num_heads"),
    "key_value_lengths": (dict(value=np.zeros((S + 1, N, E))), AssertionError, "key and value"),
    "batch_sizes": (
        dict(key=np.zeros((S, N + 1, E)), value=np.zeros((S, N + 1, E))),
        RuntimeError,
        "same batch size",
    ),
    "no_in_proj_weight": (dict(in_proj_weight=None), AssertionError, "in_proj_weight is None"),
    "in_proj_weight_shape": (
        dict(in_proj_weight=np.zeros((3 * E, E + 1))),
        RuntimeError,
        r"in_proj_weight must have shape \[12, 4\]",
    ),
    "in_proj_bias_shape": (dict(in_proj_bias=np.zeros(3 * E + 1)), RuntimeError, "in_proj_bias"),
    "out_proj_weight_shape": (
        dict(out_proj_weight=np.zeros((E, E + 1))),
        RuntimeError,
        "out_proj_weight",
    ),
    "separate_weight_missing": (
        dict(use_separate_proj_weight=True),
        AssertionError,
        "q_proj_weight is None",
    ),
    "separate_weight_shape": (_separate(E + 1), AssertionError, "k_proj_weight must have shape"),
    "bias_k_alone": (dict(bias_k=np.zeros(E)), AssertionError, "bias_k is set but bias_v"),
    "bias_k_shape": (
        dict(bias_k=np.zeros((2, E)), bias_v=np.zeros((2, E))),
        RuntimeError,
        "bias_k must have shape",
    ),
    "attn_mask_2d_shape": (dict(attn_mask=np.zeros((L, S + 1))), RuntimeError, r"\[L, S\]"),
    "attn_mask_3d_shape": (dict(attn_mask=np.zeros((H, L, S))), RuntimeError, r"\[6, 5, 6\]"),
    "attn_mask_1d": (dict(attn_mask=np.zeros(S)), AssertionError, "must be 2-D"),
    "attn_mask_int": (
        dict(attn_mask=np.zeros((L, S), np.int64)),
        AssertionError,
        "attn_mask must be a bool or floating-point",
    ),
    "key_padding_mask_shape": (
        dict(key_padding_mask=np.zeros((N, S + 1), bool)),
        AssertionError,
        r"key_padding_mask must have shape \[3, 6\]",
    ),
    "key_padding_mask_int": (
        dict(key_padding_mask=np.zeros((N, S), np.int64)),
        AssertionError,
        "key_padding_mask must be a bool or floating-point",
    ),
    "static_k_heads": (dict(static_k=np.zeros((N * H + 1, S, HD))), AssertionError, "static_k"),
    "static_k_head_dim": (dict(static_k=np.zeros((N * H, S, HD + 1))), AssertionError, "static_k"),
    "static_k_with_bias_k": (
        dict(static_k=np.zeros((N * H, S, HD)), bias_k=np.zeros(E), bias_v=np.zeros(E)),
        AssertionError,
        "cannot be added",
    ),
    "static_k_longer_than_value": (
        dict(static_k=np.zeros((N * H, S + 2, HD))),
        RuntimeError,
        "as many positions",
    ),
    "static_k_and_attn_mask_lengths": (
        dict(
            static_k=np.zeros((N * H, S + 2, HD)),
            static_v=np.zeros((N * H, S + 2, HD)),
            attn_mask=np.zeros((L, S + 2)),
        ),
        RuntimeError,
        r"\[L, S\]",
    ),
    "dropout_p": (dict(dropout_p=1.5, training=True), ValueError, r"dropout_p must be in \[0, 1\]"),
    "key_dtype": (dict(key=np.zeros((S, N, E), np.float32)), RuntimeError, "same dtype"),
}


def _bad_call(lib, case):
    kwargs = _good() | BAD[case][0]
    convert = mg.tensor if lib is mg else lib.tensor
    args = {k: convert(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    return lib.nn.functional.multi_head_attention_forward(**args)


@pytest.mark.parametrize("case", BAD)
def test_bad_input_raises_pytorchs_class(case):
    _, error, message = BAD[case]
    with pytest.raises(error, match=message):
        _bad_call(mg, case)


@pytest.mark.parametrize("case", BAD)
def test_pytorch_raises_the_same_class(torch, case):
    with pytest.raises(BAD[case][1]):
        _bad_call(torch, case)


def test_the_same_inputs_without_the_fault_run():
    out, w = F.multi_head_attention_forward(**{
        k: mg.tensor(v) if isinstance(v, np.ndarray) else v for k, v in _good().items()
    })  # fmt: skip
    assert out.shape == (L, N, E) and w.shape == (N, L, S)
