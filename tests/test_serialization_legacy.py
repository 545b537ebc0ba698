"""Checkpoints in the first format (an ``.npz`` of arrays ``a0``, ``a1``, ... beside a
JSON manifest) still load, with their names, types and bits; plain ``.npz`` and ``.npy``
files load as arrays; crafted, damaged and pickled ``.npz`` files are refused with a
``CheckpointError`` before anything large is allocated or any code runs.

``tests/data/checkpoint-npz-v1.npz`` was written by ``mg.save(legacy_object(), path)``
with minigrad 0.1.0, the last version that wrote that format; ``legacy_object`` below
builds the same object again (every value from ``np.arange``, nothing random), so the
test compares what the file gives back with what was saved.
"""

from __future__ import annotations

import io
import math
import pathlib
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import minigrad as mg
from minigrad.serialization import CheckpointError
from minigrad.serialization.npz_file import MANIFEST_KEY
from tests.serialization_checks import Payload, assert_same, load_damaged

FIXTURE = pathlib.Path(__file__).parent / "data" / "checkpoint-npz-v1.npz"


def legacy_object() -> dict:
    """A model's state_dict, an optimizer's, and plain values of every kind."""
    weight = np.arange(6, dtype=np.float32).reshape(2, 3) / 8
    return {
        "model": OrderedDict(
            [
                ("0.weight", mg.tensor(weight, requires_grad=True)),
                ("0.bias", mg.tensor(np.array([0.5, -0.25], dtype=np.float32))),
                ("1.running_mean", mg.tensor(np.zeros(2, dtype=np.float32))),
                ("1.num_batches_tracked", mg.tensor(np.array(3, dtype=np.int64))),
            ]
        ),
        "optimizer": {
            "state": {0: {"step": mg.tensor(2.0), "exp_avg": mg.tensor(weight * 2)}},
            "param_groups": [{"lr": 0.01, "betas": (0.9, 0.99), "params": [0, 1]}],
        },
        "arrays": [
            np.array([True, False]),
            np.arange(4, dtype=np.int8),
            np.arange(3, dtype=np.uint8),
            np.arange(3, dtype=np.float16) / 4,
            np.arange(6, dtype=np.float64).reshape(2, 3).T,
            np.array(2.5),
            np.zeros((0, 3), dtype=np.int32),
            np.array([1 + 2j]),
            np.array(["a", "bcd"]),
        ],
        "scalars": (7, 2**70, -0.0, math.inf, math.nan, None, "héllo", np.float32(1.5)),
        "step": 12,
    }


def test_a_checkpoint_of_the_first_format_loads_exactly():
    assert_same(mg.load(FIXTURE), legacy_object())


def test_the_first_format_loads_into_a_model():
    import minigrad.nn as nn

    model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    state = mg.load(FIXTURE)["model"]
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert unexpected == [] and sorted(missing) == ["1.bias", "1.running_var", "1.weight"]
    expected = legacy_object()["model"]["0.weight"].numpy()
    np.testing.assert_array_equal(model[0].weight.numpy(), expected)
    assert model[1].num_batches_tracked.item() == 3


# ---------------------------------------------------------------------- crafted files
# Files of the first format made by hand, as an attacker would: each is refused with a
# CheckpointError before anything large is allocated or anything is unpickled.
def test_plain_npz_and_npy_load_as_arrays(tmp_path):
    np.savez(tmp_path / "plain.npz", a=np.arange(3), b=np.ones(2))
    back = mg.load(tmp_path / "plain.npz")
    assert sorted(back) == ["a", "b"] and np.all(back["a"] == np.arange(3))
    np.save(tmp_path / "one.npy", np.eye(2))
    np.testing.assert_array_equal(mg.load(tmp_path / "one.npy"), np.eye(2))


def test_object_array_in_npz_is_refused_and_runs_no_code(tmp_path):
    marker = tmp_path / "pwned"
    evil = np.empty(1, dtype=object)
    evil[0] = Payload(marker)
    path = tmp_path / "evil.npz"
    np.savez(path, w=evil)  # numpy pickles object arrays
    with pytest.raises(CheckpointError, match="object array") as err:
        mg.load(path)
    assert str(path) in str(err.value)
    # also when disguised as one of our checkpoints
    _npz_with_manifest(tmp_path / "disguised.npz", {"t": "array", "k": "a0"}, a0=evil)
    with pytest.raises(CheckpointError, match="object array"):
        mg.load(tmp_path / "disguised.npz")
    assert not marker.exists()


