"""The core reads as a textbook: structural rules that a test can check.

- ``autograd/`` and ``functions/`` import nothing from ``kernels/`` (fast paths live in
  ``kernels/`` and are reached from ``nn/`` and behind ``backward_array``);
- no code that computes (the core, ``nn``, ``optim``, the kernels) reads the clock, so
  which code runs never depends on time;
- nothing counts references to decide what to do;
- the framework (``tensor.py``, ``autograd/``, ``functions/``, ``nn/``, ``optim/``,
  ``kernels/``, ``gradcheck/``) imports nothing from PyTorch's surface
  (``minigrad/surface/``), which is attached from above, in ``minigrad/__init__.py``;
- the modules import each other without circles, but for the designed one between
  ``tensor.py`` and the ``functions/`` it calls (which build tensors in turn).
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import minigrad

PACKAGE = Path(minigrad.__file__).parent
CORE = ["autograd", "functions"]
COMPUTING = CORE + ["nn", "optim", "kernels", "tensor.py", "creation.py"]
CLOCKS = {"time", "perf_counter", "monotonic", "process_time", "thread_time", "datetime"}
FRAMEWORK = ["tensor.py", "autograd", "functions", "nn", "optim", "kernels", "gradcheck"]


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


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imported_modules(name: str, path: Path) -> set:
    """The minigrad modules ``name`` imports anywhere in its file (inside functions too),
    each resolved to the module file it loads (``from minigrad.nn import init`` is
    ``minigrad.nn.init``, ``from minigrad.tensor import Tensor`` is ``minigrad.tensor``)."""

    def owner(dotted: str) -> str:
        while dotted not in MODULES and "." in dotted:
            dotted = dotted.rsplit(".", 1)[0]
        return dotted

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {owner(a.name) for a in node.names if a.name.startswith("minigrad")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # a relative import
                package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
                package = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{package}.{base}" if base else package
            if base.startswith("minigrad"):
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    found.add(full if full in MODULES else owner(base))
    found.discard(name)
    return found


GRAPH = {name: _imported_modules(name, path) for name, path in MODULES.items()}


def _in_framework(name: str) -> bool:
    rest = name.removeprefix("minigrad.")
    return rest == "tensor" or rest.split(".")[0] in {p for p in FRAMEWORK if "." not in p}


@pytest.mark.parametrize("name", [n for n in MODULES if _in_framework(n)])
def test_the_framework_imports_nothing_from_the_surface(name):
    text = MODULES[name].read_text(encoding="utf-8")
    surface = sorted(m for m in GRAPH[name] if m.startswith("minigrad.surface"))
    assert not surface, f"{name} imports {surface}: the surface sits above the framework"
    assert "minigrad.surface" not in text, f"{name} names minigrad.surface"


def _circles(graph: dict) -> list:
    """The strongly connected components with more than one module (Tarjan's algorithm,
    iterative)."""
    index, low, on_stack, stack, circles = {}, {}, set(), [], []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c in graph), None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    circle = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        circle.add(member)
                        if member == node:
                            break
                    if len(circle) > 1:
                        circles.append(circle)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return circles


def test_the_only_import_circle_is_tensor_and_functions():
    designed = {"minigrad.tensor"} | {n for n in MODULES if n.startswith("minigrad.functions")}
    for circle in _circles(GRAPH):
        assert circle <= designed, f"an import circle outside tensor <-> functions: {circle}"


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [{"a", "b", "c"}]


def test_importing_the_tensor_module_alone_gives_the_surface_methods():
    code = "from minigrad.tensor import Tensor as T; print(T.sin.__name__, T.scatter_add.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["sin", "scatter_add"]


def test_every_public_name_is_listed_once_and_exists():
    """``mg.__all__`` names each public name once, and each resolves."""
    import minigrad as mg

    repeated = sorted({n for n in mg.__all__ if mg.__all__.count(n) > 1})
    assert not repeated, f"listed twice in minigrad.__all__: {repeated}"
    missing = [n for n in mg.__all__ if not hasattr(mg, n)]
    assert not missing, f"in minigrad.__all__ but not in minigrad: {missing}"
