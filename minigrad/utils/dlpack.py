"""``mg.utils.dlpack``: tensors to and from DLPack capsules (zero-copy exchange with
other array libraries), through NumPy's DLPack support
(see ``minigrad/surface/tensor_memory.py``)."""

from __future__ import annotations

import enum

from minigrad.surface.tensor_memory import from_dlpack, to_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes; minigrad's tensors are all ``kDLCPU``."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
