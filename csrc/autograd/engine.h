// The backward engine.
//
// Each backward call is one GraphTask run to completion on the calling thread: dependency
// counts over the reachable graph, one input buffer per pending node, a ready queue ordered by
// sequence number (later nodes first), and for autograd.grad the exec_info that prunes nodes
// which lead to none of the requested inputs. Several threads may run backward at once; a node
// shared between them is serialised by its mutex_. Errors propagate as C++ exceptions.
//
// The engine validates every gradient a node returns (Note [Gradient contract]): the count
// must equal the node's next edges; a dtype different from the forward input's is cast; a shape
// that the input's shape broadcasts to is summed down with sum_to; anything else is an error
// naming the node, its formula's path:line and both shapes.
#pragma once

#include <vector>

#include "autograd/node.h"
#include "tensor/tensor.h"

namespace tg::autograd {

struct Engine {
  // Runs backward from `roots` seeded with `grad_roots` (one per root, already validated).
  // With `outputs` non-empty, returns the gradient arriving at each of those edges (undefined
  // when none arrives) and runs only the nodes that lead to them; AccumulateGrad nodes listed in
  // `outputs` are run (and their grads still returned) only when `accumulate_grad`.
  static variable_list execute(const std::vector<Edge>& roots, variable_list grad_roots,
                               bool keep_graph, bool create_graph, bool accumulate_grad,
                               const std::vector<Edge>& outputs);
};

// tensor.backward / autograd.backward / autograd.grad, with the user-facing checks of
// DESIGN §6 (tensors that do not require grad, implicit grads of non-scalars, grad shapes,
// unused inputs). `grad_tensors` entries may be undefined (implicit ones for scalars).
// With accumulate_grad, grads go to `.grad` (of `inputs` only, when given) and an empty list is
// returned; otherwise one grad per input is returned (undefined for unused ones when
// allow_unused).
variable_list run_backward(const variable_list& tensors, const variable_list& grad_tensors,
                           bool retain_graph, bool create_graph, const variable_list& inputs,
                           bool allow_unused, bool accumulate_grad);

// The graph task running backward on this thread (autograd.graph.register_multi_grad_hook
// asks from inside a hook): its id, unique within the process, or 0 outside backward.
uint64_t current_graph_task_id();
// Whether the running task will call the tensor hooks of `node`: it is reachable from the
// roots and, under autograd.grad / backward(inputs=...), leads to or is one of the inputs.
// Throws outside backward.
bool will_engine_execute_node(const Node* node);

// Anomaly mode: when enabled, the engine checks every gradient for NaN and names the node.
struct AnomalyMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

}  // namespace tg::autograd
