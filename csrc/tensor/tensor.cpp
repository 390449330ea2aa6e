#include "tensor/tensor.h"

#include <atomic>
#include <new>
#include <utility>
#include <vector>

namespace tg {

namespace {
constexpr size_t kAlignment = 64;
}

const char* dtype_name(DType d) {
  switch (d) {
    case DType::Bool:
      return "bool";
    case DType::Int64:
      return "int64";
    case DType::Float32:
      return "float32";
    case DType::Float64:
      return "float64";
    case DType::Int8:
      return "int8";
    case DType::Int16:
      return "int16";
    case DType::Int32:
      return "int32";
    case DType::UInt8:
      return "uint8";
    case DType::Float16:
      return "float16";
    case DType::BFloat16:
      return "bfloat16";
  }
  return "?";
}

const char* dtype_torch_name(DType d) {
  switch (d) {
    case DType::Bool:
      return "Bool";
    case DType::Int64:
      return "Long";
    case DType::Float32:
      return "Float";
    case DType::Float64:
      return "Double";
    case DType::Int8:
      return "Char";
    case DType::Int16:
      return "Short";
    case DType::Int32:
      return "Int";
    case DType::UInt8:
      return "Byte";
    case DType::Float16:
      return "Half";
    case DType::BFloat16:
      return "BFloat16";
  }
  return "?";
}

DType dtype_from_name(const std::string& name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (name == dtype_name(static_cast<DType>(i))) return static_cast<DType>(i);
  throw TypeError("unsupported dtype '" + name +
                  "' (expected bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32 "
                  "or float64)");
}

namespace {
int category(DType d) { return d == DType::Bool ? 0 : (is_floating(d) ? 2 : 1); }
}  // namespace

DType promote_dtypes_slow(DType a, DType b) {
  const int ca = category(a), cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 2) {
    if ((a == DType::Float16 && b == DType::BFloat16) ||
        (a == DType::BFloat16 && b == DType::Float16))
      return DType::Float32;
    return itemsize(a) >= itemsize(b) ? a : b;
  }
  // integral
  if (a == DType::UInt8 || b == DType::UInt8) {
    const DType other = a == DType::UInt8 ? b : a;
    return other == DType::Int8 ? DType::Int16 : other;  // signed and wider than 1 byte: itself
  }
  return itemsize(a) >= itemsize(b) ? a : b;
}

namespace {
int tier(const Tensor& t) { return t.is_wrapped_number() ? 2 : (t.dim() == 0 ? 1 : 0); }
std::atomic<DType> g_default_dtype{DType::Float32};
}  // namespace

DType result_type_slow(const Tensor& a, const Tensor& b) {
  const int ta = tier(a), tb = tier(b);
  if (ta == tb) return promote_types(a.dtype(), b.dtype());
  const DType higher = ta < tb ? a.dtype() : b.dtype(), lower = ta < tb ? b.dtype() : a.dtype();
  // torch's combine_categories (no complex dtypes here): the lower tier only lifts the category
  return category(lower) > category(higher) ? promote_types(higher, lower) : higher;
}

DType default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }
void set_default_dtype(DType d) {
  if (!is_floating(d))
    throw TypeError("only floating-point types are supported as the default type");
  g_default_dtype.store(d, std::memory_order_relaxed);
}

std::string shape_str(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  if (s.size() == 1) out += ",";
  return out + ")";
}

std::string dim_repeated(int64_t wrapped_dim) {
  return "dim " + std::to_string(wrapped_dim) + " appears multiple times in the list of dims";
}

std::string list_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  return out + "]";
}

std::string size_str(const Shape& s) { return "torch.Size(" + list_str(s) + ")"; }

namespace {
void* inline_data(Storage& s) {
  auto p = reinterpret_cast<uintptr_t>(s.inline_buf);
  return reinterpret_cast<void*>((p + kAlignment - 1) & ~uintptr_t(kAlignment - 1));
}
}  // namespace

