"""Checkpoints: ``mg.save(obj, path)`` and ``mg.load(path)``, in ``.npz``, never pickled.

What can be saved: nested ``dict`` / ``OrderedDict`` (keys ``str`` or ``int``), ``list``
and ``tuple`` of NumPy arrays, Tensors (loaded back as Tensors), NumPy scalars and plain
``int``, ``float``, ``bool``, ``str`` and ``None``: a model's ``state_dict()``, an
optimizer's (whose ``state`` has int keys), a scheduler's, a step count, a config.
Everything comes back with its type, including int keys, tuples and NaN floats.

File layout: an ordinary NumPy ``.npz`` (a zip of ``.npy`` files) holding one entry per
array (``a0``, ``a1``, ...) and an entry ``__minigrad_manifest__``: the UTF-8 bytes (a
``uint8`` array) of a JSON document describing the structure, in which each array
appears as a reference to its entry. ``numpy.load(path)`` can read every array of a
checkpoint without minigrad.

Safety: ``load`` never unpickles. It checks the file's first bytes, so pickle files
(``torch.save``, ``pickle.dump``) are refused before anything is deserialised, and it
reads every ``.npy`` member itself: object arrays, members that are not ``.npy`` data,
declared sizes that the file does not hold (checked before anything is allocated),
manifests nested deeper than ``MAX_DEPTH`` levels, integers longer than
``MAX_INT_DIGITS`` digits and arrays referenced twice are all refused with a
``CheckpointError`` naming the file and the entry. Opening an untrusted checkpoint cannot
run code, and cannot make ``load`` allocate more than the file holds (times zlib's
maximum ratio of 1032 for a deflated member of a plain ``.npz``).

Atomic writes: ``save`` writes a temporary file in the target's folder
(``.NAME.PID-RANDOM.tmp``), flushes and fsyncs it, then renames it over the target
(``os.replace``), so a crash at any moment leaves either the old file or the complete
new one, never a truncated mix. A temporary left by a killed save (its process is gone)
is removed by the next save to the same target.
"""

from __future__ import annotations

import os
from collections import OrderedDict

import numpy as np

from minigrad.tensor import Tensor

__all__ = ["save", "load", "CheckpointError"]

FORMAT = "minigrad-checkpoint"
VERSION = 1
MANIFEST_KEY = "__minigrad_manifest__"

#: Containers nested deeper than this are refused by ``save`` and ``load``.
MAX_DEPTH = 100
#: Integers with more digits than this are refused by ``save`` and ``load``.
MAX_INT_DIGITS = 100

_ARRAY_KINDS = "biufcUS"  # bool, ints, floats, complex, fixed-size strings: no pickling needed
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_NPY_MAGIC = b"\x93NUMPY"
_DEFLATE_MAX_RATIO = 1032  # zlib cannot expand a deflated stream by more than this


class CheckpointError(ValueError):
    """A file that ``mg.load`` cannot or will not read (corrupt, truncated, pickled, crafted)."""


# ------------------------------------------------------------------------------ save
def save(obj, f) -> None:
    """Write ``obj`` (nested dicts / lists / tuples of arrays, Tensors and plain scalars)
    to ``f``, a path (written atomically) or a binary file object.

    Args:
        obj: what to save, e.g. ``{"model": model.state_dict(), "step": 1000}``.
        f: a path (``str`` or ``os.PathLike``; written exactly there, whatever the
            extension) or a writable binary file object.

    Raises:
        TypeError: for an unsupported type (named with its place, e.g. ``obj['cfg']['fn']``).
        ValueError: for a reference cycle, nesting deeper than ``MAX_DEPTH`` or an int
            longer than ``MAX_INT_DIGITS`` digits (``load`` would refuse them).

    Example::

        >>> mg.save({"model": model.state_dict(), "step": 10}, "ckpt.npz")
        >>> mg.load("ckpt.npz")["step"]
        10
    """
    import json  # lazily: json, tempfile and zipfile would add ~50 ms to `import minigrad`

    arrays: dict[str, np.ndarray] = {}
    root = _encode(obj, arrays, "obj", [])
    text = json.dumps({"format": FORMAT, "version": VERSION, "root": root}, allow_nan=False)
    arrays[MANIFEST_KEY] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    if hasattr(f, "write"):
        _savez(f, arrays)
        return
    _atomic_write(os.fspath(f), arrays)


