// Recurrent kernels: lstm_cell and lstm_cell_backward, the whole layer's lstm_layer,
// lstm_layer_bptt and lstm_layer_weight_grads, and gru_cell and gru_cell_backward (their section of
// translator/signatures.py; Note [The LSTM layer runs in one kernel] in formulas/rnn.py). Gates are
// (N, 4H), pre-activation, in torch's order (i, f, g, o); the backward recomputes the activations
// from the gates (Note [The LSTM cell recomputes its gates] in formulas/rnn.py). The numpy twin is
// python/transgrad/reference/kernels_rnn.py; both compute in the gates' dtype in the same order of
// operations, here with vecmath.h's sigmoid and tanh (a few ulp from numpy's) so that the loop over
// a row vectorises, and compiled twice (Note [SIMD clones] in unary.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")  // lets the vec:: selects vectorise (vecmath.h)
#endif
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "kernels/blas.h"
#include "kernels/kernels.h"
#include "kernels/loops.h"
#include "kernels/rnn_gemm.h"
#include "kernels/vecmath.h"

namespace tg::kernel {
using detail::as_contiguous;

// The cells also get an x86-64-v4 (AVX-512) clone besides Note [SIMD clones]' two: the step's
// cell is on the recurrence's critical path, and 16 lanes halve it (16 x 128 float cells: 9.3
// us with AVX2, 4.8 us with AVX-512, the same values).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(TG_NO_CLONES)
#define TG_CELL_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define TG_CELL_CLONES TG_CLONES
#endif

namespace {

// Checks a cell's operands: gates (N, count * H) (a second tensor of gates, GRU's gh, of the same
// shape), each state (N, H), all of one floating dtype; returns H.
int64_t check_cell(const char* name, int64_t count, std::initializer_list<const Tensor*> gates,
                   std::initializer_list<const Tensor*> states) {
  const Tensor& a = **gates.begin();
  a.check_defined(name);
  if (a.dim() != 2 || a.size(1) % count != 0)
    throw ValueError(std::string(name) + ": gates must be (N, " + std::to_string(count) +
                     "H), got shape " + shape_str(a.sizes()));
  if (!is_floating(a.dtype()))
    throw ValueError(std::string(name) + ": unsupported dtype " + dtype_name(a.dtype()) +
                     " (expected float32 or float64)");
  const int64_t n = a.size(0), h = a.size(1) / count;
  for (const Tensor* t : gates) {
    t->check_defined(name);
    if (t->sizes() != a.sizes())
      throw ValueError(std::string(name) + ": expected gates of shape " + shape_str(a.sizes()) +
                       ", got " + shape_str(t->sizes()));
  }
  for (const Tensor* s : states) {
    s->check_defined(name);
    if (s->dim() != 2 || s->size(0) != n || s->size(1) != h)
      throw ValueError(std::string(name) + ": expected a state of shape (" + std::to_string(n) +
                       ", " + std::to_string(h) + ") for gates of shape " + shape_str(a.sizes()) +
                       ", got " + shape_str(s->sizes()));
  }
  for (auto operands : {gates, states})
    for (const Tensor* t : operands)
      if (t->dtype() != a.dtype())
        throw ValueError(std::string(name) + ": dtypes differ: gates " + dtype_name(a.dtype()) +
                         ", " + dtype_name(t->dtype()));
  return h;
}

// The four gates of one row of gates (4H), as separate restrict pointers: with them (and only
// with them) GCC vectorises the loops below.
template <class T>
struct Gates {
  const T* __restrict i;
  const T* __restrict f;
  const T* __restrict g;
  const T* __restrict o;
};
template <class T>
TG_INLINE Gates<T> gates_of(const T* row, int64_t hid) {
  return {row, row + hid, row + 2 * hid, row + 3 * hid};
}

// One row of the forward: gates (4H), previous cell c (H) -> h, c_new (H each).
template <class T>
TG_INLINE void lstm_row(Gates<T> a, const T* __restrict c, T* __restrict h, T* __restrict c_new,
                        int64_t hid) {
  for (int64_t k = 0; k < hid; ++k) {
    const T i = vec::sigmoid(a.i[k]), f = vec::sigmoid(a.f[k]);
    const T g = vec::tanh(a.g[k]), o = vec::sigmoid(a.o[k]);
    const T cn = f * c[k] + i * g;
    c_new[k] = cn;
    h[k] = o * vec::tanh(cn);
  }
}

// One row of the backward: -> grad of the gates (4H, written through d) and of the cell (H).
template <class T>
TG_INLINE void lstm_row_backward(Gates<T> a, const T* __restrict c, const T* __restrict gh,
                                 const T* __restrict gc, T* d, T* __restrict dc, int64_t hid) {
  T* __restrict di = d;
  T* __restrict df = d + hid;
  T* __restrict dg = d + 2 * hid;
  T* __restrict dout = d + 3 * hid;
  for (int64_t k = 0; k < hid; ++k) {
    const T i = vec::sigmoid(a.i[k]), f = vec::sigmoid(a.f[k]);
    const T g = vec::tanh(a.g[k]), o = vec::sigmoid(a.o[k]);
    const T tc = vec::tanh(f * c[k] + i * g);
    const T g_cn = gc[k] + gh[k] * o * (T(1) - tc * tc);
    di[k] = g_cn * g * i * (T(1) - i);
    df[k] = g_cn * c[k] * f * (T(1) - f);
    dg[k] = g_cn * i * (T(1) - g * g);
    dout[k] = gh[k] * tc * o * (T(1) - o);
    dc[k] = g_cn * f;
  }
}

// Non-template entry points, so that GCC can clone them per target (target_clones).
TG_CELL_CLONES void lstm_rows(const float* a, const float* c, float* h, float* cn, int64_t n,
                              int64_t hid) {
  for (int64_t r = 0; r < n; ++r)
    lstm_row(gates_of(a + r * 4 * hid, hid), c + r * hid, h + r * hid, cn + r * hid, hid);
}
TG_CELL_CLONES void lstm_rows(const double* a, const double* c, double* h, double* cn, int64_t n,
                              int64_t hid) {
  for (int64_t r = 0; r < n; ++r)
    lstm_row(gates_of(a + r * 4 * hid, hid), c + r * hid, h + r * hid, cn + r * hid, hid);
}
TG_CELL_CLONES void lstm_rows_backward(const float* a, const float* c, const float* gh,
                                       const float* gc, float* d, float* dc, int64_t n,
                                       int64_t hid) {
  for (int64_t r = 0; r < n; ++r)
    lstm_row_backward(gates_of(a + r * 4 * hid, hid), c + r * hid, gh + r * hid, gc + r * hid,
                      d + r * 4 * hid, dc + r * hid, hid);
}
TG_CELL_CLONES void lstm_rows_backward(const double* a, const double* c, const double* gh,
                                       const double* gc, double* d, double* dc, int64_t n,
                                       int64_t hid) {
  for (int64_t r = 0; r < n; ++r)
    lstm_row_backward(gates_of(a + r * 4 * hid, hid), c + r * hid, gh + r * hid, gc + r * hid,
                      d + r * 4 * hid, dc + r * hid, hid);
}

// One row of the GRU forward: gi, gh (3H each, (r, z, n)), h (H) -> the new h.
template <class T>
TG_INLINE void gru_row(const T* gi, const T* gh, const T* __restrict h, T* __restrict out,
                       int64_t hid) {
  const T* __restrict ir = gi;
  const T* __restrict iz = gi + hid;
  const T* __restrict in = gi + 2 * hid;
  const T* __restrict hr = gh;
  const T* __restrict hz = gh + hid;
  const T* __restrict hn = gh + 2 * hid;
  for (int64_t k = 0; k < hid; ++k) {
    const T r = vec::sigmoid(ir[k] + hr[k]), z = vec::sigmoid(iz[k] + hz[k]);
    const T n = vec::tanh(in[k] + r * hn[k]);
    out[k] = n + z * (h[k] - n);
  }
}

TG_CELL_CLONES void gru_rows(const float* gi, const float* gh, const float* h, float* out,
                             int64_t n, int64_t hid) {
  for (int64_t r = 0; r < n; ++r)
    gru_row(gi + r * 3 * hid, gh + r * 3 * hid, h + r * hid, out + r * hid, hid);
}
TG_CELL_CLONES void gru_rows(const double* gi, const double* gh, const double* h, double* out,
                             int64_t n, int64_t hid) {
  for (int64_t r = 0; r < n; ++r)
    gru_row(gi + r * 3 * hid, gh + r * 3 * hid, h + r * hid, out + r * hid, hid);
}

// The three gates (r, z, n) of one row of GRU gates (3H), as separate restrict pointers (with
// restrict locals instead, GCC did not vectorise the backward's loop).
template <class P>
struct Gates3 {
  P __restrict r;
  P __restrict z;
  P __restrict n;
};
template <class P>
TG_INLINE Gates3<P> gates3_of(P row, int64_t hid) {
  return {row, row + hid, row + 2 * hid};
}

// One row of the GRU backward: gi, gh (3H each), h and the grad of the new h (H) -> the grads of
// gi, gh (3H each) and of h (H).
template <class T>
TG_INLINE void gru_row_backward(Gates3<const T*> a, Gates3<const T*> b, const T* __restrict h,
                                const T* __restrict g, Gates3<T*> da, Gates3<T*> db,
                                T* __restrict dh, int64_t hid) {
  for (int64_t k = 0; k < hid; ++k) {
    const T r = vec::sigmoid(a.r[k] + b.r[k]), z = vec::sigmoid(a.z[k] + b.z[k]);
    const T n = vec::tanh(a.n[k] + r * b.n[k]);
    const T g_n = g[k] * (T(1) - z) * (T(1) - n * n);
    const T g_r = g_n * b.n[k] * r * (T(1) - r);
    const T g_z = g[k] * (h[k] - n) * z * (T(1) - z);
    da.r[k] = g_r;
    da.z[k] = g_z;
    da.n[k] = g_n;
    db.r[k] = g_r;
    db.z[k] = g_z;
    db.n[k] = g_n * r;
    dh[k] = g[k] * z;
  }
}

TG_CELL_CLONES void gru_rows_backward(const float* gi, const float* gh, const float* h,
                                      const float* g, float* dgi, float* dgh, float* dh, int64_t n,
                                      int64_t hid) {
  for (int64_t r = 0; r < n; ++r)
    gru_row_backward(gates3_of(gi + r * 3 * hid, hid), gates3_of(gh + r * 3 * hid, hid),
                     h + r * hid, g + r * hid, gates3_of(dgi + r * 3 * hid, hid),
                     gates3_of(dgh + r * 3 * hid, hid), dh + r * hid, hid);
}
TG_CELL_CLONES void gru_rows_backward(const double* gi, const double* gh, const double* h,
                                      const double* g, double* dgi, double* dgh, double* dh,
                                      int64_t n, int64_t hid) {
  for (int64_t r = 0; r < n; ++r)
    gru_row_backward(gates3_of(gi + r * 3 * hid, hid), gates3_of(gh + r * 3 * hid, hid),
                     h + r * hid, g + r * hid, gates3_of(dgi + r * 3 * hid, hid),
                     gates3_of(dgh + r * 3 * hid, hid), dh + r * hid, hid);
}

// Checks a sequence (T, N, width * H) against w_hh (4H, H) and a state c0 (N, H) of its dtype;
// width 0 accepts any last dim. Returns H.
int64_t check_layer(const char* name, const Tensor& seq, const Tensor& c0, const Tensor& w_hh,
                    int64_t width) {
  for (const Tensor* t : {&seq, &c0, &w_hh}) t->check_defined(name);
  if (!is_floating(seq.dtype()))
    throw ValueError(std::string(name) + ": unsupported dtype " + dtype_name(seq.dtype()) +
                     " (expected float32 or float64)");
  if (w_hh.dim() != 2 || w_hh.size(0) != 4 * w_hh.size(1))
    throw ValueError(std::string(name) + ": w_hh must be (4H, H), got shape " +
                     shape_str(w_hh.sizes()));
  const int64_t hid = w_hh.size(1);
  if (seq.dim() != 3 || (width && seq.size(2) != width * hid))
    throw ValueError(std::string(name) + ": expected a sequence (T, N, " +
                     std::to_string(width * hid) + ") for w_hh of shape " +
                     shape_str(w_hh.sizes()) + ", got " + shape_str(seq.sizes()));
  if (c0.dim() != 2 || c0.size(0) != seq.size(1) || c0.size(1) != hid)
    throw ValueError(std::string(name) + ": expected a state of shape (" +
                     std::to_string(seq.size(1)) + ", " + std::to_string(hid) + "), got " +
                     shape_str(c0.sizes()));
  for (const Tensor* t : {&c0, &w_hh})
    if (t->dtype() != seq.dtype())
      throw ValueError(std::string(name) + ": dtypes differ: " + dtype_name(seq.dtype()) + " and " +
                       dtype_name(t->dtype()));
  return hid;
}

// Checks an optional operand: undefined, or of ``sizes`` and ``like``'s dtype.
void check_optional(const char* name, const char* what, const Tensor& t, const Shape& sizes,
                    const Tensor& like) {
  if (!t.defined()) return;
  if (t.sizes() != sizes)
    throw ValueError(std::string(name) + ": expected " + what + " of shape " + shape_str(sizes) +
                     ", got " + shape_str(t.sizes()));
  if (t.dtype() != like.dtype())
    throw ValueError(std::string(name) + ": dtypes differ: " + dtype_name(like.dtype()) + " and " +
                     dtype_name(t.dtype()));
}

// out = a + b (b may be null: out = a), n elements.
template <class T>
void add_into(const T* __restrict a, const T* __restrict b, T* __restrict out, int64_t n) {
  if (b == nullptr) {
    std::copy(a, a + n, out);
    return;
  }
  for (int64_t k = 0; k < n; ++k) out[k] = a[k] + b[k];
}

template <class T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

// C (m x n, ldc) = A (m x k, lda) @ B + (accumulate ? C : 0) for every step of a layer, B fixed:
// element (r, j) of B at b[trans ? j * ldb + r : r * ldb + j]. Float32 on an AVX-512 CPU packs
// B once (Note [The recurrent GEMM] in rnn_gemm.h); otherwise each step is a BLAS call.
template <class T>
class StepGemm {
 public:
  StepGemm(const T* b, int64_t ldb, bool trans, int64_t k, int64_t n)
      : b_(b), ldb_(ldb), trans_(trans), k_(k), n_(n) {
    if constexpr (std::is_same_v<T, float>) {
      if (k > 0 && n > 0 && rnn_gemm::available()) packed_ = rnn_gemm::pack(b, ldb, trans, k, n);
    }
  }
  void operator()(int64_t m, const T* a, int64_t lda, T* c, int64_t ldc, bool accumulate) const {
    if (m == 0 || n_ == 0) return;
    if (k_ == 0) {
      if (!accumulate)
        for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n_, T(0));
      return;
    }
    if constexpr (std::is_same_v<T, float>) {
      if (!packed_.empty()) {
        rnn_gemm::packed_gemm(m, n_, k_, a, lda, packed_.data(), c, ldc, accumulate);
        return;
      }
    }
    blas::gemm<T>(false, trans_, m, n_, k_, a, lda, b_, ldb_, accumulate ? T(1) : T(0), c, ldc);
  }

