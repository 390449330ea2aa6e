"""``autograd.functional``: vjp, jvp, jacobian, hessian, hvp, vhp (PyTorch's signatures).

Engine-neutral: the engine's ``autograd.grad`` (the engine of the inputs) and a few API
functions. ``transgrad.autograd.functional`` and ``transgrad.reference.autograd.functional``
export these. Inputs are
re-leafed first (``detach().requires_grad_()``), unless ``create_graph`` is set and they already
require grad, in which case their history is kept so the results can be differentiated again.
jvp uses the double-vjp trick: the vjp is linear in its cotangent ``u``, so differentiating it
with respect to ``u`` in direction ``v`` gives ``J v``.
"""

from __future__ import annotations

import math
from typing import Any, Callable, List, Sequence, Tuple

import numpy as np

from transgrad._api import functions
from transgrad._backend import backend_of, find_backend

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _engine(tensors: Sequence[Any]) -> Any:
    backend = find_backend(tensors)
    if backend is None:
        raise TypeError("autograd.functional: the inputs must be Tensors")
    return backend


def _as_tuple(x: Any) -> Tuple[Tuple[Any, ...], bool]:
    return (tuple(x), True) if isinstance(x, (tuple, list)) else ((x,), False)


def _prepare(inputs: Any, create_graph: bool) -> Tuple[Tuple[Any, ...], bool]:
    ins, is_tuple = _as_tuple(inputs)
    out = []
    for t in ins:
        if create_graph and t.requires_grad:
            out.append(functions.reshape(t, tuple(t.shape)))  # a non-leaf alias: keeps history
        else:
            out.append(t.detach().requires_grad_(True))
    return tuple(out), is_tuple


def _zeros_like(t: Any) -> Any:
    return backend_of(t).from_numpy(np.zeros(tuple(t.shape), t.dtype))


def _fill(grads: Tuple[Any, ...], like: Tuple[Any, ...]) -> List[Any]:
    return [_zeros_like(x) if g is None else g for g, x in zip(grads, like)]


def _finish(values: List[Any], create_graph: bool) -> List[Any]:
    return values if create_graph else [v.detach() for v in values]


def _grad(outs: Any, ins: Any, gouts: Any, create_graph: bool) -> Tuple[Any, ...]:
    pairs = [(o, g) for o, g in zip(outs, gouts) if o.requires_grad]
    if not pairs:
        return (None,) * len(ins)
    return _engine(ins).autograd.grad([o for o, _ in pairs], list(ins), [g for _, g in pairs],
                   retain_graph=True, create_graph=create_graph, allow_unused=True)


def vjp(func: Callable[..., Any], inputs: Any, v: Any = None,
        create_graph: bool = False, strict: bool = False) -> Tuple[Any, Any]:
    """``(func(inputs), v^T J)``."""
    B = _engine(_as_tuple(inputs)[0])
    with B.autograd.enable_grad():
        ins, in_tuple = _prepare(inputs, create_graph)
        outs, out_tuple = _as_tuple(func(*ins))
        if v is None:
            if any(math.prod(o.shape) != 1 for o in outs):
                raise RuntimeError("vjp: v can only be None if the outputs are scalars")
            v = tuple(B.from_numpy(np.ones(tuple(o.shape), o.dtype)) for o in outs)
        vs, _ = _as_tuple(v)
        gs = _fill(_grad(outs, ins, vs, create_graph), ins)
    outs_l, gs = _finish(list(outs), create_graph), _finish(gs, create_graph)
    return (tuple(outs_l) if out_tuple else outs_l[0], tuple(gs) if in_tuple else gs[0])


