"""The lab: small experiments that measure what the docs claim about normalization.

Each experiment states a claim with its conditions, measures it on your CPU in a few
minutes at most (seconds with ``quick``), writes a
CSV of its numbers and a PNG plot, and says whether the measurement supports the
claim. Run them from the command line::

    python -m minigrad lab --list
    python -m minigrad lab residual-growth --out runs/lab/residual-growth

or from Python::

    from minigrad.lab import run_experiment
    result = run_experiment("invariance")
    print(result.verdict, result.headline)

The experiments (one module each, in the order of docs/index.md):

- ``skip-connection``: y = x + F(x) against y = F(x): the gradient reaching the first
  layer, and whether a deep stack trains.
- ``residual-growth``: the residual stream's size, block by block, at initialization.
- ``gradient-flow``: each layer's gradient norm at initialization, pre- vs post-norm,
  and the last layer's gradient against depth.
- ``warmup``: a small language model over learning rate x depth, post- vs pre-norm, with
  and without warmup; gradient clipping; long runs where both train.
- ``training-stats``: the stream's RMS, each block's update and gradient norm during
  training, for no norm, pre-norm and post-norm (one figure per quantity).
- ``norm-lr-sweep``: what a norm buys: the learning rates that train with LayerNorm,
  RMSNorm and no norm, at several seeds.
- ``invariance``: what LayerNorm and RMSNorm are invariant to.
- ``batchnorm-pitfalls``: batch-size noise, train vs eval, forgetting ``eval()``,
  padding, against LayerNorm.
- ``norm-pitfalls``: LayerNorm on NCHW, BatchNorm1d on NLE, eps in float16, a frozen
  BatchNorm, a forgotten ``model.eval()``, each next to the right way.
- ``saturation``: near-zero GELU / SiLU gradients as the input's scale grows.
- ``norm-cost``: LayerNorm vs RMSNorm time and parameter count.

Experiments never print; they return a ``LabResult`` (``minigrad/lab/result.py``).
"""

from minigrad.lab.registry import (
    EXPERIMENTS,
    Experiment,
    UnknownExperiment,
    get_experiment,
    run_experiment,
)
from minigrad.lab.result import Check, LabResult

__all__ = [
    "EXPERIMENTS",
    "Check",
    "Experiment",
    "LabResult",
    "UnknownExperiment",
    "get_experiment",
    "run_experiment",
]