// Note [Buffer cache]
// A chain on large tensors frees and allocates buffers of the same few sizes over and over
// (saved tensors released in backward, the next step's forward). malloc hands such buffers
// back to the kernel (mmap/trim) and takes them again, and the page faults of the fresh pages
// cost ~15-20% of W2 (perf: exc_page_fault, clear_page, memcg). Each thread therefore keeps up
// to kCacheEntries freed buffers of at least kCacheMinBytes (sizes rounded to pages), at most
// kCacheBytes in all, and reuses one of exactly the same rounded size. Per thread, so no lock:
// a buffer freed on another thread goes to that thread's cache. A thread's cache is freed when
// the thread exits; storages freed after that (other thread_locals) bypass it.
namespace {
constexpr size_t kCacheMinBytes = size_t(64) << 10;
constexpr size_t kCacheBytes = size_t(256) << 20;
constexpr size_t kCacheEntries = 64;
constexpr size_t kPage = 4096;

thread_local bool t_cache_closed = false;

struct BufferCache {
  std::vector<std::pair<size_t, void*>> entries;  // (rounded size, buffer), oldest first
  size_t bytes = 0;
  ~BufferCache() {
    t_cache_closed = true;
    for (auto& e : entries) ::operator delete(e.second, std::align_val_t(kAlignment));
  }
};

BufferCache& buffer_cache() {
  thread_local BufferCache cache;
  return cache;
}

size_t rounded_size(size_t nbytes) {
  if (nbytes >= kCacheMinBytes) return (nbytes + kPage - 1) / kPage * kPage;
  return (nbytes + kAlignment - 1) / kAlignment * kAlignment;
}

void* take_buffer(size_t rounded) {
  if (rounded >= kCacheMinBytes && !t_cache_closed) {
    BufferCache& c = buffer_cache();
    for (size_t i = c.entries.size(); i-- > 0;) {
      if (c.entries[i].first != rounded) continue;
      void* p = c.entries[i].second;
      c.entries.erase(c.entries.begin() + static_cast<std::ptrdiff_t>(i));
      c.bytes -= rounded;
      return p;
    }
  }
  return ::operator new(rounded, std::align_val_t(kAlignment));
}

void give_buffer(void* p, size_t rounded) {
  if (rounded >= kCacheMinBytes && rounded <= kCacheBytes / 4 && !t_cache_closed) {
    BufferCache& c = buffer_cache();
    while (!c.entries.empty() &&
           (c.entries.size() >= kCacheEntries || c.bytes + rounded > kCacheBytes)) {
      ::operator delete(c.entries.front().second, std::align_val_t(kAlignment));
      c.bytes -= c.entries.front().first;
      c.entries.erase(c.entries.begin());
    }
    c.entries.emplace_back(rounded, p);
    c.bytes += rounded;
    return;
  }
  ::operator delete(p, std::align_val_t(kAlignment));
}
}  // namespace

Storage::~Storage() {
  if (!owner && data && data != inline_data(*this)) give_buffer(data, rounded_size(nbytes));
}

std::shared_ptr<Storage> Storage::allocate(size_t nbytes) {
  auto s = std::allocate_shared<Storage>(SmallAlloc<Storage>());
  if (nbytes <= kInlineBytes) {
    s->data = inline_data(*s);
  } else {
    s->data = take_buffer(rounded_size(nbytes));
  }
  s->nbytes = nbytes;
  return s;
}

std::shared_ptr<Storage> Storage::external(void* data, size_t nbytes, std::shared_ptr<void> owner) {
  auto s = std::allocate_shared<Storage>(SmallAlloc<Storage>());
  s->data = data;
  s->nbytes = nbytes;
  s->owner = owner ? std::move(owner) : std::shared_ptr<void>(data, [](void*) {});
  return s;
}

// Note [Checked sizes]
// Every tensor, view or not, has a numel and a byte size that fit in int64: a product of sizes
// that wraps would give a buffer smaller than the loops over the shape write (a 0-byte buffer
// for an expanded 2**62), and a view too large to address would make a reduction loop for
// ever. shape_numel checks the product, checked_nbytes the bytes; Tensor::empty and every view
// (refresh) go through both, so no kernel sees a shape whose size overflowed.
namespace {
[[noreturn]] void storage_overflow(const Shape& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  throw RuntimeError("Storage size calculation overflowed with sizes=" + s + "]");
}
}  // namespace

int64_t shape_numel(const Shape& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (s < 0) continue;  // callers report negative sizes with their own wording
    if (__builtin_mul_overflow(n, s, &n))
      throw RuntimeError("numel: integer multiplication overflow");
  }
  return n;
}

