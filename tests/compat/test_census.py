"""The census of PyTorch's public names (tools/census.py, tools/census_torch.json):
every name is present in minigrad, classified unsupported (minigrad/unsupported.json), or
listed as known missing (tools/census_todo.txt); classified names raise one error class
that says why; the coverage section of docs/pytorch-compat.md is current; and, with torch
installed, the snapshot is what torch reports."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad as mg
from minigrad.unsupported import UnsupportedError, _compile, categories, lookup

ROOT = Path(__file__).resolve().parents[2]


def _load_census():
    spec = importlib.util.spec_from_file_location("census", ROOT / "tools" / "census.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("census", module)
    spec.loader.exec_module(module)
    return module


census = _load_census()


@pytest.fixture(scope="module")
def snapshot():
    return census.load_snapshot()


@pytest.fixture(scope="module")
def result(snapshot):
    return census.census(snapshot)


def test_every_missing_name_is_a_known_todo(result):
    todo = census.load_todo()
    new = [f"{ns} {n}" for ns, v in result.items() for n in v["missing"] if (ns, n) not in todo]
    assert not new, (
        "PyTorch names neither implemented nor classified (add them to "
        f"minigrad/unsupported.json, or implement them): {new[:40]}"
    )


def test_docs_coverage_section_is_current(snapshot):
    assert census.DOC.read_text() == census.updated_doc(snapshot), (
        "docs/pytorch-compat.md is stale: run `python tools/census.py docs`"
    )


def test_every_namespace_is_95_percent_covered(result):
    low = {}
    for ns, v in result.items():
        total = sum(len(x) for x in v.values())
        covered = (len(v["present"]) + len(v["classified"])) / total
        if covered < 0.95:
            low[ns] = round(covered, 3)
    assert not low, low


def test_snapshot_is_what_torch_reports(torch, snapshot):
    now = census.snapshot_from_torch()
    if now["torch_version"] != snapshot["torch_version"]:
        pytest.skip(f"snapshot taken from torch {snapshot['torch_version']}")
    for key in snapshot:
        added = sorted(set(now[key]) - set(snapshot[key]))
        removed = sorted(set(snapshot[key]) - set(now[key]))
        assert not added and not removed, (key, added[:20], removed[:20])


# ------------------------------------------------------------------ the error itself
# (how refusals behave, name by name and import by import: tests/test_unsupported.py)
def test_classified_names_say_why():
    for get, category in [
        (lambda: mg.nn.Conv2d, "convolution"),
        (lambda: mg.nn.functional.max_pool2d, "convolution"),
        (lambda: mg.nn.LSTM, "recurrent"),
        (lambda: mg.fft.fft, "FFT"),
        (lambda: mg.view_as_complex, "complex"),
        (lambda: mg.sparse_coo_tensor, "sparse"),
        (lambda: mg.quantize_per_tensor, "quantized"),
        (lambda: mg.jit.script, "TorchScript"),
        (lambda: mg.optim.SparseAdam, "sparse"),
        (lambda: mg.zeros(2).to_sparse, "sparse"),
        (lambda: mg.zeros(2).q_scale, "quantized"),
        (lambda: mg.autograd.forward_ad.dual_level, "transforms"),
    ]:
        with pytest.raises(UnsupportedError) as info:
            get()
        msg = str(info.value)
        assert "not supported by minigrad" in msg and "Instead:" in msg
        assert category.lower() in msg.lower()


def test_every_classified_snapshot_name_raises_the_error(snapshot, result):
    for ns, v in result.items():
        for name in v["classified"]:
            dotted = name if ns == census.MODULES else f"{ns}.{name}"
            assert lookup(dotted.split(".", 1)[1]) is not None, dotted


def test_table_is_well_formed_and_every_entry_is_used(snapshot):
    modules = {m.split(".", 1)[1] for m in snapshot[census.MODULES]}
    names = {
        (n if ns == census.MODULES else f"{ns}.{n}").split(".", 1)[1]
        for ns in (*census.NAMESPACES, census.MODULES)
        for n in snapshot[ns]
    }
    for key, cat in categories().items():
        assert {"title", "reason", "instead", "names"} <= set(cat), key
        for pattern in cat["names"]:
            # "fft.*" also covers paths below fft that no snapshot lists: fft must exist;
            # a name in a module the census does not list by name (nn.utils.X): its module
            base = pattern.removesuffix(".*")
            rx = _compile(base)
            used = any(rx.fullmatch(n) for n in names) or base.rpartition(".")[0] in modules
            assert used, f"{key}: {pattern} matches nothing"


# ------------------------------------------------------------------ import paths
@pytest.mark.parametrize(
    "statement",
    [
        "from minigrad.nn.modules.module import Module",
        "from minigrad.nn.modules.loss import _Loss, CrossEntropyLoss",
        "from minigrad.nn.modules.activation import GELU, Mish",
        "from minigrad.nn.modules.linear import Linear, Bilinear",
        "from minigrad.nn.modules.sparse import Embedding",
        "from minigrad.nn.modules.container import ModuleList",
        "from minigrad.nn.parallel.distributed import DistributedDataParallel",
        "from minigrad.optim.lr_scheduler import ReduceLROnPlateau",
        "from minigrad.optim.optimizer import Optimizer",
        "from minigrad.optim.adamw import AdamW",
        "from minigrad.surface.autograd_functional import jacobian",
        "from minigrad.surface.variable import Variable",
        "from minigrad.utils.checkpoint import checkpoint",
        "import minigrad.backends.cudnn as cudnn",
    ],
)
def test_program_import_paths_work(statement):
    exec(statement, {})


def test_backends_are_settable_modules():
    import minigrad.backends.cudnn as cudnn

    before = cudnn.benchmark
    try:
        cudnn.benchmark = True
        assert mg.backends.cudnn.benchmark is True
        assert mg.backends.cuda.matmul.allow_tf32 in (True, False)
        assert not mg.backends.mps.is_available() and not cudnn.is_available()
    finally:
        cudnn.benchmark = before
    import minigrad.backends.xnnpack as xnnpack  # a module PyTorch has: imports work

    with pytest.raises(UnsupportedError, match="kernel libraries"):
        xnnpack.enabled  # noqa: B018


def test_checkpoint_gives_the_plain_call_values_and_gradients():
    from minigrad.utils.checkpoint import checkpoint, checkpoint_sequential

    x = mg.tensor([0.5, -1.0], requires_grad=True)
    y = checkpoint(lambda t, s: (t * s).tanh(), x, 3.0, use_reentrant=False)
    y.sum().backward()
    expected = 3 * (1 - np.tanh(3 * x.numpy()) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
    model = mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.ReLU(), mg.nn.Linear(3, 1))
    out = checkpoint_sequential(model, 2, mg.ones(4, 2), use_reentrant=False)
    np.testing.assert_array_equal(out.numpy(), model(mg.ones(4, 2)).numpy())


def test_tensor_names_are_descriptors_not_a_getattr_hook():
    """A ``Tensor.__getattr__`` would run on every attribute miss (NumPy probes two on each
    ``np.asarray(t)``); the classified Tensor names are class attributes instead."""
    from minigrad.unsupported import _UnsupportedAttribute

    assert "__getattr__" not in vars(mg.Tensor)
    assert isinstance(vars(mg.Tensor)["to_sparse"], _UnsupportedAttribute)
    with pytest.raises(UnsupportedError, match="sparse"):
        mg.Tensor.to_sparse  # noqa: B018
    assert not hasattr(mg.nn.Parameter(mg.ones(1)), "q_scale")
