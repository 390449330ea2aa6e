// matmul through CBLAS gemm.
//
// Note [BLAS threads]
// OpenBLAS has its own thread pool, whose threads busy-wait after a call just as ours do
// (Note [Intra-op threads]); on a small machine the two pools then fight for the cores and a
// small gemm following an elementwise op (or the reverse) can wait for a descheduled spinner
// for milliseconds. Changing OpenBLAS's thread count per call is not an option: the count is
// one process-wide variable (openblas_set_num_threads_local sets it too), so two threads
// calling matmul at once would race on it. The policy is therefore fixed: OpenBLAS runs
// single-threaded (set once, before the first gemm), and a gemm of at least kParallelGemm
// multiply-adds is split into row (or column) blocks of the output over our pool, one
// single-threaded gemm per block. Blocks are independent, so a busy pool (another Python
// thread, the engine) just runs them one after the other on the caller.
// (Note [BLAS symbols] in blas.h.)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "kernels/blas.h"
#include "kernels/kernels.h"
#include "kernels/loops.h"
#include "kernels/rnn_gemm.h"
#include "tensor/parallel.h"

namespace tg::kernel {

namespace blas {
namespace {
std::atomic<int> g_calls{0};
std::atomic<bool> g_closed{false};

[[noreturn]] void park() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

// std::atexit: no BLAS call from now on, and the ones in flight end first (a gemm takes
// milliseconds; bounded all the same, so that exit never hangs on one).
void close_at_exit() {
  g_closed.store(true);
  for (int i = 0; i < 10000 && g_calls.load() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}
}  // namespace

// Counted in before the check (both seq_cst), so close_at_exit either sees this call or this
// call sees the close.
Section::Section() {
  static const int registered = std::atexit(close_at_exit);
  (void)registered;
  g_calls.fetch_add(1);
  if (g_closed.load()) {
    g_calls.fetch_sub(1);
    park();
  }
}
Section::~Section() { g_calls.fetch_sub(1); }

void single_threaded() {
  static std::once_flag once;
  std::call_once(once, [] {
    Section section;
    TG_OPENBLAS(set_num_threads)(1);
  });
}
}  // namespace blas

using namespace detail;

namespace {

// m * n * k at or below which a float matmul skips BLAS.
constexpr int64_t kTinyMatmul = 512;

// How gemm reads one (rows x cols) matrix operand given its element strides.
struct MatLayout {
  bool ok = false;
  bool trans = false;
  int64_t ld = 0;
};

MatLayout layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  // Size-1 dims may carry any stride.
  const int64_t r1 = std::max<int64_t>(rows, 1), c1 = std::max<int64_t>(cols, 1);
  if ((cols == 1 || cs == 1) && (rows == 1 || rs >= c1)) return {true, false, rows == 1 ? c1 : rs};
  // Column-major storage: gemm reads the transposed matrix.
  if ((rows == 1 || rs == 1) && (cols == 1 || cs >= r1)) return {true, true, cols == 1 ? r1 : cs};
  return {};
}

// m * n * k from which a gemm is split over the intra-op pool (Note [BLAS threads]).
constexpr int64_t kParallelGemm = int64_t(1) << 22;
// Smallest block (rows or columns of the output) a split gemm hands to one thread.
constexpr int64_t kGemmBlock = 32;

// C (m x n, row-major, ldc) = op(A) op(B) + beta C (beta 0: C is only written); large products
// split over the pool by blocks of rows of C (or of columns when C is short and wide).
// Note [Mid-size float32 gemms on the register tile]
// On an AVX-512 CPU a float32 product of up to kTileGemm multiply-adds runs on the LSTM layer's
// own register tile (Note [The recurrent GEMM] in rnn_gemm.h), which reads op(B) in place (or
// packs a transposed B, one pass over K x N) and measured about twice OpenBLAS's speed on these
// shapes under this workplace's pinned Haswell kernels (bench/README.md): the transformer LM's
// linear layers (512 x 128 x 512) and the MLP's. Larger products, whose blocking for the caches
// the tile lacks, float64, and the threaded split stay with BLAS.
constexpr int64_t kTileGemm = int64_t(1) << 27;

inline bool tile_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a,
                      int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, float beta) {
  if ((beta != 0.0f && beta != 1.0f) || (ta && tb) || m * n * k > kTileGemm || m == 0 || n == 0 ||
      k == 0 || !rnn_gemm::available())
    return false;
  if (!tb) {
    rnn_gemm::gemm(ta, m, n, k, a, lda, b, ldb, c, ldc, beta == 1.0f);
  } else {
    const std::vector<float> packed = rnn_gemm::pack(b, ldb, true, k, n);
    rnn_gemm::packed_gemm(m, n, k, a, lda, packed.data(), c, ldc, beta == 1.0f);
  }
  return true;
}

template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
          int64_t ldb, T* c, int64_t ldc, T beta = T(0)) {
  blas::single_threaded();
  if (m * n * k < kParallelGemm || get_num_threads() <= 1) {
    if constexpr (std::is_same_v<T, float>) {
      if (tile_gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, beta)) return;
    }
    blas::gemm<T>(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  if (m >= n) {
    // Rows [i0, i1) of C need rows [i0, i1) of op(A): A[i0] (row-major) or column i0 (transposed).
    parallel_for(m, kGemmBlock, [&](int64_t i0, int64_t i1) {
      blas::gemm<T>(ta, tb, i1 - i0, n, k, a + (ta ? i0 : i0 * lda), lda, b, ldb, beta,
                    c + i0 * ldc, ldc);
    });
  } else {
    parallel_for(n, kGemmBlock, [&](int64_t j0, int64_t j1) {
      blas::gemm<T>(ta, tb, m, j1 - j0, k, a, lda, b + (tb ? j0 * ldb : j0), ldb, beta, c + j0,
                    ldc);
    });
  }
}

template <class T>
void naive_mm(int64_t m, int64_t n, int64_t k, const T* a, int64_t ars, int64_t acs, const T* b,
              int64_t brs, int64_t bcs, T* c) {
  for (int64_t i = 0; i < m; ++i) {
    T* crow = c + i * n;
    for (int64_t j = 0; j < n; ++j) crow[j] = T(0);
    for (int64_t p = 0; p < k; ++p) {
      const T av = a[i * ars + p * acs];
      const T* brow = b + p * brs;
      for (int64_t j = 0; j < n; ++j) crow[j] = T(crow[j] + av * brow[j * bcs]);
    }
  }
}

}  // namespace

