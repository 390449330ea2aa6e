// Shared helpers of the hand-written pybind11 module: dtype conversion, GIL-safe ownership of
// Python objects from C++ (the engine runs without the GIL), and the init functions of each
// binding file.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <vector>

#include "tensor/tensor.h"

namespace tg::python {

namespace py = pybind11;

// Drops a reference, taking the GIL if needed; a no-op once the interpreter is gone.
void gil_safe_decref(PyObject* obj);

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

class ReleaseGilIfLarge {
 public:
  template <class... Ts>
  explicit ReleaseGilIfLarge(const Ts&... tensors) {
    if ((large(tensors) || ...)) saved_ = PyEval_SaveThread();
  }
  ~ReleaseGilIfLarge() {
    if (saved_ != nullptr) PyEval_RestoreThread(saved_);
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

// numpy dtype <-> DType. Accepts numpy dtypes, numpy scalar types, their names, Python bool,
// int, float and _C.DType; raises TypeError otherwise.
DType dtype_from_py(py::handle obj);
py::object dtype_to_numpy(DType d);  // a numpy dtype object (cached)

void init_tensor(py::module_& m);
void init_autograd(py::module_& m);
void init_operators(py::module_& m);
void init_anomaly();

}  // namespace tg::python
