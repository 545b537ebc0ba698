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

Safety: ``load`` reads with ``allow_pickle=False`` and checks the file's first bytes,
so pickle files (``torch.save``, ``pickle.dump``) and object arrays are refused with an
error before anything is deserialised; opening an untrusted checkpoint cannot run code.
A truncated or corrupt file raises ``CheckpointError`` naming the file.

Atomic writes: ``save`` writes a temporary file in the target's folder, flushes and
fsyncs it, then renames it over the target (``os.replace``), so a crash at any moment
leaves either the old file or the complete new one, never a truncated mix.
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

_ARRAY_KINDS = "biufcUS"  # bool, ints, floats, complex, fixed-size strings: no pickling needed
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_NPY_MAGIC = b"\x93NUMPY"


class CheckpointError(ValueError):
    """A file that ``mg.load`` cannot or will not read (corrupt, truncated, pickled)."""


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

    Example::

        >>> mg.save({"model": model.state_dict(), "step": 10}, "ckpt.npz")
        >>> mg.load("ckpt.npz")["step"]
        10
    """
    import json  # lazily: json, tempfile and zipfile would add ~50 ms to `import minigrad`

    arrays: dict[str, np.ndarray] = {}
    root = _encode(obj, arrays, "obj", set())
    text = json.dumps({"format": FORMAT, "version": VERSION, "root": root}, allow_nan=False)
    arrays[MANIFEST_KEY] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    if hasattr(f, "write"):
        np.savez(f, allow_pickle=False, **arrays)
        return
    _atomic_write(os.fspath(f), arrays)


def _atomic_write(path: str, arrays: dict) -> None:
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, allow_pickle=False, **arrays)
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


def _encode(obj, arrays: dict, where: str, active: set):
    if obj is None:
        return {"t": "none"}
    if type(obj) is bool:
        return {"t": "bool", "v": obj}
    if type(obj) is int:
        return {"t": "int", "v": obj}
    if type(obj) is float:
        return {"t": "float", "v": repr(obj)}  # repr round-trips exactly, nan and inf too
    if type(obj) is str:
        return {"t": "str", "v": obj}
    if isinstance(obj, Tensor):
        key = _add_array(arrays, np.ascontiguousarray(obj._data), where)
        return {"t": "tensor", "k": key, "requires_grad": bool(obj.requires_grad)}
    if isinstance(obj, np.ndarray):
        return {"t": "array", "k": _add_array(arrays, obj, where)}
    if isinstance(obj, np.generic):
        return {"t": "npscalar", "k": _add_array(arrays, np.asarray(obj), where)}
    if isinstance(obj, (dict, list, tuple)):
        if id(obj) in active:
            raise ValueError(f"mg.save: {where} contains itself (a reference cycle)")
        active.add(id(obj))
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
            active.discard(id(obj))
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
def load(f):
    """Read a checkpoint written by ``mg.save`` (or any pickle-free ``.npz`` / ``.npy``).

    Args:
        f: a path or a readable, seekable binary file object.

    Returns:
        The saved object, with its types: dicts (int keys stay ints), lists, tuples,
        arrays, Tensors and scalars. A plain ``.npz`` without minigrad's manifest gives a
        dict of its arrays; a ``.npy`` file gives its array.

    Raises:
        CheckpointError: the file is a pickle (e.g. from ``torch.save``), holds object
            arrays, or is truncated / corrupt; the message names the file.
    """
    if hasattr(f, "read"):
        return _load_from(f, getattr(f, "name", "<file object>"))
    path = os.fspath(f)
    with open(path, "rb") as fh:
        return _load_from(fh, path)


def _load_from(fh, name) -> object:
    import json
    import zipfile
    import zlib

    start = fh.tell()
    head = fh.read(8)
    fh.seek(start)
    if head.startswith(_NPY_MAGIC):
        return _read(lambda: np.load(fh, allow_pickle=False), name, "the array")
    if not head.startswith(_ZIP_MAGIC):
        raise CheckpointError(_not_npz_message(name, head))
    try:
        npz = np.load(fh, allow_pickle=False)
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, zlib.error) as e:
        raise CheckpointError(f"{name}: truncated or corrupt checkpoint ({e})") from None
    with npz:
        files = set(npz.files)
        if MANIFEST_KEY not in files:
            if any(n.endswith("data.pkl") for n in npz.zip.namelist()):
                raise CheckpointError(
                    f"{name} is a PyTorch checkpoint (torch.save: pickled data inside a zip). "
                    "mg.load never unpickles, since unpickling can run arbitrary code. Load it "
                    "with torch.load(..., weights_only=True) and save "
                    "{k: v.numpy() for k, v in state_dict.items()} with mg.save."
                )
            return {k: _read(lambda k=k: npz[k], name, f"entry {k!r}") for k in npz.files}
        raw = _read(lambda: npz[MANIFEST_KEY], name, "the manifest")
        try:
            manifest = json.loads(raw.tobytes().decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise CheckpointError(f"{name}: corrupt checkpoint manifest ({e})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise CheckpointError(f"{name}: not a minigrad checkpoint (unknown manifest)")
        if manifest.get("version") != VERSION:
            raise CheckpointError(
                f"{name}: checkpoint format version {manifest.get('version')!r} is not "
                f"supported (this minigrad reads version {VERSION})"
            )
        return _Decoder(npz, name, files).decode(manifest.get("root"), "obj")


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


def _read(fn, name, what: str):
    """Run one read, turning NumPy's and zipfile's errors into a CheckpointError."""
    import zipfile
    import zlib

    try:
        return fn()
    except ValueError as e:
        if "allow_pickle" in str(e) or "pickled" in str(e):
            raise CheckpointError(
                f"{name}: {what} is an object array (pickled Python objects); mg.load refuses "
                "it, since unpickling can run arbitrary code"
            ) from None
        raise CheckpointError(f"{name}: truncated or corrupt checkpoint, {what}: {e}") from None
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error, KeyError) as e:
        raise CheckpointError(f"{name}: truncated or corrupt checkpoint, {what}: {e}") from None


class _Decoder:
    def __init__(self, npz, name, files: set):
        self.npz, self.name, self.files = npz, name, files

    def fail(self, where: str, why: str) -> CheckpointError:
        return CheckpointError(f"{self.name}: corrupt checkpoint manifest at {where}: {why}")

    def array(self, node: dict, where: str) -> np.ndarray:
        key = node.get("k")
        if key not in self.files or key == MANIFEST_KEY:
            raise self.fail(where, f"missing array entry {key!r}")
        return _read(lambda: self.npz[key], self.name, f"entry {key!r} ({where})")

    def decode(self, node, where: str):
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
            try:
                return float(node["v"])
            except (KeyError, TypeError, ValueError):
                raise self.fail(where, "bad float") from None
        if t == "array":
            return self.array(node, where)
        if t == "npscalar":
            return self.array(node, where)[()]
        if t == "tensor":
            t_ = Tensor._make(self.array(node, where), False, None)
            if node.get("requires_grad") and t_._data.dtype.kind == "f":
                t_.requires_grad = True
            return t_
        if t in ("list", "tuple"):
            values = node.get("v")
            if not isinstance(values, list):
                raise self.fail(where, f"expected a list of {t} items")
            out = [self.decode(v, f"{where}[{i}]") for i, v in enumerate(values)]
            return tuple(out) if t == "tuple" else out
        if t in ("dict", "odict"):
            items = node.get("v")
            if not isinstance(items, list):
                raise self.fail(where, "expected a list of dict items")
            out = OrderedDict() if t == "odict" else {}
            for item in items:
                if not (isinstance(item, list) and len(item) == 2):
                    raise self.fail(where, "bad dict item")
                key = self._key(item[0], where)
                out[key] = self.decode(item[1], f"{where}[{key!r}]")
            return out
        raise self.fail(where, f"unknown node type {t!r}")

    def _key(self, k, where: str):
        if isinstance(k, list) and len(k) == 2:
            if k[0] == "s" and type(k[1]) is str:
                return k[1]
            if k[0] == "i" and type(k[1]) is int:
                return k[1]
        raise self.fail(where, f"bad dict key {k!r}")
