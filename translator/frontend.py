"""Front end driver: a formula module's path -> checked ``Module`` (or every error at once).

Stage: runs parse -> lower (the module alone, against the shipped formulas' signatures) ->
fence (reading lowering's types) -> captures (read off that IR) -> saves (Note [One
analysis]). Input: a path (or a decorated function, whose
source file is found with ``inspect``). Output: a ``model.Module`` with captures filled, or a
``TranslatorError`` carrying every diagnostic of the module, sorted by position.

Used by the build (``cli``), by the back end, and by ``transgrad.lang`` at decoration time
(``check_callable``), so that importing a module with a bad formula fails at once with the
same messages the build would give.

Invariants: a module is analysed at most once per (path, mtime, size) in a process; a module
found clean is remembered on disk (Note [Clean-module cache]) so that later imports cost a
hash of the source, not a parse. Nothing here imports ``transgrad``.

Note [One analysis]
~~~~~~~~~~~~~~~~~~~
Each formula is lowered once: the front end lowers a module alone against the shipped
formulas' signatures plus its own, the capture rule reads that IR, ``saves`` attaches the node
members the rule decided, and the module carries the result (``Module.lowered``). Lowering
notes which names of the signature table it looked up (``ir.Module.signature_reads``); the
back end emits the front end's IR whenever its program's table says the same of those names
(``Signatures.agree_on``): the shipped build, a user's module built beside the shipped
formulas, an extension calling a few of them. It lowers a module again only when the front
end could not see what it calls: a module calling a formula of another module of its build.

Note [Clean-module cache]: the key is a hash of the module's source, its repo-relative path
and the translator's own front-end sources, so editing either invalidates it. Only "clean"
is cached (errors are always recomputed, so their text is always current). The directory is
``$TRANSGRAD_CACHE_DIR`` or ``~/.cache/transgrad``; set ``TRANSGRAD_CACHE_DIR=off`` to disable.
Any failure to read or write the cache is ignored.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import os
import threading
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Any

from .diagnostics import Diagnostic, TranslatorError
from .model import Formula, Module
from .sources import find_root, parsed_module, stat_key
from .user_kernels import declared, fingerprint, table_of

# parse/fence/lower/captures (and libcst) are imported only when a module must be analysed: a
# module found in the clean-module cache costs no libcst import at all.

_lock = threading.RLock()
_modules: dict[str, tuple[tuple[int, int, str], Module | TranslatorError]] = {}
_checked: dict[str, tuple[tuple[int, int, str], TranslatorError | None]] = {}
_version: str | None = None


def load_module(path: str, root: str | None = None) -> Module:
    """Parse, fence and capture-check ``path``; raise ``TranslatorError`` with all its errors."""
    path = os.path.abspath(path)
    key = stat_key(path)
    with _lock:
        hit = _modules.get(path)
        if hit is not None and hit[0] == key and root is None:
            if isinstance(hit[1], TranslatorError):
                raise hit[1]
            return hit[1]
        try:
            result: Module | TranslatorError = _analyse(path, root or find_root(path))
        except TranslatorError as e:
            result = e
        if root is None:
            _modules[path] = (key, result)
        if isinstance(result, TranslatorError):
            raise result
        return result


def _analyse(path: str, root: str) -> Module:
    with declared(table_of(path)):  # a package's own kernels (Note [Kernel table in scope])
        return _analyse_in_scope(path, root)


def _analyse_in_scope(path: str, root: str) -> Module:
    mod, diags = analyse_module(parsed_module(path, root))
    if diags:
        raise TranslatorError(diags)
    return mod


def analyse_module(mod: Module) -> tuple[Module, list[Diagnostic]]:
    """The front end on a parsed module: ``mod`` with its captures and its IR (``lowered``,
    Note [One analysis]), and its diagnostics."""
    from .captures import collect_captures
    from .saves import attach_saved
    from .shipped import shipped_signatures
    from .source.fence import check_fence
    from .source.lower import lower_module

    # the module lowered alone against the shipped formulas' signatures (Note [Signatures as
    # data] in lower_env.py): the fence reads its types, the capture rule its IR
    table = shipped_signatures().merged([mod])
    types: dict = {}
    try:
        lowered = lower_module(mod, table, types)
    except Exception:  # on code the fence refuses (Note [Total lowering]); else a bug
        diags = check_fence(mod, types)
        if not diags:
            raise
        return mod, diags
    diags = check_fence(mod, types)
    try:
        mod, more = collect_captures(mod, lowered)
        mod = dataclasses.replace(mod, lowered=attach_saved(lowered, mod), lowered_against=table)
    except Exception:
        if not diags:
            raise
        more = []
    return mod, diags + more


def check_callable(fn: Callable[..., Any]) -> None:
    """Check the module ``fn`` is defined in (once); raise ``TranslatorError`` if it is bad.

    Functions without a source file (REPL, ``exec``) are not checked.
    """
    path = _source_file(fn)
    if path is None:
        return
    key = stat_key(path)
    with _lock:
        hit = _checked.get(path)
        if hit is not None and hit[0] == key:
            if hit[1] is not None:
                raise hit[1]
            return
        error: TranslatorError | None = None
        marker = _cache_marker(path)
        if marker is None or not os.path.exists(marker):
            try:
                load_module(path)
                _write_marker(marker)
            except TranslatorError as e:
                error = e
        _checked[path] = (key, error)
    if error is not None:
        raise error


def formula_model(fn: Callable[..., Any]) -> Formula:
    """The checked model of formula ``fn`` (its module is analysed once and cached)."""
    path = _source_file(fn)
    if path is None:
        raise ValueError(f"cannot find the source file of {fn!r}")
    mod = load_module(path)
    inner = getattr(fn, "fn", fn)  # a FormulaDef wraps the function
    name = getattr(inner, "__name__", None)
    line = getattr(getattr(inner, "__code__", None), "co_firstlineno", None)
    candidates = [f for f in mod.formulas if f.name == name]
    if len(candidates) > 1 and line is not None:
        # co_firstlineno is the first decorator's line; the def follows the decorators.
        candidates = [f for f in candidates if line <= f.loc.line] or candidates
        candidates.sort(key=lambda f: f.loc.line)
    if not candidates:
        raise ValueError(f"{name!r} is not a @formula of {mod.path}")
    return candidates[0]


def _source_file(fn: Callable[..., Any]) -> str | None:
    fn = getattr(fn, "fn", fn)  # a FormulaDef wraps the function
    try:
        path = inspect.getsourcefile(fn)
    except TypeError:
        return None
    if path is None or not os.path.isfile(path):
        return None
    return os.path.abspath(path)


def _cache_dir() -> str | None:
    d = os.environ.get("TRANSGRAD_CACHE_DIR")
    if d == "off":
        return None
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "transgrad")
    return os.path.join(d, "clean")


def _front_end_version() -> str:
    global _version
    if _version is None:
        h = hashlib.sha256()
        here = os.path.dirname(os.path.abspath(__file__))
        for name in (
            "source/parse.py",
            "source/syntax.py",
            "ir.py",
            "source/lower.py",
            "source/lower_env.py",
            "saves.py",
            "provenance.py",
            "shipped.py",
            "sources.py",
            "source/literals.py",
            "source/fence.py",
            "subset.py",
            "captures.py",
            "source/scopes.py",
            "diagnostics.py",
            "diagnostic_codes.py",
            "messages.py",
            "model.py",
            "signatures.py",
            "user_kernels.py",
            "frontend.py",
        ):
            try:
                with open(os.path.join(here, name), "rb") as f:
                    h.update(f.read())
            except OSError:
                h.update(name.encode())
        _version = h.hexdigest()
    return _version


def _cache_marker(path: str) -> str | None:
    d = _cache_dir()
    if d is None:
        return None
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError:
        return None
    h = hashlib.sha256(source)
    h.update(os.path.relpath(path, find_root(path)).encode())
    h.update(_front_end_version().encode())
    h.update(fingerprint(path).encode())
    return os.path.join(d, h.hexdigest())


def _write_marker(marker: str | None) -> None:
    if marker is None:
        return
    try:
        os.makedirs(os.path.dirname(marker), exist_ok=True)
        with open(marker, "w", encoding="utf-8"):
            pass
    except OSError:
        pass


def shipped_modules(exclude: AbstractSet[str] = frozenset()) -> list[Module]:
    """The shipped formula modules, checked (the context a user's ``ops.NAME`` resolves in),
    but for those whose absolute path is in ``exclude``."""
    from .shipped import shipped_paths

    return [load_module(p) for p in shipped_paths() if os.path.abspath(p) not in exclude]
