"""The backward engine: ``backward(...)`` and ``grad(...)`` over a graph of Nodes.

Input: root tensors and their gradients; optionally target tensors (``grad``'s inputs, or
``backward(inputs=...)``). Output: gradients accumulated into leaves' ``.grad``, or returned.

How it runs (one pass, no recursion; Note [Engine]):
1. Walk the graph from the roots (an explicit stack) and list the nodes in post-order.
2. With targets, keep only the nodes from which a target can be reached ("needed"); a node runs
   only if one of its children is needed (a target that leads nowhere is captured, not run).
3. Count, for each needed node, the edges coming into it from nodes that run.
4. Ready queue: a heap ordered by sequence number, highest (most recently created) first; a node
   is ready when every gradient for it has arrived. Gradients for the same node input are summed
   in its input buffer. Tensor hooks run on a node's incoming gradients before it runs.
5. Each node runs with grad mode = create_graph; without retain_graph it then frees its saved
   tensors.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from transgrad._dtypes import is_floating_or_complex
from transgrad.reference import saved_hooks
from transgrad.reference.grad_mode import _set as _set_grad
from transgrad.reference.grad_mode import is_anomaly_enabled, is_grad_enabled
from transgrad.reference.grad_ops import grad_cast
from transgrad.reference.node import AccumulateGrad, Node, _evaluating, gradient_edge
from transgrad.reference.tensor import Tensor


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: Optional[bool] = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves (of ``inputs``
    only, when given)."""
    tensors = _as_list(tensors, "tensors")
    grads = _make_grads(tensors, grad_tensors)
    roots = [_root_edge(t, i) for i, t in enumerate(tensors)]
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is None:
        _run(roots, grads, retain_graph, create_graph, None)
        return
    inputs = _as_list(inputs, "inputs")
    if not inputs:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    targets = [_input_edge(t) for t in inputs]
    captured = _run(roots, grads, retain_graph, create_graph, targets, accumulate=True)
    for t, g in zip(inputs, captured):  # non-leaf inputs: their .grad gets the captured grad
        if t.grad_fn is not None and g is not None:
            g = g if create_graph else g.detach()
            t._grad = g if t._grad is None else t._grad + g


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None,
         retain_graph: Optional[bool] = None, create_graph: bool = False,
         allow_unused: Optional[bool] = None, materialize_grads: bool = False) -> Tuple[Any, ...]:
    """The gradients of ``outputs`` with respect to ``inputs`` (a tuple, one per input)."""
    outputs = _as_list(outputs, "outputs")
    inputs = _as_list(inputs, "inputs")
    if not inputs:  # torch's check (the compiled engine's too)
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    targets = [_input_edge(t) for t in inputs]
    grads = _make_grads(outputs, grad_outputs)
    roots = [_root_edge(t, i) for i, t in enumerate(outputs)]
    if retain_graph is None:
        retain_graph = create_graph
    captured = _run(roots, grads, retain_graph, create_graph, targets, accumulate=False)
    result = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if materialize_grads:
                # under create_graph the zeros take part in the next grad(), as torch's
                g = Tensor._from_array(np.zeros(t.shape, t.dtype), requires_grad=create_graph)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not "
                                   "have been used in the graph. Set allow_unused=True if this "
                                   "is the desired behavior.")
        result.append(g)
    return tuple(result)


# ---------------------------------------------------------------------------------------------


def _as_list(value: Any, what: str) -> List[Any]:
    items = [value] if isinstance(value, Tensor) else list(value)
    for t in items:
        if not isinstance(t, Tensor):
            raise TypeError(f"{what} must be Tensors, got {type(t).__name__}")
    return items


