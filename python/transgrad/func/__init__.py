"""``transgrad.func``: torch.func's function transforms on both engines.

Input: functions of tensors (pytrees of dicts, lists and tuples of them) and modules. Output:
torch.func's names with torch's signatures, results and errors: ``grad``, ``grad_and_value``,
``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian`` (``_transforms``), ``vmap`` (``_vmap``),
``functional_call`` and ``stack_module_state`` (``_module_state``).

What differs from torch is how, not what (each module's Note says it): the transforms run the
function once and differentiate with the engine's reverse mode, so ``jvp`` and ``jacfwd`` are
computed by reverse mode (Note [jvp and jacfwd by reverse mode]); nesting works without level
counters (Note [Levels without a level counter]); ``vmap`` runs the function once per batch
element and stacks the results (Note [vmap is a loop]). Engine-neutral: the engine is the one of
the tensors, so ``transgrad.reference.func`` is this package.
"""

from transgrad.func._module_state import functional_call, stack_module_state
from transgrad.func._transforms import (
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    vjp,
)
from transgrad.func._vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "stack_module_state", "vjp", "vmap"]
