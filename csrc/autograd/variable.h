// AutogradMeta: the autograd state of a tensor (hung on TensorImpl::autograd_meta, created on
// first use), and the free functions that read and change it. The Tensor accessors declared in
// tensor/tensor.h (requires_grad, grad_fn, grad, ...) are defined in variable.cpp.
//
// Invariants: a tensor with a grad_fn is a non-leaf and requires grad; a leaf requires grad iff
// its flag is set (floating dtypes only). A leaf's AccumulateGrad node is held weakly here and
// strongly by the graph, so the leaf never keeps its own graph alive.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "autograd/node.h"
#include "tensor/tensor.h"

namespace tg::autograd {

struct AutogradMeta {
  bool requires_grad = false;     // leaves only; a non-leaf requires grad through its grad_fn
  bool retains_grad = false;      // non-leaf retain_grad() was called
  uint32_t output_nr = 0;         // which output of grad_fn this tensor is
  std::shared_ptr<Node> grad_fn;  // null for leaves
  std::weak_ptr<Node> grad_accumulator;  // leaves: the AccumulateGrad node, while a graph holds it

  std::mutex mutex;  // guards grad, grad_accumulator creation and hooks
  Tensor grad;
  std::vector<std::pair<uint64_t, TensorHook>> hooks;  // leaf hooks (run by AccumulateGrad)
  // Leaf hooks run by AccumulateGrad after `.grad` was updated (post-accumulate-grad hooks).
  std::vector<std::pair<uint64_t, std::function<void(const Tensor&)>>> post_acc_hooks;
};

// The tensor's meta, created when missing. Not thread-safe against a concurrent first creation
// on the same tensor (creations happen under the GIL or on tensors private to one thread).
AutogradMeta& autograd_meta(const Tensor& t);
inline AutogradMeta* autograd_meta_or_null(const Tensor& t) {
  return t.unsafe_impl()->autograd_meta.get();
}
std::shared_ptr<AutogradMeta> autograd_meta_shared(const Tensor& t);

// The AccumulateGrad node of a leaf that requires grad (created on first use).
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);
// Where a gradient of `t` goes: (grad_fn, output_nr), (AccumulateGrad, 0) for a leaf that
// requires grad, or an invalid edge.
Edge gradient_edge(const Tensor& t);

// A new handle on the same data and version counter, without autograd state. Also used to give
// a tensor a history without touching the handle it came from (saved outputs, once_differentiable).
Tensor detach(const Tensor& t);

void retain_grad(const Tensor& t);
bool retains_grad(const Tensor& t);
// Registers a gradient hook on `t` (leaf: run before accumulation; non-leaf: on its grad_fn).
uint64_t register_hook(const Tensor& t, TensorHook hook);
bool remove_hook(const Tensor& t, uint64_t id);
bool remove_hook(AutogradMeta& meta, uint64_t id);
// Registers hook(leaf) to run after the leaf's `.grad` was accumulated; leaves only.
uint64_t register_post_accumulate_grad_hook(const Tensor& t,
                                            std::function<void(const Tensor&)> hook);

// Accumulates `g` into meta.grad (locked). Under grad mode the sum is recorded (create_graph).
void accumulate_into_grad(AutogradMeta& meta, Tensor g);

}  // namespace tg::autograd
