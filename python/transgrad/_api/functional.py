"""``autograd.functional``: vjp, jvp, jacobian, hessian, hvp, vhp (PyTorch's signatures, errors
and ``strict`` / ``create_graph`` / ``vectorize`` semantics).

Engine-neutral: the engine's ``autograd.grad`` (the engine of the inputs) and a few API
functions. ``transgrad.autograd.functional`` and ``transgrad.reference.autograd.functional``
export these. Inputs, ``v`` and the function's outputs are a Tensor or a tuple of Tensors
(anything else: torch's TypeError). Inputs are re-leafed first (``detach().requires_grad_()``),
unless ``create_graph`` is set and they already require grad, in which case their history is
kept so the results can be differentiated again. jvp uses the double-vjp trick: the vjp is
linear in its cotangent ``u``, so differentiating it with respect to ``u`` in direction ``v``
gives ``J v``. ``vectorize=True`` computes the same Jacobian row by row (transgrad has no vmap);
results and errors are those of torch.

Note [strict mode]
~~~~~~~~~~~~~~~~~~
Without ``strict``, an input an output does not depend on gets zeros. With it, torch refuses:
an output that does not require grad, a gradient that is None (the output is independent of the
input), and, under ``create_graph``, a gradient that does not require grad (its derivative
would be silently zero). hessian/vhp/hvp also refuse a first gradient that does not require
grad (a linear function: the Hessian is independent of the input). The messages are torch's.
"""

from __future__ import annotations

import math
from typing import Any, Callable, List, Sequence, Tuple

import numpy as np

from transgrad._api import functions
from transgrad._backend import backend_of, is_tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]

_HESSIAN_LINEAR = ("While computing the hessian, found that the jacobian of the user-provided "
                   "function with respect to input {i} is independent of the input. This is not "
                   "allowed in strict mode. You should ensure that your function is twice "
                   "differentiable and that the jacobian depends on the inputs (this would be "
                   "violated by a linear function for example).")


def _tensors(value: Any, what: str, fn_name: str) -> Tuple[Tuple[Any, ...], bool]:
    """``(tuple of tensors, was a tuple)``; torch's TypeError for anything else."""
    if is_tensor(value):
        return (value,), False
    if isinstance(value, tuple):
        for i, t in enumerate(value):
            if not is_tensor(t):
                raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a "
                                f"tuple of Tensors but the value at index {i} has type "
                                f"{type(t)}.")
        return value, True
    raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of "
                    f"Tensors but the given {what} has type {type(value)}.")


def _outputs(value: Any, fn_name: str) -> Tuple[Tuple[Any, ...], bool]:
    return _tensors(value, "outputs of the user-provided function", fn_name)


def _vectors(v: Any, like: Tuple[Any, ...], fn_name: str) -> Tuple[Any, ...]:
    """``v`` checked against ``like`` (count and shapes), as torch's."""
    vs, _ = _tensors(v, "v", fn_name)
    if len(vs) != len(like):
        if len(like) == 1:
            raise RuntimeError("The given v should contain a single Tensor.")
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(like)} but got "
                           f"{len(vs)}.")
    for w, t in zip(vs, like):
        if tuple(w.shape) != tuple(t.shape):
            # torch prints the sizes as torch.Size([...]) (code matches on it)
            raise RuntimeError(f"v has invalid size: should be {_size_str(t)} but got "
                               f"{_size_str(w)}.")
    return vs


def _size_str(t: Any) -> str:
    return f"torch.Size({list(t.shape)})"


def _prepare(ins: Tuple[Any, ...], create_graph: bool) -> Tuple[Any, ...]:
    out = []
    for t in ins:
        if create_graph and t.requires_grad:
            out.append(functions.reshape(t, tuple(t.shape)))  # a non-leaf alias: keeps history
        else:
            out.append(t.detach().requires_grad_(True))
    return tuple(out)


def _ones_like(t: Any) -> Any:
    return backend_of(t).from_numpy(np.ones(tuple(t.shape), t.dtype))


def _zeros_like(t: Any) -> Any:
    return backend_of(t).from_numpy(np.zeros(tuple(t.shape), t.dtype))


def _fill(grads: Sequence[Any], like: Sequence[Any]) -> List[Any]:
    return [_zeros_like(x) if g is None else g for g, x in zip(grads, like)]


def _finish(values: List[Any], create_graph: bool) -> List[Any]:
    return values if create_graph else [v.detach() for v in values]


def _grad(outs: Sequence[Any], ins: Sequence[Any], gouts: Sequence[Any],
          create_graph: bool) -> Tuple[Any, ...]:
    pairs = [(o, g) for o, g in zip(outs, gouts) if o.requires_grad]
    if not pairs:
        return (None,) * len(ins)
    return backend_of(ins[0]).autograd.grad(
        [o for o, _ in pairs], list(ins), [g for _, g in pairs], retain_graph=True,
        create_graph=create_graph, allow_unused=True)


