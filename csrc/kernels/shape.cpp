// Shape and view kernels. Views share storage (and the version counter) with their input;
// every kernel returns a fresh handle.
#include <algorithm>
#include <optional>

#include "kernels/kernels.h"
#include "kernels/loops.h"

namespace tg::kernel {
using namespace detail;

namespace {

std::string dims_str(const Shape& d) { return shape_str(d); }

// Strides for viewing (old_sizes, old_strides) as new_sizes without a copy (PyTorch's
// computeStride): nullopt when the memory layout does not allow it.
std::optional<Shape> view_strides(const Shape& old_sizes, const Shape& old_strides,
                                  const Shape& new_sizes) {
  Shape new_strides(new_sizes.size());
  if (old_sizes.empty()) {
    std::fill(new_strides.begin(), new_strides.end(), 1);
    return new_strides;
  }
  int64_t numel = shape_numel(old_sizes);
  if (numel == 0) return contiguous_strides(new_sizes);
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(old_sizes.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= old_sizes[tensor_d];
    if (tensor_d == 0 || (old_sizes[tensor_d - 1] != 1 &&
                          old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        new_strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = old_strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
}

// Python slice semantics: (start, length) of x[start:stop:step] along a dim of `size`.
struct SliceSpec {
  int64_t start, length, step;
};
SliceSpec slice_spec(int64_t size, std::optional<int64_t> start, std::optional<int64_t> stop,
                     int64_t step, const char* name) {
  if (step <= 0)
    throw ValueError(std::string(name) + ": step must be positive, got " + std::to_string(step));
  int64_t lo, hi;
  if (step > 0) {
    lo = start ? *start : 0;
    hi = stop ? *stop : size;
    if (lo < 0) lo = std::max<int64_t>(lo + size, 0);
    if (hi < 0) hi = std::max<int64_t>(hi + size, 0);
    lo = std::min(lo, size);
    hi = std::min(hi, size);
    int64_t len = hi > lo ? 1 + (hi - lo - 1) / step : 0;  // no hi - lo + step: it overflows
    return {lo, len, step};
  }
  lo = start ? *start : size - 1;
  hi = stop ? *stop : -size - 1;  // "before the first element"
  if (lo < 0)
    lo = std::max<int64_t>(lo + size, -1);
  else
    lo = std::min(lo, size - 1);
  if (stop) {
    if (hi < 0)
      hi = std::max<int64_t>(hi + size, -1);
    else
      hi = std::min(hi, size - 1);
  } else {
    hi = -1;
  }
  int64_t len = lo > hi ? (lo - hi + (-step) - 1) / (-step) : 0;
  return {lo, len, step};
}

}  // namespace

Tensor slice_view(const Tensor& x, int64_t dim, std::optional<int64_t> start,
                  std::optional<int64_t> stop, int64_t step, const char* name);

Tensor reshape(const Tensor& x, const Shape& shape) {
  x.check_defined("reshape");
  Shape sizes = shape;
  int64_t infer = -1, known = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (infer >= 0) throw RuntimeError("only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else if (sizes[i] < 0) {
      throw RuntimeError("invalid shape dimension " + std::to_string(sizes[i]) + " at index " +
                         std::to_string(i) + " of shape " + list_str(shape));
    } else if (__builtin_mul_overflow(known, sizes[i], &known)) {  // Note [Checked sizes]
      throw RuntimeError("reshape: shape " + shape_str(shape) +
                         " has more elements than int64 can count");
    }
  }
  const int64_t numel = x.numel();
  if (infer >= 0) {
    if (known == 0 && numel == 0)
      throw RuntimeError("cannot reshape tensor of 0 elements into shape " + list_str(shape) +
                         " because the unspecified dimension size -1 can be any value and is "
                         "ambiguous");
    if (known == 0 || numel % known != 0)
      throw RuntimeError("shape '" + list_str(shape) + "' is invalid for input of size " +
                         std::to_string(numel));
    sizes[infer] = numel / known;
  } else if (known != numel) {
    throw RuntimeError("shape '" + list_str(shape) + "' is invalid for input of size " +
                       std::to_string(numel));
  }
  if (x.is_contiguous()) return x.view(sizes, contiguous_strides(sizes), x.offset());
  if (auto st = view_strides(x.sizes(), x.strides(), sizes))
    return x.view(sizes, std::move(*st), x.offset());
  Tensor c = Tensor::empty(x.sizes(), x.dtype());
  copy_into(c, x);
  return c.view(sizes, contiguous_strides(sizes), 0);
}

Tensor expand(const Tensor& x, const Shape& shape) {
  x.check_defined("expand");
  const int64_t nd = static_cast<int64_t>(shape.size()), xd = x.dim();
  if (nd < xd)
    throw RuntimeError("expand: the number of sizes provided (" + std::to_string(nd) +
                       ") must be greater or equal to the number of dimensions in the tensor (" +
                       std::to_string(xd) + ")");
  Shape sizes(nd), strides(nd);
  for (int64_t i = 0; i < nd; ++i) {
    int64_t j = i - (nd - xd);
    int64_t want = shape[i];
    if (j < 0) {
      if (want < 0)
        throw RuntimeError("The expanded size of the tensor (" + std::to_string(want) +
                           ") isn't allowed in a leading, non-existing dimension " +
                           std::to_string(i));
      sizes[i] = want;
      strides[i] = 0;
      continue;
    }
    int64_t have = x.sizes()[j];
    if (want == -1) want = have;
    if (want == have) {
      sizes[i] = have;
      strides[i] = x.strides()[j];
    } else if (have == 1 && want >= 0) {
      sizes[i] = want;
      strides[i] = 0;
    } else {
      throw RuntimeError("The expanded size of the tensor (" + std::to_string(shape[i]) +
                         ") must match the existing size (" + std::to_string(have) +
                         ") at non-singleton dimension " + std::to_string(i) + ".  Target sizes: " +
                         list_str(shape) + ".  Tensor sizes: " + list_str(x.sizes()));
    }
  }
  return x.view(std::move(sizes), std::move(strides), x.offset());
}

Tensor permute(const Tensor& x, const Shape& dims) {
  x.check_defined("permute");
  const int64_t nd = x.dim();
  if (static_cast<int64_t>(dims.size()) != nd)
    throw ValueError("permute: dims " + dims_str(dims) + " do not match a tensor of shape " +
                     shape_str(x.sizes()));
  Shape sizes(nd), strides(nd);
  uint64_t seen_small = 0;
  std::vector<bool> seen_big;
  if (nd > 64) seen_big.assign(nd, false);
  for (int64_t i = 0; i < nd; ++i) {
    int64_t d = wrap_dim(dims[i], nd, x.sizes());
    bool dup = nd > 64 ? seen_big[d] : ((seen_small >> d) & 1);
    if (dup) throw ValueError("permute: repeated dim in " + dims_str(dims));
    if (nd > 64)
      seen_big[d] = true;
    else
      seen_small |= uint64_t(1) << d;
    sizes[i] = x.sizes()[d];
    strides[i] = x.strides()[d];
  }
  return x.view(std::move(sizes), std::move(strides), x.offset());
}

Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1) {
  x.check_defined("transpose");
  Shape sizes = x.sizes(), strides = x.strides();
  if (x.dim() == 0) {
    wrap_dim(dim0, 0, sizes);
    wrap_dim(dim1, 0, sizes);
    return x.view(sizes, strides, x.offset());
  }
  int64_t a = wrap_dim(dim0, x.dim(), x.sizes()), b = wrap_dim(dim1, x.dim(), x.sizes());
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return x.view(std::move(sizes), std::move(strides), x.offset());
}

Tensor unsqueeze(const Tensor& x, int64_t dim) {
  x.check_defined("unsqueeze");
  int64_t d = wrap_dim(dim, x.dim() + 1, x.sizes());
  Shape sizes = x.sizes(), strides = x.strides();
  int64_t st = d < x.dim() ? sizes[d] * strides[d] : 1;
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, st);
  return x.view(std::move(sizes), std::move(strides), x.offset());
}

Tensor squeeze(const Tensor& x, const Shape& dims) {
  x.check_defined("squeeze");
  const int64_t nd = x.dim();
  std::vector<bool> drop(nd > 0 ? nd : 0, false);
  std::vector<bool> seen(nd > 0 ? nd : 1, false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, nd, x.sizes());
    if (seen[w]) throw RuntimeError(dim_repeated(w));
    seen[w] = true;
    if (nd > 0 && x.sizes()[w] == 1) drop[w] = true;
  }
  Shape sizes, strides;
  sizes.reserve(nd);
  strides.reserve(nd);
  for (int64_t i = 0; i < nd; ++i) {
    if (drop[i]) continue;
    sizes.push_back(x.sizes()[i]);
    strides.push_back(x.strides()[i]);
  }
  return x.view(std::move(sizes), std::move(strides), x.offset());
}

Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step) {
  return slice_view(x, dim, start, stop, step, "slice");
}

