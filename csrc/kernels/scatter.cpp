// scatter (copy, not add) and the masked copies masked_select / masked_scatter of torch's
// derivative table (issue 15). Each reads contiguous copies of its inputs and writes a fresh
// contiguous output, in index (or row-major mask) order, so results are deterministic: a
// position scattered to twice keeps the later write. Errors use torch's words.
#include <string>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/loops.h"
#include "tensor/iter.h"

namespace tg::kernel {
using namespace detail;

namespace {

void check_bool_mask(const Tensor& mask, const char* name) {
  mask.check_defined(name);
  if (mask.dtype() != DType::Bool)
    throw RuntimeError(std::string(name) + ": expected BoolTensor for mask");
}

}  // namespace

Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source) {
  x.check_defined("scatter");
  source.check_defined("scatter");
  index.check_defined("scatter");
  if (index.dtype() != DType::Int64)
    throw RuntimeError(std::string("scatter(): Expected dtype int64 for index, got ") +
                       dtype_name(index.dtype()));
  const int64_t nd = x.dim();
  if (index.dim() != nd || source.dim() != nd)
    throw RuntimeError("Index tensor must have the same number of dimensions as self tensor");
  const int64_t d = wrap_dim(dim, nd, x.sizes());
  for (int64_t i = 0; i < nd; ++i)
    if ((i != d && index.sizes()[i] > x.sizes()[i]) || index.sizes()[i] > source.sizes()[i])
      throw RuntimeError("Expected index " + shape_str(index.sizes()) +
                         " to be no larger than self " + shape_str(x.sizes()) +
                         " apart from dimension " + std::to_string(d) +
                         " and to be no larger size than src " + shape_str(source.sizes()));
  Tensor out = contiguous(clone(x));
  Tensor ix = contiguous(index);
  Tensor src = contiguous(to_dtype(source, x.dtype()));
  const Shape xs = contiguous_strides(x.sizes()), ss = contiguous_strides(source.sizes());
  const int64_t size = nd == 0 ? 1 : x.sizes()[d];
  dispatch_storage(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.data<T>();
    const T* sp = src.data<T>();
    const int64_t* ip = ix.data<int64_t>();
    std::vector<int64_t> at(static_cast<size_t>(nd), 0);  // multi-index into index
    for (int64_t k = 0; k < ix.numel(); ++k) {
      int64_t v = ip[k];
      if (v < -size || v >= size)
        throw IndexError("index " + std::to_string(v) + " is out of bounds for dimension " +
                         std::to_string(d) + " with size " + std::to_string(size));
      if (v < 0) v += size;
      int64_t xo = 0, so = 0;
      for (int64_t i = 0; i < nd; ++i) {
        xo += (i == d ? v : at[i]) * xs[i];
        so += at[i] * ss[i];
      }
      o[xo] = sp[so];
      for (int64_t i = nd - 1; i >= 0; --i) {  // next multi-index
        if (++at[i] < index.sizes()[i]) break;
        at[i] = 0;
      }
    }
  });
  return out;
}

Tensor masked_select(const Tensor& x, const Tensor& mask) {
  x.check_defined("masked_select");
  check_bool_mask(mask, "masked_select");
  const Shape shape = broadcast_shapes(x.sizes(), mask.sizes(), "masked_select");
  Tensor xv = contiguous(expand(x, shape)), mv = contiguous(expand(mask, shape));
  const bool* m = mv.data<bool>();
  int64_t count = 0;
  for (int64_t i = 0; i < mv.numel(); ++i) count += m[i];
  Tensor out = Tensor::empty(Shape{count}, x.dtype());
  dispatch_storage(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = xv.data<T>();
    T* o = out.data<T>();
    for (int64_t i = 0, j = 0; i < mv.numel(); ++i)
      if (m[i]) o[j++] = in[i];
  });
  return out;
}

Tensor masked_scatter(const Tensor& x, const Tensor& mask, const Tensor& source) {
  x.check_defined("masked_scatter");
  source.check_defined("masked_scatter");
  check_bool_mask(mask, "masked_scatter");
  Tensor mv = contiguous(expand(mask, x.sizes()));
  const bool* m = mv.data<bool>();
  int64_t count = 0;
  for (int64_t i = 0; i < mv.numel(); ++i) count += m[i];
  if (count > source.numel())
    throw RuntimeError("Number of elements of source < number of ones in mask");
  Tensor out = contiguous(clone(x));
  Tensor src = contiguous(to_dtype(source, x.dtype()));
  dispatch_storage(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* sp = src.data<T>();
    T* o = out.data<T>();
    for (int64_t i = 0, j = 0; i < mv.numel(); ++i)
      if (m[i]) o[i] = sp[j++];
  });
  return out;
}

}  // namespace tg::kernel