def _make_grads(tensors: List[Tensor], grads: Any) -> List[Tensor]:
    if grads is None:
        grads = [None] * len(tensors)
    elif isinstance(grads, Tensor):
        grads = [grads]
    else:
        grads = list(grads)
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(grads)} gradients for {len(tensors)} tensors: give one "
                           "per tensor")
    out = []
    for i, (t, g) in enumerate(zip(tensors, grads)):
        if g is None:
            if t._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs "
                                   f"(output {i} has shape {t._data.shape}); pass gradient=... "
                                   "with that shape")
            if not is_floating_or_complex(t.dtype):
                raise RuntimeError("grad can be implicitly created only for real scalar "
                                   f"outputs but got {t.dtype}")
            g = Tensor._from_array(np.ones(t.shape, t.dtype))
        else:
            if not isinstance(g, Tensor):
                g = Tensor._from_array(np.asarray(g, dtype=t.dtype))
            if g.shape != t.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{g.shape} and output[{i}] has a shape of {t.shape}.")
            if g.dtype != t.dtype:
                g = grad_cast(g, t.dtype)
        out.append(g)
    return out


def _root_edge(t: Tensor, i: int) -> Tuple[Node, int]:
    edge = gradient_edge(t)
    if edge is None:
        raise RuntimeError(f"element {i} of tensors does not require grad and does not have a "
                           "grad_fn")
    return edge


def _input_edge(t: Tensor) -> Tuple[Node, int]:
    edge = gradient_edge(t)
    if edge is None:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return edge


def _post_order(roots: Sequence[Node]) -> List[Node]:
    """Every node reachable from ``roots``, children before parents (iterative DFS)."""
    seen = set()
    order: List[Node] = []
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(root.next_edges))]
        while stack:
            node, edges = stack[-1]
            for e in edges:
                if e is not None and e[0] not in seen:
                    seen.add(e[0])
                    stack.append((e[0], iter(e[0].next_edges)))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


# The backward running on this thread, for autograd.graph.register_multi_grad_hook and
# queue_callback: a stack, since a hook may run a nested backward. Each entry is (task id, the
# nodes it visits, the callbacks queued for its end).
_running = threading.local()
_task_ids = itertools.count(1)

# Nested backwards one thread runs before the next moves to a new thread (Note [Deep re-entrant
# backward] in csrc/python/autograd_binding.cpp: the compiled engine does the same).
_REENTRANT_DEPTH = 32


def _task_stack() -> List[Tuple[int, set, List[Any]]]:
    stack = getattr(_running, "stack", None)
    if stack is None:
        stack = _running.stack = []
    return stack


def queue_callback(callback: Any) -> None:
    """Run ``callback()`` once the running backward has gone through its graph, before it
    returns (Note [Final callbacks] in csrc/python/autograd_binding.cpp)."""
    stack = _task_stack()
    if not stack:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    stack[-1][2].append(callback)


def current_graph_task_id() -> int:
    """The id of the backward running on this thread (unique in the process); 0 outside."""
    stack = _task_stack()
    return stack[-1][0] if stack else 0


def will_engine_execute_node(node: Node) -> bool:
    """Whether the running backward will call ``node``'s tensor hooks: it is reachable from
    the roots and, with targets (grad / backward(inputs=)), leads to or is one of them."""
    stack = _task_stack()
    if not stack:
        raise RuntimeError("will_engine_execute_node should only be called during the "
                           "backward pass")
    return node in stack[-1][1]


def _run(roots: List[Tuple[Node, int]], root_grads: List[Tensor], retain_graph: bool,
         create_graph: bool, targets: Optional[List[Tuple[Node, int]]],
         accumulate: bool = True) -> List[Any]:
    """Run the backward pass (Note [Engine] in the module docstring); return captured grads.
    A backward nested deeper than _REENTRANT_DEPTH in others runs on a new thread, which takes
    this thread's grad mode and saved-tensor hooks (Note [Deep re-entrant backward])."""
    args = (roots, root_grads, retain_graph, create_graph, targets, accumulate)
    if len(_task_stack()) < _REENTRANT_DEPTH:
        return _run_task(*args)
    result: List[Any] = []
    error: List[BaseException] = []
    grad_mode, hooks = is_grad_enabled(), list(saved_hooks._stack())

    def work() -> None:
        try:
            _set_grad(grad_mode)
            saved_hooks._stack()[:] = hooks
            result.extend(_run_task(*args))
        except BaseException as exc:  # re-raised on the caller's thread
            error.append(exc)

    worker = threading.Thread(target=work, name="transgrad re-entrant backward")
    worker.start()
    worker.join()
    if error:
        raise error[0]
    return result


