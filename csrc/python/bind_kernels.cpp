// _C._kernels.NAME: every raw kernel of csrc/kernels/kernels.h, for tests and debugging. The
// Tensor <-> Python conversion is the _C.Tensor class of tensor_binding.cpp; DType parameters
// accept whatever dtype_from_py accepts (names, numpy dtypes, _C.DType).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "kernels/kernels.h"
#include "python/common.h"
#include "python/registration.h"
#include "tensor/parallel.h"

namespace py = pybind11;

void register_kernels_nn(py::module_& m);  // bind_kernels_nn.cpp
void register_kernels_special(py::module_& m);  // bind_kernels_special.cpp

void register_kernels(py::module_& m) {
  namespace k = tg::kernel;
  using tg::Shape;
  using tg::Tensor;
  auto x = py::arg("x");

#define TG_UNARY(NAME) m.def(#NAME, &k::NAME, x);
  TG_UNARY(neg) TG_UNARY(exp) TG_UNARY(log) TG_UNARY(log1p) TG_UNARY(expm1) TG_UNARY(sqrt)
  TG_UNARY(rsqrt) TG_UNARY(reciprocal) TG_UNARY(sin) TG_UNARY(cos) TG_UNARY(tan) TG_UNARY(tanh)
  TG_UNARY(sigmoid) TG_UNARY(relu) TG_UNARY(abs) TG_UNARY(sign) TG_UNARY(erf)
  TG_UNARY(logical_not) TG_UNARY(zeros_like) TG_UNARY(ones_like) TG_UNARY(contiguous)
  TG_UNARY(clone)
#undef TG_UNARY
  m.def("pow_scalar", &k::pow_scalar, x, py::arg("exponent"));
  m.def("clamp", &k::clamp, x, py::arg("min"), py::arg("max"));
  m.def("cast", [](const Tensor& t, py::handle d) { return k::cast(t, tg::python::dtype_from_py(d)); }, x,
        py::arg("dtype"));

#define TG_BINARY(NAME) m.def(#NAME, &k::NAME, py::arg("a"), py::arg("b"));
  TG_BINARY(add) TG_BINARY(sub) TG_BINARY(mul) TG_BINARY(div) TG_BINARY(pow) TG_BINARY(maximum)
  TG_BINARY(minimum) TG_BINARY(eq) TG_BINARY(ne) TG_BINARY(lt) TG_BINARY(le) TG_BINARY(gt)
  TG_BINARY(ge) TG_BINARY(matmul)
#undef TG_BINARY
  m.def("where", &k::where, py::arg("cond"), py::arg("a"), py::arg("b"));

  m.def("full", [](const Shape& s, double v, py::handle d) { return k::full(s, v, tg::python::dtype_from_py(d)); },
        py::arg("shape"), py::arg("value"), py::arg("dtype"));
  m.def("scalar_like", &k::scalar_like, x, py::arg("value"));

  auto dims = py::arg("dims"), keepdim = py::arg("keepdim");
  m.def("sum", &k::sum, x, dims, keepdim);
  m.def("amax", &k::amax, x, dims, keepdim);
  m.def("amin", &k::amin, x, dims, keepdim);
  m.def("logsumexp", &k::logsumexp, x, dims, keepdim);
  m.def("max_dim", &k::max_dim, x, py::arg("dim"), keepdim);
  m.def("min_dim", &k::min_dim, x, py::arg("dim"), keepdim);
  m.def("softmax", &k::softmax, x, py::arg("dim"));
  m.def("log_softmax", &k::log_softmax, x, py::arg("dim"));
  m.def("sum_to", &k::sum_to, x, py::arg("shape"));

  m.def("reshape", &k::reshape, x, py::arg("shape"));
  m.def("expand", &k::expand, x, py::arg("shape"));
  m.def("permute", &k::permute, x, dims);
  m.def("transpose", &k::transpose, x, py::arg("dim0"), py::arg("dim1"));
  m.def("unsqueeze", &k::unsqueeze, x, py::arg("dim"));
  m.def("squeeze", &k::squeeze, x, dims);
  m.def("slice", &k::slice, x, py::arg("dim"), py::arg("start"), py::arg("stop"), py::arg("step"));
  m.def("select", &k::select, x, py::arg("dim"), py::arg("index"));
  m.def("cat", &k::cat, py::arg("tensors"), py::arg("dim"));
  m.def("stack", &k::stack, py::arg("tensors"), py::arg("dim"));

  m.def("index_select", &k::index_select, x, py::arg("dim"), py::arg("index"));
  m.def("index_add", &k::index_add, x, py::arg("dim"), py::arg("index"), py::arg("source"));
  m.def("gather", &k::gather, x, py::arg("dim"), py::arg("index"));
  m.def("scatter_add", &k::scatter_add, x, py::arg("dim"), py::arg("index"), py::arg("source"));
  m.def("slice_scatter", &k::slice_scatter, x, py::arg("source"), py::arg("dim"), py::arg("start"),
        py::arg("stop"), py::arg("step"));
  m.def("select_scatter", &k::select_scatter, x, py::arg("source"), py::arg("dim"), py::arg("index"));
  m.def("diagonal", &k::diagonal, x, py::arg("offset"), py::arg("dim1"), py::arg("dim2"));
  m.def("diagonal_scatter", &k::diagonal_scatter, x, py::arg("source"), py::arg("offset"),
        py::arg("dim1"), py::arg("dim2"));

  m.def("item", &k::item, x);
  register_kernels_nn(m);
  register_kernels_special(m);

  // Intra-op thread count (Note [Intra-op threads]); underscored: not kernels.
  m.def("_get_num_threads", &tg::get_num_threads);
  m.def("_set_num_threads", &tg::set_num_threads, py::arg("n"));
}
