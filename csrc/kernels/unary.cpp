// Elementwise unary kernels, cast and the copy helpers.
//
// Note [SIMD clones]
// The build targets baseline x86-64 (SSE2). The transcendental loops (exp, log, tanh, sigmoid,
// sin, cos),
// which are compute bound, are also compiled for x86-64-v3 (AVX2 + FMA) through GCC's
// target_clones: the dynamic loader picks the best version once. See also vecmath.h.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")  // lets the vec:: selects vectorise (vecmath.h)
#endif
#include <cmath>
#include <limits>

#include "kernels/kernels.h"
#include "kernels/loops.h"
#include "kernels/vecmath.h"

namespace tg::kernel {
namespace detail {

// Copies plan operand 1 into operand 0 by square tiles over plan dims 0 and 1 (outer dims, if
// any, one after the other; the outer blocks are split across threads).
template <class E>
void copy_transposed(const StridedPlan& p) {
  constexpr int64_t B = 32;
  const int64_t n0 = p.size[0], n1 = p.size[1];
  const int64_t d1 = p.stride[0][1], s0 = p.stride[1][0];  // bytes
  int64_t outer = 1;
  for (int d = 2; d < p.ndim; ++d) outer *= p.size[d];
  const int64_t blocks1 = (n1 + B - 1) / B;
  parallel_for(outer * blocks1, std::max<int64_t>(1, kGrainCheap / (B * n0)),
               [&](int64_t b, int64_t e) {
                 for (int64_t job = b; job < e; ++job) {
                   int64_t o = job / blocks1, j0 = (job % blocks1) * B;
                   char* dbase = p.base[0];
                   const char* sbase = p.base[1];
                   for (int d = 2, rem = 0; d < p.ndim; ++d) {
                     (void)rem;
                     int64_t i = o % p.size[d];
                     o /= p.size[d];
                     dbase += i * p.stride[0][d];
                     sbase += i * p.stride[1][d];
                   }
                   const int64_t j1 = std::min(n1, j0 + B);
                   for (int64_t i0 = 0; i0 < n0; i0 += B) {
                     const int64_t i1 = std::min(n0, i0 + B);
                     for (int64_t j = j0; j < j1; ++j) {
                       E* drow = reinterpret_cast<E*>(dbase + j * d1);
                       const char* scol = sbase + j * static_cast<int64_t>(sizeof(E));
                       for (int64_t i = i0; i < i1; ++i)
                         drow[i] = *reinterpret_cast<const E*>(scol + i * s0);
                     }
                   }
                 }
               });
}

void copy_into(const Tensor& dst, const Tensor& src) {
  const int64_t nd = dst.dim(), ns = src.dim();
  bool ok = ns <= nd;
  for (int64_t i = 0; ok && i < ns; ++i) {
    int64_t s = src.sizes()[i], d = dst.sizes()[nd - ns + i];
    ok = s == d || s == 1;
  }
  if (!ok)
    throw ValueError("cannot copy a tensor of shape " + shape_str(src.sizes()) + " into shape " +
                     shape_str(dst.sizes()) + " (not broadcastable)");
  if (dst.numel() == 0) return;
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() &&
      dst.numel() == src.numel()) {
    char* d = static_cast<char*>(dst.data_ptr());
    const char* s = static_cast<const char*>(src.data_ptr());
    const int64_t item = static_cast<int64_t>(dst.itemsize());
    parallel_for(dst.numel(), kGrainCheap * 2, [&](int64_t b, int64_t e) {
      std::memcpy(d + b * item, s + b * item, static_cast<size_t>((e - b) * item));
    });
    return;
  }
  StridedPlan plan;
  build_plan(plan, dst.sizes(), {&dst, &src});
  if (dst.dtype() == src.dtype() && plan.ndim >= 2) {
    const int64_t item = static_cast<int64_t>(dst.itemsize());
    // A transpose (src walks dim 1 of the plan linearly, dst dim 0): tiles keep both sides in
    // cache.
    if (plan.stride[0][0] == item && plan.stride[1][1] == item && plan.stride[1][0] != item &&
        plan.stride[0][1] != item) {
      switch (item) {
        case 1:
          copy_transposed<uint8_t>(plan);
          return;
        case 2:
          copy_transposed<uint16_t>(plan);
          return;
        case 4:
          copy_transposed<uint32_t>(plan);
          return;
        default:
          copy_transposed<uint64_t>(plan);
          return;
      }
    }
  }
  dispatch_storage(dst.dtype(), [&](auto to) {
    using TO = typename decltype(to)::type;
    dispatch_storage(src.dtype(), [&](auto ti) {
      using TI = typename decltype(ti)::type;
      plan_run(plan, kGrainCheap, [](char** p, const int64_t* s, int64_t n) {
        unary_inner<TO, TI>(p, s, n, [](TI v) { return convert_element<TO, TI>(v); });
      });
    });
  });
}

Tensor to_dtype(const Tensor& x, DType d) {
  if (x.dtype() == d) return x;
  Tensor out = Tensor::empty(x.sizes(), d);
  copy_into(out, x);
  return out;
}

Tensor as_contiguous(const Tensor& x) {
  if (x.is_contiguous()) return x;
  Tensor out = Tensor::empty(x.sizes(), x.dtype());
  copy_into(out, x);
  return out;
}

}  // namespace detail

