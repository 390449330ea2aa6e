// Indexing kernels: index_select, index_add, gather, scatter_add, slice_scatter, select_scatter,
// and Python indexing's index / index_put. Index tensors are int64; out-of-range entries raise
// IndexError. Negative entries are out of range in index_select, index_add, gather and
// scatter_add, as in torch; they wrap in index and index_put, as Python indexing does (Note
// [Advanced indexing kernels]).
#include <algorithm>
#include <cstring>

#include "kernels/kernels.h"
#include "kernels/loops.h"

namespace tg::kernel {
using namespace detail;

namespace {

void check_index_dtype(const Tensor& index, const char* name) {
  index.check_defined(name);
  if (index.dtype() != DType::Int64)
    throw ValueError(std::string(name) + ": index must be an int64 tensor, got " +
                     dtype_name(index.dtype()));
}

// torch's words first, then which kernel and the tensor's shape.
[[noreturn]] void throw_index(const char* name, int64_t i, int64_t size, int64_t dim,
                              const Shape& shape) {
  throw IndexError("index " + std::to_string(i) + " is out of bounds for dimension " +
                   std::to_string(dim) + " with size " + std::to_string(size) + " (" + name +
                   " on a tensor of shape " + shape_str(shape) + ")");
}

// The entries of a 0-d or 1-D index, bounds-checked against `size` (no wrapping).
std::vector<int64_t> read_index(const Tensor& index, int64_t size, int64_t dim, const Shape& shape,
                                const char* name) {
  check_index_dtype(index, name);
  if (index.dim() > 1)
    throw ValueError(std::string(name) + ": index must be 0-d or 1-D, got shape " +
                     shape_str(index.sizes()));
  const int64_t n = index.numel();
  std::vector<int64_t> out(n);
  const int64_t* p = index.data<int64_t>();
  const int64_t st = index.dim() == 1 ? index.strides()[0] : 0;
  for (int64_t j = 0; j < n; ++j) {
    int64_t v = p[j * st];
    // negative entries are out of range, as torch's: only Python indexing wraps them, in the
    // index/index_put kernels below
    if (v < 0 || v >= size) throw_index(name, v, size, dim, shape);
    out[j] = v;
  }
  return out;
}

struct Around {
  int64_t outer = 1, n = 1, inner = 1;
};
Around around(const Shape& s, int64_t d) {
  Around a;
  for (int64_t i = 0; i < static_cast<int64_t>(s.size()); ++i) {
    if (i < d)
      a.outer *= s[i];
    else if (i == d)
      a.n = s[i];
    else
      a.inner *= s[i];
  }
  return a;
}

template <class E>
void select_rows(char* out, const char* x, const std::vector<int64_t>& idx, const Around& a) {
  const int64_t nidx = static_cast<int64_t>(idx.size());
  E* o = reinterpret_cast<E*>(out);
  const E* p = reinterpret_cast<const E*>(x);
  parallel_for(a.outer * nidx, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(a.inner, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t k = b; k < e; ++k) {
                   const int64_t oi = k / nidx, j = k % nidx;
                   const E* src = p + (oi * a.n + idx[j]) * a.inner;
                   E* dst = o + k * a.inner;
                   for (int64_t i = 0; i < a.inner; ++i) dst[i] = src[i];
                 }
               });
}

int64_t check_dim(const Tensor& x, int64_t dim, const char* name) {
  if (x.dim() == 0)
    throw ValueError(std::string(name) + ": expected a tensor with at least one dimension");
  return wrap_dim(dim, x.dim(), x.sizes());
}

}  // namespace

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  x.check_defined("index_select");
  int64_t d = check_dim(x, dim, "index_select");
  std::vector<int64_t> idx = read_index(index, x.sizes()[d], d, x.sizes(), "index_select");
  Tensor xc = as_contiguous(x);
  Shape s = x.sizes();
  s[d] = static_cast<int64_t>(idx.size());
  Tensor out = Tensor::empty(s, x.dtype());
  if (out.numel() == 0) return out;
  Around a = around(x.sizes(), d);
  char* o = static_cast<char*>(out.data_ptr());
  const char* p = static_cast<const char*>(xc.data_ptr());
  switch (x.itemsize()) {
    case 1:
      select_rows<uint8_t>(o, p, idx, a);
      break;
    case 2:
      select_rows<uint16_t>(o, p, idx, a);
      break;
    case 4:
      select_rows<uint32_t>(o, p, idx, a);
      break;
    default:
      select_rows<uint64_t>(o, p, idx, a);
      break;
  }
  return out;
}

Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source) {
  x.check_defined("index_add");
  source.check_defined("index_add");
  if (x.dtype() > DType::Float64)  // Note [Storage dtypes]
    return to_dtype(index_add(to_dtype(x, compute_dtype(x.dtype())), dim, index, source),
                    x.dtype());
  int64_t d = check_dim(x, dim, "index_add");
  std::vector<int64_t> idx = read_index(index, x.sizes()[d], d, x.sizes(), "index_add");
  Shape want = x.sizes();
  want[d] = static_cast<int64_t>(idx.size());
  if (source.sizes() != want)
    throw ValueError(
        "source tensor shape must match self tensor shape, excluding the specified dimension. "
        "Got self.shape = " +
        list_str(x.sizes()) + " source.shape = " + list_str(source.sizes()) +
        " (index_add: " + std::to_string(idx.size()) + " indices along dim " + std::to_string(d) +
        " want a source of shape " + shape_str(want) + ")");
  Tensor out = clone(x);
  Tensor src = as_contiguous(to_dtype(source, x.dtype()));
  Around a = around(x.sizes(), d);
  const int64_t nidx = static_cast<int64_t>(idx.size());
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.data<T>();
    const T* s = src.data<T>();
    // Rows of different outer indices never collide: split over outer.
    parallel_for(a.outer, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(nidx * a.inner, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t oi = b; oi < e; ++oi)
                     for (int64_t j = 0; j < nidx; ++j) {
                       T* dst = o + (oi * a.n + idx[j]) * a.inner;
                       const T* sr = s + (oi * nidx + j) * a.inner;
                       for (int64_t i = 0; i < a.inner; ++i) dst[i] = T(dst[i] + sr[i]);
                     }
                 });
  });
  return out;
}

