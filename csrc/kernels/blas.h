// The one place kernels call BLAS gemm from (linalg.cpp's matmul, rnn.cpp's LSTM layer).
//
// Note [BLAS symbols]
// The PyPI OpenBLAS build (scipy-openblas32) prefixes every symbol: its cblas.h declares
// scipy_cblas_sgemm/scipy_cblas_dgemm (32-bit blasint), not cblas_sgemm. TG_CBLAS(name) picks
// the spelling; define TG_CBLAS_UNPREFIXED to build against a plain CBLAS instead.
#pragma once

#include <cblas.h>

#include <cstdint>
#include <type_traits>

#ifdef TG_CBLAS_UNPREFIXED
#define TG_CBLAS(name) cblas_##name
#define TG_OPENBLAS(name) openblas_##name
#else
#define TG_CBLAS(name) scipy_cblas_##name
#define TG_OPENBLAS(name) scipy_openblas_##name
#endif

namespace tg::kernel::blas {

// One BLAS or LAPACK call in flight (Note [Threads at exit] in csrc/python/common.h): OpenBLAS's
// static destructor frees its buffers at exit, while a daemon thread may still be inside a
// gemm. Every call is a Section; an std::atexit handler, registered at the first (so after
// OpenBLAS's constructors: it runs before OpenBLAS's destructor), waits for the calls in flight
// to end, and a thread starting one after that sleeps until the process is gone.
class Section {
 public:
  Section();
  ~Section();
  Section(const Section&) = delete;
  Section& operator=(const Section&) = delete;
};

// OpenBLAS runs single-threaded, set once before the first gemm (Note [BLAS threads]).
void single_threaded();

// C (m x n, row-major, ldc) = op(A) op(B) + beta C, one BLAS call on the calling thread.
template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc) {
  single_threaded();
  Section section;
  const auto TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    TG_CBLAS(sgemm)(CblasRowMajor, TA, TB, int(m), int(n), int(k), 1.0f, a, int(lda), b, int(ldb),
                    beta, c, int(ldc));
  } else {
    TG_CBLAS(dgemm)(CblasRowMajor, TA, TB, int(m), int(n), int(k), 1.0, a, int(lda), b, int(ldb),
                    beta, c, int(ldc));
  }
}

}  // namespace tg::kernel::blas
