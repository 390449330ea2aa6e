#include "autograd/variable.h"

#include "autograd/accumulate_grad.h"
#include "autograd/function.h"
#include "autograd/grad_mode.h"
#include "kernels/kernels.h"
#include "kernels/loops.h"

namespace tg {

using autograd::AutogradMeta;
using autograd::Node;

namespace {
const std::shared_ptr<Node> kNoNode;
}

bool Tensor::requires_grad() const {
  if (!impl_) return false;
  const AutogradMeta* m = impl_->autograd_meta.get();
  return m != nullptr && (m->requires_grad || m->grad_fn != nullptr);
}

void Tensor::set_requires_grad(bool flag) {
  check_defined("requires_grad");
  AutogradMeta* m = impl_->autograd_meta.get();
  if (m != nullptr && m->grad_fn) {
    if (flag) return;
    throw RuntimeError(
        "you can only change requires_grad flags of leaf variables. If you want to use a "
        "computed variable in a subgraph that doesn't require differentiation use "
        "var_no_grad = var.detach().");
  }
  if (flag && !is_floating(dtype()))
    throw RuntimeError(std::string("Only Tensors of floating point and complex dtype can require "
                                   "gradients (got ") +
                       dtype_name(dtype()) + ")");
  if (m == nullptr && !flag) return;
  autograd::autograd_meta(*this).requires_grad = flag;
}

const std::shared_ptr<Node>& Tensor::grad_fn() const {
  if (!impl_) return kNoNode;
  const AutogradMeta* m = impl_->autograd_meta.get();
  return m ? m->grad_fn : kNoNode;
}

uint32_t Tensor::output_nr() const {
  const AutogradMeta* m = impl_ ? impl_->autograd_meta.get() : nullptr;
  return m ? m->output_nr : 0;
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

Tensor Tensor::grad() const {
  if (!impl_) return Tensor();
  AutogradMeta* m = impl_->autograd_meta.get();
  if (!m) return Tensor();
  std::lock_guard<std::mutex> lock(m->mutex);
  return m->grad;
}

void Tensor::set_grad(Tensor g) {
  check_defined("grad");
  if (g.defined()) {
    if (g.sizes() != sizes())
      throw RuntimeError("assigned grad has data of a different size: grad shape " +
                         shape_str(g.sizes()) + ", tensor shape " + shape_str(sizes()));
    if (g.dtype() != dtype())
      throw RuntimeError(std::string("assigned grad has data of a different type: grad dtype ") +
                         dtype_name(g.dtype()) + ", tensor dtype " + dtype_name(dtype()));
  }
  if (!g.defined() && !impl_->autograd_meta) return;
  AutogradMeta& m = autograd::autograd_meta(*this);
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    std::swap(m.grad, g);
  }
  // the previous grad (now in g) is released here, outside the lock
}

namespace autograd {

AutogradMeta& autograd_meta(const Tensor& t) {
  TensorImpl* impl = t.unsafe_impl();
  if (!impl->autograd_meta)
    impl->autograd_meta = std::allocate_shared<AutogradMeta>(SmallAlloc<AutogradMeta>());
  return *impl->autograd_meta;
}

std::shared_ptr<AutogradMeta> autograd_meta_shared(const Tensor& t) {
  autograd_meta(t);
  return t.unsafe_impl()->autograd_meta;
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  AutogradMeta& m = autograd_meta(leaf);
  std::lock_guard<std::mutex> lock(m.mutex);
  if (auto acc = m.grad_accumulator.lock()) return acc;
  auto acc = make_node<AccumulateGrad>(leaf);
  acc->add_input_metadata(leaf);
  acc->set_output_metadata(0, leaf);
  m.grad_accumulator = acc;
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined() || !t.requires_grad()) return Edge();
  if (const auto& fn = t.grad_fn()) return Edge(fn, t.output_nr());
  return Edge(grad_accumulator(t), 0);
}

Tensor detach(const Tensor& t) {
  if (!t.defined()) return t;
  return t.view(t.sizes(), t.strides(), t.offset());
}

void retain_grad(const Tensor& t) {
  if (!t.requires_grad())
    throw RuntimeError("can't retain_grad on Tensor that has requires_grad=False");
  if (t.is_leaf()) return;  // leaves always keep their grad
  auto meta = autograd_meta_shared(t);
  if (meta->retains_grad) return;
  meta->retains_grad = true;
  meta->grad_fn->add_retains_grad(meta->output_nr, meta);
}

bool retains_grad(const Tensor& t) {
  const AutogradMeta* m = t.defined() ? autograd_meta_or_null(t) : nullptr;
  return m != nullptr && m->retains_grad;
}

uint64_t register_hook(const Tensor& t, TensorHook hook) {
  if (!t.requires_grad())
    throw RuntimeError("cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& m = autograd_meta(t);
  if (m.grad_fn) return m.grad_fn->add_tensor_pre_hook(m.output_nr, std::move(hook));
  uint64_t id = next_hook_id();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.hooks.push_back({id, std::move(hook)});
  return id;
}

bool remove_hook(const Tensor& t, uint64_t id) {
  AutogradMeta* m = autograd_meta_or_null(t);
  return m != nullptr && remove_hook(*m, id);
}

uint64_t register_post_accumulate_grad_hook(const Tensor& t,
                                            std::function<void(const Tensor&)> hook) {
  if (!t.requires_grad())
    throw RuntimeError("cannot register a hook on a tensor that doesn't require gradient");
  if (!t.is_leaf())
    throw RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors");
  AutogradMeta& m = autograd_meta(t);
  uint64_t id = next_hook_id();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.post_acc_hooks.push_back({id, std::move(hook)});
  return id;
}

bool remove_hook(AutogradMeta& m, uint64_t id) {
  if (m.grad_fn && m.grad_fn->remove_hook(id)) return true;
  TensorHook dead;  // destroyed after the lock is dropped
  std::function<void(const Tensor&)> dead_post;
  std::lock_guard<std::mutex> lock(m.mutex);
  for (auto it = m.post_acc_hooks.begin(); it != m.post_acc_hooks.end(); ++it) {
    if (it->first == id) {
      dead_post = std::move(it->second);
      m.post_acc_hooks.erase(it);
      return true;
    }
  }
  for (auto it = m.hooks.begin(); it != m.hooks.end(); ++it) {
    if (it->first == id) {
      dead = std::move(it->second);
      m.hooks.erase(it);
      return true;
    }
  }
  return false;
}

namespace {

// A grad we may keep as `.grad` without copying: nothing else can see its memory.
bool can_steal(const Tensor& g) {
  const auto& storage = g.storage();
  return g.impl().use_count() == 1 && storage.use_count() == 1 && !storage->owner &&
         g.is_contiguous() && g.offset() == 0 &&
         static_cast<size_t>(g.numel()) * g.itemsize() == storage->nbytes;
}

// .grad can take the sum in place: it has no history, its memory is writable and not expanded
// (several elements sharing memory), and the sum has its shape (Note [In-place accumulation]).
bool can_add_in_place(const Tensor& grad, const Tensor& g) {
  if (grad.requires_grad() || grad.storage()->read_only || grad.sizes() != g.sizes()) return false;
  for (int64_t d = 0; d < grad.dim(); ++d)
    if (grad.strides()[d] == 0 && grad.sizes()[d] > 1) return false;
  return true;
}

}  // namespace

void accumulate_into_grad(AutogradMeta& meta, Tensor g) {
  if (!g.defined()) return;
  Tensor old;  // the replaced grad, released after the lock is dropped
  if (GradMode::is_enabled()) {
    // create_graph: the accumulated grad keeps its history.
    Tensor cur;
    {
      std::lock_guard<std::mutex> lock(meta.mutex);
      cur = meta.grad;
    }
    Tensor next = cur.defined() ? grad_add(cur, g) : g;
    std::lock_guard<std::mutex> lock(meta.mutex);
    old = std::move(meta.grad);
    meta.grad = std::move(next);
    return;
  }
  std::lock_guard<std::mutex> lock(meta.mutex);
  if (!meta.grad.defined()) {
    meta.grad = can_steal(g) ? detach(g) : kernel::clone(g);
  } else if (can_add_in_place(meta.grad, g)) {
    // Note [In-place accumulation]: as torch's AccumulateGrad (and the reference engine), a
    // later backward adds into the existing .grad, so `g = x.grad` sees the new sum and no
    // buffer is allocated for .grad per step. The version counter records the write.
    Tensor sum = kernel::add(meta.grad, g);
    kernel::detail::copy_into(meta.grad, sum);
    meta.grad.bump_version();
  } else {
    Tensor sum = kernel::add(meta.grad, g);
    old = std::move(meta.grad);
    meta.grad = std::move(sum);
  }
}

}  // namespace autograd
}  // namespace tg
