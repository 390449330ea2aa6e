"""The back-end driver: formula module paths -> generated C++, bindings and stubs on disk.

Stages: front end (``frontend.load_module``: parse, fence, captures) -> ``lower.lower_modules``
-> ``verify.verify_module`` -> ``emit_cpp`` / ``emit_bindings`` / ``emit_stubs``. Input: the
paths of formula modules and the repository root (locations are relative to it). Output: in
``out_dir``, ``<stem>.h``/``<stem>.cpp`` per module plus ``ops.h``, ``bindings.cpp``,
``_C.pyi`` and ``_formula_facts.py`` (``emit_facts``).

Invariants: a file is rewritten only when its content changed (so the build recompiles only
what a formula edit touched); output is byte-reproducible (modules sorted by path, no
timestamps or absolute paths); any rejection is a ``TranslatorError`` carrying every
diagnostic, and then nothing is written.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from . import ir, model
from .diagnostics import TranslatorError
from .emit_bindings import emit_bindings
from .emit_cpp import emit_module, emit_ops_header
from .emit_facts import emit_facts
from .emit_stubs import emit_stubs
from .lower import lower_program
from .verify import verify_module


def load_modules(paths: Sequence[str], root: str) -> list[model.Module]:
    """Run the front end on every path (all diagnostics of all modules together)."""
    try:
        from .frontend import load_module
    except ImportError:  # the front end's driver is not there yet: structure only
        from .parse import parse_module as load_module  # type: ignore[assignment]
    modules: list[model.Module] = []
    diags: list = []
    for p in sorted(paths, key=lambda p: os.path.relpath(p, root)):
        try:
            modules.append(load_module(p, root))
        except TranslatorError as e:
            diags.extend(e.diagnostics)
    if diags:
        raise TranslatorError(diags)
    return modules


def translate(modules: Sequence[model.Module]) -> tuple[tuple[ir.Module, ...], dict[str, str]]:
    """Lower, verify and emit: the IR modules and ``{file name: text}``."""
    lowered, diags = lower_program(modules)
    failed = {d.loc.path for d in diags}
    for m in lowered:
        if m.path in failed:  # its IR is partial: verifying it would only repeat errors
            continue
        try:
            verify_module(m)
        except TranslatorError as e:
            diags.extend(e.diagnostics)
    if diags:
        raise TranslatorError(diags)
    files: dict[str, str] = {}
    for m in lowered:
        files.update(emit_module(m))
    files["ops.h"] = emit_ops_header(lowered)
    files["bindings.cpp"] = emit_bindings(lowered)
    files["_C.pyi"] = emit_stubs(lowered)
    files["_formula_facts.py"] = emit_facts(modules)
    return lowered, files


def check_modules(modules: Sequence[model.Module], context: Sequence[model.Module] = ()) -> list:
    """The back end's diagnostics (T4xx) for ``modules``, without writing anything.

    ``context`` supplies the other formula modules their ``ops.NAME`` calls resolve against
    (the shipped formulas, for a user's module); only diagnostics of ``modules`` are returned.
    """
    paths = {m.path for m in modules}
    program = list(modules) + [m for m in context if m.path not in paths]
    try:
        translate(program)
    except TranslatorError as e:
        return [d for d in e.diagnostics if d.loc.path in paths]
    return []


def emit_modules(paths: Sequence[str], out_dir: str, root: str = ".") -> list[str]:
    """Translate ``paths`` into ``out_dir``; returns the files (re)written."""
    _, files = translate(load_modules(paths, root))
    return write_files(files, out_dir)


def write_files(files: dict[str, str], out_dir: str) -> list[str]:
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for name in sorted(files):
        path = os.path.join(out_dir, name)
        data = files[name].encode("utf-8")
        try:
            with open(path, "rb") as f:
                if f.read() == data:
                    continue
        except FileNotFoundError:
            pass
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        written.append(path)
    return written
