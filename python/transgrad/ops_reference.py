"""The op reference: every shipped formula and every public function written in Python over
them -> ``docs/OPS.md``.

Stage: documentation, run by hand or by the test that keeps the checked-in page current
(``tests/api/test_ops_reference.py``, as docs/DIAGNOSTICS.md is kept). Input: the shipped
formulas (``transgrad.lang.REGISTRY``, namespace ``transgrad``), the translator's in-place
verdicts, and the public namespaces (``tg``, ``tg.linalg``, ``tg.special``). Output: Markdown,
one table per formula module: each op's signature, the first paragraph of its docstring, its
formula's ``file:line``, its in-place verdict and the public names (torch's) that reach it; then
one table per module of ``python/transgrad/_api/`` of the public functions defined there (the
composites over the formulas: fmax, copysign, sinc, mode, ...), each with its ``file:line``.

Invariants: the text depends only on the formulas and the API's source (sorted by module, then
by line), so it is reproducible; it needs the translator (libcst) for the verdicts, as the build
does.

    python -m transgrad.ops_reference [--out docs/OPS.md]
"""

from __future__ import annotations

import ast
import inspect
import os
import textwrap
from typing import Any, Dict, List, Optional, Sequence

import transgrad.reference as api
from transgrad import lang
from transgrad._generated import generated_file_cli

COMMAND = "PYTHONPATH=python:. python -m transgrad.ops_reference --out docs/OPS.md"

VERDICTS = {  # the in-place verdict kinds, as Note [In-place variants] in translator/inplace.py
    "safe": "the backward does not read the input's value: `x.NAME_()` writes into x",
    "copy": "the backward reads x; the formula asks for a copy, which the node saves",
    "unsafe": "the backward reads x: refused while autograd records (runs under no_grad)",
    "composite": "no backward of its own: runs on a copy of x",
    "none": "no in-place variant (the first parameter is not a Tensor, or several outputs)",
}


def signature(fdef: lang.FormulaDef) -> str:
    """``name(x: Tensor, dims: Optional[Dims] = None) -> Tensor``, as written in the formula
    (read from its source, so the language's aliases such as ``Dims`` stay)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fdef.fn)))
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    args = node.args.args
    defaults = [None] * (len(args) - len(node.args.defaults)) + list(node.args.defaults)
    params = []
    for a, default in zip(args, defaults):
        text = a.arg + (f": {ast.unparse(a.annotation)}" if a.annotation else "")
        if default is not None:
            text += f" = {ast.unparse(default)}" if a.annotation else f"={ast.unparse(default)}"
        params.append(text)
    ret = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"{fdef.name}({', '.join(params)}){ret}"


def first_paragraph(doc: Optional[str]) -> str:
    """The docstring's first paragraph on one line ('' without a docstring)."""
    if not doc:
        return ""
    para = inspect.cleandoc(doc).split("\n\n", 1)[0]
    return " ".join(line.strip() for line in para.splitlines())


def location(fdef: lang.FormulaDef) -> str:
    """``formulas/unary.py:206``: the line of ``def NAME`` in the checkout's formulas/."""
    path, _, line = fdef.source.rpartition(":")
    return f"formulas/{os.path.basename(path)}:{line}"


def _link(where: str) -> str:
    path, _, line = where.rpartition(":")
    return f"[{where}](../{path}#L{line})"


def verdicts(names: List[str]) -> Dict[str, str]:
    """The translator's in-place verdict kind of each formula ('?' when it cannot tell)."""
    from transgrad._api.inplace_verdicts import translator_verdict

    out = {}
    for name in names:
        v = translator_verdict(name)
        out[name] = v.kind if v is not None else "?"
    return out