namespace {
void check_gather_shapes(const Tensor& x, const Tensor& index, int64_t d, const char* name,
                         const Tensor* source) {
  // torch's words (gather's per dim, scatter's for the whole shapes), then the kernel's name
  for (int64_t i = 0; i < x.dim(); ++i) {
    if (i == d || index.sizes()[i] <= x.sizes()[i]) continue;
    if (!source)
      throw ValueError("Size does not match at dimension " + std::to_string(i) +
                       " expected index " + list_str(index.sizes()) +
                       " to be no larger than self " + list_str(x.sizes()) +
                       " apart from dimension " + std::to_string(d) + " (" + name + ")");
    break;
  }
  bool ok = true;
  for (int64_t i = 0; i < x.dim(); ++i)
    ok = ok && (i == d || index.sizes()[i] <= x.sizes()[i]) &&
         (!source || index.sizes()[i] <= source->sizes()[i]);
  if (!ok)
    throw ValueError("Expected index " + list_str(index.sizes()) + " to be no larger than self " +
                     list_str(x.sizes()) + " apart from dimension " + std::to_string(d) +
                     " and to be no larger size than src " + list_str(source->sizes()) + " (" +
                     name + ")");
}
}  // namespace

Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  x.check_defined("gather");
  check_index_dtype(index, "gather");
  // As torch: a 0-d tensor counts as 1-D here (x of shape [10] with a 0-d index, or the reverse)
  if (std::max<int64_t>(index.dim(), 1) != std::max<int64_t>(x.dim(), 1))
    throw ValueError(
        "Index tensor must have the same number of dimensions as input tensor "
        "(gather: shapes " +
        shape_str(x.sizes()) + " and " + shape_str(index.sizes()) + ")");
  if (x.dim() == 0 || index.dim() == 0) {
    auto one = [](const Tensor& t) {
      return t.dim() == 0 ? t.view(Shape{1}, Shape{1}, t.offset()) : t;
    };
    wrap_dim(dim, 1);
    Tensor r = gather(one(x), 0, one(index));
    return index.dim() == 0 ? r.view(Shape{}, Shape{}, r.offset()) : r;
  }
  int64_t d = wrap_dim(dim, x.dim(), x.sizes());
  check_gather_shapes(x, index, d, "gather", nullptr);
  Tensor out = Tensor::empty(index.sizes(), x.dtype());
  if (out.numel() == 0) return out;
  Shape xs = x.strides();
  const int64_t size = x.sizes()[d], dstride = xs[d];
  xs[d] = 0;
  Tensor xv = x.view(index.sizes(), xs, x.offset());
  StridedPlan plan;
  build_plan(plan, index.sizes(), {&out, &index, &xv});
  const Shape& xshape = x.sizes();
  dispatch_storage(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    plan_run(plan, kGrainCheap, [&](char** p, const int64_t* s, int64_t n) {
      T* o = reinterpret_cast<T*>(p[0]);
      const int64_t* ix = reinterpret_cast<const int64_t*>(p[1]);
      const T* xp = reinterpret_cast<const T*>(p[2]);
      const int64_t so = s[0] / int64_t(sizeof(T)), si = s[1] / 8, sx = s[2] / int64_t(sizeof(T));
      for (int64_t i = 0; i < n; ++i) {
        int64_t v = ix[i * si];
        // As torch: gather/scatter indices do not wrap (only Python indexing does).
        if (v < 0 || v >= size) throw_index("gather", v, size, d, xshape);
        o[i * so] = xp[i * sx + v * dstride];
      }
    });
  });
  return out;
}

Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source) {
  x.check_defined("scatter_add");
  source.check_defined("scatter_add");
  if (x.dtype() > DType::Float64)  // Note [Storage dtypes]
    return to_dtype(scatter_add(to_dtype(x, compute_dtype(x.dtype())), dim, index, source),
                    x.dtype());
  check_index_dtype(index, "scatter_add");
  // As torch: a 0-d tensor counts as 1-D here (see gather)
  const int64_t n1 = std::max<int64_t>(x.dim(), 1);
  if (std::max<int64_t>(index.dim(), 1) != n1 || std::max<int64_t>(source.dim(), 1) != n1)
    throw ValueError(std::string("Index tensor must have the same number of dimensions as ") +
                     (std::max<int64_t>(index.dim(), 1) != n1 ? "self" : "src") +
                     " tensor (scatter_add: shapes " + shape_str(x.sizes()) + ", " +
                     shape_str(index.sizes()) + ", " + shape_str(source.sizes()) + ")");
  if (x.dim() == 0 || index.dim() == 0 || source.dim() == 0) {
    wrap_dim(dim, 1);
    auto one = [](const Tensor& t) {
      return t.dim() == 0 ? t.view(Shape{1}, Shape{1}, t.offset()) : t;
    };
    Tensor r = scatter_add(one(x), 0, one(index), one(source));
    return x.dim() == 0 ? r.view(Shape{}, Shape{}, r.offset()) : r;
  }
  int64_t d = wrap_dim(dim, x.dim(), x.sizes());
  check_gather_shapes(x, index, d, "scatter_add", &source);
  Tensor out = clone(x);
  if (index.numel() == 0) return out;
  Tensor src = to_dtype(source, x.dtype());
  Shape os = out.strides();
  const int64_t size = x.sizes()[d], dstride = os[d];
  os[d] = 0;
  Tensor ov = out.view(index.sizes(), os, 0);
  Tensor sv = src.view(index.sizes(), src.strides(), src.offset());
  StridedPlan plan;
  build_plan(plan, index.sizes(), {&ov, &index, &sv});
  const Shape& xshape = x.sizes();
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    plan_for_range(plan, 0, plan.numel, [&](char** p, const int64_t* s, int64_t n) {
      T* o = reinterpret_cast<T*>(p[0]);
      const int64_t* ix = reinterpret_cast<const int64_t*>(p[1]);
      const T* sp = reinterpret_cast<const T*>(p[2]);
      const int64_t so = s[0] / int64_t(sizeof(T)), si = s[1] / 8, ss = s[2] / int64_t(sizeof(T));
      for (int64_t i = 0; i < n; ++i) {
        int64_t v = ix[i * si];
        // As torch: gather/scatter indices do not wrap (only Python indexing does).
        if (v < 0 || v >= size) throw_index("scatter_add", v, size, d, xshape);
        T& dst = o[i * so + v * dstride];
        dst = T(dst + sp[i * ss]);
      }
    });
  });
  return out;
}

