"""A checkpoint's structure: what ``mg.save`` was given, as a JSON tree beside named arrays.

``Encoder`` walks the saved object. Containers (``dict``, ``OrderedDict``, ``list``,
``tuple``) and plain values (``None``, ``bool``, ``int``, ``float``, ``str``) become
tagged JSON nodes (``{"t": "int", "v": 3}``); arrays, Tensors and NumPy scalars become
references to named arrays (``{"t": "tensor", "k": "model.0.weight", "crc": ...}``),
named by their path through dicts and lists, so that a model's ``state_dict()`` saved
alone gives PyTorch's state_dict keys. Any other object (a config dataclass) is pickled,
its Tensors and arrays taken out as named arrays, and loads only when the caller allows
it (``pickling.py``).

``Decoder`` turns a tree back into objects. It trusts nothing in the tree: every node is
checked, containers nest at most ``MAX_DEPTH`` deep, integers have at most
``MAX_INT_DIGITS`` digits, each array is used once and its checksum must match.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from minigrad.serialization.errors import CheckpointError
from minigrad.tensor import Tensor

FORMAT = "minigrad-checkpoint"

#: Containers nested deeper than this are refused by ``save`` and ``load``.
MAX_DEPTH = 100
#: Integers with more digits than this are refused by ``save`` and ``load``.
MAX_INT_DIGITS = 100


def parse_int(text: str) -> int:
    """``json.loads``' integer parser, refusing integers of more than MAX_INT_DIGITS."""
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def load_json(text: str | bytes, corrupt: str, unreadable: str | None = None):
    """``json.loads(text)`` (bytes are read as UTF-8) with ``parse_int``, for the JSON a
    checkpoint carries. JSON nested past Python's recursion limit is a
    ``CheckpointError`` ``"{corrupt} (nested too deeply)"``; text that is not JSON (or
    not UTF-8) is ``"{unreadable} (the reason)"``, ``unreadable`` defaulting to
    ``corrupt``."""
    import json

    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return json.loads(text, parse_int=parse_int)
    except RecursionError:
        raise CheckpointError(f"{corrupt} (nested too deeply)") from None
    except ValueError as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise CheckpointError(f"{unreadable or corrupt} ({e})") from None


def load_document(text: str | bytes, name: str, what: str, version: int) -> dict:
    """The JSON document that describes a checkpoint (``what``: the .npz file's
    "manifest", the safetensors file's "structure"): a dict of format
    ``"minigrad-checkpoint"`` and this ``version``, or a ``CheckpointError`` naming
    the file ``name``."""
    document = load_json(text, f"{name}: corrupt checkpoint {what}")
    if not isinstance(document, dict) or document.get("format") != "minigrad-checkpoint":
        raise CheckpointError(f"{name}: not a minigrad checkpoint (unknown {what})")
    if document.get("version") != version:
        raise CheckpointError(
            f"{name}: checkpoint format version {document.get('version')!r} is not "
            f"supported (this minigrad reads version {version})"
        )
    return document


#: The dtypes the safetensors format has names for (BOOL, U8, I8, ..., F64), little-endian.
NAMED_DTYPES = frozenset(
    np.dtype(t) for t in ("?", "<u1", "<i1", "<u2", "<i2", "<u4", "<i4", "<u8", "<i8",
                          "<f2", "<f4", "<f8")
)  # fmt: skip
#: Kinds stored as their bytes when the format has no name for the dtype (complex,
#: long double, fixed-size strings): bool, ints, floats, complex, str, bytes.
BYTE_KINDS = "biufcUS"


def stored_form(dtype: np.dtype) -> str | None:
    """How an array of ``dtype`` is stored: ``"named"`` (a safetensors dtype, maybe after
    a byte swap), ``"bytes"`` (its raw bytes, the dtype in the tree) or None (pickled)."""
    if dtype.fields is not None or dtype.subdtype is not None or dtype.kind not in BYTE_KINDS:
        return None
    if dtype.newbyteorder("<") in NAMED_DTYPES:
        return "named"
    return "bytes" if dtype.itemsize > 0 else None


