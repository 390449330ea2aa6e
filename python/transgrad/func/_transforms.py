"""``torch.func``'s derivative transforms: grad, grad_and_value, vjp, jvp, jacrev, jacfwd,
hessian, with torch's signatures, pytree arguments and errors.

Engine-neutral (the engine of the first input tensor), so ``transgrad.func`` and
``transgrad.reference.func`` are this one module. Each transform runs the function once under
``enable_grad`` on *lifted* inputs and differentiates with the engine's ``autograd.grad``.

Note [Levels without a level counter]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch.func tracks a level per transform so ``grad(grad(f))`` works and a tensor captured from an
outer level is a constant to the inner one. Here an input is lifted to a fresh graph root: a
detached leaf when it has no history, or a differentiable alias (``view_as``) when it already
requires grad, so the derivative taken at this level still flows back to the outer one. Whether
the results must keep a graph (``create_graph``) is decided by walking the output's backward
graph: when it reaches a leaf that is not one of this call's lifted inputs (an outer transform's
input, a captured parameter, a user's tensor that requires grad) the results are differentiable
again, as torch's are at an outer level; otherwise they come back detached, as torch's top level.
So ``grad(grad(f))``, ``jacfwd(jacrev(f))`` and a closure over ``nn.Parameter`` all compose, to any
order, on both engines.

Note [jvp and jacfwd by reverse mode]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
transgrad has no forward-mode AD. ``jvp`` uses the double-vjp trick: ``g(u) = u^T J`` is linear
in the cotangent ``u``, so the vjp of ``g`` at any ``u`` (zeros) with cotangent ``v`` is ``J v``;
it costs two backward passes, and needs the backward formulas to be differentiable (they all
are: the translator's capture rule). ``jacfwd`` is ``jacrev``: the same Jacobian, one backward
per output element instead of one forward per input element.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, List, Sequence, Tuple, Union

import numpy as np

from transgrad._api import functions
from transgrad._backend import backend_of, is_tensor
from transgrad.func._pytree import TreeSpec, tree_flatten, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian"]

Argnums = Union[int, Tuple[int, ...]]


# ---------------------------------------------------------------------------------------------
# Lifting inputs and deciding whether the results keep a graph


def _lift(x: Any) -> Any:
    """Note [Levels without a level counter]: a fresh root for ``x`` at this level."""
    if x.requires_grad:
        return x.view_as(x)
    return x.detach().requires_grad_(True)


def _same(a: Any, b: Any) -> bool:
    return a is b or (hasattr(a, "_is_same") and a._is_same(b))


def _reaches_outside(outputs: Sequence[Any], lifted: Sequence[Any]) -> bool:
    """Whether the backward graph of ``outputs`` reaches a leaf that is not in ``lifted``."""
    seen: dict = {}  # id -> node: holds the node objects so their ids stay unique
    stack = []
    for o in outputs:
        if not (is_tensor(o) and o.requires_grad):
            continue
        if o.grad_fn is not None:
            stack.append(o.grad_fn)
        elif not any(_same(o, x) for x in lifted):
            return True  # the output is itself an outer leaf
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        try:
            var = node.variable
        except AttributeError:
            var = None
        if var is not None:
            if not any(_same(var, x) for x in lifted):
                return True
            continue
        for nxt, _ in node.next_functions:
            if nxt is not None and id(nxt) not in seen:
                stack.append(nxt)
    return False


def _zeros_like(t: Any) -> Any:
    return backend_of(t).from_numpy(np.zeros(tuple(t.shape), np.dtype(t.dtype)))


def _grads(B: Any, outs: Sequence[Any], ins: Sequence[Any], couts: Sequence[Any],
           create_graph: bool) -> List[Any]:
    """d(outs)/d(ins) against ``couts``, zeros where an input is unused (as torch.func)."""
    pairs = [(o, c) for o, c in zip(outs, couts) if o.requires_grad]
    raw: Sequence[Any] = (None,) * len(ins)
    if pairs:
        raw = B.autograd.grad([o for o, _ in pairs], list(ins), [c for _, c in pairs],
                              retain_graph=True, create_graph=create_graph, allow_unused=True)
    return [_zeros_like(x) if g is None else g for g, x in zip(raw, ins)]


def _unwrap(value: Any, keep: bool) -> Any:
    """Results at the top level (``keep`` False) leave without history, as torch.func's."""
    if keep:
        return value
    leaves, spec = tree_flatten(value)
    return tree_unflatten([x.detach() if is_tensor(x) else x for x in leaves], spec)


