// Reductions: sum, amax, amin, max_dim, min_dim, logsumexp, softmax, log_softmax, sum_to.
//
// Note [Reduction paths]
// A reduction over `dims` of a contiguous x whose reduced dims form one trailing block is a
// set of contiguous rows (one output each; rows split across threads, a single long row split
// in two partial results); a leading block is a sum of rows into one output row (vectorised
// across the row, columns split across threads). Anything else runs through a StridedPlan whose
// output operand has stride 0 along the reduced dims (single-threaded). Float sums accumulate in
// blocks of 16 lanes and combine blocks in double, which keeps float32 error near numpy's
// pairwise summation.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")  // lets the vec:: selects vectorise (vecmath.h)
#endif
#include <algorithm>
#include <cmath>
#include <limits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kernels/kernels.h"
#include "kernels/loops.h"
#include "kernels/vecmath.h"

namespace tg::kernel {
using namespace detail;

namespace {

struct DimMask {
  bool reduce[kMaxDims] = {};
  int64_t count = 0;
};

DimMask parse_dims(const Tensor& x, const Shape& dims, const char* name) {
  DimMask m;
  const int64_t nd = x.dim();
  if (nd > kMaxDims) throw ValueError(std::string(name) + ": too many dims");
  bool seen0 = false;  // a 0-d tensor accepts dim 0 / -1, once
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, nd, x.sizes());
    if (nd == 0) {
      if (seen0) throw RuntimeError(dim_repeated(w));
      seen0 = true;
      continue;
    }
    if (m.reduce[w]) throw RuntimeError(dim_repeated(w));
    m.reduce[w] = true;
    ++m.count;
  }
  return m;
}

Shape kept_shape(const Tensor& x, const DimMask& m, bool keepdim) {
  Shape s;
  s.reserve(x.dim());
  for (int64_t i = 0; i < x.dim(); ++i) {
    if (!m.reduce[i])
      s.push_back(x.sizes()[i]);
    else if (keepdim)
      s.push_back(1);
  }
  return s;
}

template <class T>
struct Acc {
  using type = T;
};
template <>
struct Acc<float> {
  using type = double;
};

