"""``transgrad.autograd.graph``: torch's ``autograd.graph`` for the compiled engine.

Input: the compiled engine's primitives in ``transgrad._C.autograd`` (the C++ thread-local
stack of saved-tensor hooks, Note [Saved tensor hooks] in csrc/autograd/saved_variable.h; the
running backward's id and ``will_engine_execute_node``). Output: ``saved_tensors_hooks``,
``save_on_cpu``, ``disable_saved_tensors_hooks``, ``allow_mutation_on_saved_tensors``,
``register_multi_grad_hook`` (built by ``transgrad._api.autograd_graph``, shared with the
reference engine) and ``Node``, the type of every ``grad_fn``.
"""

from __future__ import annotations

from typing import Any

from transgrad import _C as _C_module
from transgrad._api.autograd_graph import GraphEngine, make_graph_api
from transgrad._api.graph_dot import render, to_dot, to_svg  # drawing the graph (both engines)

_ag: Any = _C_module.autograd

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "allow_mutation_on_saved_tensors", "register_multi_grad_hook", "Node", "to_dot",
           "to_svg", "render"]

_api = make_graph_api(GraphEngine(
    push_hooks=_ag._push_saved_tensors_hooks,
    push_disabled=_ag._push_saved_tensors_hooks_disabled,
    pop_hooks=_ag._pop_saved_tensors_hooks,
    current_graph_task_id=_ag._current_graph_task_id,
    will_execute=_ag._will_engine_execute_node,
    grad_node=_ag._grad_node,
))

saved_tensors_hooks = _api.saved_tensors_hooks
save_on_cpu = _api.save_on_cpu
disable_saved_tensors_hooks = _api.disable_saved_tensors_hooks
allow_mutation_on_saved_tensors = _api.allow_mutation_on_saved_tensors
register_multi_grad_hook = _api.register_multi_grad_hook
Node = _C_module.Node