Tensor slice_scatter(const Tensor& x, const Tensor& source, int64_t dim,
                     std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step) {
  x.check_defined("slice_scatter");
  source.check_defined("slice_scatter");
  Tensor view = slice_view(x, dim, start, stop, step, "slice_scatter");
  if (view.sizes() != source.sizes())
    throw ValueError("slice_scatter: source has shape " + shape_str(source.sizes()) +
                     " but the slice of x " + shape_str(x.sizes()) + " has shape " +
                     shape_str(view.sizes()));
  Tensor out = clone(x);
  copy_into(slice_view(out, dim, start, stop, step, "slice_scatter"), source);
  return out;
}

Tensor select_scatter(const Tensor& x, const Tensor& source, int64_t dim, int64_t index) {
  x.check_defined("select_scatter");
  source.check_defined("select_scatter");
  Tensor view = select(x, dim, index);
  if (view.sizes() != source.sizes())
    throw ValueError("select_scatter: source has shape " + shape_str(source.sizes()) +
                     ", expected " + shape_str(view.sizes()) + " (x " + shape_str(x.sizes()) +
                     " without dimension " + std::to_string(dim) + ")");
  Tensor out = clone(x);
  copy_into(select(out, dim, index), source);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Advanced indexing: x[..., i0, ..., i1, ...] with integer index tensors on the dims `dims`.
//
// Note [Advanced indexing kernels]
// index(x, dims, indices) and index_put(x, dims, indices, values, accumulate) are torch's
// aten::index / aten::index_put once Python's basic indexing (ints, slices, None, Ellipsis) has
// been applied as views and bool masks replaced by their nonzero positions
// (python/transgrad/_api/indexing.py). The index tensors broadcast together to a shape S; the
// result is x's other dims with S in place of the indexed dims when those are adjacent, S first
// when they are separated (numpy's rule, which is torch's once ints are selects). Negative
// entries wrap; an entry outside [-size, size) raises torch's IndexError, naming the index's
// position among the index tensors as torch does. Every element of the result is
//   x[pre_off[a] + adv_off[p] + post_off[q] + b * inner_stride]
// for a over the dims before S, p over S, q over the dims after S (their innermost mergeable
// run b excluded, so a contiguous x copies whole rows).
namespace {

struct AdvPlan {
  Shape out_shape;
  std::vector<int64_t> pre_off, adv_off, post_off;
  int64_t inner = 1, inner_stride = 1;
};

// Element offsets of every position of the dims `ds` (row-major order) under `strides`.
std::vector<int64_t> dim_offsets(const std::vector<int64_t>& ds, const Shape& sizes,
                                 const Shape& strides) {
  std::vector<int64_t> offs{0};
  for (int64_t d : ds) {
    std::vector<int64_t> next;
    next.reserve(offs.size() * static_cast<size_t>(sizes[d]));
    for (int64_t o : offs)
      for (int64_t i = 0; i < sizes[d]; ++i) next.push_back(o + i * strides[d]);
    offs.swap(next);
  }
  return offs;
}

AdvPlan adv_plan(const Tensor& x, const Shape& strides, const Shape& dims_in,
                 const std::vector<Tensor>& indices, const char* name) {
  const int64_t nd = x.dim(), k = static_cast<int64_t>(indices.size());
  if (k == 0 || k != static_cast<int64_t>(dims_in.size()))
    throw ValueError(std::string(name) + ": expected one index tensor per indexed dim, got " +
                     std::to_string(k) + " index tensors for " + std::to_string(dims_in.size()) +
                     " dims");
  if (k > nd) throw IndexError("too many indices for tensor of dimension " + std::to_string(nd));
  Shape dims(k);
  for (int64_t j = 0; j < k; ++j) {
    dims[j] = wrap_dim(dims_in[j], nd);
    if (j && dims[j] <= dims[j - 1])
      throw ValueError(std::string(name) + ": indexed dims must be increasing, got " +
                       shape_str(dims_in));
    check_index_dtype(indices[j], name);
  }
  // broadcast the index shapes (torch's words)
  Shape S;
  for (const Tensor& t : indices)
    if (t.dim() > static_cast<int64_t>(S.size())) S.resize(t.dim(), 1);
  const int64_t ns = static_cast<int64_t>(S.size());
  for (const Tensor& t : indices) {
    for (int64_t i = 0; i < t.dim(); ++i) {
      int64_t& s = S[ns - t.dim() + i];
      const int64_t v = t.sizes()[i];
      if (s == 1)
        s = v;
      else if (v != 1 && v != s) {
        std::string shapes;
        for (const Tensor& u : indices)
          shapes += (shapes.empty() ? "" : ", ") + shape_str(u.sizes());
        throw IndexError(
            "shape mismatch: indexing tensors could not be broadcast together with "
            "shapes " +
            shapes + " (" + name + " on a tensor of shape " + shape_str(x.sizes()) + ")");
      }
    }
  }
  const bool adjacent = dims[k - 1] - dims[0] == k - 1;
  std::vector<int64_t> pre, post;
  for (int64_t d = 0; d < nd; ++d) {
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) continue;
    (adjacent && d < dims[0] ? pre : post).push_back(d);
  }
  AdvPlan plan;
  for (int64_t d : pre) plan.out_shape.push_back(x.sizes()[d]);
  for (int64_t s : S) plan.out_shape.push_back(s);
  for (int64_t d : post) plan.out_shape.push_back(x.sizes()[d]);
  int64_t nS = 1;
  for (int64_t s : S) nS *= s;
  for (int64_t s : plan.out_shape)
    if (s == 0) return plan;  // nothing is read: an empty result
  // the innermost run of post dims that merges into one strided loop
  if (!post.empty()) {
    plan.inner = x.sizes()[post.back()];
    plan.inner_stride = strides[post.back()];
    post.pop_back();
    while (!post.empty() && strides[post.back()] == plan.inner * plan.inner_stride) {
      plan.inner *= x.sizes()[post.back()];
      post.pop_back();
    }
  }
  plan.pre_off = dim_offsets(pre, x.sizes(), strides);
  plan.post_off = dim_offsets(post, x.sizes(), strides);
  // every index tensor read at its broadcast position, wrapped and bounds-checked
  plan.adv_off.assign(static_cast<size_t>(nS), 0);
  for (int64_t j = 0; j < k; ++j) {
    const Tensor& t = indices[j];
    const int64_t* ip = t.data<int64_t>();
    Shape bst(ns, 0);
    for (int64_t i = 0; i < t.dim(); ++i)
      if (t.sizes()[i] != 1) bst[ns - t.dim() + i] = t.strides()[i];
    const int64_t size = x.sizes()[dims[j]], st = strides[dims[j]];
    Shape ctr(ns, 0);
    int64_t src = 0;
    for (int64_t p = 0; p < nS; ++p) {
      int64_t v = ip[src];
      if (v < -size || v >= size)
        throw IndexError("index " + std::to_string(v) + " is out of bounds for dimension " +
                         std::to_string(j) + " with size " + std::to_string(size) + " (" + name +
                         " on a tensor of shape " + shape_str(x.sizes()) + ", dim " +
                         std::to_string(dims[j]) + ")");
      if (v < 0) v += size;
      plan.adv_off[p] += v * st;
      for (int64_t i = ns - 1; i >= 0; --i) {  // advance the counter over S
        src += bst[i];
        if (++ctr[i] < S[i]) break;
        src -= bst[i] * S[i];
        ctr[i] = 0;
      }
    }
  }
  return plan;
}

template <class E>
void index_rows(E* out, const E* x, const AdvPlan& pl) {
  const int64_t nS = static_cast<int64_t>(pl.adv_off.size());
  const int64_t nq = static_cast<int64_t>(pl.post_off.size()), L = pl.inner, st = pl.inner_stride;
  const int64_t rows = static_cast<int64_t>(pl.pre_off.size()) * nS;
  parallel_for(rows, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(nq * L, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t r = b; r < e; ++r) {
                   const E* src = x + pl.pre_off[r / nS] + pl.adv_off[r % nS];
                   E* dst = out + r * nq * L;
                   for (int64_t q = 0; q < nq; ++q, dst += L) {
                     const E* s = src + pl.post_off[q];
                     if (st == 1)
                       for (int64_t i = 0; i < L; ++i) dst[i] = s[i];
                     else
                       for (int64_t i = 0; i < L; ++i) dst[i] = s[i * st];
                   }
                 }
               });
}

