// _C._kernels.NAME for the neural-network kernels (csrc/kernels/kernels_nn.h), registered by
// register_kernels (bind_kernels.cpp).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "kernels/kernels.h"
#include "python/common.h"  // the Tensor caster (Note [One Python object per tensor])

namespace py = pybind11;

void register_kernels_nn(py::module_& m) {
  namespace k = tg::kernel;
  auto x = py::arg("x");
  auto ks = py::arg("kernel_size"), st = py::arg("stride"), pd = py::arg("padding"), dl = py::arg("dilation");
  m.def("im2col", &k::im2col, x, ks, st, pd, dl);
  m.def("col2im", &k::col2im, py::arg("cols"), py::arg("input_size"), ks, st, pd, dl);
  m.def("max_pool2d", &k::max_pool2d, x, ks, st, pd, dl);
  m.def("adaptive_pool_weights", &k::adaptive_pool_weights, x, py::arg("in_size"), py::arg("out_size"));
  m.def("cumsum", &k::cumsum, x, py::arg("dim"));
  m.def("flip", &k::flip, x, py::arg("dims"));
  m.def("tril", &k::tril, x, py::arg("diagonal"));
  m.def("triu", &k::triu, x, py::arg("diagonal"));
  m.def("pad", &k::pad, x, py::arg("pads"), py::arg("value"));
  m.def("sort", &k::sort, x, py::arg("dim"), py::arg("descending"));
  m.def("topk", &k::topk, x, py::arg("k"), py::arg("dim"), py::arg("largest"));
}
