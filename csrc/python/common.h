// Shared helpers of the hand-written pybind11 module: dtype conversion, GIL-safe ownership of
// Python objects from C++ (the engine runs without the GIL), and the init functions of each
// binding file.
#pragma once

#include <pybind11/pybind11.h>

#include <cxxabi.h>

#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

// Note [Exported Python glue]
// GCC gives a function the narrowest visibility of the types in its signature, and pybind11's
// types are hidden, so a function of libtransgrad.so taking py::module_ or py::handle would not
// be exported to _C and to extensions (Note [One runtime] in CMakeLists.txt). TG_PYTHON_API
// exports such a function explicitly.
#define TG_PYTHON_API __attribute__((visibility("default")))

namespace tg::autograd {
struct Node;
}  // namespace tg::autograd

namespace tg::python {

namespace py = pybind11;

// Drops a reference, taking the GIL if needed; a no-op once the interpreter is gone.
TG_PYTHON_API void gil_safe_decref(PyObject* obj);

// A Python object owned from C++: copying and destroying it never touch the refcount without
// the GIL, so it may live in nodes, hooks and storages handled by the engine.
class PyObjectRef {
 public:
  PyObjectRef() = default;
  explicit PyObjectRef(py::object obj)
      : ref_(obj.release().ptr(), [](PyObject* p) { gil_safe_decref(p); }) {}
  py::handle get() const { return py::handle(ref_.get()); }
  py::object object() const { return py::reinterpret_borrow<py::object>(get()); }  // needs GIL
  explicit operator bool() const { return ref_ != nullptr; }

 private:
  std::shared_ptr<PyObject> ref_;
};

// Note [GIL in forward ops]
// A forward op on large tensors runs with the GIL released, so several Python threads compute at
// once (backward always releases it, Note [GIL in backward]). Small ops keep it: releasing and
// re-taking costs about as much as a small op. The generated bindings and the fast operators
// construct this guard after every conversion that needs Python, and pass it the Tensor
// arguments; nothing in an op touches a Python object without taking the GIL itself
// (PyObjectRef, gil_safe_decref, the anomaly-mode traceback).
constexpr int64_t kReleaseGilNumel = 32768;

// Note [Re-taking the GIL at exit]
// A daemon thread that released the GIL (a large op, a backward) and comes back after the
// interpreter began finalizing is ended by CPython with pthread_exit, a forced unwind; through
// a noexcept destructor (pybind11's gil_scoped_release) that is std::terminate ("terminate
// called without an active exception", an abort at exit). Such a thread is parked for good
// instead (what Python 3.14 does with its daemon threads): the process is exiting and the thread
// must not run Python again. The guards' destructors are noexcept(false) for the window between
// the check and the re-take, so CPython's unwind can still pass through them.
//
// Note [Threads at exit]
// The rest of issue 11's segfault at exit (about one run in four under load; a core showed a
// daemon thread in list_dealloc, without the GIL, while the main thread's final GC walked the
// same lists). The window above is real: a thread passes the check, blocks in take_gil, the
// main thread sets `finalizing` and drops the GIL, and take_gil ends the thread with
// pthread_exit. The forced unwind then ran every destructor between take_gil and the bottom of
// the thread: pybind11's argument casters and py::objects Py_DECREF'd without the GIL, in
// parallel with finalization. The same happened when Python code called from C++ (a hook, a
// Function's backward) was ended while it waited for the GIL in the eval loop. So, as torch's
// engine threads never touch Python after finalization:
//   - every place C++ takes the GIL (take_gil_or_park, AcquireGil, gil_safe_decref) first
//     parks a thread that is not the finalizing one once finalization began, and catches the
//     forced unwind right at the CPython call (abi::__forced_unwind) and parks there: no
//     destructor of ours runs; a handler that never returns is allowed (only leaving it
//     without a rethrow is std::terminate);
//   - every call from C++ into user Python code that runs while C++ frames are below it goes
//     through call_or_park, which does the same around PyObject_Call;
//   - the finalizing thread is recognised (an `atexit` callback records it before CPython sets
//     `finalizing`), so its own __del__s during finalization still take the GIL;
//   - after the interpreter is gone, exit() runs the static destructors of the libraries:
//     OpenBLAS's frees its buffers while a daemon thread may still be inside a gemm (the core
//     showed one in sgemm_kernel). Every BLAS/LAPACK call is a counted section
//     (kernels/blas.h, blas::Section) and an std::atexit handler closes them: it waits for the
//     calls in flight, and a thread entering one later parks.
// Parked threads hold no lock of ours and no GIL; the process ends around them.
inline bool interpreter_finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}

