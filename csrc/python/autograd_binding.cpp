// Autograd entry points of _C: backward/grad (run with the GIL released), grad mode, hooks,
// grad_fn objects (_C.Node), and the C++ side of Python custom Functions.
//
// Note [GIL in backward]
// run_backward converts its arguments, then releases the GIL for the whole GraphTask. Only
// Python hooks and Python Functions take it back (PyObjectRef and the hook wrappers below never
// touch a refcount without it), so other Python threads run, and may run backward themselves,
// while a backward is in progress.
#include <pybind11/stl.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/multi_view.h"
#include "python/common.h"

namespace tg::python {

using namespace tg::autograd;

namespace {

// Returned by every register_hook; remove() unregisters.
struct RemovableHandle {
  std::function<void()> remover;
  void remove() {
    if (remover) {
      auto r = std::move(remover);
      remover = nullptr;
      r();
    }
  }
};

Tensor tensor_or_undefined(py::handle obj, const char* what) {
  if (obj.is_none()) return Tensor();
  if (!py::isinstance<Tensor>(obj))
    throw TypeError(std::string(what) + " must be a Tensor or None, got " +
                    py::str(py::type::of(obj)).cast<std::string>());
  return obj.cast<Tensor>();
}

variable_list tensor_list(py::handle obj, const char* what, bool allow_none) {
  variable_list out;
  if (obj.is_none()) return out;
  if (py::isinstance<Tensor>(obj)) {
    out.push_back(obj.cast<Tensor>());
    return out;
  }
  for (py::handle item : py::reinterpret_borrow<py::iterable>(obj)) {
    if (item.is_none() && allow_none) {
      out.emplace_back();
      continue;
    }
    out.push_back(tensor_or_undefined(item, what));
    if (!out.back().defined())
      throw TypeError(std::string(what) + " must contain Tensors, got None");
  }
  return out;
}

py::object to_py(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }

// (sizes, dtype name) of a forward tensor a node recorded, None for an undefined one: read-only
// introspection for transgrad.autograd.graph.to_dot.
py::object meta_to_py(const TensorMeta& m) {
  if (!m.defined) return py::none();
  py::tuple sizes(m.sizes.size());
  for (size_t i = 0; i < m.sizes.size(); ++i) sizes[i] = m.sizes[i];
  return py::make_tuple(sizes, dtype_name(m.dtype));
}

py::tuple to_py_tuple(const variable_list& ts) {
  py::tuple out(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) out[i] = to_py(ts[i]);
  return out;
}

variable_list grads_from_py(py::handle result, const char* what) {
  variable_list out;
  if (result.is_none()) return out;
  if (py::isinstance<Tensor>(result)) return {result.cast<Tensor>()};
  for (py::handle item : py::reinterpret_borrow<py::iterable>(result))
    out.push_back(tensor_or_undefined(item, what));
  return out;
}

// Python hooks on a tensor's gradient, and post-accumulate hooks on a leaf: named types, so the
// GC support below finds the Python callable inside the std::function (target<T>()).
struct PyTensorHook {
  PyObjectRef ref;
  Tensor operator()(const Tensor& grad) const {
    AcquireGil gil;
    py::object r = call_or_park(ref.get(), to_py(grad));  // None for an undefined grad
    Tensor out = tensor_or_undefined(r, "a hook's return value");
    if (out.defined() && !grad.defined())
      throw RuntimeError("can't replace a None gradient with a non-None value");
    if (out.defined() && grad.defined() && out.sizes() != grad.sizes())
      // torch's words first (as the reference engine's _call_hooks)
      throw RuntimeError(
          "hook '" +
          py::str(py::getattr(ref.object(), "__name__", py::str("?"))).cast<std::string>() +
          "' has changed the size of value: it returned a gradient of shape " +
          shape_str(out.sizes()) + " for a gradient of shape " + shape_str(grad.sizes()) +
          "; a hook must keep the gradient's shape");
    return out;
  }
};
struct PyLeafHook {
  PyObjectRef ref;
  void operator()(const Tensor& leaf) const {
    AcquireGil gil;
    if (!call_or_park(ref.get(), leaf).is_none())
      throw RuntimeError("Tensor post accumulate grad hooks should return None.");
  }
};

TensorHook py_tensor_hook(py::function fn) { return PyTensorHook{PyObjectRef(std::move(fn))}; }

// autograd.graph.saved_tensors_hooks on the compiled engine (Note [Saved tensor hooks] in
// csrc/autograd/saved_variable.h): the Python pack/unpack functions behind the C++ interfaces.
struct PyPackedTensor final : PackedTensor {
  PyObjectRef unpack_hook, packed;
  Tensor unpack() const override {
    AcquireGil gil;
    py::object r = call_or_park(unpack_hook.get(), packed.get());
    if (!py::isinstance<Tensor>(r))
      throw TypeError(
          "Output of saved tensor unpack_hook expected to be a Tensor but got result "
          "of type " +
          py::str(py::type::of(r).attr("__name__")).cast<std::string>());
    return r.cast<Tensor>();
  }
};
struct PySavedTensorHooks final : SavedTensorHooks {
  PyObjectRef pack_hook, unpack_hook;
  std::shared_ptr<PackedTensor> pack(const Tensor& t) const override {
    AcquireGil gil;
    auto packed = std::make_shared<PyPackedTensor>();
    packed->packed = PyObjectRef(call_or_park(pack_hook.get(), t));
    packed->unpack_hook = unpack_hook;
    return packed;
  }
};

// grad_fn._saved_<name> / _raw_saved_<name> (Note [Saved slots by name] in autograd/node.h):
// the formula's name for a saved tensor; "self" also names the first parameter, as torch's.
SavedVariable* saved_slot(Node& n, const std::string& key) {
  Node::SavedSlots slots = n.saved_slots();
  for (const auto& [name, sv] : slots)
    if (key == name) return sv;
  return nullptr;
}

// What _raw_saved_<name> gives: torch's SavedTensor, holding its node alive.
struct RawSavedTensor {
  std::shared_ptr<Node> node;
  SavedVariable* saved;
};

py::object node_getattr(const std::shared_ptr<Node>& n, const std::string& attr) {
  const bool raw = attr.rfind("_raw_saved_", 0) == 0;
  if (raw || attr.rfind("_saved_", 0) == 0) {
    if (SavedVariable* sv = saved_slot(*n, attr.substr(raw ? 11 : 7))) {
      if (raw) return py::cast(RawSavedTensor{n, sv});
      if (!sv->defined()) return py::none();
      return py::cast(sv->unpack(n));
    }
  }
  throw py::attribute_error("'" + n->name() + "' object has no attribute '" + attr + "'");
}

// Node.metadata: a dict per node, kept on the C++ node (Node::py_metadata) so it outlives the
// Python wrapper object, as torch's.
py::dict node_metadata(Node& n) {
  if (!n.py_metadata) {
    py::dict d;
    n.py_metadata = std::shared_ptr<void>(
        d.release().ptr(), [](void* p) { gil_safe_decref(static_cast<PyObject*>(p)); });
  }
  return py::reinterpret_borrow<py::dict>(static_cast<PyObject*>(n.py_metadata.get()));
}

// Note [Final callbacks]
// ~~~~~~~~~~~~~~~~~~~~~~
// Variable._execution_engine.queue_callback(cb), as torch's: cb runs once the backward that is
// running has gone through its graph, before that backward returns, in the order queued (a
// callback may queue another, which runs too). Each run_backward_py owns a list, on a
// thread-local stack whose top is the innermost backward of the thread (a re-entrant backward
// has its own list: its callbacks run when it ends, not the outer one). The lists are touched
// only with the GIL.
//
// Note [Deep re-entrant backward]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A Function's backward or a hook may run a backward itself; each level nests the Python and C
// stacks of the one below, and a few hundred levels exhaust Python's recursion limit. torch
// runs a re-entrant backward past a depth on another thread, with a stack of its own; so does
// run_backward_py: past kReentrantDepth nested backwards on one thread, the next runs on a new
// std::thread (a fresh Python thread state, so a fresh recursion count, and a fresh C stack)
// while the caller waits without the GIL. The new thread takes the caller's grad mode,
// saved-tensor hooks and callback list, and its exception is re-thrown on the caller's.
constexpr int kReentrantDepth = 32;
thread_local int t_backward_depth = 0;
thread_local std::vector<PyObject*> t_final_callbacks;

struct BackwardFrame {
  explicit BackwardFrame(PyObject* callbacks) {
    ++t_backward_depth;
    t_final_callbacks.push_back(callbacks);
  }
  ~BackwardFrame() {
    --t_backward_depth;
    t_final_callbacks.pop_back();
  }
  BackwardFrame(const BackwardFrame&) = delete;
  BackwardFrame& operator=(const BackwardFrame&) = delete;
};

void queue_callback(py::function callback) {
  if (t_final_callbacks.empty())
    throw RuntimeError("Final callbacks can only be installed during backward pass.");
  py::reinterpret_borrow<py::list>(t_final_callbacks.back()).append(std::move(callback));
}

py::object run_backward_py(py::object tensors, py::object grad_tensors, py::object retain_graph,
                           bool create_graph, py::object inputs, bool allow_unused,
                           bool accumulate_grad) {
  variable_list ts = tensor_list(tensors, "tensors", false);
  variable_list gs = tensor_list(grad_tensors, "grad_tensors", true);
  variable_list xs = tensor_list(inputs, "inputs", false);
  bool keep = retain_graph.is_none() ? create_graph : retain_graph.cast<bool>();
  py::list callbacks;
  variable_list result;
  // Runs without the GIL; the callbacks take it (Note [Final callbacks]).
  auto run_task = [&] {
    BackwardFrame frame(callbacks.ptr());
    result = run_backward(ts, gs, keep, create_graph, xs, allow_unused, accumulate_grad);
    AcquireGil gil;
    for (size_t i = 0; i < callbacks.size(); ++i) call_or_park(callbacks[i]);
  };
  {
    ReleaseGil no_gil;  // Note [Re-taking the GIL at exit]
    if (t_backward_depth < kReentrantDepth) {
      run_task();
    } else {  // Note [Deep re-entrant backward]
      std::exception_ptr error;
      std::vector<SavedTensorHooksEntry> hooks = saved_tensor_hooks_state();
      bool grad_mode = GradMode::is_enabled();
      std::thread worker([&] {
        try {
          set_saved_tensor_hooks_state(std::move(hooks));
          GradMode::set_enabled(grad_mode);
          run_task();
        } catch (...) {
          error = std::current_exception();
        }
      });
      worker.join();
      if (error) std::rethrow_exception(error);
    }
  }
  if (accumulate_grad) return py::none();
  return to_py_tuple(result);
}

// ---- Python custom Functions ----------------------------------------------------------------

struct PyFunctionNode;

// The ctx object of a Python Function. It holds its node weakly (the node owns the ctx).
struct FunctionCtx {
  std::weak_ptr<PyFunctionNode> node;
  variable_list to_save;  // saved before the node exists (and when no graph is recorded)
  variable_list dirty;
  variable_list non_differentiable;
  bool materialize_grads = true;
  bool recorded = false;
};

struct PyFunctionNode final : Node {
  PyObjectRef backward_;  // callable(ctx, *grads) -> one grad per forward argument
  PyObjectRef ctx_;
  std::string name_;
  std::string path_;
  int line_ = 0;
  bool materialize_ = true;
  std::vector<SavedVariable> saved_;

