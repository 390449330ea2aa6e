// _C._kernels.NAME: every raw kernel of translator/signatures.py, for tests and debugging,
// bound by the generated register_kernel_table (translator/emit_kernels.py). The Tensor <->
// Python conversion is the _C.Tensor class of tensor_binding.cpp; DType parameters accept
// whatever dtype_from_py accepts (names, numpy dtypes, _C.DType).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "kernels/kernels.h"
#include "python/common.h"
#include "python/registration.h"
#include "tensor/parallel.h"

namespace py = pybind11;

void register_kernel_table(py::module_& m);  // generated: <build>/generated/kernel_bindings.cpp

void register_kernels(py::module_& m) {
  register_kernel_table(m);  // every kernel of translator/signatures.py

  // Intra-op thread count (Note [Intra-op threads]); underscored: not kernels.
  m.def("_get_num_threads", &tg::get_num_threads);
  m.def("_set_num_threads", &tg::set_num_threads, py::arg("n"));
}
