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


def _check_term(term: str, where: str, equation: str) -> None:
    """Letters and at most one ``...``; PyTorch's RuntimeError for anything else."""
    rest = term.replace("...", "", 1)
    if "..." in rest:
        raise RuntimeError(f"einsum(): {where} has more than one ellipsis in {equation!r}")
    if "." in rest:
        raise RuntimeError(f"einsum(): found '.' in {where} that is not part of any ellipsis")
    for c in rest:
        if c not in string.ascii_letters:
            raise RuntimeError(
                f"einsum(): invalid subscript {c!r} in {where} of {equation!r}; subscripts "
                "must be in [a-zA-Z]"
            )


def parse(equation: str, ndims: list[int]) -> tuple[list[str], str]:
    """``"bij,bjk->bik"`` -> (["bij", "bjk"], "bik"), with ``...`` spelled out as capital
    letters and an implicit output (no ``->``) as NumPy/PyTorch define it: the letters
    that occur once, in alphabetical order. A malformed equation is PyTorch's
    RuntimeError, raised here before NumPy sees it."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): the equation must be a str, got {type(equation).__name__}")
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != len(ndims):
        more_or_fewer = "fewer" if len(ndims) < len(inputs) else "more"
        raise RuntimeError(
            f"einsum(): {more_or_fewer} operands were provided than specified in the equation "
            f"{equation!r} (it names {len(inputs)}, {len(ndims)} were given)"
        )
    for i, term in enumerate(inputs):
        _check_term(term, f"operand {i}", equation)
    if arrow:
        _check_term(rhs, "the output", equation)
    n_ell = 0
    for i, (term, nd) in enumerate(zip(inputs, ndims)):
        letters = len(term.replace("...", ""))
        if "..." in term:
            if nd < letters:
                raise RuntimeError(
                    f"einsum(): operand {i} has {nd} dims, fewer than the {letters} subscripts "
                    f"in {term!r}"
                )
            n_ell = max(n_ell, nd - letters)
        elif letters != nd:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({letters}) does not match "
                f"the number of dimensions ({nd}) for operand {i} and no ellipsis was given"
            )
    if arrow:
        seen = "".join(inputs)
        for c in set(rhs.replace("...", "")):
            if rhs.count(c) > 1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once")
            if c not in seen:
                raise RuntimeError(
                    f"einsum(): output subscript {c} does not appear in the equation for any "
                    "input operand"
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


def check_sizes(equation: str, subs: list[str], shapes: list[tuple]) -> dict:
    """The size of every subscript: equal in every operand, or 1 where it broadcasts
    (PyTorch's RuntimeError otherwise). A repeated subscript within one operand (a
    diagonal) must have one size there."""
    sizes: dict = {}
    for i, (sub, shape) in enumerate(zip(subs, shapes)):
        own: dict = {}
        for c, n in zip(sub, shape):
            if own.setdefault(c, n) != n:
                raise RuntimeError(
                    f"einsum(): subscript {c} is repeated for operand {i} but the sizes don't "
                    f"match, {own[c]} != {n}"
                )
        for c, n in own.items():
            seen = sizes.get(c, 1)
            if n != seen and n != 1 and seen != 1:
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {n} for operand {i} which does not "
                    f"broadcast with previously seen size {seen} ({equation!r})"
                )
            sizes[c] = max(seen, n)
    return sizes


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
            shape = operands[i].shape
            # A subscript of size 1 here that broadcast against a larger size elsewhere
            # ("ij,ij->ij" with [3, 4] and [1, 4]): its gradient is the sum over that size.
            own = [shape[sub.index(c)] for c in reduced]
            wide = tuple(k for k, n in enumerate(own) if n == 1 and gi.shape[k] != 1)
            if wide:
                gi = gi.sum(dim=wide, keepdim=True)
            if reduced != sub or gi.shape != shape:
                # letters summed only inside this operand, or of size 1 in every other
                # operand and the output: broadcast the gradient back to the operand
                view = tuple(gi.shape[reduced.index(c)] if c in present else 1 for c in sub)
                gi = gi.reshape(view).expand(shape)
            grads.append(gi)
        return tuple(grads)