template <class T>
TG_INLINE T sum_block(const T* __restrict p, int64_t n) {
  constexpr int L = 64 / sizeof(T) * 2;
  if (n < 2 * L) {  // short rows: no lanes to set up and fold
    T r = 0;
    for (int64_t i = 0; i < n; ++i) r += p[i];
    return r;
  }
  T acc[L] = {};
  int64_t i = 0;
  for (; i + L <= n; i += L)
    for (int j = 0; j < L; ++j) acc[j] += p[i + j];
  T tail = 0;
  for (; i < n; ++i) tail += p[i];
  for (int w = L / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  return acc[0] + tail;
}

template <class T>
T sum_contig(const T* p, int64_t n) {
  constexpr int64_t B = 4096;
  if (n <= B) return sum_block(p, n);
  typename Acc<T>::type total = 0;
  for (int64_t i = 0; i < n; i += B) total += sum_block(p + i, std::min(B, n - i));
  return static_cast<T>(total);
}

template <class T>
TG_INLINE T max_op(T a, T b) {  // NaN propagates; `|` (not `||`) keeps it branch-free
  return ((b != b) | (b > a)) ? b : a;
}
template <class T>
TG_INLINE T min_op(T a, T b) {
  return ((b != b) | (b < a)) ? b : a;
}

template <class T, bool IsMax>
T minmax_scalar(const T* __restrict p, int64_t n, T init) {
  T r = init;
  for (int64_t i = 0; i < n; ++i) r = IsMax ? max_op(r, p[i]) : min_op(r, p[i]);
  return r;
}

#if defined(__SSE2__)
// max/min with NaN propagation on SSE2: maxps/minps drop NaNs, so NaNs are tracked on the side
// (the compiler does not vectorise the NaN-aware scalar form).
template <bool IsMax>
float minmax_f32(const float* p, int64_t n, float init) {
  __m128 a0 = _mm_set1_ps(init), a1 = a0, nan = _mm_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128 x0 = _mm_loadu_ps(p + i), x1 = _mm_loadu_ps(p + i + 4);
    a0 = IsMax ? _mm_max_ps(a0, x0) : _mm_min_ps(a0, x0);
    a1 = IsMax ? _mm_max_ps(a1, x1) : _mm_min_ps(a1, x1);
    nan = _mm_or_ps(nan, _mm_or_ps(_mm_cmpunord_ps(x0, x0), _mm_cmpunord_ps(x1, x1)));
  }
  if (_mm_movemask_ps(nan)) return std::numeric_limits<float>::quiet_NaN();
  alignas(16) float lanes[8];
  _mm_store_ps(lanes, a0);
  _mm_store_ps(lanes + 4, a1);
  float r = minmax_scalar<float, IsMax>(lanes, 8, init);
  return minmax_scalar<float, IsMax>(p + i, n - i, r);
}
template <bool IsMax>
double minmax_f64(const double* p, int64_t n, double init) {
  __m128d a0 = _mm_set1_pd(init), a1 = a0, nan = _mm_setzero_pd();
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m128d x0 = _mm_loadu_pd(p + i), x1 = _mm_loadu_pd(p + i + 2);
    a0 = IsMax ? _mm_max_pd(a0, x0) : _mm_min_pd(a0, x0);
    a1 = IsMax ? _mm_max_pd(a1, x1) : _mm_min_pd(a1, x1);
    nan = _mm_or_pd(nan, _mm_or_pd(_mm_cmpunord_pd(x0, x0), _mm_cmpunord_pd(x1, x1)));
  }
  if (_mm_movemask_pd(nan)) return std::numeric_limits<double>::quiet_NaN();
  alignas(16) double lanes[4];
  _mm_store_pd(lanes, a0);
  _mm_store_pd(lanes + 2, a1);
  double r = minmax_scalar<double, IsMax>(lanes, 4, init);
  return minmax_scalar<double, IsMax>(p + i, n - i, r);
}
#endif

template <class T, bool IsMax>
T minmax_contig(const T* __restrict p, int64_t n, T init) {
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, float>) return minmax_f32<IsMax>(p, n, init);
  if constexpr (std::is_same_v<T, double>) return minmax_f64<IsMax>(p, n, init);
#endif
  return minmax_scalar<T, IsMax>(p, n, init);
}

enum class Kind { Sum, Max, Min };

template <class T, Kind K>
struct Reducer {
  static T init() {
    if constexpr (K == Kind::Sum)
      return T(0);
    else if constexpr (K == Kind::Max)
      return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::lowest();
    else
      return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::max();
  }
  static TG_INLINE T combine(T a, T b) {
    if constexpr (K == Kind::Sum)
      return a + b;
    else if constexpr (K == Kind::Max)
      return max_op(a, b);
    else
      return min_op(a, b);
  }
  static T run(const T* p, int64_t n) {
    if constexpr (K == Kind::Sum)
      return sum_contig(p, n);
    else
      return minmax_contig<T, K == Kind::Max>(p, n, init());
  }
};

template <class T, class R>
TG_INLINE void combine_rows(T* __restrict o, const T* __restrict row, int64_t n) {
  for (int64_t j = 0; j < n; ++j) o[j] = R::combine(o[j], row[j]);
}

