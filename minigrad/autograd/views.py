"""Views: tensors that share their base's memory, and its version counter.

``x[0:2]``, ``x.t()``, ``x.view(...)``, ``x.unsqueeze(0)`` ... return *views*: new
tensors over the same memory. As in PyTorch, a view and its base share one **version
counter** (a one-element list): an in-place change through any of them bumps the count
that ``ctx.save_for_backward`` checks, so ``y = w * x; x[0:2].mul_(5); y.backward()``
raises instead of giving a wrong gradient.

A view also remembers how to re-make itself from its base (``ViewInfo``): the base (the
tensor that owns the memory, never itself a view) and the *steps*, the view operations
that lead from it, as ``(Function class, extra arguments)`` pairs. An in-place op
through a view changes the base, so it is recorded on the base
(``minigrad/autograd/inplace.py``); every view of that base then re-makes its own
history from the base's new one the next time its ``grad_fn`` is read (``refresh``).

Which operations are views is declared once, by ``Function.is_view``; ``Function.apply``
calls ``mark_view`` on their results (in every grad mode).
"""

from __future__ import annotations

from minigrad.autograd.grad_mode import _state

#: How a view was made; in-place changes through the last two are refused while
#: recording, as in PyTorch (the history they would need is ambiguous).
RECORDED, NO_GRAD, MULTI_OUTPUT = "recorded", "no_grad", "multi_output"


class ViewInfo:
    """Where a view comes from: ``base``, the ``steps`` that re-make it from the base,
    how it was made (``creation``), ``base_fn``: the base's ``grad_fn`` when the
    view's own history was last made (a different one means the history is stale), and
    ``base_data``: the base's array then (the steps assume its shape)."""

    __slots__ = ("base", "steps", "creation", "base_fn", "base_data")

    def __init__(self, base, steps: tuple, creation: str, base_fn):
        self.base = base
        self.steps = steps
        self.creation = creation
        self.base_fn = base_fn
        self.base_data = base._data


def counter_of(t) -> list:
    """``t``'s version counter, created on first use (most tensors never need one)."""
    if t._counter is None:
        t._counter = [0]
    return t._counter


def mark_view(out, src, cls, extra: tuple, recorded: bool) -> None:
    """``out = cls.apply(src, *extra)`` shares ``src``'s memory: give it ``src``'s
    version counter, and record how to re-make it from the base."""
    out._counter = counter_of(src)
    creation = RECORDED if recorded else NO_GRAD
    parent = src._view
    if parent is None:
        base, steps = src, ()
    else:
        base, steps = parent.base, parent.steps
        if parent.creation != RECORDED:
            creation = parent.creation  # a view of such a view is one too
    out._view = ViewInfo(base, steps + ((cls, extra),), creation, base._grad_fn)


def mark_multi_output(views) -> None:
    """``unbind``, ``split`` and ``chunk`` return several views of one tensor: as in
    PyTorch, those may not be changed in place while recording."""
    for v in views:
        if v._view is not None and v._view.creation == RECORDED:
            v._view.creation = MULTI_OUTPUT


def replay(t, steps: tuple):
    """Apply the view ``steps`` to ``t`` (a base, or a gradient shaped like one)."""
    for cls, extra in steps:
        t = cls.apply(t, *extra)
    return t


def refresh(view) -> None:
    """Re-make a view's history if its base's history changed since it was made (an
    in-place op on the base, or through another view of it, since then)."""
    info = view._view
    base = info.base
    if base._grad_fn is info.base_fn or info.creation == NO_GRAD:
        return
    check_geometry(info)
    prev, _state.enabled = _state.enabled, True
    try:
        fresh = replay(base, info.steps)
    finally:
        _state.enabled = prev
    view._grad_fn = fresh._grad_fn
    view._requires_grad = fresh._requires_grad
    info.base_fn = base._grad_fn


def check_geometry(info: ViewInfo) -> None:
    """Refuse to re-make a view whose base changed its shape in place since (``t_()``,
    ``squeeze_()``, ``resize_()``, ``set_()`` on the base): its steps no longer apply."""
    if info.base._data is not info.base_data:
        raise RuntimeError(
            "a view's base was reshaped in place (t_, transpose_, squeeze_, unsqueeze_, "
            "as_strided_, resize_ or set_) after the view was made, so its history cannot "
            "be re-made: make the view again after the in-place change"
        )