def jvp(func: Callable[..., Any], inputs: Any, v: Any = None,
        create_graph: bool = False, strict: bool = False) -> Tuple[Any, Any]:
    """``(func(inputs), J v)`` by the double-vjp trick."""
    B = _engine(_as_tuple(inputs)[0])
    with B.autograd.enable_grad():
        ins, in_tuple = _prepare(inputs, create_graph)
        outs, out_tuple = _as_tuple(func(*ins))
        if v is None:
            if any(math.prod(t.shape) != 1 for t in ins):
                raise RuntimeError("jvp: v can only be None if the inputs are scalars")
            v = tuple(B.from_numpy(np.ones(tuple(t.shape), t.dtype)) for t in ins)
        vs, _ = _as_tuple(v)
        us = [_zeros_like(o).requires_grad_(True) for o in outs]
        gs = _grad(outs, ins, us, True)
        used = [(g, w) for g, w in zip(gs, vs) if g is not None and g.requires_grad]
        if used:
            jv = B.autograd.grad([g for g, _ in used], us, [w for _, w in used],
                         create_graph=create_graph, allow_unused=True)
        else:
            jv = (None,) * len(us)
        jv = _fill(jv, outs)
    outs_l, jv = _finish(list(outs), create_graph), _finish(jv, create_graph)
    return (tuple(outs_l) if out_tuple else outs_l[0], tuple(jv) if out_tuple else jv[0])


def jacobian(func: Callable[..., Any], inputs: Any, create_graph: bool = False,
             strict: bool = False, vectorize: bool = False) -> Any:
    """``J[i][j]`` of shape ``outputs[i].shape + inputs[j].shape``."""
    B = _engine(_as_tuple(inputs)[0])
    with B.autograd.enable_grad():
        ins, in_tuple = _prepare(inputs, create_graph)
        outs, out_tuple = _as_tuple(func(*ins))
        result = []
        for o in outs:
            n = math.prod(o.shape)
            flat = functions.reshape(o, (n,))
            rows: List[List[Any]] = [[] for _ in ins]
            for k in range(n):
                e = np.zeros(n, o.dtype)
                e[k] = 1.0
                gs = _fill(_grad([flat], ins, [B.from_numpy(e)], create_graph), ins)
                for j, g in enumerate(gs):
                    rows[j].append(g)
            per_input = []
            for j, x in enumerate(ins):
                shape = tuple(o.shape) + tuple(x.shape)
                if n == 0:
                    per_input.append(B.from_numpy(np.zeros(shape, x.dtype)))
                else:
                    per_input.append(functions.reshape(functions.stack(rows[j], 0), shape))
            result.append(_finish(per_input, create_graph))
    rows_out = [tuple(r) if in_tuple else r[0] for r in result]
    return tuple(rows_out) if out_tuple else rows_out[0]


def hessian(func: Callable[..., Any], inputs: Any, create_graph: bool = False,
            strict: bool = False, vectorize: bool = False) -> Any:
    """The Jacobian of the gradient of a scalar function."""
    _, in_tuple = _as_tuple(inputs)
    B = _engine(_as_tuple(inputs)[0])

    def gradient(*xs: Any) -> Any:
        out = func(*xs)
        if math.prod(out.shape) != 1:
            raise RuntimeError("hessian: the function must return a single-element tensor")
        gs = _fill(_grad([out], xs, [B.from_numpy(np.ones(tuple(out.shape), out.dtype))],
                       True), xs)
        return tuple(gs) if in_tuple else gs[0]

    return jacobian(gradient, inputs, create_graph=create_graph)


def vhp(func: Callable[..., Any], inputs: Any, v: Any = None,
        create_graph: bool = False, strict: bool = False) -> Tuple[Any, Any]:
    """``(func(inputs), v^T H)`` of a scalar function."""
    B = _engine(_as_tuple(inputs)[0])
    with B.autograd.enable_grad():
        ins, in_tuple = _prepare(inputs, create_graph)
        out = func(*ins)
        ones = B.from_numpy(np.ones(tuple(out.shape), out.dtype))
        gs = _grad([out], ins, [ones], True)
        vs, _ = _as_tuple(v)
        used = [(g, w) for g, w in zip(gs, vs) if g is not None and g.requires_grad]
        raw = _grad([g for g, _ in used], ins, [w for _, w in used], create_graph) \
            if used else (None,) * len(ins)
        hv = _finish(_fill(raw, ins), create_graph)
    return _finish([out], create_graph)[0], tuple(hv) if in_tuple else hv[0]


hvp = vhp  # the Hessian of a twice-differentiable function is symmetric
