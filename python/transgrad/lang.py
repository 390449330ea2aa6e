"""The formula language: everything a formula module may import. Declarations only.

A formula module does ``from transgrad.lang import formula, Tensor, kernel, ops, ...`` and
nothing else (plus ``import math``). The translator reads these names by spelling (libcst).
This module declares; it never executes and never imports an engine:

* the decorators (``formula``, ``helper``, ``samples``) that register formulas in ``REGISTRY``
  and run the capture checker when a module is imported;
* ``FormulaOptions``, the one list of formula options (``@formula``'s keyword arguments are its
  fields);
* the sample markers (``T``, ``I``, ``B``, ``case``) the test-suite turns into tensors;
* the two namespaces ``kernel`` and ``ops`` formulas call. They resolve names here and hand
  execution to the engine registered with ``set_executor`` (Note [Who runs a formula]).

Invariant: ``transgrad.lang`` imports nothing from ``transgrad`` but, lazily, the translator's
checker and ``transgrad.formulas`` (declarations too).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import threading
from typing import Any, Callable, Dict, Optional, Protocol, Sequence, Tuple, Union

__all__ = [
    "formula", "helper", "samples", "case", "T", "I", "B",
    "Tensor", "Optional", "Sequence", "Scalar", "Shape", "Dims", "DType",
    "kernel", "ops", "REGISTRY", "FormulaDef", "FormulaOptions",
]


class Tensor:
    """Annotation marker for a tensor parameter. Never instantiated by formulas."""


Scalar = Union[int, float]
Shape = Tuple[int, ...]
Dims = Tuple[int, ...]


class DType:
    """Annotation marker for a dtype parameter ("float32", "float64", "int64", "bool")."""


@dataclasses.dataclass(frozen=True)
class FormulaOptions:
    """The options of ``@formula(...)``: this dataclass is their one list. The decorator takes
    exactly these fields as keyword arguments (``formula_options`` checks and normalises them);
    the translator reads the same names from the decorator call."""

    differentiable_outputs: Optional[Tuple[str, ...]] = None
    hidden_outputs: Tuple[str, ...] = ()
    once_differentiable: bool = False
    materialize_grads: bool = False
    inplace_saves_copy: bool = False  # Note [In-place variants] in translator/inplace.py


def formula_options(**options: Any) -> FormulaOptions:
    """``FormulaOptions`` from ``@formula``'s keyword arguments: unknown names are a TypeError,
    name sequences become tuples, flags become bools."""
    known = {f.name: f for f in dataclasses.fields(FormulaOptions)}
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise TypeError(f"formula() got unexpected keyword argument(s) {', '.join(unknown)}; "
                        f"the options are {', '.join(known)}")
    values: Dict[str, Any] = {}
    for name, value in options.items():
        default = known[name].default
        if isinstance(default, bool):
            values[name] = bool(value)
        elif value is not None:
            values[name] = tuple(value)
    return FormulaOptions(**values)


@dataclasses.dataclass
class FormulaDef:
    """A registered formula: the Python function plus its options and sample inputs. Calling it
    runs it in the registered executor (the reference engine)."""

    name: str
    fn: Callable[..., Any]
    options: FormulaOptions
    module: str
    samples: list = dataclasses.field(default_factory=list)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return executor().apply_formula(self, args, kwargs)


REGISTRY: Dict[str, FormulaDef] = {}
HELPERS: Dict[str, Callable[..., Any]] = {}


def _check(fn: Callable[..., Any]) -> None:
    """Run the translator's front end on ``fn``'s module, once per module (all errors at once)."""
    try:
        from transgrad.translator.frontend import check_callable
    except ImportError:  # the translator is not importable: nothing to check with
        return
    check_callable(fn)


def formula(fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
    """Declare a derivative formula (``@formula`` or ``@formula(option=...)``; the options are
    the fields of ``FormulaOptions``)."""

    opts = formula_options(**options)

    def register(f: Callable[..., Any]) -> FormulaDef:
        _check(f)
        d = FormulaDef(f.__name__, f, opts, f.__module__)
        REGISTRY[d.name] = d
        return d

    return register(fn) if fn is not None else register


def helper(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A module-level function that formulas may call; translated to an inline C++ function."""
    _check(fn)
    HELPERS[fn.__name__] = fn
    return fn


# ---------------------------------------------------------------------------------------------
# Sample inputs: engine-neutral descriptions that the test-suite turns into tensors.