 private:
  const T* b_;
  int64_t ldb_;
  bool trans_;
  int64_t k_, n_;
  std::vector<float> packed_;
};

// C (m x n, ldc) = A @ B (k x n, row-major, ldb) + (accumulate ? C : 0), A's element (i, r) at
// a[ta ? r * lda + i : i * lda + r]: the layer's own tile for float32 on an AVX-512 CPU (Note
// [The recurrent GEMM] in rnn_gemm.h), BLAS otherwise.
template <class T>
void layer_gemm(bool ta, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
                int64_t ldb, T* c, int64_t ldc, bool accumulate) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, T(0));
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (rnn_gemm::available()) {
      rnn_gemm::gemm(ta, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
      return;
    }
  }
  blas::gemm<T>(ta, false, m, n, k, a, lda, b, ldb, accumulate ? T(1) : T(0), c, ldc);
}

}  // namespace

std::tuple<Tensor, Tensor> lstm_cell(const Tensor& gates, const Tensor& c) {
  const int64_t hid = check_cell("lstm_cell", 4, {&gates}, {&c});
  const int64_t n = gates.size(0);
  Tensor a = as_contiguous(gates), cp = as_contiguous(c);
  Tensor h = Tensor::empty({n, hid}, gates.dtype()), c_new = Tensor::empty({n, hid}, gates.dtype());
  dispatch_floating(gates.dtype(), "lstm_cell", [&](auto tag) {
    using T = typename decltype(tag)::type;
    lstm_rows(a.data<T>(), cp.data<T>(), h.data<T>(), c_new.data<T>(), n, hid);
  });
  return {h, c_new};
}

