// Dense linear algebra through LAPACK (the scipy-openblas32 wheel, symbols prefixed scipy_:
// Note [BLAS symbols] in linalg.cpp): det, slogdet, inverse and solve of square matrices with
// batch dims. Matrices are copied into column-major double buffers (float32 is computed in
// double and rounded back); a singular matrix makes inverse and solve raise torch's error.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/loops.h"
#include "tensor/iter.h"

#ifdef TG_CBLAS_UNPREFIXED
#define TG_LAPACK(name) name##_
#else
#define TG_LAPACK(name) scipy_##name##_
#endif

extern "C" {
void TG_LAPACK(dgetrf)(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void TG_LAPACK(dgesv)(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b,
                      const int* ldb, int* info);
}

namespace tg::kernel {
using namespace detail;

namespace {

// x as a batch of n x n matrices: the batch shape, n, and the data as contiguous doubles.
struct Batch {
  Shape batch;
  int64_t count, n;
  Tensor data;  // contiguous float64, shape batch + (n, n)
};
Batch square_batch(const Tensor& x, const char* name) {
  x.check_defined(name);
  if (x.dim() < 2)
    throw RuntimeError(std::string(name) + ": The input tensor A must have at least 2 dimensions.");
  const int64_t n = x.sizes()[x.dim() - 1];
  if (x.sizes()[x.dim() - 2] != n)
    throw RuntimeError(std::string(name) + ": A must be batches of square matrices, but they are " +
                       std::to_string(x.sizes()[x.dim() - 2]) + " by " + std::to_string(n) + " matrices");
  if (!is_floating(x.dtype()))
    throw RuntimeError(std::string(name) + ": Expected a floating point tensor as input. Got " + dtype_name(x.dtype()));
  Shape batch(x.sizes().begin(), x.sizes().end() - 2);
  int64_t count = 1;
  for (int64_t s : batch) count *= s;
  return {batch, count, n, contiguous(to_dtype(x, DType::Float64))};
}

// Column-major copy of the row-major n x m matrix at p.
std::vector<double> column_major(const double* p, int64_t n, int64_t m) {
  std::vector<double> out(static_cast<size_t>(n * m));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) out[static_cast<size_t>(i + j * n)] = p[i * m + j];
  return out;
}

int to_int(int64_t v, const char* name) {
  if (v > std::numeric_limits<int>::max()) throw ValueError(std::string(name) + ": matrix too large for LAPACK");
  return static_cast<int>(v);
}

// (sign, log|det|) of one row-major n x n matrix.
std::pair<double, double> slogdet_one(const double* p, int64_t n64) {
  if (n64 == 0) return {1.0, 0.0};
  std::vector<double> a = column_major(p, n64, n64);
  std::vector<int> piv(static_cast<size_t>(n64));
  const int n = to_int(n64, "det");
  int info = 0;
  TG_LAPACK(dgetrf)(&n, &n, a.data(), &n, piv.data(), &info);
  if (info > 0) return {0.0, -std::numeric_limits<double>::infinity()};
  double sign = 1.0, logabs = 0.0;
  for (int i = 0; i < n; ++i) {
    const double d = a[static_cast<size_t>(i + i * n)];
    if (piv[static_cast<size_t>(i)] != i + 1) sign = -sign;
    if (d < 0) sign = -sign;
    logabs += std::log(std::fabs(d));
  }
  return {sign, logabs};
}

}  // namespace

std::tuple<Tensor, Tensor> slogdet(const Tensor& x) {
  Batch b = square_batch(x, "linalg.slogdet");
  Tensor sign = Tensor::empty(b.batch, DType::Float64), logabs = Tensor::empty(b.batch, DType::Float64);
  const double* p = b.data.data<double>();
  for (int64_t k = 0; k < b.count; ++k) {
    auto [s, l] = slogdet_one(p + k * b.n * b.n, b.n);
    sign.data<double>()[k] = s;
    logabs.data<double>()[k] = l;
  }
  return {to_dtype(sign, x.dtype()), to_dtype(logabs, x.dtype())};
}

Tensor det(const Tensor& x) {
  Batch b = square_batch(x, "linalg.det");
  Tensor out = Tensor::empty(b.batch, DType::Float64);
  const double* p = b.data.data<double>();
  for (int64_t k = 0; k < b.count; ++k) {
    auto [s, l] = slogdet_one(p + k * b.n * b.n, b.n);
    out.data<double>()[k] = s * std::exp(l);
  }
  return to_dtype(out, x.dtype());
}

Tensor solve(const Tensor& a, const Tensor& rhs) {
  Batch b = square_batch(a, "linalg.solve");
  rhs.check_defined("linalg.solve");
  if (rhs.dim() < 2 || rhs.sizes()[rhs.dim() - 2] != b.n)
    throw RuntimeError("linalg.solve: Incompatible shapes of A and B for the equation AX = B (" +
                       shape_str(a.sizes()) + " and " + shape_str(rhs.sizes()) + ")");
  const int64_t m = rhs.sizes()[rhs.dim() - 1];
  Shape rbatch(rhs.sizes().begin(), rhs.sizes().end() - 2);
  Shape batch = broadcast_shapes(b.batch, rbatch, "linalg.solve");
  Shape ashape = batch, bshape = batch;
  ashape.push_back(b.n);
  ashape.push_back(b.n);
  bshape.push_back(b.n);
  bshape.push_back(m);
  Tensor av = contiguous(expand(b.data, ashape));
  Tensor bv = contiguous(to_dtype(expand(rhs, bshape), DType::Float64));
  Tensor out = Tensor::empty(bshape, DType::Float64);
  int64_t count = 1;
  for (int64_t s : batch) count *= s;
  const int n = to_int(b.n, "linalg.solve"), nrhs = to_int(m, "linalg.solve");
  for (int64_t k = 0; k < count && b.n > 0; ++k) {
    std::vector<double> ac = column_major(av.data<double>() + k * b.n * b.n, b.n, b.n);
    std::vector<double> bc = column_major(bv.data<double>() + k * b.n * m, b.n, m);
    std::vector<int> piv(static_cast<size_t>(b.n));
    int info = 0;
    const int ldb = n;
    if (m > 0) TG_LAPACK(dgesv)(&n, &nrhs, ac.data(), &n, piv.data(), bc.data(), &ldb, &info);
    else TG_LAPACK(dgetrf)(&n, &n, ac.data(), &n, piv.data(), &info);
    if (info > 0)
      throw RuntimeError("linalg.solve: The solver failed because the input matrix is singular.");
    double* o = out.data<double>() + k * b.n * m;
    for (int64_t i = 0; i < b.n; ++i)
      for (int64_t j = 0; j < m; ++j) o[i * m + j] = bc[static_cast<size_t>(i + j * b.n)];
  }
  return to_dtype(out, promote_types(a.dtype(), rhs.dtype()));
}

Tensor inverse(const Tensor& x) {
  Batch b = square_batch(x, "linalg.inv");
  Shape eye_shape{b.n, b.n};
  Tensor eye = Tensor::empty(eye_shape, DType::Float64);
  for (int64_t i = 0; i < b.n * b.n; ++i) eye.data<double>()[i] = (i % (b.n + 1) == 0) ? 1.0 : 0.0;
  try {
    return to_dtype(solve(x, eye), x.dtype());
  } catch (const RuntimeError&) {
    throw RuntimeError("linalg.inv: The diagonal element is zero, the inversion could not be completed "
                       "because the input matrix is singular.");
  }
}

}  // namespace tg::kernel
