"""norm-cost: parameters exactly; time only as a measured ratio, never asserted."""

from minigrad.lab import norm_cost

EXPERIMENT = "norm-cost"


def test_rms_norm_has_half_the_parameters(result):
    for m in result.data["measured"]:
        assert m["params"] == {"LayerNorm": 2 * m["width"], "RMSNorm": m["width"]}
    assert result.checks[0].passed


def test_every_timing_is_measured_and_reported(result):
    # Time is measured, not asserted (the guide): the checks exist and carry the ratios.
    for m in result.data["measured"]:
        assert len(m["times"]) == 4 and all(t > 0 for t in m["times"].values())
    statements = [c.statement for c in result.checks]
    assert statements[1:] == [
        "RMSNorm's forward takes less time at widths 256, 1024",
        "RMSNorm's forward + backward takes less time at widths 256, 1024",
    ]
    # The narrow width is measured and reported, not claimed.
    assert result.data["measured"][0]["width"] == norm_cost.NARROW
    assert any(f"at width {norm_cost.NARROW} the ratios are" in n for n in result.notes)


def test_time_pair_times_both_layers_in_both_phases():
    import minigrad as mg
    import minigrad.nn as nn

    x = mg.randn(4, 8, requires_grad=True)
    times = norm_cost.time_pair(nn.LayerNorm(8), nn.RMSNorm(8), x, repeats=2)
    assert set(times) == {(layer, phase) for layer in ("LayerNorm", "RMSNorm")
                          for phase in ("forward", "forward+backward")}  # fmt: skip