// out (contiguous, x's shape with reduced dims = 1) = reduction of x (dtype T) over mask.
template <class T, Kind K>
void reduce_into(const Tensor& out, const Tensor& x, const DimMask& m) {
  using R = Reducer<T, K>;
  T* o = out.data<T>();
  const int64_t nout = out.numel();
  const int64_t nd = x.dim();
  if (x.numel() == 0) {
    std::fill(o, o + nout, R::init());
    return;
  }
  if (x.is_contiguous()) {
    // Trailing or leading block of reduced dims (ignoring size-1 dims)?
    int64_t first_red = nd, last_kept = -1, first_kept = nd, last_red = -1;
    for (int64_t i = 0; i < nd; ++i) {
      if (x.sizes()[i] == 1) continue;
      if (m.reduce[i]) {
        first_red = std::min(first_red, i);
        last_red = i;
      } else {
        first_kept = std::min(first_kept, i);
        last_kept = i;
      }
    }
    const T* p = x.data<T>();
    const int64_t total = x.numel();
    if (last_kept < first_red) {  // rows: [outer = nout] x [inner]
      const int64_t inner = total / nout;
      if (nout == 1) {  // one long row: a partial result per thread
        // At most kMaxParts partial results whatever the thread count: a chunk then covers
        // several threads' worth, and every element is still in exactly one chunk.
        constexpr int64_t kMaxParts = 64;
        const int64_t chunks = std::max<int64_t>(
            1, std::min({static_cast<int64_t>(get_num_threads()), total / kGrainCheap, kMaxParts}));
        T parts[kMaxParts];
        parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c) {
            const int64_t lo = split_point(total, chunks, c),
                          hi = split_point(total, chunks, c + 1);
            parts[c] = R::run(p + lo, hi - lo);
          }
        });
        T r = parts[0];
        for (int64_t c = 1; c < chunks; ++c) r = R::combine(r, parts[c]);
        o[0] = r;
        return;
      }
      parallel_for(nout, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(inner, 1)),
                   [&](int64_t b, int64_t e) {
                     for (int64_t r = b; r < e; ++r) o[r] = R::run(p + r * inner, inner);
                   });
      return;
    }
    if (last_red < first_kept) {  // columns: sum of `rows` rows of length nout
      const int64_t rows = total / nout;
      parallel_for(nout, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(rows, 1)),
                   [&](int64_t b, int64_t e) {
                     std::copy(p + b, p + e, o + b);
                     for (int64_t r = 1; r < rows; ++r)
                       combine_rows<T, R>(o + b, p + r * nout + b, e - b);
                   });
      return;
    }
  }
  // General: iterate x, accumulating into out broadcast with stride 0 along reduced dims.
  std::fill(o, o + nout, R::init());
  Shape ostrides(nd, 0);
  for (int64_t i = nd - 1, acc = 1; i >= 0; --i)
    if (!m.reduce[i]) {
      ostrides[i] = acc;
      acc *= x.sizes()[i];
    }
  Tensor oview = out.view(x.sizes(), ostrides, out.offset());
  StridedPlan plan;
  build_plan(plan, x.sizes(), {&oview, &x});
  plan_for_range(plan, 0, plan.numel, [](char** ptr, const int64_t* s, int64_t n) {
    T* po = reinterpret_cast<T*>(ptr[0]);
    const T* px = reinterpret_cast<const T*>(ptr[1]);
    if (s[0] == 0) {
      if (s[1] == sizeof(T)) {
        *po = R::combine(*po, R::run(px, n));
      } else {
        const int64_t sx = s[1] / int64_t(sizeof(T));
        T acc = *po;
        for (int64_t i = 0; i < n; ++i) acc = R::combine(acc, px[i * sx]);
        *po = acc;
      }
    } else if (s[0] == sizeof(T) && s[1] == sizeof(T)) {
      combine_rows<T, R>(po, px, n);
    } else {
      const int64_t so = s[0] / int64_t(sizeof(T)), sx = s[1] / int64_t(sizeof(T));
      for (int64_t i = 0; i < n; ++i) po[i * so] = R::combine(po[i * so], px[i * sx]);
    }
  });
}

// Reduction of x over m into a fresh tensor of shape out_shape (whose numel is the number of
// kept elements).
template <Kind K>
Tensor reduce_to(const Tensor& x, const DimMask& m, const Shape& out_shape, const char* name) {
  DType dt = x.dtype();
  if (K == Kind::Sum && !is_floating(dt)) dt = DType::Int64;
  // bool as int64; storage dtypes in their compute dtype (Note [Storage dtypes])
  Tensor xin =
      x.dtype() == DType::Bool ? to_dtype(x, DType::Int64) : to_dtype(x, compute_dtype(x.dtype()));
  Tensor out = Tensor::empty(out_shape, xin.dtype());
  dispatch_numeric(xin.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    reduce_into<T, K>(out, xin, m);
  });
  return out.dtype() == dt ? out : to_dtype(out, dt);
}

