// _C.Tensor: the pybind11 class over tg::Tensor (held by value), numpy interop in both
// directions without copies, and the factories that copy (tensor) or share (from_numpy).
//
// Note [Read-only numpy memory]
// from_numpy of an array numpy will not let anyone write (writeable=False, np.frombuffer of
// bytes) shares its memory like any other, but marks the storage read-only: an in-place op on
// it raises (the reference engine's error: its array is the read-only one), and every numpy view
// handed back is read-only as well, so nothing writes into memory its owner declared constant.
// torch only warns here and then writes; refusing is the one safe choice.
//
// Note [Zero-copy numpy]
// from_numpy keeps the array alive through the storage's owner (a GIL-safe reference), and
// numpy()/__array__/the buffer protocol hand out views whose base keeps a handle on the storage,
// so either side may outlive the other. Writes through numpy bypass the version counter.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <sstream>
#include <thread>

#include "autograd/autograd.h"
#include "kernels/kernels.h"
#include "kernels/loops.h"
#include "python/common.h"

namespace tg::python {

using autograd::Node;

// The thread that runs the interpreter's finalization, recorded by an `atexit` callback
// (init_tensor) before CPython sets `finalizing` (Note [Threads at exit]).
std::atomic<std::thread::id> g_exit_thread{};

void park_thread() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

bool must_not_take_gil() {
  if (!interpreter_finalizing()) return false;
  const std::thread::id exit_thread = g_exit_thread.load();
  // Without the record (finalization not started by Py_FinalizeEx's atexit step), the
  // finalizing thread is the one holding the GIL.
  if (exit_thread == std::thread::id()) return !PyGILState_Check();
  return std::this_thread::get_id() != exit_thread;
}

void gil_safe_decref(PyObject* obj) {
  // Leaked once the interpreter is finalizing on another thread (Note [Threads at exit]).
  if (obj == nullptr || !Py_IsInitialized() || must_not_take_gil()) return;
  PyGILState_STATE state;
  try {
    state = PyGILState_Ensure();
  } catch (abi::__forced_unwind&) {
    park_thread();
  }
  Py_DECREF(obj);
  PyGILState_Release(state);
}

namespace {

py::object& numpy_dtype_cache(DType d) {
  static py::object* cache[kNumDTypes] = {};
  int i = static_cast<int>(d);
  if (cache[i] == nullptr) {  // leaked on purpose: lives until the interpreter exits
    // numpy has no bfloat16: ml_dtypes' (the JAX team's numpy extension type) stands in.
    py::object spelled = d == DType::BFloat16 ? py::module_::import("ml_dtypes").attr("bfloat16")
                                              : py::object(py::str(dtype_name(d)));
    cache[i] = new py::object(py::module_::import("numpy").attr("dtype")(spelled));
  }
  return *cache[i];
}

// The transgrad.dtype objects (transgrad/_dtypes.py), imported once: what t.dtype returns, and
// what dtype_from_py recognises first, by identity (Note [dtype objects and numpy]).
py::object* dtype_objects() {
  static py::object* objects = [] {
    auto* out = new py::object[kNumDTypes];  // leaked on purpose: lives until the interpreter exits
    py::module_ dtypes = py::module_::import("transgrad._dtypes");
    for (int i = 0; i < kNumDTypes; ++i) out[i] = dtypes.attr(dtype_name(static_cast<DType>(i)));
    return out;
  }();
  return objects;
}

const char* buffer_format(DType d) {
  switch (d) {
    case DType::Bool:
      return "?";
    case DType::Int64:
      return "q";
    case DType::Float32:
      return "f";
    case DType::Float64:
      return "d";
    case DType::Int8:
      return "b";
    case DType::Int16:
      return "h";
    case DType::Int32:
      return "i";
    case DType::UInt8:
      return "B";
    case DType::Float16:
      return "e";
    case DType::BFloat16:
      break;  // no struct format character (def_buffer refuses it)
  }
  return "?";
}

DType dtype_from_numpy(const py::dtype& dt) {
  char kind = dt.kind();
  size_t size = static_cast<size_t>(dt.itemsize());
  char order = dt.byteorder();
  bool native = order == '=' || order == '|' || order == '<';  // little-endian hosts
  if (native) {
    if (kind == 'f' && size == 4) return DType::Float32;
    if (kind == 'f' && size == 8) return DType::Float64;
    if (kind == 'i' && size == 8) return DType::Int64;
    if (kind == 'b' && size == 1) return DType::Bool;
    if (kind == 'f' && size == 2) return DType::Float16;
    if (kind == 'i' && size == 1) return DType::Int8;
    if (kind == 'i' && size == 2) return DType::Int16;
    if (kind == 'i' && size == 4) return DType::Int32;
    if (kind == 'u' && size == 1) return DType::UInt8;
    if (kind == 'V' && size == 2 && py::str(dt).cast<std::string>() == "bfloat16")
      return DType::BFloat16;
  }
  throw TypeError(
      "unsupported dtype " + py::str(dt).cast<std::string>() +
      ": transgrad tensors are bool, uint8, int8, int16, int32, int64, float16, bfloat16, "
      "float32 or float64");
}

Shape shape_of(const py::array& a) {
  Shape s(static_cast<size_t>(a.ndim()));
  for (py::ssize_t i = 0; i < a.ndim(); ++i) s[i] = a.shape(i);
  return s;
}

}  // namespace

DType dtype_from_py(py::handle obj) {
  const py::object* objects = dtype_objects();
  for (int i = 0; i < kNumDTypes; ++i)
    if (objects[i].ptr() == obj.ptr()) return static_cast<DType>(i);
  if (py::isinstance<DType>(obj)) return obj.cast<DType>();
  if (py::isinstance<py::str>(obj)) return dtype_from_name(obj.cast<std::string>());
  if (obj.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) return DType::Float64;
  if (obj.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) return DType::Int64;
  if (obj.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) return DType::Bool;
  py::dtype dt;
  try {
    dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(obj));
  } catch (py::error_already_set&) {
    throw TypeError("not a dtype: " + py::repr(obj).cast<std::string>());
  }
  return dtype_from_numpy(dt);
}