  std::string name() const override { return name_; }
  SourceLoc location() const override {
    return path_.empty() ? SourceLoc{nullptr, 0} : SourceLoc{path_.c_str(), line_};
  }
  void release_variables() override {
    for (auto& s : saved_) s.reset();
  }
  variable_list apply(variable_list&& grads) override {
    AcquireGil gil;
    py::tuple args(grads.size() + 1);
    args[0] = ctx_.object();
    for (size_t i = 0; i < grads.size(); ++i) {
      Tensor g = grads[i];
      if (!g.defined() && materialize_ && i < num_inputs() && output_metadata(i).defined)
        g = zeros_for_grad(static_cast<uint32_t>(i));
      args[i + 1] = to_py(g);
    }
    py::object r = call_tuple_or_park(backward_.get(), args);
    variable_list out = grads_from_py(r, "a gradient returned by backward");
    // Extra trailing Nones (for non-tensor arguments) are allowed.
    while (out.size() > num_outputs() && !out.back().defined()) out.pop_back();
    return out;
  }
};

bool contains_same(const variable_list& ts, const Tensor& t) {
  for (const Tensor& x : ts)
    if (x.defined() && x.is_same(t)) return true;
  return false;
}

// Wires the outputs of Function.forward (run under no_grad) into the graph.
py::object function_apply(py::object backward, py::object ctx_obj, py::sequence args,
                          py::object outputs, const std::string& name, const std::string& path,
                          int line) {
  FunctionCtx& ctx = ctx_obj.cast<FunctionCtx&>();
  variable_list inputs;
  for (py::handle a : args)
    inputs.push_back(py::isinstance<Tensor>(a) ? a.cast<Tensor>() : Tensor());
  bool record = any_requires_grad(inputs);
  for (Tensor d : ctx.dirty) {
    if (record && d.is_leaf() && d.requires_grad())
      throw RuntimeError(  // torch's words for a dirty leaf (not the in-place op's "is being")
          "a leaf Variable that requires grad has been used in an in-place operation.");
    d.bump_version();
  }
  if (!record) return outputs;

  bool is_tuple = py::isinstance<py::tuple>(outputs);
  py::list outs;
  if (is_tuple) {
    for (py::handle o : outputs) outs.append(o);
  } else {
    outs.append(outputs);
  }

  auto node = std::make_shared<PyFunctionNode>();
  node->name_ = name;
  node->path_ = path;
  node->line_ = line;
  node->materialize_ = ctx.materialize_grads;
  for (const Tensor& t : inputs) collect_next_edges(*node, t);

  variable_list originals(outs.size()), wired(outs.size());
  // backward receives one grad per output (None for non-tensors and non-differentiable ones).
  if (!outs.empty()) node->set_output_metadata(static_cast<uint32_t>(outs.size() - 1), Tensor());
  for (size_t i = 0; i < outs.size(); ++i) {
    py::handle o = outs[i];
    auto nr = static_cast<uint32_t>(i);
    if (!py::isinstance<Tensor>(o)) continue;
    Tensor t = o.cast<Tensor>();
    originals[i] = t;
    if (contains_same(ctx.non_differentiable, t) || !is_floating(t.dtype())) {
      node->set_output_metadata(nr, t);  // materialized as zeros for backward
      continue;
    }
    // One tensor returned twice is one output object, as torch: the later position takes the
    // history (its output_nr), the earlier one sees the same object.
    size_t seen = i;
    for (size_t j = 0; j < i; ++j)
      if (originals[j].defined() && wired[j].defined() && originals[j].is_same(t)) seen = j;
    if (seen != i) {
      set_history(wired[seen], node, nr);
      wired[i] = wired[seen];
      outs[i] = outs[seen];
      continue;
    }
    if (contains_same(ctx.dirty, t)) {
      set_history(t, node, nr);  // rebase: the same tensor (and Python object) gets the history
      wired[i] = t;
      continue;
    }
    t = detach(t);
    set_history(t, node, nr);
    wired[i] = t;
    outs[i] = py::cast(t);
  }
  for (const Tensor& s : ctx.to_save) {
    bool is_output = false;
    Tensor saved = s;
    for (size_t i = 0; i < originals.size(); ++i)
      if (s.defined() && originals[i].defined() && wired[i].defined() && originals[i].is_same(s)) {
        saved = wired[i];
        is_output = true;
      }
    node->saved_.emplace_back(saved, is_output);
  }
  ctx.to_save.clear();
  ctx.dirty.clear();
  ctx.non_differentiable.clear();
  ctx.recorded = true;
  ctx.node = node;
  node->backward_ = PyObjectRef(std::move(backward));
  node->ctx_ = PyObjectRef(ctx_obj);
  if (is_tuple) return py::tuple(outs);
  return outs[0];
}

}  // namespace

// Note [Tensors in Python's GC]
// A hook that captures its own tensor (`y.register_hook(lambda g: g * y)`), or a Function's ctx
// holding its output, is a cycle through C++: Python object -> TensorImpl -> AutogradMeta or
// grad_fn -> hook -> closure -> the Python object. The Tensor type therefore takes part in
// Python's GC (tp_traverse/tp_clear, set up in tensor_binding.cpp). Traversal visits the Python
// objects held by the tensor's hooks, its leaf's post-accumulate hooks, and its grad_fn's hooks
// and Function ctx/backward, but only while this Python object owns them alone: the TensorImpl,
// its AutogradMeta and the grad_fn each have no other owner (use_count 1), as torch visits only
// what a uniquely owned tensor holds. A visit must stand for a reference this object really
// holds, else the collector would free live objects; anything shared with the C++ graph (an
// edge of a later node, a saved tensor) is therefore not visited, and is freed when the graph is.
int visit_owned_python_objects(const Tensor& t, visitproc visit, void* arg) {
  if (!t.defined() || t.impl().use_count() != 1) return 0;
  const std::shared_ptr<AutogradMeta>& meta = t.unsafe_impl()->autograd_meta;
  if (!meta || meta.use_count() != 1) return 0;
  std::vector<PyObject*> owned;
  {
    std::lock_guard<std::mutex> lock(meta->mutex);
    for (auto& entry : meta->hooks)
      if (auto* h = entry.second.target<PyTensorHook>()) owned.push_back(h->ref.get().ptr());
    for (auto& entry : meta->post_acc_hooks)
      if (auto* h = entry.second.target<PyLeafHook>()) owned.push_back(h->ref.get().ptr());
  }
  if (meta->grad_fn && meta->grad_fn.use_count() == 1) {
    meta->grad_fn->for_each_tensor_pre_hook([&](const TensorHook& hook) {
      if (auto* h = hook.target<PyTensorHook>()) owned.push_back(h->ref.get().ptr());
    });
    if (auto* f = dynamic_cast<PyFunctionNode*>(meta->grad_fn.get())) {
      owned.push_back(f->ctx_.get().ptr());
      owned.push_back(f->backward_.get().ptr());
    }
  }
  for (PyObject* o : owned) Py_VISIT(o);
  return 0;
}

namespace {

py::tuple saved_tensors(FunctionCtx& ctx) {
  if (!ctx.recorded) return to_py_tuple(ctx.to_save);
  auto node = ctx.node.lock();
  if (!node)
    throw RuntimeError(
        "the saved tensors of this Function are no longer available (its graph "
        "was freed)");
  variable_list out;
  for (const auto& s : node->saved_) out.push_back(s.unpack(std::static_pointer_cast<Node>(node)));
  return to_py_tuple(out);
}

py::object once_differentiable_wrap(FunctionCtx& ctx, py::object sources, py::object results) {
  auto node = ctx.node.lock();
  if (!node) return results;
  variable_list gs = grads_from_py(sources, "a gradient");
  bool single = results.is_none() || py::isinstance<Tensor>(results);
  variable_list rs = grads_from_py(results, "a gradient returned by backward");
  wrap_delayed_error(*node, gs, rs);
  if (single) return rs.empty() ? py::none() : to_py(rs[0]);
  return to_py_tuple(rs);
}

}  // namespace

// Note [Node classes named as torch's]
// torch's grad_fn is an instance of a class per node (`type(y.grad_fn).__name__ ==
// "MulBackward0"`, printed `<MulBackward0 object at 0x...>`); the reference engine makes those
// classes in Python (reference/formula.py). The C++ nodes are one pybind11 type, _C.Node, so
// every conversion of a node to Python goes through node_object, which gives a fresh Python
// object the empty subclass of _C.Node named as the node (made once per name; `__slots__ = ()`,
// so its layout is _C.Node's and `__class__` may be assigned; `__module__` "builtins" as
// torch's). pybind11 returns the live object of a node while it lives, so this runs once per
// object; methods resolve through the base class.
py::object node_object(const std::shared_ptr<Node>& node) {
  if (!node) return py::none();
  py::object obj = py::cast(node);
  static PyTypeObject* base = reinterpret_cast<PyTypeObject*>(py::type::of<Node>().ptr());
  if (Py_TYPE(obj.ptr()) != base) return obj;  // already named
  // Leaked: the classes live as long as the interpreter, and no destructor runs after it.
  static auto* classes = new py::dict();
  std::string name = node->name();
  py::str key(name);
  py::object cls;
  if (classes->contains(key)) {
    cls = (*classes)[key];
  } else {
    py::dict ns;
    ns["__slots__"] = py::tuple();
    ns["__module__"] = py::str("builtins");
    cls = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&PyType_Type))(
        key, py::make_tuple(py::handle(reinterpret_cast<PyObject*>(base))), ns);
    (*classes)[key] = cls;
  }
  obj.attr("__class__") = cls;
  return obj;
}

