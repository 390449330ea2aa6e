#include "autograd/function.h"

#include "autograd/saved_variable.h"
#include "autograd/variable.h"
#include "kernels/kernels.h"

namespace tg::autograd {

bool any_requires_grad(std::initializer_list<const Tensor*> inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor* t : inputs)
    if (t != nullptr && t->defined() && t->requires_grad()) return true;
  return false;
}

bool any_requires_grad(const std::vector<Tensor>& inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

void collect_next_edges(Node& node, const Tensor& input) {
  node.next_edges().push_back(gradient_edge(input));
  node.add_input_metadata(input);
}

void collect_next_edges(Node& node, const std::vector<Tensor>& inputs) {
  for (const Tensor& t : inputs) collect_next_edges(node, t);
}

void set_history(Tensor& output, const std::shared_ptr<Node>& node, uint32_t output_nr) {
  if (!output.defined()) return;
  node->set_output_metadata(output_nr, output);
  if (!is_floating(output.dtype())) return;  // integer/bool outputs are never differentiable
  AutogradMeta& m = autograd_meta(output);
  m.grad_fn = node;
  m.output_nr = output_nr;
  m.requires_grad = false;
}

namespace {
[[noreturn]] void throw_once_differentiable(const std::string& described) {
  throw RuntimeError(
      "trying to differentiate twice a function that was marked with "
      "@once_differentiable (or @formula(once_differentiable=True)): " +
      described +
      " computes its backward without recording it, so that backward has no "
      "gradient. To support double backward, write the backward with "
      "differentiable ops (ops.* instead of kernel.* in a formula).");
}
}  // namespace

void throw_double_backward_once_differentiable(const Node& node) {
  throw_once_differentiable(node.describe());
}

namespace {

// The grad_fn given to results of a once_differentiable backward under create_graph.
struct OnceDifferentiableBackward final : Node {
  void input_metadata_from(const Node& other, size_t i) {
    input_metadata_.push_back(other.input_metadata()[i]);
  }
  std::string origin_;       // the once_differentiable node, described (it may be gone)
  std::string origin_path_;  // owned copy: a Python Function's location dies with its node
  int origin_line_ = 0;
  std::string name() const override { return "OnceDifferentiableBackward"; }
  SourceLoc location() const override {
    return origin_path_.empty() ? SourceLoc{nullptr, 0}
                                : SourceLoc{origin_path_.c_str(), origin_line_};
  }
  variable_list apply(variable_list&&) override { throw_once_differentiable(origin_); }
};

// torch's Error node (torch/csrc/autograd/functions/basic_ops.h): its next edges lead to
// fresh leaves aliasing the results, so it is reached only from the results themselves.
struct DelayedErrorBackward final : Node {
  std::string origin_;  // the once_differentiable node, described (it may be gone)
  std::string name() const override { return "Error"; }
  variable_list apply(variable_list&&) override { throw_once_differentiable(origin_); }
};

// Nodes for the engine's own differentiable operations. Their backwards are themselves made of
// these operations, so any order of derivative is recorded. Each is named as the node torch
// records for the same operation (sum_to is a sum over dims, a cast is _to_copy).
constexpr SourceLoc kEngineLoc{nullptr, 0};

struct GradAddBackward final : Node {
  std::string name() const override { return "AddBackward0"; }
  SourceLoc location() const override { return kEngineLoc; }
  variable_list apply(variable_list&& grads) override { return {grads[0], grads[0]}; }
};

struct GradSumToBackward final : Node {
  Shape input_shape_;
  std::string name() const override { return "SumBackward1"; }
  variable_list apply(variable_list&& grads) override {
    if (!grads[0].defined()) return {Tensor()};
    return {grad_expand(grads[0], input_shape_)};
  }
};

struct GradExpandBackward final : Node {
  Shape input_shape_;
  std::string name() const override { return "ExpandBackward0"; }
  variable_list apply(variable_list&& grads) override {
    if (!grads[0].defined()) return {Tensor()};
    return {grad_sum_to(grads[0], input_shape_)};
  }
};

struct GradCastBackward final : Node {
  DType input_dtype_ = DType::Float32;
  std::string name() const override { return "ToCopyBackward0"; }
  variable_list apply(variable_list&& grads) override {
    if (!grads[0].defined()) return {Tensor()};
    return {grad_cast(grads[0], input_dtype_)};
  }
};

}  // namespace

void wrap_once_differentiable(const Node& node, const variable_list& sources,
                              variable_list& results) {
  if (!GradMode::is_enabled()) return;
  // The results depend on the grads and on what the node saved from its inputs: when one of
  // them requires grad, a double backward would need this backward's derivative.
  bool inputs_require_grad = false;
  for (const Edge& e : node.next_edges()) inputs_require_grad = inputs_require_grad || e.valid();
  if (!inputs_require_grad && !any_requires_grad(sources)) return;
  auto err = make_node<OnceDifferentiableBackward>();
  err->origin_ = node.describe();
  SourceLoc loc = node.location();
  if (loc.path != nullptr) {
    err->origin_path_ = loc.path;
    err->origin_line_ = loc.line;
  }
  collect_next_edges(*err, sources);
  // Edges to the node's inputs too, so that autograd.grad's pruning reaches the error.
  for (size_t i = 0; i < node.next_edges().size(); ++i) {
    err->next_edges().push_back(node.next_edge(i));
    err->input_metadata_from(node, i);
  }
  uint32_t nr = 0;
  for (Tensor& r : results) {
    if (!r.defined() || !is_floating(r.dtype())) continue;
    r = detach(r);
    set_history(r, err, nr++);
  }
}

void wrap_delayed_error(const Node& node, const variable_list& grads, variable_list& results) {
  if (!any_requires_grad(grads)) return;
  auto err = make_node<DelayedErrorBackward>();
  err->origin_ = node.describe();
  for (const Tensor& r : results) {
    if (!r.defined() || !is_floating(r.dtype())) {
      collect_next_edges(*err, Tensor());
      continue;
    }
    Tensor leaf = detach(r);
    autograd_meta(leaf).requires_grad = true;
    collect_next_edges(*err, leaf);
  }
  for (uint32_t i = 0; i < results.size(); ++i) {
    Tensor& r = results[i];
    if (!r.defined() || !is_floating(r.dtype())) continue;
    r = detach(r);
    set_history(r, err, i);
  }
}

Tensor grad_add(const Tensor& a, const Tensor& b) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = kernel::add(a, b);
  }
  if (any_requires_grad({&a, &b})) {
    auto node = make_node<GradAddBackward>();
    collect_next_edges(*node, a);
    collect_next_edges(*node, b);
    set_history(out, node, 0);
  }
  return out;
}

