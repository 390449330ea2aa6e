// im2col / col2im: the data movement of convolution (Note [Convolution as im2col + matmul] in
// formulas/conv.py); the arithmetic is the BLAS matmul. Rows of the columns are ordered
// (channel, i, j), as torch's unfold; col2im is im2col's adjoint (overlapping windows sum).
#include <string>

#include "kernels/kernels.h"
#include "kernels/loops.h"

namespace tg::kernel {
using namespace detail;

namespace detail {

Window2d window2d(const char* name, int64_t h, int64_t w, const Shape& kernel_size,
                  const Shape& stride, const Shape& padding, const Shape& dilation) {
  const Shape* pairs[] = {&kernel_size, &stride, &padding, &dilation};
  const char* what[] = {"kernel_size", "stride", "padding", "dilation"};
  for (int i = 0; i < 4; ++i)
    if (pairs[i]->size() != 2)
      throw ValueError(std::string(name) + ": " + what[i] + " must have 2 entries (h, w), got " +
                       shape_str(*pairs[i]));
  Window2d g{kernel_size[0], kernel_size[1], stride[0],   stride[1], padding[0],
             padding[1],     dilation[0],    dilation[1], 0,         0};
  if (g.kh < 1 || g.kw < 1 || g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1 || g.ph < 0 || g.pw < 0)
    throw ValueError(std::string(name) + ": kernel_size " + shape_str(kernel_size) + ", stride " +
                     shape_str(stride) + " and dilation " + shape_str(dilation) +
                     " must be positive and padding " + shape_str(padding) + " non-negative");
  auto extent = [](int64_t n, int64_t k, int64_t s, int64_t p, int64_t d) {
    const int64_t span = n + 2 * p - d * (k - 1) - 1;
    return span < 0 ? 0 : span / s + 1;  // Python floor division: a negative span gives <= 0
  };
  g.oh = extent(h, g.kh, g.sh, g.ph, g.dh);
  g.ow = extent(w, g.kw, g.sw, g.pw, g.dw);
  if (g.oh < 1 || g.ow < 1)
    throw ValueError(std::string(name) + ": input of spatial size " + shape_str({h, w}) +
                     " is too small for kernel_size " + shape_str(kernel_size) + ", padding " +
                     shape_str(padding) + ", dilation " + shape_str(dilation));
  return g;
}

}  // namespace detail

namespace {

void check_image(const Tensor& x, const char* name) {
  x.check_defined(name);
  if (x.dim() != 4)
    throw ValueError(std::string(name) + ": expected a 4-D (N, C, H, W) input, got shape " +
                     shape_str(x.sizes()));
  if (!is_floating(x.dtype()))
    throw ValueError(std::string(name) + ": unsupported dtype " + dtype_name(x.dtype()) +
                     " (expected float32 or float64)");
}

// For kernel offset (i, j): the planes' rows [y0, y1) of windows that read an in-bounds input row.
struct Span {
  int64_t lo, hi;
};
Span valid(int64_t out, int64_t size, int64_t s, int64_t p, int64_t off) {
  // window o reads row o*s - p + off; in bounds when 0 <= row < size
  int64_t lo = 0;
  if (off - p < 0) lo = (p - off + s - 1) / s;
  int64_t hi = size - 1 - off + p < 0 ? 0 : (size - 1 - off + p) / s + 1;
  if (hi > out) hi = out;
  if (lo > hi) lo = hi;
  return {lo, hi};
}

}  // namespace

Tensor im2col(const Tensor& x, const Shape& kernel_size, const Shape& stride, const Shape& padding,
              const Shape& dilation) {
  check_image(x, "im2col");
  if (is_half(x.dtype()))  // Note [Storage dtypes]
    return to_dtype(im2col(to_dtype(x, DType::Float32), kernel_size, stride, padding, dilation),
                    x.dtype());
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const Window2d g = window2d("im2col", h, w, kernel_size, stride, padding, dilation);
  const int64_t kk = g.kh * g.kw, len = g.oh * g.ow;
  Tensor src = as_contiguous(x);
  Tensor out = Tensor::empty({n, c * kk, len}, x.dtype());
  dispatch_floating(x.dtype(), "im2col", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = src.data<T>();
    T* o = out.data<T>();
    // one task per (image, channel, kernel offset): a plane of oh*ow values
    parallel_for(n * c * kk, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(len, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t t = b; t < e; ++t) {
                     const int64_t ij = t % kk, nc = t / kk, i = ij / g.kw, j = ij % g.kw;
                     const T* plane = in + nc * h * w;
                     T* dst = o + t * len;
                     const Span ys = valid(g.oh, h, g.sh, g.ph, i * g.dh),
                                xs = valid(g.ow, w, g.sw, g.pw, j * g.dw);
                     for (int64_t y = 0; y < g.oh; ++y) {
                       T* row = dst + y * g.ow;
                       if (y < ys.lo || y >= ys.hi) {
                         for (int64_t xo = 0; xo < g.ow; ++xo) row[xo] = T(0);
                         continue;
                       }
                       const T* srow = plane + (y * g.sh - g.ph + i * g.dh) * w - g.pw + j * g.dw;
                       for (int64_t xo = 0; xo < xs.lo; ++xo) row[xo] = T(0);
                       if (g.sw == 1) {
                         for (int64_t xo = xs.lo; xo < xs.hi; ++xo) row[xo] = srow[xo];
                       } else {
                         for (int64_t xo = xs.lo; xo < xs.hi; ++xo) row[xo] = srow[xo * g.sw];
                       }
                       for (int64_t xo = xs.hi; xo < g.ow; ++xo) row[xo] = T(0);
                     }
                   }
                 });
  });
  return out;
}

