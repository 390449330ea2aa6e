// Dense linear algebra through LAPACK (the scipy-openblas32 wheel, symbols prefixed scipy_:
// Note [BLAS symbols] in linalg.cpp): det, slogdet, inverse and solve of square matrices with
// batch dims. Matrices are copied into column-major double buffers (float32 is computed in
// double and rounded back); a singular matrix makes inverse and solve raise torch's error.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/blas.h"
#include "kernels/kernels.h"
#include "kernels/loops.h"
#include "tensor/iter.h"

// A LAPACK call inside a blas::Section (Note [Threads at exit] in csrc/python/common.h): the
// temporary lives to the end of the call's full expression.
#define TG_LAPACK_CALL(name) (::tg::kernel::blas::Section{}, TG_LAPACK(name))

#ifdef TG_CBLAS_UNPREFIXED
#define TG_LAPACK(name) name##_
#else
#define TG_LAPACK(name) scipy_##name##_
#endif

extern "C" {
void TG_LAPACK(dgetrf)(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void TG_LAPACK(dgesv)(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv,
                      double* b, const int* ldb, int* info);
void TG_LAPACK(dpotrf)(const char* uplo, const int* n, double* a, const int* lda, int* info);
void TG_LAPACK(dtrsm)(const char* side, const char* uplo, const char* transa, const char* diag,
                      const int* m, const int* n, const double* alpha, const double* a,
                      const int* lda, double* b, const int* ldb);
void TG_LAPACK(dsyevd)(const char* jobz, const char* uplo, const int* n, double* a, const int* lda,
                       double* w, double* work, const int* lwork, int* iwork, const int* liwork,
                       int* info);
void TG_LAPACK(dgeqrf)(const int* m, const int* n, double* a, const int* lda, double* tau,
                       double* work, const int* lwork, int* info);
void TG_LAPACK(dorgqr)(const int* m, const int* n, const int* k, double* a, const int* lda,
                       const double* tau, double* work, const int* lwork, int* info);
void TG_LAPACK(dgesdd)(const char* jobz, const int* m, const int* n, double* a, const int* lda,
                       double* s, double* u, const int* ldu, double* vt, const int* ldvt,
                       double* work, const int* lwork, int* iwork, int* info);
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
                       std::to_string(x.sizes()[x.dim() - 2]) + " by " + std::to_string(n) +
                       " matrices");
  if (!is_floating(x.dtype()))
    throw RuntimeError(std::string(name) + ": Expected a floating point tensor as input. Got " +
                       dtype_name(x.dtype()));
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
  if (v > std::numeric_limits<int>::max())
    throw ValueError(std::string(name) + ": matrix too large for LAPACK");
  return static_cast<int>(v);
}

// (sign, log|det|) of one row-major n x n matrix.
std::pair<double, double> slogdet_one(const double* p, int64_t n64) {
  if (n64 == 0) return {1.0, 0.0};
  std::vector<double> a = column_major(p, n64, n64);
  std::vector<int> piv(static_cast<size_t>(n64));
  const int n = to_int(n64, "det");
  int info = 0;
  TG_LAPACK_CALL(dgetrf)(&n, &n, a.data(), &n, piv.data(), &info);
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
  Tensor sign = Tensor::empty(b.batch, DType::Float64),
         logabs = Tensor::empty(b.batch, DType::Float64);
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

namespace {

// solve's body; ``inverting`` words a singular matrix as inv does (torch's two messages).
Tensor solve_impl(const Tensor& a, const Tensor& rhs, bool inverting) {
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
    if (m > 0)
      TG_LAPACK_CALL(dgesv)(&n, &nrhs, ac.data(), &n, piv.data(), bc.data(), &ldb, &info);
    else
      TG_LAPACK_CALL(dgetrf)(&n, &n, ac.data(), &n, piv.data(), &info);
    if (info > 0) {
      const std::string where = batch.empty() ? "" : "(Batch element " + std::to_string(k) + "): ";
      if (inverting)  // torch's inv reports getrf's zero pivot (dgesv's info is the same)
        throw LinAlgError("linalg.inv: " + where + "The diagonal element " + std::to_string(info) +
                          " is zero, the inversion could not be completed because the input "
                          "matrix is singular.");
      throw LinAlgError("torch.linalg.solve: " + where +
                        "The solver failed because the input matrix is singular.");
    }
    double* o = out.data<double>() + k * b.n * m;
    for (int64_t i = 0; i < b.n; ++i)
      for (int64_t j = 0; j < m; ++j) o[i * m + j] = bc[static_cast<size_t>(i + j * b.n)];
  }
  return to_dtype(out, promote_types(a.dtype(), rhs.dtype()));
}

}  // namespace

