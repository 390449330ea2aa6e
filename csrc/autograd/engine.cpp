#include "autograd/engine.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <queue>
#include <unordered_map>
#include <utility>

#include "autograd/accumulate_grad.h"
#include "autograd/function.h"
#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "kernels/kernels.h"

namespace tg::autograd {

namespace {

std::atomic<bool> anomaly_enabled{false};
std::atomic<uint64_t> next_task_id{1};

// The root of a GraphTask: its outputs are the seed gradients, its edges the roots.
struct GraphRoot final : Node {
  GraphRoot(const std::vector<Edge>& roots, variable_list grads)
      : Node(std::numeric_limits<uint64_t>::max()), grads_(std::move(grads)) {
    next_edges_.assign(roots.begin(), roots.end());
  }
  std::string name() const override { return "GraphRoot"; }
  variable_list apply(variable_list&&) override { return std::move(grads_); }
  variable_list grads_;
};

struct Capture {
  uint32_t input_nr;
  size_t slot;
};

// Per node, for autograd.grad: does the node lead to a requested edge; what it captures.
struct ExecInfo {
  bool needed = false;
  std::vector<Capture> captures;
  bool should_visit() const { return needed || !captures.empty(); }
};

struct ReadyItem {
  std::shared_ptr<Node> node;
  variable_list inputs;
};

struct ReadyOrder {
  bool operator()(const ReadyItem& a, const ReadyItem& b) const {
    return a.node->sequence_nr() < b.node->sequence_nr();  // highest sequence_nr first
  }
};

// Per reachable node: how many edges into it have not delivered yet, and its input buffer.
struct Pending {
  int dependencies = 0;
  variable_list buffer;
};

// Note [Pending table]
// The Pending of each node reachable in a task, in discovery order, found through an
// open-addressing table (Node* -> index; linear probing, power-of-two size, at most half full).
// A node-based std::unordered_map made one heap allocation per reachable node, all alive until
// the task ends: on a long chain of small ops they overflowed malloc's per-thread cache and,
// with the hashing, cost ~3% of W1.
class PendingTable {
 public:
  PendingTable() : cells_(kInitialCells), mask_(kInitialCells - 1) {}

  // The entry of `n`, created when missing (second: whether it was).
  std::pair<Pending*, bool> try_emplace(Node* n) {
    size_t i = home(n);
    while (cells_[i].node != nullptr) {
      if (cells_[i].node == n) return {&entries_[cells_[i].index], false};
      i = (i + 1) & mask_;
    }
    if (2 * (entries_.size() + 1) > cells_.size()) {
      grow();
      return try_emplace(n);
    }
    cells_[i] = {n, static_cast<uint32_t>(entries_.size())};
    entries_.emplace_back();
    return {&entries_.back(), true};
  }

  bool contains(const Node* n) const {
    for (size_t i = home(n); cells_[i].node != nullptr; i = (i + 1) & mask_)
      if (cells_[i].node == n) return true;
    return false;
  }

 private:
  static constexpr size_t kInitialCells = 64;
  struct Cell {
    Node* node = nullptr;
    uint32_t index = 0;
  };

  size_t home(const Node* n) const {
    // Fibonacci hashing of the address (its low bits are alignment zeros).
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(n) * 0x9E3779B97F4A7C15ull) >> 32) &
           mask_;
  }

  void grow() {
    std::vector<Cell> old(cells_.size() * 2);
    old.swap(cells_);
    mask_ = cells_.size() - 1;
    for (const Cell& c : old) {
      if (c.node == nullptr) continue;
      size_t i = home(c.node);
      while (cells_[i].node != nullptr) i = (i + 1) & mask_;
      cells_[i] = c;
    }
  }

  std::vector<Cell> cells_;
  size_t mask_;
  std::vector<Pending> entries_;  // by discovery order; pointers valid until the next insertion
};

struct GraphTask {
  uint64_t id;
  Node* root = nullptr;
  bool keep_graph;
  bool create_graph;
  bool accumulate_grad;
  PendingTable pending;
  std::unordered_map<Node*, ExecInfo> exec_info;  // empty: run everything
  variable_list captured;
};

