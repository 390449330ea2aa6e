// Creation kernels (full, zeros_like, ones_like, scalar_like) and item.
#include <algorithm>
#include <cmath>

#include "kernels/kernels.h"
#include "kernels/loops.h"

namespace tg::kernel {

namespace {
void fill(const Tensor& out, double value) {
  dispatch_storage(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = convert_element<T, double>(value);
    T* p = out.data<T>();
    parallel_for(out.numel(), kGrainCheap * 2,
                 [&](int64_t b, int64_t e) { std::fill(p + b, p + e, v); });
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
  // A wrapped number (Note [Type promotion] in transgrad/_dtypes.py): x's compute dtype when x
  // is floating (float32 for float16/bfloat16: the value is not rounded to half first); next to
  // an integer or bool tensor int64 for an integral value, else the default dtype.
  DType d = x.dtype();
  if (is_floating(d))
    d = compute_dtype(d);
  else
    d = (std::isfinite(value) && value == std::floor(value)) ? DType::Int64 : default_dtype();
  Tensor out = Tensor::empty(Shape{}, d);
  dispatch_storage(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    *out.data<T>() = convert_element<T, double>(value);
  });
  out.set_wrapped_number(true);
  return out;
}

double item(const Tensor& x) {
  x.check_defined("item");
  if (x.numel() != 1)
    throw ValueError("item: a tensor with " + std::to_string(x.numel()) + " elements (shape " +
                     shape_str(x.sizes()) + ") cannot be converted to a Python number");
  return dispatch_storage(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return convert_element<double, T>(*x.data<T>());
  });
}

}  // namespace tg::kernel
