"""F.scaled_dot_product_attention and nn.MultiheadAttention.

References: a NumPy reference of the attention formula (always), PyTorch (parity of
outputs, attention weights, input and parameter gradients, in float64), and finite
differences (gradcheck, gradgradcheck).
"""

import numpy as np
import pytest
from module_parity import backward_attention_both

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F

TOL = dict(rtol=1e-10, atol=1e-12)  # float64 parity


def np_attention(q, k, v, allow=None, add=None, scale=None):
    """softmax(q k^T * scale + add, masked where not allow) v, in plain NumPy."""
    scale = 1.0 / np.sqrt(q.shape[-1]) if scale is None else scale
    s = np.einsum("...le,...se->...ls", q, k) * scale
    if add is not None:
        s = s + add
    if allow is not None:
        s = np.where(allow, s, -np.inf)
    w = np.exp(s - s.max(-1, keepdims=True))
    w = w / w.sum(-1, keepdims=True)
    return np.einsum("...ls,...se->...le", w, v)


def tensors(rng, *shapes, requires_grad=True):
    return [mg.tensor(rng.standard_normal(s), requires_grad=requires_grad) for s in shapes]


# ====================================================================== SDPA: forward
def test_sdpa_matches_numpy_reference(rng):
    q, k, v = tensors(rng, (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7))
    out = F.scaled_dot_product_attention(q, k, v)
    assert out.shape == (2, 3, 4, 7)
    np.testing.assert_allclose(out.numpy(), np_attention(q.numpy(), k.numpy(), v.numpy()), **TOL)


def test_sdpa_bool_mask_true_means_may_attend(rng):
    q, k, v = tensors(rng, (3, 4), (5, 4), (5, 2))
    allow = rng.random((3, 5)) > 0.4
    allow[:, 0] = True
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mg.tensor(allow))
    np.testing.assert_allclose(
        out.numpy(), np_attention(q.numpy(), k.numpy(), v.numpy(), allow=allow), **TOL
    )
    # a blocked key does not influence the output: change its value, nothing moves
    v2 = v.numpy().copy()
    blocked_everywhere = ~allow.any(0)
    v2[blocked_everywhere] += 100.0
    out2 = F.scaled_dot_product_attention(q, k, mg.tensor(v2), attn_mask=mg.tensor(allow))
    np.testing.assert_allclose(out2.numpy(), out.numpy(), **TOL)


def test_sdpa_float_mask_is_added_and_causal_is_lower_triangular(rng):
    q, k, v = tensors(rng, (2, 4, 3), (2, 6, 3), (2, 6, 3))
    add = rng.standard_normal((4, 6))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mg.tensor(add))
    np.testing.assert_allclose(
        out.numpy(), np_attention(q.numpy(), k.numpy(), v.numpy(), add=add), **TOL
    )
    causal = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.3)
    allow = np.tril(np.ones((4, 6), bool))  # top-left aligned, like PyTorch
    expected = np_attention(q.numpy(), k.numpy(), v.numpy(), allow=allow, scale=0.3)
    np.testing.assert_allclose(causal.numpy(), expected, **TOL)


def test_sdpa_broadcasts_batch_dims(rng):
    q, k, v = tensors(rng, (2, 1, 4, 3), (1, 5, 6, 3), (6, 2))
    out = F.scaled_dot_product_attention(q, k, v)
    assert out.shape == (2, 5, 4, 2)
    out.sum().backward()
    assert q.grad.shape == q.shape and k.grad.shape == k.shape and v.grad.shape == v.shape


def test_sdpa_fully_masked_row_gives_zeros_and_no_gradient(rng):
    q, k, v = tensors(rng, (3, 4), (5, 4), (5, 2))
    allow = np.ones((3, 5), bool)
    allow[1] = False  # query 1 may attend nowhere
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mg.tensor(allow))
    assert np.isfinite(out.numpy()).all()
    np.testing.assert_array_equal(out.numpy()[1], 0.0)
    (out * mg.tensor(rng.standard_normal(out.shape))).sum().backward()
    np.testing.assert_array_equal(q.grad.numpy()[1], 0.0)
    assert np.isfinite(k.grad.numpy()).all() and np.isfinite(v.grad.numpy()).all()
    # float -inf masks behave the same
    add = np.where(allow, 0.0, -np.inf)
    out_f = F.scaled_dot_product_attention(q, k, v, attn_mask=mg.tensor(add))
    np.testing.assert_allclose(out_f.numpy(), out.numpy(), **TOL)


