// diagonal (a view, as torch: the two dims are removed and the diagonal becomes the last dim)
// and diagonal_scatter (a copy of x with that diagonal replaced by source).
#include <algorithm>

#include "kernels/kernels.h"
#include "kernels/loops.h"

namespace tg::kernel {
using namespace detail;

Tensor diagonal(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
  x.check_defined("diagonal");
  if (x.dim() < 2)
    throw ValueError("diagonal: expected a tensor of at least 2 dims, got shape " +
                     shape_str(x.sizes()));
  int64_t d1 = wrap_dim(dim1, x.dim(), x.sizes()), d2 = wrap_dim(dim2, x.dim(), x.sizes());
  if (d1 == d2)
    throw ValueError("diagonal dimensions cannot be identical " + std::to_string(dim1) + ", " +
                     std::to_string(dim2));
  int64_t s1 = x.sizes()[d1], s2 = x.sizes()[d2];
  int64_t length = offset >= 0 ? std::min(s1, s2 - offset) : std::min(s1 + offset, s2);
  length = std::max<int64_t>(length, 0);
  int64_t start = x.offset();
  if (length > 0) start += offset >= 0 ? offset * x.strides()[d2] : -offset * x.strides()[d1];
  Shape sizes, strides;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(x.sizes()[d]);
    strides.push_back(x.strides()[d]);
  }
  sizes.push_back(length);
  strides.push_back(x.strides()[d1] + x.strides()[d2]);
  return x.view(std::move(sizes), std::move(strides), start);
}

Tensor diagonal_scatter(const Tensor& x, const Tensor& source, int64_t offset, int64_t dim1,
                        int64_t dim2) {
  x.check_defined("diagonal_scatter");
  source.check_defined("diagonal_scatter");
  Tensor out = clone(x);
  Tensor diag = diagonal(out, offset, dim1, dim2);
  if (source.sizes() != diag.sizes())
    throw ValueError("diagonal_scatter: source has shape " + shape_str(source.sizes()) +
                     ", expected " + shape_str(diag.sizes()) + " (the diagonal of x " +
                     shape_str(x.sizes()) + ")");
  if (source.dtype() != x.dtype())
    throw TypeError(std::string("diagonal_scatter: source has dtype ") +
                    dtype_name(source.dtype()) + ", x has " + dtype_name(x.dtype()));
  copy_into(diag, source);
  return out;
}

}  // namespace tg::kernel
