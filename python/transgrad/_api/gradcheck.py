"""``gradcheck`` and ``gradgradcheck``: analytical gradients against finite differences.

Engine-neutral: the engine is the backend that built the inputs' Tensor class. Inputs: a
function of tensors and its inputs (float64 recommended). Checks, in order:
1. the Jacobian of every differentiable output w.r.t. every input that requires grad — numerical
   by central differences, analytical by ``autograd.grad`` with one-hot (slow mode) or random
   (fast mode: ``v^T J u`` only) output gradients — agree within ``atol + rtol * |numerical|``;
2. backward is deterministic: the same vector-Jacobian product twice gives equal results;
3. a zero output gradient gives zero (or None) input gradients;
4. with several outputs, differentiating only some of them (the others' grads undefined, i.e.
   None inside the backward) gives the same result as zeros for the others.
5. with ``check_batched_grad``: backward is linear in grad_output (Note [Batched gradient
   check]).
The outputs checked are the floating ones that require grad (torch's differentiable outputs);
when there are none, the numerical Jacobian must be zero ("Numerical gradient for function
expected to be zero"). An output whose shape changes under perturbation is an AssertionError,
as torch's.

Note [Perturbing in place]
~~~~~~~~~~~~~~~~~~~~~~~~~~
Finite differences write ``x +- eps`` into each input's own storage (through a zero-copy numpy
view of ``x.detach()``), call ``fn`` with the input tensors themselves, and restore the exact
original bytes afterwards (also when ``fn`` raises), as torch's gradcheck does. So a function
that reads an input through a closure (the outer tensor, not its argument) sees the
perturbation, and the version counter is not bumped (the graph of the first call stays valid).

``gradgradcheck`` runs gradcheck on the function ``(inputs, v) -> grad(fn(inputs), inputs, v,
create_graph=True)``, so second derivatives are checked the same way.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from transgrad._backend import find_backend
from transgrad._dtypes import is_floating_or_complex


class GradcheckError(RuntimeError):
    """Raised by gradcheck/gradgradcheck when a check fails."""


def _backend_of(inputs: Sequence[Any]) -> Any:
    backend = find_backend(inputs)
    if backend is None:
        raise TypeError("gradcheck: no tensor among the inputs")
    return backend


def _as_tuple(x: Any) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _data(t: Any) -> np.ndarray:
    return np.array(t.detach() if t.requires_grad else t, dtype=np.float64, copy=True)


def gradcheck(fn: Callable[..., Any], inputs: Any, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, fast_mode: bool = False, raise_exception: bool = True,
              nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              seed: int = 0, check_batched_grad: bool = False) -> bool:
    """Check ``fn``'s analytical gradients at ``inputs`` against finite differences.
    GradcheckError (a RuntimeError) on failure, or False with ``raise_exception=False``."""
    inputs = _as_tuple(inputs)
    backend = find_backend(inputs)
    try:
        if backend is None:
            raise GradcheckError("gradcheck expects at least one input tensor to require "
                                 "gradient")
        _check(backend, fn, inputs, eps, atol, rtol, fast_mode, nondet_tol,
               check_undefined_grad, check_batched_grad, np.random.default_rng(seed))
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(fn: Callable[..., Any], inputs: Any, grad_outputs: Any = None,
                  eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  fast_mode: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  seed: int = 0, check_batched_grad: bool = False) -> bool:
    """Check second derivatives: gradcheck of the vector-Jacobian product of ``fn``."""
    inputs = _as_tuple(inputs)
    backend = _backend_of(inputs)
    T = backend.Tensor
    outs = [o for o in _as_tuple(fn(*inputs)) if _differentiable(o, T)]  # caller's grad mode
    rng = np.random.default_rng(seed + 1)
    if grad_outputs is None:
        grad_outputs = [backend.from_numpy(rng.standard_normal(o.shape).astype(o.dtype))
                        .requires_grad_(True) for o in outs]
    grad_outputs = list(_as_tuple(grad_outputs))
    diff = [i for i, t in enumerate(inputs) if isinstance(t, T) and t.requires_grad]
    n_in = len(inputs)

    def vjp(*args: Any) -> tuple:
        xs, vs = list(args[:n_in]), args[n_in:]
        for i in diff:  # finite differences pass plain tensors: differentiate them anyway
            if not xs[i].requires_grad:
                xs[i] = xs[i].detach().requires_grad_(True)
        with backend.autograd.enable_grad():
            ys = [o for o in _as_tuple(fn(*xs)) if _differentiable(o, T)]
            pairs = [(y, v) for y, v in zip(ys, vs) if y.requires_grad]
            gs = backend.autograd.grad(
                [y for y, _ in pairs], [xs[i] for i in diff], [v for _, v in pairs],
                create_graph=True, allow_unused=True) if pairs else [None] * len(diff)
        return tuple(backend.from_numpy(np.zeros(xs[i].shape, xs[i].dtype)) if g is None
                     else g for g, i in zip(gs, diff))

    return gradcheck(vjp, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol,
                     rtol=rtol, fast_mode=fast_mode, raise_exception=raise_exception,
                     nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, seed=seed,
                     check_batched_grad=check_batched_grad)


def _differentiable(o: Any, T: Any) -> bool:
    return isinstance(o, T) and is_floating_or_complex(o.dtype)


def _check(B: Any, fn: Callable[..., Any], inputs: tuple, eps: float, atol: float, rtol: float,
           fast: bool, nondet_tol: float, check_undefined: bool, check_batched: bool,
           rng: Any) -> None:
    T, ag = B.Tensor, B.autograd
    diff = [i for i, t in enumerate(inputs) if isinstance(t, T) and t.requires_grad]
    if not diff:
        raise GradcheckError("gradcheck expects at least one input tensor to require gradient")
    first = _as_tuple(fn(*inputs))
    # as torch's: the outputs checked are the differentiable ones that require grad
    picked = [k for k, o in enumerate(first) if _differentiable(o, T) and o.requires_grad]
    outs = [first[k] for k in picked]
    floats = [k for k, o in enumerate(first) if _differentiable(o, T)]
    # Note [Perturbing in place]: the inputs' own storage is perturbed and restored
    views = [inputs[i].detach().numpy() for i in diff]
    originals = [v.copy() for v in views]
    # row-major, whatever the inputs' strides: one_hot and the columns index them flat
    base = [np.array(v, dtype=np.float64, order="C") for v in views]

    def evaluate(values: List[np.ndarray], which: List[int], where: str) -> List[np.ndarray]:
        try:
            for view, v in zip(views, values):
                view[...] = v.astype(view.dtype)
            # in the caller's grad mode, as torch's: a function may look at requires_grad
            # (an in-place op on a view making its base require grad) or act on the mode
            result = _as_tuple(fn(*inputs))
            got = [_data(result[k]) for k in which]  # copied: outputs may alias inputs
        finally:
            for view, o in zip(views, originals):
                view[...] = o
        for k, g in zip(which, got):
            if g.shape != tuple(first[k].shape):
                raise AssertionError(  # torch's words (an AssertionError there too)
                    "Expected `func` to return outputs with the same shape when inputs are "
                    f"perturbed {where} by {eps}, but got: shapes {g.shape} and "
                    f"{tuple(first[k].shape)}.")
        return got

    def vjp(vs: List[np.ndarray], which: Optional[List[int]] = None) -> List[np.ndarray]:
        """Analytical v^T J for output grads ``vs`` (only outputs in ``which``)."""
        which = list(range(len(outs))) if which is None else which
        pairs = [(outs[k], vs[k]) for k in which]
        zero = [np.zeros(inputs[i].shape) for i in diff]
        if not pairs:
            return zero
        gs = ag.grad([o for o, _ in pairs], [inputs[i] for i in diff],
                     [B.from_numpy(v.astype(o.dtype)) for o, v in pairs], retain_graph=True,
                     allow_unused=True)
        return [z if g is None else _data(g) for g, z in zip(gs, zero)]

    def numerical(direction: List[np.ndarray], which: List[int], where: str
                  ) -> List[np.ndarray]:
        plus = evaluate([b + eps * d for b, d in zip(base, direction)], which, where)
        minus = evaluate([b - eps * d for b, d in zip(base, direction)], which, where)
        return [(p - m) / (2 * eps) for p, m in zip(plus, minus)]

    def compare(what: str, num: np.ndarray, ana: np.ndarray) -> None:
        if num.shape != ana.shape or not np.allclose(ana, num, rtol=rtol, atol=atol,
                                                     equal_nan=True):
            raise GradcheckError(f"Jacobian mismatch for {what}\nnumerical:{num}\n"
                                 f"analytical:{ana}\n(max abs difference "
                                 f"{np.max(np.abs(num - ana)) if num.shape == ana.shape else '?'}"
                                 f", atol={atol}, rtol={rtol})")

    def one_hot(j: int, e: int) -> List[np.ndarray]:
        d = [np.zeros_like(b) for b in base]
        d[j].reshape(-1)[e] = 1.0
        return d

    def at(j: int, e: int) -> str:
        return f"on index {np.unravel_index(e, base[j].shape)} of input {diff[j]}"

    if not outs:  # nothing differentiable: the function must not depend on the inputs
        for j in range(len(diff)):
            directions = [rng.standard_normal(base[j].shape) * (k == j)
                          for k in range(len(diff))] if fast else None
            for e in ([0] if fast else range(base[j].size)):
                cols = numerical(one_hot(j, e) if directions is None else directions, floats,
                                 "along a random direction" if fast else at(j, e))
                if any(np.any(np.abs(c) > nondet_tol) for c in cols):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return

    if fast:
        us = [rng.standard_normal(b.shape) for b in base]
        vs = [rng.standard_normal(o.shape) for o in outs]
        dirs = numerical(us, picked, "along a random direction")
        num = sum(float(np.sum(v * d)) for v, d in zip(vs, dirs))
        ana = sum(float(np.sum(g * u)) for g, u in zip(vjp(vs), us))
        compare("a random projection v^T J u (fast mode)", np.array(num), np.array(ana))
    else:
        for j, i in enumerate(diff):  # numerical columns: perturb each input element
            n_in = base[j].size
            # an empty output has an empty Jacobian block (n_in x 0), as torch's
            cols = [np.zeros((n_in, o.size)) for o in map(_data, outs)]
            for e in range(n_in):
                for k, col in enumerate(numerical(one_hot(j, e), picked, at(j, e))):
                    cols[k][e] = col.reshape(-1)
            for k, o in enumerate(outs):  # analytical rows: one-hot output gradients
                rows = np.zeros((n_in, int(np.prod(o.shape))))
                for r in range(int(np.prod(o.shape))):
                    vs = [np.zeros(oo.shape) for oo in outs]
                    vs[k].reshape(-1)[r] = 1.0
                    rows[:, r] = vjp(vs)[j].reshape(-1)
                compare(f"output {k} with respect to input {i}", cols[k], rows)

    vs = [rng.standard_normal(o.shape) for o in outs]
    once, again = vjp(vs), vjp(vs)
    for a, b in zip(once, again):
        if not np.allclose(a, b, rtol=0, atol=nondet_tol):
            raise GradcheckError("Backward is not reentrant, i.e., running backward with the "
                                 "same input and grad_output multiple times gives different "
                                 f"values, although analytical gradient matches numerical "
                                 f"gradient. The tolerance for nondeterminism was "
                                 f"{nondet_tol}. (max difference {np.max(np.abs(a - b))})")
    for g in vjp([np.zeros(o.shape) for o in outs]):
        if np.any(g != 0):
            raise GradcheckError("a zero grad_output did not give zero input gradients")
    if check_batched:
        _check_batched(vjp, vs, [rng.standard_normal(o.shape) for o in outs], rtol, atol)
    if check_undefined and len(outs) > 1:
        for k in range(len(outs)):
            only = vjp(vs, [k])
            masked = [v if m == k else np.zeros_like(v) for m, v in enumerate(vs)]
            for a, b in zip(only, vjp(masked)):
                if not np.allclose(a, b, rtol=rtol, atol=atol):
                    raise GradcheckError(f"undefined output gradients are mishandled: "
                                         f"differentiating output {k} alone differs from "
                                         "giving zeros for the other outputs")


def _check_batched(vjp: Callable[..., List[np.ndarray]], v1: List[np.ndarray],
                   v2: List[np.ndarray], rtol: float, atol: float) -> None:
    """Note [Batched gradient check]: torch runs backward once over a batch of grad_outputs
    (vmap) and compares with one backward per grad_output. transgrad has no vmap; a batch is
    computed row by row, and what batching relies on is that backward is linear in its
    grad_output with no state between calls: the vjp of ``a*v1 + b*v2`` must equal
    ``a*vjp(v1) + b*vjp(v2)``. A backward that squares, caches or counts fails here."""
    a, b = 0.75, -1.25
    mixed = vjp([a * x + b * y for x, y in zip(v1, v2)])
    for m, g1, g2 in zip(mixed, vjp(v1), vjp(v2)):
        if not np.allclose(m, a * g1 + b * g2, rtol=rtol, atol=atol):
            raise GradcheckError(
                "gradcheck or gradgradcheck failed while testing batched gradient computation: "
                "the gradient of a combination of grad_outputs is not that combination of their "
                f"gradients (max difference {np.max(np.abs(m - (a * g1 + b * g2)))}); backward "
                "must be linear in grad_output and keep no state between calls.")