# ==================================================================== SDPA vs PyTorch
SDPA_CASES = {
    "no_mask": dict(),
    "bool_2d": dict(mask="bool", mshape=(4, 6)),
    "bool_broadcast": dict(mask="bool", mshape=(2, 1, 4, 6)),
    "float_2d": dict(mask="float", mshape=(4, 6)),
    "float_grad": dict(mask="float", mshape=(3, 4, 6), mask_grad=True),
    "causal": dict(is_causal=True),
    "scale": dict(scale=0.7, mask="bool", mshape=(4, 6)),
}


@pytest.mark.parametrize("case", SDPA_CASES)
def test_sdpa_parity_with_torch(torch, rng, case):
    cfg = SDPA_CASES[case]
    arrays = [rng.standard_normal(s) for s in ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7))]
    mask = None
    if cfg.get("mask") == "bool":
        mask = rng.random(cfg["mshape"]) > 0.3
        mask[..., 0] = True
    elif cfg.get("mask") == "float":
        mask = rng.standard_normal(cfg["mshape"])
    mg_in = [mg.tensor(a, requires_grad=True) for a in arrays]
    th_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    mg_mask = th_mask = None
    if mask is not None:
        mg_mask = mg.tensor(mask, requires_grad=cfg.get("mask_grad", False))
        th_mask = torch.tensor(mask, requires_grad=cfg.get("mask_grad", False))
    kw = dict(is_causal=cfg.get("is_causal", False), scale=cfg.get("scale"))
    out = F.scaled_dot_product_attention(*mg_in, attn_mask=mg_mask, **kw)
    ref = torch.nn.functional.scaled_dot_product_attention(*th_in, attn_mask=th_mask, **kw)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), **TOL)
    g = rng.standard_normal(out.shape)
    out.backward(mg.tensor(g))
    ref.backward(torch.tensor(g))
    for a, b in zip(mg_in, th_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), **TOL)
    if cfg.get("mask_grad"):
        np.testing.assert_allclose(mg_mask.grad.numpy(), th_mask.grad.numpy(), **TOL)


def test_sdpa_float32_close_to_torch(torch, rng):
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((4, 8, 16),) * 3]
    out = F.scaled_dot_product_attention(*[mg.tensor(a) for a in arrays], is_causal=True)
    ref = torch.nn.functional.scaled_dot_product_attention(
        *[torch.tensor(a) for a in arrays], is_causal=True
    )
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)


# ==================================================================== SDPA: gradients
@pytest.mark.parametrize("mask", ["none", "bool", "float_grad", "causal", "dead_row"])
def test_sdpa_gradcheck(rng, mask):
    q, k, v = tensors(rng, (2, 3, 4), (2, 5, 4), (2, 5, 3))
    inputs = [q, k, v]
    kw = {}
    if mask == "bool" or mask == "dead_row":
        allow = rng.random((3, 5)) > 0.3
        allow[:, 1] = True
        if mask == "dead_row":
            allow[2] = False
        kw["attn_mask"] = mg.tensor(allow)
    elif mask == "causal":
        kw["is_causal"] = True
    if mask == "float_grad":
        inputs.append(mg.tensor(rng.standard_normal((3, 5)), requires_grad=True))

        def fn(q, k, v, m):
            return F.scaled_dot_product_attention(q, k, v, attn_mask=m)
    else:

        def fn(q, k, v):
            return F.scaled_dot_product_attention(q, k, v, **kw)

    assert mg.gradcheck(fn, inputs)


