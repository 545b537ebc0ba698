"""mg.save / mg.load: exact round trips, state_dict and optimizer resume through a file,
the safetensors layout other tools read by name, atomic writes through symbolic links,
pickled objects only when allowed (PyTorch's weights_only contract), and clear
CheckpointErrors for damaged and crafted files."""

import io
import json
import math
import os
import pickle
import struct
import zlib
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim
from minigrad.serialization import (
    MAX_DEPTH,
    CheckpointError,
    WeightsOnlyUnpicklingError,
    safetensors_file,
)
from tests.serialization_checks import Payload, load_damaged

safetensors_numpy = pytest.importorskip("safetensors.numpy")  # a dependency of minigrad


def _roundtrip(obj, tmp_path, **load_args):
    path = tmp_path / "ckpt.safetensors"
    mg.save(obj, path)
    return mg.load(path, **load_args)


@dataclass
class GPTConfig:
    """A config as training scripts save it beside the weights."""

    n_layer: int = 2
    n_embd: int = 16
    dropout: float = 0.0


def test_scalars_and_containers_keep_their_types(tmp_path):
    obj = {
        "int": 3,
        "big": 2**70,
        "neg": -1,
        "float": 0.1,
        "nan": math.nan,
        "inf": -math.inf,
        "negzero": -0.0,
        "bool": True,
        "none": None,
        "str": "héllo ✓",
        "tuple": (1, (2.5, "x"), []),
        "list": [False, {}, ()],
        7: "int key",
        (1, "a"): "tuple key",
        None: "None key",
        2.5: "float key",
        "od": OrderedDict([("b", 1), ("a", 2)]),
        "np_f32": np.float32(1.5),
        "np_i64": np.int64(-4),
        "np_bool": np.bool_(True),
    }
    back = _roundtrip(obj, tmp_path)
    assert list(back) == list(obj)
    for k, v in obj.items():
        b = back[k]
        assert type(b) is type(v), k
        if isinstance(v, float) and math.isnan(v):
            assert math.isnan(b)
        else:
            assert b == v, k
    assert math.copysign(1.0, back["negzero"]) == -1.0
    assert list(back["od"]) == ["b", "a"]
    assert back[7] == "int key" and "7" not in back
    keys = list(_roundtrip({True: 1, 0: 2, None: 3}, tmp_path))
    assert [type(k) for k in keys] == [bool, int, type(None)]


@pytest.mark.parametrize(
    "arr",
    [
        np.arange(12, dtype=np.float32).reshape(3, 4),
        np.arange(12, dtype=np.float64).reshape(3, 4).T,  # non-contiguous
        np.array(3.5),
        np.zeros((0, 5), dtype=np.int64),
        np.array([True, False]),
        np.array([1, 2], dtype=np.int8),
        np.array([1, 2], dtype=np.uint16),
        np.array([1, 2**31], dtype=np.uint32),
        np.array([1, 2**63], dtype=np.uint64),
        np.array([1.5], dtype=np.float16),
        np.array([1.5, -2.0], dtype=">f8"),  # big-endian: stored little-endian
        np.array([1 + 2j]),
        np.array([1 - 2j], dtype=np.complex64),
        np.array([1 / 3], dtype=np.longdouble),
        np.array(["a", "bcd"]),
        np.array([b"xy", b""]),
        np.arange(6, dtype=np.complex128).reshape(2, 3)[:, ::2],
    ],
    ids=lambda a: f"{a.dtype.str}{list(a.shape)}",
)
def test_arrays_round_trip_exactly(tmp_path, arr):
    back = _roundtrip({"a": arr}, tmp_path)["a"]
    assert type(back) is np.ndarray and back.dtype == arr.dtype and back.shape == arr.shape
    assert back.flags.writeable
    np.testing.assert_array_equal(back, arr)


