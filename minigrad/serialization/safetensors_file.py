"""The checkpoint file: the safetensors format, written and read by the ``safetensors``
package's NumPy API.

The format (https://huggingface.co/docs/safetensors): 8 bytes, the little-endian length
N of a JSON header; N bytes of header, ``{NAME: {"dtype": "F32", "shape": [2, 3],
"data_offsets": [BEGIN, END]}, ..., "__metadata__": {STR: STR}}``; then the arrays'
bytes. Nothing in it is code. A checkpoint's metadata holds ``"format": "pt"`` (the
arrays are laid out as PyTorch's, under its state_dict names) and ``"minigrad"``: the
JSON document ``{"format": "minigrad-checkpoint", "version": 2, "root": TREE}`` that
says how the arrays and plain values fit together (``tree.py``).
"""

from __future__ import annotations

import os

from minigrad.serialization.errors import CheckpointError
from minigrad.serialization.tree import load_document, load_json

VERSION = 2
METADATA_KEY = "minigrad"
#: The largest header the safetensors package reads (its ``MAX_HEADER_SIZE``).
MAX_HEADER_BYTES = 100_000_000

#: safetensors' dtype names that NumPy stores.
_NUMPY_DTYPES = {
    "BOOL": "?", "U8": "<u1", "I8": "<i1", "U16": "<u2", "I16": "<i2", "U32": "<u4",
    "I32": "<i4", "U64": "<u8", "I64": "<i8", "F16": "<f2", "F32": "<f4", "F64": "<f8",
}  # fmt: skip


def looks_like_safetensors(head: bytes) -> bool:
    """The first 9 bytes of a safetensors file: a header length, then ``{``."""
    return len(head) >= 9 and head[8:9] == b"{"


def metadata_for(root: dict) -> dict[str, str]:
    import json

    document = {"format": "minigrad-checkpoint", "version": VERSION, "root": root}
    text = json.dumps(document, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    return {"format": "pt", METADATA_KEY: text}


def check_header_size(arrays: dict, metadata: dict) -> None:
    """Refuse what the format's readers would refuse: a header over 100 MB."""
    size = sum(len(k.encode()) + len(v.encode()) + 8 for k, v in metadata.items())
    size += sum(len(name.encode()) + 100 for name in arrays)
    if size > MAX_HEADER_BYTES:
        raise ValueError(
            f"mg.save: the checkpoint's structure and plain values take {size / 1e6:.0f} MB, "
            f"more than the {MAX_HEADER_BYTES / 1e6:.0f} MB the safetensors format allows "
            "for its header; store long lists of numbers as arrays"
        )


def write_file(arrays: dict, metadata: dict, path: str) -> None:
    """Write the file at ``path`` (not atomically: ``atomic.py`` gives it a temporary)."""
    import safetensors.numpy

    safetensors.numpy.save_file(arrays, path, metadata=metadata)


def write_stream(arrays: dict, metadata: dict, fh) -> None:
    import safetensors.numpy

    fh.write(safetensors.numpy.save(arrays, metadata=metadata))


# ------------------------------------------------------------------------------ read
class Reader:
    """An open safetensors file (a context manager): ``document`` is minigrad's
    structure (None for a file another program wrote), ``names`` the arrays' names in
    the file's order,
    ``array(name)`` one array. A ``path`` is read by memory map, a file object whole."""

    def __init__(self, fh, name, path: str | None = None):
        self.name, self.path, self.fh = name, path, fh
        header = _read_header(fh, name)
        metadata = header.pop("__metadata__", None) or {}
        if not isinstance(metadata, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()
        ):
            raise CheckpointError(f"{name}: corrupt safetensors header (its __metadata__)")
        for key, info in header.items():
            dtype = info.get("dtype") if isinstance(info, dict) else None
            if dtype not in _NUMPY_DTYPES:
                raise CheckpointError(
                    f"{name}: tensor {key!r} has dtype {dtype!r}, which NumPy (and so "
                    "minigrad) cannot store"
                    + ("; convert it to float32 before saving" if dtype == "BF16" else "")
                )
        self.names = list(header)  # in the file's order
        self.document = _document(metadata, name)
        self._file = self._arrays = None

    def __enter__(self):
        import safetensors
        import safetensors.numpy

        try:
            if self.path is None:
                self._arrays = safetensors.numpy.load(self.fh.read())
            else:
                self._file = safetensors.safe_open(self.path, framework="numpy")
                self._file.__enter__()
        except Exception as e:  # the package's SafetensorError, and any other complaint
            raise self._corrupt(e) from None
        return self

    def __exit__(self, *exc):
        if self._file is not None:
            self._file.__exit__(*exc)
        return False

    def array(self, key: str):
        """The array ``key``; it may be a read-only view of the file's bytes."""
        try:
            if self._arrays is not None:
                return self._arrays[key]
            import numpy as np

            return np.array(self._file.get_tensor(key))  # a copy: the map closes on exit
        except Exception as e:
            raise self._corrupt(e) from None

    def _corrupt(self, e: Exception) -> CheckpointError:
        return CheckpointError(f"{self.name}: truncated or corrupt checkpoint ({e})")


def _read_header(fh, name) -> dict:
    start = fh.tell()
    end = fh.seek(0, os.SEEK_END)
    fh.seek(start)
    n = int.from_bytes(fh.read(8), "little")
    if n > MAX_HEADER_BYTES:
        raise CheckpointError(
            f"{name}: corrupt checkpoint: its header declares {n:,} bytes, more than the "
            f"{MAX_HEADER_BYTES:,} the safetensors format allows"
        )
    if 8 + n > end - start:
        raise CheckpointError(
            f"{name}: truncated or corrupt checkpoint: its header declares {n:,} bytes, "
            f"the file holds {end - start - 8:,} after the length"
        )
    raw = fh.read(n)
    fh.seek(start)
    header = load_json(
        raw,
        f"{name}: corrupt safetensors header",
        unreadable=f"{name}: truncated or corrupt safetensors header",
    )
    if not isinstance(header, dict):
        raise CheckpointError(f"{name}: corrupt safetensors header (not a JSON object)")
    return header


def _document(metadata: dict, name) -> dict | None:
    text = metadata.get(METADATA_KEY)
    if text is None:
        return None
    return load_document(text, name, "structure", VERSION)