Tensor solve(const Tensor& a, const Tensor& rhs) { return solve_impl(a, rhs, false); }

Tensor inverse(const Tensor& x) {
  Batch b = square_batch(x, "linalg.inv");
  Shape eye_shape{b.n, b.n};
  Tensor eye = Tensor::empty(eye_shape, DType::Float64);
  for (int64_t i = 0; i < b.n * b.n; ++i) eye.data<double>()[i] = (i % (b.n + 1) == 0) ? 1.0 : 0.0;
  return to_dtype(solve_impl(x, eye, /*inverting=*/true), x.dtype());
}

}  // namespace tg::kernel

// ---------------------------------------------------------------------------------------------
// Factorisations (issue 15): cholesky, triangular solves, eigh, qr, svd. Each matrix of the batch
// goes through a column-major double copy (as above); results come back row-major in x's dtype.

namespace tg::kernel {
using namespace detail;

namespace {

// x as a batch of m x n matrices (any m, n): batch shape, count, and contiguous float64 data.
struct Rect {
  Shape batch;
  int64_t count, m, n;
  Tensor data;
};
Rect matrix_batch(const Tensor& x, const char* name) {
  x.check_defined(name);
  if (x.dim() < 2)
    throw RuntimeError(std::string(name) + ": The input tensor A must have at least 2 dimensions.");
  if (!is_floating(x.dtype()))
    throw RuntimeError(std::string(name) + ": Expected a floating point tensor as input. Got " +
                       dtype_name(x.dtype()));
  Shape batch(x.sizes().begin(), x.sizes().end() - 2);
  int64_t count = 1;
  for (int64_t s : batch) count *= s;
  return {batch, count, x.sizes()[x.dim() - 2], x.sizes()[x.dim() - 1],
          contiguous(to_dtype(x, DType::Float64))};
}

Shape with_matrix(Shape batch, int64_t rows, int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

// The column-major rows x cols matrix c (leading dimension ld) written row-major to out.
void row_major(const double* c, int64_t rows, int64_t cols, int64_t ld, double* out) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) out[i * cols + j] = c[i + j * ld];
}

}  // namespace

Tensor cholesky(const Tensor& x, bool upper) {
  Batch b = square_batch(x, "linalg.cholesky");
  Tensor out = Tensor::empty(with_matrix(b.batch, b.n, b.n), DType::Float64);
  const int n = to_int(b.n, "linalg.cholesky");
  const char uplo = upper ? 'U' : 'L';
  for (int64_t k = 0; k < b.count; ++k) {
    std::vector<double> a = column_major(b.data.data<double>() + k * b.n * b.n, b.n, b.n);
    int info = 0;
    if (n > 0) TG_LAPACK_CALL(dpotrf)(&uplo, &n, a.data(), &n, &info);
    if (info > 0)
      throw LinAlgError(
          "linalg.cholesky: " +
          std::string(b.batch.empty() ? "" : "(Batch element " + std::to_string(k) + "): ") +
          "The factorization could not be completed because the input is not positive-definite "
          "(the leading minor of order " +
          std::to_string(info) + " is not positive-definite).");
    double* o = out.data<double>() + k * b.n * b.n;
    row_major(a.data(), b.n, b.n, b.n, o);
    for (int64_t i = 0; i < b.n; ++i)  // the other triangle holds the input: zero it
      for (int64_t j = 0; j < b.n; ++j)
        if (upper ? j < i : j > i) o[i * b.n + j] = 0.0;
  }
  return to_dtype(out, x.dtype());
}