void compute_dependencies(GraphTask& task, Node* root) {
  std::vector<Node*> stack{root};
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges()) {
      Node* f = e.function.get();
      if (f == nullptr) continue;
      auto [pending, first_visit] = task.pending.try_emplace(f);
      ++pending->dependencies;
      if (first_visit) stack.push_back(f);
    }
  }
}

// Marks the nodes from which a requested edge is reachable (iterative post-order DFS).
void compute_exec_info(GraphTask& task, Node* root, const std::vector<Edge>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Edge& e = outputs[i];
    ExecInfo& info = task.exec_info[e.function.get()];
    info.captures.push_back({e.input_nr, i});
    // backward(inputs=...) of a leaf: its AccumulateGrad runs.
    if (task.accumulate_grad && dynamic_cast<AccumulateGrad*>(e.function.get()) != nullptr)
      info.needed = true;
  }
  struct Frame {
    Node* node;
    size_t next;
  };
  std::unordered_map<Node*, bool> visited;
  std::vector<Frame> stack{{root, 0}};
  visited[root] = true;
  while (!stack.empty()) {
    Frame& top = stack.back();
    const auto& edges = top.node->next_edges();
    if (top.next < edges.size()) {
      Node* child = edges[top.next++].function.get();
      if (child != nullptr && visited.emplace(child, true).second) stack.push_back({child, 0});
      continue;
    }
    // All children done: the node is needed when one of them is visited by the task.
    Node* n = top.node;
    stack.pop_back();
    bool needed = false;
    for (const Edge& e : edges) {
      if (!e.function) continue;
      auto it = task.exec_info.find(e.function.get());
      if (it != task.exec_info.end() && it->second.should_visit()) {
        needed = true;
        break;
      }
    }
    if (needed) task.exec_info[n].needed = true;
  }
}

std::string index_str(size_t i) { return std::to_string(i); }

// Note [Gradient contract]: count, dtype (cast), shape (summed down when broadcast).
void validate_outputs(const Node& fn, variable_list& grads) {
  const auto& edges = fn.next_edges();
  if (grads.size() != edges.size())
    throw RuntimeError("function " + fn.describe() +
                       " returned an incorrect number of gradients "
                       "(expected " +
                       std::to_string(edges.size()) + ", got " + std::to_string(grads.size()) +
                       "): a backward returns one gradient per "
                       "Tensor parameter of the formula (None for no gradient)");
  const auto& metas = fn.input_metadata();
  for (size_t i = 0; i < grads.size(); ++i) {
    Tensor& g = grads[i];
    if (!g.defined()) continue;
    if (!edges[i].valid()) {  // the input does not require grad: drop the gradient
      g = Tensor();
      continue;
    }
    if (i >= metas.size() || !metas[i].defined) continue;
    const TensorMeta& m = metas[i];
    if (g.sizes() != m.sizes) {
      if (!broadcastable_to(m.sizes, g.sizes()))
        throw RuntimeError("function " + fn.describe() + " returned an invalid gradient at index " +
                           index_str(i) + " - got shape " + shape_str(g.sizes()) +
                           " but expected shape compatible with " + shape_str(m.sizes) +
                           " (the input's shape, or a shape it broadcasts to)");
      g = grad_sum_to(g, m.sizes);
    }
    if (g.dtype() != m.dtype) {
      if (!is_floating(m.dtype))
        throw RuntimeError("function " + fn.describe() + " returned a gradient at index " +
                           index_str(i) + " for an input of dtype " + dtype_name(m.dtype) +
                           ", which cannot have gradients");
      g = grad_cast(g, m.dtype);
    }
  }
}

bool has_nan(const Tensor& g) {
  if (!is_floating(g.dtype()) || g.numel() == 0) return false;
  NoGradGuard no_grad;
  Tensor nan = kernel::ne(g, g);
  Shape all(g.dim());
  for (int64_t d = 0; d < g.dim(); ++d) all[d] = d;
  return kernel::item(kernel::sum(kernel::cast(nan, DType::Float64), all, false)) > 0;
}

