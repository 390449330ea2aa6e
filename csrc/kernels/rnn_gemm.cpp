// The LSTM layer's own GEMMs (Note [The recurrent GEMM] in rnn_gemm.h).
#include "kernels/rnn_gemm.h"

#include <algorithm>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TG_RNN_AVX512 1
#endif

namespace tg::kernel::rnn_gemm {

namespace {
constexpr int64_t kPanel = 32;   // columns per panel: two 16-float vectors
constexpr int kRows = 8;         // rows per register tile: 16 accumulators
constexpr int64_t kDepth = 256;  // rows of B per block of gemm: a 32-column panel is 32 KB
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

// ROWS x 32 of C from ROWS rows of A and the 32 columns of B at b (row r at b + r * ldb);
// ``width`` (<= 32) columns are read and stored. A's element (i, r) is at a[r * lda + i] when
// TA (A stored transposed: the ROWS broadcasts of a step are adjacent), else a[i * lda + r].
template <int ROWS, bool TA>
__attribute__((target("avx512f"))) void tile(int64_t k, const float* a, int64_t lda, const float* b,
                                             int64_t ldb, float* c, int64_t ldc, int64_t width,
                                             bool accumulate) {
  // Every loop over the rows is unrolled: GCC keeps lo and hi in registers only then (Note [The
  // recurrent GEMM]).
  __m512 lo[ROWS], hi[ROWS];
#pragma GCC unroll 16
  for (int i = 0; i < ROWS; ++i) lo[i] = hi[i] = _mm512_setzero_ps();
  const int64_t w1 = std::max<int64_t>(0, width - 16);
  const __mmask16 m0 = width >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << width) - 1);
  const __mmask16 m1 = w1 >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << w1) - 1);
  for (int64_t r = 0; r < k; ++r) {
    const __m512 b0 = _mm512_maskz_loadu_ps(m0, b + r * ldb),
                 b1 = _mm512_maskz_loadu_ps(m1, b + r * ldb + 16);
#pragma GCC unroll 16
    for (int i = 0; i < ROWS; ++i) {
      const __m512 x = _mm512_set1_ps(TA ? a[r * lda + i] : a[i * lda + r]);
      lo[i] = _mm512_fmadd_ps(x, b0, lo[i]);
      hi[i] = _mm512_fmadd_ps(x, b1, hi[i]);
    }
  }
#pragma GCC unroll 16
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

using TileFn = void (*)(int64_t, const float*, int64_t, const float*, int64_t, float*, int64_t,
                        int64_t, bool);
constexpr TileFn kTilesN[kRows + 1] = {nullptr,        tile<1, false>, tile<2, false>,
                                       tile<3, false>, tile<4, false>, tile<5, false>,
                                       tile<6, false>, tile<7, false>, tile<8, false>};
constexpr TileFn kTilesT[kRows + 1] = {nullptr,       tile<1, true>, tile<2, true>,
                                       tile<3, true>, tile<4, true>, tile<5, true>,
                                       tile<6, true>, tile<7, true>, tile<8, true>};

// All row tiles of one panel of C (columns j0..j0+width) over k rows of B.
void panel(bool ta, int64_t m, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
           float* c, int64_t ldc, int64_t width, bool accumulate) {
  for (int64_t i0 = 0; i0 < m; i0 += kRows) {
    const int64_t rows = std::min<int64_t>(kRows, m - i0);
    if (ta)
      kTilesT[rows](k, a + i0, lda, b, ldb, c + i0 * ldc, ldc, width, accumulate);
    else
      kTilesN[rows](k, a + i0 * lda, lda, b, ldb, c + i0 * ldc, ldc, width, accumulate);
  }
}

}  // namespace

void packed_gemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* packed,
                 float* c, int64_t ldc, bool accumulate) {
  for (int64_t j0 = 0; j0 < n; j0 += kPanel)
    panel(false, m, k, a, lda, packed + (j0 / kPanel) * k * kPanel, kPanel, c + j0, ldc,
          std::min(kPanel, n - j0), accumulate);
}

void gemm(bool ta, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
          int64_t ldb, float* c, int64_t ldc, bool accumulate) {
  if (k == 0) {
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    return;
  }
  for (int64_t r0 = 0; r0 < k; r0 += kDepth) {
    const int64_t depth = std::min(kDepth, k - r0);
    const float* ab = ta ? a + r0 * lda : a + r0;
    for (int64_t j0 = 0; j0 < n; j0 += kPanel)
      panel(ta, m, depth, ab, lda, b + r0 * ldb + j0, ldb, c + j0, ldc, std::min(kPanel, n - j0),
            accumulate || r0 > 0);
  }
}

#else

bool available() { return false; }

void packed_gemm(int64_t, int64_t, int64_t, const float*, int64_t, const float*, float*, int64_t,
                 bool) {}

void gemm(bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t, float*,
          int64_t, bool) {}

#endif

}  // namespace tg::kernel::rnn_gemm