@pytest.mark.parametrize("mask", ["bool", "float_grad", "dropout"])
def test_sdpa_gradgradcheck(rng, mask):
    q, k, v = tensors(rng, (2, 3, 4), (2, 4, 4), (2, 4, 2))
    allow = rng.random((3, 4)) > 0.3
    allow[:, 0] = True
    inputs = [q, k, v]
    if mask == "float_grad":
        inputs.append(mg.tensor(rng.standard_normal((3, 4)), requires_grad=True))

        def fn(q, k, v, m):
            return F.scaled_dot_product_attention(q, k, v, attn_mask=m)
    elif mask == "dropout":  # the same dropout mask on every call: reseed inside

        def fn(q, k, v):
            mg.manual_seed(5)
            return F.scaled_dot_product_attention(q, k, v, dropout_p=0.3)
    else:

        def fn(q, k, v):
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mg.tensor(allow))

    assert mg.gradgradcheck(fn, inputs)


# ===================================================================== SDPA: dropout
def test_sdpa_dropout_statistics_and_scaling(rng):
    # with V = identity the output is the (dropped-out) attention weights themselves
    L = S = 64
    q, k = tensors(rng, (8, L, 4), (8, S, 4), requires_grad=False)
    eye = mg.tensor(np.eye(S))
    p = 0.25
    plain = F.scaled_dot_product_attention(q, k, eye).numpy()
    mg.manual_seed(1)
    dropped = F.scaled_dot_product_attention(q, k, eye, dropout_p=p).numpy()
    zero = dropped == 0
    assert abs(zero.mean() - p) < 0.01  # 32,768 draws: 5 standard deviations ~ 0.012
    np.testing.assert_allclose(dropped[~zero], plain[~zero] / (1 - p), **TOL)


def test_sdpa_dropout_reproducible_with_manual_seed(rng):
    q, k, v = tensors(rng, (4, 8, 4), (4, 8, 4), (4, 8, 4))
    mg.manual_seed(7)
    a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).numpy()
    mg.manual_seed(7)
    b = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).numpy()
    c = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_sdpa_dropout_gradient_uses_the_same_mask(rng):
    q, k, v = tensors(rng, (4, 6, 3), (4, 6, 3), (4, 6, 3))

    def fn(q, k, v):
        mg.manual_seed(11)
        return F.scaled_dot_product_attention(q, k, v, dropout_p=0.4)

    assert mg.gradcheck(fn, [q, k, v])


# ================================================= SDPA: the fused kernels (float32)
def _composite_attention(q, k, v, allow, add, keep, scale):
    """The attention formula from plain Tensor operations (autograd differentiates it):
    the independent reference for the kernels' forward and backward."""
    s = (q @ k.mT) * scale
    if add is not None:
        s = s + mg.tensor(add)
    if allow is not None:
        s = s.masked_fill(mg.tensor(~allow), -np.inf)
    p = s.softmax(-1)
    if keep is not None:
        p = p * mg.tensor(keep)
    return p @ v


