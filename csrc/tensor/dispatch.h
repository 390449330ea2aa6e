// dtype dispatch: run a generic lambda with the C++ type of a DType.
//   dispatch_all(t.dtype(), "exp", [&](auto tag) { using T = typename decltype(tag)::type; ... });
#pragma once

#include <cstdint>
#include <string>

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

// One element converted between any two storage types, as torch's casts: to bool is `!= 0`;
// floating to integral truncates through int64 (so narrower integers wrap); integral to
// narrower integral wraps; to float16/bfloat16 rounds a float to nearest even (Note [Half
// conversions]).
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
  } else if constexpr (std::is_integral_v<TO> && std::is_floating_point_v<TI> && sizeof(TO) < 8) {
    return static_cast<TO>(static_cast<int64_t>(v));
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
