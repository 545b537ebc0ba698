"""Draw docs/images/transformer-pre-post-norm.png: a post-norm and a pre-norm block side by side.

The residual stream runs down the left of each block; each sub-block (attention, then the
feed-forward network) branches off it to the right and adds its result back at a (+).
What differs is where the LayerNorms sit: on the stream itself (post-norm) or on the
branches (pre-norm, with one final norm after the last block).

    python docs/images/make_transformer_blocks.py
"""

import pathlib

import matplotlib
import matplotlib.pyplot as plt
from matplotlib.patches import Circle, FancyBboxPatch

OUT = pathlib.Path(__file__).resolve().parent / "transformer-pre-post-norm.png"
NORM, LAYER, STREAM = "#fcd34d", "#bfdbfe", "#374151"
BRANCH = 2.0  # how far right of the stream the sub-blocks sit


def box(ax, x, y, text, color, dashed=False):
    ax.add_patch(FancyBboxPatch((x - 0.95, y - 0.28), 1.9, 0.56, boxstyle="round,pad=0.04",
                                facecolor=color, edgecolor="black",
                                linestyle="--" if dashed else "-", zorder=3))  # fmt: skip
    ax.text(x, y, text, ha="center", va="center", fontsize=10, zorder=4)


def plus(ax, x, y):
    ax.add_patch(Circle((x, y), 0.2, facecolor="white", edgecolor="black", zorder=3))
    ax.text(x, y, "+", ha="center", va="center", fontsize=12, zorder=4)


def arrow(ax, points, color="black", width=1.2):
    """A polyline through ``points`` with an arrow head at the end."""
    xs, ys = zip(*points)
    ax.plot(xs[:-1], ys[:-1], color=color, lw=width, zorder=1)
    ax.annotate("", xy=points[-1], xytext=points[-2], zorder=2,
                arrowprops={"arrowstyle": "-|>", "color": color, "lw": width})  # fmt: skip


def sub_block(ax, s, top, boxes, join):
    """A branch leaving the stream at ``top``, through ``boxes`` [(y, text, color)], and
    back into the (+) at ``join``."""
    b = s + BRANCH
    arrow(ax, [(s, top), (b, top), (b, boxes[0][0] + 0.3)])
    for (y, text, color), nxt in zip(boxes, boxes[1:] + [None]):
        box(ax, b, y, text, color)
        if nxt is not None:
            arrow(ax, [(b, y - 0.3), (b, nxt[0] + 0.3)])
    arrow(ax, [(b, boxes[-1][0] - 0.3), (b, join), (s + 0.2, join)])
    plus(ax, s, join)


def post_norm(ax, s):
    ax.text(s + 1.0, 10.5, "post-norm (norm_first=False)\nthe original Transformer",
            ha="center", fontsize=11, weight="bold")  # fmt: skip
    ax.text(s, 9.9, "x", ha="center", fontsize=10)
    sub_block(ax, s, 9.3, [(8.3, "self-attention", LAYER)], join=7.3)
    arrow(ax, [(s, 9.7), (s, 7.5)], STREAM, 2.5)
    box(ax, s, 6.4, "norm1", NORM)
    arrow(ax, [(s, 7.1), (s, 6.7)], STREAM, 2.5)
    sub_block(ax, s, 5.6, [(4.6, "feed-forward", LAYER)], join=3.6)
    arrow(ax, [(s, 6.1), (s, 3.8)], STREAM, 2.5)
    box(ax, s, 2.7, "norm2", NORM)
    arrow(ax, [(s, 3.4), (s, 3.0)], STREAM, 2.5)
    arrow(ax, [(s, 2.4), (s, 1.5)], STREAM, 2.5)
    ax.text(s + 1.0, 0.5, "a LayerNorm on the stream after every (+):\n"
            "the gradient to earlier layers\npasses through each one", ha="center",
            fontsize=9.5)  # fmt: skip


def pre_norm(ax, s):
    ax.text(s + 1.0, 10.5, "pre-norm (norm_first=True)\nGPT-2 and most models since",
            ha="center", fontsize=11, weight="bold")  # fmt: skip
    ax.text(s, 9.9, "x", ha="center", fontsize=10)
    sub_block(ax, s, 9.3, [(8.6, "norm1", NORM), (7.7, "self-attention", LAYER)], join=6.8)
    arrow(ax, [(s, 9.7), (s, 7.0)], STREAM, 2.5)
    sub_block(ax, s, 6.0, [(5.3, "norm2", NORM), (4.4, "feed-forward", LAYER)], join=3.5)
    arrow(ax, [(s, 6.6), (s, 3.7)], STREAM, 2.5)
    ax.text(s + 0.35, 2.85, "... more blocks", fontsize=9.5, style="italic")
    box(ax, s, 2.1, "final norm", NORM, dashed=True)
    arrow(ax, [(s, 3.3), (s, 2.4)], STREAM, 2.5)
    arrow(ax, [(s, 1.8), (s, 1.3)], STREAM, 2.5)
    note = (
        "no norm on the stream, a pure sum:\nx + attn(norm1(x)) + ffn(norm2(...));\n"
        "one final norm after the last block"
    )
    ax.text(s + 1.0, 0.5, note, ha="center", fontsize=9.5)


def draw():
    """The figure (left open: the transformer notebook draws it inline)."""
    fig, ax = plt.subplots(figsize=(10, 7.5))
    post_norm(ax, 0.0)
    pre_norm(ax, 6.0)
    ax.plot([], [], color=STREAM, lw=2.5, label="residual stream")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, -0.07), frameon=False, fontsize=10)
    ax.set_xlim(-1.4, 9.4)
    ax.set_ylim(-0.4, 11.3)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


def main() -> None:
    draw().savefig(OUT, dpi=110, bbox_inches="tight")
    print("wrote", OUT)


if __name__ == "__main__":
    matplotlib.use("Agg")  # only as a script: a notebook keeps its inline backend
    main()
