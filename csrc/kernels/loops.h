// Elementwise loop machinery shared by the kernel families (internal to csrc/kernels).
//
// Note [Elementwise fast paths]
// unary_op/binary_op first try flat loops over contiguous operands (same shape, or one side a
// single element), written as simple restrict-pointer loops that g++ -O3 vectorises; anything
// else goes through a StridedPlan (tensor/iter.h) whose inner callback again picks a
// contiguous loop when the innermost strides allow. Work above a grain is split across the
// intra-op pool (tensor/parallel.h); small tensors never reach it.
#pragma once

#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kernels/kernels.h"
#include "tensor/dispatch.h"
#include "tensor/iter.h"
#include "tensor/parallel.h"

#define TG_INLINE inline __attribute__((always_inline))

// Note [SIMD clones] (unary.cpp): compute-bound loops also get an x86-64-v3 (AVX2 + FMA) version.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(TG_NO_CLONES)
#define TG_CLONES __attribute__((target_clones("default", "arch=x86-64-v3")))
#else
#define TG_CLONES
#endif

namespace tg::kernel::detail {

template <class TO, class TI, class F>
TG_INLINE void unary_contig(TO* __restrict o, const TI* __restrict in, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(in[i]);
}

template <class TO, class TI, class F>
TG_INLINE void unary_inner(char** p, const int64_t* s, int64_t n, F f) {
  TO* o = reinterpret_cast<TO*>(p[0]);
  const TI* in = reinterpret_cast<const TI*>(p[1]);
  if (s[0] == sizeof(TO) && s[1] == sizeof(TI)) {
    unary_contig(o, in, n, f);
  } else if (s[0] == sizeof(TO) && s[1] == 0) {
    TO v = f(*in);
    for (int64_t i = 0; i < n; ++i) o[i] = v;
  } else {
    const int64_t so = s[0] / static_cast<int64_t>(sizeof(TO)),
                  si = s[1] / static_cast<int64_t>(sizeof(TI));
    for (int64_t i = 0; i < n; ++i) o[i * so] = f(in[i * si]);
  }
}

// out (a fresh tensor of x's shape, dtype TO) = f(x) for x of dtype TI.
template <class TO, class TI, class F>
Tensor unary_op(const Tensor& x, int64_t grain, F f) {
  Tensor out = Tensor::empty(x.sizes(), dtype_of<TO>());
  const int64_t n = x.numel();
  if (x.is_contiguous()) {
    TO* o = out.data<TO>();
    const TI* in = x.data<TI>();
    parallel_for(n, grain, [&](int64_t b, int64_t e) { unary_contig(o + b, in + b, e - b, f); });
  } else {
    StridedPlan plan;
    build_plan(plan, x.sizes(), {&out, &x});
    plan_run(plan, grain,
             [&](char** p, const int64_t* s, int64_t m) { unary_inner<TO, TI>(p, s, m, f); });
  }
  return out;
}

template <class TO, class TA, class TB, class F>
TG_INLINE void binary_contig(TO* __restrict o, const TA* __restrict a, const TB* __restrict b,
                             int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
}
template <class TO, class TA, class TB, class F>
TG_INLINE void binary_contig_sb(TO* __restrict o, const TA* __restrict a, TB b, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b);
}
template <class TO, class TA, class TB, class F>
TG_INLINE void binary_contig_sa(TO* __restrict o, TA a, const TB* __restrict b, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(a, b[i]);
}

template <class TO, class TA, class TB, class F>
TG_INLINE void binary_inner(char** p, const int64_t* s, int64_t n, F f) {
  TO* o = reinterpret_cast<TO*>(p[0]);
  const TA* a = reinterpret_cast<const TA*>(p[1]);
  const TB* b = reinterpret_cast<const TB*>(p[2]);
  if (s[0] == sizeof(TO)) {
    if (s[1] == sizeof(TA) && s[2] == sizeof(TB)) return binary_contig(o, a, b, n, f);
    if (s[1] == sizeof(TA) && s[2] == 0) return binary_contig_sb(o, a, *b, n, f);
    if (s[1] == 0 && s[2] == sizeof(TB)) return binary_contig_sa(o, *a, b, n, f);
  }
  const int64_t so = s[0] / static_cast<int64_t>(sizeof(TO));
  const int64_t sa = s[1] / static_cast<int64_t>(sizeof(TA)),
                sb = s[2] / static_cast<int64_t>(sizeof(TB));
  for (int64_t i = 0; i < n; ++i) o[i * so] = f(a[i * sa], b[i * sb]);
}

