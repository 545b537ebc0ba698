"""The teaching utility that compares the three implementations and finite differences."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.gradcheck import compare_implementations
from minigrad.nn.norms import layer_norm as layer_norm_module
from minigrad.nn.norms import reference


def _x(*shape, dtype=mg.float64):
    return mg.tensor(np.random.default_rng(0).standard_normal(shape), dtype=dtype,
                     requires_grad=True)  # fmt: skip


@pytest.mark.parametrize(
    "fn, args, kwargs",
    [
        (F.layer_norm, lambda: (_x(2, 4), (4,), _x(4), _x(4)), {}),
        (F.rms_norm, lambda: (_x(3, 5), 5, _x(5)), {}),
        (F.batch_norm, lambda: (_x(6, 3), mg.zeros(3), mg.ones(3), _x(3)), {"training": True}),
        (F.group_norm, lambda: (_x(2, 4, 3), 2), {"eps": 1e-3}),
    ],
)
def test_all_pairs_close_for_every_norm(fn, args, kwargs):
    report = compare_implementations(fn, *args(), **kwargs)
    assert report.ok, str(report)
    assert list(report.tables)[0] == "output"
    assert all(len(rows) == 6 for q, rows in report.tables.items() if q != "output")


def test_report_table_names_the_gradients_and_pairs():
    report = compare_implementations(F.layer_norm, _x(1, 4), (4,), _x(4), _x(4))
    text = str(report)
    assert text.startswith("layer_norm on float64 inputs: every pair is close")
    for heading in ("output [1, 4]", "d input [1, 4]", "d weight [4]", "d bias [4]"):
        assert heading in text
    assert "fused vs reference" in text and "composite vs finite differences" in text
    assert "exact" in text and "close" in text and "max |difference|" in text


def test_running_statistics_are_not_changed():
    rm, rv = mg.zeros(3), mg.ones(3)
    compare_implementations(F.batch_norm, _x(5, 3), rm, rv, training=True)
    np.testing.assert_array_equal(rm.numpy(), 0)
    np.testing.assert_array_equal(rv.numpy(), 1)


def test_a_wrong_backward_is_caught(monkeypatch):
    """A learner's typical slip: forgetting the mean's own gradient (g_mean)."""

    original = reference.layer_norm_backward

    def wrong_backward(dy, x, weight, mean, rstd, normalized_ndim, need_dx=True):
        _, dweight, dbias = original(dy, x, weight, mean, rstd, normalized_ndim, need_dx)
        g_xhat = dy if weight is None else dy * weight
        return g_xhat * rstd, dweight, dbias  # as if mean and var were constants

    function = layer_norm_module.LayerNormFunction
    monkeypatch.setattr(function, "reference_backward", staticmethod(wrong_backward))
    report = compare_implementations(F.layer_norm, _x(2, 4), (4,), _x(4))
    assert not report.ok
    rows = {(r.left, r.right): r for r in report.tables["d input"]}
    assert not rows[("reference", "finite differences")].close
    assert rows[("fused", "finite differences")].close
    assert rows[("composite", "finite differences")].close
    assert "SOME PAIRS DIFFER" in str(report)
    assert rows[("reference", "finite differences")].max_difference > 0.01


def test_float32_inputs_use_float32_tolerances():
    report = compare_implementations(F.group_norm, _x(2, 6, 2, dtype=mg.float32), 3)
    assert report.ok and report.dtype == np.float32


def test_refuses_large_inputs_and_inputs_without_grad():
    with pytest.raises(ValueError, match="5000"):
        compare_implementations(F.layer_norm, _x(100, 64), (64,))
    with pytest.raises(ValueError, match="requires grad"):
        compare_implementations(F.layer_norm, mg.randn(2, 3), (3,))


def test_the_by_hand_example_runs_and_agrees(capsys):
    import pathlib
    import runpy

    script = pathlib.Path(__file__).resolve().parents[2] / "examples" / "norm_by_hand.py"
    runpy.run_path(str(script), run_name="__main__")
    out = capsys.readouterr().out
    assert "every value above matches minigrad.nn.norms.reference" in out
    assert "layer_norm on float64 inputs: every pair is close" in out
