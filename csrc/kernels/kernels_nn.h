// Neural-network kernels (their section of translator/signatures.py; declared in the generated
// kernel_decls.h, which kernels.h includes with this file): their shared window geometry.
// Implemented in conv.cpp (im2col, col2im), pool.cpp (max_pool2d, adaptive_pool_weights) and
// nn_misc.cpp (cumsum, flip, tril, triu, pad, sort, topk), following
// Note [Window geometry] (python/transgrad/reference/kernels_nn.py) so both engines agree exactly.
#pragma once

#include <cstdint>
#include <tuple>

#include "tensor/tensor.h"

namespace tg::kernel {

namespace detail {

// Checked window geometry of one 2-D sweep (Note [Window geometry]).
struct Window2d {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
};
Window2d window2d(const char* name, int64_t h, int64_t w, const Shape& kernel_size,
                  const Shape& stride, const Shape& padding, const Shape& dilation);

}  // namespace detail
}  // namespace tg::kernel
