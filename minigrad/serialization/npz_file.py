"""Reading the first checkpoint format (minigrad 0.1), and plain ``.npz`` / ``.npy`` files.

Layout: an ordinary NumPy ``.npz`` (a zip of ``.npy`` files) holding one entry per array
(``a0``, ``a1``, ...) and an entry ``__minigrad_manifest__``: the UTF-8 bytes (a
``uint8`` array) of a JSON document ``{"format": "minigrad-checkpoint", "version": 1,
"root": TREE}``, in which each array appears as a reference to its entry (``tree.py``
reads it). Nothing here writes this format any more; ``mg.save`` writes safetensors.

Every ``.npy`` member is read here, never by ``numpy.load``: object arrays, members that
are not ``.npy`` data, declared sizes that the file does not hold (checked before
anything is allocated, so a zip bomb cannot make ``load`` allocate more than the file
holds times zlib's maximum ratio of 1032), and unknown compression are all refused with
a ``CheckpointError`` naming the file and the entry.
"""

from __future__ import annotations

import os

import numpy as np

from minigrad.serialization.errors import CheckpointError
from minigrad.serialization.tree import Decoder, load_document

MANIFEST_KEY = "__minigrad_manifest__"
VERSION = 1
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
NPY_MAGIC = b"\x93NUMPY"

_NPY_KINDS = "biufcUS"  # bool, ints, floats, complex, fixed-size strings: no pickling needed
_DEFLATE_MAX_RATIO = 1032  # zlib cannot expand a deflated stream by more than this


def load_npy(fh, name) -> np.ndarray:
    start = fh.tell()
    end = fh.seek(0, os.SEEK_END)
    fh.seek(start)
    return _read_npy(fh, end - start, name, "the array")


def load_npz(fh, name) -> object:
    """A first-format checkpoint's object, or a plain ``.npz``'s arrays by name."""
    import zipfile

    start = fh.tell()
    end = fh.seek(0, os.SEEK_END)
    fh.seek(start)
    try:
        zf = zipfile.ZipFile(fh)
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, RuntimeError) as e:
        raise CheckpointError(f"{name}: truncated or corrupt checkpoint ({e})") from None
    with zf:
        members = _npy_members(zf, name, end)
        if MANIFEST_KEY not in members:
            return {k: _read_member(zf, info, name, f"entry {k!r}") for k, info in members.items()}
        manifest = _read_manifest(zf, members.pop(MANIFEST_KEY), name)

        def read_array(key):
            return _read_member(zf, members[key], name, f"entry {key!r}")

        # Zip members carry their own CRC-32, checked as they are read.
        decoder = Decoder(read_array, members, name, checksums=False)
        return decoder.decode(manifest.get("root"), "obj", 0)


def _npy_members(zf, name, archive_size: int) -> dict:
    """The archive's members by entry name (``a0`` for ``a0.npy``), after checking that
    each is a ``.npy`` file, appears once, and declares sizes that fit in the file."""
    import zipfile

    names = zf.namelist()
    if any(n.endswith("data.pkl") for n in names):
        raise CheckpointError(
            f"{name} is a PyTorch checkpoint (torch.save: pickled data inside a zip), which "
            "minigrad cannot read. Load it with torch.load(..., weights_only=True) and "
            "save it with safetensors.torch.save_file(state_dict, 'model.safetensors'): "
            "mg.load reads that file."
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
    raw = _read_member(zf, info, name, "the manifest")
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise CheckpointError(f"{name}: corrupt checkpoint manifest (not a byte array)")
    return load_document(raw.tobytes(), name, "manifest", VERSION)


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
    if dtype.kind not in _NPY_KINDS or dtype.fields is not None:
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
