#include "autograd/accumulate_grad.h"

#include "autograd/variable.h"

namespace tg::autograd {

variable_list AccumulateGrad::apply(variable_list&& grads) {
  if (grads.empty() || !grads[0].defined()) return {};
  AutogradMeta& m = autograd_meta(variable);
  accumulate_into_grad(m, std::move(grads[0]));
  std::vector<std::function<void(const Tensor&)>> hooks;  // post-accumulate-grad hooks
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    if (m.post_acc_hooks.empty()) return {};
    for (auto& entry : m.post_acc_hooks) hooks.push_back(entry.second);
  }
  for (auto& hook : hooks) hook(variable);
  return {};
}

void AccumulateGrad::run_tensor_pre_hooks(variable_list& grads) {
  Node::run_tensor_pre_hooks(grads);
  AutogradMeta* m = autograd_meta_or_null(variable);
  if (!m || grads.empty() || !grads[0].defined()) return;
  std::vector<TensorHook> hooks;
  {
    std::lock_guard<std::mutex> lock(m->mutex);
    if (m->hooks.empty()) return;
    for (auto& entry : m->hooks) hooks.push_back(entry.second);
  }
  for (auto& hook : hooks) grads[0] = apply_tensor_hook(hook, grads[0], "a leaf tensor");
}

}  // namespace tg::autograd
