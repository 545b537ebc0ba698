"""Checkpoints: ``mg.save(obj, f)`` and ``mg.load(f)``, in the safetensors format.

What can be saved: anything, as with ``torch.save``. Nested ``dict`` / ``OrderedDict``,
``list`` and ``tuple`` of Tensors (loaded back as Tensors), NumPy arrays and scalars, and
plain ``None``, ``bool``, ``int``, ``float`` and ``str`` come back with their types
(int and tuple dict keys, NaN floats and 0-d arrays included) from any file. Other
objects (a config dataclass) are pickled, and come back only when the caller allows it:
``weights_only=False`` for a file from a trusted source, or the object's class allowed
with ``add_safe_globals``, as in PyTorch since 2.6.

The file (``safetensors_file.py``): every array is a safetensors tensor named by its
path through the saved dicts and lists, so a model's ``state_dict()`` saved alone gives
PyTorch's state_dict keys to ``safetensors.numpy.load_file`` (or to
``safetensors.torch.load_file``); a training checkpoint gives ``model.tok_emb.weight``,
``optimizer.state.0.exp_avg``, ... The structure and the plain values are a JSON
document in the file's metadata (``tree.py``).

Safety: nothing in the file is code, and ``load`` runs none unless
``weights_only=False``. A file's header and structure are checked before anything is
allocated (sizes that the file does not hold, headers over 100 MB, nesting deeper than
``MAX_DEPTH``, integers longer than ``MAX_INT_DIGITS`` digits, arrays referenced twice),
each array's bytes must match the CRC-32 saved with them, and every failure is a
``CheckpointError`` (a ``RuntimeError``) naming the file and the place.

Atomic writes (``atomic.py``): ``save`` to a path writes a temporary file and renames
it over the target, so a crash at any moment leaves the old file or the complete new
one; a symbolic link is written through, as ``open(path, "wb")`` would.

Compatibility (``npz_file.py``): checkpoints of minigrad 0.1 (``.npz`` with a manifest),
plain ``.npz`` and ``.npy`` files load too.
"""

from __future__ import annotations

import os
import pickle

from minigrad.serialization.errors import CheckpointError, WeightsOnlyUnpicklingError
from minigrad.serialization.pickling import (
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    safe_globals,
)
from minigrad.serialization.tree import MAX_DEPTH, MAX_INT_DIGITS

__all__ = [
    "save",
    "load",
    "CheckpointError",
    "WeightsOnlyUnpicklingError",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "safe_globals",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
]


# ------------------------------------------------------------------------------ save
def save(obj, f, pickle_module=pickle, pickle_protocol: int = 2) -> None:
    """Write ``obj`` to ``f``, a path (written atomically) or a binary file object.

    Args:
        obj: what to save, e.g. ``{"model": model.state_dict(), "step": 1000}``.
        f: a path (``str`` or ``os.PathLike``; written exactly there, whatever the
            extension; ``.safetensors`` is the usual one) or a writable binary file object.
        pickle_module: the module that pickles objects other than tensors, arrays,
            containers and plain values (as ``torch.save``).
        pickle_protocol: the protocol it pickles them with.

    Raises:
        pickle.PicklingError: an object that is neither a tensor, an array, a container
            nor a plain value, and cannot be pickled (named with its place, e.g.
            ``obj['cfg']['fn']``).
        ValueError: a reference cycle through dicts and lists, nesting deeper than
            ``MAX_DEPTH``, an int longer than ``MAX_INT_DIGITS`` digits (``load`` would
            refuse them), or plain values too long for the format's 100 MB header.

    Example::

        >>> mg.save({"model": model.state_dict(), "step": 10}, "ckpt.safetensors")
        >>> mg.load("ckpt.safetensors")["step"]
        10
    """
    from minigrad.serialization import atomic, safetensors_file
    from minigrad.serialization.pickling import pickle_node
    from minigrad.serialization.tree import Encoder

    def pickle_object(encoder, o, parts, where):
        return pickle_node(encoder, o, parts, where, pickle_module, pickle_protocol)

    encoder = Encoder(pickle_object)
    root = encoder.encode(obj, [], "obj", [])
    metadata = safetensors_file.metadata_for(root)
    safetensors_file.check_header_size(encoder.arrays, metadata)
    if hasattr(f, "write"):
        safetensors_file.write_stream(encoder.arrays, metadata, f)
        return
    atomic.atomic_write(f, lambda tmp: safetensors_file.write_file(encoder.arrays, metadata, tmp))