using namespace detail;

namespace {

// Floating kernels: integer/bool inputs compute in the default dtype (floating_dtype).
template <class F>
Tensor floating_unary(const Tensor& x, const char* name, int64_t grain, F f) {
  x.check_defined(name);
  if (!is_floating(x.dtype()))
    return floating_unary(to_dtype(x, floating_dtype(x.dtype())), name, grain, f);
  if (is_half(x.dtype()))  // Note [Storage dtypes]
    return to_dtype(floating_unary(to_dtype(x, DType::Float32), name, grain, f), x.dtype());
  return dispatch_floating(x.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return unary_op<T, T>(x, grain, [&](T v) { return f(v); });
  });
}

using LoopF32 = void (*)(float*, const float*, int64_t);
using LoopF64 = void (*)(double*, const double*, int64_t);

// As floating_unary, with contiguous inputs going through precompiled (cloned) loops.
template <class F>
Tensor floating_unary_simd(const Tensor& x, const char* name, LoopF32 f32, LoopF64 f64, F f) {
  x.check_defined(name);
  if (!is_floating(x.dtype()))
    return floating_unary_simd(to_dtype(x, floating_dtype(x.dtype())), name, f32, f64, f);
  if (is_half(x.dtype()))  // Note [Storage dtypes]
    return to_dtype(floating_unary_simd(to_dtype(x, DType::Float32), name, f32, f64, f), x.dtype());
  if (!x.is_contiguous()) return floating_unary(x, name, kGrainExpensive, f);
  Tensor out = Tensor::empty(x.sizes(), x.dtype());
  const int64_t n = x.numel();
  if (x.dtype() == DType::Float32) {
    float* o = out.data<float>();
    const float* in = x.data<float>();
    parallel_for(n, kGrainExpensive, [&](int64_t b, int64_t e) { f32(o + b, in + b, e - b); });
  } else {
    double* o = out.data<double>();
    const double* in = x.data<double>();
    parallel_for(n, kGrainExpensive, [&](int64_t b, int64_t e) { f64(o + b, in + b, e - b); });
  }
  return out;
}

#define TG_SIMD_LOOPS(NAME)                                                                 \
  TG_CLONES void NAME##_f32(float* __restrict o, const float* __restrict in, int64_t n) {   \
    for (int64_t i = 0; i < n; ++i) o[i] = vec::NAME(in[i]);                                \
  }                                                                                         \
  TG_CLONES void NAME##_f64(double* __restrict o, const double* __restrict in, int64_t n) { \
    for (int64_t i = 0; i < n; ++i) o[i] = vec::NAME(in[i]);                                \
  }
// float32: blocks whose arguments are all small take the float reduction, others the double one.
#define TG_TRIG_LOOPS(NAME)                                                                 \
  TG_CLONES void NAME##_f32(float* __restrict o, const float* __restrict in, int64_t n) {   \
    for (int64_t b = 0; b < n; b += 256) {                                                  \
      const int64_t m = n - b < 256 ? n - b : 256;                                          \
      int32_t big = 0;                                                                      \
      for (int64_t i = 0; i < m; ++i)                                                       \
        big += (in[b + i] > vec::kTrigFastF) | (in[b + i] < -vec::kTrigFastF);              \
      if (big == 0) {                                                                       \
        for (int64_t i = 0; i < m; ++i) o[b + i] = vec::NAME##_fast(in[b + i]);             \
      } else {                                                                              \
        for (int64_t i = 0; i < m; ++i) o[b + i] = vec::NAME(in[b + i]);                    \
        for (int64_t i = 0; i < m; ++i)                                                     \
          if (vec::trig_needs_libm(in[b + i])) o[b + i] = std::NAME(in[b + i]);             \
      }                                                                                     \
    }                                                                                       \
  }                                                                                         \
  TG_CLONES void NAME##_f64(double* __restrict o, const double* __restrict in, int64_t n) { \
    for (int64_t i = 0; i < n; ++i) o[i] = vec::NAME(in[i]);                                \
    for (int64_t i = 0; i < n; ++i)                                                         \
      if (vec::trig_needs_libm(in[i])) o[i] = std::NAME(in[i]);                             \
  }