def _savez(fh, arrays: dict) -> None:
    """Write ``arrays`` (entry name -> array) as an uncompressed ``.npz`` into the binary
    file ``fh``: what ``np.savez`` writes, with ``allow_pickle=False`` on every NumPy
    (1.24's ``savez`` has no such argument and stored it as one more array) and the zip
    closed by ``with`` even when a Ctrl-C interrupts the write (NumPy 1.24 left it to the
    garbage collector, which printed a traceback once ``fh`` was closed)."""
    import zipfile

    with zipfile.ZipFile(fh, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, array in arrays.items():
            with zf.open(name + ".npy", mode="w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)


def _atomic_write(path: str, arrays: dict) -> None:
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    prefix = "." + os.path.basename(path) + "."
    _remove_stale_temporaries(folder, prefix)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f"{prefix}{os.getpid()}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            _savez(fh, arrays)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _file_mode(path))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_folder(folder)


def _remove_stale_temporaries(folder: str, prefix: str) -> None:
    """Delete ``prefix + PID-RANDOM.tmp`` files whose writing process no longer exists
    (a save killed mid-write); a save still running in another process keeps its file."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        pid = name[len(prefix) :].split("-", 1)[0]
        if pid.isdigit() and not _process_exists(int(pid)):
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass


def _process_exists(pid: int) -> bool:
    if pid == os.getpid():
        return True  # another thread of this process may be saving
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True  # it exists (owned by someone else), or we cannot tell: keep the file
    return True


def _file_mode(path: str) -> int:
    """Keep an existing file's permissions; a new file gets the usual 0o666 & ~umask
    (``mkstemp`` would leave it private, 0o600)."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_folder(folder: str) -> None:
    """Make the rename itself durable (best effort: not every platform allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _add_array(arrays: dict, arr: np.ndarray, where: str) -> str:
    if arr.dtype.kind not in _ARRAY_KINDS:
        raise TypeError(
            f"mg.save: cannot save the array at {where} with dtype {arr.dtype} (object and "
            "structured arrays would need pickling); convert it to a numeric array"
        )
    key = f"a{len(arrays)}"
    arrays[key] = arr
    return key


def _encode(obj, arrays: dict, where: str, active: list):
    """``active`` holds the ids of the containers being encoded (cycle and depth check)."""
    if obj is None:
        return {"t": "none"}
    if type(obj) is bool:
        return {"t": "bool", "v": obj}
    if type(obj) is int:
        if len(str(abs(obj))) > MAX_INT_DIGITS:
            raise ValueError(
                f"mg.save: the int at {where} has more than {MAX_INT_DIGITS} digits; "
                "save it as a str"
            )
        return {"t": "int", "v": obj}
    if type(obj) is float:
        return {"t": "float", "v": repr(obj)}  # repr round-trips exactly, nan and inf too
    if type(obj) is str:
        return {"t": "str", "v": obj}
    if isinstance(obj, Tensor):
        # np.asarray, not np.ascontiguousarray: that one makes a 0-d array 1-d, and a
        # BatchNorm's num_batches_tracked would come back with shape [1]. np.savez writes
        # a non-contiguous array in C order itself.
        key = _add_array(arrays, np.asarray(obj._data), where)
        return {"t": "tensor", "k": key, "requires_grad": bool(obj.requires_grad)}
    if isinstance(obj, np.ndarray):
        return {"t": "array", "k": _add_array(arrays, obj, where)}
    if isinstance(obj, np.generic):
        return {"t": "npscalar", "k": _add_array(arrays, np.asarray(obj), where)}
    if isinstance(obj, (dict, list, tuple)):
        if id(obj) in active:
            raise ValueError(f"mg.save: {where} contains itself (a reference cycle)")
        if len(active) >= MAX_DEPTH:
            raise ValueError(f"mg.save: {where} is nested more than {MAX_DEPTH} containers deep")
        active.append(id(obj))
        try:
            if isinstance(obj, dict):
                items = []
                for k, v in obj.items():
                    items.append(
                        [_encode_key(k, where), _encode(v, arrays, f"{where}[{k!r}]", active)]
                    )
                kind = "odict" if isinstance(obj, OrderedDict) else "dict"
                return {"t": kind, "v": items}
            values = [_encode(v, arrays, f"{where}[{i}]", active) for i, v in enumerate(obj)]
            return {"t": "tuple" if isinstance(obj, tuple) else "list", "v": values}
        finally:
            active.pop()
    raise TypeError(
        f"mg.save: cannot save {type(obj).__name__} at {where}; supported are dict, list, "
        "tuple, numpy arrays and scalars, Tensors, int, float, bool, str and None"
    )


def _encode_key(k, where: str) -> list:
    if type(k) is str:
        return ["s", k]
    if type(k) is int:
        return ["i", k]
    raise TypeError(
        f"mg.save: dict keys must be str or int, got {type(k).__name__} key {k!r} in {where}"
    )


# ------------------------------------------------------------------------------ load
def load(f, map_location=None, *, weights_only: bool | None = None, mmap=None):
    """Read a checkpoint written by ``mg.save`` (or any pickle-free ``.npz`` / ``.npy``).

    Args:
        f: a path or a readable, seekable binary file object.
        map_location: accepted for PyTorch code (``"cpu"``, ``"cuda:0"``, a device, a
            dict or a function): minigrad keeps every array on the CPU, so it changes
            nothing, and a CUDA location loads onto the CPU too.
        weights_only: accepted for PyTorch code. ``mg.load`` is always weights-only
            (it never unpickles); ``weights_only=False`` does not turn unpickling on.
        mmap: accepted and ignored (arrays are read into memory).

    Returns:
        The saved object, with its types: dicts (int keys stay ints), lists, tuples,
        arrays, Tensors and scalars. A plain ``.npz`` without minigrad's manifest gives a
        dict of its arrays; a ``.npy`` file gives its array.

    Raises:
        CheckpointError: the file is a pickle (e.g. from ``torch.save``), holds object
            arrays or members that are not ``.npy`` data, is truncated / corrupt, or its
            manifest is malformed; the message names the file and the entry.

    Example::

        >>> ckpt = mg.load("ckpt.npz", map_location="cpu", weights_only=True)
        >>> model.load_state_dict(ckpt["model"])
    """
    _check_load_options(map_location, weights_only)
    del mmap
    if hasattr(f, "read"):
        return _load_from(f, getattr(f, "name", "<file object>"))
    path = os.fspath(f)
    with open(path, "rb") as fh:
        return _load_from(fh, path)


def _check_load_options(map_location, weights_only) -> None:
    if weights_only is not None and not isinstance(weights_only, bool):
        raise TypeError(f"mg.load: weights_only must be a bool or None, got {weights_only!r}")
    ok = (
        map_location is None
        or isinstance(map_location, (str, dict))
        or callable(map_location)
        or isinstance(getattr(map_location, "type", None), str)  # a device object
    )
    if not ok:
        raise TypeError(
            "mg.load: map_location must be a str, a device, a dict or a function, got "
            f"{type(map_location).__name__}"
        )


def _load_from(fh, name) -> object:
    import zipfile

    start = fh.tell()
    head = fh.read(8)
    end = fh.seek(0, os.SEEK_END)
    fh.seek(start)
    if head.startswith(_NPY_MAGIC):
        return _read_npy(fh, end - start, name, "the array")
    if not head.startswith(_ZIP_MAGIC):
        raise CheckpointError(_not_npz_message(name, head))
    try:
        zf = zipfile.ZipFile(fh)
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, RuntimeError) as e:
        raise CheckpointError(f"{name}: truncated or corrupt checkpoint ({e})") from None
    with zf:
        members = _npy_members(zf, name, end)
        if MANIFEST_KEY not in members:
            return {k: _read_member(zf, info, name, f"entry {k!r}") for k, info in members.items()}
        manifest = _read_manifest(zf, members[MANIFEST_KEY], name)
        del members[MANIFEST_KEY]
        return _Decoder(zf, members, name).decode(manifest.get("root"), "obj", 0)


def _npy_members(zf, name, archive_size: int) -> dict:
    """The archive's members by entry name (``a0`` for ``a0.npy``), after checking that
    each is a ``.npy`` file, appears once, and declares sizes that fit in the file."""
    import zipfile

    names = zf.namelist()
    if any(n.endswith("data.pkl") for n in names):
        raise CheckpointError(
            f"{name} is a PyTorch checkpoint (torch.save: pickled data inside a zip). "
            "mg.load never unpickles, since unpickling can run arbitrary code. Load it "
            "with torch.load(..., weights_only=True) and save "
            "{k: v.numpy() for k, v in state_dict.items()} with mg.save."
        )
    members = {}
    for info in zf.infolist():
        entry = info.filename
        if not entry.endswith(".npy"):
            raise CheckpointError(
                f"{name}: entry {entry!r} is not .npy data; a checkpoint holds only .npy arrays"
            )
        key = entry[: -len(".npy")]
        if key in members:
            raise CheckpointError(f"{name}: entry {entry!r} appears twice in the archive")
        if info.compress_type == zipfile.ZIP_STORED:
            fits = info.file_size == info.compress_size
        elif info.compress_type == zipfile.ZIP_DEFLATED:
            fits = info.file_size <= _DEFLATE_MAX_RATIO * info.compress_size + 64
        else:
            raise CheckpointError(
                f"{name}: entry {entry!r} uses zip compression method {info.compress_type}; "
                "only stored and deflated members are read"
            )
        if not fits or info.header_offset + info.compress_size > archive_size:
            raise CheckpointError(
                f"{name}: truncated or corrupt checkpoint, entry {key!r}: it declares "
                f"{info.file_size} bytes ({info.compress_size} stored), more than the file holds"
            )
        members[key] = info
    return members


def _read_manifest(zf, info, name) -> dict:
    import json

    raw = _read_member(zf, info, name, "the manifest")
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise CheckpointError(f"{name}: corrupt checkpoint manifest (not a byte array)")
    try:
        manifest = json.loads(raw.tobytes().decode("utf-8"), parse_int=_parse_int)
    except RecursionError:
        raise CheckpointError(f"{name}: corrupt checkpoint manifest (nested too deeply)") from None
    except (UnicodeDecodeError, ValueError) as e:  # JSONDecodeError is a ValueError
        raise CheckpointError(f"{name}: corrupt checkpoint manifest ({e})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CheckpointError(f"{name}: not a minigrad checkpoint (unknown manifest)")
    if manifest.get("version") != VERSION:
        raise CheckpointError(
            f"{name}: checkpoint format version {manifest.get('version')!r} is not "
            f"supported (this minigrad reads version {VERSION})"
        )
    return manifest


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _read_member(zf, info, name, what: str) -> np.ndarray:
    import zipfile
    import zlib

    try:
        with zf.open(info) as member:
            return _read_npy(member, info.file_size, name, what)
    except CheckpointError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error, ValueError, RuntimeError) as e:
        # RuntimeError: zipfile's "File is encrypted" and unsupported-feature errors
        raise CheckpointError(f"{name}: truncated or corrupt checkpoint, {what}: {e}") from None


def _read_npy(fh, size: int, name, what: str) -> np.ndarray:
    """Read one ``.npy`` stream of ``size`` bytes: the header first, then (only if the
    declared shape and dtype need exactly the bytes that follow) the data."""
    fmt = np.lib.format
    start = fh.tell()
    try:
        version = fmt.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(fh)
        else:
            raise ValueError(f".npy format version {version} is not read")
    except (ValueError, EOFError, OSError) as e:
        raise CheckpointError(f"{name}: truncated or corrupt checkpoint, {what}: {e}") from None
    if dtype.hasobject:
        raise CheckpointError(
            f"{name}: {what} is an object array (pickled Python objects); mg.load refuses "
            "it, since unpickling can run arbitrary code"
        )
    if dtype.kind not in _ARRAY_KINDS or dtype.fields is not None:
        raise CheckpointError(f"{name}: {what} has dtype {dtype}, which mg.load does not read")
    count = 1
    for n in shape:
        count *= n
    nbytes = count * dtype.itemsize
    held = size - (fh.tell() - start)
    if nbytes != held:
        raise CheckpointError(
            f"{name}: truncated or corrupt checkpoint, {what}: it declares a "
            f"{list(shape)} {dtype} array ({nbytes:,} bytes) but holds {held:,} bytes"
        )
    buf = np.empty(nbytes, dtype=np.uint8)
    view = memoryview(buf)
    done = 0
    while done < nbytes:
        n = fh.readinto(view[done:])
        if not n:
            raise CheckpointError(
                f"{name}: truncated or corrupt checkpoint, {what}: data ends early"
            )
        done += n
    if fh.read(1):  # for a zip member, reading to its end also checks its CRC
        raise CheckpointError(f"{name}: truncated or corrupt checkpoint, {what}: trailing data")
    if count == 0 or dtype.itemsize == 0:
        return np.zeros(shape, dtype=dtype, order="F" if fortran else "C")
    flat = buf.view(dtype)
    return flat.reshape(shape[::-1]).T if fortran else flat.reshape(shape)


def _not_npz_message(name, head: bytes) -> str:
    if head[:1] == b"\x80" or head[:1] in (b"(", b"]", b"}", b"c"):
        return (
            f"{name} looks like a pickle file (from pickle.dump or an old torch.save). "
            "mg.load never unpickles, since unpickling can run arbitrary code; save plain "
            "arrays with mg.save instead."
        )
    if not head:
        return f"{name}: empty file, not a checkpoint"
    return f"{name}: not a minigrad checkpoint (.npz): unrecognised file header {head!r}"


class _Decoder:
    """Turns the manifest back into objects; each array entry may be used only once."""

    def __init__(self, zf, members: dict, name):
        self.zf, self.members, self.name = zf, members, name
        self.used: set[str] = set()

    def fail(self, where: str, why: str) -> CheckpointError:
        return CheckpointError(f"{self.name}: corrupt checkpoint manifest at {where}: {why}")

    def array(self, node: dict, where: str) -> np.ndarray:
        key = node.get("k")
        if not isinstance(key, str) or key not in self.members:
            raise self.fail(where, f"missing array entry {key!r}")
        if key in self.used:
            raise self.fail(where, f"array entry {key!r} is referenced more than once")
        self.used.add(key)
        return _read_member(self.zf, self.members[key], self.name, f"entry {key!r} ({where})")

    def decode(self, node, where: str, depth: int):
        if not isinstance(node, dict) or "t" not in node:
            raise self.fail(where, "expected a tagged node")
        t = node["t"]
        if t == "none":
            return None
        if t in ("bool", "int", "str"):
            value = node.get("v")
            expected = {"bool": bool, "int": int, "str": str}[t]
            if type(value) is not expected:
                raise self.fail(where, f"expected a {t}, got {type(value).__name__}")
            return value
        if t == "float":
            value = node.get("v")
            if not isinstance(value, str) or len(value) > 40:
                raise self.fail(where, "bad float")
            try:
                return float(value)
            except ValueError:
                raise self.fail(where, "bad float") from None
        if t == "array":
            return self.array(node, where)
        if t == "npscalar":
            arr = self.array(node, where)
            if arr.ndim != 0:
                raise self.fail(where, f"a scalar entry holds an array of shape {list(arr.shape)}")
            return arr[()]
        if t == "tensor":
            t_ = Tensor._make(self.array(node, where), False, None)
            if node.get("requires_grad") and t_._data.dtype.kind == "f":
                t_.requires_grad = True
            return t_
        if t not in ("list", "tuple", "dict", "odict"):
            raise self.fail(where, f"unknown node type {t!r}")
        if depth >= MAX_DEPTH:
            raise self.fail(where, f"containers nested more than {MAX_DEPTH} deep")
        items = node.get("v")
        if not isinstance(items, list):
            raise self.fail(where, f"expected a list of {t} items")
        if t in ("list", "tuple"):
            out = [self.decode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(items)]
            return tuple(out) if t == "tuple" else out
        out = OrderedDict() if t == "odict" else {}
        for item in items:
            if not (isinstance(item, list) and len(item) == 2):
                raise self.fail(where, "bad dict item")
            key = self._key(item[0], where)
            out[key] = self.decode(item[1], f"{where}[{key!r}]", depth + 1)
        return out

    def _key(self, k, where: str):
        if isinstance(k, list) and len(k) == 2:
            if k[0] == "s" and type(k[1]) is str:
                return k[1]
            if k[0] == "i" and type(k[1]) is int:
                return k[1]
        raise self.fail(where, f"bad dict key {k!r}")