Tensor slice_view(const Tensor& x, int64_t dim, std::optional<int64_t> start,
                  std::optional<int64_t> stop, int64_t step, const char* name) {
  x.check_defined(name);
  if (x.dim() == 0) throw IndexError(std::string(name) + ": cannot slice a 0-d tensor");
  int64_t d = wrap_dim(dim, x.dim(), x.sizes());
  SliceSpec s = slice_spec(x.sizes()[d], start, stop, step, name);
  Shape sizes = x.sizes(), strides = x.strides();
  int64_t offset = x.offset() + (s.length > 0 ? s.start * strides[d] : 0);
  sizes[d] = s.length;
  if (s.length > 1)
    strides[d] *= s.step;  // then step < size: the product fits (a huge step overflowed)
  return x.view(std::move(sizes), std::move(strides), offset);
}

Tensor select(const Tensor& x, int64_t dim, int64_t index) {
  x.check_defined("select");
  if (x.dim() == 0) throw IndexError("select: cannot index a 0-d tensor");
  int64_t d = wrap_dim(dim, x.dim(), x.sizes());
  int64_t size = x.sizes()[d];
  if (index < -size || index >= size)
    throw IndexError("select: index " + std::to_string(index) + " is out of bounds for dim " +
                     std::to_string(dim) + " of size " + std::to_string(size) +
                     " (tensor of shape " + shape_str(x.sizes()) + ")");
  if (index < 0) index += size;
  Shape sizes = x.sizes(), strides = x.strides();
  int64_t offset = x.offset() + index * strides[d];
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return x.view(std::move(sizes), std::move(strides), offset);
}

