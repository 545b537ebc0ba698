"""skip-connection: y = x + F(x) against y = F(x), at initialization and in training.

A stack of ``depth`` blocks of width 32, each ``F(x) = linear2(relu(linear1(x)))`` with
PyTorch's default initialization, between an input layer (16 features -> 32) and an
output layer (32 -> 1), regressing a fixed smooth function of the input (unit
variance, so predicting its mean gives a loss of 1). The same blocks, with and without
the identity path:

    plain      x = F(x)
    residual   x = x + F(x)

Why it matters, in one line of calculus. Backward through a block multiplies the
gradient by the block's Jacobian: ``dF/dx`` without the skip, ``1 + dF/dx`` with it
(``I + J_F`` for vectors). With the default initialization ``dF/dx`` is small (each
linear layer scales a vector by about 1/sqrt(3), the ReLU halves it), so the plain
stack multiplies the gradient by a number well below 1 at every block and it vanishes
exponentially with depth; the residual stack multiplies it by about 1.

Three measurements:

1. The gradient norm of the first block's weights after one backward pass at
   initialization, at depths 1 to 64 (float64, so that the plain stack's tiny
   gradients are numbers and not underflow).
2. The gain of every block's backward pass, ``|grad at its input| / |grad at its
   output|`` (the "1 + F'(x)" of the argument), for a 32-block stack.
3. Training: Adam (lr 3e-3) on batches of 64 for 300 steps, the plain and the residual
   32-block stacks, and a plain 4-block stack for reference (float32, as one trains).
"""

from __future__ import annotations

import numpy as np

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.lab.output import (
    log_axis,
    new_figure,
    output_folder,
    save_figure,
    write_csv,
)
from minigrad.lab.result import LabResult
from minigrad.lab.stacks import seeded

NAME = "skip-connection"
TITLE = "y = x + F(x) against y = F(x): the gradient reaching the first layer, and training"
CLAIM = (
    "In a stack of ReLU MLP blocks at PyTorch's default initialization (width 32): "
    "without the identity path the gradient reaching the first block shrinks "
    "exponentially with depth, because each block multiplies it by dF/dx, well below 1; "
    "with it, each block multiplies it by 1 + dF/dx, about 1, and the gradient does not "
    "vanish; a 32-block stack trains only with the identity path."
)
FINDING = (
    "supported (4 of 4 checks at seed 0, full size; the same at seeds 0-3, quick): the "
    "plain stack's first-block gradient falls x0.22 per block (2.5e-42 at 64 blocks), the "
    "residual one's does not vanish (0.39 to 4.85); a 32-block stack trains only with the "
    "identity path (0.010 against 0.947)."
)

WIDTH, N_IN = 32, 16
VANISHES = 0.5  # plain: the gradient's factor per block at most this
KEEPS = 0.2  # residual: the deepest stack's first-block gradient at least this x the 1-block one
LR = 3e-3
# final loss (1 = predicting the mean): trains below TRAINS, stuck above STUCK; the shallow
# plain stack "learns" when it ends at least LEARNS below the deep plain one
TRAINS, LEARNS, STUCK = 0.3, 0.1, 0.8


class Block(nn.Module):
    """``F(x) = linear2(relu(linear1(x)))``, returned as ``x + F(x)`` when ``residual``."""

    def __init__(self, residual: bool):
        super().__init__()
        self.residual = residual
        self.linear1 = nn.Linear(WIDTH, WIDTH)
        self.linear2 = nn.Linear(WIDTH, WIDTH)

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        f = self.linear2(F.relu(self.linear1(x)))  # (N, WIDTH)
        return x + f if self.residual else f


class Stack(nn.Module):
    """Input layer, ``depth`` blocks, output layer."""

    def __init__(self, depth: int, residual: bool):
        super().__init__()
        self.inp = nn.Linear(N_IN, WIDTH)
        self.blocks = nn.ModuleList([Block(residual) for _ in range(depth)])
        self.out = nn.Linear(WIDTH, 1)

    def forward(self, x: mg.Tensor, keep: list | None = None) -> mg.Tensor:
        x = self.inp(x)
        for block in self.blocks:
            if keep is not None:  # the stream entering each block, for its gradient
                x.retain_grad()
                keep.append(x)
            x = block(x)
        if keep is not None:
            x.retain_grad()
            keep.append(x)
        return self.out(x)


