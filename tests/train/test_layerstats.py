"""Per-layer statistics of a training step (``Trainer.train_step(record_stats=True)``)."""

import numpy as np
import pytest

from minigrad.train import TrainConfig, Trainer
from minigrad.train.layerstats import layer_stats

SMALL = dict(task="reverse", length=4, n_layers=3, d_model=32, n_heads=2, d_ff=64,
             batch_size=16, lr=1e-2, warmup_steps=2, eval_interval=1000, steps=6)  # fmt: skip


def test_recording_statistics_does_not_change_the_step():
    plain = Trainer(TrainConfig(**SMALL))
    recorded = Trainer(TrainConfig(**SMALL))
    for _ in range(4):
        a = plain.train_step()
        b = recorded.train_step(record_stats=True)
        assert a["loss"] == b["loss"]
        assert "layers" in b and "layers" not in a


@pytest.mark.parametrize("norm, placement", [("layer", "pre"), ("layer", "post"), ("none", "pre")])
def test_statistics_have_one_value_per_layer_and_measure_the_stream(norm, placement):
    trainer = Trainer(TrainConfig(**SMALL, norm=norm, norm_placement=placement))
    stats = trainer.train_step(record_stats=True)["layers"]
    assert len(stats["stream_rms"]) == 4  # the embeddings, then after each of 3 blocks
    assert len(stats["update_rms"]) == len(stats["grad_norm"]) == 3
    assert all(v > 0 and np.isfinite(v) for vals in stats.values() for v in vals)
    if placement == "post":  # a post-norm block ends in a LayerNorm (weight 1, bias 0)
        assert stats["stream_rms"][1:] == pytest.approx([1.0] * 3, abs=1e-3)


def test_layer_stats_computes_rms_updates_and_gradient_norms_by_hand():
    import minigrad as mg
    import minigrad.nn as nn

    blocks = nn.ModuleList([nn.Linear(2, 2, bias=False)])
    blocks[0].weight.grad = mg.tensor([[3.0, 0.0], [0.0, 4.0]])
    streams = [mg.tensor([[1.0, -1.0]]), mg.tensor([[3.0, 1.0]])]
    stats = layer_stats(blocks, streams)
    assert stats["stream_rms"] == pytest.approx([1.0, np.sqrt(5.0)])
    assert stats["update_rms"] == pytest.approx([2.0])  # the update is [2, 2]
    assert stats["grad_norm"] == pytest.approx([5.0])
    with pytest.raises(ValueError, match="expected 2 streams for 1 blocks, got 1"):
        layer_stats(blocks, streams[:1])


def test_no_norm_config_builds_a_model_without_any_norm():
    trainer = Trainer(TrainConfig(**dict(SMALL, norm="none")))
    names = {type(m).__name__ for m in trainer.model.modules()}
    assert not names & {"LayerNorm", "RMSNorm"}
