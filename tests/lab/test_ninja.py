"""The backprop-ninja helper: the model's tensors, and the comparison table's verdicts."""

import numpy as np
import pytest

from minigrad.lab import ninja


@pytest.fixture(scope="module")
def model():
    batch = ninja.make_batch(seed=0)
    tensors, loss = ninja.forward(ninja.make_params(seed=0), batch)
    loss.backward()
    return batch, tensors, loss


def test_forward_names_every_step_with_its_shape_and_a_kept_gradient(model):
    batch, t, loss = model
    n = batch["x"].shape[0]
    assert t["emb"].shape == (n, ninja.CONTEXT, ninja.EMBED)
    assert t["hpre"].shape == (n, ninja.HIDDEN) and t["mean"].shape == (1, ninja.HIDDEN)
    assert t["logp"].shape == (n, ninja.VOCAB)
    assert all(tensor.grad is not None for tensor in t.values())
    # the chain is a real cross-entropy: exp(logp) sums to 1, the loss is its mean NLL
    probs = np.exp(t["logp"].detach().numpy())
    assert np.allclose(probs.sum(1), 1.0)
    expected = -np.log(probs[np.arange(n), batch["y"]]).mean()
    assert loss.item() == pytest.approx(expected, rel=1e-12)


def test_the_batch_norm_step_standardizes_each_channel(model):
    _, t, _ = model
    xhat = t["xhat"].detach().numpy()
    assert np.allclose(xhat.mean(0), 0.0, atol=1e-12)
    assert np.allclose(xhat.var(0), 1.0, atol=1e-3)  # up to eps


def test_compare_tells_exact_approximate_wrong_and_shape_apart(model):
    _, t, _ = model
    ref = t["h"].grad.numpy()
    rows = ninja.compare(
        {"h": ref.copy(), "hact": t["hact"].grad.numpy() * (1 + 1e-12),
         "logits": t["logits"].grad.numpy() + 0.01, "xhat": ref[:, :3]},
        t,
    )  # fmt: skip
    assert [r.name for r in rows] == ["h", "hact", "logits", "xhat"]  # the caller's order
    assert [r.verdict for r in rows] == ["exact", "approximate", "wrong", "wrong shape"]
    assert rows[0].max_diff == 0.0
    assert rows[2].max_diff == pytest.approx(0.01)
    assert rows[3].shapes == ((32, 3), (32, 16))


def test_the_table_says_wrong_shape_with_both_shapes_and_what_exact_means(model):
    _, t, _ = model
    rows = ninja.compare({"b2": t["b2"].grad.numpy()[None, :], "b1": t["b1"].grad.numpy()}, t)
    table = ninja.format_table(rows)
    assert "wrong shape: yours (1, 12), autograd's (12,)" in table
    assert "inf" not in table
    assert "bit-equal to minigrad's own autograd" in table and "PyTorch" in table
    assert "bit-equal" not in ninja.format_table(rows, legend=False)


def test_a_near_zero_true_gradient_is_flagged(model):
    # b1 is added right before BatchNorm subtracts the batch mean: its true gradient is
    # zero up to rounding, so any near-zero answer is "approximate"
    _, t, _ = model
    assert np.abs(t["b1"].grad.numpy()).max() < 1e-15
    (row,) = ninja.compare({"b1": np.zeros(ninja.HIDDEN)}, t)
    assert row.verdict == "approximate" and row.near_zero
    assert "true gradient ~0" in ninja.format_table([row])
    (row,) = ninja.compare({"h": t["h"].grad.numpy()}, t)
    assert not row.near_zero and "~0" not in ninja.format_table([row])


def test_layer_norm_forward_takes_statistics_per_example():
    batch = ninja.make_batch(seed=0)
    t, loss = ninja.forward(ninja.make_params(seed=0), batch, norm="layer")
    xhat = t["xhat"].detach().numpy()
    assert t["mean"].shape == (32, 1) and t["rstd"].shape == (32, 1)
    assert np.allclose(xhat.mean(1), 0.0, atol=1e-12)
    loss.backward()
    assert np.abs(t["b1"].grad.numpy()).max() > 1e-3  # no longer cancelled by the norm
    with pytest.raises(ValueError, match="norm"):
        ninja.forward(ninja.make_params(seed=0), batch, norm="group")


def test_forward_without_grad_records_nothing():
    import minigrad as mg

    with mg.no_grad():
        t, loss = ninja.forward(ninja.make_params(seed=0), ninja.make_batch(seed=0))
    assert loss.grad_fn is None and np.isfinite(loss.item())


def test_the_names_corpus_is_shipped_with_its_source_and_status():
    names = ninja.load_names()
    assert len(names) == 5163 and len(set(names)) == len(names)
    assert names[:3] == ["mary", "james", "patricia"]
    assert all(name.isalpha() and name.islower() and name.isascii() for name in names)
    notice = (ninja.NAMES.parent / "README.md").read_text(encoding="utf-8")
    assert "1990 Census" in notice and "public domain" in notice.lower()
    assert ninja.NAMES.stat().st_size < 100_000


def test_make_dataset_pads_with_dots_and_ends_each_name():
    data = ninja.make_dataset(["ann", "bo"], context=3)
    itos = data["itos"]
    assert itos == [".", "a", "b", "n", "o"]
    as_text = ["".join(itos[i] for i in x) + ">" + itos[y] for x, y in zip(data["x"], data["y"])]
    assert as_text == ["...>a", "..a>n", ".an>n", "ann>.", "...>b", "..b>o", ".bo>."]


def test_compare_rejects_a_name_that_is_not_a_tensor_of_the_model(model):
    _, t, _ = model
    with pytest.raises(KeyError, match="hidden"):
        ninja.compare({"hidden": np.zeros(3)}, t)


def test_format_table_has_one_line_per_row_and_says_yes_or_no(model):
    _, t, _ = model
    rows = ninja.compare({"h": t["h"].grad.numpy(), "logits": np.zeros((32, 12))}, t)
    lines = ninja.format_table(rows).splitlines()
    assert lines[0].split() == ["tensor", "exact", "approx", "max", "diff"]
    assert lines[1].split()[:3] == ["h", "yes", "yes"]
    assert lines[2].split()[:3] == ["logits", "no", "no"]
