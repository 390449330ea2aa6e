// Batch-normalisation kernels: batch_norm_stats, channel_affine and batch_norm_backward (their
// section of translator/signatures.py; Note [Fused batch_norm] in formulas/norm.py says how the
// formula uses them). x is (N, C, ...): channel c is N runs of L = prod(dims 2..) contiguous
// values once x is contiguous, and every statistic is per channel over those N * L = M values.
// The numpy twin is python/transgrad/reference/kernels_nn.py.
//
// Sums accumulate in lanes of the input's dtype over one run and in double across runs (as
// reduce.cpp's sums), so float32 statistics stay near numpy's float64 ones; each channel is one
// task of the intra-op pool.
#include <cmath>
#include <string>
#include <tuple>

#include "kernels/kernels.h"
#include "kernels/loops.h"

namespace tg::kernel {
using namespace detail;

namespace {

// x as (N, C, L) for a checked (N, C, ...) floating tensor.
struct Channels {
  int64_t n, c, l;
};

Channels channels_of(const char* name, const Tensor& x) {
  x.check_defined(name);
  if (x.dim() < 2)
    throw ValueError(std::string(name) +
                     ": expected an (N, C, ...) input of at least 2 dims, got shape " +
                     shape_str(x.sizes()));
  if (!is_floating(x.dtype()))
    throw ValueError(std::string(name) + ": unsupported dtype " + dtype_name(x.dtype()) +
                     " (expected a floating dtype)");
  int64_t l = 1;
  for (int64_t d = 2; d < x.dim(); ++d) l *= x.size(d);
  return {x.size(0), x.size(1), l};
}

// A per-channel operand (C,) of x's dtype, contiguous.
Tensor per_channel(const char* name, const char* what, const Tensor& t, const Tensor& x,
                   int64_t c) {
  t.check_defined(name);
  if (t.dim() != 1 || t.size(0) != c)
    throw ValueError(std::string(name) + ": " + what + " must have shape (" + std::to_string(c) +
                     ",) for an input of shape " + shape_str(x.sizes()) + ", got " +
                     shape_str(t.sizes()));
  if (t.dtype() != x.dtype())
    throw ValueError(std::string(name) + ": " + what + " has dtype " + dtype_name(t.dtype()) +
                     ", the input " + dtype_name(x.dtype()));
  return as_contiguous(t);
}

constexpr int64_t kLanes = 16;

// sum(p[i]) over one run, in lanes.
template <class T>
TG_INLINE double run_sum(const T* __restrict p, int64_t n) {
  T acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) acc[j] += p[i + j];
  double total = 0;
  for (; i < n; ++i) total += p[i];
  for (int64_t j = 0; j < kLanes; ++j) total += acc[j];
  return total;
}

// sum((p[i] - m) * (q[i] - m)) over one run (q == p: the squared deviations), in lanes.
template <class T>
TG_INLINE double run_dot(const T* __restrict p, const T* __restrict q, T m, int64_t n) {
  T acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) acc[j] += p[i + j] * (q[i + j] - m);
  double total = 0;
  for (; i < n; ++i) total += p[i] * (q[i] - m);
  for (int64_t j = 0; j < kLanes; ++j) total += acc[j];
  return total;
}

template <class T>
TG_INLINE double run_sq(const T* __restrict p, T m, int64_t n) {
  T acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) {
      const T d = p[i + j] - m;
      acc[j] += d * d;
    }
  double total = 0;
  for (; i < n; ++i) total += double(p[i] - m) * double(p[i] - m);
  for (int64_t j = 0; j < kLanes; ++j) total += acc[j];
  return total;
}

int64_t channel_grain(const Channels& s) {
  return std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(s.n * s.l, 1));
}

}  // namespace

std::tuple<Tensor, Tensor> batch_norm_stats(const Tensor& x) {
  const Channels s = channels_of("batch_norm_stats", x);
  if (is_half(x.dtype())) {  // Note [Storage dtypes]
    auto [m, v] = batch_norm_stats(to_dtype(x, DType::Float32));
    return {to_dtype(m, x.dtype()), to_dtype(v, x.dtype())};
  }
  Tensor src = as_contiguous(x);
  Tensor mean = Tensor::empty({s.c}, x.dtype()), var = Tensor::empty({s.c}, x.dtype());
  dispatch_floating(x.dtype(), "batch_norm_stats", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = src.data<T>();
    T* mo = mean.data<T>();
    T* vo = var.data<T>();
    const double count = double(s.n * s.l);  // 0 gives nan statistics, as torch
    parallel_for(s.c, channel_grain(s), [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        double total = 0;
        for (int64_t i = 0; i < s.n; ++i) total += run_sum(in + (i * s.c + c) * s.l, s.l);
        const T m = T(total / count);
        double sq = 0;
        for (int64_t i = 0; i < s.n; ++i) sq += run_sq(in + (i * s.c + c) * s.l, m, s.l);
        mo[c] = m;
        vo[c] = T(sq / count);
      }
    });
  });
  return {mean, var};
}

