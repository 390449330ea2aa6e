"""``transgrad.utils.checkpoint``: trade compute for memory, as ``torch.utils.checkpoint``.

Input: a function and its arguments. Output: the function's outputs, computed without recording
a graph; in backward the function runs again (with the random state of the first run restored,
so dropout draws the same mask) under recording, and its gradients flow to the inputs and to
the parameters the function closes over. Engine-neutral: the engine is the one of the tensor
arguments.

Note [Checkpoint as a Function]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Both engines run a custom ``autograd.Function`` whose backward re-runs the forward and calls
``autograd.grad`` on the recomputed outputs: a backward inside a backward, which both engines
allow. The gradients it returns for the inputs are the ones the Function hands on; the
parameters' gradients are accumulated by the inner call itself (their ``.grad``). As torch's
reentrant variant, higher-order gradients through a checkpoint are not available:
``autograd.grad`` through a checkpointed segment raises torch's error.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Iterable

from transgrad._backend import find_backend, is_tensor
from transgrad._random import default_generator

__all__ = ["checkpoint", "checkpoint_sequential"]


def _engine(args: Iterable[Any]) -> Any:
    backend = find_backend(args)
    if backend is None:
        raise ValueError("checkpoint needs at least one tensor argument to find its engine")
    return importlib.import_module(backend.name)


def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: Any = None,
               context_fn: Any = None, determinism_check: str = "default", debug: bool = False,
               preserve_rng_state: bool = True, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)``, its activations recomputed in backward instead of kept
    (Note [Checkpoint as a Function])."""
    if context_fn is not None:
        raise ValueError("Passing `context_fn` or `debug` is only supported when "
                         "use_reentrant=False.")
    engine = _engine(args)
    if kwargs:
        inner = function

        def function(*a: Any) -> Any:
            return inner(*a, **kwargs)
    return _make_function(engine).apply(function, preserve_rng_state, *args)


_FUNCTIONS: dict = {}


def _make_function(engine: Any) -> Any:
    """The checkpoint Function of ``engine``, made once."""
    if engine.__name__ in _FUNCTIONS:
        return _FUNCTIONS[engine.__name__]
    autograd = engine.autograd
    Function: Any = autograd.Function

    class CheckpointFunction(Function):
        @staticmethod
        def forward(ctx: Any, run: Callable[..., Any], preserve: bool, *args: Any) -> Any:
            ctx.run, ctx.preserve = run, preserve
            ctx.rng_state = default_generator.get_state_bytes() if preserve else None
            ctx.tensor_at = [i for i, a in enumerate(args) if is_tensor(a)]
            ctx.others = [None if is_tensor(a) else a for a in args]
            ctx.save_for_backward(*(args[i] for i in ctx.tensor_at))
            with autograd.no_grad():
                return run(*args)

        @staticmethod
        def backward(ctx: Any, *grads: Any) -> Any:
            saved = ctx.saved_tensors
            inputs = list(ctx.others)
            for i, t in zip(ctx.tensor_at, saved):
                inputs[i] = t.detach().requires_grad_(t.requires_grad)
            outer = default_generator.get_state_bytes()
            if ctx.rng_state is not None:
                default_generator.set_state_bytes(ctx.rng_state)
            try:
                with autograd.enable_grad():
                    outputs = ctx.run(*inputs)
            finally:
                if ctx.rng_state is not None:
                    default_generator.set_state_bytes(outer)
            outs = outputs if isinstance(outputs, tuple) else (outputs,)
            pairs = [(o, g) for o, g in zip(outs, grads)
                     if is_tensor(o) and o.requires_grad and g is not None]
            if not pairs:
                raise RuntimeError("none of output has requires_grad=True, this checkpoint() "
                                   "is not necessary")
            autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
            return (None, None, *(a.grad if is_tensor(a) else None for a in inputs))

    _FUNCTIONS[engine.__name__] = CheckpointFunction
    return CheckpointFunction


def checkpoint_sequential(functions: Any, segments: int, input: Any, use_reentrant: Any = None,
                          **kwargs: Any) -> Any:
    """Run the modules of ``functions`` (a Sequential or a list) in ``segments`` checkpointed
    chunks, the last chunk without a checkpoint, as torch's."""
    fns = list(functions.children()) if hasattr(functions, "children") else list(functions)
    if segments <= 0:
        raise ValueError("segments must be positive")
    size = max(len(fns) // segments, 1)

    def run_chunk(start: int, end: int) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for f in fns[start:end]:
                x = f(x)
            return x
        return forward

    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run_chunk(start, end + 1), input, use_reentrant=use_reentrant,
                           **kwargs)
    return run_chunk(end + 1, len(fns))(input)
