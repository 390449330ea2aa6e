"""A package's own kernels on the reference engine (issue 12 item 5).

Stage: extension loading. Input: a package's kernel file (``kernels.py``: a module-level
``KERNELS`` declaration table in the format of translator/signatures.py, and one numpy function
per declared kernel). Output: ``load_kernels`` -> ``{name: callable}``, each body checked against
its declaration and adapted to the formula language's calling convention, for
``ReferenceExecutor.add_kernels``; and the declarations, for ``translator.user_kernels.declared``.

The numpy convention (Note [Package kernel bodies]): a body takes a numpy array for each tensor
parameter (a list of arrays for ``Sequence[Tensor]``, None for an absent ``Optional[Tensor]``)
and Python values for the others, and returns an array (``Tensor``), a tuple of arrays
(``(Tensor, Tensor)``, ``(Tensor, Tensor, Tensor)``) or a number (``int``/``float``), never
recording history. A body with
other parameter names, a missing default, or a result of another count is a clear error naming
the kernel and its file, never a wrong answer.
"""

from __future__ import annotations

import importlib.util
import inspect
from typing import Any, Callable, Dict, Tuple

import numpy as np

from transgrad.reference.kernel_support import _arr, _new

_DEFAULT_VALUES = {"all": None, "False": False, "True": True}


def load_kernels(path: str) -> Tuple[Dict[str, Any], Dict[str, Callable[..., Any]]]:
    """(declarations, adapted bodies) of the kernel file ``path``; ValueError when a declared
    kernel has no body or a body does not match its declaration."""
    from transgrad.translator.user_kernels import read_declarations

    table = read_declarations(path)
    spec = importlib.util.spec_from_file_location("transgrad_package_kernels", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import kernel file {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bodies = {}
    for name, sig in table.items():
        fn = getattr(module, name, None)
        if not callable(fn):
            raise ValueError(f"{path}:{sig.line}: kernel {name!r} is declared but the file "
                             "defines no numpy body of that name")
        check_body(fn, sig, path)
        bodies[name] = _adapted(fn, sig, path)
    return table, bodies


def check_body(fn: Callable[..., Any], sig: Any, path: str) -> None:
    """ValueError unless ``fn``'s parameters are the declaration's, in order, with its
    defaults (``dims=all`` is None)."""
    params = list(inspect.signature(fn).parameters.values())
    where = f"{path}:{sig.line}: numpy body of kernel {sig.name!r}"
    got = [p.name for p in params]
    want = [p.name for p in sig.params]
    if got != want or any(p.kind not in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY)
                          for p in params):
        raise ValueError(f"{where} takes ({', '.join(got)}); its declaration takes "
                         f"({', '.join(want)})")
    for p, d in zip(params, sig.params):
        if d.default is not None and (p.default is inspect.Parameter.empty
                                      or p.default != _DEFAULT_VALUES[d.default]):
            raise ValueError(f"{where}: parameter {d.name!r} needs the default "
                             f"{_DEFAULT_VALUES[d.default]!r} (declared {d.default})")


def _adapted(fn: Callable[..., Any], sig: Any, path: str) -> Callable[..., Any]:
    """``fn`` called with Tensors and returning Tensors (Note [Package kernel bodies])."""
    signature = inspect.signature(fn)
    types = {p.name: p.type for p in sig.params}

    def arrays(name: str, value: Any) -> Any:
        t = types[name]
        if t in ("Tensor", "Optional[Tensor]"):
            return None if value is None else _arr(value)
        if t == "Sequence[Tensor]":
            return [_arr(v) for v in value]
        return value

    def kernel(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        out = fn(**{k: arrays(k, v) for k, v in bound.arguments.items()})
        if sig.returns == "Tensor" and isinstance(out, (np.ndarray, np.generic)):
            return _new(out)
        if sig.returns.startswith("(") and isinstance(out, tuple) and \
                len(out) == sig.num_outputs and \
                all(isinstance(o, (np.ndarray, np.generic)) for o in out):
            return tuple(_new(o) for o in out)
        if sig.returns in ("int", "float") and isinstance(out, (int, float)) and \
                not isinstance(out, bool):
            return out
        raise TypeError(f"{path}:{sig.line}: numpy body of kernel {sig.name!r} returned "
                        f"{type(out).__name__}; its declaration returns {sig.returns} "
                        "(numpy arrays for tensors)")

    kernel.__name__ = kernel.__qualname__ = sig.name
    return kernel