@pytest.mark.parametrize(
    "L, S, kind",
    [(37, 37, "causal"), (5, 40, "causal"), (40, 5, "causal"), (33, 20, "bias"), (18, 18, "both")],
)
def test_sdpa_float32_kernels_match_composite_graph(rng, L, S, kind):
    """Rows of every length around the kernels' 16-wide steps, causal rows shorter and
    longer than S, a broadcast float mask, dropout: output and every gradient."""
    shapes = ((2, 3, L, 16), (2, 3, S, 16), (2, 3, S, 8))
    arrays = [rng.standard_normal(sh).astype(np.float32) for sh in shapes]
    causal = kind in ("causal", "both")
    add = rng.standard_normal((1, 3, L, S)).astype(np.float32) if kind != "causal" else None
    p = 0.3 if kind == "both" else 0.0
    mine = [mg.tensor(a, requires_grad=True) for a in arrays]
    mg.manual_seed(3)
    out = F.scaled_dot_product_attention(
        *mine, attn_mask=None if add is None or causal else mg.tensor(add), dropout_p=p,
        is_causal=causal,
    )  # fmt: skip
    keep = None
    if p > 0:  # the same draws the function made
        mg.manual_seed(3)
        keep = F.dropout(mg.ones(2, 3, L, S), p).numpy().astype(np.float64)
    ref_in = [mg.tensor(a.astype(np.float64), requires_grad=True) for a in arrays]
    allow = np.tril(np.ones((L, S), bool)) if causal else None
    ref = _composite_attention(
        *ref_in, allow, None if causal else add, keep, 1 / 4.0
    )  # scale 1/sqrt(16)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-4, atol=2e-6)
    g = rng.standard_normal(out.shape)
    out.backward(mg.tensor(g.astype(np.float32)))
    ref.backward(mg.tensor(g))
    for a, b in zip(mine, ref_in):
        assert a.grad.dtype == np.float32
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_sdpa_same_bits_from_run_to_run(rng):
    """Forward and backward give the same bits when run again (the softmax kernels run on
    the calling thread; the products are OpenBLAS's, whose bits can change with its
    thread count: a [128, 128] @ [128, 32] product differs in the last bit between 1 and
    2 threads on the 2-core AMD EPYC machines of 2026-12-02, so only a fixed count is compared)."""
    shapes = ((2, 4, 128, 32), (2, 4, 128, 32), (2, 4, 128, 32))
    arrays = [rng.standard_normal(sh).astype(np.float32) for sh in shapes]
    g = mg.tensor(rng.standard_normal(shapes[0]).astype(np.float32))
    results = []
    for _ in range(2):
        ts = [mg.tensor(a, requires_grad=True) for a in arrays]
        out = F.scaled_dot_product_attention(*ts, is_causal=True)
        out.backward(g)
        results.append([out.numpy()] + [t.grad.numpy() for t in ts])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_nan_score_makes_its_row_nan_in_float32_as_in_float64(rng, causal):
    """A NaN in one key makes the scores that read it NaN: the float32 kernel (its own
    exp) gives the rows the float64 kernel (libm's exp) gives: NaN rows, not a NaN score
    treated as masked."""
    x = rng.standard_normal((1, 2, 6, 16))
    x[0, 1, 2, 5] = np.nan  # key / value 2 of head 1
    outs = []
    for dtype in (np.float64, np.float32):
        t = mg.tensor(x.astype(dtype))
        outs.append(F.scaled_dot_product_attention(t, t, t, is_causal=causal).numpy())
    nan64, nan32 = np.isnan(outs[0]), np.isnan(outs[1])
    np.testing.assert_array_equal(nan32, nan64)
    assert nan64[0, 1, 3:].all() and not nan64[0, 0].any()  # later queries see key 2
    np.testing.assert_allclose(outs[1][~nan32], outs[0][~nan64], rtol=1e-5, atol=1e-6)


def test_sdpa_output_keeps_the_query_memory_order(rng):
    """Heads split from an (N, L, H, hd) array come back in that order: merging them is
    a view (MultiheadAttention relies on it)."""
    x = rng.standard_normal((2, 5, 3, 4)).astype(np.float32)  # (N, L, H, hd)
    q = mg.tensor(x).permute(0, 2, 1, 3)  # (N, H, L, hd), a view
    out = F.scaled_dot_product_attention(q, q, q)
    merged = out.permute(0, 2, 1, 3).numpy()
    assert merged.flags.c_contiguous


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sdpa_with_no_keys_gives_zeros_as_pytorch(rng, dtype):
    # PyTorch 2.13: an empty softmax row reads nothing, the output and dQ are zeros
    q = mg.tensor(rng.standard_normal((2, 3, 4)).astype(dtype), requires_grad=True)
    k = mg.tensor(np.zeros((2, 0, 4), dtype), requires_grad=True)
    v = mg.tensor(np.zeros((2, 0, 5), dtype), requires_grad=True)
    out = F.scaled_dot_product_attention(q, k, v)
    assert out.shape == (2, 3, 5) and out.dtype == dtype
    np.testing.assert_array_equal(out.numpy(), 0.0)
    out.sum().backward()
    np.testing.assert_array_equal(q.grad.numpy(), 0.0)
    assert k.grad.shape == (2, 0, 4) and v.grad.shape == (2, 0, 5)


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_with_no_keys_as_pytorch(torch, rng, need_weights):
    ref, mine = _mha_pair(torch, embed_dim=4, num_heads=2, batch_first=True)
    with torch.no_grad():
        ref.out_proj.bias.copy_(torch.tensor([0.1, -0.2, 0.3, 0.4]))
    mine.load_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    x = rng.standard_normal((2, 3, 4))
    empty = np.zeros((2, 0, 4))
    out, w = mine(mg.tensor(x), mg.tensor(empty), mg.tensor(empty), need_weights=need_weights)
    ref_out, ref_w = ref(torch.tensor(x), torch.tensor(empty), torch.tensor(empty),
                         need_weights=need_weights)  # fmt: skip
    np.testing.assert_allclose(out.numpy(), ref_out.detach().numpy(), **TOL)
    if need_weights:
        assert w.shape == tuple(ref_w.shape) == (2, 3, 0)


