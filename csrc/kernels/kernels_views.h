// View kernels for autograd (issue 4): the "views for autograd" section of
// translator/signatures.py, in its order (included at the end of kernels.h). Implemented in
// diagonal.cpp. diagonal is a view (shares storage and version); diagonal_scatter copies.
#pragma once

#include <cstdint>

#include "tensor/tensor.h"

namespace tg::kernel {

Tensor diagonal(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2);
Tensor diagonal_scatter(const Tensor& x, const Tensor& source, int64_t offset, int64_t dim1,
                        int64_t dim2);

}  // namespace tg::kernel
