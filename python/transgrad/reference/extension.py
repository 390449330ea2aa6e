"""Formula extensions on the reference engine: the twin of ``transgrad.extension.load``.

Stage: user entry point. Input: the user's formula files. Output: a module whose attributes
are their formulas (and helpers, composites), run in Python by the reference engine, with the
same names and arguments as the compiled extension ``transgrad.extension.load`` returns.

The files are imported as Python modules, which runs the translator's checker on each
(``transgrad.lang``: Note [Who runs a formula]), so a formula the compiled path would reject
raises the same ``TranslatorError`` at the same file:line here. They are imported inside
``transgrad.lang.namespace(name)``, so their ops are
``transgrad.reference.ops.<name>.<op>`` and never replace a shipped op. A module is imported
again when its file changed since (as the compiled extension is rebuilt).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
import types
from typing import Dict, Optional, Sequence, Tuple, Union

from transgrad import lang

__all__ = ["load"]

_lock = threading.Lock()
# (name, path) -> (stat, module): a file is imported again when it changed
_modules: Dict[Tuple[str, str], Tuple[Tuple[float, int], types.ModuleType]] = {}


def load(name: str, sources: Union[str, Sequence[str]], *,
         build_directory: Optional[str] = None, verbose: bool = False,
         extra_cflags: Optional[Sequence[str]] = None,
         kernels: Optional[str] = None) -> types.ModuleType:
    """Import the formula files ``sources`` as extension ``name`` on the reference engine.

    Same arguments as ``transgrad.extension.load``; ``build_directory`` and ``extra_cflags``
    have nothing to build here and are accepted so code can switch engines by its import.
    ``kernels`` is the package's kernel file, whose numpy bodies run here
    (transgrad/reference/user_kernels.py).
    """
    import transgrad.reference  # noqa: F401  (the executor of the formula language)

    del build_directory, extra_cflags
    if not name.isidentifier():
        raise ValueError(f"extension name {name!r} is not a Python identifier")
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    paths = [os.path.abspath(os.fspath(s)) for s in sources]
    if not paths:
        raise ValueError("transgrad.reference.extension.load needs at least one formula file")
    # The shipped formulas first, outside the user's namespace: loaded lazily from inside
    # lang.namespace(name) they would be registered in it.
    lang.load_builtin_formulas()
    extension = types.ModuleType(name, f"formula extension {name} (reference engine)")
    extension.__file__ = paths[0]
    with _lock:
        table = _add_kernels(os.path.abspath(os.fspath(kernels))) if kernels is not None else None
        _bind(paths, table)
        for path in paths:
            module = _import(name, path, verbose)
            for attr, value in vars(module).items():
                if isinstance(value, lang.FormulaDef) and value.fn.__module__ == module.__name__:
                    setattr(extension, attr, value)
    extension.__transgrad_namespace__ = name  # type: ignore[attr-defined]
    return extension


def _add_kernels(path: str) -> Dict[str, object]:
    """The package's kernels of ``path``, checked and given to the executor; their
    declarations."""
    from transgrad.reference.executor import EXECUTOR
    from transgrad.reference.user_kernels import load_kernels

    if not os.path.isfile(path):
        raise FileNotFoundError(f"kernel declarations file {path} does not exist")
    table, bodies = load_kernels(path)
    EXECUTOR.add_kernels(bodies, path)
    return table


def _bind(paths: Sequence[str], table: Optional[Dict[str, object]]) -> None:
    """The formula files are checked, now and at their first call, with the package's kernels
    (none without a kernel file): Note [Kernel table in scope] in translator/user_kernels.py."""
    try:
        from transgrad.translator.user_kernels import bind
    except ImportError:  # no translator: nothing checks the files
        return
    bind(paths, table or {})  # type: ignore[arg-type]


def _import(name: str, path: str, verbose: bool) -> types.ModuleType:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"formula file {path} does not exist")
    st = os.stat(path)
    stamp = (st.st_mtime, st.st_size)
    hit = _modules.get((name, path))
    if hit is not None and hit[0] == stamp:
        return hit[1]
    stem = os.path.splitext(os.path.basename(path))[0]
    module_name = f"transgrad_extension_{name}.{stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import formula file {path}")
    module = importlib.util.module_from_spec(spec)
    if verbose:
        print(f"transgrad.reference.extension [{name}] importing {path}", file=sys.stderr)
    with lang.namespace(name):
        spec.loader.exec_module(module)  # the checker runs here: TranslatorError at file:line
    _modules[(name, path)] = (stamp, module)
    return module


