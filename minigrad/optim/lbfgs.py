"""``LBFGS``: limited-memory BFGS, PyTorch's algorithm (after minFunc), step for step.

Each ``step(closure)`` runs up to ``max_iter`` iterations on the parameters flattened
into one vector ``x`` with gradient ``g``:

1. direction: ``d = -H g``, with ``H g`` from the two-loop recursion over the last
   ``history_size`` pairs ``s = x_{k+1} - x_k``, ``y = g_{k+1} - g_k`` (a pair is kept
   only if ``y . s > 1e-10``), and the initial scaling ``H_0 = (y . s) / (y . y)``;
   the first iteration ever uses ``d = -g``;
2. step length: ``t = min(1, 1 / |g|_1) lr`` on the first iteration ever, ``lr`` after;
3. ``x = x + t d``, then the closure is evaluated again for the new loss and gradient.

It stops when ``max |g| <= tolerance_grad``, the directional derivative ``g . d`` is
above ``-tolerance_change``, the step ``max |t d|`` or the change of the loss is below
``tolerance_change``, or after ``max_iter`` iterations / ``max_eval`` evaluations. The
history persists across ``step`` calls (in ``optimizer.state``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from minigrad.autograd.grad_mode import enable_grad
from minigrad.optim.hyperparameters import defaults_from
from minigrad.optim.optimizer import Optimizer

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """L-BFGS (see the module docstring). Needs a ``closure`` that zeroes the gradients,
    computes the loss, calls ``backward`` and returns the loss. One parameter group only.

    Args:
        params: the parameters.
        lr: step length (default 1).
        max_iter: iterations per ``step`` (20).
        max_eval: closure evaluations per ``step`` (default ``max_iter * 5 / 4``).
        tolerance_grad: stop when the largest gradient entry is this small (1e-7).
        tolerance_change: stop when a step or the loss changes this little (1e-9).
        history_size: the number of ``(s, y)`` pairs kept (100).
        line_search_fn: ``None`` (fixed step length). PyTorch's ``'strong_wolfe'`` line
            search is not implemented here and raises ``NotImplementedError``.

    Example::

        >>> opt = optim.LBFGS(model.parameters(), lr=1)
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = loss_fn(model(x), y)
        ...     loss.backward()
        ...     return loss
        >>> opt.step(closure)
    """

    def __init__(
        self,
        params,
        lr: float = 1.0,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        if not lr >= 0:  # NaN too
            raise ValueError(f"Invalid learning rate: {lr}")
        if line_search_fn is not None:
            if line_search_fn != "strong_wolfe":
                raise ValueError("only 'strong_wolfe' is supported")
            raise NotImplementedError(
                "LBFGS(line_search_fn='strong_wolfe') is not implemented in minigrad; use "
                "line_search_fn=None (a fixed step length lr) or PyTorch's LBFGS"
            )
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, defaults_from(locals()))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self) -> np.ndarray:
        parts = [
            np.zeros(p._data.size, dtype=p._data.dtype)
            if p._grad is None
            else p._grad._data.reshape(-1)
            for p in self._params
        ]
        return np.concatenate(parts) if parts else np.zeros(0)

    def _add_to_params(self, step_length: float, direction: np.ndarray) -> None:
        offset = 0
        for p in self._params:
            n = p._data.size
            p._data += (step_length * direction[offset : offset + n]).reshape(p._data.shape)
            offset += n

    def step(self, closure: Callable):
        if closure is None:
            raise RuntimeError("LBFGS.step needs a closure that re-evaluates the model")
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history_size = group["history_size"]
        state = self.state.setdefault(self._params[0], {"func_evals": 0, "n_iter": 0})

        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        g = self._flat_grad()
        if np.abs(g).max(initial=0.0) <= tol_grad:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_steps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag = state.get("H_diag")
        prev_g, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, old_dirs, old_steps, ro, h_diag = -g, [], [], [], 1.0
            else:
                y = g - prev_g
                s = d * t
                ys = float(y @ s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_steps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_steps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / float(y @ y)
                d, state["al"] = self._two_loop(-g, old_dirs, old_steps, ro, h_diag)
            prev_g, prev_loss = g.copy(), loss

            t = min(1.0, 1.0 / np.abs(g).sum()) * lr if state["n_iter"] == 1 else lr
            if float(g @ d) > -tol_change:  # not a descent direction
                break
            self._add_to_params(t, d)
            step_evals = 0
            opt_cond = False
            if n_iter != max_iter:
                with enable_grad():
                    loss = float(closure())
                g = self._flat_grad()
                opt_cond = np.abs(g).max(initial=0.0) <= tol_grad
                step_evals = 1
            evals += step_evals
            state["func_evals"] += step_evals
            if n_iter == max_iter or evals >= max_eval or opt_cond:
                break
            if np.abs(d * t).max(initial=0.0) <= tol_change:
                break
            if abs(loss - prev_loss) < tol_change:
                break

        state.update(
            d=d,
            t=t,
            old_dirs=old_dirs,
            old_stps=old_steps,
            ro=ro,
            H_diag=h_diag,
            prev_flat_grad=prev_g,
            prev_loss=prev_loss,
        )
        return orig_loss

    @staticmethod
    def _two_loop(q, old_dirs, old_steps, ro, h_diag) -> tuple[np.ndarray, list]:
        """``-H g`` from the stored pairs (``q = -g`` on entry), and the coefficients
        alpha_i of the first loop (kept in the state as ``al``, as PyTorch does)."""
        alphas = [0.0] * len(old_dirs)
        for i in range(len(old_dirs) - 1, -1, -1):
            alphas[i] = float(old_steps[i] @ q) * ro[i]
            q = q - alphas[i] * old_dirs[i]
        r = q * h_diag
        for i in range(len(old_dirs)):
            beta = float(old_dirs[i] @ r) * ro[i]
            r = r + (alphas[i] - beta) * old_steps[i]
        return r, alphas

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore a state saved by ``state_dict`` (minigrad's or PyTorch's LBFGS): the
        group's options, and the history, kept on the first parameter: the flat vectors
        ``d`` and ``prev_flat_grad`` and the pairs ``old_dirs`` / ``old_stps`` (each as long
        as all the parameters together), ``ro``, ``H_diag``, ``t``, ``prev_loss`` and the
        counters."""
        saved = dict(state_dict.get("state", {}))
        super().load_state_dict({**state_dict, "state": {}})  # checks the groups
        values = saved.get(0, saved.get("0"))
        if values is None:
            return
        size = sum(p._data.size for p in self._params)
        dtype = self._params[0]._data.dtype

        def vector(key, v):
            arr = np.array(np.asarray(v), dtype=dtype)
            if arr.shape != (size,):
                raise ValueError(
                    f"LBFGS state {key!r} has shape {list(arr.shape)}, but the parameters "
                    f"have {size} elements together"
                )
            return arr

        def number(v):
            return None if v is None else float(np.asarray(v))

        state = {}
        for key, v in values.items():
            if key in ("func_evals", "n_iter"):
                state[key] = int(np.asarray(v))
            elif key in ("d", "prev_flat_grad"):
                state[key] = None if v is None else vector(key, v)
            elif key in ("old_dirs", "old_stps"):
                state[key] = [vector(key, x) for x in v]
            elif key in ("ro", "al"):
                state[key] = [number(x) for x in v]
            else:  # t, H_diag, prev_loss
                state[key] = number(v)
        self.state = {self._params[0]: state}
