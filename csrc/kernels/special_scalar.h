// Scalar special functions (special.cpp), double precision; the float32 kernels in pointwise.cpp
// round the result.
#pragma once

#include <cstdint>

namespace tg::kernel::detail {

double erfinv_scalar(double y);
double digamma_scalar(double x);
double polygamma_scalar(int64_t n, double x);

}  // namespace tg::kernel::detail
