"""``nn.parallel.DistributedDataParallel`` and ``nn.DataParallel`` for one process.

Both wrap a module transparently: ``ddp(x)`` is ``module(x)``, ``ddp.module`` is the
wrapped model, and, as in PyTorch, the wrapper's ``state_dict`` keys carry a
``module.`` prefix (nanoGPT-style code saves ``model.module.state_dict()`` or strips
the prefix). Gradients need no averaging across one process.

minigrad trains in one process, so a world size above 1 (``WORLD_SIZE`` set by
``torchrun``, or a process group of several) raises a ``RuntimeError`` pointing to
PyTorch's ``DistributedDataParallel`` (see ``minigrad.distributed``). Unlike PyTorch,
``DistributedDataParallel`` does not require ``init_process_group`` first: with no
group there is one process, which is what it wraps.
"""

from __future__ import annotations

import contextlib

from minigrad import distributed as _process_group  # not "distributed": a submodule here
from minigrad.devices import check_device
from minigrad.nn.module import Module
from minigrad.unsupported import module_getattr

__all__ = ["DataParallel", "DistributedDataParallel"]


class DistributedDataParallel(Module):
    """Wrap ``module`` for a one-process data-parallel run (see the module docstring).

    Args: PyTorch's; ``device_ids`` / ``output_device`` may name only the CPU, the
    others (``broadcast_buffers``, ``find_unused_parameters``, ...) have no effect.
    """

    def __init__(
        self,
        module: Module,
        device_ids=None,
        output_device=None,
        dim: int = 0,
        broadcast_buffers: bool = True,
        process_group=None,
        bucket_cap_mb=None,
        find_unused_parameters: bool = False,
        **kwargs,
    ) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(
                f"DistributedDataParallel: module must be a Module, got {type(module).__name__}"
            )
        _process_group.check_single_process(_process_group.env_world_size())
        for d in device_ids or ():
            check_device(d if not isinstance(d, int) else "cuda", "DistributedDataParallel")
        check_device(output_device, "DistributedDataParallel")
        self.module = module
        self.require_backward_grad_sync = True

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Skip gradient synchronisation (there is none with one process)."""
        prev = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = prev


class DataParallel(Module):
    """``nn.DataParallel``: the module itself on the one device there is."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DataParallel: module must be a Module, got {type(module).__name__}")
        self.module = module

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)


__getattr__ = module_getattr(__name__)  # replicate, scatter ...: unsupported.json