def test_mha_trusts_the_is_causal_hint_on_its_fused_path_as_pytorch(torch, rng):
    """PyTorch's fast path (no padding mask, no weights) takes ``is_causal`` as the
    promise that ``attn_mask`` is the causal mask, and uses the causal mask."""
    ref, mine = _mha_pair(torch, embed_dim=8, num_heads=2, batch_first=True)
    x = rng.standard_normal((2, 5, 8))
    wrong = rng.random((5, 5)) > 0.5  # not causal: the hint says it is
    wrong[:, 0] = False
    out, _ = mine(*[mg.tensor(x)] * 3, attn_mask=mg.tensor(wrong), is_causal=True,
                  need_weights=False)  # fmt: skip
    ref_out, _ = ref(*[torch.tensor(x)] * 3, attn_mask=torch.tensor(wrong), is_causal=True,
                     need_weights=False)  # fmt: skip
    np.testing.assert_allclose(out.numpy(), ref_out.detach().numpy(), **TOL)
    causal, _ = mine(*[mg.tensor(x)] * 3, is_causal=True, need_weights=False)
    np.testing.assert_allclose(out.numpy(), causal.numpy(), **TOL)


# ====================================================================== SDPA: errors
def test_sdpa_errors_name_the_argument(rng):
    q, k, v = tensors(rng, (2, 3, 4), (2, 5, 4), (2, 5, 3), requires_grad=False)
    sdpa = F.scaled_dot_product_attention
    with pytest.raises(ValueError, match=r"key must have the query's feature size 4"):
        sdpa(q, mg.randn(2, 5, 3).double(), v)
    with pytest.raises(ValueError, match=r"value must have as many positions as key \(5\)"):
        sdpa(q, k, mg.randn(2, 4, 3).double())
    with pytest.raises(ValueError, match=r"batch dimensions .* query \[2, 3, 4\]"):
        sdpa(q, mg.randn(3, 5, 4).double(), mg.randn(3, 5, 3).double())
    with pytest.raises(ValueError, match=r"attn_mask of shape \[3, 4\] .* \[\.\.\., 3, 5\]"):
        sdpa(q, k, v, attn_mask=mg.ones(3, 4).bool())
    with pytest.raises(TypeError, match=r"attn_mask must be a bool or floating-point"):
        sdpa(q, k, v, attn_mask=mg.tensor(np.ones((3, 5), np.int64)))
    with pytest.raises(ValueError, match=r"attn_mask cannot be given together with is_causal"):
        sdpa(q, k, v, attn_mask=mg.ones(3, 5).bool(), is_causal=True)
    with pytest.raises(ValueError, match=r"dropout_p must be in \[0, 1\]"):
        sdpa(q, k, v, dropout_p=1.5)
    with pytest.raises(ValueError, match=r"query must have at least 2 dims"):
        sdpa(mg.randn(4).double(), k, v)
    with pytest.raises(TypeError, match=r"same dtype"):
        sdpa(q.float(), k, v)


# ================================================================= MultiheadAttention
def _mha_pair(torch, **kw):
    """A torch MultiheadAttention and a minigrad one holding the same float64 weights."""
    ref = torch.nn.MultiheadAttention(**kw).double().eval()
    mine = nn.MultiheadAttention(**kw, dtype=mg.float64).eval()
    state = {k: v.numpy() for k, v in ref.state_dict().items()}
    assert list(mine.state_dict()) == list(state)
    mine.load_state_dict(state)
    return ref, mine


