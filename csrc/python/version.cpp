// The version checks of extension modules (Note [Version check] in registration.h).
#include <string>

#include "python/registration.h"
#include "transgrad_version.h"

namespace tg::python {

const char* runtime_version() { return TRANSGRAD_VERSION; }

unsigned long runtime_pybind11_version() { return PYBIND11_VERSION_HEX; }

namespace {
std::string pybind11_version_text(unsigned long hex) {
  return std::to_string((hex >> 24) & 0xff) + "." + std::to_string((hex >> 16) & 0xff) + "." +
         std::to_string((hex >> 8) & 0xff);
}
}  // namespace

void check_extension_abi(const char* module, const char* built_version,
                         unsigned long built_pybind11_version) {
  const std::string running = runtime_version();
  if (running != built_version) {
    throw pybind11::import_error(
        std::string("transgrad extension '") + module + "' was built against transgrad " +
        built_version + ", but transgrad " + running +
        " is installed: rebuild the extension against the installed transgrad "
        "(transgrad.extension.load rebuilds it; a package: pip install it again)");
  }
  if (built_pybind11_version != runtime_pybind11_version()) {
    throw pybind11::import_error(
        std::string("transgrad extension '") + module + "' was built with pybind11 " +
        pybind11_version_text(built_pybind11_version) + ", but transgrad " + running +
        " was built with pybind11 " + pybind11_version_text(runtime_pybind11_version()) +
        ": build it with the pybind11 headers shipped in transgrad/include");
  }
}

}  // namespace tg::python
