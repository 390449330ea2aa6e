"""``transgrad.reference.autograd.graph``: torch's ``autograd.graph`` for the reference engine.

Input: the reference engine's primitives: the thread's saved-tensor hook stack
(``transgrad.reference.saved_hooks``, which every tensor saved for backward goes through, Note
[Saved tensor hooks] in reference/node.py) and the running backward
(``transgrad.reference.engine.current_graph_task_id`` / ``will_engine_execute_node``). Output:
``saved_tensors_hooks``, ``save_on_cpu``, ``disable_saved_tensors_hooks``,
``allow_mutation_on_saved_tensors``, ``register_multi_grad_hook`` (built by
``transgrad._api.autograd_graph``, shared with the compiled engine) and ``Node``.
"""

from __future__ import annotations

from transgrad._api.autograd_graph import GraphEngine, make_graph_api
from transgrad._api.graph_dot import render, to_dot, to_svg  # drawing the graph (both engines)
from transgrad.reference import engine, saved_hooks
from transgrad.reference.node import Node, gradient_edge

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "allow_mutation_on_saved_tensors", "register_multi_grad_hook", "Node", "to_dot",
           "to_svg", "render"]


def _grad_node(t):
    edge = gradient_edge(t)
    return None if edge is None else edge[0]


_api = make_graph_api(GraphEngine(
    push_hooks=saved_hooks.push_hooks,
    push_disabled=saved_hooks.push_disabled,
    pop_hooks=saved_hooks.pop,
    current_graph_task_id=engine.current_graph_task_id,
    will_execute=engine.will_engine_execute_node,
    grad_node=_grad_node,
))

saved_tensors_hooks = _api.saved_tensors_hooks
save_on_cpu = _api.save_on_cpu
disable_saved_tensors_hooks = _api.disable_saved_tensors_hooks
allow_mutation_on_saved_tensors = _api.allow_mutation_on_saved_tensors
register_multi_grad_hook = _api.register_multi_grad_hook
