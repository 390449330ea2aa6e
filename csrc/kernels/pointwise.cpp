// Elementwise kernels of torch's derivative table (issue 15): libm functions (hyperbolic,
// inverse trigonometric, exp2, erfc, lgamma), the special functions of special.cpp, trunc,
// nan_to_num, and the binary atan2, hypot, fmod, remainder and rounding divisions.
// Conventions: Note [Kernel conventions] (translator/signatures.py); edges: Note [Special
// function edges] (special.cpp).
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/kernels.h"
#include "kernels/loops.h"
#include "kernels/special_scalar.h"

namespace tg::kernel {
using namespace detail;

namespace {

// f(x) elementwise in x's floating dtype (integers/bool computed in the default dtype).
template <class F>
Tensor float_unary(const Tensor& x, const char* name, F f) {
  x.check_defined(name);
  if (!is_floating(x.dtype())) return float_unary(to_dtype(x, floating_dtype(x.dtype())), name, f);
  if (is_half(x.dtype()))
    return to_dtype(float_unary(to_dtype(x, DType::Float32), name, f), x.dtype());
  return dispatch_floating(x.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return unary_op<T, T>(x, kGrainExpensive, [&](T v) { return T(f(v)); });
  });
}

// f(a, b) broadcasting, in the result dtype; floating only (integers/bool in the default dtype).
template <class F>
Tensor float_binary(const Tensor& a, const Tensor& b, const char* name, F f) {
  a.check_defined(name);
  b.check_defined(name);
  DType common = result_type(a, b);
  if (!is_floating(common)) common = default_dtype();
  if (is_half(common))
    return to_dtype(float_binary(storage_operand(a, common, DType::Float32, false),
                                 storage_operand(b, common, DType::Float32, false), name, f),
                    common);
  Operand ac = as_dtype(a, common), bc = as_dtype(b, common);
  return dispatch_floating(common, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return binary_op<T, T, T>(*ac, *bc, name, kGrainExpensive,
                              [&](T x, T y) { return T(f(x, y)); });
  });
}

// f(a, b) broadcasting in the promoted dtype, int64 kept; bool raises, as torch. An integer
// division by zero raises (as torch's ZeroDivisionError), checked before the loop.
template <class F>
Tensor numeric_binary(const Tensor& a, const Tensor& b, const char* name, F f) {
  a.check_defined(name);
  b.check_defined(name);
  DType common = result_type(a, b);
  if (common == DType::Bool) {  // torch has no bool kernel for these: its words
    const std::string n = name;
    const std::string cpu = n == "floor_divide"   ? "div_floor_cpu"
                            : n == "trunc_divide" ? "div_trunc_cpu"
                                                  : n + "_cpu";
    throw RuntimeError("\"" + cpu + "\" not implemented for 'Bool'");
  }
  if (common > DType::Float64) {  // Note [Storage dtypes]
    const DType c = compute_dtype(common);
    return to_dtype(numeric_binary(storage_operand(a, common, c, false),
                                   storage_operand(b, common, c, false), name, f),
                    common);
  }
  Operand ac = as_dtype(a, common), bc = as_dtype(b, common);
  if (common == DType::Int64) {
    Tensor flat = contiguous(*bc);
    const int64_t* p = flat.data<int64_t>();
    for (int64_t i = 0; i < flat.numel(); ++i)
      if (p[i] == 0)
        throw RuntimeError(std::string(name) + ": ZeroDivisionError (an integer divisor is 0)");
  }
  return dispatch_numeric(common, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return binary_op<T, T, T>(*ac, *bc, name, kGrainCheap, [&](T x, T y) { return T(f(x, y)); });
  });
}

// Note [Integer division by -1]
// The most negative integer divided by -1 overflows, and x86 traps it (SIGFPE, the process dies)
// for / and % alike. As torch: the quotient wraps (INT64_MIN // -1 == INT64_MIN) and the
// remainder is 0. Every integer / and % of the kernels goes through these two.
template <class T>
T int_div(T a, T b) {
  if constexpr (std::is_signed_v<T> && !std::is_same_v<T, bool>) {
    if (b == T(-1)) return static_cast<T>(std::make_unsigned_t<T>(0) - std::make_unsigned_t<T>(a));
  }
  return static_cast<T>(a / b);
}
template <class T>
T int_mod(T a, T b) {
  if constexpr (std::is_signed_v<T> && !std::is_same_v<T, bool>) {
    if (b == T(-1)) return T(0);
  }
  return static_cast<T>(a % b);
}