def _strict_outputs(outs: Sequence[Any], strict: bool) -> None:
    if strict:
        for i, o in enumerate(outs):
            if not o.requires_grad:
                raise RuntimeError(f"Output {i} of the user-provided function does not require "
                                   "gradients. The outputs must be computed in a differentiable "
                                   "manner from the input when running in strict mode.")


def _strict_grads(gs: Sequence[Any], strict: bool, create_graph: bool, independent: str,
                  stage: str = "jacobian") -> None:
    """Note [strict mode]: ``independent`` is the message for a None gradient ({i}: input)."""
    if not strict:
        return
    for i, g in enumerate(gs):
        if g is None:
            raise RuntimeError(independent.format(i=i))
        if create_graph and not g.requires_grad:
            raise RuntimeError(f"The {stage} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")


def vjp(func: Callable[..., Any], inputs: Any, v: Any = None,
        create_graph: bool = False, strict: bool = False) -> Tuple[Any, Any]:
    """``(func(inputs), v^T J)``."""
    ins, in_tuple = _tensors(inputs, "inputs", "vjp")
    with backend_of(ins[0]).autograd.enable_grad():
        ins = _prepare(ins, create_graph)
        outs, out_tuple = _outputs(func(*ins), "vjp")
        _strict_outputs(outs, strict)
        if v is None:
            if len(outs) != 1 or math.prod(outs[0].shape) != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function "
                                   "returns a single Tensor with a single element.")
            vs: Tuple[Any, ...] = (_ones_like(outs[0]),)
        else:
            vs = _vectors(v, outs, "vjp")
        raw = _grad(outs, ins, vs, create_graph)
        _strict_grads(raw, strict, create_graph, "The output of the user-provided function is "
                      "independent of input {i}. This is not allowed in strict mode.")
        gs = _fill(raw, ins)
    outs_l, gs = _finish(list(outs), create_graph), _finish(gs, create_graph)
    return (tuple(outs_l) if out_tuple else outs_l[0], tuple(gs) if in_tuple else gs[0])


def jvp(func: Callable[..., Any], inputs: Any, v: Any = None,
        create_graph: bool = False, strict: bool = False) -> Tuple[Any, Any]:
    """``(func(inputs), J v)`` by the double-vjp trick."""
    ins, in_tuple = _tensors(inputs, "inputs", "jvp")
    B = backend_of(ins[0])
    if v is None:
        if len(ins) != 1 or math.prod(ins[0].shape) != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided "
                               "function is a single Tensor with a single element.")
        vs: Tuple[Any, ...] = (_ones_like(ins[0]),)
    else:
        vs = _vectors(v, ins, "jvp")
    with B.autograd.enable_grad():
        ins = _prepare(ins, create_graph)
        outs, out_tuple = _outputs(func(*ins), "jvp")
        _strict_outputs(outs, strict)
        us = [_zeros_like(o).requires_grad_(True) for o in outs]
        gs = _grad(outs, ins, us, True)
        _strict_grads(gs, strict, False, "The output of the user-provided function is "
                      "independent of input {i}. This is not allowed in strict mode.")
        used = [(g, w) for g, w in zip(gs, vs) if g is not None and g.requires_grad]
        if used:
            jv = B.autograd.grad([g for g, _ in used], us, [w for _, w in used],
                                 create_graph=create_graph, allow_unused=True)
        else:
            jv = (None,) * len(us)
        _strict_grads(jv, strict, create_graph, "The output of the user-provided function is "
                      "independent of input {i}. This is not allowed in strict mode.")
        jv = _fill(jv, outs)
    outs_l, jv = _finish(list(outs), create_graph), _finish(jv, create_graph)
    return (tuple(outs_l) if out_tuple else outs_l[0], tuple(jv) if out_tuple else jv[0])


def _no_strict_vectorize(strict: bool, vectorize: bool) -> None:
    if strict and vectorize:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           "`vectorized=True` are not supported together. Please either set "
                           "`strict=False` or `vectorize=False`.")