template <Kind K>
Tensor reduce(const Tensor& x, const Shape& dims, bool keepdim, const char* name) {
  x.check_defined(name);
  DimMask m = parse_dims(x, dims, name);
  if (K != Kind::Sum) {  // an extremum of nothing does not exist: torch's words
    for (int64_t i = 0; i < x.dim(); ++i)
      if (m.reduce[i] && x.sizes()[i] == 0) {
        if (m.count == x.dim())
          throw RuntimeError(std::string(name) +
                             "(): Expected reduction dim to be specified for input.numel() == 0. "
                             "Specify the reduction dim with the 'dim' argument.");
        throw IndexError(std::string(name) + "(): Expected reduction dim " + std::to_string(i) +
                         " to have non-zero size.");
      }
  }
  if (m.count == 0)
    return cast(x, K == Kind::Sum && !is_floating(x.dtype()) ? DType::Int64 : x.dtype());
  return reduce_to<K>(x, m, kept_shape(x, m, keepdim), name);
}

// x viewed as [outer, n, inner] around `dim` (x contiguous).
struct Around {
  int64_t outer = 1, n = 1, inner = 1;
};
Around around(const Tensor& x, int64_t d) {
  Around a;
  for (int64_t i = 0; i < x.dim(); ++i) {
    if (i < d)
      a.outer *= x.sizes()[i];
    else if (i == d)
      a.n = x.sizes()[i];
    else
      a.inner *= x.sizes()[i];
  }
  return a;
}

template <bool IsMax>
std::tuple<Tensor, Tensor> arg_reduce(const Tensor& x, int64_t dim, bool keepdim,
                                      const char* name) {
  x.check_defined(name);
  if (x.dtype() > DType::Float64)  // Note [Storage dtypes]
    return with_values_as(
        arg_reduce<IsMax>(to_dtype(x, compute_dtype(x.dtype())), dim, keepdim, name), x.dtype());
  int64_t d = wrap_dim(dim, x.dim(), x.sizes());
  Tensor xc = as_contiguous(x.dtype() == DType::Bool ? to_dtype(x, DType::Int64) : x);
  if (x.dim() == 0) {
    Tensor idx = Tensor::empty(Shape{}, DType::Int64);
    *idx.data<int64_t>() = 0;
    return {clone(x), idx};
  }
  if (x.sizes()[d] == 0)  // torch's words, under torch's name (max, not max_dim)
    throw IndexError(std::string(name).substr(0, 3) + "(): Expected reduction dim " +
                     std::to_string(d) + " to have non-zero size.");
  Around a = around(xc, d);
  Shape ks = xc.sizes();
  ks[d] = 1;
  Tensor values = Tensor::empty(ks, xc.dtype());
  Tensor indices = Tensor::empty(ks, DType::Int64);
  dispatch_numeric(xc.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = xc.data<T>();
    T* v = values.data<T>();
    int64_t* ix = indices.data<int64_t>();
    auto better = [](T cand, T best) {
      if (best != best) return false;  // NaN already wins
      if (cand != cand) return true;
      return IsMax ? cand > best : cand < best;
    };
    parallel_for(a.outer, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(1, a.n * a.inner)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t o = b; o < e; ++o) {
                     const T* base = p + o * a.n * a.inner;
                     T* vo = v + o * a.inner;
                     int64_t* io = ix + o * a.inner;
                     for (int64_t i = 0; i < a.inner; ++i) {
                       vo[i] = base[i];
                       io[i] = 0;
                     }
                     for (int64_t r = 1; r < a.n; ++r) {
                       const T* row = base + r * a.inner;
                       for (int64_t i = 0; i < a.inner; ++i)
                         if (better(row[i], vo[i])) {
                           vo[i] = row[i];
                           io[i] = r;
                         }
                     }
                   }
                 });
  });
  if (x.dtype() == DType::Bool) values = to_dtype(values, DType::Bool);
  if (!keepdim) {
    Shape s = xc.sizes();
    s.erase(s.begin() + d);
    values = values.view(s, contiguous_strides(s), 0);
    indices = indices.view(s, contiguous_strides(s), 0);
  }
  return {values, indices};
}

