// Entry points other parts of the build define and module.cpp calls (global namespace):
// register_ops in the generated <build>/generated/bindings.cpp, register_kernels in
// csrc/python/bind_kernels.cpp; and what an extension module checks before it registers its ops.
#pragma once

#include <pybind11/pybind11.h>

#include "python/common.h"

TG_PYTHON_API void register_ops(pybind11::module_& ops);
TG_PYTHON_API void register_kernels(pybind11::module_& kernels);
TG_PYTHON_API void register_optim(pybind11::module_& optim);  // csrc/python/bind_optim.cpp

namespace tg::python {

// Note [Version check]
// An extension (transgrad.extension.load, transgrad_add_extension) links to libtransgrad.so and
// shares its tensor type, engine and pybind11 types. It is only sound against the exact build it
// was compiled for: its init calls check_extension_abi with the transgrad version of the headers
// it saw and its own PYBIND11_VERSION_HEX (pybind11 types are shared through internals that are
// versioned), and refuses to load, naming both versions, when either differs from this library's.
const char* runtime_version();             // the version of the running libtransgrad, e.g. "0.1.0"
unsigned long runtime_pybind11_version();  // the PYBIND11_VERSION_HEX it was built with
// Throws pybind11::import_error naming `module`, both versions and what to do.
TG_PYTHON_API void check_extension_abi(const char* module, const char* built_version,
                                       unsigned long built_pybind11_version);

}  // namespace tg::python
