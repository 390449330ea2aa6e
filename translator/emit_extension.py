"""Back end for a user's extension: formula files -> the C++ sources of one Python extension
module built against an installed transgrad.

Input: the paths of the user's formula modules, the module's name and its op namespace. Output:
``{file name: text}`` (``emit_extension``) or those files in a directory
(``python -m transgrad.translator.emit_extension``, which ``transgrad_add_extension`` of the
CMake package and ``transgrad.extension.load`` run): ``<stem>.h``/``<stem>.cpp`` per module,
``ops.h`` (the user's formulas and the shipped ones they may call), ``bindings.cpp``
(``register_extension_ops``, binding only the user's formulas), ``extension_init.cpp`` (the
version check, ``register_extension_ops``, the op registry) and ``extension_module.cpp`` (the
module's CPython init calling it: Note [Extension module names]).

Invariants: the shipped formulas are the context (``ops.NAME`` resolves as it does in-tree;
the shipped C++ of those formulas lives in libtransgrad.so and is not emitted again); a formula
of the user's named like a shipped one hides it inside the extension only (its C++ symbols
have hidden visibility there), never in transgrad; any rejection is the translator's
``TranslatorError`` at the user's file:line, and then nothing is written. Uses only the public
entry points of ``backend`` (``load_modules``, ``translate``, ``write_files``).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence

from . import model
from .backend import load_modules, translate, write_files
from .diagnostics import TranslatorError
from .frontend import load_module
from .shipped import shipped_formulas, shipped_module
from .user_kernels import bind, declarations_header, declared, read_declarations

# What translate() writes for transgrad itself and an extension does not compile: the kernels
# and the shipped facts belong to libtransgrad.so.
_NOT_FOR_EXTENSIONS = ("kernel_decls.h", "kernel_bindings.cpp", "_formula_facts.py", "_C.pyi")

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def shipped_module_names() -> set[str]:
    """The stems of the shipped formula modules: their headers are on an extension's include
    path, so a user's module may not take one of these names."""
    root = shipped_formulas()
    names = os.listdir(root) if os.path.isdir(root) else []
    return {n[:-3] for n in names if n.endswith(".py") and n != "__init__.py"}


def check_extension_names(name: str, namespace: str, paths: Sequence[str]) -> None:
    """Raise ValueError when the module name, the namespace or a file name cannot be used."""
    for what, value in (("name", name), ("namespace", namespace)):
        if not _IDENTIFIER.match(value):
            raise ValueError(f"extension {what} {value!r} is not a Python identifier")
    taken = shipped_module_names()
    stems: dict[str, str] = {}
    for p in paths:
        stem = os.path.splitext(os.path.basename(p))[0]
        if not _IDENTIFIER.match(stem):
            raise ValueError(f"formula file {p}: its name must be a Python identifier")
        if stem in taken:
            raise ValueError(f"formula file {p}: transgrad ships a formula module named "
                             f"{stem!r}; give your module another name")
        if stem in stems:
            raise ValueError(f"formula files {stems[stem]} and {p} have the same name {stem!r}")
        if stem in (name, "ops", "bindings", "extension_module", "extension_init", "user_kernels"):
            raise ValueError(f"formula file {p}: {stem!r} is a name the extension's generated "
                             "files use; give your module another name")
        stems[stem] = p


def emit_extension(paths: Sequence[str], name: str, namespace: str,
                   root: str | None = None, module: str | None = None,
                   kernels: str | None = None) -> dict[str, str]:
    """The C++ of extension ``name`` from the formula modules ``paths``: the Python module
    ``module`` (default ``name``; Note [Extension module names]). ``kernels`` is the package's
    kernel file (translator/user_kernels.py): its kernels are callable from ``paths`` and
    declared in ``user_kernels.h``, which ``ops.h`` includes and the C++ bodies define."""
    check_extension_names(name, namespace, paths)
    module = module or name
    if not _IDENTIFIER.match(module):
        raise ValueError(f"extension module name {module!r} is not a Python identifier")
    table = read_declarations(kernels) if kernels else {}
    bind(paths, table)
    with declared(table):
        modules = load_modules(paths, root)
        context = [load_module(p) for p in context_paths(modules)]
        lowered, files = translate(modules, context)
    for generated in _NOT_FOR_EXTENSIONS:
        files.pop(generated, None)
    # The extension's own register_ops (libtransgrad.so exports transgrad's under that name).
    files["bindings.cpp"] = files["bindings.cpp"].replace(
        "transgrad._C.ops.NAME", f"{name}.NAME").replace(
        "void register_ops(", "void register_extension_ops(")
    files["extension_init.cpp"] = _extension_init(name, namespace, [m.path for m in lowered],
                                                   extension_ops(paths, root))
    files["extension_module.cpp"] = _module_init(module)
    if kernels:
        files["user_kernels.h"] = declarations_header(table, kernels)
        files["ops.h"] = files["ops.h"].replace(
            '#include "kernels/kernels.h"\n',
            '#include "kernels/kernels.h"\n#include "user_kernels.h"\n', 1)
    return files


# Note [Extension context]
# The shipped formulas are the context a user's ops.NAME resolves in, but running the front end on
# all of them takes most of a JIT build (tens of seconds on a busy machine). Their C++ is in
# libtransgrad.so already and an extension needs only the declarations of what it calls, so the
# context is the shipped modules defining the ops the user's modules call (the names their
# lowering looked up: ``ir.Module.signature_reads``) plus those of the operators (tensor operators
# lower to add, mul, matmul, neg, pow_scalar, ...; the generated ops.h defines the operators over
# them). A shipped formula outside this context is still in libtransgrad.so; the user's module
# just cannot call it without naming it.
_OPERATOR_MODULES = ("binary", "linalg", "unary")