py::object dtype_to_numpy(DType d) { return numpy_dtype_cache(d); }

py::object dtype_object(DType d) { return dtype_objects()[static_cast<int>(d)]; }

Tensor tensor_from_numpy(const py::array& a) {
  DType dt = dtype_from_numpy(a.dtype());
  Shape sizes = shape_of(a);
  Shape strides(sizes.size());
  auto item = static_cast<py::ssize_t>(itemsize(dt));
  for (size_t i = 0; i < sizes.size(); ++i) {
    py::ssize_t st = a.strides(static_cast<py::ssize_t>(i));
    if (st % item != 0)
      throw ValueError(
          "from_numpy: the array's strides are not a multiple of its itemsize; "
          "pass np.ascontiguousarray(a)");
    strides[i] = st / item;
  }
  if (a.size() == 0) {  // numpy gives a new empty array zero strides; torch's are contiguous
    const Shape contiguous = contiguous_strides(sizes);
    for (size_t i = 0; i < sizes.size(); ++i)
      if (strides[i] == 0) strides[i] = contiguous[i];
  }
  PyObject* obj = a.ptr();
  Py_INCREF(obj);
  std::shared_ptr<void> owner(static_cast<void*>(obj),
                              [](void* p) { gil_safe_decref(static_cast<PyObject*>(p)); });
  Tensor t = Tensor::from_external(const_cast<void*>(a.data()), std::move(sizes),
                                   std::move(strides), dt, std::move(owner));
  t.storage()->read_only = !a.writeable();  // Note [Read-only numpy memory]
  return t;
}

