"""``einsum``: sums of products named by subscripts, and its backward.

For ``out = einsum("ij,jk->ik", a, b)`` every output element is a sum of products of
one element from each operand. The gradient with respect to one operand is the same
kind of sum with that operand's place taken by the output gradient: for ``a`` it is
``einsum("ik,jk->ij", g, b)``. So the backward of an einsum is an einsum, written once
below for any operand: its subscripts become the output, the output's subscripts (for
``g``) and the other operands' subscripts become the inputs. A letter that occurs only
in that operand (summed in the forward, as ``j`` in ``"ij->i"``) gets the gradient
broadcast back along it.
"""

from __future__ import annotations

import string

import numpy as np

from minigrad.autograd.function import Function


def parse(equation: str, ndims: list[int]) -> tuple[list[str], str]:
    """``"bij,bjk->bik"`` -> (["bij", "bjk"], "bik"), with ``...`` spelled out as capital
    letters and an implicit output (no ``->``) as NumPy/PyTorch define it: the letters
    that occur once, in alphabetical order."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != len(ndims):
        raise ValueError(
            f"einsum: the equation {equation!r} names {len(inputs)} operands but "
            f"{len(ndims)} were given"
        )
    for term in inputs + [rhs]:
        bad = set(term.replace("...", "")) - set(string.ascii_letters)
        if bad:
            raise ValueError(f"einsum: invalid subscript(s) {sorted(bad)} in {equation!r}")
    n_ell = 0
    for term, nd in zip(inputs, ndims):
        letters = len(term.replace("...", ""))
        if "..." in term:
            n_ell = max(n_ell, nd - letters)
        elif letters != nd:
            raise ValueError(
                f"einsum: operand subscripts {term!r} name {letters} dims but the operand has {nd}"
            )
    ell_letters = [c for c in string.ascii_uppercase if c not in eq][:n_ell]
    spelled = []
    for term, nd in zip(inputs, ndims):
        if "..." in term:
            k = nd - len(term.replace("...", ""))
            term = term.replace("...", "".join(ell_letters[n_ell - k :]))
        spelled.append(term)
    if arrow:
        out = rhs.replace("...", "".join(ell_letters))
    else:
        counts = {c: "".join(spelled).count(c) for c in set("".join(spelled))}
        out = "".join(ell_letters) + "".join(
            sorted(c for c, n in counts.items() if n == 1 and c not in ell_letters)
        )
    return spelled, out


class Einsum(Function):
    """``out = einsum(subs_in -> sub_out, *operands)`` (subscripts already parsed)."""

    @staticmethod
    def forward(ctx, subs, out_sub, *operands):
        ctx.subs, ctx.out_sub = subs, out_sub
        ctx.save_for_backward(*operands)
        expr = ",".join(subs) + "->" + out_sub
        out = np.einsum(expr, *[t._data for t in operands], optimize=len(operands) > 2)
        return out

    @staticmethod
    def backward(ctx, g):
        operands = ctx.saved_tensors
        grads = [None, None]
        for i, (needs, sub) in enumerate(zip(ctx.needs_input_grad[2:], ctx.subs)):
            if not needs:
                grads.append(None)
                continue
            if len(set(sub)) != len(sub):
                raise NotImplementedError(
                    f"einsum: no gradient for an operand with a repeated subscript ({sub!r}, "
                    "a diagonal); take the diagonal with indexing instead"
                )
            others = [s for j, s in enumerate(ctx.subs) if j != i]
            present = set(ctx.out_sub).union(*others) if others else set(ctx.out_sub)
            reduced = "".join(c for c in sub if c in present)
            ins = [ctx.out_sub] + others
            tensors = [g] + [t for j, t in enumerate(operands) if j != i]
            gi = Einsum.apply(ins, reduced, *tensors)
            if reduced != sub:  # letters summed only inside this operand: broadcast back
                shape = operands[i].shape
                view = tuple(shape[k] if c in present else 1 for k, c in enumerate(sub))
                gi = gi.reshape(view).expand(shape)
            grads.append(gi)
        return tuple(grads)