// Sleeps for good: the thread of a process that is exiting (Note [Threads at exit]).
[[noreturn]] TG_PYTHON_API void park_thread();
// Whether this thread must not take the GIL: finalization began and this is not the thread
// running it (Note [Threads at exit]).
TG_PYTHON_API bool must_not_take_gil();

inline void restore_thread_or_park(PyThreadState* saved) {
  if (must_not_take_gil()) park_thread();
  try {
    PyEval_RestoreThread(saved);
  } catch (abi::__forced_unwind&) {  // CPython ended the thread: park before any destructor
    park_thread();
  }
}

// py::gil_scoped_acquire for threads that may run at exit (Note [Threads at exit]).
class AcquireGil {
 public:
  AcquireGil() {
    if (must_not_take_gil()) park_thread();
    try {
      state_ = PyGILState_Ensure();
    } catch (abi::__forced_unwind&) {
      park_thread();
    }
  }
  ~AcquireGil() { PyGILState_Release(state_); }
  AcquireGil(const AcquireGil&) = delete;
  AcquireGil& operator=(const AcquireGil&) = delete;

 private:
  PyGILState_STATE state_;
};

// fn(*args) from C++ with the GIL held, parking the thread if CPython ends it inside the call
// (Note [Threads at exit]): the arguments are built before, so nothing is destroyed on the way.
inline py::object call_tuple_or_park(py::handle fn, const py::tuple& args) {
  PyObject* r = nullptr;
  try {
    r = PyObject_Call(fn.ptr(), args.ptr(), nullptr);
  } catch (abi::__forced_unwind&) {
    park_thread();
  }
  if (r == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(r);
}
template <class... Args>
py::object call_or_park(py::handle fn, Args&&... args) {
  return call_tuple_or_park(fn, py::make_tuple(std::forward<Args>(args)...));
}

// The GIL released for the guard's scope (a backward: Note [GIL in backward]).
class ReleaseGil {
 public:
  ReleaseGil() : saved_(PyEval_SaveThread()) {}
  ~ReleaseGil() noexcept(false) { restore_thread_or_park(saved_); }
  ReleaseGil(const ReleaseGil&) = delete;
  ReleaseGil& operator=(const ReleaseGil&) = delete;

 private:
  PyThreadState* saved_;
};

class ReleaseGilIfLarge {
 public:
  template <class... Ts>
  explicit ReleaseGilIfLarge(const Ts&... tensors) {
    if ((large(tensors) || ...)) saved_ = PyEval_SaveThread();
  }
  ~ReleaseGilIfLarge() noexcept(false) {
    if (saved_ != nullptr) restore_thread_or_park(saved_);
  }
  ReleaseGilIfLarge(const ReleaseGilIfLarge&) = delete;
  ReleaseGilIfLarge& operator=(const ReleaseGilIfLarge&) = delete;

 private:
  static bool large(const Tensor& t) { return t.defined() && t.numel() >= kReleaseGilNumel; }
  static bool large(const std::optional<Tensor>& t) { return t && large(*t); }
  static bool large(const std::vector<Tensor>& ts) {
    for (const Tensor& t : ts)
      if (large(t)) return true;
    return false;
  }
  PyThreadState* saved_ = nullptr;  // set while the GIL is released
};

// Python dtypes <-> DType. Accepts transgrad.dtype objects, numpy dtypes, numpy scalar types,
// their names, Python bool, int, float and _C.DType; raises TypeError otherwise.
TG_PYTHON_API DType dtype_from_py(py::handle obj);
TG_PYTHON_API py::object dtype_to_numpy(DType d);  // a numpy dtype object (cached)
TG_PYTHON_API py::object dtype_object(DType d);    // its transgrad.dtype (transgrad/_dtypes.py)

// Note [One Python object per tensor]
// As torch keeps one PyObject per TensorImpl, a tensor crossing into Python as the same
// TensorImpl is the same Python object while that object lives: `x.requires_grad_() is x`,
// `x.grad is x.grad`, a Function returning its input, a hook receiving its tensor, tensors as
// dict keys. TensorImpl::pyobj borrows the object: the caster below sets it when a tensor
// is converted to Python (a new object) or when a Python tensor object that nobody claimed yet
// is passed in (objects made by the constructor), and returns it on the next conversion; the
// Tensor type's tp_dealloc (tensor_binding.cpp) clears it when that object dies. Every access
// holds the GIL, so no lock. A tensor whose object died gets a fresh one (torch resurrects the
// old one; nothing here keeps Python state on a dead object).
inline py::handle existing_pyobject(const Tensor& t) {
  return t.defined() ? py::handle(static_cast<PyObject*>(t.unsafe_impl()->pyobj)) : py::handle();
}
inline void claim_pyobject(const Tensor& t, py::handle obj) {
  if (t.defined() && t.unsafe_impl()->pyobj == nullptr) t.unsafe_impl()->pyobj = obj.ptr();
}

// Py_VISITs the Python objects only this tensor's Python object keeps alive through the graph
// (Note [Tensors in Python's GC], autograd_binding.cpp).
TG_PYTHON_API int visit_owned_python_objects(const Tensor& t, visitproc visit, void* arg);

// A node as a Python object: an instance of the class named as the node, as torch's
// (Note [Node classes named as torch's], autograd_binding.cpp); None for no node.
TG_PYTHON_API py::object node_object(const std::shared_ptr<autograd::Node>& node);

TG_PYTHON_API void init_tensor(py::module_& m);
TG_PYTHON_API void init_autograd(py::module_& m);
TG_PYTHON_API void init_operators(py::module_& m);
TG_PYTHON_API void init_anomaly();

}  // namespace tg::python