py::array tensor_to_numpy(const Tensor& t) {
  t.check_defined("numpy");
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end());
  std::vector<py::ssize_t> strides(t.strides().size());
  auto item = static_cast<py::ssize_t>(t.itemsize());
  for (size_t i = 0; i < strides.size(); ++i) strides[i] = t.strides()[i] * item;
  // The base keeps the storage alive, not the graph.
  auto* keep = new Tensor(autograd::detach(t));
  py::capsule base(keep, [](void* p) { delete static_cast<Tensor*>(p); });
  py::array a(py::dtype::from_args(dtype_to_numpy(t.dtype())), shape, strides, t.data_ptr(), base);
  if (t.storage()->read_only) a.attr("flags").attr("writeable") = false;
  return a;
}

namespace {

Tensor tensor_from_data(py::handle data, py::object dtype, bool requires_grad) {
  Tensor out;
  if (py::isinstance<Tensor>(data)) {
    const Tensor& src = data.cast<const Tensor&>();
    autograd::NoGradGuard no_grad;
    out = kernel::clone(src);
    if (!dtype.is_none()) out = kernel::cast(out, dtype_from_py(dtype));
  } else {
    py::module_ np = py::module_::import("numpy");
    py::object np_dtype = dtype.is_none() ? py::none() : dtype_to_numpy(dtype_from_py(dtype));
    py::array arr = np.attr("array")(data, np_dtype);
    if (dtype.is_none()) {
      // Map the numpy dtypes transgrad lacks onto supported ones (uint16/32/64 -> int64).
      char kind = arr.dtype().kind();
      auto size = arr.dtype().itemsize();
      py::object target;
      if (kind == 'u' && size > 1) target = dtype_to_numpy(DType::Int64);
      if (target && !target.is_none() && !arr.dtype().is(target)) arr = arr.attr("astype")(target);
    }
    arr = np.attr("ascontiguousarray")(arr);
    Tensor view = tensor_from_numpy(arr);
    out = Tensor::empty(view.sizes(), view.dtype());
    if (view.numel() > 0)
      std::memcpy(out.data_ptr(), view.data_ptr(),
                  static_cast<size_t>(view.numel()) * view.itemsize());
  }
  if (requires_grad) out.set_requires_grad(true);
  return out;
}

py::object item_of(const Tensor& t) {
  t.check_defined("item");
  if (t.numel() != 1)
    throw RuntimeError("a Tensor with " + std::to_string(t.numel()) +
                       " elements cannot be converted to Scalar");
  switch (t.dtype()) {
    case DType::Bool:
      return py::bool_(*t.data<bool>());
    case DType::Int64:
      return py::int_(*t.data<int64_t>());
    case DType::Float32:
      return py::float_(static_cast<double>(*t.data<float>()));
    case DType::Float64:
      return py::float_(*t.data<double>());
    default:
      break;
  }
  if (is_floating(t.dtype())) return py::float_(kernel::item(t));
  return py::int_(static_cast<int64_t>(kernel::item(t)));  // int8..int32, uint8: exact in double
}

py::tuple shape_tuple(const Shape& s) {
  py::tuple out(s.size());
  for (size_t i = 0; i < s.size(); ++i) out[i] = py::int_(s[i]);
  return out;
}

// x.shape and x.size(): a transgrad.Size made by tuple's own constructor, no Python frame (Note
// [Size from C++] in python/transgrad/_size.py, a module that imports nothing of transgrad).
py::object size_object(const Shape& s) {
  static PyObject* size_type = [] {
    py::object cls = py::module_::import("transgrad._size").attr("Size");
    return cls.release().ptr();  // kept alive for the process
  }();
  py::tuple items = shape_tuple(s);
  py::tuple args = py::make_tuple(items);
  PyObject* out =
      PyTuple_Type.tp_new(reinterpret_cast<PyTypeObject*>(size_type), args.ptr(), nullptr);
  if (out == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(out);
}

std::string tensor_repr(const Tensor& t) {
  if (!t.defined()) return "tensor(<undefined>)";
  py::module_ np = py::module_::import("numpy");
  py::array a = tensor_to_numpy(t);
  std::string body;
  if (t.numel() == 0) {
    body = "[]";
  } else {
    body = np.attr("array2string")(a, py::arg("separator") = ", ", py::arg("prefix") = "tensor(")
               .cast<std::string>();
  }
  std::string out = "tensor(" + body;
  if (t.numel() == 0 && t.dim() != 1) out += ", size=" + shape_str(t.sizes());
  if (t.dtype() != DType::Float32 && t.dtype() != DType::Int64 && t.dtype() != DType::Bool)
    out += std::string(", dtype=") + dtype_name(t.dtype());
  if (const auto& fn = t.grad_fn()) {
    out += ", grad_fn=<" + fn->name() + ">";
  } else if (t.requires_grad()) {
    out += ", requires_grad=True";
  }
  return out + ")";
}

const char* const kNonLeafGradWarning =
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead.";

// backend.set_history_ of transgrad._api: dst takes src's history, no data is copied (a view
// replayed from its rebased base, Note [In-place on views] in _api/views.py).
void set_history(Tensor& dst, const Tensor& src) {
  if (const auto& fn = src.grad_fn()) {
    autograd::AutogradMeta& m = autograd::autograd_meta(dst);
    m.grad_fn = fn;
    m.output_nr = src.output_nr();
  } else if (dst.grad_fn()) {
    autograd::AutogradMeta& m = autograd::autograd_meta(dst);
    m.grad_fn.reset();
    m.output_nr = 0;
  }
}

// backend.inplace_ of transgrad._api (Note [In-place ops] there).
void inplace(Tensor& dst, const Tensor& src) {
  dst.check_defined("inplace_");
  src.check_defined("inplace_");
  if (dst.storage()->read_only)  // Note [Read-only numpy memory]
    throw RuntimeError(
        "cannot write into this tensor: its storage is read-only (an expanded view, "
        "or a read-only numpy array); clone() it first");
  if (src.sizes() != dst.sizes())
    throw ValueError("inplace_: cannot write a tensor of shape " + shape_str(src.sizes()) +
                     " into one of shape " + shape_str(dst.sizes()));
  for (int64_t d = 0; d < dst.dim() && dst.numel() > 0; ++d)
    if (dst.strides()[d] == 0 && dst.sizes()[d] > 1)
      throw RuntimeError(  // torch's words, then which view
          "unsupported operation: more than one element of the written-to tensor refers to a "
          "single memory location. Please clone() the tensor before performing the operation. "
          "(an expanded view: several elements share memory)");
  kernel::detail::copy_into(dst, src);
  dst.bump_version();
  if (const auto& fn = src.grad_fn()) {
    autograd::AutogradMeta& m = autograd::autograd_meta(dst);
    m.grad_fn = fn;
    m.output_nr = src.output_nr();
  } else if (dst.grad_fn() && autograd::GradMode::is_enabled()) {
    autograd::AutogradMeta& m = autograd::autograd_meta(dst);
    m.grad_fn.reset();
    m.output_nr = 0;
  }
}

// tp_dealloc of the Tensor type (and, inherited, of its Python subclasses): the dying object
// stops being its tensor's Python object (Note [One Python object per tensor]), then
// pybind11's own dealloc runs.
// The Tensor an instance holds; null before its constructor ran.
Tensor* held_tensor(PyObject* self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  py::detail::value_and_holder vh = inst->get_value_and_holder(nullptr, false);
  if (!vh || !vh.holder_constructed()) return nullptr;
  return static_cast<Tensor*>(vh.value_ptr());
}

void forget_pyobject(Tensor* t, PyObject* self) {
  if (t && t->defined() && t->unsafe_impl()->pyobj == self) t->unsafe_impl()->pyobj = nullptr;
}

void tensor_dealloc(PyObject* self) {
  forget_pyobject(held_tensor(self), self);
  reinterpret_cast<PyTypeObject*>(py::detail::get_internals().instance_base)->tp_dealloc(self);
}

// Note [Tensors in Python's GC] (autograd_binding.cpp).
int tensor_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));  // instances of heap types own a reference to their type
  if (Tensor* t = held_tensor(self)) return visit_owned_python_objects(*t, visit, arg);
  return 0;
}

