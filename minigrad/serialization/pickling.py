"""Objects a checkpoint's tree cannot hold (a config dataclass, an enum), pickled.

``mg.save`` pickles such an object into the tree as ``{"t": "pickle", "v": BASE64, ...}``
and takes the Tensors, arrays and NumPy scalars inside it out as named arrays (pickle's
persistent ids), so the pickle holds only the object's own fields.

``mg.load`` unpickles as PyTorch's ``torch.load`` does since PyTorch 2.6:

- ``weights_only=True`` (the default): a restricted unpickler that finds no global but
  a few harmless builtins and the classes and functions the user allowed with
  ``add_safe_globals`` (or the ``safe_globals`` context manager). Anything else raises
  ``WeightsOnlyUnpicklingError`` naming the global and what to pass. Loading an
  untrusted file this way cannot run code.
- ``weights_only=False``: an ordinary unpickler, for files from a trusted source only
  (unpickling can run arbitrary code).
"""

from __future__ import annotations

import builtins
import collections
import copyreg
import pickle

import numpy as np

from minigrad.serialization.errors import CheckpointError, WeightsOnlyUnpicklingError
from minigrad.serialization.tree import stored_form
from minigrad.tensor import Tensor

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals"]


def _latin1_encode(text, encoding="utf-8"):
    """What ``_codecs.encode`` does in a pickle of protocol 0-2, where it rebuilds
    ``bytes`` (``encode(text, "latin1")``); no other codec, whose module would load."""
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError("_codecs.encode is allowed only to rebuild bytes (latin1)")
    return text.encode("latin1")


#: Globals a weights-only load always finds: they build values, they run no user code.
_DEFAULT_GLOBALS = {
    "_codecs.encode": _latin1_encode,  # bytes, in protocols 0-2
    "collections.OrderedDict": collections.OrderedDict,
    "builtins.set": builtins.set,
    "builtins.frozenset": builtins.frozenset,
    "builtins.complex": builtins.complex,
    "builtins.slice": builtins.slice,
    "builtins.object": builtins.object,
    "copyreg._reconstructor": copyreg._reconstructor,  # instances pickled by protocol 0/1
}

#: Python 2's names of these modules, which pickles of protocol 0-2 may still use
_PYTHON2_MODULES = {"__builtin__": "builtins", "copy_reg": "copyreg"}

_user_globals: list = []


def add_safe_globals(safe_globals: list) -> None:
    """Allow a weights-only ``mg.load`` to unpickle these classes and functions (as
    ``torch.serialization.add_safe_globals``). Each item is the object itself, or a
    tuple ``(obj, "module.Name")`` naming where the file says it lives.

    Example::

        >>> @dataclasses.dataclass
        ... class GPTConfig:
        ...     n_layer: int = 2
        >>> mg.save({"config": GPTConfig()}, "ckpt.safetensors")
        >>> mg.serialization.add_safe_globals([GPTConfig])
        >>> mg.load("ckpt.safetensors")["config"]
        GPTConfig(n_layer=2)
    """
    for item in safe_globals:
        _global_name(item)  # refuse a malformed item before adding any
    _user_globals.extend(safe_globals)


def get_safe_globals() -> list:
    """The classes and functions added by ``add_safe_globals`` (a copy)."""
    return list(_user_globals)


def clear_safe_globals() -> None:
    """Forget every class and function added by ``add_safe_globals``."""
    _user_globals.clear()


class safe_globals:  # PyTorch's name for this context manager
    """``with mg.serialization.safe_globals([GPTConfig]): mg.load(path)``: the globals
    are allowed inside the block only."""

    def __init__(self, safe_globals: list):
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        self._before = get_safe_globals()
        add_safe_globals(self.safe_globals)
        return self

    def __exit__(self, *exc):
        _user_globals[:] = self._before
        return False


def _global_name(item) -> tuple[str, object]:
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], str):
        return item[1], item[0]
    module, name = getattr(item, "__module__", None), getattr(item, "__qualname__", None)
    if not (isinstance(module, str) and isinstance(name, str)):
        raise TypeError(
            "add_safe_globals: expected classes or functions, or (object, 'module.Name') "
            f"tuples, got {item!r}"
        )
    return f"{module}.{name}", item


def _allowed_globals() -> dict:
    allowed = dict(_DEFAULT_GLOBALS)
    allowed.update(_global_name(item) for item in _user_globals)
    return allowed


