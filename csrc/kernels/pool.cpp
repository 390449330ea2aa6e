// Pooling kernels: max_pool2d (values and flat H*W indices, torch's return_indices layout) and
// adaptive_pool_weights (the constant matrix of adaptive average pooling). Window geometry:
// Note [Window geometry] (python/transgrad/reference/kernels_nn.py).
#include <cmath>
#include <string>

#include "kernels/kernels.h"
#include "kernels/loops.h"

namespace tg::kernel {
using namespace detail;

namespace {

// One (H, W) plane of max_pool2d whose windows all lie inside it (Note [max_pool2d without
// branches]): the first maximum in (i, j) order, a nan winning over any number.
template <class T>
void max_pool_plane_inside(const T* __restrict plane, int64_t w, const Window2d& g,
                           T* __restrict vo, int64_t* __restrict io) {
  auto take = [](T v, T best) { return (v > best) | ((v != v) & (best == best)); };
  for (int64_t y = 0; y < g.oh; ++y) {
    const int64_t r0 = y * g.sh;
    T* vrow = vo + y * g.ow;
    int64_t* irow = io + y * g.ow;
    if (g.kh == 2 && g.kw == 2) {
      const T* a = plane + r0 * w;
      const T* b = a + w;
      for (int64_t xo = 0; xo < g.ow; ++xo) {
        const int64_t c0 = xo * g.sw;
        T best = a[c0];
        int64_t arg = r0 * w + c0;
        const T v1 = a[c0 + 1], v2 = b[c0], v3 = b[c0 + 1];
        bool t = take(v1, best);
        best = t ? v1 : best;
        arg = t ? r0 * w + c0 + 1 : arg;
        t = take(v2, best);
        best = t ? v2 : best;
        arg = t ? (r0 + 1) * w + c0 : arg;
        t = take(v3, best);
        best = t ? v3 : best;
        arg = t ? (r0 + 1) * w + c0 + 1 : arg;
        vrow[xo] = best;
        irow[xo] = arg;
      }
      continue;
    }
    for (int64_t xo = 0; xo < g.ow; ++xo) {
      const int64_t c0 = xo * g.sw;
      T best = plane[r0 * w + c0];
      int64_t arg = r0 * w + c0;
      for (int64_t i = 0; i < g.kh; ++i) {
        const T* row = plane + (r0 + i) * w + c0;
        for (int64_t j = 0; j < g.kw; ++j) {
          const bool t = take(row[j], best);
          best = t ? row[j] : best;
          arg = t ? (r0 + i) * w + c0 + j : arg;
        }
      }
      vrow[xo] = best;
      irow[xo] = arg;
    }
  }
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d(const Tensor& x, const Shape& kernel_size,
                                      const Shape& stride, const Shape& padding,
                                      const Shape& dilation) {
  x.check_defined("max_pool2d");
  if (is_half(x.dtype()))  // Note [Storage dtypes]
    return with_values_as(
        max_pool2d(to_dtype(x, DType::Float32), kernel_size, stride, padding, dilation), x.dtype());
  if (x.dim() != 4)
    throw ValueError("max_pool2d: expected a 4-D (N, C, H, W) input, got shape " +
                     shape_str(x.sizes()));
  if (!is_floating(x.dtype()))
    throw ValueError(std::string("max_pool2d: unsupported dtype ") + dtype_name(x.dtype()) +
                     " (expected float32 or float64)");
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const Window2d g = window2d("max_pool2d", h, w, kernel_size, stride, padding, dilation);
  if (g.ph > g.kh / 2 || g.pw > g.kw / 2)
    throw ValueError("max_pool2d: padding " + shape_str(padding) +
                     " must be at most half of kernel_size " + shape_str(kernel_size));
  Tensor src = as_contiguous(x);
  Tensor values = Tensor::empty({n, c, g.oh, g.ow}, x.dtype());
  Tensor indices = Tensor::empty({n, c, g.oh, g.ow}, DType::Int64);
  dispatch_floating(x.dtype(), "max_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = src.data<T>();
    T* vo = values.data<T>();
    int64_t* io = indices.data<int64_t>();
    const int64_t len = g.oh * g.ow;
    // Note [max_pool2d without branches]: windows wholly inside the image (no padding, no
    // dilation) need no bounds checks, and "take v if v > best, or v is the first nan" is
    // written as selects, not branches: with real data the comparison is a coin toss, and a
    // mispredicted branch per element cost 120 us on bench/cnn_step.py's first pool (8x8x28x28)
    // where the branch-free loop takes a tenth of that.
    const bool inside = g.ph == 0 && g.pw == 0 && g.dh == 1 && g.dw == 1;
    parallel_for(n * c, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(len * g.kh * g.kw, 1)),
                 [&](int64_t b, int64_t e) {
                   if (inside) {
                     for (int64_t nc = b; nc < e; ++nc)
                       max_pool_plane_inside(in + nc * h * w, w, g, vo + nc * len, io + nc * len);
                     return;
                   }
                   for (int64_t nc = b; nc < e; ++nc) {
                     const T* plane = in + nc * h * w;
                     for (int64_t y = 0; y < g.oh; ++y) {
                       for (int64_t xo = 0; xo < g.ow; ++xo) {
                         // the first maximum in (i, j) order; a nan wins (as numpy's argmax and
                         // torch)
                         T best = T(0);
                         int64_t arg = -1;
                         for (int64_t i = 0; i < g.kh; ++i) {
                           const int64_t r = y * g.sh - g.ph + i * g.dh;
                           if (r < 0 || r >= h) continue;
                           for (int64_t j = 0; j < g.kw; ++j) {
                             const int64_t col = xo * g.sw - g.pw + j * g.dw;
                             if (col < 0 || col >= w) continue;
                             const T v = plane[r * w + col];
                             if (arg < 0 || v > best || (std::isnan(v) && !std::isnan(best))) {
                               best = v;
                               arg = r * w + col;
                             }
                           }
                         }
                         const int64_t q = nc * len + y * g.ow + xo;
                         vo[q] = best;
                         io[q] = arg;
                       }
                     }
                   }
                 });
  });
  return {values, indices};
}

Tensor adaptive_pool_weights(const Tensor& x, int64_t in_size, int64_t out_size) {
  x.check_defined("adaptive_pool_weights");
  if (is_half(x.dtype()))  // Note [Storage dtypes]; x only gives the dtype: a 0-d stand-in
    return to_dtype(
        adaptive_pool_weights(Tensor::empty(Shape{}, DType::Float32), in_size, out_size),
        x.dtype());
  if (!is_floating(x.dtype()))
    throw ValueError(std::string("adaptive_pool_weights: unsupported dtype ") +
                     dtype_name(x.dtype()) + " (expected float32 or float64)");
  if (in_size < 1 || out_size < 1)
    throw ValueError("adaptive_pool_weights: sizes must be positive, got in_size " +
                     std::to_string(in_size) + " and out_size " + std::to_string(out_size));
  Tensor out = Tensor::empty({out_size, in_size}, x.dtype());
  dispatch_floating(x.dtype(), "adaptive_pool_weights", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.data<T>();
    for (int64_t i = 0; i < out_size; ++i) {
      const int64_t lo = (i * in_size) / out_size,
                    hi = ((i + 1) * in_size + out_size - 1) / out_size;
      for (int64_t k = 0; k < in_size; ++k)
        o[i * in_size + k] =
            (k >= lo && k < hi) ? static_cast<T>(1.0 / static_cast<double>(hi - lo)) : T(0);
    }
  });
  return out;
}

}  // namespace tg::kernel
