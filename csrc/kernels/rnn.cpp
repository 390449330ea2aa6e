// Recurrent-cell kernels: lstm_cell and lstm_cell_backward (their section of
// translator/signatures.py). Gates are (N, 4H), pre-activation, in torch's order (i, f, g, o);
// the backward recomputes the activations from the gates (Note [The LSTM cell recomputes its
// gates] in formulas/rnn.py). The numpy twin is python/transgrad/reference/kernels_rnn.py; both
// compute in the gates' dtype in the same order of operations, here with vecmath.h's sigmoid and
// tanh (a few ulp from numpy's) so that the loop over a row vectorises, and compiled twice
// (Note [SIMD clones] in unary.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")  // lets the vec:: selects vectorise (vecmath.h)
#endif
#include <cmath>
#include <string>
#include <tuple>

#include "kernels/kernels.h"
#include "kernels/loops.h"
#include "kernels/vecmath.h"

namespace tg::kernel {
using detail::as_contiguous;

namespace {

// Checks gates (N, 4H) and each state (N, H) of the same floating dtype; returns H.
int64_t check_cell(const char* name, const Tensor& gates, std::initializer_list<const Tensor*> states) {
  gates.check_defined(name);
  if (gates.dim() != 2 || gates.size(1) % 4 != 0)
    throw ValueError(std::string(name) + ": gates must be (N, 4H), got shape " + shape_str(gates.sizes()));
  if (!is_floating(gates.dtype()))
    throw ValueError(std::string(name) + ": unsupported dtype " + dtype_name(gates.dtype()) +
                     " (expected float32 or float64)");
  const int64_t n = gates.size(0), h = gates.size(1) / 4;
  for (const Tensor* s : states) {
    s->check_defined(name);
    if (s->dim() != 2 || s->size(0) != n || s->size(1) != h)
      throw ValueError(std::string(name) + ": expected a state of shape (" + std::to_string(n) + ", " +
                       std::to_string(h) + ") for gates of shape " + shape_str(gates.sizes()) + ", got " +
                       shape_str(s->sizes()));
    if (s->dtype() != gates.dtype())
      throw ValueError(std::string(name) + ": dtypes differ: gates " + dtype_name(gates.dtype()) + ", state " +
                       dtype_name(s->dtype()));
  }
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
TG_INLINE void lstm_row(Gates<T> a, const T* __restrict c, T* __restrict h, T* __restrict c_new, int64_t hid) {
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
TG_INLINE void lstm_row_backward(Gates<T> a, const T* __restrict c, const T* __restrict gh, const T* __restrict gc,
                                 T* d, T* __restrict dc, int64_t hid) {
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
TG_CLONES void lstm_rows(const float* a, const float* c, float* h, float* cn, int64_t n, int64_t hid) {
  for (int64_t r = 0; r < n; ++r) lstm_row(gates_of(a + r * 4 * hid, hid), c + r * hid, h + r * hid, cn + r * hid, hid);
}
TG_CLONES void lstm_rows(const double* a, const double* c, double* h, double* cn, int64_t n, int64_t hid) {
  for (int64_t r = 0; r < n; ++r) lstm_row(gates_of(a + r * 4 * hid, hid), c + r * hid, h + r * hid, cn + r * hid, hid);
}
TG_CLONES void lstm_rows_backward(const float* a, const float* c, const float* gh, const float* gc, float* d,
                                  float* dc, int64_t n, int64_t hid) {
  for (int64_t r = 0; r < n; ++r)
    lstm_row_backward(gates_of(a + r * 4 * hid, hid), c + r * hid, gh + r * hid, gc + r * hid, d + r * 4 * hid, dc + r * hid, hid);
}
TG_CLONES void lstm_rows_backward(const double* a, const double* c, const double* gh, const double* gc, double* d,
                                  double* dc, int64_t n, int64_t hid) {
  for (int64_t r = 0; r < n; ++r)
    lstm_row_backward(gates_of(a + r * 4 * hid, hid), c + r * hid, gh + r * hid, gc + r * hid, d + r * 4 * hid, dc + r * hid, hid);
}

}  // namespace

std::tuple<Tensor, Tensor> lstm_cell(const Tensor& gates, const Tensor& c) {
  const int64_t hid = check_cell("lstm_cell", gates, {&c});
  const int64_t n = gates.size(0);
  Tensor a = as_contiguous(gates), cp = as_contiguous(c);
  Tensor h = Tensor::empty({n, hid}, gates.dtype()), c_new = Tensor::empty({n, hid}, gates.dtype());
  dispatch_floating(gates.dtype(), "lstm_cell", [&](auto tag) {
    using T = typename decltype(tag)::type;
    lstm_rows(a.data<T>(), cp.data<T>(), h.data<T>(), c_new.data<T>(), n, hid);
  });
  return {h, c_new};
}

std::tuple<Tensor, Tensor> lstm_cell_backward(const Tensor& gates, const Tensor& c, const Tensor& gh,
                                              const Tensor& gc) {
  const int64_t hid = check_cell("lstm_cell_backward", gates, {&c, &gh, &gc});
  const int64_t n = gates.size(0);
  Tensor a = as_contiguous(gates), cp = as_contiguous(c), g_h = as_contiguous(gh), g_c = as_contiguous(gc);
  Tensor d_gates = Tensor::empty({n, 4 * hid}, gates.dtype()), d_c = Tensor::empty({n, hid}, gates.dtype());
  dispatch_floating(gates.dtype(), "lstm_cell_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    lstm_rows_backward(a.data<T>(), cp.data<T>(), g_h.data<T>(), g_c.data<T>(), d_gates.data<T>(), d_c.data<T>(), n,
                       hid);
  });
  return {d_gates, d_c};
}

}  // namespace tg::kernel
