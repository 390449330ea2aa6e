// The raw kernels: exactly one function per entry of translator/signatures.py, in its order,
// with the type mapping of docs/ARCHITECTURE.md. They follow Note [Kernel conventions] in
// signatures.py: no autograd, inputs never mutated, broadcasting and dtype promotion
// (bool < int64 < float32 < float64), negative dims, errors as tg::ValueError/IndexError/TypeError.
// Every kernel returns a fresh Tensor handle (never its input's handle); view kernels share
// their input's storage.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "tensor/tensor.h"

namespace tg::kernel {

// elementwise unary (floating; int64/bool inputs compute in float64, except abs/neg/sign/relu/
// clamp which keep int64)
Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor expm1(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tan(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor sign(const Tensor& x);
Tensor erf(const Tensor& x);
Tensor pow_scalar(const Tensor& x, double exponent);
Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max);
Tensor cast(const Tensor& x, DType dtype);

// elementwise binary, broadcasting
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor logical_not(const Tensor& x);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

// creation
Tensor full(const Shape& shape, double value, DType dtype);
Tensor zeros_like(const Tensor& x);
Tensor ones_like(const Tensor& x);
Tensor scalar_like(const Tensor& x, double value);

// reductions
Tensor sum(const Tensor& x, const Shape& dims, bool keepdim);
Tensor amax(const Tensor& x, const Shape& dims, bool keepdim);
Tensor amin(const Tensor& x, const Shape& dims, bool keepdim);
std::tuple<Tensor, Tensor> max_dim(const Tensor& x, int64_t dim, bool keepdim);
std::tuple<Tensor, Tensor> min_dim(const Tensor& x, int64_t dim, bool keepdim);
Tensor logsumexp(const Tensor& x, const Shape& dims, bool keepdim);
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);
Tensor sum_to(const Tensor& x, const Shape& shape);

// shape and views
Tensor reshape(const Tensor& x, const Shape& shape);
Tensor expand(const Tensor& x, const Shape& shape);
Tensor permute(const Tensor& x, const Shape& dims);
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);
Tensor unsqueeze(const Tensor& x, int64_t dim);
Tensor squeeze(const Tensor& x, const Shape& dims);
Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step);
Tensor select(const Tensor& x, int64_t dim, int64_t index);
Tensor contiguous(const Tensor& x);
Tensor clone(const Tensor& x);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim);

// indexing (index tensors are int64; negative entries wrap; out of range raises IndexError)
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source);
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source);
Tensor slice_scatter(const Tensor& x, const Tensor& source, int64_t dim,
                     std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step);
Tensor select_scatter(const Tensor& x, const Tensor& source, int64_t dim, int64_t index);

// linear algebra (>= 2-D operands, batch dims broadcast; through BLAS)
Tensor matmul(const Tensor& a, const Tensor& b);

// reading data
double item(const Tensor& x);

}  // namespace tg::kernel
#include "kernels/kernels_nn.h"  // the neural-network section of signatures.py (appended last)
#include "kernels/kernels_views.h"  // the views-for-autograd section of signatures.py
#include "kernels/kernels_special.h"  // torch derivative-table section of signatures.py (issue 15)
