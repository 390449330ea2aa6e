"""``LBFGS`` (limited-memory BFGS, after minFunc), as ``torch.optim.LBFGS``.

Input: the parameters (one group) and, at each ``step(closure)``, a closure that clears the
gradients, evaluates the loss, runs backward and returns the loss. Output: the parameters
moved in place by up to ``max_iter`` quasi-Newton iterations; ``step`` returns the closure's
first loss, as torch.

Invariants: the same iterations as torch (same two-loop recursion, same initial step
``min(1, 1/|g|_1) * lr`` on the first iteration, same stopping tests in the same order, same
strong-Wolfe bracketing and zoom with cubic interpolation), so the trajectory matches torch's
up to rounding. Directions and gradients are flat 1-D tensors of the parameters' dtype built
with tensor methods only; scalars (losses, dot products, step lengths) are Python floats.
The only engine-level need is the grad mode (Note [LBFGS and the grad mode]).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from transgrad._backend import backend_of
from transgrad.optim.optimizer import Optimizer

from ._validate import check_nonnegative

# Note [LBFGS and the grad mode]
# The closure runs backward, so it must see grad mode on even when step() is called under
# no_grad; the parameter updates between evaluations must not be recorded. torch does both
# with enable_grad/no_grad. Those context managers belong to the engine, which this module
# reaches through ONE helper, ``LBFGS._engine`` (today the per-engine class attribute; once
# the base class finds its engine from its parameters, that lookup replaces it).


class LBFGS(Optimizer):
    """L-BFGS with an optional strong-Wolfe line search; ``step`` needs a closure."""

    def __init__(self, params: Iterable[Any], lr: float = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        check_nonnegative(lr=lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                                  "tolerance_grad": tolerance_grad,
                                  "tolerance_change": tolerance_change,
                                  "history_size": history_size,
                                  "line_search_fn": line_search_fn})
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _engine(self) -> Any:
        """The autograd namespace of the parameters' engine, for its grad mode
        (Note [LBFGS and the grad mode])."""
        return backend_of(self._params[0]).autograd

    def _update(self, group: dict[str, Any], p: Any, grad: Any, state: dict[str, Any]) -> Any:
        raise TypeError("LBFGS.step() needs a closure that re-evaluates the model and "
                        "returns the loss: optimizer.step(closure)")

    # -- flat views of the parameters ---------------------------------------------------------

    def _flat_grad(self) -> Any:
        """The gradients of all parameters as one 1-D tensor (zeros where a grad is None)."""
        first = self._params[0]
        flat = first.new_zeros((sum(p.numel() for p in self._params),))
        offset = 0
        for p in self._params:
            n = p.numel()
            if p.grad is not None:
                flat[offset:offset + n] = p.grad.detach().reshape(-1)
            offset += n
        return flat

    def _add_to_params(self, t: float, d: Any) -> None:
        """``p += t * d`` for the slice of the flat direction ``d`` that belongs to each p."""
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(d[offset:offset + n].view_as(p), alpha=t)
            offset += n

    def _directional_evaluate(self, closure: Callable[[], Any], x: list[Any], t: float,
                              d: Any) -> tuple[float, Any]:
        """Loss and flat gradient at ``x + t * d``; the parameters are put back to ``x``."""
        self._add_to_params(t, d)
        with self._engine().enable_grad():
            loss = float(closure())
        flat_grad = self._flat_grad()
        for p, saved in zip(self._params, x):
            p.copy_(saved)
        return loss, flat_grad

    # -- the step -----------------------------------------------------------------------------

    def step(self, closure: Callable[[], Any] | None = None) -> Any:  # type: ignore[override]
        """Up to ``max_iter`` L-BFGS iterations; returns the loss of the first evaluation."""
        if closure is None:
            raise TypeError("LBFGS.step() missing 1 required positional argument: 'closure'")
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        engine = self._engine()
        with engine.enable_grad():
            orig_loss = closure()
        with engine.no_grad():
            self._iterate(closure, float(orig_loss))
        return orig_loss

    def _iterate(self, closure: Callable[[], Any], loss: float) -> None:
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported")

        # LBFGS's state is global; as torch, it is kept as the first parameter's state, so
        # state_dict/load_state_dict carry it.
        state = self.state.setdefault(id(self._params[0]), {})
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if float(flat_grad.abs().max()) <= tolerance_grad:
            return

        # the previous step's direction, step length, history and gradient (None at first)
        d: Any = state.get("d")
        t: Any = state.get("t")
        old_dirs: Any = state.get("old_dirs")
        old_stps: Any = state.get("old_stps")
        ro: Any = state.get("ro")
        H_diag: Any = state.get("H_diag")
        prev_flat_grad: Any = state.get("prev_flat_grad")
        prev_loss: Any = state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # direction: steepest descent first, then the two-loop recursion over the history
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1.0
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = float(y.dot(s))
                if ys > 1e-10:  # curvature condition: only then is the pair kept
                    # new lists, never edits: a state_dict taken earlier stays as it was
                    drop = max(0, len(old_dirs) - history_size + 1)
                    old_dirs = old_dirs[drop:] + [y]
                    old_stps = old_stps[drop:] + [s]
                    ro = ro[drop:] + [1.0 / ys]
                    H_diag = ys / float(y.dot(y))
                al = [0.0] * len(old_dirs)
                q = -flat_grad
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = float(old_stps[i].dot(q)) * ro[i]
                    q = q - old_dirs[i] * al[i]
                r = q * H_diag
                for i in range(len(old_dirs)):
                    be_i = float(old_dirs[i].dot(r)) * ro[i]
                    r = r + old_stps[i] * (al[i] - be_i)
                d = r

            prev_flat_grad = flat_grad
            prev_loss = loss

            # step length
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / float(flat_grad.abs().sum())) * lr
            else:
                t = lr
            gtd = float(flat_grad.dot(d))
            if gtd > -tolerance_change:  # not a descent direction any more
                break

            if line_search_fn is not None:
                x_init = [p.clone() for p in self._params]

                def obj_func(x: list[Any], t: float, d: Any) -> tuple[float, Any]:
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - current_evals)
                self._add_to_params(t, d)
                opt_cond = float(flat_grad.abs().max()) <= tolerance_grad
            else:
                self._add_to_params(t, d)
                ls_func_evals = 0
                opt_cond = False
                if n_iter != max_iter:  # the last iteration's loss is not needed
                    with self._engine().enable_grad():
                        loss = float(closure())
                    flat_grad = self._flat_grad()
                    opt_cond = float(flat_grad.abs().max()) <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if float((d * t).abs().max()) <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)


def _cubic_interpolate(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                       bounds: tuple[float, float] | None = None) -> float:
    """Minimiser of the cubic through (x1, f1, slope g1) and (x2, f2, slope g2), clamped to
    ``bounds`` (default: the interval between the points); the interval's middle when the
    cubic has no minimum there."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    try:
        d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
        d2_square = d1 * d1 - g1 * g2
        if d2_square < 0:
            return (lo + hi) / 2.0
        d2 = math.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    except ZeroDivisionError:  # coincident points: no cubic to fit
        return (lo + hi) / 2.0
    return min(max(min_pos, lo), hi)


