#include "tensor/iter.h"

namespace tg {

// Checked from the last dim, with torch's words (at::infer_size), so the mismatch reported is
// the one torch reports.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char*) {
  if (a == b) return a;
  size_t n = a.size() > b.size() ? a.size() : b.size();
  Shape out(n);
  for (size_t i = n; i-- > 0;) {
    int64_t sa = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t sb = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (sa == sb || sb == 1) {
      out[i] = sa;
    } else if (sa == 1) {
      out[i] = sb;
    } else {
      throw RuntimeError("The size of tensor a (" + std::to_string(sa) +
                         ") must match the size of tensor b (" + std::to_string(sb) +
                         ") at non-singleton dimension " + std::to_string(i));
    }
  }
  return out;
}

void build_plan(StridedPlan& p, const Shape& shape, std::initializer_list<const Tensor*> ops) {
  const int ndim = static_cast<int>(shape.size());
  if (ndim > kMaxDims) throw ValueError("tensors with more than 64 dims are not supported");
  p.nops = static_cast<int>(ops.size());
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  p.numel = numel;
  int k = 0;
  for (const Tensor* t : ops) p.base[k++] = static_cast<char*>(t->data_ptr());
  // Walk dims innermost first, dropping size-1 dims and merging linear neighbours.
  int nd = 0;
  for (int d = ndim - 1; d >= 0; --d) {
    int64_t sz = shape[d];
    if (sz == 1) continue;
    int64_t st[kMaxOps];
    k = 0;
    for (const Tensor* t : ops) {
      int tdim = static_cast<int>(t->dim()) - (ndim - d);
      int64_t s = 0;
      if (tdim >= 0 && t->sizes()[tdim] != 1)
        s = t->strides()[tdim] * static_cast<int64_t>(t->itemsize());
      st[k++] = s;
    }
    bool merge = nd > 0;
    for (k = 0; merge && k < p.nops; ++k) merge = st[k] == p.stride[k][nd - 1] * p.size[nd - 1];
    if (merge) {
      p.size[nd - 1] *= sz;
    } else {
      p.size[nd] = sz;
      for (k = 0; k < p.nops; ++k) p.stride[k][nd] = st[k];
      ++nd;
    }
  }
  p.ndim = numel == 0 ? 0 : nd;
  if (numel == 0) p.numel = 0;
}

}  // namespace tg
