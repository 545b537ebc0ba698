"""The importable module paths of PyTorch that minigrad mirrors: torch.functional,
torch.types, torch.return_types, torch.torch_version, torch.utils.dlpack,
torch.utils.deterministic, torch.autograd.gradcheck, torch.amp.*, torch.cuda.amp.*."""

import importlib

import numpy as np
import pytest

import minigrad as mg
from minigrad.surface import MODULE_PATHS

PATHS = [
    "functional",
    "types",
    "return_types",
    "torch_version",
    "contrib",
    "utils.dlpack",
    "utils.deterministic",
    "autograd.gradcheck",
    "amp.autocast_mode",
    "amp.grad_scaler",
    "cuda.amp.autocast_mode",
    "cuda.amp.common",
    "cuda.amp.grad_scaler",
    "nn.utils.stateless",
]


#: paths answered by a module of another name: the checker sits above autograd, and
#: PyTorch's namespaces that are only names live in minigrad/surface/
ALIASES = {"autograd.gradcheck": "gradcheck"}
ALIASES.update({path.removeprefix("minigrad."): m.__name__.removeprefix("minigrad.")
                for path, m in MODULE_PATHS.items()})  # fmt: skip


@pytest.mark.parametrize("path", PATHS)
def test_module_path_imports(path):
    module = importlib.import_module("minigrad." + path)
    assert module.__name__ == "minigrad." + ALIASES.get(path, path)


def test_functional_hands_out_the_torch_level_functions():
    from minigrad.functional import einsum, split

    assert einsum is mg.einsum and split is mg.split
    with pytest.raises(AttributeError):
        mg.functional.not_a_function  # noqa: B018


def test_return_types_are_the_named_tuples_functions_return():
    x = mg.tensor([[1.0, 5.0], [7.0, 2.0]])
    assert isinstance(x.max(1), mg.return_types.max)
    assert isinstance(x.sort(), mg.return_types.sort)
    assert isinstance(x.topk(1), mg.return_types.topk)
    assert x.max(1).values.tolist() == [5.0, 7.0]


def test_torch_version_compares_as_versions():
    from minigrad.torch_version import TorchVersion

    v = TorchVersion("2.13.0+cpu")
    assert v > "2.9" and v >= (2, 13) and v < "2.13.1" and v == "2.13" and v != "2.12"
    assert isinstance(v, str) and v.startswith("2.13")


def test_autograd_gradcheck_path_gives_the_checker():
    import minigrad.autograd.gradcheck
    from minigrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck

    x = mg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    assert gradcheck is mg.gradcheck and gradgradcheck is mg.gradgradcheck
    assert mg.autograd.gradcheck is mg.gradcheck  # the attribute stays the function
    assert minigrad.autograd.gradcheck(lambda t: t * t, (x,))
    assert issubclass(GradcheckError, RuntimeError)


def test_amp_paths_hold_the_same_classes():
    from minigrad.amp.autocast_mode import autocast
    from minigrad.amp.grad_scaler import GradScaler
    from minigrad.cuda.amp.common import amp_definitely_not_available

    assert autocast is mg.amp.autocast and GradScaler is mg.amp.GradScaler
    assert issubclass(mg.cuda.amp.GradScaler, GradScaler) and amp_definitely_not_available()


def test_dtype_is_the_class_of_dtypes():
    assert isinstance(mg.float32, mg.dtype) and isinstance(mg.int64, mg.dtype)
