// Node and Edge: the backward graph.
//
// Note [Node directions]
// A Node is the backward of one forward call. Its *inputs* are the gradients of the forward
// outputs (`apply` receives one per differentiable output, in output_nr order); its *outputs*
// are the gradients of the forward inputs, one per next edge. The contract's naming is kept:
// `add_input_metadata` records a *forward input* (shape + dtype), one per next edge, so the
// engine can validate what `apply` returns; `output_metadata` records the *forward outputs*
// (set by set_history), so a formula can materialize a missing grad as zeros.
//
// Note [Iterative teardown]
// Nodes own their next nodes through edges, and saved tensors own their grad_fn, so a chain of
// a million ops is a million nested shared_ptrs. ~Node never lets the last reference to another
// node drop inside itself: it moves such references into a local stack and destroys them one by
// one after releasing their saved variables and edges, so destruction uses constant C++ stack.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace tg::autograd {

struct Node;
struct AutogradMeta;
class SavedVariable;
using variable_list = std::vector<Tensor>;

// The formula a node was generated from, for error messages. path is null for nodes that do
// not come from a formula (engine internals, Python Functions).
struct SourceLoc {
  const char* path;
  int line;
};

struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;

  Edge() = default;
  Edge(std::shared_ptr<Node> f, uint32_t nr) : function(std::move(f)), input_nr(nr) {}
  bool valid() const { return function != nullptr; }
};
// A node's next edges live as long as the node: from the small-object cache too.
using edge_list = std::vector<Edge, SmallAlloc<Edge>>;

// Note [Inline metadata]
// Every node records the shape of each forward input and output (Note [Node directions]).
// Kept as std::vector<TensorMeta> with a Shape each, that was five heap allocations per
// recorded op on the hot path of small-tensor chains (W1). Sizes of up to kInlineDims dims and
// the first N metadata entries live inside the node instead; larger ones spill to the heap.

// Sizes of a forward tensor; compares with and converts to Shape (the conversion allocates,
// and is only needed on broadcast and error paths).
class MetaSizes {
 public:
  MetaSizes() = default;
  MetaSizes& operator=(const Shape& s) {
    n_ = s.size();
    if (n_ <= kInlineDims) {
      std::copy(s.begin(), s.end(), small_);
      big_.clear();
    } else {
      big_ = s;
    }
    return *this;
  }
  size_t size() const { return n_; }
  const int64_t* begin() const { return n_ <= kInlineDims ? small_ : big_.data(); }
  const int64_t* end() const { return begin() + n_; }
  int64_t operator[](size_t i) const { return begin()[i]; }
  operator Shape() const { return Shape(begin(), end()); }

  friend bool operator==(const MetaSizes& a, const Shape& b) {
    return a.n_ == b.size() && std::equal(b.begin(), b.end(), a.begin());
  }
  friend bool operator==(const Shape& a, const MetaSizes& b) { return b == a; }
  friend bool operator!=(const MetaSizes& a, const Shape& b) { return !(a == b); }
  friend bool operator!=(const Shape& a, const MetaSizes& b) { return !(b == a); }

 private:
  static constexpr size_t kInlineDims = 4;
  size_t n_ = 0;
  int64_t small_[kInlineDims] = {};
  Shape big_;
};

// Shape and dtype of a forward tensor; `defined` is false for a None input.
struct TensorMeta {
  MetaSizes sizes;
  DType dtype = DType::Float32;
  bool defined = false;
};

// A sequence whose first N elements live inline (default-constructed when unused).
template <class T, size_t N>
class InlineVec {
 public:
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  T& operator[](size_t i) { return i < N ? small_[i] : rest_[i - N]; }
  const T& operator[](size_t i) const { return i < N ? small_[i] : rest_[i - N]; }
  void push_back(T v) {
    if (n_ < N) {
      small_[n_] = std::move(v);
    } else {
      rest_.push_back(std::move(v));
    }
    ++n_;
  }
  void resize(size_t n) {
    for (size_t i = n; i < std::min(n_, N); ++i) small_[i] = T();
    if (n > N) {
      rest_.resize(n - N);
    } else {
      rest_.clear();
    }
    n_ = n;
  }

