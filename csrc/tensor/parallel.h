// Intra-op parallelism: a small persistent pool of std::threads shared by all kernels.
//
// Note [Intra-op threads]
// parallel_for(n, grain, f) runs f(begin, end) over [0, n). It never touches the pool when
// n < grain (the check is inline, so small tensors pay one comparison), when one thread is
// configured, when called from inside a parallel region (no nesting), or when another thread
// already runs a parallel region (the autograd engine and several Python threads may call
// kernels at once; the loser runs serially instead of waiting), or when another thread is
// inside a large kernel at the same time (Note [Inter-op first]). The calling thread takes part,
// so the pool has num_threads - 1 workers; they spin ~200 us after each job (back-to-back ops
// are common) and then sleep on a condition variable. Exceptions thrown by f are rethrown on
// the calling thread. The default thread count is the number of cores (TG_NUM_THREADS
// overrides it).
#pragma once

#include <cstdint>

namespace tg {

// Most threads set_num_threads accepts: the pool starts one std::thread per count, and chunk
// indices are claimed in 32 bits (Note [Intra-op threads]). Above it is a ValueError, not a
// pool of thousands of spinning threads.
constexpr int kMaxThreads = 1024;

int get_num_threads();
void set_num_threads(int n);

// Note [Inter-op first]
// Several Python threads (or a backward and a forward) running large kernels at once already
// keep the cores busy. Splitting each of their kernels over the pool as well would put three
// or more runnable threads on two cores, and a split kernel waits for its slowest chunk, so a
// descheduled chunk stalls the whole op (two threads ran at 0.8x the throughput of one). A
// kernel therefore uses the pool only while no other thread is inside a large kernel: each
// caller of run_parallel counts itself in for the duration of its kernel, serial or not.

namespace detail {
using RangeFn = void (*)(void* ctx, int64_t begin, int64_t end);
// Runs fn over [0, n): split over the pool when it is available and no other thread is inside
// a large kernel, else on the calling thread alone.
void run_parallel(int64_t n, int64_t grain, RangeFn fn, void* ctx);
}  // namespace detail

template <class F>
inline void parallel_for(int64_t n, int64_t grain, const F& f) {
  if (n <= 0) return;
  if (n < 2 * grain) {
    f(0, n);
    return;
  }
  detail::run_parallel(
      n, grain, [](void* ctx, int64_t b, int64_t e) { (*static_cast<const F*>(ctx))(b, e); },
      const_cast<void*>(static_cast<const void*>(&f)));
}

// Start of chunk c of [0, n) split into `chunks` near-equal parts (c == chunks gives n).
// Never forms n * c, which overflows for the sizes a broadcast view can have.
inline int64_t split_point(int64_t n, int64_t chunks, int64_t c) {
  const int64_t q = n / chunks, r = n % chunks;
  return q * c + (c < r ? c : r);
}

// Elements above which elementwise/reduction kernels split work across threads.
constexpr int64_t kGrainCheap = 32768;     // add, mul, copy: memory bound
constexpr int64_t kGrainExpensive = 4096;  // exp, tanh, erf, pow: compute bound

}  // namespace tg
