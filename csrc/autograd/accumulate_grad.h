// AccumulateGrad: the sink node of a leaf that requires grad. It runs the leaf's hooks and
// accumulates the gradient into `.grad` under the leaf's lock; under create_graph the
// accumulated gradient keeps its history.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "autograd/node.h"

namespace tg::autograd {

struct AccumulateGrad final : Node {
  // Highest priority: a leaf's gradient is stored as soon as it is complete.
  explicit AccumulateGrad(Tensor leaf)
      : Node(std::numeric_limits<uint64_t>::max()), variable(std::move(leaf)) {
    is_accumulate_grad_ = true;
  }

  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  void run_tensor_pre_hooks(variable_list& grads) override;

  Tensor variable;
};

}  // namespace tg::autograd