Tensor solve_triangular(const Tensor& a, const Tensor& rhs, bool upper, bool unitriangular) {
  Batch b = square_batch(a, "linalg.solve_triangular");
  rhs.check_defined("linalg.solve_triangular");
  if (rhs.dim() < 2 || rhs.sizes()[rhs.dim() - 2] != b.n)
    throw RuntimeError(
        "linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B (" +
        shape_str(a.sizes()) + " and " + shape_str(rhs.sizes()) + ")");
  const int64_t m = rhs.sizes()[rhs.dim() - 1];
  Shape rbatch(rhs.sizes().begin(), rhs.sizes().end() - 2);
  Shape batch = broadcast_shapes(b.batch, rbatch, "linalg.solve_triangular");
  Tensor av = contiguous(expand(b.data, with_matrix(batch, b.n, b.n)));
  Tensor bv = contiguous(to_dtype(expand(rhs, with_matrix(batch, b.n, m)), DType::Float64));
  Tensor out = Tensor::empty(with_matrix(batch, b.n, m), DType::Float64);
  int64_t count = 1;
  for (int64_t s : batch) count *= s;
  const int n = to_int(b.n, "linalg.solve_triangular"), nrhs = to_int(m, "linalg.solve_triangular");
  const char side = 'L', uplo = upper ? 'U' : 'L', trans = 'N', diag = unitriangular ? 'U' : 'N';
  const double one = 1.0;
  for (int64_t k = 0; k < count && b.n > 0 && m > 0; ++k) {
    std::vector<double> ac = column_major(av.data<double>() + k * b.n * b.n, b.n, b.n);
    std::vector<double> bc = column_major(bv.data<double>() + k * b.n * m, b.n, m);
    TG_LAPACK_CALL(dtrsm)(&side, &uplo, &trans, &diag, &n, &nrhs, &one, ac.data(), &n, bc.data(),
                          &n);
    row_major(bc.data(), b.n, m, b.n, out.data<double>() + k * b.n * m);
  }
  return to_dtype(out, promote_types(a.dtype(), rhs.dtype()));
}

std::tuple<Tensor, Tensor> eigh(const Tensor& x, bool upper) {
  Batch b = square_batch(x, "linalg.eigh");
  Shape wshape = b.batch;
  wshape.push_back(b.n);
  Tensor w = Tensor::empty(wshape, DType::Float64);
  Tensor v = Tensor::empty(with_matrix(b.batch, b.n, b.n), DType::Float64);
  const int n = to_int(b.n, "linalg.eigh");
  const char jobz = 'V', uplo = upper ? 'U' : 'L';
  for (int64_t k = 0; k < b.count && n > 0; ++k) {
    std::vector<double> a = column_major(b.data.data<double>() + k * b.n * b.n, b.n, b.n);
    double wq = 0;
    int iwq = 0, lwork = -1, liwork = -1, info = 0;
    TG_LAPACK_CALL(dsyevd)(&jobz, &uplo, &n, a.data(), &n, w.data<double>() + k * b.n, &wq, &lwork,
                           &iwq, &liwork, &info);
    lwork = static_cast<int>(wq);
    liwork = iwq;
    std::vector<double> work(static_cast<size_t>(lwork));
    std::vector<int> iwork(static_cast<size_t>(liwork));
    TG_LAPACK_CALL(dsyevd)(&jobz, &uplo, &n, a.data(), &n, w.data<double>() + k * b.n, work.data(),
                           &lwork, iwork.data(), &liwork, &info);
    if (info > 0)
      throw RuntimeError(
          "linalg.eigh: " +
          std::string(b.batch.empty() ? "" : "(Batch element " + std::to_string(k) + "): ") +
          "The algorithm failed to converge because the input matrix is ill-conditioned or has too "
          "many repeated eigenvalues (error code: " +
          std::to_string(info) + ").");
    row_major(a.data(), b.n, b.n, b.n, v.data<double>() + k * b.n * b.n);
  }
  return {to_dtype(w, x.dtype()), to_dtype(v, x.dtype())};
}

