// Helpers used by forward functions (generated and hand-written) to record history, and the
// few differentiable operations the engine itself needs (summing grads, summing a broadcast
// grad down to its input, casting a grad), so that create_graph records them too.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "tensor/tensor.h"

namespace tg::autograd {

// Grad mode is enabled and some defined input requires grad.
bool any_requires_grad(std::initializer_list<const Tensor*> inputs);
bool any_requires_grad(const std::vector<Tensor>& inputs);

// Appends one next edge per tensor (an invalid edge for None or a tensor that does not require
// grad) and its input metadata.
void collect_next_edges(Node& node, const Tensor& input);
void collect_next_edges(Node& node, const std::vector<Tensor>& inputs);

// Makes `node` the grad_fn of `output` (a fresh tensor) as its output `output_nr`.
void set_history(Tensor& output, const std::shared_ptr<Node>& node, uint32_t output_nr);

[[noreturn]] void throw_double_backward_once_differentiable(const Node& node);

// For a once_differentiable node's apply(), after computing `results` under NoGradGuard:
// when grad mode is enabled (create_graph) and the node's inputs or one of `sources` (the
// incoming grads, optionally the unpacked saved tensors) require grad, each defined result is
// replaced by a handle on the same data whose grad_fn raises
// throw_double_backward_once_differentiable(node) when differentiated (instead of silently
// acting as a constant in the double backward).
void wrap_once_differentiable(const Node& node, const variable_list& sources,
                              variable_list& results);

// torch's once_differentiable for a Python Function's backward (Note [once_differentiable as
// torch's]): under grad mode, when one of `grads` (the grads the backward received) requires
// grad, each result becomes an output of an `Error` node whose next edges go to fresh leaves
// (one per result, invalid for an undefined one), so differentiating a result raises and
// autograd.grad prunes it as torch does. Otherwise the results are returned unchanged.
void wrap_delayed_error(const Node& node, const variable_list& grads, variable_list& results);

// Differentiable engine operations (recorded when grad mode is enabled).
Tensor grad_add(const Tensor& a, const Tensor& b);
Tensor grad_sum_to(const Tensor& g, const Shape& shape);
Tensor grad_expand(const Tensor& g, const Shape& shape);
Tensor grad_cast(const Tensor& g, DType dtype);

// True when a tensor of shape `from` broadcasts to shape `to`.
bool broadcastable_to(const Shape& from, const Shape& to);

}  // namespace tg::autograd
