"""mg.utils.data's submodules have torch.utils.data's paths and public names
(minigrad/utils/data/__init__.py); the old imports keep working."""

from __future__ import annotations

import importlib

import pytest

import minigrad as mg

MODULES = {
    "dataloader": ["DataLoader", "get_worker_info", "default_collate", "default_convert"],
    "dataset": [
        "Dataset",
        "IterableDataset",
        "TensorDataset",
        "StackDataset",
        "ConcatDataset",
        "ChainDataset",
        "Subset",
        "random_split",
    ],
    "sampler": [
        "BatchSampler",
        "RandomSampler",
        "Sampler",
        "SequentialSampler",
        "SubsetRandomSampler",
        "WeightedRandomSampler",
    ],
    "distributed": ["DistributedSampler"],
}
# torch.utils.data names minigrad leaves out: the deprecated DataPipes and their helpers.
LEFT_OUT = {
    "DFIterDataPipe",
    "DataChunk",
    "IterDataPipe",
    "MapDataPipe",
    "_DatasetKind",
    "argument_validation",
    "functional_datapipe",
    "guaranteed_datapipes_determinism",
    "non_deterministic",
    "runtime_validation",
    "runtime_validation_disabled",
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_submodules_import_by_pytorchs_path_and_share_the_package_objects(name):
    module = importlib.import_module(f"minigrad.utils.data.{name}")
    for attr in MODULES[name]:
        assert getattr(module, attr) is getattr(mg.utils.data, attr), (name, attr)


def test_old_imports_still_work():
    from minigrad.utils.data import DataLoader, TensorDataset, default_collate  # noqa: F401

    assert mg.utils.data.DataLoader is DataLoader
    assert mg.utils.data.get_worker_info() is None


@pytest.mark.parametrize("name", sorted(MODULES))
def test_same_public_names_as_torch(torch, name):
    theirs = importlib.import_module(f"torch.utils.data.{name}")
    assert sorted(MODULES[name]) == sorted(theirs.__all__)
    import torch.utils.data as tud

    assert set(tud.__all__) - LEFT_OUT == set(mg.utils.data.__all__)