template <class T, bool Acc>
void put_rows(T* out, const T* v, const AdvPlan& pl) {
  const int64_t nS = static_cast<int64_t>(pl.adv_off.size());
  const int64_t nq = static_cast<int64_t>(pl.post_off.size()), L = pl.inner, st = pl.inner_stride;
  const int64_t npre = static_cast<int64_t>(pl.pre_off.size());
  // distinct pre positions never collide; duplicates within S are written in order
  parallel_for(npre, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(nS * nq * L, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t a = b; a < e; ++a)
                   for (int64_t p = 0; p < nS; ++p) {
                     T* dst = out + pl.pre_off[a] + pl.adv_off[p];
                     const T* src = v + (a * nS + p) * nq * L;
                     for (int64_t q = 0; q < nq; ++q, src += L)
                       for (int64_t i = 0; i < L; ++i) {
                         T& d = dst[pl.post_off[q] + i * st];
                         if constexpr (Acc)
                           d = T(d + src[i]);
                         else
                           d = src[i];
                       }
                   }
               });
}

struct Bytes16 {
  uint64_t lo, hi;
};

// f(TypeTag<E>) with E an unsigned type of the element size: kernels that only move elements
// handle every dtype by its width.
template <class F>
void by_width(size_t itemsize, F&& f) {
  switch (itemsize) {
    case 1:
      return f(TypeTag<uint8_t>{});
    case 2:
      return f(TypeTag<uint16_t>{});
    case 4:
      return f(TypeTag<uint32_t>{});
    case 8:
      return f(TypeTag<uint64_t>{});
    default:
      return f(TypeTag<Bytes16>{});
  }
}

}  // namespace

