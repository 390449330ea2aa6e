"""The formula language: everything a formula module may import. Declarations only.

A formula module does ``from transgrad.lang import formula, Tensor, kernel, ops, ...`` and
nothing else (plus ``import math``). The translator reads these names by spelling (libcst).
This module declares; it never executes and never imports an engine:

* the decorators (``formula``, ``helper``, ``samples``) that register formulas in the op
  registry (``transgrad._op_registry``, engine "reference") under a namespace, and run the
  capture checker when a module is imported (Note [Formula namespaces]);
* ``FormulaOptions``, the one list of formula options (``@formula``'s keyword arguments are its
  fields);
* the sample markers (``T``, ``I``, ``B``, ``case``) the test-suite turns into tensors;
* the two namespaces ``kernel`` and ``ops`` formulas call. They resolve names here and hand
  execution to the engine registered with ``set_executor`` (Note [Who runs a formula]).

Invariant: ``transgrad.lang`` imports nothing from ``transgrad`` but ``transgrad._op_registry``
(a leaf) and, lazily, the translator's checker and ``transgrad.formulas`` (declarations too).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import importlib
import importlib.util
import linecache
import pkgutil
import sys
import threading
from collections.abc import Mapping
from typing import Any, Callable, Dict, Iterator, Optional, Protocol, Sequence, Tuple, Union

from transgrad import _op_registry
from transgrad._op_registry import SHIPPED

__all__ = [
    "formula", "helper", "samples", "case", "T", "I", "B",
    "Tensor", "Optional", "Sequence", "Scalar", "Shape", "Dims", "DType",
    "kernel", "ops", "REGISTRY", "FormulaDef", "FormulaOptions", "namespace",
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
    runs it in the registered executor (the reference engine). ``namespace`` is its op
    namespace (Note [Formula namespaces]), ``source`` its "file:line"."""

    name: str
    fn: Callable[..., Any]
    options: FormulaOptions
    module: str
    samples: list = dataclasses.field(default_factory=list)
    namespace: str = SHIPPED
    source: str = ""

    def __post_init__(self) -> None:
        # help(tg.reference.ops.NAME) shows the formula's signature and docstring, as
        # help(tg.ops.NAME) shows the compiled binding's (emit_bindings writes the docstring):
        # pydoc documents a "method descriptor" (it has __get__) as a routine, by __doc__ and
        # the signature of __wrapped__.
        self.__doc__ = self.fn.__doc__
        self.__wrapped__ = self.fn
        self.__name__ = self.__qualname__ = self.name

    def __get__(self, obj: Any, owner: Any = None) -> "FormulaDef":
        return self  # stored on a class it stays the formula (no binding)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return executor().apply_formula(self, args, kwargs)


# Note [Formula namespaces]
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# Every formula and helper lives in an op namespace (Note [No silent replacement] in
# transgrad/_op_registry.py), so a user's ``tanh`` never replaces the shipped one:
# * the modules of ``transgrad.formulas`` (the checkout's formulas/) are the namespace
#   ``transgrad`` (``SHIPPED``): ``tg.reference.ops.tanh`` and ``tg.reference.ops.transgrad.tanh``;
# * a module imported inside ``with lang.namespace("mylib"):`` is ``mylib`` (what
#   ``transgrad.reference.extension.load(name, ...)`` does with its ``name``);
# * any other module imported directly is the namespace of its top-level package name
#   (``import my_formulas`` -> ``tg.reference.ops.my_formulas.softsign``; ``mylib.acts`` ->
#   ``mylib``; a script run as ``__main__`` -> ``main``). torch.library asks for a namespace
#   in every registration; a module's import name is already unique per process and is the
#   name its author chose for the library, so a plain import keeps working (DESIGN step 2)
#   without a second name to invent, and ``lang.namespace`` overrides it when they differ.
# Inside a formula module, ``ops.NAME`` resolves the module's own namespace first (then its own
# helpers), then the shipped ops (lexical scope, read from the calling frame's module, as
# Python resolves a module's globals before its builtins): a library that defines its own
# ``tanh`` calls it as ``ops.tanh``. Shipped formulas see only the shipped namespace; the public API
# (``tg.reference.tanh``, ``tg.reference.ops.tanh``) is always the shipped op. Two files
# claiming one namespace and name are an error naming both.