def make_data(seed: int, n: int = 1024) -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)``: ``n`` standard-normal inputs of 16 features and a smooth target of unit
    variance, float64."""
    rng = np.random.default_rng([seed, 19])
    x = rng.standard_normal((n, N_IN))
    a = rng.standard_normal((N_IN, 2))
    y = np.sin(x @ a[:, 0] / 2) + 0.5 * np.tanh(x @ a[:, 1] / 2)
    return x, ((y - y.mean()) / y.std())[:, None]


def make_stack(depth: int, residual: bool, seed: int) -> Stack:
    with seeded(seed):
        return Stack(depth, residual)


def backward_at_init(depth: int, residual: bool, seed: int, x, y) -> tuple[float, np.ndarray]:
    """One backward pass in float64: ``(first block's weight-gradient norm, gains)``, the
    gains being ``|grad at block input| / |grad at block output|`` for every block."""
    net = make_stack(depth, residual, seed).double()
    streams = []
    F.mse_loss(net(mg.tensor(x), keep=streams), mg.tensor(y)).backward()
    first = net.blocks[0]
    weight_grad = nn.utils.get_total_norm([first.linear1.weight.grad, first.linear2.weight.grad])
    norms = np.array([float(np.linalg.norm(s.grad.numpy())) for s in streams])
    with np.errstate(divide="ignore", invalid="ignore"):
        gains = norms[:-1] / norms[1:]
    return float(weight_grad.item()), gains


def train(depth: int, residual: bool, seed: int, x, y, steps: int) -> np.ndarray:
    """Adam at lr 3e-3 on batches of 64 (float32); returns the loss on all of ``x`` after
    every 10 steps on its first 256 examples (the first entry at initialization)."""
    net = make_stack(depth, residual, seed)
    opt = mg.optim.Adam(net.parameters(), lr=LR)
    rng = np.random.default_rng([seed, 23])
    x32, y32 = x.astype(np.float32), y.astype(np.float32)
    x_eval, y_eval = mg.tensor(x32[:256]), mg.tensor(y32[:256])
    losses = []
    for step in range(steps + 1):
        if step % 10 == 0:
            with mg.no_grad():
                losses.append(F.mse_loss(net(x_eval), y_eval).item())
        if step == steps:
            break
        idx = rng.integers(0, len(x), 64)
        loss = F.mse_loss(net(mg.tensor(x32[idx])), mg.tensor(y32[idx]))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return np.array(losses)


def run(out=None, seed: int = 0, quick: bool = False, progress=None) -> LabResult:
    """Measure the gradients and the training runs, and check the claim.

    Defaults: depths 1, 2, 4, 8, 16, 32, 64 at initialization (3 initializations);
    gains of a 32-block stack; training of 32-block stacks for 300 steps. ``quick``:
    depths 1 to 16, one initialization for the gains, 16-block stacks for 100 steps.
    """
    folder = output_folder(out, NAME)
    depths = (1, 2, 4, 8, 16) if quick else (1, 2, 4, 8, 16, 32, 64)
    seeds = [seed + k for k in range(2 if quick else 3)]
    deep, steps = (16, 100) if quick else (32, 300)
    x, y = make_data(seed)
    x_batch, y_batch = x[:64], y[:64]

    if progress:
        progress(f"one backward pass at depths {', '.join(map(str, depths))}, float64")
    first = {}  # (residual, depth) -> geometric mean over seeds of the first block's gradient
    for residual in (False, True):
        for d in depths:
            values = [backward_at_init(d, residual, s, x_batch, y_batch)[0] for s in seeds]
            first[residual, d] = float(np.exp(np.mean(np.log(values))))
    gains = {r: backward_at_init(deep, r, seed, x_batch, y_batch)[1] for r in (False, True)}

    runs = {}
    for label, d, residual in (("plain", deep, False), ("residual", deep, True),
                               ("plain", 4, False)):  # fmt: skip
        if progress:
            progress(f"training {label}, {d} blocks: {steps} steps")
        runs[label, d] = train(d, residual, seed, x, y, steps)

    result = LabResult(NAME, CLAIM, data={"depths": depths, "first": first, "gains": gains,
                                          "runs": runs, "deep": deep, "steps": steps})  # fmt: skip
    plain = np.array([first[False, d] for d in depths])
    resid = np.array([first[True, d] for d in depths])
    per_block = float(np.exp(np.polyfit(depths, np.log(plain), 1)[0]))
    result.data["plain_factor"] = per_block
    result.headline = [
        "first block's gradient norm at depth " + " / ".join(map(str, depths)) + ": plain "
        + " / ".join(f"{g:.1e}" for g in plain) + "; residual "
        + " / ".join(f"{g:.2f}" for g in resid),
        f"plain: x{per_block:.3f} per block (exponential fit); residual: "
        f"x{resid[-1] / resid[0]:.2f} from 1 to {depths[-1]} blocks",
        f"backward gain per block, |grad in| / |grad out|, {deep} blocks: plain "
        f"{np.median(gains[False]):.3f} (median; dF/dx alone), residual "
        f"{np.median(gains[True]):.3f} (1 + dF/dx), range {gains[True].min():.3f}.."
        f"{gains[True].max():.3f}",
        f"loss after {steps} steps (1 = predicting the mean): plain {deep} blocks "
        f"{runs['plain', deep][-1]:.3f}, residual {deep} blocks {runs['residual', deep][-1]:.3f}, "
        f"plain 4 blocks {runs['plain', 4][-1]:.3f}",
    ]  # fmt: skip
    result.check(
        "without the identity path the first block's gradient shrinks exponentially with depth",
        per_block <= VANISHES and plain[-1] <= 1e-3 * resid[-1],
        f"x{per_block:.3f} per block (needs <= {VANISHES}); at {depths[-1]} blocks "
        f"{plain[-1]:.1e} against {resid[-1]:.2f} with the path (needs <= 1e-3 of it)",
    )
    result.check(
        "with the identity path the first block's gradient does not vanish",
        resid.min() >= KEEPS * resid[0],
        f"between {resid.min() / resid[0]:.2f} and {resid.max() / resid[0]:.2f} x its 1-block "
        f"value at every depth (needs >= {KEEPS})",
    )
    result.check(
        "each block multiplies the gradient by about 1 with the path, by well below 1 without",
        bool(np.all(np.abs(gains[True] - 1) <= 0.25)) and np.median(gains[False]) <= VANISHES,
        f"residual gains {gains[True].min():.3f}..{gains[True].max():.3f} (needs within 1 "
        f"+- 0.25); plain median {np.median(gains[False]):.3f} (needs <= {VANISHES})",
    )
    result.check(
        f"a {deep}-block stack trains only with the identity path (a 4-block one learns "
        "without it)",
        runs["plain", deep][-1] >= STUCK and runs["residual", deep][-1] <= TRAINS
        and runs["plain", 4][-1] <= runs["plain", deep][-1] - LEARNS,
        f"final loss plain {runs['plain', deep][-1]:.3f} (needs >= {STUCK}), residual "
        f"{runs['residual', deep][-1]:.3f} (needs <= {TRAINS}), plain 4 blocks "
        f"{runs['plain', 4][-1]:.3f} (needs at least {LEARNS} below the deep plain stack)",
    )  # fmt: skip

    columns = ["part", "variant", "depth", "x", "value"]
    rows = [["first-block gradient", "residual" if r else "plain", d, None, v]
            for (r, d), v in first.items()]  # fmt: skip
    rows += [["backward gain", "residual" if r else "plain", deep, b + 1, float(g)]
             for r, gs in gains.items() for b, g in enumerate(gs)]  # fmt: skip
    rows += [["training loss", label, d, 10 * k, float(v)]
             for (label, d), losses in runs.items() for k, v in enumerate(losses)]  # fmt: skip
    result.files.append(write_csv(folder / f"{NAME}.csv", columns, rows))
    _plot(result, folder)
    return result


def _plot(result: LabResult, folder) -> None:
    fig, axes = new_figure(result, 1, 3, width=4.4, height=3.8)
    if fig is None:
        return
    d = result.data
    colors = {False: "#dc2626", True: "#2563eb"}
    names = {False: "plain, y = F(x)", True: "residual, y = x + F(x)"}
    ax = axes[0]
    for r in (False, True):
        ax.semilogy(d["depths"], [d["first"][r, dp] for dp in d["depths"]], "o-",
                    color=colors[r], label=names[r])  # fmt: skip
    ax.set_xscale("log", base=2)
    ax.set_xticks(d["depths"], [str(dp) for dp in d["depths"]])
    ax.minorticks_off()
    ax.set_xlabel("blocks")
    ax.set_ylabel("|gradient| of the first block's weights")
    ax.set_title("gradient reaching the first block (init)")
    ax = axes[1]
    for r in (False, True):
        g = d["gains"][r]
        ax.plot(np.arange(1, len(g) + 1), g, "o-", markersize=3, color=colors[r],
                label=f"{names[r]}: median {np.median(g):.2f}")  # fmt: skip
    ax.axhline(1.0, color="gray", linestyle=":")
    log_axis(ax)
    ax.set_xlabel("block")
    ax.set_ylabel("|grad at input| / |grad at output|")
    ax.set_title(f"backward gain of each block ({d['deep']} blocks)")
    ax = axes[2]
    styles = {("plain", d["deep"]): ("#dc2626", "-"), ("residual", d["deep"]): ("#2563eb", "-"),
              ("plain", 4): ("#dc2626", ":")}  # fmt: skip
    for key, losses in d["runs"].items():
        color, line = styles[key]
        ax.plot(10 * np.arange(len(losses)), losses, line, color=color,
                label=f"{key[0]}, {key[1]} blocks ({losses[-1]:.3f})")  # fmt: skip
    log_axis(ax)
    ax.set_xlabel(f"step (Adam, lr {LR:g})")
    ax.set_ylabel("loss (1 = predicting the mean)")
    ax.set_title("training")
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("skip connections: ReLU MLP blocks of width 32, PyTorch's default init")
    result.files.append(save_figure(fig, folder / f"{NAME}.png"))
