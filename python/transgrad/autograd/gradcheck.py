"""``autograd.gradcheck`` as a module (torch's path for ``GradcheckError``): ``gradcheck``,
``gradgradcheck`` and ``GradcheckError``, engine-neutral in ``transgrad/_api/gradcheck.py``.
The package imports this module before binding the name ``gradcheck`` to the function, so
``autograd.gradcheck`` stays the function, as torch's."""

from transgrad._api.gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]