Tensor grad_sum_to(const Tensor& g, const Shape& shape) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = kernel::sum_to(g, shape);
  }
  if (any_requires_grad({&g})) {
    auto node = make_node<GradSumToBackward>();
    node->input_shape_ = g.sizes();
    collect_next_edges(*node, g);
    set_history(out, node, 0);
  }
  return out;
}

Tensor grad_expand(const Tensor& g, const Shape& shape) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = kernel::expand(g, shape);
  }
  if (any_requires_grad({&g})) {
    auto node = make_node<GradExpandBackward>();
    node->input_shape_ = g.sizes();
    collect_next_edges(*node, g);
    set_history(out, node, 0);
  }
  return out;
}

Tensor grad_cast(const Tensor& g, DType dtype) {
  if (g.dtype() == dtype) return g;
  Tensor out;
  {
    NoGradGuard no_grad;
    out = kernel::cast(g, dtype);
  }
  if (any_requires_grad({&g}) && is_floating(g.dtype())) {
    auto node = make_node<GradCastBackward>();
    node->input_dtype_ = g.dtype();
    collect_next_edges(*node, g);
    set_history(out, node, 0);
  }
  return out;
}

bool broadcastable_to(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != to[lead + i] && from[i] != 1) return false;
  return true;
}

}  // namespace tg::autograd