def test_truncated_and_corrupt_files_name_the_file(tmp_path):
    path = tmp_path / "ckpt.npz"
    data = FIXTURE.read_bytes()
    for n in (len(data) // 2, len(data) - 10, 20):
        path.write_bytes(data[:n])
        with pytest.raises(CheckpointError, match="truncated or corrupt") as err:
            mg.load(path)
        assert str(path) in str(err.value)
    start = data.index(b"\x93NUMPY", data.index(b"a0.npy"))  # the first array's .npy data
    corrupt = bytearray(data)
    corrupt[start + 130] ^= 0xFF  # a bit flipped inside its bytes: the zip's CRC-32 sees it
    path.write_bytes(bytes(corrupt))
    with pytest.raises(CheckpointError, match=str(path)):
        mg.load(path)


def test_bad_manifest_is_reported(tmp_path):
    path = tmp_path / "ckpt.npz"
    np.savez(path, **{MANIFEST_KEY: np.frombuffer(b'{"format": "other"}', dtype=np.uint8)})
    with pytest.raises(CheckpointError, match="not a minigrad checkpoint"):
        mg.load(path)
    manifest = b'{"format": "minigrad-checkpoint", "version": 1, "root": {"t": "array", "k": "a9"}}'
    np.savez(path, **{MANIFEST_KEY: np.frombuffer(manifest, dtype=np.uint8)})
    with pytest.raises(CheckpointError, match="missing array entry 'a9'"):
        mg.load(path)


def _npz_with_manifest(path, root, **arrays):
    """A file laid out like ours, with a hand-written manifest (as an attacker would)."""
    import json

    text = json.dumps({"format": "minigrad-checkpoint", "version": 1, "root": root})
    arrays[MANIFEST_KEY] = np.frombuffer(text.encode(), dtype=np.uint8)
    np.savez(path, **arrays)


def test_deeply_nested_manifest_is_refused_without_recursion_error(tmp_path):
    path = tmp_path / "deep.npz"
    for depth in (150, 1000, 5000):  # past MAX_DEPTH; past the JSON parser's recursion limit
        text = '{"format": "minigrad-checkpoint", "version": 1, "root": '
        text += '{"t": "list", "v": [' * depth + '{"t": "none"}' + "]}" * depth + "}"
        np.savez(path, **{MANIFEST_KEY: np.frombuffer(text.encode(), dtype=np.uint8)})
        with pytest.raises(CheckpointError, match="nested") as err:
            mg.load(path)
        assert str(path) in str(err.value)


def test_huge_integer_in_the_manifest_is_a_checkpoint_error(tmp_path):
    path = tmp_path / "int.npz"
    manifest = '{"format": "minigrad-checkpoint", "version": 1, "root": {"t": "int", "v": '
    manifest += "9" * 5000 + "}}"
    np.savez(path, **{MANIFEST_KEY: np.frombuffer(manifest.encode(), dtype=np.uint8)})
    with pytest.raises(CheckpointError, match="integer of 5000 digits"):
        mg.load(path)


def _npy_header(shape, dtype="<f8") -> bytes:
    """The bytes of a .npy header (magic included) declaring ``shape`` and ``dtype``."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": dtype, "fortran_order": False, "shape": shape}
    )
    return buf.getvalue()


def test_declared_size_beyond_the_file_is_refused_before_allocating(tmp_path, monkeypatch):
    header = _npy_header((100_000_000_000,))
    allocations = []
    real_empty = np.empty

    def watch(shape, *args, **kwargs):
        allocations.append(shape)
        return real_empty(shape, *args, **kwargs)

    monkeypatch.setattr(np, "empty", watch)
    # a bare .npy of 144 bytes declaring 745 GiB
    npy = tmp_path / "huge.npy"
    npy.write_bytes(header)
    assert len(header) < 200
    with pytest.raises(CheckpointError, match="declares a .100000000000. float64 array"):
        mg.load(npy)
    # the same member inside an npz, referenced by a manifest
    path = tmp_path / "huge.npz"
    _npz_with_manifest(path, {"t": "array", "k": "a0"}, a0=np.zeros(1))
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    members["a0.npy"] = header
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    with pytest.raises(CheckpointError, match="745|declares") as err:
        mg.load(path)
    assert "'a0'" in str(err.value)
    assert all(np.prod(s) < 10**6 for s in allocations), allocations


def test_zip_entry_declaring_more_than_the_file_holds(tmp_path):
    path = tmp_path / "ckpt.npz"
    _npz_with_manifest(path, {"t": "array", "k": "a0"}, a0=np.arange(100.0))
    data = bytearray(path.read_bytes())
    # the central directory's uncompressed size of the first member, made enormous
    cd = data.find(b"PK\x01\x02")
    data[cd + 24 : cd + 28] = (2**32 - 1).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="more than the file holds|truncated or corrupt"):
        mg.load(path)


def test_members_that_are_not_npy_data_are_refused(tmp_path):
    path = tmp_path / "odd.npz"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("a.npy", _npy_header((2,)) + bytes(16))
        z.writestr("notes.txt", b"hello")
    with pytest.raises(CheckpointError, match="entry 'notes.txt' is not .npy data"):
        mg.load(path)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("a0.npy", b"just some bytes, no npy header")
    with pytest.raises(CheckpointError, match=r"truncated or corrupt checkpoint, entry 'a0'"):
        mg.load(path)


def test_an_array_referenced_twice_is_refused(tmp_path):
    # 4,000 references to one 1 MiB entry would decode 4 GiB from a tiny manifest
    path = tmp_path / "repeat.npz"
    ref = {"t": "array", "k": "a0"}
    _npz_with_manifest(path, {"t": "list", "v": [ref] * 4000}, a0=np.zeros(2**17))
    with pytest.raises(CheckpointError, match="'a0' is referenced more than once"):
        mg.load(path)


def test_failed_loads_raise_only_checkpoint_errors(tmp_path):
    """Random damage to a real checkpoint: every failure is a CheckpointError."""
    load_damaged(tmp_path / "ckpt.npz", FIXTURE.read_bytes())  # any other error propagates
