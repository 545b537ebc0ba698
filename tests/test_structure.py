"""The core reads as a textbook: structural rules that a test can check.

- ``autograd/`` and ``functions/`` import nothing from ``kernels/`` (fast paths live in
  ``kernels/`` and are reached from ``nn/`` and behind ``backward_array``);
- no code that computes (the core, ``nn``, ``optim``, the kernels) reads the clock, so
  which code runs never depends on time;
- nothing counts references to decide what to do.
"""

import ast
from pathlib import Path

import pytest

import minigrad

PACKAGE = Path(minigrad.__file__).parent
CORE = ["autograd", "functions"]
COMPUTING = CORE + ["nn", "optim", "kernels", "tensor.py", "creation.py"]
CLOCKS = {"time", "perf_counter", "monotonic", "process_time", "thread_time", "datetime"}


def _files(parts):
    for part in parts:
        path = PACKAGE / part
        yield from ([path] if path.is_file() else sorted(path.rglob("*.py")))


def _imports(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, alias.name.split(".")[-1]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            for alias in node.names:
                yield module, alias.name


@pytest.mark.parametrize("path", list(_files(CORE)), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_core_imports_nothing_from_kernels(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = [m for m, name in _imports(tree) if "kernels" in m.split(".") or name == "kernels"]
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("path", list(_files(COMPUTING)), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_computing_module_reads_the_clock_or_counts_references(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    clocks = [(m, n) for m, n in _imports(tree) if m in CLOCKS or n in CLOCKS]
    assert not clocks, f"{path.name} imports a clock: {clocks}"
    names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert "getrefcount" not in names, f"{path.name} counts references"