def _run_task(roots: List[Tuple[Node, int]], root_grads: List[Tensor], retain_graph: bool,
              create_graph: bool, targets: Optional[List[Tuple[Node, int]]],
              accumulate: bool) -> List[Any]:
    order = _post_order([n for n, _ in roots])
    if targets is None:
        needed = set(order)
        runs = needed
    else:
        target_nodes = {n for n, _ in targets}
        needed, runs = set(), set()
        for node in order:  # children first, so "needed" of children is known
            if any(e is not None and e[0] in needed for e in node.next_edges):
                needed.add(node)
                runs.add(node)
            elif node in target_nodes:
                needed.add(node)
                if accumulate and isinstance(node, AccumulateGrad):
                    runs.add(node)
    deps: Dict[Node, int] = {}
    for node in runs:
        for e in node.next_edges:
            if e is not None and e[0] in needed:
                deps[e[0]] = deps.get(e[0], 0) + 1

    buffers: Dict[Node, List[Any]] = {}
    for (node, nr), g in zip(roots, root_grads):
        if node in needed:
            _accumulate(buffers, node, nr, g, create_graph)
    capture: Dict[Node, List[Tuple[int, int]]] = {}
    for i, (node, nr) in enumerate(targets or ()):
        capture.setdefault(node, []).append((nr, i))
    captured: List[Any] = [None] * len(targets or ())

    tie = itertools.count()
    heap = [(-node.sequence_nr, next(tie), node) for node in buffers if deps.get(node, 0) == 0]
    heapq.heapify(heap)
    prev_mode = is_grad_enabled()
    _set_grad(create_graph)
    callbacks: List[Any] = []
    _task_stack().append((next(_task_ids), needed, callbacks))
    try:
        while heap:
            node = heapq.heappop(heap)[2]
            grads = buffers.pop(node, None) or [None] * max(node_inputs(node), 1)
            grads = _call_hooks(node, grads, create_graph)
            for nr, i in capture.get(node, ()):
                captured[i] = grads[nr] if nr < len(grads) else None
            if node not in runs:
                continue
            if node._node_pre_hooks:
                grads = _node_pre_hooks(node, grads)
            prev_node, _evaluating.node = getattr(_evaluating, "node", None), node
            try:
                outs = node.apply(grads)
            except Exception as exc:
                _note(exc, node)
                _anomaly_warning(node)
                raise
            finally:
                _evaluating.node = prev_node
            if node._node_post_hooks:
                outs = _node_post_hooks(node, list(outs), grads)
            if not retain_graph:
                node.release_variables()
            if is_anomaly_enabled():
                try:
                    _check_nan(node, outs)
                except RuntimeError:
                    _anomaly_warning(node)
                    raise
            for edge, g in zip(node.next_edges, outs):
                if edge is None or edge[0] not in needed:
                    continue
                child, nr = edge
                if g is not None:
                    _accumulate(buffers, child, nr, g, create_graph)
                deps[child] -= 1
                if deps[child] == 0:
                    heapq.heappush(heap, (-child.sequence_nr, next(tie), child))
            # the buffers are now the only holders of these grads: AccumulateGrad may adopt
            # one (Note [Adopting the incoming gradient] in node.py)
            outs = grads = g = None  # type: ignore[assignment]
        for cb in callbacks:  # Note [Final callbacks]; one may queue another
            cb()
    finally:
        _task_stack().pop()
        _set_grad(prev_mode)
    return captured


def _node_pre_hooks(node: Node, grads: List[Any]) -> List[Any]:
    for hook in list(node._node_pre_hooks or ()):
        r = hook(tuple(grads))
        if r is not None:
            r = list(r) if isinstance(r, (tuple, list)) else [r]
            if len(r) != len(grads):
                raise RuntimeError(f"pre-hook of {node.describe()} returned {len(r)} gradients, "
                                   f"expected {len(grads)}")
            grads = r
    return grads


