// dtype dispatch: run a generic lambda with the C++ type of a DType.
//   dispatch_all(t.dtype(), "exp", [&](auto tag) { using T = typename decltype(tag)::type; ... });
#pragma once

#include <cstdint>
#include <string>

#include "tensor/tensor.h"

namespace tg {

template <class T>
struct TypeTag {
  using type = T;
};

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<bool>() { return DType::Bool; }
template <>
constexpr DType dtype_of<int64_t>() { return DType::Int64; }
template <>
constexpr DType dtype_of<float>() { return DType::Float32; }
template <>
constexpr DType dtype_of<double>() { return DType::Float64; }

[[noreturn]] inline void throw_dtype(const char* op, DType d, const char* expected) {
  throw ValueError(std::string(op) + ": unsupported dtype " + dtype_name(d) + " (expected " +
                  expected + ")");
}

template <class F>
decltype(auto) dispatch_all(DType d, F&& f) {
  switch (d) {
    case DType::Bool: return f(TypeTag<bool>{});
    case DType::Int64: return f(TypeTag<int64_t>{});
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Float64: break;
  }
  return f(TypeTag<double>{});
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
    case DType::Int64: return f(TypeTag<int64_t>{});
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Float64: return f(TypeTag<double>{});
    case DType::Bool: break;
  }
  throw_dtype(op, d, "int64, float32 or float64");
}

}  // namespace tg
