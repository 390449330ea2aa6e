// Products and scans of torch's derivative table (issue 15): prod over dims, and the running
// cumprod, logcumsumexp, cummax and cummin along one dim. Each works on rows: the scanned (or
// reduced) dims are moved last and made contiguous, every row is processed in order, and the
// result is moved back. cummax/cummin take the later index among equal values and let NaN win
// (as torch's).
#include <cmath>
#include <limits>
#include <string>

#include "kernels/kernels.h"
#include "kernels/loops.h"

namespace tg::kernel {
using namespace detail;

namespace {

// x with dim `d` moved last, contiguous, in dtype `dt`; rows of length n.
struct Rows {
  Tensor data;
  int64_t rows, n;
};
Rows rows_along(const Tensor& x, int64_t d, DType dt) {
  Tensor t = x.dim() == 0 ? reshape(x, Shape{1}) : transpose(x, d, -1);
  t = contiguous(to_dtype(t, dt));
  const int64_t n = t.dim() == 0 ? 1 : t.sizes().back();
  return {t, n == 0 ? 0 : t.numel() / n, n};
}

// The inverse of rows_along for an output laid out as rows: back to x's shape and layout.
Tensor from_rows(const Tensor& out_rows, const Tensor& x, int64_t d) {
  if (x.dim() == 0) return reshape(out_rows, Shape{});
  return contiguous(transpose(out_rows, d, -1));
}

template <class F>
Tensor float_scan(const Tensor& x, int64_t dim, const char* name, F f) {
  x.check_defined(name);
  if (!is_floating(x.dtype()))
    return float_scan(to_dtype(x, floating_dtype(x.dtype())), dim, name, f);
  if (is_half(x.dtype()))  // Note [Storage dtypes]
    return to_dtype(float_scan(to_dtype(x, DType::Float32), dim, name, f), x.dtype());
  const int64_t d = wrap_dim(dim, x);
  const DType dt = x.dtype();
  Rows r = rows_along(x, d, dt);
  Tensor out = Tensor::empty(r.data.sizes(), dt);
  dispatch_floating(dt, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = r.data.data<T>();
    T* o = out.data<T>();
    parallel_for(r.rows, std::max<int64_t>(1, kGrainExpensive / std::max<int64_t>(r.n, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t row = b; row < e; ++row) f(in + row * r.n, o + row * r.n, r.n);
                 });
  });
  return from_rows(out, x, d);
}

template <bool kMax>
std::tuple<Tensor, Tensor> cum_extremum(const Tensor& x, int64_t dim, const char* name) {
  x.check_defined(name);
  if (x.dtype() > DType::Float64)  // Note [Storage dtypes]
    return with_values_as(cum_extremum<kMax>(to_dtype(x, compute_dtype(x.dtype())), dim, name),
                          x.dtype());
  const int64_t d = wrap_dim(dim, x);
  const DType dt = x.dtype() == DType::Bool ? DType::Int64 : x.dtype();
  Rows r = rows_along(x, d, dt);
  Tensor values = Tensor::empty(r.data.sizes(), dt),
         indices = Tensor::empty(r.data.sizes(), DType::Int64);
  dispatch_numeric(dt, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = r.data.data<T>();
    T* v = values.data<T>();
    int64_t* ix = indices.data<int64_t>();
    for (int64_t row = 0; row < r.rows; ++row) {
      const T* s = in + row * r.n;
      T* vo = v + row * r.n;
      int64_t* io = ix + row * r.n;
      T best = s[0];
      int64_t at = 0;
      for (int64_t i = 0; i < r.n; ++i) {
        const T xi = s[i];
        const bool take = (xi != xi) || (best == best && (kMax ? xi >= best : xi <= best));
        if (take) {
          best = xi;
          at = i;
        }
        vo[i] = best;
        io[i] = at;
      }
    }
  });
  return {from_rows(values, x, d), from_rows(indices, x, d)};
}

}  // namespace

Tensor prod(const Tensor& x, const Shape& dims, bool keepdim) {
  x.check_defined("prod");
  if (x.dtype() > DType::Float64)  // Note [Storage dtypes]
  {  // integers multiply into int64 (as torch); float16/bfloat16 in float32, rounded back
    Tensor r = prod(to_dtype(x, compute_dtype(x.dtype())), dims, keepdim);
    return is_half(x.dtype()) ? to_dtype(r, x.dtype()) : r;
  }
  const int64_t nd = x.dim();
  std::vector<bool> reduced(static_cast<size_t>(std::max<int64_t>(nd, 1)), false);
  for (int64_t dim : dims) {
    const int64_t d = wrap_dim(dim, x);
    if (reduced[static_cast<size_t>(d)]) throw RuntimeError(dim_repeated(d));
    reduced[static_cast<size_t>(d)] = true;
  }
  Shape order, out_shape;
  int64_t n = 1;
  for (int64_t i = 0; i < nd; ++i)
    if (!reduced[static_cast<size_t>(i)]) {
      order.push_back(i);
      out_shape.push_back(x.sizes()[i]);
    } else if (keepdim) {
      out_shape.push_back(1);
    }
  for (int64_t i = 0; i < nd; ++i)
    if (reduced[static_cast<size_t>(i)]) {
      order.push_back(i);
      n *= x.sizes()[i];
    }
  const DType dt = x.dtype() == DType::Bool ? DType::Int64 : x.dtype();
  Tensor src = contiguous(to_dtype(nd == 0 ? x : permute(x, order), dt));
  const int64_t rows = n == 0 ? 0 : src.numel() / n;
  Tensor out = Tensor::empty(out_shape, dt);
  dispatch_numeric(dt, "prod", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = src.data<T>();
    T* o = out.data<T>();
    const int64_t count = out.numel();
    for (int64_t row = 0; row < count; ++row) {
      T acc = T(1);
      if (rows > 0)
        for (int64_t i = 0; i < n; ++i) acc *= in[row * n + i];
      o[row] = acc;
    }
  });
  return out;
}

Tensor cumprod(const Tensor& x, int64_t dim) {
  return float_scan(x, dim, "cumprod", [](const auto* s, auto* o, int64_t n) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(s)>>;
    T acc = T(1);
    for (int64_t i = 0; i < n; ++i) o[i] = acc *= s[i];
  });
}

Tensor logcumsumexp(const Tensor& x, int64_t dim) {
  return float_scan(x, dim, "logcumsumexp", [](const auto* s, auto* o, int64_t n) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(s)>>;
    T acc = -std::numeric_limits<T>::infinity();
    for (int64_t i = 0; i < n; ++i) {
      const T v = s[i];
      const T hi = acc > v ? acc : v, lo = acc > v ? v : acc;
      // log(e^acc + e^v) = hi + log1p(e^(lo - hi)); NaN propagates, -inf + -inf stays -inf,
      // and equal values (inf included) add log 2.
      if (v != v || acc != acc)
        acc = v + acc;
      else if (lo == -std::numeric_limits<T>::infinity())
        acc = hi;
      else if (lo == hi)
        acc = hi + T(0.69314718055994530942);
      else
        acc = hi + std::log1p(std::exp(lo - hi));
      o[i] = acc;
    }
  });
}

std::tuple<Tensor, Tensor> cummax(const Tensor& x, int64_t dim) {
  return cum_extremum<true>(x, dim, "cummax");
}
std::tuple<Tensor, Tensor> cummin(const Tensor& x, int64_t dim) {
  return cum_extremum<false>(x, dim, "cummin");
}

}  // namespace tg::kernel
