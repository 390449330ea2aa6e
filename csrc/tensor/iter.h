// Broadcasting iteration over strided operands.
//
// Note [Strided plans]
// A StridedPlan describes a loop nest over an output shape for up to kMaxOps operands, each
// with its own byte strides (0 along broadcast dims). Building it drops size-1 dims and merges
// adjacent dims that every operand walks linearly, so a contiguous or simply broadcast problem
// becomes 1 or 2 dims. Dims are stored innermost first. The inner callback receives one
// pointer per operand, the innermost byte strides and a run length; it tests the strides to
// pick a contiguous (vectorised) loop. Everything lives on the stack: building a plan
// allocates nothing. Kernels try their own flat fast paths (all contiguous, same shape) first.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "tensor/parallel.h"
#include "tensor/tensor.h"

namespace tg {

constexpr int kMaxDims = 64;
constexpr int kMaxOps = 4;

// Broadcast result of two shapes; ValueError naming both otherwise.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

struct StridedPlan {
  int nops = 0;
  int ndim = 0;  // after coalescing; innermost first
  int64_t numel = 0;
  int64_t size[kMaxDims];
  int64_t stride[kMaxOps][kMaxDims];  // bytes
  char* base[kMaxOps];
};

// Operand k is ops[k] broadcast to `shape` (operand 0 is usually the output and has `shape`).
void build_plan(StridedPlan& plan, const Shape& shape, std::initializer_list<const Tensor*> ops);

// Calls inner(char* ptrs[nops], const int64_t inner_strides[nops], int64_t n) over the linear
// index range [begin, end) of the plan.
template <class Inner>
void plan_for_range(const StridedPlan& p, int64_t begin, int64_t end, Inner&& inner) {
  const int nops = p.nops;
  char* ptrs[kMaxOps];
  int64_t inner_strides[kMaxOps];
  if (p.ndim == 0) {
    for (int k = 0; k < nops; ++k) {
      ptrs[k] = p.base[k];
      inner_strides[k] = 0;
    }
    if (begin < end) inner(ptrs, inner_strides, int64_t(1));
    return;
  }
  int64_t idx[kMaxDims];
  int64_t rem = begin;
  for (int d = 0; d < p.ndim; ++d) {
    idx[d] = rem % p.size[d];
    rem /= p.size[d];
  }
  for (int k = 0; k < nops; ++k) inner_strides[k] = p.stride[k][0];
  int64_t pos = begin;
  while (pos < end) {
    for (int k = 0; k < nops; ++k) {
      char* ptr = p.base[k];
      for (int d = 0; d < p.ndim; ++d) ptr += idx[d] * p.stride[k][d];
      ptrs[k] = ptr;
    }
    int64_t n = p.size[0] - idx[0];
    if (n > end - pos) n = end - pos;
    inner(ptrs, inner_strides, n);
    pos += n;
    idx[0] += n;
    for (int d = 0; d < p.ndim - 1 && idx[d] >= p.size[d]; ++d) {
      idx[d] = 0;
      ++idx[d + 1];
    }
  }
}

template <class Inner>
void plan_run(const StridedPlan& p, int64_t grain, Inner&& inner) {
  parallel_for(p.numel, grain, [&](int64_t b, int64_t e) { plan_for_range(p, b, e, inner); });
}

}  // namespace tg