Tensor floating(const Tensor& x) {
  return is_floating(x.dtype()) ? x : to_dtype(x, floating_dtype(x.dtype()));
}

// Row kernels (contiguous rows of length n), restrict pointers so that they vectorise.
template <class T>
TG_INLINE T row_max(const T* __restrict p, int64_t n) {
  return minmax_contig<T, true>(p, n, -std::numeric_limits<T>::infinity());
}
// Note [Shift of softmax and logsumexp]
// Both subtract the row's max before exp, as torch. logsumexp shifts by 0 where the max is not
// finite (torch's logsumexp masks an infinite max: [inf, inf] gives inf, [-inf, -inf] -inf);
// softmax and log_softmax subtract the max as it is, so a row whose max is inf or -inf is NaN
// throughout (inf - inf), as torch's softmax([inf, 1]) == [nan, nan]. The reference kernels
// (reference/kernels.py, _shifted) do the same.
template <class T>
TG_INLINE T finite_or_zero(T m) {
  return (m - m == T(0)) ? m : T(0);
}
template <class T>
TG_INLINE T row_sum_exp(const T* __restrict p, int64_t n, T m) {
  constexpr int L = 16;
  T acc[L] = {};
  int64_t i = 0;
  for (; i + L <= n; i += L)
    for (int j = 0; j < L; ++j) acc[j] += vec::exp(p[i + j] - m);
  T s = 0;
  for (; i < n; ++i) s += vec::exp(p[i] - m);
  for (int j = 0; j < L; ++j) s += acc[j];
  return s;
}
template <class T>
TG_INLINE void row_exp(T* __restrict o, const T* __restrict p, int64_t n, T m) {
  for (int64_t i = 0; i < n; ++i) o[i] = vec::exp(p[i] - m);
}
template <class T>
TG_INLINE void row_scale(T* __restrict o, int64_t n, T s) {
  for (int64_t i = 0; i < n; ++i) o[i] *= s;
}
template <class T>
TG_INLINE void row_shift(T* __restrict o, const T* __restrict p, int64_t n, T s) {
  for (int64_t i = 0; i < n; ++i) o[i] = p[i] - s;
}

enum class SoftKind { Softmax, LogSoftmax, LogSumExp };

// rows [b, e) of a [rows, n] contiguous x; LogSumExp writes one value per row.
template <class T, SoftKind S>
TG_INLINE void soft_rows(T* out, const T* x, int64_t b, int64_t e, int64_t n) {
  for (int64_t r = b; r < e; ++r) {
    const T* row = x + r * n;
    // Note [Shift of softmax and logsumexp]
    const T m = S == SoftKind::LogSumExp ? finite_or_zero(row_max(row, n)) : row_max(row, n);
    if constexpr (S == SoftKind::LogSumExp) {
      out[r] = m + std::log(row_sum_exp(row, n, m));
    } else if constexpr (S == SoftKind::LogSoftmax) {
      row_shift(out + r * n, row, n, T(m + std::log(row_sum_exp(row, n, m))));
    } else {
      T* orow = out + r * n;
      row_exp(orow, row, n, m);
      row_scale(orow, n, T(T(1) / sum_contig(orow, n)));
    }
  }
}

#define TG_SOFT_ROWS(NAME, KIND)                                                             \
  TG_CLONES void NAME##_f32(float* out, const float* x, int64_t b, int64_t e, int64_t n) {   \
    soft_rows<float, KIND>(out, x, b, e, n);                                                 \
  }                                                                                          \
  TG_CLONES void NAME##_f64(double* out, const double* x, int64_t b, int64_t e, int64_t n) { \
    soft_rows<double, KIND>(out, x, b, e, n);                                                \
  }