std::tuple<Tensor, Tensor> lstm_cell_backward(const Tensor& gates, const Tensor& c,
                                              const Tensor& gh, const Tensor& gc) {
  const int64_t hid = check_cell("lstm_cell_backward", 4, {&gates}, {&c, &gh, &gc});
  const int64_t n = gates.size(0);
  Tensor a = as_contiguous(gates), cp = as_contiguous(c), g_h = as_contiguous(gh),
         g_c = as_contiguous(gc);
  Tensor d_gates = Tensor::empty({n, 4 * hid}, gates.dtype()),
         d_c = Tensor::empty({n, hid}, gates.dtype());
  dispatch_floating(gates.dtype(), "lstm_cell_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    lstm_rows_backward(a.data<T>(), cp.data<T>(), g_h.data<T>(), g_c.data<T>(), d_gates.data<T>(),
                       d_c.data<T>(), n, hid);
  });
  return {d_gates, d_c};
}

Tensor gru_cell(const Tensor& gi, const Tensor& gh, const Tensor& h) {
  const int64_t hid = check_cell("gru_cell", 3, {&gi, &gh}, {&h});
  const int64_t n = gi.size(0);
  Tensor a = as_contiguous(gi), b = as_contiguous(gh), hp = as_contiguous(h);
  Tensor out = Tensor::empty({n, hid}, gi.dtype());
  dispatch_floating(gi.dtype(), "gru_cell", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gru_rows(a.data<T>(), b.data<T>(), hp.data<T>(), out.data<T>(), n, hid);
  });
  return out;
}