# ---------------------------------------------------------------------------- encode
class Encoder:
    """Builds the tree of one checkpoint; ``arrays`` collects name -> C-contiguous array.

    Args:
        pickle_object: called as ``pickle_object(encoder, obj, parts, where)`` for an
            object the tree cannot hold; returns its node (``pickling.pickle_node``).
    """

    def __init__(self, pickle_object):
        self.arrays: dict[str, np.ndarray] = {}
        self._pickle_object = pickle_object

    def name(self, parts: list[str]) -> str:
        """The array's name: its path joined by dots, made unique if two paths meet
        (``{"a.b": x, "a": {"b": y}}``) or the path is empty (an array saved alone)."""
        base = ".".join(parts) or "obj"
        name, n = base, 1
        while name in self.arrays or name == "__metadata__":
            name, n = f"{base}~{n}", n + 1
        return name

    def store(self, arr: np.ndarray, parts: list[str]) -> dict:
        """Add ``arr`` under its path's name; returns the node fields that find it again."""
        import zlib

        name = self.name(parts)
        fields: dict = {"k": name}
        if stored_form(arr.dtype) == "named":
            data = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
            if data.dtype != arr.dtype:
                fields["dtype"] = arr.dtype.str  # e.g. ">f8": stored little-endian
        else:
            fields["bytes"] = {"dtype": arr.dtype.str, "shape": list(arr.shape)}
            data = np.frombuffer(_c_order(arr).tobytes(), dtype=np.uint8)
        data = _c_order(data)
        fields["crc"] = zlib.crc32(data)
        self.arrays[name] = data
        return fields

    def encode(self, obj, parts: list[str], where: str, active: list) -> dict:
        """``active`` holds the ids of the containers being encoded (cycle and depth check)."""
        if obj is None or type(obj) in (bool, int, float, str):
            return encode_plain(obj, where)
        if isinstance(obj, Tensor):
            # np.asarray, not np.ascontiguousarray: NumPy 1.x makes a 0-d array 1-d there,
            # and a BatchNorm's num_batches_tracked would come back with shape [1].
            arr = np.asarray(obj._data)
            if stored_form(arr.dtype) is not None:
                node = {"t": "tensor", **self.store(arr, parts)}
                node["requires_grad"] = bool(obj.requires_grad)
                return node
        if isinstance(obj, np.ndarray) and stored_form(obj.dtype) is not None:
            return {"t": "array", **self.store(obj, parts)}
        if isinstance(obj, np.generic) and stored_form(obj.dtype) is not None:
            return {"t": "npscalar", **self.store(np.asarray(obj), parts)}
        if isinstance(obj, (dict, list, tuple)) and (
            not isinstance(obj, dict) or all(is_plain_key(k) for k in obj)
        ):
            return self._container(obj, parts, where, active)
        return self._pickle_object(self, obj, parts, where)

    def _container(self, obj, parts, where, active) -> dict:
        if id(obj) in active:
            raise ValueError(f"mg.save: {where} contains itself (a reference cycle)")
        if len(active) >= MAX_DEPTH:
            raise ValueError(f"mg.save: {where} is nested more than {MAX_DEPTH} containers deep")
        active.append(id(obj))
        try:
            if isinstance(obj, dict):
                items = [
                    [
                        encode_plain(k, where),
                        self.encode(v, [*parts, str(k)], f"{where}[{k!r}]", active),
                    ]
                    for k, v in obj.items()
                ]
                return {"t": "odict" if isinstance(obj, OrderedDict) else "dict", "v": items}
            values = [
                self.encode(v, [*parts, str(i)], f"{where}[{i}]", active) for i, v in enumerate(obj)
            ]
            return {"t": "tuple" if isinstance(obj, tuple) else "list", "v": values}
        finally:
            active.pop()


def _c_order(arr: np.ndarray) -> np.ndarray:
    """``arr`` in C order (a copy only when needed; a 0-d array stays 0-d)."""
    return arr if arr.flags.c_contiguous else arr.copy(order="C")


def is_plain_key(k, depth: int = 0) -> bool:
    """A dict key the tree holds: None, bool, int, float, str, or a tuple of those."""
    if k is None or type(k) in (bool, int, float, str):
        return type(k) is not int or len(str(abs(k))) <= MAX_INT_DIGITS
    return type(k) is tuple and depth < MAX_DEPTH and all(is_plain_key(x, depth + 1) for x in k)


def encode_plain(obj, where: str) -> dict:
    """A plain value's node (also a dict key's, where tuples of plain values are allowed)."""
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
    return {"t": "tuple", "v": [encode_plain(x, where) for x in obj]}  # a key's tuple