def _check_argnums(argnums: Any, nargs: int) -> None:
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        nums: Tuple[Any, ...] = (argnums,)
    elif isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        nums = argnums
        if not all(isinstance(a, int) and not isinstance(a, bool) for a in nums):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {argnums}")
        if len(set(nums)) != len(nums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    for a in nums:
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnum={a}, but only {nargs} positional inputs")


def _diff_args(args: Tuple[Any, ...], argnums: Argnums) -> Any:
    _check_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return args[argnums]
    return tuple(args[i] for i in argnums)


def _replace_args(args: Tuple[Any, ...], argnums: Argnums, new: Any) -> Tuple[Any, ...]:
    out = list(args)
    if isinstance(argnums, int):
        out[argnums] = new
    else:
        for i, v in zip(argnums, new):
            out[i] = v
    return tuple(out)


def _tensor_leaves(tree: Any) -> Tuple[List[Any], TreeSpec]:
    leaves, spec = tree_flatten(tree)
    for x in leaves:
        if not is_tensor(x):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    return leaves, spec


def _output_leaves(out: Any, api: str) -> Tuple[List[Any], TreeSpec]:
    leaves, spec = tree_flatten(out)
    for x in leaves:
        if not is_tensor(x):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(x)}")
    return leaves, spec


def _split_aux(out: Any, has_aux: bool, api: str) -> Tuple[Any, Any]:
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    return out


def _backend(leaves: Sequence[Any]) -> Any:
    if not leaves:
        raise RuntimeError("transgrad.func: the arguments to differentiate hold no Tensor")
    return backend_of(leaves[0])


def _call_lifted(func: Callable[..., Any], args: Tuple[Any, ...], kwargs: dict,
                 argnums: Argnums, has_aux: bool, api: str) -> Tuple[Any, ...]:
    """``func`` run under ``enable_grad`` on ``args`` with ``args[argnums]`` lifted: ``(engine,
    lifted leaves, their pytree spec, output, aux)``."""
    leaves, spec = _tensor_leaves(_diff_args(args, argnums))
    B = _backend(leaves)
    with B.autograd.enable_grad():
        lifted = [_lift(x) for x in leaves]
        out = func(*_replace_args(args, argnums, tree_unflatten(lifted, spec)), **kwargs)
    out, aux = _split_aux(out, has_aux, api)
    return B, lifted, spec, out, aux


# ---------------------------------------------------------------------------------------------
# grad, grad_and_value, vjp, jvp


def grad_and_value(func: Callable[..., Any], argnums: Argnums = 0,
                   has_aux: bool = False) -> Callable[..., Any]:
    """``grad_and_value(func)(*args)``: ``(gradient, value)`` of a function returning a scalar
    Tensor, with respect to ``args[argnums]`` (a pytree of Tensors; a tuple of them for a tuple
    ``argnums``). With ``has_aux``, ``func`` returns ``(value, aux)`` and the result is
    ``(gradient, (value, aux))``. Composes with itself and the other transforms (Note [Levels
    without a level counter])."""
    api = "grad_and_value(f)(*args)"

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        B, lifted, spec, out, aux = _call_lifted(func, args, kwargs, argnums, has_aux, api)
        with B.autograd.enable_grad():
            if not is_tensor(out):
                raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got "
                                   f"{type(out)}")
            if out.ndim != 0:
                raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {out.ndim} dims. Maybe you wanted to use the "
                                   "vjp or jacrev APIs instead?")
            keep = B.autograd.is_grad_enabled() and _reaches_outside([out], lifted)
            gs = _grads(B, [out], lifted, [B.from_numpy(np.ones((), np.dtype(out.dtype)))],
                        keep)
        g = tree_unflatten(_unwrap(gs, keep), spec)
        value = _unwrap(out, keep)
        return (g, (value, _unwrap(aux, keep))) if has_aux else (g, value)

    return wrapper


