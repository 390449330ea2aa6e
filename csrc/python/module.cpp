// PYBIND11_MODULE(_C): the compiled engine. Hand-written parts: the Tensor class and numpy
// interop (tensor_binding.cpp), autograd entry points (autograd_binding.cpp); generated part:
// the formulas as _C.ops.NAME (bindings.cpp); raw kernels as _C._kernels.NAME (bind_kernels.cpp).
#include <pybind11/pybind11.h>

#include <exception>

#include "python/common.h"
#include "python/registration.h"

namespace py = pybind11;

PYBIND11_MODULE(_C, m) {
  m.doc() = "transgrad's compiled engine: C++ tensors, kernels, formulas and autograd";
  m.attr("__version__") = tg::python::runtime_version();  // of libtransgrad (Note [Version check])

  // tg errors -> the matching Python exceptions (they derive std::runtime_error, which pybind11
  // alone would turn into RuntimeError); tg::ValueError is transgrad._errors.ArgumentError, a
  // RuntimeError and a ValueError (Note [Error classes] in python/transgrad/_errors.py). The
  // classes are held for the life of the process (never released: translators may run while
  // the interpreter shuts down).
  static PyObject* linalg_error =
      py::object(py::module_::import("transgrad._errors").attr("LinAlgError")).release().ptr();
  static PyObject* argument_error =
      py::object(py::module_::import("transgrad._errors").attr("ArgumentError")).release().ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const tg::LinAlgError& e) {
      PyErr_SetString(linalg_error, e.what());
    } catch (const tg::ValueError& e) {
      PyErr_SetString(argument_error, e.what());
    } catch (const tg::IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const tg::TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const tg::RuntimeError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });

  tg::python::init_tensor(m);
  tg::python::init_autograd(m);
  py::module_ kernels = m.def_submodule("_kernels", "Raw, non-differentiable kernels.");
  register_kernels(kernels);
  py::module_ optim =
      m.def_submodule("_optim", "Multi-tensor optimizer steps (csrc/kernels/optim.h).");
  register_optim(optim);
  py::module_ ops = m.def_submodule("ops", "The formulas, compiled (differentiable ops).");
  register_ops(ops);
  tg::python::init_operators(m);
  tg::python::init_anomaly();
}
