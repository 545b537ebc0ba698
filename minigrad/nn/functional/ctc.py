"""``ctc_loss``: connectionist temporal classification (Graves et al., 2006), by the
forward algorithm in log space, written with Tensor operations so that autograd gives the
gradient.

For a target ``l`` of length ``S``, the extended label ``l'`` puts a blank before, between
and after its labels (length ``L = 2S + 1``). With ``lp = log_probs``:

    alpha_0(0) = lp_0(blank),  alpha_0(1) = lp_0(l'_1),  alpha_0(s) = -inf otherwise
    alpha_t(s) = logsumexp(alpha_{t-1}(s), alpha_{t-1}(s - 1), [alpha_{t-1}(s - 2)]) + lp_t(l'_s)

where the ``s - 2`` term counts only when ``l'_s`` is a label different from
``l'_{s-2}`` (a blank between two equal labels cannot be skipped). The loss is
``-logsumexp(alpha_{T-1}(L - 1), alpha_{T-1}(L - 2))`` at each sample's own input length
``T``. -inf is represented by -1e30 (finite, so the gradient of a logsumexp over
impossible paths is 0, not nan); a target that no alignment fits gives ``inf`` (or 0 with
``zero_infinity``), as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from minigrad.nn.functional.loss import check_reduction
from minigrad.ops import cat, stack, where
from minigrad.tensor import Tensor, as_tensor

__all__ = ["ctc_loss"]

_NEG = -1e30  # log(0), kept finite


def _targets_per_sample(targets, target_lengths: np.ndarray) -> list[np.ndarray]:
    t = np.asarray(as_tensor(targets).numpy())
    if t.ndim == 1:  # concatenated
        ends = np.cumsum(target_lengths)
        return [t[e - n : e] for e, n in zip(ends, target_lengths)]
    return [t[i, :n] for i, n in enumerate(target_lengths)]


def ctc_loss(
    log_probs: Tensor,
    targets,
    input_lengths,
    target_lengths,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """The CTC loss (see the module docstring).

    Shape: ``log_probs`` ``(T, N, C)`` (log-softmax over C) or ``(T, C)``; ``targets``
    ``(N, S)`` padded, or ``(sum(target_lengths),)`` concatenated; ``input_lengths`` and
    ``target_lengths`` ``(N,)``. Output: a scalar, or ``(N,)`` with ``reduction='none'``.
    """
    check_reduction("ctc_loss", reduction)
    lp = as_tensor(log_probs)
    unbatched = lp.ndim == 2
    if unbatched:
        lp = lp.unsqueeze(1)
        targets = as_tensor(targets).reshape(1, -1)
    if lp.ndim != 3:
        raise RuntimeError(f"ctc_loss: log_probs must be (T, N, C) or (T, C), got {lp.ndim}-D")
    steps, batch, classes = lp.shape
    in_len = np.asarray(as_tensor(input_lengths).numpy(), dtype=np.int64).reshape(-1)
    tg_len = np.asarray(as_tensor(target_lengths).numpy(), dtype=np.int64).reshape(-1)
    if len(in_len) != batch or len(tg_len) != batch:
        raise RuntimeError(
            "ctc_loss: input_lengths and target_lengths must have one entry per sample"
        )
    if (in_len > steps).any() or (in_len < 1).any():
        raise RuntimeError(f"ctc_loss: input_lengths must be in [1, {steps}]")
    labels = _targets_per_sample(targets, tg_len)
    width = 2 * int(tg_len.max(initial=0)) + 1
    ext = np.full((batch, width), blank, dtype=np.int64)  # l', padded with blanks
    skip = np.zeros((batch, width), dtype=bool)  # may alpha(s) come from alpha(s - 2)?
    for n, lab in enumerate(labels):
        if ((lab < 0) | (lab >= classes) | (lab == blank)).any():
            raise RuntimeError("ctc_loss: targets must be class indices other than blank")
        ext[n, 1 : 2 * len(lab) : 2] = lab
        skip[n, 3 : 2 * len(lab) : 2] = lab[1:] != lab[:-1]
    index = Tensor(ext)
    neg = Tensor(np.full((batch, 2), _NEG, dtype=lp.dtype))

    alpha = where(Tensor(np.arange(width) < 2), lp[0].gather(1, index), _NEG)
    alphas = [alpha]
    for t in range(1, steps):
        one_back = cat([neg[:, :1], alpha[:, :-1]], 1)
        two_back = where(Tensor(skip), cat([neg, alpha[:, :-2]], 1), _NEG)
        alpha = stack([alpha, one_back, two_back]).logsumexp(0) + lp[t].gather(1, index)
        alphas.append(alpha)
    final = stack(alphas)[in_len - 1, np.arange(batch)]  # (N, width) at each T_n - 1
    last = final.gather(1, Tensor((2 * tg_len).reshape(-1, 1)))
    before = final.gather(1, Tensor(np.maximum(2 * tg_len - 1, 0).reshape(-1, 1)))
    before = where(Tensor((tg_len > 0).reshape(-1, 1)), before, _NEG)
    loss = -cat([last, before], 1).logsumexp(1)  # (N,)

    impossible = Tensor(loss.detach().numpy() > -_NEG / 2)  # no alignment fits
    loss = where(impossible, 0.0 if zero_infinity else float("inf"), loss)
    if reduction == "none":
        return loss[0] if unbatched else loss
    if reduction == "sum":
        return loss.sum()
    return (loss / Tensor(np.maximum(tg_len, 1).astype(lp.dtype))).mean()
