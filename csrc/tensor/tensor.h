// Storage, DType and the Tensor handle: the data model every other part of the core uses.
// No autograd logic lives here; the autograd accessors of Tensor are declared here and
// defined in csrc/autograd/variable.cpp.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tensor/errors.h"
#include "tensor/small_alloc.h"

namespace tg {

namespace autograd {
struct AutogradMeta;
struct Node;
}  // namespace autograd

// Note [Storage dtypes]
// The first four dtypes are the compute dtypes: every kernel has loops for them. The others
// (appended, so the first four keep their values) are storage dtypes: creation, casts, copies,
// views, numpy/DLPack and printing handle them directly; arithmetic kernels compute them in
// their compute_dtype (int8/16/32, uint8 -> int64, wrapping back as torch; float16/bfloat16
// -> float32, rounded back to nearest even) and cast the result back, once per call, outside
// the hot loops of the compute dtypes. A kernel without that step meets them in dispatch_all /
// dispatch_floating / dispatch_numeric, which raise torch's "not implemented for 'Half'" error.
// A new kernel opts in with one line at its top, before any dispatch:
//   if (x.dtype() > DType::Float64)   // or is_half(x.dtype()) for floating-only kernels
//     return to_dtype(my_kernel(to_dtype(x, compute_dtype(x.dtype())), ...), x.dtype());
// (with_values_as in kernels/loops.h for a (values, indices) result), or, when it only moves
// elements, dispatches with dispatch_storage (dispatch.h), whose types include Half/BFloat16.
enum class DType : uint8_t {
  Bool,
  Int64,
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  UInt8,
  Float16,
  BFloat16
};
constexpr int kNumDTypes = 10;
// Sizes, strides (in elements), dims. Their blocks come from the small-object cache: every
// tensor has two (Note [Small object cache]).
using Shape = std::vector<int64_t, SmallAlloc<int64_t>>;

// "bool", "int64", "float32", "float16", "bfloat16", ... (the Python spelling).
const char* dtype_name(DType);
// torch's C++ scalar type name, as torch's errors print it: "Half", "BFloat16", "Char", "Byte".
const char* dtype_torch_name(DType);
// Parses a name above; throws TypeError otherwise.
DType dtype_from_name(const std::string&);
inline size_t itemsize(DType d) {
  switch (d) {
    case DType::Bool:
    case DType::Int8:
    case DType::UInt8:
      return 1;
    case DType::Int16:
    case DType::Float16:
    case DType::BFloat16:
      return 2;
    case DType::Float32:
    case DType::Int32:
      return 4;
    default:
      return 8;
  }
}
inline bool is_floating(DType d) {
  return d == DType::Float32 || d == DType::Float64 || d == DType::Float16 || d == DType::BFloat16;
}
inline bool is_integral(DType d) {  // bool excluded
  return d == DType::Int64 || d == DType::Int8 || d == DType::Int16 || d == DType::Int32 ||
         d == DType::UInt8;
}
// Note [Storage dtypes]: the dtype a storage dtype computes in (itself for a compute dtype).
inline DType compute_dtype(DType d) {
  if (d <= DType::Float64) return d;
  return is_floating(d) ? DType::Float32 : DType::Int64;
}
// torch's promotion of two tensor dtypes: the higher category (bool < integral < floating),
// then the larger; uint8 with a signed int needs the next signed size (uint8 + int8 -> int16),
// float16 with bfloat16 needs float32.
DType promote_dtypes_slow(DType a, DType b);
inline DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a <= DType::Float64 && b <= DType::Float64) return a > b ? a : b;  // bool<int64<f32<f64
  return promote_dtypes_slow(a, b);
}
// The default floating dtype (torch.get_default_dtype): a Python float next to an integer tensor
// and true division of integers give it. Set by transgrad.set_default_dtype; float32 at start.
DType default_dtype();
void set_default_dtype(DType);
// The dtype a floating kernel computes an input of dtype d in: d when floating, else the default
// dtype, as torch's sqrt(arange(4)) is float32 (Note [Integers in floating kernels] in
// translator/signatures.py).
inline DType floating_dtype(DType d) { return is_floating(d) ? d : default_dtype(); }
// "(2, 3)" / "()": shapes in error messages, Python style.
std::string shape_str(const Shape&);
// "[2, 3]" / "[]": sizes as torch prints them in its messages (IntArrayRef).
std::string list_str(const Shape&);
// torch's message for a dim list naming one (wrapped) dim twice.
std::string dim_repeated(int64_t wrapped_dim);
// torch's printed form of a size, "torch.Size([2, 3])", for messages torch words that way
std::string size_str(const Shape&);

// A buffer plus a version counter shared by every view of it. The buffer is either owned
// (64-byte aligned) or external, kept alive by `owner` (e.g. a numpy array). Owned buffers of
// at most kInlineBytes live inside the Storage object itself (one allocation fewer for the
// tiny tensors that dominate autograd bookkeeping), still 64-byte aligned.
struct Storage {
  static constexpr size_t kInlineBytes = 128;
  void* data = nullptr;
  size_t nbytes = 0;
  std::shared_ptr<void> owner;  // set for external buffers; null when the buffer is owned
  std::atomic<uint32_t> version{0};
  // Set when the tensors of this storage count versions elsewhere: `x.data = y` gives x a
  // storage aliasing y's memory that keeps counting with x's previous storage (Note [Tensor.data
  // setter] in csrc/python/tensor_binding.cpp). Null for nearly every storage.
  std::shared_ptr<std::atomic<uint32_t>> shared_version;
  std::atomic<uint32_t>& counter() { return shared_version ? *shared_version : version; }
  // External memory its owner forbids writing (a numpy array with writeable=False, a bytes
  // object): in-place ops refuse it and numpy views of it are read-only too.
  bool read_only = false;
  unsigned char inline_buf[kInlineBytes + 64];

