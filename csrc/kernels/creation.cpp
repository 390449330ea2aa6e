// Creation kernels (full, zeros_like, ones_like, scalar_like) and item.
#include <algorithm>
#include <cmath>

#include "kernels/kernels.h"
#include "kernels/loops.h"

namespace tg::kernel {

namespace {
void fill(const Tensor& out, double value) {
  dispatch_all(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v;
    if constexpr (std::is_same_v<T, bool>) v = value != 0.0;
    else v = static_cast<T>(value);
    T* p = out.data<T>();
    parallel_for(out.numel(), kGrainCheap * 2, [&](int64_t b, int64_t e) { std::fill(p + b, p + e, v); });
  });
}
}  // namespace

Tensor full(const Shape& shape, double value, DType dtype) {
  Tensor out = Tensor::empty(shape, dtype);
  fill(out, value);
  return out;
}

Tensor zeros_like(const Tensor& x) {
  x.check_defined("zeros_like");
  Tensor out = Tensor::empty(x.sizes(), x.dtype());
  std::memset(out.data_ptr(), 0, static_cast<size_t>(out.numel()) * out.itemsize());
  return out;
}

Tensor ones_like(const Tensor& x) {
  x.check_defined("ones_like");
  return full(x.sizes(), 1.0, x.dtype());
}

Tensor scalar_like(const Tensor& x, double value) {
  x.check_defined("scalar_like");
  DType d = x.dtype();
  if (!is_floating(d)) d = (std::isfinite(value) && value == std::floor(value)) ? DType::Int64 : DType::Float64;
  Tensor out = Tensor::empty(Shape{}, d);
  switch (d) {
    case DType::Float32: *out.data<float>() = static_cast<float>(value); break;
    case DType::Float64: *out.data<double>() = value; break;
    default: *out.data<int64_t>() = static_cast<int64_t>(value); break;
  }
  return out;
}

double item(const Tensor& x) {
  x.check_defined("item");
  if (x.numel() != 1)
    throw ValueError("item: a tensor with " + std::to_string(x.numel()) + " elements (shape " +
                     shape_str(x.sizes()) + ") cannot be converted to a Python number");
  return dispatch_all(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return static_cast<double>(*x.data<T>());
  });
}

}  // namespace tg::kernel