def test_a_state_dict_reads_by_its_pytorch_names_without_minigrad(tmp_path):
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 3))
    path = tmp_path / "model.safetensors"
    mg.save(model.state_dict(), path)
    plain = safetensors_numpy.load_file(path)  # the format's own reader, no minigrad
    sd = model.state_dict()
    assert sorted(plain) == sorted(sd)
    for k, v in sd.items():
        assert plain[k].dtype == v.numpy().dtype and plain[k].shape == v.shape, k
        np.testing.assert_array_equal(plain[k], v.numpy(), err_msg=k)
    from safetensors import safe_open

    with safe_open(path, framework="numpy") as f:
        assert f.metadata()["format"] == "pt"
    fresh = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 3))
    fresh.load_state_dict(mg.load(path))
    model.eval()
    fresh.eval()
    x = mg.randn(5, 4)
    np.testing.assert_array_equal(fresh(x).numpy(), model(x).numpy())


def test_nested_checkpoints_name_their_arrays_by_path(tmp_path):
    model = nn.Linear(3, 2)
    opt = optim.AdamW(model.parameters())
    model(mg.randn(4, 3)).sum().backward()
    opt.step()
    path = tmp_path / "ckpt.safetensors"
    mg.save(
        {"model": model.state_dict(), "optimizer": opt.state_dict(), "step": 1,
         "losses": [mg.tensor(0.5)], "a.b": mg.ones(1), "a": {"b": mg.zeros(1)}},
        path,
    )  # fmt: skip
    names = set(safetensors_numpy.load_file(path))
    assert {
        "model.weight",
        "model.bias",
        "optimizer.state.0.exp_avg",
        "optimizer.state.1.exp_avg_sq",
        "losses.0",
    } <= names
    assert {"a.b", "a.b~1"} <= names  # two paths that meet get distinct names
    back = mg.load(path)
    assert back["a.b"].tolist() == [1.0] and back["a"]["b"].tolist() == [0.0]


def test_a_safetensors_file_of_another_program_loads_as_tensors_by_name(tmp_path):
    path = tmp_path / "other.safetensors"
    arrays = {"wte.weight": np.arange(6, dtype=np.float32).reshape(3, 2), "n": np.array(4)}
    safetensors_numpy.save_file(arrays, path)
    back = mg.load(path)
    assert sorted(back) == ["n", "wte.weight"]
    assert all(isinstance(v, mg.Tensor) for v in back.values())
    np.testing.assert_array_equal(back["wte.weight"].numpy(), arrays["wte.weight"])
    assert back["n"].shape == () and back["n"].item() == 4
    back["wte.weight"].add_(1.0)  # writable, not a view of the file
    buf = io.BytesIO(safetensors_numpy.save(arrays))
    np.testing.assert_array_equal(mg.load(buf)["n"].numpy(), 4)


def test_tensors_come_back_as_tensors(tmp_path):
    t = mg.tensor([1.0, 2.0], requires_grad=True)
    p = nn.Parameter(mg.ones(2, 2))
    back = _roundtrip([t, p, mg.tensor([1, 2])], tmp_path)
    assert all(isinstance(x, mg.Tensor) for x in back)
    assert back[0].requires_grad and back[1].requires_grad and not back[2].requires_grad
    np.testing.assert_array_equal(back[0].numpy(), t.numpy())