// Note [Anomaly mode]: where the node was made, for the end of an error message.
std::string forward_trace(const Node& fn) {
  const AnomalyMetadata* meta = fn.anomaly_metadata();
  if (meta == nullptr)
    return "\n(no forward traceback: " + fn.name() +
           " was made while detect_anomaly() was "
           "off; run the forward inside detect_anomaly() to see where)";
  std::string trace = meta->format();
  if (trace.empty()) return "";
  return "\nThe forward call that made " + fn.name() + " (most recent call last):\n" + trace;
}

// The warnings of an error in `fn` under anomaly mode, torch's words: fn's forward trace, then
// one per node whose backward made the previous one (Note [Anomaly mode]).
void warn_anomaly_error(const Node& fn) {
  const AnomalyMetadata* meta = fn.anomaly_metadata();
  std::string trace = meta != nullptr ? meta->format() : "";
  if (trace.empty()) {
    anomaly_warn("Error detected in " + fn.name() +
                 ". No forward pass information available. Enable detect anomaly during forward "
                 "pass for more information.");
    return;
  }
  anomaly_warn("Error detected in " + fn.name() +
               ". Traceback of forward call that caused the error:\n" + trace);
  for (const Node* p = meta->parent.get(); p != nullptr;) {
    const AnomalyMetadata* pm = p->anomaly_metadata();
    if (pm == nullptr) break;
    anomaly_warn("\n\nPrevious calculation was induced by " + p->name() +
                 ". Traceback of forward call that induced the previous calculation:\n" +
                 pm->format());
    p = pm->parent.get();
  }
}

void check_anomaly(const Node& fn, const variable_list& grads) {
  for (size_t i = 0; i < grads.size(); ++i)
    if (grads[i].defined() && has_nan(grads[i]))
      // torch's sentence first (user code matches on it), then which formula and where
      throw RuntimeError("Function '" + fn.name() + "' returned nan values in its " + index_str(i) +
                         "th output. (function " + fn.describe() + ", detected by detect_anomaly)" +
                         forward_trace(fn));
}

void add_to_buffer(Tensor& slot, Tensor&& g) {
  if (!g.defined()) return;
  if (!slot.defined()) {
    slot = std::move(g);
  } else {
    slot = grad_add(slot, g);
  }
}

// An error raised inside a node's backward says which node (and formula line) it came from.
// Under anomaly mode the message ends with where the node was made.
template <class E>
[[noreturn]] void rethrow_with_node(const E& e, const Node& fn) {
  std::string msg = e.what();
  std::string loc = format_location(fn.location());
  std::string trace = AnomalyMode::is_enabled() ? forward_trace(fn) : "";
  if (msg.find(fn.name()) != std::string::npos ||
      (!loc.empty() && msg.find(loc) != std::string::npos)) {
    if (trace.empty()) throw;  // the message already names the node
    throw E(msg + trace);
  }
  throw E(msg + " (raised in the backward of " + fn.describe() + ")" + trace);
}

variable_list call_apply(Node& fn, variable_list&& inputs) {
  try {
    return fn.apply(std::move(inputs));
  } catch (const ValueError& e) {
    rethrow_with_node(e, fn);
  } catch (const IndexError& e) {
    rethrow_with_node(e, fn);
  } catch (const TypeError& e) {
    rethrow_with_node(e, fn);
  } catch (const RuntimeError& e) {
    rethrow_with_node(e, fn);
  }
}

