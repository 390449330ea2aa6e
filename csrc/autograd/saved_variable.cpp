#include "autograd/saved_variable.h"

#include "autograd/variable.h"

namespace tg::autograd {

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
  }
}

void SavedVariable::reset() {
  if (!defined_) return;
  data_ = Tensor();
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
        "after they have already been freed): the saved tensors of " +
        describe() +
        " were freed when backward() or autograd.grad() ran. Specify retain_graph=True if you "
        "need to backward through the graph a second time or if you need to access saved "
        "tensors after calling backward.");
  uint32_t current = data_.version();
  if (current != saved_version_) {
    std::string who = describe();
    std::string what = std::string("a ") + dtype_name(data_.dtype()) + " tensor of shape " +
                       shape_str(data_.sizes());
    if (is_output_) {
      what += ", which is output " + std::to_string(output_nr_) + " of " + who;
    } else if (const auto& fn = data_.grad_fn()) {
      what += ", which is output " + std::to_string(data_.output_nr()) + " of " + fn->describe();
    } else {
      what += " (a leaf)";
    }
    throw RuntimeError(
        "one of the variables needed for gradient computation by " + who +
        " has been modified by an inplace operation: " + what + ", is at version " +
        std::to_string(current) + "; expected version " + std::to_string(saved_version_) +
        " instead. Hint: avoid changing a tensor in place (x.op_(...), x[...] = ...) after it "
        "was used by an operation that saves it; compute into a new tensor instead.");
  }
  if (!is_output_) return data_;
  Tensor out = detach(data_);
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