def _node_post_hooks(node: Node, outs: List[Any], grads: List[Any]) -> List[Any]:
    for hook in list(node._node_post_hooks or ()):
        r = hook(tuple(outs), tuple(grads))
        if r is not None:
            r = list(r) if isinstance(r, (tuple, list)) else [r]
            if len(r) != len(outs):
                raise RuntimeError(f"hook of {node.describe()} returned {len(r)} gradients, "
                                   f"expected {len(outs)}")
            outs = r
    return outs


def _note(exc: Exception, node: Node) -> None:
    """Say which node raised (Python >= 3.11 shows notes under the traceback) and, under
    detect_anomaly(), where the node was made (Note [Anomaly mode] in csrc/autograd/node.h)."""
    if not hasattr(exc, "add_note") or getattr(exc, "_tg_noted", False):
        return
    if node.describe() not in str(exc):
        exc.add_note(f"(raised in the backward of {node.describe()})")
    if is_anomaly_enabled():
        exc.add_note(node.forward_trace().lstrip("\n"))
    exc._tg_noted = True  # type: ignore[attr-defined]


def _anomaly_warning(node: Node) -> None:
    """torch's warning of an error in ``node`` under anomaly mode (Note [Anomaly mode] in
    csrc/autograd/node.h)."""
    if is_anomaly_enabled():
        for message in node.anomaly_warnings():
            warnings.warn(message, UserWarning, stacklevel=3)


def _check_nan(node: Node, grads: List[Any]) -> None:
    for i, g in enumerate(grads):
        if g is not None and is_floating_or_complex(g.dtype) and np.isnan(g._data).any():
            # torch's sentence first (user code matches on it), then which formula and where
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               f"output. (function {node.describe()}, detected by "
                               "detect_anomaly)" + node.forward_trace())


def node_inputs(node: Node) -> int:
    """How many gradients ``node.apply`` takes (one per output of its forward)."""
    return getattr(node, "n_outputs", 1)


def _accumulate(buffers: Dict[Node, List[Any]], node: Node, nr: int, g: Any,
                create_graph: bool) -> None:
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * max(node_inputs(node), nr + 1)
    old = buf[nr]
    if old is None:
        buf[nr] = g
    elif create_graph or old.requires_grad or g.requires_grad:
        buf[nr] = old + g
    else:
        buf[nr] = Tensor._from_array(old._data + g._data)


def _call_hooks(node: Node, grads: List[Any], create_graph: bool) -> List[Any]:
    """Tensor hooks (a non-None result replaces the grad), then retain_grad's ``.grad``."""
    if node._pre_hooks is None and node._retained is None and not isinstance(node, AccumulateGrad):
        return grads
    leaf = isinstance(node, AccumulateGrad)
    for i, g in enumerate(grads):
        if g is None:
            # as torch's, a non-leaf's hook also sees an output's grad that nobody produced
            # (Note [Several views, one node] in csrc/autograd/multi_view.h)
            for hook in list((not leaf and node._hooks_for(i)) or ()):
                if hook(None) is not None:
                    raise RuntimeError("can't replace a None gradient with a non-None value")
            continue
        hooks = node._hooks_for(i)
        for hook in list(hooks or ()):
            r = hook(g)
            if r is not None:
                if tuple(r.shape) != tuple(g.shape):  # torch's words first, as the compiled
                    name = getattr(hook, "__name__", "?")
                    raise RuntimeError(
                        f"hook '{name}' has changed the size of value: it returned a gradient "
                        f"of shape {tuple(r.shape)} for a gradient of shape {tuple(g.shape)}; "
                        "a hook must keep the gradient's shape")
                g = r
        grads[i] = g
        ref = node._retained.get(i) if node._retained else None
        t = ref() if ref is not None else None
        if t is not None:
            g = g if create_graph else g.detach()
            t._grad = g if t._grad is None else t._grad + g
    return grads
