// Elementwise binary kernels (broadcasting, dtype promotion) and where.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/kernels.h"
#include "kernels/loops.h"

namespace tg::kernel {
using namespace detail;

namespace {

void check_pair(const Tensor& a, const Tensor& b, const char* name) {
  a.check_defined(name);
  b.check_defined(name);
}

// Contiguous float/double loops of + - * / compiled with AVX2 clones (Note [SIMD clones]):
// vector-vector, vector-scalar and scalar-vector.
template <class T>
struct FloatLoops {
  void (*vv)(T*, const T*, const T*, int64_t);
  void (*vs)(T*, const T*, T, int64_t);
  void (*sv)(T*, T, const T*, int64_t);
};
#define TG_ARITH_LOOPS(NAME, OP)                                                           \
  TG_CLONES void NAME##_vv_f32(float* __restrict o, const float* __restrict a,             \
                               const float* __restrict b, int64_t n) {                     \
    for (int64_t i = 0; i < n; ++i) o[i] = a[i] OP b[i];                                   \
  }                                                                                        \
  TG_CLONES void NAME##_vs_f32(float* __restrict o, const float* __restrict a, float b,    \
                               int64_t n) {                                                \
    for (int64_t i = 0; i < n; ++i) o[i] = a[i] OP b;                                      \
  }                                                                                        \
  TG_CLONES void NAME##_sv_f32(float* __restrict o, float a, const float* __restrict b,    \
                               int64_t n) {                                                \
    for (int64_t i = 0; i < n; ++i) o[i] = a OP b[i];                                      \
  }                                                                                        \
  TG_CLONES void NAME##_vv_f64(double* __restrict o, const double* __restrict a,           \
                               const double* __restrict b, int64_t n) {                    \
    for (int64_t i = 0; i < n; ++i) o[i] = a[i] OP b[i];                                   \
  }                                                                                        \
  TG_CLONES void NAME##_vs_f64(double* __restrict o, const double* __restrict a, double b, \
                               int64_t n) {                                                \
    for (int64_t i = 0; i < n; ++i) o[i] = a[i] OP b;                                      \
  }                                                                                        \
  TG_CLONES void NAME##_sv_f64(double* __restrict o, double a, const double* __restrict b, \
                               int64_t n) {                                                \
    for (int64_t i = 0; i < n; ++i) o[i] = a OP b[i];                                      \
  }                                                                                        \
  constexpr FloatLoops<float> NAME##_f32{NAME##_vv_f32, NAME##_vs_f32, NAME##_sv_f32};     \
  constexpr FloatLoops<double> NAME##_f64{NAME##_vv_f64, NAME##_vs_f64, NAME##_sv_f64};
TG_ARITH_LOOPS(add, +)
TG_ARITH_LOOPS(sub, -)
TG_ARITH_LOOPS(mul, *)
TG_ARITH_LOOPS(div, /)
#undef TG_ARITH_LOOPS

// The contiguous fast paths of binary_op, through the cloned loops; false when not applicable.
template <class T>
bool float_fast_path(const Tensor& a, const Tensor& b, const FloatLoops<T>& loops, Tensor& out) {
  const int64_t na = a.numel(), nb = b.numel();
  if (a.sizes() == b.sizes() && a.is_contiguous() && b.is_contiguous()) {
    out = Tensor::empty(a.sizes(), dtype_of<T>());
    T* o = out.data<T>();
    const T *pa = a.data<T>(), *pb = b.data<T>();
    parallel_for(na, kGrainCheap,
                 [&](int64_t s, int64_t e) { loops.vv(o + s, pa + s, pb + s, e - s); });
    return true;
  }
  if (nb == 1 && a.is_contiguous() && a.dim() >= b.dim()) {
    out = Tensor::empty(a.sizes(), dtype_of<T>());
    T* o = out.data<T>();
    const T* pa = a.data<T>();
    const T vb = *b.data<T>();
    parallel_for(na, kGrainCheap,
                 [&](int64_t s, int64_t e) { loops.vs(o + s, pa + s, vb, e - s); });
    return true;
  }
  if (na == 1 && b.is_contiguous() && b.dim() >= a.dim()) {
    out = Tensor::empty(b.sizes(), dtype_of<T>());
    T* o = out.data<T>();
    const T va = *a.data<T>();
    const T* pb = b.data<T>();
    parallel_for(nb, kGrainCheap,
                 [&](int64_t s, int64_t e) { loops.sv(o + s, va, pb + s, e - s); });
    return true;
  }
  return false;
}

