import math

import numpy as np
import pytest

import minigrad as mg
from minigrad import viz


def _example():
    a = mg.tensor(0.5, dtype=mg.float64, requires_grad=True)
    b = mg.tensor(2.0, dtype=mg.float64, requires_grad=True)
    return a, b, (a * b + a).tanh()


def test_text_tree_lists_every_operation_and_named_leaf():
    a, b, out = _example()
    text = viz.to_text(out, {"a": a, "b": b})
    lines = text.splitlines()
    assert lines[0] == "Tanh -> []"
    assert lines[1] == "└─ Add -> []"
    assert [ln.strip("│├└─ ") for ln in lines[2:]] == ["Mul -> []", "a []", "b []", "a []"]


def test_text_tree_shows_a_shared_node_once():
    x = mg.randn(3, requires_grad=True)
    h = x.exp()
    out = (h * h).sum()
    text = viz.to_text(out)
    assert text.count("Exp -> [3]") == 2
    assert "Exp -> [3] (shown above)" in text


def test_text_tree_of_a_deep_chain_does_not_recurse():
    x = mg.randn(2, requires_grad=True)
    y = x
    for _ in range(5000):
        y = y + 1.0
    assert len(viz.to_text(y).splitlines()) == 5001


def test_dot_edges_carry_the_gradient_sent_along_each_edge():
    a, b, out = _example()
    dot = viz.to_dot(out, {"a": a, "b": b}, grad_norms=True)
    d_tanh = 1 - math.tanh(1.5) ** 2
    # a feeds Add directly (gets d_tanh) and Mul (gets d_tanh * b = 2 d_tanh).
    assert f"|grad| {d_tanh:.3g}" in dot
    assert f"|grad| {2 * d_tanh:.3g}" in dot
    assert f"|grad| {0.5 * d_tanh:.3g}" in dot  # b's edge into Mul
    assert dot.count("->") == 5
    assert a.grad is None and b.grad is None  # drawing does not touch .grad


def test_render_without_graphviz_writes_the_text_tree(tmp_path, monkeypatch):
    monkeypatch.setattr(viz.shutil, "which", lambda name: None)
    _, _, out = _example()
    written = viz.render(out, tmp_path / "graph.png")
    assert written == tmp_path / "graph.txt"
    assert written.read_text().startswith("Tanh -> []")


def test_render_with_graphviz_writes_an_image(tmp_path):
    if viz.shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    _, _, out = _example()
    written = viz.render(out, tmp_path / "graph.svg")
    assert written.read_text().lstrip().startswith("<?xml")


def test_render_rejects_unknown_formats(tmp_path):
    _, _, out = _example()
    with pytest.raises(ValueError, match="png or .svg"):
        viz.render(out, tmp_path / "graph.pdf")


def test_gradient_norms_through_a_fused_norm_whose_backward_returns_arrays():
    import minigrad.nn.functional as F

    x = mg.randn(4, 8, dtype=mg.float64, requires_grad=True)
    w = mg.ones(8, dtype=mg.float64, requires_grad=True)
    out = (F.layer_norm(x, (8,), w) * mg.randn(4, 8, dtype=mg.float64)).sum()
    norms = viz.gradient_norms(out)
    out.backward()
    assert any(abs(n - float(np.linalg.norm(x.grad.numpy()))) < 1e-9 for n in norms.values())
    assert any(abs(n - float(np.linalg.norm(w.grad.numpy()))) < 1e-9 for n in norms.values())
