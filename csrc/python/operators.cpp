// Fast paths for the arithmetic operators of _C.Tensor (Note [Fast operators]).
//
// Note [Fast operators]
// transgrad._api installs every operator in Python (the same code for both engines). For the
// common cases — tensor op tensor, and a floating tensor with a Python int/float — these C++
// versions call the generated ops directly with the scalar rule of docs/ARCHITECTURE.md
// (kernel::scalar_like: a wrapped number); anything else (numpy arrays, lists, integer tensors with
// numbers) goes to the Python implementation registered by _compiled.py, so behaviour is identical.
// `number / t` is torch's t.reciprocal() * number (rtruediv below).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "autograd/autograd.h"
#include "kernels/kernels.h"
#include "ops.h"
#include "python/common.h"

namespace tg::python {

Tensor tensor_from_numpy(const py::array& a);  // tensor_binding.cpp

namespace {

using BinaryOp = Tensor (*)(const Tensor&, const Tensor&);

// The Python implementations, by operator name (set once by _compiled.py).
py::dict& fallbacks() {
  static py::dict* d = new py::dict();  // leaked: lives as long as the interpreter
  return *d;
}

bool scalar_operand(py::handle obj, const Tensor& like, Tensor& out) {
  PyObject* p = obj.ptr();
  if (!is_floating(like.dtype())) return false;
  if (PyFloat_CheckExact(p)) {
    out = kernel::scalar_like(like, PyFloat_AS_DOUBLE(p));
    return true;
  }
  if (PyLong_CheckExact(p)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
    if (overflow != 0) return false;
    out = kernel::scalar_like(like, static_cast<double>(v));
    return true;
  }
  return false;
}

// The Tensor held by `h` when h is exactly a _C.Tensor (not a subclass), without pybind11's
// type lookups (several per call otherwise); null when the slow path must decide.
const Tensor* exact_tensor(py::handle h) {
  static PyTypeObject* const tensor_type =
      reinterpret_cast<PyTypeObject*>(py::type::of<Tensor>().ptr());
  if (Py_TYPE(h.ptr()) != tensor_type) return nullptr;
  auto* inst = reinterpret_cast<py::detail::instance*>(h.ptr());
  if (!inst->simple_layout || !inst->simple_holder_constructed) return nullptr;
  return static_cast<const Tensor*>(inst->simple_value_holder[0]);
}

// Runs the op with the GIL released when a tensor is large (Note [GIL in forward ops]).
template <BinaryOp Op, bool Reflected>
Tensor call(const Tensor& a, const Tensor& b) {
  ReleaseGilIfLarge nogil(a, b);
  return Reflected ? Op(b, a) : Op(a, b);
}

template <BinaryOp Op, bool Reflected>
py::object binary(const char* name, py::handle self, py::handle other) {
  const Tensor* fa = exact_tensor(self);
  const Tensor* fb = fa ? exact_tensor(other) : nullptr;
  if (fb) return py::cast(call<Op, Reflected>(*fa, *fb));
  const Tensor& a = self.cast<const Tensor&>();
  if (py::isinstance<Tensor>(other))
    return py::cast(call<Op, Reflected>(a, other.cast<const Tensor&>()));
  Tensor s;
  if (scalar_operand(other, a, s)) return py::cast(call<Op, Reflected>(a, s));
  return fallbacks()[name](self, other);
}

// other / self for a Python number `other`: torch's self.reciprocal() * other, the same rounding
// and the same node (MulBackward0) as torch; the Python version (methods.py) for anything else.
py::object rtruediv(py::handle self, py::handle other) {
  const Tensor& a = self.cast<const Tensor&>();
  Tensor s;
  if (scalar_operand(other, a, s)) {
    Tensor out;
    {
      ReleaseGilIfLarge nogil(a, s);  // the GIL is back before py::cast
      out = ops::mul(ops::reciprocal(a), s);
    }
    return py::cast(std::move(out));
  }
  return fallbacks()["__rtruediv__"](self, other);
}

// other - self for a Python number `other` and a floating self: torch's rsub(self, other), one
// RsubBackward1 node (formulas/binary.py); the Python version (methods.py) for anything else.
py::object rsub(py::handle self, py::handle other) {
  const Tensor& a = self.cast<const Tensor&>();
  PyObject* p = other.ptr();
  if (is_floating(a.dtype()) && (PyFloat_CheckExact(p) || PyLong_CheckExact(p))) {
    double v = PyFloat_CheckExact(p) ? PyFloat_AS_DOUBLE(p) : PyLong_AsDouble(p);
    if (!(v == -1.0 && PyErr_Occurred())) {
      Tensor out;
      {
        ReleaseGilIfLarge nogil(a);  // the GIL is back before py::cast
        out = ops::rsub_scalar(a, v);
      }
      return py::cast(std::move(out));
    }
    PyErr_Clear();
  }
  return fallbacks()["__rsub__"](self, other);
}

template <BinaryOp Op, bool Reflected>
void def_binary(py::module_& m, const char* name) {
  m.def(name, [name](py::handle self, py::handle other) {
    return binary<Op, Reflected>(name, self, other);
  });
}

}  // namespace

void init_operators(py::module_& m) {
  py::module_ f = m.def_submodule("_fast_ops", "C++ operator fast paths (Note [Fast operators]).");
  def_binary<&ops::add, false>(f, "__add__");
  def_binary<&ops::add, true>(f, "__radd__");
  def_binary<&ops::sub, false>(f, "__sub__");
  f.def("__rsub__", &rsub);
  def_binary<&ops::mul, false>(f, "__mul__");
  def_binary<&ops::mul, true>(f, "__rmul__");
  def_binary<&ops::div, false>(f, "__truediv__");
  f.def("__rtruediv__", &rtruediv);
  f.def("__neg__", [](const Tensor& t) {
    ReleaseGilIfLarge nogil(t);
    return ops::neg(t);
  });
  // Makes a builtin callable bind `self` like a Python function when set on a class.
  m.def("_instancemethod", [](py::function fn) {
    return py::reinterpret_steal<py::object>(PyInstanceMethod_New(fn.ptr()));
  });
  f.def("_set_fallbacks", [](py::dict d) {
    for (auto item : d) fallbacks()[item.first] = item.second;
  });
  // Note [Type promotion] in transgrad/_dtypes.py: the wrapped numbers the Python operators make
  // (a 0-d array of the dtype _dtypes.scalar_dtype chose), and the default dtype they and the
  // kernels (kernel::scalar_like, true division of integers) use.
  m.def("_wrapped_number", [](const py::array& a) {
    Tensor t = tensor_from_numpy(a);
    t.set_wrapped_number(true);
    return t;
  });
  m.def("_set_default_dtype", [](py::handle d) { set_default_dtype(dtype_from_py(d)); });
}

}  // namespace tg::python
