"""Refusal at use, not at import (minigrad/unsupported.py): every module path PyTorch has
imports as ``minigrad.X``; an unsupported name raises, when read, an error that is an
``AttributeError`` (``hasattr`` feature tests) and, when imported, one that is an
``ImportError`` (the optional-import idiom); ``importlib.util.find_spec`` answers as for
any module; ``mg.cuda`` answers what a machine without a GPU can answer."""

import importlib
import importlib.util
import json
import os
import pkgutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import minigrad as mg
from minigrad.unsupported import (
    UnsupportedAttributeError,
    UnsupportedError,
    UnsupportedImportError,
    torch_modules,
)

TABLE = Path(mg.__file__).with_name("unsupported.json")


def _torch_module_paths(torch) -> list[str]:
    """PyTorch's public module paths below ``torch``, walked from the installed wheel's
    folders with pkgutil (nothing is imported): a path with a ``_`` component is private."""
    found = []

    def walk(folder: str, prefix: str) -> None:
        for info in pkgutil.iter_modules([folder]):
            if not info.name.startswith("_"):
                found.append(prefix + info.name)
                if info.ispkg:
                    walk(os.path.join(folder, info.name), prefix + info.name + ".")

    walk(torch.__path__[0], "")
    return sorted(found)


# ------------------------------------------------------------------ the error classes
def test_the_two_refusals_are_one_family_with_pytorch_classes():
    assert issubclass(UnsupportedAttributeError, AttributeError)
    assert issubclass(UnsupportedImportError, ImportError)
    for cls in (UnsupportedAttributeError, UnsupportedImportError):
        assert issubclass(cls, UnsupportedError) and issubclass(cls, NotImplementedError)
    assert mg.UnsupportedError is UnsupportedError


# ------------------------------------------------------------------ imports
def test_the_module_list_is_pytorchs(torch):
    """unsupported.json's "modules" is what the installed torch has (regenerate with
    ``python tools/census.py snapshot`` then ``modules`` when PyTorch changes)."""
    listed = json.loads(TABLE.read_text())["modules"]
    assert listed == _torch_module_paths(torch)


