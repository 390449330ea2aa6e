"""The exception classes of transgrad, shared by both engines: torch's (``LinAlgError``) and
the one its argument checks raise (``ArgumentError``, Note [Error classes]).

``LinAlgError`` is ``torch.linalg.LinAlgError``: a ``RuntimeError`` raised when a linear
algebra routine fails on its input (a singular matrix for ``inv``/``solve``, one that is not
positive-definite for ``cholesky``), so ``except torch.linalg.LinAlgError`` and ``except
RuntimeError`` both catch it, as in torch. The compiled engine maps its C++ ``tg::LinAlgError``
to this class (csrc/python/module.cpp).

Note [Error classes]
~~~~~~~~~~~~~~~~~~~~
Every name transgrad shares with torch raises torch's class for the same bad input: torch's
``TORCH_CHECK`` is a ``RuntimeError``, ``TORCH_CHECK_INDEX`` an ``IndexError`` (a dim or index
out of range), ``TORCH_CHECK_TYPE`` and the Python binding's argument parser a ``TypeError``,
``TORCH_CHECK_VALUE`` and torch's Python-level checks (``torch.nn.functional``) often a
``ValueError``. transgrad's shape and argument checks were written raising ``ValueError``,
which its docs and tests (and so its users) catch; torch code catches ``RuntimeError``. Those
checks raise ``ArgumentError``, which is both (as numpy's ``AxisError`` is both a
``ValueError`` and an ``IndexError``), so ``except RuntimeError`` and ``except ValueError``
both keep working, and an OpInfo ``error_inputs`` sample expecting either class is met.

Where it comes from, on each engine:
- the compiled engine maps C++ ``tg::ValueError`` (csrc/tensor/errors.h) to ``ArgumentError``
  (csrc/python/module.cpp), which also covers a formula's ``raise ValueError`` (the translator
  lowers it to ``throw tg::ValueError``);
- the reference engine's kernels raise ``ArgumentError`` where their C++ twins throw
  ``tg::ValueError``, and ``apply_formula`` (reference/formula.py) turns a plain
  ``ValueError`` out of a formula into ``ArgumentError``, the twin of that lowering;
- the API raises ``ArgumentError`` for a check of its own where torch raises
  ``RuntimeError`` and the check used to raise ``ValueError``; a new check raises torch's
  class (a plain ``RuntimeError``, ``IndexError`` or ``TypeError``) with torch's words first
  and transgrad's context after.
A bug that surfaces as Python's own ``IndexError: tuple index out of range`` or
``AttributeError`` is not a class to keep: such inputs get torch's check.
"""


class LinAlgError(RuntimeError):
    """Error raised by torch.linalg function when the cause of error is a numerical
    inconsistency in the data (as torch's)."""


LinAlgError.__module__ = "transgrad.linalg"


class ArgumentError(RuntimeError, ValueError):
    """A shape, dtype or argument check failed: torch's ``RuntimeError`` and transgrad's
    earlier ``ValueError`` at once (Note [Error classes])."""