std::tuple<Tensor, Tensor, Tensor> gru_cell_backward(const Tensor& gi, const Tensor& gh,
                                                     const Tensor& h, const Tensor& grad) {
  const int64_t hid = check_cell("gru_cell_backward", 3, {&gi, &gh}, {&h, &grad});
  const int64_t n = gi.size(0);
  Tensor a = as_contiguous(gi), b = as_contiguous(gh), hp = as_contiguous(h),
         g = as_contiguous(grad);
  Tensor d_gi = Tensor::empty({n, 3 * hid}, gi.dtype()),
         d_gh = Tensor::empty({n, 3 * hid}, gi.dtype()), d_h = Tensor::empty({n, hid}, gi.dtype());
  dispatch_floating(gi.dtype(), "gru_cell_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gru_rows_backward(a.data<T>(), b.data<T>(), hp.data<T>(), g.data<T>(), d_gi.data<T>(),
                      d_gh.data<T>(), d_h.data<T>(), n, hid);
  });
  return {d_gi, d_gh, d_h};
}

// The layer's forward: gates = x @ w_ih.T + bias for every step in one GEMM, then for each step
// (from the last when reversed) gates[t] += h @ w_hh.T and the cell.
std::tuple<Tensor, Tensor, Tensor> lstm_layer(const Tensor& x, const Tensor& h0, const Tensor& c0,
                                              const Tensor& w_ih, const Tensor& w_hh,
                                              const Tensor& bias, bool reverse) {
  const int64_t hid = check_layer("lstm_layer", x, c0, w_hh, 0);
  const int64_t steps = x.size(0), n = x.size(1), in = x.size(2), g4 = 4 * hid;
  check_optional("lstm_layer", "h0", h0, c0.sizes(), x);
  h0.check_defined("lstm_layer");
  check_optional("lstm_layer", "w_ih", w_ih, {g4, in}, x);
  w_ih.check_defined("lstm_layer");
  check_optional("lstm_layer", "bias", bias, {g4}, x);
  Tensor xc = as_contiguous(x), h0c = as_contiguous(h0), c0c = as_contiguous(c0),
         wi = as_contiguous(w_ih), wh = as_contiguous(w_hh),
         b = bias.defined() ? as_contiguous(bias) : bias;
  Tensor hs = Tensor::empty({steps, n, hid}, x.dtype()),
         cs = Tensor::empty({steps, n, hid}, x.dtype());
  Tensor gates = Tensor::empty({steps, n, g4}, x.dtype());
  dispatch_floating(x.dtype(), "lstm_layer", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* g = gates.data<T>();
    const int64_t rows = steps * n;
    if (rows == 0) return;
    if (b.defined()) {
      for (int64_t r = 0; r < rows; ++r) std::copy(b.data<T>(), b.data<T>() + g4, g + r * g4);
    }
    const StepGemm<T> project(wi.data<T>(), in, true, in, g4);  // x @ w_ih.T, all steps at once
    project(rows, xc.data<T>(), in, g, g4, b.defined());
    const T* h = h0c.data<T>();
    const T* c = c0c.data<T>();
    const StepGemm<T> recur(wh.data<T>(), hid, true, hid, g4);  // h @ w_hh.T
    for (int64_t k = 0; k < steps; ++k) {
      const int64_t t = reverse ? steps - 1 - k : k;
      T* gt = g + t * n * g4;
      recur(n, h, hid, gt, g4, true);
      T* ht = hs.data<T>() + t * n * hid;
      T* ct = cs.data<T>() + t * n * hid;
      lstm_rows(gt, c, ht, ct, n, hid);
      h = ht;
      c = ct;
    }
  });
  return {hs, cs, gates};
}