def context_paths(modules: Sequence[model.Module]) -> list[str]:
    """The shipped modules a user's ``modules`` are translated in (Note [Extension context])."""
    own = {f.name for m in modules for f in m.formulas} | {h.name for m in modules
                                                           for h in m.helpers}
    names: set[str] = set()
    for m in modules:
        names |= set(m.lowered.signature_reads) - own
    root = shipped_formulas()
    found = {os.path.join(root, f"{stem}.py") for stem in _OPERATOR_MODULES}
    for name in names:
        path = shipped_module(name)
        if path is not None:
            found.add(path)
    user = {os.path.abspath(m.path) for m in modules}
    return sorted(p for p in found if os.path.isfile(p) and os.path.abspath(p) not in user)


def extension_ops(paths: Sequence[str], root: str | None = None) -> dict[str, str]:
    """The formulas of the user's modules ``paths``: ``{name: "path:line"}`` with the file's
    absolute path (what an op registry names when two files claim one op)."""
    by_stem = {os.path.splitext(os.path.basename(p))[0]: os.path.abspath(p) for p in paths}
    return {f.name: f"{by_stem.get(m.name, m.path)}:{f.loc.line}"
            for m in load_modules(paths, root) for f in m.formulas}


# Note [Extension module names]
# pybind11 (3.x) caches the module a PYBIND11_MODULE init made, by name, in internals shared by
# every module of the process: a second library whose init has the same name gets the first
# one's module back, without running its own init. A JIT extension rebuilt after an edit, or a
# second file claiming the same namespace, would then silently be the old module. So the init
# is plain CPython (extension_module.cpp: PyInit_<module>, where ``module`` may carry the build's
# key, ``name_<key>``, and it compiles in a fraction of a second), and everything pybind11 does
# lives in extension_init.cpp, which does not depend on the module's name and is reused
# across rebuilds.


def _module_init(module: str) -> str:
    return f"""\
// Generated by transgrad.translator.emit_extension: the CPython init of extension module
// {module} (Note [Extension module names] in translator/emit_extension.py). Do not edit.
#include <Python.h>

int transgrad_extension_init(PyObject* module);  // extension_init.cpp

static struct PyModuleDef module_def = {{PyModuleDef_HEAD_INIT, "{module}", nullptr, -1,
                                         nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMODINIT_FUNC PyInit_{module}(void) {{
  PyObject* m = PyModule_Create(&module_def);
  if (m == nullptr) return nullptr;
  if (transgrad_extension_init(m) != 0) {{
    Py_DECREF(m);
    return nullptr;
  }}
  return m;
}}
"""


def _extension_init(name: str, namespace: str, sources: Sequence[str],
                    ops: dict[str, str]) -> str:
    listed = "\n".join(f"//   {s}" for s in sources)
    sources_of_ops = "\n".join(f"    ops[{_cpp_string(op)}] = {_cpp_string(src)};"
                                for op, src in sorted(ops.items()))
    return f"""\
// Generated by transgrad.translator.emit_extension: what the init of extension {name}
// (op namespace {namespace}) does, from
{listed}
// Do not edit.
#include <pybind11/pybind11.h>

#include <exception>

#include "python/registration.h"
#include "transgrad_version.h"

// The transgrad version these headers belong to; a build may state another one (the test of
// the version check does), which the check below then refuses.
#ifndef TG_BUILT_AGAINST_VERSION
#define TG_BUILT_AGAINST_VERSION TRANSGRAD_VERSION
#endif

void register_extension_ops(pybind11::module_& m);  // bindings.cpp

int transgrad_extension_init(PyObject* module) {{
  try {{
    auto m = pybind11::reinterpret_borrow<pybind11::module_>(module);
    // transgrad._C registers the Tensor type and the error translators this module's ops use.
    pybind11::module_::import("transgrad");
    tg::python::check_extension_abi("{name}", TG_BUILT_AGAINST_VERSION, PYBIND11_VERSION_HEX);
    m.attr("__transgrad_namespace__") = "{namespace}";
    m.attr("__transgrad_version__") = TG_BUILT_AGAINST_VERSION;
    register_extension_ops(m);
    // Each op's file:line, for the op registry: tg.ops.{namespace}.NAME, and the error naming
    // both files when another extension claims the same namespace and name.
    pybind11::dict ops;
{sources_of_ops}
    m.attr("__transgrad_ops__") = ops;
    pybind11::module_::import("transgrad.extension").attr("register_extension")(m);
    return 0;
  }} catch (pybind11::error_already_set& e) {{
    e.restore();
  }} catch (pybind11::builtin_exception& e) {{
    e.set_error();
  }} catch (const std::exception& e) {{
    PyErr_SetString(PyExc_ImportError, e.what());
  }}
  return -1;
}}
"""


def _cpp_string(text: str) -> str:
    """A C++ string literal of ``text`` (paths may hold quotes and backslashes)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m transgrad.translator.emit_extension",
        description="Translate a user's formula modules into the C++ of one extension module.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="formula modules (.py)")
    parser.add_argument("--name", required=True, help="the Python module name")
    parser.add_argument("--namespace", help="the op namespace (default: the name)")
    parser.add_argument("--out", required=True, metavar="DIR", help="output directory")
    parser.add_argument("--kernels", default=None, metavar="KERNELS_PY",
                        help="the package's kernel declarations (translator/user_kernels.py)")
    parser.add_argument("--root", default=None,
                        help="locations are relative to it (default: each file's project)")
    args = parser.parse_args(argv)
    try:
        files = emit_extension(args.paths, args.name, args.namespace or args.name, args.root,
                               kernels=args.kernels)
    except TranslatorError as e:
        print(str(e).lstrip("\n"), file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    write_files(files, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
