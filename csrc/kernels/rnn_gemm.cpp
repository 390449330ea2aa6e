// The recurrent step's packed GEMM (Note [The recurrent GEMM] in rnn_gemm.h).
#include "kernels/rnn_gemm.h"

#include <algorithm>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TG_RNN_AVX512 1
#endif

namespace tg::kernel::rnn_gemm {

namespace {
constexpr int64_t kPanel = 32;  // columns per packed panel: two 16-float vectors
constexpr int kRows = 8;        // rows per register tile: 16 accumulators
}  // namespace

std::vector<float> pack(const float* b, int64_t ldb, bool trans, int64_t k, int64_t n) {
  const int64_t panels = (n + kPanel - 1) / kPanel;
  std::vector<float> out(size_t(panels * k * kPanel), 0.0f);
  for (int64_t p = 0; p < panels; ++p) {
    float* dst = out.data() + p * k * kPanel;
    const int64_t j0 = p * kPanel, width = std::min(kPanel, n - j0);
    for (int64_t r = 0; r < k; ++r)
      for (int64_t j = 0; j < width; ++j)
        dst[r * kPanel + j] = trans ? b[(j0 + j) * ldb + r] : b[r * ldb + j0 + j];
  }
  return out;
}

#ifdef TG_RNN_AVX512

bool available() { return __builtin_cpu_supports("avx512f"); }

namespace {

// ROWS x 32 of C from ROWS rows of A and one packed panel; ``width`` (<= 32) columns are stored.
template <int ROWS>
__attribute__((target("avx512f"))) void tile(int64_t k, const float* a, int64_t lda,
                                             const float* panel, float* c, int64_t ldc,
                                             int64_t width, bool accumulate) {
  __m512 lo[ROWS], hi[ROWS];
  for (int i = 0; i < ROWS; ++i) lo[i] = hi[i] = _mm512_setzero_ps();
  for (int64_t r = 0; r < k; ++r) {
    const __m512 b0 = _mm512_loadu_ps(panel + r * kPanel),
                 b1 = _mm512_loadu_ps(panel + r * kPanel + 16);
    for (int i = 0; i < ROWS; ++i) {
      const __m512 x = _mm512_set1_ps(a[i * lda + r]);
      lo[i] = _mm512_fmadd_ps(x, b0, lo[i]);
      hi[i] = _mm512_fmadd_ps(x, b1, hi[i]);
    }
  }
  const int64_t w1 = std::max<int64_t>(0, width - 16);
  const __mmask16 m0 = width >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << width) - 1);
  const __mmask16 m1 = w1 >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << w1) - 1);
  for (int i = 0; i < ROWS; ++i) {
    float* row = c + i * ldc;
    __m512 v0 = lo[i], v1 = hi[i];
    if (accumulate) {
      v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, row));
      v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, row + 16));
    }
    _mm512_mask_storeu_ps(row, m0, v0);
    _mm512_mask_storeu_ps(row + 16, m1, v1);
  }
}

using TileFn = void (*)(int64_t, const float*, int64_t, const float*, float*, int64_t, int64_t,
                        bool);
constexpr TileFn kTiles[kRows + 1] = {nullptr, tile<1>, tile<2>, tile<3>, tile<4>,
                                      tile<5>, tile<6>, tile<7>, tile<8>};

}  // namespace

void packed_gemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* packed,
                 float* c, int64_t ldc, bool accumulate) {
  const int64_t panels = (n + kPanel - 1) / kPanel;
  for (int64_t p = 0; p < panels; ++p) {
    const float* panel = packed + p * k * kPanel;
    const int64_t j0 = p * kPanel, width = std::min(kPanel, n - j0);
    for (int64_t i0 = 0; i0 < m; i0 += kRows) {
      const int64_t rows = std::min<int64_t>(kRows, m - i0);
      kTiles[rows](k, a + i0 * lda, lda, panel, c + i0 * ldc + j0, ldc, width, accumulate);
    }
  }
}

#else

bool available() { return false; }

void packed_gemm(int64_t, int64_t, int64_t, const float*, int64_t, const float*, float*, int64_t,
                 bool) {}

#endif

}  // namespace tg::kernel::rnn_gemm