// Backpropagation through time: for each step from the last the forward ran, the cell's backward
// from gh = grad_hs[t] + (the next step's grad_gates) @ w_hh and gc = grad_cs[t] + (the next
// step's grad of its starting cell state).
std::tuple<Tensor, Tensor> lstm_layer_bptt(const Tensor& gates, const Tensor& cs, const Tensor& c0,
                                           const Tensor& w_hh, const Tensor& grad_hs,
                                           const Tensor& grad_cs, const Tensor& grad_gates,
                                           bool reverse) {
  const int64_t hid = check_layer("lstm_layer_bptt", gates, c0, w_hh, 4);
  const int64_t steps = gates.size(0), n = gates.size(1), g4 = 4 * hid;
  const Shape state{steps, n, hid};
  cs.check_defined("lstm_layer_bptt");
  check_optional("lstm_layer_bptt", "cs", cs, state, gates);
  check_optional("lstm_layer_bptt", "grad_hs", grad_hs, state, gates);
  check_optional("lstm_layer_bptt", "grad_cs", grad_cs, state, gates);
  check_optional("lstm_layer_bptt", "grad_gates", grad_gates, gates.sizes(), gates);
  Tensor a = as_contiguous(gates), csc = as_contiguous(cs), c0c = as_contiguous(c0),
         wh = as_contiguous(w_hh);
  Tensor ghs = grad_hs.defined() ? as_contiguous(grad_hs) : grad_hs;
  Tensor gcs = grad_cs.defined() ? as_contiguous(grad_cs) : grad_cs;
  Tensor ggs = grad_gates.defined() ? as_contiguous(grad_gates) : grad_gates;
  Tensor d_gates = Tensor::empty({steps, n, g4}, gates.dtype()),
         d_cs = Tensor::empty(state, gates.dtype());
  Tensor work = Tensor::empty({3, n, hid}, gates.dtype());  // dh (from the next step), gh, gc
  dispatch_floating(gates.dtype(), "lstm_layer_bptt", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t m = n * hid;
    T* dh = work.data<T>();
    T* gh = dh + m;
    T* gc = gh + m;
    std::fill(dh, dh + m, T(0));
    const T* gh_in = data_or_null<T>(ghs);
    const T* gc_in = data_or_null<T>(gcs);
    const T* gg_in = data_or_null<T>(ggs);
    const T* dc = nullptr;  // the next step's grad of its starting cell state
    const StepGemm<T> recur(wh.data<T>(), hid, false, g4, hid);  // grad_gates @ w_hh
    for (int64_t k = 0; k < steps; ++k) {
      const int64_t t = reverse ? k : steps - 1 - k;
      const int64_t prev = reverse ? t + 1 : t - 1;
      const T* cp = (prev >= 0 && prev < steps) ? csc.data<T>() + prev * m : c0c.data<T>();
      if (k == 0) {
        add_into<T>(gh_in ? gh_in + t * m : dh, nullptr, gh, m);
        add_into<T>(gc_in ? gc_in + t * m : dh, nullptr, gc, m);  // dh is still zeros here
      } else {
        add_into<T>(dh, gh_in ? gh_in + t * m : nullptr, gh, m);
        add_into<T>(dc, gc_in ? gc_in + t * m : nullptr, gc, m);
      }
      T* dg = d_gates.data<T>() + t * n * g4;
      T* dct = d_cs.data<T>() + t * m;
      lstm_rows_backward(a.data<T>() + t * n * g4, cp, gh, gc, dg, dct, n, hid);
      if (gg_in) {
        const T* extra = gg_in + t * n * g4;
        for (int64_t e = 0; e < n * g4; ++e) dg[e] += extra[e];
      }
      if (k + 1 < steps) recur(n, dg, g4, dh, hid, false);
      dc = dct;
    }
  });
  return {d_gates, d_cs};
}

}  // namespace tg::kernel

