"""How minigrad writes values as text: shapes and dtypes in messages (one helper each,
shared by every error and report), and the numbers of ``repr(tensor)`` with
``mg.set_printoptions`` to change them.

The print options are PyTorch's (precision, threshold, edgeitems, linewidth, sci_mode and
the three profiles); NumPy's ``array2string`` does the writing with them.
"""

from __future__ import annotations

import numpy as np


def shape_str(shape) -> str:
    """``(2, 3)`` -> ``"[2, 3]"``: a shape written as PyTorch writes it in messages."""
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


_TORCH_DTYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                      "uint8": "Byte", "bool": "Bool", "float16": "Half", "float32": "Float",
                      "float64": "Double"}  # fmt: skip


def torch_dtype_name(dtype) -> str:
    """``float32`` -> ``"Float"``: a dtype named as PyTorch names it in messages."""
    return _TORCH_DTYPE_NAMES.get(str(dtype), str(dtype))


_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": np.inf, "edgeitems": 3, "linewidth": 80},
}
OPTIONS = {**_PROFILES["default"], "sci_mode": None}


def set_options(precision, threshold, edgeitems, linewidth, profile, sci_mode) -> None:
    """``mg.set_printoptions``: a profile first, then each option given."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions: unknown profile {profile!r}")
        OPTIONS.update(_PROFILES[profile])
    given = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems,
             "linewidth": linewidth}  # fmt: skip
    OPTIONS.update({k: v for k, v in given.items() if v is not None})
    OPTIONS["sci_mode"] = sci_mode


def body(data: np.ndarray) -> str:
    """The numbers of ``repr(tensor)``, between ``tensor(`` and the dtype."""
    precision = OPTIONS["precision"]
    formatter = None
    if OPTIONS["sci_mode"] and data.dtype.kind == "f":
        formatter = {"float_kind": lambda x: f"{x:.{precision}e}"}
    threshold = OPTIONS["threshold"]
    return np.array2string(
        data,
        separator=", ",
        prefix="tensor(",
        precision=precision,
        threshold=int(threshold) if threshold != np.inf else np.iinfo(np.int64).max,
        edgeitems=OPTIONS["edgeitems"],
        max_line_width=OPTIONS["linewidth"],
        suppress_small=OPTIONS["sci_mode"] is False,
        formatter=formatter,
    )