def test_every_pytorch_module_path_imports(torch):
    """In a fresh interpreter (the imports add modules to minigrad's namespaces), each of
    torch's module paths, found from the installed wheel, imports as minigrad.X."""
    paths = _torch_module_paths(torch)
    script = (
        "import importlib, json, sys\n"
        "import minigrad\n"
        "failed = []\n"
        "for p in json.loads(sys.stdin.read()):\n"
        "    try:\n"
        "        importlib.import_module('minigrad.' + p)\n"
        "    except ImportError as e:\n"
        "        if 'tensorboard' not in str(e):  # utils.tensorboard needs that package\n"
        "            failed.append((p, repr(e)))\n"
        "print(json.dumps(failed))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], input=json.dumps(paths), capture_output=True,
        text=True, timeout=240,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    failed = json.loads(out.stdout.splitlines()[-1])
    assert not failed, failed[:10]
    assert len(paths) > 800  # the walk found PyTorch's tree, not an empty folder


def test_programs_import_modules_they_never_call():
    import minigrad.multiprocessing as mp
    import minigrad.onnx
    import minigrad.utils.benchmark

    import minigrad.distributed as dist

    assert mp.__name__ == "minigrad.multiprocessing" and dist.is_available()
    with pytest.raises(UnsupportedAttributeError, match="multi-process") as info:
        mp.spawn(print, nprocs=2)  # torch.multiprocessing.spawn is a function
    assert "Instead:" in str(info.value)
    with pytest.raises(UnsupportedAttributeError, match="TorchScript, FX, export, ONNX"):
        minigrad.onnx.export  # noqa: B018
    assert not hasattr(minigrad.onnx, "export")
    assert getattr(mp, "set_start_method", None) is None


def test_from_import_of_an_unsupported_name_is_an_import_error():
    with pytest.raises(ImportError, match="convolution") as info:
        from minigrad.nn import Conv2d  # noqa: F401
    assert isinstance(info.value, UnsupportedImportError)
    with pytest.raises(UnsupportedImportError, match="TorchScript"):
        from minigrad.onnx import export  # noqa: F401
    with pytest.raises(UnsupportedImportError, match="recurrent"):
        from minigrad.nn.modules.rnn import LSTM  # noqa: F401
    with pytest.raises(UnsupportedImportError, match="sparse"):
        from minigrad.optim import SparseAdam  # noqa: F401


def test_the_optional_import_idiom_takes_its_fallback():
    try:
        from minigrad.nn import LSTM as Recurrent
    except ImportError:
        Recurrent = None
    try:
        from minigrad.nn import GELU as Activation
    except ImportError:
        Activation = None
    assert Recurrent is None and Activation is mg.nn.GELU


def test_find_spec_answers_as_for_any_module():
    spec = importlib.util.find_spec("minigrad.fx")
    assert spec is not None and spec.name == "minigrad.fx"
    assert importlib.util.find_spec("minigrad.no_such_module") is None
    assert importlib.util.find_spec("minigrad.nn") is not None
    assert importlib.util.find_spec("minigrad.distributions.normal") is not None
    with pytest.raises(ModuleNotFoundError):
        import minigrad.no_such_module  # noqa: F401


def test_module_paths_are_attributes_where_pytorch_has_them_so():
    assert mg.fft.__name__ == "minigrad.fft" and hasattr(mg, "fft")
    with pytest.raises(UnsupportedAttributeError, match="FFT"):
        mg.fft.rfft(mg.ones(4))
    assert mg.autograd.graph.__name__ == "minigrad.autograd.graph"
    assert "nn.parallel.replicate" in torch_modules()
    with pytest.raises(UnsupportedAttributeError):  # torch.nn.parallel.replicate: a function
        mg.nn.parallel.replicate  # noqa: B018


def test_names_of_a_refusing_module_carry_its_category():
    import minigrad.distributions as D

    with pytest.raises(UnsupportedAttributeError, match="probability distributions"):
        D.Normal(0.0, 1.0)
    with pytest.raises(AttributeError) as info:
        D.__wrapped__  # noqa: B018  (dunder probes stay plain AttributeErrors)
    assert not isinstance(info.value, UnsupportedError)


def test_an_unclassified_pytorch_module_says_it_is_not_implemented():
    import minigrad.quasirandom as q

    with pytest.raises(UnsupportedAttributeError, match="not implemented in minigrad"):
        q.SobolEngine  # noqa: B018


def test_classified_names_stay_attribute_errors_for_feature_tests():
    assert not hasattr(mg.nn, "Conv2d") and getattr(mg.nn, "LSTM", None) is None
    assert not hasattr(mg.zeros(1), "to_sparse")
    with pytest.raises(AttributeError) as info:
        mg.no_such_name  # noqa: B018
    assert not isinstance(info.value, UnsupportedError)


def test_importing_minigrad_changes_no_other_import():
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import minigrad, importlib.util, sys\n"
            "assert importlib.util.find_spec('no_such_top_level_module') is None\n"
            "import json; print(type(sys.meta_path[-1]).__name__)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "_UnsupportedFinder"


# ------------------------------------------------------------------ mg.cuda
def _call_quietly(fn):
    """``fn()``, with any warnings it gives silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def test_cuda_answers_what_a_machine_without_a_gpu_answers(torch):
    """Every torch.cuda function that PyTorch on a CPU-only machine answers without
    raising and that minigrad defines gives PyTorch's answer; the rest refuse."""
    answered = 0
    for name in dir(torch.cuda):
        if name.startswith("_") or name not in dir(mg.cuda):
            continue
        theirs, ours = getattr(torch.cuda, name), getattr(mg.cuda, name)
        if not callable(theirs) or isinstance(theirs, type):
            continue
        try:
            expected = _call_quietly(theirs)
        except Exception:
            continue
        assert ours() == expected, name
        answered += 1
    assert answered >= 12
    for name in ("memory_reserved", "max_memory_reserved", "memory_allocated"):
        assert getattr(mg.cuda, name)() == 0


@pytest.mark.parametrize(
    "name", ["Stream", "Event", "CUDAGraph", "graph", "mem_get_info", "get_device_properties"]
)
def test_cuda_names_that_need_a_gpu_refuse(name):
    with pytest.raises(UnsupportedAttributeError, match="CUDA, MPS and other devices"):
        getattr(mg.cuda, name)


def test_cuda_out_of_memory_can_be_caught():
    assert issubclass(mg.cuda.OutOfMemoryError, RuntimeError)
    assert mg.OutOfMemoryError is mg.cuda.OutOfMemoryError
    try:
        x = mg.ones(2) * 2
    except mg.cuda.OutOfMemoryError:  # evaluated only if something is raised: never here
        x = None
    assert x is not None
    for reset in (mg.cuda.reset_peak_memory_stats, mg.cuda.empty_cache, mg.cuda.synchronize):
        assert reset() is None


def test_cpu_module_answers_for_the_cpu():
    assert mg.cpu.is_available() and mg.cpu.device_count() == 1
    assert mg.cpu.current_device() == "cpu" and mg.cpu.synchronize() is None
    mg.cpu.set_device("cpu")
    with pytest.raises(RuntimeError, match="CPU only"):
        mg.cpu.set_device("cuda")
    assert mg.get_default_device() == mg.device("cpu")
    mg.set_default_device("cpu")
    with pytest.raises(RuntimeError, match="CPU only"):
        mg.set_default_device("cuda")


def test_every_submodule_path_is_an_attribute_of_its_parent():
    """``torch.nn.modules.linear.Linear`` (word_language_model's safe_globals list) with no
    import of the submodule: each module path whose parent is one of minigrad's own
    packages is reachable as an attribute, except the few PyTorch shadows with a function
    of that name (``torch.multiprocessing.spawn``). In a fresh interpreter."""
    script = (
        "import importlib, json, minigrad\n"
        "from minigrad.unsupported import _table\n"
        "mods, shadowed = _table()[3], _table()[4]\n"
        "missing = []\n"
        "for p in sorted(mods - shadowed):\n"
        "    parent, _, name = p.rpartition('.')\n"
        "    try:\n"
        "        owner = importlib.import_module('minigrad.' + parent) if parent else minigrad\n"
        "    except ImportError:\n"
        "        continue  # utils.tensorboard without the tensorboard package\n"
        "    try:\n"
        "        getattr(owner, name)\n"
        "    except AttributeError as e:\n"
        "        if 'tensorboard' not in str(e):  # needs that package\n"
        "            missing.append((p, str(e)[:80]))\n"
        "print(json.dumps(missing))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=240
    )
    assert out.returncode == 0, out.stderr[-2000:]
    missing = json.loads(out.stdout.splitlines()[-1])
    assert not missing, missing[:10]
    assert mg.nn.modules.linear.NonDynamicallyQuantizableLinear is not None


def test_accelerator_answers_as_pytorch_without_one(torch):
    """``torch.accelerator`` (every pytorch/examples script asks it first): each function
    PyTorch answers on a CPU-only machine gives the same answer; each one PyTorch refuses
    there with RuntimeError (it needs a device) refuses the same way."""
    import inspect

    answered = refused = 0
    for name in dir(torch.accelerator):
        theirs = getattr(torch.accelerator, name)
        if name.startswith("_") or inspect.ismodule(theirs) or isinstance(theirs, type):
            continue
        try:
            expected = _call_quietly(theirs)
        except RuntimeError:
            with pytest.raises(RuntimeError, match="accelerator"):
                getattr(mg.accelerator, name)()
            refused += 1
            continue
        except TypeError:  # needs arguments
            continue
        assert getattr(mg.accelerator, name)() == expected, name
        answered += 1
    assert answered >= 3 and refused >= 10


def test_jit_and_compiler_questions_answer_for_eager_code(torch):
    """Library code written to be scriptable or compilable asks these; each answer is
    PyTorch's outside a script or a compiled region, and the markers leave code alone."""
    for lib in (mg, torch):
        assert lib.jit.is_scripting() is False and lib.jit.is_tracing() is False
        assert lib.compiler.is_compiling() is False
        assert lib.compiler.is_dynamo_compiling() is False
        assert lib.jit.annotate(int, 3) == 3

        @lib.jit.ignore
        def kept(x):
            return x + 1

        @lib.jit.unused
        def also_kept(x):
            return x + 2

        assert kept(1) == 2 and also_kept(1) == 3

    @mg.compiler.disable(recursive=False)
    def plain(x):
        return x * 2

    assert plain(2) == 4 and mg.compiler.disable(plain) is plain
    assert mg.compiler.list_backends() == []
    with pytest.raises(UnsupportedAttributeError, match="TorchScript"):
        mg.jit.script(plain)
    with pytest.raises(UnsupportedImportError, match="TorchScript"):
        from minigrad.jit import trace  # noqa: F401


def test_anomaly_mode_off_is_accepted_and_on_refused():
    mg.autograd.set_detect_anomaly(False)
    with mg.autograd.set_detect_anomaly(False):
        pass
    for turn_on in (lambda: mg.autograd.set_detect_anomaly(True), mg.autograd.detect_anomaly):
        with pytest.raises(UnsupportedError, match="anomaly"):
            turn_on()
