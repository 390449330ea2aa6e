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
from transgrad.reference.kernel_support import half_in_float32


class ReferenceExecutor:
    """Runs ``ops.NAME`` (a FormulaDef) and ``kernel.NAME`` for formulas in Python."""

    def apply_formula(self, fdef: lang.FormulaDef, args: Tuple[Any, ...],
                      kwargs: Dict[str, Any]) -> Any:
        return apply_formula(fdef, args, kwargs)

    def __init__(self) -> None:
        self._kernels: Dict[str, Callable[..., Any]] = {}
        self._package_kernels: Dict[str, Tuple[Callable[..., Any], str]] = {}  # name -> (fn, file)

    def add_kernels(self, bodies: Dict[str, Callable[..., Any]], source: str) -> None:
        """A package's kernels from the file ``source`` (reference/user_kernels.py), all or
        none: a name another file declared already is a ValueError naming both (a file loaded
        again replaces its own). The translator refuses a name transgrad ships before this."""
        for name in bodies:
            held = self._package_kernels.get(name)
            if held is not None and held[1] != source:
                raise ValueError(f"kernel {name!r} of {source} is declared already by "
                                 f"{held[1]}; give one of them another name")
        for name, fn in bodies.items():
            self._package_kernels[name] = (fn, source)

    def kernel(self, name: str) -> Callable[..., Any]:
        fn = self._kernels.get(name)
        if fn is not None:
            return fn
        package = self._package_kernels.get(name)
        if package is not None:
            return package[0]
        try:
            fn = half_in_float32(name, getattr(kernels, name))
        except AttributeError:
            raise AttributeError(f"transgrad.lang.kernel has no kernel {name!r}; kernels are "
                                 "declared in translator/signatures.py, or in a package's "
                                 "kernel file given to extension.load(kernels=...)") from None
        self._kernels[name] = fn
        return fn


EXECUTOR = ReferenceExecutor()
