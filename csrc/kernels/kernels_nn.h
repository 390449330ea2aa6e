// Neural-network kernels: the last section of translator/signatures.py, in its order (included
// at the end of kernels.h). Implemented in conv.cpp (im2col, col2im), pool.cpp (max_pool2d,
// adaptive_pool_weights) and nn_misc.cpp (cumsum, flip, tril, triu, pad, sort, topk), following
// Note [Window geometry] (python/transgrad/reference/kernels_nn.py) so both engines agree exactly.
#pragma once

#include <cstdint>
#include <tuple>

#include "tensor/tensor.h"

namespace tg::kernel {

Tensor im2col(const Tensor& x, const Shape& kernel_size, const Shape& stride, const Shape& padding,
              const Shape& dilation);
Tensor col2im(const Tensor& cols, const Shape& input_size, const Shape& kernel_size, const Shape& stride,
              const Shape& padding, const Shape& dilation);
std::tuple<Tensor, Tensor> max_pool2d(const Tensor& x, const Shape& kernel_size, const Shape& stride,
                                      const Shape& padding, const Shape& dilation);
Tensor adaptive_pool_weights(const Tensor& x, int64_t in_size, int64_t out_size);
Tensor cumsum(const Tensor& x, int64_t dim);
Tensor flip(const Tensor& x, const Shape& dims);
Tensor tril(const Tensor& x, int64_t diagonal);
Tensor triu(const Tensor& x, int64_t diagonal);
Tensor pad(const Tensor& x, const Shape& pads, double value);
std::tuple<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending);
std::tuple<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest);

namespace detail {

// Checked window geometry of one 2-D sweep (Note [Window geometry]).
struct Window2d {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
};
Window2d window2d(const char* name, int64_t h, int64_t w, const Shape& kernel_size, const Shape& stride,
                  const Shape& padding, const Shape& dilation);

}  // namespace detail
}  // namespace tg::kernel
