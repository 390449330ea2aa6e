"""``transgrad.reference.autograd.functional``: vjp, jvp, jacobian, hessian, vhp, hvp
(PyTorch's signatures).

Engine-neutral, written once in ``transgrad/_api/functional.py`` (the engine is the inputs').
"""

from transgrad._api.functional import hessian, hvp, jacobian, jvp, vhp, vjp

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]
