"""The exception classes of transgrad that PyTorch also has, shared by both engines.

``LinAlgError`` is ``torch.linalg.LinAlgError``: a ``RuntimeError`` raised when a linear
algebra routine fails on its input (a singular matrix for ``inv``/``solve``, one that is not
positive-definite for ``cholesky``), so ``except torch.linalg.LinAlgError`` and ``except
RuntimeError`` both catch it, as in torch. The compiled engine maps its C++ ``tg::LinAlgError``
to this class (csrc/python/module.cpp).
"""


class LinAlgError(RuntimeError):
    """Error raised by torch.linalg function when the cause of error is a numerical
    inconsistency in the data (as torch's)."""


LinAlgError.__module__ = "transgrad.linalg"