// Runs one node: hooks, captures, apply, validation, and hands its grads to the next nodes.
void evaluate(GraphTask& task, std::vector<ReadyItem>& heap, ReadyItem item) {
  Node& fn = *item.node;
  variable_list inputs = std::move(item.inputs);
  if (inputs.size() < fn.num_inputs()) inputs.resize(fn.num_inputs());

  if (fn.has_hooks() || fn.is_accumulate_grad()) {
    fn.run_tensor_pre_hooks(inputs);
    if (task.accumulate_grad) fn.run_retains_grad(inputs);
  }

  if (!task.exec_info.empty()) {
    auto it = task.exec_info.find(&fn);
    if (it == task.exec_info.end()) return;
    for (const Capture& c : it->second.captures)
      if (c.input_nr < inputs.size()) task.captured[c.slot] = inputs[c.input_nr];
    if (!it->second.needed) return;
  }

  variable_list outputs;
  {
    std::lock_guard<std::mutex> lock(fn.mutex_);
    if (fn.has_hooks()) fn.run_pre_hooks(inputs);
    bool any_defined = false;
    for (const Tensor& t : inputs) any_defined = any_defined || t.defined();
    if (!any_defined && !inputs.empty()) {
      outputs.resize(fn.num_outputs());  // nothing flows through: no gradients
    } else {
      EvaluatingNode evaluating(&fn);  // the parent of nodes made now (Note [Anomaly mode])
      outputs = call_apply(fn, fn.has_hooks() ? variable_list(inputs) : std::move(inputs));
    }
    if (!task.keep_graph) fn.release_variables();
  }

  validate_outputs(fn, outputs);
  if (AnomalyMode::is_enabled()) check_anomaly(fn, outputs);
  if (fn.has_hooks()) fn.run_post_hooks(outputs, inputs);

  const auto& edges = fn.next_edges();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Edge& e = edges[i];
    if (!e.valid()) continue;
    Node* next = e.function.get();
    if (!task.exec_info.empty()) {
      auto it = task.exec_info.find(next);
      if (it == task.exec_info.end() || !it->second.should_visit()) continue;
    }
    Pending& pending = *task.pending.try_emplace(next).first;
    variable_list& buffer = pending.buffer;
    if (buffer.size() <= e.input_nr)
      buffer.resize(std::max<size_t>(e.input_nr + 1, next->num_inputs()));
    add_to_buffer(buffer[e.input_nr], std::move(outputs[i]));
    if (--pending.dependencies == 0) {
      heap.push_back({e.function, std::move(buffer)});
      std::push_heap(heap.begin(), heap.end(), ReadyOrder());
    }
  }
}

// The task running on this thread; a hook may run a nested backward, which saves and restores it.
thread_local GraphTask* current_task = nullptr;

struct CurrentTask {
  explicit CurrentTask(GraphTask* t) : prev(current_task) { current_task = t; }
  ~CurrentTask() { current_task = prev; }
  CurrentTask(const CurrentTask&) = delete;
  CurrentTask& operator=(const CurrentTask&) = delete;
  GraphTask* prev;
};

}  // namespace

uint64_t current_graph_task_id() { return current_task ? current_task->id : 0; }

bool will_engine_execute_node(const Node* node) {
  const GraphTask* task = current_task;
  if (task == nullptr)
    throw RuntimeError("will_engine_execute_node should only be called during the backward pass");
  if (node == task->root) return true;
  if (!task->pending.contains(node)) return false;  // not reachable from the roots
  if (task->exec_info.empty()) return true;
  auto it = task->exec_info.find(const_cast<Node*>(node));
  return it != task->exec_info.end() && it->second.should_visit();
}

bool AnomalyMode::is_enabled() { return anomaly_enabled.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool enabled) { anomaly_enabled.store(enabled); }

variable_list Engine::execute(const std::vector<Edge>& roots, variable_list grad_roots,
                              bool keep_graph, bool create_graph, bool accumulate_grad,
                              const std::vector<Edge>& outputs) {
  // Backward records history only under create_graph (Note [Gradient contract] applies to the
  // recorded graph too).
  AutoGradMode grad_mode(create_graph);
  GraphTask task;
  task.id = next_task_id.fetch_add(1, std::memory_order_relaxed);
  task.keep_graph = keep_graph;
  task.create_graph = create_graph;
  task.accumulate_grad = accumulate_grad;
  task.captured.resize(outputs.size());

  auto root = std::make_shared<GraphRoot>(roots, std::move(grad_roots));
  task.root = root.get();
  CurrentTask running(&task);
  compute_dependencies(task, root.get());
  if (!outputs.empty()) {
    compute_exec_info(task, root.get(), outputs);
    // The root is visited whenever something is requested.
    task.exec_info[root.get()].needed = true;
  }

  std::vector<ReadyItem> heap;
  heap.push_back({root, {}});
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), ReadyOrder());
    ReadyItem item = std::move(heap.back());
    heap.pop_back();
    // kept alive for anomaly mode's warning only: no refcount traffic per node otherwise
    std::shared_ptr<Node> node = AnomalyMode::is_enabled() ? item.node : nullptr;
    try {
      evaluate(task, heap, std::move(item));
    } catch (...) {
      if (node) warn_anomaly_error(*node);
      throw;
    }
  }
  return std::move(task.captured);
}

