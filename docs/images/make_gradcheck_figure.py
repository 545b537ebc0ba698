"""Draw docs/images/gradcheck-step-size.png: the error of a central difference against
the step h, in float64 and float32 (run from the repository root)."""

import pathlib

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

OUT = pathlib.Path(__file__).with_name("gradcheck-step-size.png")
X = 0.7  # d/dx tanh(x) = 1 - tanh(x)^2
EXACT = 1.0 - np.tanh(X) ** 2


def central_difference_errors(dtype, steps):
    x = dtype(X)
    errors = []
    for h in steps:
        h = dtype(h)
        slope = (np.tanh(x + h) - np.tanh(x - h)) / (dtype(2) * h)
        errors.append(abs(float(slope) - EXACT))
    return np.maximum(errors, 1e-18)  # an exact hit would be log(0)


def draw():
    """The figure (left open: the gradcheck notebook draws it inline)."""
    steps = np.logspace(-12, -0.5, 200)
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for dtype, color, eps in ((np.float64, "#2563eb", 2.2e-16), (np.float32, "#dc2626", 1.2e-7)):
        ax.loglog(steps, central_difference_errors(dtype, steps), color=color, lw=1.2,
                  label=f"{dtype.__name__}")  # fmt: skip
        best = eps ** (1 / 3)
        ax.axvline(best, color=color, ls=":", lw=1)
        ax.text(best * 1.3, 3e-17 if dtype is np.float64 else 3e-11,
                f"h ~ eps^(1/3)\n= {best:.0e}", color=color, fontsize=8)  # fmt: skip
    ax.loglog(steps, steps**2 / 6 * 1.2, color="0.5", ls="--", lw=1, label="truncation ~ h^2")
    ax.set_xlabel("step h")
    ax.set_ylabel("|central difference - exact slope|")
    ax.set_title("d tanh(x)/dx at x = 0.7: rounding (left) against truncation (right)",
                 fontsize=9)  # fmt: skip
    ax.legend(loc="lower left", fontsize=8, frameon=False)
    ax.set_ylim(1e-18, 1e0)
    fig.tight_layout()
    return fig


def main() -> None:
    draw().savefig(OUT, dpi=110)


if __name__ == "__main__":
    matplotlib.use("Agg")  # only as a script: a notebook keeps its inline backend
    main()