void init_autograd(py::module_& m) {
  py::class_<RemovableHandle>(m, "RemovableHandle")
      .def("remove", &RemovableHandle::remove)
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](RemovableHandle& h, py::args) { h.remove(); });

  py::class_<Node, std::shared_ptr<Node>>(m, "Node", py::dynamic_attr())
      .def("name", &Node::name)
      .def("__call__",
           // grad_fn(*grad_outputs), as torch's: one argument per forward output; the
           // gradients for the inputs (one alone, else a tuple; None for none)
           [](Node& n, py::args args) -> py::object {
             if (args.size() != n.num_inputs())
               throw TypeError("expected " + std::to_string(n.num_inputs()) + " arguments, got " +
                               std::to_string(args.size()) + " instead");
             variable_list grads;
             for (py::handle a : args) grads.push_back(a.is_none() ? Tensor() : a.cast<Tensor>());
             variable_list out = n.apply(std::move(grads));
             // as the engine: no gradient for an input that does not require grad
             for (size_t i = 0; i < out.size() && i < n.next_edges().size(); ++i)
               if (!n.next_edges()[i].valid()) out[i] = Tensor();
             if (out.size() == 1) return out[0].defined() ? py::cast(out[0]) : py::none();
             return to_py_tuple(out);
           })
      .def_property_readonly("next_functions",
                             [](const Node& n) {
                               py::tuple out(n.next_edges().size());
                               for (size_t i = 0; i < n.next_edges().size(); ++i) {
                                 const Edge& e = n.next_edges()[i];
                                 out[i] = py::make_tuple(node_object(e.function), e.input_nr);
                               }
                               return out;
                             })
      .def_property_readonly("location",
                             [](const Node& n) -> py::object {
                               std::string loc = format_location(n.location());
                               return loc.empty() ? py::object(py::none()) : py::str(loc);
                             })
      .def_property_readonly("variable",
                             [](const Node& n) -> py::object {
                               if (auto* acc = dynamic_cast<const AccumulateGrad*>(&n))
                                 return py::cast(acc->variable);
                               throw py::attribute_error(n.name() + " has no attribute 'variable'");
                             })
      .def("_sequence_nr", &Node::sequence_nr)
      .def_property_readonly("metadata", &node_metadata)
      .def("__getattr__", &node_getattr)
      .def_property_readonly("_input_metadata",  // one per next edge: the forward inputs
                             [](const Node& n) {
                               py::tuple out(n.input_metadata().size());
                               for (size_t i = 0; i < n.input_metadata().size(); ++i)
                                 out[i] = meta_to_py(n.input_metadata()[i]);
                               return out;
                             })
      .def_property_readonly("_output_metadata",  // one per output: the forward outputs
                             [](const Node& n) {
                               py::tuple out(n.num_inputs());
                               for (uint32_t i = 0; i < n.num_inputs(); ++i)
                                 out[i] = meta_to_py(n.output_metadata(i));
                               return out;
                             })
      .def_property_readonly("_has_hooks", &Node::has_hooks)
      .def(
          "register_hook",
          [](Node& n, py::object fn) {  // any object, as torch's (called when the node runs)
            PyObjectRef ref(std::move(fn));
            uint64_t id = n.add_post_hook(
                [ref](const variable_list& grad_inputs, const variable_list& grad_outputs) {
                  AcquireGil gil;
                  py::object r =
                      call_or_park(ref.get(), to_py_tuple(grad_inputs), to_py_tuple(grad_outputs));
                  if (r.is_none()) return variable_list();
                  return grads_from_py(r, "a node hook's return value");
                });
            std::weak_ptr<Node> weak = n.shared_from_this();
            return RemovableHandle{[weak, id] {
              if (auto node = weak.lock()) node->remove_hook(id);
            }};
          },
          py::arg("fn"),
          "hook(grad_inputs, grad_outputs) runs after the node; may return new grad_inputs.")
      .def(
          "register_prehook",
          [](Node& n, py::object fn) {
            PyObjectRef ref(std::move(fn));
            uint64_t id = n.add_pre_hook([ref](const variable_list& grad_outputs) {
              AcquireGil gil;
              py::object r = call_or_park(ref.get(), to_py_tuple(grad_outputs));
              if (r.is_none()) return variable_list();
              return grads_from_py(r, "a node pre-hook's return value");
            });
            std::weak_ptr<Node> weak = n.shared_from_this();
            return RemovableHandle{[weak, id] {
              if (auto node = weak.lock()) node->remove_hook(id);
            }};
          },
          py::arg("fn"), "hook(grad_outputs) runs before the node; may return new grad_outputs.")
      .def("__repr__",
           [](py::handle self) {  // torch's form; the formula's path:line is `.location`
             char address[32];
             std::snprintf(address, sizeof address, "%p", static_cast<void*>(self.ptr()));
             return "<" + self.cast<const Node&>().name() + " object at " + address + ">";
           });

  auto tensor_cls = py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor"));
  tensor_cls
      .def(
          "backward",
          [](const Tensor& self, py::object gradient, py::object retain_graph, bool create_graph,
             py::object inputs) {
            py::list gs;
            gs.append(gradient);
            run_backward_py(py::cast(self), gs, retain_graph, create_graph, inputs, false, true);
          },
          py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(),
          py::arg("create_graph") = false, py::arg("inputs") = py::none())
      .def("register_hook",
           [](const Tensor& self, py::function fn) {
             uint64_t id = register_hook(self, py_tensor_hook(std::move(fn)));
             std::weak_ptr<AutogradMeta> meta = autograd_meta_shared(self);
             std::weak_ptr<Node> node = self.grad_fn();
             return RemovableHandle{[meta, node, id] {
               if (auto n = node.lock())
                 if (n->remove_hook(id)) return;
               if (auto mm = meta.lock()) remove_hook(*mm, id);
             }};
           })
      .def(
          "register_post_accumulate_grad_hook",
          [](const Tensor& self, py::function fn) {
            uint64_t id =
                register_post_accumulate_grad_hook(self, PyLeafHook{PyObjectRef(std::move(fn))});
            std::weak_ptr<AutogradMeta> meta = autograd_meta_shared(self);
            return RemovableHandle{[meta, id] {
              if (auto mm = meta.lock()) remove_hook(*mm, id);
            }};
          },
          "hook(tensor) runs after the leaf's .grad was accumulated in backward.");

  py::class_<RawSavedTensor>(m, "SavedTensor")
      .def(
          "register_hooks",
          [](RawSavedTensor& r, py::function pack, py::function unpack) {
            PySavedTensorHooks hooks;
            hooks.pack_hook = PyObjectRef(std::move(pack));
            hooks.unpack_hook = PyObjectRef(std::move(unpack));
            r.saved->register_hooks(hooks);
          },
          py::arg("pack_hook"), py::arg("unpack_hook"),
          "pack_hook(tensor) runs now; unpack_hook(packed) on each use of the saved tensor.")
      .def_property_readonly("data", [](RawSavedTensor& r) -> py::object {
        if (!r.saved->defined()) return py::none();
        return py::cast(detach(r.saved->unpack(r.node)));
      });

  m.def("is_grad_enabled", &GradMode::is_enabled);
  m.def("set_grad_enabled", &GradMode::set_enabled, py::arg("mode"));
  m.def("_live_node_count", &live_node_count, "Nodes alive (tests of graph teardown).");

  py::module_ ag = m.def_submodule("autograd", "The compiled engine's autograd entry points.");
  ag.def("run_backward", &run_backward_py, py::arg("tensors"), py::arg("grad_tensors") = py::none(),
         py::arg("retain_graph") = py::none(), py::arg("create_graph") = false,
         py::arg("inputs") = py::none(), py::arg("allow_unused") = false,
         py::arg("accumulate_grad") = true,
         "backward (accumulate_grad=True: into .grad, returns None) or grad (returns a tuple).");
  ag.def("is_grad_enabled", &GradMode::is_enabled);
  ag.def("set_grad_enabled", &GradMode::set_enabled, py::arg("mode"));
  ag.def("_push_saved_tensors_hooks", [](py::function pack, py::function unpack) {
    auto hooks = std::make_shared<PySavedTensorHooks>();
    hooks->pack_hook = PyObjectRef(std::move(pack));
    hooks->unpack_hook = PyObjectRef(std::move(unpack));
    push_saved_tensor_hooks(std::move(hooks));
  });
  ag.def("_push_saved_tensors_hooks_disabled", &push_saved_tensor_hooks_disabled,
         py::arg("message"));
  ag.def("_pop_saved_tensors_hooks", &pop_saved_tensor_hooks);
  ag.def(
      "_current_graph_task_id", []() { return current_graph_task_id(); },
      "The id of the backward running on this thread, 0 outside backward.");
  ag.def("_will_engine_execute_node",
         [](const std::shared_ptr<Node>& n) { return will_engine_execute_node(n.get()); });
  ag.def(
      "_grad_node",
      [](const Tensor& t) -> py::object {
        Edge e = gradient_edge(t);
        return e.valid() ? node_object(e.function) : py::object(py::none());
      },
      "grad_fn, or a leaf's AccumulateGrad node (None when t does not require grad).");
  ag.def("queue_callback", &queue_callback, py::arg("callback"),
         "Run callback once the running backward has gone through its graph (Note [Final "
         "callbacks]).");
  ag.def("is_anomaly_enabled", &AnomalyMode::is_enabled);
  ag.def("set_anomaly_enabled", &AnomalyMode::set_enabled, py::arg("mode"));

  py::class_<FunctionCtx>(ag, "FunctionCtx", py::dynamic_attr())
      .def(py::init<>())
      .def("save_for_backward",
           [](FunctionCtx& ctx, py::args tensors) {
             ctx.to_save.clear();
             for (py::handle t : tensors)
               ctx.to_save.push_back(tensor_or_undefined(t, "save_for_backward"));
           })
      .def_property_readonly("saved_tensors", &saved_tensors)
      .def("mark_dirty",
           [](FunctionCtx& ctx, py::args tensors) {
             for (py::handle t : tensors) ctx.dirty.push_back(tensor_or_undefined(t, "mark_dirty"));
           })
      .def("mark_non_differentiable",
           [](FunctionCtx& ctx, py::args tensors) {
             for (py::handle t : tensors)
               ctx.non_differentiable.push_back(tensor_or_undefined(t, "mark_non_differentiable"));
           })
      .def_property_readonly("_dirty", [](FunctionCtx& ctx) { return to_py_tuple(ctx.dirty); })
      .def("set_materialize_grads",
           [](FunctionCtx& ctx, bool value) { ctx.materialize_grads = value; })
      .def_property_readonly("_node", [](FunctionCtx& ctx) -> py::object {
        auto n = ctx.node.lock();
        return n ? py::cast(std::static_pointer_cast<Node>(n)) : py::none();
      });
  ag.def("_function_apply", &function_apply, py::arg("backward"), py::arg("ctx"), py::arg("args"),
         py::arg("outputs"), py::arg("name"), py::arg("path") = "", py::arg("line") = 0);
  ag.def("_once_differentiable", &once_differentiable_wrap, py::arg("ctx"), py::arg("sources"),
         py::arg("results"),
         "Gives results torch's Error grad_fn when a received grad requires grad.");
  ag.def(
      "_views_along",
      [](const Tensor& x, int64_t dim, const std::vector<int64_t>& sizes, const std::string& kind) {
        return to_py_tuple(views_along(x, dim, sizes, kind));
      },
      py::arg("x"), py::arg("dim"), py::arg("sizes"), py::arg("kind"),
      "Views of x along dim recorded as one node (Note [Several views, one node]).");
}

}  // namespace tg::python
