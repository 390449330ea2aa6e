// _C._kernels.NAME for the kernels of torch's derivative table (csrc/kernels/kernels_special.h),
// registered by register_kernels (bind_kernels.cpp). Hand-written until signatures.py generates
// the bindings.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "kernels/kernels.h"

namespace py = pybind11;

void register_kernels_special(py::module_& m) {
  namespace k = tg::kernel;
  auto x = py::arg("x");
#define TG_UNARY(NAME) m.def(#NAME, &k::NAME, x);
  TG_UNARY(sinh) TG_UNARY(cosh) TG_UNARY(asinh) TG_UNARY(acosh) TG_UNARY(atanh) TG_UNARY(asin)
  TG_UNARY(acos) TG_UNARY(atan) TG_UNARY(exp2) TG_UNARY(erfc) TG_UNARY(erfinv) TG_UNARY(lgamma)
  TG_UNARY(digamma) TG_UNARY(trunc)
#undef TG_UNARY
  m.def("polygamma", &k::polygamma, py::arg("n"), x);
  m.def("nan_to_num", &k::nan_to_num, x, py::arg("nan"), py::arg("posinf"), py::arg("neginf"));
#define TG_BINARY(NAME) m.def(#NAME, &k::NAME, py::arg("a"), py::arg("b"));
  TG_BINARY(atan2) TG_BINARY(hypot) TG_BINARY(fmod) TG_BINARY(remainder) TG_BINARY(floor_divide)
  TG_BINARY(trunc_divide)
#undef TG_BINARY
  m.def("prod", &k::prod, x, py::arg("dims"), py::arg("keepdim"));
  m.def("cumprod", &k::cumprod, x, py::arg("dim"));
  m.def("logcumsumexp", &k::logcumsumexp, x, py::arg("dim"));
  m.def("cummax", &k::cummax, x, py::arg("dim"));
  m.def("cummin", &k::cummin, x, py::arg("dim"));
  m.def("scatter", &k::scatter, x, py::arg("dim"), py::arg("index"), py::arg("source"));
  m.def("masked_select", &k::masked_select, x, py::arg("mask"));
  m.def("masked_scatter", &k::masked_scatter, x, py::arg("mask"), py::arg("source"));
  m.def("det", &k::det, x);
  m.def("slogdet", &k::slogdet, x);
  m.def("inverse", &k::inverse, x);
  m.def("solve", &k::solve, py::arg("a"), py::arg("b"));
}