Tensor matmul(const Tensor& a_in, const Tensor& b_in) {
  a_in.check_defined("matmul");
  b_in.check_defined("matmul");
  if (a_in.dim() < 2 || b_in.dim() < 2)
    throw ValueError("matmul: expected operands with at least 2 dimensions, got shapes " +
                     shape_str(a_in.sizes()) + " and " + shape_str(b_in.sizes()) +
                     " (ops.matmul handles 1-D operands)");
  DType dt = promote_types(a_in.dtype(), b_in.dtype());
  if (dt > DType::Float64) {  // float16/bfloat16 through float32 BLAS (Note [Storage dtypes])
    const DType c = compute_dtype(dt);
    return to_dtype(matmul(to_dtype(a_in, c), to_dtype(b_in, c)), dt);
  }
  if (dt == DType::Bool)
    return cast(matmul(cast(a_in, DType::Int64), cast(b_in, DType::Int64)), DType::Bool);
  Tensor a = to_dtype(a_in, dt), b = to_dtype(b_in, dt);
  const int64_t m = a.sizes()[a.dim() - 2], k = a.sizes()[a.dim() - 1];
  const int64_t k2 = b.sizes()[b.dim() - 2], n = b.sizes()[b.dim() - 1];
  if (k != k2) {  // torch's words: mm's when b is a matrix (a's batch folds into rows), else bmm's
    if (b.dim() == 2)
      throw RuntimeError("mat1 and mat2 shapes cannot be multiplied (" +
                         std::to_string(k == 0 ? 0 : a.numel() / k) + "x" + std::to_string(k) +
                         " and " + std::to_string(k2) + "x" + std::to_string(n) + ")");
    int64_t nb = 1;
    for (int64_t s : broadcast_shapes(Shape(a.sizes().begin(), a.sizes().end() - 2),
                                      Shape(b.sizes().begin(), b.sizes().end() - 2), "matmul"))
      nb *= s;
    throw RuntimeError("Expected size for first two dimensions of batch2 tensor to be: [" +
                       std::to_string(nb) + ", " + std::to_string(k) + "] but got: [" +
                       std::to_string(nb) + ", " + std::to_string(k2) + "].");
  }
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
    throw ValueError("matmul: matrix dims too large for BLAS");
  Shape batch;  // broadcast batch dims (none for two matrices: no allocation on that path)
  if (a.dim() > 2 || b.dim() > 2)
    batch = broadcast_shapes(Shape(a.sizes().begin(), a.sizes().end() - 2),
                             Shape(b.sizes().begin(), b.sizes().end() - 2), "matmul");
  Shape out_shape;
  out_shape.reserve(batch.size() + 2);
  out_shape = batch;
  out_shape.push_back(m);
  out_shape.push_back(n);
  Tensor out = Tensor::empty(out_shape, dt);
  if (out.numel() == 0) return out;
  if (k == 0) return zeros_like(out);

  // Batch strides of each operand broadcast to `batch` (0 along broadcast dims).
  const int64_t nb = static_cast<int64_t>(batch.size());
  int64_t nbatch = 1;
  for (int64_t s : batch) nbatch *= s;
  auto batch_strides = [&](const Tensor& t) {
    Shape st(nb, 0);
    const int64_t tb = t.dim() - 2;
    for (int64_t i = 0; i < tb; ++i)
      if (t.sizes()[i] != 1) st[nb - tb + i] = t.strides()[i];
    return st;
  };
  // Element offset of batch item `bi` for batch strides `st`.
  auto batch_offset = [&](int64_t bi, const Shape& st) {
    int64_t off = 0;
    for (int64_t i = nb - 1; i >= 0; --i) {
      off += (bi % batch[i]) * st[i];
      bi /= batch[i];
    }
    return off;
  };

  // int64, and tiny float problems (where a BLAS call costs more than the arithmetic): a
  // direct loop over any strides.
  if (dt == DType::Int64 || m * n * k <= kTinyMatmul) {
    Shape sa = batch_strides(a), sb = batch_strides(b);
    const int64_t ars = a.strides()[a.dim() - 2], acs = a.strides()[a.dim() - 1];
    const int64_t brs = b.strides()[b.dim() - 2], bcs = b.strides()[b.dim() - 1];
    dispatch_numeric(dt, "matmul", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T *pa = a.data<T>(), *pb = b.data<T>();
      T* pc = out.data<T>();
      for (int64_t bi = 0; bi < nbatch; ++bi)
        naive_mm<T>(m, n, k, pa + batch_offset(bi, sa), ars, acs, pb + batch_offset(bi, sb), brs,
                    bcs, pc + bi * m * n);
    });
    return out;
  }

  auto ensure_layout = [&](Tensor& t, int64_t rows, int64_t cols) {
    MatLayout l = layout(rows, cols, t.strides()[t.dim() - 2], t.strides()[t.dim() - 1]);
    if (!l.ok) {
      t = clone(t);
      l = layout(rows, cols, t.strides()[t.dim() - 2], t.strides()[t.dim() - 1]);
    }
    return l;
  };
  MatLayout la = ensure_layout(a, m, k), lb = ensure_layout(b, k, n);
  Shape sa = batch_strides(a), sb = batch_strides(b);
  dispatch_floating(dt, "matmul", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* pc = out.data<T>();
    // b shared by every batch item and a's batch rows stacked contiguously: one gemm with
    // m * nbatch rows.
    bool b_shared = true;
    for (int64_t s : sb) b_shared = b_shared && s == 0;
    bool a_stacked = !la.trans && nbatch > 1;
    if (a_stacked) {
      int64_t expect = m * la.ld;
      for (int64_t i = nb - 1; i >= 0 && a_stacked; --i) {
        if (batch[i] == 1) continue;
        a_stacked = sa[i] == expect;
        expect *= batch[i];
      }
    }
    if (b_shared && (nbatch == 1 || a_stacked)) {
      if (m * nbatch > INT_MAX) throw ValueError("matmul: too many rows for BLAS");
      gemm<T>(la.trans, lb.trans, m * nbatch, n, k, pa, la.ld, pb, lb.ld, pc, n);
      return;
    }
    for (int64_t bi = 0; bi < nbatch; ++bi)
      gemm<T>(la.trans, lb.trans, m, n, k, pa + batch_offset(bi, sa), la.ld,
              pb + batch_offset(bi, sb), lb.ld, pc + bi * m * n, n);
  });
  return out;
}