def _strong_wolfe(obj_func: Callable[[list[Any], float, Any], tuple[float, Any]],
                  x: list[Any], t: float, d: Any, f: float, g: Any, gtd: float,
                  c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                  max_ls: int = 25) -> tuple[float, Any, float, int]:
    """Line search along ``d`` from ``x`` for a step satisfying the strong Wolfe conditions
    (sufficient decrease ``c1``, curvature ``c2``): bracket, then zoom by cubic
    interpolation. Returns (loss, flat gradient, step, number of evaluations)."""
    d_norm = float(d.abs().max())
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = float(g_new.dot(d))

    # bracketing: grow the step until an interval must contain an acceptable point
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    ls_iter = 0
    bracket: list[float] = []
    bracket_f: list[float] = []
    bracket_g: list[Any] = []
    bracket_gtd: list[float] = []
    while ls_iter < max_ls:
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        t_prev, t = t, _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                          bounds=(min_step, max_step))
        f_prev, g_prev, gtd_prev = f_new, g_new, gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = float(g_new.dot(d))
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0.0, t], [f, f_new], [g, g_new]

    # zoom: shrink the bracket until a point satisfies the conditions
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        # a trial point too close to an end of the bracket is pushed 10% of its width inside
        # (at once if it is on the end, else after a second such trial in a row)
        hi, lo = max(bracket), min(bracket)
        eps = 0.1 * (hi - lo)
        if min(hi - t, t - lo) < eps:
            if insuf_progress or t >= hi or t <= lo:
                t = hi - eps if abs(t - hi) < abs(t - lo) else lo + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = float(g_new.dot(d))
        ls_iter += 1

        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new, gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new, gtd_new

    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals
