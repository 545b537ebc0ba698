"""training-stats at quick size (60 steps): what the stream and the gradients do while
the three placements train. The claim is partly supported: post-norm's stream stays
near 1 and pre-norm's grows with depth, but with no norm the stream ends *smaller* than
pre-norm's and the blocks' gradients are *more even*; these tests pin both parts."""

import numpy as np

from minigrad.lab import training_stats

EXPERIMENT = "training-stats"


def test_verdict_names_the_parts_that_hold_and_those_that_do_not(result):
    passed = {c.statement: c.passed for c in result.checks}
    assert result.verdict == "partly supported"
    assert passed[
        "post-norm: the stream's RMS stays within 0.5 to 2 after every block at every step"
    ]
    assert passed[
        "pre-norm: the stream is larger after the last block than after the first at every step"
    ]
    assert not passed["no norm: the last block's stream ends larger than pre-norm's"]
    assert not passed["no norm: the blocks' gradient norms are more uneven than pre-norm's"]


def test_statistics_are_recorded_per_layer_and_step_for_every_model(result):
    for run in result.data["runs"].values():
        steps = run["steps"]
        assert steps[0] == 1 and all(s % training_stats.EVERY == 0 for s in steps[1:])
        assert run["stream_rms"].shape == (training_stats.DEPTH + 1, len(steps))
        assert (
            run["grad_norm"].shape == run["update_rms"].shape == (training_stats.DEPTH, len(steps))
        )
        assert np.all(np.isfinite(run["grad_norm"])) and np.isfinite(run["loss"])


def test_pre_norm_stream_grows_during_training(result):
    pre = result.data["runs"]["pre-norm"]["stream_rms"]
    assert pre[-1, -1] > 2 * pre[-1, 0]  # the last block's stream, end against start


def test_one_figure_per_quantity(result):
    names = {f.name for f in result.files}
    for q in ("stream-rms", "update-rms", "grad-norm"):
        assert f"training-stats-{q}.png" in names
    assert "training-stats.csv" in names