def _layout(shape_nle, batch_first, batched):
    n, length, e = shape_nle
    if not batched:
        return (length, e)
    return (n, length, e) if batch_first else (length, n, e)


MHA_CASES = {
    "self": dict(),
    "self_batch_first": dict(batch_first=True),
    "self_fused_path": dict(batch_first=True, need_weights=False),
    "self_fused_seq_first": dict(need_weights=False, key_padding_mask="bool"),
    "cross": dict(cross=True),
    "cross_batch_first_fused": dict(cross=True, batch_first=True, need_weights=False),
    "kdim_vdim": dict(cross=True, kdim=3, vdim=5, batch_first=True),
    "no_bias": dict(bias=False),
    "key_padding_bool": dict(key_padding_mask="bool"),
    "key_padding_float": dict(key_padding_mask="float", batch_first=True),
    "attn_mask_bool": dict(attn_mask="bool"),
    "attn_mask_float_3d": dict(attn_mask="float3d", batch_first=True),
    "both_masks": dict(attn_mask="bool", key_padding_mask="bool", average=False),
    "causal": dict(attn_mask="causal", is_causal=True, need_weights=False),
    "per_head_weights": dict(average=False, cross=True),
    "bias_kv_zero_attn": dict(add_bias_kv=True, add_zero_attn=True, key_padding_mask="bool"),
    "unbatched": dict(batched=False, attn_mask="bool"),
    "unbatched_cross": dict(batched=False, cross=True, key_padding_mask="bool", average=False),
}


@pytest.mark.parametrize("case", MHA_CASES)
def test_mha_parity_with_torch(torch, rng, case):
    cfg = dict(MHA_CASES[case])
    E, H, N, L, S = 8, 2, 3, 4, 5
    cross = cfg.pop("cross", False)
    if not cross:
        S = L
    batched = cfg.pop("batched", True)
    need_weights = cfg.pop("need_weights", True)
    average = cfg.pop("average", True)
    is_causal = cfg.pop("is_causal", False)
    kpm_kind = cfg.pop("key_padding_mask", None)
    am_kind = cfg.pop("attn_mask", None)
    kw = dict(embed_dim=E, num_heads=H, **cfg)
    ref, mine = _mha_pair(torch, **kw)
    bf = cfg.get("batch_first", False)
    kdim, vdim = cfg.get("kdim", E), cfg.get("vdim", E)

    if cross:
        arrays = [
            rng.standard_normal(_layout((N, L, E), bf, batched)),
            rng.standard_normal(_layout((N, S, kdim), bf, batched)),
            rng.standard_normal(_layout((N, S, vdim), bf, batched)),
        ]
        mg_in = [mg.tensor(a, requires_grad=True) for a in arrays]
        th_in = [torch.tensor(a, requires_grad=True) for a in arrays]
        mg_args, th_args = mg_in, th_in
    else:
        x = rng.standard_normal(_layout((N, L, E), bf, batched))
        mg_in = [mg.tensor(x, requires_grad=True)]
        th_in = [torch.tensor(x, requires_grad=True)]
        mg_args, th_args = mg_in * 3, th_in * 3

    masks = {}
    if kpm_kind:
        kpm = rng.random((N, S) if batched else (S,)) > 0.7
        kpm[..., 0] = False
        masks["key_padding_mask"] = kpm if kpm_kind == "bool" else np.where(kpm, -1e9, 0.3)
    if am_kind == "bool":
        am = rng.random((L, S)) > 0.6
        am[:, 0] = False
        masks["attn_mask"] = am
    elif am_kind == "float3d":
        masks["attn_mask"] = rng.standard_normal((N * H, L, S))
    elif am_kind == "causal":
        masks["attn_mask"] = np.triu(np.ones((L, S), bool), 1)
    call = dict(need_weights=need_weights, average_attn_weights=average, is_causal=is_causal)
    out, w = mine(*mg_args, **{k: mg.tensor(v) for k, v in masks.items()}, **call)
    ref_out, ref_w = ref(*th_args, **{k: torch.tensor(v) for k, v in masks.items()}, **call)

    assert (ref_w is None) == (not need_weights)
    backward_attention_both(torch, rng, out, w, ref_out, ref_w, TOL)
    for a, b in zip(mg_in, th_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), **TOL)
    ref_params = dict(ref.named_parameters())
    for name, p in mine.named_parameters():
        np.testing.assert_allclose(
            p.grad.numpy(), ref_params[name].grad.numpy(), **TOL, err_msg=name
        )