std::tuple<Tensor, Tensor> qr(const Tensor& x, bool complete) {
  Rect b = matrix_batch(x, "linalg.qr");
  const int64_t kk = std::min(b.m, b.n), qcols = complete ? b.m : kk;
  Tensor q = Tensor::empty(with_matrix(b.batch, b.m, qcols), DType::Float64);
  Tensor r = Tensor::empty(with_matrix(b.batch, qcols, b.n), DType::Float64);
  const int m = to_int(b.m, "linalg.qr"), n = to_int(b.n, "linalg.qr"), k = static_cast<int>(kk);
  const int qc = static_cast<int>(qcols);
  for (int64_t t = 0; t < b.count; ++t) {
    std::vector<double> a = column_major(b.data.data<double>() + t * b.m * b.n, b.m, b.n);
    double* ro = r.data<double>() + t * qcols * b.n;
    double* qo = q.data<double>() + t * b.m * qcols;
    if (b.m == 0 || b.n == 0) {
      for (int64_t i = 0; i < qcols * b.n; ++i) ro[i] = 0.0;
      for (int64_t i = 0; i < b.m; ++i)
        for (int64_t j = 0; j < qcols; ++j) qo[i * qcols + j] = i == j ? 1.0 : 0.0;
      continue;
    }
    std::vector<double> tau(static_cast<size_t>(kk));
    double wq = 0;
    int lwork = -1, info = 0;
    TG_LAPACK_CALL(dgeqrf)(&m, &n, a.data(), &m, tau.data(), &wq, &lwork, &info);
    lwork = std::max(1, static_cast<int>(wq));
    std::vector<double> work(static_cast<size_t>(lwork));
    TG_LAPACK_CALL(dgeqrf)(&m, &n, a.data(), &m, tau.data(), work.data(), &lwork, &info);
    for (int64_t i = 0; i < qcols; ++i)  // R: the upper triangle of the first qcols rows
      for (int64_t j = 0; j < b.n; ++j)
        ro[i * b.n + j] = (j >= i && i < b.m) ? a[static_cast<size_t>(i + j * b.m)] : 0.0;
    // Q: the reflectors in an m x qcols buffer (the first min(n, qcols) columns of a)
    std::vector<double> qa(static_cast<size_t>(b.m * qcols), 0.0);
    for (int64_t j = 0; j < std::min(b.n, qcols); ++j)
      for (int64_t i = 0; i < b.m; ++i)
        qa[static_cast<size_t>(i + j * b.m)] = a[static_cast<size_t>(i + j * b.m)];
    lwork = -1;
    TG_LAPACK_CALL(dorgqr)(&m, &qc, &k, qa.data(), &m, tau.data(), &wq, &lwork, &info);
    lwork = std::max(1, static_cast<int>(wq));
    work.assign(static_cast<size_t>(lwork), 0.0);
    TG_LAPACK_CALL(dorgqr)(&m, &qc, &k, qa.data(), &m, tau.data(), work.data(), &lwork, &info);
    row_major(qa.data(), b.m, qcols, b.m, qo);
  }
  return {to_dtype(q, x.dtype()), to_dtype(r, x.dtype())};
}

namespace {

// dgesdd on one row-major m x n matrix: s (min(m, n)), and u/vt column-major when jobz != 'N'.
void gesdd_one(const double* p, int64_t m64, int64_t n64, char jobz, double* s,
               std::vector<double>& u, std::vector<double>& vt, int64_t ucols, int64_t vrows) {
  std::vector<double> a = column_major(p, m64, n64);
  const int m = to_int(m64, "linalg.svd"), n = to_int(n64, "linalg.svd");
  const int ldu = std::max(1, m), ldvt = std::max(1, static_cast<int>(vrows));
  u.assign(static_cast<size_t>(std::max<int64_t>(1, m64 * ucols)), 0.0);
  vt.assign(static_cast<size_t>(std::max<int64_t>(1, vrows * n64)), 0.0);
  std::vector<int> iwork(static_cast<size_t>(8 * std::min(m, n) + 1));
  double wq = 0;
  int lwork = -1, info = 0;
  TG_LAPACK_CALL(dgesdd)(&jobz, &m, &n, a.data(), &m, s, u.data(), &ldu, vt.data(), &ldvt, &wq,
                         &lwork, iwork.data(), &info);
  lwork = std::max(1, static_cast<int>(wq));
  std::vector<double> work(static_cast<size_t>(lwork));
  TG_LAPACK_CALL(dgesdd)(&jobz, &m, &n, a.data(), &m, s, u.data(), &ldu, vt.data(), &ldvt,
                         work.data(), &lwork, iwork.data(), &info);
  if (info > 0)
    throw RuntimeError(
        "linalg.svd: The algorithm failed to converge because the input matrix is ill-conditioned "
        "or has too many repeated singular values (error code: " +
        std::to_string(info) + ").");
}

}  // namespace

