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
    assert [r.verdict for r in rows] == ["exact", "approximate", "wrong", "wrong"]
    assert rows[0].max_diff == 0.0
    assert rows[2].max_diff == pytest.approx(0.01)


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