def grad(func: Callable[..., Any], argnums: Argnums = 0,
         has_aux: bool = False) -> Callable[..., Any]:
    """``grad(func)(*args)``: the gradient of a scalar-valued ``func`` with respect to
    ``args[argnums]`` (``(gradient, aux)`` with ``has_aux``); ``grad(grad(f))`` is the second
    derivative. Errors are torch's (a non-scalar output: use vjp or jacrev)."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> Tuple[Any, ...]:
    """``(func(*primals), vjp_fn)`` (``(output, vjp_fn, aux)`` with ``has_aux``):
    ``vjp_fn(cotangents)`` returns a tuple with one gradient per primal (each a pytree like its
    primal); ``cotangents`` has the structure and shapes of the output. ``vjp_fn`` may be called
    any number of times."""
    api = "vjp(f, *primals)"
    leaves, spec = _tensor_leaves(primals)
    B = _backend(leaves)
    with B.autograd.enable_grad():
        lifted = [_lift(x) for x in leaves]
        out = func(*tree_unflatten(lifted, spec))
        out, aux = _split_aux(out, has_aux, api)
        outs, out_spec = _output_leaves(out, api)
        keep = B.autograd.is_grad_enabled() and _reaches_outside(outs, lifted)

    def vjp_fn(cotangents: Any) -> Tuple[Any, ...]:
        cts, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree "
                               f"structure of outputs to the function. cotangents: "
                               f"{ct_spec.pprint()}, primal output: {out_spec.pprint()}")
        for i, (c, o) in enumerate(zip(cts, outs)):
            if not is_tensor(c):
                raise RuntimeError(f"vjp_fn: expected the cotangents to be Tensors, got "
                                   f"{type(c)}")
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{c.shape} and output[{i}] has a shape of {o.shape}.")
        with B.autograd.enable_grad():
            again = keep or (B.autograd.is_grad_enabled() and any(c.requires_grad for c in cts))
            gs = _grads(B, outs, lifted, cts, again)
        return tree_unflatten(_unwrap(gs, again), spec)

    result = (_unwrap(out, keep), vjp_fn)
    return result + (_unwrap(aux, keep),) if has_aux else result


def jvp(func: Callable[..., Any], primals: Any, tangents: Any, *, strict: bool = False,
        has_aux: bool = False) -> Tuple[Any, ...]:
    """``(func(*primals), J @ tangents)`` (and ``aux``), by the double-vjp trick (Note [jvp and
    jacfwd by reverse mode]): the same values as torch's forward mode, at the cost of two
    backward passes. ``strict`` is accepted and ignored, as torch's."""
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    leaves, spec = _tensor_leaves(primals)
    tans, tan_spec = tree_flatten(tangents)
    if tan_spec != spec:
        raise RuntimeError(f"{api}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, "
                           "tangents also must be. Got primals with structure "
                           f"{spec} and tangents with structure {tan_spec}")
    for t, x in zip(tans, leaves):
        if not is_tensor(t):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
        if tuple(t.shape) != tuple(x.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than "
                               "that of the original Tensor, this is not supported. Tensor is "
                               f"of size {list(x.shape)} while the given forward gradient is "
                               f"of size {list(t.shape)}.")
    B = _backend(leaves)
    with B.autograd.enable_grad():
        lifted = [_lift(x) for x in leaves]
        out = func(*tree_unflatten(lifted, spec))
        out, aux = _split_aux(out, has_aux, api)
        outs, out_spec = _output_leaves(out, api)
        keep = B.autograd.is_grad_enabled() and (
            _reaches_outside(outs, lifted) or any(t.requires_grad for t in tans))
        us = [_zeros_like(o).requires_grad_(True) for o in outs]
        gs = _grads(B, outs, lifted, us, True)  # u^T J, linear in u
        used = [(g, t) for g, t in zip(gs, tans) if g.requires_grad]
        jv = _grads(B, [g for g, _ in used], us, [t for _, t in used], keep) if used \
            else [_zeros_like(o) for o in outs]
    result = (_unwrap(out, keep), tree_unflatten(_unwrap(jv, keep), out_spec))
    return result + (_unwrap(aux, keep),) if has_aux else result


