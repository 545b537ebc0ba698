"""``mg.utils.tensorboard.SummaryWriter``: TensorBoard event files, as PyTorch writes them.

The writing itself is the ``tensorboard`` package's (its event-file writer and protocol
buffers), so the files are real TensorBoard logs: ``tensorboard --logdir runs`` shows
them. The package is optional: without it, importing this module raises an
``ImportError`` that names it (``pip install tensorboard``), as PyTorch's does.

Supported: ``add_scalar``, ``add_scalars``, ``add_text``, ``add_histogram``, ``flush``,
``close`` and use as a context manager.
"""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime

import numpy as np

try:
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
    from tensorboard.summary.writer.event_file_writer import EventFileWriter
except ImportError as e:  # pragma: no cover - depends on what is installed
    raise ImportError(
        "minigrad.utils.tensorboard needs the `tensorboard` package to write event files: "
        "pip install tensorboard"
    ) from e

__all__ = ["SummaryWriter"]
#: torch.utils.tensorboard is a package in PyTorch: its submodules (writer, summary) import
#: and refuse at use (minigrad/unsupported.py). An empty ``__path__`` makes this a package.
__path__: list[str] = []


def _number(value) -> float:
    if hasattr(value, "item"):
        value = value.item()
    return float(value)


class SummaryWriter:
    """Write scalars, text and histograms to an event file in ``log_dir``.

    Args:
        log_dir: the folder (default ``runs/<date>_<host><comment>``, PyTorch's).
        comment: appended to the default folder name.
        purge_step, max_queue, flush_secs, filename_suffix: as in PyTorch
            (``purge_step`` is accepted and ignored).

    Example::

        >>> with SummaryWriter("runs/exp1") as w:
        ...     w.add_scalar("loss/train", loss, step)
    """

    def __init__(
        self,
        log_dir: str | None = None,
        comment: str = "",
        purge_step=None,
        max_queue: int = 10,
        flush_secs: int = 120,
        filename_suffix: str = "",
    ) -> None:
        if log_dir is None:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = str(log_dir)
        self._writer = EventFileWriter(self.log_dir, max_queue, flush_secs, filename_suffix)
        self._subwriters: dict = {}

    def get_logdir(self) -> str:
        return self.log_dir

    def _add(self, summary, global_step, walltime) -> None:
        event = Event(summary=summary, wall_time=walltime or time.time())
        if global_step is not None:
            event.step = int(global_step)
        self._writer.add_event(event)

    def add_scalar(
        self,
        tag: str,
        scalar_value,
        global_step=None,
        walltime=None,
        new_style: bool = False,
        double_precision: bool = False,
    ) -> None:
        """Record one number (a float, or a one-element tensor) under ``tag``."""
        value = Summary.Value(tag=tag, simple_value=_number(scalar_value))
        self._add(Summary(value=[value]), global_step, walltime)

    def add_scalars(
        self, main_tag: str, tag_scalar_dict: dict, global_step=None, walltime=None
    ) -> None:
        """Several curves in one chart: each in its own sub-folder, as PyTorch does."""
        for tag, value in tag_scalar_dict.items():
            path = os.path.join(self.log_dir, f"{main_tag.replace('/', '_')}_{tag}")
            if path not in self._subwriters:
                self._subwriters[path] = EventFileWriter(path)
            summary = Summary(value=[Summary.Value(tag=main_tag, simple_value=_number(value))])
            event = Event(summary=summary, wall_time=walltime or time.time())
            if global_step is not None:
                event.step = int(global_step)
            self._subwriters[path].add_event(event)

    def add_text(self, tag: str, text_string: str, global_step=None, walltime=None) -> None:
        from tensorboard.compat.proto.tensor_pb2 import TensorProto
        from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

        meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text"))
        tensor = TensorProto(
            dtype="DT_STRING",
            string_val=[text_string.encode("utf-8")],
            tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]),
        )
        value = Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=tensor)
        self._add(Summary(value=[value]), global_step, walltime)

    def add_histogram(
        self, tag: str, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None
    ) -> None:
        v = np.asarray(values.numpy() if hasattr(values, "numpy") else values, np.float64)
        v = v.reshape(-1)
        counts, edges = np.histogram(v, bins=30 if bins == "tensorflow" else bins)
        hist = HistogramProto(
            min=float(v.min()),
            max=float(v.max()),
            num=int(v.size),
            sum=float(v.sum()),
            sum_squares=float((v * v).sum()),
            bucket_limit=edges[1:].tolist(),
            bucket=counts.astype(float).tolist(),
        )
        self._add(Summary(value=[Summary.Value(tag=tag, histo=hist)]), global_step, walltime)

    def flush(self) -> None:
        self._writer.flush()
        for w in self._subwriters.values():
            w.flush()

    def close(self) -> None:
        self._writer.close()
        for w in self._subwriters.values():
            w.close()

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
