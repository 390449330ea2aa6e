#include "tensor/parallel.h"

#include "tensor/errors.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <pthread.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TG_PAUSE() _mm_pause()
#else
#define TG_PAUSE() ((void)0)
#endif

namespace tg {
namespace {

thread_local bool t_in_parallel = false;
// Threads currently inside run_parallel, and how many kernels ran serially because another
// thread was inside one (Note [Inter-op first]).
std::atomic<int> g_active_callers{0};
std::atomic<uint64_t> g_serial_runs{0};

class ThreadPool {
 public:
  explicit ThreadPool(int threads) { resize(threads); }
  ~ThreadPool() { stop(); }

  int num_threads() const { return num_threads_; }

  void resize(int threads) {
    std::lock_guard<std::mutex> run(run_mutex_);
    stop();
    num_threads_ = std::max(1, threads);
    shutdown_ = false;
    for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this] { worker_loop(); });
  }

  bool run(int64_t n, int64_t grain, detail::RangeFn fn, void* ctx) {
    if (num_threads_ <= 1) return false;  // nesting is refused by run_parallel
    std::unique_lock<std::mutex> run(run_mutex_, std::try_to_lock);
    if (!run.owns_lock()) return false;
    int64_t chunks = std::min<int64_t>(num_threads_, n / grain);
    if (chunks < 2) return false;
    fn_ = fn;
    ctx_ = ctx;
    n_ = n;
    chunks_ = chunks;
    error_ = nullptr;
    done_chunks_.store(0, std::memory_order_relaxed);
    claim_.store(static_cast<uint64_t>(chunks) << kChunkBits, std::memory_order_release);
    {
      std::lock_guard<std::mutex> lk(m_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    cv_.notify_all();
    t_in_parallel = true;
    work();
    t_in_parallel = false;
    // A worker may have been descheduled mid-chunk: spin briefly, then yield the core to it.
    for (int spins = 0; done_chunks_.load(std::memory_order_acquire) < chunks_; ++spins) {
      if (spins < 4096)
        TG_PAUSE();
      else
        std::this_thread::yield();
    }
    claim_.store(0, std::memory_order_release);
    if (error_) std::rethrow_exception(error_);
    return true;
  }

 private:
  void work() {
    for (;;) {
      uint64_t v = claim_.fetch_add(1, std::memory_order_acq_rel);
      int64_t c = static_cast<int64_t>(v & kChunkMask);
      if (c >= static_cast<int64_t>(v >> kChunkBits)) return;
      const int64_t b = split_point(n_, chunks_, c), e = split_point(n_, chunks_, c + 1);
      try {
        fn_(ctx_, b, e);
      } catch (...) {
        std::lock_guard<std::mutex> lk(error_mutex_);
        if (!error_) error_ = std::current_exception();
      }
      done_chunks_.fetch_add(1, std::memory_order_acq_rel);
    }
  }

  void worker_loop() {
    t_in_parallel = true;
    uint64_t seen = generation_.load(std::memory_order_acquire);
    for (;;) {
      // Spin a while (~200 us): kernels often come back to back, and waking a sleeping thread
      // costs more than a small job. Bounded, so an idle pool does not steal a core.
      const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
      const uint64_t serial_seen = g_serial_runs.load(std::memory_order_relaxed);
      for (int spins = 0; generation_.load(std::memory_order_acquire) == seen; ++spins) {
        TG_PAUSE();
        if ((spins & 63) == 63 && std::chrono::steady_clock::now() > spin_until) break;
        // Threads met inside kernels and run them serially (Note [Inter-op first]): the next
        // job is not coming soon, and the core is theirs.
        if (g_serial_runs.load(std::memory_order_relaxed) != serial_seen) break;
      }
      if (generation_.load(std::memory_order_acquire) == seen) {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk,
                 [&] { return generation_.load(std::memory_order_acquire) != seen || shutdown_; });
      }
      if (shutdown_) return;
      seen = generation_.load(std::memory_order_acquire);
      work();
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lk(m_);
      shutdown_ = true;
      generation_.fetch_add(1, std::memory_order_release);
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
  }

  int num_threads_ = 1;
  std::vector<std::thread> workers_;
  std::mutex run_mutex_;  // one parallel region at a time
  std::mutex m_;
  std::condition_variable cv_;
  std::atomic<uint64_t> generation_{0};
  bool shutdown_ = false;

  detail::RangeFn fn_ = nullptr;
  void* ctx_ = nullptr;
  int64_t n_ = 0;
  int64_t chunks_ = 0;
  // Chunk claims: (chunk count << kChunkBits) | next chunk index, 0 between jobs. A claim is
  // valid when its index is below the count it carries, so a worker waking late never takes a
  // chunk of a job whose fields are still being written.
  static constexpr int kChunkBits = 32;
  static constexpr uint64_t kChunkMask = (uint64_t(1) << kChunkBits) - 1;
  std::atomic<uint64_t> claim_{0};
  std::atomic<int64_t> done_chunks_{0};
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

int default_threads() {
  if (const char* env = std::getenv("TG_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return std::min(n, kMaxThreads);
  }
  unsigned hc = std::thread::hardware_concurrency();
  return hc ? static_cast<int>(std::min(hc, 64u)) : 1;
}

// Note [Pool after fork]
// fork() copies only the calling thread: in the child the pool's workers do not exist, and a
// kernel handing them chunks would wait for them forever (a DataLoader worker using transgrad
// ops hung). A pthread_atfork child handler drops the pool (leaked: its std::thread objects
// name threads of the parent, which must be neither joined nor destroyed) and the next kernel
// builds a fresh one with the parent's thread count. Pools are leaked at exit on purpose too:
// joining threads during static destruction at interpreter exit can hang.
std::atomic<ThreadPool*> g_pool{nullptr};
std::atomic<int> g_threads_after_fork{0};

void drop_pool_in_child() {
  ThreadPool* old = g_pool.exchange(nullptr);
  if (old != nullptr) g_threads_after_fork.store(old->num_threads());
  g_active_callers.store(0);  // callers of the parent's other threads are gone
  t_in_parallel = false;
}

ThreadPool& pool() {
  ThreadPool* p = g_pool.load(std::memory_order_acquire);
  if (p != nullptr) return *p;
  static const int registered = pthread_atfork(nullptr, nullptr, drop_pool_in_child);
  (void)registered;
  int after_fork = g_threads_after_fork.load();
  auto* fresh = new ThreadPool(after_fork > 0 ? after_fork : default_threads());
  ThreadPool* expected = nullptr;
  if (!g_pool.compare_exchange_strong(expected, fresh)) {
    delete fresh;  // another thread built one first
    return *expected;
  }
  return *fresh;
}

}  // namespace

int get_num_threads() { return pool().num_threads(); }
void set_num_threads(int n) {
  if (n < 1)
    throw ValueError("set_num_threads: expected a positive number of threads, got " +
                     std::to_string(n));
  if (n > kMaxThreads)
    throw ValueError("set_num_threads: " + std::to_string(n) +
                     " threads is more than the pool supports (at most " +
                     std::to_string(kMaxThreads) + ")");
  try {
    pool().resize(n);
  } catch (const std::system_error& e) {
    // The OS refused a thread: fall back to a serial pool rather than a half-built one.
    pool().resize(1);
    throw RuntimeError("set_num_threads: could not start " + std::to_string(n) + " threads (" +
                       e.what() + "); the pool now runs on 1 thread");
  }
}

namespace detail {
void run_parallel(int64_t n, int64_t grain, RangeFn fn, void* ctx) {
  if (t_in_parallel) {  // a chunk of a parallel region: never nested
    fn(ctx, 0, n);
    return;
  }
  // Note [Inter-op first]: count this thread in while its kernel runs, serial or split.
  struct Active {
    int others = g_active_callers.fetch_add(1, std::memory_order_acq_rel);
    ~Active() { g_active_callers.fetch_sub(1, std::memory_order_acq_rel); }
  } active;
  if (active.others > 0) {
    g_serial_runs.fetch_add(1, std::memory_order_relaxed);
    fn(ctx, 0, n);
  } else if (!pool().run(n, grain, fn, ctx)) {
    fn(ctx, 0, n);
  }
}
}  // namespace detail

}  // namespace tg