def test_mha_is_causal_without_mask_builds_the_causal_mask(rng):
    mha = nn.MultiheadAttention(8, 2, batch_first=True, dtype=mg.float64)
    x = mg.tensor(rng.standard_normal((2, 5, 8)))
    causal = np.triu(np.ones((5, 5), bool), 1)
    out, _ = mha(x, x, x, is_causal=True, need_weights=False)
    expected, w = mha(x, x, x, attn_mask=mg.tensor(causal))
    np.testing.assert_allclose(out.numpy(), expected.numpy(), **TOL)
    assert (w.numpy()[:, causal] == 0).all()


def test_mha_state_dict_keys_shapes_and_init():
    mha = nn.MultiheadAttention(64, 4)
    shapes = {k: v.shape for k, v in mha.state_dict().items()}
    assert shapes == {
        "in_proj_weight": (192, 64),
        "in_proj_bias": (192,),
        "out_proj.weight": (64, 64),
        "out_proj.bias": (64,),
    }
    bound = np.sqrt(6.0 / (64 + 192))  # xavier_uniform on [3E, E]
    w = mha.in_proj_weight.numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    np.testing.assert_array_equal(mha.in_proj_bias.numpy(), 0.0)
    np.testing.assert_array_equal(mha.out_proj.bias.numpy(), 0.0)
    ow = mha.out_proj.weight.numpy()  # Linear's init: U(-1/sqrt(E), 1/sqrt(E))
    assert np.abs(ow).max() <= 1 / 8 and np.abs(ow).max() > 0.9 / 8
    assert mha.head_dim == 16 and mha.in_proj_weight.dtype == np.float32

    sep = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, bias=False)
    assert {k: v.shape for k, v in sep.state_dict().items()} == {
        "q_proj_weight": (8, 8),
        "k_proj_weight": (8, 3),
        "v_proj_weight": (8, 5),
        "out_proj.weight": (8, 8),
    }
    assert sep.in_proj_weight is None and sep.in_proj_bias is None


def test_mha_loads_torch_state_dict_and_back(torch):
    ref = torch.nn.MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True)
    mine = nn.MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True)
    mine.load_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    back = torch.nn.MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True)
    back.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in mine.state_dict().items()})
    for (k1, v1), (k2, v2) in zip(ref.state_dict().items(), back.state_dict().items()):
        assert k1 == k2
        np.testing.assert_array_equal(v1.numpy(), v2.numpy())


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_gradcheck_input_and_parameters(rng, need_weights):
    mha = nn.MultiheadAttention(4, 2, batch_first=True, dtype=mg.float64)
    x = mg.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    kpm = mg.tensor(np.array([[False, False, True], [False, False, False]]))
    params = list(mha.parameters())

    def fn(x, *params):
        out, w = mha(x, x, x, key_padding_mask=kpm, need_weights=need_weights)
        return out if w is None else out + w @ x  # one output that depends on both

    assert mg.gradcheck(fn, [x, *params])


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_gradcheck_in_training_with_attention_dropout(rng, need_weights):
    mha = nn.MultiheadAttention(4, 2, dropout=0.3, dtype=mg.float64)  # training mode
    x = mg.tensor(rng.standard_normal((3, 2, 4)), requires_grad=True)

    def fn(x, *params):
        mg.manual_seed(4)  # the same dropout mask on every evaluation
        out, w = mha(x, x, x, need_weights=need_weights)
        return out

    assert mg.gradcheck(fn, [x, *mha.parameters()])