def test_training_resumes_exactly_from_a_file(tmp_path):
    def build():
        mg.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
        opt = optim.AdamW(model.parameters(), lr=0.01)
        sched = optim.lr_scheduler.SequentialLR(
            opt,
            [
                optim.lr_scheduler.LinearLR(opt, 0.1, total_iters=2),
                optim.lr_scheduler.CosineAnnealingLR(opt, 10),
            ],
            milestones=[2],
        )
        return model, opt, sched

    def train(model, opt, sched, steps, seed):
        rng = np.random.default_rng(seed)
        for _ in range(steps):
            x = mg.tensor(rng.standard_normal((6, 3)).astype(np.float32))
            opt.zero_grad()
            F.cross_entropy(model(x), mg.tensor(rng.integers(0, 2, 6))).backward()
            opt.step()
            sched.step()

    model, opt, sched = build()
    train(model, opt, sched, 3, seed=1)
    path = tmp_path / "run.ckpt"  # any extension: written exactly at this path
    mg.save(
        {
            "model": model.state_dict(),
            "opt": opt.state_dict(),
            "sched": sched.state_dict(),
            "step": 3,
        },
        path,
    )
    assert path.exists()
    train(model, opt, sched, 4, seed=2)

    model2, opt2, sched2 = build()
    state = mg.load(path)
    model2.load_state_dict(state["model"])
    opt2.load_state_dict(state["opt"])
    sched2.load_state_dict(state["sched"])
    assert state["step"] == 3 and sorted(state["opt"]["state"]) == [0, 1, 2, 3]
    train(model2, opt2, sched2, 4, seed=2)
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(model2.state_dict()[k], v, err_msg=k)
    assert sched2.get_last_lr() == sched.get_last_lr()


def test_file_objects(tmp_path):
    buf = io.BytesIO()
    mg.save({"w": np.ones(3), "k": 1}, buf)
    buf.seek(0)
    back = mg.load(buf)
    assert back["k"] == 1 and np.all(back["w"] == 1)


def test_save_refuses_what_load_would_refuse(tmp_path):
    deep = []
    for _ in range(MAX_DEPTH + 1):
        deep = [deep]
    with pytest.raises(ValueError, match=f"nested more than {MAX_DEPTH}"):
        mg.save(deep, tmp_path / "deep.safetensors")
    ok = []
    for _ in range(MAX_DEPTH - 1):
        ok = [ok]
    assert _roundtrip(ok, tmp_path) == ok
    with pytest.raises(ValueError, match="more than 100 digits"):
        mg.save({"n": 10**100}, tmp_path / "big.safetensors")
    assert _roundtrip({"n": -(10**99)}, tmp_path)["n"] == -(10**99)


# ---------------------------------------------------------------------- other objects
def test_objects_are_pickled_and_load_only_when_allowed(tmp_path):
    """PyTorch's contract since 2.6: weights_only=True, the default, unpickles nothing
    that is not allowed; the error says what to pass."""
    path = tmp_path / "ckpt.safetensors"
    weights = mg.tensor([[1.0, 2.0]])
    mg.save({"model": {"w": weights}, "config": GPTConfig(n_layer=3)}, path)
    with pytest.raises(WeightsOnlyUnpicklingError) as err:
        mg.load(path)
    message = str(err.value)
    assert isinstance(err.value, pickle.UnpicklingError)  # the class torch.load raises
    for fragment in (str(path), "obj['config']", "GPTConfig", "weights_only=False",
                     "add_safe_globals([GPTConfig])"):  # fmt: skip
        assert fragment in message, message
    back = mg.load(path, weights_only=False)
    assert back["config"] == GPTConfig(n_layer=3)
    np.testing.assert_array_equal(back["model"]["w"].numpy(), weights.numpy())
    # allowed by name, in a block or for the process
    with mg.serialization.safe_globals([GPTConfig]):
        assert mg.load(path)["config"] == GPTConfig(n_layer=3)
    assert GPTConfig not in mg.serialization.get_safe_globals()
    with pytest.raises(WeightsOnlyUnpicklingError):
        mg.load(path)
    mg.serialization.add_safe_globals([GPTConfig])
    try:
        assert mg.load(path, weights_only=True)["config"].n_layer == 3
    finally:
        mg.serialization.clear_safe_globals()
    # the weights are plain tensors under their names, whatever the config holds
    assert sorted(safetensors_numpy.load_file(path)) == ["model.w"]