@dataclasses.dataclass(frozen=True)
class T:
    """A float tensor sample: ``T(3, 4, low=-2.0, high=2.0)``; requires grad unless told not to.

    Edge cases a formula promises are samples too: ``zeros=((0, 1), (2, 3))`` sets those
    elements to exactly 0 (prod with one and several zeros in a slice); ``levels=3`` draws every
    element from 3 evenly spaced values in [low, high], so ties are certain (amax's split among
    ties). A ``levels`` sample sits on non-differentiable points on purpose: finite differences
    do not apply there, so it is checked against torch and by tests/formulas/test_formula_edges.py.
    """

    shape: Tuple[int, ...]
    low: float = -2.0
    high: float = 2.0
    requires_grad: bool = True
    zeros: Tuple[Tuple[int, ...], ...] = ()
    levels: int = 0

    def __init__(self, *shape: int, low: float = -2.0, high: float = 2.0,
                 requires_grad: bool = True, zeros: Tuple[Tuple[int, ...], ...] = (),
                 levels: int = 0):
        object.__setattr__(self, "shape", tuple(shape))
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "requires_grad", requires_grad)
        object.__setattr__(self, "zeros", tuple(tuple(z) for z in zeros))
        object.__setattr__(self, "levels", levels)


@dataclasses.dataclass(frozen=True)
class I:  # noqa: E742 - the sample spec's name, as T and B
    """An int64 index tensor sample with entries in [0, high); ``distinct``: no entry twice
    (for ops whose result is undefined on duplicate indices: index_copy, index_put)."""

    shape: Tuple[int, ...]
    high: int
    distinct: bool = False

    def __init__(self, *shape: int, high: int, distinct: bool = False):
        object.__setattr__(self, "shape", tuple(shape))
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "distinct", distinct)


@dataclasses.dataclass(frozen=True)
class B:
    """A bool tensor sample."""

    shape: Tuple[int, ...]

    def __init__(self, *shape: int):
        object.__setattr__(self, "shape", tuple(shape))


@dataclasses.dataclass(frozen=True)
class case:
    """One call of a formula: positional and keyword arguments (T/I/B for tensors, lists of them
    for Sequence[Tensor], plain values otherwise)."""

    args: Tuple[Any, ...]
    kwargs: Dict[str, Any]

    def __init__(self, *args: Any, **kwargs: Any):
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "kwargs", kwargs)


def samples(*cases: Any) -> Callable[[FormulaDef], FormulaDef]:
    """Attach sample inputs to a formula: ``@samples(T(3, 4), case(T(2, 3), dims=(1,)))``."""

    def attach(d: FormulaDef) -> FormulaDef:
        d.samples.extend(c if isinstance(c, case) else case(c) for c in cases)
        return d

    return attach


# ---------------------------------------------------------------------------------------------
# The namespaces formulas call, and the engine that runs them.

# Note [Who runs a formula]
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# ``kernel.NAME`` and ``ops.NAME`` are what a formula calls; the translator only reads them, the
# compiled engine never runs them (it runs the C++ they became). Running a formula in Python is
# the reference engine's job: ``transgrad.reference.executor`` implements ``Executor`` and
# registers itself with ``set_executor`` when ``transgrad.reference`` is imported. ``ops.NAME``
# resolves to the registered ``FormulaDef`` (or ``@helper``) here; calling a FormulaDef and
# every ``kernel.NAME`` go to the executor. So this module declares and the engine executes,
# and the import graph points one way: reference -> lang.


class Executor(Protocol):
    """What runs formulas in Python (implemented by ``transgrad.reference.executor``)."""

    def apply_formula(self, fdef: FormulaDef, args: Tuple[Any, ...],
                      kwargs: Dict[str, Any]) -> Any: ...

    def kernel(self, name: str) -> Callable[..., Any]: ...


_executor: Optional[Executor] = None


def set_executor(e: Executor) -> None:
    """Make ``e`` the engine that runs formulas and kernels (the reference engine, at import)."""
    global _executor
    _executor = e


def executor() -> Executor:
    if _executor is None:
        raise RuntimeError("no engine runs formulas in Python yet: import transgrad.reference "
                           "(the compiled engine runs the translated C++, not transgrad.lang)")
    return _executor


class _Kernels:
    """``kernel.NAME``: a raw, non-differentiable kernel (declared in translator/signatures.py),
    run by the registered executor."""

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("__"):
            raise AttributeError(name)
        return executor().kernel(name)


class _Ops:
    """``ops.NAME``: a differentiable op (a formula, composite or helper) from the registry."""

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("__"):
            raise AttributeError(name)
        load_builtin_formulas()
        if name in REGISTRY:
            return REGISTRY[name]
        if name in HELPERS:
            return HELPERS[name]
        raise AttributeError(f"transgrad.lang.ops has no op {name!r}; define it with @formula "
                             "in a module under formulas/ (or one you import)")


kernel = _Kernels()
ops = _Ops()

_loaded = False
_load_lock = threading.RLock()


def load_builtin_formulas() -> None:
    """Import every formula module shipped in ``transgrad.formulas`` (once, thread-safe)."""
    global _loaded
    if _loaded:
        return
    with _load_lock:  # re-entrant: a formula module's import may resolve ops itself
        if _loaded:
            return
        pkg = importlib.import_module("transgrad.formulas")
        for info in pkgutil.iter_modules(pkg.__path__):
            importlib.import_module(f"transgrad.formulas.{info.name}")
        _loaded = True
