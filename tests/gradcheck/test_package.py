"""The checker's place in the package: above autograd and nn, read from a short core.

- ``minigrad/autograd/`` is the engine alone: none of its files imports the checker or
  ``nn``; the checker's public names are reachable from it (PyTorch's spelling) lazily.
- No file of ``minigrad/gradcheck/`` imports ``nn`` or imports anything inside a
  function (no cycle held together that way).
- The core, on its own, catches a wrong backward and names the worst entry.
"""

from __future__ import annotations

import ast
import pathlib

import numpy as np

import minigrad as mg
import minigrad.autograd as autograd
from minigrad.autograd import Function
from minigrad.functions.constant import constant
from minigrad.gradcheck import api, core
from minigrad.printing import shape_str
from minigrad.testing import assert_gradients

PACKAGE = pathlib.Path(mg.__file__).parent


def _imports(path: pathlib.Path):
    """(module imported, whether the import sits inside a function) for every import."""
    tree = ast.parse(path.read_text())
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside.update(id(n) for n in ast.walk(node) if n is not node)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module, id(node) in inside
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, id(node) in inside


def test_autograd_is_the_engine_alone():
    for path in (PACKAGE / "autograd").glob("*.py"):
        assert not path.name.startswith("gradcheck"), path
        for module, _ in _imports(path):
            assert not module.startswith(("minigrad.gradcheck", "minigrad.nn")), (path, module)


def test_the_checker_imports_no_nn_and_nothing_inside_functions():
    for path in (PACKAGE / "gradcheck").glob("*.py"):
        for module, in_function in _imports(path):
            assert not module.startswith("minigrad.nn"), (path, module)
            assert not in_function, (path, module)


def test_public_names_keep_working():
    from minigrad.autograd import GradcheckError, gradcheck, gradgradcheck

    assert gradcheck is mg.gradcheck is api.gradcheck
    assert gradgradcheck is mg.gradgradcheck
    assert GradcheckError is mg.GradcheckError and issubclass(GradcheckError, RuntimeError)
    assert autograd.gradcheck_module is mg.gradcheck_module
    assert "gradcheck" in autograd.__all__
    x = mg.randn(3, dtype=mg.float64, requires_grad=True)
    assert gradcheck(lambda x: x.sin(), (x,))
    assert_gradients(lambda x: x.sin() * x, (3,))


def test_the_core_catches_a_wrong_backward_and_names_the_worst_entry():
    class SinTimesTwoOff(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.x = x.numpy()
            return np.sin(ctx.x)

        @staticmethod
        def backward(ctx, g):
            d = np.cos(ctx.x)
            d[2] *= 2.0  # one wrong element
            return g * constant(d)

    x = mg.tensor(np.array([0.1, 0.5, 1.0, -0.7]), requires_grad=True)
    ok, worst = core.check(SinTimesTwoOff.apply, x)
    assert not ok
    out_index, in_index, numerical, analytical = worst[0]
    assert out_index == in_index == (2,)
    assert np.isclose(numerical, np.cos(1.0), rtol=1e-8)
    assert np.isclose(analytical, 2 * np.cos(1.0))
    assert np.array_equal(x.numpy(), [0.1, 0.5, 1.0, -0.7])  # restored bit for bit
    ok, _ = core.check(lambda x: x.sin(), x)
    assert ok


def test_perturbed_reports_the_offset_really_applied_and_restores():
    flat = np.array([1.0, 3.0], dtype=np.float32)
    values, realized = core.perturbed(lambda: float(flat[1]), flat, 1, (1e-9, -0.5))
    assert realized == [0.0, -0.5]  # 3 + 1e-9 rounds to 3 in float32
    assert values == [3.0, 2.5] and flat[1] == 3.0


def test_the_helpers():
    assert shape_str((2, 3)) == "[2, 3]" and shape_str(()) == "[]"
    array = np.ones(3)
    t = constant(array)
    assert t.numpy() is array and not t.requires_grad and t.grad_fn is None
    assert constant(None) is None
