// SavedVariable: a tensor a node keeps for its backward.
//
// It records the tensor's version when saved and checks it when unpacked, so an in-place change
// of a saved tensor is an error naming the node instead of a wrong gradient. An output of the
// node itself is saved without its grad_fn (a handle on the same data, no autograd state) and
// re-linked to the node on unpack: no node -> output -> node reference cycle.
#pragma once

#include <cstdint>
#include <memory>

#include "autograd/node.h"
#include "tensor/tensor.h"

namespace tg::autograd {

class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Tensor& t, bool is_output);

  // The saved tensor; throws when it was released (second backward) or modified in place.
  // `owner` is the node that saved it: outputs are re-linked to it; messages name it.
  Tensor unpack(const std::shared_ptr<Node>& owner) const;
  Tensor unpack(const Node& owner) const;
  // Frees the tensor (retain_graph=False). Unpacking afterwards raises.
  void reset();
  bool was_released() const { return released_; }

 private:
  Tensor unpack_impl(const Node* owner, const std::shared_ptr<Node>* owner_ptr) const;

  Tensor data_;
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool defined_ = false;
  bool is_output_ = false;
  bool relink_ = false;  // output that had the owner as grad_fn when saved
  bool released_ = false;
};

}  // namespace tg::autograd
