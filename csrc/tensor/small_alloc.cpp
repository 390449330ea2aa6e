#include "tensor/small_alloc.h"

#include <array>
#include <cstdint>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define TG_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define TG_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define TG_POISON(p, n) ((void)(p), (void)(n))
#define TG_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace tg {

// Note [Small object cache]
// Recording one op of a small-tensor chain makes about twenty small heap objects (the output's
// Storage and TensorImpl, its sizes and strides, an AutogradMeta, the node, ...), and a chain
// of thousands of ops frees them all together in backward. That overflows glibc's per-thread
// cache (a handful of chunks per size) and sends most frees and mallocs down its slow paths
// (consolidation, unlinking): ~22% of W1's time.
//
// So each thread keeps its own free lists, one per 16-byte size class up to kSmallAllocMax,
// linked through the freed blocks themselves and each capped at kClassBytes (kMaxBlocks
// blocks); a block beyond the cap goes back to ::operator delete. Every block is one
// ::operator new of its class's full size, so blocks are interchangeable across threads: one
// freed on another thread simply joins that thread's list, no lock and no ownership. A thread's
// lists are freed when it exits (the CacheCloser below); frees after that (other thread_local
// destructors) bypass the cache, like Note [Buffer cache]. The cache holds at most what the
// thread once freed, bounded per class: 1 MiB each, 32 classes.
//
// Under AddressSanitizer a cached block is poisoned, and an allocated block only addressable
// up to the requested size, so use-after-free and overflows are still reported.
namespace {

constexpr size_t kGranule = 16;
constexpr size_t kClasses = kSmallAllocMax / kGranule;
constexpr size_t kClassBytes = size_t(1) << 20;
constexpr size_t kMaxBlocks = 8192;

constexpr std::array<uint32_t, kClasses> make_caps() {
  std::array<uint32_t, kClasses> caps{};
  for (size_t c = 0; c < kClasses; ++c) {
    size_t n = kClassBytes / ((c + 1) * kGranule);
    caps[c] = static_cast<uint32_t>(n < kMaxBlocks ? n : kMaxBlocks);
  }
  return caps;
}
constexpr std::array<uint32_t, kClasses> kCaps = make_caps();

struct FreeBlock {
  FreeBlock* next;
};
static_assert(sizeof(FreeBlock) <= kGranule);

enum class CacheState : uint8_t { Unused, Open, Closed };

// Trivial, so the thread_local needs no guard or constructor call on access.
struct ThreadCache {
  FreeBlock* heads[kClasses];
  uint32_t counts[kClasses];
  CacheState state;
};

thread_local ThreadCache t_cache{};

// Index of the class serving `nbytes` (0 < nbytes <= kSmallAllocMax).
inline size_t class_of(size_t nbytes) { return (nbytes - 1) / kGranule; }
inline size_t class_bytes(size_t c) { return (c + 1) * kGranule; }

void drain(ThreadCache& tc) {
  for (size_t c = 0; c < kClasses; ++c) {
    FreeBlock* b = tc.heads[c];
    while (b != nullptr) {
      TG_UNPOISON(b, class_bytes(c));
      FreeBlock* next = b->next;
      ::operator delete(b);
      b = next;
    }
    tc.heads[c] = nullptr;
    tc.counts[c] = 0;
  }
}

// Its destructor, run when the thread exits, closes and empties the thread's cache.
struct CacheCloser {
  ~CacheCloser() {
    t_cache.state = CacheState::Closed;
    drain(t_cache);
  }
};

// Opens the cache on the thread's first free into it; false once the thread is exiting.
bool open_cache(ThreadCache& tc) {
  if (tc.state == CacheState::Closed) return false;
  thread_local CacheCloser closer;
  static_cast<void>(&closer);
  tc.state = CacheState::Open;
  return true;
}

}  // namespace

void* small_alloc(size_t nbytes) {
  if (nbytes > kSmallAllocMax) return ::operator new(nbytes);
  if (nbytes == 0) nbytes = 1;
  const size_t c = class_of(nbytes);
  ThreadCache& tc = t_cache;
  FreeBlock* b = tc.heads[c];
  if (b == nullptr) {
    void* p = ::operator new(class_bytes(c));
    TG_POISON(static_cast<char*>(p) + nbytes, class_bytes(c) - nbytes);
    return p;
  }
  TG_UNPOISON(b, sizeof(FreeBlock));
  tc.heads[c] = b->next;
  --tc.counts[c];
  TG_POISON(b, class_bytes(c));
  TG_UNPOISON(b, nbytes);
  return b;
}

void small_free(void* p, size_t nbytes) noexcept {
  if (p == nullptr) return;
  if (nbytes > kSmallAllocMax) {
    ::operator delete(p);
    return;
  }
  if (nbytes == 0) nbytes = 1;
  const size_t c = class_of(nbytes);
  ThreadCache& tc = t_cache;
  if ((tc.state != CacheState::Open && !open_cache(tc)) || tc.counts[c] >= kCaps[c]) {
    TG_UNPOISON(p, class_bytes(c));
    ::operator delete(p);
    return;
  }
  TG_UNPOISON(p, class_bytes(c));
  auto* b = static_cast<FreeBlock*>(p);
  b->next = tc.heads[c];
  tc.heads[c] = b;
  ++tc.counts[c];
  TG_POISON(b, class_bytes(c));
}

}  // namespace tg
