// dtype dispatch: run a generic lambda with the C++ type of a DType.
//   dispatch_all(t.dtype(), "exp", [&](auto tag) { using T = typename decltype(tag)::type; ... });
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "tensor/half.h"
#include "tensor/tensor.h"

namespace tg {

template <class T>
struct TypeTag {
  using type = T;
};

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<bool>() {
  return DType::Bool;
}
template <>
constexpr DType dtype_of<int64_t>() {
  return DType::Int64;
}
template <>
constexpr DType dtype_of<float>() {
  return DType::Float32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::Float64;
}

template <>
constexpr DType dtype_of<int8_t>() {
  return DType::Int8;
}
template <>
constexpr DType dtype_of<int16_t>() {
  return DType::Int16;
}
template <>
constexpr DType dtype_of<int32_t>() {
  return DType::Int32;
}
template <>
constexpr DType dtype_of<uint8_t>() {
  return DType::UInt8;
}
template <>
constexpr DType dtype_of<Half>() {
  return DType::Float16;
}
template <>
constexpr DType dtype_of<BFloat16>() {
  return DType::BFloat16;
}

// A storage dtype reaching a kernel that has no loop for it (Note [Storage dtypes]): torch's
// words ("\"exp\" not implemented for 'Half'") and what to do.
[[noreturn]] inline void throw_not_implemented(const char* op, DType d) {
  throw TypeError(std::string("\"") + op + "\" not implemented for '" + dtype_torch_name(d) +
                  "' (transgrad computes " + dtype_name(d) +
                  " only in some kernels; cast with .to(" + dtype_name(compute_dtype(d)) +
                  ") first)");
}

[[noreturn]] inline void throw_dtype(const char* op, DType d, const char* expected) {
  if (d > DType::Float64) throw_not_implemented(op, d);
  throw ValueError(std::string(op) + ": unsupported dtype " + dtype_name(d) + " (expected " +
                   expected + ")");
}

// The four compute dtypes (Note [Storage dtypes]); a storage dtype raises.
template <class F>
decltype(auto) dispatch_all(DType d, F&& f) {
  switch (d) {
    case DType::Bool:
      return f(TypeTag<bool>{});
    case DType::Int64:
      return f(TypeTag<int64_t>{});
    case DType::Float32:
      return f(TypeTag<float>{});
    case DType::Float64:
      return f(TypeTag<double>{});
    default:
      break;
  }
  throw_not_implemented("kernel", d);
}

// Every dtype, storage ones included: for kernels that only move or convert elements
// (copies, casts, fills). float16/bfloat16 come as Half/BFloat16 (half.h).
template <class F>
decltype(auto) dispatch_storage(DType d, F&& f) {
  switch (d) {
    case DType::Bool:
      return f(TypeTag<bool>{});
    case DType::Int64:
      return f(TypeTag<int64_t>{});
    case DType::Float32:
      return f(TypeTag<float>{});
    case DType::Float64:
      return f(TypeTag<double>{});
    case DType::Int8:
      return f(TypeTag<int8_t>{});
    case DType::Int16:
      return f(TypeTag<int16_t>{});
    case DType::Int32:
      return f(TypeTag<int32_t>{});
    case DType::UInt8:
      return f(TypeTag<uint8_t>{});
    case DType::Float16:
      return f(TypeTag<Half>{});
    case DType::BFloat16:
      break;
  }
  return f(TypeTag<BFloat16>{});
}

// Note [Float to integer casts]
// C++ leaves a float -> integer conversion undefined when the truncated value does not fit
// (NaN, inf, 1e20 -> int32), and the compiler is free to do anything with it. torch's casts
// are what x86's cvttss2si/cvttsd2si give: truncation toward zero, and the "integer
// indefinite" value (the type's minimum) for NaN and out of range. Measured on torch 2.13 for
// float16/bfloat16/float32/float64 sources: int32, int16 and int8 truncate to int32 first
// (INT32_MIN, then wrapped: 1e20 -> int8 is 0, 300.0 -> 44, 70000.0 -> int16 4464); uint8
// truncates to int64 first (2**32 + 5 -> 5; NaN -> 0); int64 gives INT64_MIN. trunc_to<I>
// writes that down for I = int32_t or int64_t; every cast, fill and bound goes through it
// (convert_element below). The reference engine does the same (reference/kernels.py, cast).
template <class I, class F>
inline I trunc_to(F v) {
  static_assert(std::is_same_v<I, int32_t> || std::is_same_v<I, int64_t>);
  // [-2^(bits-1), 2^(bits-1)) exactly, in double: every float, double and limit is exact there
  constexpr double kLimit = std::is_same_v<I, int32_t> ? 2147483648.0 : 9223372036854775808.0;
  const double d = static_cast<double>(v);
  return (d >= -kLimit && d < kLimit) ? static_cast<I>(d) : std::numeric_limits<I>::min();
}

// One element converted between any two storage types, as torch's casts: to bool is `!= 0`;
// floating to integral as Note [Float to integer casts]; integral to narrower integral wraps;
// to float16/bfloat16 rounds a float to nearest even (Note [Half conversions]).
template <class TO, class TI>
inline TO convert_element(TI v) {
  if constexpr (std::is_same_v<TO, TI>) {
    return v;
  } else if constexpr (std::is_same_v<TI, Half> || std::is_same_v<TI, BFloat16>) {
    return convert_element<TO, float>(to_float(v));
  } else if constexpr (std::is_same_v<TO, Half>) {
    return half_from_float(convert_element<float, TI>(v));
  } else if constexpr (std::is_same_v<TO, BFloat16>) {
    return bfloat16_from_float(convert_element<float, TI>(v));
  } else if constexpr (std::is_same_v<TO, bool>) {
    return v != TI(0);
  } else if constexpr (std::is_integral_v<TO> && std::is_floating_point_v<TI>) {
    // Note [Float to integer casts]: the narrowing of the int32/int64 is modular (C++20 rule,
    // GCC's and Clang's behaviour before it)
    if constexpr (std::is_signed_v<TO> && sizeof(TO) <= 4)
      return static_cast<TO>(trunc_to<int32_t>(v));
    else
      return static_cast<TO>(trunc_to<int64_t>(v));
  } else {
    return static_cast<TO>(v);
  }
}

template <class F>
decltype(auto) dispatch_floating(DType d, const char* op, F&& f) {
  if (d == DType::Float32) return f(TypeTag<float>{});
  if (d != DType::Float64) throw_dtype(op, d, "float32 or float64");
  return f(TypeTag<double>{});
}

// int64, float32, float64 (bool callers cast to int64 first).
template <class F>
decltype(auto) dispatch_numeric(DType d, const char* op, F&& f) {
  switch (d) {
    case DType::Int64:
      return f(TypeTag<int64_t>{});
    case DType::Float32:
      return f(TypeTag<float>{});
    case DType::Float64:
      return f(TypeTag<double>{});
    case DType::Bool:
      break;
  }
  throw_dtype(op, d, "int64, float32 or float64");
}

}  // namespace tg