_namespace_override: contextvars.ContextVar[Optional[str]] = contextvars.ContextVar(
    "transgrad_lang_namespace", default=None)


@dataclasses.dataclass
class _ModuleScope:
    """A formula module as ``ops.NAME`` sees it: its namespace and its helpers. Keyed by the
    identity of the module's globals (what a frame reading ``ops.NAME`` has), so two modules
    of one name (two extensions' ``ops.py``) stay apart; ``module_globals`` keeps that key
    valid."""

    module_globals: Dict[str, Any]
    namespace: str
    helpers: Dict[str, Callable[..., Any]] = dataclasses.field(default_factory=dict)


_scopes: Dict[int, _ModuleScope] = {}
_SHIPPED_PACKAGES = ("transgrad.formulas",)


@contextlib.contextmanager
def namespace(name: str) -> Iterator[str]:
    """Formula modules imported inside this block register their ops in namespace ``name``
    (``tg.reference.ops.<name>.<op>``; Note [Formula namespaces]). ``transgrad`` is refused:
    it is the shipped formulas' namespace."""
    _op_registry.check_namespace(name)
    if name == SHIPPED:
        raise ValueError(f"the op namespace '{SHIPPED}' is reserved for the formulas shipped "
                         "with transgrad; give your formulas a namespace of your own")
    token = _namespace_override.set(name)
    try:
        yield name
    finally:
        _namespace_override.reset(token)


def namespace_of_module(module: str) -> str:
    """The namespace a formula defined in ``module`` registers in (Note [Formula
    namespaces])."""
    # shipped first: shipped formulas loaded lazily inside ``namespace(x)`` stay shipped
    if any(module == p or module.startswith(p + ".") for p in _SHIPPED_PACKAGES):
        return SHIPPED
    override = _namespace_override.get()
    if override is not None:
        return override
    top = module.split(".", 1)[0]
    return "main" if top == "__main__" else top


def def_line(fn: Callable[..., Any]) -> int:
    """The line of ``def fn`` (``co_firstlineno`` is its first decorator's)."""
    first = fn.__code__.co_firstlineno
    lines = linecache.getlines(fn.__code__.co_filename)
    for i in range(first - 1, min(len(lines), first + 50)):
        if lines[i].lstrip().startswith(("def ", "async def ")):
            return i + 1
    return first


def _source(fn: Callable[..., Any]) -> str:
    """"file:line" of ``def fn`` (the line the translator and node locations cite)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return f"<{getattr(fn, '__module__', '?')}>:0"
    return f"{code.co_filename}:{def_line(fn)}"


def _enter_namespace(fn: Callable[..., Any]) -> _ModuleScope:
    """The scope of ``fn``'s module, (re)entered in the namespace it registers in now."""
    ns = namespace_of_module(fn.__module__)
    if ns != SHIPPED:
        load_builtin_formulas()  # a user's namespace may not be named like a shipped op
    scope = _scopes.get(id(fn.__globals__))
    if scope is None or scope.module_globals is not fn.__globals__:
        scope = _scopes[id(fn.__globals__)] = _ModuleScope(fn.__globals__, ns)
    scope.namespace = ns
    return scope


class _NamespaceFormulas(Mapping):
    """A read-only, live view of one namespace's registered formulas (``REGISTRY``)."""

    def __init__(self, namespace: str) -> None:
        self._namespace = namespace

    def _table(self) -> Dict[str, Any]:
        return _op_registry.ops_in("reference", self._namespace)

    def __getitem__(self, name: str) -> FormulaDef:
        return self._table()[name].fn

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())

    def __repr__(self) -> str:
        return f"<formulas of namespace {self._namespace!r}: {', '.join(sorted(self))}>"


REGISTRY: Mapping[str, FormulaDef] = _NamespaceFormulas(SHIPPED)  # the shipped formulas, by name