// Only called on an unreachable cycle: dropping the handle frees what the object owned alone.
int tensor_clear(PyObject* self) {
  Tensor* t = held_tensor(self);
  if (t && t->defined()) {
    forget_pyobject(t, self);
    Tensor dead = std::move(*t);
    *t = Tensor();
  }
  return 0;
}

void setup_tensor_type(PyHeapTypeObject* heap_type) {
  PyTypeObject* type = &heap_type->ht_type;
  type->tp_dealloc = tensor_dealloc;
  type->tp_flags |= Py_TPFLAGS_HAVE_GC;
  type->tp_traverse = tensor_traverse;
  type->tp_clear = tensor_clear;
}

// Note [Tensor.data setter]
// `x.data = y` changes what x *is* in place: the TensorImpl (and so the Python object, its
// grad, hooks and grad_fn) stays, and takes y's storage, sizes, strides, offset and dtype. As
// torch's, a leaf's AccumulateGrad is forgotten when the shape or dtype changes, so a later
// graph records the new metadata. As torch's, x keeps its version counter (shared with the views
// made of it before) and y keeps its own: the counter lives on the storage here, so x gets a
// storage of its own over y's memory (keeping y's storage alive) whose counter is the one of x's
// previous storage (Storage::shared_version, made shared on first use).
void set_data(Tensor& self, const Tensor& other) {
  TensorImpl* dst = self.unsafe_impl();
  const TensorImpl* src = other.unsafe_impl();
  if (dst == src) return;
  bool same_meta = dst->sizes == src->sizes && dst->dtype == src->dtype;
  if (dst->storage != src->storage) {
    Storage& old = *dst->storage;
    if (!old.shared_version)
      old.shared_version = std::make_shared<std::atomic<uint32_t>>(old.version.load());
    auto alias = Storage::external(src->storage->data, src->storage->nbytes, src->storage);
    alias->read_only = src->storage->read_only;
    alias->shared_version = old.shared_version;
    dst->storage = std::move(alias);
  }
  dst->sizes = src->sizes;
  dst->strides = src->strides;
  dst->offset = src->offset;
  dst->dtype = src->dtype;
  dst->refresh();
  if (same_meta) return;
  if (auto* meta = autograd::autograd_meta_or_null(self)) {
    std::lock_guard<std::mutex> lock(meta->mutex);
    meta->grad_accumulator.reset();
  }
}

}  // namespace

