"""Command line, back end: ``emit PATH... --out DIR`` and ``show NAME``.

Stage: the driver around ``backend`` (registered into ``cli.py``'s parser through
``register(subparsers)``, Note [CLI registry]). Input: argv. Output: generated files
(``emit``), or a formula's Python source beside its generated C++ (``show``); diagnostics on
stderr; exit status 0 (ok), 1 (translator errors), 2 (usage).

Invariants: ``emit`` rewrites only files whose content changed; ``show`` writes nothing.
"""

from __future__ import annotations

import argparse
import os
import sys

from .backend import emit_modules, load_modules, translate
from .diagnostics import TranslatorError
from .frontend import shipped_modules
from .shipped import shipped_formulas


def register(subparsers: argparse._SubParsersAction) -> None:
    emit = subparsers.add_parser(
        "emit", help="translate formula modules to C++, bindings and stubs",
        description="Translate formula modules into DIR: <module>.h/.cpp per module, ops.h, "
                    "bindings.cpp, _C.pyi and _formula_facts.py. Only files whose content changed "
                    "are rewritten.")
    emit.add_argument("paths", nargs="+", metavar="PATH", help="a .py file or a directory")
    emit.add_argument("--out", required=True, metavar="DIR", help="output directory")
    emit.add_argument("--root", default=".", help="repository root (locations are relative "
                      "to it; default: the current directory)")
    emit.add_argument("-v", "--verbose", action="store_true", help="list the files written")
    emit.set_defaults(func=run_emit)
    show = subparsers.add_parser(
        "show", help="a formula's Python source beside its generated C++",
        description="Print the Python formula NAME and the C++ generated from it, side by side "
                    "(or one after the other with --stacked).")
    show.add_argument("name", metavar="NAME", help="a formula, composite or helper name")
    show.add_argument("paths", nargs="*", metavar="PATH",
                      help="formula modules (default: the shipped formulas)")
    show.add_argument("--root", default=".", help="repository root (for PATHs)")
    show.add_argument("--stacked", action="store_true", help="Python first, then C++")
    show.add_argument("--width", type=int, default=0, help="total width (default: terminal)")
    show.set_defaults(func=run_show)


def _paths(paths: list[str]) -> list[str]:
    from .cli import collect_paths

    return collect_paths(paths)


def _context(paths: list[str]) -> list:
    """The shipped formula modules not among ``paths``: what a user's ``ops.NAME`` and
    operators resolve against, as ``check`` does."""

    return shipped_modules(exclude={os.path.abspath(p) for p in paths})


def run_emit(args: argparse.Namespace) -> int:
    paths = _paths(args.paths)
    try:
        written = emit_modules(paths, args.out, args.root, _context(paths))
    except TranslatorError as e:
        print(str(e).lstrip("\n"), file=sys.stderr)
        return 1
    if args.verbose:
        for w in written:
            print(f"wrote {w}", file=sys.stderr)
    return 0


def run_show(args: argparse.Namespace) -> int:

    paths = _paths(args.paths or [shipped_formulas()])
    root = args.root if args.paths else None
    try:
        modules = load_modules(paths, root)
        __, files = translate(modules, _context(paths))
    except TranslatorError as e:
        print(str(e).lstrip("\n"), file=sys.stderr)
        return 1
    found = _find(args.name, modules, files)
    if found is None:
        print(f"error: no formula or helper named {args.name!r} in {', '.join(paths)}",
              file=sys.stderr)
        return 2
    python, cpp = found
    verdict = _inplace_line(args.name, modules)
    if verdict:
        python += "\n\n" + verdict
    if args.stacked:
        print(python + "\n" + "-" * 40 + "\n" + cpp)
    else:
        width = args.width or _terminal_width()
        print(side_by_side(python, cpp, width))
    return 0


def _find(name: str, modules, files) -> tuple | None:
    for mod in modules:
        for entity in (*mod.formulas, *mod.helpers):
            if entity.name != name:
                continue
            start = entity.loc.line
            end = mod.positions[entity.node].end.line
            python = "\n".join(mod.source.splitlines()[start - 1:end])
            cpp = _cpp_of(files[f"{mod.name}.cpp"], mod.path, start)
            return python, cpp
    return None


def _inplace_line(name: str, modules) -> str:
    from .inplace import check_inplace

    for mod in modules:
        for f in mod.formulas:
            if f.name == name:
                v = check_inplace(f)
                return f"# in-place {name}_: {v.kind}: {v.reason}"
    return ""


def _cpp_of(text: str, path: str, line: int) -> str:
    """The top-level C++ entities (node class, function) marked ``// path:line``."""
    blocks, lines, keep = [], text.splitlines(), False
    marker = f"// {path}:{line}"
    for i, ln in enumerate(lines):
        if ln == marker and (i + 1 < len(lines)) and not lines[i + 1].startswith(" "):
            keep = True
        if keep:
            blocks.append(ln)
            if ln in ("}", "};"):
                keep = False
                blocks.append("")
    return "\n".join(blocks).rstrip()


def _terminal_width() -> int:
    try:
        return os.get_terminal_size().columns
    except OSError:
        return 160


def side_by_side(left: str, right: str, width: int) -> str:
    lw = max(20, (width - 3) // 2)
    a, b = left.splitlines(), right.splitlines()
    rows = []
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else ""
        y = b[i] if i < len(b) else ""
        rows.append(f"{x[:lw]:<{lw}} | {y}")
    return "\n".join(rows)
