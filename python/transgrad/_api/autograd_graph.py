"""``autograd.graph`` for both engines: saved-tensor hooks, ``register_multi_grad_hook``,
``allow_mutation_on_saved_tensors``.

Input: a ``GraphEngine``, the few primitives an engine provides (its thread-local stack of
saved-tensor hooks, the id of the backward running on this thread, whether that backward will
run a node's hooks, a tensor's gradient node). Output: ``GraphAPI``, torch's classes and
functions bound to that engine; ``transgrad.autograd.graph`` and
``transgrad.reference.autograd.graph`` each make one and export its members by name.
Invariants: everything here is expressed through the engine's primitives, so both engines
behave the same by construction.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Sequence, Tuple


@dataclass(frozen=True)
class GraphEngine:
    push_hooks: Callable[[Callable[[Any], Any], Callable[[Any], Any]], None]
    push_disabled: Callable[[str], None]
    pop_hooks: Callable[[], None]
    current_graph_task_id: Callable[[], Any]  # None/0 outside backward
    will_execute: Callable[[Any], bool]        # node -> bool, during backward
    grad_node: Callable[[Any], Any]            # tensor -> grad_fn or its AccumulateGrad


class _MultiHandle:
    """What ``register_multi_grad_hook`` returns: ``remove()`` removes every tensor hook."""

    def __init__(self, handles: Sequence[Any]) -> None:
        self.handles = tuple(handles)

    def remove(self) -> None:
        for h in self.handles:
            h.remove()

    def __enter__(self) -> "_MultiHandle":
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


@dataclass(frozen=True)
class GraphAPI:
    saved_tensors_hooks: type
    save_on_cpu: type
    disable_saved_tensors_hooks: type
    allow_mutation_on_saved_tensors: type
    register_multi_grad_hook: Callable[..., _MultiHandle]


def make_graph_api(engine: GraphEngine) -> GraphAPI:
    """torch's ``autograd.graph`` names over ``engine``."""

    class saved_tensors_hooks:
        """``with saved_tensors_hooks(pack, unpack):`` every tensor saved for backward inside
        is kept as ``pack(t)`` and given back as ``unpack(packed)`` each time backward needs
        it (no in-place check applies to it: pack decides what is kept)."""

        def __init__(self, pack_hook: Callable[[Any], Any],
                     unpack_hook: Callable[[Any], Any]) -> None:
            self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

        def __enter__(self) -> None:
            engine.push_hooks(self.pack_hook, self.unpack_hook)

        def __exit__(self, *exc: object) -> None:
            engine.pop_hooks()

    class save_on_cpu(saved_tensors_hooks):
        """Saved tensors are kept on the CPU. As torch's on a CPU tensor (``t.cpu()`` is ``t``)
        pack and unpack are the identity: the tensor itself is kept, without the in-place
        version check (``pin_memory`` accepted and ignored, as on a machine without CUDA)."""

        def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
            super().__init__(_identity, _identity)

    class disable_saved_tensors_hooks:
        """While active, registering saved-tensor hooks raises ``RuntimeError(error_message)``
        and none of the outer hooks apply."""

        def __init__(self, error_message: str) -> None:
            self.error_message = error_message

        def __enter__(self) -> None:
            engine.push_disabled(self.error_message)

        def __exit__(self, *exc: object) -> None:
            engine.pop_hooks()

    class allow_mutation_on_saved_tensors:
        """Inside, a tensor saved for backward may be changed in place afterwards: backward
        uses the values it had when saved. Backward of such a graph must run inside the same
        context (torch's error otherwise).

        Note [Mutation on saved tensors]
        torch clones a saved tensor lazily, when an in-place op is about to change it (a
        dispatch mode watches every op). transgrad has no such interception point on both
        engines, so it clones every saved tensor when saved: the same results, more memory
        while the graph lives."""

        def __init__(self) -> None:
            self._active = False
            self._hooks = saved_tensors_hooks(self._pack, self._unpack)

        def _pack(self, t: Any) -> Any:
            return _copy_detached(t)

        def _unpack(self, t: Any) -> Any:
            if not self._active:  # torch's type and words (its missing space included)
                raise AssertionError(
                    "Trying to backward outside of the 'allow_mutation_on_saved_tensors' "
                    "contextin which the graph was originally recorded.")
            return t

        def __enter__(self) -> "allow_mutation_on_saved_tensors":
            self._hooks.__enter__()
            self._active = True
            return self

        def __exit__(self, *exc: object) -> None:
            self._active = False
            self._hooks.__exit__(*exc)

    def register_multi_grad_hook(tensors: Sequence[Any], fn: Callable[[Any], Any], *,
                                 mode: str = "all") -> _MultiHandle:
        """``mode="all"``: ``fn(grads)`` runs once per backward, after the gradient of every
        tensor that backward computes is known, with a tuple holding each tensor's gradient
        (None for the tensors this backward does not reach). ``mode="any"``: ``fn(grad)``
        runs once per backward, with the first gradient computed among the tensors."""
        if mode not in ("all", "any"):
            raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
        tensors = tuple(tensors)
        lock = threading.Lock()
        if mode == "any":
            fired: Dict[Any, bool] = {}

            def any_hook(grad: Any) -> None:
                task = engine.current_graph_task_id()
                with lock:
                    if task in fired:
                        return
                    fired.clear()  # one entry: the backward running now
                    fired[task] = True
                fn(grad)

            # as torch's: tensors that do not require grad are left out in this mode
            return _MultiHandle([t.register_hook(any_hook)
                                 for t in tensors if t.requires_grad])

        # mode == "all": per backward, the gradients seen so far and how many will come.
        if not all(t.requires_grad for t in tensors):
            raise AssertionError("Expected gradient function to be set")  # torch's words
        pending: Dict[Any, Tuple[List[Any], List[int]]] = {}

        def all_hook(index: int) -> Callable[[Any], None]:
            def hook(grad: Any) -> None:
                task = engine.current_graph_task_id()
                with lock:
                    if task not in pending:
                        expected = sum(1 for t in tensors
                                       if engine.will_execute(engine.grad_node(t)))
                        pending[task] = ([None] * len(tensors), [expected])
                    grads, left = pending[task]
                    grads[index] = grad
                    left[0] -= 1
                    done = left[0] <= 0
                    if done:
                        del pending[task]
                if done:
                    fn(tuple(grads))

            return hook

        return _MultiHandle([t.register_hook(all_hook(i)) for i, t in enumerate(tensors)])

    return GraphAPI(saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks,
                    allow_mutation_on_saved_tensors, register_multi_grad_hook)


def _copy_detached(t: Any) -> Any:
    return t.detach().clone()


def _identity(t: Any) -> Any:
    return t


__all__: List[str] = ["GraphAPI", "GraphEngine", "make_graph_api"]
