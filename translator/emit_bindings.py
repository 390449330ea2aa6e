"""Emit bindings: every verified ``ir.Module`` -> ``bindings.cpp`` (pybind11).

Stage 3 of the back end, beside ``emit_cpp``. Input: IR only. Output: one C++ file defining
``void register_ops(pybind11::module_& m)``, which binds every public formula and composite as
``m.def("name", &tg::ops::name, py::arg("x"), py::arg("dims") = py::none(), ...)`` with the
formula's parameter names and defaults. Helpers are not bound (they are module-private).

Invariants: the Tensor class and ``tg::python::dtype_from_py`` come from the hand-written
module (csrc/python/); a formula is bound directly when pybind11 can convert all its
parameters, else through a lambda that converts DType parameters (any dtype spelling) and
Optional[Tensor] ones (None -> an undefined Tensor). Every op with Tensor parameters runs through
``tg::python::ReleaseGilIfLarge`` (Note [GIL in forward ops], csrc/python/common.h): the GIL is
released while the op runs when a Tensor argument is large, so several Python threads compute at
once; small ops keep it (releasing costs more than they take). Conversions that need Python
(dtypes) run before the GIL is released. Output is in module order and reproducible.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Sequence

from . import ir
from .cpp_expr import cname, float_literal, int_literal, param_type
from .cpp_wrap import wrap_text


def _default(e: ir.Expr) -> str:
    if isinstance(e, ir.Const):
        v = e.value
        if v is None:
            return "py::none()"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return f"int64_t{{{int_literal(v)}}}" if e.type == ir.INT else float_literal(float(v))
        if isinstance(v, float):
            return float_literal(v)
    if isinstance(e, ir.DTypeConst):
        return f'"{e.name}"'  # DType parameters are bound as Python objects: dtype_from_py
    if isinstance(e, ir.MakeTuple):
        return "tg::Shape{" + ", ".join(str(x.value) for x in e.elems) + "}"  # type: ignore
    raise AssertionError(f"unexpected default {e}")


def _qualify(t: str) -> str:
    return re.sub(r"\b(Tensor|Shape|DType)\b", r"tg::\1", t)


def _needs_wrapper(t: ir.Type) -> bool:
    return t == ir.DTYPE or (t.is_optional and (t.is_tensor or t.arg == ir.DTYPE))


def _wrapper_param(p: ir.Param) -> tuple[str, str]:
    """(the lambda's parameter, the argument passed to the formula) for a converted type."""
    n = cname(p.name)
    if p.type == ir.DTYPE:
        return f"py::handle {n}", f"tg::python::dtype_from_py({n})"
    if p.type.is_tensor:  # Optional[Tensor]: None -> an undefined Tensor
        return f"std::optional<tg::Tensor> {n}", f"{n} ? *{n} : tg::Tensor()"
    return (f"py::handle {n}", (f"{n}.is_none() ? std::optional<tg::DType>() : "
            f"std::optional<tg::DType>(tg::python::dtype_from_py({n}))"))


def _callable(f: ir.Function) -> str:
    """The function bound for ``f``: a lambda that converts what pybind11 cannot (dtypes,
    optional tensors), releases the GIL for large tensors, and calls the formula."""
    decls: list[str] = []
    converted: list[str] = []
    args: list[str] = []
    tensors: list[str] = []
    for p in f.params:
        n = cname(p.name)
        if _needs_wrapper(p.type):
            decl, arg = _wrapper_param(p)
            if p.type.is_tensor:  # std::optional<Tensor>: the guard reads it as is
                args.append(arg)
            else:  # a dtype: converted with the GIL held
                converted.append(f"    auto {n}_ = {arg};")
                args.append(f"{n}_")
        else:
            decl = f"{_qualify(param_type(p.type))} {n}"
            args.append(n)
        if p.type.is_tensor or p.type == ir.TENSOR_LIST:
            tensors.append(n)
        decls.append(decl)
    call = f"tg::ops::{cname(f.name)}({', '.join(args)})"
    body = converted[:]
    if tensors:
        body.append(f"    tg::python::ReleaseGilIfLarge nogil({', '.join(tensors)});")
    body.append(f"    return {call};")
    return "[](" + ", ".join(decls) + ") {\n" + "\n".join(body) + "\n  }"


def _doc_lines(doc: str | None) -> list[str]:
    """A docstring as adjacent C++ string literals, one per source line."""
    if not doc:
        return []
    rows = inspect.cleandoc(doc).split("\n")
    out: list[str] = []
    for i, row in enumerate(rows):
        row += "\n" if i < len(rows) - 1 else ""
        pieces = textwrap.wrap(row, 84, replace_whitespace=False, drop_whitespace=False)
        for piece in pieces or [row]:  # adjacent literals keep lines short
            piece = piece.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
            out.append(f'        "{piece}"')
    return out


def _arg_lines(args: list[str]) -> list[str]:
    """``args`` packed into lines within the 100 columns, 8 spaces in."""
    lines = [""]
    for a in args:
        if lines[-1] and len(lines[-1]) + len(a) + 10 > 100:
            lines.append("")
        lines[-1] += (", " if lines[-1] else "") + a
    lines = [f"        {line}," for line in lines]
    lines[-1] = lines[-1][:-1] + ");"
    return lines


def emit_bindings(modules: Sequence[ir.Module]) -> str:
    lines: list[str] = [
        "// Generated by transgrad.translator from formulas/*.py. Do not edit.",
        ("// Binds every formula as transgrad._C.ops.NAME; csrc/python/module.cpp calls "
        "register_ops."),
        "#include <pybind11/pybind11.h>", "#include <pybind11/stl.h>", "",
        "#include <optional>", "", '#include "ops.h"', '#include "python/common.h"',
        '#include "python/registration.h"', "", "namespace py = pybind11;", "",
        "void register_ops(py::module_& m) {"]
    for mod in modules:
        for f in mod.functions:
            args = []
            for p in f.params:
                a = f'py::arg("{p.name}")'
                if p.type.is_tensor and p.type.is_optional:
                    a = f'py::arg_v("{p.name}", py::none(), "None")' if (
                        p.default is not None) else a
                elif p.default is not None:
                    a += f" = {_default(p.default)}"
                args.append(a)
            lines.append(f"  // {f.loc.path}")  # no line: editing a body must not touch this file
            head, *body, end = _callable(f).split("\n")
            doc = _doc_lines(f.doc)
            if doc:  # the formula's docstring, for help(transgrad.ops.NAME)
                doc[-1] += ","
                lines += [f'  m.def("{f.name}", {head}', *body, f"{end},", *doc,
                          *_arg_lines(args)]
            else:
                lines += [f'  m.def("{f.name}", {head}', *body, f"{end}, {', '.join(args)});"]
    return wrap_text("\n".join(lines + ["}", ""]))