# ------------------------------------------------------------------------------ save
def pickle_node(encoder, obj, parts: list[str], where: str, module=pickle, protocol=2) -> dict:
    """Pickle ``obj`` (the Tensors, arrays and NumPy scalars in it stored by ``encoder``
    as named arrays) into a tree node."""
    import base64
    import io
    import zlib

    refs: list[dict] = []
    ids: dict[int, int] = {}
    alive = []  # objects given an id stay alive, so that no id is reused meanwhile

    class Pickler(module.Pickler):
        def persistent_id(self, o):
            kind = _array_kind(o)
            if kind is None:
                return None
            if id(o) not in ids:
                ids[id(o)] = len(refs)
                alive.append(o)
                arr = o._data if isinstance(o, Tensor) else o
                ref = {"t": kind, **encoder.store(np.asarray(arr), [*parts, str(len(refs))])}
                if isinstance(o, Tensor):
                    ref["requires_grad"] = bool(o.requires_grad)
                refs.append(ref)
            return ids[id(o)]

    buf = io.BytesIO()
    try:
        # fix_imports=False: builtins stay "builtins" (not Python 2's "__builtin__")
        Pickler(buf, protocol=protocol, fix_imports=False).dump(obj)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError) as e:
        raise pickle.PicklingError(
            f"mg.save: cannot save the {type(obj).__name__} at {where}: it is neither a "
            "tensor, an array, a container or a plain value, and pickling it failed: "
            f"{e}"
        ) from e
    payload = buf.getvalue()
    named = obj if isinstance(obj, type) or callable(obj) and hasattr(obj, "__qualname__") else None
    cls = named or type(obj)
    return {
        "t": "pickle",
        "type": f"{getattr(cls, '__module__', '?')}.{getattr(cls, '__qualname__', '?')}",
        "v": base64.b64encode(payload).decode("ascii"),
        "crc": zlib.crc32(payload),
        "refs": refs,
    }


def _array_kind(o) -> str | None:
    """What a persistent id stands for: a Tensor (``"tensor"``, ``"parameter"``), an
    array or a NumPy scalar of a dtype the file stores, or None (pickled as usual)."""
    if isinstance(o, Tensor):
        if stored_form(o._data.dtype) is None:
            return None
        from minigrad.nn.parameter import Parameter

        return "parameter" if isinstance(o, Parameter) else "tensor"
    if isinstance(o, np.ndarray) and type(o) is np.ndarray and stored_form(o.dtype) is not None:
        return "array"
    if isinstance(o, np.generic) and stored_form(o.dtype) is not None:
        return "npscalar"
    return None


# ------------------------------------------------------------------------------ load
def unpickle_node(decoder, node: dict, where: str, weights_only: bool, module, load_args):
    """The object a pickle node holds, or ``WeightsOnlyUnpicklingError`` when
    ``weights_only`` and it needs a global that is not allowed."""
    import base64
    import binascii
    import io
    import zlib

    label = node.get("type") if isinstance(node.get("type"), str) else "object"
    label = label[:200]
    try:
        payload = base64.b64decode(node.get("v"), validate=True)
    except (binascii.Error, TypeError, ValueError):
        raise decoder.fail(where, "bad pickle data") from None
    if zlib.crc32(payload) != node.get("crc"):
        raise CheckpointError(
            f"{decoder.file}: corrupt checkpoint: the pickled {label} at {where} does not "
            "match its checksum"
        )
    refs = node.get("refs")
    if not isinstance(refs, list):
        raise decoder.fail(where, "bad pickle references")
    loaded: dict[int, object] = {}

    def persistent_load(pid):
        if type(pid) is not int or not 0 <= pid < len(refs):
            raise decoder.fail(where, f"bad persistent id {pid!r} in the pickle")
        if pid not in loaded:
            loaded[pid] = _load_ref(decoder, refs[pid], f"{where}<{pid}>")
        return loaded[pid]

    base = pickle.Unpickler if weights_only else module.Unpickler

    class Unpickler(base):
        def persistent_load(self, pid):
            return persistent_load(pid)

        if weights_only:

            def find_class(self, mod, name):
                mod = _PYTHON2_MODULES.get(mod, mod)
                allowed = _allowed_globals()
                key = f"{mod}.{name}"
                if key not in allowed:
                    raise WeightsOnlyUnpicklingError(_refusal(decoder.file, where, label, key))
                return allowed[key]

    kwargs = {} if weights_only else dict(load_args)
    try:
        return Unpickler(io.BytesIO(payload), **kwargs).load()
    except CheckpointError:
        raise
    except Exception as e:
        cls = WeightsOnlyUnpicklingError if weights_only else CheckpointError
        raise cls(
            f"{decoder.file}: could not unpickle the {label} at {where}: {type(e).__name__}: {e}"
        ) from e


def _load_ref(decoder, ref, where: str):
    if not isinstance(ref, dict) or ref.get("t") not in ("tensor", "parameter", "array",
                                                           "npscalar"):  # fmt: skip
        raise decoder.fail(where, "bad array reference in the pickle")
    if ref["t"] == "parameter":
        from minigrad.nn.parameter import Parameter

        return Parameter(decoder.array(ref, where), requires_grad=ref.get("requires_grad") is True)
    return decoder.decode(ref, where, 0)


def _refusal(file, where: str, label: str, key: str) -> str:
    name = key.rsplit(".", 1)[-1]
    return (
        f"{file}: weights-only load refused the pickled {label} at {where}: it needs the "
        f"global {key}, which is not allowed. mg.load(..., weights_only=True), the default, "
        "unpickles only tensors, containers, plain values and allowed globals, so that a "
        "file cannot run code. If you trust the file's source, pass weights_only=False "
        "(unpickling can run arbitrary code); or allow this global with "
        f"mg.serialization.add_safe_globals([{name}]) or the "
        f"mg.serialization.safe_globals([{name}]) context manager."
    )
