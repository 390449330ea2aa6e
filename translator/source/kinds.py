"""Kinds: what a value of a formula may be, inferred from the source (used by ``fence``; the
capture rule reads the IR instead: Note [The capture rule reads the IR] in captures.py).

Input: a ``Module`` (its top-level names and helpers) and the statements of one function body,
walked in order. Output: for every name, kind flags saying whether its value may be a tensor
(kernel/ops calls, tensor parameters, arithmetic on tensors) or a mutable container.
Metadata (``.shape``, ``.ndim``, ``.dtype``, ``.numel``, ``len`` of a shape, arithmetic on
those) is never a tensor.

Invariants: the inference over-approximates tensor-ness (a value that may be a tensor is one).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import libcst as cst

from ..model import Module
from ..subset import METADATA, TENSOR_TYPES
from ..user_kernels import kernel_signature
from .syntax import dotted_name, walk

TENSOR, MUTABLE = 1, 4  # kind flags; 0 = plain non-tensor value
_NUMERIC_BUILTINS = frozenset({"min", "max", "abs", "int", "float", "bool", "sum", "round"})


# ---------------------------------------------------------------------------------------------
# What the module defines at the top level


@dataclasses.dataclass
class ModuleInfo:
    """Names defined at module level, and facts about helpers (transitively)."""

    lang: set[str]  # names imported from transgrad.lang
    modules: set[str]  # ``math`` when imported
    helpers: dict[str, str]  # helper name -> return annotation spelling
    constants: set[str]
    formulas: set[str]
    uses_kernels: set[str]  # helpers that (transitively) call kernel.*


def gather_module_info(mod: Module) -> ModuleInfo:
    lang: set[str] = set()
    modules: set[str] = set()
    for stmt in mod.tree.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.ImportFrom) and not isinstance(
                    small.names, cst.ImportStar
                ):
                    if dotted_name(small.module or cst.Name("_")) == "transgrad.lang":
                        for a in small.names:
                            bound = a.asname.name if a.asname else a.name
                            if isinstance(bound, cst.Name):
                                lang.add(bound.value)
                elif isinstance(small, cst.Import):
                    modules.update(
                        dotted_name(a.name) or "" for a in small.names if a.asname is None
                    )
    helpers = {h.name: h.returns for h in mod.helpers}
    calls = {h.name: _called_names(h.node) for h in mod.helpers}
    uses = {h for h, c in calls.items() if any(n.startswith("kernel.") for n in c)}
    for _ in range(len(helpers)):  # propagate through helpers calling helpers
        uses |= {h for h, c in calls.items() if c & uses}
    return ModuleInfo(
        lang,
        modules,
        helpers,
        {c.name for c in mod.constants},
        {f.name for f in mod.formulas},
        uses,
    )


def _called_names(node: cst.CSTNode) -> set[str]:
    return {dotted_name(n.func) or "" for n in walk(node) if isinstance(n, cst.Call)}


# ---------------------------------------------------------------------------------------------
# Kind inference


class KindEnv:
    """Kind flags (TENSOR | MUTABLE) of the names of one function body."""

    def __init__(
        self, info: ModuleInfo, param_types: dict[str, str], parent: KindEnv | None = None
    ):
        self.info = info
        self.parent = parent
        self.kinds: dict[str, int] = {
            n: (TENSOR if t in TENSOR_TYPES else 0) for n, t in param_types.items()
        }
        self.param_types = param_types  # annotation spellings of the function's parameters

    def param_type(self, name: str) -> str:
        """The annotation of parameter ``name`` of this function or an enclosing one ("" for
        a local or an unknown name)."""
        if name in self.param_types:
            return self.param_types[name]
        return self.parent.param_type(name) if self.parent else ""

    def lookup(self, name: str) -> int:
        if name in self.kinds:
            return self.kinds[name]
        return self.parent.lookup(name) if self.parent else 0

    def knows(self, name: str) -> bool:
        """True when ``name`` is bound here or in a parent, with a known kind."""
        return name in self.kinds or (self.parent is not None and self.parent.knows(name))

    def child(self) -> KindEnv:
        return KindEnv(self.info, {}, self)

    def set(self, name: str, kind: int) -> None:
        """Bind ``name``; a name bound on several paths keeps the join of its kinds."""
        self.kinds[name] = self.kinds.get(name, 0) | kind

    def bind_target(
        self, target: cst.BaseExpression, kind: int, value: cst.BaseExpression | None = None
    ) -> None:
        if isinstance(target, cst.Name):
            self.set(target.value, kind)
        elif isinstance(target, (cst.Tuple, cst.List)):
            values = None
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(
                target.elements
            ):
                values = [e.value for e in value.elements]
            for i, el in enumerate(target.elements):
                k = self.kind_of(values[i]) if values else kind & ~MUTABLE
                self.bind_target(el.value, k, values[i] if values else None)

    def bind_statement(self, small: cst.BaseSmallStatement) -> None:
        """Update the environment for one simple statement, in program order."""
        if isinstance(small, cst.Assign):
            k = self.kind_of(small.value)
            for t in small.targets:
                self.bind_target(t.target, k, small.value)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self.bind_target(small.target, self.kind_of(small.value), small.value)
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
            self.set(small.target.value, self.kind_of(small.value))

    def kind_of(self, e: cst.BaseExpression) -> int:
        if isinstance(e, cst.Name):
            return self.lookup(e.value)
        if isinstance(e, cst.Attribute):
            return 0 if e.attr.value in METADATA else self.kind_of(e.value)
        if isinstance(e, cst.Call):
            return self._call_kind(e)
        if isinstance(e, cst.Subscript):
            return self.kind_of(e.value) & ~MUTABLE
        if isinstance(e, cst.BinaryOperation):
            return self.kind_of(e.left) | self.kind_of(e.right)
        if isinstance(e, cst.UnaryOperation):
            return self.kind_of(e.expression) & ~MUTABLE
        if isinstance(e, cst.BooleanOperation):
            return self.kind_of(e.left) | self.kind_of(e.right)
        if isinstance(e, cst.Comparison):
            k = self.kind_of(e.left)
            for c in e.comparisons:
                k |= self.kind_of(c.comparator)
                if isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                    k &= ~TENSOR
            return k & ~MUTABLE
        if isinstance(e, cst.IfExp):
            return self.kind_of(e.body) | self.kind_of(e.orelse)
        if isinstance(e, cst.Tuple):
            return self._elements_kind(e.elements) & ~MUTABLE
        if isinstance(e, (cst.List, cst.Set)):
            return MUTABLE | self._elements_kind(e.elements)
        if isinstance(e, cst.Dict):
            return MUTABLE | self._elements_kind(
                [el for el in e.elements if isinstance(el, cst.DictElement)], attr="value"
            )
        if isinstance(e, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            env = self.child()
            for_in: cst.CompFor | None = e.for_in
            while for_in is not None:
                env.bind_target(for_in.target, env.kind_of(for_in.iter) & ~MUTABLE)
                for_in = for_in.inner_for_in
            elt = e.value if isinstance(e, cst.DictComp) else e.elt  # type: ignore[union-attr]
            k = env.kind_of(elt)
            return k if isinstance(e, cst.GeneratorExp) else (k | MUTABLE)
        if isinstance(e, cst.NamedExpr):
            return self.kind_of(e.value)
        return 0

    def _elements_kind(self, elements: Sequence[cst.CSTNode], attr: str = "value") -> int:
        k = 0
        for el in elements:
            k |= self.kind_of(getattr(el, attr))
        return k

    def _call_kind(self, call: cst.Call) -> int:
        name = dotted_name(call.func) or ""
        args = 0
        for a in call.args:
            args |= self.kind_of(a.value)
        if name.startswith("kernel."):
            sig = kernel_signature(name[7:])
            return 0 if sig is not None and sig.returns in ("int", "float") else TENSOR
        if name.startswith("ops."):
            return TENSOR
        if name in self.info.helpers:
            return TENSOR if "Tensor" in self.info.helpers[name] else 0
        if name in ("len", "range") or (
            isinstance(call.func, cst.Attribute) and call.func.attr.value in METADATA
        ):
            return 0
        if name in ("list", "dict", "set"):
            return MUTABLE | (args & ~MUTABLE)
        if name == "tuple":
            return args & ~MUTABLE
        if name in _NUMERIC_BUILTINS or name.startswith("math."):
            return args & ~MUTABLE
        return args & ~MUTABLE


def param_types(params: Sequence) -> dict[str, str]:
    return {p.name: p.type for p in params}
