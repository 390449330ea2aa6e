// Entry points other parts of the build define and module.cpp calls (global namespace):
// register_ops in the generated <build>/generated/bindings.cpp, register_kernels in
// csrc/python/bind_kernels.cpp.
#pragma once

#include <pybind11/pybind11.h>

void register_ops(pybind11::module_& ops);
void register_kernels(pybind11::module_& kernels);