Tensor contiguous(const Tensor& x) {
  x.check_defined("contiguous");
  if (x.is_contiguous()) return x.view(x.sizes(), x.strides(), x.offset());
  Tensor out = Tensor::empty(x.sizes(), x.dtype());
  copy_into(out, x);
  return out;
}

Tensor clone(const Tensor& x) {
  x.check_defined("clone");
  Tensor out = Tensor::empty(x.sizes(), x.dtype());
  copy_into(out, x);
  return out;
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  if (tensors.empty()) throw ValueError("cat: expected a non-empty sequence of tensors");
  for (const Tensor& t : tensors) t.check_defined("cat");
  const Tensor& first = tensors[0];
  const int64_t nd = first.dim();
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].dim() == 0)
      throw RuntimeError("zero-dimensional tensor (at position " + std::to_string(i) +
                         ") cannot be concatenated");
  int64_t d = wrap_dim(dim, nd, first.sizes());
  DType dtype = first.dtype();
  Shape out_sizes = first.sizes();
  out_sizes[d] = 0;
  for (size_t k = 0; k < tensors.size(); ++k) {  // torch's words (cat_check_no_zero_dim...)
    const Tensor& t = tensors[k];
    if (t.dim() != nd)
      throw RuntimeError("Tensors must have same number of dimensions: got " + std::to_string(nd) +
                         " and " + std::to_string(t.dim()));
    for (int64_t i = 0; i < nd; ++i)
      if (i != d && t.sizes()[i] != first.sizes()[i])
        throw RuntimeError("Sizes of tensors must match except in dimension " + std::to_string(d) +
                           ". Expected size " + std::to_string(first.sizes()[i]) +
                           " but got size " + std::to_string(t.sizes()[i]) + " for tensor number " +
                           std::to_string(k) + " in the list.");
    out_sizes[d] += t.sizes()[d];
    dtype = promote_types(dtype, t.dtype());
  }
  Tensor out = Tensor::empty(out_sizes, dtype);
  int64_t pos = 0;
  for (const Tensor& t : tensors) {
    int64_t len = t.sizes()[d];
    if (len == 0) continue;
    Shape sizes = out_sizes;
    sizes[d] = len;
    copy_into(out.view(sizes, out.strides(), pos * out.strides()[d]), t);
    pos += len;
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  if (tensors.empty()) throw RuntimeError("stack expects a non-empty TensorList");
  for (const Tensor& t : tensors) t.check_defined("stack");
  const Shape& s0 = tensors[0].sizes();
  int64_t d = wrap_dim(dim, tensors[0].dim() + 1, s0);
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (size_t k = 0; k < tensors.size(); ++k) {
    const Tensor& t = tensors[k];
    if (t.sizes() != s0)
      throw RuntimeError("stack expects each tensor to be equal size, but got " + list_str(s0) +
                         " at entry 0 and " + list_str(t.sizes()) + " at entry " +
                         std::to_string(k));
    parts.push_back(unsqueeze(t, d));
  }
  return cat(parts, d);
}

