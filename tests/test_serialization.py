"""mg.save / mg.load: exact round trips, state_dict and optimizer resume through a file,
atomic writes, refusal of pickles and object arrays (no code runs), corrupt files."""

import io
import math
import os
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim
from minigrad import serialization
from minigrad.serialization import MANIFEST_KEY, MAX_DEPTH, CheckpointError


def _roundtrip(obj, tmp_path):
    path = tmp_path / "ckpt.npz"
    mg.save(obj, path)
    return mg.load(path)


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


@pytest.mark.parametrize(
    "arr",
    [
        np.arange(12, dtype=np.float32).reshape(3, 4),
        np.arange(12, dtype=np.float64).reshape(3, 4).T,  # non-contiguous
        np.array(3.5),
        np.zeros((0, 5), dtype=np.int64),
        np.array([True, False]),
        np.array([1, 2], dtype=np.int8),
        np.array([1.5], dtype=np.float16),
        np.array([1 + 2j]),
        np.array(["a", "bcd"]),
    ],
    ids=lambda a: f"{a.dtype}{list(a.shape)}",
)
def test_arrays_round_trip_exactly(tmp_path, arr):
    back = _roundtrip({"a": arr}, tmp_path)["a"]
    assert type(back) is np.ndarray and back.dtype == arr.dtype and back.shape == arr.shape
    np.testing.assert_array_equal(back, arr)


def test_tensors_come_back_as_tensors(tmp_path):
    t = mg.tensor([1.0, 2.0], requires_grad=True)
    p = nn.Parameter(mg.ones(2, 2))
    back = _roundtrip([t, p, mg.tensor([1, 2])], tmp_path)
    assert all(isinstance(x, mg.Tensor) for x in back)
    assert back[0].requires_grad and back[1].requires_grad and not back[2].requires_grad
    np.testing.assert_array_equal(back[0].numpy(), t.numpy())


def test_model_state_dict_round_trip_gives_identical_outputs(tmp_path):
    model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 3))
    path = tmp_path / "model.npz"
    mg.save(model.state_dict(), path)
    fresh = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 3))
    fresh.load_state_dict(mg.load(path))
    x = mg.randn(5, 4)
    np.testing.assert_array_equal(fresh(x).numpy(), model(x).numpy())
    # an ordinary npz: numpy reads the arrays without minigrad (and without pickle)
    with np.load(path, allow_pickle=False) as z:
        assert MANIFEST_KEY in z.files and len(z.files) == 5


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


def test_plain_npz_and_npy_load_as_arrays(tmp_path):
    np.savez(tmp_path / "plain.npz", a=np.arange(3), b=np.ones(2))
    back = mg.load(tmp_path / "plain.npz")
    assert sorted(back) == ["a", "b"] and np.all(back["a"] == np.arange(3))
    np.save(tmp_path / "one.npy", np.eye(2))
    np.testing.assert_array_equal(mg.load(tmp_path / "one.npy"), np.eye(2))


# ---------------------------------------------------------------------- unsupported input
@pytest.mark.parametrize(
    "obj,match",
    [
        ({"cfg": {"fn": print}}, r"builtin_function_or_method at obj\['cfg'\]\['fn'\]"),
        ({(1, 2): 3}, "dict keys must be str or int"),
        ({True: 3}, "dict keys must be str or int"),
        ({"a": np.array([object()])}, r"dtype object"),
        ({"s": {1, 2}}, "cannot save set"),
    ],
)
def test_unsupported_objects_are_refused_and_nothing_is_written(tmp_path, obj, match):
    path = tmp_path / "x.npz"
    with pytest.raises(TypeError, match=match):
        mg.save(obj, path)
    assert os.listdir(tmp_path) == []


def test_reference_cycle_is_refused(tmp_path):
    a = []
    a.append(a)
    with pytest.raises(ValueError, match="reference cycle"):
        mg.save(a, tmp_path / "c.npz")