namespace tg::kernel {

// The weight gradients of a layer from its gates' gradients D (T, N, 4H) as GEMMs over all steps:
// D.T @ x, D.T @ (each step's previous h: h0 for the first step, else hs of the step before), and
// D's column sums.
std::tuple<Tensor, Tensor, Tensor> lstm_layer_weight_grads(const Tensor& d_gates, const Tensor& x,
                                                           const Tensor& hs, const Tensor& h0,
                                                           bool reverse) {
  for (const Tensor* t : {&d_gates, &x, &hs, &h0}) t->check_defined("lstm_layer_weight_grads");
  if (!is_floating(d_gates.dtype()))
    throw ValueError(std::string("lstm_layer_weight_grads: unsupported dtype ") +
                     dtype_name(d_gates.dtype()) + " (expected float32 or float64)");
  if (d_gates.dim() != 3 || d_gates.size(2) % 4 != 0 || x.dim() != 3 || hs.dim() != 3 ||
      h0.dim() != 2)
    throw ValueError(
        "lstm_layer_weight_grads: expected d_gates (T, N, 4H), x (T, N, I), hs (T, "
        "N, H) and h0 (N, H), got " +
        shape_str(d_gates.sizes()) + ", " + shape_str(x.sizes()) + ", " + shape_str(hs.sizes()) +
        " and " + shape_str(h0.sizes()));
  const int64_t steps = d_gates.size(0), n = d_gates.size(1), g4 = d_gates.size(2), hid = g4 / 4,
                in = x.size(2);
  if (x.size(0) != steps || x.size(1) != n || hs.sizes() != Shape{steps, n, hid} ||
      h0.sizes() != Shape{n, hid})
    throw ValueError("lstm_layer_weight_grads: expected x (" + std::to_string(steps) + ", " +
                     std::to_string(n) + ", I), hs " + shape_str(Shape{steps, n, hid}) +
                     " and h0 " + shape_str(Shape{n, hid}) + " for d_gates of shape " +
                     shape_str(d_gates.sizes()) + ", got " + shape_str(x.sizes()) + ", " +
                     shape_str(hs.sizes()) + " and " + shape_str(h0.sizes()));
  for (const Tensor* t : {&x, &hs, &h0})
    if (t->dtype() != d_gates.dtype())
      throw ValueError(std::string("lstm_layer_weight_grads: dtypes differ: ") +
                       dtype_name(d_gates.dtype()) + " and " + dtype_name(t->dtype()));
  Tensor dg = as_contiguous(d_gates), xc = as_contiguous(x), hsc = as_contiguous(hs),
         h0c = as_contiguous(h0);
  Tensor g_ih = Tensor::empty({g4, in}, d_gates.dtype()),
         g_hh = Tensor::empty({g4, hid}, d_gates.dtype()),
         g_b = Tensor::empty({g4}, d_gates.dtype());
  dispatch_floating(d_gates.dtype(), "lstm_layer_weight_grads", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* d = dg.data<T>();
    const int64_t rows = steps * n;
    layer_gemm<T>(true, g4, in, rows, d, g4, xc.data<T>(), in, g_ih.data<T>(), in, false);
    // every step but the first (in the direction the layer ran) reads the h of its neighbour in
    // hs; the first reads h0
    const int64_t later = rows - n;
    const T* d_later = reverse ? d : d + n * g4;
    const T* d_first = reverse ? d + later * g4 : d;
    const T* h_later = reverse ? hsc.data<T>() + n * hid : hsc.data<T>();
    layer_gemm<T>(true, g4, hid, std::max<int64_t>(later, 0), d_later, g4, h_later, hid,
                  g_hh.data<T>(), hid, false);
    if (steps > 0)
      layer_gemm<T>(true, g4, hid, n, d_first, g4, h0c.data<T>(), hid, g_hh.data<T>(), hid, true);
    T* gb = g_b.data<T>();
    std::fill(gb, gb + g4, T(0));
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = d + r * g4;
      for (int64_t j = 0; j < g4; ++j) gb[j] += row[j];
    }
  });
  return {g_ih, g_hh, g_b};
}

}  // namespace tg::kernel