template <class T>
T floor_div_scalar(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    T q = int_div(a, b);
    return (int_mod(a, b) != 0 && ((a < 0) != (b < 0))) ? T(q - 1) : q;
  } else {
    // As Python's float //: from fmod, so that a == b * q + r holds as closely as possible.
    if (b == T(0)) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
    if (div == T(0)) return std::copysign(T(0), a / b);
    T fl = std::floor(div);
    return (div - fl > T(0.5)) ? T(fl + 1) : fl;
  }
}

}  // namespace

#define TG_LIBM_UNARY(NAME, EXPR)                              \
  Tensor NAME(const Tensor& x) {                               \
    return float_unary(x, #NAME, [](auto v) { return EXPR; }); \
  }
TG_LIBM_UNARY(sinh, std::sinh(v))
TG_LIBM_UNARY(cosh, std::cosh(v))
TG_LIBM_UNARY(asinh, std::asinh(v))
TG_LIBM_UNARY(acosh, std::acosh(v))
TG_LIBM_UNARY(atanh, std::atanh(v))
TG_LIBM_UNARY(asin, std::asin(v))
TG_LIBM_UNARY(acos, std::acos(v))
TG_LIBM_UNARY(atan, std::atan(v))
TG_LIBM_UNARY(exp2, std::exp2(v))
TG_LIBM_UNARY(erfc, std::erfc(v))
TG_LIBM_UNARY(erfinv, erfinv_scalar(double(v)))
TG_LIBM_UNARY(lgamma, std::lgamma(v))
TG_LIBM_UNARY(digamma, digamma_scalar(double(v)))
#undef TG_LIBM_UNARY

Tensor polygamma(int64_t n, const Tensor& x) {
  if (n < 0) throw RuntimeError("polygamma(n, x) does not support negative n.");
  return float_unary(x, "polygamma", [n](auto v) { return polygamma_scalar(n, double(v)); });
}

Tensor trunc(const Tensor& x) {
  x.check_defined("trunc");
  if (!is_floating(x.dtype())) return clone(x);  // integers are already whole
  return float_unary(x, "trunc", [](auto v) { return std::trunc(v); });
}

Tensor nan_to_num(const Tensor& x, double nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  x.check_defined("nan_to_num");
  if (!is_floating(x.dtype())) return clone(x);
  return dispatch_floating(x.dtype(), "nan_to_num", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T vn = T(nan);
    const T vp = posinf ? T(*posinf) : std::numeric_limits<T>::max();
    const T vm = neginf ? T(*neginf) : std::numeric_limits<T>::lowest();
    return unary_op<T, T>(x, kGrainCheap, [=](T v) {
      return v != v ? vn
                    : (v == std::numeric_limits<T>::infinity()
                           ? vp
                           : (v == -std::numeric_limits<T>::infinity() ? vm : v));
    });
  });
}

Tensor atan2(const Tensor& a, const Tensor& b) {
  return float_binary(a, b, "atan2", [](auto y, auto x) { return std::atan2(y, x); });
}
Tensor hypot(const Tensor& a, const Tensor& b) {
  return float_binary(a, b, "hypot", [](auto x, auto y) { return std::hypot(x, y); });
}
Tensor fmod(const Tensor& a, const Tensor& b) {
  return numeric_binary(a, b, "fmod", [](auto x, auto y) {
    if constexpr (std::is_integral_v<decltype(x)>)
      return int_mod(x, y);
    else
      return std::fmod(x, y);
  });
}
Tensor remainder(const Tensor& a, const Tensor& b) {
  return numeric_binary(a, b, "remainder", [](auto x, auto y) {
    using T = decltype(x);
    T r;
    if constexpr (std::is_integral_v<T>)
      r = int_mod(x, y);
    else
      r = std::fmod(x, y);
    return (r != T(0) && ((r < T(0)) != (y < T(0)))) ? T(r + y) : r;
  });
}
Tensor floor_divide(const Tensor& a, const Tensor& b) {
  return numeric_binary(a, b, "floor_divide",
                        [](auto x, auto y) { return floor_div_scalar(x, y); });
}
Tensor trunc_divide(const Tensor& a, const Tensor& b) {
  return numeric_binary(a, b, "trunc_divide", [](auto x, auto y) {
    if constexpr (std::is_integral_v<decltype(x)>)
      return int_div(x, y);
    else
      return std::trunc(x / y);
  });
}

}  // namespace tg::kernel