TG_SOFT_ROWS(softmax_rows, SoftKind::Softmax)
TG_SOFT_ROWS(log_softmax_rows, SoftKind::LogSoftmax)
TG_SOFT_ROWS(logsumexp_rows, SoftKind::LogSumExp)
#undef TG_SOFT_ROWS

template <class T, SoftKind S>
void run_soft_rows(T* out, const T* x, int64_t rows, int64_t n) {
  parallel_for(rows, std::max<int64_t>(1, kGrainExpensive / std::max<int64_t>(n, 1)),
               [&](int64_t b, int64_t e) {
                 if constexpr (std::is_same_v<T, float>) {
                   if constexpr (S == SoftKind::Softmax)
                     softmax_rows_f32(out, x, b, e, n);
                   else if constexpr (S == SoftKind::LogSoftmax)
                     log_softmax_rows_f32(out, x, b, e, n);
                   else
                     logsumexp_rows_f32(out, x, b, e, n);
                 } else {
                   if constexpr (S == SoftKind::Softmax)
                     softmax_rows_f64(out, x, b, e, n);
                   else if constexpr (S == SoftKind::LogSoftmax)
                     log_softmax_rows_f64(out, x, b, e, n);
                   else
                     logsumexp_rows_f64(out, x, b, e, n);
                 }
               });
}

// softmax / log_softmax along the middle axis of [outer, n, inner], x contiguous.
template <class T, SoftKind S>
void softmax_rows(T* out, const T* x, const Around& a) {
  if (a.inner == 1) return run_soft_rows<T, S>(out, x, a.outer, a.n);
  const int64_t per = a.n * a.inner;
  parallel_for(a.outer, std::max<int64_t>(1, kGrainExpensive / std::max<int64_t>(per, 1)),
               [&](int64_t b, int64_t e) {
                 std::vector<T> mx(a.inner), sm(a.inner);
                 for (int64_t o = b; o < e; ++o) {
                   const T* base = x + o * per;
                   T* obase = out + o * per;
                   std::fill(mx.begin(), mx.end(), -std::numeric_limits<T>::infinity());
                   for (int64_t r = 0; r < a.n; ++r)
                     for (int64_t i = 0; i < a.inner; ++i)
                       mx[i] = max_op(mx[i], base[r * a.inner + i]);
                   std::fill(sm.begin(), sm.end(), T(0));
                   for (int64_t r = 0; r < a.n; ++r)
                     for (int64_t i = 0; i < a.inner; ++i) {
                       T ev = vec::exp(base[r * a.inner + i] - mx[i]);
                       obase[r * a.inner + i] = ev;
                       sm[i] += ev;
                     }
                   if constexpr (S == SoftKind::Softmax) {
                     for (int64_t i = 0; i < a.inner; ++i) sm[i] = T(1) / sm[i];
                     for (int64_t r = 0; r < a.n; ++r)
                       for (int64_t i = 0; i < a.inner; ++i) obase[r * a.inner + i] *= sm[i];
                   } else {
                     for (int64_t i = 0; i < a.inner; ++i) sm[i] = mx[i] + std::log(sm[i]);
                     for (int64_t r = 0; r < a.n; ++r)
                       for (int64_t i = 0; i < a.inner; ++i)
                         obase[r * a.inner + i] = base[r * a.inner + i] - sm[i];
                   }
                 }
               });
}

template <SoftKind S>
Tensor soft(const Tensor& x, int64_t dim, const char* name) {
  x.check_defined(name);
  if (!is_floating(x.dtype())) return soft<S>(floating(x), dim, name);
  if (is_half(x.dtype()))  // Note [Storage dtypes]
    return to_dtype(soft<S>(to_dtype(x, DType::Float32), dim, name), x.dtype());
  Tensor xc = as_contiguous(x);
  if (xc.dim() == 0) {
    wrap_dim(dim, 0, xc.sizes());
    xc = xc.view(Shape{1}, Shape{1}, xc.offset());
    Tensor r = soft<S>(xc, 0, name);
    return r.view(Shape{}, Shape{}, r.offset());
  }
  int64_t d = wrap_dim(dim, xc.dim(), xc.sizes());
  Tensor out = Tensor::empty(xc.sizes(), xc.dtype());
  if (xc.numel() == 0) return out;
  Around a = around(xc, d);
  dispatch_floating(xc.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    softmax_rows<T, S>(out.data<T>(), xc.data<T>(), a);
  });
  return out;
}

}  // namespace