void init_tensor(py::module_& m) {
  // Note [Threads at exit]: the thread running atexit callbacks is the one that finalizes.
  py::module_::import("atexit").attr("register")(
      py::cpp_function([] { g_exit_thread.store(std::this_thread::get_id()); }));
  py::enum_<DType>(m, "DType")
      .value("bool", DType::Bool)
      .value("int64", DType::Int64)
      .value("float32", DType::Float32)
      .value("float64", DType::Float64)
      .value("int8", DType::Int8)
      .value("int16", DType::Int16)
      .value("int32", DType::Int32)
      .value("uint8", DType::UInt8)
      .value("float16", DType::Float16)
      .value("bfloat16", DType::BFloat16)
      .def(py::init([](const std::string& name) { return dtype_from_name(name); }))
      .def(py::init([](py::object obj) { return dtype_from_py(obj); }));
  // A DType parameter of any binding accepts names and numpy dtypes too.
  py::implicitly_convertible<py::str, DType>();
  py::implicitly_convertible<py::object, DType>();

  py::class_<Tensor> cls(m, "Tensor", py::buffer_protocol(),
                         py::custom_type_setup(&setup_tensor_type));
  // torch's legacy constructor, Tensor(2, 3), Tensor([1, 2]), Tensor(other), ...: parsed by
  // transgrad._api.legacy.legacy_new, shared with FloatTensor(...) and the reference engine
  // (Note [The legacy constructor] there). A subclass (nn.Parameter) passes a detached tensor.
  cls.def(py::init([](py::args args, py::kwargs kwargs) {
            py::object made =
                py::module_::import("transgrad._compiled").attr("_legacy_new")(args, kwargs);
            return made.cast<Tensor>();  // a fresh tensor: this object takes it over
          }),
          "torch's legacy constructor: Tensor(*sizes), Tensor(size), Tensor(data), "
          "Tensor(other), Tensor().")
      .def_property_readonly("shape", [](const Tensor& t) { return size_object(t.sizes()); })
      .def_property_readonly("ndim", &Tensor::dim)
      .def_property_readonly("dtype", [](const Tensor& t) { return dtype_object(t.dtype()); })
      .def_property_readonly("_dtype", &Tensor::dtype)
      .def("numel", &Tensor::numel)
      .def("dim", &Tensor::dim)
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("_is_contiguous", &Tensor::is_contiguous)  // row-major: memory_formats.py's fast path
      .def("stride", [](const Tensor& t) { return shape_tuple(t.strides()); })
      .def_property_readonly("_offset", &Tensor::offset)
      .def_property_readonly("_version", &Tensor::version)
      .def("_bump_version", &Tensor::bump_version)
      .def("_set_data", &set_data, py::arg("other"),
           "x.data = other: x keeps its object and autograd state, and takes other's storage, "
           "shape and dtype (checked by transgrad._api.methods._set_data).")
      .def("_shares_storage", &Tensor::shares_storage)
      .def("_is_same", &Tensor::is_same)
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def_property("requires_grad", &Tensor::requires_grad,
                    [](Tensor& t, bool flag) { t.set_requires_grad(flag); })
      .def(
          "requires_grad_",
          [](Tensor& t, bool flag) {
            t.set_requires_grad(flag);
            return t;
          },
          py::arg("requires_grad") = true)
      .def_property(
          "grad",
          [](const Tensor& t) -> py::object {
            Tensor g = t.grad();
            // As torch: only when the grad is missing (backward(inputs=...) may set one).
            if (!g.defined() && !t.is_leaf() && !autograd::retains_grad(t) &&
                PyErr_WarnEx(PyExc_UserWarning, kNonLeafGradWarning, 1) != 0)
              throw py::error_already_set();
            return g.defined() ? py::cast(std::move(g)) : py::none();
          },
          [](Tensor& t, py::object g) {
            if (g.is_none()) {
              t.set_grad(Tensor());
            } else if (!py::isinstance<Tensor>(g)) {
              throw TypeError("assigned grad must be a Tensor or None, got " +
                              py::str(py::type::of(g)).cast<std::string>());
            } else {
              // torch's checks and words: a .grad must match its tensor (the optimizers and
              // the accumulation read it as such) and cannot be the tensor itself
              Tensor gt = g.cast<Tensor>();
              if (gt.is_same(t)) throw RuntimeError("can't assign Variable as its own grad");
              if (gt.dtype() != t.dtype())
                throw RuntimeError(std::string("assigned grad has data of a different type: ") +
                                   "grad dtype " + dtype_name(gt.dtype()) + ", tensor dtype " +
                                   dtype_name(t.dtype()));
              if (gt.sizes() != t.sizes())
                throw RuntimeError("assigned grad has data of a different size: grad shape " +
                                   size_str(gt.sizes()) + ", tensor shape " + size_str(t.sizes()));
              t.set_grad(std::move(gt));
            }
          })
      .def_property_readonly("grad_fn", [](const Tensor& t) { return node_object(t.grad_fn()); })
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def_property_readonly("output_nr", &Tensor::output_nr)
      .def_property_readonly("retains_grad",
                             [](const Tensor& t) { return autograd::retains_grad(t); })
      .def("retain_grad", [](const Tensor& t) { autograd::retain_grad(t); })
      .def("detach", [](const Tensor& t) { return autograd::detach(t); })
      .def("_detach_inplace",  // the engine half of detach_ (transgrad._api.methods checks views)
           [](Tensor& t) {
             if (auto* m = autograd::autograd_meta_or_null(t)) {
               m->grad_fn.reset();
               m->requires_grad = false;
               m->output_nr = 0;
             }
             return t;
           })
      .def("item", &item_of)
      .def("tolist", [](const Tensor& t) { return tensor_to_numpy(t).attr("tolist")(); })
      .def(
          "numpy",
          [](const Tensor& t, bool force) {
            // As torch: a write through the array would bypass autograd (.numpy() of the API
            // layer's own callers goes through _to_numpy or a detached tensor).
            if (t.defined() && t.requires_grad() && !force)
              throw RuntimeError(
                  "Can't call numpy() on Tensor that requires grad. Use "
                  "tensor.detach().numpy() instead.");
            return tensor_to_numpy(t);
          },
          py::kw_only(), py::arg("force") = false)
      .def(
          "__array__",
          [](const Tensor& t, py::object dtype, py::object copy) -> py::object {
            py::array a = tensor_to_numpy(t);
            if (!dtype.is_none()) {
              py::object target = py::dtype::from_args(dtype);
              if (!a.dtype().equal(py::reinterpret_borrow<py::dtype>(target)))
                return a.attr("astype")(target);
            }
            if (!copy.is_none() && copy.cast<bool>()) return a.attr("copy")();
            return std::move(a);
          },
          py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def_buffer([](Tensor& t) {
        // The buffer protocol has no bfloat16 format: numpy then takes __array__ (exact).
        if (t.dtype() == DType::BFloat16)
          throw py::buffer_error(
              "bfloat16 tensors have no buffer format; use numpy() or __array__");
        std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end());
        std::vector<py::ssize_t> strides(t.strides().size());
        for (size_t i = 0; i < strides.size(); ++i)
          strides[i] = t.strides()[i] * static_cast<py::ssize_t>(t.itemsize());
        return py::buffer_info(t.data_ptr(), static_cast<py::ssize_t>(t.itemsize()),
                               buffer_format(t.dtype()), t.dim(), shape, strides,
                               t.storage()->read_only);
      })
      .def("__repr__", &tensor_repr)
      .def("__len__",
           [](const Tensor& t) {
             if (t.dim() == 0) throw TypeError("len() of a 0-d tensor");
             return t.sizes()[0];
           })
      // Identity hash, kept when the API layer defines an elementwise __eq__.
      .def("__hash__", [](py::handle self) {
        return static_cast<py::ssize_t>(reinterpret_cast<intptr_t>(self.ptr()) >> 4);
      });

  m.def(
      "from_numpy",
      [](py::object a) {
        if (!py::isinstance<py::array>(a))  // numpy scalars, 0-d values: as the reference does
          a = py::module_::import("numpy").attr("asarray")(a);
        return tensor_from_numpy(py::reinterpret_borrow<py::array>(a));
      },
      py::arg("array"), "A tensor sharing the numpy array's memory (the array is kept alive).");
  m.def("tensor", &tensor_from_data, py::arg("data"), py::arg("dtype") = py::none(),
        py::arg("requires_grad") = false, "A tensor holding a copy of `data`.");
  m.def("_to_numpy", &tensor_to_numpy);
  m.def("_set_history", &set_history, py::arg("dst"), py::arg("src"),
        "dst takes src's autograd history (no copy).");
  m.def("inplace_", &inplace, py::arg("dst"), py::arg("src"),
        "Writes src into dst's storage, bumps its version and gives dst src's history.");
  m.def(
      "empty",
      [](const Shape& shape, py::object dtype) {
        return Tensor::empty(shape, dtype.is_none() ? DType::Float32 : dtype_from_py(dtype));
      },
      py::arg("shape"), py::arg("dtype") = py::none());
  m.def(
      "full",
      [](const Shape& shape, double value, py::object dtype, bool requires_grad) {
        Tensor t =
            kernel::full(shape, value, dtype.is_none() ? DType::Float32 : dtype_from_py(dtype));
        if (requires_grad) t.set_requires_grad(true);
        return t;
      },
      py::arg("shape"), py::arg("fill_value"), py::arg("dtype") = py::none(),
      py::arg("requires_grad") = false);
}

}  // namespace tg::python