// Arithmetic: both sides converted to the result dtype (Note [Type promotion] in
// transgrad/_dtypes.py; the default dtype when `to_float` and it is not floating), result of
// that dtype. `opmath`: see storage_operand.
template <class F>
Tensor arith(const Tensor& a, const Tensor& b, const char* name, bool to_float, bool opmath,
             int64_t grain, F f, const FloatLoops<float>* f32 = nullptr,
             const FloatLoops<double>* f64 = nullptr) {
  check_pair(a, b, name);
  DType common = result_type(a, b);
  if (to_float && !is_floating(common)) common = default_dtype();
  if (common > DType::Float64) {  // a storage dtype: computed in its compute dtype, cast back
    const DType c = compute_dtype(common);
    return to_dtype(
        arith(storage_operand(a, common, c, opmath), storage_operand(b, common, c, opmath), name,
              to_float, opmath, grain, f, f32, f64),
        common);
  }
  Operand ac = as_dtype(a, common), bc = as_dtype(b, common);
  Tensor fast;
  if (common == DType::Float32 && f32 && float_fast_path(*ac, *bc, *f32, fast)) return fast;
  if (common == DType::Float64 && f64 && float_fast_path(*ac, *bc, *f64, fast)) return fast;
  return dispatch_all(common, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return binary_op<T, T, T>(*ac, *bc, name, grain, [&](T x, T y) { return T(f(x, y)); });
  });
}

template <class F>
Tensor compare(const Tensor& a, const Tensor& b, const char* name, F f) {
  check_pair(a, b, name);
  DType common = result_type(a, b);
  if (common > DType::Float64) {  // exact in the compute dtype (Note [Storage dtypes])
    const DType c = compute_dtype(common);
    return compare(storage_operand(a, common, c, false), storage_operand(b, common, c, false), name,
                   f);
  }
  Operand ac = as_dtype(a, common), bc = as_dtype(b, common);
  return dispatch_all(common, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return binary_op<bool, T, T>(*ac, *bc, name, kGrainCheap,
                                 [&](T x, T y) { return bool(f(x, y)); });
  });
}

int64_t ipow(int64_t base, int64_t e) {
  if (e < 0) return base == 1 ? 1 : (base == -1 ? (e % 2 ? -1 : 1) : 0);
  // Unsigned: an int64 power that overflows wraps (as torch), where signed overflow is UB.
  uint64_t r = 1, b = static_cast<uint64_t>(base);
  while (e) {
    if (e & 1) r *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<int64_t>(r);
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) {
  return arith(
      a, b, "add", false, true, kGrainCheap, [](auto x, auto y) { return x + y; }, &add_f32,
      &add_f64);
}
Tensor sub(const Tensor& a, const Tensor& b) {
  check_pair(a, b, "sub");
  // torch's words; a Python bool is a bool operand too (Note [Type promotion])
  if (a.dtype() == DType::Bool && b.dtype() == DType::Bool)
    throw RuntimeError(
        "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
        "`logical_xor()` operator instead.");
  if (a.dtype() == DType::Bool || b.dtype() == DType::Bool)
    throw RuntimeError(
        "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
        "invert a mask, use the `~` or `logical_not()` operator instead.");
  return arith(
      a, b, "sub", false, false, kGrainCheap, [](auto x, auto y) { return x - y; }, &sub_f32,
      &sub_f64);
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return arith(
      a, b, "mul", false, true, kGrainCheap, [](auto x, auto y) { return x * y; }, &mul_f32,
      &mul_f64);
}
Tensor div(const Tensor& a, const Tensor& b) {
  return arith(
      a, b, "div", true, true, kGrainCheap, [](auto x, auto y) { return x / y; }, &div_f32,
      &div_f64);
}
Tensor pow(const Tensor& a, const Tensor& b) {
  check_pair(a, b, "pow");
  DType common = result_type(a, b);
  if (common > DType::Float64) {  // Note [Storage dtypes]
    const DType c = compute_dtype(common);
    return to_dtype(pow(storage_operand(a, common, c, false), storage_operand(b, common, c, false)),
                    common);
  }
  if (common == DType::Bool) {  // as torch; shapes first, as every binary kernel
    broadcast_shapes(a.sizes(), b.sizes(), "pow");
    throw RuntimeError("\"pow\" not implemented for 'Bool'");
  }
  // An integer to a negative integer power is C's (ipow): 0, or 1 and -1's powers, as torch.
  return arith(a, b, "pow", false, false, kGrainExpensive, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool>)
      return x || !y;
    else if constexpr (std::is_same_v<T, int64_t>)
      return ipow(x, y);
    else
      return std::pow(x, y);
  });
}
Tensor maximum(const Tensor& a, const Tensor& b) {
  return arith(a, b, "maximum", false, false, kGrainCheap, [](auto x, auto y) {
    return (x != x || x > y) ? x : y;  // NaN propagates
  });
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return arith(a, b, "minimum", false, false, kGrainCheap,
               [](auto x, auto y) { return (x != x || x < y) ? x : y; });
}