def jacobian(func: Callable[..., Any], inputs: Any, create_graph: bool = False,
             strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode") -> Any:
    """``J[i][j]`` of shape ``outputs[i].shape + inputs[j].shape``. ``vectorize`` gives the
    same result (computed row by row); ``strategy`` must be "reverse-mode" or
    "forward-mode" (with ``vectorize=True``), as torch's; both compute the same Jacobian."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             "Hint: If your function has more outputs than inputs, "
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode" and not vectorize:
        # torch's words, its typo included (code may match on them)
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    _no_strict_vectorize(strict, vectorize)
    ins, in_tuple = _tensors(inputs, "inputs", "jacobian")
    B = backend_of(ins[0])
    with B.autograd.enable_grad():
        ins = _prepare(ins, create_graph)
        outs, out_tuple = _outputs(func(*ins), "jacobian")
        _strict_outputs(outs, strict)
        result = []
        for k, o in enumerate(outs):
            n = math.prod(o.shape)
            flat = functions.reshape(o, (n,))
            rows: List[List[Any]] = [[] for _ in ins]
            for r in range(n):
                e = np.zeros(n, o.dtype)
                e[r] = 1.0
                raw = _grad([flat], ins, [B.from_numpy(e)], create_graph)
                _strict_grads(raw, strict, create_graph,
                              f"Output {k} of the user-provided function is independent of "
                              "input {i}. This is not allowed in strict mode.")
                for j, g in enumerate(_fill(raw, ins)):
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


def _single_output(out: Any, fn_name: str) -> Any:
    outs, is_tuple = _outputs(out, fn_name)
    if is_tuple or len(outs) != 1:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if math.prod(outs[0].shape) != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")
    return outs[0]


_INDEPENDENT = ("The output of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode.")


def _first_gradient(out: Any, ins: Sequence[Any], strict: bool,
                    none_is_linear: bool) -> Tuple[Any, ...]:
    """The gradient of a scalar ``out`` with its graph (for a second derivative). In strict
    mode a gradient that does not require grad is torch's "jacobian ... independent of the
    input"; a missing one (the output does not reach the input) is that message for hessian
    (torch's inner jacobian fills zeros first) and "The output ... is independent of input
    {i}" for vhp/hvp (torch checks the raw gradient)."""
    gs = _grad([out], ins, [_ones_like(out)], True)
    if strict:
        for i, g in enumerate(gs):
            if g is None and not none_is_linear:
                raise RuntimeError(_INDEPENDENT.format(i=i))
            if g is None or not g.requires_grad:
                raise RuntimeError(_HESSIAN_LINEAR.format(i=i))
    return gs


def hessian(func: Callable[..., Any], inputs: Any, create_graph: bool = False,
            strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Jacobian of the gradient of a scalar function."""
    _, in_tuple = _tensors(inputs, "inputs", "hessian")
    _no_strict_vectorize(strict, vectorize)

    def gradient(*xs: Any) -> Any:
        out = _single_output(func(*xs), "hessian")
        _strict_outputs([out], strict)
        gs = _fill(_first_gradient(out, xs, strict, none_is_linear=True), xs)
        return tuple(gs) if in_tuple else gs[0]

    return jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                    vectorize=vectorize, strategy=outer_jacobian_strategy)


def _vhp(fn_name: str, func: Callable[..., Any], inputs: Any, v: Any, create_graph: bool,
         strict: bool) -> Tuple[Any, Any]:
    ins, in_tuple = _tensors(inputs, "inputs", fn_name)
    B = backend_of(ins[0])
    if v is None:
        if len(ins) != 1 or math.prod(ins[0].shape) != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided "
                               "function is a single Tensor with a single element.")
        vs: Tuple[Any, ...] = (_ones_like(ins[0]),)
    else:
        vs = _vectors(v, ins, fn_name)
    with B.autograd.enable_grad():
        ins = _prepare(ins, create_graph)
        out = _single_output(func(*ins), fn_name)
        _strict_outputs([out], strict)
        gs = _first_gradient(out, ins, strict, none_is_linear=False)
        used = [(g, w) for g, w in zip(gs, vs) if g is not None and g.requires_grad]
        raw = _grad([g for g, _ in used], ins, [w for _, w in used], create_graph) \
            if used else (None,) * len(ins)
        _strict_grads(raw, strict, create_graph, "The hessian of the user-provided function is "
                      "independent of input {i}. This is not allowed in strict mode.",
                      stage="hessian")
        hv = _finish(_fill(raw, ins), create_graph)
    return _finish([out], create_graph)[0], tuple(hv) if in_tuple else hv[0]


def vhp(func: Callable[..., Any], inputs: Any, v: Any = None,
        create_graph: bool = False, strict: bool = False) -> Tuple[Any, Any]:
    """``(func(inputs), v^T H)`` of a scalar function."""
    return _vhp("vhp", func, inputs, v, create_graph, strict)


def hvp(func: Callable[..., Any], inputs: Any, v: Any = None,
        create_graph: bool = False, strict: bool = False) -> Tuple[Any, Any]:
    """``(func(inputs), H v)`` of a scalar function: ``v^T H`` transposed, equal for the
    symmetric Hessian of a twice-differentiable function."""
    return _vhp("hvp", func, inputs, v, create_graph, strict)