// Note [as_strided is bounds-checked]
// as_strided may name any geometry, so before the view exists its extent is checked against the
// storage, with torch's errors in torch's order: lengths, negative strides, negative offset,
// then the storage a geometry needs (itemsize * (offset + 1 + sum((size - 1) * stride)), or 0
// bytes when a size is 0), computed with overflow checks, against the storage's bytes. Kernels
// then never read or write outside the buffer, whatever sizes, strides and offset a caller
// chose (hostile ones included).
namespace {

std::string list_of(const Shape& v) { return list_str(v); }

// Bytes the geometry reaches from the storage's start; throws torch's overflow error.
size_t strided_storage_bytes(const Shape& size, const Shape& stride, int64_t offset, size_t item) {
  const std::string overflow = "Storage size calculation overflowed with sizes=" + list_of(size) +
                               " and strides=" + list_of(stride);
  int64_t last = 0;  // the largest element index reached, relative to the offset
  for (int64_t s : size)
    if (s < 0) throw RuntimeError(overflow);
  for (int64_t s : size)
    if (s == 0) return 0;
  for (size_t i = 0; i < size.size(); ++i) {
    int64_t step = 0;
    if (__builtin_mul_overflow(size[i] - 1, stride[i], &step) ||
        __builtin_add_overflow(last, step, &last))
      throw RuntimeError(overflow);
  }
  int64_t elems = 0, bytes = 0;
  if (__builtin_add_overflow(last, offset, &elems) || __builtin_add_overflow(elems, 1, &elems) ||
      __builtin_mul_overflow(elems, static_cast<int64_t>(item), &bytes))
    throw RuntimeError(overflow);
  return static_cast<size_t>(bytes);
}

void check_strided_geometry(const Shape& size, const Shape& stride, int64_t offset) {
  if (size.size() != stride.size()) throw RuntimeError("mismatch in length of strides and shape");
  for (int64_t st : stride)
    if (st < 0)
      throw RuntimeError(
          "as_strided: Negative strides are not supported at the moment, got strides: " +
          list_of(stride));
  if (offset < 0) throw RuntimeError("Tensor: invalid storage offset " + std::to_string(offset));
}

}  // namespace

Tensor as_strided(const Tensor& x, const Shape& size, const Shape& stride, int64_t storage_offset) {
  x.check_defined("as_strided");
  check_strided_geometry(size, stride, storage_offset);
  const size_t need = strided_storage_bytes(size, stride, storage_offset, x.itemsize());
  const size_t have = x.storage()->nbytes;
  if (need > have)
    throw RuntimeError("setStorage: sizes " + list_of(size) + ", strides " + list_of(stride) +
                       ", storage offset " + std::to_string(storage_offset) + ", and itemsize " +
                       std::to_string(x.itemsize()) + " requiring a storage size of " +
                       std::to_string(need) + " are out of bounds for storage of size " +
                       std::to_string(have));
  return x.view(size, stride, storage_offset);
}

Tensor strided_positions(const Shape& size, const Shape& stride, int64_t storage_offset) {
  check_strided_geometry(size, stride, storage_offset);
  strided_storage_bytes(size, stride, storage_offset, 1);  // positions must fit an int64
  Tensor out = Tensor::empty(size, DType::Int64);
  int64_t* p = out.data<int64_t>();
  const int64_t n = out.numel(), nd = static_cast<int64_t>(size.size());
  Shape index(size.size(), 0);
  int64_t pos = storage_offset;
  for (int64_t k = 0; k < n; ++k) {  // row-major odometer over the geometry
    p[k] = pos;
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++index[d] < size[d]) {
        pos += stride[d];
        break;
      }
      pos -= (size[d] - 1) * stride[d];
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace tg::kernel
