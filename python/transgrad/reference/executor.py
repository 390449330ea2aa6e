"""The reference engine as the executor of the formula language (Note [Who runs a formula] in
transgrad/lang.py).

Input: a ``FormulaDef`` and its arguments, or a kernel name. Output: the formula applied by
``formula.apply_formula`` (node recorded when needed), or the numpy kernel of ``kernels.py``.
``transgrad.reference`` registers ``EXECUTOR`` with ``lang.set_executor`` when it is imported.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Tuple

from transgrad import lang
from transgrad.reference import kernels
from transgrad.reference.formula import apply_formula


class ReferenceExecutor:
    """Runs ``ops.NAME`` (a FormulaDef) and ``kernel.NAME`` for formulas in Python."""

    def apply_formula(self, fdef: lang.FormulaDef, args: Tuple[Any, ...],
                      kwargs: Dict[str, Any]) -> Any:
        return apply_formula(fdef, args, kwargs)

    def kernel(self, name: str) -> Callable[..., Any]:
        try:
            return getattr(kernels, name)
        except AttributeError:
            raise AttributeError(f"transgrad.lang.kernel has no kernel {name!r}; kernels are "
                                 "declared in translator/signatures.py") from None


EXECUTOR = ReferenceExecutor()
