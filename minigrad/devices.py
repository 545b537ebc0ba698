"""Devices: minigrad computes on the CPU, and says so when asked for anything else.

``mg.device("cpu")`` is PyTorch's ``torch.device``. Code written for PyTorch passes
devices around (``device="cpu"``, ``.to(device)``, ``torch.device(f"cuda:{rank}")``):
building a device object always works, as in PyTorch, but *using* a CUDA or MPS device
(a factory's ``device=``, ``t.to("cuda")``, ``model.cuda()``) raises a ``RuntimeError``
that says minigrad runs on the CPU and what to do instead.
"""

from __future__ import annotations

_KNOWN = ("cpu", "cuda", "mps", "xpu", "meta", "xla", "hpu", "npu", "privateuseone")


class device:
    """A device name with an optional index: ``device("cpu")``, ``device("cuda", 0)``,
    ``device("cuda:1")``.

    Attributes:
        type: ``"cpu"``, ``"cuda"``, ...
        index: the device index, or ``None``.
    """

    __slots__ = ("type", "index")

    def __init__(self, type, index: int | None = None) -> None:
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        elif isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type  # torch.device(0) is cuda:0
        elif not isinstance(type, str):
            raise TypeError(f"device: expected a str or int, got {builtin_type(type).__name__}")
        if ":" in type:
            name, _, num = type.partition(":")
            if not num.isdigit() or index is not None:
                raise RuntimeError(f"Invalid device string: '{type}'")
            type, index = name, int(num)
        if type not in _KNOWN:
            raise RuntimeError(
                f"Expected one of {', '.join(_KNOWN)} device type at start of device string: {type}"
            )
        if index is not None and (not isinstance(index, int) or index < 0):
            raise RuntimeError(f"Device index must not be negative, got {index!r}")
        self.type = type
        self.index = index

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __eq__(self, other) -> bool:
        if isinstance(other, device):
            return self.type == other.type and self.index == other.index
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.type, self.index))


builtin_type = type

CPU = device("cpu")


def check_device(dev, where: str) -> None:
    """Accept ``None``, ``"cpu"`` (``"cpu:0"``, ``mg.device("cpu")``); raise a clear
    ``RuntimeError`` for any other device."""
    if dev is None:
        return
    if not isinstance(dev, device):
        if not isinstance(dev, (str, int)) or isinstance(dev, bool):
            raise TypeError(
                f"{where}: device must be a str or mg.device, got {builtin_type(dev).__name__}"
            )
        dev = device(dev)
    if dev.type != "cpu":
        raise RuntimeError(
            f"{where}: minigrad runs on the CPU only, so device '{dev}' is not available. "
            "Use device='cpu' (code that checks torch.cuda.is_available() picks it by "
            "itself); to train on GPUs, load the same state_dict into PyTorch "
            "(see docs/pytorch-compat.md)."
        )


def is_device(obj) -> bool:
    """True for what ``.to()`` reads as a device rather than a dtype."""
    if isinstance(obj, device):
        return True
    if isinstance(obj, str):
        return obj.partition(":")[0] in _KNOWN
    return False


def get_default_device() -> device:
    """The device new tensors are made on: always the CPU."""
    return CPU


def set_default_device(dev) -> None:
    """Accept the CPU (or ``None``, PyTorch's "back to the CPU"); any other device raises
    the error of :func:`check_device`."""
    check_device(dev, "set_default_device")


class OutOfMemoryError(RuntimeError):
    """PyTorch's out-of-memory error of a device: there to be caught (``except
    torch.OutOfMemoryError``, ``torch.cuda.OutOfMemoryError``); minigrad never raises it
    (NumPy reports a failed allocation as ``MemoryError``)."""


class AcceleratorError(RuntimeError):
    """PyTorch's error of an accelerator: there to be caught; minigrad never raises it."""