std::tuple<Tensor, Tensor> svd(const Tensor& x, bool full_matrices) {
  Rect b = matrix_batch(x, "linalg.svd");
  const int64_t kk = std::min(b.m, b.n);
  const int64_t ucols = full_matrices ? b.m : kk, vrows = full_matrices ? b.n : kk;
  Tensor u = Tensor::empty(with_matrix(b.batch, b.m, ucols), DType::Float64);
  Tensor vh = Tensor::empty(with_matrix(b.batch, vrows, b.n), DType::Float64);
  std::vector<double> s(static_cast<size_t>(kk + 1)), uc, vc;
  for (int64_t t = 0; t < b.count; ++t) {
    double* uo = u.data<double>() + t * b.m * ucols;
    double* vo = vh.data<double>() + t * vrows * b.n;
    if (kk == 0) {  // an empty matrix: identities where full_matrices asks for square factors
      for (int64_t i = 0; i < b.m * ucols; ++i) uo[i] = (i % (ucols + 1) == 0) ? 1.0 : 0.0;
      for (int64_t i = 0; i < vrows * b.n; ++i) vo[i] = (i % (b.n + 1) == 0) ? 1.0 : 0.0;
      continue;
    }
    gesdd_one(b.data.data<double>() + t * b.m * b.n, b.m, b.n, full_matrices ? 'A' : 'S', s.data(),
              uc, vc, ucols, vrows);
    row_major(uc.data(), b.m, ucols, b.m, uo);
    row_major(vc.data(), vrows, b.n, vrows, vo);
  }
  return {to_dtype(u, x.dtype()), to_dtype(vh, x.dtype())};
}

Tensor svdvals(const Tensor& x) {
  Rect b = matrix_batch(x, "linalg.svd");
  const int64_t kk = std::min(b.m, b.n);
  Shape sshape = b.batch;
  sshape.push_back(kk);
  Tensor s = Tensor::empty(sshape, DType::Float64);
  std::vector<double> uc, vc;
  for (int64_t t = 0; t < b.count && kk > 0; ++t)
    gesdd_one(b.data.data<double>() + t * b.m * b.n, b.m, b.n, 'N', s.data<double>() + t * kk, uc,
              vc, 1, 1);
  return to_dtype(s, x.dtype());
}

}  // namespace tg::kernel

// ---------------------------------------------------------------------------------------------
// matrix_exp (issue 15): scaling and squaring over a degree-18 Taylor polynomial. The matrix is
// scaled by 2^-s until its 1-norm is at most 1/2, where the truncated series' error
// (0.5^19 / 19!) is far below float64's epsilon, then squared s times.

namespace tg::kernel {
using namespace detail;

namespace {

void square_matmul(const std::vector<double>& a, const std::vector<double>& b,
                   std::vector<double>& out, int64_t n) {
  std::fill(out.begin(), out.end(), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < n; ++k) {
      const double aik = a[static_cast<size_t>(i * n + k)];
      for (int64_t j = 0; j < n; ++j)
        out[static_cast<size_t>(i * n + j)] += aik * b[static_cast<size_t>(k * n + j)];
    }
}

void expm_one(const double* p, int64_t n, double* o) {
  const size_t nn = static_cast<size_t>(n * n);
  double norm = 0.0;  // the 1-norm: the largest column sum of |a|
  for (int64_t j = 0; j < n; ++j) {
    double col = 0.0;
    for (int64_t i = 0; i < n; ++i) col += std::fabs(p[i * n + j]);
    norm = std::max(norm, col);
  }
  int s = 0;
  if (norm > 0.5) s = static_cast<int>(std::ceil(std::log2(norm / 0.5)));
  if (!std::isfinite(norm)) s = 0;  // inf/nan propagate through the series
  const double scale = std::ldexp(1.0, -s);
  std::vector<double> x(nn), e(nn), tmp(nn);
  for (size_t i = 0; i < nn; ++i) x[i] = p[i] * scale;
  // Horner: e = I + x/k (I + x/(k+1) (...)), from k = 18 down to 1
  for (size_t i = 0; i < nn; ++i) e[i] = 0.0;
  for (int64_t i = 0; i < n; ++i) e[static_cast<size_t>(i * n + i)] = 1.0;
  for (int k = 18; k >= 1; --k) {
    square_matmul(x, e, tmp, n);
    for (size_t i = 0; i < nn; ++i) e[i] = tmp[i] / k;
    for (int64_t i = 0; i < n; ++i) e[static_cast<size_t>(i * n + i)] += 1.0;
  }
  for (int i = 0; i < s; ++i) {
    square_matmul(e, e, tmp, n);
    e.swap(tmp);
  }
  for (size_t i = 0; i < nn; ++i) o[i] = e[i];
}

}  // namespace

Tensor matrix_exp(const Tensor& x) {
  Batch b = square_batch(x, "linalg.matrix_exp");
  Tensor out = Tensor::empty(with_matrix(b.batch, b.n, b.n), DType::Float64);
  for (int64_t k = 0; k < b.count && b.n > 0; ++k)
    expm_one(b.data.data<double>() + k * b.n * b.n, b.n, out.data<double>() + k * b.n * b.n);
  return to_dtype(out, x.dtype());
}

}  // namespace tg::kernel