Tensor eq(const Tensor& a, const Tensor& b) {
  return compare(a, b, "eq", [](auto x, auto y) { return x == y; });
}
Tensor ne(const Tensor& a, const Tensor& b) {
  return compare(a, b, "ne", [](auto x, auto y) { return x != y; });
}
Tensor lt(const Tensor& a, const Tensor& b) {
  return compare(a, b, "lt", [](auto x, auto y) { return x < y; });
}
Tensor le(const Tensor& a, const Tensor& b) {
  return compare(a, b, "le", [](auto x, auto y) { return x <= y; });
}
Tensor gt(const Tensor& a, const Tensor& b) {
  return compare(a, b, "gt", [](auto x, auto y) { return x > y; });
}
Tensor ge(const Tensor& a, const Tensor& b) {
  return compare(a, b, "ge", [](auto x, auto y) { return x >= y; });
}

namespace {
// Note [A branch-free where]: the select is done on the operands' bits with a mask made from the
// condition byte, so the loop has no branch to mispredict (a mask such as x > 0 is a coin toss
// per element) and vectorises; `c ? x : y` compiled to a branch on the store (relu's backward,
// a where over a random mask, ran 3x slower than a multiply by the mask).
template <class T>
TG_INLINE T select_bits(uint8_t c, T x, T y) {
  using U = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t,
                         std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  static_assert(sizeof(U) == sizeof(T));
  U ux, uy;
  std::memcpy(&ux, &x, sizeof(T));
  std::memcpy(&uy, &y, sizeof(T));
  const U m = U(0) - U(c != 0);
  const U r = (ux & m) | (uy & U(~m));
  T out;
  std::memcpy(&out, &r, sizeof(T));
  return out;
}

template <class T>
TG_INLINE void where_contig(T* __restrict o, const bool* __restrict cond, const T* __restrict a,
                            const T* __restrict b, int64_t n) {
  const uint8_t* c = reinterpret_cast<const uint8_t*>(cond);
  for (int64_t i = 0; i < n; ++i) o[i] = select_bits(c[i], a[i], b[i]);
}

template <class T>
TG_INLINE void where_contig_scalar_b(T* __restrict o, const bool* __restrict cond,
                                     const T* __restrict a, const T y, int64_t n) {
  const uint8_t* c = reinterpret_cast<const uint8_t*>(cond);
  for (int64_t i = 0; i < n; ++i) o[i] = select_bits(c[i], a[i], y);
}
}  // namespace

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  cond.check_defined("where");
  check_pair(a, b, "where");
  if (cond.dtype() != DType::Bool)
    throw ValueError(std::string("where: the condition must be a bool tensor, got ") +
                     dtype_name(cond.dtype()));
  const Tensor& c = cond;
  DType common = result_type(a, b);
  Tensor ac = to_dtype(a, common), bc = to_dtype(b, common);
  Shape shape =
      broadcast_shapes(broadcast_shapes(c.sizes(), ac.sizes(), "where"), bc.sizes(), "where");
  return dispatch_storage(common, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out = Tensor::empty(shape, common);
    if (c.sizes() == shape && ac.sizes() == shape && bc.sizes() == shape && c.is_contiguous() &&
        ac.is_contiguous() && bc.is_contiguous()) {
      T* o = out.data<T>();
      const bool* pc = c.data<bool>();
      const T *pa = ac.data<T>(), *pb = bc.data<T>();
      parallel_for(out.numel(), kGrainCheap, [&](int64_t s, int64_t e) {
        where_contig(o + s, pc + s, pa + s, pb + s, e - s);
      });
      return out;
    }
    StridedPlan plan;
    build_plan(plan, shape, {&out, &c, &ac, &bc});
    plan_run(plan, kGrainCheap, [](char** p, const int64_t* s, int64_t n) {
      T* o = reinterpret_cast<T*>(p[0]);
      const bool* pc = reinterpret_cast<const bool*>(p[1]);
      const T* pa = reinterpret_cast<const T*>(p[2]);
      const T* pb = reinterpret_cast<const T*>(p[3]);
      if (s[0] == sizeof(T) && s[1] == 1 && s[2] == sizeof(T) && s[3] == sizeof(T))
        return where_contig(o, pc, pa, pb, n);
      if (s[0] == sizeof(T) && s[1] == 1 && s[2] == sizeof(T) && s[3] == 0)  // b a scalar
        return where_contig_scalar_b(o, pc, pa, *pb, n);
      const int64_t so = s[0] / int64_t(sizeof(T)), sa = s[2] / int64_t(sizeof(T)),
                    sb = s[3] / int64_t(sizeof(T));
      for (int64_t i = 0; i < n; ++i) o[i * so] = pc[i * s[1]] ? pa[i * sa] : pb[i * sb];
    });
    return out;
  });
}

}  // namespace tg::kernel
