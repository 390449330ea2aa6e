// cumsum, flip, tril, triu, pad, sort, topk: the misc kernels of the neural-network section of
// translator/signatures.py. Each reads a contiguous copy of its input (as_contiguous) and writes
// a fresh contiguous output; sort/topk are stable (ties keep the lower index; nan is largest).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "kernels/kernels.h"
#include "kernels/loops.h"

namespace tg::kernel {
using namespace detail;

namespace {

struct Lines {  // a contiguous shape seen as (outer, n, inner) around one dim
  int64_t outer = 1, n = 1, inner = 1;
};
Lines lines(const Shape& s, int64_t d) {
  Lines l;
  for (int64_t i = 0; i < static_cast<int64_t>(s.size()); ++i) {
    if (i < d)
      l.outer *= s[i];
    else if (i == d)
      l.n = s[i];
    else
      l.inner *= s[i];
  }
  return l;
}

template <class T>
inline bool before(T a, T b, bool descending) {
  if constexpr (std::is_floating_point_v<T>) {
    if (descending) return a > b || (std::isnan(a) && !std::isnan(b));
    return a < b || (std::isnan(b) && !std::isnan(a));
  } else {
    return descending ? a > b : a < b;
  }
}

// Sorted values and indices along dim, the first k of each line kept.
std::tuple<Tensor, Tensor> sorted_lines(const Tensor& x, int64_t d, int64_t k, bool descending,
                                        const char* name) {
  if (x.dtype() > DType::Float64)  // Note [Storage dtypes]
    return with_values_as(
        sorted_lines(to_dtype(x, compute_dtype(x.dtype())), d, k, descending, name), x.dtype());
  Tensor src = as_contiguous(x);
  const Lines l = lines(x.sizes(), d);
  Shape out_shape = x.sizes();
  if (x.dim() > 0) out_shape[d] = k;
  Tensor values = Tensor::empty(out_shape, x.dtype());
  Tensor indices = Tensor::empty(out_shape, DType::Int64);
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = src.data<T>();
    T* vo = values.data<T>();
    int64_t* io = indices.data<int64_t>();
    parallel_for(l.outer * l.inner, std::max<int64_t>(1, 4096 / std::max<int64_t>(l.n, 1)),
                 [&](int64_t b, int64_t e) {
                   std::vector<int64_t> order(l.n);
                   for (int64_t t = b; t < e; ++t) {
                     const int64_t o = t / l.inner, i = t % l.inner;
                     const T* line = in + o * l.n * l.inner + i;
                     std::iota(order.begin(), order.end(), int64_t{0});
                     std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
                       return before(line[p * l.inner], line[q * l.inner], descending);
                     });
                     const int64_t base = o * k * l.inner + i;
                     for (int64_t j = 0; j < k; ++j) {
                       vo[base + j * l.inner] = line[order[j] * l.inner];
                       io[base + j * l.inner] = order[j];
                     }
                   }
                 });
  });
  (void)name;
  return {values, indices};
}

}  // namespace

Tensor cumsum(const Tensor& x, int64_t dim) {
  x.check_defined("cumsum");
  const int64_t d = wrap_dim(dim, x);
  if (is_half(x.dtype())) return to_dtype(cumsum(to_dtype(x, DType::Float32), dim), x.dtype());
  const DType od = is_floating(x.dtype()) ? x.dtype() : DType::Int64;
  Tensor src = to_dtype(as_contiguous(x), od);
  src = as_contiguous(src);
  Tensor out = Tensor::empty(x.sizes(), od);
  if (out.numel() == 0) return out;  // a line of length 0 has no first element to copy
  const Lines l = x.dim() == 0 ? Lines{} : lines(x.sizes(), d);
  dispatch_numeric(od, "cumsum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = src.data<T>();
    T* o = out.data<T>();
    parallel_for(l.outer, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(l.n * l.inner, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t oi = b; oi < e; ++oi) {
                     const T* s = in + oi * l.n * l.inner;
                     T* t = o + oi * l.n * l.inner;
                     for (int64_t i = 0; i < l.inner; ++i) t[i] = s[i];
                     for (int64_t k = 1; k < l.n; ++k)
                       for (int64_t i = 0; i < l.inner; ++i)
                         t[k * l.inner + i] = t[(k - 1) * l.inner + i] + s[k * l.inner + i];
                   }
                 });
  });
  return out;
}

Tensor flip(const Tensor& x, const Shape& dims) {
  x.check_defined("flip");
  const int64_t nd = x.dim();
  std::vector<bool> flipped(static_cast<size_t>(std::max<int64_t>(nd, 1)), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, x);
    if (flipped[w]) throw RuntimeError(dim_repeated(w));
    flipped[w] = true;
  }
  Tensor src = as_contiguous(x);
  Tensor out = Tensor::empty(x.sizes(), x.dtype());
  const Shape strides = contiguous_strides(x.sizes());
  dispatch_storage(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = src.data<T>();
    T* o = out.data<T>();
    const int64_t n = x.numel();
    parallel_for(n, kGrainCheap, [&](int64_t b, int64_t e) {
      for (int64_t q = b; q < e; ++q) {
        int64_t rest = q, from = 0;
        for (int64_t a = 0; a < nd; ++a) {
          const int64_t idx = rest / strides[a];
          rest %= strides[a];
          from += (flipped[a] ? x.sizes()[a] - 1 - idx : idx) * strides[a];
        }
        o[q] = in[from];
      }
    });
  });
  return out;
}

