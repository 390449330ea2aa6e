#include "autograd/saved_variable.h"

#include <utility>
#include <vector>

#include "autograd/variable.h"

namespace tg::autograd {

namespace {

std::vector<SavedTensorHooksEntry>& hooks_stack() {
  thread_local std::vector<SavedTensorHooksEntry> stack;
  return stack;
}

}  // namespace

std::vector<SavedTensorHooksEntry> saved_tensor_hooks_state() { return hooks_stack(); }

void set_saved_tensor_hooks_state(std::vector<SavedTensorHooksEntry> state) {
  hooks_stack() = std::move(state);
}

void push_saved_tensor_hooks(std::shared_ptr<SavedTensorHooks> hooks) {
  auto& stack = hooks_stack();
  for (auto it = stack.rbegin(); it != stack.rend(); ++it)
    if (!it->hooks) throw RuntimeError(it->disabled_message);
  stack.push_back({std::move(hooks), std::string()});
}

void push_saved_tensor_hooks_disabled(std::string message) {
  hooks_stack().push_back({nullptr, std::move(message)});
}

void pop_saved_tensor_hooks() {
  auto& stack = hooks_stack();
  if (stack.empty()) throw RuntimeError("pop_saved_tensor_hooks: no saved tensor hooks are active");
  stack.pop_back();
}

const SavedTensorHooks* current_saved_tensor_hooks() {
  auto& stack = hooks_stack();
  return stack.empty() ? nullptr : stack.back().hooks.get();
}

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  defined_ = true;
  is_output_ = is_output;
  saved_version_ = t.version();
  if (is_output) {
    // No grad_fn kept: the owner is re-linked on unpack (no node -> output -> node cycle).
    output_nr_ = t.output_nr();
    relink_ = t.grad_fn() != nullptr;
    data_ = detach(t);
  } else {
    data_ = t;
    requires_grad_ = t.requires_grad();
  }
  if (const SavedTensorHooks* hooks = current_saved_tensor_hooks()) {
    if (!is_output) edge_ = gradient_edge(t);
    packed_ = hooks->pack(data_);
    data_ = Tensor();
  }
}

void SavedVariable::register_hooks(const SavedTensorHooks& hooks) {
  if (!defined_)
    throw RuntimeError(
        "Calling register_hooks on a saved tensor whose value is None is not "
        "supported");
  if (released_)
    throw RuntimeError(
        "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
        "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
        "retain_graph=True if you need to backward through the graph a second time or if you "
        "need to access saved variables after calling backward.");
  if (packed_)
    throw RuntimeError(
        "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only "
        "one pair of hooks is allowed at a time.");
  if (!is_output_) edge_ = gradient_edge(data_);
  packed_ = hooks.pack(data_);
  data_ = Tensor();
}

void SavedVariable::reset() {
  if (!defined_) return;
  data_ = Tensor();
  packed_.reset();
  edge_ = Edge();
  released_ = true;
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& owner) const {
  return unpack_impl(owner.get(), &owner);
}

Tensor SavedVariable::unpack(const Node& owner) const { return unpack_impl(&owner, nullptr); }

Tensor SavedVariable::unpack_impl(const Node* owner, const std::shared_ptr<Node>* owner_ptr) const {
  if (!defined_) return Tensor();
  auto describe = [owner] { return owner ? owner->describe() : std::string("a node"); };
  if (released_)
    throw RuntimeError(
        "Trying to backward through the graph a second time (or directly access saved tensors "
        "after they have already been freed). Saved intermediate values of the graph are freed "
        "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
        "backward through the graph a second time or if you need to access saved tensors after "
        "calling backward. (node: " +
        describe() + ")");
  if (packed_) return unpack_packed(owner, owner_ptr);
  uint32_t current = data_.version();
  if (current != saved_version_) {
    // torch's words first ("[torch.DoubleTensor [5]], which is output 0 of AddBackward0, is at
    // version 1; expected version 0 instead."), code matches on them; then the node that needed
    // it, with its formula's file:line
    std::string what = std::string("[torch.") + dtype_torch_name(data_.dtype()) + "Tensor [";
    const Shape& sz = data_.sizes();
    for (size_t i = 0; i < sz.size(); ++i) what += (i ? ", " : "") + std::to_string(sz[i]);
    what += "]]";
    if (is_output_) {
      what += ", which is output " + std::to_string(output_nr_) + " of " +
              (owner ? owner->name() : std::string("a node")) + ",";
    } else if (const auto& fn = data_.grad_fn()) {
      what += ", which is output " + std::to_string(data_.output_nr()) + " of " + fn->name() + ",";
    }
    throw RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: " +
        what + " is at version " + std::to_string(current) + "; expected version " +
        std::to_string(saved_version_) +
        " instead. Hint: avoid changing a tensor in place (x.op_(...), x[...] = ...) after it "
        "was used by an operation that saves it; compute into a new tensor instead. (needed "
        "by " +
        describe() + ")");
  }
  if (!is_output_) {
    if (requires_grad_ && !data_.requires_grad())
      throw RuntimeError(  // torch's words (its missing space included)
          "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
          "This is not supported, please use out-of-place `.detach()` instead");
    return data_;
  }
  return relink_output(detach(data_), owner, owner_ptr);
}

Tensor SavedVariable::unpack_packed(const Node* owner,
                                    const std::shared_ptr<Node>* owner_ptr) const {
  Tensor out = detach(packed_->unpack());
  if (is_output_) return relink_output(std::move(out), owner, owner_ptr);
  if (!edge_.valid()) return out;
  AutogradMeta& m = autograd_meta(out);
  if (edge_.function->is_accumulate_grad()) {
    // A leaf: the unpacked tensor is a leaf whose gradient goes to the saved leaf's .grad.
    m.requires_grad = true;
    m.grad_accumulator = edge_.function;
  } else {
    m.grad_fn = edge_.function;
    m.output_nr = edge_.input_nr;
  }
  return out;
}

Tensor SavedVariable::relink_output(Tensor out, const Node* owner,
                                    const std::shared_ptr<Node>* owner_ptr) const {
  if (relink_ && owner != nullptr) {
    std::shared_ptr<Node> fn =
        owner_ptr ? *owner_ptr : std::const_pointer_cast<Node>(owner->shared_from_this());
    AutogradMeta& m = autograd_meta(out);
    m.grad_fn = std::move(fn);
    m.output_nr = output_nr_;
  }
  return out;
}

}  // namespace tg::autograd
