// _C._optim: the multi-tensor optimizer steps of csrc/kernels/optim.h, for the engine-neutral
// optimizers (python/transgrad/optim/, through the backend's `optim`). The lists are converted
// with the GIL held, the steps run without it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "kernels/optim.h"
#include "python/common.h"
#include "python/registration.h"

namespace py = pybind11;

void register_optim(py::module_& m) {
  using tg::kernel::adagrad_step_;
  using tg::kernel::adam_step_;
  using tg::kernel::rmsprop_step_;
  using tg::kernel::sgd_step_;
  // ReleaseGil, not py::gil_scoped_release: a re-take at exit parks (Note [Threads at exit])
  const auto release = py::call_guard<tg::python::ReleaseGil>();
  m.def("sgd_step_", &sgd_step_, release, py::arg("params"), py::arg("grads"),
        py::arg("momentum_buffers"), py::arg("first"), py::arg("lr"), py::arg("momentum"),
        py::arg("dampening"), py::arg("weight_decay"), py::arg("nesterov"), py::arg("maximize"));
  m.def("adam_step_", &adam_step_, release, py::arg("params"), py::arg("grads"),
        py::arg("exp_avgs"), py::arg("exp_avg_sqs"), py::arg("max_exp_avg_sqs"),
        py::arg("step_sizes"), py::arg("bc2_sqrts"), py::arg("lr"), py::arg("beta1"),
        py::arg("beta2"), py::arg("eps"), py::arg("weight_decay"), py::arg("decoupled"),
        py::arg("amsgrad"), py::arg("maximize"));
  m.def("rmsprop_step_", &rmsprop_step_, release, py::arg("params"), py::arg("grads"),
        py::arg("square_avgs"), py::arg("grad_avgs"), py::arg("momentum_buffers"), py::arg("lr"),
        py::arg("alpha"), py::arg("eps"), py::arg("weight_decay"), py::arg("momentum"),
        py::arg("centered"), py::arg("maximize"));
  m.def("adagrad_step_", &adagrad_step_, release, py::arg("params"), py::arg("grads"),
        py::arg("sums"), py::arg("clrs"), py::arg("weight_decay"), py::arg("eps"),
        py::arg("maximize"));
}
