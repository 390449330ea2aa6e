// A per-thread cache of small heap blocks, and SmallAlloc<T>, the std allocator over it.
//
// Used for the objects every recorded op makes and backward frees again: Storage, TensorImpl,
// AutogradMeta, nodes (through allocate_shared) and the vectors of a Shape. Any thread may free
// a block any thread allocated (Note [Small object cache] in small_alloc.cpp).
#pragma once

#include <cstddef>
#include <new>

namespace tg {

// Largest request served from the cache; larger ones go straight to ::operator new.
inline constexpr size_t kSmallAllocMax = 512;

// A block of at least `nbytes` (aligned like ::operator new). small_free must get the same
// `nbytes`: it picks the size class.
void* small_alloc(size_t nbytes);
void small_free(void* p, size_t nbytes) noexcept;

// Stateless and always equal: a container or shared_ptr allocated with it may be freed on any
// thread, and containers with it swap and move like ones with std::allocator.
template <class T>
struct SmallAlloc {
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__,
                "SmallAlloc serves the default new alignment only");
  using value_type = T;

  SmallAlloc() noexcept = default;
  template <class U>
  SmallAlloc(const SmallAlloc<U>&) noexcept {}

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(small_alloc(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept { small_free(p, n * sizeof(T)); }

  template <class U>
  bool operator==(const SmallAlloc<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const SmallAlloc<U>&) const noexcept {
    return false;
  }
};

}  // namespace tg
