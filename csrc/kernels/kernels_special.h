// Kernels of torch's derivative table (issue 15): the last section of translator/signatures.py,
// in its order (included at the end of kernels.h). Implemented in pointwise.cpp (libm functions,
// nan_to_num, the rounding divisions), special.cpp (erfinv, digamma, polygamma) and scan.cpp
// (prod, cumprod, logcumsumexp, cummax, cummin) and scatter.cpp (scatter, masked_select,
// masked_scatter) and lapack.cpp (det, slogdet, inverse, solve); numpy twins
// in python/transgrad/reference/kernels_special.py. Until signatures.py generates declarations,
// this header and csrc/python/bind_kernels_special.cpp are written by hand.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "tensor/tensor.h"

namespace tg::kernel {

Tensor sinh(const Tensor& x);
Tensor cosh(const Tensor& x);
Tensor asinh(const Tensor& x);
Tensor acosh(const Tensor& x);
Tensor atanh(const Tensor& x);
Tensor asin(const Tensor& x);
Tensor acos(const Tensor& x);
Tensor atan(const Tensor& x);
Tensor exp2(const Tensor& x);
Tensor erfc(const Tensor& x);
Tensor erfinv(const Tensor& x);
Tensor lgamma(const Tensor& x);
Tensor digamma(const Tensor& x);
Tensor polygamma(int64_t n, const Tensor& x);
Tensor trunc(const Tensor& x);
Tensor nan_to_num(const Tensor& x, double nan, std::optional<double> posinf, std::optional<double> neginf);
Tensor atan2(const Tensor& a, const Tensor& b);
Tensor hypot(const Tensor& a, const Tensor& b);
Tensor fmod(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor trunc_divide(const Tensor& a, const Tensor& b);
Tensor prod(const Tensor& x, const Shape& dims, bool keepdim);
Tensor cumprod(const Tensor& x, int64_t dim);
Tensor logcumsumexp(const Tensor& x, int64_t dim);
std::tuple<Tensor, Tensor> cummax(const Tensor& x, int64_t dim);
std::tuple<Tensor, Tensor> cummin(const Tensor& x, int64_t dim);
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source);
Tensor masked_select(const Tensor& x, const Tensor& mask);
Tensor masked_scatter(const Tensor& x, const Tensor& mask, const Tensor& source);
Tensor det(const Tensor& x);
std::tuple<Tensor, Tensor> slogdet(const Tensor& x);
Tensor inverse(const Tensor& x);
Tensor solve(const Tensor& a, const Tensor& b);

namespace detail {
// Scalar special functions (special.cpp), double precision; float32 kernels round the result.
double erfinv_scalar(double y);
double digamma_scalar(double x);
double polygamma_scalar(int64_t n, double x);
}  // namespace detail

}  // namespace tg::kernel