def test_tensors_inside_pickled_objects_are_stored_as_named_arrays(tmp_path):
    model = nn.Linear(2, 3)
    shared = np.arange(4.0)
    cfg = GPTConfig()
    cfg.mask = shared
    cfg.again = shared  # one array, two references: one stored array, one object back
    cfg.param = model.weight
    cfg.scale = np.float32(0.5)
    path = tmp_path / "obj.safetensors"
    mg.save({"cfg": cfg, "whole_module": model}, path)
    stored = safetensors_numpy.load_file(path)
    assert len(stored) == 5  # mask, weight, scale; the module's weight and bias
    back = mg.load(path, weights_only=False)
    assert back["cfg"].mask is back["cfg"].again
    np.testing.assert_array_equal(back["cfg"].mask, shared)
    assert isinstance(back["cfg"].param, nn.Parameter) and back["cfg"].param.requires_grad
    assert back["cfg"].scale == np.float32(0.5) and type(back["cfg"].scale) is np.float32
    x = mg.randn(4, 2)
    np.testing.assert_array_equal(back["whole_module"](x).numpy(), model(x).numpy())


def test_objects_that_cannot_be_pickled_are_named_and_nothing_is_written(tmp_path):
    path = tmp_path / "x.safetensors"
    with pytest.raises(pickle.PicklingError, match=r"function at obj\['cfg'\]\['fn'\]"):
        mg.save({"cfg": {"fn": lambda x: x}}, path)
    assert os.listdir(tmp_path) == []
    mg.save({"fn": print, "s": {1, 2}, "objs": np.array([None, "x"], dtype=object)}, path)
    with pytest.raises(WeightsOnlyUnpicklingError, match="builtins.print"):
        mg.load(path)
    back = mg.load(path, weights_only=False)
    assert back["fn"] is print and back["s"] == {1, 2} and back["objs"].tolist() == [None, "x"]


