"""Sources: a formula module's file: its repository root, its version, and its parse, once
per version of the file in a process.

Below both ``frontend`` (which analyses a module) and ``shipped`` (which reads the shipped
modules' signatures, in a checkout by parsing them), so that neither imports the other's
dependents: the front end lowers a module against ``shipped.shipped_signatures`` and the
shipped modules are parsed through the same cache. ``parse`` (and libcst) is imported only when
a file must be parsed.
"""

from __future__ import annotations

import os
import threading

from .model import Module
from .user_kernels import fingerprint

_lock = threading.Lock()
_parsed: dict[str, tuple[tuple[tuple[int, int, str], str], Module]] = {}


def find_root(path: str) -> str:
    """The nearest ancestor of ``path`` holding ``pyproject.toml`` or ``.git``, not looking past
    an installation directory (``site-packages``); else, for a module of an installed
    ``formulas`` package, the directory above it (so that paths read ``formulas/unary.py`` as
    in a checkout); else the module's own directory."""
    start = os.path.dirname(os.path.abspath(path))
    d = start
    while os.path.basename(d) not in ("site-packages", "dist-packages"):
        if os.path.exists(os.path.join(d, "pyproject.toml")) or os.path.exists(
            os.path.join(d, ".git")
        ):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return os.path.dirname(start) if os.path.basename(start) == "formulas" else start


def stat_key(path: str) -> tuple[int, int, str]:
    """The file's version, and the package kernels it is analysed with."""
    try:
        st = os.stat(path)
    except OSError:
        return (0, -1, "")
    return (st.st_mtime_ns, st.st_size, fingerprint(path))


def parsed_module(path: str, root: str) -> Module:
    """``parse.parse_module(path, root)``, once per version of the file in a process (a shipped
    module is parsed for its signature by ``shipped.shipped_signatures`` and for its
    analysis by ``frontend.load_module``: once)."""
    from .source.parse import parse_module

    path, key = os.path.abspath(path), (stat_key(path), root)
    with _lock:
        hit = _parsed.get(path)
        if hit is None or hit[0] != key:
            hit = _parsed[path] = (key, parse_module(path, root))
        return hit[1]
