// SavedVariable: a tensor a node keeps for its backward.
//
// It records the tensor's version when saved and checks it when unpacked, so an in-place change
// of a saved tensor is an error naming the node instead of a wrong gradient. An output of the
// node itself is saved without its grad_fn (a handle on the same data, no autograd state) and
// re-linked to the node on unpack: no node -> output -> node reference cycle.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "autograd/node.h"
#include "tensor/tensor.h"

namespace tg::autograd {

// Note [Saved tensor hooks]
// autograd.graph.saved_tensors_hooks(pack, unpack): while a pair is active on a thread, every
// tensor a node saves on that thread (generated nodes and Python Functions alike) is handed to
// pack() once, when saved, and the node keeps only what pack returned; each unpack of the
// saved value calls unpack() on it. The autograd core knows nothing of Python: the binding
// implements SavedTensorHooks and PackedTensor and takes the GIL inside them. As torch's:
// no version check applies to a packed tensor (pack decides what is kept), and the unpacked
// tensor is linked back into the graph where the saved one was (its grad_fn and output_nr, or
// its leaf's AccumulateGrad, or the owner node for a saved output). A saved *output* is given
// to pack without its grad_fn (torch passes the output itself): a pack that returns its argument
// would otherwise make node -> packed object -> output -> node, a cycle through C++ that
// Python's collector cannot see.
struct PackedTensor {
  virtual ~PackedTensor() = default;
  virtual Tensor unpack() const = 0;  // throws TypeError when unpack returns a non-tensor
};
struct SavedTensorHooks {
  virtual ~SavedTensorHooks() = default;
  virtual std::shared_ptr<PackedTensor> pack(const Tensor& t) const = 0;
};

// The thread-local stack of hooks. A disabling entry (disable_saved_tensors_hooks) carries its
// message: pushing hooks above it raises RuntimeError(message), and it hides the hooks below.
void push_saved_tensor_hooks(std::shared_ptr<SavedTensorHooks> hooks);
void push_saved_tensor_hooks_disabled(std::string message);
void pop_saved_tensor_hooks();
// The innermost active pair, or null.
const SavedTensorHooks* current_saved_tensor_hooks();
// A copy of this thread's stack, and installing one on another thread: a re-entrant backward
// moved to a fresh thread runs under its caller's hooks, as torch's (Note [Deep re-entrant
// backward] in python/autograd_binding.cpp).
struct SavedTensorHooksEntry {
  std::shared_ptr<SavedTensorHooks> hooks;  // null: a disabling entry
  std::string disabled_message;
};
std::vector<SavedTensorHooksEntry> saved_tensor_hooks_state();
void set_saved_tensor_hooks_state(std::vector<SavedTensorHooksEntry> state);

class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Tensor& t, bool is_output);

  // The saved tensor; throws when it was released (second backward) or modified in place.
  // `owner` is the node that saved it: outputs are re-linked to it; messages name it.
  Tensor unpack(const std::shared_ptr<Node>& owner) const;
  Tensor unpack(const Node& owner) const;
  // grad_fn._raw_saved_<name>.register_hooks(pack, unpack): packs the kept tensor now, as
  // saved_tensors_hooks would have when it was saved. Throws when freed, undefined or packed.
  void register_hooks(const SavedTensorHooks& hooks);
  bool defined() const { return defined_; }
  // Frees the tensor (retain_graph=False). Unpacking afterwards raises.
  void reset();
  bool was_released() const { return released_; }

 private:
  Tensor unpack_impl(const Node* owner, const std::shared_ptr<Node>* owner_ptr) const;
  Tensor unpack_packed(const Node* owner, const std::shared_ptr<Node>* owner_ptr) const;
  // A saved output re-linked to its owner node (no autograd state kept while saved).
  Tensor relink_output(Tensor out, const Node* owner, const std::shared_ptr<Node>* owner_ptr) const;

  Tensor data_;
  std::shared_ptr<PackedTensor> packed_;  // Note [Saved tensor hooks]; then data_ is undefined
  Edge edge_;                             // where a packed non-output leads in the graph
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool defined_ = false;
  bool is_output_ = false;
  bool relink_ = false;         // output that had the owner as grad_fn when saved
  bool requires_grad_ = false;  // an input that required grad: detach_() on it is caught
  bool released_ = false;
};

}  // namespace tg::autograd
