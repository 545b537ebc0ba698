"""Per-layer statistics of a training step: how big the residual stream is after every
block, how much each block changes it, and how large each block's gradient is.

For a model whose forward appended the residual stream to ``streams`` before the first
block and after every block (``TinyTransformer.forward(tokens, streams)``), after the
backward pass:

- ``stream_rms[l]``: the root mean square of the stream after block ``l`` (index 0 is
  the stream entering the first block: the embeddings), over every position and unit;
- ``update_rms[l]``: the RMS of what block ``l`` changed, ``stream[l + 1] - stream[l]``
  (with pre-norm or no norm that is exactly what the block added; a post-norm block
  also renormalizes the stream, and this includes that);
- ``grad_norm[l]``: the norm of the gradient of all of block ``l``'s parameters
  together, before any clipping.
"""

from __future__ import annotations

import numpy as np

import minigrad as mg
import minigrad.nn as nn

__all__ = ["STATISTICS", "layer_stats"]

#: the statistics, in the order of ``layers.csv``'s columns
STATISTICS = ("stream_rms", "update_rms", "grad_norm")


def _rms(values: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(values, dtype=np.float64))))


def layer_stats(blocks: nn.ModuleList, streams: list[mg.Tensor]) -> dict[str, list[float]]:
    """``{"stream_rms": [L + 1 floats], "update_rms": [L], "grad_norm": [L]}`` for the
    ``L`` blocks, from the streams a forward recorded and the gradients a backward left
    (a block whose parameters have no gradient yet gets NaN)."""
    values = [s.detach().numpy() for s in streams]
    if len(values) != len(blocks) + 1:
        raise ValueError(
            f"layer_stats: expected {len(blocks) + 1} streams for {len(blocks)} blocks, "
            f"got {len(values)}"
        )
    grads = []
    for block in blocks:
        squares = [
            float(np.sum(np.square(p.grad.numpy(), dtype=np.float64)))
            for p in block.parameters()
            if p.grad is not None
        ]
        grads.append(float(np.sqrt(sum(squares))) if squares else float("nan"))
    return {
        "stream_rms": [_rms(v) for v in values],
        "update_rms": [_rms(b - a) for a, b in zip(values[:-1], values[1:])],
        "grad_norm": grads,
    }