# ------------------------------------------------------------------------------ load
def load(
    f,
    map_location=None,
    pickle_module=None,
    *,
    weights_only: bool | None = None,
    mmap=None,
    **pickle_load_args,
):
    """Read a checkpoint written by ``mg.save``, any safetensors file, a checkpoint of
    minigrad 0.1, or a plain ``.npz`` / ``.npy`` file.

    Args:
        f: a path or a readable, seekable binary file object.
        map_location: accepted for PyTorch code (``"cpu"``, ``"cuda:0"``, a device, a
            dict or a function): minigrad keeps every array on the CPU, so it changes
            nothing, and a CUDA location loads onto the CPU too.
        pickle_module: unpickles objects when ``weights_only=False`` (default
            ``pickle``); giving one makes ``weights_only`` default to False, as in PyTorch.
        weights_only: True (the default) unpickles nothing but the classes allowed
            with ``add_safe_globals``, so an untrusted file cannot run code; False
            unpickles everything ``mg.save`` pickled (trusted files only).
        mmap: accepted and ignored (arrays are read into memory).
        **pickle_load_args: passed to the unpickler when ``weights_only=False``
            (``encoding=...``).

    Returns:
        The saved object, with its types. A safetensors file another program wrote
        gives a dict of its tensors by name; a plain ``.npz`` a dict of its arrays; a
        ``.npy`` file its array.

    Raises:
        WeightsOnlyUnpicklingError: the file holds a pickled object that
            ``weights_only=True`` does not unpickle; the message says what to pass.
        CheckpointError: the file is a pickle (e.g. from ``torch.save``), holds object
            arrays, is truncated / corrupt or crafted; the message names the file and
            the place.

    Example::

        >>> ckpt = mg.load("ckpt.safetensors", map_location="cpu", weights_only=True)
        >>> model.load_state_dict(ckpt["model"])
    """
    weights_only = _check_load_options(map_location, pickle_module, weights_only)
    del mmap
    options = (weights_only, pickle_module or pickle, pickle_load_args)
    if hasattr(f, "read"):
        return _load_from(f, getattr(f, "name", "<file object>"), None, options)
    path = os.fspath(f)
    with open(path, "rb") as fh:
        return _load_from(fh, path, path, options)


def _check_load_options(map_location, pickle_module, weights_only) -> bool:
    if weights_only is not None and not isinstance(weights_only, bool):
        raise TypeError(f"mg.load: weights_only must be a bool or None, got {weights_only!r}")
    if weights_only is None:
        weights_only = pickle_module is None
    elif weights_only and pickle_module is not None:
        raise RuntimeError(
            "mg.load: cannot load weights safely with an explicit pickle_module; "
            "pass weights_only=False with it (trusted files only)"
        )
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
    return weights_only


def _load_from(fh, name, path, options) -> object:
    from minigrad.serialization import npz_file, safetensors_file

    start = fh.tell()
    head = fh.read(9)
    fh.seek(start)
    if head.startswith(npz_file.NPY_MAGIC):
        return npz_file.load_npy(fh, name)
    if head.startswith(npz_file.ZIP_MAGIC):
        return npz_file.load_npz(fh, name)
    if safetensors_file.looks_like_safetensors(head):
        return _load_safetensors(fh, name, path, options)
    raise CheckpointError(_unknown_file_message(name, head))


def _load_safetensors(fh, name, path, options) -> object:
    from minigrad.serialization.pickling import unpickle_node
    from minigrad.serialization.safetensors_file import Reader
    from minigrad.serialization.tree import Decoder
    from minigrad.tensor import Tensor

    weights_only, pickle_module, load_args = options

    def unpickle(decoder, node, where):
        return unpickle_node(decoder, node, where, weights_only, pickle_module, load_args)

    reader = Reader(fh, name, path)
    with reader:
        if reader.document is None:  # written by another program: its tensors by name
            decoder = Decoder(reader.array, reader.names, name, checksums=False)
            return {
                key: Tensor._make(decoder.array({"k": key}, repr(key)), False, None)
                for key in reader.names
            }
        decoder = Decoder(reader.array, reader.names, name, unpickle)
        return decoder.decode(reader.document.get("root"), "obj", 0)


def _unknown_file_message(name, head: bytes) -> str:
    if head[:1] == b"\x80" or head[:1] in (b"(", b"]", b"}", b"c"):
        return (
            f"{name} looks like a pickle file (from pickle.dump or an old torch.save), which "
            "mg.load does not read, since unpickling can run arbitrary code; save plain "
            "arrays with mg.save instead."
        )
    if not head:
        return f"{name}: empty file, not a checkpoint"
    return (
        f"{name}: not a checkpoint (safetensors, or minigrad 0.1's .npz): unrecognised "
        f"file header {head[:8]!r}"
    )