  Storage() {}  // user-provided: allocate_shared must not zero inline_buf
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage();
  static std::shared_ptr<Storage> allocate(size_t nbytes);
  static std::shared_ptr<Storage> external(void* data, size_t nbytes, std::shared_ptr<void> owner);
};

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape sizes;
  Shape strides;
  int64_t offset = 0;  // in elements
  int64_t numel = 0;
  DType dtype = DType::Float32;
  bool contiguous = true;  // row-major contiguous (size-1 dims' strides ignored)
  // A 0-d tensor made of a Python number next to a tensor (torch's wrapped number): the lowest
  // tier of type promotion (Note [Type promotion] in transgrad/_dtypes.py). Set only by
  // kernel::scalar_like and the Python binding's wrapped-number factory, never on a result.
  bool wrapped_number = false;
  std::shared_ptr<autograd::AutogradMeta> autograd_meta;  // owned by csrc/autograd
  // The Python object of this tensor, borrowed (a PyObject*, null when there is none): read
  // and written only with the GIL held, by csrc/python (Note [One Python object per tensor]).
  void* pyobj = nullptr;

  void refresh();  // recompute numel and contiguous after sizes/strides change
};

class Tensor {  // a cheap, copyable handle; may be undefined
 public:
  Tensor() = default;  // undefined: Python None
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  const Shape& sizes() const { return impl_->sizes; }
  const Shape& strides() const { return impl_->strides; }
  int64_t size(int64_t dim) const;    // dim may be negative
  int64_t stride(int64_t dim) const;  // dim may be negative
  int64_t offset() const { return impl_->offset; }
  int64_t dim() const { return static_cast<int64_t>(impl_->sizes.size()); }
  int64_t numel() const { return impl_->numel; }
  DType dtype() const { return impl_->dtype; }
  bool is_contiguous() const { return impl_->contiguous; }
  bool is_wrapped_number() const { return impl_->wrapped_number; }
  void set_wrapped_number(bool w) { impl_->wrapped_number = w; }
  size_t itemsize() const { return tg::itemsize(impl_->dtype); }
  template <class T>
  T* data() const {  // element [0, ..., 0]
    return static_cast<T*>(impl_->storage->data) + impl_->offset;
  }
  void* data_ptr() const {  // element [0, ..., 0], untyped
    return static_cast<char*>(impl_->storage->data) +
           impl_->offset * static_cast<int64_t>(itemsize());
  }
  uint32_t version() const { return impl_->storage->counter().load(std::memory_order_relaxed); }
  void bump_version() { impl_->storage->counter().fetch_add(1, std::memory_order_relaxed); }

  static Tensor empty(const Shape& sizes, DType dtype);
  static Tensor from_external(void* data, Shape sizes, Shape strides, DType dtype,
                              std::shared_ptr<void> owner);  // zero-copy (numpy)
  // A new handle (no autograd state) on the same storage and version counter.
  Tensor view(Shape sizes, Shape strides, int64_t offset) const;

  TensorImpl* unsafe_impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }
  const std::shared_ptr<Storage>& storage() const { return impl_->storage; }
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  // The same memory: one storage, or an alias made by `x.data = y` (same buffer).
  bool shares_storage(const Tensor& other) const {
    return impl_->storage == other.impl_->storage ||
           (impl_->storage->data != nullptr && impl_->storage->data == other.impl_->storage->data);
  }
  // Throws ValueError naming `what` when undefined.
  void check_defined(const char* what) const;

  // autograd state, implemented in csrc/autograd/variable.cpp
  bool requires_grad() const;
  void set_requires_grad(bool);
  const std::shared_ptr<autograd::Node>& grad_fn() const;
  uint32_t output_nr() const;
  bool is_leaf() const;
  Tensor grad() const;
  void set_grad(Tensor);

 private:
  std::shared_ptr<TensorImpl> impl_;
};

// Row-major contiguous strides for `sizes`.
Shape contiguous_strides(const Shape& sizes);
// Product of sizes (1 for a 0-d shape); RuntimeError when it overflows int64 (Note [Checked
// sizes]). Negative sizes are skipped: callers reject them with their own message.
int64_t shape_numel(const Shape& sizes);
// Bytes of a contiguous tensor of `sizes`; RuntimeError (torch's wording) when the count or the
// bytes overflow int64. Sizes must be non-negative.
size_t checked_nbytes(const Shape& sizes, DType dtype);
// Wraps a possibly negative dim into [0, ndim) (a 0-d tensor takes 0 and -1); otherwise an
// IndexError in torch's words (c10::maybe_wrap_dim). The shape is not read (older callers pass it).
int64_t wrap_dim(int64_t dim, int64_t ndim, const Shape& shape = {});
inline int64_t wrap_dim(int64_t dim, const Tensor& x) { return wrap_dim(dim, x.dim()); }

// The result dtype of an elementwise op on a and b, as torch's result_type: tensors with dims,
// then 0-d tensors, then wrapped numbers; a lower tier counts only with a higher category
// (Note [Type promotion] in transgrad/_dtypes.py, which states the same rule for Python).
DType result_type_slow(const Tensor& a, const Tensor& b);
inline DType result_type(const Tensor& a, const Tensor& b) {
  if (a.dtype() == b.dtype()) return a.dtype();
  return result_type_slow(a, b);
}

}  // namespace tg