Tensor sum(const Tensor& x, const Shape& dims, bool keepdim) {
  return reduce<Kind::Sum>(x, dims, keepdim, "sum");
}
Tensor amax(const Tensor& x, const Shape& dims, bool keepdim) {
  return reduce<Kind::Max>(x, dims, keepdim, "amax");
}
Tensor amin(const Tensor& x, const Shape& dims, bool keepdim) {
  return reduce<Kind::Min>(x, dims, keepdim, "amin");
}

std::tuple<Tensor, Tensor> max_dim(const Tensor& x, int64_t dim, bool keepdim) {
  return arg_reduce<true>(x, dim, keepdim, "max_dim");
}
std::tuple<Tensor, Tensor> min_dim(const Tensor& x, int64_t dim, bool keepdim) {
  return arg_reduce<false>(x, dim, keepdim, "min_dim");
}

Tensor logsumexp(const Tensor& x, const Shape& dims, bool keepdim) {
  x.check_defined("logsumexp");
  if (!is_floating(x.dtype())) return logsumexp(floating(x), dims, keepdim);
  if (is_half(x.dtype()))  // Note [Storage dtypes]
    return to_dtype(logsumexp(to_dtype(x, DType::Float32), dims, keepdim), x.dtype());
  const Tensor& xf = x;
  DimMask m = parse_dims(xf, dims, "logsumexp");
  if (m.count == 0) return clone(xf);
  if (xf.numel() == 0) return log(sum(exp(xf), dims, keepdim));
  // One trailing reduced dim of a contiguous tensor: rows, in one pass each.
  int64_t nd = xf.dim();
  if (xf.is_contiguous() && m.count == 1 && m.reduce[nd - 1] && xf.numel() > 0) {
    Around a = around(xf, nd - 1);
    Tensor out = Tensor::empty(kept_shape(xf, m, keepdim), xf.dtype());
    dispatch_floating(xf.dtype(), "logsumexp", [&](auto tag) {
      using T = typename decltype(tag)::type;
      run_soft_rows<T, SoftKind::LogSumExp>(out.data<T>(), xf.data<T>(), a.outer, a.n);
    });
    return out;
  }
  Tensor mx = amax(xf, dims, true);
  Tensor shift = where(eq(sub(mx, mx), zeros_like(mx)), mx, zeros_like(mx));  // 0 where not finite
  Tensor s = sum(exp(sub(xf, shift)), dims, true);
  Tensor out = add(log(s), shift);
  if (!keepdim) out = squeeze(out, dims);
  return out;
}

Tensor softmax(const Tensor& x, int64_t dim) { return soft<SoftKind::Softmax>(x, dim, "softmax"); }

// Note [attention_softmax in one pass]
// sdpa's forward (formulas/nn.py) needs softmax(scores * scale + mask) over the last dim, the
// additive mask broadcast over the batch and head dims (a causal (L, S) mask over (N, H, L, S)).
// As kernels mul, add and softmax it allocated three (..., L, S) tensors and the broadcast add
// ran the generic strided loop; here each row is scaled, masked and its max taken in one pass,
// then exponentiated and normalised in place: one output, the mask row read where it lies (its
// last dim contiguous or broadcast). A row whose entries are all -inf gives NaN, as softmax.
// Other dtypes (and a mask of another dtype) go through the kernels written out.
namespace {

template <class T>
TG_INLINE T scaled_masked_max(T* __restrict o, const T* __restrict x, const T* __restrict mk,
                              int64_t mstride, int64_t n, T scale) {
  if (mk == nullptr) {
    for (int64_t i = 0; i < n; ++i) o[i] = x[i] * scale;
  } else if (mstride == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = x[i] * scale + mk[i];
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = x[i] * scale + mk[i * mstride];
  }
  return row_max(o, n);
}

#define TG_ATTN_ROW(T, SUFFIX)                                                                     \
  TG_CLONES void attention_row_##SUFFIX(T* o, const T* x, const T* mk, int64_t mstride, int64_t n, \
                                        T scale) {                                                 \
    const T m = finite_or_zero(scaled_masked_max<T>(o, x, mk, mstride, n, scale));                 \
    for (int64_t i = 0; i < n; ++i) o[i] = vec::exp(o[i] - m);                                     \
    row_scale(o, n, T(T(1) / sum_contig(o, n)));                                                   \
  }