Tensor channel_affine(const Tensor& x, const Tensor& scale, const Tensor& shift) {
  const Channels s = channels_of("channel_affine", x);
  if (is_half(x.dtype()))  // Note [Storage dtypes]
    return to_dtype(channel_affine(to_dtype(x, DType::Float32), to_dtype(scale, DType::Float32),
                                   to_dtype(shift, DType::Float32)),
                    x.dtype());
  Tensor a = per_channel("channel_affine", "scale", scale, x, s.c);
  Tensor b = per_channel("channel_affine", "shift", shift, x, s.c);
  Tensor src = as_contiguous(x);
  Tensor out = Tensor::empty(x.sizes(), x.dtype());
  dispatch_floating(x.dtype(), "channel_affine", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = src.data<T>();
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* o = out.data<T>();
    parallel_for(s.n * s.c, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(s.l, 1)),
                 [&](int64_t lo, int64_t hi) {
                   for (int64_t r = lo; r < hi; ++r) {
                     const T k = pa[r % s.c], d = pb[r % s.c];
                     const T* __restrict p = in + r * s.l;
                     T* __restrict q = o + r * s.l;
                     for (int64_t i = 0; i < s.l; ++i) q[i] = p[i] * k + d;
                   }
                 });
  });
  return out;
}

std::tuple<Tensor, Tensor> batch_norm_backward(const Tensor& grad, const Tensor& x,
                                               const Tensor& mean, const Tensor& rstd,
                                               const Tensor& weight) {
  const Channels s = channels_of("batch_norm_backward", x);
  grad.check_defined("batch_norm_backward");
  if (grad.sizes() != x.sizes())
    throw ValueError("batch_norm_backward: grad of shape " + shape_str(grad.sizes()) +
                     " for an input of shape " + shape_str(x.sizes()));
  if (grad.dtype() != x.dtype())
    throw ValueError(std::string("batch_norm_backward: grad has dtype ") +
                     dtype_name(grad.dtype()) + ", the input " + dtype_name(x.dtype()));
  if (is_half(x.dtype())) {  // Note [Storage dtypes]
    auto f = [](const Tensor& t) { return t.defined() ? to_dtype(t, DType::Float32) : t; };
    auto [gx, sums] = batch_norm_backward(f(grad), f(x), f(mean), f(rstd), f(weight));
    return {to_dtype(gx, x.dtype()), to_dtype(sums, x.dtype())};
  }
  Tensor pm = per_channel("batch_norm_backward", "mean", mean, x, s.c);
  Tensor pr = per_channel("batch_norm_backward", "rstd", rstd, x, s.c);
  Tensor pw =
      weight.defined() ? per_channel("batch_norm_backward", "weight", weight, x, s.c) : Tensor();
  Tensor g = as_contiguous(grad), src = as_contiguous(x);
  Tensor gx = Tensor::empty(x.sizes(), x.dtype());
  Tensor sums = Tensor::empty({2, s.c}, x.dtype());
  dispatch_floating(x.dtype(), "batch_norm_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* pg = g.data<T>();
    const T* in = src.data<T>();
    const T* m = pm.data<T>();
    const T* r = pr.data<T>();
    const T* w = pw.defined() ? pw.data<T>() : nullptr;
    T* o = gx.data<T>();
    T* so = sums.data<T>();
    const double count = double(s.n * s.l);
    parallel_for(s.c, channel_grain(s), [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        double sg = 0, sgx = 0;
        for (int64_t i = 0; i < s.n; ++i) {
          const int64_t off = (i * s.c + c) * s.l;
          sg += run_sum(pg + off, s.l);
          sgx += run_dot(pg + off, in + off, m[c], s.l);
        }
        const double rc = r[c], a = (w ? double(w[c]) : 1.0) * rc;
        so[c] = T(sg);
        so[s.c + c] = T(sgx * rc);
        // grad_x = a (g - sg / M - xhat sgx rstd / M) = g k1 + (x - mean) k2 + k0
        const T k1 = T(a), k2 = T(-a * rc * rc * sgx / count), k0 = T(-a * sg / count), mc = m[c];
        for (int64_t i = 0; i < s.n; ++i) {
          const int64_t off = (i * s.c + c) * s.l;
          const T* __restrict pgi = pg + off;
          const T* __restrict pxi = in + off;
          T* __restrict q = o + off;
          for (int64_t j = 0; j < s.l; ++j) q[j] = pgi[j] * k1 + (pxi[j] - mc) * k2 + k0;
        }
      }
    });
  });
  return {gx, sums};
}

}  // namespace tg::kernel
