"""The back-end driver: formula module paths -> generated C++, bindings and stubs on disk.

Stages: front end (``frontend.load_module``: parse, fence, lower, captures, saves; Note [One
analysis] there) -> ``verify.verify_module`` -> ``emit_cpp`` / ``emit_bindings`` / ``emit_stubs``.
Input: the paths of formula modules and the repository root (locations are relative to it). Output:
in ``out_dir``, ``<stem>.h``/``<stem>.cpp`` per module plus ``ops.h``, ``bindings.cpp``, ``_C.pyi``,
``_formula_facts.py`` (``emit_facts``), and the kernel declarations and bindings ``kernel_decls.h``
/ ``kernel_bindings.cpp`` (``emit_kernels``, from signatures.py).

Invariants: a file is rewritten only when its content changed (so the build recompiles only
what a formula edit touched); output is byte-reproducible (modules sorted by path, no
timestamps or absolute paths); any rejection is a ``TranslatorError`` carrying every
diagnostic, and then nothing is written.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence

from . import ir, model
from .diagnostics import TranslatorError
from .emit_bindings import emit_bindings
from .emit_cpp import emit_module, emit_ops_header
from .emit_facts import emit_facts
from .emit_kernels import emit_kernel_bindings, emit_kernel_header
from .emit_stubs import emit_stubs
from .frontend import load_module
from .saves import attach_saved
from .source.lower import lower_module, refusals
from .source.lower_env import Program, Signatures
from .verify import verify_module


def load_modules(paths: Sequence[str], root: str | None) -> list[model.Module]:
    """Run the front end on every path (all diagnostics of all modules together); locations
    are relative to ``root``, or to each module's own repository (``find_root``) when None."""
    modules: list[model.Module] = []
    diags: list = []
    for p in sorted(paths, key=lambda p: os.path.relpath(p, root or ".")):
        try:
            modules.append(load_module(p, root))
        except TranslatorError as e:
            diags.extend(e.diagnostics)
    if diags:
        raise TranslatorError(diags)
    return modules


def translate(modules: Sequence[model.Module], context: Sequence[model.Module] = (),
              ) -> tuple[tuple[ir.Module, ...], dict[str, str]]:
    """Lower, verify and emit ``modules``: their IR and ``{file name: text}``.

    ``modules`` and ``context`` are the front end's (``load_module``: they carry their IR).
    ``context`` holds other formula modules (the shipped formulas, for a user's module) that
    ``ops.NAME`` resolves against: a formula of ``modules`` hides one of the same name there.
    Only ``modules`` are emitted and only their diagnostics reported; ``ops.h`` declares both.
    """
    paths = {m.path for m in modules}
    names = {f.name for m in modules for f in m.formulas}
    extra = [dataclasses.replace(m, formulas=tuple(f for f in m.formulas if f.name not in names))
             for m in context if m.path not in paths]
    program = Program.build([*modules, *extra])
    lowered = tuple(_lowered(m, program.signatures) for m in modules)
    diags = [d for m in lowered for d in refusals(m)]
    diags.extend(d for d in program.diagnostics if d.loc.path in paths)
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
    # the context's formulas are only declared: their IR as the front end left it will do
    hidden = tuple(_declared(m) for m in extra)
    files["ops.h"] = emit_ops_header((*lowered, *hidden))
    files["bindings.cpp"] = emit_bindings(lowered)
    files["_C.pyi"] = emit_stubs(lowered)
    files["_formula_facts.py"] = emit_facts(modules)
    files["kernel_decls.h"] = emit_kernel_header()
    files["kernel_bindings.cpp"] = emit_kernel_bindings()
    return lowered, files


def _lowered(mod: model.Module, program: Signatures) -> ir.Module:
    """``mod``'s IR for ``program``: the front end's, unless the front end lowered it against
    other signatures (Note [One analysis] in frontend.py)."""
    if mod.lowered_against.agree_on(program, mod.lowered.signature_reads):
        return mod.lowered
    return attach_saved(lower_module(mod, program), mod)


def _declared(mod: model.Module) -> ir.Module:
    """What ``ops.h`` declares of context module ``mod`` (formulas ``translate`` hides
    dropped)."""
    names = {f.name for f in mod.formulas}
    return dataclasses.replace(mod.lowered, functions=tuple(
        f for f in mod.lowered.functions if f.name in names))


def check_modules(modules: Sequence[model.Module], context: Sequence[model.Module] = ()) -> list:
    """The back end's diagnostics (T4xx) for ``modules`` in ``context`` (as ``translate``),
    without writing anything."""
    try:
        translate(modules, context)
    except TranslatorError as e:
        return list(e.diagnostics)
    return []


def emit_modules(paths: Sequence[str], out_dir: str, root: str = ".",
                 context: Sequence[model.Module] = ()) -> list[str]:
    """Translate ``paths`` (in ``context``, as ``translate``) into ``out_dir``; returns the
    files (re)written."""
    _, files = translate(load_modules(paths, root), context)
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
