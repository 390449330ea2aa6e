"""The op registry: which callable ``tg.ops.<namespace>.<op>`` is, on each engine.

Stage: runtime, both engines. Input: ``register_op(engine, namespace, name, fn, source)``
calls, from the formula language (``transgrad.lang``, for the reference engine) and from
extensions (``transgrad.extension``, for the compiled engine). Output: the ``tg.ops`` and
``tg.reference.ops`` objects (``OpsRoot``), where ``tg.ops.NAME`` is a shipped op and
``tg.ops.mylib.NAME`` an op of namespace ``mylib`` (as ``torch.ops.mylib.op``).

Invariants: an (engine, namespace, name) has one owner, the file that registered it; a second
registration from another file raises RuntimeError naming both (Note [No silent
replacement]). This module imports nothing from ``transgrad`` (lang and both engines import it).

Note [No silent replacement]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Ops used to be keyed by name alone, so a user's module defining ``@formula tanh`` replaced
``tg.tanh`` on the reference engine (a gradient went from 0.42 to 100, issue #12). Now every op
lives in a namespace: the shipped ones in ``transgrad`` (``SHIPPED``), a user's in their own
(``transgrad.lang.namespace``). Within one namespace a name is owned by the file that first
registered it; the same file registering it again (a module reload, the same extension loaded
twice) replaces the entry, any other file is refused with both files named, as torch refuses a
second ``def`` of ``mylib::op``. A namespace may not be named like a shipped op, since
``tg.ops.NAME`` resolves the shipped op first. On the compiled engine the ``transgrad``
namespace is the built ``_C.ops`` (``bind_shipped``) and takes no registrations.
"""

from __future__ import annotations

import dataclasses
import keyword
import os
import threading
from typing import Any, Callable, Dict, List, Tuple

__all__ = ["ENGINES", "SHIPPED", "OpEntry", "OpNamespace", "OpsRoot", "bind_shipped",
           "check_namespace", "lookup_op", "namespaces", "ops_in", "register_op",
           "unregister_namespace", "unregister_op"]

ENGINES = ("compiled", "reference")
SHIPPED = "transgrad"  # the namespace of the formulas in transgrad.formulas


@dataclasses.dataclass(frozen=True)
class OpEntry:
    """One registered op: ``fn`` is what ``tg.ops.<namespace>.<name>`` returns on ``engine``;
    ``source`` is "file:line" of its definition (a formula, or an extension's source)."""

    engine: str
    namespace: str
    name: str
    fn: Any
    source: str

    @property
    def file(self) -> str:
        return source_file(self.source)


_lock = threading.RLock()
_tables: Dict[Tuple[str, str], Dict[str, OpEntry]] = {}
# engine -> the object whose attributes are its shipped ops, when they are not registered one
# by one (the compiled engine's _C.ops)
_shipped: Dict[str, Any] = {}


def source_file(source: str) -> str:
    """The file part of a "file:line" source, normalised (``a/./b.py:3`` -> ``a/b.py``)."""
    path, sep, line = source.rpartition(":")
    if not sep or not line.isdigit():
        path = source
    return os.path.normpath(path) if path else path


def check_namespace(namespace: str) -> str:
    """``namespace`` if it can be written as ``tg.ops.<namespace>``, else a ValueError."""
    if (not isinstance(namespace, str) or not namespace.isidentifier()
            or keyword.iskeyword(namespace) or namespace.startswith("__")):
        raise ValueError(f"an op namespace must be a Python identifier not starting with '__' "
                         f"(it is written tg.ops.<namespace>.<op>), got {namespace!r}")
    return namespace


def _check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")


def _shipped_names(engine: str) -> List[str]:
    if engine in _shipped:
        return [n for n in dir(_shipped[engine]) if not n.startswith("_")]
    return list(_tables.get((engine, SHIPPED), {}))