namespace {

Tensor triangle(const Tensor& x, int64_t diagonal, bool lower, const char* name) {
  x.check_defined(name);
  if (x.dim() < 2)
    throw ValueError(std::string(name) +
                     ": input tensor must have at least 2 dimensions (got shape " +
                     shape_str(x.sizes()) + ")");
  if (x.dtype() > DType::Float64)  // Note [Storage dtypes]
    return to_dtype(triangle(to_dtype(x, compute_dtype(x.dtype())), diagonal, lower, name),
                    x.dtype());
  Tensor src = as_contiguous(x);
  Tensor out = Tensor::empty(x.sizes(), x.dtype());
  const int64_t rows = x.size(-2), cols = x.size(-1),
                mats = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = src.data<T>();
    T* o = out.data<T>();
    parallel_for(mats * rows, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(cols, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t mr = b; mr < e; ++mr) {
                     const int64_t r = mr % rows;
                     for (int64_t c = 0; c < cols; ++c) {
                       const bool keep = lower ? c - r <= diagonal : c - r >= diagonal;
                       o[mr * cols + c] = keep ? in[mr * cols + c] : T(0);
                     }
                   }
                 });
  });
  return out;
}

}  // namespace

Tensor tril(const Tensor& x, int64_t diagonal) { return triangle(x, diagonal, true, "tril"); }

Tensor triu(const Tensor& x, int64_t diagonal) { return triangle(x, diagonal, false, "triu"); }

Tensor pad(const Tensor& x, const Shape& pads, double value) {
  x.check_defined("pad");
  if (x.dtype() > DType::Float64)  // Note [Storage dtypes]
    return to_dtype(pad(to_dtype(x, compute_dtype(x.dtype())), pads, value), x.dtype());
  const int64_t nd = x.dim();
  if (pads.size() % 2 != 0 || static_cast<int64_t>(pads.size() / 2) > nd)
    throw ValueError("pad: pads " + shape_str(pads) +
                     " must have an even length of at most 2 * ndim for a tensor of shape " +
                     shape_str(x.sizes()));
  Shape out_shape = x.sizes(), src_lo(nd, 0), dst_lo(nd, 0), len = x.sizes();
  for (size_t k = 0; k < pads.size() / 2; ++k) {
    const int64_t d = nd - 1 - static_cast<int64_t>(k);
    const int64_t lo = pads[2 * k], hi = pads[2 * k + 1], size = x.sizes()[d];
    // In 128 bits: size + lo + hi and -lo overflow int64 for hostile pads (Note [Checked sizes]).
    const __int128 padded = static_cast<__int128>(size) + lo + hi;
    if (padded > std::numeric_limits<int64_t>::max())
      throw RuntimeError("Storage size calculation overflowed: pads " + shape_str(pads) +
                         " make dimension " + std::to_string(d) + " of a tensor of shape " +
                         shape_str(x.sizes()) + " larger than int64 can count");
    out_shape[d] =
        static_cast<int64_t>(std::max<__int128>(padded, std::numeric_limits<int64_t>::min()));
    if (padded < 0)
      throw ValueError("pad: pads " + shape_str(pads) + " give a negative size in dimension " +
                       std::to_string(d) + " of a tensor of shape " + shape_str(x.sizes()));
    const auto clip = [size](__int128 v) {
      return static_cast<int64_t>(std::min<__int128>(size, std::max<__int128>(0, v)));
    };
    const int64_t start = clip(-static_cast<__int128>(lo)),
                  stop = size - clip(-static_cast<__int128>(hi));
    len[d] = std::max<int64_t>(0, stop - start);
    src_lo[d] = start;
    dst_lo[d] = std::max<int64_t>(0, lo);
  }
  Tensor src = as_contiguous(x);
  Tensor out = Tensor::empty(out_shape, x.dtype());
  const Shape ss = contiguous_strides(x.sizes()), os = contiguous_strides(out_shape);
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = src.data<T>();
    T* o = out.data<T>();
    const T v = static_cast<T>(value);
    const int64_t total = out.numel();
    for (int64_t q = 0; q < total; ++q) o[q] = v;
    const int64_t region = shape_numel(len);
    parallel_for(region, kGrainCheap, [&](int64_t b, int64_t e) {
      for (int64_t q = b; q < e; ++q) {
        int64_t rest = q, from = 0, to = 0;
        for (int64_t a = nd - 1; a >= 0; --a) {
          const int64_t idx = rest % len[a];
          rest /= len[a];
          from += (src_lo[a] + idx) * ss[a];
          to += (dst_lo[a] + idx) * os[a];
        }
        o[to] = in[from];
      }
    });
  });
  return out;
}

std::tuple<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending) {
  x.check_defined("sort");
  const int64_t d = wrap_dim(dim, x);
  return sorted_lines(x, d, x.dim() == 0 ? 1 : x.sizes()[d], descending, "sort");
}

std::tuple<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest) {
  x.check_defined("topk");
  const int64_t d = wrap_dim(dim, x);
  const int64_t size = x.dim() == 0 ? 1 : x.sizes()[d];
  if (k < 0 || k > size) throw RuntimeError("selected index k out of range");  // torch's words
  return sorted_lines(x, d, k, largest, "topk");
}

}  // namespace tg::kernel