namespace {

std::string element(size_t i, const char* what) {
  return "element " + std::to_string(i) + " of " + what;
}

}  // namespace

variable_list run_backward(const variable_list& tensors, const variable_list& grad_tensors,
                           bool retain_graph, bool create_graph, const variable_list& inputs,
                           bool allow_unused, bool accumulate_grad) {
  if (tensors.empty()) throw RuntimeError("backward: no tensors to differentiate were given");
  if (!grad_tensors.empty() && grad_tensors.size() != tensors.size())
    throw RuntimeError("backward: got " + std::to_string(grad_tensors.size()) + " gradients for " +
                       std::to_string(tensors.size()) + " tensors");
  std::vector<Edge> roots;
  variable_list grads;
  roots.reserve(tensors.size());
  grads.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (!t.defined()) throw RuntimeError(element(i, "tensors") + " is None");
    if (!t.requires_grad())
      throw RuntimeError(element(i, "tensors") +
                         " does not require grad and does not have a grad_fn: it was not "
                         "computed from a tensor with requires_grad=True (or grad mode was "
                         "disabled)");
    Tensor g = i < grad_tensors.size() ? grad_tensors[i] : Tensor();
    if (!g.defined()) {
      if (t.numel() != 1)
        throw RuntimeError("grad can be implicitly created only for scalar outputs: " +
                           element(i, "tensors") + " has shape " + shape_str(t.sizes()) +
                           "; pass gradient= (grad_outputs=) with that shape");
      NoGradGuard no_grad;
      g = kernel::ones_like(t);
    } else {
      if (g.sizes() != t.sizes())
        throw RuntimeError("Mismatch in shape: grad_output[" + std::to_string(i) +
                           "] has a shape of " + size_str(g.sizes()) + " and output[" +
                           std::to_string(i) + "] has a shape of " + size_str(t.sizes()) + ".");
      if (g.dtype() != t.dtype()) {  // bool and int64 too: cast, as torch and the reference
        AutoGradMode mode(create_graph);
        g = grad_cast(g, t.dtype());
      }
    }
    roots.push_back(gradient_edge(t));
    grads.push_back(std::move(g));
  }

  std::vector<Edge> outputs;
  outputs.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    if (!x.defined()) throw RuntimeError(element(i, "inputs") + " is None");
    if (!x.requires_grad())
      throw RuntimeError("One of the differentiated Tensors does not require grad (" +
                         element(i, "inputs") + ")");
    outputs.push_back(gradient_edge(x));
  }
  if (!accumulate_grad && outputs.empty())
    throw RuntimeError("grad requires at least one input to differentiate with respect to");

  variable_list result = Engine::execute(roots, std::move(grads), retain_graph, create_graph,
                                         accumulate_grad, outputs);

  if (accumulate_grad) {
    // backward(inputs=...): non-leaf inputs get their captured grad in .grad as well.
    AutoGradMode mode(create_graph);
    for (size_t i = 0; i < inputs.size(); ++i)
      if (!inputs[i].is_leaf() && result[i].defined())
        accumulate_into_grad(autograd_meta(inputs[i]), result[i]);
    return {};
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (result[i].defined() || allow_unused) continue;
    throw RuntimeError("The differentiated Tensor at index " + std::to_string(i) +
                       " appears to not have been used in the graph. Set allow_unused=True if "
                       "this is the desired behavior.");
  }
  return result;
}

}  // namespace tg::autograd