# ---------------------------------------------------------------------- atomic writes
def test_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.npz"
    mg.save({"version": 1}, path)
    before = path.read_bytes()

    def crash(fh, arrays):
        fh.write(b"PK\x03\x04 half a zip")
        raise OSError("disk full")

    monkeypatch.setattr(serialization, "_savez", crash)
    with pytest.raises(OSError, match="disk full"):
        mg.save({"version": 2, "w": np.ones(1000)}, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.npz"]
    assert mg.load(path) == {"version": 1}


def test_overwrite_replaces_and_keeps_permissions(tmp_path):
    path = tmp_path / "ckpt.npz"
    mg.save({"v": 1}, path)
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's private 0o600
    os.chmod(path, 0o640)
    mg.save({"v": 2}, path)
    assert mg.load(path) == {"v": 2}
    assert path.stat().st_mode & 0o777 == 0o640


# ---------------------------------------------------------------------- untrusted files
class _Payload:
    """Unpickling this would create ``marker``: the test fails if any code runs."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_pickle_file_is_refused_and_runs_no_code(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps({"w": _Payload(marker)}))
    for protocol in (0, 2):
        path.write_bytes(pickle.dumps({"w": _Payload(marker)}, protocol=protocol))
        with pytest.raises(CheckpointError, match="pickle") as err:
            mg.load(path)
        assert str(path) in str(err.value)
    assert not marker.exists()


def test_object_array_in_npz_is_refused_and_runs_no_code(tmp_path):
    marker = tmp_path / "pwned"
    evil = np.empty(1, dtype=object)
    evil[0] = _Payload(marker)
    path = tmp_path / "evil.npz"
    np.savez(path, w=evil)  # numpy pickles object arrays
    with pytest.raises(CheckpointError, match="object array") as err:
        mg.load(path)
    assert str(path) in str(err.value)
    # also when disguised as one of our checkpoints
    mg.save({"w": np.ones(2)}, tmp_path / "good.npz")
    with np.load(tmp_path / "good.npz") as z:
        entries = {k: z[k] for k in z.files}
    entries["a0"] = evil
    np.savez(tmp_path / "disguised.npz", **entries)
    with pytest.raises(CheckpointError, match="object array"):
        mg.load(tmp_path / "disguised.npz")
    assert not marker.exists()


def test_torch_save_file_is_refused(torch, tmp_path):
    path = tmp_path / "model.pt"
    torch.save(torch.nn.Linear(2, 2).state_dict(), path)
    with pytest.raises(CheckpointError, match="PyTorch checkpoint"):
        mg.load(path)


def test_truncated_and_corrupt_files_name_the_file(tmp_path):
    path = tmp_path / "ckpt.npz"
    mg.save({"w": np.arange(1000.0)}, path)
    data = path.read_bytes()
    for n in (len(data) // 2, len(data) - 10, 20):
        path.write_bytes(data[:n])
        with pytest.raises(CheckpointError, match="truncated or corrupt") as err:
            mg.load(path)
        assert str(path) in str(err.value)
    corrupt = bytearray(data)
    corrupt[len(data) // 3] ^= 0xFF  # flip bits inside the array's bytes
    path.write_bytes(bytes(corrupt))
    with pytest.raises(CheckpointError, match=str(path)):
        mg.load(path)
    path.write_bytes(b"")
    with pytest.raises(CheckpointError, match="empty file"):
        mg.load(path)
    path.write_bytes(b"hello world")
    with pytest.raises(CheckpointError, match="not a minigrad checkpoint"):
        mg.load(path)
    with pytest.raises(FileNotFoundError):
        mg.load(tmp_path / "missing.npz")


def test_bad_manifest_is_reported(tmp_path):
    path = tmp_path / "ckpt.npz"
    np.savez(path, **{MANIFEST_KEY: np.frombuffer(b'{"format": "other"}', dtype=np.uint8)})
    with pytest.raises(CheckpointError, match="not a minigrad checkpoint"):
        mg.load(path)
    manifest = b'{"format": "minigrad-checkpoint", "version": 1, "root": {"t": "array", "k": "a9"}}'
    np.savez(path, **{MANIFEST_KEY: np.frombuffer(manifest, dtype=np.uint8)})
    with pytest.raises(CheckpointError, match="missing array entry 'a9'"):
        mg.load(path)


# ---------------------------------------------------------------------- crafted files
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


def test_save_refuses_what_load_would_refuse(tmp_path):
    deep = []
    for _ in range(MAX_DEPTH + 1):
        deep = [deep]
    with pytest.raises(ValueError, match=f"nested more than {MAX_DEPTH}"):
        mg.save(deep, tmp_path / "deep.npz")
    ok = []
    for _ in range(MAX_DEPTH - 1):
        ok = [ok]
    assert _roundtrip(ok, tmp_path) == ok
    with pytest.raises(ValueError, match="more than 100 digits"):
        mg.save({"n": 10**100}, tmp_path / "big.npz")
    assert _roundtrip({"n": -(10**99)}, tmp_path)["n"] == -(10**99)


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
    mg.save({"w": np.zeros(1)}, path)
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
    mg.save({"w": np.arange(100.0)}, path)
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
    path = tmp_path / "ckpt.npz"
    model = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 2))
    mg.save({"model": model.state_dict(), "step": 3, "cfg": {"lr": 0.1}}, path)
    data = path.read_bytes()
    rng = np.random.default_rng(0)
    for _ in range(600):
        damaged = bytearray(data)
        for i in rng.integers(0, len(data), size=rng.integers(1, 6)):
            damaged[i] = rng.integers(0, 256)
        if rng.random() < 0.2:
            damaged = damaged[: rng.integers(0, len(damaged))]
        path.write_bytes(bytes(damaged))
        try:
            mg.load(path)
        except CheckpointError:
            pass


# ---------------------------------------------------------------------- stale temporaries
def test_stale_temporaries_of_the_same_target_are_removed_on_the_next_save(tmp_path):
    import subprocess
    import sys

    target = tmp_path / "ckpt.npz"
    # a save killed mid-write: its process is gone, its temporary stays behind
    code = (
        "import os, sys; open(sys.argv[1] + f'/.ckpt.npz.{os.getpid()}-x1.tmp', 'wb').write(b'PK')"
    )
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True)
    (stale,) = tmp_path.glob(".ckpt.npz.*.tmp")
    alive = tmp_path / f".ckpt.npz.{os.getppid()}-x2.tmp"  # a process that is still running
    alive.write_bytes(b"PK")
    other = tmp_path / ".other.npz.1-x3.tmp"  # another target's: not ours to touch
    other.write_bytes(b"PK")
    mg.save({"v": 1}, target)
    assert not stale.exists()
    assert alive.exists() and other.exists()
    assert mg.load(target) == {"v": 1}


# ---------------------------------------------------------------------- PyTorch's calls
def test_load_accepts_map_location_and_weights_only(tmp_path):
    path = tmp_path / "ckpt.npz"
    mg.save({"w": np.arange(3.0)}, path)
    for kwargs in (
        {"map_location": "cpu"},
        {"map_location": "cuda:0"},  # everything is on the CPU: a CUDA location is fine
        {"map_location": {"cuda:0": "cpu"}},
        {"map_location": lambda storage, loc: storage},
        {"weights_only": True},
        {"weights_only": False},  # does not turn unpickling on
        {"map_location": "cpu", "weights_only": True, "mmap": True},
    ):
        np.testing.assert_array_equal(mg.load(path, **kwargs)["w"], np.arange(3.0))
    with pytest.raises(TypeError, match="map_location must be"):
        mg.load(path, map_location=3)
    with pytest.raises(TypeError, match="weights_only must be a bool"):
        mg.load(path, weights_only="yes")
    pickled = tmp_path / "p.pt"
    pickled.write_bytes(pickle.dumps({"w": 1}))
    with pytest.raises(CheckpointError, match="pickle"):
        mg.load(pickled, weights_only=False)


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


# ---------------------------------------------------------------------- read-only targets
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