def register_op(engine: str, namespace: str, name: str, fn: Any, source: str) -> None:
    """Make ``fn`` the op ``namespace::name`` of ``engine`` (Note [No silent replacement]).

    ``source`` is "file:line". Registering the same (engine, namespace, name) again from the
    same file replaces the entry (a reload); from another file it is a RuntimeError naming both.
    """
    _check_engine(engine)
    check_namespace(namespace)
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"an op name must be a Python identifier, got {name!r}")
    entry = OpEntry(engine, namespace, name, fn, str(source))
    with _lock:
        if namespace == SHIPPED and engine in _shipped:
            raise RuntimeError(
                f"the op namespace '{SHIPPED}' holds the ops built into transgrad on the "
                f"{engine} engine; register {name} (from {source}) in a namespace of your own")
        if namespace != SHIPPED and namespace in _shipped_names(engine):
            raise RuntimeError(
                f"cannot use '{namespace}' as an op namespace (registering {namespace}::{name} "
                f"from {source}): tg.ops.{namespace} is the shipped op of that name; choose "
                "another namespace")
        table = _tables.setdefault((engine, namespace), {})
        old = table.get(name)
        if old is not None and old.file != entry.file:
            raise RuntimeError(
                f"Tried to register an operator ({namespace}::{name}) with the same name "
                f"multiple times on the {engine} engine. Duplicate registration: {source}. "
                f"Original registration: {old.source}. Two libraries cannot own one namespace "
                "and name: load one of them under another namespace")
        table[name] = entry


def unregister_op(engine: str, namespace: str, name: str) -> None:
    """Forget ``namespace::name`` on ``engine`` (tests; unloading an extension). No-op when
    it is not registered."""
    with _lock:
        table = _tables.get((engine, namespace))
        if table is not None:
            table.pop(name, None)
            if not table:
                del _tables[(engine, namespace)]


def unregister_namespace(engine: str, namespace: str) -> None:
    """Forget every op of ``namespace`` on ``engine`` (tests: leave no global state behind)."""
    with _lock:
        _tables.pop((engine, namespace), None)


def lookup_op(engine: str, namespace: str, name: str) -> Any:
    """The op ``namespace::name`` of ``engine``; AttributeError when there is none."""
    if namespace == SHIPPED and engine in _shipped:
        return getattr(_shipped[engine], name)
    entry = _tables.get((engine, namespace), {}).get(name)
    if entry is None:
        raise AttributeError(f"no op {namespace}::{name} is registered on the {engine} engine")
    return entry.fn


def ops_in(engine: str, namespace: str) -> Dict[str, OpEntry]:
    """The registered ops of ``namespace`` on ``engine`` (a copy, by name)."""
    with _lock:
        return dict(_tables.get((engine, namespace), {}))


def namespaces(engine: str) -> List[str]:
    """The namespaces of ``engine`` that hold ops (``SHIPPED`` included when it does)."""
    with _lock:
        names = {ns for (e, ns), table in _tables.items() if e == engine and table}
    if engine in _shipped:
        names.add(SHIPPED)
    return sorted(names)


def bind_shipped(engine: str, ops: Any) -> None:
    """Make ``ops``' attributes the shipped ops of ``engine`` (the compiled engine's
    ``_C.ops``), instead of registering them one by one."""
    _check_engine(engine)
    with _lock:
        _shipped[engine] = ops


class OpNamespace:
    """``tg.ops.<namespace>``: its attributes are the ops registered in it (as torch's
    ``torch.ops.mylib``)."""

    def __init__(self, engine: str, namespace: str) -> None:
        self._engine = engine
        self._namespace = namespace

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return lookup_op(self._engine, self._namespace, name)
        except AttributeError:
            raise AttributeError(f"'{self._namespace}' has no op '{name}' on the "
                                 f"{self._engine} engine") from None

    def __dir__(self) -> List[str]:
        if self._namespace == SHIPPED and self._engine in _shipped:
            return _shipped_names(self._engine)
        return sorted(ops_in(self._engine, self._namespace))

    def __repr__(self) -> str:
        return f"<op namespace '{self._namespace}' ({self._engine} engine)>"


class OpsRoot:
    """``tg.ops`` / ``tg.reference.ops``: ``.NAME`` is a shipped op (``shipped``'s attribute),
    ``.<namespace>`` an ``OpNamespace`` (``tg.ops.transgrad`` names the shipped ones too)."""

    def __init__(self, engine: str, shipped: Any,
                 shipped_names: Callable[[], List[str]] | None = None) -> None:
        _check_engine(engine)
        self._engine = engine
        self._ops = shipped
        self._names = shipped_names or (lambda: [n for n in dir(shipped)
                                                 if not n.startswith("_")])

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return getattr(self._ops, name)
        except AttributeError:
            pass
        if name == SHIPPED or (self._engine, name) in _tables:
            return OpNamespace(self._engine, name)
        raise AttributeError(f"transgrad.ops has no op or namespace '{name}' on the "
                             f"{self._engine} engine") from None

    def __dir__(self) -> List[str]:
        return sorted({*self._names(), *namespaces(self._engine), SHIPPED})

    def __repr__(self) -> str:
        return f"<transgrad ops ({self._engine} engine)>"
