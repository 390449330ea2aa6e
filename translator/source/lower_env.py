"""Lower, environment: types, scopes, the program's signatures and errors (part of ``lower``).

Used by ``lower`` (the pass). Input: annotation spellings, model modules. Output: ``ir.Type``s,
the ``Signatures`` table (every formula's and helper's signature by name, plain data: Note
[Signatures as data]), the ``Program`` (that table and the T403 of names defined twice),
``Scope``s, ``LowerError``s.

The back end's codes are the T4xx family of ``diagnostic_codes.REGISTRY`` (the front end
owns T1xx-T3xx).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from .. import ir, model
from ..diagnostics import Diagnostic, make_diagnostic

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
    statement already failed: its error was reported there). ``value``: Note [Total
    lowering]."""

    def __init__(self, diagnostic: Diagnostic | None):
        super().__init__(diagnostic.render() if diagnostic else "poisoned name")
        self.diagnostic = diagnostic
        self.value: ir.Expr | None = None  # the refused assignment's value, when it lowered


@dataclasses.dataclass
class Scope:
    vars: dict[str, ir.Type] = dataclasses.field(default_factory=dict)
    params: set[str] = dataclasses.field(default_factory=set)
    narrowed: set[str] = dataclasses.field(default_factory=set)  # Optionals known not None
    outer: Scope | None = None                              # the forward, in a backward
    bound: dict[str, model.Loc] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class ParamSig:
    """A parameter as a caller binds it: its annotation as spelled and its literal default."""

    name: str
    type: str
    has_default: bool = False
    default: Any = None                 # parse's ``default_value`` (a literal) when has_default


@dataclasses.dataclass(frozen=True)
class OpSig:
    """What ``ops.NAME`` needs of a formula or composite of any module (Note [Signatures as
    data]): its parameters and the type a call returns."""

    params: tuple[ParamSig, ...]
    returns: ir.Type
    path: str = dataclasses.field(compare=False)  # the module defining it (no part of a call)


def param_sigs(params: Sequence[model.Param]) -> tuple[ParamSig, ...]:
    return tuple(ParamSig(p.name, p.type, p.default is not None, p.default_value)
                 for p in params)


def _call_type(f: model.Formula) -> ir.Type:
    if f.composite:
        t = parse_type(f.returns)
        return t if t is not None else ir.TENSOR
    n = len(f.visible_outputs)
    return ir.TENSOR if n == 1 else ir.tuple_of(*[ir.TENSOR] * n)


@dataclasses.dataclass(frozen=True)
class Signatures:
    """Note [Signatures as data]
    Lowering one module reads of the others only this table: each formula's and composite's
    parameters and call type (``ops.NAME``, and the ops the tensor operators stand for), and
    which module defines each helper (``ops.HELPER`` of another module is refused: T403). So a
    module can be lowered alone (``lower.lower_module``) against the table of the rest of the
    program, e.g. a user's module at import against the shipped formulas', and lowering it
    there gives the IR and diagnostics lowering the whole program gives it. The shipped
    formulas' table is build-time data (``SIGNATURES``/``HELPERS`` of ``_formula_facts.py``,
    ``of_facts``), read by ``shipped.shipped_signatures`` without parsing a shipped module."""

    ops: Mapping[str, OpSig]
    helpers: Mapping[str, str]          # helper name -> path of the first module defining it

    @staticmethod
    def of(modules: Sequence[model.Module]) -> Signatures:
        """The table of ``modules``: a formula defined twice (T403) is its last definition, a
        helper its first."""
        ops: dict[str, OpSig] = {}
        helpers: dict[str, str] = {}
        for mod in modules:
            for f in mod.formulas:
                ops[f.name] = OpSig(param_sigs(f.params), _call_type(f), mod.path)
            for h in mod.helpers:
                helpers.setdefault(h.name, mod.path)
        return Signatures(ops, helpers)

    @staticmethod
    def of_facts(ops: Mapping[str, tuple], helpers: Mapping[str, str]) -> Signatures:
        """The table ``emit_facts`` wrote as ``SIGNATURES`` and ``HELPERS``."""
        table = {}
        for name, (path, returns, params) in ops.items():
            t = parse_type(returns)
            assert t is not None and str(t) == returns, (name, returns)
            table[name] = OpSig(tuple(ParamSig(*p) for p in params), t, path)
        return Signatures(table, dict(helpers))

    def agree_on(self, other: Signatures, names: Sequence[str]) -> bool:
        """Whether this table and ``other`` say the same of each of ``names`` (what a module's
        lowering read of its table: Note [One analysis] in frontend.py)."""
        return all(self.ops.get(n) == other.ops.get(n) and
                   self.helpers.get(n) == other.helpers.get(n) for n in names)

    def merged(self, modules: Sequence[model.Module]) -> Signatures:
        """This table with ``modules``' entries over it (as ``of`` of both, these first)."""
        more = Signatures.of(modules)
        helpers = {**self.helpers, **more.helpers}  # a module's own helpers are its own
        return Signatures({**self.ops, **more.ops}, helpers)


@dataclasses.dataclass
class Program:
    """The program's signature table and the T403 of names it defines twice."""

    signatures: Signatures
    diagnostics: list[Diagnostic]

    @staticmethod
    def build(modules: Sequence[model.Module]) -> Program:
        p = Program(Signatures.of(modules), [])
        seen: dict[str, model.Formula] = {}
        nodes: dict[str, model.Formula] = {}
        for mod in modules:
            for f in mod.formulas:
                if f.name in seen:
                    other = seen[f.name].loc
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
                seen[f.name] = f
        return p


def diag(mod: model.Module, code: str, loc: model.Loc, message: str, hint: str) -> Diagnostic:
    return make_diagnostic(code, loc, message, hint, mod.source)


def pretty(t: ir.Type) -> str:
    return {"TensorList": "list of tensors", "Optional[Tensor]": "Tensor"}.get(str(t), str(t))
