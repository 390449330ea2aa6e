"""Captures: THE CAPTURE RULE (DESIGN §2) — what each backward may read from its forward.

Stage 3 of the front end. Input: a ``Module`` that passed ``fence``. Output: the same module
with ``Backward.captures`` filled (one ``Capture`` per name the backward reads from the
formula's scope, classified INPUT / ATTRIBUTE / OUTPUT, with ``metadata_only``), plus a
diagnostic (T2xx) for every capture the rule rejects.

How (Note [Capture analysis]): ``scopes.outer_reads`` gives every read, in the backward (and
the comprehensions/lambdas nested in it), of a name of the formula's own scope: the captures.
What was bound there is learned by walking the forward in order with a ``kinds.KindEnv``,
which infers for every name whether its value may be a tensor (kernel/ops calls, tensor
parameters, arithmetic on tensors), a scalar read out of tensor data (``kernel.item``, also
through arithmetic) or a mutable container. Metadata (``.shape``, ``.ndim``, ``.dtype``,
``.numel``, ``len`` of a shape, arithmetic on those) is never a tensor.
Bindings are counted per execution path: ``if c: s = a`` / ``else: s = b`` binds ``s`` once,
a binding inside a loop body binds it many times.

Also reported here, anywhere in a formula or helper: the ways to smuggle a capture past this
analysis (default arguments of backward T206, ``nonlocal``/``global`` T207, lambdas and nested
functions T208, ``:=`` T210).

Invariants: the analysis over-approximates tensor-ness (a value that may be a tensor is one),
so it can reject a valid formula but never accept a capture that breaks double backward.

Note [The capture rule reads the source]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The rule is decided here, on the libcst tree of one module, and not as a pass over the back
end's IR (issue #10 item 3 asks for the latter; tested in tests/translator/test_frontend.py,
``test_capture_rule_*``). Three properties of lowering stood in the way; where each stands:

* lowering was partial; it is now total (lower.py, Notes [Total lowering] and [Typing is
  total]): a refused statement stays in the IR as an ``ir.Refused`` with its T4xx and the
  value lowering typed through the refusal, so its names have a type and a provenance. Only
  a value that is a Python error too (an unknown kernel, a builtin outside the subset) stays
  untyped: four names in the corpus, each in a module the fence rejects
  (tests/translator/backend/test_provenance.py, ``_NO_IR_VALUE``); on every other name a
  backward captures the IR's type is a tensor exactly where ``kinds`` says so and its
  provenance gives the same ITEM/MUTABLE (same test).
* lowering needed the whole program; the front end now lowers each module alone against
  ``shipped_signatures().merged([mod])`` (lower_env.py, Note [Signatures as data]; the shipped
  table is build data, read without libcst).
* the IR's types did not carry what the rule decides on; ``Expr.prov`` now carries ITEM and
  MUTABLE (provenance.py, Note [Provenance]), and ``Capture.type`` of an attribute capture is
  its local's IR type (``provenance.forward_types``): one shape type (``Shape``, no ``Dims``),
  ``math.prod``/``round`` ints.

What remains: ``_FormulaCaptures`` reads its TENSOR/ITEM/MUTABLE facts off ``kinds.KindEnv``,
not off the IR it is given.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import libcst as cst

from . import ir
from .diagnostics import Diagnostic, make_diagnostic
from .kinds import (
    ITEM,
    MUTABLE,
    TENSOR,
    KindEnv,
    ModuleInfo,
    gather_module_info,
    param_types,
)
from .messages import capture_message, format_message
from .model import Capture, CaptureKind, Formula, Loc, Module
from .provenance import forward_types
from .scopes import outer_reads
from .subset import METADATA, TENSOR_TYPES
from .syntax import find, if_branches, target_names

# ---------------------------------------------------------------------------------------------
# The capture rule


@dataclasses.dataclass
class _Binding:
    loc: Loc
    how: str  # "assign", "unpack", "aug", "loop", "walrus"
    index: int  # index of the enclosing top-level statement of the formula body
    value: cst.BaseExpression | None = None


def collect_captures(mod: Module, lowered: ir.Module) -> tuple[Module, list[Diagnostic]]:
    """Fill ``Backward.captures`` of every formula of ``mod`` (``lowered``: its IR, lowered
    alone); diagnose every capture the rule rejects."""
    info = gather_module_info(mod)
    diags: list[Diagnostic] = _smuggled(mod)
    functions = {f.name: f for f in lowered.functions}
    refused = {r.loc.line: r for r in lowered.refused}
    formulas = []
    for f in mod.formulas:
        if f.backward is None or not f.outputs:  # composite, or malformed (fence: T107)
            formulas.append(f)
            continue
        fn = functions.get(f.name) or refused.get(f.loc.line)
        types = forward_types(fn) if fn is not None else {}
        captures = _FormulaCaptures(mod, f, info, diags, types).run()
        formulas.append(
            dataclasses.replace(f, backward=dataclasses.replace(f.backward, captures=captures))
        )
    return dataclasses.replace(mod, formulas=tuple(formulas)), diags


def _smuggled(mod: Module) -> list[Diagnostic]:
    """T206-T208, T210: ways to smuggle a capture past the analysis, anywhere in a function."""
    out: list[Diagnostic] = []

    def report(key: str, node: cst.CSTNode, /, **fields: object) -> None:
        code, message, hint = format_message(key, **fields)
        out.append(make_diagnostic(code, mod.loc_of(node), message, hint, mod.source))

    functions = [(f.name, f.node, f.backward is not None) for f in mod.formulas]
    functions += [(h.name, h.node, False) for h in mod.helpers]
    kinds = (cst.Nonlocal, cst.Global, cst.Lambda, cst.FunctionDef, cst.NamedExpr)
    for name, fn, has_backward in functions:
        top = set(fn.body.body) if has_backward else set()
        for node in find(fn.body, kinds):
            if isinstance(node, (cst.Nonlocal, cst.Global)):
                keyword = "nonlocal" if isinstance(node, cst.Nonlocal) else "global"
                report("nonlocal", node, keyword=keyword, name=name)
            elif isinstance(node, cst.Lambda):
                report("lambda", node, name=name)
            elif isinstance(node, cst.NamedExpr):
                report("walrus", node, name=name)
            elif node.name.value == "backward" and node in top:
                for p in (*node.params.params, *node.params.posonly_params):
                    if p.default is not None:
                        report("default_argument", p, name=name, param=p.name.value)
            elif node.name.value != "backward":
                report("nested_function", node.name, function=node.name.value, name=name)
    return out


class _FormulaCaptures:
    def __init__(self, mod: Module, f: Formula, info: ModuleInfo, diags: list[Diagnostic],
                 types: dict[str, ir.Type]):
        self.mod, self.f, self.info, self.diags, self.types = mod, f, info, diags, types
        body = list(f.node.body.body)
        self.bw_index = next(
            i
            for i, s in enumerate(body)
            if isinstance(s, cst.FunctionDef) and s.name.value == "backward"
        )
        self.bw_node: cst.FunctionDef = body[self.bw_index]  # type: ignore[assignment]
        self.body = body
        self.bindings: dict[str, list[_Binding]] = {}
        self.counts: dict[str, int] = {}

    def run(self) -> tuple[Capture, ...]:
        env = self.env = KindEnv(self.info, param_types(self.f.params))
        for i, stmt in enumerate(self.body):
            if i != self.bw_index:
                self._walk_bindings(stmt, i, env)
        self.counts = _path_counts(self.body, self.bw_index)
        accesses = self._captured_accesses()
        meta = self.meta = _metadata_reads(self.bw_node.body)
        out = []
        for name in sorted(accesses, key=lambda n: self._pos(accesses[n][0])):
            nodes = accesses[name]
            cap = self._classify(name, nodes, env)
            if cap is None:
                continue
            if (
                cap.kind in (CaptureKind.INPUT, CaptureKind.OUTPUT)
                and cap.type in ("Tensor", "Optional[Tensor]")
                and all(id(n) in meta for n in nodes)
            ):
                attrs = tuple(sorted({meta[id(n)] for n in nodes}))
                cap = dataclasses.replace(cap, metadata_only=True, metadata=attrs)
            out.append(cap)
        return tuple(out)

    # -- what the forward binds ---------------------------------------------------------------

    def _walk_bindings(self, stmt: cst.CSTNode, index: int, env: KindEnv) -> None:
        if isinstance(stmt, cst.BaseSmallStatement):
            self._record_small(stmt, index, env)
            env.bind_statement(stmt)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._record_small(small, index, env)
                env.bind_statement(small)
        elif isinstance(stmt, (cst.If, cst.For, cst.While)):
            # a value chosen by a branch (or loop) on data is data too: control dependence
            saved = env.control
            blocks: list[Sequence[cst.CSTNode]]
            if isinstance(stmt, cst.If):
                tests, blocks = if_branches(stmt)
            else:
                tests = [stmt.iter if isinstance(stmt, cst.For) else stmt.test]
                blocks = [stmt.body.body]
            env.control |= ITEM if any(env.kind_of(t) & ITEM for t in tests) else 0
            if isinstance(stmt, cst.For):
                env.bind_target(stmt.target, env.kind_of(stmt.iter) & ~MUTABLE)
                self._record_target(stmt.target, "loop", index, None)
            for block in blocks:
                for inner in block:
                    self._walk_bindings(inner, index, env)
            env.control = saved
        self._record_walrus(stmt, index)

    def _record_small(self, small: cst.CSTNode, index: int, env: KindEnv) -> None:
        if isinstance(small, cst.Assign):
            for t in small.targets:
                self._record_target(t.target, "assign", index, small.value)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._record_target(small.target, "assign", index, small.value)
        elif isinstance(small, cst.AugAssign):
            self._record_target(small.target, "aug", index, small.value)

    def _record_target(self, t: cst.BaseExpression, how: str, index: int, value) -> None:
        if isinstance(t, cst.Name):
            self.bindings.setdefault(t.value, []).append(
                _Binding(self.mod.loc_of(t), how, index, value)
            )
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                self._record_target(el.value, "unpack" if how == "assign" else how, index, None)

    def _record_walrus(self, stmt: cst.CSTNode, index: int) -> None:
        for node in find(stmt, cst.NamedExpr, skip=(cst.FunctionDef, cst.Lambda)):
            if isinstance(node.target, cst.Name):
                self.bindings.setdefault(node.target.value, []).append(
                    _Binding(self.mod.loc_of(node.target), "walrus", index, None)
                )

    # -- what the backward reads --------------------------------------------------------------

    def _captured_accesses(self) -> dict[str, list[cst.Name]]:
        out = outer_reads(self.f.node, self.bw_node)
        for nodes in out.values():
            nodes.sort(key=self._pos)
        return out

    def _pos(self, node: cst.CSTNode) -> tuple[int, int]:
        loc = self.mod.loc_of(node)
        return (loc.line, loc.col)

    def _classify(self, name: str, nodes: list[cst.Name], env: KindEnv) -> Capture | None:
        f, at = self.f, nodes[0]
        params = {p.name: p for p in f.params}
        binds = self.bindings.get(name, [])
        if name == "backward" or any(b.how == "walrus" for b in binds):
            return None  # reported elsewhere (T208 recursion is not a capture; T210)
        if name in params:
            p = params[name]
            if binds:
                self._reject("T202", at, name, binds[0].loc, tensor=p.type in TENSOR_TYPES)
                return None
            kind = CaptureKind.INPUT if p.type in TENSOR_TYPES else CaptureKind.ATTRIBUTE
            return Capture(name, kind, p.type, p.loc, False)
        if not binds:
            return None
        bound = binds[0].loc
        flags = env.lookup(name)
        after = [b for b in binds if b.index > self.bw_index]
        tensor = bool(flags & TENSOR)
        if after and len(binds) > 1:
            self._reject("T204", at, name, bound, tensor, others=[after[0].loc])
        elif any(b.how == "loop" for b in binds):
            self._reject("T212", at, name, bound, tensor)
        elif self.counts.get(name, 0) > 1:
            self._reject("T203", at, name, bound, tensor, others=[b.loc for b in binds[1:]])
        elif name in f.outputs:
            return Capture(name, CaptureKind.OUTPUT, "Tensor", bound, False)
        elif flags & MUTABLE:
            self._reject("T209", at, name, bound)
        elif flags & TENSOR:
            code = "T211" if binds[0].how == "unpack" else "T201"
            only = all(id(n) in self.meta for n in nodes)
            attrs = sorted({self.meta[id(n)] for n in nodes}) if only else []
            self._reject(code, at, name, bound, metadata=attrs)
        elif flags & ITEM:
            self._reject("T205", at, name, bound)
        else:
            t = self.types.get(name)
            return Capture(name, CaptureKind.ATTRIBUTE, "" if t is None else str(t), bound, False)
        return None

    def _reject(
        self,
        code: str,
        node: cst.Name,
        name: str,
        bound: Loc,
        tensor: bool = True,
        others: Sequence[Loc] = (),
        metadata: Sequence[str] = (),
    ) -> None:
        at = self.mod.loc_of(node)
        message, hint = capture_message(
            code, name, self.f.name, bound, at, tensor, others, metadata
        )
        self.diags.append(
            make_diagnostic(code, at, message, hint, self.mod.source, width=len(name))
        )


# ---------------------------------------------------------------------------------------------
# Small analyses


def _path_counts(body: Sequence[cst.CSTNode], skip: int) -> dict[str, int]:
    """For each name, the most times one execution path of ``body`` binds it (loops: many)."""

    def block(stmts: Sequence[cst.CSTNode]) -> dict[str, int]:
        total: dict[str, int] = {}
        for s in stmts:
            for n, c in stmt(s).items():
                total[n] = total.get(n, 0) + c
        return total

    def stmt(s: cst.CSTNode) -> dict[str, int]:
        if isinstance(s, cst.If):
            out: dict[str, int] = {}
            for b in if_branches(s)[1]:
                for n, c in block(b).items():
                    out[n] = max(out.get(n, 0), c)
            return out
        if isinstance(s, (cst.For, cst.While)):
            inner = block(s.body.body)
            if isinstance(s, cst.For):
                for n in target_names(s.target):
                    inner[n] = inner.get(n, 0) + 1
            return {n: 2 * c for n, c in inner.items()}
        out = {}
        if isinstance(s, (cst.SimpleStatementLine, cst.BaseSmallStatement)):
            for small in s.body if isinstance(s, cst.SimpleStatementLine) else [s]:
                targets = []
                if isinstance(small, cst.Assign):
                    targets = [t.target for t in small.targets]
                elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                    targets = [small.target]
                for t in targets:
                    for n in target_names(t):
                        out[n] = out.get(n, 0) + 1
        return out

    return block([s for i, s in enumerate(body) if i != skip])


def _metadata_reads(node: cst.CSTNode) -> dict[int, str]:
    """id(Name) -> attribute, for every ``name.shape`` / ``.ndim`` / ``.dtype`` / ``.numel``,
    and ``defined`` for ``name is None`` / ``name is not None`` (whether a tensor was given is
    metadata too: the compiled node saves a flag, the reference engine the tensor's metadata)."""
    out: dict[int, str] = {}
    for attr in find(node, cst.Attribute):
        if isinstance(attr.value, cst.Name) and attr.attr.value in METADATA:
            out[id(attr.value)] = attr.attr.value
    for cmp in find(node, cst.Comparison):
        if (isinstance(cmp.left, cst.Name) and len(cmp.comparisons) == 1
                and isinstance(cmp.comparisons[0].operator, (cst.Is, cst.IsNot))
                and isinstance(cmp.comparisons[0].comparator, cst.Name)
                and cmp.comparisons[0].comparator.value == "None"):
            out[id(cmp.left)] = "defined"
    return out
