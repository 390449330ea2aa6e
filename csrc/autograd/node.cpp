#include "autograd/node.h"

#include <algorithm>

#include "autograd/engine.h"
#include "autograd/variable.h"
#include "kernels/kernels.h"

namespace tg::autograd {

namespace {
std::atomic<uint64_t> sequence_counter{0};
std::atomic<uint64_t> hook_counter{0};
std::atomic<int64_t> live_nodes{0};
std::atomic<AnomalyCapture> anomaly_capture{nullptr};
std::atomic<AnomalyWarn> anomaly_warner{nullptr};
thread_local Node* t_evaluating = nullptr;
}  // namespace

void set_anomaly_capture(AnomalyCapture capture) { anomaly_capture.store(capture); }
void set_anomaly_warn(AnomalyWarn warn) { anomaly_warner.store(warn); }

void anomaly_warn(const std::string& message) {
  if (AnomalyWarn warn = anomaly_warner.load()) warn(message);
}

EvaluatingNode::EvaluatingNode(Node* node) : prev(t_evaluating) { t_evaluating = node; }
EvaluatingNode::~EvaluatingNode() { t_evaluating = prev; }

void Node::record_anomaly() {
  if (!AnomalyMode::is_enabled()) return;
  if (AnomalyCapture capture = anomaly_capture.load()) anomaly_ = capture();
  if (anomaly_ && t_evaluating != nullptr) anomaly_->parent = t_evaluating->weak_from_this().lock();
}

int64_t live_node_count() { return live_nodes.load(std::memory_order_relaxed); }

uint64_t next_sequence_nr() { return sequence_counter.fetch_add(1, std::memory_order_relaxed); }
uint64_t next_hook_id() { return hook_counter.fetch_add(1, std::memory_order_relaxed) + 1; }

std::string format_location(SourceLoc loc) {
  if (loc.path == nullptr) return "";
  return std::string(loc.path) + ":" + std::to_string(loc.line);
}

struct NodeHooks {
  std::mutex mutex;
  std::vector<std::pair<uint64_t, std::pair<uint32_t, TensorHook>>> tensor_pre;
  std::vector<std::pair<uint64_t, PreHook>> pre;
  std::vector<std::pair<uint64_t, PostHook>> post;
  std::vector<std::pair<uint32_t, std::weak_ptr<AutogradMeta>>> retains_grad;
};

Node::Node() : sequence_nr_(next_sequence_nr()) {
  live_nodes.fetch_add(1, std::memory_order_relaxed);
  // Most formulas take one or two tensors: one allocation instead of growing.
  next_edges_.reserve(2);
  record_anomaly();
}
Node::Node(uint64_t sequence_nr) : sequence_nr_(sequence_nr) {
  live_nodes.fetch_add(1, std::memory_order_relaxed);
}

namespace {

// Note [Iterative teardown]: moves each edge into `stack` when it holds the last reference to
// its node; callers free the node's saved variables first (they may hold further references to
// the same nodes through their grad_fn). Edges are released one at a time, in order: when
// several edges lead to one child (`y + y`), the earlier ones only drop a count and the last
// one is found unique and moved, so the child is never destroyed inside edges.clear().
void gather_next_nodes(edge_list& edges, std::vector<std::shared_ptr<Node>>& stack) {
  for (Edge& e : edges) {
    std::shared_ptr<Node> f = std::move(e.function);
    if (f && f.use_count() == 1) stack.push_back(std::move(f));
  }
  edges.clear();
}

}  // namespace

Node::~Node() {
  live_nodes.fetch_sub(1, std::memory_order_relaxed);
  delete hooks_.load(std::memory_order_acquire);
  // The derived part (saved variables) is already destroyed here: the edges usually hold the
  // last references to the next nodes.
  std::vector<std::shared_ptr<Node>> stack;
  gather_next_nodes(next_edges_, stack);
  while (!stack.empty()) {
    std::shared_ptr<Node> n = std::move(stack.back());
    stack.pop_back();
    n->release_variables();
    gather_next_nodes(n->next_edges_, stack);
    // n is destroyed here with no next edges left: no recursion.
  }
}

std::string Node::describe() const {
  std::string loc = format_location(location());
  return loc.empty() ? name() : name() + " (" + loc + ")";
}

namespace {
TensorMeta meta_of(const Tensor& t) {
  TensorMeta m;
  if (t.defined()) {
    m.sizes = t.sizes();
    m.dtype = t.dtype();
    m.defined = true;
  }
  return m;
}
}  // namespace

void Node::add_input_metadata(const Tensor& forward_input) {
  input_metadata_.push_back(meta_of(forward_input));
}

void Node::set_output_metadata(uint32_t output_nr, const Tensor& forward_output) {
  if (output_metadata_.size() <= output_nr) output_metadata_.resize(output_nr + 1);
  output_metadata_[output_nr] = meta_of(forward_output);
}

Tensor Node::zeros_for_grad(uint32_t output_nr) const {
  if (output_nr >= output_metadata_.size() || !output_metadata_[output_nr].defined)
    throw RuntimeError(describe() + ": no metadata for output " + std::to_string(output_nr) +
                       " to materialize its gradient");
  const TensorMeta& m = output_metadata_[output_nr];
  return kernel::full(m.sizes, 0.0, m.dtype);
}

Tensor Node::materialize_grad(const variable_list& grads, uint32_t output_nr) const {
  if (output_nr < grads.size() && grads[output_nr].defined()) return grads[output_nr];
  return zeros_for_grad(output_nr);
}

NodeHooks& Node::hooks() {
  NodeHooks* h = hooks_.load(std::memory_order_acquire);
  if (h) return *h;
  auto* fresh = new NodeHooks();
  if (hooks_.compare_exchange_strong(h, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;
  return *h;
}

uint64_t Node::add_tensor_pre_hook(uint32_t input_nr, TensorHook hook) {
  NodeHooks& h = hooks();
  uint64_t id = next_hook_id();
  std::lock_guard<std::mutex> lock(h.mutex);
  h.tensor_pre.push_back({id, {input_nr, std::move(hook)}});
  return id;
}

uint64_t Node::add_pre_hook(PreHook hook) {
  NodeHooks& h = hooks();
  uint64_t id = next_hook_id();
  std::lock_guard<std::mutex> lock(h.mutex);
  h.pre.push_back({id, std::move(hook)});
  return id;
}

uint64_t Node::add_post_hook(PostHook hook) {
  NodeHooks& h = hooks();
  uint64_t id = next_hook_id();
  std::lock_guard<std::mutex> lock(h.mutex);
  h.post.push_back({id, std::move(hook)});
  return id;
}

void Node::add_retains_grad(uint32_t input_nr, std::weak_ptr<AutogradMeta> meta) {
  NodeHooks& h = hooks();
  std::lock_guard<std::mutex> lock(h.mutex);
  h.retains_grad.push_back({input_nr, std::move(meta)});
}

bool Node::remove_hook(uint64_t id) {
  NodeHooks* h = hooks_.load(std::memory_order_acquire);
  if (!h) return false;
  // Hooks removed here are destroyed after the lock is dropped (a Python hook takes the GIL).
  TensorHook dead_tensor;
  PreHook dead_pre;
  PostHook dead_post;
  {
    std::lock_guard<std::mutex> lock(h->mutex);
    for (auto it = h->tensor_pre.begin(); it != h->tensor_pre.end(); ++it)
      if (it->first == id) {
        dead_tensor = std::move(it->second.second);
        h->tensor_pre.erase(it);
        return true;
      }
    for (auto it = h->pre.begin(); it != h->pre.end(); ++it)
      if (it->first == id) {
        dead_pre = std::move(it->second);
        h->pre.erase(it);
        return true;
      }
    for (auto it = h->post.begin(); it != h->post.end(); ++it)
      if (it->first == id) {
        dead_post = std::move(it->second);
        h->post.erase(it);
        return true;
      }
  }
  return false;
}

void Node::for_each_tensor_pre_hook(const std::function<void(const TensorHook&)>& f) {
  NodeHooks* h = hooks_.load(std::memory_order_acquire);
  if (!h) return;
  std::lock_guard<std::mutex> lock(h->mutex);
  for (auto& entry : h->tensor_pre) f(entry.second.second);
}

Tensor apply_tensor_hook(const TensorHook& hook, const Tensor& grad, const char* where) {
  Tensor r = hook(grad);
  if (!r.defined()) return grad;
  if (grad.defined() && r.sizes() != grad.sizes())
    throw RuntimeError(std::string("hook on ") + where + " returned a gradient of shape " +
                       shape_str(r.sizes()) + " but the gradient has shape " +
                       shape_str(grad.sizes()) + "; a hook must keep the gradient's shape");
  return r;
}

void Node::run_tensor_pre_hooks(variable_list& grads) {
  NodeHooks* h = hooks_.load(std::memory_order_acquire);
  if (!h) return;
  std::vector<std::pair<uint32_t, TensorHook>> hooks;
  {
    std::lock_guard<std::mutex> lock(h->mutex);
    for (auto& entry : h->tensor_pre) hooks.push_back(entry.second);
  }
  std::string where = "the gradient of an output of " + describe();
  // As torch's, a hook also runs for an output whose grad nobody produced (it sees None:
  // Note [Several views, one node]).
  for (auto& [nr, hook] : hooks) {
    if (nr >= grads.size()) continue;
    grads[nr] = apply_tensor_hook(hook, grads[nr], where.c_str());
  }
}

void Node::run_retains_grad(const variable_list& grads) {
  NodeHooks* h = hooks_.load(std::memory_order_acquire);
  if (!h) return;
  std::vector<std::pair<uint32_t, std::shared_ptr<AutogradMeta>>> metas;
  {
    std::lock_guard<std::mutex> lock(h->mutex);
    for (auto& [nr, weak] : h->retains_grad)
      if (auto m = weak.lock()) metas.push_back({nr, std::move(m)});
  }
  for (auto& [nr, meta] : metas) {
    if (nr >= grads.size() || !grads[nr].defined()) continue;
    accumulate_into_grad(*meta, grads[nr]);
  }
}

void Node::run_pre_hooks(variable_list& grads) {
  NodeHooks* h = hooks_.load(std::memory_order_acquire);
  if (!h) return;
  std::vector<PreHook> hooks;
  {
    std::lock_guard<std::mutex> lock(h->mutex);
    for (auto& entry : h->pre) hooks.push_back(entry.second);
  }
  for (auto& hook : hooks) {
    variable_list r = hook(grads);
    if (r.empty()) continue;
    if (r.size() != grads.size())
      throw RuntimeError("pre-hook of " + describe() + " returned " + std::to_string(r.size()) +
                         " gradients, expected " + std::to_string(grads.size()));
    grads = std::move(r);
  }
}

void Node::run_post_hooks(variable_list& grad_inputs, const variable_list& grad_outputs) {
  NodeHooks* h = hooks_.load(std::memory_order_acquire);
  if (!h) return;
  std::vector<PostHook> hooks;
  {
    std::lock_guard<std::mutex> lock(h->mutex);
    for (auto& entry : h->post) hooks.push_back(entry.second);
  }
  for (auto& hook : hooks) {
    variable_list r = hook(grad_inputs, grad_outputs);
    if (r.empty()) continue;
    if (r.size() != grad_inputs.size())
      throw RuntimeError("hook of " + describe() + " returned " + std::to_string(r.size()) +
                         " gradients, expected " + std::to_string(grad_inputs.size()));
    grad_inputs = std::move(r);
  }
}

}  // namespace tg::autograd