 private:
  T small_[N];
  std::vector<T> rest_;
  size_t n_ = 0;
};
using InputMetadata = InlineVec<TensorMeta, 2>;
using OutputMetadata = InlineVec<TensorMeta, 1>;

// A hook on the gradient of one tensor: returns a replacement, or an undefined Tensor to keep
// the gradient unchanged.
using TensorHook = std::function<Tensor(const Tensor&)>;
// Runs before apply() with the node's incoming grads; may replace them (return {} to keep).
using PreHook = std::function<variable_list(const variable_list& grad_outputs)>;
// Runs after apply(): (grads of the forward inputs, incoming grads); may replace the former.
using PostHook = std::function<variable_list(const variable_list& grad_inputs,
                                             const variable_list& grad_outputs)>;

struct NodeHooks;  // hooks are rare: allocated on first registration

// Note [Anomaly mode]
// Under detect_anomaly() every node records, when it is made, where the user's code made it (the
// Python stack, captured by a function the Python module registers: the engine knows nothing of
// Python). Off, a node pays one relaxed atomic load. The engine adds the record to the message of
// a NaN found in a gradient (checked after each node) and of an error raised in a backward.
//
// As torch's, an error raised while a node runs under detect_anomaly() is also reported as a
// warning, "Error detected in MulBackward0. Traceback of forward call that caused the error:"
// and that trace, then the trace of each node whose backward made this one (a create_graph
// backward: the node evaluating on the thread when it was made, its `parent`), or "No forward
// pass information available" for a node made with anomaly mode off. The engine builds the
// text; the Python module registers how to warn.
struct Node;
struct AnomalyMetadata {
  virtual ~AnomalyMetadata() = default;
  virtual std::string format() const = 0;  // "  File ..., line ..., in ...\n    code\n..."
  std::shared_ptr<Node> parent;            // the node whose backward made this one, or null
};
using AnomalyCapture = std::unique_ptr<AnomalyMetadata> (*)();
void set_anomaly_capture(AnomalyCapture capture);
using AnomalyWarn = void (*)(const std::string& message);
void set_anomaly_warn(AnomalyWarn warn);
void anomaly_warn(const std::string& message);  // nothing when no function is registered

// The node whose apply runs on this thread for the guard's scope (the parent of the nodes it
// makes under anomaly mode).
struct EvaluatingNode {
  explicit EvaluatingNode(Node* node);
  ~EvaluatingNode();
  EvaluatingNode(const EvaluatingNode&) = delete;
  EvaluatingNode& operator=(const EvaluatingNode&) = delete;
  Node* prev;
};

struct Node : std::enable_shared_from_this<Node> {
  Node();
  explicit Node(uint64_t sequence_nr);
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // One grad per forward output (undefined = nobody produced it); returns one per next edge.
  virtual variable_list apply(variable_list&& grads) = 0;
  virtual std::string name() const = 0;  // "SinBackward0"
  virtual SourceLoc location() const { return {nullptr, 0}; }
  // Frees saved tensors (retain_graph=False); unpacking them afterwards raises.
  virtual void release_variables() {}
  // Note [Saved slots by name]
  // The tensors a generated node saved, by the formula's name for them ("x", "other",
  // "result"): a table the emitter writes, read by the binding's grad_fn._saved_<name> and
  // _raw_saved_<name> (torch's node introspection). Lists of tensors are not in it.
  using SavedSlots = std::vector<std::pair<const char*, SavedVariable*>>;
  virtual SavedSlots saved_slots() { return {}; }

  // "SinBackward0 (formulas/unary.py:7)", or just the name without a location.
  std::string describe() const;