# ---------------------------------------------------------------------------------------------
# Jacobians and the Hessian


def _jacobian_rows(B: Any, o: Any, ins: Sequence[Any], keep: bool) -> List[Any]:
    """d o / d x for each x of ``ins``, shaped ``o.shape + x.shape``: one backward per element
    of ``o`` against a one-hot cotangent."""
    n = math.prod(o.shape)
    rows: List[List[Any]] = [[] for _ in ins]
    dt = np.dtype(o.dtype)
    for i in range(n):
        onehot = np.zeros(n, dt)
        onehot[i] = 1
        gs = _grads(B, [o], ins, [B.from_numpy(onehot.reshape(tuple(o.shape)))], keep)
        for r, g in zip(rows, gs):
            r.append(g)
    out = []
    for r, x in zip(rows, ins):
        shape = tuple(o.shape) + tuple(x.shape)
        if n == 0:
            out.append(B.from_numpy(np.zeros(shape, np.dtype(x.dtype))))
        else:
            out.append(functions.stack(r, 0).reshape(shape))
    return out


def jacrev(func: Callable[..., Any], argnums: Argnums = 0, *, has_aux: bool = False,
           chunk_size: int | None = None, _preallocate_and_copy: bool = False
           ) -> Callable[..., Any]:
    """``jacrev(func, argnums)(*args)``: the Jacobian of every output of ``func`` with respect to
    ``args[argnums]`` by reverse mode, one backward per output element: for an output ``o`` and
    input ``x`` a tensor of shape ``o.shape + x.shape``, nested as the outputs, then as
    ``argnums``. ``chunk_size`` is accepted (the rows are computed one at a time anyway)."""
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    api = "jacrev(f, argnums)(*args)"

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        B, lifted, spec, out, aux = _call_lifted(func, args, kwargs, argnums, has_aux, api)
        with B.autograd.enable_grad():
            outs, out_spec = _output_leaves(out, "vjp(f, *primals)")  # torch's words
            keep = B.autograd.is_grad_enabled() and _reaches_outside(outs, lifted)
            per_out = [tree_unflatten(_unwrap(_jacobian_rows(B, o, lifted, keep), keep), spec)
                       for o in outs]
        jac = tree_unflatten(per_out, out_spec)
        return (jac, _unwrap(aux, keep)) if has_aux else jac

    return wrapper


def jacfwd(func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable[..., Any]:
    """``jacfwd(func, argnums)(*args)``: the Jacobian, as torch's forward-mode ``jacfwd``
    returns it (same values, shapes and nesting), computed here by reverse mode (``jacrev``:
    transgrad has no forward-mode AD; Note [jvp and jacfwd by reverse mode]). ``randomness``
    is checked as torch's; the function runs once, so every mode gives the same numbers."""
    _check_randomness(randomness)
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """``hessian(func, argnums)(*args)``: ``jacfwd(jacrev(func, argnums), argnums)``, the second
    derivatives, shaped ``o.shape + x.shape + x.shape``."""
    return jacfwd(jacrev(func, argnums), argnums)


def _check_randomness(randomness: Any) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