TG_TRIG_LOOPS(sin)
TG_TRIG_LOOPS(cos)
#undef TG_TRIG_LOOPS
TG_SIMD_LOOPS(exp)
TG_SIMD_LOOPS(log)
TG_SIMD_LOOPS(tanh)
TG_SIMD_LOOPS(sigmoid)
#undef TG_SIMD_LOOPS

}  // namespace

#define TG_FLOAT_UNARY(NAME, GRAIN, EXPR)               \
  Tensor NAME(const Tensor& x) {                        \
    return floating_unary(x, #NAME, GRAIN, [](auto v) { \
      using T = decltype(v);                            \
      return T(EXPR);                                   \
    });                                                 \
  }
#define TG_SIMD_UNARY(NAME)                                          \
  Tensor NAME(const Tensor& x) {                                     \
    return floating_unary_simd(x, #NAME, NAME##_f32, NAME##_f64,     \
                               [](auto v) { return vec::NAME(v); }); \
  }

TG_SIMD_UNARY(exp)
TG_SIMD_UNARY(log)
TG_SIMD_UNARY(tanh)
TG_SIMD_UNARY(sigmoid)
// sin/cos: the strided fallback uses libm directly (the cloned loops patch large arguments).
Tensor sin(const Tensor& x) {
  return floating_unary_simd(x, "sin", sin_f32, sin_f64, [](auto v) { return std::sin(v); });
}
Tensor cos(const Tensor& x) {
  return floating_unary_simd(x, "cos", cos_f32, cos_f64, [](auto v) { return std::cos(v); });
}
TG_FLOAT_UNARY(log1p, kGrainExpensive, std::log1p(v))
TG_FLOAT_UNARY(expm1, kGrainExpensive, std::expm1(v))
TG_FLOAT_UNARY(sqrt, kGrainCheap, std::sqrt(v))
TG_FLOAT_UNARY(rsqrt, kGrainCheap, T(1) / std::sqrt(v))
TG_FLOAT_UNARY(reciprocal, kGrainCheap, T(1) / v)
TG_FLOAT_UNARY(tan, kGrainExpensive, std::tan(v))
TG_FLOAT_UNARY(erf, kGrainExpensive, std::erf(v))

#undef TG_FLOAT_UNARY
#undef TG_SIMD_UNARY

namespace {

// abs/sign/relu keep int64; bool computes as int64.
template <class F>
Tensor numeric_unary(const Tensor& x, const char* name, F f) {
  x.check_defined(name);
  if (x.dtype() > DType::Float64)  // Note [Storage dtypes]
    return to_dtype(numeric_unary(to_dtype(x, compute_dtype(x.dtype())), name, f), x.dtype());
  Tensor xi = x.dtype() == DType::Bool ? to_dtype(x, DType::Int64) : x;
  return dispatch_numeric(xi.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return unary_op<T, T>(xi, kGrainCheap, [&](T v) { return f(v); });
  });
}

}  // namespace

Tensor neg(const Tensor& x) {
  x.check_defined("neg");
  if (x.dtype() == DType::Bool)
    throw ValueError(
        "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
        "invert a mask, use the `~` or `logical_not()` operator instead.");
  if (x.dtype() > DType::Float64)
    return to_dtype(neg(to_dtype(x, compute_dtype(x.dtype()))), x.dtype());
  return dispatch_numeric(x.dtype(), "neg", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return unary_op<T, T>(x, kGrainCheap, [](T v) { return T(-v); });
  });
}

Tensor abs(const Tensor& x) {
  return numeric_unary(x, "abs", [](auto v) {
    using T = decltype(v);
    return v < T(0) ? T(-v) : v;
  });
}

Tensor sign(const Tensor& x) {
  return numeric_unary(x, "sign", [](auto v) {
    using T = decltype(v);
    return v > T(0) ? T(1) : (v < T(0) ? T(-1) : v);  // keeps 0 and NaN
  });
}