// Note [linear's bias in the gemm]
// x (M, K) @ weight^T + bias as one BLAS call: the output's rows start as copies of the bias and
// the gemm accumulates into them (beta 1), where a gemm then a broadcast add wrote the product,
// allocated a second (M, N) result and read both in the generic broadcasting loop (with sdpa's
// mask, Note [attention_softmax in one pass], 0.38 ms of the transformer LM's 7.1 ms forward,
// bench/models.py TLM: 6.4 ms without them). The weight is read transposed in place.
// Other dtypes, shapes or biases (one that is not (N,), of another dtype) go through matmul and
// add, the composite this replaces.
Tensor linear_gemm(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  x.check_defined("linear_gemm");
  weight.check_defined("linear_gemm");
  const DType dt = x.dtype();
  const bool fast =
      x.dim() == 2 && weight.dim() == 2 && weight.dtype() == dt &&
      (dt == DType::Float32 || dt == DType::Float64) && x.sizes()[1] == weight.sizes()[1] &&
      (!bias.defined() ||
       (bias.dim() == 1 && bias.dtype() == dt && bias.sizes()[0] == weight.sizes()[0])) &&
      x.sizes()[0] * weight.sizes()[0] * x.sizes()[1] > kTinyMatmul;
  if (!fast) {
    Tensor product = matmul(x, transpose(weight, 0, 1));
    return bias.defined() ? add(product, bias) : product;
  }
  const int64_t m = x.sizes()[0], k = x.sizes()[1], n = weight.sizes()[0];
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
    throw ValueError("linear_gemm: matrix dims too large for BLAS");
  Tensor a = x, w = weight;
  MatLayout la = layout(m, k, a.strides()[0], a.strides()[1]);
  if (!la.ok) {
    a = clone(a);
    la = layout(m, k, a.strides()[0], a.strides()[1]);
  }
  // weight (N, K) read as op(B) = weight^T (K, N): its own layout, flipped
  MatLayout lw = layout(n, k, w.strides()[0], w.strides()[1]);
  if (!lw.ok) {
    w = clone(w);
    lw = layout(n, k, w.strides()[0], w.strides()[1]);
  }
  Tensor out = Tensor::empty(Shape{m, n}, dt);
  Tensor b = bias.defined() ? as_contiguous(bias) : bias;
  dispatch_floating(dt, "linear_gemm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* pc = out.data<T>();
    if (b.defined()) {
      const T* pb = b.data<T>();
      for (int64_t i = 0; i < m; ++i) std::copy(pb, pb + n, pc + i * n);
    }
    gemm<T>(la.trans, !lw.trans, m, n, k, a.data<T>(), la.ld, w.data<T>(), lw.ld, pc, n,
            b.defined() ? T(1) : T(0));
  });
  return out;
}

}  // namespace tg::kernel