  uint64_t sequence_nr() const { return sequence_nr_; }
  edge_list& next_edges() { return next_edges_; }
  const edge_list& next_edges() const { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  size_t num_outputs() const { return next_edges_.size(); }

  // Forward inputs (one per next edge), see Note [Node directions].
  void add_input_metadata(const Tensor& forward_input);
  const InputMetadata& input_metadata() const { return input_metadata_; }
  // Forward outputs: how many grads apply() receives, and their shapes/dtypes.
  void set_output_metadata(uint32_t output_nr, const Tensor& forward_output);
  uint32_t num_inputs() const { return static_cast<uint32_t>(output_metadata_.size()); }
  const TensorMeta& output_metadata(uint32_t output_nr) const {
    return output_metadata_[output_nr];
  }
  // Zeros shaped like forward output `output_nr` (for materialize_grads).
  Tensor zeros_for_grad(uint32_t output_nr) const;
  // grads[i] if defined, else zeros like forward output i.
  Tensor materialize_grad(const variable_list& grads, uint32_t output_nr) const;

  // Hooks. Each registration returns an id for remove_hook. Thread-safe.
  uint64_t add_tensor_pre_hook(uint32_t input_nr, TensorHook hook);
  uint64_t add_pre_hook(PreHook hook);
  uint64_t add_post_hook(PostHook hook);
  // Non-leaf retain_grad(): the grad arriving at `input_nr` is accumulated into meta's .grad.
  void add_retains_grad(uint32_t input_nr, std::weak_ptr<AutogradMeta> meta);
  bool remove_hook(uint64_t id);
  // Calls f on each tensor pre-hook, under the hooks' lock: for the Python layer's garbage
  // collector support (Note [Tensors in Python's GC] in csrc/python/autograd_binding.cpp).
  void for_each_tensor_pre_hook(const std::function<void(const TensorHook&)>& f);
  bool has_hooks() const { return hooks_.load(std::memory_order_acquire) != nullptr; }

  // An AccumulateGrad (it runs its leaf's hooks): a flag, no dynamic_cast per evaluated node.
  bool is_accumulate_grad() const { return is_accumulate_grad_; }

  // Where the node was made, when anomaly mode was on then (Note [Anomaly mode]); else null.
  const AnomalyMetadata* anomaly_metadata() const { return anomaly_.get(); }

  // Run by the engine, in this order, on the grads the node receives.
  virtual void run_tensor_pre_hooks(variable_list& grads);
  void run_retains_grad(const variable_list& grads);
  void run_pre_hooks(variable_list& grads);
  void run_post_hooks(variable_list& grad_inputs, const variable_list& grad_outputs);

  std::mutex mutex_;  // held by the engine while apply() runs
  // The Python dict of Node.metadata, owned by csrc/python (it drops it with the GIL); null
  // until first asked for.
  std::shared_ptr<void> py_metadata;

 protected:
  uint64_t sequence_nr_;
  edge_list next_edges_;
  InputMetadata input_metadata_;  // Note [Inline metadata]
  OutputMetadata output_metadata_;
  bool is_accumulate_grad_ = false;  // set by AccumulateGrad

 private:
  NodeHooks& hooks();
  void record_anomaly();
  std::atomic<NodeHooks*> hooks_{nullptr};
  std::unique_ptr<AnomalyMetadata> anomaly_;
};

// Makes a node: every node of a recorded op is allocated from the small-object cache (Note
// [Small object cache]); nodes too large for it get a plain allocation.
template <class T, class... Args>
std::shared_ptr<T> make_node(Args&&... args) {
  return std::allocate_shared<T>(SmallAlloc<T>(), std::forward<Args>(args)...);
}

// Applies a tensor hook and checks its result keeps the gradient's shape.
Tensor apply_tensor_hook(const TensorHook& hook, const Tensor& grad, const char* where);

// The next sequence number (monotonic across threads). Higher numbers run first in backward.
uint64_t next_sequence_nr();

// Nodes currently alive (for tests of graph teardown).
int64_t live_node_count();

// Fresh hook ids, unique within the process.
uint64_t next_hook_id();

std::string format_location(SourceLoc loc);  // "formulas/unary.py:7" or ""

}  // namespace tg::autograd