namespace pybind11::detail {

// Tensor <-> Python with one object per TensorImpl (Note [One Python object per tensor]).
template <>
class type_caster<tg::Tensor> : public type_caster_base<tg::Tensor> {
  using Base = type_caster_base<tg::Tensor>;

 public:
  bool load(handle src, bool convert) {
    if (Base::load(src, false)) {  // an instance of Tensor (not a converted temporary)
      if (this->value) tg::python::claim_pyobject(*static_cast<tg::Tensor*>(this->value), src);
      return true;
    }
    return convert && Base::load(src, true);
  }

  static handle cast(const tg::Tensor& t, return_value_policy, handle parent) {
    if (handle h = tg::python::existing_pyobject(t)) return h.inc_ref();
    handle h = Base::cast(t, return_value_policy::copy, parent);
    if (h) tg::python::claim_pyobject(t, h);
    return h;
  }
  static handle cast(tg::Tensor&& t, return_value_policy, handle parent) {
    if (handle h = tg::python::existing_pyobject(t)) return h.inc_ref();
    tg::Tensor keep = t;  // the impl the new object will hold
    handle h = Base::cast(std::move(t), return_value_policy::move, parent);
    if (h) tg::python::claim_pyobject(keep, h);
    return h;
  }
  static handle cast(const tg::Tensor* t, return_value_policy policy, handle parent) {
    if (t == nullptr) return none().release();
    return cast(*t, policy, parent);
  }
};

}  // namespace pybind11::detail