TG_ATTN_ROW(float, f32)
TG_ATTN_ROW(double, f64)
#undef TG_ATTN_ROW

}  // namespace

Tensor attention_softmax(const Tensor& scores, double scale, const Tensor& mask) {
  scores.check_defined("attention_softmax");
  const DType dt = scores.dtype();
  const bool fast = (dt == DType::Float32 || dt == DType::Float64) && scores.dim() >= 1 &&
                    (!mask.defined() || mask.dtype() == dt);
  if (!fast) {
    Tensor scaled = mul(scores, scalar_like(scores, scale));
    return softmax(mask.defined() ? add(scaled, mask) : scaled, -1);
  }
  Tensor x = as_contiguous(scores);
  Tensor mk = mask.defined() ? expand(mask, x.sizes()) : mask;
  const int64_t nd = x.dim(), n = x.sizes()[nd - 1];
  Tensor out = Tensor::empty(x.sizes(), dt);
  if (x.numel() == 0) return out;
  const int64_t rows = x.numel() / n;
  dispatch_floating(dt, "attention_softmax", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* px = x.data<T>();
    T* po = out.data<T>();
    const T* pm = mk.defined() ? mk.data<T>() : nullptr;
    const int64_t mstride = mk.defined() ? mk.strides()[nd - 1] : 0;
    parallel_for(rows, std::max<int64_t>(1, kGrainExpensive / std::max<int64_t>(n, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t r = b; r < e; ++r) {
                     const T* mrow = nullptr;
                     if (pm != nullptr) {  // the mask row of row r, through the expanded strides
                       int64_t off = 0, rest = r;
                       for (int64_t d = nd - 2; d >= 0; --d) {
                         off += (rest % x.sizes()[d]) * mk.strides()[d];
                         rest /= x.sizes()[d];
                       }
                       mrow = pm + off;
                     }
                     if constexpr (std::is_same_v<T, float>)
                       attention_row_f32(po + r * n, px + r * n, mrow, mstride, n, float(scale));
                     else
                       attention_row_f64(po + r * n, px + r * n, mrow, mstride, n, scale);
                   }
                 });
  });
  return out;
}
Tensor log_softmax(const Tensor& x, int64_t dim) {
  return soft<SoftKind::LogSoftmax>(x, dim, "log_softmax");
}

Tensor sum_to(const Tensor& x, const Shape& shape) {
  x.check_defined("sum_to");
  if (x.sizes() == shape) return clone(x);
  const int64_t nd = x.dim(), ns = static_cast<int64_t>(shape.size());
  auto fail = [&]() {
    throw ValueError("sum_to: a tensor of shape " + shape_str(x.sizes()) +
                     " cannot be summed to shape " + shape_str(shape) +
                     " (the target must be broadcastable to it)");
  };
  if (ns > nd) fail();
  Shape dims;
  const int64_t lead = nd - ns;
  for (int64_t i = 0; i < lead; ++i) dims.push_back(i);
  for (int64_t i = 0; i < ns; ++i) {
    int64_t have = x.sizes()[lead + i];
    if (shape[i] == have) continue;
    if (shape[i] == 1)
      dims.push_back(lead + i);
    else
      fail();
  }
  DimMask m = parse_dims(x, dims, "sum_to");
  return reduce_to<Kind::Sum>(x, m, shape, "sum_to");
}

}  // namespace tg::kernel
