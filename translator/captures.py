"""Captures: THE CAPTURE RULE (DESIGN §2) — what each backward may read from its forward.

Stage 4 of the front end. Input: a ``Module`` and its IR, lowered alone (``frontend``).
Output: the same module with ``Backward.captures`` filled (one ``Capture`` per name the
backward reads from the formula's scope, classified INPUT / ATTRIBUTE / OUTPUT, with
``metadata_only``), plus a diagnostic (T2xx) for every capture the rule rejects.

How (Note [Capture analysis]): ``scopes.outer_reads`` gives every read, in the backward (and
the comprehensions/lambdas nested in it), of a name of the formula's own scope: the captures.
How each was bound (assignment, unpacking, loop, after the backward) is read off the forward's
statements; bindings are counted per execution path: ``if c: s = a`` / ``else: s = b`` binds
``s`` once, a binding inside a loop body binds it many times. What each holds is read off the
IR (Note [The capture rule reads the IR]).

Also reported here, anywhere in a formula or helper: the ways to smuggle a capture past this
analysis (default arguments of backward T206, ``nonlocal``/``global`` T207, lambdas and nested
functions T208, ``:=`` T210).

Invariants: the analysis over-approximates tensor-ness (a value that may be a tensor is one),
so it can reject a valid formula but never accept a capture that breaks double backward.

Note [The capture rule reads the IR]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Whether a captured local is a tensor, a scalar read out of tensor data (ITEM: T205) or a list
(MUTABLE: T209), and the type an attribute capture is spelled with, come from the IR of the
module lowered alone against ``shipped_signatures().merged([mod])`` (lower_env.py, Note
[Signatures as data]): its type (``provenance.forward_types``; a tensor, a list of tensors or
a tuple holding one is a tensor) and its provenance (``provenance.forward_provenance``, Note
[Provenance]). This holds where the compiled back end refuses the code, because lowering is
total over what the fence accepts (lower.py, Notes [Total lowering] and [Typing is total]):
a refused statement keeps the value lowering typed through its refusal, and the reference
engine, which runs formulas the compiled engine refuses, gets the same verdict. A name whose
value is untyped (a Python error too: an unknown kernel, a builtin outside the subset) is
given no capture: its forward raises before a backward exists (and in the corpus its module
is rejected for that error: tests/translator/backend/test_provenance.py, ``_NO_IR_VALUE``);
the binding rules (T203/T204/T212) still judge it, worded as for a value that may be a tensor.
The change from the source-level inference (``kinds``) left every verdict, message and
emitted line as it was (tools/translator_oracle.py), and only re-spelled 11 attribute types.

Still read off the source: the reads (``scopes``), how and where names are bound, the
metadata-only reads, and the smuggling checks; the fence still infers tensor-ness on the
source with ``kinds.KindEnv`` (T307, number operands), so ``kinds`` stays for it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import libcst as cst

from . import ir
from .diagnostics import Diagnostic, make_diagnostic
from .messages import capture_message, format_message
from .model import Capture, CaptureKind, Formula, Loc, Module
from .provenance import forward_provenance, forward_types
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


def collect_captures(mod: Module, lowered: ir.Module) -> tuple[Module, list[Diagnostic]]:
    """Fill ``Backward.captures`` of every formula of ``mod`` (``lowered``: its IR, lowered
    alone); diagnose every capture the rule rejects."""
    diags: list[Diagnostic] = _smuggled(mod)
    functions = {f.name: f for f in lowered.functions}
    refused = {r.loc.line: r for r in lowered.refused}
    formulas = []
    for f in mod.formulas:
        if f.backward is None or not f.outputs:  # composite, or malformed (fence: T107)
            formulas.append(f)
            continue
        fn = functions.get(f.name) or refused.get(f.loc.line)
        facts = (forward_types(fn), forward_provenance(lowered, fn)) if fn else ({}, {})
        captures = _FormulaCaptures(mod, f, diags, *facts).run()
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
    def __init__(self, mod: Module, f: Formula, diags: list[Diagnostic],
                 types: dict[str, ir.Type], flags: dict[str, int]):
        self.mod, self.f, self.diags = mod, f, diags
        self.types, self.flags = types, flags  # of the forward's names, off the IR
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
        for i, stmt in enumerate(self.body):
            if i != self.bw_index:
                self._walk_bindings(stmt, i)
        self.counts = _path_counts(self.body, self.bw_index)
        accesses = self._captured_accesses()
        meta = self.meta = _metadata_reads(self.bw_node.body)
        out = []
        for name in sorted(accesses, key=lambda n: self._pos(accesses[n][0])):
            nodes = accesses[name]
            cap = self._classify(name, nodes)
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

    def _walk_bindings(self, stmt: cst.CSTNode, index: int) -> None:
        if isinstance(stmt, cst.BaseSmallStatement):
            self._record_small(stmt, index)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._record_small(small, index)
        elif isinstance(stmt, (cst.If, cst.For, cst.While)):
            blocks = if_branches(stmt)[1] if isinstance(stmt, cst.If) else [stmt.body.body]
            if isinstance(stmt, cst.For):
                self._record_target(stmt.target, "loop", index)
            for block in blocks:
                for inner in block:
                    self._walk_bindings(inner, index)
        self._record_walrus(stmt, index)

    def _record_small(self, small: cst.CSTNode, index: int) -> None:
        if isinstance(small, cst.Assign):
            for t in small.targets:
                self._record_target(t.target, "assign", index)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._record_target(small.target, "assign", index)
        elif isinstance(small, cst.AugAssign):
            self._record_target(small.target, "aug", index)

    def _record_target(self, t: cst.BaseExpression, how: str, index: int) -> None:
        if isinstance(t, cst.Name):
            self.bindings.setdefault(t.value, []).append(
                _Binding(self.mod.loc_of(t), how, index)
            )
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                self._record_target(el.value, "unpack" if how == "assign" else how, index)

    def _record_walrus(self, stmt: cst.CSTNode, index: int) -> None:
        for node in find(stmt, cst.NamedExpr, skip=(cst.FunctionDef, cst.Lambda)):
            if isinstance(node.target, cst.Name):
                self.bindings.setdefault(node.target.value, []).append(
                    _Binding(self.mod.loc_of(node.target), "walrus", index)
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

    def _classify(self, name: str, nodes: list[cst.Name]) -> Capture | None:
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
        t, flags = self.types.get(name), self.flags.get(name, 0)
        after = [b for b in binds if b.index > self.bw_index]
        tensor = t is None or _holds_tensors(t)  # untyped: judged as a tensor may be
        if after and len(binds) > 1:
            self._reject("T204", at, name, bound, tensor, others=[after[0].loc])
        elif any(b.how == "loop" for b in binds):
            self._reject("T212", at, name, bound, tensor)
        elif self.counts.get(name, 0) > 1:
            self._reject("T203", at, name, bound, tensor, others=[b.loc for b in binds[1:]])
        elif name in f.outputs:
            return Capture(name, CaptureKind.OUTPUT, "Tensor", bound, False)
        elif flags & ir.MUTABLE:
            self._reject("T209", at, name, bound)
        elif t is not None and tensor:
            code = "T211" if binds[0].how == "unpack" else "T201"
            only = all(id(n) in self.meta for n in nodes)
            attrs = sorted({self.meta[id(n)] for n in nodes}) if only else []
            self._reject(code, at, name, bound, metadata=attrs)
        elif flags & ir.ITEM:
            self._reject("T205", at, name, bound)
        elif t is not None:
            return Capture(name, CaptureKind.ATTRIBUTE, str(t), bound, False)
        # else its value is untyped, an error in Python too (Note [Typing is total] in
        # lower.py): the forward raises before a backward exists, and the module is rejected
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


def _holds_tensors(t: ir.Type) -> bool:
    """Whether a value of type ``t`` is or holds a tensor (what the rule refuses to save)."""
    return t.is_tensor or t == ir.TENSOR_LIST or any(_holds_tensors(e) for e in t.elems)


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
