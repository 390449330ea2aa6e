"""The op reference: every shipped formula -> ``docs/OPS.md``.

Stage: documentation, run by hand or by the test that keeps the checked-in page current
(``tests/api/test_ops_reference.py``, as docs/DIAGNOSTICS.md is kept). Input: the shipped
formulas (``transgrad.lang.REGISTRY``, namespace ``transgrad``) and the translator's in-place
verdicts. Output: Markdown, one table per formula module: each op's signature, the first
paragraph of its docstring, its formula's ``file:line`` and its in-place verdict.

Invariants: the text depends only on the formulas (sorted by module, then by line), so it is
reproducible; it needs the translator (libcst) for the verdicts, as the build does.

    python -m transgrad.ops_reference [--out docs/OPS.md]
"""

from __future__ import annotations

import ast
import inspect
import os
import textwrap
from typing import Dict, List, Optional, Sequence

from transgrad import lang
from transgrad._generated import generated_file_cli

COMMAND = "PYTHONPATH=python:. python -m transgrad.ops_reference --out docs/OPS.md"

VERDICTS = {  # the in-place verdict kinds (translator/inplace.py), as the page explains them
    "safe": "`x.NAME_()` runs in place",
    "copy": "runs in place; the formula saves a copy of the input first",
    "composite": "runs on a copy (a composite: its inner ops decide)",
    "unsafe": "refused while autograd records (the backward reads the input)",
    "none": "no in-place variant (not a same-shape op)",
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
             "`transgrad`); most also have torch's public name (`transgrad.NAME`, a Tensor "
             "method, `transgrad.nn.functional.NAME`).", "",
             "In-place verdicts (may `x.NAME_()` run while autograd records; "
             "Note [In-place variants] in translator/inplace.py):", ""]
    lines += [f"- **{k}**: {v}" for k, v in VERDICTS.items()]
    module = None
    for d in fdefs:
        if d.module != module:
            module = d.module
            short = module.rsplit(".", 1)[-1]
            lines += ["", f"## {short} (`formulas/{short}.py`)", "",
                      "| op | signature | formula | in place | description |",
                      "|---|---|---|---|---|"]
        lines.append(f"| `{d.name}` | `{_cell(signature(d))}` | {_link(location(d))} "
                     f"| {kinds[d.name]} | {_cell(first_paragraph(d.fn.__doc__))} |")
    return "\n".join(lines) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    return generated_file_cli(render_ops_reference, "python -m transgrad.ops_reference",
                              "Write the op reference (docs/OPS.md).", argv)


if __name__ == "__main__":
    raise SystemExit(main())