# ---------------------------------------------------------------------------- decode
class Decoder:
    """Turns a tree back into objects.

    Args:
        read_array: ``read_array(name)`` returns the stored array ``name`` (raising
            ``CheckpointError`` if the file cannot give it).
        names: the names of the arrays the file holds.
        file: the file's name, for messages.
        unpickle: ``unpickle(decoder, node, where)`` for a pickled node (``pickling.py``).
        checksums: whether every array node must carry a CRC-32 of its bytes (the
            safetensors format; the first format's zip members carried their own).
    """

    def __init__(self, read_array, names, file, unpickle=None, checksums: bool = True):
        self.read_array, self.names, self.file = read_array, set(names), file
        self.unpickle, self.checksums = unpickle, checksums
        self.used: set[str] = set()

    def fail(self, where: str, why: str) -> CheckpointError:
        return CheckpointError(f"{self.file}: corrupt checkpoint structure at {where}: {why}")

    def array(self, node: dict, where: str) -> np.ndarray:
        """The array a node refers to, checked against its checksum, writable, C order."""
        import zlib

        key = node.get("k")
        if not isinstance(key, str) or key not in self.names:
            raise self.fail(where, f"missing array entry {key!r}")
        if key in self.used:
            raise self.fail(where, f"array entry {key!r} is referenced more than once")
        self.used.add(key)
        arr = self.read_array(key)
        if self.checksums:
            crc = node.get("crc")
            if type(crc) is not int:
                raise self.fail(where, f"array {key!r} has no checksum")
            if zlib.crc32(_c_order(arr)) != crc:
                raise CheckpointError(
                    f"{self.file}: corrupt checkpoint: the bytes of array {key!r} ({where}) do "
                    "not match their checksum (the file was damaged after it was written)"
                )
        if "bytes" in node:
            arr = self._from_bytes(arr, node["bytes"], key, where)
        elif "dtype" in node:
            dtype = self._dtype(node["dtype"], where)
            if stored_form(dtype) != "named" or dtype.newbyteorder("<") != arr.dtype:
                raise self.fail(where, f"dtype {node['dtype']!r} does not fit array {key!r}")
            arr = arr.astype(dtype)
        if not (arr.flags.writeable and arr.flags.c_contiguous):
            arr = arr.copy(order="C")  # a view of the file's bytes, read-only
        return arr

    def _dtype(self, text, where: str) -> np.dtype:
        if not isinstance(text, str) or len(text) > 16:
            raise self.fail(where, "bad dtype")
        try:
            dtype = np.dtype(text)
        except (TypeError, ValueError):
            raise self.fail(where, f"bad dtype {text!r}") from None
        if stored_form(dtype) is None:
            raise self.fail(where, f"dtype {text!r} is not one a checkpoint stores")
        return dtype

    def _from_bytes(self, raw: np.ndarray, spec, key: str, where: str) -> np.ndarray:
        if not (isinstance(spec, dict) and isinstance(spec.get("shape"), list)):
            raise self.fail(where, f"bad byte layout of array {key!r}")
        dtype = self._dtype(spec.get("dtype"), where)
        shape = spec["shape"]
        if len(shape) > 64 or not all(type(n) is int and n >= 0 for n in shape):
            raise self.fail(where, f"bad shape of array {key!r}")
        count = 1
        for n in shape:
            count *= n
        if raw.dtype != np.uint8 or raw.ndim != 1 or raw.size != count * dtype.itemsize:
            raise self.fail(
                where,
                f"array {key!r} holds {raw.size:,} bytes, not the {count * dtype.itemsize:,} "
                f"of a {shape} {dtype} array",
            )
        return raw.view(dtype).reshape(shape)

    def decode(self, node, where: str, depth: int):
        if not isinstance(node, dict) or "t" not in node:
            raise self.fail(where, "expected a tagged node")
        t = node["t"]
        if t in ("none", "bool", "int", "float", "str"):
            return self.plain(node, where)
        if t == "array":
            return self.array(node, where)
        if t == "npscalar":
            arr = self.array(node, where)
            if arr.ndim != 0:
                raise self.fail(where, f"a scalar entry holds an array of shape {list(arr.shape)}")
            return arr[()]
        if t == "tensor":
            tensor = Tensor._make(self.array(node, where), False, None)
            if node.get("requires_grad") is True and tensor._data.dtype.kind == "f":
                tensor.requires_grad = True
            return tensor
        if t == "pickle" and self.unpickle is not None:
            return self.unpickle(self, node, where)
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
            key = self.key(item[0], where, depth)
            out[key] = self.decode(item[1], f"{where}[{key!r}]", depth + 1)
        return out

    def plain(self, node, where: str):
        t = node.get("t") if isinstance(node, dict) else None
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
        raise self.fail(where, f"expected a plain value, got {t!r}")

    def key(self, k, where: str, depth: int):
        """A dict key: a plain node, a tuple of them, or the first format's
        ``["s", text]`` / ``["i", number]``."""
        if isinstance(k, list) and len(k) == 2:
            if k[0] == "s" and type(k[1]) is str:
                return k[1]
            if k[0] == "i" and type(k[1]) is int:
                return k[1]
        if isinstance(k, dict) and k.get("t") == "tuple" and isinstance(k.get("v"), list):
            if depth >= MAX_DEPTH:
                raise self.fail(where, f"dict keys nested more than {MAX_DEPTH} deep")
            return tuple(self.key(x, where, depth + 1) for x in k["v"])
        if isinstance(k, dict):
            return self.plain(k, where)
        raise self.fail(where, f"bad dict key {k!r}")