// ---------------------------------------------------------------------------------------------
// LU with partial pivoting (issue 15): lu_factor (getrf: the packed factors and LAPACK's 1-based
// int32 pivots; a zero pivot is no error here, torch's lu_factor_ex reads it as info), lu_solve
// (getrs, batch dims of the factors and of b broadcast) and lu_permutation (the P of A = P L U).

extern "C" {
void TG_LAPACK(dgetrs)(const char* trans, const int* n, const int* nrhs, const double* a,
                       const int* lda, const int* ipiv, double* b, const int* ldb, int* info);
}

namespace tg::kernel {
using namespace detail;

namespace {

// pivots as a contiguous int64 batch of k entries per matrix, checked against m rows.
Tensor pivot_batch(const Tensor& pivots, const char* name) {
  pivots.check_defined(name);
  if (is_floating(pivots.dtype()) || pivots.dtype() == DType::Bool)
    throw RuntimeError(std::string(name) + ": Expected pivots to be an integer tensor, got " +
                       dtype_name(pivots.dtype()));
  if (pivots.dim() < 1)
    throw RuntimeError(std::string(name) + ": pivots must have at least 1 dimension");
  return contiguous(to_dtype(pivots, DType::Int64));
}

}  // namespace

std::tuple<Tensor, Tensor> lu_factor(const Tensor& x) {
  Rect b = matrix_batch(x, "linalg.lu_factor");
  const int64_t kk = std::min(b.m, b.n);
  Tensor lu = Tensor::empty(with_matrix(b.batch, b.m, b.n), DType::Float64);
  Shape pshape = b.batch;
  pshape.push_back(kk);
  Tensor piv = Tensor::empty(pshape, DType::Int32);
  const int m = to_int(b.m, "linalg.lu_factor"), n = to_int(b.n, "linalg.lu_factor");
  std::vector<int> ipiv(static_cast<size_t>(kk + 1));
  for (int64_t t = 0; t < b.count && kk > 0; ++t) {
    std::vector<double> a = column_major(b.data.data<double>() + t * b.m * b.n, b.m, b.n);
    int info = 0;  // > 0: U[info, info] is exactly zero; the factorisation is complete
    TG_LAPACK_CALL(dgetrf)(&m, &n, a.data(), &m, ipiv.data(), &info);
    row_major(a.data(), b.m, b.n, b.m, lu.data<double>() + t * b.m * b.n);
    int32_t* po = piv.data<int32_t>() + t * kk;
    for (int64_t i = 0; i < kk; ++i) po[i] = ipiv[static_cast<size_t>(i)];
  }
  return {to_dtype(lu, x.dtype()), piv};
}

Tensor lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& rhs, bool adjoint) {
  Batch b = square_batch(lu, "linalg.lu_solve");
  Tensor pv = pivot_batch(pivots, "linalg.lu_solve");
  rhs.check_defined("linalg.lu_solve");
  if (rhs.dim() < 2 || rhs.sizes()[rhs.dim() - 2] != b.n)
    throw RuntimeError("linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (" +
                       std::to_string(b.n) + "x" + std::to_string(b.n) + " and " +
                       (rhs.dim() < 2 ? shape_str(rhs.sizes())
                                      : std::to_string(rhs.sizes()[rhs.dim() - 2]) + "x" +
                                            std::to_string(rhs.sizes()[rhs.dim() - 1])) +
                       ")");
  if (pv.sizes()[pv.dim() - 1] != b.n)
    throw RuntimeError("linalg.lu_solve: Expected pivots to have " + std::to_string(b.n) +
                       " entries, got " + std::to_string(pv.sizes()[pv.dim() - 1]));
  const int64_t k = rhs.sizes()[rhs.dim() - 1];
  Shape rbatch(rhs.sizes().begin(), rhs.sizes().end() - 2);
  Shape pbatch(pv.sizes().begin(), pv.sizes().end() - 1);
  Shape batch = broadcast_shapes(broadcast_shapes(b.batch, pbatch, "linalg.lu_solve"), rbatch,
                                 "linalg.lu_solve");
  Tensor av = contiguous(expand(b.data, with_matrix(batch, b.n, b.n)));
  Shape pfull = batch;
  pfull.push_back(b.n);
  Tensor pe = contiguous(expand(pv, pfull));
  Tensor bv = contiguous(to_dtype(expand(rhs, with_matrix(batch, b.n, k)), DType::Float64));
  Tensor out = Tensor::empty(with_matrix(batch, b.n, k), DType::Float64);
  int64_t count = 1;
  for (int64_t s : batch) count *= s;
  const int n = to_int(b.n, "linalg.lu_solve"), nrhs = to_int(k, "linalg.lu_solve");
  const char trans = adjoint ? 'T' : 'N';
  std::vector<int> ipiv(static_cast<size_t>(b.n));
  for (int64_t t = 0; t < count && b.n > 0 && k > 0; ++t) {
    std::vector<double> ac = column_major(av.data<double>() + t * b.n * b.n, b.n, b.n);
    std::vector<double> bc = column_major(bv.data<double>() + t * b.n * k, b.n, k);
    const int64_t* p = pe.data<int64_t>() + t * b.n;
    for (int64_t i = 0; i < b.n; ++i) {
      if (p[i] < 1 || p[i] > b.n)
        throw RuntimeError("linalg.lu_solve: pivots must be between 1 and " + std::to_string(b.n) +
                           ", got " + std::to_string(p[i]));
      ipiv[static_cast<size_t>(i)] = static_cast<int>(p[i]);
    }
    int info = 0;
    TG_LAPACK_CALL(dgetrs)(&trans, &n, &nrhs, ac.data(), &n, ipiv.data(), bc.data(), &n, &info);
    row_major(bc.data(), b.n, k, b.n, out.data<double>() + t * b.n * k);
  }
  return to_dtype(out, promote_types(lu.dtype(), rhs.dtype()));
}