Tensor col2im(const Tensor& cols, const Shape& input_size, const Shape& kernel_size,
              const Shape& stride, const Shape& padding, const Shape& dilation) {
  cols.check_defined("col2im");
  if (is_half(cols.dtype()))  // Note [Storage dtypes]
    return to_dtype(
        col2im(to_dtype(cols, DType::Float32), input_size, kernel_size, stride, padding, dilation),
        cols.dtype());
  if (cols.dim() != 3 || !is_floating(cols.dtype()))
    throw ValueError("col2im: expected a 3-D (N, C*kh*kw, L) floating tensor, got shape " +
                     shape_str(cols.sizes()) + " of dtype " + dtype_name(cols.dtype()));
  if (input_size.size() != 2)
    throw ValueError("col2im: input_size must have 2 entries (h, w), got " + shape_str(input_size));
  const int64_t h = input_size[0], w = input_size[1];
  const Window2d g = window2d("col2im", h, w, kernel_size, stride, padding, dilation);
  const int64_t kk = g.kh * g.kw, len = g.oh * g.ow, n = cols.size(0);
  if (cols.size(1) % kk != 0 || cols.size(2) != len)
    throw ValueError("col2im: columns of shape " + shape_str(cols.sizes()) +
                     " do not match kernel_size " + shape_str(kernel_size) + " and output size " +
                     shape_str({g.oh, g.ow}) + " (expected (N, C*" + std::to_string(kk) + ", " +
                     std::to_string(len) + "))");
  const int64_t c = cols.size(1) / kk;
  Tensor src = as_contiguous(cols);
  Tensor out = Tensor::empty({n, c, h, w}, cols.dtype());
  dispatch_floating(cols.dtype(), "col2im", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = src.data<T>();
    T* o = out.data<T>();
    // one task per (image, channel): it owns its output plane, so no two tasks write one value
    parallel_for(n * c, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(len * kk, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t nc = b; nc < e; ++nc) {
                     T* plane = o + nc * h * w;
                     for (int64_t q = 0; q < h * w; ++q) plane[q] = T(0);
                     for (int64_t ij = 0; ij < kk; ++ij) {
                       const int64_t i = ij / g.kw, j = ij % g.kw;
                       const T* srcp = in + (nc * kk + ij) * len;
                       const Span ys = valid(g.oh, h, g.sh, g.ph, i * g.dh),
                                  xs = valid(g.ow, w, g.sw, g.pw, j * g.dw);
                       for (int64_t y = ys.lo; y < ys.hi; ++y) {
                         T* drow = plane + (y * g.sh - g.ph + i * g.dh) * w - g.pw + j * g.dw;
                         const T* row = srcp + y * g.ow;
                         for (int64_t xo = xs.lo; xo < xs.hi; ++xo) drow[xo * g.sw] += row[xo];
                       }
                     }
                   }
                 });
  });
  return out;
}

}  // namespace tg::kernel
