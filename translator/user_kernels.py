"""A package's own raw kernels (issue 12 item 5): their declarations, read and put in scope.

Stage: beside the front end. Input: a user's kernel file (``kernels.py``), whose module-level
``KERNELS = \"\"\"...\"\"\"`` holds declarations in the text format of ``signatures.py``, beside
the numpy bodies (the reference engine's) and a ``.cpp`` of the same stem (the C++ bodies).
Output: ``read_declarations`` -> ``{name: KernelSig}``; ``declared(table)`` puts such a table in
scope for the checker and lowering, which look kernels up with ``kernel_signature`` /
``kernel_names`` (the shipped table merged with the one in scope); ``bind`` ties a package's
formula files to its table, so the front end analyses them with it whenever it runs
(``table_of``, ``fingerprint``: part of its cache keys); ``declarations_header`` ->
the C++ declarations (``user_kernels.h``) the generated code and the user's ``.cpp`` include.

Invariants: a user kernel never shadows a shipped one (a ValueError at the declaration's
file:line); the file is read, never executed, so the compiled path runs no user Python.

Note [Kernel table in scope]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The shipped table is module-level (``signatures.KERNELS``) and read from the checker, the kind
analysis and lowering, several calls deep. A user table is in scope for one translation or one
reference import (``with declared(table):``, a ContextVar, so threads and other loads never see
it), rather than a parameter threaded through every checker and lowerer: it keeps the
translator's own files to a one-line change each. Outside ``declared`` the table is the shipped
one, exactly as before. The front end may analyse a file later, outside any such block (the
reference engine reads a formula's model at its first call), so a load also ``bind``s its
formula files to the table and the front end enters ``declared(table_of(path))`` itself; the
table's ``fingerprint`` is part of its cache keys, so a file checked with one table is never
taken as checked with another.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import os
import types
from collections.abc import Iterator, Mapping, Sequence

from .emit_kernels import declaration
from .signatures import KERNELS, KernelSig, _parse

_in_scope: contextvars.ContextVar[Mapping[str, KernelSig]] = contextvars.ContextVar(
    "transgrad_user_kernels", default=types.MappingProxyType({}))
_by_file: dict[str, Mapping[str, KernelSig]] = {}  # a package's formula file -> its table


def read_declarations(path: str) -> dict[str, KernelSig]:
    """The kernels declared by ``path``'s module-level ``KERNELS`` string; ValueError at the
    file:line of a missing table, a bad declaration, or a name transgrad ships."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "KERNELS"):
            if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
                raise ValueError(f"{path}:{node.lineno}: KERNELS must be a string literal of "
                                 "declarations, as in translator/signatures.py")
            table = _parse(node.value.value, first_line=node.value.lineno, source=path)
            break
    else:
        raise ValueError(f"{path}: no module-level KERNELS = \"\"\"...\"\"\" declaring the "
                         "package's kernels (the format of translator/signatures.py)")
    if not table:
        raise ValueError(f"{path}: KERNELS declares no kernel")
    for sig in table.values():
        if sig.name in KERNELS:
            raise ValueError(f"{path}:{sig.line}: kernel {sig.name!r} is one of transgrad's "
                             "own (translator/signatures.py); a package's kernel may not shadow "
                             "it: give it another name")
    return table


@contextlib.contextmanager
def declared(table: Mapping[str, KernelSig]) -> Iterator[None]:
    """``table``'s kernels callable as ``kernel.NAME`` inside the block (Note [Kernel table in
    scope])."""
    token = _in_scope.set(table)
    try:
        yield
    finally:
        _in_scope.reset(token)


def bind(paths: Sequence[str], table: Mapping[str, KernelSig]) -> None:
    """The formula files ``paths`` are analysed with ``table`` in scope from now on (the last
    load of a file decides; an empty table unbinds it)."""
    for p in paths:
        if table:
            _by_file[os.path.abspath(p)] = table
        else:
            _by_file.pop(os.path.abspath(p), None)


def table_of(path: str) -> Mapping[str, KernelSig]:
    """The package table for analysing ``path``: the one in scope, else the one it is bound to."""
    return _in_scope.get() or _by_file.get(os.path.abspath(path), {})


def fingerprint(path: str) -> str:
    """The declarations ``path`` is analysed with, as text ("" for none)."""
    return ";".join(f"{s.name}{s.params}{s.returns}" for s in table_of(path).values())


def kernel_signature(name: str) -> KernelSig | None:
    """The declaration of ``kernel.NAME``: shipped, or of the package's table in scope."""
    return KERNELS.get(name) or _in_scope.get().get(name)


def kernel_names() -> list[str]:
    """Every kernel name in scope (for "did you mean" suggestions)."""
    return [*KERNELS, *_in_scope.get()]


def declarations_header(table: Mapping[str, KernelSig], source: str) -> str:
    """``user_kernels.h``: the C++ declarations of ``table`` in ``tg::kernel``, beside the
    shipped ones (a body may call them), hidden in the extension (two extensions may each
    define a kernel of one name)."""
    lines = [f"// Generated by transgrad.translator.user_kernels from {source}. Do not edit.",
             "#pragma once", "", "#include <cstdint>", "#include <optional>", "#include <tuple>",
             "#include <vector>", "", '#include "kernels/kernels.h"  // the shipped kernels',
             '#include "tensor/tensor.h"', "", "namespace tg::kernel {",
             ""]
    lines += [f'__attribute__((visibility("hidden"))) {declaration(sig)}'
              for sig in table.values()]
    return "\n".join(lines + ["", "}  // namespace tg::kernel", ""])
