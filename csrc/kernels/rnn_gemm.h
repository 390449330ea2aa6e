// The LSTM layer's GEMMs on its own AVX-512 register tile (Note [The recurrent GEMM]).
//
// Note [The recurrent GEMM]
// Each step of an LSTM layer multiplies a few rows (the batch) by the same weight: h (N x H) by
// w_hh.T (H x 4H) forward, grad_gates (N x 4H) by w_hh backward. BLAS packs that weight again on
// every call, which for N = 16 costs about as much as the multiply, and OpenBLAS may run kernels
// older than the CPU (this machine's environment pins its Haswell ones: bench/README.md). So the
// layer packs the weight once into panels of 32 columns and runs its own 8 x 32 register-tiled
// kernel, with AVX-512 where the CPU has it (checked at run time); float64 and other CPUs use
// blas::gemm. The same tile serves the layer's large GEMMs (the input projection of all steps,
// the weight gradients over all steps: ``gemm``), reading B's rows in place (no packing) and A
// either way round: as stored (8 rows, one broadcast from each per step) or transposed (the 8
// broadcasts of a step adjacent), which is how grad_gates.T @ x reads grad_gates.
//
// The tile keeps 16 accumulators in registers only if every loop over its rows is unrolled:
// without ``#pragma GCC unroll`` GCC kept them in a stack array, stored back on every step of
// k, and the tile ran at a third of its speed (82 against 240 GFLOP/s on 512 x 512 x 64, where
// OpenBLAS's Haswell kernels reach 120; 25 against 9 us per recurrent step at N 16, H 128).
#pragma once

#include <cstdint>
#include <vector>

namespace tg::kernel::rnn_gemm {

// Whether packed_gemm and gemm run here (an x86-64 CPU with AVX-512 F).
bool available();

// B (k x n), element (r, j) at b[trans ? j * ldb + r : r * ldb + j], packed into panels of 32
// columns (the last zero-padded): panel p holds rows 0..k of columns 32p..32p+31.
std::vector<float> pack(const float* b, int64_t ldb, bool trans, int64_t k, int64_t n);

// C (m x n, row-major, ldc) = A (m x k, row-major, lda) @ B (packed by pack) + (accumulate ? C
// : 0). Requires available().
void packed_gemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* packed,
                 float* c, int64_t ldc, bool accumulate);

// C (m x n, row-major, ldc) = A @ B (k x n, row-major, ldb) + (accumulate ? C : 0), where A's
// element (i, r) is at a[ta ? r * lda + i : i * lda + r]. Any sizes; requires available().
void gemm(bool ta, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
          int64_t ldb, float* c, int64_t ldc, bool accumulate);

}  // namespace tg::kernel::rnn_gemm