Tensor relu(const Tensor& x) {
  return numeric_unary(x, "relu", [](auto v) {
    using T = decltype(v);
    return v < T(0) ? T(0) : v;  // NaN propagates
  });
}

Tensor pow_scalar(const Tensor& x, double exponent) {
  x.check_defined("pow_scalar");
  if (!is_floating(x.dtype())) return pow_scalar(to_dtype(x, floating_dtype(x.dtype())), exponent);
  if (is_half(x.dtype()))
    return to_dtype(pow_scalar(to_dtype(x, DType::Float32), exponent), x.dtype());
  return dispatch_floating(x.dtype(), "pow_scalar", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T e = static_cast<T>(exponent);
    if (exponent == 2.0) return unary_op<T, T>(x, kGrainCheap, [](T v) { return v * v; });
    if (exponent == 1.0) return unary_op<T, T>(x, kGrainCheap, [](T v) { return v; });
    if (exponent == 0.0) return unary_op<T, T>(x, kGrainCheap, [](T) { return T(1); });
    if (exponent == 3.0) return unary_op<T, T>(x, kGrainCheap, [](T v) { return v * v * v; });
    if (exponent == 0.5) return unary_op<T, T>(x, kGrainCheap, [](T v) { return std::sqrt(v); });
    if (exponent == -1.0) return unary_op<T, T>(x, kGrainCheap, [](T v) { return T(1) / v; });
    if (exponent == -2.0) return unary_op<T, T>(x, kGrainCheap, [](T v) { return T(1) / (v * v); });
    if (exponent == -0.5)
      return unary_op<T, T>(x, kGrainCheap, [](T v) { return T(1) / std::sqrt(v); });
    return unary_op<T, T>(x, kGrainExpensive, [e](T v) { return std::pow(v, e); });
  });
}

Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max) {
  x.check_defined("clamp");
  if (x.dtype() == DType::Bool) return clamp(to_dtype(x, DType::Int64), min, max);
  if (x.dtype() > DType::Float64)
    return to_dtype(clamp(to_dtype(x, compute_dtype(x.dtype())), min, max), x.dtype());
  if (x.dtype() == DType::Int64) {  // stays int64: bounds rounded inwards
    if (min) min = std::ceil(*min);
    if (max) max = std::floor(*max);
  }
  return dispatch_numeric(x.dtype(), "clamp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const bool has_lo = min.has_value(), has_hi = max.has_value();
    // convert_element: an int64 bound out of range is defined (the API checked it already).
    const T lo = has_lo ? convert_element<T, double>(*min) : T(0);
    const T hi = has_hi ? convert_element<T, double>(*max) : T(0);
    // A NaN bound makes every element NaN, as torch's max/min propagate it (the comparisons
    // below would ignore it). Integer tensors never see one: a float bound promotes them.
    if constexpr (std::is_floating_point_v<T>) {
      if ((has_lo && std::isnan(lo)) || (has_hi && std::isnan(hi))) {
        constexpr T kNaN = std::numeric_limits<T>::quiet_NaN();
        return unary_op<T, T>(x, kGrainCheap, [](T) { return kNaN; });
      }
    }
    if (has_lo && has_hi)
      return unary_op<T, T>(x, kGrainCheap, [lo, hi](T v) {
        T t = v < lo ? lo : v;  // NaN propagates; min > max gives max (as PyTorch)
        return t > hi ? hi : t;
      });
    if (has_lo) return unary_op<T, T>(x, kGrainCheap, [lo](T v) { return v < lo ? lo : v; });
    if (has_hi) return unary_op<T, T>(x, kGrainCheap, [hi](T v) { return v > hi ? hi : v; });
    return unary_op<T, T>(x, kGrainCheap, [](T v) { return v; });
  });
}

Tensor cast(const Tensor& x, DType dtype) {
  x.check_defined("cast");
  Tensor out = Tensor::empty(x.sizes(), dtype);
  copy_into(out, x);
  return out;
}

Tensor logical_not(const Tensor& x) {
  x.check_defined("logical_not");
  if (x.dtype() > DType::Float64) return logical_not(to_dtype(x, compute_dtype(x.dtype())));
  return dispatch_all(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return unary_op<bool, T>(x, kGrainCheap, [](T v) { return v == T(0); });
  });
}

}  // namespace tg::kernel