def test_a_pickled_payload_in_a_checkpoint_runs_no_code_by_default(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.safetensors"
    mg.save({"w": mg.ones(2), "x": Payload(marker)}, path)
    for allowed in ([], [GPTConfig]):
        with mg.serialization.safe_globals(allowed):
            with pytest.raises(WeightsOnlyUnpicklingError, match="builtins.open|io.open"):
                mg.load(path)
    assert not marker.exists()
    mg.load(path, weights_only=False)  # what the caller asked for: it runs
    assert marker.exists()


def test_bytes_in_allowed_objects_load_and_only_latin1_codecs_run(tmp_path):
    """Pickle protocol 2 (torch.save's and mg.save's default) rebuilds bytes with
    _codecs.encode(text, "latin1"): allowed for that, and for nothing else."""
    import base64
    import codecs
    import datetime

    path = tmp_path / "date.safetensors"
    mg.save({"when": datetime.date(2026, 12, 6), "raw": GPTConfig(n_layer=b"\x00\xff")}, path)
    with mg.serialization.safe_globals([datetime.date, GPTConfig]):
        back = mg.load(path)
    assert back["when"] == datetime.date(2026, 12, 6) and back["raw"].n_layer == b"\x00\xff"

    class OtherCodec:
        def __reduce__(self):
            return (codecs.encode, ("abc", "utf-16"))

    payload = pickle.dumps(OtherCodec(), protocol=2, fix_imports=False)
    assert b"_codecs" in payload
    node = {"t": "pickle", "type": "x", "v": base64.b64encode(payload).decode(),
            "crc": zlib.crc32(payload), "refs": []}  # fmt: skip
    _craft(path, _structure(node))
    with pytest.raises(WeightsOnlyUnpicklingError, match="only to rebuild bytes"):
        mg.load(path)


def test_pickle_file_is_refused_and_runs_no_code(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    for protocol in (0, 2):
        path.write_bytes(pickle.dumps({"w": Payload(marker)}, protocol=protocol))
        for weights_only in (None, True, False):
            with pytest.raises(CheckpointError, match="pickle") as err:
                mg.load(path, weights_only=weights_only)
            assert str(path) in str(err.value)
    assert not marker.exists()


def test_reference_cycle_is_refused(tmp_path):
    a = []
    a.append(a)
    with pytest.raises(ValueError, match="reference cycle"):
        mg.save(a, tmp_path / "c.safetensors")


# ---------------------------------------------------------------------- atomic writes
def test_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.safetensors"
    mg.save({"version": 1}, path)
    before = path.read_bytes()

    def crash(arrays, metadata, tmp):
        with open(tmp, "wb") as f:
            f.write(before[: len(before) // 2])
        raise OSError("disk full")

    monkeypatch.setattr(safetensors_file, "write_file", crash)
    with pytest.raises(OSError, match="disk full"):
        mg.save({"version": 2, "w": np.ones(1000)}, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.safetensors"]
    assert mg.load(path) == {"version": 1}


def test_save_writes_through_a_symbolic_link(tmp_path):
    """As open(path, "wb") would: the link stays, its target gets the new file."""
    (tmp_path / "runs").mkdir()
    target = tmp_path / "runs" / "step-100.safetensors"
    mg.save({"step": 100}, target)
    os.chmod(target, 0o640)
    link = tmp_path / "latest.safetensors"
    link.symlink_to(os.path.join("runs", "step-100.safetensors"))  # a relative link
    mg.save({"step": 101}, link)
    assert link.is_symlink() and os.readlink(link) == os.path.join("runs", "step-100.safetensors")
    assert mg.load(target) == {"step": 101} and mg.load(link) == {"step": 101}
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(os.listdir(tmp_path / "runs")) == ["step-100.safetensors"]  # no temporary
    dangling = tmp_path / "dangling.safetensors"
    dangling.symlink_to(tmp_path / "runs" / "new.safetensors")
    mg.save({"step": 1}, dangling)
    assert dangling.is_symlink() and mg.load(tmp_path / "runs" / "new.safetensors") == {"step": 1}


# ---------------------------------------------------------------------- damaged and crafted files
def _craft(path, header: dict, data: bytes = b"", length: int | None = None):
    """A safetensors file made by hand, as an attacker would: its header, then ``data``."""
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text) if length is None else length) + text + data)


def _structure(root) -> dict:
    text = json.dumps({"format": "minigrad-checkpoint", "version": 2, "root": root})
    return {"__metadata__": {"format": "pt", "minigrad": text}}


def test_truncated_and_corrupt_files_name_the_file(tmp_path):
    path = tmp_path / "ckpt.safetensors"
    mg.save({"w": np.arange(1000.0)}, path)
    data = path.read_bytes()
    for n in (len(data) // 2, len(data) - 10, 20, 8, 3):
        path.write_bytes(data[:n])
        with pytest.raises(CheckpointError, match="truncated or corrupt|not a checkpoint") as err:
            mg.load(path)
        assert str(path) in str(err.value)
    corrupt = bytearray(data)
    corrupt[len(data) - 100] ^= 0x01  # one bit of the array's bytes
    path.write_bytes(bytes(corrupt))
    with pytest.raises(CheckpointError, match="do not match their checksum") as err:
        mg.load(path)
    assert str(path) in str(err.value) and "'w'" in str(err.value)
    path.write_bytes(b"")
    with pytest.raises(CheckpointError, match="empty file"):
        mg.load(path)
    path.write_bytes(b"hello world")
    with pytest.raises(CheckpointError, match="not a checkpoint"):
        mg.load(path)
    with pytest.raises(FileNotFoundError):
        mg.load(tmp_path / "missing.safetensors")


def test_a_huge_declared_header_or_tensor_is_refused_before_allocating(tmp_path):
    path = tmp_path / "huge.safetensors"
    # a 30-byte file whose first 8 bytes declare a header of 2**62 bytes
    _craft(path, {}, length=2**62)
    with pytest.raises(CheckpointError, match="more than the 100,000,000"):
        mg.load(path)
    # a header declaring a tensor of 10**12 float64 that the file does not hold
    _craft(path, {"w": {"dtype": "F64", "shape": [10**12], "data_offsets": [0, 8 * 10**12]}})
    with pytest.raises(CheckpointError, match="truncated or corrupt") as err:
        mg.load(path)
    assert not isinstance(err.value, MemoryError)
    # a tensor whose shape and offsets disagree
    _craft(path, {"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 8]}}, bytes(8))
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        mg.load(path)


def test_crafted_structures_are_refused(tmp_path):
    path = tmp_path / "crafted.safetensors"
    w = np.zeros(2**17)
    tensor = {"w": {"dtype": "F64", "shape": [2**17], "data_offsets": [0, w.nbytes]}}
    ref = {"t": "array", "k": "w", "crc": zlib.crc32(w)}
    # 4,000 references to one 1 MiB array would decode 4 GiB from a small header
    _craft(path, {**_structure({"t": "list", "v": [ref] * 4000}), **tensor}, w.tobytes())
    with pytest.raises(CheckpointError, match="'w' is referenced more than once"):
        mg.load(path)
    # nesting past MAX_DEPTH, and past the JSON parser's recursion limit
    for depth in (MAX_DEPTH + 50, 5000):
        root = '{"t": "list", "v": [' * depth + '{"t": "none"}' + "]}" * depth
        text = '{"format": "minigrad-checkpoint", "version": 2, "root": ' + root + "}"
        _craft(path, {"__metadata__": {"minigrad": text}})
        with pytest.raises(CheckpointError, match="nested") as err:
            mg.load(path)
        assert str(path) in str(err.value)
    # an integer of 5,000 digits
    text = '{"format": "minigrad-checkpoint", "version": 2, "root": {"t": "int", "v": '
    _craft(path, {"__metadata__": {"minigrad": text + "9" * 5000 + "}}"}})
    with pytest.raises(CheckpointError, match="integer of 5000 digits"):
        mg.load(path)
    # a byte-stored array whose dtype would need pickling, or does not fit its bytes
    raw = {"w": {"dtype": "U8", "shape": [8], "data_offsets": [0, 8]}}
    for spec, match in (({"dtype": "|O", "shape": [1]}, "not one a checkpoint stores"),
                        ({"dtype": "<f8", "shape": [2]}, "holds 8 bytes, not the 16")):  # fmt: skip
        node = {"t": "array", "k": "w", "crc": zlib.crc32(bytes(8)), "bytes": spec}
        _craft(path, {**_structure(node), **raw}, bytes(8))
        with pytest.raises(CheckpointError, match=match):
            mg.load(path)
    # a missing array, an unknown node, a version from the future
    _craft(path, _structure({"t": "tensor", "k": "nope", "crc": 0}))
    with pytest.raises(CheckpointError, match="missing array entry 'nope'"):
        mg.load(path)
    _craft(path, _structure({"t": "function", "v": "os.system"}))
    with pytest.raises(CheckpointError, match="unknown node type 'function'"):
        mg.load(path)
    future = {"__metadata__": {"minigrad": '{"format": "minigrad-checkpoint", "version": 3}'}}
    _craft(path, future)
    with pytest.raises(CheckpointError, match="version 3 is not supported"):
        mg.load(path)
    # a tensor of a dtype NumPy has no type for
    _craft(path, {"w": {"dtype": "BF16", "shape": [1], "data_offsets": [0, 2]}}, bytes(2))
    with pytest.raises(CheckpointError, match="'w' has dtype 'BF16'.*convert it to float32"):
        mg.load(path)


def test_failed_loads_raise_only_checkpoint_errors(tmp_path):
    """Random damage to a real checkpoint: every failure is a CheckpointError."""
    path = tmp_path / "ckpt.safetensors"
    model = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 2))
    mg.save({"model": model.state_dict(), "step": 3, "cfg": {"lr": 0.1}}, path)
    failures = load_damaged(path, path.read_bytes())
    assert failures > 450  # the checksums and the header's checks catch most damage


def test_overwrite_replaces_and_keeps_permissions(tmp_path):
    path = tmp_path / "ckpt.safetensors"
    mg.save({"v": 1}, path)
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's private 0o600
    os.chmod(path, 0o640)
    mg.save({"v": 2}, path)
    assert mg.load(path) == {"v": 2}
    assert path.stat().st_mode & 0o777 == 0o640


def test_stale_temporaries_of_the_same_target_are_removed_on_the_next_save(tmp_path):
    import subprocess
    import sys

    target = tmp_path / "ckpt.safetensors"
    # a save killed mid-write: its process is gone, its temporary stays behind
    code = (
        "import os, sys; "
        "open(sys.argv[1] + f'/.ckpt.safetensors.{os.getpid()}-x1.tmp', 'wb').write(b'half')"
    )
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True)
    (stale,) = tmp_path.glob(".ckpt.safetensors.*.tmp")
    alive = tmp_path / f".ckpt.safetensors.{os.getppid()}-x2.tmp"  # a process that is still running
    alive.write_bytes(b"half")
    other = tmp_path / ".other.safetensors.1-x3.tmp"  # another target's: not ours to touch
    other.write_bytes(b"half")
    mg.save({"v": 1}, target)
    assert not stale.exists()
    assert alive.exists() and other.exists()
    assert mg.load(target) == {"v": 1}


def test_torch_save_file_is_refused(torch, tmp_path):
    path = tmp_path / "model.pt"
    torch.save(torch.nn.Linear(2, 2).state_dict(), path)
    with pytest.raises(CheckpointError, match="PyTorch checkpoint"):
        mg.load(path)


# ---------------------------------------------------------------------- PyTorch's calls
def test_load_accepts_pytorchs_arguments(tmp_path):
    path = tmp_path / "ckpt.safetensors"
    mg.save({"w": np.arange(3.0)}, path)
    for kwargs in (
        {"map_location": "cpu"},
        {"map_location": "cuda:0"},  # everything is on the CPU: a CUDA location is fine
        {"map_location": {"cuda:0": "cpu"}},
        {"map_location": lambda storage, loc: storage},
        {"weights_only": True},
        {"weights_only": False},
        {"pickle_module": pickle},  # weights_only then defaults to False, as in torch
        {"map_location": "cpu", "weights_only": True, "mmap": True},
    ):
        np.testing.assert_array_equal(mg.load(path, **kwargs)["w"], np.arange(3.0))
    with pytest.raises(TypeError, match="map_location must be"):
        mg.load(path, map_location=3)
    with pytest.raises(TypeError, match="weights_only must be a bool"):
        mg.load(path, weights_only="yes")
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        mg.load(path, pickle_module=pickle, weights_only=True)


def test_refusals_raise_the_exception_classes_torch_load_raises(torch, tmp_path):
    """A pickled config under weights_only=True: pickle.UnpicklingError in both; a
    damaged file: RuntimeError in both."""
    ours, theirs = tmp_path / "ours.safetensors", tmp_path / "theirs.pt"
    mg.save({"config": GPTConfig()}, ours)
    torch.save({"config": GPTConfig()}, theirs)
    for load, path in ((mg.load, ours), (torch.load, theirs)):
        with pytest.raises(pickle.UnpicklingError):
            load(path)
        assert load(path, weights_only=False)["config"] == GPTConfig()
        path.write_bytes(path.read_bytes()[:-40])
        with pytest.raises(RuntimeError):
            load(path, weights_only=False)


def test_weights_move_to_pytorch_and_back_by_name(torch, tmp_path):
    """mg.save of a state_dict is what safetensors.torch reads into the same PyTorch
    model, and a file safetensors.torch writes loads into the minigrad model."""
    safetensors_torch = pytest.importorskip("safetensors.torch")
    ours = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.Linear(8, 3))
    theirs = torch.nn.Sequential(
        torch.nn.Linear(4, 8), torch.nn.LayerNorm(8), torch.nn.Linear(8, 3)
    )
    mg.save(ours.state_dict(), tmp_path / "ours.safetensors")
    theirs.load_state_dict(safetensors_torch.load_file(tmp_path / "ours.safetensors"))
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(
        theirs(torch.tensor(x)).detach().numpy(), ours(mg.tensor(x)).numpy(), rtol=1e-6, atol=1e-6
    )
    with torch.no_grad():
        for p in theirs.parameters():
            p.mul_(2)
    safetensors_torch.save_file(theirs.state_dict(), tmp_path / "theirs.safetensors")
    ours.load_state_dict(mg.load(tmp_path / "theirs.safetensors"))
    for k, v in theirs.state_dict().items():
        np.testing.assert_array_equal(ours.state_dict()[k].numpy(), v.numpy(), err_msg=k)


def test_a_pytorch_style_training_checkpoint_round_trips(tmp_path):
    """The checkpoint code of a GPT training script, with only its imports changed."""
    torch = mg  # noqa: F841 (the script below reads as it would against torch)

    def build():
        mg.manual_seed(0)
        model = nn.Sequential(nn.Embedding(10, 8), nn.LayerNorm(8), nn.Linear(8, 10))
        return model, optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1)

    def step(model, opt, seed):
        rng = np.random.default_rng(seed)
        x = mg.tensor(rng.integers(0, 10, size=(4, 5)))
        y = mg.tensor(rng.integers(0, 10, size=(4 * 5,)))
        loss = F.cross_entropy(model(x).reshape(-1, 10), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss

    model, opt = build()
    loss = step(model, opt, 1)
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "model_args": {"n_layer": 1, "bias": True, "dropout": 0.0},
        "iter_num": 1,
        "best_val_loss": loss.detach(),
        "config": {"learning_rate": 0.01, "betas": (0.9, 0.95)},
    }
    mg.save(checkpoint, tmp_path / "ckpt.pt")
    expected = [step(model, opt, s).item() for s in (2, 3)]

    ckpt = mg.load(tmp_path / "ckpt.pt", map_location="cpu", weights_only=True)
    model2, opt2 = build()
    state_dict = ckpt["model"]
    unwanted_prefix = "_orig_mod."
    for k, _v in list(state_dict.items()):
        if k.startswith(unwanted_prefix):
            state_dict[k[len(unwanted_prefix) :]] = state_dict.pop(k)
    model2.load_state_dict(state_dict)
    opt2.load_state_dict(ckpt["optimizer"])
    assert ckpt["iter_num"] == 1 and ckpt["config"]["betas"] == (0.9, 0.95)
    assert isinstance(ckpt["best_val_loss"], mg.Tensor)
    assert float(ckpt["best_val_loss"]) == loss.item()
    assert [step(model2, opt2, s).item() for s in (2, 3)] == expected


def test_load_state_dict_into_read_only_arrays_names_the_key_and_changes_nothing(tmp_path):
    weights = np.lib.format.open_memmap(
        tmp_path / "emb.npy", mode="w+", dtype=np.float32, shape=(5, 3)
    )
    weights[:] = 1.0
    weights.flush()
    del weights
    frozen = np.load(tmp_path / "emb.npy", mmap_mode="r")  # read-only memory map
    model = nn.Sequential(nn.Linear(3, 3), nn.Embedding.from_pretrained(frozen))
    if model[1].weight.numpy().flags.writeable:
        pytest.skip("from_pretrained copied the array (nothing read-only to test)")
    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    new = {k: np.full(v.shape, 7.0, dtype=np.float32) for k, v in before.items()}
    with pytest.raises(RuntimeError, match='"1.weight", its array is read-only'):
        model.load_state_dict(new)
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k], err_msg=k)  # 0.* unchanged too