def public_names(name: str) -> List[str]:
    """Where the op ``name`` is reachable by torch's public names (the same on both engines:
    one API, tests/api/test_namespaces.py)."""
    places = (("tg", api), ("Tensor", api.Tensor), ("F", api.nn.functional),
              ("linalg", api.linalg), ("special", api.special))
    return [f"{prefix}.{name}" for prefix, where in places
            if callable(getattr(where, name, None))]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_ops_reference() -> str:
    """docs/OPS.md: the shipped formulas as Markdown tables, one per formula module."""
    lang.load_builtin_formulas()
    fdefs = sorted(lang.REGISTRY.values(),
                   key=lambda d: (d.module, int(d.source.rpartition(":")[2] or 0)))
    kinds = verdicts([d.name for d in fdefs])
    lines = ["# Op reference", "",
             f"Generated from the formulas in `formulas/` by `{COMMAND}`; do not edit.",
             "Every op is `transgrad.ops.NAME` and `transgrad.reference.ops.NAME` (namespace "
             "`transgrad`); the public names column lists torch's names that reach it "
             "(`tg` = `transgrad`, `F` = `transgrad.nn.functional`).", "",
             "In-place verdicts (may `x.NAME_()` run while autograd records; the rule is "
             "Note [In-place variants] in translator/inplace.py; where torch has no `NAME_` "
             "method the verdict is what the formula would allow):", ""]
    lines += [f"- **{k}**: {v}" for k, v in VERDICTS.items()]
    module = None
    for d in fdefs:
        if d.module != module:
            module = d.module
            short = module.rsplit(".", 1)[-1]
            lines += ["", f"## {short} (`formulas/{short}.py`)", "",
                      "| op | signature | formula | in place | public names | description |",
                      "|---|---|---|---|---|---|"]
        lines.append(f"| `{d.name}` | `{_cell(signature(d))}` | {_link(location(d))} "
                     f"| {kinds[d.name]} | {', '.join(public_names(d.name))} "
                     f"| {_cell(first_paragraph(d.fn.__doc__))} |")
    return "\n".join(lines + render_api_functions()) + "\n"


# modules of _api whose public functions are not ops (switches, printing, grad mode, legacy types)
NOT_OPS = frozenset({"settings", "printing", "grad_mode", "legacy"})
NAMESPACES = (("tg", api), ("linalg", api.linalg), ("special", api.special))


def api_functions() -> Dict[Any, List[str]]:
    """The public functions defined in ``transgrad._api`` (ops, not switches: NOT_OPS), each with
    the public names that reach it (``tg.``, ``linalg.``, ``special.``, and ``Tensor.`` where the
    method of that name exists)."""
    found: Dict[Any, List[str]] = {}
    for prefix, space in NAMESPACES:
        for name in sorted(dir(space)):
            fn = getattr(space, name)
            module = getattr(fn, "__module__", "") or ""
            if (name.startswith("_") or not inspect.isfunction(fn)
                    or not module.startswith("transgrad._api.")
                    or module.rsplit(".", 1)[-1] in NOT_OPS):
                continue
            found.setdefault(fn, []).append(f"{prefix}.{name}")
    for fn, names in found.items():
        method = fn.__name__
        if callable(getattr(api.Tensor, method, None)):
            names.append(f"Tensor.{method}")
    return found


def api_location(fn: Any) -> str:
    """``python/transgrad/_api/composites.py:391``: the line of the function's ``def``."""
    fn = inspect.unwrap(fn)  # a view function's wrapper (views.py) cites the def it wraps
    path = inspect.getsourcefile(fn) or ""
    lines, start = inspect.getsourcelines(fn)
    line = start + next(i for i, text in enumerate(lines) if text.lstrip().startswith("def "))
    return f"python/transgrad/_api/{os.path.basename(path)}:{line}"


def render_api_functions() -> List[str]:
    """The tables of the public functions written in Python over the formulas."""
    found = api_functions()
    rows = sorted(((api_location(fn), fn, names) for fn, names in found.items()),
                  key=lambda r: (r[0].rpartition(":")[0], int(r[0].rpartition(":")[2])))
    lines = ["", "# Public functions defined in Python", "",
             "torch's names that are not a formula of their own: compositions of the ops above, "
             "argument handling around one, or values computed on the data "
             "(`python/transgrad/_api/`, one definition for both engines). Gradients are those "
             "of the ops they call."]
    module = None
    for where, fn, names in rows:
        path = where.rpartition(":")[0]
        if path != module:
            module = path
            lines += ["", f"## {os.path.basename(path)[:-3]} (`{path}`)", "",
                      "| function | public names | definition | description |",
                      "|---|---|---|---|"]
        lines.append(f"| `{fn.__name__}` | {', '.join(names)} | {_link(where)} "
                     f"| {_cell(first_paragraph(fn.__doc__))} |")
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    return generated_file_cli(render_ops_reference, "python -m transgrad.ops_reference",
                              "Write the op reference (docs/OPS.md).", argv)


if __name__ == "__main__":
    raise SystemExit(main())