size_t checked_nbytes(const Shape& sizes, DType dtype) {
  int64_t n = 1, bytes = 0;
  for (int64_t s : sizes)
    if (__builtin_mul_overflow(n, s, &n)) storage_overflow(sizes);
  if (__builtin_mul_overflow(n, static_cast<int64_t>(tg::itemsize(dtype)), &bytes))
    storage_overflow(sizes);
  return static_cast<size_t>(bytes);
}

void TensorImpl::refresh() {
  for (int64_t s : sizes)
    if (s < 0) throw ValueError("negative dimension in shape " + shape_str(sizes));
  checked_nbytes(sizes, dtype);
  const int64_t n = shape_numel(sizes);
  numel = n;
  bool c = true;
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) {
      c = false;
      break;
    }
    expected *= sizes[i];
  }
  contiguous = c || n == 0;
}

Shape contiguous_strides(const Shape& sizes) {
  Shape st(sizes.size());
  int64_t acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    st[i] = acc;
    acc *= sizes[i] > 0 ? sizes[i] : 1;
  }
  return st;
}

// torch's words (c10::maybe_wrap_dim), so code matching on them works unchanged.
int64_t wrap_dim(int64_t dim, int64_t ndim, const Shape&) {
  int64_t lo = ndim > 0 ? -ndim : -1, hi = ndim > 0 ? ndim - 1 : 0;
  if (dim < lo || dim > hi)
    throw IndexError("Dimension out of range (expected to be in range of [" + std::to_string(lo) +
                     ", " + std::to_string(hi) + "], but got " + std::to_string(dim) + ")");
  return dim < 0 ? dim + (ndim > 0 ? ndim : 1) : dim;
}

int64_t Tensor::size(int64_t d) const { return impl_->sizes[wrap_dim(d, dim(), sizes())]; }
int64_t Tensor::stride(int64_t d) const { return impl_->strides[wrap_dim(d, dim(), sizes())]; }

void Tensor::check_defined(const char* what) const {
  if (!impl_) throw ValueError(std::string(what) + ": expected a tensor, got None");
}

Tensor Tensor::empty(const Shape& sizes, DType dtype) {
  auto impl = std::allocate_shared<TensorImpl>(SmallAlloc<TensorImpl>());
  for (int64_t s : sizes)
    if (s < 0) throw ValueError("negative dimension in shape " + shape_str(sizes));
  const size_t nbytes = checked_nbytes(sizes, dtype);  // Note [Checked sizes]
  const int64_t n = static_cast<int64_t>(nbytes / tg::itemsize(dtype));
  impl->storage = Storage::allocate(nbytes);
  impl->sizes = sizes;
  impl->strides = contiguous_strides(sizes);
  impl->numel = n;
  impl->dtype = dtype;
  impl->contiguous = true;
  return Tensor(std::move(impl));
}

Tensor Tensor::from_external(void* data, Shape sizes, Shape strides, DType dtype,
                             std::shared_ptr<void> owner) {
  if (sizes.size() != strides.size())
    throw ValueError("from_external: sizes " + shape_str(sizes) + " and strides " +
                     shape_str(strides) + " differ in length");
  // The storage spans every element the view can reach (strides may be negative).
  int64_t lo = 0, hi = 0, n = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    n *= sizes[i];
    if (sizes[i] == 0) continue;
    int64_t ext = (sizes[i] - 1) * strides[i];
    (ext < 0 ? lo : hi) += ext;
  }
  size_t item = tg::itemsize(dtype);
  char* base = static_cast<char*>(data) + lo * static_cast<int64_t>(item);
  size_t nbytes = n == 0 ? 0 : static_cast<size_t>(hi - lo + 1) * item;
  auto impl = std::allocate_shared<TensorImpl>(SmallAlloc<TensorImpl>());
  impl->storage = Storage::external(base, nbytes, std::move(owner));
  impl->sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->offset = -lo;
  impl->dtype = dtype;
  impl->refresh();
  return Tensor(std::move(impl));
}

Tensor Tensor::view(Shape sizes, Shape strides, int64_t offset) const {
  auto impl = std::allocate_shared<TensorImpl>(SmallAlloc<TensorImpl>());
  impl->storage = impl_->storage;
  impl->sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->offset = offset;
  impl->dtype = impl_->dtype;
  impl->refresh();
  return Tensor(std::move(impl));
}

}  // namespace tg