Tensor index(const Tensor& x, const Shape& dims, const std::vector<Tensor>& indices) {
  x.check_defined("index");
  AdvPlan pl = adv_plan(x, x.strides(), dims, indices, "index");
  Tensor out = Tensor::empty(pl.out_shape, x.dtype());
  if (out.numel() == 0) return out;
  char* o = static_cast<char*>(out.data_ptr());
  const char* p = static_cast<const char*>(x.data_ptr());
  by_width(x.itemsize(), [&](auto tag) {
    using E = typename decltype(tag)::type;
    index_rows(reinterpret_cast<E*>(o), reinterpret_cast<const E*>(p), pl);
  });
  return out;
}

Tensor index_put(const Tensor& x, const Shape& dims, const std::vector<Tensor>& indices,
                 const Tensor& values, bool accumulate) {
  x.check_defined("index_put");
  values.check_defined("index_put");
  if (accumulate && x.dtype() > DType::Float64)  // Note [Storage dtypes]
    return to_dtype(index_put(to_dtype(x, compute_dtype(x.dtype())), dims, indices, values, true),
                    x.dtype());
  Tensor out = clone(x);
  AdvPlan pl = adv_plan(out, out.strides(), dims, indices, "index_put");
  if (values.sizes() != pl.out_shape)
    throw ValueError("index_put: values of shape " + shape_str(values.sizes()) +
                     " do not match the indexing result's shape " + shape_str(pl.out_shape) +
                     " (x of shape " + shape_str(x.sizes()) + ")");
  if (values.numel() == 0) return out;
  Tensor v = as_contiguous(to_dtype(values, x.dtype()));
  if (accumulate) {
    dispatch_all(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      put_rows<T, true>(out.data<T>(), v.data<T>(), pl);
    });
    return out;
  }
  char* o = static_cast<char*>(out.data_ptr());
  const char* s = static_cast<const char*>(v.data_ptr());
  by_width(x.itemsize(), [&](auto tag) {  // a plain write moves elements: every dtype
    using E = typename decltype(tag)::type;
    put_rows<E, false>(reinterpret_cast<E*>(o), reinterpret_cast<const E*>(s), pl);
  });
  return out;
}

}  // namespace tg::kernel
