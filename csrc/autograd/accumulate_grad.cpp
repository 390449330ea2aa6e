#include "autograd/accumulate_grad.h"

#include <algorithm>
#include <numeric>

#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "kernels/loops.h"

namespace tg::autograd {

namespace {

// Note [A leaf's gradient keeps its layout]
// As torch's AccumulateGrad (its layout contract): a new .grad of a leaf whose elements fill one
// block without overlap (contiguous, channels_last, any permutation of a contiguous layout) has
// the leaf's strides; any other leaf (overlapping or with gaps) gets a contiguous .grad. The
// engine's .grad is contiguous already (stolen only when contiguous, else cloned), so only a
// dense, non-contiguous leaf needs its .grad copied into the leaf's strides; a size-1 dim's
// stride does not count.
bool dense_permutation(const Tensor& t) {
  const Shape& sizes = t.sizes();
  const Shape& strides = t.strides();
  std::vector<int64_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return strides[a] < strides[b]; });
  int64_t expected = 1;
  for (int64_t d : order) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

bool same_layout(const Tensor& a, const Tensor& b) {
  for (int64_t d = 0; d < a.dim(); ++d)
    if (a.sizes()[d] != 1 && a.strides()[d] != b.strides()[d]) return false;
  return true;
}

void obey_layout(AutogradMeta& m, const Tensor& variable) {
  if (variable.numel() == 0 || !dense_permutation(variable)) return;
  std::lock_guard<std::mutex> lock(m.mutex);
  const Tensor& g = m.grad;
  if (!g.defined() || g.requires_grad() || g.sizes() != variable.sizes() ||
      same_layout(g, variable))
    return;
  Tensor flat = Tensor::empty(Shape{variable.numel()}, g.dtype());
  Tensor laid = flat.view(variable.sizes(), variable.strides(), 0);
  kernel::detail::copy_into(laid, g);
  m.grad = laid;
}

}  // namespace

variable_list AccumulateGrad::apply(variable_list&& grads) {
  if (grads.empty() || !grads[0].defined()) return {};
  AutogradMeta& m = autograd_meta(variable);
  // only a non-contiguous leaf's first .grad may need relaying out: the common leaf takes no
  // second lock here (Note [A leaf's gradient keeps its layout])
  bool relay = !variable.is_contiguous() && !GradMode::is_enabled();
  if (relay) {
    std::lock_guard<std::mutex> lock(m.mutex);
    relay = !m.grad.defined();
  }
  accumulate_into_grad(m, std::move(grads[0]));
  if (relay) obey_layout(m, variable);
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
