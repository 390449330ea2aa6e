"""Lower, environment: types, scopes, the program's signatures and errors (part of ``lower``).

Used by ``lower`` (the pass). Input: annotation spellings, model modules. Output: ``ir.Type``s,
the ``Program`` (every formula and helper by name), ``Scope``s, ``LowerError``s.

The back end's codes are the T4xx family of ``diagnostic_codes.REGISTRY`` (the front end
owns T1xx-T3xx).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from . import ir, model
from .diagnostics import Diagnostic, make_diagnostic

_SIMPLE_TYPES = {
    "Tensor": ir.TENSOR, "Sequence[Tensor]": ir.TENSOR_LIST, "list[Tensor]": ir.TENSOR_LIST,
    "int": ir.INT, "float": ir.FLOAT, "Scalar": ir.FLOAT, "bool": ir.BOOL, "Shape": ir.SHAPE,
    "Dims": ir.SHAPE, "tuple[int, ...]": ir.SHAPE, "DType": ir.DTYPE, "None": ir.NONE,
}
DTYPE_NAMES = ("bool", "int64", "float32", "float64")
def parse_type(spelling: str) -> ir.Type | None:
    """The IR type of an annotation / signature spelling; None when it has none."""
    s = spelling.replace("Tuple[", "tuple[").replace("List[", "list[").strip()
    if s in _SIMPLE_TYPES:
        return _SIMPLE_TYPES[s]
    if s.startswith("Optional[") and s.endswith("]"):
        inner = parse_type(s[len("Optional["):-1])
        return ir.optional(inner) if inner is not None and inner.kind not in (
            "None", "Tuple", "TensorList") else None
    if s.startswith("(") and s.endswith(")"):
        elems = [parse_type(p) for p in s[1:-1].split(",") if p.strip()]
        if elems and all(e is not None for e in elems):
            return ir.tuple_of(*elems)  # type: ignore[arg-type]
    return None


class LowerError(Exception):
    """A T4xx diagnostic; ``diagnostic`` is None for a read of a poisoned name (a name whose
    statement already failed: its error was reported there)."""

    def __init__(self, diagnostic: Diagnostic | None):
        super().__init__(diagnostic.render() if diagnostic else "poisoned name")
        self.diagnostic = diagnostic


@dataclasses.dataclass
class Scope:
    vars: dict[str, ir.Type] = dataclasses.field(default_factory=dict)
    params: set[str] = dataclasses.field(default_factory=set)
    narrowed: set[str] = dataclasses.field(default_factory=set)  # Optionals known not None
    outer: Scope | None = None                              # the forward, in a backward
    bound: dict[str, model.Loc] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Program:
    """Every formula, composite and helper of the program, by name."""

    formulas: dict[str, tuple[model.Formula, model.Module]]
    helpers: dict[str, tuple[model.Helper, model.Module]]
    diagnostics: list[Diagnostic]

    @staticmethod
    def build(modules: Sequence[model.Module]) -> Program:
        p = Program({}, {}, [])
        nodes: dict[str, model.Formula] = {}
        for mod in modules:
            for f in mod.formulas:
                if f.name in p.formulas:
                    other = p.formulas[f.name][0].loc
                    p.diagnostics.append(diag(mod, "T403", f.loc, f"formula `{f.name}` is "
                                               f"also defined at {other}",
                                               "give one of them another name"))
                elif f.backward is not None:
                    cls = ir.node_class_name(f.name)
                    first = nodes.setdefault(cls, f)
                    if first is not f:
                        p.diagnostics.append(diag(
                            mod, "T403", f.loc, f"formulas `{first.name}` ({first.loc}) and "
                            f"`{f.name}` would both compile to the C++ node `{cls}`",
                            "rename one of them"))
                p.formulas[f.name] = (f, mod)
            for h in mod.helpers:
                p.helpers.setdefault(h.name, (h, mod))
        return p


def diag(mod: model.Module, code: str, loc: model.Loc, message: str, hint: str) -> Diagnostic:
    return make_diagnostic(code, loc, message, hint, mod.source)


def pretty(t: ir.Type) -> str:
    return {"TensorList": "list of tensors", "Optional[Tensor]": "Tensor"}.get(str(t), str(t))