def test_mha_gradgradcheck_self_attention(rng):
    mha = nn.MultiheadAttention(4, 2, dtype=mg.float64)
    x = mg.tensor(rng.standard_normal((3, 1, 4)), requires_grad=True)
    causal = mg.tensor(np.triu(np.ones((3, 3), bool), 1))
    assert mg.gradgradcheck(lambda x: mha(x, x, x, attn_mask=causal, need_weights=False)[0], [x])


def test_mha_fully_masked_row_gives_out_proj_bias_and_finite_gradients(rng):
    mha = nn.MultiheadAttention(4, 2, batch_first=True, dtype=mg.float64)
    with mg.no_grad():
        mha.out_proj.bias.copy_(mg.tensor(rng.standard_normal(4)))
    x = mg.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    kpm = mg.tensor(np.array([[False, True, False], [True, True, True]]))  # batch 1: all padded
    for need_weights in (True, False):
        out, w = mha(x, x, x, key_padding_mask=kpm, need_weights=need_weights)
        np.testing.assert_allclose(
            out.numpy()[1], np.broadcast_to(mha.out_proj.bias.numpy(), (3, 4))
        )
        if need_weights:
            np.testing.assert_array_equal(w.numpy()[1], 0.0)
            np.testing.assert_allclose(w.numpy()[0].sum(-1), 1.0)
        x.grad = None
        out.sum().backward()
        assert np.isfinite(x.grad.numpy()).all()
        np.testing.assert_array_equal(x.grad.numpy()[1], 0.0)


def test_mha_dropout_in_training_only(rng):
    mha = nn.MultiheadAttention(8, 2, dropout=0.5, batch_first=True, dtype=mg.float64)
    x = mg.tensor(rng.standard_normal((4, 16, 8)))
    _, w = mha(x, x, x, average_attn_weights=False)
    frac = (w.numpy() == 0).mean()
    assert 0.45 < frac < 0.55  # 4,096 weights
    mha.eval()
    _, w_eval = mha(x, x, x, average_attn_weights=False)
    assert (w_eval.numpy() > 0).all()
    np.testing.assert_allclose(w_eval.numpy().sum(-1), 1.0)
    # reproducible in training with mg.manual_seed, on the fused path too
    mha.train()
    mg.manual_seed(3)
    a, _ = mha(x, x, x, need_weights=False)
    mg.manual_seed(3)
    b, _ = mha(x, x, x, need_weights=False)
    c, _ = mha(x, x, x, need_weights=False)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), c.numpy())


def test_mha_errors_name_the_argument(rng):
    with pytest.raises(ValueError, match=r"embed_dim \(10\) must be divisible by num_heads \(4\)"):
        nn.MultiheadAttention(10, 4)
    mha = nn.MultiheadAttention(8, 2)  # (L, N, E)
    x = mg.randn(5, 3, 8)
    with pytest.raises(ValueError, match=r"query's last dim must be embed_dim=8"):
        mha(mg.randn(5, 3, 6), x, x)
    with pytest.raises(ValueError, match=r"query and key must have the same batch size N"):
        mha(x, mg.randn(5, 2, 8), mg.randn(5, 2, 8))
    with pytest.raises(ValueError, match=r"key and value must have the same batch size"):
        mha(x, x, mg.randn(4, 3, 8))
    with pytest.raises(ValueError, match=r"key must have as many dims as query"):
        mha(x, mg.randn(5, 8), x)
    with pytest.raises(ValueError, match=r"key_padding_mask must have shape \[3, 5\]"):
        mha(x, x, x, key_padding_mask=mg.zeros(5, 3).bool())
    with pytest.raises(ValueError, match=r"2-D attn_mask must have shape \[L, S\] = \[5, 5\]"):
        mha(x, x, x, attn_mask=mg.zeros(5, 4).bool())
    with pytest.raises(ValueError, match=r"3-D attn_mask .* = \[6, 5, 5\], got \[3, 5, 5\]"):
        mha(x, x, x, attn_mask=mg.zeros(3, 5, 5))
    with pytest.raises(TypeError, match=r"key_padding_mask must be a bool or floating-point"):
        mha(x, x, x, key_padding_mask=mg.tensor(np.zeros((3, 5), np.int64)))