// out = f(a, b), broadcasting; a has dtype TA, b TB, out TO.
template <class TO, class TA, class TB, class F>
Tensor binary_op(const Tensor& a, const Tensor& b, const char* name, int64_t grain, F f) {
  const int64_t na = a.numel(), nb = b.numel();
  if (a.sizes() == b.sizes()) {
    if (a.is_contiguous() && b.is_contiguous()) {
      Tensor out = Tensor::empty(a.sizes(), dtype_of<TO>());
      TO* o = out.data<TO>();
      const TA* pa = a.data<TA>();
      const TB* pb = b.data<TB>();
      parallel_for(na, grain,
                   [&](int64_t s, int64_t e) { binary_contig(o + s, pa + s, pb + s, e - s, f); });
      return out;
    }
  } else if (nb == 1 && a.is_contiguous() && a.dim() >= b.dim()) {
    Tensor out = Tensor::empty(a.sizes(), dtype_of<TO>());
    TO* o = out.data<TO>();
    const TA* pa = a.data<TA>();
    const TB vb = *b.data<TB>();
    parallel_for(na, grain,
                 [&](int64_t s, int64_t e) { binary_contig_sb(o + s, pa + s, vb, e - s, f); });
    return out;
  } else if (na == 1 && b.is_contiguous() && b.dim() >= a.dim()) {
    Tensor out = Tensor::empty(b.sizes(), dtype_of<TO>());
    TO* o = out.data<TO>();
    const TA va = *a.data<TA>();
    const TB* pb = b.data<TB>();
    parallel_for(nb, grain,
                 [&](int64_t s, int64_t e) { binary_contig_sa(o + s, va, pb + s, e - s, f); });
    return out;
  }
  Tensor out = Tensor::empty(broadcast_shapes(a.sizes(), b.sizes(), name), dtype_of<TO>());
  StridedPlan plan;
  build_plan(plan, out.sizes(), {&out, &a, &b});
  plan_run(plan, grain,
           [&](char** p, const int64_t* s, int64_t m) { binary_inner<TO, TA, TB>(p, s, m, f); });
  return out;
}

// Converting elementwise copy of src (broadcast to dst's shape) into dst, which may be strided.
void copy_into(const Tensor& dst, const Tensor& src);

// x itself when it already has dtype d, else a converted copy.
Tensor to_dtype(const Tensor& x, DType d);

// A kernel's operand used by reference: the caller's own handle when it needs no conversion
// (the common case, and no reference-count round trip per operand), else a converted copy held
// here. Made by as_dtype (guaranteed elision: neither copyable nor movable), alive for the call.
class Operand {
 public:
  explicit Operand(const Tensor& x) : ref_(&x) {}
  explicit Operand(Tensor&& converted) : owned_(std::move(converted)), ref_(&owned_) {}
  Operand(const Operand&) = delete;
  Operand& operator=(const Operand&) = delete;
  const Tensor& operator*() const { return *ref_; }
  const Tensor* operator->() const { return ref_; }

 private:
  Tensor owned_;
  const Tensor* ref_;
};

// to_dtype(x, d) as an Operand.
inline Operand as_dtype(const Tensor& x, DType d) {
  if (x.dtype() == d) return Operand(x);
  return Operand(to_dtype(x, d));
}

// An operand of an elementwise op whose result has the storage dtype `common`, in the dtype `c`
// it computes in (Note [Storage dtypes]): cast to `common` first, as torch casts every operand
// to the result dtype (int8 + 300 adds 300 wrapped to 44; half < 1.1 compares with 1.1 rounded
// to half), except, with `opmath`, a 0-d floating operand, which enters the computation unrounded
// (torch's add, mul and div of float16/bfloat16 read a scalar in float32: half * 1.1 is
// float32(h) * float32(1.1) rounded once).
inline Tensor storage_operand(const Tensor& x, DType common, DType c, bool opmath) {
  if (x.dtype() == common || (opmath && x.dim() == 0 && is_floating(x.dtype())))
    return to_dtype(x, c);
  return to_dtype(to_dtype(x, common), c);
}

// float16 or bfloat16: floating kernels compute them in float32 and round the result back
// (Note [Storage dtypes]).
inline bool is_half(DType d) { return d == DType::Float16 || d == DType::BFloat16; }

// (values, indices) with the values cast to d: the storage-dtype step of sort, max_dim, ...
inline std::tuple<Tensor, Tensor> with_values_as(std::tuple<Tensor, Tensor> r, DType d) {
  return {to_dtype(std::get<0>(r), d), std::get<1>(r)};
}

// A contiguous tensor with x's values: x's own storage when x is contiguous.
Tensor as_contiguous(const Tensor& x);

}  // namespace tg::kernel::detail

namespace tg::kernel {
// slice with the calling kernel's name in error messages (shape.cpp).
Tensor slice_view(const Tensor& x, int64_t dim, std::optional<int64_t> start,
                  std::optional<int64_t> stop, int64_t step, const char* name);
}  // namespace tg::kernel
