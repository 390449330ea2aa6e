// Exceptions thrown by the C++ core. The Python bindings map them to transgrad's
// ArgumentError (a RuntimeError and a ValueError: Note [Error classes] in
// python/transgrad/_errors.py), IndexError, TypeError, RuntimeError and
// transgrad.linalg.LinAlgError; everything else that derives std::exception becomes
// RuntimeError.
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
// A linear algebra routine failed on its input (singular, not positive-definite): Python's
// transgrad.linalg.LinAlgError, a RuntimeError, as torch.linalg.LinAlgError.
struct LinAlgError : RuntimeError {
  using RuntimeError::RuntimeError;
};

}  // namespace tg
