"""``torch.func.vmap`` as a loop: ``func`` runs once per batch element and the results are
stacked, with torch's signature (in_dims, out_dims, randomness, chunk_size), pytree arguments
and errors.

Engine-neutral (``select`` and ``stack`` of the API find the engine from the tensors).

Note [vmap is a loop]
~~~~~~~~~~~~~~~~~~~~~
torch's vmap is a batching transform: ``func`` runs once on batched tensors and each op has a
batching rule. transgrad has no batching rules, so ``vmap(func)(x)`` calls ``func(x[i])`` for each
``i`` along the mapped dimension and stacks what it returns along ``out_dims``. The values (and
gradients: the selects and the stack are recorded, and ``vmap(grad(f))`` or ``grad`` of a vmapped
function compose) are those of torch; the cost is that of a Python loop, B calls instead of one.
What the loop changes, said rather than hidden: ``func`` sees unbatched tensors, so its side
effects happen B times (an in-place op on a captured tensor runs per element); data-dependent
Python control flow, which torch's vmap refuses, just works; ``chunk_size`` only validates (the
loop is already one element at a time). Randomness is kept honest on the default generator:
``"same"`` restores its state before each call (every element draws the same numbers),
``"different"`` lets the draws follow on, and ``"error"`` (the default) raises torch's error when
a call drew from it. A ``generator=`` passed explicitly inside ``func`` is not watched.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, List

from transgrad._api import functions
from transgrad._backend import is_tensor
from transgrad._random import default_generator
from transgrad.func._pytree import broadcast_prefix, tree_flatten, tree_unflatten
from transgrad.func._transforms import _check_randomness

__all__ = ["vmap"]

_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either "
                 "use the 'same' or 'different' randomness flags on vmap or perform the "
                 "randomness operation out of vmap")


def _is_dim(d: Any) -> bool:
    return d is None or (isinstance(d, int) and not isinstance(d, bool))


def _name(func: Callable[..., Any]) -> str:
    return getattr(func, "__name__", repr(func))


def vmap(func: Callable[..., Any], in_dims: Any = 0, out_dims: Any = 0,
         randomness: str = "error", *, chunk_size: int | None = None) -> Callable[..., Any]:
    """``vmap(func, in_dims, out_dims)(*args)``: ``func`` mapped over the ``in_dims`` dimension of
    its tensor arguments, the outputs stacked along ``out_dims``. Computed by a loop over the
    batch (Note [vmap is a loop]): torch's values and errors, not torch's speed. ``in_dims`` is an
    int or a (nested) tuple matching ``args`` (None: not mapped); ``out_dims`` an int or a
    tuple matching the outputs (None: the output of the first call, not stacked). Keyword
    arguments are passed to every call unmapped, as torch's."""
    _check_randomness(randomness)
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    fname = _name(func)

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        where = f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>)"
        if not args:
            raise ValueError(f"vmap({fname})(<inputs>): got no inputs. Maybe you forgot to add "
                             "inputs, or you are trying to vmap over a function with no inputs. "
                             "The latter is unsupported.")
        if not (isinstance(in_dims, int) and not isinstance(in_dims, bool)) \
                and not isinstance(in_dims, tuple):
            raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) "
                             "tuple matching the structure of inputs, got: "
                             f"{type(in_dims)}.")
        leaves, spec = tree_flatten(args)
        if isinstance(in_dims, int):
            dims: List[Any] = [in_dims] * len(leaves)
        else:
            try:
                dims = broadcast_prefix(in_dims, args, _is_dim)
            except ValueError:
                raise ValueError(f"{where}: in_dims is not compatible with the structure of "
                                 f"`inputs`. in_dims has structure {tree_flatten(in_dims)[1]} "
                                 f"but inputs has structure {spec}.") from None
        sizes = []
        for x, d in zip(leaves, dims):
            if d is None:
                continue
            if not is_tensor(x):
                raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of "
                                 f"type {type(x)}. We cannot vmap over non-Tensor arguments, "
                                 "please use None as the respective in_dim")
            if not -x.ndim <= d < x.ndim:
                raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a "
                                 f"Tensor of dimensionality {x.ndim} so expected in_dim to "
                                 f"satisfy -{x.ndim} <= in_dim < {x.ndim}.")
            sizes.append(x.shape[d])
        if not sizes:
            raise ValueError("vmap: Expected at least one Tensor to vmap over")
        if len(set(sizes)) > 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
        batch = sizes[0]
        if batch == 0:
            raise ValueError(f"{where}: the mapped dimension has size 0; transgrad's vmap calls "
                             "the function once per element (Note [vmap is a loop]), so it "
                             "cannot find the shapes of an empty batch")
        results = []
        start = default_generator.get_state_bytes()
        for i in range(batch):
            if randomness == "same":
                default_generator.set_state_bytes(start)
            before = default_generator.get_state_bytes() if randomness == "error" else None
            one = [functions.select(x, d, i) if d is not None else x
                   for x, d in zip(leaves, dims)]
            results.append(func(*tree_unflatten(one, spec), **kwargs))
            if before is not None and default_generator.get_state_bytes() != before:
                raise RuntimeError(_RANDOM_ERROR)
        return _stack_outputs(results, out_dims, fname)

    return wrapped


def _stack_outputs(results: List[Any], out_dims: Any, fname: str) -> Any:
    flat = [tree_flatten(r) for r in results]
    leaves0, spec = flat[0]
    if isinstance(out_dims, int) and not isinstance(out_dims, bool):
        odims: List[Any] = [out_dims] * len(leaves0)
    elif out_dims is None or isinstance(out_dims, tuple):
        try:
            odims = broadcast_prefix(out_dims, results[0], _is_dim)
        except ValueError:
            raise ValueError(f"vmap({fname}, ..., out_dims={out_dims})(<inputs>): out_dims is "
                             "not compatible with the structure of `outputs`. out_dims has "
                             f"structure {tree_flatten(out_dims)[1]} but outputs has structure "
                             f"{spec}.") from None
    else:
        raise ValueError(f"vmap({fname}, ..., out_dims={out_dims}): expected `out_dims` to be "
                         "int or a (potentially nested) tuple matching the structure of "
                         f"outputs, got: {type(out_dims)}.")
    out = []
    for j, (x0, d) in enumerate(zip(leaves0, odims)):
        if d is None:
            out.append(x0)
            continue
        if not is_tensor(x0):
            raise ValueError(f"vmap({fname}, ...): `{fname}` must only return Tensors, got type "
                             f"{type(x0)}. Did you mean to set out_dims= to None for output?")
        column = [leaves[j] for leaves, _ in flat]
        nd = x0.ndim + 1
        if not -nd <= d < nd:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                             f"{nd - 1}], but got {d})")
        out.append(functions.stack(column, d))
    return tree_unflatten(out, spec)
