"""Command line: ``python -m translator <command> ...`` (``python -m transgrad.translator``).

Stage: the driver around the front end (and, through ``cli_backend``, the back end).
Input: argv. Output: diagnostics on stderr, an exit status (0 clean, 1 errors, 2 usage).

Commands are a registry (Note [CLI registry]): each module adding commands exposes
``register(subparsers)``, which adds an ``argparse`` sub-parser per command and sets its
``func`` default to ``run(args) -> int``. This module registers ``check``; the back end's
``cli_backend.py`` (when present) registers ``emit`` and ``show``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from collections.abc import Iterable, Sequence

from .diagnostics import Diagnostic, TranslatorError, render_all
from .frontend import load_module, shipped_modules
from .shipped import shipped_formulas, shipped_module


def register(subparsers: argparse._SubParsersAction) -> None:
    check = subparsers.add_parser(
        "check",
        help="lint formula modules: report every translator error",
        description="Check formula modules (files, or directories of *.py) and print every "
        "diagnostic to stderr. Exit status: 0 when clean, 1 on any error.",
    )
    check.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a .py file, a directory, or the name of a shipped formula module or formula "
        "(e.g. unary, sin); "
        "default: all shipped formulas",
    )
    check.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    check.add_argument("--inplace", action="store_true",
                       help="also print each formula's in-place verdict (translator/inplace.py)")
    check.set_defaults(func=run_check)


def collect_paths(paths: Iterable[str]) -> list[str]:
    """Files as given; directories: their ``*.py`` files (not ``__init__.py``), sorted; a bare
    name that is not a path: the shipped formula module of that name, or defining that formula."""
    out: list[str] = []
    for p in paths:
        if not os.path.exists(p) and p.isidentifier():
            p = shipped_module(p) or p
        if os.path.isdir(p):
            for dirpath, dirnames, filenames in os.walk(p):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__")))
                out.extend(
                    os.path.join(dirpath, f)
                    for f in sorted(filenames)
                    if f.endswith(".py") and f != "__init__.py"
                )
        else:
            out.append(p)
    return out


def run_check(args: argparse.Namespace) -> int:
    files = collect_paths(args.paths or [shipped_formulas()])
    missing = [f for f in files if not os.path.isfile(f)]
    for f in missing:
        print(f"error: no such file or directory: {f}", file=sys.stderr)
    if missing:
        return 2
    diags: list[Diagnostic] = []
    modules = []
    for f in files:
        try:
            modules.append(load_module(f))
        except TranslatorError as e:
            diags.extend(e.diagnostics)
    if modules and importlib.util.find_spec(f"{__package__}.backend") is not None:
        # what the front end accepts must also be expressible in C++ (T4xx)
        diags.extend(importlib.import_module(f"{__package__}.backend").check_modules(
            modules, shipped_modules()))
    formulas = sum(1 for m in modules for f in m.formulas if not _has_error(m, f, diags))
    if getattr(args, "inplace", False):
        from .inplace import check_inplace

        for m in modules:
            for formula in m.formulas:
                v = check_inplace(formula)
                if v.kind != "none":
                    print(f"{formula.name}_: {v.kind}: {v.reason}")
    if diags:
        print(render_all(diags), file=sys.stderr)
    if not args.quiet:
        n = len(diags)
        print(
            f"checked {len(files)} module(s), {formulas} clean formula(s): "
            f"{n} error{'s' if n != 1 else ''}",
            file=sys.stderr,
        )
    return 1 if diags else 0


def _has_error(mod, f, diags: Sequence[Diagnostic]) -> bool:
    """Whether a diagnostic falls within formula ``f`` of ``mod`` (decorators included)."""
    first = min([f.loc.line, *(mod.positions[dec].start.line for dec in f.node.decorators)])
    last = mod.positions[f.node].end.line
    return any(d.loc.path == mod.path and first <= d.loc.line <= last for d in diags)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"python -m {__package__}",  # translator in a checkout, else transgrad.translator
        description="transgrad translator: check formulas, emit C++, show a formula's C++.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    register(sub)
    from .import_yaml import register as register_import_yaml  # derivatives.yaml importer

    register_import_yaml(sub)
    if importlib.util.find_spec(f"{__package__}.cli_backend") is not None:
        # the back end's commands (emit, show); an error inside it is not hidden
        importlib.import_module(f"{__package__}.cli_backend").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help(sys.stderr)
        return 2
    return int(args.func(args) or 0)
