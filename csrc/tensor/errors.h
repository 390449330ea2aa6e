// Exceptions thrown by the C++ core. The Python bindings map them to ValueError, IndexError,
// TypeError and RuntimeError; everything else that derives std::exception becomes RuntimeError.
#pragma once

#include <stdexcept>
#include <string>

namespace tg {

struct ValueError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct IndexError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct TypeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct RuntimeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace tg