Tensor lu_permutation(const Tensor& pivots, const Tensor& lu) {
  Rect b = matrix_batch(lu, "lu_unpack");
  Tensor pv = pivot_batch(pivots, "lu_unpack");
  const int64_t kk = std::min(b.m, b.n);
  if (pv.sizes()[pv.dim() - 1] != kk)
    throw RuntimeError(
        "lu_unpack: Expected LU_pivots.size(-1) == min(LU_data.size(-1), LU_data.size(-2)), but "
        "got " +
        std::to_string(pv.sizes()[pv.dim() - 1]) + " and " + std::to_string(kk));
  Shape pbatch(pv.sizes().begin(), pv.sizes().end() - 1);
  Shape batch = broadcast_shapes(b.batch, pbatch, "lu_unpack");
  Shape pfull = batch;
  pfull.push_back(kk);
  Tensor pe = contiguous(expand(pv, pfull));
  Tensor out = Tensor::empty(with_matrix(batch, b.m, b.m), DType::Float64);
  int64_t count = 1;
  for (int64_t s : batch) count *= s;
  std::vector<int64_t> perm(static_cast<size_t>(b.m));
  for (int64_t t = 0; t < count; ++t) {
    // the row swaps applied in order: row i of P^T A is row perm[i] of A
    for (int64_t i = 0; i < b.m; ++i) perm[static_cast<size_t>(i)] = i;
    const int64_t* p = pe.data<int64_t>() + t * kk;
    for (int64_t i = 0; i < kk; ++i) {
      const int64_t j = p[i] - 1;
      if (j < 0 || j >= b.m)
        throw RuntimeError("lu_unpack: pivots must be between 1 and " + std::to_string(b.m) +
                           ", got " + std::to_string(p[i]));
      std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(j)]);
    }
    double* o = out.data<double>() + t * b.m * b.m;
    std::fill(o, o + b.m * b.m, 0.0);
    for (int64_t i = 0; i < b.m; ++i)
      o[perm[static_cast<size_t>(i)] * b.m + i] = 1.0;  // P = (P^T)^T
  }
  return to_dtype(out, lu.dtype());
}

}  // namespace tg::kernel
