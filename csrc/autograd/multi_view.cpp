#include "autograd/multi_view.h"

#include <memory>
#include <utility>

#include "autograd/function.h"
#include "autograd/grad_mode.h"
#include "ops.h"
#include "tensor/errors.h"

namespace tg::autograd {

namespace {

// Note [Several views, one node]
struct MultiViewBackward final : Node {
  int64_t dim_ = 0;
  bool unbind_ = false;
  std::string name_;
  std::string name() const override { return name_; }
  variable_list apply(variable_list&& grads) override {
    bool any = false;
    for (const Tensor& g : grads) any = any || g.defined();
    if (!any) return {Tensor()};
    std::vector<Tensor> parts;
    parts.reserve(grads.size());
    for (uint32_t i = 0; i < grads.size(); ++i) parts.push_back(materialize_grad(grads, i));
    return {unbind_ ? ops::stack(parts, dim_) : ops::cat(parts, dim_)};
  }
};

}  // namespace

std::vector<Tensor> views_along(const Tensor& x, int64_t dim, const std::vector<int64_t>& sizes,
                                const std::string& kind) {
  const int64_t nd = static_cast<int64_t>(x.sizes().size());
  if (dim < -nd || dim >= (nd > 0 ? nd : 1))
    throw IndexError("Dimension out of range (expected to be in range of [" + std::to_string(-nd) +
                     ", " + std::to_string(nd - 1) + "], but got " + std::to_string(dim) + ")");
  if (dim < 0) dim += nd;
  const bool unbind = kind == "unbind";
  std::vector<Tensor> out;
  out.reserve(sizes.size());
  {
    NoGradGuard no_grad;
    int64_t start = 0;
    for (int64_t s : sizes) {
      out.push_back(unbind ? kernel::select(x, dim, start)
                           : kernel::slice(x, dim, start, start + s, 1));
      start += s;
    }
  }
  if (any_requires_grad({&x})) {
    auto node = make_node<MultiViewBackward>();
    node->dim_ = dim;
    node->unbind_ = unbind;
    node->name_ = unbind            ? "UnbindBackward0"
                  : kind == "split" ? "SplitBackward0"
                                    : "SplitWithSizesBackward0";
    collect_next_edges(*node, x);
    for (uint32_t i = 0; i < out.size(); ++i) set_history(out[i], node, i);
  }
  return out;
}

}  // namespace tg::autograd