def formulas_in(namespace: str) -> Mapping[str, FormulaDef]:
    """The formulas registered in ``namespace`` (a live, read-only view)."""
    return _NamespaceFormulas(namespace)


def forget_namespace(name: str) -> None:
    """Drop every formula and helper of namespace ``name`` (tests leave no state behind)."""
    if name == SHIPPED:
        raise ValueError("the shipped formulas cannot be forgotten")
    _op_registry.unregister_namespace("reference", name)
    for key in [k for k, scope in _scopes.items() if scope.namespace == name]:
        del _scopes[key]


def _check(fn: Callable[..., Any]) -> None:
    """Run the translator's front end on ``fn``'s module, once per module (all errors at once);
    a shipped module was checked by the build that wrote its facts (Note [Shipped formulas run
    without the translator] in reference/plan.py)."""
    if namespace_of_module(fn.__module__) == SHIPPED and _built():
        return
    try:
        from transgrad.translator.frontend import check_callable
    except ImportError:  # the translator is not importable: nothing to check with
        return
    check_callable(fn)


@functools.lru_cache(maxsize=None)
def _built() -> bool:
    """Whether the build's facts about the shipped formulas are installed."""
    return importlib.util.find_spec("transgrad._formula_facts") is not None


def formula(fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
    """Declare a derivative formula (``@formula`` or ``@formula(option=...)``; the options are
    the fields of ``FormulaOptions``). It is registered in its module's op namespace (Note
    [Formula namespaces])."""

    opts = formula_options(**options)

    def register(f: Callable[..., Any]) -> FormulaDef:
        _check(f)
        ns = _enter_namespace(f).namespace
        d = FormulaDef(f.__name__, f, opts, f.__module__, namespace=ns, source=_source(f))
        _op_registry.register_op("reference", ns, d.name, d, d.source)
        return d

    return register(fn) if fn is not None else register


def helper(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A module-level function that formulas may call; translated to an inline C++ function.
    A helper belongs to its module (formulas call it by its bare name; ``ops.NAME`` finds it
    only from that module), so two modules may each have their own."""
    _check(fn)
    _enter_namespace(fn).helpers[fn.__name__] = fn
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
    """An int64 index tensor sample with entries in [low, high); ``distinct``: no entry twice
    (for ops whose result is undefined on duplicate indices: index_copy, index_put); ``dtype``
    "int32" where torch wants int32 (LAPACK's 1-based pivots: ``I(3, low=1, high=4,
    dtype="int32")``)."""

    shape: Tuple[int, ...]
    high: int
    distinct: bool = False
    low: int = 0
    dtype: str = "int64"

    def __init__(self, *shape: int, high: int, distinct: bool = False, low: int = 0,
                 dtype: str = "int64"):
        object.__setattr__(self, "shape", tuple(shape))
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "distinct", distinct)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "dtype", dtype)


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


def resolve_op(namespace: str, name: str,
               helpers: Optional[Dict[str, Callable[..., Any]]] = None) -> Any:
    """``ops.NAME`` as read in a module of ``namespace`` with ``helpers``: a formula of that
    namespace, a helper of that module, else a shipped formula (Note [Formula namespaces]);
    AttributeError when there is none."""
    load_builtin_formulas()
    if namespace != SHIPPED:
        try:
            return _op_registry.lookup_op("reference", namespace, name)
        except AttributeError:
            pass
    found = (helpers or {}).get(name)
    if found is not None:
        return found
    try:
        return _op_registry.lookup_op("reference", SHIPPED, name)
    except AttributeError:
        raise AttributeError(f"transgrad.lang.ops has no op {name!r}; define it with @formula "
                             "in a module under formulas/ (or one you import)") from None


class _Ops:
    """``ops.NAME``: a differentiable op (a formula, composite or helper) from the registry,
    looked up from the module that reads it (Note [Formula namespaces])."""

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("__"):
            raise AttributeError(name)
        scope = _scopes.get(id(sys._getframe(1).f_globals))
        if scope is None:  # not a formula module: the shipped ops
            return resolve_op(SHIPPED, name)
        return resolve_op(scope.namespace, name, scope.helpers)


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
